//! Input checker and steering (seed 000 \[0092\], \[0140\]; 002 (94)-(99)).
//!
//! Cycle model of `rtl/input_checker.v`; the checks, their priority and the steering rules are
//! `docs/blocks/input_checker.md`. Frames extracted by the interposer arrive on `s_axis` (family and
//! ingress port in `tuser` on the first beat). The checker validates them and steers each to exactly one
//! place: a register access (`m_reg_*`, to the register space), a normalized collective message
//! (`m_msg_*`, to the CPU, [`crate::message`]), or a drop with one reason pulse on `stat_event`.
//!
//! Stream framing (docs/blocks/input_checker.md §Frames): a TLP frame is `{4 reserved bits, 12-bit
//! sequence number}` + TLP + LCRC (little-endian), the data-link form of a TLP; a Portals frame is a Soft
//! Portals frame (Ethernet II header, 84-byte reduction frame, FCS); a PCIe 6 flit-mode TLP (`tuser[9]`,
//! [`flit`]) comes without sequence number or LCRC. Both trailers are CRC-32/ISO-HDLC over
//! everything before them, so one running CRC per frame checks either: over the whole frame, trailer
//! included, it must leave the register at [`CRC32_RESIDUE`].
//!
//! The first [`CAPTURE_BYTES`] bytes of a frame are captured as the beats go by; every check and every
//! field is then decided from the capture in a pipeline (issue 19 item 2: short stages): A registers the
//! beat, B is the stream side, C computes every check's condition and field (the configuration is
//! sampled there), D orders the checks into the verdict and loads the outputs. All stages advance
//! together when the three outputs are free, so the block still takes one beat per cycle; the verdict is
//! out [`PIPELINE_EDGES`] edges after the last beat.

use crate::message::{CollectiveMsg, Family, Kind, MsgPort, NO_PARTICIPANT};
use crate::ports;
use crate::signal::{Block, Wide, WIDE_MAX_BITS};

pub mod codes;
pub mod config;
pub mod crc_matrix;
pub mod flit;
pub mod protocol;
pub use codes::{event, validation};
pub use config::ConfigWrites;
pub use protocol::*;

/// DW0 fields of a non-flit TLP as this block reads them (PCIe Base Specification Table 2-3; the frames
/// crate's `tlp::Dw0` and `tlp::kind` name the same bits). The model does not depend on the frames crate
/// on purpose: it mirrors `rtl/input_checker.v` byte for byte, and the tests (`tests/cosim_input_checker.rs`)
/// build the frames they drive it with through the frames codec, so a decoding bug in shared code would
/// hide itself.
mod tlp_dw0 {
    /// Fmt is byte 0 bits 7-5.
    pub const FMT_SHIFT: u32 = 5;
    /// Type is byte 0 bits 4-0.
    pub const TYPE_MASK: u8 = 0x1F;
    /// Fmt bit 0: 4-DW header.
    pub const FMT_4DW: u8 = 0b001;
    /// Fmt bit 1: data payload.
    pub const FMT_DATA: u8 = 0b010;
    /// Fmt of a TLP prefix.
    pub const FMT_PREFIX: u8 = 0b100;
}

/// Parameters of one checker (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckerParams {
    /// Data bus width in bits: a multiple of 8 from 64 to 512.
    pub data_width: usize,
}

impl Default for CheckerParams {
    fn default() -> Self {
        CheckerParams { data_width: 256 }
    }
}

impl CheckerParams {
    /// Bytes per beat.
    pub fn keep_width(&self) -> usize {
        self.data_width / 8
    }
}

/// A parameter set the block cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckerParamError {
    /// `data_width` is not a multiple of 8 in 64..=512.
    #[error("data_width {0} is not a multiple of 8 between 64 and {WIDE_MAX_BITS}")]
    DataWidth(usize),
}

/// The checker's configuration inputs (from the register space, and the engine's device ID).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckerConfig {
    /// The engine's device ID (its switch's ID; the upper half of its 32-bit window address).
    pub engine_id: u16,
    /// Soft Portals EtherType.
    pub ethertype: u16,
    /// Collective VDM vendor ID.
    pub vendor_id: u16,
    /// [`validation`] bits.
    pub validation: u8,
    /// Allowed VNIs: valid bits and values.
    pub vni_valid: u8,
    /// Allowed VNIs, entry i in bits 16i+15:16i.
    pub vni: u64,
}

/// A dropped non-posted request that needs an Unsupported Request completion (`m_ur_*`, to the
/// completion builder; docs/blocks/input_checker.md §Unsupported Requests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UrRequest {
    /// Requester ID.
    pub src: u16,
    /// 10-bit tag.
    pub tag: u16,
    /// Traffic Class.
    pub tc: u8,
    /// Attr\[2:0\] (A2 in bit 2).
    pub attr: u8,
    /// MRd or MRdLk (the completion's Byte Count and Lower Address follow the request).
    pub mem_read: bool,
    /// MRdLk (the completion is a CplLk).
    pub locked: bool,
    /// Length field (0 = 1024 DW).
    pub length: u16,
    /// First DW BE.
    pub first_be: u8,
    /// Last DW BE.
    pub last_be: u8,
    /// Address bits 6:0 as on the wire (bits 1:0 are PH).
    pub addr: u8,
}

/// Drop reasons of a well-formed request that the engine answers with an Unsupported Request when the
/// request is non-posted (docs/blocks/input_checker.md §Unsupported Requests).
pub const UR_EVENTS: [u32; 5] = [event::TLP_UNSUPPORTED, event::POISONED, event::RESERVED, event::NOT_FOR_ENGINE, event::REG_ACCESS];

/// The Unsupported Request a TLP frame dropped with `reason` needs: `Some` iff the frame is a whole TLP
/// (its length is what Fmt, Length and TD say) whose Fmt/Type is a non-posted request (MRd, MRdLk, IORd,
/// IOWr, CfgRd/Wr 0/1, FetchAdd, Swap, CAS, DMWr) and `reason` is one of [`UR_EVENTS`].
pub fn unsupported_request(c: &[u8; CAPTURE_BYTES], f: &FrameSummary, reason: u32) -> Option<UrRequest> {
    let t = TLP_OFFSET;
    if f.portals || f.flit || !UR_EVENTS.contains(&reason) || f.bytes < TLP_MIN_BYTES || f.bytes > CAPTURE_BYTES {
        return None;
    }
    let (b0, b1, b2) = (c[t], c[t + 1], c[t + 2]);
    let (fmt, typ) = (b0 >> tlp_dw0::FMT_SHIFT, b0 & tlp_dw0::TYPE_MASK);
    let four = fmt & tlp_dw0::FMT_4DW != 0;
    let data = fmt & tlp_dw0::FMT_DATA != 0;
    let non_posted = match typ {
        0x00 | 0x01 => fmt <= 0b001,
        0x02 | 0x04 | 0x05 => fmt == 0b000 || fmt == 0b010,
        0x0C..=0x0E | 0x1B => fmt == 0b010 || fmt == 0b011,
        _ => false,
    };
    if !non_posted {
        return None;
    }
    let td = b2 & 0x80 != 0;
    let length = u16::from(b2 & 3) << 8 | u16::from(c[t + 3]);
    let len_dw = if length == 0 { 1024 } else { usize::from(length) };
    let hdr = if four { 16 } else { 12 };
    let plen = if data { 4 * len_dw } else { 0 };
    if f.bytes != t + hdr + plen + if td { 4 } else { 0 } + 4 {
        return None;
    }
    let addr_lo = t + if four { 12 } else { 8 };
    Some(UrRequest {
        src: be16(c, t + 4),
        tag: u16::from(b1 >> 7) << 9 | u16::from((b1 >> 3) & 1) << 8 | u16::from(c[t + 6]),
        tc: (b1 >> 4) & 7,
        attr: (b1 >> 2 & 1) << 2 | (b2 >> 4) & 3,
        mem_read: typ <= 0x01,
        locked: typ == 0x01,
        length,
        first_be: c[t + 7] & 0xF,
        last_be: c[t + 7] >> 4,
        addr: c[addr_lo + 3] & 0x7F,
    })
}

/// Where a frame goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// To the register space.
    Reg(RegAccess),
    /// To the CPU.
    Msg(CollectiveMsg),
    /// A configuration message (FIG. 4): its register writes, one at a time on the register path.
    Config(ConfigWrites),
    /// Dropped, with its [`event`] bit.
    Drop(u32),
}

impl Verdict {
    /// The [`event`] bit this verdict pulses.
    pub fn event(&self) -> u32 {
        match self {
            Verdict::Reg(_) | Verdict::Config(_) => event::ACCEPT_REG,
            Verdict::Msg(_) => event::ACCEPT_MSG,
            Verdict::Drop(e) => *e,
        }
    }
}

/// What the stream side knows when a frame's last beat arrives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSummary {
    /// Frame length in bytes (saturating at 0xFFFF).
    pub bytes: usize,
    /// The link CRC (LCRC or FCS) left the residue.
    pub link_crc_ok: bool,
    /// The ECRC range left the residue.
    pub ecrc_ok: bool,
    /// A tkeep rule was broken.
    pub tkeep_bad: bool,
    /// Portals (1) or TLP (0), from tuser\[8\] of the first beat.
    pub portals: bool,
    /// A flit-mode TLP (tuser\[9\] of the first beat, TLP family only; [`flit`]).
    pub flit: bool,
    /// Ingress port, from tuser\[7:0\] of the first beat.
    pub port: u8,
}

fn be16(c: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([c[o], c[o + 1]])
}
fn be32(c: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([c[o], c[o + 1], c[o + 2], c[o + 3]])
}
fn be64(c: &[u8], o: usize) -> u64 {
    u64::from(be32(c, o)) << 32 | u64::from(be32(c, o + 4))
}

/// The steering decision for a captured frame (docs/blocks/input_checker.md §Checks).
pub fn classify(c: &[u8; CAPTURE_BYTES], f: &FrameSummary, cfg: &CheckerConfig) -> Verdict {
    use event::*;
    if f.tkeep_bad {
        return Verdict::Drop(TKEEP);
    }
    // A flit-mode TLP has no LCRC (flits carry their own CRC and FEC).
    let crc_check = !f.flit && cfg.validation & if f.portals { validation::FCS } else { validation::LCRC } != 0;
    if crc_check && !f.link_crc_ok {
        return Verdict::Drop(if f.portals { FCS } else { LCRC });
    }
    // Check 3: the capture's length, except for a configuration message (kind 1) by memory write or
    // VDM, read up to CONFIG_FRAME_BYTES (its slots past the capture from the slot store).
    let aligned = if f.flit { flit::aligned(c) } else { *c };
    let over = f.bytes > if f.flit { flit::FLIT_CAPTURE_BYTES } else { CAPTURE_BYTES };
    if over && (f.portals || f.bytes > config::CONFIG_FRAME_BYTES || !long_config_shape(&aligned, f.flit)) {
        return Verdict::Drop(TOO_LONG);
    }
    if f.portals {
        classify_portals(c, f, cfg)
    } else if f.flit {
        classify_flit(&aligned, f, cfg)
    } else {
        classify_tlp(c, f, cfg)
    }
}

/// Whether a TLP frame's (flit-aligned) capture starts like a configuration message longer than the
/// capture may: a memory request (non-flit Fmt 0xx Type 00000, or flit-mode MWr32/MWr64) or a
/// vendor-defined message (Fmt 011 Type 10010) whose payload byte 0 is version 1, kind 1. Every check
/// then runs as for any frame; only this shape lifts check 3's limit to [`config::CONFIG_FRAME_BYTES`].
fn long_config_shape(c: &[u8; CAPTURE_BYTES], flit: bool) -> bool {
    let t = TLP_OFFSET;
    let b0 = c[t];
    let (fmt, typ) = (b0 >> tlp_dw0::FMT_SHIFT, b0 & tlp_dw0::TYPE_MASK);
    let carrier = if flit { b0 == flit::FLIT_MWR32 || b0 == flit::FLIT_MWR64 } else { (typ == 0 && fmt < 4) || (typ == 0b1_0010 && fmt == 0b011) };
    let p = t + if fmt & tlp_dw0::FMT_4DW != 0 { 16 } else { 12 };
    carrier && c[p] == CONFIG_MESSAGE_BYTE0
}

/// Byte 0 of a configuration message: version 1, kind 1 (docs/frames.md §4).
const CONFIG_MESSAGE_BYTE0: u8 = 1 << 4 | Kind::CONFIGURATION.0;

fn classify_portals(c: &[u8; CAPTURE_BYTES], f: &FrameSummary, cfg: &CheckerConfig) -> Verdict {
    use event::*;
    if f.bytes != SOFT_PORTALS_BYTES {
        return Verdict::Drop(LENGTH);
    }
    if be16(c, 12) != cfg.ethertype {
        return Verdict::Drop(ETHERTYPE);
    }
    let e = PORTALS_OFFSET;
    let cookie = be32(c, e + 40);
    let w = be64(c, e + 44);
    let field = |sh: u32, bits: u32| (w >> sh) & ((1 << bits) - 1);
    if field(62, 2) != 0 {
        return Verdict::Drop(RESERVED);
    }
    let (seqno, arm, op, count) = (field(0, 10) as u16, field(10, 1) != 0, field(11, PORTALS_OP_BITS) as u8, field(17, 20) as u32);
    let (resno, rc, repsum_m, oflow, retry) = (field(37, 10) as u16, field(47, PORTALS_RC_BITS) as u8, field(51, 8) as u8, field(59, 2) as u8, field(61, 1) != 0);
    if !portals_op_defined(op) || !portals_rc_defined(rc) || (count == 0 && !arm) {
        return Verdict::Drop(PORTALS_HEADER);
    }
    let vni = be16(c, e + 8);
    let allowed = (0..4).any(|k| cfg.vni_valid >> k & 1 != 0 && (cfg.vni >> (16 * k)) as u16 == vni);
    if cfg.validation & validation::VNI != 0 && !allowed {
        return Verdict::Drop(VNI);
    }
    let dfa = be32(c, e);
    let mut data = [0u64; 4];
    for (k, d) in data.iter_mut().enumerate() {
        *d = be64(c, e + 52 + 8 * k);
    }
    Verdict::Msg(CollectiveMsg {
        kind: if arm { Kind::ARM } else { Kind::CONTRIBUTION },
        family: Family::Portals,
        port: f.port,
        ctx: (((dfa >> 18) & 0x7) << 13 | ((dfa >> 3) & 0x1FFF)) as u16,
        src: be32(c, e + 4),
        dst: dfa,
        pid: NO_PARTICIPANT,
        dmu_id: 0,
        count,
        code: 0,
        posted: true,
        error: false,
        tid: 0,
        vni,
        cookie,
        seqno,
        resno,
        retry,
        op,
        rc,
        repsum_m: repsum_m as i8,
        repsum_oflow_id: oflow,
        data,
        pbv: 0,
    })
}

fn classify_tlp(c: &[u8; CAPTURE_BYTES], f: &FrameSummary, cfg: &CheckerConfig) -> Verdict {
    use event::*;
    let t = TLP_OFFSET;
    if f.bytes < TLP_MIN_BYTES {
        return Verdict::Drop(LENGTH);
    }
    let (b0, b1, b2) = (c[t], c[t + 1], c[t + 2]);
    let (fmt, typ) = (b0 >> tlp_dw0::FMT_SHIFT, b0 & tlp_dw0::TYPE_MASK);
    let four = fmt & tlp_dw0::FMT_4DW != 0;
    let data = fmt & tlp_dw0::FMT_DATA != 0;
    let mem = typ == 0 && fmt < 4;
    let vdm = typ == 0b1_0010 && fmt == 0b011;
    if fmt == tlp_dw0::FMT_PREFIX {
        return Verdict::Drop(TLP_UNSUPPORTED);
    }
    if fmt > tlp_dw0::FMT_PREFIX {
        return Verdict::Drop(TLP_MALFORMED);
    }
    if !mem && !vdm {
        let message = typ & 0x18 == 0x10;
        let known = matches!(typ, 0x01 | 0x02 | 0x04 | 0x05 | 0x0A..=0x0E | 0x1B) || (message && four && typ & 7 < 6);
        return Verdict::Drop(if known { TLP_UNSUPPORTED } else { TLP_MALFORMED });
    }
    if b1 & 1 != 0 {
        return Verdict::Drop(TLP_UNSUPPORTED);
    }
    let td = b2 & 0x80 != 0;
    let length = usize::from(b2 & 3) << 8 | usize::from(c[t + 3]);
    let len_dw = if length == 0 { 1024 } else { length };
    let hdr = if four { 16 } else { 12 };
    let plen = if data { 4 * len_dw } else { 0 };
    if f.bytes != t + hdr + plen + if td { 4 } else { 0 } + 4 {
        return Verdict::Drop(LENGTH);
    }
    if b2 & 0x40 != 0 {
        return Verdict::Drop(POISONED);
    }
    if td && cfg.validation & validation::ECRC != 0 && !f.ecrc_ok {
        return Verdict::Drop(ECRC);
    }
    let addr_lo = t + if four { 12 } else { 8 };
    if c[0] >> 4 != 0 || (mem && c[addr_lo + 3] & 3 != 0) {
        return Verdict::Drop(RESERVED);
    }
    let src = be16(c, t + 4);
    let p = t + hdr;
    if mem {
        let req = MemRequest { four, data, len_dw, plen, be: c[t + 7], src, tag: reg_tag(c) };
        return memory_request(c, &req, f, cfg);
    }
    if c[t + 7] != VDM_TYPE1_CODE {
        return Verdict::Drop(TLP_UNSUPPORTED);
    }
    let target = be16(c, t + 8);
    if target != cfg.engine_id {
        return Verdict::Drop(NOT_FOR_ENGINE);
    }
    if be16(c, t + 10) != cfg.vendor_id {
        return Verdict::Drop(VENDOR);
    }
    collective(c, p, plen, src, u32::from(target), Some(be32(c, t + 12)), f.port, reg_tag(c))
}

/// What the memory branch (T13-T15) needs of a memory request's header, non-flit or flit-mode.
struct MemRequest {
    four: bool,
    data: bool,
    len_dw: usize,
    plen: usize,
    /// {Last DW BE, First DW BE}.
    be: u8,
    src: u16,
    tag: u16,
}

/// T13-T15 for a memory request whose header is at [`TLP_OFFSET`] of `c` (a flit-mode frame's capture
/// [`flit::aligned`]): the engine's window, then a register access or a mailbox write.
fn memory_request(c: &[u8; CAPTURE_BYTES], r: &MemRequest, f: &FrameSummary, cfg: &CheckerConfig) -> Verdict {
    use event::*;
    let t = TLP_OFFSET;
    let addr_lo = t + if r.four { 12 } else { 8 };
    let p = t + if r.four { 16 } else { 12 };
    let hi = if r.four { be32(c, t + 8) } else { 0 };
    let addr = be32(c, addr_lo) & !3;
    if hi != 0 || addr >> 16 != u32::from(cfg.engine_id) || (addr >> 12) & 0xF != ENGINE_WINDOW {
        return Verdict::Drop(NOT_FOR_ENGINE);
    }
    let off = addr & 0xFFF;
    if off < MAILBOX_OFFSET {
        if r.len_dw != 1 {
            return Verdict::Drop(REG_ACCESS);
        }
        if r.be >> 4 != 0 {
            return Verdict::Drop(TLP_MALFORMED);
        }
        let wdata = if r.data { u32::from_le_bytes([c[p], c[p + 1], c[p + 2], c[p + 3]]) } else { 0 };
        return Verdict::Reg(RegAccess { write: r.data, addr: off as u16, be: r.be & 0xF, wdata, src: r.src, tag: r.tag });
    }
    if !r.data {
        return Verdict::Drop(REG_ACCESS);
    }
    collective(c, p, r.plen, r.src, u32::from(cfg.engine_id), None, f.port, r.tag)
}

/// A flit-mode TLP ([`flit`]) from its aligned capture ([`flit::aligned`]): T4-T12 read from the flit header base's DW0
/// and DW1, then the memory branch. Same rows and order as [`classify_tlp`].
fn classify_flit(c: &[u8; CAPTURE_BYTES], f: &FrameSummary, cfg: &CheckerConfig) -> Verdict {
    use event::*;
    use flit::*;
    let t = TLP_OFFSET;
    if f.bytes < FLIT_MIN_BYTES {
        return Verdict::Drop(LENGTH);
    }
    let ty = c[t];
    if ty >> 4 == FLIT_PREFIX_NIBBLE {
        return Verdict::Drop(TLP_UNSUPPORTED);
    }
    if ty != FLIT_MWR32 && ty != FLIT_MWR64 {
        return Verdict::Drop(if flit_type_defined(ty) { TLP_UNSUPPORTED } else { TLP_MALFORMED });
    }
    // DW0 byte 1 = {TC[2:0], OHC[4:0]}, byte 2 = {TS[2:0], Attr[2:0], Length[9:8]}.
    let (ohc, ts) = (c[t + 1] & 0x1F, c[t + 2] >> 5);
    if ohc != 0 || ts > FLIT_TS_ECRC {
        return Verdict::Drop(TLP_UNSUPPORTED);
    }
    let td = ts == FLIT_TS_ECRC;
    let length = usize::from(c[t + 2] & 3) << 8 | usize::from(c[t + 3]);
    let len_dw = if length == 0 { 1024 } else { length };
    let four = ty & FLIT_TYPE_4DW != 0;
    let plen = 4 * len_dw;
    if f.bytes != if four { 16 } else { 12 } + plen + if td { 4 } else { 0 } {
        return Verdict::Drop(LENGTH);
    }
    // DW1 byte 2 = {EP, R, Tag[13:8]}.
    let dw1 = c[t + 6];
    if dw1 & 0x80 != 0 {
        return Verdict::Drop(POISONED);
    }
    if td && cfg.validation & validation::ECRC != 0 && !f.ecrc_ok {
        return Verdict::Drop(ECRC);
    }
    let addr_lo = t + if four { 12 } else { 8 };
    if dw1 & 0x40 != 0 || c[addr_lo + 3] & 3 != 0 {
        return Verdict::Drop(RESERVED);
    }
    // No OHC-A: First DW BE 1111, Last DW BE 1111 for more than one DW. The register path's tag is 10
    // bits: the flit tag's low ten (the engine takes only posted flit-mode requests, nothing answers them).
    let be = if len_dw == 1 { 0x0F } else { 0xFF };
    let tag = u16::from(dw1 & 0x3) << 8 | u16::from(c[t + 7]);
    let req = MemRequest { four, data: true, len_dw, plen, be, src: u16::from_be_bytes([c[t + 4], c[t + 5]]), tag };
    memory_request(c, &req, f, cfg)
}

/// The 10-bit tag of a request or message: {T9, T8, Tag\[7:0\]}.
fn reg_tag(c: &[u8; CAPTURE_BYTES]) -> u16 {
    let (b1, t) = (c[TLP_OFFSET + 1], TLP_OFFSET);
    u16::from(b1 >> 7) << 9 | u16::from((b1 >> 3) & 1) << 8 | u16::from(c[t + 6])
}

/// A collective message at `p` of `plen` bytes (docs/frames.md §4) to a normalized message.
#[allow(clippy::too_many_arguments)]
fn collective(c: &[u8; CAPTURE_BYTES], p: usize, plen: usize, src: u16, dst: u32, dw3: Option<u32>, port: u8, tag: u16) -> Verdict {
    use event::*;
    if plen < 8 {
        return Verdict::Drop(COLL_MALFORMED);
    }
    let (version, kind) = (c[p] >> 4, c[p] & 0xF);
    let flags = c[p + 1];
    let cc_id = u16::from(c[p + 2] & 0xF) << 8 | u16::from(c[p + 3]);
    let encap = kind == Kind::ENCAPSULATED.0;
    if version != 1 || kind == 0 || (kind > 8 && !encap) {
        return Verdict::Drop(COLL_MALFORMED);
    }
    if flags & coll_flag::RESERVED != 0 || c[p + 2] >> 4 != 0 {
        return Verdict::Drop(RESERVED);
    }
    // An encapsulated configuration (kind 10): every check of the encapsulation and of the body it
    // carries is one drop, then the VDM's DW3, then the body's register writes as for kind 1. One naming
    // another engine in P_ID is not relayed (the CPU's path carries kind 1 only): the same drop.
    if encap {
        if !config::encap_ok(c, p, plen) || config::relayed(be16(c, p + 6), dst as u16) {
            return Verdict::Drop(COLL_CONFIG);
        }
        if dw3.is_some_and(|dw3| dw3 != VDM_PROTOCOL_ID << 24 | u32::from(kind) << 16 | u32::from(cc_id)) {
            return Verdict::Drop(VENDOR);
        }
        return Verdict::Config(ConfigWrites::new(c, config::encap_base(c, p), src, tag));
    }
    // C3: a configuration message's fixed part, then the limits the engine applies (§Configuration messages).
    let mut config_expected = 0;
    if kind == 1 {
        if plen < config::CONFIG_FIXED_BYTES {
            return Verdict::Drop(COLL_MALFORMED);
        }
        let (n, s, timeouts_fit) = config::config_counts(c, p);
        // A message for another engine (P_ID = its device ID) goes to the CPU to be relayed down the
        // tree (000 [0106], [0157]; §Configuration messages): its slots must fit the normalized
        // message's `data`.
        let too_many_to_relay = config::relayed(be16(c, p + 6), dst as u16) && n + s > config::CONFIG_RELAY_SLOTS;
        if n > config::CONFIG_MAX_ENTRIES || s > config::CONFIG_MAX_SUBSERVIENT || !timeouts_fit || too_many_to_relay {
            return Verdict::Drop(COLL_CONFIG);
        }
        config_expected = config::config_len(n, s);
    }
    let data_kind = (4..=6).contains(&kind);
    let expected = match kind {
        1 => config_expected,
        2 => 40,
        4..=6 => {
            if plen < 16 {
                return Verdict::Drop(COLL_MALFORMED);
            }
            let n = usize::from(be16(c, p + 12));
            if n > 4 {
                return Verdict::Drop(COLL_OPERANDS);
            }
            16 + 8 * n
        }
        _ => 16,
    };
    if plen != expected {
        return Verdict::Drop(COLL_MALFORMED);
    }
    if let Some(dw3) = dw3 {
        if dw3 != VDM_PROTOCOL_ID << 24 | u32::from(kind) << 16 | u32::from(cc_id) {
            return Verdict::Drop(VENDOR);
        }
    }
    if kind == 1 && !config::relayed(be16(c, p + 6), dst as u16) {
        return Verdict::Config(ConfigWrites::new(c, p, src, tag));
    }
    let mut m = CollectiveMsg {
        kind: Kind(kind),
        family: Family::Tlp,
        port,
        ctx: cc_id,
        src: u32::from(src),
        dst,
        pid: be16(c, p + 6),
        dmu_id: be16(c, p + 4),
        posted: flags & coll_flag::NP == 0,
        error: flags & coll_flag::EM != 0,
        tid: flags >> coll_flag::TID_SHIFT & coll_flag::TID_MASK,
        ..CollectiveMsg::default()
    };
    match kind {
        1 => {
            // A configuration message to relay (docs/blocks/input_checker.md §Configuration messages):
            // `ConfigFixed` (payload bytes 8-23) in `pbv`, the slots (bytes 24 to the end of the
            // payload, padding included; at most CONFIG_RELAY_SLOTS) in `data`, four per operand.
            m.pbv = u128::from(be64(c, p + 8)) << 64 | u128::from(be64(c, p + 16));
            for j in 0..(plen - config::CONFIG_FIXED_BYTES) / 2 {
                m.data[j / 4] |= u64::from(be16(c, p + config::CONFIG_FIXED_BYTES + 2 * j)) << (48 - 16 * (j % 4));
            }
        }
        2 => {
            m.count = u32::from(be16(c, p + 8));
            m.op = c[p + 10];
            m.data[0] = be64(c, p + 16);
            m.pbv = u128::from(be64(c, p + 24)) << 64 | u128::from(be64(c, p + 32));
        }
        3 => {
            m.code = c[p + 8];
            m.count = u32::from(be16(c, p + 10));
        }
        _ if data_kind => {
            m.op = c[p + 8];
            m.rc = c[p + 9];
            m.count = u32::from(be16(c, p + 10));
            m.code = c[p + 14];
            for k in 0..usize::from(be16(c, p + 12)) {
                m.data[k] = be64(c, p + 16 + 8 * k);
            }
        }
        _ => {
            m.code = c[p + 8];
            m.count = u32::from(c[p + 9]);
            m.data[0] = u64::from(be16(c, p + 10)) | u64::from(be16(c, p + 12)) << 16;
        }
    }
    Verdict::Msg(m.masked())
}

ports! {
    /// Inputs of `rtl/input_checker.v` (clk aside).
    pub struct InputCheckerIn {
        /// Synchronous, active-high reset: drops the frame in progress and any output not yet taken.
        pub rst: bool,
        /// Frame data from the interposer (byte 0 = bits 7:0).
        pub s_axis_tdata: Wide,
        /// One bit per valid byte.
        pub s_axis_tkeep: u64,
        /// A beat is offered.
        pub s_axis_tvalid: bool,
        /// Last beat of a frame.
        pub s_axis_tlast: bool,
        /// {flit mode, family (1 Portals), ingress port\[7:0\]}, sampled on the first beat (bit 9: a
        /// PCIe 6 flit-mode TLP, [`flit`]; ignored on a Portals frame).
        pub s_axis_tuser: u16,
        /// The register space takes the access.
        pub m_reg_ready: bool,
        /// The CPU takes the message.
        pub m_msg_ready: bool,
        /// The completion builder takes the Unsupported Request.
        pub m_ur_ready: bool,
        /// The engine's device ID.
        pub cfg_engine_id: u16,
        /// Soft Portals EtherType.
        pub cfg_ethertype: u16,
        /// Collective vendor ID.
        pub cfg_vendor_id: u16,
        /// VALIDATION\[3:0\].
        pub cfg_validation: u8,
        /// Allowed-VNI valid bits.
        pub cfg_vni_valid: u8,
        /// Allowed VNIs.
        pub cfg_vni: u64,
    }
}

ports! {
    /// Outputs of `rtl/input_checker.v`.
    pub struct InputCheckerOut {
        /// A beat is taken (both outputs can take a verdict).
        pub s_axis_tready: bool,
        /// A register access is offered.
        pub m_reg_valid: bool,
        /// Write.
        pub m_reg_write: bool,
        /// Byte offset in the window.
        pub m_reg_addr: u16,
        /// Byte enables.
        pub m_reg_be: u8,
        /// Write data.
        pub m_reg_wdata: u32,
        /// Requester ID.
        pub m_reg_src: u16,
        /// Tag.
        pub m_reg_tag: u16,
        /// A dropped non-posted request needing an Unsupported Request completion is offered.
        pub m_ur_valid: bool,
        /// Its Requester ID.
        pub m_ur_src: u16,
        /// Its tag.
        pub m_ur_tag: u16,
        /// Its TC.
        pub m_ur_tc: u8,
        /// Its Attr\[2:0\].
        pub m_ur_attr: u8,
        /// It is a memory read.
        pub m_ur_mem_read: bool,
        /// It is a locked memory read.
        pub m_ur_locked: bool,
        /// Its Length field.
        pub m_ur_length: u16,
        /// Its First DW BE.
        pub m_ur_first_be: u8,
        /// Its Last DW BE.
        pub m_ur_last_be: u8,
        /// Its address bits 6:0.
        pub m_ur_addr: u8,
        /// A message is offered.
        pub m_msg_valid: bool,
        /// The message (`m_msg_<field>`), meaningful while `m_msg_valid`.
        pub m_msg: MsgPort,
        /// One-cycle outcome pulse per frame, bit = [`event`].
        pub stat_event: u32,
    }
}

impl InputCheckerOut {
    /// The message on the `m_msg_*` ports.
    pub fn msg(&self) -> CollectiveMsg {
        self.m_msg.msg()
    }

    fn set_msg(&mut self, m: &CollectiveMsg) {
        self.m_msg = MsgPort::from(m);
    }
}

/// A beat as stage A of the pipeline holds it.
#[derive(Clone, Debug, PartialEq)]
struct Beat {
    data: Wide,
    keep: u64,
    last: bool,
    user: u16,
}

/// A frame as its last beat left the stream side (stage C). Its captured bytes are the checker's
/// capture (`InputChecker::cap`), not a copy: stage C classifies the frame in the first cycle the stages
/// advance after its last beat, before stage B takes the next beat into the capture (and a cycle that
/// does not advance moves neither), so the capture still holds this frame's bytes when C reads them.
/// The copy this held, 128 bytes moved with the stage every beat, was 8% of the top's model time
/// (issue 23, docs/performance.md §Session 17).
#[derive(Clone, Debug, PartialEq)]
struct Frame {
    summary: FrameSummary,
}

/// A verdict (and the Unsupported Request of a drop) waiting in stage D for the output registers.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Decided {
    verdict: Verdict,
    ur: Option<UrRequest>,
}

/// Cycles from the edge that takes a frame's last beat to the edge that loads its verdict into the
/// output registers, with no stall: stages A, B-to-C, C-to-D, D-to-outputs (docs/blocks/input_checker.md
/// §Timing). The verdict is on the outputs in the cycle after that edge.
pub const PIPELINE_EDGES: usize = 4;

/// The input checker's registers. The stream side (stage B) keeps a byte-serial CRC: the RTL computes
/// the same residue checks with XOR trees ([`crc_matrix`]); only the verdicts are observable.
#[derive(Clone, Debug, PartialEq)]
pub struct InputChecker {
    p: CheckerParams,
    a: Option<Beat>,
    cap: [u8; CAPTURE_BYTES],
    in_frame: bool,
    pos: usize,
    crc: u32,
    ecrc: u32,
    ecrc_end: usize,
    tkeep_bad: bool,
    portals: bool,
    flit: bool,
    port: u8,
    /// The frame's bytes past the capture, up to [`config::CONFIG_FRAME_BYTES`] (the RTL's slot store).
    ext: [u8; config::CONFIG_FRAME_BYTES - CAPTURE_BYTES],
    c: Option<Frame>,
    d: Option<Decided>,
    /// Subservient IDs of the configuration message in stage D already read (its preload).
    cfg_pre: usize,
    /// Writes of the configuration message in stage D already loaded into the register output.
    cfg_sent: usize,
    out: InputCheckerOut,
}

/// Frame positions saturate here (frames this long are dropped as too long anyway).
const POS_MAX: usize = 0xFFFF;

impl InputChecker {
    /// A checker in its reset state.
    pub fn new(p: CheckerParams) -> Result<Self, CheckerParamError> {
        if p.data_width < 64 || p.data_width % 8 != 0 || p.data_width > WIDE_MAX_BITS {
            return Err(CheckerParamError::DataWidth(p.data_width));
        }
        Ok(InputChecker {
            p,
            a: None,
            cap: [0; CAPTURE_BYTES],
            in_frame: false,
            pos: 0,
            crc: 0,
            ecrc: 0,
            ecrc_end: 0,
            tkeep_bad: false,
            portals: false,
            flit: false,
            port: 0,
            ext: [0; config::CONFIG_FRAME_BYTES - CAPTURE_BYTES],
            c: None,
            d: None,
            cfg_pre: 0,
            cfg_sent: 0,
            out: InputCheckerOut::default(),
        })
    }
}

impl Block for InputChecker {
    type In = InputCheckerIn;
    type Out = InputCheckerOut;

    #[inline(always)]
    fn step(&mut self, i: &InputCheckerIn) -> InputCheckerOut {
        let reg_free = !self.out.m_reg_valid || i.m_reg_ready;
        let msg_free = !self.out.m_msg_valid || i.m_msg_ready;
        let ur_free = !self.out.m_ur_valid || i.m_ur_ready;
        // A configuration message in stage D with subservient IDs to preload or writes still to load
        // holds the whole pipeline, as a stalled output does; it preloads one subservient ID a cycle,
        // then its next write goes out whenever the register output is free.
        let (preload, cfg) = match &self.d {
            Some(Decided { verdict: Verdict::Config(w), .. }) if self.cfg_pre < w.preload() => (true, None),
            Some(Decided { verdict: Verdict::Config(w), .. }) if self.cfg_sent < w.count() => (false, Some(w.write(self.cfg_sent))),
            _ => (false, None),
        };
        // Every stage advances together, when all three outputs are free and no configuration write
        // waits (the RTL's `adv`).
        let adv = !i.rst && reg_free && msg_free && ur_free && !preload && cfg.is_none();
        let out = InputCheckerOut { s_axis_tready: adv, ..self.out };

        // Rising edge.
        self.out.m_reg_valid &= !i.m_reg_ready;
        self.out.m_msg_valid &= !i.m_msg_ready;
        self.out.m_ur_valid &= !i.m_ur_ready;
        self.out.stat_event = 0;
        if preload && !i.rst {
            self.cfg_pre += 1;
        }
        if let Some(a) = cfg.filter(|_| reg_free && !i.rst) {
            self.set_reg(&a);
            self.cfg_sent += 1;
        }
        if adv {
            // Each stage is taken only when it holds something: `Option::take` moves the whole option
            // (a `Frame` is 150 bytes) even when it is `None`, and these moves were 6% of the top's
            // model time (issue 23, docs/performance.md §Session 16).
            // D: the verdict to the output registers.
            if let Some(d) = self.d.is_some().then(|| self.d.take()).flatten() {
                self.load(&d);
                self.cfg_pre = 0;
                self.cfg_sent = 0;
            }
            // C: classified with this cycle's configuration.
            self.d = self.c.is_some().then(|| self.c.take()).flatten().map(|f| {
                let cfg = CheckerConfig {
                    engine_id: i.cfg_engine_id,
                    ethertype: i.cfg_ethertype,
                    vendor_id: i.cfg_vendor_id,
                    validation: i.cfg_validation,
                    vni_valid: i.cfg_vni_valid,
                    vni: i.cfg_vni,
                };
                let verdict = match classify(&self.cap, &f.summary, &cfg) {
                    // The slots as the write sequencer reads them: capture, then the slot store.
                    Verdict::Config(w) => {
                        let (cap, ext) = (&self.cap, &self.ext);
                        Verdict::Config(w.with_store(|o| if o < CAPTURE_BYTES { cap[o] } else { ext[o - CAPTURE_BYTES] }, f.summary.flit))
                    }
                    v => v,
                };
                let ur = match verdict {
                    Verdict::Drop(reason) => unsupported_request(&self.cap, &f.summary, reason),
                    _ => None,
                };
                Decided { verdict, ur }
            });
            // B: the stream side takes the beat stage A holds.
            self.c = self.a.is_some().then(|| self.a.take()).flatten().and_then(|b| self.stream(&b));
            // A: the beat on the input.
            self.a = i.s_axis_tvalid.then(|| Beat { data: i.s_axis_tdata, keep: i.s_axis_tkeep, last: i.s_axis_tlast, user: i.s_axis_tuser });
        }
        if i.rst {
            self.a = None;
            self.in_frame = false;
            self.pos = 0;
            self.crc = 0;
            self.ecrc = 0;
            self.ecrc_end = 0;
            self.tkeep_bad = false;
            self.portals = false;
            self.flit = false;
            self.port = 0;
            self.c = None;
            self.d = None;
            self.cfg_pre = 0;
            self.cfg_sent = 0;
            self.out = InputCheckerOut::default();
        }
        out
    }
}

impl InputChecker {
    /// Stage B: one beat into the capture, the CRCs and the byte count; the frame when it is the last.
    fn stream(&mut self, b: &Beat) -> Option<Frame> {
        let kw = self.p.keep_width();
        let keep_all = if kw >= 64 { u64::MAX } else { (1u64 << kw) - 1 };
        let first = !self.in_frame;
        let pos = if first { 0 } else { self.pos };
        let keep = b.keep & keep_all;
        let byte = |k: usize| b.data.byte(k);
        if first {
            self.portals = b.user >> 8 & 1 != 0;
            self.flit = !self.portals && b.user >> flit::TUSER_FLIT_BIT & 1 != 0;
            self.port = b.user as u8;
            // The ECRC range: from the TLP's first byte (2, or 0 in flit mode) to the end of its digest.
            // Fmt (non-flit byte 0 bits 7-5) and the Type of the flit-mode requests taken (MWr32/MWr64)
            // both say 4-DW header in bit 5 and data in bit 6; Length is in bytes 2-3 of both DW0s.
            let o = self.tlp_start();
            let (b0, b2, b3) = (byte(o), byte(o + 2), byte(o + 3));
            let length = usize::from(b2 & 3) << 8 | usize::from(b3);
            let len_dw = if length == 0 { 1024 } else { length };
            let hdr = if b0 & 0x20 != 0 { 16 } else { 12 };
            let plen = if b0 & 0x40 != 0 { 4 * len_dw } else { 0 };
            self.ecrc_end = o + hdr + plen + 4;
        }
        let (tlp_start, variant_bits) = if self.flit { (0, &flit::FLIT_ECRC_VARIANT_BITS) } else { (TLP_OFFSET, &ECRC_VARIANT_BITS) };
        let mut crc = if first { u32::MAX } else { self.crc };
        let mut ecrc = if first { u32::MAX } else { self.ecrc };
        // The beat's bytes unpacked once (byte k of the beat is bits 8k+7:8k).
        let mut bytes = [0u8; WIDE_MAX_BITS / 8];
        for (chunk, limb) in bytes.chunks_exact_mut(8).zip(b.data.0) {
            chunk.copy_from_slice(&limb.to_le_bytes());
        }
        let beat = &bytes[..kw];
        for (k, &v) in beat.iter().enumerate() {
            if keep >> k & 1 != 0 {
                crc = crc32_byte(crc, v);
                let at = pos + k;
                if at >= tlp_start && at < self.ecrc_end {
                    let forced = variant_bits.iter().filter(|(o, _)| tlp_start + o == at).fold(0, |a, (_, m)| a | m);
                    ecrc = crc32_byte(ecrc, v | forced);
                }
            }
        }
        // Every byte of the beat is captured, kept or not, up to the capture's end.
        if pos < CAPTURE_BYTES {
            let captured = (CAPTURE_BYTES - pos).min(kw);
            self.cap[pos..pos + captured].copy_from_slice(&beat[..captured]);
        } else if pos < config::CONFIG_FRAME_BYTES {
            // Past the capture: the slot store (a configuration message's slots, read after the verdict).
            let stored = (config::CONFIG_FRAME_BYTES - pos).min(kw);
            self.ext[pos - CAPTURE_BYTES..pos - CAPTURE_BYTES + stored].copy_from_slice(&beat[..stored]);
        }
        let bad = if b.last { keep == 0 || keep & keep.wrapping_add(1) & keep_all != 0 } else { keep != keep_all };
        self.tkeep_bad = (!first && self.tkeep_bad) || bad;
        self.crc = crc;
        self.ecrc = ecrc;
        self.pos = (pos + kw).min(POS_MAX);
        self.in_frame = !b.last;
        b.last.then(|| Frame {
            summary: FrameSummary {
                bytes: (pos + keep.count_ones() as usize).min(POS_MAX),
                link_crc_ok: crc == CRC32_RESIDUE,
                ecrc_ok: ecrc == CRC32_RESIDUE,
                tkeep_bad: self.tkeep_bad,
                portals: self.portals,
                flit: self.flit,
                port: self.port,
            },
        })
    }

    /// Offset of the TLP in the frame being received: after the sequence number, or 0 in flit mode.
    fn tlp_start(&self) -> usize {
        if self.flit { 0 } else { TLP_OFFSET }
    }

    /// A register access into the register output.
    fn set_reg(&mut self, a: &RegAccess) {
        self.out.m_reg_valid = true;
        self.out.m_reg_write = a.write;
        self.out.m_reg_addr = a.addr;
        self.out.m_reg_be = a.be;
        self.out.m_reg_wdata = a.wdata;
        self.out.m_reg_src = a.src;
        self.out.m_reg_tag = a.tag;
    }

    /// Stage D: a verdict into the output registers, with its pulse.
    fn load(&mut self, d: &Decided) {
        self.out.stat_event = 1 << d.verdict.event();
        match d.verdict {
            Verdict::Reg(a) => self.set_reg(&a),
            // Its writes went out while it held stage D; the pulse closes it.
            Verdict::Config(_) => {}
            Verdict::Msg(m) => {
                self.out.m_msg_valid = true;
                self.out.set_msg(&m);
            }
            Verdict::Drop(_) => {
                if let Some(u) = d.ur {
                    self.out.m_ur_valid = true;
                    self.out.m_ur_src = u.src;
                    self.out.m_ur_tag = u.tag;
                    self.out.m_ur_tc = u.tc;
                    self.out.m_ur_attr = u.attr;
                    self.out.m_ur_mem_read = u.mem_read;
                    self.out.m_ur_locked = u.locked;
                    self.out.m_ur_length = u.length;
                    self.out.m_ur_first_be = u.first_be;
                    self.out.m_ur_last_be = u.last_be;
                    self.out.m_ur_addr = u.addr;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
