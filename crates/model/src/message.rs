//! The normalized collective message: what the input checker hands the collective processing unit (CPU)
//! and what the CPU hands the frame builder, whichever wire family the frame came in or goes out on.
//!
//! Specification: `docs/blocks/collective_message.md`. In RTL the message is one beat of a valid/ready
//! stream whose signals are `s_msg_<field>` / `m_msg_<field>`; the field names below are those suffixes.
//! Field widths are the `*_WIDTH` constants; values wider than their field are truncated at a port.

/// Width of `kind`.
pub const KIND_WIDTH: u32 = 4;
/// Width of a context key: a 12-bit CC_ID (000 \[0168\]) or {reduction id 3, multicast tree 13} (002 (61)).
pub const CTX_WIDTH: u32 = 16;
/// Width of a participant index P_ID (000 \[0168\]); [`NO_PARTICIPANT`] is "none".
pub const PID_WIDTH: u32 = 16;
/// Width of a count: p_count or rt_count (002 (60): 20-bit wait count).
pub const COUNT_WIDTH: u32 = 20;
/// Width of a sequence or result number (002 (61)).
pub const SEQNO_WIDTH: u32 = 10;
/// Width of a transaction ID (001).
pub const TID_WIDTH: u32 = 2;
/// Width of a participant bit vector (000 \[0094\], \[0155\]).
pub const PBV_WIDTH: u32 = 128;
/// Operands per message (002 (46)).
pub const LANES: usize = 4;

/// P_ID meaning "no participant" (the frames crate's `collective::NO_PARTICIPANT`).
pub const NO_PARTICIPANT: u16 = 0xffff;

/// Message kinds. 1-8 are the TLP collective message kinds of the frames crate (`collective::Kind`);
/// [`Kind::ARM`] is a Portals frame with rt_arm set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kind(pub u8);

impl Kind {
    /// No message (never sent; a stream beat with this kind is malformed).
    pub const NONE: Kind = Kind(0);
    /// Configuration (000 FIG. 4); steered to the register space, not to the CPU.
    pub const CONFIGURATION: Kind = Kind(1);
    /// Initialization: CC_ID + PBV (000 FIG. 5, \[0141\]).
    pub const INITIALIZATION: Kind = Kind(2);
    /// Control: start, pause, restart, stop, reset (000 FIG. 6, \[0168\]).
    pub const CONTROL: Kind = Kind(3);
    /// A contribution or a partial result upward (TLP contribution, Portals data frame), with `count`.
    pub const CONTRIBUTION: Kind = Kind(4);
    /// Aggregated (partial) response upward (000 \[0109\]).
    pub const RESPONSE: Kind = Kind(5);
    /// Completion / result downward: barrier met, barrier satisfied, final result (000 \[0111\]).
    pub const COMPLETION: Kind = Kind(6);
    /// Retry request (000 \[0098\], \[0117\]).
    pub const RETRY: Kind = Kind(7);
    /// Failure report (000 \[0098\]).
    pub const FAILURE: Kind = Kind(8);
    /// Portals arm / result frame going down the tree (002 (37)-(40)).
    pub const ARM: Kind = Kind(9);
}

/// Wire family a message came in on or goes out on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Family {
    /// PCIe TLP collective message (seed 000).
    #[default]
    Tlp,
    /// Portals reduction frame, native or Soft Portals (seed 002).
    Portals,
}

/// One normalized collective message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CollectiveMsg {
    /// Message kind.
    pub kind: Kind,
    /// Wire family.
    pub family: Family,
    /// Ingress port (in) or egress port hint (out; the output queue's route table decides).
    pub port: u8,
    /// Context key: CC_ID (TLP) or {reduction id, tree} = DFA bits 20-18, 15-3 (Portals).
    pub ctx: u16,
    /// Source: Requester ID (TLP, 16 bits) or SFA (Portals, 32 bits).
    pub src: u32,
    /// Destination: device ID (TLP) or DFA (Portals).
    pub dst: u32,
    /// Participant index P_ID, or [`NO_PARTICIPANT`].
    pub pid: u16,
    /// Endpoint identifier DMU_ID (000 \[0141\], \[0168\]).
    pub dmu_id: u16,
    /// p_count (TLP) or rt_count (Portals), 20 bits.
    pub count: u32,
    /// Kind-dependent code: control command, completion kind or failure reason (frames crate enums).
    pub code: u8,
    /// Posted (no response expected) rather than non-posted (000 \[0097\]).
    pub posted: bool,
    /// Partial result marked as an error (000 \[0242\]).
    pub error: bool,
    /// Transaction ID, 2 bits (001).
    pub tid: u8,
    /// VNI (002 (52)).
    pub vni: u16,
    /// Cookie (002 (52)).
    pub cookie: u32,
    /// rt_seqno, 10 bits.
    pub seqno: u16,
    /// rt_resno, 10 bits.
    pub resno: u16,
    /// Retry bit of the reduction header.
    pub retry: bool,
    /// rt_op, 6 bits.
    pub op: u8,
    /// rt_rc, 4 bits.
    pub rc: u8,
    /// rt_repsum_m (FLT_REPSUM).
    pub repsum_m: i8,
    /// rt_repsum_oflow_id, 2 bits.
    pub repsum_oflow_id: u8,
    /// rt_data: four 64-bit operands.
    pub data: [u64; LANES],
    /// Participant bit vector (INITIALIZATION), bit i = PBV entry i.
    pub pbv: u128,
}

impl CollectiveMsg {
    /// The message with every field cut to its width, as it would be after crossing a port.
    pub fn masked(mut self) -> CollectiveMsg {
        let low = |n: u32| (1u64 << n) - 1;
        self.kind = Kind(self.kind.0 & low(KIND_WIDTH) as u8);
        self.count &= low(COUNT_WIDTH) as u32;
        self.tid &= low(TID_WIDTH) as u8;
        self.seqno &= low(SEQNO_WIDTH) as u16;
        self.resno &= low(SEQNO_WIDTH) as u16;
        self.op &= 0x3f;
        self.rc &= 0xf;
        self.repsum_oflow_id &= 0x3;
        self.code &= 0xf;
        self
    }
}
