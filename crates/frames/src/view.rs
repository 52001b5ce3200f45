//! Zero-copy views (smoltcp `Packet<T: AsRef<[u8]>>` style) for the hot paths: the engine's steering
//! and the benches read fields straight from the buffer instead of building a deku `Repr`.
//!
//! The deku declarations in [`crate::tlp`] and [`crate::portals`] stay the specification: the property
//! test `view_matches_deku` checks every getter here against them. Every bit position is read from a
//! field table ([`crate::tlp::fields`], [`portals::header_fields`], [`portals::frame_fields`]), which
//! the tables' own tests check against the deku declarations.

use crate::error::{Error, Layer, Result};
use crate::field::Field;
use crate::portals::{self, frame_fields, header_fields};
use crate::tlp::fields::{address32_fields, address64_fields, completion_fields as cpl, message_fields, prefix_fields, request_fields as req, AFTER_DW0, AFTER_REQUEST_DW1};
use crate::tlp::{self, dw0_fields, TlpKind};

/// The 10-bit tag: T9 and T8 of DW0 above Tag\[7:0\] (`low`).
#[inline]
fn tag10(b: &[u8], low: u64) -> u16 {
    (dw0_fields::T9.get(b) << (dw0_fields::T8.width + u8::BITS) | dw0_fields::T8.get(b) << u8::BITS | low) as u16
}

/// A checked, zero-copy view of one non-flit TLP without prefixes (`new_checked` validates lengths
/// exactly as [`tlp::Tlp::parse`] does; afterwards no getter can panic or fail).
#[derive(Debug, Clone, Copy)]
pub struct TlpView<T: AsRef<[u8]>> {
    buf: T,
    header_len: usize,
    payload_len: usize,
}

impl<T: AsRef<[u8]>> TlpView<T> {
    /// Checks lengths (and AtomicOp Length rules) and wraps `buf`, which must hold exactly one TLP
    /// without prefixes.
    pub fn new_checked(buf: T) -> Result<TlpView<T>> {
        let b = buf.as_ref();
        let l = Layer::Tlp;
        if b.is_empty() {
            return Err(Error::Truncated { layer: l, field: "DW0", offset: 0, needed: tlp::DW0_LEN, actual: 0 });
        }
        let fmt = dw0_fields::FMT.get(b) as u8;
        if fmt == tlp::FMT_PREFIX {
            return Err(Error::InvalidField { layer: l, field: "Fmt", offset: 0, value: fmt.into(), reason: "TlpView does not take prefixes" });
        }
        if b.len() < tlp::DW0_LEN {
            return Err(Error::Truncated { layer: l, field: "DW0", offset: 0, needed: tlp::DW0_LEN, actual: b.len() });
        }
        let header_len = if fmt & tlp::FMT_4DW != 0 { tlp::HEADER_4DW_LEN } else { tlp::HEADER_3DW_LEN };
        if b.len() < header_len {
            return Err(Error::Truncated { layer: l, field: "header", offset: tlp::DW0_LEN, needed: header_len, actual: b.len() });
        }
        let raw_len = dw0_fields::LENGTH.get(b) as u16;
        let len_dw = if raw_len == 0 { tlp::MAX_PAYLOAD_DW } else { usize::from(raw_len) };
        let payload_len = if fmt & tlp::FMT_DATA != 0 { len_dw * tlp::DW } else { 0 };
        let kind = TlpKind::classify(fmt, dw0_fields::TYPE.get(b) as u8);
        if let Some(allowed) = kind.allowed_lengths_dw() {
            if !allowed.contains(&len_dw) {
                return Err(Error::InvalidField { layer: l, field: "Length", offset: 2, value: raw_len.into(), reason: "AtomicOp length not allowed (FetchAdd/Swap: 1,2 DW; CAS: 2,4,8 DW)" });
            }
        }
        let digest = if dw0_fields::TD.get(b) != 0 { tlp::DIGEST_LEN } else { 0 };
        if b.len() < header_len + payload_len {
            return Err(Error::Truncated { layer: l, field: "payload", offset: header_len, needed: header_len + payload_len, actual: b.len() });
        }
        let total = header_len + payload_len + digest;
        if b.len() < total {
            return Err(Error::Truncated { layer: l, field: "ECRC", offset: header_len + payload_len, needed: total, actual: b.len() });
        }
        if b.len() > total {
            return Err(Error::TrailingBytes { layer: l, expected: total, actual: b.len() });
        }
        Ok(TlpView { buf, header_len, payload_len })
    }
    fn b(&self) -> &[u8] {
        self.buf.as_ref()
    }
    /// Field `f` of the structure that starts `at` bytes into the TLP.
    #[inline]
    fn at(&self, at: usize, f: Field) -> u64 {
        f.at_byte(at).get(self.b())
    }
    /// Fmt.
    pub fn fmt(&self) -> u8 {
        dw0_fields::FMT.get(self.b()) as u8
    }
    /// Type.
    pub fn tlp_type(&self) -> u8 {
        dw0_fields::TYPE.get(self.b()) as u8
    }
    /// Kind.
    pub fn kind(&self) -> TlpKind {
        TlpKind::classify(self.fmt(), self.tlp_type())
    }
    /// TC.
    pub fn tc(&self) -> u8 {
        dw0_fields::TC.get(self.b()) as u8
    }
    /// Attr\[2:0\] (A2 as bit 2).
    pub fn attr(&self) -> u8 {
        (dw0_fields::ATTR2.get(self.b()) << dw0_fields::ATTR.width | dw0_fields::ATTR.get(self.b())) as u8
    }
    /// TD.
    pub fn td(&self) -> bool {
        dw0_fields::TD.get(self.b()) != 0
    }
    /// EP.
    pub fn ep(&self) -> bool {
        dw0_fields::EP.get(self.b()) != 0
    }
    /// Raw Length field.
    pub fn length(&self) -> u16 {
        dw0_fields::LENGTH.get(self.b()) as u16
    }
    /// Header length.
    pub fn header_len(&self) -> usize {
        self.header_len
    }
    fn is_completion(&self) -> bool {
        matches!(self.kind(), TlpKind::Completion { .. })
    }
    /// Requester ID (requests, messages, completions).
    pub fn requester_id(&self) -> u16 {
        let f = if self.is_completion() { cpl::REQUESTER_ID } else { req::REQUESTER_ID };
        self.at(AFTER_DW0, f) as u16
    }
    /// 10-bit tag.
    pub fn tag(&self) -> u16 {
        let low = if self.is_completion() { cpl::TAG } else { req::TAG };
        tag10(self.b(), self.at(AFTER_DW0, low))
    }
    /// First DW byte enables (requests).
    pub fn first_be(&self) -> u8 {
        self.at(AFTER_DW0, req::FIRST_BE) as u8
    }
    /// Last DW byte enables (requests).
    pub fn last_be(&self) -> u8 {
        self.at(AFTER_DW0, req::LAST_BE) as u8
    }
    /// Byte address of memory / IO / AtomicOp requests (PH bits cleared).
    pub fn address(&self) -> u64 {
        let dw = if self.header_len == tlp::HEADER_4DW_LEN { address64_fields::ADDRESS_DW } else { address32_fields::ADDRESS_DW };
        self.at(AFTER_REQUEST_DW1, dw) << tlp::DW_ADDRESS_SHIFT
    }
    /// Completer ID (completions).
    pub fn completer_id(&self) -> u16 {
        self.at(AFTER_DW0, cpl::COMPLETER_ID) as u16
    }
    /// Completion status.
    pub fn status(&self) -> u8 {
        self.at(AFTER_DW0, cpl::STATUS) as u8
    }
    /// Raw byte count.
    pub fn byte_count(&self) -> u16 {
        self.at(AFTER_DW0, cpl::BYTE_COUNT) as u16
    }
    /// Lower address.
    pub fn lower_address(&self) -> u8 {
        self.at(AFTER_DW0, cpl::LOWER_ADDRESS) as u8
    }
    /// Message code.
    pub fn message_code(&self) -> u8 {
        self.at(AFTER_DW0, message_fields::MESSAGE_CODE) as u8
    }
    /// Payload.
    pub fn payload(&self) -> &[u8] {
        self.b().get(self.header_len..self.header_len + self.payload_len).unwrap_or(&[])
    }
    /// ECRC digest (little-endian on the wire).
    pub fn digest(&self) -> Option<u32> {
        if !self.td() {
            return None;
        }
        let o = self.header_len + self.payload_len;
        let d = self.b().get(o..)?.first_chunk::<{ tlp::DIGEST_LEN }>()?;
        Some(u32::from_le_bytes(*d))
    }
}

/// Zero-copy view of the 84-byte Portals reduction frame.
#[derive(Debug, Clone, Copy)]
pub struct ReductionView<T: AsRef<[u8]>> {
    buf: T,
}

impl<T: AsRef<[u8]>> ReductionView<T> {
    /// Checks the length.
    pub fn new_checked(buf: T) -> Result<ReductionView<T>> {
        let n = buf.as_ref().len();
        if n < portals::FRAME_LEN {
            return Err(Error::Truncated { layer: Layer::Portals, field: "reduction frame", offset: 0, needed: portals::FRAME_LEN, actual: n });
        }
        if n > portals::FRAME_LEN {
            return Err(Error::TrailingBytes { layer: Layer::Portals, expected: portals::FRAME_LEN, actual: n });
        }
        Ok(ReductionView { buf })
    }
    /// A field of the frame table.
    #[inline]
    fn frame(&self, f: Field) -> u64 {
        f.get(self.buf.as_ref())
    }
    /// A field of the reduction header table (which sits at [`portals::REDUCTION_HEADER_OFFSET`]).
    #[inline]
    fn header(&self, f: Field) -> u64 {
        f.at_byte(portals::REDUCTION_HEADER_OFFSET).get(self.buf.as_ref())
    }
    /// DFA.
    pub fn dfa(&self) -> u32 {
        self.frame(frame_fields::DFA) as u32
    }
    /// VNI.
    pub fn vni(&self) -> u16 {
        self.frame(frame_fields::VNI) as u16
    }
    /// rt_cookie.
    pub fn cookie(&self) -> u32 {
        self.header(header_fields::COOKIE) as u32
    }
    /// rt_seqno.
    pub fn seqno(&self) -> u16 {
        self.header(header_fields::SEQNO) as u16
    }
    /// rt_arm.
    pub fn arm(&self) -> bool {
        self.header(header_fields::ARM) != 0
    }
    /// rt_op.
    pub fn op(&self) -> u8 {
        self.header(header_fields::OP) as u8
    }
    /// rt_count.
    pub fn count(&self) -> u32 {
        self.header(header_fields::COUNT) as u32
    }
    /// rt_resno.
    pub fn resno(&self) -> u16 {
        self.header(header_fields::RESNO) as u16
    }
    /// rt_rc.
    pub fn rc(&self) -> u8 {
        self.header(header_fields::RC) as u8
    }
    /// rt_repsum_m.
    pub fn repsum_m(&self) -> u8 {
        self.header(header_fields::REPSUM_M) as u8
    }
    /// rt_repsum_ovflid.
    pub fn repsum_ovflid(&self) -> u8 {
        self.header(header_fields::REPSUM_OVFLID) as u8
    }
    /// Retry (bit 61).
    pub fn retry(&self) -> bool {
        self.header(header_fields::RETRY) != 0
    }
    /// Operand `i` (0..4; any other index reads 0).
    pub fn operand(&self, i: usize) -> u64 {
        frame_fields::OPERANDS.get(i).map_or(0, |f| self.frame(*f))
    }
}

impl<T: AsRef<[u8]>> TlpView<T> {
    /// Builds the owned deku [`tlp::Tlp`] repr from the checked buffer without going through deku's bit
    /// reader (about 100x faster; deku reads bit fields one bit-vector at a time). Property test
    /// `to_repr_matches_deku` checks `Tlp::parse_fast == Tlp::parse` on arbitrary bytes.
    pub fn to_repr(&self) -> tlp::Tlp {
        use tlp::fields::config_fields as cfg;
        use tlp::{dw0_fields as D, Address, Address32, Address64, BodyClass, CompletionHeader, ConfigDw2, Dw0, Header, MessageHeader, RequestDw1};
        let b = self.b();
        let g = |f: Field| f.get(b);
        // The structures after DW0, each read from its table at its place in the header.
        let dw1 = |f: Field| f.at_byte(AFTER_DW0).get(b);
        let dw2 = |f: Field| f.at_byte(AFTER_REQUEST_DW1).get(b);
        let dw0 = Dw0 {
            fmt: g(D::FMT) as u8,
            tlp_type: g(D::TYPE) as u8,
            t9: g(D::T9) != 0,
            tc: g(D::TC) as u8,
            t8: g(D::T8) != 0,
            attr2: g(D::ATTR2) != 0,
            ln: g(D::LN) != 0,
            th: g(D::TH) != 0,
            td: g(D::TD) != 0,
            ep: g(D::EP) != 0,
            attr: g(D::ATTR) as u8,
            at: g(D::AT) as u8,
            length: g(D::LENGTH) as u16,
        };
        let req = RequestDw1 {
            requester_id: dw1(req::REQUESTER_ID) as u16,
            tag: dw1(req::TAG) as u8,
            last_be: dw1(req::LAST_BE) as u8,
            first_be: dw1(req::FIRST_BE) as u8,
        };
        let a32 = Address32 { address_dw: dw2(address32_fields::ADDRESS_DW) as u32, ph: dw2(address32_fields::PH) as u8 };
        let address = if self.header_len == tlp::HEADER_4DW_LEN {
            Address::A64(Address64 { address_dw: dw2(address64_fields::ADDRESS_DW), ph: dw2(address64_fields::PH) as u8 })
        } else {
            Address::A32(a32)
        };
        let header = match dw0.kind().body_class() {
            BodyClass::Memory => Header::Memory { req, address },
            BodyClass::Atomic => Header::Atomic { req, address },
            BodyClass::Io => Header::Io { req, address: a32 },
            BodyClass::Config => Header::Config {
                req,
                target: ConfigDw2 {
                    bus: dw2(cfg::BUS) as u8,
                    device: dw2(cfg::DEVICE) as u8,
                    function: dw2(cfg::FUNCTION) as u8,
                    reserved_hi: dw2(cfg::RESERVED_HI) as u8,
                    ext_register: dw2(cfg::EXT_REGISTER) as u8,
                    register: dw2(cfg::REGISTER) as u8,
                    reserved_lo: dw2(cfg::RESERVED_LO) as u8,
                },
            },
            BodyClass::Completion => Header::Completion(CompletionHeader {
                completer_id: dw1(cpl::COMPLETER_ID) as u16,
                status: dw1(cpl::STATUS) as u8,
                bcm: dw1(cpl::BCM) != 0,
                byte_count: dw1(cpl::BYTE_COUNT) as u16,
                requester_id: dw1(cpl::REQUESTER_ID) as u16,
                tag: dw1(cpl::TAG) as u8,
                reserved: dw1(cpl::RESERVED) != 0,
                lower_address: dw1(cpl::LOWER_ADDRESS) as u8,
            }),
            BodyClass::Message => Header::Message(MessageHeader {
                requester_id: dw1(message_fields::REQUESTER_ID) as u16,
                tag: dw1(message_fields::TAG) as u8,
                message_code: dw1(message_fields::MESSAGE_CODE) as u8,
                dw2: dw1(message_fields::DW2) as u32,
                dw3: dw1(message_fields::DW3) as u32,
            }),
            BodyClass::Raw => Header::Raw(b.get(tlp::DW0_LEN..self.header_len).unwrap_or(&[]).to_vec()),
        };
        tlp::Tlp { prefixes: Vec::new(), dw0, header, payload: self.payload().to_vec(), digest: self.digest() }
    }
}

/// The fast parse lives here, beside the view it is built on, so that `tlp` does not import `view`
/// (`view` reads `tlp`'s constants and builds its repr: the dependency goes one way).
impl tlp::Tlp {
    /// Same result as [`parse`](Self::parse) (checked by property test), but the header after the
    /// prefixes is decoded by [`TlpView`] instead of deku's bit reader: about 100x faster,
    /// for hot paths that need an owned repr.
    pub fn parse_fast(buf: &[u8]) -> Result<tlp::Tlp> {
        let mut offset = 0usize;
        let mut prefixes = Vec::new();
        while buf.get(offset..).map(|b| prefix_fields::FMT.get(b)) == Some(u64::from(tlp::FMT_PREFIX)) {
            if prefixes.len() == tlp::MAX_PREFIXES {
                return Err(Error::InvalidField {
                    layer: Layer::TlpPrefix,
                    field: "Fmt",
                    offset,
                    value: u64::from(tlp::FMT_PREFIX),
                    reason: "more than MAX_PREFIXES prefixes",
                });
            }
            let w = crate::util::take(Layer::TlpPrefix, "prefix", buf, offset, tlp::PREFIX_LEN)?;
            prefixes.push(tlp::TlpPrefix {
                fmt: tlp::FMT_PREFIX,
                end_to_end: prefix_fields::END_TO_END.get(w) != 0,
                subtype: prefix_fields::SUBTYPE.get(w) as u8,
                content: prefix_fields::CONTENT.get(w) as u32,
            });
            offset += tlp::PREFIX_LEN;
        }
        let rest = buf.get(offset..).unwrap_or(&[]);
        let view = TlpView::new_checked(rest).map_err(|e| shift_offsets(e, offset))?;
        let mut t = view.to_repr();
        t.prefixes = prefixes;
        Ok(t)
    }
}

/// Re-bases the offsets of an error found in a sub-slice that starts at `base`.
fn shift_offsets(e: Error, base: usize) -> Error {
    match e {
        Error::Truncated { layer, field, offset, needed, actual } => {
            Error::Truncated { layer, field, offset: offset + base, needed: needed + base, actual: actual + base }
        }
        Error::TrailingBytes { layer, expected, actual } => Error::TrailingBytes { layer, expected: expected + base, actual: actual + base },
        Error::InvalidField { layer, field, offset, value, reason } => Error::InvalidField { layer, field, offset: offset + base, value, reason },
        other => other,
    }
}

