//! PCIe 6 flit-mode TLPs on the checker's stream (seed 000 \[0156\]: FIG. 4's header fields Type, TC,
//! OHC, TS, Attr, Length, Requester ID, EP, R, Tag are a flit-mode TLP's; docs/blocks/input_checker.md
//! §Flit-mode TLPs, docs/frames.md §2).
//!
//! A flit-mode frame is marked by `tuser[9]` on its first beat (family TLP only) and is the TLP as the
//! flit decoder hands it over: header base, OHC, payload, trailer; no sequence number and no LCRC (flit
//! mode protects flits, not TLPs: check 2 does not apply; the TLP's own integrity is its TS = 001 ECRC).
//! Stage C reads it from the capture moved up by [`TLP_OFFSET`] bytes, so that every byte the engine
//! takes sits where it sits in a non-flit frame: DW0 at 2, DW1 at 6, the address at 10, the payload at 14
//! (3-DW base) or 18 (4-DW base), and the collective message, its configuration slots and the register
//! data are read by the same code (and, in the RTL, the same wires) as for a non-flit frame.
//!
//! ```text
//! DW0                                      DW1
//! | Type[7:0] | TC | OHC[4:0] | TS | Attr | Length[9:0] |   | Requester ID | EP | R | Tag[13:0] |
//! ```
//!
//! Taken: MWr32 (Type 0x40, 3-DW base) and MWr64 (0x60, 4-DW base) with no OHC and TS 000 or 001 (ECRC),
//! as register writes (1 DW, byte enables all ones: with no OHC-A the First DW BE is 1111) or mailbox
//! writes carrying a collective message, FIG. 4's configuration packet included. Everything else is
//! dropped, in the order of the non-flit checks: a local prefix (Type 0x80-0x8F) or another defined Type
//! (Table 2-5) `tlp_unsupported`, a reserved Type `tlp_malformed`; OHC words or a TS other than 000/001
//! `tlp_unsupported` (their contents are figures the public text does not carry: the byte enables of
//! OHC-A1 cannot be read); then the length, EP, ECRC, reserved bits (R, address bits 1:0) as T9-T12.
//! No Unsupported Request is sent for a flit-mode request (the completion builder builds non-flit
//! completions).

use super::protocol::{CAPTURE_BYTES, TLP_OFFSET};

/// `tuser` bit 9 of a first beat: the frame is a flit-mode TLP (ignored on a Portals frame, bit 8).
pub const TUSER_FLIT_BIT: u32 = 9;
/// Longest flit-mode frame read: the TLP of the longest non-flit frame the capture holds (the capture
/// less the sequence number and the LCRC), so that a flit-mode message fits exactly when its non-flit
/// form does. A longer one is `too_long`, unless it is a configuration message (read up to
/// [`super::config::CONFIG_FRAME_BYTES`], its slots past the capture from the slot store).
pub const FLIT_CAPTURE_BYTES: usize = CAPTURE_BYTES - TLP_OFFSET - LCRC_BYTES;
/// The LCRC a non-flit frame carries and a flit-mode one does not.
const LCRC_BYTES: usize = 4;
/// Shortest flit-mode frame read further: the smallest header base the engine takes (MWr32, 3 DW).
pub const FLIT_MIN_BYTES: usize = 12;
/// Type\[7:0\] of a 32-bit memory write (Table 2-5).
pub const FLIT_MWR32: u8 = 0x40;
/// Type\[7:0\] of a 64-bit memory write.
pub const FLIT_MWR64: u8 = 0x60;
/// Type\[7:0\] bit 5: the address-routed types the engine takes have a 4-DW base (MWr64), as Fmt\[0\] of
/// a non-flit header (the flit Type code keeps the non-flit Fmt in bits 7-5 for memory requests).
pub const FLIT_TYPE_4DW: u8 = 0x20;
/// Type\[7:0\] bit 6: a data payload follows (Fmt\[1\]).
pub const FLIT_TYPE_DATA: u8 = 0x40;
/// Local TLP prefixes: Type\[7:4\] = 1000 (0x80-0x8F, 1 DW each).
pub const FLIT_PREFIX_NIBBLE: u8 = 0x8;
/// TS code of a 1-DW ECRC trailer; larger codes (IDE MAC, PCRC) are not taken.
pub const FLIT_TS_ECRC: u8 = 0b001;
/// Bits of the TLP forced to 1 in a flit-mode ECRC (frames crate `FLIT_ECRC_VARIANT_BITS`), as (offset
/// from the TLP start, mask): Type\[0\] and EP.
pub const FLIT_ECRC_VARIANT_BITS: [(usize, u8); 2] = [(0, 0x01), (6, 0x80)];

/// Defined Type\[7:0\] codes (Table 2-5's named rows: NOP, MRd/MRdLk/IO/Cfg, Cpl*, UIO, Msg/MsgD with
/// their six routings, MWr, AtomicOps, DMWr, the flit-mode and vendor prefixes), one bit per code,
/// `[u64; 4]` low word first; generated into `rtl/input_checker_codes.vh` (`FLIT_TYPE_DEFINED`).
pub const FLIT_TYPE_DEFINED: [u64; 4] = {
    const DEFINED: [(u8, u8); 15] = [
        (0x00, 0x05), (0x0a, 0x0d), (0x20, 0x22), (0x30, 0x35), (0x40, 0x40), (0x42, 0x42), (0x44, 0x45), (0x48, 0x48),
        (0x4a, 0x4e), (0x5b, 0x5b), (0x60, 0x61), (0x6c, 0x6e), (0x70, 0x75), (0x7b, 0x7b), (0x8d, 0x8f),
    ];
    let mut m = [0u64; 4];
    let mut i = 0;
    while i < DEFINED.len() {
        let (lo, hi) = DEFINED[i];
        let mut t = lo as usize;
        while t <= hi as usize {
            m[t / 64] |= 1 << (t % 64);
            t += 1;
        }
        i += 1;
    }
    m
};

/// Whether Type\[7:0\] `t` is a defined code ([`FLIT_TYPE_DEFINED`]).
pub fn flit_type_defined(t: u8) -> bool {
    FLIT_TYPE_DEFINED[usize::from(t) / 64] >> (t % 64) & 1 != 0
}

/// The capture as stage C reads a flit-mode frame: moved up by [`TLP_OFFSET`] bytes (the first two read
/// 0, the last two captured bytes fall off), so the TLP starts where a non-flit frame's does.
pub fn aligned(c: &[u8; CAPTURE_BYTES]) -> [u8; CAPTURE_BYTES] {
    let mut s = [0u8; CAPTURE_BYTES];
    s[TLP_OFFSET..].copy_from_slice(&c[..CAPTURE_BYTES - TLP_OFFSET]);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defined_types_follow_table_2_5() {
        for t in [0x00, 0x03, 0x0a, 0x20, 0x30, 0x35, 0x40, 0x4e, 0x5b, 0x60, 0x61, 0x70, 0x72, 0x7b, 0x8d, 0x8f] {
            assert!(flit_type_defined(t), "{t:#04x}");
        }
        for t in [0x06, 0x0e, 0x10, 0x36, 0x41, 0x43, 0x62, 0x76, 0x80, 0x8c, 0x90, 0xff] {
            assert!(!flit_type_defined(t), "{t:#04x}");
        }
        assert_eq!(FLIT_MWR32 & (FLIT_TYPE_4DW | FLIT_TYPE_DATA), FLIT_TYPE_DATA);
        assert_eq!(FLIT_MWR64 & (FLIT_TYPE_4DW | FLIT_TYPE_DATA), FLIT_TYPE_4DW | FLIT_TYPE_DATA);
    }

    #[test]
    fn the_aligned_capture_starts_the_tlp_at_the_non_flit_offset() {
        let mut c = [0u8; CAPTURE_BYTES];
        for (i, b) in c.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        let s = aligned(&c);
        assert_eq!(&s[..TLP_OFFSET], &[0, 0]);
        assert_eq!(s[TLP_OFFSET], 1);
        assert_eq!(s[CAPTURE_BYTES - 1], c[CAPTURE_BYTES - TLP_OFFSET - 1]);
    }
}
