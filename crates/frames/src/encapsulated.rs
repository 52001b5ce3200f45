//! Encapsulated packets: collective kind 10 (seed 000 FIG. 4, \[0156\]; docs/frames.md §4, Encapsulated).
//! The figure is missing: the layout is this project's definition. After the 8-byte common header:
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +---------------+-+-------------+---------------+---------------+
//! | payload type  |O|  reserved   |    version    |  header form  |   byte 8: the descriptor
//! +---------------+-+-------------+---------------+---------------+
//! |  encapsulated original multicast TLP header: a memory write,  |   byte 12
//! |  3 or 4 DW, no digest / trailer; non-flit (form 0: Fmt 010 /  |
//! |  011, Type 00000) or PCIe 6 flit mode (form 1: MWr32 / MWr64) |
//! +---------------------------------------------------------------+
//! |  encapsulated original payload: Length DW                     |   byte 24 or 28
//! +---------------------------------------------------------------+
//! ```
//!
//! O = operation bit (1 = apply). Payload type 1 = a FIG. 4 configuration body (the kind-1 message less
//! its common header: `ConfigFixed`, the device IDs, the subservient IDs, padding), which the engine
//! applies as the kind-1 message's register writes. The header form says which of \[0156\]'s two header
//! layouts the original header has (FIG. 4's fields are a flit-mode TLP's: Type, TC, OHC, TS, Attr,
//! Length, Requester ID, EP, R, Tag). [`CollectiveMessage`] keeps kind 10 as a raw body;
//! [`Encapsulated`] is its typed codec.

use crate::collective::{Body, CollectiveMessage, CommonHeader, ConfigFixed, HEADER_LEN};
use crate::error::{Error, Layer, Result};
use crate::flit::{self, FlitDw0, FlitTlp};
use crate::tlp::{Tlp, TlpKind};
// The kind and descriptor values are the input checker's (`inswitch_model`), written once for the model,
// the RTL (`rtl/input_checker_codes.vh`) and this codec.
use inswitch_model::input_checker::config::{
    ENCAP_DESCRIPTOR_BYTES, ENCAP_FORM_FLIT, ENCAP_FORM_NON_FLIT, ENCAP_OP_APPLY, ENCAP_REGISTER_WRITE_DW, ENCAP_TYPE_CONFIGURATION, ENCAP_TYPE_REGISTER_WRITE, ENCAP_VERSION,
};
use inswitch_model::input_checker::{window_address, window_of, MAILBOX_OFFSET};
use inswitch_model::message::Kind as MsgKind;

const L: Layer = Layer::Collective;
/// Collective kind of an encapsulated packet.
pub const KIND: u8 = MsgKind::ENCAPSULATED.0;
/// Payload type: a FIG. 4 configuration body.
pub const TYPE_CONFIGURATION: u8 = ENCAP_TYPE_CONFIGURATION;
/// Payload type: one \[0175\] register write into the named engine's register window.
pub const TYPE_REGISTER_WRITE: u8 = ENCAP_TYPE_REGISTER_WRITE;

/// One \[0175\] register write, what payload type 2 carries (docs/frames.md §4): the original header is a
/// 1-DW memory write to `engine_id`'s register window (address `engine_id << 16 | ENGINE_WINDOW << 12 |
/// offset`), its payload the write data (byte 0 = bits 7:0, as the register path reads a memory write).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterWrite {
    /// The engine whose register is written (the message's P_ID names it too).
    pub engine_id: u16,
    /// Byte offset in the register window (DW aligned, below the mailbox).
    pub offset: u16,
    /// First DW byte enables (a flit-mode original header has no byte-enable field without OHC-A: 0xF).
    pub be: u8,
    /// Write data.
    pub wdata: u32,
}

impl RegisterWrite {
    /// The memory address of the register.
    pub fn address(&self) -> u64 {
        u64::from(window_address(self.engine_id, u32::from(self.offset)))
    }

    fn check(&self, flit_mode: bool) -> Result<()> {
        if u32::from(self.offset) >= MAILBOX_OFFSET || self.offset & 3 != 0 {
            return Err(Error::InvalidField { layer: L, field: "register offset", offset: 0, value: self.offset.into(), reason: "not a DW-aligned register below the mailbox" });
        }
        if self.be > 0xF || (flit_mode && self.be != 0xF) {
            return Err(Error::InvalidField { layer: L, field: "byte enables", offset: 0, value: self.be.into(), reason: "4 bits; 0xF in flit mode (no OHC-A)" });
        }
        Ok(())
    }
}
/// Version of the encapsulation the engine knows.
pub const VERSION: u8 = ENCAP_VERSION;
/// Bytes of the descriptor.
pub const DESCRIPTOR_LEN: usize = ENCAP_DESCRIPTOR_BYTES;
/// Descriptor byte 3, header form: a non-flit original header.
pub const FORM_NON_FLIT: u8 = ENCAP_FORM_NON_FLIT;
/// Descriptor byte 3, header form: a PCIe 6 flit-mode original header.
pub const FORM_FLIT: u8 = ENCAP_FORM_FLIT;

/// The encapsulated original memory write, in one of the two header forms (descriptor byte 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Original {
    /// A non-flit TLP (form 0).
    NonFlit(Tlp),
    /// A PCIe 6 flit-mode TLP (form 1).
    Flit(FlitTlp),
}

impl Original {
    /// A memory write of `payload` (a whole number of DWs, 1-1024) to `address` in the chosen form: 3 DW
    /// below 4 GiB, else 4 DW (non-flit MWr as `Tlp::memory_write`; flit mode MWr32 / MWr64, TC 0, no
    /// OHC, no trailer, EP 0, the 14-bit tag).
    pub fn memory_write(flit_mode: bool, requester_id: u16, tag: u16, address: u64, payload: Vec<u8>) -> Result<Original> {
        if !flit_mode {
            return Tlp::memory_write(requester_id, tag, address, payload).map(Original::NonFlit);
        }
        let dw = payload.len() / 4;
        if payload.len() % 4 != 0 || dw == 0 || dw > flit::MAX_PAYLOAD_DW {
            return Err(Error::LengthMismatch { layer: Layer::FlitTlp, field: "payload", expected: dw.clamp(1, flit::MAX_PAYLOAD_DW) * 4, actual: payload.len() });
        }
        if address & 3 != 0 {
            return Err(Error::InvalidField { layer: Layer::FlitTlp, field: "address", offset: 8, value: address, reason: "not DW aligned" });
        }
        let four = address > u64::from(u32::MAX);
        // Length 0 stands for 1024 DW.
        let length = (dw % flit::MAX_PAYLOAD_DW) as u16;
        let dw0 = FlitDw0 { tlp_type: if four { flit::types::MWR64 } else { flit::types::MWR32 }, length, ..FlitDw0::default() };
        // DW1: Requester ID, EP 0, R 0, Tag[13:0].
        let dw1 = u32::from(requester_id) << 16 | u32::from(tag & ((1 << flit::TAG_BITS) - 1));
        let header = if four { vec![dw1, (address >> 32) as u32, address as u32] } else { vec![dw1, address as u32] };
        let t = FlitTlp { prefixes: vec![], dw0, header, ohc: vec![], payload, trailer: vec![] };
        t.check()?;
        Ok(Original::Flit(t))
    }

    /// Descriptor byte 3 for this form.
    pub fn form(&self) -> u8 {
        match self {
            Original::NonFlit(_) => FORM_NON_FLIT,
            Original::Flit(_) => FORM_FLIT,
        }
    }

    /// The original payload.
    pub fn payload(&self) -> &[u8] {
        match self {
            Original::NonFlit(t) => &t.payload,
            Original::Flit(t) => &t.payload,
        }
    }

    /// The original TLP's bytes (header and payload).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        match self {
            Original::NonFlit(t) => t.to_bytes(),
            Original::Flit(t) => t.to_bytes(),
        }
    }

    /// Whether it is what the encapsulation carries: a memory write with no prefix and no digest (flit
    /// mode: MWr32 / MWr64, no local prefix, no trailer; OHC is kept, the engine drops it).
    fn is_plain_memory_write(&self) -> bool {
        match self {
            Original::NonFlit(t) => t.kind() == TlpKind::MemWrite && t.prefixes.is_empty() && t.digest.is_none(),
            Original::Flit(t) => {
                matches!(t.dw0.tlp_type, flit::types::MWR32 | flit::types::MWR64) && t.prefixes.is_empty() && t.trailer.is_empty()
            }
        }
    }

    /// Byte 0 of the header (Fmt/Type or flit Type), for errors.
    fn type_byte(&self) -> u64 {
        match self {
            Original::NonFlit(t) => u64::from(t.dw0.fmt) << 5 | u64::from(t.dw0.tlp_type),
            Original::Flit(t) => t.dw0.tlp_type.into(),
        }
    }
}

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
    /// The original memory write: header and payload (no prefixes, no digest); its form is descriptor
    /// byte 3.
    pub original: Original,
}

/// A configuration body: `ConfigFixed`, the device IDs, the subservient engines' IDs.
pub type ConfigurationBody = (ConfigFixed, Vec<u16>, Vec<u16>);

impl Encapsulated {
    /// Decodes a kind-10 message occupying all of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Encapsulated> {
        Self::from_message(&CollectiveMessage::parse(buf)?)
    }

    /// A kind-1 configuration message `inner` encapsulated as the engine applies it: kind 10 with
    /// `inner`'s common header, payload type configuration, apply, version 1, and an original memory
    /// write (`flit_mode`: in flit-mode form) of `inner`'s body less its common header from `requester_id`
    /// with `tag` to `address` (3 DW below 4 GiB, else 4 DW).
    pub fn wrap_configuration(inner: &CollectiveMessage, flit_mode: bool, requester_id: u16, tag: u16, address: u64) -> Result<Encapsulated> {
        if !matches!(inner.body, Body::Configuration { .. }) {
            return Err(Error::Inconsistent { layer: L, reason: "only a configuration message is encapsulated" });
        }
        let body = inner.to_bytes()?.split_off(HEADER_LEN);
        let e = Encapsulated {
            header: CommonHeader { kind: KIND, ..inner.header },
            payload_type: TYPE_CONFIGURATION,
            apply: true,
            reserved_op: 0,
            version: VERSION,
            original: Original::memory_write(flit_mode, requester_id, tag, address, body)?,
        };
        e.check()?;
        Ok(e)
    }

    /// A \[0175\] register write `w` encapsulated (payload type register write, apply, version 1): kind 10
    /// with `header`'s fields and P_ID = `w.engine_id`, the original a 1-DW memory write (`flit_mode`: in
    /// flit-mode form) from `requester_id` with `tag` to the register. Typed errors: an offset at or
    /// above the mailbox or not DW aligned, byte enables over 4 bits (in flit mode other than 0xF).
    pub fn wrap_register_write(header: CommonHeader, flit_mode: bool, requester_id: u16, tag: u16, w: &RegisterWrite) -> Result<Encapsulated> {
        w.check(flit_mode)?;
        let mut original = Original::memory_write(flit_mode, requester_id, tag, w.address(), w.wdata.to_le_bytes().to_vec())?;
        if let Original::NonFlit(Tlp { header: crate::tlp::Header::Memory { req, .. }, .. }) = &mut original {
            req.first_be = w.be;
        }
        let e = Encapsulated {
            header: CommonHeader { kind: KIND, p_id: w.engine_id, ..header },
            payload_type: TYPE_REGISTER_WRITE,
            apply: true,
            reserved_op: 0,
            version: VERSION,
            original,
        };
        e.check()?;
        Ok(e)
    }

    /// The register write, when the payload type is register write: the original header's register (its
    /// address in an engine's register window, below the mailbox), byte enables and 1-DW data. Typed
    /// errors: a Length other than 1 DW, an address outside every register window.
    pub fn register_write(&self) -> Option<Result<RegisterWrite>> {
        (self.payload_type == TYPE_REGISTER_WRITE).then(|| {
            let p = self.original.payload();
            let Ok(&wdata) = <&[u8; 4]>::try_from(p) else {
                return Err(Error::LengthMismatch { layer: L, field: "register write payload", expected: 4 * ENCAP_REGISTER_WRITE_DW, actual: p.len() });
            };
            let (address, be) = match &self.original {
                Original::NonFlit(t) => match &t.header {
                    crate::tlp::Header::Memory { req, address } => (address.byte_address(), req.first_be),
                    _ => return Err(Error::Inconsistent { layer: L, reason: "a memory write without a memory header" }),
                },
                Original::Flit(t) => (t.address().ok_or(Error::Inconsistent { layer: L, reason: "a flit-mode memory write without an address" })?, 0xF),
            };
            let off = HEADER_LEN + DESCRIPTOR_LEN;
            let Some((engine_id, offset)) = window_of(address).filter(|&(_, o)| o < MAILBOX_OFFSET) else {
                return Err(Error::InvalidField { layer: L, field: "register address", offset: off, value: address, reason: "not a register of an engine's window" });
            };
            Ok(RegisterWrite { engine_id, offset: offset as u16, be, wdata: u32::from_le_bytes(wdata) })
        })
    }

    /// Decodes the raw body of a kind-10 [`CollectiveMessage`].
    pub fn from_message(m: &CollectiveMessage) -> Result<Encapsulated> {
        if m.header.kind != KIND {
            return Err(Error::InvalidField { layer: L, field: "kind", offset: 0, value: m.header.kind.into(), reason: "not an encapsulated packet (kind 10)" });
        }
        let Body::Raw(b) = &m.body else { return Err(Error::Inconsistent { layer: L, reason: "kind 10 with a typed body" }) };
        let (&[payload_type, op, version, form], rest) = b.split_first_chunk::<DESCRIPTOR_LEN>().ok_or(Error::Truncated { layer: L, field: "descriptor", offset: HEADER_LEN, needed: DESCRIPTOR_LEN, actual: b.len() })?;
        let original = match form {
            FORM_NON_FLIT => Original::NonFlit(Tlp::parse(rest)?),
            FORM_FLIT => Original::Flit(FlitTlp::parse(rest)?),
            _ => {
                return Err(Error::InvalidField { layer: L, field: "header form", offset: HEADER_LEN + 3, value: form.into(), reason: "neither 0 (non-flit) nor 1 (flit mode)" });
            }
        };
        let e = Encapsulated { header: m.header, payload_type, apply: op & ENCAP_OP_APPLY != 0, reserved_op: op & !ENCAP_OP_APPLY, version, original };
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
        if !self.original.is_plain_memory_write() {
            return Err(Error::InvalidField { layer: L, field: "encapsulated header", offset: off, value: self.original.type_byte(), reason: "not a memory write without prefix or digest" });
        }
        Ok(())
    }

    /// The generic message (kind 10, raw body) that carries it.
    pub fn to_message(&self) -> Result<CollectiveMessage> {
        self.check()?;
        let mut b = vec![self.payload_type, if self.apply { ENCAP_OP_APPLY } else { 0 } | self.reserved_op, self.version, self.original.form()];
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
            buf.extend_from_slice(self.original.payload());
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
        assert_eq!((e.header.cc_id, e.payload_type, e.apply, e.version, e.reserved_op, e.original.form()), (5, 1, true, 1, 0, FORM_NON_FLIT));
        assert_eq!(e.original.payload().len(), 24);
        let Original::NonFlit(t) = &e.original else { panic!("not a non-flit header") };
        let Header::Memory { req, address } = &t.header else { panic!("not a memory header") };
        assert_eq!((req.requester_id, address.byte_address()), (0x0042, 0x1234_5678));
        let (fixed, dev, sub) = e.configuration().expect("configuration type").expect("body");
        assert_eq!((fixed.master_id, fixed.n_devices, fixed.n_subservient, fixed.subservient_timeout, fixed.master_timeout), (0x20, 2, 1, 0x100, 0x300));
        assert_eq!((dev, sub), (vec![0x11, 0x12], vec![0x12]));
        assert_eq!(e.to_bytes().expect("emit"), VECTOR);
    }

    /// The same message with a flit-mode original header (docs/frames.md §4): descriptor byte 3 = 1, the
    /// header an MWr32 (Type 0x40, TC 0, OHC 0, TS 0, Attr 0, Length 6; requester 0x0042, EP 0, R 0, tag
    /// 7; address 0x12345678).
    #[rustfmt::skip]
    const FLIT_HEADER: [u8; 16] = [
        0x01, 0x80, 0x01, 0x01,
        0x40, 0x00, 0x00, 0x06,  0x00, 0x42, 0x00, 0x07,  0x12, 0x34, 0x56, 0x78,
    ];

    fn flit_vector() -> [u8; 48] {
        let mut v = VECTOR;
        v[8..24].copy_from_slice(&FLIT_HEADER);
        v
    }

    #[test]
    fn a_flit_mode_original_header_decodes_and_round_trips() {
        let v = flit_vector();
        let e = Encapsulated::parse(&v).expect("flit vector");
        assert_eq!(e.original.form(), FORM_FLIT);
        let Original::Flit(t) = &e.original else { panic!("not a flit-mode header") };
        assert_eq!((t.dw0.tlp_type, t.dw0.ohc, t.dw0.ts, t.dw0.length), (flit::types::MWR32, 0, 0, 6));
        let dw1 = t.dw1().expect("request DW1");
        assert_eq!((dw1.requester_id, dw1.ep, dw1.tag, t.address()), (0x0042, false, 7, Some(0x1234_5678)));
        // The same body as the non-flit vector's.
        assert_eq!(e.configuration().expect("type").expect("body"), Encapsulated::parse(&VECTOR).unwrap().configuration().unwrap().unwrap());
        assert_eq!(e.to_bytes().expect("emit"), v);
        // The constructor builds it from the kind-1 message.
        let mut inner = CollectiveMessage::parse(&{
            let mut k1 = vec![0x11];
            k1.extend_from_slice(&VECTOR[1..8]);
            k1.extend_from_slice(&VECTOR[24..]);
            k1
        })
        .expect("kind 1");
        assert_eq!(Encapsulated::wrap_configuration(&inner, true, 0x0042, 7, 0x1234_5678).expect("wrap").to_bytes().unwrap(), v);
        // A 64-bit address: MWr64, a 4-DW header base.
        let w = Encapsulated::wrap_configuration(&inner, true, 0x0042, 7, 0x1_0000_0000).expect("wrap 64");
        let Original::Flit(t) = &w.original else { panic!("flit") };
        assert_eq!((t.dw0.tlp_type, t.address()), (flit::types::MWR64, Some(0x1_0000_0000)));
        assert_eq!(Encapsulated::parse(&w.to_bytes().unwrap()).unwrap(), w);
        inner.body = Body::Raw(vec![0; 4]);
        assert!(Encapsulated::wrap_configuration(&inner, true, 0x0042, 7, 0x1000).is_err(), "not a configuration");
    }

    /// Payload type 2 (docs/frames.md §4): P_ID 0x0300 names the engine, a 3-DW MWr (requester 0x0100,
    /// tag 9, address 0x0300_C120 = engine 0x0300's SUB_TIMEOUT, Length 1, first BE 0xF) of 0x0000_0400.
    #[rustfmt::skip]
    const REGISTER_WRITE: [u8; 28] = [
        0x1A, 0x00, 0x00, 0x05,  0x00, 0x00, 0x03, 0x00, // kind 10, CC_ID 5, DMU 0, P_ID 0x0300
        0x02, 0x80, 0x01, 0x00,                          // type register write, apply, version 1, non-flit
        0x40, 0x00, 0x00, 0x01,  0x01, 0x00, 0x09, 0x0F,  0x03, 0x00, 0xC1, 0x20, // MWr32, Length 1
        0x00, 0x04, 0x00, 0x00,                          // 0x0000_0400, byte 0 = bits 7:0
    ];

    #[test]
    fn a_register_write_decodes_builds_and_round_trips() {
        let e = Encapsulated::parse(&REGISTER_WRITE).expect("vector");
        assert_eq!((e.payload_type, e.header.p_id, e.original.form()), (TYPE_REGISTER_WRITE, 0x0300, FORM_NON_FLIT));
        let w = e.register_write().expect("type 2").expect("write");
        assert_eq!(w, RegisterWrite { engine_id: 0x0300, offset: 0x120, be: 0xF, wdata: 0x400 });
        assert!(e.configuration().is_none());
        let h = CommonHeader { cc_id: 5, ..e.header };
        assert_eq!(Encapsulated::wrap_register_write(h, false, 0x0100, 9, &w).expect("wrap").to_bytes().unwrap(), REGISTER_WRITE);
        // Byte enables are kept; a flit-mode form carries 0xF (no OHC-A).
        let half = RegisterWrite { be: 0x3, ..w };
        assert_eq!(Encapsulated::parse(&Encapsulated::wrap_register_write(h, false, 0x0100, 9, &half).unwrap().to_bytes().unwrap()).unwrap().register_write().unwrap().unwrap(), half);
        let f = Encapsulated::wrap_register_write(h, true, 0x0100, 9, &w).expect("flit");
        assert_eq!(Encapsulated::parse(&f.to_bytes().unwrap()).unwrap().register_write().unwrap().unwrap(), w);
        assert!(matches!(Encapsulated::wrap_register_write(h, true, 0x0100, 9, &half), Err(Error::InvalidField { field: "byte enables", .. })));
        // Typed errors: the mailbox, an unaligned offset, a Length of 2 DW, an address outside a window.
        for off in [0x800u16, 0x122] {
            assert!(matches!(Encapsulated::wrap_register_write(h, false, 0x0100, 9, &RegisterWrite { offset: off, ..w }), Err(Error::InvalidField { field: "register offset", .. })));
        }
        let mut two = REGISTER_WRITE.to_vec();
        two[15] = 2;
        two.extend_from_slice(&[0; 4]);
        assert!(matches!(Encapsulated::parse(&two).unwrap().register_write(), Some(Err(Error::LengthMismatch { .. }))));
        let mut mem = REGISTER_WRITE;
        mem[22] = 0xD1; // window nibble 0xD
        assert!(matches!(Encapsulated::parse(&mem).unwrap().register_write(), Some(Err(Error::InvalidField { field: "register address", .. }))));
        mem[22] = 0xC9; // offset 0x920: the mailbox
        assert!(matches!(Encapsulated::parse(&mem).unwrap().register_write(), Some(Err(Error::InvalidField { field: "register address", .. }))));
    }

    #[test]
    fn typed_errors() {
        // A header form other than 0 and 1; a flit-mode MRd32 (0x00) or a trailer (TS 001) in form 1.
        for form in [2u8, 0x80, 0xFF] {
            let mut f = flit_vector();
            f[11] = form;
            assert!(matches!(Encapsulated::parse(&f), Err(Error::InvalidField { field: "header form", .. })), "{form}");
        }
        let mut rd = flit_vector();
        rd[12] = flit::types::MRD32;
        assert!(Encapsulated::parse(&rd).is_err());
        let mut ts = flit_vector();
        ts[14] = flit::TS_ECRC << 5;
        assert!(Encapsulated::parse(&ts).is_err());
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
