//! Co-simulation of the packet-engine top (`rtl/packet_engine.v`, docs/blocks/packet_engine.md).
//!
//! Stimulus (seeded, in episodes): a reset; then a credit-respecting link partner sends the configuration
//! as memory writes into the engine's window: the CPU's through the register space's CPU window (ENGINE_SFA,
//! PBV entries and flags, timeouts, five static entries of both families; the engine ID is the strap) and
//! the rest of the register space (VNI, routes to this port and to another, multicast trees, sometimes the
//! lock and MASTER_ID), with one CPU back-door write (`cpu_cfg_wr_*`) after the post-reset copy; followed by
//! a random mix of frames built with the frames crate: register writes (authorized and not, mapped and
//! not), register reads (answered by completions; 2-DW and mailbox reads get Unsupported Requests),
//! collective messages of
//! every kind to configured and unknown contexts (with the context's TID as the CPU's events show it,
//! or one behind, or random: 001's `OLD_TID` / `BAD_TID` end to end), Soft Portals arm and data frames on armed and unarmed
//! trees with allowed and foreign VNIs, frames for other devices (pass-through), malformed frames (bad
//! LCRC/FCS, random bytes, wrong EtherType); the port family changes between frames. Every sink (VL queue,
//! egress, register responses) stalls in phases and the VL queue returns credits at random rates. A
//! quarter of the phases are emit phases ([`TrafficMode::Emit`]): frames that make the engine emit into
//! this port while the VL queue returns its slots slowly, which reaches the interposer's start contention
//! (counted: `start_contention_cycles`). Each episode ends with a drain (no new frame, every sink ready)
//! and the scoreboard's balance check.
//!
//! Scoreboard (transaction level, from the top's ports only): every receive frame either leaves on
//! `m_axis_vl` whole and in order among the passed frames, or is extracted; extracted frames = checker
//! outcomes (register access + message + counted drop reasons); register accesses = responses (the
//! `m_reg_rsp` tap); non-posted accesses = completions: register reads answered OK = CplD, reads the
//! register space rejected = Completer Aborts, writes = posted responses (no completion), Unsupported
//! Requests ≥ unmapped reads (the rest are the checker's dropped non-posted requests); frames the VL queue
//! gets that did not come from the port = injections (collective frames or completions with a good LCRC
//! that parse); frames built + completions = injected + egress + route misses; egress frames carry a tdest
//! other than this port; and after each drain the credits balance: partner credits + injection credits =
//! the VL depth, injection credits = `INJ_CREDITS`.

use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ControlBody, DataFixed, ErrorBody, InitBody};
use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
use inswitch_frames::portals::{ReductionFrame, ReductionHeader};
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::cpu::context::role;
use inswitch_model::cpu::event as cpu_event;
use inswitch_model::packet_engine::{EngineIn, EngineOut, EngineParams, PacketEngine};
use inswitch_model::{Block, Wide};
use rand::RngExt;

use crate::blocks::input_checker::tlp_frame;
use crate::checker::{self, Bench, FailureReport, Monitor, Outcome, RunConfig, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, Gaps, Phases, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// Cycles after a reset before the stimulus uses the CPU back door (`cpu_cfg_wr_*`): the register space's
/// post-reset copy to the CPU (10 writes from the second cycle after the reset) has priority over it.
pub const CPU_BACK_DOOR_DELAY: u64 = 12;

/// The Verilated top.
pub type PacketEngineRtl = VerilatedDut<EngineIn, EngineOut>;

/// The engine's device ID (strap).
pub const ENGINE_ID: u16 = 0x0010;
/// This port's number (strap); the output queue's port 7 is injection.
pub const PORT: u8 = 7;
/// The other port the routes use.
pub const OTHER_PORT: u8 = 3;
/// The configuring master's requester ID.
pub const MASTER: u16 = 0x0001;
/// VL-queue depth of the testbench, in beat slots.
pub const VL_DEPTH: i64 = 24;
const ETHERTYPE: u16 = 0x88B5;
const VNI: u16 = 0x0042;
/// Participants (PBV table entries 0-3 of the CPU).
const PARTICIPANTS: [u16; 4] = [0x0011, 0x0012, 0x0013, 0x8014];
/// TLP contexts with a static entry (CC_ID).
const TLP_CTX: [u16; 3] = [1, 2, 3];
/// Multicast trees armed in the interposer (wait count > 0) and their static entries.
const TREES: [u16; 2] = [3, 5];
const RESET_CYCLES: u64 = 3;
/// The 2-bit transaction ID's mask (001; `collective::TID_BITS`).
const TID_MASK: u8 = (1 << collective::TID_BITS) - 1;
const DRAIN_CYCLES: u64 = 3000;

/// Traffic mode of a stimulus phase, drawn with every new phase (docs/verification.md §Packet-engine top).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrafficMode {
    /// The random mix of every frame kind, sinks and credit returns as the phase's profile says.
    Mixed,
    /// Emission pressure: back-to-back frames that make the engine emit frames for this port (CONTROL
    /// commands the CPU replicates to every PBV participant and acknowledges, acknowledged
    /// INITIALIZATIONs, register reads answered by completions), while the VL queue returns its slots
    /// slowly. The injection reserve runs dry, the output queue and everything behind it back up to the
    /// interposer's extraction path, and receive frame starts wait behind it while the engine has frames
    /// to inject: the interposer's start contention (docs/blocks/interposer.md §Arbitration).
    Emit,
}

/// Probability that a phase is an [`TrafficMode::Emit`] phase.
pub const EMIT_PHASE_WEIGHT: f64 = 0.25;
/// The VL queue's chance per cycle of returning slots during an emit phase: one or two slots about every
/// tenth cycle, well below the rate at which the CPU emits, so that the injection reserve is the
/// bottleneck.
const EMIT_DRAIN: f64 = 0.1;
/// PBV of the INITIALIZATIONs of an emit phase: the three participants routed to this port.
const EMIT_PBV: u128 = 0b0111;

/// Parameters of a Verilated top, from its build.rs entry over the RTL defaults.
pub fn params_of(model: &str) -> Result<EngineParams, HarnessError> {
    Ok(inswitch_model::registry::typed::packet_engine(&crate::targets::model_params(model)?))
}

/// A memory write of one DW into engine `id`'s register window at `offset`.
pub fn reg_write_frame(seq: u16, requester: u16, id: u16, offset: u16, value: u32, be: u8) -> Vec<u8> {
    let addr = u64::from(id) << 16 | 0xC000 | u64::from(offset & 0xFFF);
    let mut t = Tlp::memory_write(requester, 0, addr, value.to_le_bytes().to_vec()).expect("mwr");
    if let Header::Memory { req, .. } = &mut t.header {
        req.first_be = be;
    }
    tlp_frame(seq, &t.to_bytes().expect("emit"))
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

fn beats(bytes: &[u8], kw: usize, r: &mut StimRng) -> VecDeque<(Wide, u64, bool)> {
    let n = bytes.len().max(1);
    let nb = n.div_ceil(kw);
    (0..nb)
        .map(|b| {
            let mut d = Wide::ZERO;
            let chunk = bytes.get(b * kw..((b + 1) * kw).min(bytes.len())).unwrap_or(&[]);
            for k in 0..kw {
                d.set_byte(k, chunk.get(k).copied().unwrap_or_else(|| r.random()));
            }
            let len = chunk.len().max(1);
            let mut keep = if len >= 64 { u64::MAX } else { (1u64 << len) - 1 };
            // 0.5% of the beats before the last: a hole in tkeep (the checker's `tkeep` drop).
            if b + 1 < nb && r.random_bool(0.005) {
                keep &= !(1 << r.random_range(0..kw));
            }
            (d, keep, b + 1 == nb)
        })
        .collect()
}

/// What the stimulus tells the scoreboard: the cycle to check the balances on (end of a drain), the
/// receive beats and frames it still had to send then, and its seed (for liveness messages).
#[derive(Clone, Default)]
pub struct Shared {
    check: Rc<Cell<bool>>,
    unsent: Rc<Cell<(usize, usize)>>,
    seed: Rc<Cell<u64>>,
    /// The model's interposer start contention of this cycle ([`ObservedEngine`]).
    contention: Rc<Cell<bool>>,
}

/// The top's model as the lockstep steps it, passing the interposer's start contention
/// ([`PacketEngine::start_contention`], a model observation the RTL has no port for) to the scoreboard
/// for functional coverage. Its outputs are the model's, unchanged.
pub struct ObservedEngine {
    engine: PacketEngine,
    shared: Shared,
}

impl ObservedEngine {
    /// Wraps `engine`, reporting into `shared`.
    pub fn new(engine: PacketEngine, shared: Shared) -> Self {
        ObservedEngine { engine, shared }
    }

    /// The wrapped model.
    pub fn engine(&self) -> &PacketEngine {
        &self.engine
    }
}

impl Block for ObservedEngine {
    type In = EngineIn;
    type Out = EngineOut;

    fn step(&mut self, i: &EngineIn) -> EngineOut {
        let o = self.engine.step(i);
        self.shared.contention.set(self.engine.start_contention());
        o
    }
}

/// Cycles the scoreboard allows without progress (a beat taken on any port, a register response, an
/// event, a credit returned) while work is pending (a receive beat offered, an output valid) before it
/// reports a deadlock. The stimulus's sinks stall in gaps that continue with probability at most 0.95
/// per cycle (`stimulus::Profile`), so a legitimate 5,000-cycle standstill has a probability below
/// 10^-100; the engine's deepest pipeline is 35 cycles.
pub const LIVENESS_CYCLES: u64 = 5_000;

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
    reset_left: u64,
    cpu_cfg: VecDeque<(u16, u32)>,
    cpu_cfg_delay: u64,
    frames: VecDeque<(bool, Vec<u8>)>,
    rx_beats: VecDeque<(Wide, u64, bool)>,
    partner_credits: i64,
    vl_occupancy: i64,
    family: bool,
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
            reset_left: 0,
            cpu_cfg: VecDeque::new(),
            cpu_cfg_delay: 0,
            frames: VecDeque::new(),
            rx_beats: VecDeque::new(),
            partner_credits: 0,
            vl_occupancy: 0,
            family: false,
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
        self.reset_left = RESET_CYCLES;
        self.traffic_left = r.random_range(4_000..60_000);
        self.drain_left = DRAIN_CYCLES;
        self.rx_beats.clear();
        self.partner_credits = VL_DEPTH - i64::from(self.p.inj_credits);
        self.vl_occupancy = 0;
        // CPU, through the register space's CPU window (docs/registers.md; the ENGINE_ID strap reaches
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
        let statics = [(1u32, 0u32), (2, 0), (3, 0), (3, 1), (5, 1)];
        // A reset clears every context's TID (docs/cpu.md §1).
        self.tids = [0; TLP_CTX.len()];
        self.masters = [false; TLP_CTX.len()];
        for (s, &(key, fam)) in statics.iter().enumerate().take(self.p.static_entries) {
            let master = r.random_bool(0.5);
            if let Some(c) = TLP_CTX.iter().position(|&k| fam == 0 && u32::from(k) == key) {
                self.masters[c] = master;
            }
            let s = s as u16;
            w.push((0x604 + 8 * s, r.random_range(1..4)));
            w.push((0x600 + 8 * s, 1 << 31 | u32::from(if master { role::MASTER } else { role::SUBSERVIENT }) << 20 | fam << 16 | key));
        }
        // The back door stays exercised: a MODE write after the register space's post-reset copy (which
        // wins over the back door while it runs).
        self.cpu_cfg = [(0x089u16, 3 << 8)].into();
        self.cpu_cfg_delay = CPU_BACK_DOOR_DELAY;
        // Register space: VNI, routes, multicast trees, sometimes the lock.
        w.push((0x150, 1 << 31 | u32::from(VNI)));
        if r.random_bool(0.85) {
            w.extend([(0x200, 0x8000 << 16), (0x204, 1 << 31 | u32::from(PORT)), (0x208, 0x8000 << 16 | 0x8000), (0x20C, 1 << 31 | u32::from(OTHER_PORT))]);
        }
        for (k, &t) in TREES.iter().enumerate() {
            let base = 0x300 + 16 * k as u16;
            w.extend([(base + 4, r.random_range(1..4)), (base + 8, 0x0F), (base, 1 << 31 | u32::from(t))]);
        }
        if r.random_bool(0.5) {
            w.extend([(0x108, u32::from(MASTER)), (0x104, 1)]);
        }
        self.frames.clear();
        for (off, v) in w {
            let seq = self.next_seq();
            self.frames.push_back((false, reg_write_frame(seq, MASTER, ENGINE_ID, off, v, 0xF)));
        }
    }

    /// Follows the CPU's TID of each TLP context from its events (docs/cpu.md §2-§4): an INITIALIZATION
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
        // Mostly the context's TID; 12% one behind (a member that missed the Exit: "already
        // completed"), 10% random (half of them two behind or ahead: BAD_TID); an INITIALIZATION
        // sometimes starts the context at another TID.
        let cur = self.tids[ci];
        let tid = match r.random_range(0..100) {
            0..=11 if kind != 2 => cur.wrapping_sub(1) & TID_MASK,
            12..=21 => r.random_range(0..=TID_MASK),
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
            1 => Body::Configuration {
                fixed: collective::ConfigFixed { master_id: r.random(), n_devices: 2, ..Default::default() },
                device_ids: vec![0x0011, 0x0012],
                subservient_ids: vec![],
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
        CollectiveMessage { header, body }
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
                return reg_read_frame(seq, MASTER, off, 0xF, r.random_range(0..0x400));
            }
        };
        let header = CommonHeader { version: collective::VERSION, kind, non_posted: true, tid: self.tids[c], cc_id: TLP_CTX[c], p_id: collective::NO_PARTICIPANT, ..Default::default() };
        let m = CollectiveMessage { header, body };
        tlp_frame(seq, &collective::to_vdm(&m, MASTER, ENGINE_ID, 0).and_then(|t| t.to_bytes()).expect("a well-formed message"))
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
                    let tag = r.random_range(0..0x400u16);
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
                    let m = self.collective(kind);
                    let r = &mut self.r;
                    let src = if r.random_bool(0.8) { PARTICIPANTS[r.random_range(0..4)] } else { r.random() };
                    let dst = if r.random_bool(0.85) { ENGINE_ID } else { r.random() };
                    match collective::to_vdm(&m, src, dst, 0).and_then(|t| t.to_bytes()) {
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
        if !l.rst {
            if l.s_axis_rx_tvalid && previous.s_axis_rx_tready {
                self.rx_beats.pop_front();
                self.partner_credits -= 1;
            }
            if previous.m_axis_vl_tvalid && l.m_axis_vl_tready {
                self.vl_occupancy += 1;
            }
            self.partner_credits += i64::from(previous.link_credit_return);
            self.vl_occupancy -= i64::from(l.vl_credit_return);
        }
        if self.reset_left == 0 && self.traffic_left == 0 && self.drain_left == 0 {
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
            cfg_port: PORT,
            cfg_engine_id: ENGINE_ID,
            cfg_src_mac: 0x0200_0000_0010,
            cfg_dst_mac: 0x0200_0000_0001,
            pbv_rd_index: self.r.random_range(0..8),
            ..Default::default()
        };
        if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
            self.last = i;
            return i;
        }
        if self.cpu_cfg_delay > 0 {
            self.cpu_cfg_delay -= 1;
        } else if let Some((a, d)) = self.cpu_cfg.pop_front() {
            (i.cpu_cfg_wr_en, i.cpu_cfg_wr_addr, i.cpu_cfg_wr_data) = (true, a, d);
        }
        if draining {
            self.drain_left -= 1;
            if self.drain_left == 0 {
                self.shared.check.set(true);
                self.shared.unsent.set((self.rx_beats.len(), self.frames.len()));
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
        if l.s_axis_rx_tvalid && !previous.s_axis_rx_tready {
            i.s_axis_rx_tdata = l.s_axis_rx_tdata;
            i.s_axis_rx_tkeep = l.s_axis_rx_tkeep;
            i.s_axis_rx_tlast = l.s_axis_rx_tlast;
            i.s_axis_rx_tvalid = true;
        } else if self.partner_credits > 0 && (!self.rx_beats.is_empty() || (!draining && self.cpu_cfg.is_empty())) && (emit || !self.rx_idle.gap(&mut self.r, prof.idle, prof.persist)) {
            if self.rx_beats.is_empty() {
                let (fam, f) = match self.frames.pop_front() {
                    Some(x) => x,
                    None if emit => (false, self.emit_frame()),
                    None => {
                        if self.r.random_bool(0.05) {
                            self.family = !self.family;
                        }
                        let fam = self.family;
                        (fam, self.frame(fam))
                    }
                };
                self.family = fam;
                i.cfg_family = fam;
                self.rx_beats = beats(&f, kw, &mut self.r);
            }
            let (d, k, last) = self.rx_beats[0];
            (i.s_axis_rx_tdata, i.s_axis_rx_tkeep, i.s_axis_rx_tlast, i.s_axis_rx_tvalid) = (d, k, last, true);
        }
        self.last = i;
        i
    }
}

/// Counters of [`PacketEngineMonitor`] (coverage).
pub const COUNTERS: [&str; N_COUNTERS] = [
    "rx_frames",
    "passed_frames",
    "extracted_frames",
    "injected_frames",
    "egress_frames",
    "reg_accesses",
    "reg_rsp_ok",
    "reg_rsp_rejected",
    "reg_rsp_unmapped",
    "messages_to_cpu",
    "checker_drops",
    "frames_built",
    "builder_drops",
    "route_misses",
    "cpu_events",
    "balance_checks",
    "balance_checks_skipped",
    "resets",
    "rx_stall_cycles",
    "vl_stall_cycles",
    "reg_reads",
    "reg_reads_ok",
    "reg_reads_rejected",
    "reg_reads_unmapped",
    "reg_writes",
    "cpl_sc",
    "cpl_ur",
    "cpl_ca",
    "cpl_posted",
    "completions_injected",
    "cpu_accept",
    "cpu_old_tid",
    "cpu_bad_tid",
    "start_contention_cycles",
];

/// Number of [`COUNTERS`].
pub const N_COUNTERS: usize = 34;

fn ix(name: &str) -> usize {
    COUNTERS.iter().position(|&n| n == name).expect("counter name")
}

/// Why `f` is not a frame the frame builder could have made (a Soft Portals frame with a good FCS, or a
/// TLP frame with a good LCRC that parses), if it is not.
pub fn malformed_engine_frame(f: &[u8]) -> Option<String> {
    if f.len() == inswitch_frames::ethernet::SOFT_PORTALS_LEN {
        return match SoftPortals::parse(f) {
            Ok(sp) if sp.check_fcs().is_ok() => None,
            Ok(_) => Some("bad FCS".into()),
            Err(e) => Some(format!("{e}")),
        };
    }
    if f.len() < 2 + 12 + 4 {
        return Some("too short".into());
    }
    let seq = u16::from_be_bytes([f[0], f[1]]);
    let tlp = &f[2..f.len() - 4];
    let lcrc = u32::from_le_bytes([f[f.len() - 4], f[f.len() - 3], f[f.len() - 2], f[f.len() - 1]]);
    if inswitch_frames::crc::lcrc(seq, tlp) != lcrc {
        return Some("bad LCRC".into());
    }
    Tlp::parse(tlp).err().map(|e| format!("{e}"))
}

/// The completion header of `f` if it is a completion frame (data-link form, good LCRC, parses).
pub fn completion_of(f: &[u8]) -> Option<inswitch_frames::tlp::CompletionHeader> {
    if f.len() < 2 + 12 + 4 || malformed_engine_frame(f).is_some() {
        return None;
    }
    match Tlp::parse(&f[2..f.len() - 4]) {
        Ok(Tlp { header: Header::Completion(h), .. }) => Some(h),
        _ => None,
    }
}

/// The end-to-end scoreboard of the top.
pub struct PacketEngineMonitor {
    shared: Shared,
    log: TransactionLog,
    counts: [u64; N_COUNTERS],
    /// Per-episode counts, for the balances.
    ep: [i64; N_COUNTERS],
    /// Receive frames not yet seen leaving (bytes), oldest first; `rx_cur` is the one arriving.
    rx: VecDeque<Vec<u8>>,
    rx_cur: Vec<u8>,
    vl_cur: Vec<u8>,
    eg_open: bool,
    partner: i64,
    occupancy: i64,
    last_activity: u64,
    /// Last cycle with progress or nothing pending (liveness).
    last_progress: u64,
    /// Drop reason events seen, per checker bit (coverage of every outcome).
    pub checker_bits: [u64; 21],
    inj_credits: i64,
}

fn append(v: &mut Vec<u8>, d: &Wide, keep: u64) {
    for k in 0..32 {
        if keep >> k & 1 != 0 {
            v.push(d.byte(k));
        }
    }
}

impl PacketEngineMonitor {
    /// A scoreboard sharing `shared` with the stimulus.
    pub fn new(shared: Shared, p: EngineParams) -> Self {
        PacketEngineMonitor {
            shared,
            log: TransactionLog::default(),
            counts: [0; N_COUNTERS],
            ep: [0; N_COUNTERS],
            rx: VecDeque::new(),
            rx_cur: Vec::new(),
            vl_cur: Vec::new(),
            eg_open: false,
            partner: VL_DEPTH - i64::from(p.inj_credits),
            occupancy: 0,
            last_activity: 0,
            last_progress: 0,
            checker_bits: [0; 21],
            inj_credits: i64::from(p.inj_credits),
        }
    }

    fn bump(&mut self, name: &str) {
        let k = ix(name);
        self.counts[k] += 1;
        self.ep[k] += 1;
    }

    fn e(&self, name: &str) -> i64 {
        self.ep[ix(name)]
    }

    /// Liveness at the end of a drain (every sink ready for `DRAIN_CYCLES`): the stimulus sent every
    /// receive frame it had, whatever else happened (an engine that stops taking receive beats is a
    /// deadlock, e.g. the interposer's, even if every frame it did take is accounted for).
    fn drained(&mut self, cycle: u64) -> Result<(), String> {
        let (beats, frames) = self.shared.unsent.get();
        if beats + frames > 0 {
            return Err(format!(
                "liveness after the drain (seed {}, cycle {cycle}): {beats} beats of a receive frame and {frames} more frames never sent: the engine stopped taking receive beats",
                self.shared.seed.get()
            ));
        }
        Ok(())
    }

    /// Liveness every cycle: some progress within [`LIVENESS_CYCLES`] while work is pending.
    fn progress(&mut self, cycle: u64, i: &EngineIn, o: &EngineOut) -> Result<(), String> {
        let moved = (i.s_axis_rx_tvalid && o.s_axis_rx_tready)
            || (o.m_axis_vl_tvalid && i.m_axis_vl_tready)
            || (o.m_axis_egress_tvalid && i.m_axis_egress_tready)
            || o.m_reg_rsp_valid
            || o.cpu_stat_valid
            || o.stat_event != 0
            || o.link_credit_return != 0;
        let pending = i.s_axis_rx_tvalid || o.m_axis_vl_tvalid || o.m_axis_egress_tvalid;
        if moved || !pending {
            self.last_progress = cycle;
        } else if cycle - self.last_progress >= LIVENESS_CYCLES {
            return Err(format!(
                "liveness (seed {}, cycle {cycle}): no progress for {LIVENESS_CYCLES} cycles while work is pending: receive beat offered {}, m_axis_vl valid {} (ready {}), m_axis_egress valid {} (ready {})",
                self.shared.seed.get(),
                i.s_axis_rx_tvalid,
                o.m_axis_vl_tvalid,
                i.m_axis_vl_tready,
                o.m_axis_egress_tvalid,
                i.m_axis_egress_tready
            ));
        }
        Ok(())
    }

    fn balance(&mut self, cycle: u64, o: &EngineOut) -> Result<(), String> {
        if cycle - self.last_activity < 400 {
            self.counts[ix("balance_checks_skipped")] += 1;
            return Ok(());
        }
        // Receive frames after the last passed one were all extracted.
        while self.rx.pop_front().is_some() {
            self.bump("extracted_frames");
        }
        let e = |n: &str| self.e(n);
        let checks = [
            ("receive frames = passed + extracted", e("rx_frames"), e("passed_frames") + e("extracted_frames")),
            ("extracted = register accesses + messages + checker drops", e("extracted_frames"), e("reg_accesses") + e("messages_to_cpu") + e("checker_drops")),
            ("register accesses = responses", e("reg_accesses"), e("reg_rsp_ok") + e("reg_rsp_rejected") + e("reg_rsp_unmapped")),
            ("register reads answered OK = CplD", e("reg_reads_ok"), e("cpl_sc")),
            ("register reads rejected = Completer Aborts", e("reg_reads_rejected"), e("cpl_ca")),
            ("register writes = posted (no completion)", e("reg_writes"), e("cpl_posted")),
            ("Unsupported Requests >= unmapped reads", e("cpl_ur").min(e("reg_reads_unmapped")), e("reg_reads_unmapped")),
            (
                "frames built + completions = injected + egress + route misses",
                e("frames_built") + e("cpl_sc") + e("cpl_ur") + e("cpl_ca"),
                e("injected_frames") + e("egress_frames") + e("route_misses"),
            ),
            ("partner credits + injection credits = VL depth", self.partner + i64::from(o.stat_inj_credits) + self.occupancy, VL_DEPTH),
            ("injection credits refilled", i64::from(o.stat_inj_credits), self.inj_credits),
        ];
        for (what, a, b) in checks {
            if a != b {
                return Err(format!("balance after the drain: {what}: {a} != {b}"));
            }
        }
        // Quiet for 400 cycles with every sink ready: the outputs stopped because nothing is left, not
        // in the middle of a frame.
        if o.m_axis_vl_tvalid || o.m_axis_egress_tvalid || !self.vl_cur.is_empty() || self.eg_open || !self.rx_cur.is_empty() {
            return Err(format!(
                "liveness after the drain (seed {}, cycle {cycle}): a frame is still open (VL valid {}, egress valid {}, {} VL bytes, {} receive bytes)",
                self.shared.seed.get(),
                o.m_axis_vl_tvalid,
                o.m_axis_egress_tvalid,
                self.vl_cur.len(),
                self.rx_cur.len()
            ));
        }
        self.counts[ix("balance_checks")] += 1;
        self.log.push(cycle, "balance checked".into());
        Ok(())
    }
}

impl Monitor<EngineIn, EngineOut> for PacketEngineMonitor {
    fn observe(&mut self, cycle: u64, i: &EngineIn, o: &EngineOut) -> Result<(), String> {
        if i.rst {
            if !self.ep.iter().all(|&x| x == 0) || cycle == 0 {
                self.bump("resets");
            }
            self.ep = [0; N_COUNTERS];
            self.rx.clear();
            self.rx_cur.clear();
            self.vl_cur.clear();
            self.eg_open = false;
            self.partner = VL_DEPTH - self.inj_credits;
            self.occupancy = 0;
            self.last_progress = cycle;
            return Ok(());
        }
        self.progress(cycle, i, o)?;
        if self.shared.contention.get() {
            self.counts[ix("start_contention_cycles")] += 1;
        }
        // Receive frames.
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready {
            append(&mut self.rx_cur, &i.s_axis_rx_tdata, i.s_axis_rx_tkeep);
            self.partner -= 1;
            if i.s_axis_rx_tlast {
                self.rx.push_back(std::mem::take(&mut self.rx_cur));
                self.bump("rx_frames");
            }
        } else if i.s_axis_rx_tvalid {
            self.counts[ix("rx_stall_cycles")] += 1;
        }
        self.partner += i64::from(o.link_credit_return);
        self.occupancy -= i64::from(i.vl_credit_return);
        // VL frames: a passed receive frame (the oldest ones before it were extracted) or an injection.
        if o.m_axis_vl_tvalid && i.m_axis_vl_tready {
            self.occupancy += 1;
            append(&mut self.vl_cur, &o.m_axis_vl_tdata, o.m_axis_vl_tkeep);
            if o.m_axis_vl_tlast {
                let f = std::mem::take(&mut self.vl_cur);
                if let Some(k) = self.rx.iter().position(|x| *x == f) {
                    for _ in 0..k {
                        self.rx.pop_front();
                        self.bump("extracted_frames");
                    }
                    self.rx.pop_front();
                    self.bump("passed_frames");
                    self.log.push(cycle, format!("passed a {}-byte frame", f.len()));
                } else {
                    // Not a receive frame: it must be a well-formed frame as the builder makes them.
                    if let Some(why) = malformed_engine_frame(&f) {
                        return Err(format!("a {}-byte frame on m_axis_vl is neither a receive frame nor a built one ({why}): {f:02x?}", f.len()));
                    }
                    self.bump("injected_frames");
                    if let Some(cpl) = completion_of(&f) {
                        if cpl.completer_id != ENGINE_ID {
                            return Err(format!("a completion with Completer ID {:#06x}, not the engine's", cpl.completer_id));
                        }
                        self.bump("completions_injected");
                    }
                    self.log.push(cycle, format!("injected a {}-byte frame", f.len()));
                }
                self.last_activity = cycle;
            }
        } else if o.m_axis_vl_tvalid {
            self.counts[ix("vl_stall_cycles")] += 1;
        }
        if o.m_axis_egress_tvalid {
            if o.m_axis_egress_tdest == PORT & 0xF {
                return Err(format!("egress frame with tdest {} = this port", o.m_axis_egress_tdest));
            }
            if i.m_axis_egress_tready {
                self.eg_open = !o.m_axis_egress_tlast;
                if o.m_axis_egress_tlast {
                    self.bump("egress_frames");
                    self.log.push(cycle, format!("egress frame to port {}", o.m_axis_egress_tdest));
                    self.last_activity = cycle;
                }
            }
        }
        // The tap: one cycle per response (m_reg_rsp_ready does not matter).
        if o.m_reg_rsp_valid {
            self.bump(if o.m_reg_rsp_write { "reg_writes" } else { "reg_reads" });
            if !o.m_reg_rsp_write {
                self.bump(match o.m_reg_rsp_status {
                    0 => "reg_reads_ok",
                    1 => "reg_reads_rejected",
                    _ => "reg_reads_unmapped",
                });
            }
            let n = match o.m_reg_rsp_status {
                0 => "reg_rsp_ok",
                1 => "reg_rsp_rejected",
                2 => "reg_rsp_unmapped",
                s => return Err(format!("register response status {s}")),
            };
            self.bump(n);
            self.log.push(cycle, format!("register response {n} tag {:#x} src {:#06x}", o.m_reg_rsp_tag, o.m_reg_rsp_src));
        }
        // Events (docs/blocks/packet_engine.md §Events).
        let ev = o.stat_event;
        for (b, n) in [(28, "cpl_sc"), (29, "cpl_ur"), (30, "cpl_ca"), (31, "cpl_posted")] {
            if ev >> b & 1 != 0 {
                self.bump(n);
                self.last_activity = cycle;
            }
        }
        for b in 0..21 {
            if ev >> b & 1 != 0 {
                self.checker_bits[b] += 1;
                self.bump(match b {
                    0 => "reg_accesses",
                    1 => "messages_to_cpu",
                    _ => "checker_drops",
                });
            }
        }
        if ev >> 24 & 1 != 0 {
            self.bump("route_misses");
        }
        if ev >> 25 & 1 != 0 {
            self.bump("frames_built");
            self.last_activity = cycle;
        }
        if ev >> 26 & 1 != 0 {
            self.bump("builder_drops");
        }
        if o.cpu_stat_valid {
            self.bump("cpu_events");
            self.last_activity = cycle;
            // The TID paths end to end (001): contributions counted, "already completed", dropped.
            match o.cpu_stat_event {
                cpu_event::ACCEPT => self.bump("cpu_accept"),
                cpu_event::OLD_TID => self.bump("cpu_old_tid"),
                cpu_event::BAD_TID => self.bump("cpu_bad_tid"),
                _ => {}
            }
        }
        if ev & 0x1F_FFFF != 0 {
            self.last_activity = cycle;
        }
        if self.shared.check.get() {
            self.drained(cycle)?;
            self.balance(cycle, o)?;
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v: Vec<(&'static str, u64)> = COUNTERS.iter().copied().zip(self.counts).collect();
        // Distinct checker drop reasons (bits 2-20) seen at least once.
        v.push(("drop_reasons_seen", self.checker_bits[2..].iter().filter(|&&n| n > 0).count() as u64));
        v.push(("drop_reasons_mask", self.checker_bits.iter().enumerate().filter(|(_, &n)| n > 0).fold(0, |a, (k, _)| a | 1 << k)));
        v
    }
}

/// Builds a fresh lockstep bench for the Verilated top `model` and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<ObservedEngine, PacketEngineRtl, PacketEngineStimulus, PacketEngineMonitor>, HarnessError> {
    let p = params_of(model)?;
    let m = PacketEngine::power_on(p).map_err(|e| HarnessError::Params { model: "packet_engine", detail: e.to_string() })?;
    let shared = Shared::default();
    let m = ObservedEngine::new(m, shared.clone());
    Ok((m, PacketEngineRtl::new(model)?, PacketEngineStimulus::new(p, seed, shared.clone()), PacketEngineMonitor::new(shared, p)))
}

/// Runs the top target `model`.
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, Box<FailureReport>> {
    let reproduce = |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block packet_engine --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}

/// A directed stimulus: a reset, CPU configuration writes, then `frames` one after the other on a TLP
/// port (every sink ready, the VL queue returning every slot at once).
pub struct DirectedStimulus {
    p: EngineParams,
    reset_left: u64,
    cpu_cfg: VecDeque<(u16, u32)>,
    cpu_cfg_delay: u64,
    frames: VecDeque<(bool, Vec<u8>)>,
    rx_beats: VecDeque<(Wide, u64, bool)>,
    partner_credits: i64,
    last: EngineIn,
    r: StimRng,
    cycle: u64,
    family: bool,
}

impl DirectedStimulus {
    /// Sends `frames` after writing `cpu_cfg` into the CPU.
    pub fn new(p: EngineParams, cpu_cfg: Vec<(u16, u32)>, frames: Vec<Vec<u8>>) -> Self {
        Self::mixed(p, cpu_cfg, frames.into_iter().map(|f| (false, f)).collect())
    }

    /// Sends `frames`, each with the port family it is sent under (`true`: Soft Portals).
    pub fn mixed(p: EngineParams, cpu_cfg: Vec<(u16, u32)>, frames: Vec<(bool, Vec<u8>)>) -> Self {
        DirectedStimulus {
            p,
            reset_left: RESET_CYCLES,
            cpu_cfg: cpu_cfg.into(),
            cpu_cfg_delay: CPU_BACK_DOOR_DELAY,
            frames: frames.into(),
            rx_beats: VecDeque::new(),
            partner_credits: VL_DEPTH - i64::from(p.inj_credits),
            last: EngineIn::default(),
            r: stimulus::rng(0, 1),
            cycle: 0,
            family: false,
        }
    }
}

impl Stimulus<EngineIn, EngineOut> for DirectedStimulus {
    fn next(&mut self, previous: &EngineOut) -> EngineIn {
        let l = self.last;
        if !l.rst {
            if l.s_axis_rx_tvalid && previous.s_axis_rx_tready {
                self.rx_beats.pop_front();
                self.partner_credits -= 1;
            }
            self.partner_credits += i64::from(previous.link_credit_return);
        }
        let mut i = EngineIn {
            m_axis_vl_tready: true,
            m_axis_egress_tready: true,
            m_reg_rsp_ready: true,
            cfg_port: PORT,
            cfg_engine_id: ENGINE_ID,
            cfg_src_mac: 0x0200_0000_0010,
            cfg_dst_mac: 0x0200_0000_0001,
            // Walk the PBV read port over the first 8 entries (compared in lockstep).
            pbv_rd_index: (self.cycle % 8) as u8,
            cfg_family: self.family,
            ..Default::default()
        };
        self.cycle += 1;
        // The VL queue frees each slot the cycle after it fills.
        if previous.m_axis_vl_tvalid && l.m_axis_vl_tready && !l.rst {
            i.vl_credit_return = 1;
        }
        if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
            self.last = i;
            return i;
        }
        let _ = self.p;
        if self.cpu_cfg_delay > 0 {
            self.cpu_cfg_delay -= 1;
        } else if let Some((a, d)) = self.cpu_cfg.pop_front() {
            (i.cpu_cfg_wr_en, i.cpu_cfg_wr_addr, i.cpu_cfg_wr_data) = (true, a, d);
        } else if l.s_axis_rx_tvalid && !previous.s_axis_rx_tready {
            (i.s_axis_rx_tdata, i.s_axis_rx_tkeep, i.s_axis_rx_tlast, i.s_axis_rx_tvalid) = (l.s_axis_rx_tdata, l.s_axis_rx_tkeep, l.s_axis_rx_tlast, true);
        } else if self.partner_credits > 0 {
            if self.rx_beats.is_empty() {
                if let Some((fam, f)) = self.frames.pop_front() {
                    self.family = fam;
                    i.cfg_family = fam;
                    self.rx_beats = beats(&f, 32, &mut self.r);
                }
            }
            if let Some(&(d, k, last)) = self.rx_beats.front() {
                (i.s_axis_rx_tdata, i.s_axis_rx_tkeep, i.s_axis_rx_tlast, i.s_axis_rx_tvalid) = (d, k, last, true);
            }
        }
        self.last = i;
        i
    }
}

/// A monitor that only records: frames on `m_axis_vl` and `m_axis_egress`, register responses, events.
#[derive(Default)]
pub struct Recorder {
    /// Whole frames that left on `m_axis_vl`, in order.
    pub vl: Vec<Vec<u8>>,
    /// Whole frames that left on `m_axis_egress`, with their tdest.
    pub egress: Vec<(u8, Vec<u8>)>,
    /// Register responses (status, src).
    pub responses: Vec<(u8, u16)>,
    /// CPU events (event, family, ctx).
    pub cpu_events: Vec<(u8, bool, u16)>,
    /// Cycle of each receive frame's last beat (handshake).
    pub rx_done: Vec<u64>,
    /// Cycle of each `m_axis_vl` frame's first beat (handshake).
    pub vl_start: Vec<u64>,
    /// Cycle of each register response (handshake).
    pub rsp_at: Vec<u64>,
    vl_cur: Vec<u8>,
    eg_cur: Vec<u8>,
    log: TransactionLog,
}

impl Monitor<EngineIn, EngineOut> for Recorder {
    fn observe(&mut self, cycle: u64, i: &EngineIn, o: &EngineOut) -> Result<(), String> {
        if i.rst {
            return Ok(());
        }
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready && i.s_axis_rx_tlast {
            self.rx_done.push(cycle);
        }
        if o.m_axis_vl_tvalid && i.m_axis_vl_tready {
            if self.vl_cur.is_empty() {
                self.vl_start.push(cycle);
            }
            append(&mut self.vl_cur, &o.m_axis_vl_tdata, o.m_axis_vl_tkeep);
            if o.m_axis_vl_tlast {
                self.vl.push(std::mem::take(&mut self.vl_cur));
                self.log.push(cycle, "vl frame".into());
            }
        }
        if o.m_axis_egress_tvalid && i.m_axis_egress_tready {
            append(&mut self.eg_cur, &o.m_axis_egress_tdata, o.m_axis_egress_tkeep);
            if o.m_axis_egress_tlast {
                self.egress.push((o.m_axis_egress_tdest, std::mem::take(&mut self.eg_cur)));
            }
        }
        if o.m_reg_rsp_valid && i.m_reg_rsp_ready {
            self.responses.push((o.m_reg_rsp_status, o.m_reg_rsp_src));
            self.rsp_at.push(cycle);
        }
        if o.cpu_stat_valid {
            self.cpu_events.push((o.cpu_stat_event, o.cpu_stat_family, o.cpu_stat_ctx));
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}
