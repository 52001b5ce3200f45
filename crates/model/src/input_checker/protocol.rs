//! The input checker's frame layout and protocol constants, the defined Portals code sets, the CRC-32
//! step, the TLP DW0 fields, the stream side's [`FrameSummary`] and the big-endian readers: a leaf shared
//! by the checker ([`super`]), its checks (`classify`, `collective`, `ur`), code tables and CRC matrix
//! (siblings), so that none of them reads the others' items through the parent.

/// A register access produced from a 1-DW memory request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegAccess {
    /// MWr (1) or MRd (0).
    pub write: bool,
    /// Byte offset in the window (bits 1:0 zero).
    pub addr: u16,
    /// First DW BE.
    pub be: u8,
    /// Payload DW, little-endian (0 for reads).
    pub wdata: u32,
    /// Requester ID.
    pub src: u16,
    /// 10-bit tag.
    pub tag: u16,
}

/// Bytes of a frame captured for parsing: longer frames are dropped as [`super::event::TOO_LONG`]. The longest
/// frame the engine accepts is a Soft Portals frame (102 bytes).
pub const CAPTURE_BYTES: usize = 128;
/// Offset of the TLP in a TLP frame (after the 2-byte sequence-number field).
pub const TLP_OFFSET: usize = 2;
/// Shortest TLP frame: sequence number, 3-DW header, LCRC.
pub const TLP_MIN_BYTES: usize = TLP_OFFSET + 12 + 4;
/// Length of a Soft Portals frame (frames crate `SOFT_PORTALS_LEN`).
pub const SOFT_PORTALS_BYTES: usize = 102;
/// Offset of the Portals reduction frame in a Soft Portals frame (after the Ethernet header).
pub const PORTALS_OFFSET: usize = 14;
/// Register-window offsets at or above this are the collective-message mailbox (memory-write carrier);
/// below it, 1-DW reads and writes are register accesses.
pub const MAILBOX_OFFSET: u32 = 0x800;
/// Engine register window base in the switch's address space (000 \[0175\]).
pub const ENGINE_WINDOW: u32 = 0xC;

/// Bits of an engine's window address (000 \[0175\]: `0x0010_C0yy` is engine 0x0010's register `yy`):
/// the engine's device ID above `ENGINE_ID_SHIFT`, the window nibble above `WINDOW_SHIFT`, the offset below.
const ENGINE_ID_SHIFT: u32 = 16;
const WINDOW_SHIFT: u32 = 12;
const WINDOW_OFFSET_MASK: u32 = (1 << WINDOW_SHIFT) - 1;

/// The 32-bit address of byte `offset` (below 4 KiB) of `engine_id`'s register window.
pub fn window_address(engine_id: u16, offset: u32) -> u32 {
    u32::from(engine_id) << ENGINE_ID_SHIFT | ENGINE_WINDOW << WINDOW_SHIFT | (offset & WINDOW_OFFSET_MASK)
}

/// `(engine ID, offset)` when `addr` is in an engine's register window (one decode for the checker, the
/// configuration's encapsulated writes and the frame codec); `None` above 32 bits or outside the windows.
pub fn window_of(addr: u64) -> Option<(u16, u32)> {
    let a = u32::try_from(addr).ok()?;
    ((a >> WINDOW_SHIFT) & 0xF == ENGINE_WINDOW).then_some(((a >> ENGINE_ID_SHIFT) as u16, a & WINDOW_OFFSET_MASK))
}
/// Message code of a vendor-defined Type 1 message.
pub const VDM_TYPE1_CODE: u8 = 0x7F;
/// Protocol id in bits 31:24 of a collective VDM's DW3 (frames crate `VDM_PROTOCOL_ID`).
pub const VDM_PROTOCOL_ID: u32 = 0xCE;
/// CRC-32/ISO-HDLC register (reflected, before the final inversion) after a message followed by its own
/// little-endian CRC.
pub const CRC32_RESIDUE: u32 = 0xDEBB_20E3;
/// Bits of the TLP forced to 1 in the ECRC (frames crate `NON_FLIT_ECRC_VARIANT_BITS`), as (offset from
/// the TLP start, mask).
pub const ECRC_VARIANT_BITS: [(usize, u8); 2] = [(0, 0x01), (2, 0x40)];

/// The collective header's flag byte (byte 1) `{NP, EM, RT, TID[1:0], rsvd[2:0]}` (docs/frames.md §4).
pub mod coll_flag {
    /// Non-posted (000 \[0097\]).
    pub const NP: u8 = 0x80;
    /// Error mark (000 \[0242\]).
    pub const EM: u8 = 0x40;
    /// Lowest bit of the 2-bit transaction ID (seed 001).
    pub const TID_SHIFT: u8 = 3;
    /// The TID's width as a mask (seed 001: "a short 2 bit transaction ID").
    pub const TID_MASK: u8 = 0x3;
    /// Reserved bits 2:0: a message with any set is dropped (`RESERVED`).
    pub const RESERVED: u8 = 0x07;
}

/// Width of the reduction header's rt_op field (bits 16:11 of its 64-bit word).
pub const PORTALS_OP_BITS: u32 = 6;
/// Width of the reduction header's rt_rc field (bits 50:47).
pub const PORTALS_RC_BITS: u32 = 4;

/// A 64-bit mask with bits `lo..=hi` set (a range of codes).
const fn codes(lo: u32, hi: u32) -> u64 {
    (u64::MAX >> (63 - hi)) & (u64::MAX << lo)
}

/// Defined rt_op codes as a mask indexed by the 6-bit field (002 (42)-(48); frames crate `ReductionOp`):
/// 0x00-0x03, 0x10-0x12, 0x14, 0x20-0x22, 0x24-0x26, 0x28-0x30. Generated into
/// `rtl/input_checker_codes.vh` (`PORTALS_OP_DEFINED`), which the RTL indexes with the field.
pub const PORTALS_OP_DEFINED: u64 = codes(0x00, 0x03) | codes(0x10, 0x12) | codes(0x14, 0x14) | codes(0x20, 0x22) | codes(0x24, 0x26) | codes(0x28, 0x30);

/// Defined rt_rc codes the engine can receive, as a mask indexed by the 4-bit field (002 (96); frames
/// crate `ReductionRc` 0-8 without 2). Generated into `rtl/input_checker_codes.vh` (`PORTALS_RC_DEFINED`).
pub const PORTALS_RC_DEFINED: u16 = (codes(0, 8) & !codes(2, 2)) as u16;

/// Whether `op` (the rt_op field) is a defined code: its bit of [`PORTALS_OP_DEFINED`].
pub fn portals_op_defined(op: u8) -> bool {
    u32::from(op) < 1 << PORTALS_OP_BITS && PORTALS_OP_DEFINED >> op & 1 != 0
}

/// Whether `rc` (the rt_rc field) is a defined code: its bit of [`PORTALS_RC_DEFINED`].
pub fn portals_rc_defined(rc: u8) -> bool {
    u32::from(rc) < 1 << PORTALS_RC_BITS && PORTALS_RC_DEFINED >> rc & 1 != 0
}

/// The reflected CRC-32 polynomial (IEEE 802.3; the TLP LCRC and ECRC, the Soft Portals FCS), the RTL's
/// `CRC32_POLY` (generated into the headers of the blocks that compute a CRC).
pub const CRC32_POLY: u32 = 0xEDB8_8320;

/// One step of the reflected CRC-32 ([`CRC32_POLY`]) over one byte, no inversion: one lookup in
/// [`CRC32_TABLE`] (the checker, the frame builder and the completion builder call it for every byte
/// of every frame; the bit-serial loop was the largest cost of the checker's step, issue 23).
#[inline]
pub fn crc32_byte(crc: u32, byte: u8) -> u32 {
    (crc >> 8) ^ CRC32_TABLE[usize::from(crc as u8 ^ byte)]
}

/// The bit-serial form of [`crc32_byte`]: eight shifts of the register, as the RTL's CRC matrices are
/// derived (`crc_matrix`); it builds [`CRC32_TABLE`] and the tests compare the two.
pub const fn crc32_byte_serial(crc: u32, byte: u8) -> u32 {
    let mut c = crc ^ byte as u32;
    let mut k = 0;
    while k < 8 {
        c = (c >> 1) ^ (CRC32_POLY & (c & 1).wrapping_neg());
        k += 1;
    }
    c
}

/// Bytes a CRC-32 table step takes at once.
const BYTE_VALUES: usize = 256;

/// `CRC32_TABLE[b]`: the register `0` after the byte `b` (the CRC is linear: a step from `crc` is
/// `crc >> 8` xor the entry of its low byte xor the data byte).
pub const CRC32_TABLE: [u32; BYTE_VALUES] = {
    let mut t = [0u32; BYTE_VALUES];
    let mut b = 0;
    while b < BYTE_VALUES {
        t[b] = crc32_byte_serial(0, b as u8);
        b += 1;
    }
    t
};

/// DW0 fields of a non-flit TLP as this block reads them (PCIe Base Specification Table 2-3; the frames
/// crate's `tlp::Dw0` and `tlp::kind` name the same bits). The model does not depend on the frames crate
/// on purpose: it mirrors `rtl/input_checker.v` byte for byte, and the tests (`tests/cosim_input_checker.rs`)
/// build the frames they drive it with through the frames codec, so a decoding bug in shared code would
/// hide itself.
pub(super) mod tlp_dw0 {
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
    /// A flit-mode TLP (tuser\[9\] of the first beat, TLP family only; [`super::flit`]).
    pub flit: bool,
    /// Ingress port, from tuser\[7:0\] of the first beat.
    pub port: u8,
}

pub(super) fn be16(c: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([c[o], c[o + 1]])
}
pub(super) fn be32(c: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([c[o], c[o + 1], c[o + 2], c[o + 3]])
}
pub(super) fn be64(c: &[u8], o: usize) -> u64 {
    u64::from(be32(c, o)) << 32 | u64::from(be32(c, o + 4))
}
