//! Data link layer packets (non-flit): 4 bytes plus the 16-bit DLLP CRC, little-endian (docs/frames.md §7).
//!
//! ```text
//!  0                   1                   2                   3                   4
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7
//! +---------------+-----------------------------------------------+-------------------------------+
//! |  DLLP Type    |   type-specific (Ack/Nak: 12-bit sequence)    |   CRC-16 (little-endian)      |
//! +---------------+-----------------------------------------------+-------------------------------+
//! ```

use deku::prelude::*;

use crate::crc::dllp_crc16;
use crate::error::{Error, Layer, Result};
use crate::util;

/// The field table of an Ack or Nak DLLP body (the 4 bytes the CRC covers), most significant bit
/// first: the one place the sequence number's position is written.
pub mod ack_nak_fields {
    use crate::field::Field;
    /// DLLP Type.
    pub const TYPE: Field = Field::new("type", 0, 8);
    /// Reserved.
    pub const RESERVED: Field = Field::new("reserved", TYPE.end(), 12);
    /// AckNak_Seq_Num.
    pub const SEQ: Field = Field::new("seq", RESERVED.end(), crate::crc::SEQUENCE_BITS);
    /// Every field, in wire order.
    pub const ALL: [Field; 3] = [TYPE, RESERVED, SEQ];
}
/// Length of a DLLP without CRC (from the Ack/Nak table).
pub const BODY_LEN: usize = crate::field::layout_len(&ack_nak_fields::ALL);
/// Length with CRC.
pub const DLLP_LEN: usize = BODY_LEN + 2;

enum_with_unknown! {
    /// DLLP types named here (FC DLLPs carry the VC in the low 3 bits and show as Unknown).
    pub enum DllpType(u8) {
        /// Ack.
        Ack = 0x00,
        /// Nak.
        Nak = 0x10,
        /// PM_Enter_L1.
        PmEnterL1 = 0x20,
        /// PM_Enter_L23.
        PmEnterL23 = 0x21,
        /// PM_Active_State_Request_L1.
        PmActiveStateRequestL1 = 0x23,
        /// PM_Request_Ack.
        PmRequestAck = 0x24,
        /// NOP.
        Nop = 0x31,
    }
}

/// A DLLP with its CRC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Dllp {
    /// Byte 0: type.
    pub dllp_type: u8,
    /// Bytes 1-3.
    pub body: [u8; 3],
    /// CRC-16 as received.
    #[deku(endian = "little")]
    pub crc: u16,
}

impl Dllp {
    /// Parses exactly 6 bytes.
    pub fn parse(buf: &[u8]) -> Result<Dllp> {
        let d = util::read(Layer::Dllp, "DLLP", buf, 0, DLLP_LEN)?;
        util::exact(Layer::Dllp, DLLP_LEN, buf)?;
        Ok(d)
    }
    /// Emits 6 bytes.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize> {
        util::write(Layer::Dllp, "DLLP", self, out, 0, DLLP_LEN)?;
        Ok(DLLP_LEN)
    }
    /// Typed type.
    pub fn kind(&self) -> DllpType {
        DllpType::from(self.dllp_type)
    }
    /// The 4 bytes the CRC covers.
    pub fn body_bytes(&self) -> [u8; BODY_LEN] {
        let [a, b, c] = self.body;
        [self.dllp_type, a, b, c]
    }
    /// Ack/Nak sequence number.
    pub fn seq(&self) -> u16 {
        ack_nak_fields::SEQ.get(&self.body_bytes()) as u16
    }
    /// An Ack or Nak with a correct CRC.
    pub fn ack_nak(nak: bool, seq: u16) -> Dllp {
        let mut b = [0u8; BODY_LEN];
        ack_nak_fields::TYPE.set(&mut b, u64::from(u8::from(if nak { DllpType::Nak } else { DllpType::Ack })));
        ack_nak_fields::SEQ.set(&mut b, seq.into());
        let [dllp_type, body @ ..] = b;
        let mut d = Dllp { dllp_type, body, crc: 0 };
        d.crc = dllp_crc16(&d.body_bytes());
        d
    }
    /// Checks the CRC.
    pub fn check_crc(&self) -> Result<()> {
        let computed = dllp_crc16(&self.body_bytes());
        if computed == self.crc {
            Ok(())
        } else {
            Err(Error::Checksum { layer: Layer::Dllp, field: "DLLP CRC", computed: computed.into(), received: self.crc.into() })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Ack/Nak table against the specification's picture written out here: AckNak_Seq_Num is the
    /// low 4 bits of byte 2 and all of byte 3; Ack is Type 0x00, Nak 0x10.
    #[test]
    fn ack_nak_table_matches_the_specification() {
        for seq in [0u16, 1, 0x0ab, 0x800, 0xfff] {
            for nak in [false, true] {
                let d = Dllp::ack_nak(nak, seq);
                let b = d.body_bytes();
                assert_eq!(b[0], if nak { 0x10 } else { 0x00 });
                assert_eq!((b[1], b[2] >> 4), (0, 0), "reserved bits stay zero");
                assert_eq!(u16::from(b[2] & 0x0f) << 8 | u16::from(b[3]), seq);
                assert_eq!(d.seq(), seq);
                d.check_crc().unwrap();
            }
        }
        assert_eq!(BODY_LEN, 4);
    }
}
