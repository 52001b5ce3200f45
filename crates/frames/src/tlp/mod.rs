//! Non-flit PCIe TLPs (PCIe 1.x-5.x): prefixes, 3DW/4DW headers, data payload, ECRC digest.
//! Layouts: docs/frames.md §1 (PCIe Base Specification 6.x §2.2.1.1, §2.2.4-§2.2.9).
//!
//! A TLP on the wire is `prefix* header payload? digest?`:
//!
//! ```text
//! DW0, common to every TLP header
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-----+---------+-+-----+-+-+-+-+-+-+---+---+-------------------+
//! | Fmt |  Type   |T|  TC |T|A|L|T|T|E|Att| AT|      Length       |
//! |     |         |9|     |8|2|N|H|D|P|1:0|   |                   |
//! +-----+---------+-+-----+-+-+-+-+-+-+---+---+-------------------+
//! ```
//! Fmt: 000 3DW no data, 001 4DW no data, 010 3DW data, 011 4DW data, 100 prefix (others reserved:
//! this codec sizes them as `3 + Fmt[0]` DW with data iff `Fmt[1]`, so they round-trip).
//! Length: payload in DW, 0 means 1024.

use deku::prelude::*;

use crate::crc;
use crate::error::{fits, Error, Layer, Result};
use crate::util;

mod kind;
pub use kind::{types, BodyClass, CompletionStatus, MessageCode, MessageRouting, TlpKind, FMT_4DW, FMT_DATA, FMT_PREFIX};

const L: Layer = Layer::Tlp;

/// Bytes in a DW.
pub const DW: usize = 4;
pub mod fields;
pub use fields::{dw0_fields, DW0_LEN};
/// Header length of a 3DW TLP.
pub const HEADER_3DW_LEN: usize = 3 * DW;
/// Header length of a 4DW TLP.
pub const HEADER_4DW_LEN: usize = 4 * DW;
/// Length of one TLP prefix.
pub const PREFIX_LEN: usize = fields::PREFIX_LEN;
/// A request's address fields hold the DW address: the byte address shifted right by this.
pub const DW_ADDRESS_SHIFT: u32 = DW.trailing_zeros();
/// Length of the ECRC digest.
pub const DIGEST_LEN: usize = DW;
/// Largest payload in DW (`Length == 0`).
pub const MAX_PAYLOAD_DW: usize = 1024;
/// Width of the Length field.
pub const LENGTH_BITS: u32 = dw0_fields::LENGTH.width;
/// Most prefixes this codec accepts in front of one TLP (the specification bounds End-End prefixes to 4;
/// a longer chain is reported as [`Error::InvalidField`] rather than read without bound).
pub const MAX_PREFIXES: usize = 4;

/// DW0 of every non-flit TLP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct Dw0 {
    /// Fmt\[2:0\].
    #[deku(bits = 3)]
    pub fmt: u8,
    /// Type\[4:0\].
    #[deku(bits = 5)]
    pub tlp_type: u8,
    /// T9: Tag\[9\] of a 10-bit tag (requests, completions); reserved otherwise.
    #[deku(bits = 1)]
    pub t9: bool,
    /// Traffic class.
    #[deku(bits = 3)]
    pub tc: u8,
    /// T8: Tag\[8\] of a 10-bit tag.
    #[deku(bits = 1)]
    pub t8: bool,
    /// Attr\[2\] (ID-based ordering).
    #[deku(bits = 1)]
    pub attr2: bool,
    /// LN (deprecated lightweight notification; reserved in PCIe 6).
    #[deku(bits = 1)]
    pub ln: bool,
    /// TH: TLP processing hints present.
    #[deku(bits = 1)]
    pub th: bool,
    /// TD: ECRC digest present.
    #[deku(bits = 1)]
    pub td: bool,
    /// EP: poisoned.
    #[deku(bits = 1)]
    pub ep: bool,
    /// Attr\[1:0\] (relaxed ordering, no snoop).
    #[deku(bits = 2)]
    pub attr: u8,
    /// Address type.
    #[deku(bits = 2)]
    pub at: u8,
    /// Length\[9:0\] in DW; 0 means 1024.
    #[deku(bits = 10)]
    pub length: u16,
}

impl Dw0 {
    /// Header length in bytes implied by Fmt (3DW or 4DW).
    pub fn header_len(&self) -> usize {
        if self.fmt & FMT_4DW != 0 {
            HEADER_4DW_LEN
        } else {
            HEADER_3DW_LEN
        }
    }
    /// Whether Fmt says a data payload follows the header.
    pub fn has_data(&self) -> bool {
        self.fmt & FMT_DATA != 0
    }
    /// Length in DW with the 0 = 1024 rule applied.
    pub fn length_dw(&self) -> usize {
        if self.length == 0 {
            MAX_PAYLOAD_DW
        } else {
            usize::from(self.length)
        }
    }
    /// Payload bytes on the wire (0 unless Fmt says there is data).
    pub fn payload_len(&self) -> usize {
        if self.has_data() {
            self.length_dw() * DW
        } else {
            0
        }
    }
    /// The kind named by Fmt and Type.
    pub fn kind(&self) -> TlpKind {
        TlpKind::classify(self.fmt, self.tlp_type)
    }
    /// Sets Length from a payload size in DW (1..=1024).
    pub fn set_length_dw(&mut self, dw: usize) {
        self.length = (dw % MAX_PAYLOAD_DW) as u16;
    }
    fn check(&self) -> Result<()> {
        fits(L, "Fmt", self.fmt.into(), 3)?;
        fits(L, "Type", self.tlp_type.into(), 5)?;
        fits(L, "TC", self.tc.into(), 3)?;
        fits(L, "Attr[1:0]", self.attr.into(), 2)?;
        fits(L, "AT", self.at.into(), 2)?;
        fits(L, "Length", self.length.into(), LENGTH_BITS)
    }
}

/// A TLP prefix DW.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-----+-+-------+-----------------------------------------------+
/// | 100 |E| Type  |          prefix-type specific content         |
/// +-----+-+-------+-----------------------------------------------+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct TlpPrefix {
    /// Always [`FMT_PREFIX`].
    #[deku(bits = 3)]
    pub fmt: u8,
    /// Type\[4\]: End-End (1) or Local (0) prefix.
    #[deku(bits = 1)]
    pub end_to_end: bool,
    /// Type\[3:0\]: prefix type (Local: 0000 MR-IOV, 1101 flit-mode, 1110/1111 vendor; End-End: 0000
    /// TPH, 0001 PASID, 1110/1111 vendor).
    #[deku(bits = 4)]
    pub subtype: u8,
    /// Bytes 1-3.
    #[deku(bits = 24)]
    pub content: u32,
}

/// DW1 of memory, IO, configuration and AtomicOp requests.
///
/// ```text
/// +-------------------------------+---------------+-------+-------+
/// |         Requester ID          |   Tag[7:0]    |Last BE|1st BE |
/// +-------------------------------+---------------+-------+-------+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct RequestDw1 {
    /// Requester ID (bus 8, device 5, function 3).
    pub requester_id: u16,
    /// Tag\[7:0\] (Tag\[9:8\] are DW0 T9/T8).
    pub tag: u8,
    /// Last DW byte enables.
    #[deku(bits = 4)]
    pub last_be: u8,
    /// First DW byte enables.
    #[deku(bits = 4)]
    pub first_be: u8,
}

/// 32-bit address DW (3DW memory, IO, atomics).
///
/// ```text
/// +-----------------------------------------------------------+---+
/// |                       Address[31:2]                       |PH |
/// +-----------------------------------------------------------+---+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct Address32 {
    /// Address\[31:2\] (the DW address).
    #[deku(bits = 30)]
    pub address_dw: u32,
    /// Processing hint (TH = 1); reserved for IO.
    #[deku(bits = 2)]
    pub ph: u8,
}

/// 64-bit address (4DW memory, atomics): DW2 = Address\[63:32\], DW3 = Address\[31:2\] | PH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct Address64 {
    /// Address\[63:2\].
    #[deku(bits = 62)]
    pub address_dw: u64,
    /// Processing hint.
    #[deku(bits = 2)]
    pub ph: u8,
}

/// The address of a memory or AtomicOp request; its width is chosen by Fmt\[0\].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Address {
    /// 3DW header.
    A32(Address32),
    /// 4DW header.
    A64(Address64),
}

impl Address {
    /// Byte address (low 2 bits zero).
    pub fn byte_address(&self) -> u64 {
        match self {
            Address::A32(a) => u64::from(a.address_dw) << DW_ADDRESS_SHIFT,
            Address::A64(a) => a.address_dw << DW_ADDRESS_SHIFT,
        }
    }
    /// Processing hint.
    pub fn ph(&self) -> u8 {
        match self {
            Address::A32(a) => a.ph,
            Address::A64(a) => a.ph,
        }
    }
    /// A 32-bit address (`addr` low 2 bits are dropped).
    pub fn new32(addr: u32, ph: u8) -> Address {
        Address::A32(Address32 { address_dw: addr >> DW_ADDRESS_SHIFT, ph })
    }
    /// A 64-bit address (`addr` low 2 bits are dropped).
    pub fn new64(addr: u64, ph: u8) -> Address {
        Address::A64(Address64 { address_dw: addr >> DW_ADDRESS_SHIFT, ph })
    }
}

/// DW2 of configuration requests.
///
/// ```text
/// +---------------+---------+-----+-------+-------+-----------+---+
/// |      Bus      | Device  |Func |   R   |ExtReg | Register  | R |
/// +---------------+---------+-----+-------+-------+-----------+---+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct ConfigDw2 {
    /// Target bus.
    pub bus: u8,
    /// Target device.
    #[deku(bits = 5)]
    pub device: u8,
    /// Target function.
    #[deku(bits = 3)]
    pub function: u8,
    /// Reserved bits \[11:8\] of byte 10 (kept so they round-trip).
    #[deku(bits = 4)]
    pub reserved_hi: u8,
    /// Extended register number.
    #[deku(bits = 4)]
    pub ext_register: u8,
    /// Register number (DW index).
    #[deku(bits = 6)]
    pub register: u8,
    /// Reserved bits \[1:0\].
    #[deku(bits = 2)]
    pub reserved_lo: u8,
}

impl ConfigDw2 {
    /// Completer (target) ID.
    pub fn target_id(&self) -> u16 {
        u16::from(self.bus) << 8 | u16::from(self.device) << 3 | u16::from(self.function)
    }
    /// Configuration space byte offset (`ext_register:register:00`).
    pub fn byte_offset(&self) -> u16 {
        u16::from(self.ext_register) << 8 | u16::from(self.register) << 2
    }
}

/// DW1-DW2 of completions.
///
/// ```text
/// +-------------------------------+-----+-+-----------------------+
/// |         Completer ID          |Stat |B|     Byte Count        |
/// +-------------------------------+-----+-+-----------------------+
/// |         Requester ID          |   Tag[7:0]    |R| Lower Addr  |
/// +-------------------------------+---------------+-+-------------+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct CompletionHeader {
    /// Completer ID.
    pub completer_id: u16,
    /// Completion status (see [`CompletionStatus`]).
    #[deku(bits = 3)]
    pub status: u8,
    /// Byte count modified (PCI-X).
    #[deku(bits = 1)]
    pub bcm: bool,
    /// Remaining byte count; 0 means 4096.
    #[deku(bits = 12)]
    pub byte_count: u16,
    /// Requester ID.
    pub requester_id: u16,
    /// Tag\[7:0\].
    pub tag: u8,
    /// Reserved.
    #[deku(bits = 1)]
    pub reserved: bool,
    /// Lower address\[6:0\].
    #[deku(bits = 7)]
    pub lower_address: u8,
}

/// Byte count value the encoding 0 stands for.
pub const MAX_BYTE_COUNT: usize = 4096;

impl CompletionHeader {
    /// Byte count with 0 meaning 4096.
    pub fn byte_count_bytes(&self) -> usize {
        if self.byte_count == 0 {
            MAX_BYTE_COUNT
        } else {
            usize::from(self.byte_count)
        }
    }
    /// Typed status.
    pub fn status(&self) -> CompletionStatus {
        CompletionStatus::from(self.status)
    }
}

/// DW1-DW3 of messages. DW2-DW3 depend on the routing (see the getters).
///
/// ```text
/// +-------------------------------+---------------+---------------+
/// |         Requester ID          |   Tag[7:0]    | Message Code  |
/// +-------------------------------+---------------+---------------+
/// | by address: Address[63:32]; by ID: Target ID | (VDM) Vendor ID|
/// +-------------------------------+-------------------------------+
/// | by address: Address[31:0];  vendor-defined: vendor data        |
/// +---------------------------------------------------------------+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct MessageHeader {
    /// Requester ID.
    pub requester_id: u16,
    /// Tag\[7:0\].
    pub tag: u8,
    /// Message code (see [`MessageCode`]).
    pub message_code: u8,
    /// DW2 (routing dependent).
    pub dw2: u32,
    /// DW3 (routing dependent).
    pub dw3: u32,
}


impl MessageHeader {
    /// Typed message code.
    pub fn code(&self) -> MessageCode {
        MessageCode::from(self.message_code)
    }
    /// Whether this is a vendor-defined message (Type 0 or 1).
    pub fn is_vendor_defined(&self) -> bool {
        matches!(self.code(), MessageCode::VendorDefinedType0 | MessageCode::VendorDefinedType1)
    }
    /// Target / destination ID (bytes 8-9), meaningful for ID-routed messages.
    pub fn target_id(&self) -> u16 {
        fields::message_id_fields::TARGET_ID.get(&self.dw2.to_be_bytes()) as u16
    }
    /// Vendor ID (bytes 10-11) of a vendor-defined message.
    pub fn vendor_id(&self) -> u16 {
        fields::message_id_fields::VENDOR_ID.get(&self.dw2.to_be_bytes()) as u16
    }
    /// Vendor-defined DW3.
    pub fn vendor_data(&self) -> u32 {
        self.dw3
    }
    /// Address of an address-routed message.
    pub fn address(&self) -> u64 {
        u64::from(self.dw2) << 32 | u64::from(self.dw3)
    }
    /// Builds a vendor-defined message header.
    pub fn vendor_defined(
        requester_id: u16,
        tag: u8,
        code: MessageCode,
        destination_id: u16,
        vendor_id: u16,
        vendor_data: u32,
    ) -> MessageHeader {
        let mut dw2 = [0u8; fields::MESSAGE_ID_LEN];
        fields::message_id_fields::TARGET_ID.set(&mut dw2, destination_id.into());
        fields::message_id_fields::VENDOR_ID.set(&mut dw2, vendor_id.into());
        MessageHeader { requester_id, tag, message_code: code.into(), dw2: u32::from_be_bytes(dw2), dw3: vendor_data }
    }
}

/// The header body after DW0.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Header {
    /// Memory requests (MRd, MRdLk, MWr, DMWr).
    Memory { req: RequestDw1, address: Address },
    /// IO requests.
    Io { req: RequestDw1, address: Address32 },
    /// Configuration requests.
    Config { req: RequestDw1, target: ConfigDw2 },
    /// AtomicOp requests.
    Atomic { req: RequestDw1, address: Address },
    /// Completions.
    Completion(CompletionHeader),
    /// Messages.
    Message(MessageHeader),
    /// Reserved Fmt/Type: the header bytes after DW0 (8 or 12), kept verbatim.
    Raw(Vec<u8>),
}

impl Header {
    fn class(&self) -> BodyClass {
        match self {
            Header::Memory { .. } => BodyClass::Memory,
            Header::Io { .. } => BodyClass::Io,
            Header::Config { .. } => BodyClass::Config,
            Header::Atomic { .. } => BodyClass::Atomic,
            Header::Completion(_) => BodyClass::Completion,
            Header::Message(_) => BodyClass::Message,
            Header::Raw(_) => BodyClass::Raw,
        }
    }
}

/// An owned non-flit TLP (the `Repr`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Tlp {
    /// Prefixes in wire order.
    pub prefixes: Vec<TlpPrefix>,
    /// DW0.
    pub dw0: Dw0,
    /// Header after DW0.
    pub header: Header,
    /// Data payload (`Length` DW when Fmt has data, else empty).
    pub payload: Vec<u8>,
    /// ECRC digest value (present iff TD), as read little-endian from the wire.
    pub digest: Option<u32>,
}

impl Tlp {
    /// Parses exactly one TLP occupying all of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Tlp> {
        let (tlp, end) = Self::parse_prefix(buf)?;
        util::exact(L, end, buf)?;
        Ok(tlp)
    }

    /// Parses one TLP from the start of `buf` and returns it with the number of bytes it occupies
    /// (for streams of back-to-back TLPs).
    pub fn parse_prefix(buf: &[u8]) -> Result<(Tlp, usize)> {
        let mut offset = 0usize;
        let mut prefixes = Vec::new();
        loop {
            let first = util::take(L, "Fmt", buf, offset, 1)?;
            if first.first().map(|b| b >> 5) != Some(FMT_PREFIX) {
                break;
            }
            if prefixes.len() == MAX_PREFIXES {
                return Err(Error::InvalidField {
                    layer: Layer::TlpPrefix,
                    field: "Fmt",
                    offset,
                    value: u64::from(FMT_PREFIX),
                    reason: "more than MAX_PREFIXES prefixes",
                });
            }
            prefixes.push(util::read::<TlpPrefix>(Layer::TlpPrefix, "prefix", buf, offset, PREFIX_LEN)?);
            offset += PREFIX_LEN;
        }
        let hdr_start = offset;
        let dw0: Dw0 = util::read(L, "DW0", buf, offset, DW0_LEN)?;
        let header_len = dw0.header_len();
        let body_len = header_len - DW0_LEN;
        let body_off = offset + DW0_LEN;
        let kind = dw0.kind();
        let header = match kind.body_class() {
            BodyClass::Memory | BodyClass::Atomic => {
                let req = util::read(L, "Requester ID/Tag/BE", buf, body_off, DW)?;
                let address = if header_len == HEADER_4DW_LEN {
                    Address::A64(util::read(L, "Address[63:2]", buf, body_off + DW, 2 * DW)?)
                } else {
                    Address::A32(util::read(L, "Address[31:2]", buf, body_off + DW, DW)?)
                };
                if kind.body_class() == BodyClass::Memory {
                    Header::Memory { req, address }
                } else {
                    Header::Atomic { req, address }
                }
            }
            BodyClass::Io => Header::Io {
                req: util::read(L, "Requester ID/Tag/BE", buf, body_off, DW)?,
                address: util::read(L, "Address[31:2]", buf, body_off + DW, DW)?,
            },
            BodyClass::Config => Header::Config {
                req: util::read(L, "Requester ID/Tag/BE", buf, body_off, DW)?,
                target: util::read(L, "Bus/Device/Function/Register", buf, body_off + DW, DW)?,
            },
            BodyClass::Completion => Header::Completion(util::read(L, "Completion DW1-DW2", buf, body_off, body_len)?),
            BodyClass::Message => Header::Message(util::read(L, "Message DW1-DW3", buf, body_off, body_len)?),
            BodyClass::Raw => Header::Raw(util::take(L, "reserved-type header", buf, body_off, body_len)?.to_vec()),
        };
        offset = hdr_start + header_len;
        let payload_len = dw0.payload_len();
        if let Some(allowed) = kind.allowed_lengths_dw() {
            if !allowed.contains(&dw0.length_dw()) {
                return Err(Error::InvalidField {
                    layer: L,
                    field: "Length",
                    offset: hdr_start + 2,
                    value: dw0.length.into(),
                    reason: "AtomicOp length not allowed (FetchAdd/Swap: 1,2 DW; CAS: 2,4,8 DW)",
                });
            }
        }
        let payload = util::take(L, "payload", buf, offset, payload_len)?.to_vec();
        offset += payload_len;
        let digest = if dw0.td {
            let d = util::le32(L, "ECRC", buf, offset)?;
            offset += DIGEST_LEN;
            Some(d)
        } else {
            None
        };
        Ok((Tlp { prefixes, dw0, header, payload, digest }, offset))
    }

    /// Bytes [`emit`](Self::emit) writes.
    pub fn buffer_len(&self) -> usize {
        self.prefixes.len() * PREFIX_LEN
            + self.dw0.header_len()
            + self.payload.len()
            + if self.digest.is_some() { DIGEST_LEN } else { 0 }
    }

    /// Checks that the repr can be emitted and would parse back to itself.
    pub fn check(&self) -> Result<()> {
        if self.prefixes.len() > MAX_PREFIXES {
            return Err(Error::Inconsistent { layer: Layer::TlpPrefix, reason: "more than MAX_PREFIXES prefixes" });
        }
        for p in &self.prefixes {
            if p.fmt != FMT_PREFIX {
                return Err(Error::Inconsistent { layer: Layer::TlpPrefix, reason: "prefix Fmt is not 100b" });
            }
            fits(Layer::TlpPrefix, "subtype", p.subtype.into(), 4)?;
            fits(Layer::TlpPrefix, "content", p.content.into(), 24)?;
        }
        self.dw0.check()?;
        if self.dw0.fmt == FMT_PREFIX {
            return Err(Error::Inconsistent { layer: L, reason: "DW0 Fmt is the prefix code" });
        }
        let kind = self.dw0.kind();
        if kind.body_class() != self.header.class() {
            return Err(Error::Inconsistent { layer: L, reason: "header body does not match Fmt/Type" });
        }
        let four = self.dw0.header_len() == HEADER_4DW_LEN;
        match &self.header {
            Header::Memory { address, .. } | Header::Atomic { address, .. }
                if matches!(address, Address::A64(_)) != four =>
            {
                return Err(Error::Inconsistent { layer: L, reason: "address width does not match Fmt[0]" });
            }
            Header::Raw(b) if b.len() != self.dw0.header_len() - DW0_LEN => {
                return Err(Error::LengthMismatch {
                    layer: L,
                    field: "reserved-type header",
                    expected: self.dw0.header_len() - DW0_LEN,
                    actual: b.len(),
                });
            }
            _ => {}
        }
        if self.payload.len() != self.dw0.payload_len() {
            return Err(Error::LengthMismatch {
                layer: L,
                field: "payload",
                expected: self.dw0.payload_len(),
                actual: self.payload.len(),
            });
        }
        if let Some(allowed) = kind.allowed_lengths_dw() {
            if !allowed.contains(&self.dw0.length_dw()) {
                return Err(Error::InvalidField {
                    layer: L,
                    field: "Length",
                    offset: 2,
                    value: self.dw0.length.into(),
                    reason: "AtomicOp length not allowed (FetchAdd/Swap: 1,2 DW; CAS: 2,4,8 DW)",
                });
            }
        }
        if self.digest.is_some() != self.dw0.td {
            return Err(Error::Inconsistent { layer: L, reason: "digest presence does not match TD" });
        }
        Ok(())
    }

    /// Writes the TLP into `out` (at least [`buffer_len`](Self::buffer_len) bytes) and returns the
    /// number of bytes written.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize> {
        self.check()?;
        let len = self.buffer_len();
        if out.len() < len {
            return Err(Error::BufferTooSmall { layer: L, needed: len, actual: out.len() });
        }
        let mut off = 0;
        for p in &self.prefixes {
            util::write(Layer::TlpPrefix, "prefix", p, out, off, PREFIX_LEN)?;
            off += PREFIX_LEN;
        }
        util::write(L, "DW0", &self.dw0, out, off, DW0_LEN)?;
        let body = off + DW0_LEN;
        match &self.header {
            Header::Memory { req, address } | Header::Atomic { req, address } => {
                util::write(L, "Requester ID/Tag/BE", req, out, body, DW)?;
                match address {
                    Address::A32(a) => util::write(L, "Address[31:2]", a, out, body + DW, DW)?,
                    Address::A64(a) => util::write(L, "Address[63:2]", a, out, body + DW, 2 * DW)?,
                }
            }
            Header::Io { req, address } => {
                util::write(L, "Requester ID/Tag/BE", req, out, body, DW)?;
                util::write(L, "Address[31:2]", address, out, body + DW, DW)?;
            }
            Header::Config { req, target } => {
                util::write(L, "Requester ID/Tag/BE", req, out, body, DW)?;
                util::write(L, "Bus/Device/Function/Register", target, out, body + DW, DW)?;
            }
            Header::Completion(c) => util::write(L, "Completion DW1-DW2", c, out, body, 2 * DW)?,
            Header::Message(m) => util::write(L, "Message DW1-DW3", m, out, body, 3 * DW)?,
            Header::Raw(b) => util::put(L, out, body, b)?,
        }
        off += self.dw0.header_len();
        util::put(L, out, off, &self.payload)?;
        off += self.payload.len();
        if let Some(d) = self.digest {
            util::put(L, out, off, &d.to_le_bytes())?;
            off += DIGEST_LEN;
        }
        Ok(off)
    }

    /// Emits into a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        let n = self.emit(&mut v)?;
        v.truncate(n);
        Ok(v)
    }

    /// Kind from DW0.
    pub fn kind(&self) -> TlpKind {
        self.dw0.kind()
    }

    /// The 10-bit tag of requests and completions (`T9:T8:Tag[7:0]`), `None` for other kinds.
    pub fn tag(&self) -> Option<u16> {
        let low = match &self.header {
            Header::Memory { req, .. } | Header::Io { req, .. } | Header::Config { req, .. } | Header::Atomic { req, .. } => {
                req.tag
            }
            Header::Completion(c) => c.tag,
            Header::Message(m) => m.tag,
            Header::Raw(_) => return None,
        };
        Some(u16::from(self.dw0.t9) << 9 | u16::from(self.dw0.t8) << 8 | u16::from(low))
    }

    /// Requester ID, for every kind that has one.
    pub fn requester_id(&self) -> Option<u16> {
        match &self.header {
            Header::Memory { req, .. } | Header::Io { req, .. } | Header::Config { req, .. } | Header::Atomic { req, .. } => {
                Some(req.requester_id)
            }
            Header::Completion(c) => Some(c.requester_id),
            Header::Message(m) => Some(m.requester_id),
            Header::Raw(_) => None,
        }
    }

    /// Bytes the ECRC covers (PCIe Base Specification §2.7.1): the End-End prefixes in wire order (Local
    /// prefixes left out), then header and payload (digest excluded); and where the header starts.
    fn ecrc_bytes(&self) -> Result<(Vec<u8>, usize)> {
        let mut copy = self.clone();
        copy.prefixes.retain(|p| p.end_to_end);
        copy.digest = copy.dw0.td.then_some(0);
        let mut v = copy.to_bytes()?;
        if copy.dw0.td {
            v.truncate(v.len() - DIGEST_LEN);
        }
        Ok((v, copy.prefixes.len() * PREFIX_LEN))
    }

    /// ECRC this TLP should carry: over its End-End prefixes, header and payload (docs/frames.md §7).
    pub fn compute_ecrc(&self) -> Result<u32> {
        let (v, header_at) = self.ecrc_bytes()?;
        let (prefixes, rest) = v.split_at(header_at);
        Ok(crc::ecrc_with_prefixes(prefixes, rest))
    }

    /// Sets TD and fills in the digest.
    pub fn fill_ecrc(&mut self) -> Result<()> {
        self.dw0.td = true;
        self.digest = Some(0);
        self.digest = Some(self.compute_ecrc()?);
        Ok(())
    }

    /// Checks the digest, if any, against the computed ECRC.
    pub fn check_ecrc(&self) -> Result<()> {
        match self.digest {
            None => Ok(()),
            Some(received) => {
                let computed = self.compute_ecrc()?;
                if computed == received {
                    Ok(())
                } else {
                    Err(Error::Checksum { layer: L, field: "ECRC", computed, received })
                }
            }
        }
    }

    /// A memory write (3DW when `address` fits 32 bits, else 4DW).
    pub fn memory_write(requester_id: u16, tag: u16, address: u64, payload: Vec<u8>) -> Result<Tlp> {
        let dw = payload.len() / DW;
        if payload.len() % DW != 0 || dw == 0 || dw > MAX_PAYLOAD_DW {
            return Err(Error::LengthMismatch { layer: L, field: "payload", expected: dw.max(1) * DW, actual: payload.len() });
        }
        let four = address > u64::from(u32::MAX);
        let mut dw0 = Dw0 {
            fmt: FMT_DATA | if four { FMT_4DW } else { 0 },
            tlp_type: types::MEM,
            t9: tag & (1 << 9) != 0,
            t8: tag & (1 << 8) != 0,
            ..Dw0::default()
        };
        dw0.set_length_dw(dw);
        let last_be = if dw == 1 { 0 } else { 0xf };
        let req = RequestDw1 { requester_id, tag: tag as u8, last_be, first_be: 0xf };
        let address = if four { Address::new64(address, 0) } else { Address::new32(address as u32, 0) };
        Ok(Tlp { prefixes: Vec::new(), dw0, header: Header::Memory { req, address }, payload, digest: None })
    }

    /// LCRC of this TLP sent with sequence number `seq`.
    pub fn lcrc(&self, seq: u16) -> Result<u32> {
        Ok(crc::lcrc(seq, &self.to_bytes()?))
    }
}

#[cfg(test)]
mod tests {
    use super::fields::*;
    use crate::field::deku_check::{check, random_buffers};
    use super::{Address32, Address64, CompletionHeader, ConfigDw2, Dw0, MessageHeader, RequestDw1, TlpPrefix};
    use deku::DekuContainerRead;

    #[test]
    fn deku_matches_the_field_tables() {
        use crate::field::deku_check::u;
        check::<Dw0>(&dw0_fields::ALL, DW0_LEN, |d| {
            vec![u(d.fmt), u(d.tlp_type), u(d.t9), u(d.tc), u(d.t8), u(d.attr2), u(d.ln), u(d.th), u(d.td), u(d.ep), u(d.attr), u(d.at), u(d.length)]
        });
        check::<TlpPrefix>(&prefix_fields::ALL, PREFIX_LEN, |p| vec![u(p.fmt), u(p.end_to_end), u(p.subtype), u(p.content)]);
        check::<RequestDw1>(&request_fields::ALL, REQUEST_DW1_LEN, |r| vec![u(r.requester_id), u(r.tag), u(r.last_be), u(r.first_be)]);
        check::<Address32>(&address32_fields::ALL, ADDRESS32_LEN, |a| vec![u(a.address_dw), u(a.ph)]);
        check::<Address64>(&address64_fields::ALL, ADDRESS64_LEN, |a| vec![a.address_dw, u(a.ph)]);
        check::<ConfigDw2>(&config_fields::ALL, CONFIG_DW2_LEN, |c| {
            vec![u(c.bus), u(c.device), u(c.function), u(c.reserved_hi), u(c.ext_register), u(c.register), u(c.reserved_lo)]
        });
        check::<CompletionHeader>(&completion_fields::ALL, COMPLETION_LEN, |c| {
            vec![u(c.completer_id), u(c.status), u(c.bcm), u(c.byte_count), u(c.requester_id), u(c.tag), u(c.reserved), u(c.lower_address)]
        });
        check::<MessageHeader>(&message_fields::ALL, MESSAGE_LEN, |m| vec![u(m.requester_id), u(m.tag), u(m.message_code), u(m.dw2), u(m.dw3)]);
    }

    #[test]
    fn message_ids_split_dw2() {
        for b in random_buffers(MESSAGE_LEN) {
            let (_, m) = MessageHeader::from_bytes((&b[..], 0)).unwrap();
            let dw2 = &b[message_fields::DW2.byte_offset()..];
            assert_eq!(message_id_fields::TARGET_ID.get(dw2), u64::from(m.target_id()));
            assert_eq!(message_id_fields::VENDOR_ID.get(dw2), u64::from(m.vendor_id()));
        }
        assert_eq!(MESSAGE_ID_LEN, 4);
    }
}
