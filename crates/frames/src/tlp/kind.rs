//! What a non-flit TLP is: the Fmt and Type codes, the message / completion codes, and the
//! classification of a Fmt/Type pair into a [`TlpKind`] and its header [`BodyClass`]
//! (PCIe Base Specification 6.x Table 2-3). Re-exported by [`crate::tlp`], whose public paths these are.

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

