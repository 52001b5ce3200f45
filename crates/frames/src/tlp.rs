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

const L: Layer = Layer::Tlp;

/// Bytes in a DW.
pub const DW: usize = 4;
/// Length of DW0.
pub const DW0_LEN: usize = DW;
/// Header length of a 3DW TLP.
pub const HEADER_3DW_LEN: usize = 3 * DW;
/// Header length of a 4DW TLP.
pub const HEADER_4DW_LEN: usize = 4 * DW;
/// Length of one TLP prefix.
pub const PREFIX_LEN: usize = DW;
/// Length of the ECRC digest.
pub const DIGEST_LEN: usize = DW;
/// Largest payload in DW (`Length == 0`).
pub const MAX_PAYLOAD_DW: usize = 1024;
/// Width of the Length field.
pub const LENGTH_BITS: u32 = 10;
/// Most prefixes this codec accepts in front of one TLP (the specification bounds End-End prefixes to 4;
/// a longer chain is reported as [`Error::InvalidField`] rather than read without bound).
pub const MAX_PREFIXES: usize = 4;

/// Fmt bit 0: 4DW header.
pub const FMT_4DW: u8 = 0b001;
/// Fmt bit 1: data payload present.
pub const FMT_DATA: u8 = 0b010;
/// Fmt value of a TLP prefix.
pub const FMT_PREFIX: u8 = 0b100;

/// Type\[4:0\] codes (Table 2-3).
pub mod types {
    /// Memory read / write (and the 4DW forms).
    pub const MEM: u8 = 0b0_0000;
    /// Memory read locked.
    pub const MEM_LOCKED: u8 = 0b0_0001;
    /// IO read / write.
    pub const IO: u8 = 0b0_0010;
    /// Type 0 configuration.
    pub const CFG0: u8 = 0b0_0100;
    /// Type 1 configuration.
    pub const CFG1: u8 = 0b0_0101;
    /// Completion.
    pub const CPL: u8 = 0b0_1010;
    /// Completion locked.
    pub const CPL_LOCKED: u8 = 0b0_1011;
    /// FetchAdd AtomicOp.
    pub const FETCH_ADD: u8 = 0b0_1100;
    /// Unconditional swap AtomicOp.
    pub const SWAP: u8 = 0b0_1101;
    /// Compare and swap AtomicOp.
    pub const CAS: u8 = 0b0_1110;
    /// Deferrable memory write (with data); TCfgRd (deprecated) without data.
    pub const DMWR: u8 = 0b1_1011;
    /// Message: `10rrr`, r = routing.
    pub const MSG_BASE: u8 = 0b1_0000;
    /// Mask selecting the routing subfield of a message Type.
    pub const MSG_ROUTING_MASK: u8 = 0b0_0111;
    /// Mask selecting the message class bits of a message Type.
    pub const MSG_CLASS_MASK: u8 = 0b1_1000;
}

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

enum_with_unknown! {
    /// Message routing subfield r\[2:0\] of a message Type (Table 2-20).
    pub enum MessageRouting(u8) {
        /// Routed to root complex.
        ToRootComplex = 0,
        /// Routed by address.
        ByAddress = 1,
        /// Routed by ID.
        ById = 2,
        /// Broadcast from root complex.
        Broadcast = 3,
        /// Local, terminate at receiver.
        Local = 4,
        /// Gathered and routed to root complex.
        Gathered = 5,
    }
}

enum_with_unknown! {
    /// Message codes (Table F-1 of the specification; the ones named here).
    pub enum MessageCode(u8) {
        /// Unlock.
        Unlock = 0x00,
        /// Invalidate request (ATS).
        InvalidateRequest = 0x01,
        /// Invalidate completion (ATS).
        InvalidateCompletion = 0x02,
        /// Page request (PRI).
        PageRequest = 0x04,
        /// PRG response.
        PrgResponse = 0x05,
        /// Latency tolerance reporting.
        Ltr = 0x10,
        /// Optimized buffer flush/fill.
        Obff = 0x12,
        /// PM_Active_State_Nak.
        PmActiveStateNak = 0x14,
        /// PM_PME.
        PmPme = 0x18,
        /// PME_Turn_Off.
        PmeTurnOff = 0x19,
        /// PME_TO_Ack.
        PmeToAck = 0x1b,
        /// Assert_INTA.
        AssertIntA = 0x20,
        /// Assert_INTB.
        AssertIntB = 0x21,
        /// Assert_INTC.
        AssertIntC = 0x22,
        /// Assert_INTD.
        AssertIntD = 0x23,
        /// Deassert_INTA.
        DeassertIntA = 0x24,
        /// Deassert_INTB.
        DeassertIntB = 0x25,
        /// Deassert_INTC.
        DeassertIntC = 0x26,
        /// Deassert_INTD.
        DeassertIntD = 0x27,
        /// ERR_COR.
        ErrCor = 0x30,
        /// ERR_NONFATAL.
        ErrNonFatal = 0x31,
        /// ERR_FATAL.
        ErrFatal = 0x33,
        /// Set_Slot_Power_Limit.
        SetSlotPowerLimit = 0x50,
        /// Vendor-defined Type 0 (unsupported: Unsupported Request).
        VendorDefinedType0 = 0x7e,
        /// Vendor-defined Type 1 (unsupported: silently discarded).
        VendorDefinedType1 = 0x7f,
    }
}

enum_with_unknown! {
    /// Completion status (Table 2-34).
    pub enum CompletionStatus(u8) {
        /// Successful completion.
        Success = 0b000,
        /// Unsupported request.
        UnsupportedRequest = 0b001,
        /// Request retry status (configuration).
        RequestRetry = 0b010,
        /// Completer abort.
        CompleterAbort = 0b100,
    }
}

/// What a TLP is, from Fmt and Type (Table 2-3).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TlpKind {
    /// MRd (3DW or 4DW).
    MemRead,
    /// MRdLk.
    MemReadLocked,
    /// MWr.
    MemWrite,
    /// DMWr.
    DeferrableMemWrite,
    /// IORd.
    IoRead,
    /// IOWr.
    IoWrite,
    /// CfgRd0 / CfgRd1 (`type1` set for Type 1).
    CfgRead { type1: bool },
    /// CfgWr0 / CfgWr1.
    CfgWrite { type1: bool },
    /// Msg / MsgD.
    Message { routing: MessageRouting, data: bool },
    /// Cpl / CplD / CplLk / CplDLk.
    Completion { locked: bool, data: bool },
    /// FetchAdd AtomicOp.
    FetchAdd,
    /// Swap AtomicOp.
    Swap,
    /// CAS AtomicOp.
    Cas,
    /// Local (`end_to_end == false`) or End-End TLP prefix.
    Prefix { end_to_end: bool },
    /// A Fmt/Type combination the specification reserves (or deprecates, like TCfgRd).
    Unknown { fmt: u8, tlp_type: u8 },
}

/// Which header body layout a kind uses after DW0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyClass {
    /// Requester ID / tag / byte enables + address.
    Memory,
    /// Requester ID / tag / byte enables + 32-bit address.
    Io,
    /// Requester ID / tag / byte enables + bus/device/function/register.
    Config,
    /// Requester ID / tag / byte enables + address; Length restricted.
    Atomic,
    /// Completer ID / status / byte count + requester ID / tag / lower address.
    Completion,
    /// Requester ID / tag / message code + two routing-dependent DWs.
    Message,
    /// Kept as raw bytes.
    Raw,
}

impl TlpKind {
    /// Classifies a Fmt/Type pair.
    pub fn classify(fmt: u8, tlp_type: u8) -> TlpKind {
        use types::*;
        let data = fmt & FMT_DATA != 0;
        let four = fmt & FMT_4DW != 0;
        if fmt == FMT_PREFIX {
            return TlpKind::Prefix { end_to_end: tlp_type & 0b1_0000 != 0 };
        }
        if fmt > 0b011 {
            return TlpKind::Unknown { fmt, tlp_type };
        }
        match tlp_type {
            MEM if data => TlpKind::MemWrite,
            MEM => TlpKind::MemRead,
            MEM_LOCKED if !data => TlpKind::MemReadLocked,
            IO if !four => if data { TlpKind::IoWrite } else { TlpKind::IoRead },
            CFG0 | CFG1 if !four => {
                let type1 = tlp_type == CFG1;
                if data { TlpKind::CfgWrite { type1 } } else { TlpKind::CfgRead { type1 } }
            }
            CPL | CPL_LOCKED if !four => TlpKind::Completion { locked: tlp_type == CPL_LOCKED, data },
            FETCH_ADD if data => TlpKind::FetchAdd,
            SWAP if data => TlpKind::Swap,
            CAS if data => TlpKind::Cas,
            DMWR if data => TlpKind::DeferrableMemWrite,
            t if t & MSG_CLASS_MASK == MSG_BASE && four => {
                TlpKind::Message { routing: MessageRouting::from(t & MSG_ROUTING_MASK), data }
            }
            _ => TlpKind::Unknown { fmt, tlp_type },
        }
    }

    /// The header body layout of this kind.
    pub fn body_class(&self) -> BodyClass {
        match self {
            TlpKind::MemRead | TlpKind::MemReadLocked | TlpKind::MemWrite | TlpKind::DeferrableMemWrite => {
                BodyClass::Memory
            }
            TlpKind::IoRead | TlpKind::IoWrite => BodyClass::Io,
            TlpKind::CfgRead { .. } | TlpKind::CfgWrite { .. } => BodyClass::Config,
            TlpKind::FetchAdd | TlpKind::Swap | TlpKind::Cas => BodyClass::Atomic,
            TlpKind::Completion { .. } => BodyClass::Completion,
            TlpKind::Message { .. } => BodyClass::Message,
            TlpKind::Prefix { .. } | TlpKind::Unknown { .. } => BodyClass::Raw,
        }
    }

    /// Payload lengths (in DW) the specification allows for this kind, if restricted:
    /// FetchAdd and Swap carry one 32- or 64-bit operand, CAS two 32-, 64- or 128-bit operands.
    pub fn allowed_lengths_dw(&self) -> Option<&'static [usize]> {
        match self {
            TlpKind::FetchAdd | TlpKind::Swap => Some(&[1, 2]),
            TlpKind::Cas => Some(&[2, 4, 8]),
            _ => None,
        }
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
            Address::A32(a) => u64::from(a.address_dw) << 2,
            Address::A64(a) => a.address_dw << 2,
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
        Address::A32(Address32 { address_dw: addr >> 2, ph })
    }
    /// A 64-bit address (`addr` low 2 bits are dropped).
    pub fn new64(addr: u64, ph: u8) -> Address {
        Address::A64(Address64 { address_dw: addr >> 2, ph })
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

/// Bits of the destination / target ID in message DW2.
const MSG_ID_SHIFT: u32 = 16;
/// Mask of the Vendor ID in message DW2.
const MSG_VENDOR_ID_MASK: u32 = 0xffff;

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
        (self.dw2 >> MSG_ID_SHIFT) as u16
    }
    /// Vendor ID (bytes 10-11) of a vendor-defined message.
    pub fn vendor_id(&self) -> u16 {
        (self.dw2 & MSG_VENDOR_ID_MASK) as u16
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
        MessageHeader {
            requester_id,
            tag,
            message_code: code.into(),
            dw2: u32::from(destination_id) << MSG_ID_SHIFT | u32::from(vendor_id),
            dw3: vendor_data,
        }
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

    /// Header and payload bytes the ECRC covers (prefixes and digest excluded).
    fn ecrc_bytes(&self) -> Result<Vec<u8>> {
        let mut copy = self.clone();
        copy.prefixes.clear();
        copy.digest = copy.dw0.td.then_some(0);
        let mut v = copy.to_bytes()?;
        if copy.dw0.td {
            v.truncate(v.len() - DIGEST_LEN);
        }
        Ok(v)
    }

    /// ECRC this TLP should carry (End-End prefixes are not covered by this codec's ECRC: docs/frames.md).
    pub fn compute_ecrc(&self) -> Result<u32> {
        Ok(crc::ecrc(&self.ecrc_bytes()?))
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
