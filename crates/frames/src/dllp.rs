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

/// Length of a DLLP without CRC.
pub const BODY_LEN: usize = 4;
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
    /// Ack/Nak sequence number (12 bits of bytes 2-3).
    pub fn seq(&self) -> u16 {
        let [_, b, c] = self.body;
        u16::from_be_bytes([b, c]) & crate::crc::SEQUENCE_MASK
    }
    /// An Ack or Nak with a correct CRC.
    pub fn ack_nak(nak: bool, seq: u16) -> Dllp {
        let s = (seq & crate::crc::SEQUENCE_MASK).to_be_bytes();
        let mut d = Dllp { dllp_type: if nak { 0x10 } else { 0x00 }, body: [0, s[0], s[1]], crc: 0 };
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
