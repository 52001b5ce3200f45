//! Co-simulation of the collective processing unit (`rtl/cpu.v` vs `inswitch_model::cpu::Cpu`):
//! stimulus, an independent transaction-level reference scoreboard, functional coverage, target.
//!
//! Stimulus (seeded): *episodes* of 20,000-120,000 cycles, each a reset, a configuration burst (engine
//! registers, PBV table with end devices, switches and invalid entries, up to 16 static contexts of both
//! families with random roles, wait counts, timeouts and thresholds), then traffic: TLP contexts
//! initialized, contributed to by their participants (in random order, sometimes missing, duplicated,
//! from strangers, from the wrong sender for a valid P_ID, with old or impossible TIDs, the wrong
//! kind), controlled (start, pause, restart, stop, reset, undefined commands; posted and non-posted,
//! the latter acknowledged; sometimes with a TID other than the context's: the copies carry the
//! context's), asked to resend by RETRY requests (from the parent or a participant), answered by a simulated parent (COMPLETION after
//! a random delay, or never: retries); Portals trees with up to three concurrent reductions armed and re-armed, contributions with
//! wrong VNI / cookie / seqno, opcode mismatches, partial counts, late frames, more contexts than
//! descriptors; unknown contexts and kinds; idle gaps and output backpressure in phases. Configuration is
//! written only in the window after a reset (docs/cpu.md §5).
//!
//! Scoreboard: [`Reference`], a transaction-level statement of docs/cpu.md written independently of the
//! cycle model. For every accepted message it predicts the event(s) on `stat_*` and every outgoing
//! message, field by field, in order; results are the fold (the model's arithmetic on the literal tables
//! of `crate::sources`) of exactly the contributions it accepted
//! (never an incremental accumulator). Timers (docs/cpu.md §4 "Exact expiry"): the reference computes
//! each running timer's expiry cycle from its load, the cycle it started and the tick counter (ticks
//! every `TICK_CYCLES` from the last reset), not from the model; an expiry reported one cycle before the
//! sequencer could take it fails, a CPU still ready for messages on or after the expiry cycle fails (the
//! expiry is late). The sequencer is timed by docs/cpu.md §6 "Sequencer timing" from what the ports
//! show ([`Seq`]: each decision's hold, its EMIT list worked through on the observed output stalls), so
//! every expiry is taken on the documented idle cycle and must be reported exactly two cycles later,
//! whatever held the sequencer (a drop, a combine, an emission, another expiry); the CPU ready while the
//! documented sequencer is busy fails, and so does a message that appears on another cycle than the one
//! EMIT writes it on. Only an expiry no running timer explains (a timer frozen by PAUSE, resumed by
//! START: its remaining ticks are not counted) is left to "not early" (`timeouts_unpredicted`). When
//! `stat_*` reports an expiry it predicts the outcome; and every cycle it checks that no running timer is
//! overdue beyond the time a busy sequencer may take ("every armed context is freed after its timeout").

use std::collections::VecDeque;

use inswitch_model::cpu::config::{self as reg, mode_word, pbv_word, static_word0};
use inswitch_model::cpu::context::role;
use inswitch_model::cpu::{
    command, completion, event, next_seqno, reason, Cpu, CpuIn, CpuOut, CpuParams, COUNT_MAX, SEQNO_RESERVED,
};
use inswitch_model::message::{CollectiveMsg, Family, Kind, NO_PARTICIPANT};
use inswitch_model::reduce::stimulus::random_pair;
use inswitch_model::reduce::{combine_with, Contribution, Mode, Rc};
use rand::RngExt;

use crate::checker::{self, Bench, FailureReport, Monitor, Outcome, RunConfig, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, Gaps, Phases, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated CPU.
pub type CpuRtl = VerilatedDut<CpuIn, CpuOut>;

/// Parameters of a Verilated model, from its build.rs entry, over the RTL defaults.
pub fn params_of(model: &str) -> Result<CpuParams, HarnessError> {
    Ok(inswitch_model::registry::typed::cpu(&crate::targets::model_params(model)?))
}

/// Cycles of reset at the start of every episode.
const RESET_CYCLES: u64 = 3;
/// Shortest and longest episode (reset, configuration, traffic), in cycles.
const EPISODE_CYCLES: (u64, u64) = (20_000, 120_000);
/// The simulated source node / parent of every TLP context (000 [0097]'s upstream requester).
const SOURCE_ID: u16 = 0x0F0F;
/// Opcodes the contexts use (docs/reduction.md), an undefined one included.
const OPS: [u8; 14] = [0x00, 0x01, 0x03, 0x10, 0x11, 0x12, 0x14, 0x22, 0x24, 0x26, 0x28, 0x2e, 0x30, 0x3f];

/// One reduction of a Portals tree, as the stimulus sees it.
#[derive(Clone, Debug, Default)]
struct Red {
    armed: bool,
    seqno: u16,
    /// Cycle after which the tree is armed again (the root's multicast after a completion or timeout).
    rearm_at: u64,
}

/// A context of the stimulus world.
#[derive(Clone, Debug)]
struct World {
    portals: bool,
    key: u16,
    role: u8,
    op: u8,
    // TLP
    participants: Vec<usize>,
    init: bool,
    pbv: u128,
    pending: Vec<usize>,
    tid: u8,
    posted: bool,
    // Portals
    reds: Vec<Red>,
    vni: u16,
    cookie: u32,
}

enum Phase {
    Reset(u64),
    Config(VecDeque<(u16, u32)>),
    Traffic(u64),
}

/// The seeded stimulus of the CPU.
pub struct CpuStimulus {
    p: CpuParams,
    r: StimRng,
    phases: Phases,
    phase: Phase,
    cycle: u64,
    last: CpuIn,
    idle: Gaps,
    stall: Gaps,
    world: Vec<World>,
    /// PBV-table entries configured this episode: (index, valid, switch, device ID).
    table: Vec<(usize, bool, bool, u16)>,
    timeout_ticks: u32,
    /// Messages due at a cycle (a parent's COMPLETION).
    scheduled: Vec<(u64, CollectiveMsg)>,
    offered: Option<CollectiveMsg>,
    /// The engine's own device ID this episode (an INITIALIZATION with this P_ID is its own).
    engine_id: u16,
}

impl CpuStimulus {
    /// A stimulus for an instance with parameters `p` and `seed`.
    pub fn new(p: CpuParams, seed: u64) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        CpuStimulus {
            p,
            r,
            phases,
            phase: Phase::Reset(RESET_CYCLES),
            cycle: 0,
            last: CpuIn::default(),
            idle: Gaps::default(),
            stall: Gaps::default(),
            world: Vec::new(),
            table: Vec::new(),
            timeout_ticks: 8,
            scheduled: Vec::new(),
            offered: None,
            engine_id: 0,
        }
    }

    /// A new episode's configuration: engine registers, PBV table, static contexts.
    fn configure(&mut self) -> VecDeque<(u16, u32)> {
        self.engine_id = self.r.random::<u16>();
        let r = &mut self.r;
        let mut w = VecDeque::new();
        w.push_back((reg::ENGINE_ID, u32::from(self.engine_id)));
        w.push_back((reg::ENGINE_SFA, r.random()));
        w.push_back((reg::MODE, mode_word(r.random_bool(0.3), r.random_range(0..4))));
        let mut t = [0u32; 4];
        for (k, v) in t.iter_mut().enumerate() {
            *v = r.random_range(2..40);
            w.push_back((reg::TIMEOUT + k as u16, *v));
        }
        self.timeout_ticks = t[0];
        let mut h: Vec<u32> = (0..3).map(|_| r.random_range(1..8)).collect();
        h.sort_unstable();
        for (k, v) in h.iter().enumerate() {
            w.push_back((reg::THRESHOLD + k as u16, *v));
        }
        // PBV table: end devices, a few switches, a few entries left invalid but used in PBVs.
        self.table.clear();
        let n = r.random_range(6..20);
        let mut idx: Vec<usize> = Vec::new();
        while idx.len() < n {
            let i = if r.random_bool(0.7) { r.random_range(0..16) } else { r.random_range(0..128) };
            if !idx.contains(&i) {
                idx.push(i);
            }
        }
        for &i in &idx {
            let valid = r.random_bool(0.92);
            let switch = r.random_bool(0.25);
            let dev = 0x1000 | (i as u16) << 4 | r.random_range(0..16);
            self.table.push((i, valid, switch, dev));
            w.push_back((reg::PBV_TABLE + i as u16, pbv_word(valid, switch, dev)));
        }
        // Static contexts.
        self.world.clear();
        let n = self.p.static_entries.min(16);
        let mut keys: Vec<(bool, u16)> = Vec::new();
        for s in 0..n {
            let portals = r.random_bool(0.5);
            let key = loop {
                let k = if portals { r.random_range(0..0x2000) } else { r.random_range(0..0x1000) };
                if !keys.contains(&(portals, k)) {
                    break k;
                }
            };
            keys.push((portals, key));
            let role = if r.random_bool(0.35) { role::MASTER } else { role::SUBSERVIENT };
            let wait = r.random_range(1..6);
            let valid = r.random_bool(0.95);
            w.push_back((reg::STATIC + 2 * s as u16, static_word0(valid, portals, role, key)));
            w.push_back((reg::STATIC + 2 * s as u16 + 1, wait));
            let np = r.random_range(1..=self.table.len().min(8));
            let mut participants: Vec<usize> = Vec::new();
            while participants.len() < np {
                let e = self.table[r.random_range(0..self.table.len())].0;
                if !participants.contains(&e) {
                    participants.push(e);
                }
            }
            let reds = (0..r.random_range(1..=3)).map(|_| Red { seqno: r.random_range(0..1023), ..Red::default() }).collect();
            self.world.push(World {
                portals,
                key,
                role,
                op: OPS[r.random_range(0..OPS.len())],
                participants,
                init: false,
                pbv: 0,
                pending: Vec::new(),
                tid: 0,
                posted: r.random_bool(0.25),
                reds,
                vni: r.random(),
                cookie: r.random(),
            });
        }
        self.scheduled.clear();
        w
    }

    fn switch_of(&self, e: usize) -> bool {
        self.table.iter().find(|t| t.0 == e).is_some_and(|t| t.2)
    }

    fn dev_of(&self, e: usize) -> u16 {
        self.table.iter().find(|t| t.0 == e).map_or(0x0bad, |t| t.3)
    }

    /// Operands for `op`, from the reduction unit's special-value generator.
    fn operands(&mut self, op: u8) -> Contribution {
        let r = &mut self.r;
        let (_, mut b) = random_pair(&mut || r.random()).contributions();
        b.rt_op = op;
        b
    }

    fn base(&self, w: &World) -> CollectiveMsg {
        CollectiveMsg { family: if w.portals { Family::Portals } else { Family::Tlp }, pid: NO_PARTICIPANT, posted: true, ..CollectiveMsg::default() }
    }

    /// Reacts to what the CPU did on the previous cycle (the simulated parent and root).
    fn react(&mut self, o: &CpuOut) {
        if !o.stat_valid {
            return;
        }
        let portals = o.stat_family;
        let ctx = o.stat_ctx;
        let e = o.stat_event;
        let now = self.cycle;
        let tick = u64::from(self.p.tick_cycles);
        let Some(wi) = self.world.iter().position(|w| w.portals == portals && w.key == if portals { ctx & 0x1fff } else { ctx & 0xfff }) else {
            return;
        };
        if portals {
            let red = usize::from(ctx >> 13);
            let master = self.world[wi].role == role::MASTER;
            let delay = self.r.random_range(0..4 * tick * u64::from(self.timeout_ticks));
            if let Some(rd) = self.world[wi].reds.get_mut(red) {
                match e {
                    event::COMPLETE if master => rd.seqno = next_seqno(rd.seqno),
                    event::COMPLETE | event::TIMEOUT_PARTIAL | event::TIMEOUT_EMPTY => {
                        rd.armed = false;
                        rd.seqno = next_seqno(rd.seqno);
                        rd.rearm_at = now + delay;
                    }
                    event::ARM_NO_DESC => {
                        rd.armed = false;
                        rd.rearm_at = now + delay;
                    }
                    _ => {}
                }
            }
            return;
        }
        let delay = self.r.random_range(0..3 * tick * u64::from(self.timeout_ticks));
        let answer = self.r.random_bool(0.8);
        let w = &mut self.world[wi];
        let all = w.participants.iter().copied().filter(|&p| w.pbv >> p & 1 != 0).collect::<Vec<_>>();
        match e {
            event::COMPLETE | event::TIMEOUT_PARTIAL if w.role != role::MASTER => {
                // The parent answers the partial result with its COMPLETION, or (sometimes) never.
                let m = CollectiveMsg {
                    kind: Kind::COMPLETION,
                    ctx,
                    src: u32::from(SOURCE_ID),
                    pid: NO_PARTICIPANT,
                    code: completion::RESULT,
                    tid: w.tid,
                    posted: true,
                    data: [now, 0, 0, 0],
                    ..CollectiveMsg::default()
                };
                self.scheduled.extend(answer.then_some((now + delay, m)));
            }
            event::COMPLETE | event::TIMEOUT_MASTER | event::COMPLETION_DOWN | event::RETRY_EXHAUSTED => {
                w.tid = (w.tid + 1) & 3;
                w.pending = all;
            }
            event::CTRL_RESTART => w.pending = all,
            event::CTRL_RESET => {
                w.init = false;
                w.tid = 0;
            }
            _ => {}
        }
    }

    /// A new message for the traffic phase.
    fn generate(&mut self) -> CollectiveMsg {
        let now = self.cycle;
        if let Some(k) = self.scheduled.iter().position(|(due, _)| *due <= now) {
            return self.scheduled.swap_remove(k).1;
        }
        if self.r.random_bool(0.01) || self.world.is_empty() {
            return self.garbage();
        }
        let wi = self.r.random_range(0..self.world.len());
        if self.world[wi].portals {
            self.portals_msg(wi)
        } else {
            self.tlp_msg(wi)
        }
    }

    fn garbage(&mut self) -> CollectiveMsg {
        let r = &mut self.r;
        let portals = r.random_bool(0.5);
        let kind = if r.random_bool(0.5) { [0u8, 1, 7, 10, 15][r.random_range(0..5)] } else { [2u8, 3, 4, 5, 6, 8, 9][r.random_range(0..7)] };
        let mut m = CollectiveMsg {
            kind: Kind(kind),
            family: if portals { Family::Portals } else { Family::Tlp },
            ctx: if portals { r.random() } else { r.random_range(0..0x1000) },
            src: r.random(),
            pid: if r.random_bool(0.5) { NO_PARTICIPANT } else { r.random_range(0..200) },
            count: r.random_range(0..3),
            code: r.random_range(0..16),
            tid: r.random_range(0..4),
            seqno: r.random_range(0..1024),
            op: OPS[r.random_range(0..OPS.len())],
            ..CollectiveMsg::default()
        };
        if !portals {
            m.seqno = 0;
        }
        // Some of it for a configured context: a kind the family or role does not handle must meet a
        // live static entry too (the cross event x role x family, BAD_KIND).
        if !self.world.is_empty() && self.r.random_bool(0.3) {
            let w = &self.world[self.r.random_range(0..self.world.len())];
            m.family = if w.portals { Family::Portals } else { Family::Tlp };
            m.ctx = w.key;
            if !w.portals {
                m.seqno = 0;
            }
        }
        m
    }

    fn portals_msg(&mut self, wi: usize) -> CollectiveMsg {
        let now = self.cycle;
        let w = self.world[wi].clone();
        let red = self.r.random_range(0..w.reds.len());
        let rd = w.reds[red].clone();
        let ctx = (red as u16) << 13 | w.key;
        let dfa = 0x00C0_0000 | (red as u32) << 18 | u32::from(w.key) << 3;
        let mut m = CollectiveMsg { ctx, dst: dfa, port: self.r.random_range(0..16), ..self.base(&w) };
        let arm_now = (!rd.armed && now >= rd.rearm_at && self.r.random_bool(0.6)) || self.r.random_bool(0.005);
        if arm_now {
            m.kind = Kind::ARM;
            m.src = 0xAB00_0000 | u32::from(w.key);
            m.vni = w.vni;
            m.cookie = w.cookie;
            m.seqno = if self.r.random_bool(0.01) { SEQNO_RESERVED } else { rd.seqno };
            if rd.armed && m.seqno != SEQNO_RESERVED {
                // A re-arm of a (probably) live reduction: duplicated, older, or newer (002 (70)-(71));
                // a newer one moves the world's round on, so the contributions follow it.
                let k = self.r.random_range(1..=3u16);
                m.seqno = match self.r.random_range(0..3) {
                    0 => rd.seqno,
                    1 => (rd.seqno + 1023 - k) % 1023,
                    _ => {
                        let newer = (rd.seqno + k) % 1023;
                        self.world[wi].reds[red].seqno = newer;
                        newer
                    }
                };
            }
            m.resno = (m.seqno + 1022) % 1023;
            let c = self.operands(w.op);
            m.op = w.op;
            m.data = c.rt_data;
            if m.seqno != SEQNO_RESERVED {
                let rd = &mut self.world[wi].reds[red];
                rd.armed = true;
            }
            return m;
        }
        let c = self.operands(w.op);
        m.kind = Kind::CONTRIBUTION;
        m.src = 0x5F00_0000 | self.r.random_range(0..64);
        m.count = if self.r.random_bool(0.8) { 1 } else { self.r.random_range(1..5) };
        m.vni = if self.r.random_bool(0.03) { w.vni ^ 1 } else { w.vni };
        m.cookie = if self.r.random_bool(0.03) { w.cookie.rotate_left(1) } else { w.cookie };
        m.seqno = if self.r.random_bool(0.05) { self.r.random_range(0..1023) } else { rd.seqno };
        m.op = if self.r.random_bool(0.02) { OPS[self.r.random_range(0..OPS.len())] } else { c.rt_op };
        m.rc = c.rt_rc.0;
        m.repsum_m = c.rt_repsum_m;
        m.repsum_oflow_id = c.rt_repsum_oflow_id;
        m.data = c.rt_data;
        m
    }

    /// An INITIALIZATION for another engine (P_ID = a device ID, docs/cpu.md §2): mostly a switch
    /// participant of the context, else another table device or any ID; the world is unchanged.
    fn relayed_init(&mut self, mut m: CollectiveMsg, w: &World) -> CollectiveMsg {
        let switches: Vec<usize> = w.participants.iter().copied().filter(|&p| self.switch_of(p)).collect();
        let mut pid = match self.r.random_range(0..10) {
            0..=4 if !switches.is_empty() => {
                let k = self.r.random_range(0..switches.len());
                self.dev_of(switches[k])
            }
            0..=6 if !self.table.is_empty() => {
                let k = self.r.random_range(0..self.table.len());
                self.table[k].3
            }
            _ => self.r.random(),
        };
        while pid == self.engine_id || pid == NO_PARTICIPANT {
            pid = pid.wrapping_add(1);
        }
        let c = self.operands(w.op);
        m.kind = Kind::INITIALIZATION;
        m.pid = pid;
        m.count = self.r.random_range(0..9);
        m.pbv = self.r.random();
        m.op = w.op;
        m.data = c.rt_data;
        m.dmu_id = self.r.random();
        m.posted = self.r.random_bool(0.6);
        m.tid = self.r.random_range(0..4);
        m
    }

    fn tlp_msg(&mut self, wi: usize) -> CollectiveMsg {
        let w = self.world[wi].clone();
        let mut m = CollectiveMsg { ctx: w.key, src: u32::from(SOURCE_ID), dst: 0, tid: w.tid, ..self.base(&w) };
        if self.r.random_bool(if w.init { 0.01 } else { 0.02 }) {
            return self.relayed_init(m, &w);
        }
        if !w.init && self.r.random_bool(0.3) {
            // A command for a context not (or no longer) initialized: nothing to replicate.
            m.kind = Kind::CONTROL;
            m.code = self.r.random_range(0..7);
            m.posted = self.r.random_bool(0.5);
            m.tid = self.r.random_range(0..4);
            return m;
        }
        if !w.init || self.r.random_bool(0.003) {
            let mut pbv = 0u128;
            for &p in &w.participants {
                pbv |= 1 << p;
            }
            let n = pbv.count_ones();
            let count = match self.r.random_range(0..20) {
                0 => n + 1,
                1 => n.saturating_sub(1),
                _ => n,
            };
            let c = self.operands(w.op);
            m.kind = Kind::INITIALIZATION;
            m.count = count;
            m.pbv = pbv;
            m.op = w.op;
            m.data = c.rt_data;
            m.dmu_id = self.r.random();
            // Its own device ID as P_ID is the engine's own INITIALIZATION too (docs/cpu.md §2).
            if self.r.random_bool(0.2) {
                m.pid = self.engine_id;
            }
            m.posted = w.posted;
            m.tid = if self.r.random_bool(0.9) { w.tid } else { self.r.random_range(0..4) };
            let ww = &mut self.world[wi];
            ww.init = true;
            ww.pbv = pbv;
            ww.tid = m.tid;
            ww.pending = ww.participants.clone();
            return m;
        }
        let roll = self.r.random_range(0..1000);
        if roll < 40 {
            m.kind = Kind::CONTROL;
            m.code = match self.r.random_range(0..20) {
                0..=5 => command::START,
                6..=8 => command::PAUSE,
                9..=12 => command::RESTART,
                13..=14 => command::STOP,
                15 => command::RESET,
                _ => self.r.random_range(0..16),
            };
            m.posted = self.r.random_bool(0.7);
            // The sender's TID is not the context's: the copies take the context's, the
            // acknowledgement the sender's (docs/cpu.md §2).
            if self.r.random_bool(0.3) {
                m.tid = self.r.random_range(0..4);
            }
            return m;
        }
        if roll < 55 {
            m.kind = Kind::FAILURE;
            m.code = reason::TIMEOUT;
            m.src = u32::from(self.dev_of(w.participants[0]));
            return m;
        }
        if roll < 65 {
            m.kind = if self.r.random_bool(0.5) { Kind::COMPLETION } else { Kind::RETRY };
            m.tid = self.r.random_range(0..4);
            if m.kind == Kind::COMPLETION && self.r.random_bool(0.3) {
                // A child's acknowledgement of a relayed command, mostly with the context's TID.
                m.code = completion::ACKNOWLEDGED;
                if self.r.random_bool(0.7) {
                    m.tid = w.tid;
                }
            }
            return m;
        }
        if roll < 75 {
            // A retry request (000 [0117]), mostly from the parent, sometimes from a participant.
            m.kind = Kind::RETRY;
            m.code = reason::TIMEOUT;
            if self.r.random_bool(0.2) {
                let p = w.participants[self.r.random_range(0..w.participants.len())];
                m.src = u32::from(self.dev_of(p));
            }
            return m;
        }
        // A contribution from a participant, mostly one that has not contributed yet this round.
        let (p, fresh) = if !w.pending.is_empty() && self.r.random_bool(0.9) {
            let k = self.r.random_range(0..w.pending.len());
            (w.pending[k], Some(k))
        } else if self.r.random_bool(0.7) {
            (w.participants[self.r.random_range(0..w.participants.len())], None)
        } else {
            (self.table[self.r.random_range(0..self.table.len())].0, None)
        };
        if let Some(k) = fresh {
            self.world[wi].pending.swap_remove(k);
        }
        let switch = self.switch_of(p);
        let c = self.operands(w.op);
        m.kind = if switch != self.r.random_bool(0.02) { Kind::RESPONSE } else { Kind::CONTRIBUTION };
        m.src = u32::from(self.dev_of(p));
        m.pid = if self.r.random_bool(0.7) { p as u16 } else { NO_PARTICIPANT };
        if fresh.is_none() && self.r.random_bool(0.15) {
            // A valid P_ID from the wrong sender: a child passing a late frame up keeps its own P_ID,
            // a spoofer picks one (docs/cpu.md §2, WRONG_SENDER).
            m.pid = p as u16;
            let other = self.table[self.r.random_range(0..self.table.len())].0;
            m.src = u32::from(self.dev_of(other));
        }
        m.count = if switch { self.r.random_range(1..9) } else { 1 };
        m.tid = match self.r.random_range(0..50) {
            0..=2 => w.tid.wrapping_sub(1) & 3,
            3 => self.r.random_range(0..4),
            _ => w.tid,
        };
        m.posted = self.r.random_bool(0.5);
        m.op = if self.r.random_bool(0.02) { OPS[self.r.random_range(0..OPS.len())] } else { w.op };
        m.rc = c.rt_rc.0;
        m.repsum_m = c.rt_repsum_m;
        m.repsum_oflow_id = c.rt_repsum_oflow_id;
        m.data = c.rt_data;
        m
    }
}

impl Stimulus<CpuIn, CpuOut> for CpuStimulus {
    fn next(&mut self, previous: &CpuOut) -> CpuIn {
        let taken = self.last.s_msg_valid && previous.s_msg_ready;
        if taken {
            self.offered = None;
        }
        self.react(previous);
        self.cycle += 1;
        self.phases.tick(&mut self.r);
        let prof = self.phases.profile;
        let mut i = CpuIn { m_msg_ready: !self.stall.gap(&mut self.r, prof.stall, prof.persist), ..CpuIn::default() };
        match &mut self.phase {
            Phase::Reset(left) => {
                i.rst = true;
                *left -= 1;
                if *left == 0 {
                    let cfg = self.configure();
                    self.phase = Phase::Config(cfg);
                }
                self.offered = None;
            }
            Phase::Config(q) => {
                if let Some((a, d)) = q.pop_front() {
                    i = CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: d, ..i };
                } else {
                    let len = self.r.random_range(EPISODE_CYCLES.0..=EPISODE_CYCLES.1);
                    self.phase = Phase::Traffic(len);
                }
            }
            Phase::Traffic(left) => {
                *left -= 1;
                if *left == 0 {
                    self.phase = Phase::Reset(self.r.random_range(1..=RESET_CYCLES));
                }
                if self.offered.is_none() && !self.idle.gap(&mut self.r, prof.idle, prof.persist) {
                    self.offered = Some(self.generate());
                }
                if let Some(m) = self.offered {
                    i.set_msg(&m);
                }
            }
        }
        self.last = i;
        i
    }
}

/// A descriptor of the reference: the dynamic state of a live context.
#[derive(Clone, Debug)]
struct RDesc {
    portals: bool,
    key: u16,
    sidx: usize,
    role: u8,
    state: u8,
    failure: bool,
    paused: bool,
    pbv: u128,
    pcount: u32,
    count: u32,
    wait: u32,
    /// TLP: the stored initial accumulator, first operand of every round.
    init: Option<Contribution>,
    /// The contributions accepted this round, in order.
    accepted: Vec<Contribution>,
    vni: u16,
    cookie: u32,
    seqno: u16,
    dst: u32,
    port: u8,
    posted: bool,
    attempts: u8,
    sent_error: bool,
    /// Timer load in ticks.
    load: u32,
    /// Cycle from which the timer runs (None: not running).
    run_from: Option<u64>,
    /// The timer starts when the last message of the current event becomes visible.
    run_on_output: bool,
    /// Paused at some time since the timer was loaded: no deadline check.
    paused_since_load: bool,
    /// Output-stall cycles since the timer's deadline passed.
    stalls_after: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct RStatic {
    valid: bool,
    portals: bool,
    key: u16,
    role: u8,
    wait: u32,
    stored: bool,
    pbv: u128,
    pcount: u32,
    op: u8,
    data: [u64; 4],
    dmu: u16,
    upstream: u16,
    posted: bool,
    tid: u8,
}

/// Where a decision leaves the sequencer, in cycles from its base (docs/cpu.md §6): idle from that
/// cycle, or in EMIT from that cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Hold {
    Idle(u64),
    Emit(u64),
}

/// The sequencer of docs/cpu.md §6 as the scoreboard times it.
#[derive(Clone, Debug, PartialEq)]
enum Seq {
    Idle,
    /// Busy; idle from this cycle.
    Until(u64),
    /// In EMIT: the next item of the list has its turn at `turn`.
    Emit { turn: u64, items: VecDeque<bool> },
    /// An expiry taken; its report is due on this cycle.
    Expire(u64),
}

/// An expected outgoing message, and whether its appearance starts a context's timer.
#[derive(Clone, Debug)]
struct Expected {
    msg: CollectiveMsg,
    starts_timer: Option<(bool, u16)>,
}

/// The transaction-level reference of docs/cpu.md (independent of the cycle model).
pub struct Reference {
    p: CpuParams,
    pbv_valid: [bool; 128],
    pbv_switch: [bool; 128],
    pbv_dev: [u16; 128],
    timeout: [u32; 4],
    threshold: [u32; 3],
    engine_id: u16,
    engine_sfa: u32,
    ieee: bool,
    retry_limit: u8,
    st: Vec<RStatic>,
    live: Vec<RDesc>,
    events: VecDeque<(u8, bool, u16)>,
    outs: VecDeque<Expected>,
    cov: Coverage,
    /// The last reset cycle: the timer ticks come at `last_reset + n * TICK_CYCLES`, n >= 1.
    last_reset: u64,
    /// The sequencer as docs/cpu.md §6 times it from the observed events (never from the model).
    seq: Seq,
    /// The EMIT list of the decision in progress, in order: `true` a message, `false` a PBV bit whose
    /// table entry is invalid (skipped in one cycle).
    items: VecDeque<bool>,
    /// Where the decision in progress leaves the sequencer (set by the paths that are not a plain
    /// drop or a one-step emission).
    hold: Option<Hold>,
    /// What holds the sequencer (for the counters and the report).
    seq_why: &'static str,
    /// The name of the path the decision in progress takes, when `plan`'s own is not specific enough.
    hold_why: Option<&'static str>,
    /// The counter of the expiry the sequencer has taken.
    seq_label: &'static str,
    /// The emission in progress waited for the output register (`m_msg_ready` low).
    seq_stalled: bool,
    /// Failure flags set by the decision in progress (001): (family, ctx), applied to `fail` when its
    /// event shows on `stat_*`.
    fail_marks: VecDeque<(bool, u16)>,
    /// The FAILURE status register as docs/cpu.md §5 states it: (valid, family, ctx, count).
    fail: (bool, bool, u16, u8),
}

fn bit(v: u128, i: usize) -> bool {
    i < 128 && v >> i & 1 != 0
}

impl Reference {
    fn new(p: CpuParams) -> Reference {
        Reference {
            p,
            pbv_valid: [false; 128],
            pbv_switch: [false; 128],
            pbv_dev: [0; 128],
            timeout: [1024; 4],
            threshold: [0xf_ffff; 3],
            engine_id: 0,
            engine_sfa: 0,
            ieee: false,
            retry_limit: 3,
            st: vec![RStatic::default(); p.static_entries],
            live: Vec::new(),
            events: VecDeque::new(),
            outs: VecDeque::new(),
            cov: Coverage::default(),
            last_reset: 0,
            seq: Seq::Idle,
            seq_why: "idle",
            hold_why: None,
            seq_label: "timeouts_exact",
            seq_stalled: false,
            items: VecDeque::new(),
            hold: None,
            fail_marks: VecDeque::new(),
            fail: (false, false, 0, 0),
        }
    }

    /// docs/cpu.md §4 "Exact expiry", computed from the tick length and the cycles since the reset,
    /// not from the model: ticks come at cycles `R + n * TICK_CYCLES` (n >= 1, R the last reset); a
    /// timer of `load` ticks running from cycle `from` expires on the `max(load, 1)`-th tick at or after
    /// `from` (002 (80): timeouts are counts of ticks); the returned cycle, one after that tick, is the
    /// first on which the expiry is pending (`s_msg_ready` low). The idle sequencer takes it on that
    /// cycle and reports it on `stat_*` two cycles later.
    fn expiry_pending(&self, from: u64, load: u32) -> u64 {
        let tick = u64::from(self.p.tick_cycles);
        let first = from.saturating_sub(self.last_reset).div_ceil(tick).max(1);
        self.last_reset + (first + u64::from(load.max(1)) - 1) * tick + 1
    }

    fn reset(&mut self) {
        let cov = std::mem::take(&mut self.cov);
        *self = Reference::new(self.p);
        self.cov = cov;
    }

    fn write(&mut self, a: u16, d: u32) {
        let a = a & 0xfff;
        match a {
            0x000..=0x07f => {
                let i = usize::from(a);
                self.pbv_valid[i] = d & 0x8000_0000 != 0;
                self.pbv_switch[i] = d & 0x1_0000 != 0;
                self.pbv_dev[i] = (d & 0xffff) as u16;
            }
            0x080..=0x083 => self.timeout[usize::from(a - 0x80)] = d & 0xff_ffff,
            0x084..=0x086 => self.threshold[usize::from(a - 0x84)] = d & 0xf_ffff,
            0x087 => self.engine_id = d as u16,
            0x088 => self.engine_sfa = d,
            0x089 => {
                self.ieee = d & 1 != 0;
                self.retry_limit = (d >> 8 & 15) as u8;
            }
            _ if a >= 0x100 && usize::from(a - 0x100) < 2 * self.p.static_entries => {
                let s = &mut self.st[usize::from(a - 0x100) / 2];
                if a & 1 == 0 {
                    s.valid = d >> 31 != 0;
                    s.portals = d >> 16 & 1 != 0;
                    s.role = (d >> 20 & 3) as u8;
                    s.key = (d & 0x1fff) as u16;
                    s.stored = false;
                    s.tid = 0;
                } else {
                    s.wait = d & 0xf_ffff;
                }
            }
            _ => {}
        }
    }

    fn load(&self, w: u32, r: u8) -> u32 {
        let t = if w > self.threshold[2] {
            self.timeout[3]
        } else if w > self.threshold[1] {
            self.timeout[2]
        } else if w > self.threshold[0] {
            self.timeout[1]
        } else {
            self.timeout[0]
        };
        if r == role::MASTER {
            2 * t
        } else {
            t
        }
    }

    fn mode(&self) -> Mode {
        Mode::from_bit(self.ieee)
    }

    fn find_static(&self, m: &CollectiveMsg) -> Option<usize> {
        let portals = m.family == Family::Portals;
        let key = if portals { m.ctx & 0x1fff } else { m.ctx & 0xfff };
        self.st.iter().position(|s| s.valid && s.portals == portals && s.key == key)
    }

    fn find_live(&self, portals: bool, key: u16) -> Option<usize> {
        self.live.iter().position(|d| d.portals == portals && d.key == key)
    }

    fn ev(&mut self, e: u8, portals: bool, ctx: u16) {
        self.events.push_back((e, portals, ctx));
    }

    fn out(&mut self, msg: CollectiveMsg) {
        self.out_timed(msg, None);
    }

    /// An outgoing message, one EMIT item (docs/cpu.md §6).
    fn out_timed(&mut self, msg: CollectiveMsg, starts_timer: Option<(bool, u16)>) {
        self.outs.push_back(Expected { msg, starts_timer });
        self.items.push_back(true);
    }

    /// The accumulated result of a descriptor: the fold of its initial value and what it accepted.
    fn result(&self, d: &RDesc) -> Option<Contribution> {
        let items: Vec<Contribution> = d.init.iter().copied().chain(d.accepted.iter().copied()).collect();
        // The model's arithmetic, on the sources' rounding and priority tables (crate::sources).
        let t = crate::sources::tables_for_the_arithmetic();
        let (first, rest) = items.split_first()?;
        Some(rest.iter().fold(*first, |acc, c| combine_with(&t, self.mode(), &acc, c)))
    }

    fn tlp_init(&self, s: &RStatic) -> Contribution {
        Contribution { rt_op: s.op, rt_data: s.data, sfa: u32::from(self.engine_id), ..Contribution::default() }
    }

    fn new_tlp_desc(&self, sidx: usize, key: u16, s: &RStatic) -> RDesc {
        RDesc {
            portals: false,
            key,
            sidx,
            role: s.role,
            state: 0,
            failure: false,
            paused: false,
            pbv: s.pbv,
            pcount: s.pcount,
            count: 0,
            wait: 0,
            init: Some(self.tlp_init(s)),
            accepted: Vec::new(),
            vni: 0,
            cookie: 0,
            seqno: 0,
            dst: 0,
            port: 0,
            posted: s.posted,
            attempts: 0,
            sent_error: false,
            load: self.load(s.pcount, s.role),
            run_from: None,
            run_on_output: false,
            paused_since_load: false,
            stalls_after: 0,
        }
    }

    /// Activation (000 [0141]): reuse the live descriptor or take a free one.
    fn activate(&mut self, sidx: usize, key: u16) -> bool {
        let s = self.st[sidx];
        let d = self.new_tlp_desc(sidx, key, &s);
        if let Some(k) = self.find_live(false, key) {
            self.live[k] = d;
        } else if self.live.len() < self.p.descriptors {
            self.live.push(d);
            self.cov.live(self.live.len());
        } else {
            return false;
        }
        true
    }

    fn copies(&mut self, tmpl: CollectiveMsg, pbv: u128) {
        for b in 0..128 {
            if bit(pbv, b) && self.pbv_valid[b] {
                self.out(CollectiveMsg { dst: u32::from(self.pbv_dev[b]), pid: b as u16, ..tmpl });
            } else if bit(pbv, b) {
                // docs/cpu.md §6: a PBV bit whose table entry is invalid is skipped in one cycle.
                self.items.push_back(false);
            }
        }
    }

    fn reply(&self, m: &CollectiveMsg, kind: Kind, code: u8) -> CollectiveMsg {
        CollectiveMsg {
            kind,
            family: Family::Tlp,
            ctx: m.ctx,
            src: u32::from(self.engine_id),
            dst: m.src,
            pid: m.pid,
            dmu_id: m.dmu_id,
            code,
            posted: true,
            tid: m.tid,
            op: m.op,
            data: if kind == Kind::FAILURE { [u64::from(m.src as u16), 0, 0, 0] } else { [0; 4] },
            ..CollectiveMsg::default()
        }
    }

    /// A non-posted INITIALIZATION / CONTROL that was acted on is acknowledged to its sender
    /// (docs/cpu.md §2, COMPLETION code 5), after any replicated copies.
    fn acknowledge(&mut self, m: &CollectiveMsg, counter: &'static str) {
        if !m.posted {
            let r = self.reply(m, Kind::COMPLETION, completion::ACKNOWLEDGED);
            self.out(r);
            self.cov.bump(counter);
        }
    }

    fn up(&self, m: &CollectiveMsg, s: &RStatic) -> CollectiveMsg {
        CollectiveMsg { src: u32::from(self.engine_id), dst: u32::from(s.upstream), ..*m }
    }

    /// A message the CPU accepted at `cycle`.
    fn message(&mut self, cycle: u64, m: &CollectiveMsg) {
        let portals = m.family == Family::Portals;
        let before = self.events.len();
        let e = if portals { self.portals_message(cycle, m) } else { self.tlp_message(cycle, m) };
        // The decision event goes before the completion event the contribution may cause.
        self.events.insert(before, (e, portals, m.ctx));
    }

    fn tlp_message(&mut self, cycle: u64, m: &CollectiveMsg) -> u8 {
        let key = m.ctx & 0xfff;
        let Some(si) = self.find_static(m) else {
            return match m.kind {
                Kind::INITIALIZATION
                | Kind::CONTROL
                | Kind::CONTRIBUTION
                | Kind::RESPONSE
                | Kind::COMPLETION
                | Kind::FAILURE
                | Kind::RETRY => {
                    event::DROP_UNKNOWN
                }
                _ => event::BAD_KIND,
            };
        };
        let s = self.st[si];
        let live = self.find_live(false, key);
        match m.kind {
            Kind::INITIALIZATION if m.pid != NO_PARTICIPANT && m.pid != self.engine_id => {
                // docs/cpu.md §2: an INITIALIZATION for another engine (P_ID = its device ID) is
                // relayed down (000 [0106]-[0107], [0157]): to the target if it is a switch
                // participant of the stored context, else to every switch participant of it; the
                // copies keep the P_ID; nothing is stored; acknowledged if non-posted.
                if !s.stored {
                    return event::DROP_UNKNOWN;
                }
                let target = (0..128).find(|&i| self.pbv_valid[i] && self.pbv_dev[i] == m.pid);
                let switches = (0..128).filter(|&i| self.pbv_switch[i]).fold(0u128, |a, i| a | 1 << i);
                let (mask, how) = match target {
                    Some(i) if self.pbv_switch[i] && bit(s.pbv, i) => (1u128 << i, "init_relay_direct"),
                    _ => (s.pbv & switches, "init_relay_flood"),
                };
                self.cov.bump(how);
                // docs/cpu.md §6 "Sequencer timing": EMIT from A + 3 like CONTROL's copies, the list
                // (its PBV bits in ascending order, an invalid entry skipped in one cycle, then the
                // acknowledgement if non-posted) possibly empty.
                self.hold = Some(Hold::Emit(EXEC_DONE));
                self.hold_why = Some("relay");
                let tmpl = CollectiveMsg { src: u32::from(self.engine_id), ..*m };
                for b in 0..128 {
                    if bit(mask, b) && self.pbv_valid[b] {
                        self.out(CollectiveMsg { dst: u32::from(self.pbv_dev[b]), ..tmpl });
                        self.cov.bump("init_relay_copies");
                    } else if bit(mask, b) {
                        self.items.push_back(false);
                        self.cov.bump("init_relay_invalid_skipped");
                    }
                }
                if mask == 0 {
                    self.cov.bump("init_relay_to_nobody");
                }
                self.acknowledge(m, "ack_init");
                event::INIT_RELAY
            }
            Kind::INITIALIZATION => {
                let st = &mut self.st[si];
                st.stored = true;
                st.pbv = m.pbv;
                st.pcount = m.count;
                st.op = m.op;
                st.data = m.data;
                st.dmu = m.dmu_id;
                st.upstream = m.src as u16;
                st.posted = m.posted;
                st.tid = m.tid;
                let e = if self.activate(si, key) { event::INIT } else { event::ACTIVATE_NO_DESC };
                self.acknowledge(m, "ack_init");
                e
            }
            Kind::CONTROL => {
                if !(1..=5).contains(&m.code) {
                    return event::CTRL_BAD;
                }
                self.st[si].upstream = m.src as u16;
                let e = match m.code {
                    command::START => match live {
                        Some(k) if self.live[k].paused => {
                            self.live[k].paused = false;
                            event::CTRL_START
                        }
                        Some(_) => event::CTRL_NOOP,
                        None if !s.stored => event::CTRL_NOOP,
                        None => {
                            if self.activate(si, key) {
                                event::CTRL_START
                            } else {
                                event::ACTIVATE_NO_DESC
                            }
                        }
                    },
                    command::PAUSE => match live {
                        Some(k) => {
                            self.live[k].paused = true;
                            self.live[k].paused_since_load = true;
                            self.live[k].run_from = None;
                            event::CTRL_PAUSE
                        }
                        None => event::CTRL_NOOP,
                    },
                    command::RESTART => {
                        if !s.stored {
                            event::CTRL_NOOP
                        } else if self.activate(si, key) {
                            event::CTRL_RESTART
                        } else {
                            event::ACTIVATE_NO_DESC
                        }
                    }
                    command::STOP => match live {
                        Some(k) => {
                            self.live.remove(k);
                            event::CTRL_STOP
                        }
                        None => event::CTRL_NOOP,
                    },
                    _ => {
                        if let Some(k) = live {
                            self.live.remove(k);
                        }
                        self.st[si].stored = false;
                        self.st[si].tid = 0;
                        event::CTRL_RESET
                    }
                };
                // docs/cpu.md §6: a command on a stored context, or a non-posted one, goes to EMIT (its
                    // copies, then its acknowledgement) even when there is nothing to send.
                if s.stored || !m.posted {
                    self.hold = Some(Hold::Emit(EXEC_DONE));
                }
                if s.stored {
                    // The copies carry the context's TID (docs/cpu.md §2), the acknowledgement m's.
                    let t = CollectiveMsg { src: u32::from(self.engine_id), tid: s.tid, ..*m };
                    if s.tid != m.tid && (0..128).any(|b| bit(s.pbv, b) && self.pbv_valid[b]) {
                        self.cov.bump("control_copies_retagged");
                    }
                    self.copies(t, s.pbv);
                }
                self.acknowledge(m, if s.stored { "ack_control_after_copies" } else { "ack_control" });
                e
            }
            Kind::CONTRIBUTION | Kind::RESPONSE => {
                let Some(k) = live else {
                    if !s.stored {
                        return event::DROP_UNKNOWN;
                    }
                    let u = self.up(m, &s);
                    self.out(u);
                    return event::PASS_UP;
                };
                if m.tid != s.tid {
                    if (s.tid + 4 - m.tid) % 4 == 1 {
                        let r = self.reply(m, Kind::COMPLETION, completion::ALREADY_COMPLETED);
                        self.out(r);
                        return event::OLD_TID;
                    }
                    return event::BAD_TID;
                }
                let d = self.live[k].clone();
                if d.paused {
                    return event::PAUSED_DROP;
                }
                if d.state >= 2 {
                    let u = self.up(m, &s);
                    self.out(u);
                    return event::PASS_UP;
                }
                let p = if m.pid != NO_PARTICIPANT {
                    (m.pid < 128).then_some(usize::from(m.pid))
                } else {
                    (0..128).find(|&i| self.pbv_valid[i] && self.pbv_dev[i] == m.src as u16)
                };
                let failure = match p {
                    None => Some((reason::UNKNOWN_PARTICIPANT, event::UNKNOWN_PARTICIPANT)),
                    Some(p) if !bit(s.pbv, p) => Some((reason::UNKNOWN_PARTICIPANT, event::UNKNOWN_PARTICIPANT)),
                    // A P_ID is trusted only for the device its PBV-table entry holds: dropped unanswered.
                    Some(p) if !(self.pbv_valid[p] && self.pbv_dev[p] == m.src as u16) => return event::WRONG_SENDER,
                    Some(p) if (m.kind == Kind::RESPONSE) != self.pbv_switch[p] => Some((reason::MALFORMED, event::MALFORMED)),
                    Some(p) if !bit(d.pbv, p) => Some((reason::DUPLICATE, event::DUPLICATE)),
                    Some(_) if d.pcount == 0 => Some((reason::COUNT_UNDERFLOW, event::COUNT_UNDERFLOW)),
                    Some(_) => None,
                };
                if let Some((why, e)) = failure {
                    let r = self.reply(m, Kind::FAILURE, why);
                    self.out(r);
                    return e;
                }
                let p = p.unwrap_or(0);
                let c = Contribution {
                    rt_op: m.op,
                    rt_data: m.data,
                    rt_rc: Rc::from_raw(m.rc),
                    rt_repsum_m: m.repsum_m,
                    rt_repsum_oflow_id: m.repsum_oflow_id,
                    sfa: m.src,
                };
                let dd = &mut self.live[k];
                dd.pbv &= !(1u128 << p);
                dd.pcount -= 1;
                dd.count = (dd.count + m.count).min(COUNT_MAX);
                dd.accepted.push(c);
                if dd.state == 0 {
                    // Idle -> Filling six cycles after acceptance; the watchdog runs from the next one.
                    dd.state = 1;
                    self.cov.transition(0);
                    if !dd.paused_since_load {
                        dd.run_from = Some(cycle + 7);
                        dd.stalls_after = 0;
                    }
                }
                let done = dd.pbv == 0 && dd.pcount == 0;
                self.cov.op(m.op);
                // docs/cpu.md §6: ISSUE, REDUCE, CHECK, then idle unless it completes.
                self.hold = Some(Hold::Idle(CHECK_AFTER_COMBINE + 1));
                if done {
                    self.complete(k, cycle);
                }
                event::ACCEPT
            }
            Kind::COMPLETION => {
                let Some(k) = live else { return event::DROP_UNKNOWN };
                // docs/cpu.md §2: an acknowledgement (code 5) is not the parent's result.
                if self.live[k].role == role::MASTER || m.code == completion::ACKNOWLEDGED {
                    if m.code == completion::ACKNOWLEDGED && m.tid == s.tid && self.live[k].role != role::MASTER {
                        self.cov.bump("ack_is_not_a_result");
                    }
                    return event::BAD_KIND;
                }
                if m.tid != s.tid {
                    return event::BAD_TID;
                }
                // docs/cpu.md §6: RATCHET from EXEC, one step per cycle to Exiting, then EMIT.
                self.hold = Some(Hold::Emit(EXEC_DONE + u64::from(3 - self.live[k].state) + 1));
                self.ratchet(k, 3);
                let t = CollectiveMsg { src: u32::from(self.engine_id), ..*m };
                self.copies(t, s.pbv);
                self.next_round(k);
                event::COMPLETION_DOWN
            }
            Kind::FAILURE => {
                if !s.stored {
                    return event::DROP_UNKNOWN;
                }
                let mut u = self.up(m, &s);
                if let Some(k) = live {
                    // 001's Failure flag: set, shown in the status register and carried up (EM).
                    self.live[k].failure = true;
                    self.fail_marks.push_back((false, m.ctx));
                    u.error = true;
                }
                self.out(u);
                event::FAILURE_UP
            }
            Kind::RETRY => {
                // docs/cpu.md §2: the parent asks again for the RESPONSE a subservient holds in Full;
                // anything else is answered FAILURE NothingToResend.
                if !s.stored && live.is_none() {
                    return event::DROP_UNKNOWN;
                }
                match live {
                    Some(k)
                        if self.live[k].role != role::MASTER && self.live[k].state == 2 && m.src as u16 == s.upstream =>
                    {
                        let d = self.live[k].clone();
                        let r = self.tlp_out(&d, false, d.sent_error, true);
                        self.cov.bump(if d.sent_error { "retry_resend_error_marked" } else { "retry_resend_clean" });
                        self.out(r);
                        event::RETRY_RESEND
                    }
                    _ => {
                        let r = self.reply(m, Kind::FAILURE, reason::NOTHING_TO_RESEND);
                        self.cov.bump(if live.is_some() { "retry_none_live" } else { "retry_none_stored" });
                        self.out(r);
                        event::RETRY_NONE
                    }
                }
            }
            _ => event::BAD_KIND,
        }
    }

    fn portals_message(&mut self, cycle: u64, m: &CollectiveMsg) -> u8 {
        let live = self.find_live(true, m.ctx);
        match m.kind {
            Kind::ARM => {
                let Some(si) = self.find_static(m) else { return event::DROP_UNKNOWN };
                if m.seqno == SEQNO_RESERVED {
                    return event::BAD_SEQNO_ARM;
                }
                let s = self.st[si];
                let d = RDesc {
                    portals: true,
                    key: m.ctx,
                    sidx: si,
                    role: s.role,
                    state: 0,
                    failure: false,
                    paused: false,
                    pbv: 0,
                    pcount: 0,
                    count: 0,
                    wait: s.wait,
                    init: None,
                    accepted: Vec::new(),
                    vni: m.vni,
                    cookie: m.cookie,
                    seqno: m.seqno,
                    dst: m.dst,
                    port: m.port,
                    posted: false,
                    attempts: 0,
                    sent_error: false,
                    load: self.load(s.wait, s.role),
                    run_from: Some(cycle + 3),
                    run_on_output: false,
                    paused_since_load: false,
                    stalls_after: 0,
                };
                if let Some(k) = live {
                    // 002 (71), docs/cpu.md §2: only a newer seqno (forward distance 1..=511 modulo
                    // 1023) re-arms; a duplicated or older arm leaves the reduction running.
                    let ahead = (m.seqno + 1023 - self.live[k].seqno) % 1023;
                    if !(1..=511).contains(&ahead) {
                        return event::STALE_ARM;
                    }
                    self.live[k] = d;
                    event::REARM
                } else if self.live.len() < self.p.descriptors {
                    self.live.push(d);
                    self.cov.live(self.live.len());
                    event::ARM
                } else {
                    event::ARM_NO_DESC
                }
            }
            Kind::CONTRIBUTION => {
                let Some(k) = live else {
                    self.out(*m);
                    return event::PASS_UP;
                };
                let d = &self.live[k];
                if m.vni != d.vni {
                    return event::DROP_VNI;
                }
                if m.cookie != d.cookie {
                    return event::DROP_COOKIE;
                }
                if m.seqno != d.seqno {
                    return event::DROP_SEQNO;
                }
                let c = Contribution {
                    rt_op: m.op,
                    rt_data: m.data,
                    rt_rc: Rc::from_raw(m.rc),
                    rt_repsum_m: m.repsum_m,
                    rt_repsum_oflow_id: m.repsum_oflow_id,
                    sfa: m.src,
                };
                let dd = &mut self.live[k];
                dd.count = (dd.count + m.count).min(COUNT_MAX);
                dd.accepted.push(c);
                if dd.state == 0 {
                    dd.state = 1;
                    self.cov.transition(0);
                }
                self.cov.op(m.op);
                // docs/cpu.md §6: the first contribution is stored (CHECK next), later ones combined.
                let check = if self.live[k].accepted.len() == 1 { CHECK_AFTER_STORE } else { CHECK_AFTER_COMBINE };
                self.hold = Some(Hold::Idle(check + 1));
                if self.live[k].count >= self.live[k].wait {
                    self.complete(k, cycle);
                }
                event::ACCEPT
            }
            _ => event::BAD_KIND,
        }
    }

    /// Steps the state machine of live descriptor `k` up to `target`, one state at a time.
    fn ratchet(&mut self, k: usize, target: u8) {
        while self.live[k].state != target {
            let s = self.live[k].state;
            self.cov.transition(s);
            self.live[k].state = (s + 1) & 3;
        }
    }

    fn portals_out(&self, d: &RDesc, result: bool, acc: &Contribution) -> CollectiveMsg {
        CollectiveMsg {
            kind: if result { Kind::ARM } else { Kind::CONTRIBUTION },
            family: Family::Portals,
            port: if result { 0 } else { d.port },
            ctx: d.key,
            src: self.engine_sfa,
            dst: d.dst,
            pid: NO_PARTICIPANT,
            count: d.count,
            posted: true,
            vni: d.vni,
            cookie: d.cookie,
            seqno: if result { next_seqno(d.seqno) } else { d.seqno },
            resno: d.seqno,
            op: acc.rt_op,
            rc: acc.rt_rc.0,
            repsum_m: acc.rt_repsum_m,
            repsum_oflow_id: acc.rt_repsum_oflow_id,
            data: acc.rt_data,
            ..CollectiveMsg::default()
        }
    }

    fn tlp_out(&self, d: &RDesc, completion: bool, error: bool, retry: bool) -> CollectiveMsg {
        let s = &self.st[d.sidx];
        let acc = self.result(d).unwrap_or_default();
        let barrier = acc.rt_op == 0;
        CollectiveMsg {
            kind: if completion { Kind::COMPLETION } else { Kind::RESPONSE },
            family: Family::Tlp,
            ctx: d.key,
            src: u32::from(self.engine_id),
            dst: u32::from(s.upstream),
            pid: NO_PARTICIPANT,
            dmu_id: s.dmu,
            count: d.count,
            code: match (completion, barrier) {
                (true, true) => completion::BARRIER_SATISFIED,
                (true, false) => completion::RESULT,
                (false, true) => completion::BARRIER_MET,
                (false, false) => completion::NONE,
            },
            posted: if completion { true } else { d.posted },
            error,
            retry,
            tid: s.tid,
            op: acc.rt_op,
            rc: acc.rt_rc.0,
            repsum_m: acc.rt_repsum_m,
            repsum_oflow_id: acc.rt_repsum_oflow_id,
            data: acc.rt_data,
            ..CollectiveMsg::default()
        }
    }

    /// The round of live descriptor `k` is complete (docs/cpu.md §2 "Completion").
    fn complete(&mut self, k: usize, _cycle: u64) {
        let d = self.live[k].clone();
        // docs/cpu.md §6: CHECK steps Filling -> Full itself; RATCHET then steps to Exiting (one step)
        // but for a TLP subservient, which stays Full (none), and takes one more cycle to see the target.
        let steps = u64::from(d.portals || d.role == role::MASTER);
        if let Some(Hold::Idle(after_check)) = self.hold {
            self.hold = Some(Hold::Emit(after_check + steps + 1));
        }
        self.ev(event::COMPLETE, d.portals, d.key);
        self.ratchet(k, 2);
        self.live[k].run_from = None;
        if d.portals {
            let mut acc = self.result(&d).expect("a completed Portals round accepted something");
            if d.count > d.wait {
                // By the literal priority of 002 (97) (crate::sources), not the model's merge.
                acc.rt_rc = Rc(crate::sources::higher(acc.rt_rc.0, crate::sources::rc::CONTR_OVERFLOW));
                self.cov.bump("contr_overflow");
            }
            if acc.rt_rc.0 == crate::sources::rc::OP_MISMATCH {
                self.cov.bump("results_op_mismatch");
            }
            self.ratchet(k, 3);
            let master = d.role == role::MASTER;
            let msg = self.portals_out(&d, master, &acc);
            if master {
                self.cov.bump("complete_portals_master");
                self.out_timed(msg, Some((true, d.key)));
                self.ratchet(k, 0);
                let dd = &mut self.live[k];
                dd.seqno = next_seqno(dd.seqno);
                dd.count = 0;
                dd.accepted.clear();
                dd.run_on_output = true;
                dd.paused_since_load = false;
            } else {
                self.cov.bump("complete_portals_subservient");
                self.out(msg);
                self.ratchet(k, 0);
                self.live.remove(k);
            }
        } else if d.role == role::MASTER {
            self.cov.bump("complete_tlp_master");
            let msg = self.tlp_out(&d, true, false, false);
            self.ratchet(k, 3);
            let pbv = self.st[d.sidx].pbv;
            self.copies(msg, pbv);
            self.out(msg);
            self.next_round(k);
        } else {
            self.cov.bump("complete_tlp_subservient");
            let msg = self.tlp_out(&d, false, false, false);
            self.out_timed(msg, Some((false, d.key)));
            let dd = &mut self.live[k];
            dd.attempts = 0;
            dd.sent_error = false;
            dd.run_on_output = !dd.posted;
            dd.paused_since_load = false;
        }
    }

    /// Exiting -> Idle of a TLP context: TID + 1, tracking store re-loaded (001; 000 [0141]).
    fn next_round(&mut self, k: usize) {
        self.ratchet(k, 0);
        let si = self.live[k].sidx;
        self.st[si].tid = (self.st[si].tid + 1) & 3;
        let s = self.st[si];
        let init = self.tlp_init(&s);
        let d = &mut self.live[k];
        d.pbv = s.pbv;
        d.pcount = s.pcount;
        d.count = 0;
        d.init = Some(init);
        d.accepted.clear();
        d.attempts = 0;
        d.sent_error = false;
        d.run_from = None;
        d.run_on_output = false;
        d.paused_since_load = d.paused;
    }

    /// The CPU reported a timer expiry (`observed`) of a context at `cycle`: check it, predict it.
    fn expiry(&mut self, cycle: u64, portals: bool, key: u16, observed: u8) -> Result<(), String> {
        let tick = self.p.tick_cycles;
        let k = self
            .find_live(portals, key)
            .ok_or_else(|| format!("{} reported for context {key:#06x} (portals {portals}), which is not live", event::name(observed)))?;
        let d = self.live[k].clone();
        match d.run_from {
            Some(from) => {
                let earliest = self.expiry_pending(from, d.load) + 2;
                if cycle < earliest {
                    return Err(format!(
                        "context {key:#06x} expired at cycle {cycle}, before its timeout allows ({} ticks of {tick} cycles from cycle {from}: not before {earliest})",
                        d.load
                    ));
                }
                self.cov.bump("timeouts_checked");
            }
            None if d.paused_since_load => {}
            None => return Err(format!("context {key:#06x} expired ({}) but its timer does not run in its state", event::name(observed))),
        }
        self.live[k].run_from = None;
        // docs/cpu.md §6: the report comes with the first RATCHET cycle; one step per cycle to the
        // action's target (Portals and a master: Exiting; a TLP subservient: Full), one more, EMIT.
        let target = if portals || d.role == role::MASTER || (d.state == 2 && d.attempts >= self.retry_limit) { 3 } else { 2 };
        self.hold = Some(Hold::Emit(u64::from(target.max(d.state) - d.state) + 1));
        let e = if portals {
            let acc = self.result(&d);
            self.ratchet(k, 3);
            let e = match acc {
                Some(acc) => {
                    let msg = self.portals_out(&d, false, &acc);
                    self.out(msg);
                    event::TIMEOUT_PARTIAL
                }
                None => event::TIMEOUT_EMPTY,
            };
            self.ratchet(k, 0);
            self.live.remove(k);
            self.cov.bump("freed_by_timeout");
            e
        } else {
            let master = d.role == role::MASTER;
            match d.state {
                1 if !master => {
                    let msg = self.tlp_out(&d, false, true, false);
                    self.ratchet(k, 2);
                    self.out_timed(msg, Some((false, key)));
                    let dd = &mut self.live[k];
                    dd.sent_error = true;
                    dd.attempts = 0;
                    dd.run_on_output = !dd.posted;
                    event::TIMEOUT_PARTIAL
                }
                1 => {
                    self.live[k].failure = true;
                    self.fail_marks.push_back((false, key));
                    let msg = self.tlp_out(&d, true, true, false);
                    self.ratchet(k, 3);
                    let pbv = self.st[d.sidx].pbv;
                    self.copies(msg, pbv);
                    self.out(msg);
                    self.next_round(k);
                    event::TIMEOUT_MASTER
                }
                2 if !master && d.attempts < self.retry_limit => {
                    let msg = self.tlp_out(&d, false, d.sent_error, true);
                    self.out_timed(msg, Some((false, key)));
                    let dd = &mut self.live[k];
                    dd.attempts += 1;
                    dd.run_on_output = true;
                    event::RETRY
                }
                2 if !master => {
                    self.live[k].failure = true;
                    self.fail_marks.push_back((false, key));
                    let s = self.st[d.sidx];
                    let msg = CollectiveMsg {
                        kind: Kind::FAILURE,
                        family: Family::Tlp,
                        ctx: key,
                        src: u32::from(self.engine_id),
                        dst: u32::from(s.upstream),
                        pid: NO_PARTICIPANT,
                        dmu_id: s.dmu,
                        count: u32::from(d.attempts),
                        code: reason::TIMEOUT,
                        posted: true,
                        error: true,
                        tid: s.tid,
                        data: [0xffff, 0, 0, 0],
                        ..CollectiveMsg::default()
                    };
                    self.ratchet(k, 3);
                    self.out(msg);
                    self.next_round(k);
                    event::RETRY_EXHAUSTED
                }
                _ => return Err(format!("TLP context {key:#06x} expired in state {}", d.state)),
            }
        };
        if e != observed {
            return Err(format!(
                "timer expiry of context {key:#06x}: the CPU reported {}, the reference expects {}",
                event::name(observed),
                event::name(e)
            ));
        }
        Ok(())
    }

    /// The exact timer checks of one cycle (see [`CpuMonitor`]'s observe, step 2b).
    fn exact_timers(&mut self, cycle: u64, ready: bool) -> Option<String> {
        for d in &self.live {
            let Some(from) = d.run_from else { continue };
            let pending = self.expiry_pending(from, d.load);
            if ready && cycle >= pending {
                return Some(format!(
                    "context {:#06x} (portals {}): its timer of {} ticks from cycle {from} expired on the tick before cycle {pending} (docs/cpu.md §4), but the CPU is still ready for messages at cycle {cycle}: the expiry is late",
                    d.key, d.portals, d.load
                ));
            }
        }
        None
    }

    /// The decision just made at `base` (a message accepted, or an expiry reported) holds the
    /// sequencer as docs/cpu.md §6 "Sequencer timing" states: its EMIT list is `items`, `hold` says
    /// where the paths other than a decision in EXEC (a drop, or EMIT of one reply) leave it.
    fn plan(&mut self, base: u64, why: &'static str) {
        let items = std::mem::take(&mut self.items);
        let hold = self.hold.take();
        let why = self.hold_why.take().unwrap_or(why);
        let (hold, why) = match hold {
            Some(h @ Hold::Idle(_)) => (h, "combine"),
            Some(h) => (h, why),
            None if !items.is_empty() => (Hold::Emit(EXEC_DONE), why),
            None => (Hold::Idle(EXEC_DONE), "exec"),
        };
        self.seq_why = why;
        self.seq_stalled = false;
        self.seq = match hold {
            Hold::Idle(n) => Seq::Until(base + n),
            Hold::Emit(n) => Seq::Emit { turn: base + n, items },
        };
    }

    /// One cycle of the documented sequencer (docs/cpu.md §6), with `out_free` = the output register
    /// empty or taken on this cycle (`!m_msg_valid || m_msg_ready`). Returns whether EMIT wrote a
    /// message into the output register on this cycle (it must appear on `m_msg` on the next one).
    fn seq_step(&mut self, cycle: u64, out_free: bool) -> bool {
        let mut wrote = false;
        if let Seq::Emit { turn, items } = &mut self.seq {
            if cycle >= *turn {
                match items.front() {
                    None => self.seq = Seq::Until(cycle + EMIT_TAIL),
                    Some(false) => {
                        items.pop_front();
                        *turn = cycle + 1;
                    }
                    Some(true) => {
                        if out_free {
                            items.pop_front();
                            wrote = true;
                        } else {
                            self.seq_stalled = true;
                        }
                        *turn = cycle + 1;
                    }
                }
            }
        }
        if let Seq::Until(u) = self.seq {
            if cycle >= u {
                self.seq = Seq::Idle;
            }
        }
        wrote
    }

    /// The documented sequencer is idle at `cycle`: it takes the first pending expiry, to be reported
    /// two cycles later (docs/cpu.md §4); `ready` is the CPU's `s_msg_ready`. Returns an error if the CPU
    /// is ready with a busy documented sequencer.
    fn seq_take(&mut self, cycle: u64, ready: bool, was_idle: bool) -> Result<(), String> {
        if self.seq != Seq::Idle {
            if ready {
                return Err(format!(
                    "the CPU is ready for messages at cycle {cycle}, but the sequencer is busy ({}, {:?}) by the timing of docs/cpu.md §6: the sequencer is early",
                    self.seq_why, self.seq
                ));
            }
            return Ok(());
        }
        let pending = self.live.iter().filter_map(|d| d.run_from.map(|from| self.expiry_pending(from, d.load))).filter(|&p| p <= cycle).min();
        let label = match pending {
            Some(p) if p == cycle && was_idle => "timeouts_exact",
            Some(_) => match self.seq_why {
                "exec" => "timeouts_exact_after_exec",
                "combine" => "timeouts_exact_after_combine",
                "expiry" => "timeouts_exact_after_expiry",
                "relay" => "timeouts_exact_after_relay",
                _ if self.seq_stalled => "timeouts_exact_after_stalled_emission",
                _ => "timeouts_exact_after_emission",
            },
            // An expiry pending that no running timer of the reference explains (a timer stopped by
            // the decision in flight after it expired, docs/cpu.md §6): reported exactly two cycles
            // later too, its cycle checked "not early" by `expiry`.
            None if !ready => "timeouts_unpredicted",
            None => return Ok(()),
        };
        self.seq = Seq::Expire(cycle + 2);
        self.seq_label = label;
        Ok(())
    }

    /// Every running timer must have expired by its deadline plus the time the sequencer may need to
    /// get to it: the event in progress and the other expired descriptors first (each at most
    /// [`OVERDUE_PER_EVENT`] cycles), and every cycle the output was stalled meanwhile.
    fn overdue(&mut self, cycle: u64, stalled: bool) -> Option<String> {
        let tick = u64::from(self.p.tick_cycles);
        let slack = (self.p.descriptors as u64 + 1) * OVERDUE_PER_EVENT;
        self.live.iter_mut().find_map(|d| {
            let from = d.run_from?;
            let deadline = from + u64::from(d.load.max(1)) * tick + 2;
            if cycle > deadline && stalled {
                d.stalls_after += 1;
            }
            (cycle > deadline + slack + d.stalls_after).then(|| {
                format!(
                    "context {:#06x} (portals {}) armed with a timeout of {} ticks, timer running since cycle {from}, is neither complete nor expired at cycle {cycle}",
                    d.key, d.portals, d.load
                )
            })
        })
    }
}

/// Functional coverage: named counters.
#[derive(Default)]
struct Coverage {
    counts: Vec<(&'static str, u64)>,
    max_live: u64,
}

impl Coverage {
    fn bump(&mut self, name: &'static str) {
        self.add(name, 1);
    }

    fn add(&mut self, name: &'static str, n: u64) {
        match self.counts.iter_mut().find(|(k, _)| *k == name) {
            Some((_, v)) => *v += n,
            None => self.counts.push((name, n)),
        }
    }

    fn transition(&mut self, from: u8) {
        self.bump(["idle_to_filling", "filling_to_full", "full_to_exiting", "exiting_to_idle"][usize::from(from & 3)]);
    }

    fn op(&mut self, op: u8) {
        // Classes by the literal opcode table of the sources (`crate::sources`), not the model's decoder.
        use crate::sources::Op;
        self.bump(match crate::sources::op(op) {
            Some(Op::Barrier) => "op_barrier",
            Some(Op::BitAnd | Op::BitOr | Op::BitXor | Op::LogAnd | Op::LogOr | Op::LogXor) => "op_bitwise",
            Some(Op::IntMin | Op::IntMax | Op::IntSum) => "op_integer",
            Some(Op::IntMinMaxLoc | Op::FltMinMaxLoc | Op::FltMinMaxNumLoc) => "op_minmaxloc",
            Some(Op::FltMin | Op::FltMax | Op::FltMinNum | Op::FltMaxNum) => "op_flt_minmax",
            Some(Op::FltSum(..)) => "op_flt_sum",
            Some(Op::FltRepsum) => "op_repsum",
            None => "op_unknown",
        });
    }

    fn live(&mut self, n: usize) {
        self.max_live = self.max_live.max(n as u64);
    }
}

/// Counter names every CI run must see at least once (the coverage holes test).
pub const REQUIRED: &[&str] = &[
    "messages_in",
    "messages_out",
    "resets",
    "stall_cycles",
    "idle_to_filling",
    "filling_to_full",
    "full_to_exiting",
    "exiting_to_idle",
    "op_barrier",
    "op_bitwise",
    "op_integer",
    "op_minmaxloc",
    "op_flt_minmax",
    "op_flt_sum",
    "op_repsum",
    "op_unknown",
    "results_op_mismatch",
    "contr_overflow",
    "complete_portals_master",
    "complete_portals_subservient",
    "complete_tlp_master",
    "complete_tlp_subservient",
    "timeouts_checked",
    "timeouts_exact",
    "timeouts_exact_after_exec",
    "timeouts_exact_after_combine",
    "timeouts_exact_after_emission",
    "timeouts_exact_after_stalled_emission",
    "timeouts_exact_after_expiry",
    "timeouts_exact_after_relay",
    "freed_by_timeout",
    "max_live_descriptors",
    "ack_init",
    "ack_control",
    "ack_control_after_copies",
    "retry_resend_clean",
    "retry_resend_error_marked",
    "retry_none_live",
    "retry_none_stored",
    "control_copies_retagged",
    "failure_status_set",
    "init_relay_direct",
    "init_relay_flood",
    "init_relay_copies",
    "init_relay_invalid_skipped",
    "init_relay_to_nobody",
    "ack_is_not_a_result",
];

/// Cross coverage of the CPU's decisions (issue 13 point 4): event x role x family. The event names are
/// docs/cpu.md's, numbered 1-40 as `stat_event` carries them (written out here; a unit test reads them
/// back from `rtl/cpu.v`'s `EV_*`); the role is the one the context's static entry was configured with
/// (docs/cpu.md §5 static word 0 bits 21:20: 0 subservient, 1 master), `no_context` when no valid static
/// entry has the event's family and key; the family is `stat_family`.
pub mod event_cross {
    use crate::cross::{Axis, Cross};

    /// Name of the cross.
    pub const NAME: &str = "cpu_event";
    /// `stat_event` code - 1 -> event.
    pub const EVENTS: &[&str] = &[
        "INIT", "ACTIVATE_NO_DESC", "CTRL_START", "CTRL_PAUSE", "CTRL_RESTART", "CTRL_STOP", "CTRL_RESET", "CTRL_NOOP",
        "CTRL_BAD", "ARM", "REARM", "ARM_NO_DESC", "BAD_SEQNO_ARM", "ACCEPT", "PASS_UP", "DROP_UNKNOWN", "DROP_VNI",
        "DROP_COOKIE", "DROP_SEQNO", "UNKNOWN_PARTICIPANT", "MALFORMED", "DUPLICATE", "COUNT_UNDERFLOW", "OLD_TID",
        "BAD_TID", "PAUSED_DROP", "COMPLETION_DOWN", "FAILURE_UP", "BAD_KIND", "COMPLETE", "TIMEOUT_PARTIAL",
        "TIMEOUT_EMPTY", "TIMEOUT_MASTER", "RETRY", "RETRY_EXHAUSTED", "RETRY_RESEND", "RETRY_NONE", "WRONG_SENDER",
        "STALE_ARM", "INIT_RELAY",
    ];
    /// Static word 0 role field, and no static entry.
    pub const ROLES: &[&str] = &["subservient", "master", "no_context"];
    /// `stat_family`: 0 TLP, 1 Portals.
    pub const FAMILIES: &[&str] = &["tlp", "portals"];
    /// The axes.
    pub const AXES: [Axis; 3] = [("event", EVENTS), ("role", ROLES), ("family", FAMILIES)];

    /// Events of the TLP table of docs/cpu.md §3 and the TLP rows of §4 only.
    const TLP_ONLY: &[&str] = &[
        "INIT", "ACTIVATE_NO_DESC", "CTRL_START", "CTRL_PAUSE", "CTRL_RESTART", "CTRL_STOP", "CTRL_RESET", "CTRL_NOOP",
        "CTRL_BAD", "UNKNOWN_PARTICIPANT", "MALFORMED", "DUPLICATE", "COUNT_UNDERFLOW", "OLD_TID", "BAD_TID",
        "PAUSED_DROP", "COMPLETION_DOWN", "FAILURE_UP", "TIMEOUT_MASTER", "RETRY", "RETRY_EXHAUSTED", "RETRY_RESEND",
        "RETRY_NONE", "WRONG_SENDER", "INIT_RELAY",
    ];
    /// Events of the Portals table of docs/cpu.md §3 and the Portals rows of §4 only.
    const PORTALS_ONLY: &[&str] =
        &["ARM", "REARM", "ARM_NO_DESC", "BAD_SEQNO_ARM", "DROP_VNI", "DROP_COOKIE", "DROP_SEQNO", "STALE_ARM", "TIMEOUT_EMPTY"];
    /// Events of the RESPONSE a TLP SUBSERVIENT holds in Full (§3 RETRY, §4 RETRY rows) and of the
    /// parent's COMPLETION (a MASTER drops it as BAD_KIND).
    const SUBSERVIENT_ONLY: &[&str] = &["RETRY", "RETRY_EXHAUSTED", "RETRY_RESEND", "COMPLETION_DOWN"];

    /// Why a combination cannot happen (docs/cpu.md §3-§4), or `None`.
    pub fn unreachable(idx: &[usize]) -> Option<&'static str> {
        let (event, role, family) = (EVENTS[idx[0]], ROLES[idx[1]], FAMILIES[idx[2]]);
        if family == "portals" && TLP_ONLY.contains(&event) {
            return Some("an event of the TLP family only (docs/cpu.md §3 TLP table, §4 TLP rows)");
        }
        if family == "tlp" && PORTALS_ONLY.contains(&event) {
            return Some("an event of the Portals family only (docs/cpu.md §3 Portals table, §4 Portals rows)");
        }
        match (event, role, family) {
            // Without a static entry only these: the drop of an unknown context, the drop of a kind
            // nobody handles, and a Portals contribution passed up (no live descriptor, 002 (59)).
            ("DROP_UNKNOWN" | "BAD_KIND", "no_context", _) | ("PASS_UP", "no_context", "portals") => None,
            (_, "no_context", _) => Some("needs a static entry for the context (docs/cpu.md §3: no static entry is DROP_UNKNOWN or BAD_KIND)"),
            ("DROP_UNKNOWN", _, "portals") => Some("a Portals DROP_UNKNOWN is an ARM with no static entry (docs/cpu.md §3 Portals table)"),
            (e, "master", _) if SUBSERVIENT_ONLY.contains(&e) => Some("a MASTER holds no RESPONSE and has no parent (docs/cpu.md §3, §4)"),
            ("TIMEOUT_MASTER", "subservient", _) => Some("the TLP MASTER's expiry (docs/cpu.md §4)"),
            ("TIMEOUT_PARTIAL", "master", "tlp") => Some("a TLP MASTER's expiry is TIMEOUT_MASTER (docs/cpu.md §4)"),
            _ => None,
        }
    }

    /// The bin of a `stat_event` code, `None` for 0 or a code beyond the table.
    pub fn event(code: u8) -> Option<usize> {
        usize::from(code).checked_sub(1).filter(|&i| i < EVENTS.len())
    }

    /// An empty cross.
    pub fn new() -> Cross {
        Cross::new(NAME, &AXES, unreachable)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The table above is `rtl/cpu.v`'s `EV_*` localparams, name for name and code for code.
        #[test]
        fn events_are_the_rtl_codes() {
            let v = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rtl/cpu.v")).expect("rtl/cpu.v");
            let mut found = 0;
            for part in v.split("EV_").skip(1) {
                let Some((name, rest)) = part.split_once('=') else { continue };
                let name = name.trim();
                let Some(code) = rest.trim().strip_prefix("6'd") else { continue };
                let code: u8 = code.chars().take_while(char::is_ascii_digit).collect::<String>().parse().expect("a code");
                assert_eq!(event(code).map(|i| EVENTS[i]), Some(name), "EV_{name} = {code}");
                found += 1;
            }
            assert_eq!(found, EVENTS.len());
        }
    }
}

/// Independent scoreboard of the CPU: the [`Reference`] plus output-protocol checks and coverage.
pub struct CpuMonitor {
    events: crate::cross::Cross,
    rf: Reference,
    log: TransactionLog,
    /// The output message on display last cycle, if not yet taken (it must be held).
    held: Option<CollectiveMsg>,
    /// The last cycle the documented sequencer wrote a message into the output register.
    wrote: Option<u64>,
}

/// Longest a sequencer event can hold the sequencer without output stalls, in cycles: ratchet steps,
/// one cycle per PBV bit (128) and the single message, a few cycles of decision.
const OVERDUE_PER_EVENT: u64 = 150;

/// docs/cpu.md §6 "Sequencer timing", in cycles after a message is accepted: the decision of EXEC
/// takes effect (idle again after a drop, or the first EMIT / RATCHET / ISSUE cycle).
const EXEC_DONE: u64 = 3;
/// The CHECK cycle of a first Portals contribution, stored without combining.
const CHECK_AFTER_STORE: u64 = 3;
/// The CHECK cycle of a combined contribution (ISSUE, 3 cycles of REDUCE).
const CHECK_AFTER_COMBINE: u64 = 7;
/// After the turn following the last EMIT item: one EMIT cycle that finds the list empty, FINISH.
const EMIT_TAIL: u64 = 2;

impl CpuMonitor {
    /// A scoreboard for an instance with parameters `p`.
    pub fn new(p: CpuParams) -> Self {
        CpuMonitor { events: event_cross::new(), rf: Reference::new(p), log: TransactionLog::default(), held: None, wrote: None }
    }

    fn describe(m: &CollectiveMsg) -> String {
        format!(
            "kind {} fam {:?} ctx {:#06x} src {:#x} dst {:#x} pid {:#x} count {} code {} tid {} seq {}/{} vni {:#x} op {:#04x} rc {} err {} retry {} posted {} data[0] {:#x}",
            m.kind.0, m.family, m.ctx, m.src, m.dst, m.pid, m.count, m.code, m.tid, m.seqno, m.resno, m.vni, m.op, m.rc, m.error, m.retry, m.posted, m.data[0]
        )
    }
}

impl Monitor<CpuIn, CpuOut> for CpuMonitor {
    fn observe(&mut self, cycle: u64, i: &CpuIn, o: &CpuOut) -> Result<(), String> {
        if i.rst {
            self.rf.reset();
            self.rf.last_reset = cycle;
            self.rf.cov.bump("resets");
            self.held = None;
            self.wrote = None;
            return Ok(());
        }
        // 1. The event pulse.
        if o.stat_valid {
            let name = event::name(o.stat_event);
            self.rf.cov.bump(name);
            if let Some(e) = event_cross::event(o.stat_event) {
                let key = if o.stat_family { o.stat_ctx & 0x1fff } else { o.stat_ctx & 0xfff };
                let entry = self.rf.st.iter().find(|s| s.valid && s.portals == o.stat_family && s.key == key);
                let role = match entry.map(|s| s.role) {
                    None => Some(2),
                    Some(r @ (0 | 1)) => Some(usize::from(r)),
                    Some(_) => None,
                };
                if let Some(role) = role {
                    self.events.hit(&[e, role, usize::from(o.stat_family)]);
                }
            }
            self.log.push(cycle, format!("event {name} ctx {:#06x} portals {}", o.stat_ctx, o.stat_family));
            let expiry = matches!(
                o.stat_event,
                event::TIMEOUT_PARTIAL | event::TIMEOUT_EMPTY | event::TIMEOUT_MASTER | event::RETRY | event::RETRY_EXHAUSTED
            );
            match self.rf.events.pop_front() {
                Some(want) => {
                    if want != (o.stat_event, o.stat_family, o.stat_ctx) {
                        return Err(format!(
                            "event {name} ctx {:#06x} (portals {}), the reference expects {} ctx {:#06x} (portals {})",
                            o.stat_ctx,
                            o.stat_family,
                            event::name(want.0),
                            want.2,
                            want.1
                        ));
                    }
                }
                None if expiry => {
                    // docs/cpu.md §4, §6: reported exactly two cycles after the documented sequencer took it.
                    if self.rf.seq != Seq::Expire(cycle) {
                        return Err(format!(
                            "{name} of context {:#06x} reported at cycle {cycle}, but the documented sequencer (docs/cpu.md §4, §6) has taken no expiry to report on this cycle ({}, {:?}): the expiry is early",
                            o.stat_ctx, self.rf.seq_why, self.rf.seq
                        ));
                    }
                    self.rf.cov.bump(self.rf.seq_label);
                    if self.rf.seq_label != "timeouts_exact" && self.rf.seq_label != "timeouts_unpredicted" {
                        self.rf.cov.bump("timeouts_exact_busy");
                    }
                    self.rf.expiry(cycle, o.stat_family, o.stat_ctx, o.stat_event)?;
                    self.rf.plan(cycle, "expiry");
                }
                None => return Err(format!("event {name} ctx {:#06x} with no message to explain it", o.stat_ctx)),
            }
            // The FAILURE status register changes with the event that set a Failure flag.
            while let Some((fam, ctx)) = self.rf.fail_marks.pop_front() {
                let f = &mut self.rf.fail;
                *f = (true, fam, ctx, f.3.saturating_add(1));
                self.rf.cov.bump("failure_status_set");
            }
        }
        let got = (o.fail_valid, o.fail_family, o.fail_ctx, o.fail_count);
        if got != self.rf.fail {
            return Err(format!("FAILURE status {got:?}, the reference expects {:?} (valid, family, ctx, count)", self.rf.fail));
        }
        // 1b. An expiry the documented sequencer took is reported on its cycle.
        if let Seq::Expire(due) = self.rf.seq {
            if cycle >= due {
                return Err(format!(
                    "the sequencer took an expiry at cycle {} ({}: {}), but none was reported at cycle {due}: the expiry is late",
                    due - 2,
                    self.rf.seq_label,
                    if self.rf.seq_label == "timeouts_exact" { "idle".to_string() } else { format!("after {}", self.rf.seq_why) }
                ));
            }
        }
        // 2. Outgoing messages: compared when they appear, held until taken.
        if o.m_msg_valid {
            let m = o.msg();
            match self.held {
                Some(h) if h != m => return Err(format!("m_msg changed while not taken: {} became {}", Self::describe(&h), Self::describe(&m))),
                Some(_) => {}
                None => {
                    let want = self.rf.outs.pop_front().ok_or_else(|| format!("unexpected message out: {}", Self::describe(&m)))?;
                    // docs/cpu.md §6: EMIT writes it into the output register the cycle before.
                    if self.wrote != Some(cycle - 1) {
                        return Err(format!(
                            "message out at cycle {cycle}, but the documented sequencer (docs/cpu.md §6) wrote none on cycle {} (last at {:?}, {:?})",
                            cycle - 1,
                            self.wrote,
                            self.rf.seq
                        ));
                    }
                    if want.msg != m {
                        return Err(format!("message out:\n      {}\n    the reference expects:\n      {}", Self::describe(&m), Self::describe(&want.msg)));
                    }
                    if let Some((portals, key)) = want.starts_timer {
                        if let Some(k) = self.rf.find_live(portals, key) {
                            let d = &mut self.rf.live[k];
                            if d.run_on_output {
                                // FINISH reloads the timer the cycle after next; a paused one stays put.
                                d.run_on_output = false;
                                d.stalls_after = 0;
                                if d.paused {
                                    d.paused_since_load = true;
                                } else {
                                    d.run_from = Some(cycle + 2);
                                }
                            }
                        }
                    }
                    self.rf.cov.bump("messages_out");
                    self.log.push(cycle, format!("out {}", Self::describe(&m)));
                }
            }
            self.held = if i.m_msg_ready { None } else { Some(m) };
            if !i.m_msg_ready {
                self.rf.cov.bump("stall_cycles");
            }
        } else if self.held.is_some() {
            return Err("m_msg_valid fell before the message was taken".to_string());
        }
        // 2b. Exact timers (docs/cpu.md §4 "Exact expiry"): from the cycle a running timer's expiry is
        // pending, the CPU may not be ready (an expiry blocks new messages); if the sequencer is seen
        // idle the cycle before, it takes the expiry at once and reports it two cycles later.
        let was_idle = self.rf.seq == Seq::Idle;
        if self.rf.seq_step(cycle, !o.m_msg_valid || i.m_msg_ready) {
            self.wrote = Some(cycle);
        }
        self.rf.seq_take(cycle, o.s_msg_ready, was_idle)?;
        if let Some(e) = self.rf.exact_timers(cycle, o.s_msg_ready) {
            return Err(e);
        }
        // 3. An accepted message.
        if i.s_msg_valid && o.s_msg_ready {
            let m = i.msg();
            self.rf.cov.bump("messages_in");
            self.rf.cov.bump(if m.family == Family::Portals { "portals_in" } else { "tlp_in" });
            self.log.push(cycle, format!("in  {}", Self::describe(&m)));
            self.rf.message(cycle, &m);
            self.rf.plan(cycle, "emission");
        }
        // 4. Configuration.
        if i.cfg_wr_en {
            self.rf.cov.bump("cfg_writes");
            self.rf.write(i.cfg_wr_addr, i.cfg_wr_data);
        }
        // 5. No timer may be overdue.
        if let Some(e) = self.rf.overdue(cycle, o.m_msg_valid && !i.m_msg_ready) {
            return Err(e);
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v = self.rf.cov.counts.clone();
        v.push(("max_live_descriptors", self.rf.cov.max_live));
        v.sort_by_key(|(k, _)| *k);
        v
    }

    fn cross(&self) -> Vec<crate::cross::Cross> {
        vec![self.events.clone()]
    }
}

/// Builds a fresh lockstep bench for the Verilated model `model` (a CPU) and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<Cpu, CpuRtl, CpuStimulus, CpuMonitor>, HarnessError> {
    let p = params_of(model)?;
    let cpu = Cpu::new(p).map_err(|e| HarnessError::Params { model: "cpu", detail: e.to_string() })?;
    Ok((cpu, CpuRtl::new(model)?, CpuStimulus::new(p, seed), CpuMonitor::new(p)))
}

/// Runs the CPU target `model`.
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, Box<FailureReport>> {
    let reproduce = |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block cpu --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
