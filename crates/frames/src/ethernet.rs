//! Ethernet II and Soft Portals (seed 002 (98)-(99); docs/frames.md §6).
//!
//! A Soft Portals frame is an Ethernet II header carrying the EtherType the switch port is configured
//! for, the 84-byte Portals reduction frame, and the FCS:
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +---------------------------------------------------------------+
//! |                    destination MAC (6 bytes)                  |
//! +-------------------------------+-------------------------------+
//! |                                                               |
//! +-------------------------------+  source MAC (6 bytes)         |
//! |                                                               |
//! +-------------------------------+-------------------------------+
//! |     EtherType (configured)    |  Portals reduction frame ...  |  14
//! +-------------------------------+-------------------------------+
//! :                 ... 84 bytes in all                           :
//! +---------------------------------------------------------------+
//! |           FCS: CRC-32/ISO-HDLC, little-endian on the wire     |  98
//! +---------------------------------------------------------------+
//! ```

use deku::prelude::*;

use crate::crc::ethernet_fcs;
use crate::error::{Error, Layer, Result};
use crate::portals::{ReductionFrame, FRAME_LEN};
use crate::util;

/// The Ethernet II header's field table (the diagram above), most significant bit first; a test checks
/// the deku declaration of [`EthernetHeader`] against it.
pub mod header_fields {
    use crate::field::Field;
    /// Bits of a MAC address.
    const MAC_BITS: u32 = 48;
    /// Destination MAC.
    pub const DST: Field = Field::new("dst", 0, MAC_BITS);
    /// Source MAC.
    pub const SRC: Field = Field::new("src", DST.end(), MAC_BITS);
    /// EtherType.
    pub const ETHERTYPE: Field = Field::new("ethertype", SRC.end(), 16);
    /// Every field, in wire order.
    pub const ALL: [Field; 3] = [DST, SRC, ETHERTYPE];
}
/// Length of a MAC address.
pub const MAC_LEN: usize = header_fields::DST.width as usize / 8;
/// Length of the Ethernet II header (from its field table).
pub const HEADER_LEN: usize = crate::field::layout_len(&header_fields::ALL);
/// Length of the FCS.
pub const FCS_LEN: usize = 4;
/// Length of a Soft Portals frame.
pub const SOFT_PORTALS_LEN: usize = HEADER_LEN + FRAME_LEN + FCS_LEN;
/// Smallest EtherType: values below are IEEE 802.3 length fields, not Ethernet II types.
pub const MIN_ETHERTYPE: u16 = 0x0600;
/// Default Soft Portals EtherType: IEEE 802 "local experimental EtherType 1". Ports are configured with
/// their own value; this is only the default of this project.
pub const DEFAULT_SOFT_PORTALS_ETHERTYPE: u16 = 0x88b5;

/// Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct EthernetHeader {
    /// Destination MAC.
    pub dst: [u8; MAC_LEN],
    /// Source MAC.
    pub src: [u8; MAC_LEN],
    /// EtherType.
    pub ethertype: u16,
}

impl EthernetHeader {
    /// Parses the first 14 bytes of `buf` (EtherType must be at least [`MIN_ETHERTYPE`]).
    pub fn parse(buf: &[u8]) -> Result<EthernetHeader> {
        let h: EthernetHeader = util::read(Layer::Ethernet, "Ethernet II header", buf, 0, HEADER_LEN)?;
        h.check()?;
        Ok(h)
    }
    fn check(&self) -> Result<()> {
        if self.ethertype < MIN_ETHERTYPE {
            return Err(Error::InvalidField {
                layer: Layer::Ethernet,
                field: "EtherType",
                offset: header_fields::ETHERTYPE.byte_offset(),
                value: self.ethertype.into(),
                reason: "below 0x0600: an IEEE 802.3 length, not an Ethernet II EtherType",
            });
        }
        Ok(())
    }
    /// Emits 14 bytes.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize> {
        self.check()?;
        util::write(Layer::Ethernet, "Ethernet II header", self, out, 0, HEADER_LEN)?;
        Ok(HEADER_LEN)
    }
}

/// A Soft Portals frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct SoftPortals {
    /// Ethernet header.
    pub eth: EthernetHeader,
    /// Portals reduction frame.
    pub frame: ReductionFrame,
    /// FCS as received (little-endian on the wire).
    pub fcs: u32,
}

impl SoftPortals {
    /// Parses exactly [`SOFT_PORTALS_LEN`] bytes. The FCS is kept, not checked (use
    /// [`check_fcs`](Self::check_fcs)), so a corrupted frame can still be decoded and re-emitted.
    pub fn parse(buf: &[u8]) -> Result<SoftPortals> {
        crate::error::need(Layer::SoftPortals, "Ethernet II header", buf, 0, HEADER_LEN)?;
        let eth = EthernetHeader::parse(buf)?;
        let body = util::take(Layer::SoftPortals, "Portals frame", buf, HEADER_LEN, FRAME_LEN)?;
        let frame = ReductionFrame::parse(body)?;
        let fcs = util::le32(Layer::SoftPortals, "FCS", buf, HEADER_LEN + FRAME_LEN)?;
        util::exact(Layer::SoftPortals, SOFT_PORTALS_LEN, buf)?;
        Ok(SoftPortals { eth, frame, fcs })
    }

    /// Parses and also requires the port's configured EtherType.
    pub fn parse_for_port(buf: &[u8], ethertype: u16) -> Result<SoftPortals> {
        let f = Self::parse(buf)?;
        if f.eth.ethertype != ethertype {
            return Err(Error::InvalidField {
                layer: Layer::SoftPortals,
                field: "EtherType",
                offset: header_fields::ETHERTYPE.byte_offset(),
                value: f.eth.ethertype.into(),
                reason: "not the EtherType this port is configured for",
            });
        }
        Ok(f)
    }

    /// Builds a frame with a correct FCS.
    pub fn new(eth: EthernetHeader, frame: ReductionFrame) -> Result<SoftPortals> {
        let mut f = SoftPortals { eth, frame, fcs: 0 };
        f.fcs = f.compute_fcs()?;
        Ok(f)
    }

    /// Always [`SOFT_PORTALS_LEN`].
    pub fn buffer_len(&self) -> usize {
        SOFT_PORTALS_LEN
    }

    fn emit_body(&self, out: &mut [u8]) -> Result<()> {
        if out.len() < SOFT_PORTALS_LEN {
            return Err(Error::BufferTooSmall { layer: Layer::SoftPortals, needed: SOFT_PORTALS_LEN, actual: out.len() });
        }
        self.eth.emit(out)?;
        let body = out
            .get_mut(HEADER_LEN..HEADER_LEN + FRAME_LEN)
            .ok_or(Error::BufferTooSmall { layer: Layer::SoftPortals, needed: SOFT_PORTALS_LEN, actual: 0 })?;
        self.frame.emit(body)?;
        Ok(())
    }

    /// Emits the frame with the stored FCS.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize> {
        self.emit_body(out)?;
        util::put(Layer::SoftPortals, out, HEADER_LEN + FRAME_LEN, &self.fcs.to_le_bytes())?;
        Ok(SOFT_PORTALS_LEN)
    }

    /// Emits into a new array.
    pub fn to_bytes(&self) -> Result<[u8; SOFT_PORTALS_LEN]> {
        let mut b = [0u8; SOFT_PORTALS_LEN];
        self.emit(&mut b)?;
        Ok(b)
    }

    /// FCS computed over header and Portals frame.
    pub fn compute_fcs(&self) -> Result<u32> {
        let mut b = [0u8; SOFT_PORTALS_LEN];
        self.emit_body(&mut b)?;
        Ok(ethernet_fcs(b.get(..HEADER_LEN + FRAME_LEN).unwrap_or(&[])))
    }

    /// Checks the stored FCS.
    pub fn check_fcs(&self) -> Result<()> {
        let computed = self.compute_fcs()?;
        if computed == self.fcs {
            Ok(())
        } else {
            Err(Error::Checksum { layer: Layer::SoftPortals, field: "FCS", computed, received: self.fcs })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deku_matches_the_header_table() {
        let mac = |m: &[u8; MAC_LEN]| m.iter().fold(0u64, |a, &b| a << 8 | u64::from(b));
        crate::field::deku_check::check::<EthernetHeader>(&header_fields::ALL, HEADER_LEN, |h| vec![mac(&h.dst), mac(&h.src), u64::from(h.ethertype)]);
    }
}
