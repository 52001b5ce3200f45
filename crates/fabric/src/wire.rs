//! The frames on the fabric's links, built and read with the frames crate: data-link framed TLPs
//! (2-byte sequence number, TLP, 4-byte LCRC), as the engine's `s_axis_rx` takes them and its
//! `m_axis_vl` gives them (`docs/blocks/packet_engine.md`), and Soft Portals frames (Ethernet, seed 002;
//! `crate::sim::portals`). [`LinkFrame`] is a frame read once, for the fault injector's decisions and
//! the fault log's one-line summaries.

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ControlBody, DataFixed, ErrorBody};
use inswitch_frames::crc;
use inswitch_frames::ethernet::{SoftPortals, DEFAULT_SOFT_PORTALS_ETHERTYPE, SOFT_PORTALS_LEN};
use inswitch_frames::portals::ReductionFrame;
use inswitch_frames::tlp::Tlp;

/// Bytes before the TLP (the data-link sequence number).
pub const SEQ_LEN: usize = 2;
/// Bytes after the TLP (LCRC).
pub const LCRC_LEN: usize = 4;
/// Offset of the 16-bit destination in a framed TLP: TLP bytes 8-9 are the target ID of an ID-routed
/// message and address bits 31:16 (the switch's device ID, [0175]) of a 3-DW memory request.
const DEST_AT: usize = SEQ_LEN + 8;
/// Offset of the requester ID (TLP bytes 4-5) in a framed TLP.
const REQUESTER_AT: usize = SEQ_LEN + 4;

/// Frames a TLP for the link: sequence number, TLP bytes, LCRC.
pub fn link_frame(seq: u16, tlp: &[u8]) -> Vec<u8> {
    let seq = seq & crc::SEQUENCE_MASK;
    let mut v = Vec::with_capacity(tlp.len() + SEQ_LEN + LCRC_LEN);
    v.extend_from_slice(&seq.to_be_bytes());
    v.extend_from_slice(tlp);
    v.extend_from_slice(&crc::lcrc(seq, tlp).to_le_bytes());
    v
}

/// The device ID a framed TLP is routed to.
pub fn destination(frame: &[u8]) -> Option<u16> {
    Some(u16::from_be_bytes([*frame.get(DEST_AT)?, *frame.get(DEST_AT + 1)?]))
}

/// The requester ID of a framed TLP.
pub fn requester(frame: &[u8]) -> Option<u16> {
    Some(u16::from_be_bytes([*frame.get(REQUESTER_AT)?, *frame.get(REQUESTER_AT + 1)?]))
}

/// The collective message inside a framed vendor-defined message, if it is one. The TLP is decoded by
/// `Tlp::parse_fast` (the same result as deku's `Tlp::parse`, property test `to_repr_matches_deku` in
/// crates/frames): deku's bit reader was half of the fabric's time (docs/performance.md §Fabric).
pub fn collective_of(frame: &[u8]) -> Option<CollectiveMessage> {
    if frame.len() < SEQ_LEN + LCRC_LEN {
        return None;
    }
    let t = Tlp::parse_fast(&frame[SEQ_LEN..frame.len() - LCRC_LEN]).ok()?;
    collective::from_vdm(&t).ok()
}

/// A collective message framed for the link, from `src` to `dst`.
pub fn message_frame(m: &CollectiveMessage, src: u16, dst: u16, seq: u16) -> Vec<u8> {
    let t = collective::to_vdm(m, src, dst, 0).expect("a well-formed collective message");
    link_frame(seq, &t.to_bytes().expect("emit"))
}

/// A posted message header for context `cc_id`.
pub fn header(kind: u8, cc_id: u16, p_id: u16) -> CommonHeader {
    CommonHeader { version: collective::VERSION, kind, cc_id, p_id, ..Default::default() }
}

/// CONTROL START (\[0168\]): the collective command the master replicates to every participant.
pub fn start(cc_id: u16, p_count: u16) -> CollectiveMessage {
    let body = Body::Control(ControlBody { command: 1, p_count, ..Default::default() });
    CollectiveMessage { header: header(3, cc_id, collective::NO_PARTICIPANT), body }
}

/// CONTROL with `command` (1 start, 2 pause, 3 restart, 4 stop, 5 reset; \[0168\]).
pub fn control(cc_id: u16, command: u8, p_count: u16) -> CollectiveMessage {
    let body = Body::Control(ControlBody { command, p_count, ..Default::default() });
    CollectiveMessage { header: header(3, cc_id, collective::NO_PARTICIPANT), body }
}

/// A participant's CONTRIBUTION with up to four 64-bit operands, carrying transaction ID `tid` (001: the
/// TID of the START it answers; an engine answers one TID behind with "already completed" and drops
/// any other, `docs/blocks/cpu.md` §Messages).
pub fn contribution(cc_id: u16, p_id: u16, tid: u8, operation: u8, operands: Vec<u64>) -> CollectiveMessage {
    let fixed = DataFixed { operation, contributions: 1, n_operands: operands.len() as u16, ..Default::default() };
    let mut m = CollectiveMessage { header: header(4, cc_id, p_id), body: Body::Data { fixed, operands } };
    m.header.tid = tid & TID_MASK;
    m
}

/// A RETRY request (kind 7; 000 \[0098\]: "retry message" types, \[0117\]: retries are per packet) for
/// context `cc_id`'s transaction `tid`: the engine sends again what it sent the requester for that
/// transaction, its result (`docs/blocks/cpu.md` §Messages "Kept result"), or FAILURE NothingToResend.
/// Reason 1 (timeout: the answer did not come in time), `attempt` the requester's count.
pub fn retry(cc_id: u16, tid: u8, attempt: u8) -> CollectiveMessage {
    let body = Body::Error(ErrorBody { reason: 1, attempt, engine_id: 0, device_id: collective::NO_PARTICIPANT, reserved: 0 });
    let mut m = CollectiveMessage { header: header(7, cc_id, collective::NO_PARTICIPANT), body };
    m.header.tid = tid & TID_MASK;
    m
}

/// The 2-bit transaction ID's mask (001: TIDs count modulo 4).
pub const TID_MASK: u8 = (1 << collective::TID_BITS) - 1;

/// The transaction ID after `tid` (001: "a 4 TID state ratchet").
pub fn next_tid(tid: u8) -> u8 {
    tid.wrapping_add(1) & TID_MASK
}

/// A data message (RESPONSE up, COMPLETION down) as the table-arithmetic stand-in sends it.
pub fn data(kind: u8, cc_id: u16, p_id: u16, completion: u8, contributions: u16) -> CollectiveMessage {
    let fixed = DataFixed { contributions, completion, ..Default::default() };
    CollectiveMessage { header: header(kind, cc_id, p_id), body: Body::Data { fixed, operands: vec![] } }
}

/// A 1-DW memory write (all four bytes enabled) into engine `id`'s register window at `offset` (\[0175\]:
/// 0x00ii_C0yy), framed for the link; the TLP is the manager's ([`crate::manager::plan::register_write`]).
pub fn register_write(seq: u16, requester: u16, id: u16, offset: u16, value: u32) -> Vec<u8> {
    let t = crate::manager::plan::register_write(requester, 0, id, u32::from(offset), value, 0xF).expect("a 1-DW memory write");
    link_frame(seq, &t.to_bytes().expect("emit"))
}

/// The Soft Portals EtherType of every port (the register space's reset `ETHERTYPE`, 002 (98)).
pub const SOFT_PORTALS_ETHERTYPE: u16 = DEFAULT_SOFT_PORTALS_ETHERTYPE;
/// Destination MAC of every Soft Portals frame (an IPv4-multicast-style group address): the fabric
/// forwards by the Portals DFA, not by MAC, so one group address serves every tree. It is also the
/// engines' `cfg_dst_mac` strap.
pub const TREE_MAC: u64 = 0x0100_5E00_0000;
/// Offset of the EtherType in a Soft Portals frame (after the destination and source MACs).
const ETHERTYPE_AT: usize = 12;

/// The locally administered unicast MAC of device `id` (end node or engine; `cfg_src_mac` strap).
pub fn engine_mac(id: u16) -> u64 {
    0x0200_0000_0000 | u64::from(id)
}

/// Whether `bytes` is a Soft Portals frame: its length and EtherType (everything else on a link is a
/// framed TLP).
pub fn is_soft_portals(bytes: &[u8]) -> bool {
    bytes.len() == SOFT_PORTALS_LEN && bytes[ETHERTYPE_AT..ETHERTYPE_AT + 2] == SOFT_PORTALS_ETHERTYPE.to_be_bytes()
}

/// The Portals reduction frame inside a Soft Portals frame.
pub fn portals_frame(bytes: &[u8]) -> Option<ReductionFrame> {
    is_soft_portals(bytes).then(|| SoftPortals::parse(bytes).ok().map(|s| s.frame)).flatten()
}

/// Whether a framed TLP's LCRC matches (what an end node's data-link layer checks).
pub fn lcrc_ok(frame: &[u8]) -> bool {
    if frame.len() < SEQ_LEN + LCRC_LEN {
        return false;
    }
    let seq = u16::from_be_bytes([frame[0], frame[1]]) & crc::SEQUENCE_MASK;
    let tlp = &frame[SEQ_LEN..frame.len() - LCRC_LEN];
    let got = u32::from_le_bytes(frame[frame.len() - LCRC_LEN..].try_into().expect("4 bytes"));
    crc::lcrc(seq, tlp) == got
}

/// The integrity check of a receiver: the FCS of a Soft Portals frame, the LCRC of a framed TLP.
pub fn frame_ok(bytes: &[u8]) -> bool {
    if is_soft_portals(bytes) {
        SoftPortals::parse(bytes).is_ok_and(|f| f.check_fcs().is_ok())
    } else {
        lcrc_ok(bytes)
    }
}

/// Flips bit `bit` of byte `byte` of a frame (the LCRC is left as it was, so it no longer matches).
pub fn corrupt(frame: &[u8], byte: usize, bit: u8) -> Vec<u8> {
    let mut v = frame.to_vec();
    v[byte] ^= 1 << bit;
    v
}

/// A frame on a link, read once: a Soft Portals reduction frame, or a framed TLP with its routing
/// fields and, if it is one, its collective message.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkFrame {
    /// A Soft Portals frame that parses ([`portals_frame`]).
    Portals(ReductionFrame),
    /// Anything else, read as a framed TLP.
    Tlp {
        /// Requester ID ([`requester`]).
        requester: Option<u16>,
        /// Destination device ID ([`destination`]).
        destination: Option<u16>,
        /// The collective message, if the TLP is one ([`collective_of`]).
        message: Option<CollectiveMessage>,
    },
}

impl LinkFrame {
    /// Reads `bytes` (a Soft Portals frame is never a collective message: its first TLP byte would be
    /// the tree MAC's `0x5E`, no message type).
    pub fn parse(bytes: &[u8]) -> LinkFrame {
        match portals_frame(bytes) {
            Some(fr) => LinkFrame::Portals(fr),
            None => LinkFrame::Tlp { requester: requester(bytes), destination: destination(bytes), message: collective_of(bytes) },
        }
    }

    /// The collective message, if it is a framed one.
    pub fn message(&self) -> Option<&CollectiveMessage> {
        match self {
            LinkFrame::Tlp { message, .. } => message.as_ref(),
            LinkFrame::Portals(_) => None,
        }
    }

    /// The frame in one line: Portals tree and round, or collective kind and CC_ID (else "frame"),
    /// requester → destination (what the fault log records, [`crate::faults::Fault::what`]).
    pub fn summary(&self) -> String {
        match self {
            LinkFrame::Portals(fr) => {
                let h = fr.header;
                format!("portals tree {} rid {} seqno {} resno {} arm {} count {} sfa {:#06x}", fr.tree(), fr.reduction_id(), h.seqno, h.resno, u8::from(h.arm), h.count, fr.sfa)
            }
            LinkFrame::Tlp { requester, destination, message } => {
                let (from, to) = (requester.unwrap_or(0), destination.unwrap_or(0));
                match message {
                    Some(m) => format!("kind {} cc {} {from:#06x} -> {to:#06x}", m.header.kind, m.header.cc_id),
                    None => format!("frame {from:#06x} -> {to:#06x}"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destination_and_requester_of_messages_and_register_writes() {
        let f = message_frame(&start(7, 3), 0x0001, 0x0010, 1);
        assert_eq!(destination(&f), Some(0x0010));
        assert_eq!(requester(&f), Some(0x0001));
        assert_eq!(collective_of(&f).unwrap().header.cc_id, 7);
        let w = register_write(2, 0x0001, 0x0020, 0x204, 5);
        assert_eq!(destination(&w), Some(0x0020));
        assert!(collective_of(&w).is_none());
    }

    #[test]
    fn a_contribution_carries_its_tid_on_the_wire() {
        let f = message_frame(&contribution(7, 2, 3, 0x14, vec![5]), 0x0011, 0x0010, 1);
        assert_eq!(collective_of(&f).unwrap().header.tid, 3);
        assert_eq!((next_tid(0), next_tid(3)), (1, 0));
    }
}
