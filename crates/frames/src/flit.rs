//! PCIe 6 flit-mode TLPs (docs/frames.md §2; PCIe Base Specification 6.x §2.2.1.2, Table 2-5).
//!
//! A flit-mode TLP is `local-prefix* header-base OHC* payload? trailer?`:
//!
//! ```text
//! DW0 of the header base
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +---------------+-----+---------+-----+-----+-------------------+
//! |   Type[7:0]   | TC  |   OHC   | TS  |Attr |      Length       |
//! +---------------+-----+---------+-----+-----+-------------------+
//! DW1 of request/completion header bases (secondary source: the seed's FIG. 4 field order and the issue;
//! the specification's figure is not in the public text)
//! +-------------------------------+-+-+---------------------------+
//! |         Requester ID          |E|R|         Tag[13:0]         |
//! |                               |P| |                           |
//! +-------------------------------+-+-+---------------------------+
//! ```
//! OHC\[0\] = OHC-A, \[1\] = OHC-B, \[2\] = OHC-C (1 DW each), OHC\[4:3\] = OHC-E size 0/1/2/4 DW
//! (not a popcount). TS = trailer size: 0, 1 (ECRC), 1, 2, 2, 3, 4, 5 DW. The header-base size comes
//! from Type alone (Table 2-5), reserved codes included.

use deku::prelude::*;

use crate::crc;
use crate::error::{fits, Error, Layer, Result};
use crate::util;

const L: Layer = Layer::FlitTlp;
const DW: usize = 4;

/// Width of the OHC field.
pub const OHC_BITS: u32 = 5;
/// OHC bit: OHC-A present.
pub const OHC_A: u8 = 1 << 0;
/// OHC bit: OHC-B present.
pub const OHC_B: u8 = 1 << 1;
/// OHC bit: OHC-C present.
pub const OHC_C: u8 = 1 << 2;
/// Shift of the OHC-E size code.
pub const OHC_E_SHIFT: u32 = 3;
/// OHC-E sizes in DW for codes 0..=3.
pub const OHC_E_DW: [usize; 4] = [0, 1, 2, 4];
/// Trailer sizes in DW for TS codes 0..=7.
pub const TRAILER_DW: [usize; 8] = [0, 1, 1, 2, 2, 3, 4, 5];
/// TS code of a 1-DW trailer holding the ECRC.
pub const TS_ECRC: u8 = 0b001;
/// Type codes 128..=143 are 1-DW local TLP prefixes.
pub const LOCAL_PREFIX_TYPES: core::ops::RangeInclusive<u8> = 0x80..=0x8f;
/// Most local prefixes accepted in front of one TLP.
pub const MAX_PREFIXES: usize = 4;
/// Largest payload in DW.
pub const MAX_PAYLOAD_DW: usize = 1024;
/// Width of the flit-mode tag.
pub const TAG_BITS: u32 = 14;

/// Named Type\[7:0\] codes of Table 2-5.
pub mod types {
    /// NOP.
    pub const NOP: u8 = 0x00;
    /// MRdLk, 32-bit address.
    pub const MRDLK32: u8 = 0x01;
    /// IORd.
    pub const IORD: u8 = 0x02;
    /// MRd, 32-bit address.
    pub const MRD32: u8 = 0x03;
    /// CfgRd0.
    pub const CFGRD0: u8 = 0x04;
    /// CfgRd1.
    pub const CFGRD1: u8 = 0x05;
    /// Cpl.
    pub const CPL: u8 = 0x0a;
    /// CplLk.
    pub const CPLLK: u8 = 0x0b;
    /// UIO write completion.
    pub const UIOWRCPL: u8 = 0x0c;
    /// UIO read completion without data.
    pub const UIORDCPL: u8 = 0x0d;
    /// MRd, 64-bit address.
    pub const MRD64: u8 = 0x20;
    /// MRdLk, 64-bit address.
    pub const MRDLK64: u8 = 0x21;
    /// UIO memory read.
    pub const UIOMRD: u8 = 0x22;
    /// Msg (0x30 + routing r\[2:0\]).
    pub const MSG: u8 = 0x30;
    /// MWr, 32-bit address.
    pub const MWR32: u8 = 0x40;
    /// IOWr.
    pub const IOWR: u8 = 0x42;
    /// CfgWr0.
    pub const CFGWR0: u8 = 0x44;
    /// CfgWr1.
    pub const CFGWR1: u8 = 0x45;
    /// UIO read completion with data.
    pub const UIORDCPLD: u8 = 0x48;
    /// CplD.
    pub const CPLD: u8 = 0x4a;
    /// CplDLk.
    pub const CPLDLK: u8 = 0x4b;
    /// FetchAdd, 32-bit address.
    pub const FETCHADD32: u8 = 0x4c;
    /// Swap, 32-bit address.
    pub const SWAP32: u8 = 0x4d;
    /// CAS, 32-bit address.
    pub const CAS32: u8 = 0x4e;
    /// DMWr, 32-bit address.
    pub const DMWR32: u8 = 0x5b;
    /// MWr, 64-bit address.
    pub const MWR64: u8 = 0x60;
    /// UIO memory write.
    pub const UIOMWR: u8 = 0x61;
    /// FetchAdd, 64-bit address.
    pub const FETCHADD64: u8 = 0x6c;
    /// Swap, 64-bit address.
    pub const SWAP64: u8 = 0x6d;
    /// CAS, 64-bit address.
    pub const CAS64: u8 = 0x6e;
    /// MsgD (0x70 + routing r\[2:0\]).
    pub const MSGD: u8 = 0x70;
    /// DMWr, 64-bit address.
    pub const DMWR64: u8 = 0x7b;
    /// Flit-mode local TLP prefix.
    pub const FLIT_MODE_PREFIX: u8 = 0x8d;
}

/// Header base size in DW and whether a data payload follows, for every Type\[7:0\] (Table 2-5,
/// including the reserved rows, which have defined sizes so that they can be forwarded).
pub fn type_info(t: u8) -> (usize, bool) {
    match t {
        0x00 => (1, false),
        0x01..=0x05 => (3, false),
        0x06..=0x07 => (4, true),
        0x08..=0x0f => (3, false),
        0x10..=0x15 => (5, true),
        0x16..=0x17 => (7, true),
        0x18..=0x19 => (7, false),
        0x1a..=0x1b => (7, true),
        0x1c..=0x1d => (3, false),
        0x1e..=0x1f => (6, false),
        0x20..=0x2d => (4, false),
        0x2e..=0x2f => (5, false),
        0x30..=0x3d => (4, false),
        0x3e..=0x3f => (5, false),
        0x40 => (3, true),
        0x41 => (6, true),
        0x42 => (3, true),
        0x43 => (6, true),
        0x44..=0x4e => (3, true),
        0x4f => (4, false),
        0x50..=0x55 => (6, true),
        0x56..=0x57 => (7, true),
        0x58..=0x59 => (3, true),
        0x5a => (4, true),
        0x5b => (3, true),
        0x5c..=0x5d => (4, true),
        0x5e..=0x5f => (5, true),
        0x60..=0x7f => (4, true),
        0x80..=0x8f => (1, false),
        0x90..=0x93 => (4, false),
        0x94..=0x97 => (5, false),
        0x98..=0x9b => (6, false),
        0x9c..=0x9f => (7, false),
        0xa0..=0xa7 => (5, false),
        0xa8..=0xa9 => (6, false),
        0xaa..=0xab => (7, false),
        0xac..=0xad => (5, false),
        0xae..=0xaf => (6, false),
        0xb0..=0xbf => (5, true),
        0xc0..=0xc7 => (6, false),
        0xc8..=0xc9 => (7, false),
        0xca..=0xcb => (5, true),
        0xcc..=0xcd => (6, true),
        0xce..=0xcf => (7, true),
        0xd0..=0xdf => (6, true),
        0xe0..=0xe1 => (4, false),
        0xe2..=0xe3 => (6, false),
        0xe4..=0xe5 => (4, true),
        0xe6..=0xe7 => (6, true),
        0xe8..=0xef => (7, false),
        0xf0..=0xf1 => (4, true),
        0xf2..=0xf3 => (5, true),
        0xf4..=0xf5 => (6, true),
        0xf6..=0xf7 => (7, true),
        0xf8..=0xff => (7, true),
    }
}

/// Name of a Type\[7:0\] code (the specification's mnemonic, or "Reserved").
pub fn type_name(t: u8) -> &'static str {
    use types::*;
    match t {
        NOP => "NOP",
        MRDLK32 | MRDLK64 => "MRdLk",
        IORD => "IORd",
        MRD32 | MRD64 => "MRd",
        CFGRD0 => "CfgRd0",
        CFGRD1 => "CfgRd1",
        CPL => "Cpl",
        CPLLK => "CplLk",
        UIOWRCPL => "UIOWrCpl",
        UIORDCPL => "UIORdCpl",
        UIOMRD => "UIOMRd",
        0x30..=0x35 => "Msg",
        MWR32 | MWR64 => "MWr",
        IOWR => "IOWr",
        CFGWR0 => "CfgWr0",
        CFGWR1 => "CfgWr1",
        UIORDCPLD => "UIORdCplD",
        CPLD => "CplD",
        CPLDLK => "CplDLk",
        FETCHADD32 | FETCHADD64 => "FetchAdd",
        SWAP32 | SWAP64 => "Swap",
        CAS32 | CAS64 => "CAS",
        DMWR32 | DMWR64 => "DMWr",
        UIOMWR => "UIOMWr",
        0x70..=0x75 => "MsgD",
        FLIT_MODE_PREFIX => "FlitModePrefix",
        0x8e => "VendPrefixL0",
        0x8f => "VendPrefixL1",
        _ => "Reserved",
    }
}

/// Whether the type's DW1 is the common Requester ID / EP / Tag layout (all defined non-NOP,
/// non-prefix types; reserved codes are treated the same way by this codec's getters only).
pub fn has_request_dw1(t: u8) -> bool {
    let (base, _) = type_info(t);
    base >= 2
}

/// Whether Type\[7:0\] names a request routed by a 32-bit address in DW2.
pub fn is_addr32(t: u8) -> bool {
    use types::*;
    matches!(t, MRDLK32 | IORD | MRD32 | MWR32 | IOWR | FETCHADD32 | SWAP32 | CAS32 | DMWR32)
}

/// Whether Type\[7:0\] names a request routed by a 64-bit address in DW2-DW3.
pub fn is_addr64(t: u8) -> bool {
    use types::*;
    matches!(t, MRD64 | MRDLK64 | UIOMRD | MWR64 | UIOMWR | FETCHADD64 | SWAP64 | CAS64 | DMWR64 | 0x31 | 0x71)
}

/// The field tables of the flit-mode header base's DW0 and DW1, most significant bit first; tests
/// check the deku declarations of [`FlitDw0`] and [`FlitDw1`] against them, and [`FlitDw0`]'s range
/// checks take the widths from them.
pub mod dw0_fields {
    use crate::field::Field;
    /// Type\[7:0\].
    pub const TYPE: Field = Field::new("type", 0, 8);
    /// Traffic class.
    pub const TC: Field = Field::new("tc", TYPE.end(), 3);
    /// OHC\[4:0\].
    pub const OHC: Field = Field::new("ohc", TC.end(), super::OHC_BITS);
    /// Trailer size code.
    pub const TS: Field = Field::new("ts", OHC.end(), 3);
    /// Attr\[2:0\].
    pub const ATTR: Field = Field::new("attr", TS.end(), 3);
    /// Length in DW, 0 = 1024.
    pub const LENGTH: Field = Field::new("length", ATTR.end(), 10);
    /// Every field, in wire order.
    pub const ALL: [Field; 6] = [TYPE, TC, OHC, TS, ATTR, LENGTH];
}

/// DW1 of flit-mode request and completion header bases.
pub mod dw1_fields {
    use crate::field::Field;
    /// Requester ID.
    pub const REQUESTER_ID: Field = Field::new("requester_id", 0, 16);
    /// EP.
    pub const EP: Field = Field::new("ep", REQUESTER_ID.end(), 1);
    /// Reserved.
    pub const RESERVED: Field = Field::new("reserved", EP.end(), 1);
    /// 14-bit tag.
    pub const TAG: Field = Field::new("tag", RESERVED.end(), 14);
    /// Every field, in wire order.
    pub const ALL: [Field; 4] = [REQUESTER_ID, EP, RESERVED, TAG];
}

/// DW0 of a flit-mode header base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct FlitDw0 {
    /// Type\[7:0\].
    pub tlp_type: u8,
    /// Traffic class.
    #[deku(bits = 3)]
    pub tc: u8,
    /// OHC\[4:0\].
    #[deku(bits = 5)]
    pub ohc: u8,
    /// Trailer size code.
    #[deku(bits = 3)]
    pub ts: u8,
    /// Attr\[2:0\].
    #[deku(bits = 3)]
    pub attr: u8,
    /// Length in DW, 0 = 1024.
    #[deku(bits = 10)]
    pub length: u16,
}

impl FlitDw0 {
    /// Header base length in bytes.
    pub fn base_len(&self) -> usize {
        type_info(self.tlp_type).0 * DW
    }
    /// OHC length in DW: one each for A, B, C plus the E size (not a popcount of OHC).
    pub fn ohc_dw(&self) -> usize {
        let e = usize::from((self.ohc >> OHC_E_SHIFT) & 0b11);
        usize::from(self.ohc & OHC_A != 0)
            + usize::from(self.ohc & OHC_B != 0)
            + usize::from(self.ohc & OHC_C != 0)
            + OHC_E_DW.get(e).copied().unwrap_or(0)
    }
    /// Trailer length in DW.
    pub fn trailer_dw(&self) -> usize {
        TRAILER_DW.get(usize::from(self.ts & 0b111)).copied().unwrap_or(0)
    }
    /// Payload length in bytes (0 when the type has no payload).
    pub fn payload_len(&self) -> usize {
        if type_info(self.tlp_type).1 {
            let dw = if self.length == 0 { MAX_PAYLOAD_DW } else { usize::from(self.length) };
            dw * DW
        } else {
            0
        }
    }
    fn check(&self) -> Result<()> {
        fits(L, "TC", self.tc.into(), dw0_fields::TC.width)?;
        fits(L, "OHC", self.ohc.into(), dw0_fields::OHC.width)?;
        fits(L, "TS", self.ts.into(), dw0_fields::TS.width)?;
        fits(L, "Attr", self.attr.into(), dw0_fields::ATTR.width)?;
        fits(L, "Length", self.length.into(), dw0_fields::LENGTH.width)
    }
}

/// DW1 of request and completion header bases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct FlitDw1 {
    /// Requester ID.
    pub requester_id: u16,
    /// EP (poisoned) - byte 6 bit 7, an ECRC variant bit.
    #[deku(bits = 1)]
    pub ep: bool,
    /// Reserved.
    #[deku(bits = 1)]
    pub reserved: bool,
    /// 14-bit tag.
    #[deku(bits = 14)]
    pub tag: u16,
}

/// An owned flit-mode TLP.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct FlitTlp {
    /// Local TLP prefixes (Type 0x80..=0x8f), raw DWs.
    pub prefixes: Vec<u32>,
    /// DW0.
    pub dw0: FlitDw0,
    /// Header base DWs after DW0 (`base size - 1` of them), raw.
    pub header: Vec<u32>,
    /// OHC DWs in A-B-C-E order, raw.
    pub ohc: Vec<u32>,
    /// Payload.
    pub payload: Vec<u8>,
    /// Trailer DWs (TS = 001: the ECRC).
    pub trailer: Vec<u32>,
}

fn read_dws(buf: &[u8], offset: usize, n: usize, field: &'static str) -> Result<Vec<u32>> {
    let bytes = util::take(L, field, buf, offset, n * DW)?;
    Ok(bytes.chunks_exact(DW).map(|c| {
        let mut a = [0u8; DW];
        a.copy_from_slice(c);
        u32::from_be_bytes(a)
    }).collect())
}

fn put_dws(out: &mut [u8], offset: usize, words: &[u32]) -> Result<()> {
    for (i, w) in words.iter().enumerate() {
        util::put(L, out, offset + i * DW, &w.to_be_bytes())?;
    }
    Ok(())
}

impl FlitTlp {
    /// Parses exactly one flit-mode TLP occupying all of `buf`.
    pub fn parse(buf: &[u8]) -> Result<FlitTlp> {
        let (t, end) = Self::parse_prefix(buf)?;
        util::exact(L, end, buf)?;
        Ok(t)
    }

    /// Parses one flit-mode TLP from the start of `buf`; returns it and its length.
    pub fn parse_prefix(buf: &[u8]) -> Result<(FlitTlp, usize)> {
        let mut off = 0;
        let mut prefixes = Vec::new();
        loop {
            let t = util::take(L, "Type", buf, off, 1)?.first().copied().unwrap_or(0);
            if !LOCAL_PREFIX_TYPES.contains(&t) {
                break;
            }
            if prefixes.len() == MAX_PREFIXES {
                return Err(Error::InvalidField {
                    layer: L,
                    field: "Type",
                    offset: off,
                    value: t.into(),
                    reason: "more than MAX_PREFIXES local prefixes",
                });
            }
            prefixes.extend(read_dws(buf, off, 1, "local prefix")?);
            off += DW;
        }
        let dw0: FlitDw0 = util::read(L, "DW0", buf, off, DW)?;
        off += DW;
        let header = read_dws(buf, off, dw0.base_len() / DW - 1, "header base")?;
        off += header.len() * DW;
        let ohc = read_dws(buf, off, dw0.ohc_dw(), "OHC")?;
        off += ohc.len() * DW;
        let payload = util::take(L, "payload", buf, off, dw0.payload_len())?.to_vec();
        off += payload.len();
        let trailer = read_dws(buf, off, dw0.trailer_dw(), "trailer")?;
        off += trailer.len() * DW;
        Ok((FlitTlp { prefixes, dw0, header, ohc, payload, trailer }, off))
    }

    /// Bytes [`emit`](Self::emit) writes.
    pub fn buffer_len(&self) -> usize {
        (self.prefixes.len() + 1 + self.header.len() + self.ohc.len() + self.trailer.len()) * DW + self.payload.len()
    }

    /// Checks that the repr is consistent with its DW0.
    pub fn check(&self) -> Result<()> {
        self.dw0.check()?;
        if self.prefixes.len() > MAX_PREFIXES {
            return Err(Error::Inconsistent { layer: L, reason: "more than MAX_PREFIXES local prefixes" });
        }
        for p in &self.prefixes {
            if !LOCAL_PREFIX_TYPES.contains(&((p >> 24) as u8)) {
                return Err(Error::Inconsistent { layer: L, reason: "prefix DW does not carry a local-prefix Type" });
            }
        }
        if LOCAL_PREFIX_TYPES.contains(&self.dw0.tlp_type) {
            return Err(Error::Inconsistent { layer: L, reason: "DW0 Type is a local-prefix code" });
        }
        let checks = [
            ("header base", self.dw0.base_len() / DW - 1, self.header.len()),
            ("OHC", self.dw0.ohc_dw(), self.ohc.len()),
            ("trailer", self.dw0.trailer_dw(), self.trailer.len()),
        ];
        for (field, expected, actual) in checks {
            if expected != actual {
                return Err(Error::LengthMismatch { layer: L, field, expected: expected * DW, actual: actual * DW });
            }
        }
        if self.payload.len() != self.dw0.payload_len() {
            return Err(Error::LengthMismatch { layer: L, field: "payload", expected: self.dw0.payload_len(), actual: self.payload.len() });
        }
        Ok(())
    }

    /// Emits the TLP; returns the bytes written.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize> {
        self.check()?;
        let len = self.buffer_len();
        if out.len() < len {
            return Err(Error::BufferTooSmall { layer: L, needed: len, actual: out.len() });
        }
        let mut off = 0;
        put_dws(out, off, &self.prefixes)?;
        off += self.prefixes.len() * DW;
        util::write(L, "DW0", &self.dw0, out, off, DW)?;
        off += DW;
        put_dws(out, off, &self.header)?;
        off += self.header.len() * DW;
        put_dws(out, off, &self.ohc)?;
        off += self.ohc.len() * DW;
        util::put(L, out, off, &self.payload)?;
        off += self.payload.len();
        put_dws(out, off, &self.trailer)?;
        off += self.trailer.len() * DW;
        Ok(off)
    }

    /// Emits into a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        let n = self.emit(&mut v)?;
        v.truncate(n);
        Ok(v)
    }

    /// DW1 as Requester ID / EP / 14-bit tag, for types whose header base has a DW1.
    pub fn dw1(&self) -> Option<FlitDw1> {
        let w = *self.header.first()?;
        if !has_request_dw1(self.dw0.tlp_type) {
            return None;
        }
        FlitDw1::from_bytes((&w.to_be_bytes(), 0)).ok().map(|(_, v)| v)
    }

    /// Byte address of address-routed requests (32-bit forms: DW2\[31:2\]; 64-bit: DW2-DW3\[63:2\]).
    pub fn address(&self) -> Option<u64> {
        let t = self.dw0.tlp_type;
        use crate::tlp::fields::{address32_fields, address64_fields};
        let dw_address = if is_addr32(t) {
            address32_fields::ADDRESS_DW.get(&self.header.get(1)?.to_be_bytes())
        } else if is_addr64(t) {
            let (hi, lo) = (*self.header.get(1)?, *self.header.get(2)?);
            address64_fields::ADDRESS_DW.get(&(u64::from(hi) << u32::BITS | u64::from(lo)).to_be_bytes())
        } else {
            return None;
        };
        Some(dw_address << crate::tlp::DW_ADDRESS_SHIFT)
    }

    fn ohc_index(&self, bit: u8) -> Option<usize> {
        if self.dw0.ohc & bit == 0 {
            return None;
        }
        let below = self.dw0.ohc & (bit - 1) & (OHC_A | OHC_B | OHC_C);
        Some(below.count_ones() as usize)
    }
    /// OHC-A word (its A1..A5 meaning depends on the type; the field layouts are figures the public
    /// specification text does not carry, so this codec keeps the word raw).
    pub fn ohc_a(&self) -> Option<u32> {
        self.ohc_index(OHC_A).and_then(|i| self.ohc.get(i).copied())
    }
    /// OHC-B word.
    pub fn ohc_b(&self) -> Option<u32> {
        self.ohc_index(OHC_B).and_then(|i| self.ohc.get(i).copied())
    }
    /// OHC-C word.
    pub fn ohc_c(&self) -> Option<u32> {
        self.ohc_index(OHC_C).and_then(|i| self.ohc.get(i).copied())
    }
    /// OHC-E words (0, 1, 2 or 4).
    pub fn ohc_e(&self) -> &[u32] {
        let start = (self.dw0.ohc & (OHC_A | OHC_B | OHC_C)).count_ones() as usize;
        self.ohc.get(start..).unwrap_or(&[])
    }

    /// Bytes covered by the ECRC: header base, OHC and payload.
    fn ecrc_bytes(&self) -> Result<Vec<u8>> {
        let mut c = self.clone();
        c.prefixes.clear();
        c.trailer = vec![0; c.dw0.trailer_dw()];
        let mut v = c.to_bytes()?;
        v.truncate(v.len() - c.trailer.len() * DW);
        Ok(v)
    }
    /// ECRC for a TS = 001 trailer.
    pub fn compute_ecrc(&self) -> Result<u32> {
        Ok(crc::flit_ecrc(&self.ecrc_bytes()?))
    }
    /// Sets TS = 001 and fills the trailer with the ECRC (stored little-endian on the wire, so the DW
    /// holds the byte-swapped value).
    pub fn fill_ecrc(&mut self) -> Result<()> {
        self.dw0.ts = TS_ECRC;
        self.trailer = vec![0];
        let e = self.compute_ecrc()?;
        self.trailer = vec![u32::from_be_bytes(e.to_le_bytes())];
        Ok(())
    }
    /// Checks a TS = 001 ECRC trailer.
    pub fn check_ecrc(&self) -> Result<()> {
        if self.dw0.ts != TS_ECRC {
            return Ok(());
        }
        let computed = self.compute_ecrc()?;
        let received = self.trailer.first().map(|w| u32::from_le_bytes(w.to_be_bytes())).unwrap_or(0);
        if computed == received {
            Ok(())
        } else {
            Err(Error::Checksum { layer: L, field: "ECRC", computed, received })
        }
    }
}

#[cfg(test)]
mod field_table_tests {
    use super::*;

    #[test]
    fn deku_matches_the_header_base_tables() {
        use crate::field::deku_check::u;
        crate::field::deku_check::check::<FlitDw0>(&dw0_fields::ALL, DW, |d| vec![u(d.tlp_type), u(d.tc), u(d.ohc), u(d.ts), u(d.attr), u(d.length)]);
        crate::field::deku_check::check::<FlitDw1>(&dw1_fields::ALL, DW, |d| vec![u(d.requester_id), u(d.ep), u(d.reserved), u(d.tag)]);
    }
}
