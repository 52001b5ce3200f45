//! The steering decision for a captured frame (docs/blocks/input_checker.md §Checks): the stream-side
//! checks, then the Portals, non-flit TLP and flit-mode TLP branches; a collective message's own checks
//! are [`super::collective`].

use super::codes::{event, validation};
use super::collective::collective;
use super::config;
use super::flit;
use super::protocol::*;
use super::verdict::{CheckerConfig, Verdict};
use crate::message::{CollectiveMsg, Family, Kind, NO_PARTICIPANT};

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
    let Some((engine, off)) = window_of(u64::from(hi) << 32 | u64::from(addr)) else { return Verdict::Drop(NOT_FOR_ENGINE) };
    if engine != cfg.engine_id {
        return Verdict::Drop(NOT_FOR_ENGINE);
    }
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

