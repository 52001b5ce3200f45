//! The top's seeded stimulus: episodes of configuration writes from a credit-respecting link partner,
//! then the random frame mix or an emit phase, and a drain (see the module documentation of [`super`]).

use std::collections::VecDeque;

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ControlBody, DataFixed, ErrorBody, InitBody};
use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
use inswitch_frames::portals::{ReductionFrame, ReductionHeader};
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::Wide;
use inswitch_model::cpu::context::role;
use inswitch_model::cpu::event as cpu_event;
use inswitch_model::packet_engine::{EngineIn, EngineOut, EngineParams};
use inswitch_model::register_space::{mcast_entry_writes, static_entry_writes};
use rand::RngExt;

use crate::blocks::input_checker::tlp_frame;
use crate::checker::Stimulus;
use crate::stimulus::{self, Gaps, Phases, StimRng};

use super::shared::{long_config_tag, LONG_CONFIG_DEVICES, LONG_CONFIG_ID_BASE, LONG_CONFIG_TAGS, CONFIG_TAG, ENCAP_REG_TAG, FLIT_REG_TAG, FLIT_FRAME_WEIGHT, CPU_BACK_DOOR_DELAY, ENGINE_ID, PORT, OTHER_PORT, MASTER, VL_DEPTH, ETHERTYPE, VNI, PARTICIPANTS, TLP_CTX, TREES, RESET_CYCLES, TID_MASK, DRAIN_CYCLES, TrafficMode, EMIT_PHASE_WEIGHT, EMIT_DRAIN, EMIT_PBV, Shared};

/// A memory write of one DW into engine `id`'s register window at `offset`.
pub fn reg_write_frame(seq: u16, requester: u16, id: u16, offset: u16, value: u32, be: u8) -> Vec<u8> {
    let addr = u64::from(id) << 16 | 0xC000 | u64::from(offset & 0xFFF);
    let mut t = Tlp::memory_write(requester, 0, addr, value.to_le_bytes().to_vec()).expect("mwr");
    if let Header::Memory { req, .. } = &mut t.header {
        req.first_be = be;
    }
    tlp_frame(seq, &t.to_bytes().expect("emit"))
}

/// `tag`, or another one if it is [`CONFIG_TAG`] or one of [`LONG_CONFIG_TAGS`] (reserved for the
/// configuration messages' writes) or [`FLIT_REG_TAG`] (the flit-mode register writes').
fn not_config_tag(tag: u16) -> u16 {
    if tag == u16::from(CONFIG_TAG) || tag == u16::from(ENCAP_REG_TAG) || tag == FLIT_REG_TAG || LONG_CONFIG_TAGS.contains(&tag) { tag ^ 0x100 } else { tag }
}

/// A one-DW memory read of engine [`ENGINE_ID`]'s register window at `offset` (3-DW header), with a
/// 10-bit tag (T9, T8 and the tag byte).
pub fn reg_read_frame(seq: u16, requester: u16, offset: u32, first_be: u8, tag: u16) -> Vec<u8> {
    use inswitch_frames::tlp::{types, Address, Dw0, RequestDw1};
    let mut dw0 = Dw0 { tlp_type: types::MEM, t9: tag & 0x200 != 0, t8: tag & 0x100 != 0, ..Dw0::default() };
    dw0.set_length_dw(1);
    let req = RequestDw1 { requester_id: requester, tag: tag as u8, last_be: 0, first_be };
    let address = Address::new32(u32::from(ENGINE_ID) << 16 | 0xC000 | (offset & 0xFFC), 0);
    let t = Tlp { prefixes: vec![], dw0, header: Header::Memory { req, address }, payload: vec![], digest: None };
    tlp_frame(seq, &t.to_bytes().expect("emit"))
}

/// Probability per receive beat before a frame's last of a hole in tkeep (the checker's `tkeep` drop).
const TKEEP_HOLE_PROBABILITY: f64 = 0.005;

/// The receive port's link partner, as both stimuli of the top drive it ([`PacketEngineStimulus`] and
/// [`super::DirectedStimulus`]): the reset still to hold, the CPU back-door writes still to make (after
/// [`CPU_BACK_DOOR_DELAY`]), the frames queued, the beats of the frame being sent, and the partner's
/// credits (VL-queue slots it may still fill: it sends a beat only with a credit).
pub(super) struct LinkPartner {
    reset_left: u64,
    cpu_cfg: VecDeque<(u16, u32)>,
    cpu_cfg_delay: u64,
    frames: VecDeque<(bool, Vec<u8>)>,
    rx_beats: VecDeque<(Wide, u64, bool)>,
    credits: i64,
}

impl LinkPartner {
    /// A new episode of the top with parameters `p`: [`RESET_CYCLES`] of reset, then `cpu_cfg` through
    /// the back door, and `frames` (each with its port family, `true`: Soft Portals) on the receive port.
    pub(super) fn new(p: &EngineParams, cpu_cfg: VecDeque<(u16, u32)>, frames: VecDeque<(bool, Vec<u8>)>) -> Self {
        LinkPartner {
            reset_left: RESET_CYCLES,
            cpu_cfg,
            cpu_cfg_delay: CPU_BACK_DOOR_DELAY,
            frames,
            rx_beats: VecDeque::new(),
            credits: VL_DEPTH - i64::from(p.inj_credits),
        }
    }

    /// Accounts the cycle before (inputs `last`, outputs `previous`): the receive beat taken uses a credit,
    /// the credits the engine returned come back. Nothing counts during a reset.
    pub(super) fn returned(&mut self, last: &EngineIn, previous: &EngineOut) {
        if last.rst {
            return;
        }
        if last.s_axis_rx_tvalid && previous.s_axis_rx_tready {
            self.rx_beats.pop_front();
            self.credits -= 1;
        }
        self.credits += i64::from(previous.link_credit_return);
    }

    /// Whether the episode's reset is still to come or under way.
    fn resetting(&self) -> bool {
        self.reset_left > 0
    }

    /// Drives `rst` in `i` while the reset lasts; true on a reset cycle (nothing else is driven then).
    pub(super) fn reset(&mut self, i: &mut EngineIn) -> bool {
        if self.reset_left == 0 {
            return false;
        }
        self.reset_left -= 1;
        i.rst = true;
        true
    }

    /// Drives the next CPU back-door write in `i` once the delay after the reset is over; true if the
    /// back door took this cycle (still waiting, or writing).
    pub(super) fn cpu_cfg_write(&mut self, i: &mut EngineIn) -> bool {
        if self.cpu_cfg_delay > 0 {
            self.cpu_cfg_delay -= 1;
            return true;
        }
        let Some((a, d)) = self.cpu_cfg.pop_front() else { return false };
        (i.cpu_cfg_wr_en, i.cpu_cfg_wr_addr, i.cpu_cfg_wr_data) = (true, a, d);
        true
    }

    /// Whether every back-door write has been made.
    fn cpu_cfg_done(&self) -> bool {
        self.cpu_cfg.is_empty()
    }

    /// Credits left (beats the partner may still send).
    pub(super) fn credits(&self) -> i64 {
        self.credits
    }

    /// Whether a frame is being sent (beats left).
    pub(super) fn sending(&self) -> bool {
        !self.rx_beats.is_empty()
    }

    /// The beats and the frames still to send.
    fn unsent(&self) -> (usize, usize) {
        (self.rx_beats.len(), self.frames.len())
    }

    /// The next queued frame and its family.
    pub(super) fn next_queued(&mut self) -> Option<(bool, Vec<u8>)> {
        self.frames.pop_front()
    }

    /// Starts sending `bytes` in beats of `kw` bytes, some with a hole in tkeep ([`TKEEP_HOLE_PROBABILITY`]).
    pub(super) fn send(&mut self, bytes: &[u8], kw: usize, r: &mut StimRng) {
        self.rx_beats = stimulus::frame_beats(bytes, kw, TKEEP_HOLE_PROBABILITY, r);
    }

    /// Drives the current beat (if any) in `i`.
    pub(super) fn offer(&self, i: &mut EngineIn) {
        if let Some(&(d, k, last)) = self.rx_beats.front() {
            (i.s_axis_rx_tdata, i.s_axis_rx_tkeep, i.s_axis_rx_tlast, i.s_axis_rx_tvalid) = (d, k, last, true);
        }
    }
}

/// Drives again in `i` the receive beat of `last` the engine did not take (`previous`): AXI-stream holds a
/// beat until it is taken. True if there was one.
pub(super) fn hold_rx(last: &EngineIn, previous: &EngineOut, i: &mut EngineIn) -> bool {
    if !(last.s_axis_rx_tvalid && !previous.s_axis_rx_tready) {
        return false;
    }
    (i.s_axis_rx_tdata, i.s_axis_rx_tkeep, i.s_axis_rx_tlast, i.s_axis_rx_tvalid) = (last.s_axis_rx_tdata, last.s_axis_rx_tkeep, last.s_axis_rx_tlast, true);
    true
}

/// The seeded stimulus of the top.
pub struct PacketEngineStimulus {
    p: EngineParams,
    r: StimRng,
    phases: Phases,
    last: EngineIn,
    rx_idle: Gaps,
    vl_stall: Gaps,
    eg_stall: Gaps,
    rsp_stall: Gaps,
    link: LinkPartner,
    vl_occupancy: i64,
    family: bool,
    /// The link is in flit mode for the frame being sent (`cfg_flit`).
    flit: bool,
    seq: u16,
    drain: f64,
    mode: TrafficMode,
    traffic_left: u64,
    drain_left: u64,
    shared: Shared,
    /// The stimulus's view of each TLP context's transaction ID (001), followed from the CPU's events
    /// (`tid_follow`), so most collective messages carry the current TID and the rest are one behind
    /// (`OLD_TID`) or random (`BAD_TID`).
    tids: [u8; TLP_CTX.len()],
    /// The TID of the last INITIALIZATION sent for each TLP context (the CPU takes it on `INIT`).
    init_tids: [u8; TLP_CTX.len()],
    /// Whether each TLP context's static entry is a MASTER (its `COMPLETE` starts the next round).
    masters: [bool; TLP_CTX.len()],
    /// The current round (`rt_seqno`) of each Portals reduction (by DFA) the stimulus arms.
    red_seqnos: std::collections::HashMap<u32, u16>,
}

impl PacketEngineStimulus {
    /// A stimulus for `seed`.
    pub fn new(p: EngineParams, seed: u64, shared: Shared) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        shared.seed.set(seed);
        let mut s = PacketEngineStimulus {
            p,
            r,
            phases,
            last: EngineIn::default(),
            rx_idle: Gaps::default(),
            vl_stall: Gaps::default(),
            eg_stall: Gaps::default(),
            rsp_stall: Gaps::default(),
            link: LinkPartner::new(&p, VecDeque::new(), VecDeque::new()),
            vl_occupancy: 0,
            family: false,
            flit: false,
            seq: 0,
            drain: 0.5,
            mode: TrafficMode::Mixed,
            traffic_left: 0,
            drain_left: 0,
            shared,
            tids: [0; TLP_CTX.len()],
            init_tids: [0; TLP_CTX.len()],
            masters: [false; TLP_CTX.len()],
            red_seqnos: std::collections::HashMap::new(),
        };
        s.episode();
        s
    }

    fn next_seq(&mut self) -> u16 {
        self.seq = (self.seq + 1) & 0xFFF;
        self.seq
    }

    /// Schedules a new episode: reset, CPU and register-space configuration, traffic, drain.
    fn episode(&mut self) {
        let r = &mut self.r;
        self.traffic_left = r.random_range(4_000..60_000);
        // The scoreboard's per-episode count of flit-mode writes taken starts again with the reset.
        self.shared.flit_reg_writes.set(0);
        self.drain_left = DRAIN_CYCLES;
        self.vl_occupancy = 0;
        // CPU, through the register space's CPU window (docs/blocks/register_space.md; the ENGINE_ID strap reaches
        // the CPU by the post-reset copy): ENGINE_SFA, PBV entries and flags (entry 3 a switch), timeouts
        // short enough to fire, static entries (wait count first, then the key).
        let mut w: Vec<(u16, u32)> = vec![(0x164, 0x00AB_0010)];
        for (j, pair) in PARTICIPANTS.chunks(2).enumerate() {
            let flags = |k: usize| 1 | u32::from(k == 3) << 1;
            w.push((4 * j as u16, u32::from(pair[0]) | u32::from(pair[1]) << 16));
            w.push((0x500 + 4 * j as u16, flags(2 * j) | flags(2 * j + 1) << 16));
        }
        for k in 0..4u16 {
            w.push((0x130 + 4 * k, r.random_range(8..200)));
        }
        let statics = [(1u32, 0u32), (2, 0), (3, 0), (u32::from(TREES[0]), 1), (u32::from(TREES[1]), 1)];
        // A reset clears every context's TID (docs/blocks/cpu.md §Context model).
        self.tids = [0; TLP_CTX.len()];
        self.masters = [false; TLP_CTX.len()];
        // The CPU's static table is direct-mapped (docs/blocks/cpu.md §Static table): a context goes to
        // entry key mod STATIC_ENTRIES; one whose entry an earlier context took is not configured.
        let mut used = Vec::new();
        for &(key, fam) in &statics {
            let s = key as usize % self.p.static_entries;
            if used.contains(&s) {
                continue;
            }
            used.push(s);
            let master = r.random_bool(0.5);
            if let Some(c) = TLP_CTX.iter().position(|&k| fam == 0 && u32::from(k) == key) {
                self.masters[c] = master;
            }
            let key_word = 1 << 31 | u32::from(if master { role::MASTER } else { role::SUBSERVIENT }) << 20 | fam << 16 | key;
            // STATIC_INDEX, STATIC_WAIT, then STATIC_KEY (docs/blocks/register_space.md §CPU window).
            w.extend(static_entry_writes(s as u16, key_word, r.random_range(1..4)).map(|(off, v)| (off as u16, v)));
        }
        // The back door stays exercised: a MODE write after the register space's post-reset copy (which
        // wins over the back door while it runs).
        let cpu_cfg = [(0x089u16, 3 << 8)].into();
        // Register space: VNI, routes, multicast trees, sometimes the lock.
        w.push((0x150, 1 << 31 | u32::from(VNI)));
        if r.random_bool(0.85) {
            w.extend([(0x200, 0x8000 << 16), (0x204, 1 << 31 | u32::from(PORT)), (0x208, 0x8000 << 16 | 0x8000), (0x20C, 1 << 31 | u32::from(OTHER_PORT))]);
        }
        for &t in TREES.iter() {
            // MCAST_INDEX, MCAST_WAIT, MCAST_PORTS, then MCAST_KEY (docs/blocks/register_space.md §Multicast entries).
            w.extend(mcast_entry_writes(t, true, r.random_range(1..4), 0x0F).map(|(off, v)| (off as u16, v)));
        }
        if r.random_bool(0.5) {
            w.extend([(0x108, u32::from(MASTER)), (0x104, 1)]);
        }
        let mut frames = VecDeque::new();
        for (off, v) in w {
            let seq = self.next_seq();
            frames.push_back((false, reg_write_frame(seq, MASTER, ENGINE_ID, off, v, 0xF)));
        }
        self.link = LinkPartner::new(&self.p, cpu_cfg, frames);
    }

    /// Follows the CPU's TID of each TLP context from its events (docs/blocks/cpu.md §Messages to §Timers): an INITIALIZATION
    /// sets it, a RESET clears it, the end of a round (master completion or timeout, the parent's
    /// COMPLETION, retries exhausted) increments it. A view, not a prediction: a frame already on its way
    /// may still carry the TID before the change.
    fn tid_follow(&mut self, o: &EngineOut) {
        if !o.cpu_stat_valid || o.cpu_stat_family {
            return;
        }
        let Some(c) = TLP_CTX.iter().position(|&k| k == o.cpu_stat_ctx & 0xFFF) else { return };
        match o.cpu_stat_event {
            cpu_event::INIT | cpu_event::ACTIVATE_NO_DESC => self.tids[c] = self.init_tids[c],
            cpu_event::CTRL_RESET => self.tids[c] = 0,
            cpu_event::COMPLETE if self.masters[c] => self.tids[c] = (self.tids[c] + 1) & TID_MASK,
            cpu_event::COMPLETION_DOWN | cpu_event::TIMEOUT_MASTER | cpu_event::RETRY_EXHAUSTED => self.tids[c] = (self.tids[c] + 1) & TID_MASK,
            _ => {}
        }
    }

    fn collective(&mut self, kind: u8) -> CollectiveMessage {
        let r = &mut self.r;
        let ci = r.random_range(0..TLP_CTX.len());
        let cc_id = if r.random_bool(0.85) { TLP_CTX[ci] } else { r.random_range(0..0x1000) };
        // Mostly the context's TID; 18% one behind (a member that missed the Exit: "already
        // completed"), 10% neither current nor one behind (one ahead or two behind: BAD_TID; it was a
        // random TID, of which only half were BAD_TID, and the count fell under the million-cycle
        // cosim's floor when the checker's pipeline moved the traffic's timing); an INITIALIZATION
        // sometimes starts the context at another TID.
        let cur = self.tids[ci];
        let tid = match r.random_range(0..100) {
            0..=17 if kind != 2 => cur.wrapping_sub(1) & TID_MASK,
            18..=27 => cur.wrapping_add(r.random_range(1..TID_MASK)) & TID_MASK,
            _ => cur,
        };
        if kind == 2 && cc_id == TLP_CTX[ci] {
            self.init_tids[ci] = tid;
        }
        let header = CommonHeader {
            version: collective::VERSION,
            kind,
            non_posted: r.random(),
            error_mark: r.random_bool(0.1),
            retry: false,
            tid,
            reserved_flags: 0,
            reserved: 0,
            cc_id,
            dmu_id: r.random(),
            p_id: if r.random_bool(0.5) { collective::NO_PARTICIPANT } else { r.random_range(0..5) },
        };
        let body = match kind {
            2 => Body::Initialization(InitBody { p_count: r.random_range(0..5), operation: [0, 0x14, 0x28][r.random_range(0..3)], accumulator: r.random(), pbv: r.random_range(0..16), ..Default::default() }),
            3 => Body::Control(ControlBody { command: r.random_range(1..7), p_count: r.random_range(0..5), ..Default::default() }),
            // FIG. 4 (000 [0154]-[0158]): the episode's own table (entry 3 the subservient switch), so an
            // accepted message rewrites the PBV table and flags the CPU already has; timeouts that fit
            // SUB_TIMEOUT / MASTER_TIMEOUT, or (10%) one that does not (dropped, `coll_config`).
            1 => Body::Configuration {
                fixed: collective::ConfigFixed {
                    master_id: r.random(),
                    error_reporting: r.random(),
                    n_devices: PARTICIPANTS.len() as u16,
                    n_subservient: 1,
                    subservient_timeout: r.random_range(0..1 << 24),
                    master_timeout: if r.random_bool(0.1) { r.random_range(1 << 24..=u32::MAX) } else { r.random_range(0..1 << 24) },
                    ..Default::default()
                },
                device_ids: PARTICIPANTS.to_vec(),
                subservient_ids: vec![PARTICIPANTS[3]],
            },
            4..=6 => {
                let n = if r.random_bool(0.03) { r.random_range(5..=8) } else { r.random_range(0..=4) };
                Body::Data {
                    fixed: DataFixed { operation: [0, 0x14, 0x28][r.random_range(0..3)], status: r.random_range(0..4), contributions: r.random_range(1..3), n_operands: n, completion: r.random_range(0..4), reserved: 0 },
                    operands: (0..n).map(|_| r.random()).collect(),
                }
            }
            _ => Body::Error(ErrorBody { reason: r.random_range(1..7), attempt: r.random(), engine_id: r.random(), device_id: r.random(), reserved: 0 }),
        };
        let mut header = header;
        if kind == 1 {
            // A configuration message for this engine (P_ID 0xFFFF or its device ID: its writes), or, one
            // in four, for an engine below (another P_ID: to the CPU, relayed down the context's switch
            // participants, docs/blocks/cpu.md §Messages).
            header.p_id = match r.random_range(0..8) {
                0..=2 => collective::NO_PARTICIPANT,
                3..=5 => ENGINE_ID,
                _ => PARTICIPANTS[r.random_range(0..PARTICIPANTS.len())],
            };
        }
        CollectiveMessage { header, body }
    }

    /// Makes configuration message `m` ([`Self::collective`] of kind 1) a long one: n of
    /// [`LONG_CONFIG_DEVICES`] entries, the [`PARTICIPANTS`] first (the episode's table, as before) and
    /// then IDs no other frame names; returns the tag that tells its writes apart ([`long_config_tag`]).
    fn lengthen(&mut self, m: &mut CollectiveMessage) -> u8 {
        let n = self.r.random_range(LONG_CONFIG_DEVICES);
        if let Body::Configuration { fixed, device_ids, .. } = &mut m.body {
            *device_ids = PARTICIPANTS.iter().copied().chain((PARTICIPANTS.len() as u16..n).map(|i| LONG_CONFIG_ID_BASE + i)).collect();
            fixed.n_devices = n;
        }
        long_config_tag(n)
    }

    /// A frame of an [`TrafficMode::Emit`] phase (TLP family, from the master, to this engine): a CONTROL
    /// command START, PAUSE, RESTART or STOP (replicated to every participant of the stored PBV, then
    /// acknowledged: up to five frames out for one in), an INITIALIZATION storing [`EMIT_PBV`]
    /// (acknowledged), or a one-DW register read (one completion).
    fn emit_frame(&mut self) -> Vec<u8> {
        let seq = self.next_seq();
        let r = &mut self.r;
        let c = r.random_range(0..TLP_CTX.len());
        let (kind, body) = match r.random_range(0..10) {
            0..=5 => (3, Body::Control(ControlBody { command: r.random_range(1..=4), p_count: r.random_range(1..4), ..Default::default() })),
            6..=7 => {
                self.init_tids[c] = self.tids[c];
                (2, Body::Initialization(InitBody { p_count: EMIT_PBV.count_ones() as u16, operation: 0, pbv: EMIT_PBV, ..Default::default() }))
            }
            _ => {
                let off = [0x100u32, 0x104, 0x108, 0x160, 0x16C][r.random_range(0..5)];
                return reg_read_frame(seq, MASTER, off, 0xF, not_config_tag(r.random_range(0..0x400)));
            }
        };
        let header = CommonHeader { version: collective::VERSION, kind, non_posted: true, tid: self.tids[c], cc_id: TLP_CTX[c], p_id: collective::NO_PARTICIPANT, ..Default::default() };
        let m = CollectiveMessage { header, body };
        tlp_frame(seq, &collective::to_vdm(&m, MASTER, ENGINE_ID, 0).and_then(|t| t.to_bytes()).expect("a well-formed message"))
    }

    /// A frame of a flit-mode link (000 [0156]; docs/blocks/input_checker.md §Flit-mode TLPs), built with
    /// the frames crate's flit codec: a FIG. 4 configuration message to the mailbox (its writes carry
    /// [`CONFIG_TAG`]) or a one-DW register write from the master (tag [`FLIT_REG_TAG`]), by MWr32 or
    /// MWr64, with or without ECRC; a third of the writes with one header defect the document drops (EP
    /// `poisoned`, R `reserved`, an OHC `tlp_unsupported`, a Length that does not match `length`). The
    /// writes the document says are taken are counted for the scoreboard ([`Shared`]).
    fn flit_frame(&mut self) -> Vec<u8> {
        use inswitch_frames::flit::{self, FlitDw0, FlitTlp};
        let config = self.r.random_bool(0.4);
        let (payload, off, tag) = if config {
            let m = self.collective(1);
            (m.to_bytes().expect("configuration message"), 0x800 + 4 * self.r.random_range(0..0x200u32), u16::from(CONFIG_TAG))
        } else {
            // Registers whose value the rest of the stimulus does not depend on: ERROR_REPORTING (for the
            // CPU), VALIDATION with every check on (as the episode leaves it).
            let (off, v) = if self.r.random_bool(0.5) { (0x118, self.r.random::<u32>() & 0xFF) } else { (0x114, 0xF) };
            (u32::to_le_bytes(v).to_vec(), off, FLIT_REG_TAG)
        };
        let r = &mut self.r;
        let four = r.random_bool(0.3);
        let address = u64::from(ENGINE_ID) << 16 | 0xC000 | u64::from(off);
        let dw0 = FlitDw0 { tlp_type: if four { flit::types::MWR64 } else { flit::types::MWR32 }, tc: r.random_range(0..8), length: (payload.len() / 4) as u16, ..Default::default() };
        let src = if config { PARTICIPANTS[r.random_range(0..4)] } else { MASTER };
        let defect = if config || r.random_bool(0.67) { 0 } else { r.random_range(1..5) };
        // DW1: Requester ID, EP, R, Tag[13:0] (docs/frames.md §2).
        let dw1 = u32::from(src) << 16 | u32::from(defect == 1) << 15 | u32::from(defect == 2) << 14 | u32::from(tag);
        let header = if four { vec![dw1, (address >> 32) as u32, address as u32] } else { vec![dw1, address as u32] };
        let mut t = FlitTlp { prefixes: vec![], dw0, header, ohc: vec![], payload, trailer: vec![] };
        if defect == 3 {
            t.dw0.ohc = flit::OHC_A;
            t.ohc = vec![r.random()];
        }
        if r.random_bool(0.3) {
            t.fill_ecrc().expect("ecrc");
        }
        let mut b = t.to_bytes().expect("flit TLP");
        if defect == 4 {
            b.extend_from_slice(&[0; 4]);
        }
        if !config && defect == 0 {
            self.shared.flit_reg_writes.set(self.shared.flit_reg_writes.get() + 1);
        }
        b
    }

    /// A random frame for a port of family `portals`.
    fn frame(&mut self, portals: bool) -> Vec<u8> {
        let seq = self.next_seq();
        let kind = self.r.random_range(0..20);
        let mut f = if kind == 0 {
            let n = self.r.random_range(1..200);
            (0..n).map(|_| self.r.random()).collect()
        } else if portals {
            let r = &mut self.r;
            let tree = if r.random_bool(0.85) { TREES[r.random_range(0..2)] } else { r.random_range(0..0x2000) };
            let mut f = ReductionFrame {
                dfa: r.random_range(0..8u32) << 18 | u32::from(tree) << 3,
                sfa: u32::from(PARTICIPANTS[r.random_range(0..4)]),
                vni: if r.random_bool(0.9) { VNI } else { r.random() },
                flags: if r.random_bool(0.9) { 1 } else { 0 },
                header: ReductionHeader {
                    cookie: r.random_range(0..2),
                    resno: r.random_range(0..4),
                    count: r.random_range(1..3),
                    op: if r.random_bool(0.03) { 0x3F } else { [0x00, 0x14, 0x28, 0x30][r.random_range(0..4)] },
                    arm: r.random_bool(0.3),
                    ..Default::default()
                },
                data: [r.random(), r.random(), r.random(), r.random()],
                ..Default::default()
            };
            let eth = EthernetHeader { dst: r.random(), src: r.random(), ethertype: if r.random_bool(0.95) { ETHERTYPE } else { 0x0800 } };
            // Each reduction's rounds, as a root numbers them: an arm sometimes starts the next round
            // (newer: re-arms a live descriptor), otherwise repeats the current one (a duplicate: dropped
            // as STALE_ARM, 002 (71)); contributions carry the current round's seqno.
            let round = self.red_seqnos.entry(f.dfa).or_insert(0);
            if f.header.arm && self.r.random_bool(0.3) {
                *round = (*round + 1) % 1023;
            }
            f.header.seqno = *round;
            match SoftPortals::new(eth, f).and_then(|s| s.to_bytes()) {
                Ok(b) => b.to_vec(),
                Err(_) => vec![0; 64],
            }
        } else {
            match self.r.random_range(0..12) {
                10 | 11 => {
                    // A register read (answered with a CplD, or a UR / CA completion), sometimes one the
                    // checker drops with an Unsupported Request (2-DW read, mailbox read).
                    let r = &mut self.r;
                    let off = if r.random_bool(0.6) { [0x100u64, 0x104, 0x108, 0x160, 0x16C, 0x000, 0x500, 0x600, 0x400][r.random_range(0..9)] } else { u64::from(r.random::<u16>() & 0xFFC) };
                    let (len, first_be, last_be) = if r.random_bool(0.1) { (2, 0xF, r.random_range(1..16)) } else { (1, r.random_range(0..16), 0) };
                    let req = if r.random_bool(0.5) { MASTER } else { PARTICIPANTS[r.random_range(0..4)] };
                    let tag = not_config_tag(r.random_range(0..0x400u16));
                    let mut dw0 = inswitch_frames::tlp::Dw0 { tlp_type: inswitch_frames::tlp::types::MEM, t9: tag & 0x200 != 0, t8: tag & 0x100 != 0, ..Default::default() };
                    dw0.set_length_dw(len);
                    let address = inswitch_frames::tlp::Address::new32(u32::from(ENGINE_ID) << 16 | 0xC000 | off as u32, 0);
                    let req = inswitch_frames::tlp::RequestDw1 { requester_id: req, tag: tag as u8, last_be, first_be };
                    let t = Tlp { prefixes: vec![], dw0, header: Header::Memory { req, address }, payload: vec![], digest: None };
                    tlp_frame(seq, &t.to_bytes().expect("emit"))
                }
                0..=2 => {
                    // Register write: into this engine's window (mapped or not), from the master or not.
                    let r = &mut self.r;
                    let off = if r.random_bool(0.7) { [0x104u16, 0x108, 0x114, 0x150, 0x200, 0x204, 0x300, 0x304, 0x400, 0x100][r.random_range(0..10)] } else { r.random::<u16>() & 0xFFC };
                    let req = if r.random_bool(0.6) { MASTER } else { r.random() };
                    let (v, be) = (r.random(), if r.random_bool(0.8) { 0xF } else { r.random_range(1..16) });
                    // Keep the routes and trees in place most of the time: write what the episode wrote.
                    let v = match off {
                        0x104 => r.random_range(0..2),
                        0x108 => u32::from(MASTER),
                        0x114 => 0xF,
                        0x150 => 1 << 31 | u32::from(VNI),
                        _ => v,
                    };
                    if r.random_bool(0.1) {
                        // A multi-DW write into the window: `reg_access` (2 DW) or `too_long` (40 DW).
                        let n = if r.random_bool(0.5) { 8 } else { 160 };
                        let t = Tlp::memory_write(req, 0, u64::from(ENGINE_ID) << 16 | 0xC000 | u64::from(off), vec![0; n]).expect("mwr");
                        tlp_frame(seq, &t.to_bytes().expect("emit"))
                    } else if r.random_bool(0.3) {
                        // The same write encapsulated in kind 10 (payload type 2, docs/frames.md §4) in a
                        // VDM from `req`, naming this engine (its ID or 0xFFFF): the register write its
                        // [0175] twin would make (docs/blocks/input_checker.md §Encapsulated register write).
                        use inswitch_frames::encapsulated::{Encapsulated, RegisterWrite};
                        let pid = if r.random_bool(0.5) { ENGINE_ID } else { collective::NO_PARTICIPANT };
                        let w = RegisterWrite { engine_id: ENGINE_ID, offset: off, be, wdata: v };
                        let h = collective::CommonHeader { version: collective::VERSION, cc_id: r.random_range(0..0x1000), ..Default::default() };
                        let e = Encapsulated::wrap_register_write(h, r.random_bool(0.3), r.random(), r.random_range(0..0x400), &w).map(|mut e| {
                            e.header.p_id = pid;
                            e
                        });
                        match e.and_then(|e| e.to_message()).and_then(|m| collective::to_vdm(&m, req, ENGINE_ID, ENCAP_REG_TAG)).and_then(|t| t.to_bytes()) {
                            Ok(b) => tlp_frame(seq, &b),
                            // A flit-mode form takes no byte enables but 0xF: the [0175] write instead.
                            Err(_) => reg_write_frame(seq, req, ENGINE_ID, off, v, be),
                        }
                    } else {
                        reg_write_frame(seq, req, ENGINE_ID, off, v, be)
                    }
                }
                3 => {
                    // Memory write elsewhere (passes).
                    let r = &mut self.r;
                    let addr = u64::from(r.random::<u32>() & !3);
                    let t = Tlp::memory_write(r.random(), 0, addr, vec![1, 2, 3, 4]).expect("mwr");
                    tlp_frame(seq, &t.to_bytes().expect("emit"))
                }
                _ => {
                    let kind = [1u8, 2, 3, 3, 4, 4, 4, 5, 6, 7, 8][self.r.random_range(0..11)];
                    let mut m = self.collective(kind);
                    // A configuration message carries CONFIG_TAG, which its register writes carry; a
                    // third of them are long (LONG_CONFIG_DEVICES), with their own tag.
                    let mut tag = if kind == 1 { CONFIG_TAG } else { 0 };
                    if kind == 1 && self.r.random_bool(1.0 / 3.0) {
                        tag = self.lengthen(&mut m);
                    }
                    let r = &mut self.r;
                    let src = if r.random_bool(0.8) { PARTICIPANTS[r.random_range(0..4)] } else { r.random() };
                    let dst = if r.random_bool(0.85) { ENGINE_ID } else { r.random() };
                    match collective::to_vdm(&m, src, dst, tag).and_then(|t| t.to_bytes()) {
                        Ok(mut b) => {
                            // 15%: one header field made wrong before the LCRC is computed.
                            if r.random_bool(0.15) {
                                match r.random_range(0..7) {
                                    0 => b[2] |= 0x40,                  // EP: poisoned
                                    1 => b[1] |= 0x01,                  // TH: unsupported
                                    2 => b[7] ^= 0x01,                  // Message Code: unsupported
                                    3 => b[11] ^= 0x01,                 // Vendor ID: vendor
                                    4 => b[16] ^= 0x03,                 // collective version: malformed
                                    5 => b.truncate(b.len() - 4),       // length
                                    _ => b[0] = 0xA0 | (b[0] & 0x1F),   // Fmt 101: malformed
                                }
                            }
                            tlp_frame(seq, &b)
                        }
                        Err(_) => vec![0; 40],
                    }
                }
            }
        };
        // 4%: one byte corrupted (LCRC, FCS or a header field).
        if self.r.random_bool(0.04) && !f.is_empty() {
            let k = self.r.random_range(0..f.len());
            f[k] ^= 1 << self.r.random_range(0..8);
        }
        f
    }
}

impl Stimulus<EngineIn, EngineOut> for PacketEngineStimulus {
    fn next(&mut self, previous: &EngineOut) -> EngineIn {
        let kw = 32;
        let l = self.last;
        self.shared.check.set(false);
        self.tid_follow(previous);
        self.link.returned(&l, previous);
        if !l.rst {
            if previous.m_axis_vl_tvalid && l.m_axis_vl_tready {
                self.vl_occupancy += 1;
            }
            self.vl_occupancy -= i64::from(l.vl_credit_return);
        }
        if !self.link.resetting() && self.traffic_left == 0 && self.drain_left == 0 {
            self.episode();
        }
        if self.phases.tick(&mut self.r) {
            self.drain = [0.1, 0.4, 0.7, 1.0][self.r.random_range(0..4)];
            self.mode = if self.r.random_bool(EMIT_PHASE_WEIGHT) { TrafficMode::Emit } else { TrafficMode::Mixed };
        }
        let emit = self.mode == TrafficMode::Emit;
        let prof = self.phases.profile;
        let draining = self.traffic_left == 0;
        let mut i = EngineIn {
            m_axis_vl_tready: draining || !self.vl_stall.gap(&mut self.r, prof.stall, prof.persist),
            m_axis_egress_tready: draining || !self.eg_stall.gap(&mut self.r, prof.stall, prof.persist),
            m_reg_rsp_ready: draining || !self.rsp_stall.gap(&mut self.r, prof.stall, prof.persist),
            cfg_family: self.family,
            cfg_flit: self.flit,
            cfg_port: PORT,
            cfg_engine_id: ENGINE_ID,
            cfg_src_mac: 0x0200_0000_0010,
            cfg_dst_mac: 0x0200_0000_0001,
            pbv_rd_index: self.r.random_range(0..8),
            ..Default::default()
        };
        if self.link.reset(&mut i) {
            self.last = i;
            return i;
        }
        self.link.cpu_cfg_write(&mut i);
        if draining {
            self.drain_left -= 1;
            if self.drain_left == 0 {
                self.shared.check.set(true);
                self.shared.unsent.set(self.link.unsent());
            }
        } else {
            self.traffic_left -= 1;
        }
        let drain = if draining {
            1.0
        } else if emit {
            EMIT_DRAIN
        } else {
            self.drain
        };
        if self.vl_occupancy > 0 && self.r.random_bool(drain) {
            i.vl_credit_return = self.r.random_range(1..=self.vl_occupancy.min(2)) as u8;
        }
        if !hold_rx(&l, previous, &mut i) && self.link.credits() > 0 && (self.link.sending() || (!draining && self.link.cpu_cfg_done())) && (emit || !self.rx_idle.gap(&mut self.r, prof.idle, prof.persist)) {
            if !self.link.sending() {
                // The link's flit mode holds for one frame: a mixed phase's TLP frames are sometimes sent
                // on a flit-mode link (the partner retrains between frames, as it switches the family).
                let mut flit = false;
                let (fam, f) = match self.link.next_queued() {
                    Some(x) => x,
                    None if emit => (false, self.emit_frame()),
                    None => {
                        if self.r.random_bool(0.05) {
                            self.family = !self.family;
                        }
                        let fam = self.family;
                        flit = !fam && self.r.random_bool(FLIT_FRAME_WEIGHT);
                        (fam, if flit { self.flit_frame() } else { self.frame(fam) })
                    }
                };
                self.family = fam;
                i.cfg_family = fam;
                self.flit = flit;
                i.cfg_flit = flit;
                self.link.send(&f, kw, &mut self.r);
            }
            self.link.offer(&mut i);
        }
        self.last = i;
        i
    }
}
