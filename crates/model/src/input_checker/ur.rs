//! Unsupported Requests: which dropped TLP frames the engine answers with a UR completion, and the
//! request fields the completion builder needs (docs/blocks/input_checker.md §Unsupported Requests).

use super::codes::event;
use super::protocol::{be16, tlp_dw0, FrameSummary, CAPTURE_BYTES, TLP_MIN_BYTES, TLP_OFFSET};

/// The fields of a request that its completion copies (Requester ID, Tag, TC, Attr) or derives from it
/// (Byte Count and Lower Address of a memory read): one type for both streams, the input checker's
/// `m_ur_*` (a dropped non-posted request, [`unsupported_request`]) and the register space's response
/// to a read (`completion_builder::CompletionBuilderIn::rsp_request`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestFields {
    /// Requester ID.
    pub src: u16,
    /// Tag (10 bits: T9, T8, Tag\[7:0\]).
    pub tag: u16,
    /// Traffic Class.
    pub tc: u8,
    /// Attr\[2:0\] (A2 in bit 2).
    pub attr: u8,
    /// A memory read (MRd / MRdLk): Byte Count and Lower Address follow its length, byte enables and
    /// address; otherwise they are 4 and 0.
    pub mem_read: bool,
    /// A locked memory read (MRdLk): the completion is a CplLk / CplDLk.
    pub locked: bool,
    /// Length field in DW (0 = 1024).
    pub length: u16,
    /// First DW byte enables.
    pub first_be: u8,
    /// Last DW byte enables (0 for a 1-DW request).
    pub last_be: u8,
    /// Address bits 6:0 as on the wire (bits 1:0, PH, are ignored).
    pub addr: u8,
}

/// Drop reasons of a well-formed request that the engine answers with an Unsupported Request when the
/// request is non-posted (docs/blocks/input_checker.md §Unsupported Requests).
pub const UR_EVENTS: [u32; 5] = [event::TLP_UNSUPPORTED, event::POISONED, event::RESERVED, event::NOT_FOR_ENGINE, event::REG_ACCESS];

/// The Unsupported Request a TLP frame dropped with `reason` needs: `Some` iff the frame is a whole TLP
/// (its length is what Fmt, Length and TD say) whose Fmt/Type is a non-posted request (MRd, MRdLk, IORd,
/// IOWr, CfgRd/Wr 0/1, FetchAdd, Swap, CAS, DMWr) and `reason` is one of [`UR_EVENTS`].
pub fn unsupported_request(c: &[u8; CAPTURE_BYTES], f: &FrameSummary, reason: u32) -> Option<RequestFields> {
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
    Some(RequestFields {
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
