//! The CPU's seeded stimulus: episodes of reset, configuration burst and traffic (see the module
//! documentation of [`super`]).

use std::collections::VecDeque;

use inswitch_model::cpu::config::{self as reg, mode_word, pbv_word, static_word0, static_word1};
use inswitch_model::cpu::context::role;
use inswitch_model::cpu::{
    command, completion, event, next_seqno, reason, CpuIn, CpuOut, CpuParams, SEQNO_RESERVED,
};
use inswitch_model::message::{CollectiveMsg, Family, Kind, NO_PARTICIPANT};
use inswitch_model::reduce::Contribution;
use inswitch_model::reduce::stimulus::random_pair;
use rand::RngExt;

use crate::checker::Stimulus;

/// Static entries an episode configures at most: all of a table up to this size, else this many drawn
/// over the table (the configuration queue writes two words per entry, one per cycle).
const MAX_CONFIGURED: usize = 64;
use crate::stimulus::{self, Gaps, Phases, StimRng};

/// Probability, per cycle of the clearing sweep after a reset that the configuration waits out, of a
/// static-entry write the CPU must ignore.
const SWEEP_WRITE_P: f64 = 0.01;
/// The random stream of the word-0 rewrites during traffic.
const REWRITE_STREAM: u64 = 1;
/// The random stream of the subservients' resent RESPONSEs after a round (a lost result copy).
const RESEND_STREAM: u64 = 2;
/// Probability, per accepted message for a configured context, that its entry's word 0 is written again
/// later (with the configured value: a new context, `stored` and `tid` cleared, docs/blocks/cpu.md
/// §Ports). The write comes on a cycle on which the sequencer is idle and takes nothing (the CPU was
/// ready on the cycle before and offered nothing, nothing is offered with the write, and no expiry can
/// become pending: not the cycle after a timer tick): the reference decides a message, or an expiry, when
/// the sequencer takes it, so a write while one is in flight would be a race it does not model
/// (configuration is meant to be written before traffic, §Ports). The write at the edge of a sequencer
/// write of the same entry is checked directed, RTL against model
/// (`tests/independent_cpu_timers.rs`, `a_word0_write_around_a_sequencer_write_matches_the_model`).
const REWRITE_P: f64 = 0.004;
/// Cycles of reset at the start of every episode.
const RESET_CYCLES: u64 = 3;
/// Shortest and longest episode (reset, configuration, traffic), in cycles.
const EPISODE_CYCLES: (u64, u64) = (20_000, 120_000);
/// The simulated source node / parent of every TLP context (000 [0097]'s upstream requester).
const SOURCE_ID: u16 = 0x0F0F;
/// Opcodes the contexts use (docs/blocks/reduce_unit.md), an undefined one included.
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
    /// Its static entry's word 0 as configured: (address, value).
    word0: (u16, u32),
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
    /// The last cycle of the clearing sweep after the episode's reset (docs/blocks/cpu.md §Where the
    /// tables live): static entries are written after it.
    swept_at: u64,
    /// The rewrites of a configured entry's word 0 during traffic (a new context: `stored` and `tid`
    /// cleared) draw from a stream of their own, so the rest of the stimulus keeps its random stream.
    rewrites: StimRng,
    /// A rewrite due (the world index), made on the first cycle the sequencer is idle ([`REWRITE_P`]).
    rewrite: Option<usize>,
    /// The subservients' resent RESPONSEs draw from a stream of their own too (the other draws stay
    /// where the coverage minimums were set).
    resends: StimRng,
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
            swept_at: 0,
            rewrites: stimulus::rng(seed, REWRITE_STREAM),
            rewrite: None,
            resends: stimulus::rng(seed, RESEND_STREAM),
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
        // Every static entry the RTL has, up to 64 (the cosim's `cpu`: 16); from a larger table, 64
        // entries drawn at random over all of it (`cpu_full`: 4096).
        let n = self.p.static_entries.min(MAX_CONFIGURED);
        let mut slots: Vec<usize> = (0..n).collect();
        if self.p.static_entries > n {
            slots.clear();
            while slots.len() < n {
                let s = r.random_range(0..self.p.static_entries);
                if !slots.contains(&s) {
                    slots.push(s);
                }
            }
        }
        let mut keys: Vec<(bool, u16)> = Vec::new();
        for s in slots {
            let portals = r.random_bool(0.5);
            // The table is direct-mapped (docs/blocks/cpu.md §Static table): a context is written at its
            // key's entry, key mod STATIC_ENTRIES, so entry s gets a random key that maps to it.
            let key = loop {
                let top: u16 = if portals { 0x2000 } else { 0x1000 };
                let k = r.random_range(0..top);
                let entries = self.p.static_entries as u16;
                let k = k - k % entries + s as u16;
                let k = if k >= top { k - entries } else { k };
                if !keys.contains(&(portals, k)) {
                    break k;
                }
            };
            keys.push((portals, key));
            let role = if r.random_bool(0.35) { role::MASTER } else { role::SUBSERVIENT };
            let wait = r.random_range(1..6);
            let valid = r.random_bool(0.95);
            let word0 = (reg::STATIC + 2 * s as u16, static_word0(valid, portals, role, key));
            w.push_back(word0);
            // Reduce to one target (bit 31 of word 1) on about half the contexts of either family and
            // role (it changes a TLP master's copies only): the parity of the random key, so the random
            // stream, and with it the rest of the stimulus, is the one the coverage minimums were set on.
            let one_target = key.count_ones() % 2 == 1;
            w.push_back((reg::STATIC + 2 * s as u16 + 1, static_word1(wait, one_target)));
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
                word0,
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
        // A round ended with a COMPLETION: now and then its result is "lost" on the way to the source (a
        // master's upstream) or a participant, which asks again with a RETRY for that round soon after
        // (docs/blocks/cpu.md §Messages "Kept result"), mostly before the next round's first contribution.
        let master = self.world[wi].role == role::MASTER;
        let ended = (e == event::COMPLETE && master) || e == event::TIMEOUT_MASTER || e == event::COMPLETION_DOWN;
        if ended && self.r.random_bool(0.25) {
            let w = &self.world[wi];
            let mut m = CollectiveMsg { kind: Kind::RETRY, ctx, src: u32::from(SOURCE_ID), code: reason::TIMEOUT, tid: w.tid, ..self.base(w) };
            if !w.participants.is_empty() && (!master || self.r.random_bool(0.5)) {
                let p = w.participants[self.r.random_range(0..w.participants.len())];
                m.src = u32::from(self.dev_of(p));
                m.pid = p as u16;
            }
            let at = now + self.r.random_range(0..40);
            self.scheduled.push((at, m));
        }
        // Or its copy to a switch participant (a subservient) is lost: the subservient, still Full,
        // resends its RESPONSE for that round (mostly without P_ID, as a subservient sends it), mostly
        // before the next round's first contribution: the kept result answers it, else "already
        // completed" (docs/blocks/cpu.md §Messages "Kept result").
        if ended && self.resends.random_bool(0.25) {
            let w = self.world[wi].clone();
            let switches: Vec<usize> = w.participants.iter().copied().filter(|&p| self.switch_of(p)).collect();
            if !switches.is_empty() {
                let p = switches[self.resends.random_range(0..switches.len())];
                let src = u32::from(self.dev_of(p));
                let base = self.base(&w);
                let rs = &mut self.resends;
                let m = CollectiveMsg {
                    kind: Kind::RESPONSE,
                    ctx,
                    src,
                    pid: if rs.random_bool(0.2) { p as u16 } else { NO_PARTICIPANT },
                    count: rs.random_range(1..9),
                    tid: w.tid,
                    retry: true,
                    posted: w.posted,
                    op: w.op,
                    data: [rs.random(), rs.random(), rs.random(), rs.random()],
                    ..base
                };
                let at = now + self.resends.random_range(0..60);
                self.scheduled.push((at, m));
            }
        }
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

    /// An INITIALIZATION for another engine (P_ID = a device ID, docs/blocks/cpu.md §Messages): mostly a switch
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
        // Two in five: a FIG. 4 configuration message for that engine instead (docs/blocks/cpu.md
        // §Messages: relayed the same way, its pbv and data as they came); one of those in ten names this
        // engine or none, which the checker never hands over (BAD_KIND).
        let config = self.r.random_bool(0.4);
        if config && self.r.random_bool(0.1) {
            pid = if self.r.random_bool(0.5) { self.engine_id } else { NO_PARTICIPANT };
        }
        m.kind = if config { Kind::CONFIGURATION } else { Kind::INITIALIZATION };
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
            // p_count one too many or (more often: COUNT_UNDERFLOW at either role) one too few.
            let count = match self.r.random_range(0..20) {
                0 => n + 1,
                1 | 2 => n.saturating_sub(1),
                _ => n,
            };
            let c = self.operands(w.op);
            m.kind = Kind::INITIALIZATION;
            m.count = count;
            m.pbv = pbv;
            m.op = w.op;
            m.data = c.rt_data;
            m.dmu_id = self.r.random();
            // Its own device ID as P_ID is the engine's own INITIALIZATION too (docs/blocks/cpu.md §Messages).
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
            // acknowledgement the sender's (docs/blocks/cpu.md §Messages).
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
            // A retry request (000 [0117]), mostly from the parent, sometimes from a participant; half of
            // them for the round just completed (TID - 1: its result lost, docs/blocks/cpu.md §Messages
            // "Kept result"), a participant mostly naming itself by P_ID.
            m.kind = Kind::RETRY;
            m.code = reason::TIMEOUT;
            if self.r.random_bool(0.5) {
                m.tid = w.tid.wrapping_sub(1) & 3;
            }
            if self.r.random_bool(0.3) {
                let p = w.participants[self.r.random_range(0..w.participants.len())];
                m.src = u32::from(self.dev_of(p));
                if self.r.random_bool(0.8) {
                    m.pid = p as u16;
                }
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
            // a spoofer picks one (docs/blocks/cpu.md §Messages, WRONG_SENDER).
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
            let m = self.last.msg();
            let key = if m.family == Family::Portals { m.ctx & 0x1fff } else { m.ctx & 0xfff };
            let wi = self.world.iter().position(|w| w.portals == (m.family == Family::Portals) && w.key == key);
            if let Some(wi) = wi.filter(|_| self.rewrite.is_none() && self.rewrites.random_bool(REWRITE_P)) {
                self.rewrite = Some(wi);
            }
        }
        self.react(previous);
        self.cycle += 1;
        self.phases.tick(&mut self.r);
        let prof = self.phases.profile;
        let mut i = CpuIn { m_msg_ready: !self.stall.gap(&mut self.r, prof.stall, prof.persist), ..CpuIn::default() };
        match &mut self.phase {
            Phase::Reset(left) => {
                i.rst = true;
                self.rewrite = None;
                *left -= 1;
                if *left == 0 {
                    let cfg = self.configure();
                    self.phase = Phase::Config(cfg);
                    self.swept_at = self.cycle + self.p.static_entries as u64;
                }
                self.offered = None;
            }
            Phase::Config(q) => {
                let sweeping = self.cycle <= self.swept_at;
                if sweeping && q.front().is_some_and(|&(a, _)| a >= reg::STATIC) {
                    // The static entries wait for the end of the sweep; now and then a write of one
                    // during it, which the CPU ignores (the reference too).
                    if self.r.random_bool(SWEEP_WRITE_P) {
                        let e = self.r.random_range(0..self.p.static_entries) as u16;
                        let w0 = static_word0(true, self.r.random_bool(0.5), role::MASTER, self.r.random_range(0..0x2000));
                        i = CpuIn { cfg_wr_en: true, cfg_wr_addr: reg::STATIC + 2 * e, cfg_wr_data: w0, ..i };
                    }
                } else if let Some((a, d)) = q.pop_front() {
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
                let tick = u64::from(self.p.tick_cycles);
                let reset_at = self.swept_at - self.p.static_entries as u64;
                let quiet = previous.s_msg_ready && !self.last.s_msg_valid && (self.cycle - reset_at) % tick != 1;
                if let Some(m) = self.offered.filter(|_| !(quiet && self.rewrite.is_some())) {
                    i.set_msg(&m);
                }
                if let Some(wi) = self.rewrite.filter(|_| quiet) {
                    self.rewrite = None;
                    let (a, d) = self.world[wi].word0;
                    i = CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: d, ..i };
                    // The context is new: the world initializes it again (TLP) before contributing.
                    let w = &mut self.world[wi];
                    w.init = false;
                    w.tid = 0;
                    w.pending.clear();
                }
            }
        }
        self.last = i;
        i
    }
}
