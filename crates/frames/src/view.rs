//! Zero-copy views (smoltcp `Packet<T: AsRef<[u8]>>` style) for the hot paths: the engine's steering
//! and the benches read fields straight from the buffer instead of building a deku `Repr`.
//!
//! The deku declarations in [`crate::tlp`] and [`crate::portals`] stay the specification: the property
//! test `view_matches_deku` checks every getter here against them. Byte/bit positions are those of the
//! diagrams in `tlp/mod.rs` / `portals.rs`; the Portals accessors read the field tables [`portals::header_fields`] and
//! [`portals::frame_fields`].

use crate::error::{Error, Layer, Result};
use crate::field::Field;
use crate::portals::{self, frame_fields, header_fields};
use crate::tlp::{self, dw0_fields, TlpKind};

/// Byte positions of the non-flit header after DW0 (DW0's bits are [`tlp::dw0_fields`]).
mod field {
    pub const REQUESTER_ID: usize = 4; // requests and messages
    pub const TAG: usize = 6; // requests and messages
    pub const BE: usize = 7;
    pub const ADDR: usize = 8;
    pub const COMPLETER_ID: usize = 4;
    pub const CPL_STATUS_BC: usize = 6;
    pub const CPL_REQUESTER_ID: usize = 8;
    pub const CPL_TAG: usize = 10;
    pub const CPL_LOWER_ADDR: usize = 11;
    pub const MSG_CODE: usize = 7;
}

/// A checked, zero-copy view of one non-flit TLP without prefixes (`new_checked` validates lengths
/// exactly as [`tlp::Tlp::parse`] does; afterwards no getter can panic or fail).
#[derive(Debug, Clone, Copy)]
pub struct TlpView<T: AsRef<[u8]>> {
    buf: T,
    header_len: usize,
    payload_len: usize,
}

#[inline]
fn byte(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}
#[inline]
fn be16(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([byte(b, i), byte(b, i + 1)])
}
#[inline]
fn be32(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([byte(b, i), byte(b, i + 1), byte(b, i + 2), byte(b, i + 3)])
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
        if self.is_completion() { be16(self.b(), field::CPL_REQUESTER_ID) } else { be16(self.b(), field::REQUESTER_ID) }
    }
    /// 10-bit tag.
    pub fn tag(&self) -> u16 {
        let low = if self.is_completion() { byte(self.b(), field::CPL_TAG) } else { byte(self.b(), field::TAG) };
        (dw0_fields::T9.get(self.b()) << 9 | dw0_fields::T8.get(self.b()) << 8) as u16 | u16::from(low)
    }
    /// First DW byte enables (requests).
    pub fn first_be(&self) -> u8 {
        byte(self.b(), field::BE) & 0x0f
    }
    /// Last DW byte enables (requests).
    pub fn last_be(&self) -> u8 {
        byte(self.b(), field::BE) >> 4
    }
    /// Byte address of memory / IO / AtomicOp requests (PH bits cleared).
    pub fn address(&self) -> u64 {
        if self.header_len == tlp::HEADER_4DW_LEN {
            (u64::from(be32(self.b(), field::ADDR)) << 32 | u64::from(be32(self.b(), field::ADDR + 4))) & !0b11
        } else {
            u64::from(be32(self.b(), field::ADDR) & !0b11)
        }
    }
    /// Completer ID (completions).
    pub fn completer_id(&self) -> u16 {
        be16(self.b(), field::COMPLETER_ID)
    }
    /// Completion status.
    pub fn status(&self) -> u8 {
        byte(self.b(), field::CPL_STATUS_BC) >> 5
    }
    /// Raw byte count.
    pub fn byte_count(&self) -> u16 {
        be16(self.b(), field::CPL_STATUS_BC) & 0x0fff
    }
    /// Lower address.
    pub fn lower_address(&self) -> u8 {
        byte(self.b(), field::CPL_LOWER_ADDR) & 0x7f
    }
    /// Message code.
    pub fn message_code(&self) -> u8 {
        byte(self.b(), field::MSG_CODE)
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
        Some(u32::from_le_bytes([byte(self.b(), o), byte(self.b(), o + 1), byte(self.b(), o + 2), byte(self.b(), o + 3)]))
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
        use tlp::{dw0_fields as D, Address, Address32, Address64, BodyClass, CompletionHeader, ConfigDw2, Dw0, Header, MessageHeader, RequestDw1};
        let b = self.b();
        let g = |f: Field| f.get(b);
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
        let bit = |w: u32, n: u32| (w >> n) & 1 != 0;
        let w1 = be32(b, 4);
        let w2 = be32(b, 8);
        let w3 = be32(b, 12);
        let req = RequestDw1 { requester_id: (w1 >> 16) as u16, tag: (w1 >> 8) as u8, last_be: (w1 >> 4 & 0xf) as u8, first_be: (w1 & 0xf) as u8 };
        let a32 = Address32 { address_dw: w2 >> 2, ph: (w2 & 0b11) as u8 };
        let address = if self.header_len == tlp::HEADER_4DW_LEN {
            Address::A64(Address64 { address_dw: (u64::from(w2) << 32 | u64::from(w3)) >> 2, ph: (w3 & 0b11) as u8 })
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
                    bus: (w2 >> 24) as u8,
                    device: (w2 >> 19 & 0x1f) as u8,
                    function: (w2 >> 16 & 0b111) as u8,
                    reserved_hi: (w2 >> 12 & 0xf) as u8,
                    ext_register: (w2 >> 8 & 0xf) as u8,
                    register: (w2 >> 2 & 0x3f) as u8,
                    reserved_lo: (w2 & 0b11) as u8,
                },
            },
            BodyClass::Completion => Header::Completion(CompletionHeader {
                completer_id: (w1 >> 16) as u16,
                status: (w1 >> 13 & 0b111) as u8,
                bcm: bit(w1, 12),
                byte_count: (w1 & 0xfff) as u16,
                requester_id: (w2 >> 16) as u16,
                tag: (w2 >> 8) as u8,
                reserved: bit(w2, 7),
                lower_address: (w2 & 0x7f) as u8,
            }),
            BodyClass::Message => Header::Message(MessageHeader {
                requester_id: (w1 >> 16) as u16,
                tag: (w1 >> 8) as u8,
                message_code: w1 as u8,
                dw2: w2,
                dw3: w3,
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
        while buf.get(offset).map(|b| b >> 5) == Some(tlp::FMT_PREFIX) {
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
            let mut a = [0u8; tlp::PREFIX_LEN];
            a.copy_from_slice(w);
            let w = u32::from_be_bytes(a);
            prefixes.push(tlp::TlpPrefix { fmt: tlp::FMT_PREFIX, end_to_end: w >> 28 & 1 != 0, subtype: (w >> 24 & 0xf) as u8, content: w & 0x00ff_ffff });
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

