//! Frames as JSON data (`inswitch decode --json`, and the Python binding): snake_case keys, numbers as
//! JSON numbers, enumerations as names (with the raw code beside them as `<name>_code` where a code can
//! be unnamed), flags as booleans, the frame's raw bytes once at the top. The schema is
//! `schemas/decode.schema.json` (checked against every frame kind in `tests/json_schema.rs`); the field
//! names follow docs/frames.md, and the Portals reduction header uses libfabric's (`struct
//! cxip_coll_hdr`: `seqno`, `arm`, `op`, `redcnt`, `resno`, `red_rc`, `repsum_m`, `repsum_ovflid`,
//! `retry`, `pad`, `cookie`).
//!
//! Values wider than 64 bits (the 128-bit PBV) are `0x` hex strings, plus the list of set bits; opaque
//! byte strings (payloads, reserved bytes) are lower-case hex strings.

use core::fmt::Write as _;

use serde_json::{json, Map, Value};

use crate::collective::{self, Body, CollectiveMessage};
use crate::frame::{decode, Decoded, FrameKind};
use crate::dllp::{Dllp, DllpType};
use crate::ethernet::SoftPortals;
use crate::error::Result;
use crate::flit::{self, FlitTlp};
use crate::portals::{ReductionFrame, ReductionOp, ReductionRc, FLAG_MULTICAST};
use crate::tlp::{Address, Header, MessageRouting, Tlp, TlpKind};

/// Version of the JSON layout (`schemas/decode.schema.json` `$id`); bumped when a key changes meaning.
pub const JSON_VERSION: u32 = 1;

/// The frame kind's name in JSON (`"kind"`) and the key of its object.
pub fn kind_name(kind: FrameKind) -> &'static str {
    match kind {
        FrameKind::Tlp => "tlp",
        FrameKind::FlitTlp => "flit",
        FrameKind::Dllp => "dllp",
        FrameKind::Portals => "portals",
        FrameKind::SoftPortals => "soft_portals",
        FrameKind::Collective => "collective",
    }
}

/// Lower-case hex of `b`, no prefix.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 * b.len());
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// libfabric's name of an rt_op code (`COLL_OPCODE_*` without the prefix, lower case), or `None`.
pub fn op_name(code: u8) -> Option<&'static str> {
    Some(match ReductionOp::from(code) {
        ReductionOp::Barrier => "barrier",
        ReductionOp::BitAnd => "bit_and",
        ReductionOp::BitOr => "bit_or",
        ReductionOp::BitXor => "bit_xor",
        ReductionOp::IntMin => "int_min",
        ReductionOp::IntMax => "int_max",
        ReductionOp::IntMinMaxLoc => "int_minmaxloc",
        ReductionOp::IntSum => "int_sum",
        ReductionOp::FltMin => "flt_min",
        ReductionOp::FltMax => "flt_max",
        ReductionOp::FltMinMaxLoc => "flt_minmaxloc",
        ReductionOp::FltMinNum => "flt_minnum",
        ReductionOp::FltMaxNum => "flt_maxnum",
        ReductionOp::FltMinMaxNumLoc => "flt_minmaxnumloc",
        ReductionOp::FltSumNoFtzRnd0 => "flt_sum_noftz_rnd0",
        ReductionOp::FltSumNoFtzRnd1 => "flt_sum_noftz_rnd1",
        ReductionOp::FltSumNoFtzRnd2 => "flt_sum_noftz_rnd2",
        ReductionOp::FltSumNoFtzRnd3 => "flt_sum_noftz_rnd3",
        ReductionOp::FltSumFtzRnd0 => "flt_sum_ftz_rnd0",
        ReductionOp::FltSumFtzRnd1 => "flt_sum_ftz_rnd1",
        ReductionOp::FltSumFtzRnd2 => "flt_sum_ftz_rnd2",
        ReductionOp::FltSumFtzRnd3 => "flt_sum_ftz_rnd3",
        ReductionOp::FltRepSum => "flt_repsum",
        ReductionOp::Unknown(_) => return None,
    })
}

/// An rt_op name for display: libfabric's, or `unknown`.
pub fn op_display(code: u8) -> &'static str {
    op_name(code).unwrap_or("unknown")
}

/// The human name of a non-flit TLP kind (`"completion"`, `"mem_write"`, ...).
pub fn tlp_kind_name(k: TlpKind) -> &'static str {
    match k {
        TlpKind::MemRead => "mem_read",
        TlpKind::MemReadLocked => "mem_read_locked",
        TlpKind::MemWrite => "mem_write",
        TlpKind::DeferrableMemWrite => "deferrable_mem_write",
        TlpKind::IoRead => "io_read",
        TlpKind::IoWrite => "io_write",
        TlpKind::CfgRead { .. } => "cfg_read",
        TlpKind::CfgWrite { .. } => "cfg_write",
        TlpKind::Message { .. } => "message",
        TlpKind::Completion { .. } => "completion",
        TlpKind::FetchAdd => "fetch_add",
        TlpKind::Swap => "swap",
        TlpKind::Cas => "cas",
        TlpKind::Prefix { .. } => "prefix",
        TlpKind::Unknown { .. } => "unknown",
    }
}

/// Decodes `bytes` as `kind` and returns the frame as JSON data:
/// `{"kind": "tlp", "length": 24, "raw": "<hex>", "tlp": {...}}` (schema: `schemas/decode.schema.json`).
/// This is the function `inswitch decode --json` prints and the Python binding calls.
pub fn to_json(kind: FrameKind, bytes: &[u8]) -> Result<Value> {
    let d = decode(kind, bytes)?;
    let mut m = Map::new();
    m.insert("kind".into(), json!(kind_name(kind)));
    m.insert("length".into(), json!(bytes.len()));
    m.insert("raw".into(), json!(hex(bytes)));
    m.insert(kind_name(kind).into(), decoded_json(&d));
    Ok(Value::Object(m))
}

/// The object of one decoded frame (without `kind`, `length`, `raw`).
pub fn decoded_json(d: &Decoded) -> Value {
    match d {
        Decoded::Tlp(t) => tlp_json(t),
        Decoded::FlitTlp(t) => flit_json(t),
        Decoded::Dllp(x) => dllp_json(x),
        Decoded::Portals(f) => portals_json(f),
        Decoded::SoftPortals(s) => soft_portals_json(s),
        Decoded::Collective(c) => collective_json(c),
    }
}

fn put(m: &mut Map<String, Value>, k: &str, v: Value) {
    m.insert(k.into(), v);
}

fn tlp_json(t: &Tlp) -> Value {
    let d = &t.dw0;
    let kind = t.kind();
    let mut m = Map::new();
    let prefixes: Vec<Value> =
        t.prefixes.iter().map(|p| json!({"end_to_end": p.end_to_end, "subtype": p.subtype, "content": p.content})).collect();
    put(&mut m, "prefixes", Value::Array(prefixes));
    put(&mut m, "fmt", json!(d.fmt));
    put(&mut m, "type_code", json!(d.tlp_type));
    put(&mut m, "type", json!(tlp_kind_name(kind)));
    put(&mut m, "with_data", json!(d.has_data()));
    match kind {
        TlpKind::CfgRead { type1 } | TlpKind::CfgWrite { type1 } => put(&mut m, "config_type1", json!(type1)),
        TlpKind::Message { routing, .. } => put(&mut m, "routing", json!(routing_name(routing))),
        TlpKind::Completion { locked, .. } => put(&mut m, "locked", json!(locked)),
        TlpKind::Prefix { end_to_end } => put(&mut m, "end_to_end", json!(end_to_end)),
        _ => {}
    }
    put(&mut m, "tc", json!(d.tc));
    put(&mut m, "t9", json!(d.t9));
    put(&mut m, "t8", json!(d.t8));
    put(&mut m, "attr2", json!(d.attr2));
    put(&mut m, "ln", json!(d.ln));
    put(&mut m, "th", json!(d.th));
    put(&mut m, "td", json!(d.td));
    put(&mut m, "ep", json!(d.ep));
    put(&mut m, "attr", json!(d.attr));
    put(&mut m, "at", json!(d.at));
    put(&mut m, "length", json!(d.length));
    put(&mut m, "length_dw", json!(d.length_dw()));
    let tag = t.tag().unwrap_or(0);
    let req = |m: &mut Map<String, Value>, r: &crate::tlp::RequestDw1| {
        put(m, "requester_id", json!(r.requester_id));
        put(m, "tag", json!(tag));
        put(m, "last_be", json!(r.last_be));
        put(m, "first_be", json!(r.first_be));
    };
    match &t.header {
        Header::Memory { req: r, address } | Header::Atomic { req: r, address } => {
            req(&mut m, r);
            put(&mut m, "address", json!(address.byte_address()));
            put(&mut m, "address_64", json!(matches!(address, Address::A64(_))));
            put(&mut m, "ph", json!(address.ph()));
        }
        Header::Io { req: r, address } => {
            req(&mut m, r);
            put(&mut m, "address", json!(u64::from(address.address_dw) << 2));
        }
        Header::Config { req: r, target } => {
            req(&mut m, r);
            put(&mut m, "completer_id", json!(target.target_id()));
            put(&mut m, "ext_register", json!(target.ext_register));
            put(&mut m, "register", json!(target.register));
            put(&mut m, "register_offset", json!(target.byte_offset()));
        }
        Header::Completion(h) => {
            put(&mut m, "completer_id", json!(h.completer_id));
            put(&mut m, "status", json!(h.status().name()));
            put(&mut m, "status_code", json!(h.status));
            put(&mut m, "bcm", json!(h.bcm));
            put(&mut m, "byte_count", json!(h.byte_count_bytes()));
            put(&mut m, "requester_id", json!(h.requester_id));
            put(&mut m, "tag", json!(tag));
            put(&mut m, "lower_address", json!(h.lower_address));
        }
        Header::Message(h) => {
            put(&mut m, "requester_id", json!(h.requester_id));
            put(&mut m, "tag", json!(tag));
            put(&mut m, "message", json!(h.code().name()));
            put(&mut m, "message_code", json!(h.message_code));
            if matches!(kind, TlpKind::Message { routing: MessageRouting::ByAddress, .. }) {
                put(&mut m, "address", json!(h.address()));
            } else {
                put(&mut m, "target_id", json!(h.target_id()));
                if h.is_vendor_defined() {
                    put(&mut m, "vendor_id", json!(h.vendor_id()));
                    put(&mut m, "vendor_data", json!(h.vendor_data()));
                } else {
                    put(&mut m, "dw2", json!(h.dw2));
                    put(&mut m, "dw3", json!(h.dw3));
                }
            }
        }
        Header::Raw(b) => put(&mut m, "header_rest", json!(hex(b))),
    }
    put(&mut m, "payload", json!(hex(&t.payload)));
    let ecrc = t.digest.map(|e| {
        json!({"value": e, "computed": t.compute_ecrc().ok(), "correct": t.check_ecrc().is_ok()})
    });
    put(&mut m, "ecrc", ecrc.unwrap_or(Value::Null));
    put(&mut m, "collective", collective::from_vdm(t).map(|c| collective_json(&c)).unwrap_or(Value::Null));
    Value::Object(m)
}

fn routing_name(r: MessageRouting) -> String {
    r.name()
}

/// The collective message carried by a flit-mode MsgD, if its payload is one (version and length
/// checked by the codec). Flit mode has no vendor-defined message codec here, so the payload decides.
pub fn flit_collective(t: &FlitTlp) -> Option<CollectiveMessage> {
    if !(0x70..=0x75).contains(&t.dw0.tlp_type) {
        return None;
    }
    CollectiveMessage::parse(&t.payload).ok().filter(|c| c.header.version == collective::VERSION)
}

fn flit_json(t: &FlitTlp) -> Value {
    let d = &t.dw0;
    let (base, data) = flit::type_info(d.tlp_type);
    let mut m = Map::new();
    put(&mut m, "prefixes", json!(t.prefixes));
    put(&mut m, "type_code", json!(d.tlp_type));
    put(&mut m, "type", json!(flit::type_name(d.tlp_type).to_ascii_lowercase()));
    put(&mut m, "header_base_dw", json!(base));
    put(&mut m, "with_data", json!(data));
    put(&mut m, "tc", json!(d.tc));
    put(&mut m, "ohc", json!(d.ohc));
    put(&mut m, "ohc_dw", json!(d.ohc_dw()));
    put(&mut m, "ts", json!(d.ts));
    put(&mut m, "trailer_dw", json!(d.trailer_dw()));
    put(&mut m, "attr", json!(d.attr));
    put(&mut m, "length", json!(d.length));
    if let Some(w) = t.dw1() {
        put(&mut m, "requester_id", json!(w.requester_id));
        put(&mut m, "ep", json!(w.ep));
        put(&mut m, "tag", json!(w.tag));
    }
    if let Some(a) = t.address() {
        put(&mut m, "address", json!(a));
    }
    put(&mut m, "header_dws", json!(t.header));
    put(&mut m, "ohc_a", json!(t.ohc_a()));
    put(&mut m, "ohc_b", json!(t.ohc_b()));
    put(&mut m, "ohc_c", json!(t.ohc_c()));
    put(&mut m, "ohc_e", json!(t.ohc_e()));
    put(&mut m, "payload", json!(hex(&t.payload)));
    put(&mut m, "trailer", json!(t.trailer));
    let ecrc = (d.ts == flit::TS_ECRC).then(|| json!({"correct": t.check_ecrc().is_ok(), "computed": t.compute_ecrc().ok()}));
    put(&mut m, "ecrc", ecrc.unwrap_or(Value::Null));
    put(&mut m, "collective", flit_collective(t).map(|c| collective_json(&c)).unwrap_or(Value::Null));
    Value::Object(m)
}

fn dllp_json(x: &Dllp) -> Value {
    let kind = x.kind();
    let [b0, b1, b2] = x.body;
    let mut m = Map::new();
    put(&mut m, "type", json!(kind.name()));
    put(&mut m, "type_code", json!(x.dllp_type));
    put(&mut m, "body", json!(u32::from_be_bytes([0, b0, b1, b2])));
    if matches!(kind, DllpType::Ack | DllpType::Nak) {
        put(&mut m, "seq", json!(x.seq()));
    }
    put(&mut m, "crc", json!({"value": x.crc, "correct": x.check_crc().is_ok()}));
    Value::Object(m)
}

/// The 12-byte reduction header with libfabric's field names.
fn reduction_header_json(f: &ReductionFrame) -> Value {
    let h = &f.header;
    let c = h.cookie();
    json!({
        "seqno": h.seqno,
        "arm": h.arm,
        "op": op_display(h.op),
        "op_code": h.op,
        "redcnt": h.count,
        "resno": h.resno,
        "red_rc": ReductionRc::from(h.rc).name(),
        "red_rc_code": h.rc,
        "repsum_m": h.repsum_m(),
        "repsum_ovflid": h.repsum_ovflid,
        "retry": h.retry,
        "pad": h.reserved,
        "cookie": {"value": h.cookie, "mcast_id": c.mcast_id(), "red_id": c.red_id(), "magic": c.magic()},
    })
}

fn portals_json(f: &ReductionFrame) -> Value {
    json!({
        "dfa": f.dfa,
        "tree": f.tree(),
        "reduction_id": f.reduction_id(),
        "sfa": f.sfa,
        "vni": f.vni,
        "command": f.command,
        "flags": f.flags,
        "multicast": f.flags & FLAG_MULTICAST != 0,
        "match_bits": f.match_bits,
        "header_data": f.header_data,
        "reserved": hex(&f.reserved),
        "idc_pad": hex(&f.idc_pad),
        "header": reduction_header_json(f),
        "data": f.data,
    })
}

fn mac(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(":")
}

fn soft_portals_json(s: &SoftPortals) -> Value {
    json!({
        "ethernet": {"destination": mac(&s.eth.dst), "source": mac(&s.eth.src), "ethertype": s.eth.ethertype},
        "portals": portals_json(&s.frame),
        "fcs": {"value": s.fcs, "computed": s.compute_fcs().ok(), "correct": s.check_fcs().is_ok()},
    })
}

fn pbv_members(pbv: u128) -> Vec<u32> {
    (0..128).filter(|i| pbv >> i & 1 != 0).collect()
}

/// A collective message as JSON.
pub fn collective_json(c: &CollectiveMessage) -> Value {
    let h = &c.header;
    let mut m = Map::new();
    put(&mut m, "version", json!(h.version));
    put(&mut m, "kind", json!(c.kind().name()));
    put(&mut m, "kind_code", json!(h.kind));
    put(&mut m, "non_posted", json!(h.non_posted));
    put(&mut m, "error_mark", json!(h.error_mark));
    put(&mut m, "retry", json!(h.retry));
    put(&mut m, "tid", json!(h.tid));
    put(&mut m, "cc_id", json!(h.cc_id));
    put(&mut m, "dmu_id", json!(h.dmu_id));
    put(&mut m, "p_id", if h.p_id == collective::NO_PARTICIPANT { Value::Null } else { json!(h.p_id) });
    let body = match &c.body {
        Body::Configuration { fixed, device_ids, subservient_ids } => json!({
            "master_id": fixed.master_id,
            "isl_port": fixed.isl_port,
            "validation": fixed.validation,
            "error_reporting": fixed.error_reporting,
            "subservient_timeout": fixed.subservient_timeout,
            "master_timeout": fixed.master_timeout,
            "pbv_table": device_ids,
            "subservient_ids": subservient_ids,
        }),
        Body::Initialization(b) => json!({
            "p_count": b.p_count,
            "operation": op_display(b.operation),
            "operation_code": b.operation,
            "accumulator": b.accumulator,
            "pbv": format!("{:#034x}", b.pbv),
            "pbv_members": pbv_members(b.pbv),
        }),
        Body::Control(b) => json!({
            "command": collective::Command::from(b.command).name(),
            "command_code": b.command,
            "p_count": b.p_count,
        }),
        Body::Data { fixed, operands } => json!({
            "operation": op_display(fixed.operation),
            "operation_code": fixed.operation,
            "status": ReductionRc::from(fixed.status).name(),
            "status_code": fixed.status,
            "contributions": fixed.contributions,
            "completion": collective::CompletionKind::from(fixed.completion).name(),
            "completion_code": fixed.completion,
            "operands": operands,
        }),
        Body::Error(b) => json!({
            "reason": collective::Reason::from(b.reason).name(),
            "reason_code": b.reason,
            "attempt": b.attempt,
            "engine_id": b.engine_id,
            "device_id": b.device_id,
        }),
        Body::Raw(b) => json!({"raw": hex(b)}),
    };
    put(&mut m, "body", body);
    Value::Object(m)
}
