//! `inswitch.encode(kind, fields)`: a frame from a dict of its fields, emitted by the frame codec itself
//! (so the codec's checks and messages apply). Keys are the Rust struct's field names, nested as the
//! structs nest; a missing field is 0; an unknown key or a value that does not fit its field is an error.
//! Checksums (`crc`, `fcs`) are computed when absent and taken as given otherwise (to build bad frames).
//! Every kind also takes the whole `decode --json` object (`decoded_shape`; TLPs only that: `tlp_encode`).

use inswitch_frames::collective::{Body, CollectiveMessage, CommonHeader, ConfigFixed, ControlBody, DataFixed, ErrorBody, InitBody, Kind};
use inswitch_frames::crc::dllp_crc16;
use inswitch_frames::decode::FrameKind;
use inswitch_frames::dllp::Dllp;
use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
use inswitch_frames::portals::{ReductionFrame, ReductionHeader};
use serde_json::Value;

use crate::dict_fields::{object, uint, R};

fn reduction_header(v: &Value) -> R<ReductionHeader> {
    let mut f = object("header", v)?;
    let h = ReductionHeader {
        cookie: f.u("cookie", 32)? as u32,
        reserved: f.u("reserved", 8)? as u8,
        retry: f.flag("retry")?,
        repsum_ovflid: f.u("repsum_ovflid", 8)? as u8,
        repsum_m: f.u("repsum_m", 8)? as u8,
        rc: f.u("rc", 8)? as u8,
        resno: f.u("resno", 16)? as u16,
        count: f.u("count", 32)? as u32,
        op: f.u("op", 8)? as u8,
        arm: f.flag("arm")?,
        seqno: f.u("seqno", 16)? as u16,
    };
    f.done()?;
    Ok(h)
}

fn reduction_frame(what: &str, v: &Value) -> R<ReductionFrame> {
    let mut f = object(what, v)?;
    let data = f.list("data", 64)?;
    if data.len() > 4 {
        return Err(format!("{what}.data: {} operands, at most 4", data.len()));
    }
    let mut fr = ReductionFrame {
        dfa: f.u("dfa", 32)? as u32,
        sfa: f.u("sfa", 32)? as u32,
        vni: f.u("vni", 16)? as u16,
        command: f.u("command", 8)? as u8,
        flags: f.u("flags", 8)? as u8,
        match_bits: f.u("match_bits", 64)?,
        header_data: f.u("header_data", 64)?,
        reserved: f.bytes("reserved")?,
        idc_pad: f.bytes("idc_pad")?,
        header: match f.sub("header")? {
            Some((_, h)) => reduction_header(h)?,
            None => ReductionHeader::default(),
        },
        ..ReductionFrame::default()
    };
    for (slot, d) in fr.data.iter_mut().zip(data) {
        *slot = d;
    }
    f.done()?;
    Ok(fr)
}

fn soft_portals(v: &Value) -> R<Vec<u8>> {
    let mut f = object("soft-portals", v)?;
    let eth = EthernetHeader { dst: f.bytes("dst")?, src: f.bytes("src")?, ethertype: f.u("ethertype", 16)? as u16 };
    let frame = match f.sub("frame")? {
        Some((_, fr)) => reduction_frame("frame", fr)?,
        None => ReductionFrame::default(),
    };
    let fcs = f.opt("fcs", 32)?;
    f.done()?;
    let mut s = SoftPortals::new(eth, frame).map_err(|e| e.to_string())?;
    if let Some(fcs) = fcs {
        s.fcs = fcs as u32;
    }
    s.to_bytes().map(|b| b.to_vec()).map_err(|e| e.to_string())
}

fn dllp(v: &Value) -> R<Vec<u8>> {
    let mut f = object("dllp", v)?;
    let mut d = Dllp { dllp_type: f.u("dllp_type", 8)? as u8, body: f.bytes("body")?, crc: 0 };
    d.crc = match f.opt("crc", 16)? {
        Some(c) => c as u16,
        None => dllp_crc16(&d.body_bytes()),
    };
    f.done()?;
    let mut out = vec![0u8; 6];
    let n = d.emit(&mut out).map_err(|e| e.to_string())?;
    out.truncate(n);
    Ok(out)
}

fn collective(v: &Value) -> R<Vec<u8>> {
    let mut f = object("collective", v)?;
    let header = CommonHeader {
        version: f.opt("version", 4)?.map_or(inswitch_frames::collective::VERSION, |v| v as u8),
        kind: f.u("kind", 4)? as u8,
        non_posted: f.flag("non_posted")?,
        error_mark: f.flag("error_mark")?,
        retry: f.flag("retry")?,
        tid: f.u("tid", 8)? as u8,
        reserved_flags: f.u("reserved_flags", 8)? as u8,
        reserved: f.u("reserved", 4)? as u8,
        cc_id: f.u("cc_id", 12)? as u16,
        dmu_id: f.u("dmu_id", 16)? as u16,
        p_id: f.u("p_id", 16)? as u16,
    };
    let body = match Kind::from(header.kind) {
        Kind::Configuration => {
            let device_ids: Vec<u16> = f.list("device_ids", 16)?.into_iter().map(|x| x as u16).collect();
            let subservient_ids: Vec<u16> = f.list("subservient_ids", 16)?.into_iter().map(|x| x as u16).collect();
            let fixed = ConfigFixed {
                master_id: f.u("master_id", 16)? as u16,
                isl_port: f.u("isl_port", 8)? as u8,
                validation: f.u("validation", 8)? as u8,
                error_reporting: f.u("error_reporting", 8)? as u8,
                n_subservient: f.opt("n_subservient", 8)?.unwrap_or(subservient_ids.len() as u64) as u8,
                n_devices: f.opt("n_devices", 16)?.unwrap_or(device_ids.len() as u64) as u16,
                subservient_timeout: f.u("subservient_timeout", 32)? as u32,
                master_timeout: f.u("master_timeout", 32)? as u32,
            };
            Body::Configuration { fixed, device_ids, subservient_ids }
        }
        Kind::Initialization => Body::Initialization(InitBody {
            p_count: f.u("p_count", 16)? as u16,
            operation: f.u("operation", 8)? as u8,
            reserved0: f.u("reserved0", 8)? as u8,
            reserved1: f.u("reserved1", 32)? as u32,
            accumulator: f.u("accumulator", 64)?,
            pbv: {
                // 128 bits: give it as [low 64, high 64] or an int below 2^64.
                let name = f.name("pbv");
                match f.get("pbv") {
                    None => 0,
                    Some(Value::Array(w)) if w.len() == 2 => u128::from(uint(&name, &w[0], 64)?) | u128::from(uint(&name, &w[1], 64)?) << 64,
                    Some(v) => u128::from(uint(&name, v, 64)?),
                }
            },
        }),
        Kind::Control => Body::Control(ControlBody {
            command: f.u("command", 8)? as u8,
            reserved0: f.u("reserved0", 8)? as u8,
            p_count: f.u("p_count", 16)? as u16,
            reserved1: f.u("reserved1", 32)? as u32,
        }),
        Kind::Contribution | Kind::Response | Kind::Completion => {
            let operands = f.list("operands", 64)?;
            let fixed = DataFixed {
                operation: f.u("operation", 8)? as u8,
                status: f.u("status", 8)? as u8,
                contributions: f.u("contributions", 16)? as u16,
                n_operands: f.opt("n_operands", 16)?.unwrap_or(operands.len() as u64) as u16,
                completion: f.u("completion", 8)? as u8,
                reserved: f.u("reserved", 8)? as u8,
            };
            Body::Data { fixed, operands }
        }
        Kind::Retry | Kind::Failure => Body::Error(ErrorBody {
            reason: f.u("reason", 8)? as u8,
            attempt: f.u("attempt", 8)? as u8,
            engine_id: f.u("engine_id", 16)? as u16,
            device_id: f.u("device_id", 16)? as u16,
            reserved: f.u("reserved_body", 16)? as u16,
        }),
        Kind::Unknown(_) => Body::Raw(f.list("body", 8)?.into_iter().map(|x| x as u8).collect()),
    };
    f.done()?;
    CollectiveMessage { header, body }.to_bytes().map_err(|e| e.to_string())
}

/// Encodes `fields` as a frame of `kind`: the struct-shaped dict, or (all kinds) the whole object
/// `decode` returns, so `encode(kind, decode(kind, b)) == b`.
pub fn encode(kind: FrameKind, fields: &Value) -> R<Vec<u8>> {
    if !matches!(kind, FrameKind::Tlp | FrameKind::FlitTlp) {
        if let Some(member) = crate::decoded_shape::envelope(kind, fields)? {
            let bytes = encode_struct(kind, &crate::decoded_shape::to_struct_shape(kind, member)?)?;
            crate::tlp_encode::read_back(kind, member, &bytes)?;
            return Ok(bytes);
        }
    }
    encode_struct(kind, fields)
}

fn encode_struct(kind: FrameKind, fields: &Value) -> R<Vec<u8>> {
    match kind {
        FrameKind::Portals => reduction_frame("portals", fields)?.to_bytes().map(|b| b.to_vec()).map_err(|e| e.to_string()),
        FrameKind::SoftPortals => soft_portals(fields),
        FrameKind::Dllp => dllp(fields),
        FrameKind::Collective => collective(fields),
        FrameKind::Tlp | FrameKind::FlitTlp => crate::tlp_encode::encode(kind, fields),
    }
}
