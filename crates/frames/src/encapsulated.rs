//! Encapsulated packets: collective kind 10 (seed 000 FIG. 4, \[0156\]; docs/frames.md §4, Encapsulated).
//! The figure is missing: the layout is this project's definition. After the 8-byte common header:
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +---------------+-+-------------+---------------+---------------+
//! | payload type  |O|  reserved   |    version    |   reserved    |   byte 8: the descriptor
//! +---------------+-+-------------+---------------+---------------+
//! |  encapsulated original multicast TLP header: a memory write,  |   byte 12
//! |  non-flit, 3 or 4 DW (Fmt 010 / 011, Type 00000, no digest)   |
//! +---------------------------------------------------------------+
//! |  encapsulated original payload: Length DW                     |   byte 24 or 28
//! +---------------------------------------------------------------+
//! ```
//!
//! O = operation bit (1 = apply). Payload type 1 = a FIG. 4 configuration body (the kind-1 message less
//! its common header: `ConfigFixed`, the device IDs, the subservient IDs, padding), which the engine
//! applies as the kind-1 message's register writes. [`CollectiveMessage`] keeps kind 10 as a raw body;
//! [`Encapsulated`] is its typed codec.

use crate::collective::{Body, CollectiveMessage, CommonHeader, ConfigFixed, HEADER_LEN};
use crate::error::{Error, Layer, Result};
use crate::tlp::{Tlp, TlpKind};
// The kind and descriptor values are the input checker's (`inswitch_model`), written once for the model,
// the RTL (`rtl/input_checker_codes.vh`) and this codec.
use inswitch_model::input_checker::config::{ENCAP_DESCRIPTOR_BYTES, ENCAP_OP_APPLY, ENCAP_TYPE_CONFIGURATION, ENCAP_VERSION};
use inswitch_model::message::Kind as MsgKind;

const L: Layer = Layer::Collective;
/// Collective kind of an encapsulated packet.
pub const KIND: u8 = MsgKind::ENCAPSULATED.0;
/// Payload type: a FIG. 4 configuration body.
pub const TYPE_CONFIGURATION: u8 = ENCAP_TYPE_CONFIGURATION;
/// Version of the encapsulation the engine knows.
pub const VERSION: u8 = ENCAP_VERSION;
/// Bytes of the descriptor.
pub const DESCRIPTOR_LEN: usize = ENCAP_DESCRIPTOR_BYTES;

/// A kind-10 message, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encapsulated {
    /// Common header (kind 10).
    pub header: CommonHeader,
    /// Encapsulated payload type (1 = configuration; others are kept, the engine drops them).
    pub payload_type: u8,
    /// Operation bit (true = apply).
    pub apply: bool,
    /// The 7 reserved bits beside the operation bit (kept).
    pub reserved_op: u8,
    /// Encapsulation version.
    pub version: u8,
    /// Reserved descriptor byte (kept).
    pub reserved: u8,
    /// The original memory write: header and payload (no prefixes, no digest).
    pub original: Tlp,
}

/// A configuration body: `ConfigFixed`, the device IDs, the subservient engines' IDs.
pub type ConfigurationBody = (ConfigFixed, Vec<u16>, Vec<u16>);

impl Encapsulated {
    /// Decodes a kind-10 message occupying all of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Encapsulated> {
        Self::from_message(&CollectiveMessage::parse(buf)?)
    }

    /// Decodes the raw body of a kind-10 [`CollectiveMessage`].
    pub fn from_message(m: &CollectiveMessage) -> Result<Encapsulated> {
        if m.header.kind != KIND {
            return Err(Error::InvalidField { layer: L, field: "kind", offset: 0, value: m.header.kind.into(), reason: "not an encapsulated packet (kind 10)" });
        }
        let Body::Raw(b) = &m.body else { return Err(Error::Inconsistent { layer: L, reason: "kind 10 with a typed body" }) };
        let (&[payload_type, op, version, reserved], rest) = b.split_first_chunk::<DESCRIPTOR_LEN>().ok_or(Error::Truncated { layer: L, field: "descriptor", offset: HEADER_LEN, needed: DESCRIPTOR_LEN, actual: b.len() })?;
        let original = Tlp::parse(rest)?;
        let e = Encapsulated { header: m.header, payload_type, apply: op & ENCAP_OP_APPLY != 0, reserved_op: op & !ENCAP_OP_APPLY, version, reserved, original };
        e.check()?;
        Ok(e)
    }

    /// Checks what the codec requires (the engine's own checks are stricter: docs/frames.md §4).
    pub fn check(&self) -> Result<()> {
        let off = HEADER_LEN + DESCRIPTOR_LEN;
        if self.header.kind != KIND {
            return Err(Error::InvalidField { layer: L, field: "kind", offset: 0, value: self.header.kind.into(), reason: "not an encapsulated packet (kind 10)" });
        }
        if self.reserved_op > !ENCAP_OP_APPLY {
            return Err(Error::FieldOverflow { layer: L, field: "reserved operation bits", value: self.reserved_op.into(), bits: 7 });
        }
        let t = &self.original;
        if t.kind() != TlpKind::MemWrite || !t.prefixes.is_empty() || t.digest.is_some() {
            return Err(Error::InvalidField { layer: L, field: "encapsulated header", offset: off, value: u64::from(t.dw0.fmt) << 5 | u64::from(t.dw0.tlp_type), reason: "not a memory write without prefix or digest" });
        }
        Ok(())
    }

    /// The generic message (kind 10, raw body) that carries it.
    pub fn to_message(&self) -> Result<CollectiveMessage> {
        self.check()?;
        let mut b = vec![self.payload_type, if self.apply { ENCAP_OP_APPLY } else { 0 } | self.reserved_op, self.version, self.reserved];
        b.extend_from_slice(&self.original.to_bytes()?);
        Ok(CollectiveMessage { header: self.header, body: Body::Raw(b) })
    }

    /// Emits the message.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.to_message()?.to_bytes()
    }

    /// The configuration body, when the payload type is configuration: (`ConfigFixed`, device IDs,
    /// subservient IDs), decoded as the kind-1 message with this body.
    pub fn configuration(&self) -> Option<Result<ConfigurationBody>> {
        (self.payload_type == TYPE_CONFIGURATION).then(|| {
            // The common header as emitted for kind 10 (a raw body), then its kind nibble set to 1.
            let mut buf = CollectiveMessage { header: self.header, body: Body::Raw(Vec::new()) }.to_bytes()?;
            let kind = buf.first_mut().ok_or(Error::Inconsistent { layer: L, reason: "an empty common header" })?;
            *kind = *kind & 0xF0 | MsgKind::CONFIGURATION.0;
            buf.extend_from_slice(&self.original.payload);
            match CollectiveMessage::parse(&buf)?.body {
                Body::Configuration { fixed, device_ids, subservient_ids } => Ok((fixed, device_ids, subservient_ids)),
                _ => Err(Error::Inconsistent { layer: L, reason: "configuration body" }),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlp::Header;

    /// The byte-by-byte vector of docs/frames.md §4 (the same as the input checker's directed test).
    #[rustfmt::skip]
    const VECTOR: [u8; 48] = [
        0x1A, 0x00, 0x00, 0x05,  0x00, 0x00, 0xFF, 0xFF, // version 1 kind 10, CC_ID 5, DMU 0, P_ID none
        0x01, 0x80, 0x01, 0x00,                          // type configuration, apply, version 1
        0x40, 0x00, 0x00, 0x06,  0x00, 0x42, 0x07, 0xFF,  0x12, 0x34, 0x56, 0x78, // MWr32, Length 6
        0x00, 0x20, 0x03, 0x07,  0x05, 0x01, 0x00, 0x02, // master 0x0020, ISL 3, validation 7, error-rep 5, S 1, N 2
        0x00, 0x00, 0x01, 0x00,  0x00, 0x00, 0x03, 0x00, // timeouts 0x100, 0x300
        0x00, 0x11, 0x00, 0x12,  0x00, 0x12, 0x00, 0x00, // devices 0x0011, 0x0012; subservient 0x0012; pad
    ];

    #[test]
    fn the_vector_decodes_and_round_trips() {
        let e = Encapsulated::parse(&VECTOR).expect("vector");
        assert_eq!((e.header.cc_id, e.payload_type, e.apply, e.version, e.reserved_op, e.reserved), (5, 1, true, 1, 0, 0));
        assert_eq!(e.original.payload.len(), 24);
        let Header::Memory { req, address } = &e.original.header else { panic!("not a memory header") };
        assert_eq!((req.requester_id, address.byte_address()), (0x0042, 0x1234_5678));
        let (fixed, dev, sub) = e.configuration().expect("configuration type").expect("body");
        assert_eq!((fixed.master_id, fixed.n_devices, fixed.n_subservient, fixed.subservient_timeout, fixed.master_timeout), (0x20, 2, 1, 0x100, 0x300));
        assert_eq!((dev, sub), (vec![0x11, 0x12], vec![0x12]));
        assert_eq!(e.to_bytes().expect("emit"), VECTOR);
    }

    #[test]
    fn typed_errors() {
        // A memory read instead of a write; a Length one DW longer than the bytes; every truncation.
        let mut rd = VECTOR;
        rd[12] = 0x00;
        assert!(Encapsulated::parse(&rd).is_err());
        let mut long = VECTOR;
        long[15] = 7;
        assert!(Encapsulated::parse(&long).is_err());
        for n in 0..VECTOR.len() {
            assert!(Encapsulated::parse(&VECTOR[..n]).is_err(), "{n}");
        }
        let mut k1 = VECTOR;
        k1[0] = 0x11;
        assert!(Encapsulated::parse(&k1).is_err());
        let mut e = Encapsulated::parse(&VECTOR).expect("vector");
        e.reserved_op = 0x80;
        assert!(matches!(e.to_bytes(), Err(Error::FieldOverflow { .. })));
    }
}
