//! PCIe 6 flit-mode frames for the input checker's stimulus (seed 000 [0156]: FIG. 4's packet carries the
//! flit-mode header fields Type, TC, OHC, TS, Attr, Length, Requester ID, EP, R, Tag;
//! docs/blocks/input_checker.md §Flit-mode TLPs). Built with the frames crate's flit codec (`FlitTlp`),
//! each frame's outcome written from the document, not from the model: MWr32 / MWr64 with no OHC and TS
//! 000 or 001 are taken (a FIG. 4 configuration message, another collective message, a register write),
//! anything else is dropped for the reason the document gives.

use inswitch_frames::flit::{self, FlitDw0, FlitTlp};
use inswitch_model::input_checker::config::CONFIG_FRAME_BYTES;
use inswitch_model::input_checker::{event, RegAccess};
use rand::RngExt;

use super::{GenFrame, InputCheckerStimulus, ENGINE_ID};
use super::super::reference::{expected_config_writes, expected_tlp_msg, Expect, LONG_CONFIG_LABEL};

/// The longest flit-mode frame the checker reads (docs §Flit-mode TLPs: the TLP of the longest non-flit
/// frame the 128-byte capture holds, less its 2-byte sequence number and 4-byte LCRC); a longer one is
/// `too_long`, unless a configuration message (kind 1 by MWr32/MWr64: read up to CONFIG_FRAME_BYTES).
const FLIT_CAPTURE: usize = 128 - 2 - 4;
/// Register-window offset of the collective mailbox (docs §Checks, T15).
const MAILBOX: u32 = 0x800;
/// The window's base in the switch's address space: address[31:16] = the engine's device ID,
/// address[15:12] = 0xC (docs §Checks, T13).
const WINDOW: u64 = 0xC000;
/// The register path carries the low ten bits of the 14-bit flit tag (docs §Flit-mode TLPs).
const REG_TAG_MASK: u16 = 0x3FF;

/// DW1 of a flit-mode request header base, packed as docs/frames.md §2 draws it: Requester ID (16), EP,
/// R, Tag[13:0].
fn dw1(src: u16, ep: bool, r: bool, tag: u16) -> u32 {
    u32::from(src) << 16 | u32::from(ep) << 15 | u32::from(r) << 14 | u32::from(tag)
}

/// The one defect a flit-mode frame may carry.
#[derive(Clone, Copy, PartialEq)]
enum Defect {
    None,
    Ohc,
    Trailer,
    Prefix,
    OtherType,
    Length,
    Poisoned,
    Ecrc,
    ReservedR,
    AddressLow,
    OtherWindow,
}

impl InputCheckerStimulus {
    /// A flit-mode frame: a FIG. 4 configuration message (half of them; valid, too long, or with one of
    /// the configuration defects), another collective message or a register write, by MWr32 or MWr64,
    /// with or without ECRC, valid or with one header defect.
    pub(super) fn flit_frame(&mut self) -> GenFrame {
        use event::*;
        let port = self.r.random_range(0..16);
        let src: u16 = self.r.random();
        let tag = self.r.random_range(0..1u16 << flit::TAG_BITS);
        let v = self.cfg.validation;
        let (payload, off, expect, what) = match self.r.random_range(0..4) {
            0 | 1 => {
                let (m, fixed, ids, subs) = self.config_message();
                let mut payload = m.to_bytes().expect("configuration message");
                let n = ids.len();
                let (reason, what) = self.config_defect(&mut payload, n, subs.len());
                let expect = match reason {
                    Some(r) => Expect::Drop(r),
                    None => Expect::Config(expected_config_writes(&fixed, &ids, &subs, src, tag & REG_TAG_MASK)),
                };
                (payload, MAILBOX + 4 * self.r.random_range(0..0x200u32), expect, format!("flit {what}"))
            }
            2 => {
                let kind = self.r.random_range(2..=8);
                let m = self.collective_message(kind);
                let payload = m.to_bytes().expect("collective message");
                (payload, MAILBOX + 4 * self.r.random_range(0..0x200u32), Expect::Msg(expected_tlp_msg(&m, src, ENGINE_ID, port)), "flit collective (mailbox)".to_string())
            }
            _ => {
                let off = 4 * self.r.random_range(0..0x200u32);
                let data: u32 = self.r.random();
                // No OHC-A: the First DW BE of a 1-DW request is 1111.
                let a = RegAccess { write: true, addr: off as u16, be: 0xF, wdata: data, src, tag: tag & REG_TAG_MASK };
                (data.to_le_bytes().to_vec(), off, Expect::Reg(a), "flit register write".to_string())
            }
        };
        let defect = if self.r.random_bool(0.5) {
            Defect::None
        } else {
            let all = [Defect::Ohc, Defect::Trailer, Defect::Prefix, Defect::OtherType, Defect::Length, Defect::Poisoned, Defect::Ecrc, Defect::ReservedR, Defect::AddressLow, Defect::OtherWindow];
            all[self.r.random_range(0..all.len())]
        };
        let four = self.r.random_bool(0.3);
        let engine = if defect == Defect::OtherWindow { ENGINE_ID ^ 0x0100 } else { ENGINE_ID };
        let address = u64::from(engine) << 16 | WINDOW | u64::from(off) | if defect == Defect::AddressLow { self.r.random_range(1..4) } else { 0 };
        let dw0 = FlitDw0 {
            tlp_type: if four { flit::types::MWR64 } else { flit::types::MWR32 },
            tc: self.r.random_range(0..8),
            ohc: 0,
            ts: 0,
            attr: self.r.random_range(0..8),
            length: (payload.len() / 4 % flit::MAX_PAYLOAD_DW) as u16,
        };
        let first = dw1(src, defect == Defect::Poisoned, defect == Defect::ReservedR, tag);
        let header = if four { vec![first, (address >> 32) as u32, address as u32] } else { vec![first, address as u32] };
        let mut t = FlitTlp { prefixes: vec![], dw0, header, ohc: vec![], payload, trailer: vec![] };
        let mut reason = None;
        match defect {
            Defect::Ohc => {
                // OHC-A alone, or OHC-E of 1, 2 or 4 DW.
                t.dw0.ohc = if self.r.random_bool(0.5) { flit::OHC_A } else { self.r.random_range(1..4u8) << flit::OHC_E_SHIFT };
                t.ohc = (0..t.dw0.ohc_dw()).map(|_| self.r.random()).collect();
                reason = Some(TLP_UNSUPPORTED);
            }
            Defect::Trailer => {
                t.dw0.ts = self.r.random_range(2..8u8);
                t.trailer = (0..t.dw0.trailer_dw()).map(|_| self.r.random()).collect();
                reason = Some(TLP_UNSUPPORTED);
            }
            Defect::Prefix => {
                let ty = self.r.random_range(0x80..=0x8Fu32);
                t.prefixes = vec![ty << 24 | self.r.random::<u32>() >> 8];
                reason = Some(TLP_UNSUPPORTED);
            }
            Defect::Poisoned => reason = Some(POISONED),
            Defect::ReservedR | Defect::AddressLow => reason = Some(RESERVED),
            Defect::OtherWindow => reason = Some(NOT_FOR_ENGINE),
            _ => {}
        }
        if defect != Defect::Trailer && (defect == Defect::Ecrc || self.r.random_bool(0.3)) {
            t.fill_ecrc().expect("ecrc");
        }
        let mut bytes = t.to_bytes().expect("flit TLP");
        match defect {
            Defect::Ecrc if v & 2 != 0 => {
                let n = bytes.len();
                bytes[n - 1 - self.r.random_range(0..4)] ^= 1 << self.r.random_range(0..8);
                reason = Some(ECRC);
            }
            Defect::OtherType => {
                let mut ty: u8 = self.r.random();
                while ty == flit::types::MWR32 || ty == flit::types::MWR64 {
                    ty = self.r.random();
                }
                bytes[0] = ty;
                // docs §Flit-mode TLPs: a local prefix or a Type Table 2-5 defines is unsupported, a
                // reserved one malformed (the frames crate's transcription of the table names them).
                let defined = flit::LOCAL_PREFIX_TYPES.contains(&ty) || flit::type_name(ty) != "Reserved";
                reason = Some(if defined { TLP_UNSUPPORTED } else { TLP_MALFORMED });
            }
            Defect::Length => {
                if self.r.random_bool(0.5) {
                    bytes.extend_from_slice(&[0; 4]);
                } else {
                    bytes.truncate(bytes.len() - 4);
                }
                reason = Some(LENGTH);
            }
            _ => {}
        }
        // Checks in priority order: the capture, then the header's defect, then what the payload says.
        // A configuration message (payload byte 0: version 1, kind 1) still carried by MWr32/MWr64 after
        // the header's defect is read up to CONFIG_FRAME_BYTES.
        let hdr = if bytes[0] & 0x20 != 0 { 16 } else { 12 };
        let config_shape = (bytes[0] == flit::types::MWR32 || bytes[0] == flit::types::MWR64) && bytes.get(hdr) == Some(&0x11);
        let limit = if config_shape { CONFIG_FRAME_BYTES } else { FLIT_CAPTURE };
        let long_config = bytes.len() > FLIT_CAPTURE && matches!(expect, Expect::Config(_));
        let expect = if bytes.len() > limit {
            Expect::Drop(TOO_LONG)
        } else if let Some(r) = reason {
            Expect::Drop(r)
        } else {
            expect
        };
        let what = if reason.is_some() { format!("{what}, flit header defect") } else { what };
        let what = if long_config && matches!(expect, Expect::Config(_)) { format!("{what}{LONG_CONFIG_LABEL}") } else { what };
        GenFrame { bytes, portals: false, flit: true, port, bad_keep: false, expect, what }
    }
}
