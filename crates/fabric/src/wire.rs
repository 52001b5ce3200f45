//! The frames end nodes and the configuring source put on the fabric, built and read with the frames
//! crate: data-link framed TLPs (2-byte sequence number, TLP, 4-byte LCRC), as the engine's
//! `s_axis_rx` takes them and its `m_axis_vl` gives them (`docs/blocks/packet_engine.md`).

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ControlBody, DataFixed};
use inswitch_frames::crc;
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
/// any other, `docs/cpu.md` §2).
pub fn contribution(cc_id: u16, p_id: u16, tid: u8, operation: u8, operands: Vec<u64>) -> CollectiveMessage {
    let fixed = DataFixed { operation, contributions: 1, n_operands: operands.len() as u16, ..Default::default() };
    let mut m = CollectiveMessage { header: header(4, cc_id, p_id), body: Body::Data { fixed, operands } };
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
