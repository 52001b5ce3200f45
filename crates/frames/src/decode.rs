//! `inswitch decode`: every field of a frame, as text (like `tshark -V`) or JSON.
//!
//! The CLI wires a clap subcommand to these functions:
//! [`parse_hex`] for hex input, [`crate::pcap::read_capture`] for pcap / pcapng input, then [`render_text`] or
//! [`to_json`] (JSON data, [`crate::json`]) per frame. A TLP that is a collective vendor-defined message also shows the decoded
//! collective message.

use core::fmt::Write as _;

use serde_json::Value;

use crate::collective::{self, Body, CollectiveMessage};
use crate::error::{Error, Layer, Result};
use crate::flit::{self, FlitTlp};
use crate::json;
use crate::portals::ReductionFrame;

pub use crate::frame::{decode, Decoded, FrameKind, FRAME_KIND_NAMES};
use crate::tlp::{Address, Header, MessageRouting, Tlp, TlpKind};

/// Parses hex text: whitespace, `:`, `-`, `_` and `,` separate nothing; an optional `0x` prefix is allowed.
pub fn parse_hex(text: &str) -> Result<Vec<u8>> {
    let t = text.trim();
    let t = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    let mut out = Vec::with_capacity(t.len() / 2);
    let mut hi: Option<u8> = None;
    for (i, c) in t.char_indices() {
        if c.is_whitespace() || matches!(c, ':' | '-' | '_' | ',') {
            continue;
        }
        let v = c.to_digit(16).ok_or(Error::Syntax { layer: Layer::Hex, offset: i, reason: "not a hex digit" })? as u8;
        match hi.take() {
            None => hi = Some(v),
            Some(h) => out.push(h << 4 | v),
        }
    }
    if hi.is_some() {
        return Err(Error::Syntax { layer: Layer::Hex, offset: t.len(), reason: "odd number of hex digits" });
    }
    Ok(out)
}

/// One line of the field tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Field or section name.
    pub name: String,
    /// Rendered value (empty for pure sections).
    pub value: String,
    /// Sub-fields.
    pub children: Vec<Node>,
}

impl Node {
    fn leaf(name: &str, value: impl Into<String>) -> Node {
        Node { name: name.into(), value: value.into(), children: Vec::new() }
    }
    fn section(name: &str, value: impl Into<String>, children: Vec<Node>) -> Node {
        Node { name: name.into(), value: value.into(), children }
    }
}

fn hexs(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 * b.len());
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}
fn flag(b: bool) -> String {
    if b { "1 (set)".into() } else { "0 (not set)".into() }
}
fn id(v: u16) -> String {
    format!("{v:#06x} ({:02x}:{:02x}.{})", v >> 8, (v >> 3) & 0x1f, v & 7)
}

/// A TLP kind in words (`"completion with data, locked"`).
fn kind_text(k: TlpKind) -> String {
    let name = json::tlp_kind_name(k).replace('_', " ");
    match k {
        TlpKind::CfgRead { type1 } | TlpKind::CfgWrite { type1 } => format!("{name}, type {}", u8::from(type1)),
        TlpKind::Message { routing, data } => format!("{name}{}, routing {}", if data { " with data" } else { "" }, routing.name().replace('_', " ")),
        TlpKind::Completion { locked, data } => format!("{name}{}{}", if data { " with data" } else { "" }, if locked { ", locked" } else { "" }),
        TlpKind::Prefix { end_to_end } => format!("{name}, {}", if end_to_end { "end-end" } else { "local" }),
        TlpKind::Unknown { .. } => "reserved".into(),
        _ => name,
    }
}

fn tlp_node(t: &Tlp, len: usize) -> Node {
    let d = &t.dw0;
    let mut c = Vec::new();
    for (i, p) in t.prefixes.iter().enumerate() {
        c.push(Node::section(
            &format!("Prefix {i}"),
            if p.end_to_end { "End-End" } else { "Local" },
            vec![Node::leaf("Type[3:0]", format!("{:#x}", p.subtype)), Node::leaf("Content", format!("{:#08x}", p.content))],
        ));
    }
    let fmt_desc = match d.fmt {
        0 => "3DW header, no data",
        1 => "4DW header, no data",
        2 => "3DW header, with data",
        3 => "4DW header, with data",
        _ => "reserved",
    };
    c.push(Node::leaf("Fmt", format!("{:#05b} ({fmt_desc})", d.fmt)));
    c.push(Node::leaf("Type", format!("{:#07b} ({})", d.tlp_type, kind_text(t.kind()))));
    c.push(Node::leaf("T9", flag(d.t9)));
    c.push(Node::leaf("TC", d.tc.to_string()));
    c.push(Node::leaf("T8", flag(d.t8)));
    c.push(Node::leaf("Attr[2] (IDO)", flag(d.attr2)));
    c.push(Node::leaf("LN", flag(d.ln)));
    c.push(Node::leaf("TH", flag(d.th)));
    c.push(Node::leaf("TD", flag(d.td)));
    c.push(Node::leaf("EP", flag(d.ep)));
    c.push(Node::leaf("Attr[1:0] (RO, NS)", format!("{:#04b}", d.attr)));
    c.push(Node::leaf("AT", d.at.to_string()));
    c.push(Node::leaf("Length", format!("{} ({} DW)", d.length, d.length_dw())));
    let req_nodes = |c: &mut Vec<Node>, r: &crate::tlp::RequestDw1| {
        c.push(Node::leaf("Requester ID", id(r.requester_id)));
        c.push(Node::leaf("Tag", format!("{:#05x}", t.tag().unwrap_or(0))));
        c.push(Node::leaf("Last DW BE", format!("{:#06b}", r.last_be)));
        c.push(Node::leaf("First DW BE", format!("{:#06b}", r.first_be)));
    };
    match &t.header {
        Header::Memory { req, address } | Header::Atomic { req, address } => {
            req_nodes(&mut c, req);
            let w = if matches!(address, Address::A64(_)) { 16 } else { 8 };
            c.push(Node::leaf("Address", format!("{:#0w$x}", address.byte_address(), w = w + 2)));
            c.push(Node::leaf("PH", address.ph().to_string()));
        }
        Header::Io { req, address } => {
            req_nodes(&mut c, req);
            c.push(Node::leaf("Address", format!("{:#010x}", u64::from(address.address_dw) << 2)));
        }
        Header::Config { req, target } => {
            req_nodes(&mut c, req);
            c.push(Node::leaf("Completer ID", id(target.target_id())));
            c.push(Node::leaf("Extended Register", target.ext_register.to_string()));
            c.push(Node::leaf("Register", format!("{} (byte offset {:#05x})", target.register, target.byte_offset())));
        }
        Header::Completion(h) => {
            c.push(Node::leaf("Completer ID", id(h.completer_id)));
            c.push(Node::leaf("Status", format!("{} ({})", h.status, h.status().name())));
            c.push(Node::leaf("BCM", flag(h.bcm)));
            c.push(Node::leaf("Byte Count", format!("{} ({} bytes)", h.byte_count, h.byte_count_bytes())));
            c.push(Node::leaf("Requester ID", id(h.requester_id)));
            c.push(Node::leaf("Tag", format!("{:#05x}", t.tag().unwrap_or(0))));
            c.push(Node::leaf("Lower Address", format!("{:#04x}", h.lower_address)));
        }
        Header::Message(m) => {
            c.push(Node::leaf("Requester ID", id(m.requester_id)));
            c.push(Node::leaf("Tag", format!("{:#05x}", t.tag().unwrap_or(0))));
            c.push(Node::leaf("Message Code", format!("{:#04x} ({})", m.message_code, m.code().name())));
            match t.kind() {
                TlpKind::Message { routing: MessageRouting::ByAddress, .. } => {
                    c.push(Node::leaf("Address", format!("{:#018x}", m.address())));
                }
                _ => {
                    c.push(Node::leaf("Target ID", id(m.target_id())));
                    if m.is_vendor_defined() {
                        c.push(Node::leaf("Vendor ID", format!("{:#06x}", m.vendor_id())));
                        c.push(Node::leaf("Vendor-defined DW3", format!("{:#010x}", m.vendor_data())));
                    } else {
                        c.push(Node::leaf("DW2", format!("{:#010x}", m.dw2)));
                        c.push(Node::leaf("DW3", format!("{:#010x}", m.dw3)));
                    }
                }
            }
        }
        Header::Raw(b) => c.push(Node::leaf("Header DW1..", hexs(b))),
    }
    if !t.payload.is_empty() {
        c.push(Node::leaf("Payload", hexs(&t.payload)));
    }
    if let Some(e) = t.digest {
        let ok = if t.check_ecrc().is_ok() { "correct" } else { "INCORRECT" };
        let computed = t.compute_ecrc().map(|v| format!("{v:#010x}")).unwrap_or_default();
        c.push(Node::leaf("ECRC", format!("{e:#010x} [{ok}, computed {computed}]")));
    }
    if let Ok(m) = collective::from_vdm(t) {
        c.push(collective_node(&m, m.buffer_len()));
    }
    Node::section("PCIe TLP (non-flit)", format!("{len} bytes"), c)
}

fn flit_node(t: &FlitTlp, len: usize) -> Node {
    let d = &t.dw0;
    let mut c = Vec::new();
    for (i, p) in t.prefixes.iter().enumerate() {
        c.push(Node::leaf(&format!("Local prefix {i}"), format!("{p:#010x} ({})", flit::type_name((p >> 24) as u8))));
    }
    let (base, data) = flit::type_info(d.tlp_type);
    c.push(Node::leaf("Type", format!("{:#04x} ({}, header base {base} DW{})", d.tlp_type, flit::type_name(d.tlp_type), if data { ", with data" } else { "" })));
    c.push(Node::leaf("TC", d.tc.to_string()));
    c.push(Node::leaf("OHC", format!("{:#07b} ({} DW)", d.ohc, d.ohc_dw())));
    c.push(Node::leaf("TS", format!("{:#05b} ({} DW trailer)", d.ts, d.trailer_dw())));
    c.push(Node::leaf("Attr", format!("{:#05b}", d.attr)));
    c.push(Node::leaf("Length", d.length.to_string()));
    if let Some(w) = t.dw1() {
        c.push(Node::leaf("Requester ID", id(w.requester_id)));
        c.push(Node::leaf("EP", flag(w.ep)));
        c.push(Node::leaf("Tag", format!("{:#06x}", w.tag)));
    }
    if let Some(a) = t.address() {
        c.push(Node::leaf("Address", format!("{a:#x}")));
    }
    for (i, w) in t.header.iter().enumerate() {
        c.push(Node::leaf(&format!("Header DW{}", i + 1), format!("{w:#010x}")));
    }
    if let Some(w) = t.ohc_a() {
        c.push(Node::leaf("OHC-A", format!("{w:#010x}")));
    }
    if let Some(w) = t.ohc_b() {
        c.push(Node::leaf("OHC-B", format!("{w:#010x}")));
    }
    if let Some(w) = t.ohc_c() {
        c.push(Node::leaf("OHC-C", format!("{w:#010x}")));
    }
    for (i, w) in t.ohc_e().iter().enumerate() {
        c.push(Node::leaf(&format!("OHC-E word {i}"), format!("{w:#010x}")));
    }
    if !t.payload.is_empty() {
        c.push(Node::leaf("Payload", hexs(&t.payload)));
    }
    for (i, w) in t.trailer.iter().enumerate() {
        c.push(Node::leaf(&format!("Trailer DW{i}"), format!("{w:#010x}")));
    }
    if d.ts == flit::TS_ECRC {
        c.push(Node::leaf("ECRC check", if t.check_ecrc().is_ok() { "correct" } else { "INCORRECT" }));
    }
    if let Some(m) = json::flit_collective(t) {
        c.push(collective_node(&m, m.buffer_len()));
    }
    Node::section("PCIe TLP (flit mode)", format!("{len} bytes"), c)
}

fn portals_node(f: &ReductionFrame) -> Node {
    let h = &f.header;
    let cookie = h.cookie();
    let hdr = vec![
        Node::leaf("rt_seqno (seqno)", h.seqno.to_string()),
        Node::leaf("rt_arm (arm)", flag(h.arm)),
        Node::leaf("rt_op (op)", format!("{:#04x} ({})", h.op, json::op_display(h.op))),
        Node::leaf("rt_count (redcnt)", h.count.to_string()),
        Node::leaf("rt_resno (resno)", h.resno.to_string()),
        Node::leaf("rt_rc (red_rc)", format!("{} ({})", h.rc, h.rc().name())),
        Node::leaf("rt_repsum_m (repsum_m)", h.repsum_m().to_string()),
        Node::leaf("rt_repsum_ovflid (repsum_ovflid)", h.repsum_ovflid.to_string()),
        Node::leaf("retry (bit 61)", flag(h.retry)),
        Node::leaf("pad (bits 63-62)", h.reserved.to_string()),
        Node::section(
            "rt_cookie",
            format!("{:#010x}", h.cookie),
            vec![
                Node::leaf("mcast_id (bits 12-0)", cookie.mcast_id().to_string()),
                Node::leaf("red_id (bits 15-13)", cookie.red_id().to_string()),
                Node::leaf("magic (bits 31-16)", format!("{:#06x}", cookie.magic())),
            ],
        ),
    ];
    let data = f
        .data
        .iter()
        .enumerate()
        .map(|(i, v)| Node::leaf(&format!("rt_data[{i}]"), format!("{v:#018x} (i64 {}, f64 {})", *v as i64, f64::from_bits(*v))))
        .collect();
    Node::section(
        "Portals reduction frame",
        "84 bytes",
        vec![
            Node::section("DFA", format!("{:#010x}", f.dfa), vec![
                Node::leaf("multicast tree (bits 15-3)", f.tree().to_string()),
                Node::leaf("reduction id (bits 20-18)", f.reduction_id().to_string()),
            ]),
            Node::leaf("SFA", format!("{:#010x}", f.sfa)),
            Node::leaf("VNI", format!("{:#06x}", f.vni)),
            Node::leaf("Command", format!("{:#04x}", f.command)),
            Node::leaf("Flags", format!("{:#04x}", f.flags)),
            Node::leaf("Match bits", format!("{:#018x}", f.match_bits)),
            Node::leaf("Header data", format!("{:#018x}", f.header_data)),
            Node::leaf("Reserved", hexs(&f.reserved)),
            Node::leaf("IDC pad", hexs(&f.idc_pad)),
            Node::section("Reduction header", "12 bytes", hdr),
            Node::section("rt_data", "4 x 64-bit big-endian", data),
        ],
    )
}

fn collective_node(m: &CollectiveMessage, len: usize) -> Node {
    let h = &m.header;
    let mut c = vec![
        Node::leaf("Version", h.version.to_string()),
        Node::leaf("Kind", format!("{} ({})", h.kind, if h.kind == crate::encapsulated::KIND { "encapsulated".into() } else { m.kind().name() })),
        Node::leaf("Non-posted", flag(h.non_posted)),
        Node::leaf("Error mark", flag(h.error_mark)),
        Node::leaf("Retry", flag(h.retry)),
        Node::leaf("TID", h.tid.to_string()),
        Node::leaf("CC_ID", format!("{:#05x}", h.cc_id)),
        Node::leaf("DMU_ID", format!("{:#06x}", h.dmu_id)),
        Node::leaf("P_ID", if h.p_id == collective::NO_PARTICIPANT { "none".into() } else { h.p_id.to_string() }),
    ];
    match &m.body {
        Body::Configuration { fixed, device_ids, subservient_ids } => config_nodes(&mut c, fixed, device_ids, subservient_ids),
        Body::Initialization(b) => {
            c.push(Node::leaf("P_count", b.p_count.to_string()));
            c.push(Node::leaf("Operation", format!("{:#04x} ({})", b.operation, json::op_display(b.operation))));
            c.push(Node::leaf("Initial accumulator", format!("{:#018x}", b.accumulator)));
            c.push(Node::leaf("PBV", format!("{:#034x}", b.pbv)));
        }
        Body::Control(b) => {
            c.push(Node::leaf("Command", format!("{} ({})", b.command, collective::Command::from(b.command).name())));
            c.push(Node::leaf("P_count", b.p_count.to_string()));
        }
        Body::Data { fixed, operands } => {
            c.push(Node::leaf("Operation", format!("{:#04x} ({})", fixed.operation, json::op_display(fixed.operation))));
            c.push(Node::leaf("Status", format!("{} ({})", fixed.status, crate::portals::ReductionRc::from(fixed.status).name())));
            c.push(Node::leaf("Contributions", fixed.contributions.to_string()));
            c.push(Node::leaf("Completion", format!("{} ({})", fixed.completion, collective::CompletionKind::from(fixed.completion).name())));
            c.push(Node::section(
                "Operands",
                operands.len().to_string(),
                operands.iter().enumerate().map(|(i, v)| Node::leaf(&format!("operand {i}"), format!("{v:#018x}"))).collect(),
            ));
        }
        Body::Error(b) => {
            c.push(Node::leaf("Reason", format!("{} ({})", b.reason, collective::Reason::from(b.reason).name())));
            c.push(Node::leaf("Attempt", b.attempt.to_string()));
            c.push(Node::leaf("Engine ID", id(b.engine_id)));
            c.push(Node::leaf("Device ID", id(b.device_id)));
        }
        // Kind 10: an encapsulated packet (docs/frames.md §4), when its codec takes it.
        Body::Raw(b) => match crate::encapsulated::Encapsulated::from_message(m) {
            Ok(e) => {
                let ty = match e.payload_type {
                    crate::encapsulated::TYPE_CONFIGURATION => "configuration",
                    crate::encapsulated::TYPE_REGISTER_WRITE => "register write",
                    _ => "unknown",
                };
                c.push(Node::leaf("Encapsulated payload type", format!("{} ({ty})", e.payload_type)));
                c.push(Node::leaf("Operation bit", if e.apply { "1 (apply)" } else { "0" }));
                c.push(Node::leaf("Encapsulation version", e.version.to_string()));
                c.push(Node::leaf("Original header form", match e.original {
                    crate::encapsulated::Original::NonFlit(_) => "0 (non-flit)",
                    crate::encapsulated::Original::Flit(_) => "1 (flit mode)",
                }));
                let len = b.len() - crate::encapsulated::DESCRIPTOR_LEN;
                c.push(match &e.original {
                    crate::encapsulated::Original::NonFlit(t) => tlp_node(t, len),
                    crate::encapsulated::Original::Flit(t) => flit_node(t, len),
                });
                if let Some(Ok((fixed, device_ids, subservient_ids))) = e.configuration() {
                    config_nodes(&mut c, &fixed, &device_ids, &subservient_ids);
                }
                match e.register_write() {
                    Some(Ok(w)) => {
                        c.push(Node::leaf("Register write", format!("engine {}, offset {:#05x}, byte enables {:#x}, data {:#010x}", id(w.engine_id), w.offset, w.be, w.wdata)));
                    }
                    Some(Err(err)) => c.push(Node::leaf("Register write", format!("not one ({err})"))),
                    None => {}
                }
            }
            Err(_) => c.push(Node::leaf("Body", hexs(b))),
        },
    }
    Node::section("Collective message", format!("{len} bytes"), c)
}

/// The fields of a FIG. 4 configuration body (kind 1, or inside an encapsulated packet).
fn config_nodes(c: &mut Vec<Node>, fixed: &collective::ConfigFixed, device_ids: &[u16], subservient_ids: &[u16]) {
    c.push(Node::leaf("Master engine ID", id(fixed.master_id)));
    c.push(Node::leaf("Inter-switch link port", fixed.isl_port.to_string()));
    c.push(Node::leaf("Validation config", format!("{:#010b}", fixed.validation)));
    c.push(Node::leaf("Error-reporting config", format!("{:#010b}", fixed.error_reporting)));
    c.push(Node::leaf("Subservient timeout", fixed.subservient_timeout.to_string()));
    c.push(Node::leaf("Master timeout", fixed.master_timeout.to_string()));
    c.push(Node::section(
        "PBV table",
        format!("{} entries", device_ids.len()),
        device_ids.iter().enumerate().map(|(i, d)| Node::leaf(&format!("PBV entry {i}"), id(*d))).collect(),
    ));
    c.push(Node::section(
        "Subservient engines",
        format!("{}", subservient_ids.len()),
        subservient_ids.iter().enumerate().map(|(i, d)| Node::leaf(&format!("engine {i}"), id(*d))).collect(),
    ));
}

/// The field tree of a decoded frame.
pub fn describe(d: &Decoded, len: usize) -> Node {
    match d {
        Decoded::Tlp(t) => tlp_node(t, len),
        Decoded::FlitTlp(t) => flit_node(t, len),
        Decoded::Dllp(x) => Node::section("PCIe DLLP", format!("{len} bytes"), vec![
            Node::leaf("Type", format!("{:#04x} ({})", x.dllp_type, x.kind().name())),
            Node::leaf("Body", hexs(&x.body)),
            Node::leaf("Sequence (Ack/Nak)", x.seq().to_string()),
            Node::leaf("CRC", format!("{:#06x} [{}]", x.crc, if x.check_crc().is_ok() { "correct" } else { "INCORRECT" })),
        ]),
        Decoded::Portals(f) => portals_node(f),
        Decoded::SoftPortals(s) => Node::section("Soft Portals", format!("{len} bytes"), vec![
            Node::section("Ethernet II", "14 bytes", vec![
                Node::leaf("Destination", s.eth.dst.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")),
                Node::leaf("Source", s.eth.src.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")),
                Node::leaf("EtherType", format!("{:#06x}", s.eth.ethertype)),
            ]),
            portals_node(&s.frame),
            Node::leaf("FCS", format!("{:#010x} [{}]", s.fcs, if s.check_fcs().is_ok() { "correct" } else { "INCORRECT" })),
        ]),
        Decoded::Collective(m) => collective_node(m, len),
    }
}

fn text(n: &Node, depth: usize, out: &mut String) {
    let _ = write!(out, "{:w$}{}", "", n.name, w = 4 * depth);
    if !n.value.is_empty() {
        let _ = write!(out, ": {}", n.value);
    }
    out.push('\n');
    for c in &n.children {
        text(c, depth + 1, out);
    }
}

/// Human-readable dump of every field (indented like `tshark -V`).
pub fn render_text(kind: FrameKind, bytes: &[u8]) -> Result<String> {
    let d = decode(kind, bytes)?;
    let mut s = String::new();
    text(&describe(&d, bytes.len()), 0, &mut s);
    Ok(s)
}

/// The frame as JSON data (snake_case keys, numbers, names, booleans; schema
/// `schemas/decode.schema.json`): the same function as [`crate::json::to_json`], which the CLI and the
/// Python binding call.
pub fn to_json(kind: FrameKind, bytes: &[u8]) -> Result<Value> {
    json::to_json(kind, bytes)
}

/// Former name of [`to_json`].
pub fn render_json(kind: FrameKind, bytes: &[u8]) -> Result<Value> {
    json::to_json(kind, bytes)
}
