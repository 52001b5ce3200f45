//! Collective messages exchanged by the packet engines (seed 000 FIG. 4-6, \[0094\]-\[0098\],
//! \[0154\]-\[0172\], \[0175\]; docs/frames.md §4). The seeds name the fields but their figures are missing:
//! every byte position below is this project's definition.
//!
//! A collective message is a byte string (big-endian fields) that travels as the payload of
//!
//! * a vendor-defined Type 1 message with data, routed by ID ([`to_vdm`] / [`from_vdm`]): Fmt 011,
//!   Type 10010, code 0x7F, Vendor ID [`VENDOR_ID`], DW3 = `0xCE` | kind | 0 | CC_ID; or
//! * a memory write to the engine's register window ([`ENGINE_BASE`] = 0xC000, \[0175\]).
//!
//! Common header (8 bytes):
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-------+-------+-+-+-+---+-----+-------+-----------------------+
//! |version| kind  |N|E|R|TID|rsvd | rsvd  |        CC_ID          |
//! |  =1   |       |P|M|T|   |     |       |       (12 bits)       |
//! +-------+-------+-+-+-+---+-----+-------+-----------------------+
//! |            DMU_ID             |     P_ID (0xFFFF = none)      |
//! +-------------------------------+-------------------------------+
//! ```
//! NP = non-posted (a response or completion is expected, \[0097\]); EM = error mark (partial result sent
//! after a timeout, \[0242\]); RT = retransmission (\[0117\]); TID = the 2-bit transaction ID of seed 001
//! (compared modulo 4: a message one TID behind its context comes from a member that missed the Exit and is
//! answered "already completed", docs/blocks/cpu.md §State machine). The body depends on the kind (see each
//! `*Body` type); the message is zero-padded to a multiple of 4 bytes.

use deku::prelude::*;

use crate::error::{fits, Error, Layer, Result};
use crate::tlp::{self, Dw0, Header, MessageCode, MessageHeader, Tlp};
use crate::util;
// The control, completion and failure codes' values are the CPU's tables (`inswitch_model::cpu::codes`),
// written once for the model, the RTL (`rtl/cpu_codes.vh`) and these codecs.
use inswitch_model::cpu::codes::{command, completion, reason};
// The message kinds' values are the collective message's table (`inswitch_model::message::Kind`), written
// once for the model, the RTL (`` `COLLECTIVE_MSG_KINDS `` in `rtl/collective_msg.vh`) and these codecs.
use inswitch_model::message::Kind as MsgKind;

const L: Layer = Layer::Collective;

/// Vendor ID this project puts in its vendor-defined messages (not a PCI-SIG assignment; configurable
/// by the engine, this is the default).
pub const VENDOR_ID: u16 = 0xC011;
/// Protocol id in bits 31:24 of the VDM DW3.
pub const VDM_PROTOCOL_ID: u8 = 0xCE;
/// Engine register window in each switch's address space (\[0175\]).
pub const ENGINE_BASE: u32 = 0xC000;
/// Version carried in the header.
pub const VERSION: u8 = 1;
/// Length of the common header (from its field table).
pub const HEADER_LEN: usize = crate::field::layout_len(&header_fields::ALL);
/// Width of CC_ID (\[0169\]).
pub const CC_ID_BITS: u32 = 12;
/// Width of the transaction ID (seed 001: "a short 2 bit transaction ID", compared modulo 4).
pub const TID_BITS: u32 = 2;
/// Reserved flags below the TID in header byte 1 (`{NP, EM, RT, TID[1:0], rsvd[2:0]}`).
pub const RESERVED_FLAG_BITS: u32 = 3;
/// The common header's field table, most significant bit first: the one place its layout is written
/// for [`CommonHeader::from_be_bytes`]; a test checks the deku declaration of [`CommonHeader`] against it.
pub mod header_fields {
    use crate::field::Field;
    /// Version.
    pub const VERSION: Field = Field::new("version", 0, 4);
    /// Kind.
    pub const KIND: Field = Field::new("kind", VERSION.end(), 4);
    /// Non-posted.
    pub const NON_POSTED: Field = Field::new("non_posted", KIND.end(), 1);
    /// Error mark.
    pub const ERROR_MARK: Field = Field::new("error_mark", NON_POSTED.end(), 1);
    /// Retransmission.
    pub const RETRY: Field = Field::new("retry", ERROR_MARK.end(), 1);
    /// Transaction ID.
    pub const TID: Field = Field::new("tid", RETRY.end(), super::TID_BITS);
    /// Reserved flags.
    pub const RESERVED_FLAGS: Field = Field::new("reserved_flags", TID.end(), super::RESERVED_FLAG_BITS);
    /// Reserved.
    pub const RESERVED: Field = Field::new("reserved", RESERVED_FLAGS.end(), 4);
    /// Collective context id.
    pub const CC_ID: Field = Field::new("cc_id", RESERVED.end(), super::CC_ID_BITS);
    /// Endpoint (DMU) identifier.
    pub const DMU_ID: Field = Field::new("dmu_id", CC_ID.end(), 16);
    /// Participant index.
    pub const P_ID: Field = Field::new("p_id", DMU_ID.end(), 16);
    /// Every field, in wire order.
    pub const ALL: [Field; 11] = [VERSION, KIND, NON_POSTED, ERROR_MARK, RETRY, TID, RESERVED_FLAGS, RESERVED, CC_ID, DMU_ID, P_ID];
}
/// PBV width: one bit per participant, up to 128 (\[0157\], \[0166\]).
pub const PBV_BITS: usize = 128;
/// Offset of the PBV in an initialization message (\[0166\]: "payload bytes 24 to 36").
pub const INIT_PBV_OFFSET: usize = 24;
/// Length of an initialization message.
pub const INIT_LEN: usize = INIT_PBV_OFFSET + PBV_BITS / 8;
/// Length of a control, retry or failure message.
pub const SHORT_LEN: usize = 16;
/// Length of the fixed part of a configuration message.
pub const CONFIG_FIXED_LEN: usize = 24;
/// Length of the fixed part of a data (contribution / response / completion) message.
pub const DATA_FIXED_LEN: usize = 16;
/// P_ID value meaning "no participant".
pub const NO_PARTICIPANT: u16 = 0xffff;
const DW: usize = 4;

enum_with_unknown! {
    /// Message kind, header byte 0 bits 3:0.
    pub enum Kind(u8) {
        /// Configuration (FIG. 4).
        Configuration = MsgKind::CONFIGURATION.0,
        /// Initialization (FIG. 5).
        Initialization = MsgKind::INITIALIZATION.0,
        /// Control (FIG. 6).
        Control = MsgKind::CONTROL.0,
        /// Contribution from a participant.
        Contribution = MsgKind::CONTRIBUTION.0,
        /// Aggregated (partial) response upward.
        Response = MsgKind::RESPONSE.0,
        /// Completion / result downward (barrier met, barrier satisfied, result).
        Completion = MsgKind::COMPLETION.0,
        /// Retry request.
        Retry = MsgKind::RETRY.0,
        /// Failure report.
        Failure = MsgKind::FAILURE.0,
    }
}

enum_with_unknown! {
    /// Control commands (\[0168\]).
    pub enum Command(u8) {
        /// Start.
        Start = command::START,
        /// Pause.
        Pause = command::PAUSE,
        /// Restart.
        Restart = command::RESTART,
        /// Stop.
        Stop = command::STOP,
        /// Reset.
        Reset = command::RESET,
    }
}

enum_with_unknown! {
    /// What a completion reports.
    pub enum CompletionKind(u8) {
        /// Not a completion (contributions, responses).
        None = completion::NONE,
        /// Barrier met at this engine (all local participants arrived).
        BarrierMet = completion::BARRIER_MET,
        /// Barrier satisfied globally.
        BarrierSatisfied = completion::BARRIER_SATISFIED,
        /// Final result of a reduction.
        Result = completion::RESULT,
        /// Answer to a child one transaction behind: the collective already completed (001; `docs/blocks/cpu.md` §Messages).
        AlreadyCompleted = completion::ALREADY_COMPLETED,
        /// Acknowledgement of a non-posted initialization or control message (000 \[0097\]; `docs/blocks/cpu.md` §Messages).
        Acknowledged = completion::ACKNOWLEDGED,
        /// The round is over; the result went to the one target only (reduce to one target, 003 \[0052\], \[0060\]; `docs/blocks/cpu.md` §Messages).
        RoundDone = completion::ROUND_DONE,
    }
}

enum_with_unknown! {
    /// Reasons in retry and failure messages (\[0098\], \[0143\]).
    pub enum Reason(u8) {
        /// Watchdog timeout.
        Timeout = reason::TIMEOUT,
        /// Participant's PBV bit was already clear.
        DuplicateContribution = reason::DUPLICATE,
        /// p_count was already zero.
        CountUnderflow = reason::COUNT_UNDERFLOW,
        /// Requester is not in the PBV table.
        UnknownParticipant = reason::UNKNOWN_PARTICIPANT,
        /// Operation differs from the initialized one.
        OpMismatch = reason::OP_MISMATCH,
        /// Malformed message.
        Malformed = reason::MALFORMED,
        /// A retry request named a context for which nothing is kept to resend (`docs/blocks/cpu.md` §Messages).
        NothingToResend = reason::NOTHING_TO_RESEND,
    }
}

/// Common header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct CommonHeader {
    /// Version (1).
    #[deku(bits = 4)]
    pub version: u8,
    /// Kind (see [`Kind`]).
    #[deku(bits = 4)]
    pub kind: u8,
    /// Non-posted: a response is expected.
    #[deku(bits = 1)]
    pub non_posted: bool,
    /// Error mark (partial result after timeout).
    #[deku(bits = 1)]
    pub error_mark: bool,
    /// Retransmission.
    #[deku(bits = 1)]
    pub retry: bool,
    /// Transaction ID (seed 001, [`TID_BITS`] bits, compared modulo 4).
    #[deku(bits = 2)]
    pub tid: u8,
    /// Reserved flags.
    #[deku(bits = 3)]
    pub reserved_flags: u8,
    /// Reserved.
    #[deku(bits = 4)]
    pub reserved: u8,
    /// Collective context id.
    #[deku(bits = 12)]
    pub cc_id: u16,
    /// Endpoint (DMU) identifier.
    pub dmu_id: u16,
    /// Participant index (PBV bit), or [`NO_PARTICIPANT`].
    pub p_id: u16,
}

impl CommonHeader {
    /// The header in `b` (every bit pattern is one), read through [`header_fields`]: the same value as
    /// the deku declaration reads (property test `common_header_matches_deku`), without deku's bit
    /// reader, which was the fabric simulator's largest cost (docs/performance.md §Fabric).
    pub fn from_be_bytes(b: &[u8; HEADER_LEN]) -> CommonHeader {
        use header_fields as H;
        let g = |f: crate::field::Field| f.get(b);
        CommonHeader {
            version: g(H::VERSION) as u8,
            kind: g(H::KIND) as u8,
            non_posted: g(H::NON_POSTED) != 0,
            error_mark: g(H::ERROR_MARK) != 0,
            retry: g(H::RETRY) != 0,
            tid: g(H::TID) as u8,
            reserved_flags: g(H::RESERVED_FLAGS) as u8,
            reserved: g(H::RESERVED) as u8,
            cc_id: g(H::CC_ID) as u16,
            dmu_id: g(H::DMU_ID) as u16,
            p_id: g(H::P_ID) as u16,
        }
    }
}

/// Configuration body (fixed part, bytes 8-23), followed by `n_devices` device IDs (PBV entry i → 16-bit
/// device ID, \[0157\]) and `n_subservient` subservient engine IDs.
///
/// ```text
/// +-------------------------------+---------------+---------------+
/// |    master engine device ID    |   ISL port    |validation cfg |  8
/// +---------------+---------------+---------------+---------------+
/// |error-rep. cfg | n_subservient |           n_devices           | 12
/// +---------------+---------------+-------------------------------+
/// |          subservient timeout (units of 1024 clocks)           | 16
/// +---------------------------------------------------------------+
/// |            master timeout (units of 1024 clocks)              | 20
/// +-------------------------------+-------------------------------+
/// |  device ID of PBV entry 0     |  device ID of PBV entry 1 ... | 24
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct ConfigFixed {
    /// Device ID of the master engine of this context.
    pub master_id: u16,
    /// Inter-switch link port toward the master.
    pub isl_port: u8,
    /// Validation config (bit 0: check PBV bit, 1: check p_count, 2: check requester in PBV table).
    pub validation: u8,
    /// Error-reporting config (bit 0: to source, 1: to master, 2: include failing device).
    pub error_reporting: u8,
    /// Number of subservient engine IDs that follow the device IDs.
    pub n_subservient: u8,
    /// Number of device-ID records (≤ 128).
    pub n_devices: u16,
    /// Subservient watchdog timeout.
    pub subservient_timeout: u32,
    /// Master watchdog timeout (about 2-3x the subservient one, \[0154\]).
    pub master_timeout: u32,
}

/// Initialization body (bytes 8-39).
///
/// ```text
/// +-------------------------------+---------------+---------------+
/// |            p_count            |   operation   |   reserved    |  8
/// +-------------------------------+---------------+---------------+
/// |                           reserved                            | 12
/// +---------------------------------------------------------------+
/// |                initial accumulator (64 bits)                  | 16
/// +---------------------------------------------------------------+
/// |      PBV (128 bits, bit 127 first: byte 24 bit 7 = entry 127)  | 24..40
/// +---------------------------------------------------------------+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct InitBody {
    /// Number of participant messages expected.
    pub p_count: u16,
    /// Operation (a Portals [`crate::portals::ReductionOp`] code; 0 = barrier).
    pub operation: u8,
    /// Reserved.
    pub reserved0: u8,
    /// Reserved.
    pub reserved1: u32,
    /// Initial accumulator.
    pub accumulator: u64,
    /// Participant bit vector.
    pub pbv: u128,
}

/// Control body (bytes 8-15).
///
/// ```text
/// +---------------+---------------+-------------------------------+
/// |    command    |   reserved    |            p_count            |  8
/// +---------------+---------------+-------------------------------+
/// |                           reserved                            | 12
/// +---------------------------------------------------------------+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct ControlBody {
    /// Command (see [`Command`]).
    pub command: u8,
    /// Reserved.
    pub reserved0: u8,
    /// Participant count.
    pub p_count: u16,
    /// Reserved.
    pub reserved1: u32,
}

/// Data body (contribution, response, completion), bytes 8-15, followed by `n_operands` 64-bit operands.
///
/// ```text
/// +---------------+---------------+-------------------------------+
/// |   operation   |    status     |  contributions included       |  8
/// +---------------+---------------+---------------+---------------+
/// |          n_operands           |completion kind|   reserved    | 12
/// +-------------------------------+---------------+---------------+
/// |                  operand 0 (64 bits) ...                      | 16
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct DataFixed {
    /// Operation code.
    pub operation: u8,
    /// Status (Portals [`crate::portals::ReductionRc`] codes).
    pub status: u8,
    /// Number of contributions folded into this message (1 from a leaf).
    pub contributions: u16,
    /// Number of 64-bit operands that follow.
    pub n_operands: u16,
    /// Completion kind (see [`CompletionKind`]).
    pub completion: u8,
    /// Reserved.
    pub reserved: u8,
}

/// Retry / failure body (bytes 8-15).
///
/// ```text
/// +---------------+---------------+-------------------------------+
/// |    reason     |    attempt    |   failing engine device ID    |  8
/// +---------------+---------------+-------------------------------+
/// |  failing end-device ID        |           reserved            | 12
/// +-------------------------------+-------------------------------+
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, DekuRead, DekuWrite)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[deku(endian = "big")]
pub struct ErrorBody {
    /// Reason (see [`Reason`]).
    pub reason: u8,
    /// Attempt number (retries are per packet, \[0117\]).
    pub attempt: u8,
    /// Engine where the failure was seen.
    pub engine_id: u16,
    /// End device that failed (or 0xFFFF).
    pub device_id: u16,
    /// Reserved.
    pub reserved: u16,
}

/// The body of a collective message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Body {
    /// Configuration.
    Configuration { fixed: ConfigFixed, device_ids: Vec<u16>, subservient_ids: Vec<u16> },
    /// Initialization.
    Initialization(InitBody),
    /// Control.
    Control(ControlBody),
    /// Contribution, response or completion.
    Data { fixed: DataFixed, operands: Vec<u64> },
    /// Retry or failure.
    Error(ErrorBody),
    /// Unknown kind: raw body bytes (kept verbatim, including padding).
    Raw(Vec<u8>),
}

/// A collective message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct CollectiveMessage {
    /// Common header.
    pub header: CommonHeader,
    /// Body.
    pub body: Body,
}

fn body_class(kind: Kind) -> u8 {
    match kind {
        Kind::Configuration => 1,
        Kind::Initialization => 2,
        Kind::Control => 3,
        Kind::Contribution | Kind::Response | Kind::Completion => 4,
        Kind::Retry | Kind::Failure => 5,
        Kind::Unknown(_) => 0,
    }
}

fn round_dw(n: usize) -> usize {
    n.div_ceil(DW) * DW
}

fn read_u16s(buf: &[u8], off: usize, n: usize, field: &'static str) -> Result<Vec<u16>> {
    let b = util::take(L, field, buf, off, n * 2)?;
    Ok(b.chunks_exact(2).map(|c| u16::from_be_bytes([c.first().copied().unwrap_or(0), c.get(1).copied().unwrap_or(0)])).collect())
}

impl CollectiveMessage {
    /// Typed kind.
    pub fn kind(&self) -> Kind {
        Kind::from(self.header.kind)
    }

    /// Unpadded length.
    fn content_len(&self) -> usize {
        HEADER_LEN
            + match &self.body {
                Body::Configuration { device_ids, subservient_ids, .. } => {
                    CONFIG_FIXED_LEN - HEADER_LEN + 2 * (device_ids.len() + subservient_ids.len())
                }
                Body::Initialization(_) => INIT_LEN - HEADER_LEN,
                Body::Control(_) | Body::Error(_) => SHORT_LEN - HEADER_LEN,
                Body::Data { operands, .. } => DATA_FIXED_LEN - HEADER_LEN + 8 * operands.len(),
                Body::Raw(b) => b.len(),
            }
    }

    /// Bytes [`emit`](Self::emit) writes (a multiple of 4).
    pub fn buffer_len(&self) -> usize {
        round_dw(self.content_len())
    }

    /// Parses a message occupying all of `buf` (padding included).
    pub fn parse(buf: &[u8]) -> Result<CollectiveMessage> {
        let mut hb = [0u8; HEADER_LEN];
        hb.copy_from_slice(util::take(L, "common header", buf, 0, HEADER_LEN)?);
        let header = CommonHeader::from_be_bytes(&hb);
        if header.version != VERSION {
            return Err(Error::InvalidField { layer: L, field: "version", offset: 0, value: header.version.into(), reason: "unsupported version" });
        }
        let kind = Kind::from(header.kind);
        let body_len = SHORT_LEN - HEADER_LEN;
        let (body, end) = match body_class(kind) {
            1 => {
                let fixed: ConfigFixed = util::read(L, "configuration", buf, HEADER_LEN, CONFIG_FIXED_LEN - HEADER_LEN)?;
                if usize::from(fixed.n_devices) > PBV_BITS {
                    return Err(Error::InvalidField { layer: L, field: "n_devices", offset: 14, value: fixed.n_devices.into(), reason: "more device IDs than PBV entries (128)" });
                }
                let nd = usize::from(fixed.n_devices);
                let ns = usize::from(fixed.n_subservient);
                let device_ids = read_u16s(buf, CONFIG_FIXED_LEN, nd, "device IDs")?;
                let subservient_ids = read_u16s(buf, CONFIG_FIXED_LEN + 2 * nd, ns, "subservient engine IDs")?;
                (Body::Configuration { fixed, device_ids, subservient_ids }, CONFIG_FIXED_LEN + 2 * (nd + ns))
            }
            2 => (Body::Initialization(util::read(L, "initialization", buf, HEADER_LEN, INIT_LEN - HEADER_LEN)?), INIT_LEN),
            3 => (Body::Control(util::read(L, "control", buf, HEADER_LEN, body_len)?), SHORT_LEN),
            4 => {
                let fixed: DataFixed = util::read(L, "data", buf, HEADER_LEN, DATA_FIXED_LEN - HEADER_LEN)?;
                let n = usize::from(fixed.n_operands);
                let b = util::take(L, "operands", buf, DATA_FIXED_LEN, 8 * n)?;
                let operands = b
                    .chunks_exact(8)
                    .map(|c| {
                        let mut a = [0u8; 8];
                        a.copy_from_slice(c);
                        u64::from_be_bytes(a)
                    })
                    .collect();
                (Body::Data { fixed, operands }, DATA_FIXED_LEN + 8 * n)
            }
            5 => (Body::Error(util::read(L, "retry/failure", buf, HEADER_LEN, body_len)?), SHORT_LEN),
            _ => (Body::Raw(buf.get(HEADER_LEN..).unwrap_or(&[]).to_vec()), buf.len()),
        };
        let padded = round_dw(end);
        let pad = util::take(L, "padding", buf, end, padded - end)?;
        if let Some(i) = pad.iter().position(|&b| b != 0) {
            return Err(Error::InvalidField { layer: L, field: "padding", offset: end + i, value: pad.get(i).copied().unwrap_or(0).into(), reason: "padding must be zero" });
        }
        util::exact(L, padded, buf)?;
        Ok(CollectiveMessage { header, body })
    }

    /// Checks consistency (kind vs body, counts vs vectors, widths).
    pub fn check(&self) -> Result<()> {
        let h = &self.header;
        if h.version != VERSION {
            return Err(Error::InvalidField { layer: L, field: "version", offset: 0, value: h.version.into(), reason: "unsupported version" });
        }
        fits(L, "kind", h.kind.into(), 4)?;
        fits(L, "TID", h.tid.into(), TID_BITS)?;
        fits(L, "reserved flags", h.reserved_flags.into(), RESERVED_FLAG_BITS)?;
        fits(L, "reserved", h.reserved.into(), 4)?;
        fits(L, "CC_ID", h.cc_id.into(), CC_ID_BITS)?;
        let class = body_class(self.kind());
        let ok = match &self.body {
            Body::Configuration { fixed, device_ids, subservient_ids } => {
                if device_ids.len() != usize::from(fixed.n_devices) || subservient_ids.len() != usize::from(fixed.n_subservient) {
                    return Err(Error::LengthMismatch { layer: L, field: "device / subservient IDs", expected: usize::from(fixed.n_devices) + usize::from(fixed.n_subservient), actual: device_ids.len() + subservient_ids.len() });
                }
                if device_ids.len() > PBV_BITS {
                    return Err(Error::InvalidField { layer: L, field: "n_devices", offset: 14, value: device_ids.len() as u64, reason: "more device IDs than PBV entries (128)" });
                }
                class == 1
            }
            Body::Initialization(_) => class == 2,
            Body::Control(_) => class == 3,
            Body::Data { fixed, operands } => {
                if operands.len() != usize::from(fixed.n_operands) {
                    return Err(Error::LengthMismatch { layer: L, field: "operands", expected: 8 * usize::from(fixed.n_operands), actual: 8 * operands.len() });
                }
                class == 4
            }
            Body::Error(_) => class == 5,
            Body::Raw(b) => {
                if (HEADER_LEN + b.len()) % DW != 0 {
                    return Err(Error::LengthMismatch { layer: L, field: "raw body", expected: round_dw(HEADER_LEN + b.len()) - HEADER_LEN, actual: b.len() });
                }
                class == 0
            }
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Inconsistent { layer: L, reason: "body does not match kind" })
        }
    }

    /// Emits the message (zero-padded to a DW multiple).
    pub fn emit(&self, out: &mut [u8]) -> Result<usize> {
        self.check()?;
        let len = self.buffer_len();
        let actual = out.len();
        let out = out.get_mut(..len).ok_or(Error::BufferTooSmall { layer: L, needed: len, actual })?;
        out.fill(0);
        util::write(L, "common header", &self.header, out, 0, HEADER_LEN)?;
        match &self.body {
            Body::Configuration { fixed, device_ids, subservient_ids } => {
                util::write(L, "configuration", fixed, out, HEADER_LEN, CONFIG_FIXED_LEN - HEADER_LEN)?;
                for (i, id) in device_ids.iter().chain(subservient_ids).enumerate() {
                    util::put(L, out, CONFIG_FIXED_LEN + 2 * i, &id.to_be_bytes())?;
                }
            }
            Body::Initialization(b) => util::write(L, "initialization", b, out, HEADER_LEN, INIT_LEN - HEADER_LEN)?,
            Body::Control(b) => util::write(L, "control", b, out, HEADER_LEN, SHORT_LEN - HEADER_LEN)?,
            Body::Data { fixed, operands } => {
                util::write(L, "data", fixed, out, HEADER_LEN, DATA_FIXED_LEN - HEADER_LEN)?;
                for (i, v) in operands.iter().enumerate() {
                    util::put(L, out, DATA_FIXED_LEN + 8 * i, &v.to_be_bytes())?;
                }
            }
            Body::Error(b) => util::write(L, "retry/failure", b, out, HEADER_LEN, SHORT_LEN - HEADER_LEN)?,
            Body::Raw(b) => util::put(L, out, HEADER_LEN, b)?,
        }
        Ok(len)
    }

    /// Emits into a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        let n = self.emit(&mut v)?;
        v.truncate(n);
        Ok(v)
    }

    /// The VDM DW3 value that accompanies this message.
    pub fn vdm_dw3(&self) -> u32 {
        u32::from(VDM_PROTOCOL_ID) << 24 | u32::from(self.header.kind) << 16 | u32::from(self.header.cc_id)
    }
}

/// Wraps a message into a vendor-defined Type 1 MsgD routed by ID (non-flit).
pub fn to_vdm(msg: &CollectiveMessage, requester_id: u16, destination_id: u16, tag: u8) -> Result<Tlp> {
    let payload = msg.to_bytes()?;
    let dw = payload.len() / DW;
    if dw == 0 || dw > tlp::MAX_PAYLOAD_DW {
        return Err(Error::LengthMismatch { layer: L, field: "VDM payload", expected: tlp::MAX_PAYLOAD_DW * DW, actual: payload.len() });
    }
    let mut dw0 = Dw0 {
        fmt: tlp::FMT_4DW | tlp::FMT_DATA,
        tlp_type: tlp::types::MSG_BASE | u8::from(tlp::MessageRouting::ById),
        ..Dw0::default()
    };
    dw0.set_length_dw(dw);
    let header = MessageHeader::vendor_defined(requester_id, tag, MessageCode::VendorDefinedType1, destination_id, VENDOR_ID, msg.vdm_dw3());
    Ok(Tlp { prefixes: Vec::new(), dw0, header: Header::Message(header), payload, digest: None })
}

/// Extracts a collective message from a TLP built by [`to_vdm`] (checks code, vendor ID and DW3).
pub fn from_vdm(t: &Tlp) -> Result<CollectiveMessage> {
    let m = match &t.header {
        Header::Message(m) if m.is_vendor_defined() => m,
        _ => return Err(Error::Inconsistent { layer: L, reason: "carrier is not a vendor-defined message" }),
    };
    if m.vendor_id() != VENDOR_ID {
        return Err(Error::InvalidField { layer: L, field: "Vendor ID", offset: 10, value: m.vendor_id().into(), reason: "not the collective vendor ID" });
    }
    let msg = CollectiveMessage::parse(&t.payload)?;
    if m.vendor_data() != msg.vdm_dw3() {
        return Err(Error::InvalidField { layer: L, field: "VDM DW3", offset: 12, value: m.vendor_data().into(), reason: "protocol id / kind / CC_ID disagree with the payload" });
    }
    Ok(msg)
}

/// Wraps a message into a memory write to `switch_base + ENGINE_BASE + offset` (\[0175\]).
pub fn to_memory_write(msg: &CollectiveMessage, requester_id: u16, tag: u16, switch_base: u64, offset: u32) -> Result<Tlp> {
    let address = switch_base.wrapping_add(u64::from(ENGINE_BASE)).wrapping_add(u64::from(offset));
    Tlp::memory_write(requester_id, tag, address, msg.to_bytes()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 000 [0155], [0157]: FIG. 4's configuration message carries up to 128 PBV entries' device IDs
    /// (plus the subservient engines'): with all 128 and 16 subservient IDs it encodes to 24 + 2 x 144 =
    /// 312 payload bytes, carried whole by a VDM (Length 78 DW) and by a mailbox write, and both decode
    /// back to the same message (the input checker reads such a frame, 334 bytes with its sequence
    /// number and LCRC, from its slot store). 129 device IDs is refused both ways.
    #[test]
    fn a_128_entry_configuration_message_round_trips_through_both_carriers() {
        let devices: Vec<u16> = (1..=128u16).map(|i| 0x0010 * i).collect();
        let subs: Vec<u16> = (0..16u16).map(|m| 0x9000 + m).collect();
        let config = |devices: Vec<u16>| CollectiveMessage {
            header: CommonHeader { version: VERSION, kind: 1, cc_id: 7, p_id: NO_PARTICIPANT, ..Default::default() },
            body: Body::Configuration {
                fixed: ConfigFixed { master_id: 1, error_reporting: 5, n_subservient: 16, n_devices: devices.len() as u16, subservient_timeout: 0x400, master_timeout: 0xC00, ..Default::default() },
                device_ids: devices,
                subservient_ids: subs.clone(),
            },
        };
        let m = config(devices.clone());
        let bytes = m.to_bytes().unwrap();
        assert_eq!(bytes.len(), 24 + 2 * (128 + 16));
        assert_eq!(&bytes[14..16], &[0x00, 0x80]);
        assert_eq!(&bytes[24..26], &[0x00, 0x10]);
        assert_eq!(&bytes[24 + 2 * 127..24 + 2 * 128], &[0x08, 0x00]);
        assert_eq!(CollectiveMessage::parse(&bytes).unwrap(), m);
        let vdm = to_vdm(&m, 0x0001, 0x0010, 0x5A).unwrap();
        assert_eq!(vdm.dw0.length_dw(), 78);
        let wire = vdm.to_bytes().unwrap();
        assert_eq!(wire.len(), 16 + 312);
        assert_eq!(from_vdm(&Tlp::parse(&wire).unwrap()).unwrap(), m);
        let mwr = to_memory_write(&m, 0x0001, 0x5A, 0x0010_0000, 0x800).unwrap();
        assert_eq!(mwr.payload, bytes);
        let mut more = devices;
        more.push(0x0FF0);
        assert!(config(more.clone()).to_bytes().is_err());
        let mut raw = bytes.clone();
        raw[14..16].copy_from_slice(&129u16.to_be_bytes());
        assert!(CollectiveMessage::parse(&raw).is_err());
    }

    #[test]
    fn deku_matches_the_header_table() {
        use crate::field::deku_check::u;
        crate::field::deku_check::check::<super::CommonHeader>(&super::header_fields::ALL, super::HEADER_LEN, |h| {
            vec![u(h.version), u(h.kind), u(h.non_posted), u(h.error_mark), u(h.retry), u(h.tid), u(h.reserved_flags), u(h.reserved), u(h.cc_id), u(h.dmu_id), u(h.p_id)]
        });
    }
}
