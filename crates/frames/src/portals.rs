//! The 84-byte Portals reduction frame and its 12-byte reduction header (seed 002 (94)-(97), FIG. 10-12;
//! docs/frames.md §5).
//!
//! The reduction header is bit-compatible with the public libfabric CXI provider
//! (`prov/cxi/src/cxip_coll.c`, `struct cxip_coll_hdr`): the header is one 96-bit big-endian object whose
//! bit 0 is the least significant bit of byte 11.
//!
//! ```text
//! bit  95                              64 63 62 61 60 59 58     51 50 47 46     37 36            17 16  11 10 9       0
//!     +----------------------------------+-----+--+-----+---------+-----+---------+----------------+------+--+---------+
//!     |            rt_cookie             | rsv |rt|ovfl | repsum M| rc  |rt_resno |   rt_count     |rt_op |ar|rt_seqno |
//!     +----------------------------------+-----+--+-----+---------+-----+---------+----------------+------+--+---------+
//! byte 0                              3   4                                                                       11
//! ```
//! (`rt` at bit 61 = retry, `rsv` = libfabric's 2-bit `pad`. This is current libfabric's layout: commit
//! 52b3927e9 (2024-02-27) moved the retry flag from cookie bit 31 to header bit 61 and widened the
//! cookie's magic to bits 31-16; see [`Cookie`].)
//!
//! The 84-byte frame (this project's layout except bytes 35..84, which are exactly libfabric's
//! 49-byte `struct red_pkt` after its `_swappkt`):
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +---------------------------------------------------------------+
//! |     DFA (multicast: bits 20-18 reduction id, 15-3 tree)       |  0
//! +---------------------------------------------------------------+
//! |                              SFA                              |  4
//! +-------------------------------+---------------+---------------+
//! |              VNI              |    command    |     flags     |  8
//! +-------------------------------+---------------+---------------+
//! |                     match bits (64)                           | 12
//! +---------------------------------------------------------------+
//! |                     header data (64)                          | 20
//! +---------------------------------------------------------------+
//! |                reserved (7 bytes)             | IDC pad (5)  -> 28..40
//! +---------------------------------------------------------------+
//! |                 reduction header (12 bytes)                   | 40
//! +---------------------------------------------------------------+
//! |       rt_data: four 64-bit big-endian operands (32 bytes)     | 52..84
//! +---------------------------------------------------------------+
//! ```

use deku::prelude::*;

use crate::error::{fits, Layer, Result};
use crate::field;
use crate::util;

/// The reduction header's field table (the bit diagram above, most significant bit first): the one
/// place its layout is written; [`crate::view::ReductionView`] reads it, [`REDUCTION_HEADER_LEN`] and
/// [`width`] are derived from it, and the test `deku_layout_matches_field_table` checks the deku
/// declaration of [`ReductionHeader`] against it field by field.
pub mod header_fields {
    use crate::field::Field;
    /// rt_cookie, bits 95-64.
    pub const COOKIE: Field = Field::new("cookie", 0, 32);
    /// Reserved bits 63-62 (libfabric's `pad`).
    pub const RESERVED: Field = Field::new("pad", COOKIE.end(), 2);
    /// Bit 61: retry.
    pub const RETRY: Field = Field::new("retry", RESERVED.end(), 1);
    /// Bits 60-59: rt_repsum_ovflid.
    pub const REPSUM_OVFLID: Field = Field::new("repsum_ovflid", RETRY.end(), 2);
    /// Bits 58-51: rt_repsum_m.
    pub const REPSUM_M: Field = Field::new("repsum_m", REPSUM_OVFLID.end(), 8);
    /// Bits 50-47: rt_rc.
    pub const RC: Field = Field::new("red_rc", REPSUM_M.end(), 4);
    /// Bits 46-37: rt_resno.
    pub const RESNO: Field = Field::new("resno", RC.end(), 10);
    /// Bits 36-17: rt_count.
    pub const COUNT: Field = Field::new("redcnt", RESNO.end(), 20);
    /// Bits 16-11: rt_op.
    pub const OP: Field = Field::new("op", COUNT.end(), 6);
    /// Bit 10: rt_arm.
    pub const ARM: Field = Field::new("arm", OP.end(), 1);
    /// Bits 9-0: rt_seqno.
    pub const SEQNO: Field = Field::new("seqno", ARM.end(), 10);
    /// Every field, in wire order.
    pub const ALL: [Field; 11] = [COOKIE, RESERVED, RETRY, REPSUM_OVFLID, REPSUM_M, RC, RESNO, COUNT, OP, ARM, SEQNO];
}

/// The 84-byte frame's field table (the frame diagram above). Byte arrays wider than 64 bits are
/// table entries for their position only.
pub mod frame_fields {
    use crate::field::Field;
    /// Destination fabric address.
    pub const DFA: Field = Field::new("dfa", 0, 32);
    /// Source fabric address.
    pub const SFA: Field = Field::new("sfa", DFA.end(), 32);
    /// Virtual network identifier.
    pub const VNI: Field = Field::new("vni", SFA.end(), 16);
    /// Portals command code.
    pub const COMMAND: Field = Field::new("command", VNI.end(), 8);
    /// Flags.
    pub const FLAGS: Field = Field::new("flags", COMMAND.end(), 8);
    /// Match bits.
    pub const MATCH_BITS: Field = Field::new("match_bits", FLAGS.end(), 64);
    /// Header data.
    pub const HEADER_DATA: Field = Field::new("header_data", MATCH_BITS.end(), 64);
    /// This project's reserved bytes.
    pub const RESERVED: Field = Field::new("reserved", HEADER_DATA.end(), 7 * 8);
    /// libfabric's `red_pkt.pad` in front of its header.
    pub const IDC_PAD: Field = Field::new("idc_pad", RESERVED.end(), 5 * 8);
    /// The reduction header ([`super::header_fields`]).
    pub const HEADER: Field = Field::new("header", IDC_PAD.end(), (super::REDUCTION_HEADER_LEN * 8) as u32);
    /// Operand 0 of rt_data (big-endian 64 bits).
    pub const OPERAND0: Field = Field::new("operand0", HEADER.end(), 64);
    /// Operand 1.
    pub const OPERAND1: Field = Field::new("operand1", OPERAND0.end(), 64);
    /// Operand 2.
    pub const OPERAND2: Field = Field::new("operand2", OPERAND1.end(), 64);
    /// Operand 3.
    pub const OPERAND3: Field = Field::new("operand3", OPERAND2.end(), 64);
    /// The operands by index.
    pub const OPERANDS: [Field; super::OPERANDS] = [OPERAND0, OPERAND1, OPERAND2, OPERAND3];
    /// Every field, in wire order.
    pub const ALL: [Field; 14] =
        [DFA, SFA, VNI, COMMAND, FLAGS, MATCH_BITS, HEADER_DATA, RESERVED, IDC_PAD, HEADER, OPERAND0, OPERAND1, OPERAND2, OPERAND3];
}

/// Length of the reduction header (from its field table).
pub const REDUCTION_HEADER_LEN: usize = field::layout_len(&header_fields::ALL);
/// Number of 64-bit operands in a frame (seed 002 (46), (81)).
pub const OPERANDS: usize = 4;
/// Length of the operand block.
pub const PAYLOAD_LEN: usize = OPERANDS * 8;
/// Bytes of this project's reserved area after the header data.
pub const RESERVED_LEN: usize = frame_fields::RESERVED.width as usize / 8;
/// libfabric's `red_pkt.pad` in front of its header.
pub const IDC_PAD_LEN: usize = frame_fields::IDC_PAD.width as usize / 8;
/// Offset of the reduction header in the frame.
pub const REDUCTION_HEADER_OFFSET: usize = frame_fields::HEADER.byte_offset();
/// Offset of the operands.
pub const PAYLOAD_OFFSET: usize = frame_fields::OPERAND0.byte_offset();
/// Length of the whole frame (seed 002 (94)), from its field table.
pub const FRAME_LEN: usize = field::layout_len(&frame_fields::ALL);
/// Offset where libfabric's 49-byte `struct red_pkt` starts.
pub const RED_PKT_OFFSET: usize = frame_fields::IDC_PAD.byte_offset();

/// Field widths of the reduction header (seed 002 (61), libfabric `struct cxip_coll_hdr`), from
/// [`header_fields`].
pub mod width {
    use super::header_fields as h;
    /// rt_seqno.
    pub const SEQNO: u32 = h::SEQNO.width;
    /// rt_op.
    pub const OP: u32 = h::OP.width;
    /// rt_count (the 20-bit wait count).
    pub const COUNT: u32 = h::COUNT.width;
    /// rt_resno.
    pub const RESNO: u32 = h::RESNO.width;
    /// rt_rc.
    pub const RC: u32 = h::RC.width;
    /// rt_repsum_ovflid.
    pub const REPSUM_OVFLID: u32 = h::REPSUM_OVFLID.width;
    /// Reserved bits 63-62.
    pub const RESERVED: u32 = h::RESERVED.width;
}

/// Multicast DFA: tree index bits 15-3 (8K trees) and reduction id bits 20-18 (seed 002 (60)).
pub mod dfa {
    /// Shift of the tree index.
    pub const TREE_SHIFT: u32 = 3;
    /// Width of the tree index.
    pub const TREE_BITS: u32 = 13;
    /// Shift of the reduction id.
    pub const REDUCTION_ID_SHIFT: u32 = 18;
    /// Width of the reduction id.
    pub const REDUCTION_ID_BITS: u32 = 3;
}

enum_with_unknown! {
    /// rt_op codes (libfabric `COLL_OPCODE_*`, seed 002 (42)-(48)).
    pub enum ReductionOp(u8) {
        /// Barrier (null reduction).
        Barrier = 0x00,
        /// Bitwise AND.
        BitAnd = 0x01,
        /// Bitwise OR.
        BitOr = 0x02,
        /// Bitwise XOR.
        BitXor = 0x03,
        /// Signed 64-bit minimum.
        IntMin = 0x10,
        /// Signed 64-bit maximum.
        IntMax = 0x11,
        /// Integer MINMAXLOC.
        IntMinMaxLoc = 0x12,
        /// Signed 64-bit sum.
        IntSum = 0x14,
        /// IEEE 754 minimum (NaN propagating).
        FltMin = 0x20,
        /// IEEE 754 maximum.
        FltMax = 0x21,
        /// Float MINMAXLOC.
        FltMinMaxLoc = 0x22,
        /// minNum.
        FltMinNum = 0x24,
        /// maxNum.
        FltMaxNum = 0x25,
        /// Float MINMAXNUMLOC.
        FltMinMaxNumLoc = 0x26,
        /// Sum, no FTZ, round to nearest even.
        FltSumNoFtzRnd0 = 0x28,
        /// Sum, no FTZ, round toward +inf.
        FltSumNoFtzRnd1 = 0x29,
        /// Sum, no FTZ, round toward -inf.
        FltSumNoFtzRnd2 = 0x2a,
        /// Sum, no FTZ, round toward zero.
        FltSumNoFtzRnd3 = 0x2b,
        /// Sum, FTZ, round to nearest even.
        FltSumFtzRnd0 = 0x2c,
        /// Sum, FTZ, round toward +inf.
        FltSumFtzRnd1 = 0x2d,
        /// Sum, FTZ, round toward -inf.
        FltSumFtzRnd2 = 0x2e,
        /// Sum, FTZ, round toward zero.
        FltSumFtzRnd3 = 0x2f,
        /// Reproducible sum.
        FltRepSum = 0x30,
    }
}

enum_with_unknown! {
    /// rt_rc result codes (libfabric `enum cxip_coll_rc`), in priority order (seed 002 (96)).
    pub enum ReductionRc(u8) {
        /// Success.
        Success = 0,
        /// Result was rounded.
        FltInexact = 1,
        /// Result too large to represent.
        FltOverflow = 3,
        /// Signalling NaN operand or infinities subtracted.
        FltInvalid = 4,
        /// Reproducible sum was rounded.
        RepsumInexact = 5,
        /// Integer (reproducible sum) overflow.
        IntOverflow = 6,
        /// Too many contributions.
        ContrOverflow = 7,
        /// Conflicting opcodes (rt_data\[0\] carries the two SFAs).
        OpMismatch = 8,
        /// libfabric-internal: send error (never produced by the engine).
        TxFailure = 9,
        /// libfabric-internal: leaf RDMA read error.
        RdmaFailure = 10,
        /// libfabric-internal: leaf RDMA read data error.
        RdmaDataFailure = 11,
    }
}

/// The 12-byte reduction header (bit positions in the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "endian", ctx = "endian: deku::ctx::Endian", ctx_default = "deku::ctx::Endian::Big")]
pub struct ReductionHeader {
    /// rt_cookie (bits 95-64); opaque to the engine, compared with the arming frame's cookie.
    pub cookie: u32,
    /// Bits 63-62, reserved (zero; libfabric's `pad`).
    #[deku(bits = 2)]
    pub reserved: u8,
    /// Bit 61: retry requested by the root (libfabric's `retry`, moved here from cookie bit 31 by
    /// libfabric commit 52b3927e9).
    #[deku(bits = 1)]
    pub retry: bool,
    /// Bits 60-59: rt_repsum_ovflid.
    #[deku(bits = 2)]
    pub repsum_ovflid: u8,
    /// Bits 58-51: rt_repsum_m, a signed 8-bit exponent (raw two's complement).
    pub repsum_m: u8,
    /// Bits 50-47: rt_rc.
    #[deku(bits = 4)]
    pub rc: u8,
    /// Bits 46-37: rt_resno.
    #[deku(bits = 10)]
    pub resno: u16,
    /// Bits 36-17: rt_count, number of contributions included.
    #[deku(bits = 20)]
    pub count: u32,
    /// Bits 16-11: rt_op.
    #[deku(bits = 6)]
    pub op: u8,
    /// Bit 10: rt_arm, set on frames going down the tree.
    #[deku(bits = 1)]
    pub arm: bool,
    /// Bits 9-0: rt_seqno.
    #[deku(bits = 10)]
    pub seqno: u16,
}

impl ReductionHeader {
    /// Parses exactly 12 bytes.
    pub fn parse(buf: &[u8]) -> Result<ReductionHeader> {
        let h = util::read(Layer::ReductionHeader, "reduction header", buf, 0, REDUCTION_HEADER_LEN)?;
        util::exact(Layer::ReductionHeader, REDUCTION_HEADER_LEN, buf)?;
        Ok(h)
    }
    /// Typed opcode.
    pub fn op(&self) -> ReductionOp {
        ReductionOp::from(self.op)
    }
    /// Typed result code.
    pub fn rc(&self) -> ReductionRc {
        ReductionRc::from(self.rc)
    }
    /// rt_repsum_m as the signed exponent it is.
    pub fn repsum_m(&self) -> i8 {
        self.repsum_m as i8
    }
    /// The cookie split into libfabric's fields.
    pub fn cookie(&self) -> Cookie {
        Cookie(self.cookie)
    }
    /// Checks every field fits its width.
    pub fn check(&self) -> Result<()> {
        let l = Layer::ReductionHeader;
        fits(l, "reserved", self.reserved.into(), width::RESERVED)?;
        fits(l, "rt_repsum_ovflid", self.repsum_ovflid.into(), width::REPSUM_OVFLID)?;
        fits(l, "rt_rc", self.rc.into(), width::RC)?;
        fits(l, "rt_resno", self.resno.into(), width::RESNO)?;
        fits(l, "rt_count", self.count.into(), width::COUNT)?;
        fits(l, "rt_op", self.op.into(), width::OP)?;
        fits(l, "rt_seqno", self.seqno.into(), width::SEQNO)
    }
    /// Emits the 12 bytes.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize> {
        self.check()?;
        util::write(Layer::ReductionHeader, "reduction header", self, out, 0, REDUCTION_HEADER_LEN)?;
        Ok(REDUCTION_HEADER_LEN)
    }
}

/// libfabric's use of the cookie (`struct cxip_coll_cookie` in `prov/cxi/src/cxip_coll.c`, little-endian
/// bitfield order on x86): mcast_id bits 12-0, red_id bits 15-13, magic bits 31-16. The retry flag is
/// not in the cookie any more (it is header bit 61, [`ReductionHeader::retry`]). The engine ignores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cookie(pub u32);

/// Field positions of [`Cookie`].
pub mod cookie {
    /// Width of mcast_id (bits 12-0).
    pub const MCAST_ID_BITS: u32 = 13;
    /// Shift of red_id.
    pub const RED_ID_SHIFT: u32 = 13;
    /// Width of red_id (bits 15-13).
    pub const RED_ID_BITS: u32 = 3;
    /// Shift of magic.
    pub const MAGIC_SHIFT: u32 = 16;
}

impl Cookie {
    /// 13-bit multicast id.
    pub fn mcast_id(&self) -> u16 {
        (self.0 & ((1 << cookie::MCAST_ID_BITS) - 1)) as u16
    }
    /// 3-bit reduction id.
    pub fn red_id(&self) -> u8 {
        ((self.0 >> cookie::RED_ID_SHIFT) & ((1 << cookie::RED_ID_BITS) - 1)) as u8
    }
    /// 16-bit magic (bits 31-16).
    pub fn magic(&self) -> u16 {
        (self.0 >> cookie::MAGIC_SHIFT) as u16
    }
}

/// The 84-byte Portals reduction frame (layout in the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct ReductionFrame {
    /// Destination fabric address (multicast address of the tree for reductions).
    pub dfa: u32,
    /// Source fabric address.
    pub sfa: u32,
    /// Virtual network identifier (the protection key, seed 002 (52), (99)).
    pub vni: u16,
    /// Portals command code (stored once in the reduction state; not interpreted by this codec).
    pub command: u8,
    /// Flags (project-defined; bit 0 = multicast DFA). Other bits reserved.
    pub flags: u8,
    /// Portals match bits.
    pub match_bits: u64,
    /// Portals header data.
    pub header_data: u64,
    /// Reserved bytes 28-34.
    pub reserved: [u8; RESERVED_LEN],
    /// libfabric `red_pkt.pad`, bytes 35-39.
    pub idc_pad: [u8; IDC_PAD_LEN],
    /// The reduction header, bytes 40-51.
    pub header: ReductionHeader,
    /// rt_data: four big-endian 64-bit operands, bytes 52-83.
    pub data: [u64; OPERANDS],
}

/// Flag bit: DFA is a multicast address.
pub const FLAG_MULTICAST: u8 = 1 << 0;

/// MINMAXLOC operand layout (seed 002 (46); FIG. 12 is missing: this is libfabric's `cxip_iminmax` /
/// `cxip_fltminmax` order): operand 0 = min value, 1 = min index, 2 = max value, 3 = max index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinMaxLoc {
    /// Raw 64 bits of the minimum (i64 or f64 by opcode).
    pub min_value: u64,
    /// Index of the minimum.
    pub min_index: u64,
    /// Raw 64 bits of the maximum.
    pub max_value: u64,
    /// Index of the maximum.
    pub max_index: u64,
}

/// REPSUM operand layout: operands 0-3 are the integer parts IX\[0..3\] (libfabric `cxip_repsum.T`),
/// with the exponent M and overflow id in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepSum {
    /// IX\[0..3\] as signed integers.
    pub parts: [i64; OPERANDS],
    /// rt_repsum_m.
    pub m: i8,
    /// rt_repsum_ovflid.
    pub overflow_id: u8,
}

impl ReductionFrame {
    /// Parses exactly [`FRAME_LEN`] bytes.
    pub fn parse(buf: &[u8]) -> Result<ReductionFrame> {
        let f = util::read(Layer::Portals, "reduction frame", buf, 0, FRAME_LEN)?;
        util::exact(Layer::Portals, FRAME_LEN, buf)?;
        Ok(f)
    }
    /// Always [`FRAME_LEN`].
    pub fn buffer_len(&self) -> usize {
        FRAME_LEN
    }
    /// Emits the 84 bytes.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize> {
        self.header.check()?;
        util::write(Layer::Portals, "reduction frame", self, out, 0, FRAME_LEN)?;
        Ok(FRAME_LEN)
    }
    /// Emits into a new array.
    pub fn to_bytes(&self) -> Result<[u8; FRAME_LEN]> {
        let mut b = [0u8; FRAME_LEN];
        self.emit(&mut b)?;
        Ok(b)
    }
    /// Multicast tree index, DFA bits 15-3.
    pub fn tree(&self) -> u16 {
        ((self.dfa >> dfa::TREE_SHIFT) & ((1 << dfa::TREE_BITS) - 1)) as u16
    }
    /// Concurrent reduction id on that tree, DFA bits 20-18.
    pub fn reduction_id(&self) -> u8 {
        ((self.dfa >> dfa::REDUCTION_ID_SHIFT) & ((1 << dfa::REDUCTION_ID_BITS) - 1)) as u8
    }
    /// Builds a multicast DFA from tree index and reduction id.
    pub fn multicast_dfa(tree: u16, reduction_id: u8) -> Result<u32> {
        fits(Layer::Portals, "tree", tree.into(), dfa::TREE_BITS)?;
        fits(Layer::Portals, "reduction id", reduction_id.into(), dfa::REDUCTION_ID_BITS)?;
        Ok(u32::from(tree) << dfa::TREE_SHIFT | u32::from(reduction_id) << dfa::REDUCTION_ID_SHIFT)
    }
    /// Operands as signed integers.
    pub fn int_operands(&self) -> [i64; OPERANDS] {
        self.data.map(|x| x as i64)
    }
    /// Operands as IEEE 754 doubles.
    pub fn float_operands(&self) -> [f64; OPERANDS] {
        self.data.map(f64::from_bits)
    }
    /// Operands as MINMAXLOC.
    pub fn minmaxloc(&self) -> MinMaxLoc {
        let [min_value, min_index, max_value, max_index] = self.data;
        MinMaxLoc { min_value, min_index, max_value, max_index }
    }
    /// Sets the operands from MINMAXLOC.
    pub fn set_minmaxloc(&mut self, v: MinMaxLoc) {
        self.data = [v.min_value, v.min_index, v.max_value, v.max_index];
    }
    /// Operands and header fields as REPSUM.
    pub fn repsum(&self) -> RepSum {
        RepSum { parts: self.int_operands(), m: self.header.repsum_m(), overflow_id: self.header.repsum_ovflid }
    }
    /// Sets operands and header fields from REPSUM.
    pub fn set_repsum(&mut self, r: RepSum) -> Result<()> {
        fits(Layer::ReductionHeader, "rt_repsum_ovflid", r.overflow_id.into(), width::REPSUM_OVFLID)?;
        self.data = r.parts.map(|x| x as u64);
        self.header.repsum_m = r.m as u8;
        self.header.repsum_ovflid = r.overflow_id;
        Ok(())
    }
    /// For OP_MISMATCH results: the two disagreeing SFAs packed into rt_data\[0\] (high 32 bits first).
    pub fn mismatch_sfas(&self) -> (u32, u32) {
        let [d0, ..] = self.data;
        ((d0 >> 32) as u32, d0 as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_constants() {
        assert_eq!(FRAME_LEN, 84);
        assert_eq!(RED_PKT_OFFSET, 35);
        assert_eq!(FRAME_LEN - RED_PKT_OFFSET, 49);
    }

    #[test]
    fn deku_layout_matches_field_table() {
        // The deku declaration (the parser) and the field table (the views) must agree field by field:
        // random headers emitted by deku read back through the table, and bytes written through the
        // table parse back through deku.
        use header_fields as f;
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2000 {
            let r = |w: u32, v: u64| v & ((1u64 << w) - 1);
            let h = ReductionHeader {
                cookie: next() as u32,
                reserved: r(2, next()) as u8,
                retry: next() & 1 != 0,
                repsum_ovflid: r(2, next()) as u8,
                repsum_m: next() as u8,
                rc: r(4, next()) as u8,
                resno: r(10, next()) as u16,
                count: r(20, next()) as u32,
                op: r(6, next()) as u8,
                arm: next() & 1 != 0,
                seqno: r(10, next()) as u16,
            };
            let mut out = [0u8; REDUCTION_HEADER_LEN];
            h.emit(&mut out).unwrap();
            let values = [
                u64::from(h.cookie),
                u64::from(h.reserved),
                u64::from(h.retry),
                u64::from(h.repsum_ovflid),
                u64::from(h.repsum_m),
                u64::from(h.rc),
                u64::from(h.resno),
                u64::from(h.count),
                u64::from(h.op),
                u64::from(h.arm),
                u64::from(h.seqno),
            ];
            let mut built = [0u8; REDUCTION_HEADER_LEN];
            for (field, v) in f::ALL.iter().zip(values) {
                assert_eq!(field.get(&out), v, "{} of {h:?}", field.name);
                field.set(&mut built, v);
            }
            assert_eq!(built, out);
            assert_eq!(ReductionHeader::parse(&built).unwrap(), h);
        }
        // libfabric's numbering (bit 0 = least significant bit of byte 11), from the module diagram.
        let bits = REDUCTION_HEADER_LEN * 8;
        assert_eq!((f::SEQNO.lsb(bits), f::ARM.lsb(bits), f::OP.lsb(bits), f::COUNT.lsb(bits)), (0, 10, 11, 17));
        assert_eq!((f::RESNO.lsb(bits), f::RC.lsb(bits), f::REPSUM_M.lsb(bits), f::REPSUM_OVFLID.lsb(bits)), (37, 47, 51, 59));
        assert_eq!((f::RETRY.lsb(bits), f::RESERVED.lsb(bits), f::COOKIE.lsb(bits)), (61, 62, 64));
    }

    #[test]
    fn deku_frame_layout_matches_field_table() {
        let mut fr = ReductionFrame { dfa: 0x0102_0304, sfa: 0x0506_0708, vni: 0x090a, command: 0x0b, flags: 0x0c, ..Default::default() };
        fr.match_bits = 0x1112_1314_1516_1718;
        fr.header_data = 0x2122_2324_2526_2728;
        fr.data = [0x3132_3334_3536_3738, 0x4142_4344_4546_4748, 0x5152_5354_5556_5758, 0x6162_6364_6566_6768];
        let b = fr.to_bytes().unwrap();
        use frame_fields as f;
        assert_eq!(f::DFA.get(&b), u64::from(fr.dfa));
        assert_eq!(f::SFA.get(&b), u64::from(fr.sfa));
        assert_eq!(f::VNI.get(&b), u64::from(fr.vni));
        assert_eq!(f::COMMAND.get(&b), u64::from(fr.command));
        assert_eq!(f::FLAGS.get(&b), u64::from(fr.flags));
        assert_eq!(f::MATCH_BITS.get(&b), fr.match_bits);
        assert_eq!(f::HEADER_DATA.get(&b), fr.header_data);
        for (i, o) in f::OPERANDS.iter().enumerate() {
            assert_eq!(o.get(&b), fr.data[i]);
        }
    }

    #[test]
    fn header_bit_positions_follow_libfabric() {
        // Build the 96-bit value from the libfabric bit table and compare with deku's bytes.
        let h = ReductionHeader {
            cookie: 0xA1B2_C3D4,
            reserved: 0,
            retry: true,
            repsum_ovflid: 2,
            repsum_m: 0x85,
            rc: 8,
            resno: 0x2AB,
            count: 0xF_EDCB,
            op: 0x30,
            arm: true,
            seqno: 0x155,
        };
        let word: u128 = (0x155u128)
            | 1u128 << 10
            | 0x30u128 << 11
            | 0xF_EDCBu128 << 17
            | 0x2ABu128 << 37
            | 8u128 << 47
            | 0x85u128 << 51
            | 2u128 << 59
            | 1u128 << 61
            | 0xA1B2_C3D4u128 << 64;
        let expect = &word.to_be_bytes()[4..];
        let mut out = [0u8; 12];
        h.emit(&mut out).unwrap();
        assert_eq!(&out[..], expect);
        assert_eq!(ReductionHeader::parse(&out).unwrap(), h);
    }

    #[test]
    fn cookie_magic_is_sixteen_bits_and_retry_is_header_bit_61() {
        // Current libfabric (`struct cxip_coll_cookie`: mcast_id:13, red_id:3, magic:16; retry:1 at header
        // bit 61 after repsum_ovflid:2), written out here rather than taken from this crate's types.
        let mcast_id: u32 = 0x1234;
        let red_id: u32 = 5;
        let magic: u32 = 0xBEEF;
        let raw = mcast_id | red_id << 13 | magic << 16;
        let c = Cookie(raw);
        assert_eq!((c.mcast_id(), c.red_id(), c.magic()), (0x1234, 5, 0xBEEF));
        // The header's retry flag is bit 61 of the 96-bit header, i.e. bit 5 of byte 4; the cookie stays
        // untouched by it.
        let mut bytes = [0u8; REDUCTION_HEADER_LEN];
        bytes[..4].copy_from_slice(&raw.to_be_bytes());
        bytes[4] = 1 << (61 - 56);
        let h = ReductionHeader::parse(&bytes).unwrap();
        assert!(h.retry);
        assert_eq!(h.cookie().magic(), 0xBEEF);
        assert_eq!(h.reserved, 0);
    }
}
