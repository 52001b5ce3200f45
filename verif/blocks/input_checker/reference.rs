//! The input checker's expected outcomes: what a frame must lead to, and the documented mapping of an
//! accepted frame's repr to its normalized message (docs/blocks/input_checker.md §Mapping).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use inswitch_frames::collective::{Body, CollectiveMessage, ConfigFixed};
use inswitch_frames::crc;
use inswitch_frames::portals::ReductionFrame;
use inswitch_frames::tlp::{self, Header, Tlp};
use inswitch_model::input_checker::{event, RegAccess, RequestFields};
use inswitch_model::message::{CollectiveMsg, Family, Kind, NO_PARTICIPANT};

/// Expected outcomes of the frames the stimulus started, shared with the monitor (oldest first).
pub type Labels = Rc<RefCell<VecDeque<(Expect, String, UrExpect)>>>;

/// Label of a collective message dropped for a reserved flag bit (counted by the scoreboard).
pub(super) const RESERVED_FLAG_LABEL: &str = "collective reserved flag";

/// Marker in the label of a configuration message longer than the capture (its slots past it read from
/// the slot store), counted by the monitor when applied. Not a suffix: the stimulus appends the frame's
/// size to every label when it sends the frame (a suffix test counted none of them, session 22).
pub(super) const LONG_CONFIG_LABEL: &str = " (long)";

/// Label prefix of the stimulus's flit-mode frames (counted by the scoreboard).
pub(super) const FLIT_LABEL: &str = "flit ";

/// Label prefix of the stimulus's encapsulated configurations, kind 10 (counted by the scoreboard).
pub(super) const ENCAP_LABEL: &str = "encapsulated";
/// Label prefix of those with a flit-mode original header (descriptor byte 3 = 1; starts with
/// [`ENCAP_LABEL`]).
pub(super) const ENCAP_FLIT_LABEL: &str = "encapsulated, flit-mode original header";
/// Label prefix of the stimulus's encapsulated register writes, kind 10 payload type 2 (a kind of
/// [`ENCAP_LABEL`]).
pub(super) const ENCAP_REGW_LABEL: &str = "encapsulated register write";

/// What a frame must lead to.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// A register access.
    Reg(RegAccess),
    /// A normalized message.
    Msg(CollectiveMsg),
    /// A configuration message (FIG. 4): these register writes, in order, then its `accept_reg` pulse.
    Config(VecDeque<RegAccess>),
    /// A drop with this [`event`] bit.
    Drop(u32),
    /// Some drop (random bytes).
    AnyDrop,
}

/// What a frame must put on the Unsupported Request output (`m_ur_*`).
#[derive(Clone, Debug, PartialEq)]
pub enum UrExpect {
    /// Nothing.
    None,
    /// This request.
    Request(RequestFields),
    /// Not predicted (random bytes): whatever the checker says.
    Any,
}

/// Drop reasons after which a whole non-posted request gets an Unsupported Request
/// (docs/blocks/input_checker.md §Unsupported Requests), written from the document.
const UR_REASONS: [u32; 5] = [event::TLP_UNSUPPORTED, event::POISONED, event::RESERVED, event::NOT_FOR_ENGINE, event::REG_ACCESS];

/// The Unsupported Request a generated TLP frame must give, from the frames crate's parse of it: a
/// non-posted request (MRd, MRdLk, IO, configuration, AtomicOp, DMWr) that parses as a whole TLP and is
/// dropped for one of `UR_REASONS`.
pub fn expected_ur(frame: &[u8], expect: &Expect) -> UrExpect {
    let reason = match expect {
        Expect::AnyDrop => return UrExpect::Any,
        Expect::Drop(r) if UR_REASONS.contains(r) => *r,
        _ => return UrExpect::None,
    };
    let _ = reason;
    let n = frame.len();
    if n < 6 {
        return UrExpect::None;
    }
    let Ok(t) = Tlp::parse(&frame[2..n - 4]) else { return UrExpect::None };
    use tlp::TlpKind as K;
    let (mem_read, locked) = match t.kind() {
        K::MemRead => (true, false),
        K::MemReadLocked => (true, true),
        K::IoRead | K::IoWrite | K::CfgRead { .. } | K::CfgWrite { .. } | K::FetchAdd | K::Swap | K::Cas | K::DeferrableMemWrite => (false, false),
        _ => return UrExpect::None,
    };
    let (req, addr) = match &t.header {
        Header::Memory { req, address } | Header::Atomic { req, address } => (req, (address.byte_address() as u8 & 0x7C) | address.ph()),
        Header::Io { req, address } => (req, ((address.address_dw << 2) as u8 & 0x7C) | address.ph),
        // Bits 6:0 of the last header DW: the register number and reserved bits of a configuration request.
        Header::Config { req, target } => (req, ((target.register & 0x1F) << 2) | target.reserved_lo),
        _ => return UrExpect::None,
    };
    let d = &t.dw0;
    UrExpect::Request(RequestFields {
        src: req.requester_id,
        tag: u16::from(d.t9) << 9 | u16::from(d.t8) << 8 | u16::from(req.tag),
        tc: d.tc,
        attr: u8::from(d.attr2) << 2 | d.attr,
        mem_read,
        locked,
        length: d.length,
        first_be: req.first_be,
        last_be: req.last_be,
        addr,
    })
}



/// Register offsets a configuration message writes, from docs/blocks/register_space.md §Map (written
/// from the document, not from the model's map).
mod reg_map {
    pub const PBV: u16 = 0x000;
    pub const PBV_FLAGS: u16 = 0x500;
    pub const ERROR_REPORTING: u16 = 0x118;
    pub const SUB_TIMEOUT: u16 = 0x120;
    pub const MASTER_TIMEOUT: u16 = 0x124;
}

/// The register writes a FIG. 4 configuration message stands for (000 [0155], [0157]: "payload locations
/// (e.g., 2 bytes each) ... may include a 16-bit device ID" of PBV entry i, and [0175]'s 2-byte writes
/// into the PBV block; docs/blocks/input_checker.md §Configuration messages), written from the frames
/// crate's repr: per entry its device ID into the PBV table's half-DW, then its PBV_FLAGS half (bit 0
/// valid, bit 1 switch = the ID is one of the subservient engines, [0154]); then the error-reporting
/// configuration and the two timeouts ([0154]).
pub fn expected_config_writes(fixed: &ConfigFixed, device_ids: &[u16], subservient_ids: &[u16], src: u16, tag: u16) -> VecDeque<RegAccess> {
    let w = |addr: u16, be: u8, wdata: u32| RegAccess { write: true, addr, be, wdata, src, tag };
    let mut v = VecDeque::new();
    for (i, &dev) in device_ids.iter().enumerate() {
        let (dw, odd) = (4 * (i / 2) as u16, i % 2 == 1);
        let (be, shift) = if odd { (0xC, 16) } else { (0x3, 0) };
        v.push_back(w(reg_map::PBV + dw, be, u32::from(dev) << shift));
        let flags = 1 | u32::from(subservient_ids.contains(&dev)) << 1;
        v.push_back(w(reg_map::PBV_FLAGS + dw, be, flags << shift));
    }
    v.push_back(w(reg_map::ERROR_REPORTING, 0x1, u32::from(fixed.error_reporting)));
    v.push_back(w(reg_map::SUB_TIMEOUT, 0xF, fixed.subservient_timeout));
    v.push_back(w(reg_map::MASTER_TIMEOUT, 0xF, fixed.master_timeout));
    v
}

/// Data-link wrapping of a TLP: `{0000, seq[11:0]}`, TLP, LCRC little-endian (docs §Frames).
pub fn tlp_frame(seq: u16, tlp_bytes: &[u8]) -> Vec<u8> {
    let seq = seq & crc::SEQUENCE_MASK;
    let mut v = seq.to_be_bytes().to_vec();
    v.extend_from_slice(tlp_bytes);
    v.extend_from_slice(&crc::lcrc(seq, tlp_bytes).to_le_bytes());
    v
}

/// The normalized message the documented mapping gives for a collective message (docs/blocks/
/// input_checker.md §Mapping), written from the frames crate's repr.
pub fn expected_tlp_msg(m: &CollectiveMessage, src: u16, dst: u16, port: u8) -> CollectiveMsg {
    let h = &m.header;
    let mut e = CollectiveMsg {
        kind: Kind(h.kind),
        family: Family::Tlp,
        port,
        ctx: h.cc_id,
        src: u32::from(src),
        dst: u32::from(dst),
        pid: h.p_id,
        dmu_id: h.dmu_id,
        posted: !h.non_posted,
        error: h.error_mark,
        tid: h.tid,
        ..CollectiveMsg::default()
    };
    match &m.body {
        Body::Initialization(b) => {
            e.count = b.p_count.into();
            e.op = b.operation;
            e.data[0] = b.accumulator;
            e.pbv = b.pbv;
        }
        Body::Control(b) => {
            e.code = b.command;
            e.count = b.p_count.into();
        }
        Body::Data { fixed, operands } => {
            e.op = fixed.operation;
            e.rc = fixed.status;
            e.count = fixed.contributions.into();
            e.code = fixed.completion;
            e.data[..operands.len()].copy_from_slice(operands);
        }
        Body::Error(b) => {
            e.code = b.reason;
            e.count = b.attempt.into();
            e.data[0] = u64::from(b.engine_id) | u64::from(b.device_id) << 16;
        }
        Body::Configuration { fixed, device_ids, subservient_ids } => {
            // For another engine, to the CPU to relay (docs §Configuration messages): the fixed part's 16
            // bytes (docs/frames.md §4, in field order, big-endian) in `pbv`, the slots (device IDs, then
            // subservient IDs, then the padding slot of an odd count, zero) in `data`, four per operand,
            // the first in the high bits.
            let mut b = Vec::with_capacity(16);
            b.extend_from_slice(&fixed.master_id.to_be_bytes());
            b.extend_from_slice(&fixed.isl_port.to_be_bytes());
            b.push(fixed.validation);
            b.push(fixed.error_reporting);
            b.push(fixed.n_subservient);
            b.extend_from_slice(&fixed.n_devices.to_be_bytes());
            b.extend_from_slice(&fixed.subservient_timeout.to_be_bytes());
            b.extend_from_slice(&fixed.master_timeout.to_be_bytes());
            e.pbv = u128::from_be_bytes(b.try_into().expect("ConfigFixed is 16 bytes"));
            for (j, id) in device_ids.iter().chain(subservient_ids).enumerate() {
                e.data[j / 4] |= u64::from(*id) << (48 - 16 * (j % 4));
            }
        }
        _ => {}
    }
    e.masked()
}

/// The normalized message for a Portals reduction frame (docs §Mapping).
pub fn expected_portals_msg(f: &ReductionFrame, port: u8) -> CollectiveMsg {
    let h = &f.header;
    CollectiveMsg {
        kind: if h.arm { Kind::ARM } else { Kind::CONTRIBUTION },
        family: Family::Portals,
        port,
        ctx: ((f.dfa >> 18 & 7) << 13 | (f.dfa >> 3 & 0x1FFF)) as u16,
        src: f.sfa,
        dst: f.dfa,
        pid: NO_PARTICIPANT,
        count: h.count,
        posted: true,
        vni: f.vni,
        cookie: h.cookie,
        seqno: h.seqno,
        resno: h.resno,
        retry: h.retry,
        op: h.op,
        rc: h.rc,
        repsum_m: h.repsum_m as i8,
        repsum_oflow_id: h.repsum_ovflid,
        data: f.data,
        ..CollectiveMsg::default()
    }
}
