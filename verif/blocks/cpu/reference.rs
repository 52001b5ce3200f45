//! The CPU's transaction-level reference of docs/blocks/cpu.md: its state, the configuration it reads from the
//! writes, and what every accepted message does (independent of the cycle model).

use std::collections::VecDeque;

use inswitch_model::cpu::context::role;
use inswitch_model::cpu::{
    command, completion, event, reason, CpuParams, COUNT_MAX, SEQNO_RESERVED,
};
use inswitch_model::message::{CollectiveMsg, Family, Kind, NO_PARTICIPANT};
use inswitch_model::reduce::{combine_with, Contribution, Mode, Rc};

use super::coverage::Coverage;

// The documented cycle counts, and the ends of rounds and the timing of the sequencer and the timers (an
// `impl Reference` of its own).
mod kept;
mod portals;
mod schedule;
mod timing;
use schedule::{scan_cycles, CHECK_AFTER_COMBINE, CHECK_AFTER_STORE, EXEC_DONE};

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
    /// TLP: the message that ended the last round (the master's result or timeout, the parent's
    /// result), kept for a RETRY until the next round's first contribution (docs/blocks/cpu.md §Messages
    /// "Kept result"); `None` after an activation, a round ended by exhausted retries, or once the
    /// next round has a contribution.
    kept: Option<CollectiveMsg>,
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

/// A static entry of the reference, as the configuration writes set it (docs/blocks/cpu.md §Ports).
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
    /// Word 1 bit 31: reduce to one target (docs/blocks/cpu.md §Ports).
    one_target: bool,
}

/// Where a decision leaves the sequencer, in cycles from its base (docs/blocks/cpu.md §Timing): idle from that
/// cycle, or in EMIT from that cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Hold {
    Idle(u64),
    Emit(u64),
}

/// The sequencer of docs/blocks/cpu.md §Timing as the scoreboard times it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Seq {
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
pub(super) struct Expected {
    pub(super) msg: CollectiveMsg,
    pub(super) starts_timer: Option<(bool, u16)>,
}

/// The transaction-level reference of docs/blocks/cpu.md (independent of the cycle model).
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
    /// The sequencer as docs/blocks/cpu.md §Timing times it from the observed events (never from the model).
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
    /// The FAILURE status register as docs/blocks/cpu.md §Ports states it: (valid, family, ctx, count).
    fail: (bool, bool, u16, u8),
}

/// The monitor's interface to the reference ([`CpuMonitor`] observes the ports and asks; the reference's
/// state stays its own).
impl Reference {
    /// A reset at `cycle`: every state back to its reset value (the coverage is kept); the timer ticks
    /// count from this cycle.
    pub(super) fn reset_at(&mut self, cycle: u64) {
        self.reset();
        self.last_reset = cycle;
        self.cov.bump("resets");
    }

    /// Counts one more of the named coverage counter.
    pub(super) fn bump(&mut self, name: &'static str) {
        self.cov.bump(name);
    }

    /// The counters, sorted by name, with the most descriptors live at once.
    pub(super) fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v = self.cov.counts.clone();
        v.push(("max_live_descriptors", self.cov.max_live));
        v.sort_by_key(|(k, _)| *k);
        v
    }

    /// The role of a context's static entry as the configuration writes set it (`None`: no valid entry).
    pub(super) fn role_of(&self, portals: bool, key: u16) -> Option<u8> {
        self.static_at(portals, key).map(|i| self.st[i].role)
    }

    /// The static entry holding context `key` of a family: the table is direct-mapped
    /// (docs/blocks/cpu.md §Static table), so only entry `key mod STATIC_ENTRIES` can, and does when its
    /// tag (valid, family, key) is the context's.
    fn static_at(&self, portals: bool, key: u16) -> Option<usize> {
        let i = usize::from(key) % self.st.len();
        let s = &self.st[i];
        (s.valid && s.portals == portals && s.key == key).then_some(i)
    }

    /// The next expected `stat_*` event `(event, portals, ctx)`, if a message explains one.
    pub(super) fn next_event(&mut self) -> Option<(u8, bool, u16)> {
        self.events.pop_front()
    }

    /// An expiry event `observed` on `stat_*` at `cycle` that no message explains: it must come exactly
    /// two cycles after the documented sequencer took it (docs/blocks/cpu.md §Timers, §Timing); then the
    /// reference predicts its outcome and times the sequencer from it.
    pub(super) fn reported_expiry(&mut self, cycle: u64, portals: bool, ctx: u16, observed: u8) -> Result<(), String> {
        if self.seq != Seq::Expire(cycle) {
            return Err(format!(
                "{} of context {ctx:#06x} reported at cycle {cycle}, but the documented sequencer (docs/blocks/cpu.md §Timers, §Timing) has taken no expiry to report on this cycle ({}, {:?}): the expiry is early",
                event::name(observed),
                self.seq_why,
                self.seq
            ));
        }
        self.cov.bump(self.seq_label);
        if self.seq_label != "timeouts_exact" && self.seq_label != "timeouts_unpredicted" {
            self.cov.bump("timeouts_exact_busy");
        }
        self.expiry(cycle, portals, ctx, observed)?;
        self.plan(cycle, "expiry");
        Ok(())
    }

    /// The FAILURE status register after an event showed on `stat_*`: the Failure flags its decision set
    /// are applied (docs/blocks/cpu.md §Ports: (valid, family, ctx, count)).
    pub(super) fn fail_status_after_event(&mut self) {
        while let Some((fam, ctx)) = self.fail_marks.pop_front() {
            let f = &mut self.fail;
            *f = (true, fam, ctx, f.3.saturating_add(1));
            self.cov.bump("failure_status_set");
        }
    }

    /// The FAILURE status register as docs/blocks/cpu.md §Ports states it: (valid, family, ctx, count).
    pub(super) fn fail_status(&self) -> (bool, bool, u16, u8) {
        self.fail
    }

    /// An expiry the documented sequencer took must be reported by its cycle: an error at or after it.
    pub(super) fn expiry_not_late(&self, cycle: u64) -> Result<(), String> {
        match self.seq {
            Seq::Expire(due) if cycle >= due => Err(format!(
                "the sequencer took an expiry at cycle {} ({}: {}), but none was reported at cycle {due}: the expiry is late",
                due - 2,
                self.seq_label,
                if self.seq_label == "timeouts_exact" { "idle".to_string() } else { format!("after {}", self.seq_why) }
            )),
            _ => Ok(()),
        }
    }

    /// The next expected outgoing message.
    pub(super) fn next_out(&mut self) -> Option<Expected> {
        self.outs.pop_front()
    }

    /// The expected message `shown` appeared on `m_msg` at `cycle`: if it starts its context's timer,
    /// FINISH reloads the timer the cycle after next (a paused one stays put).
    pub(super) fn out_shown(&mut self, cycle: u64, shown: &Expected) {
        self.cov.bump("messages_out");
        let Some((portals, key)) = shown.starts_timer else { return };
        let Some(k) = self.find_live(portals, key) else { return };
        let d = &mut self.live[k];
        if d.run_on_output {
            d.run_on_output = false;
            d.stalls_after = 0;
            if d.paused {
                d.paused_since_load = true;
            } else {
                d.run_from = Some(cycle + 2);
            }
        }
    }

    /// The documented sequencer, for a report.
    pub(super) fn sequencer(&self) -> &Seq {
        &self.seq
    }

    /// One cycle of the documented sequencer and of the exact timers (docs/blocks/cpu.md §Timers "Exact
    /// expiry"), with `out_free` the output register empty or taken on this cycle, `out_held` it holds a
    /// message on this cycle (`m_msg_valid`) and `ready` the CPU's `s_msg_ready`. Returns whether EMIT
    /// wrote a message into the output register on this cycle.
    pub(super) fn cycle(&mut self, cycle: u64, out_free: bool, out_held: bool, ready: bool) -> Result<bool, String> {
        if self.sweeping(cycle) {
            // The documented sequencer is idle and no timer runs (every descriptor was freed by the
            // reset): the CPU must simply not be ready.
            if !ready {
                return Ok(false);
            }
            return Err(format!(
                "the CPU is ready for messages at cycle {cycle}, {} cycles after the reset at {}: docs/blocks/cpu.md §Where the tables live holds it for the {}-cycle clearing sweep",
                cycle - self.last_reset,
                self.last_reset,
                self.p.static_entries
            ));
        }
        let was_idle = self.seq == Seq::Idle;
        let wrote = self.seq_step(cycle, out_free, out_held);
        self.seq_take(cycle, ready, was_idle)?;
        match self.exact_timers(cycle, ready) {
            Some(e) => Err(e),
            None => Ok(wrote),
        }
    }

    /// A message accepted on `s_msg` at `cycle`: the reference predicts its events and messages, and
    /// times the sequencer from it.
    pub(super) fn accept(&mut self, cycle: u64, m: &CollectiveMsg) {
        self.cov.bump("messages_in");
        self.cov.bump(if m.family == Family::Portals { "portals_in" } else { "tlp_in" });
        // The reverse lookup's SCAN cycles delay the whole decision (docs/blocks/cpu.md §PBV table).
        let scan = scan_cycles(m);
        if scan != 0 {
            self.cov.bump("scan_lookups");
        }
        let cycle = cycle + scan;
        self.message(cycle, m);
        self.plan(cycle, "emission");
    }

    /// Whether `cycle` is one of the clearing sweep's after the last reset (docs/blocks/cpu.md §Where the
    /// tables live, "Reset": `STATIC_ENTRIES` cycles from the one after the reset's last).
    fn sweeping(&self, cycle: u64) -> bool {
        cycle <= self.last_reset + self.p.static_entries as u64
    }

    /// A configuration write of `d` at CPU address `a` on `cycle` (docs/blocks/cpu.md §Ports); a static
    /// entry's is ignored during the clearing sweep after a reset.
    pub(super) fn configure(&mut self, cycle: u64, a: u16, d: u32) {
        self.cov.bump("cfg_writes");
        if self.sweeping(cycle) && (a & 0x3fff) >= 0x100 {
            self.cov.bump("sweep_static_writes_ignored");
            return;
        }
        self.write(a, d);
    }

    /// No running timer may be overdue at `cycle` (`stalled`: the output held this cycle).
    pub(super) fn check_overdue(&mut self, cycle: u64, stalled: bool) -> Result<(), String> {
        self.overdue(cycle, stalled).map_or(Ok(()), Err)
    }
}

/// The contribution a DATA or reduction message carries, field by field: written here rather than taken
/// from the model's `cpu::contribution_of`, so that the reference stays independent of the cycle model.
fn contribution(m: &CollectiveMsg) -> Contribution {
    Contribution {
        rt_op: m.op,
        rt_data: m.data,
        rt_rc: Rc::from_raw(m.rc),
        rt_repsum_m: m.repsum_m,
        rt_repsum_oflow_id: m.repsum_oflow_id,
        sfa: m.src,
    }
}

fn bit(v: u128, i: usize) -> bool {
    i < 128 && v >> i & 1 != 0
}

impl Reference {
    /// The reference of a CPU with parameters `p`, just after a reset.
    pub(super) fn new(p: CpuParams) -> Reference {
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

    /// docs/blocks/cpu.md §Timers "Exact expiry", computed from the tick length and the cycles since the reset,
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

    /// A reset: every state back to its reset value; the coverage is kept.
    fn reset(&mut self) {
        let cov = std::mem::take(&mut self.cov);
        *self = Reference::new(self.p);
        self.cov = cov;
    }

    /// A configuration write of `d` at CPU address `a` (docs/blocks/cpu.md §Ports).
    fn write(&mut self, a: u16, d: u32) {
        // cfg_wr_addr is 14 bits (docs/blocks/cpu.md §Ports: static entry 4095's word 1 is 0x20FF).
        let a = a & 0x3fff;
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
                    s.one_target = d >> 31 != 0;
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
        self.static_at(portals, key)
    }

    /// The live descriptor of a context, by family and key.
    fn find_live(&self, portals: bool, key: u16) -> Option<usize> {
        self.live.iter().position(|d| d.portals == portals && d.key == key)
    }

    /// Whether a context without a live descriptor can have one (docs/blocks/cpu.md §Descriptors): its
    /// tree (TLP: the CC_ID; Portals: ctx bits 12:0) already has a slot (then its reduction id's
    /// descriptor there is free, the context having none), or fewer trees than `DESCRIPTORS` (the tree
    /// slots) are live.
    fn has_room(&self, portals: bool, key: u16) -> bool {
        let tree = |p: bool, k: u16| (p, if p { k & 0x1fff } else { k & 0xfff });
        let t = tree(portals, key);
        let mut trees: Vec<(bool, u16)> = self.live.iter().map(|d| tree(d.portals, d.key)).collect();
        trees.sort_unstable();
        trees.dedup();
        trees.contains(&t) || trees.len() < self.p.descriptors
    }

    /// An expected `stat_*` event.
    fn ev(&mut self, e: u8, portals: bool, ctx: u16) {
        self.events.push_back((e, portals, ctx));
    }

    /// An expected outgoing message that starts no timer.
    fn out(&mut self, msg: CollectiveMsg) {
        self.out_timed(msg, None);
    }

    /// An outgoing message, one EMIT item (docs/blocks/cpu.md §Timing).
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

    /// The initial value of a TLP context's round: its static entry's operation and data, from this engine.
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
            kept: None,
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
        } else if self.has_room(false, key) {
            self.live.push(d);
            self.cov.live(self.live.len());
        } else {
            return false;
        }
        true
    }

    /// Copies of `tmpl`, one to each valid PBV-table entry set in `pbv`.
    /// The copies a MASTER sends its participants at the end of a round (completion or timeout), then
    /// its message to `upstream` (`tmpl`). The rule is 003's, written out here: "If the collective
    /// function specifies that the end result is sent to a single target process (e.g., in an
    /// MPI_REDUCE function), the offload manager configures the root switch to forward the end result
    /// to the node running that process" ([0052]; [0060]: "the root switch sends the end result to the
    /// designated target node"). The target is `upstream` (the source); the participants still get
    /// the exit of the round (001: the exit flows down), a COMPLETION ROUND_DONE whose data, result
    /// code and REPSUM fields are 0. Without the bit, every participant gets the result (all-reduce).
    fn master_copies(&mut self, tmpl: CollectiveMsg, si: usize) {
        let s = self.st[si];
        if s.one_target {
            self.cov.bump("one_target_rounds");
            let exit = CollectiveMsg { code: completion::ROUND_DONE, data: [0; 4], rc: 0, repsum_m: 0, repsum_oflow_id: 0, ..tmpl };
            self.copies(exit, s.pbv);
        } else {
            self.copies(tmpl, s.pbv);
        }
        self.out(tmpl);
    }

    fn copies(&mut self, tmpl: CollectiveMsg, pbv: u128) {
        for b in 0..128 {
            if bit(pbv, b) && self.pbv_valid[b] {
                self.out(CollectiveMsg { dst: u32::from(self.pbv_dev[b]), pid: b as u16, ..tmpl });
            } else if bit(pbv, b) {
                // docs/blocks/cpu.md §Timing: a PBV bit whose table entry is invalid is skipped in one cycle.
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
    /// (docs/blocks/cpu.md §Messages, COMPLETION code 5), after any replicated copies.
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
        // An INITIALIZATION or configuration message for another engine (P_ID = its device ID) is relayed
        // down; a configuration message for this engine is not the CPU's (the checker applies it).
        let for_below = m.pid != NO_PARTICIPANT && m.pid != self.engine_id;
        if m.kind == Kind::CONFIGURATION && !for_below {
            self.cov.bump("config_not_for_below");
            return event::BAD_KIND;
        }
        let Some(si) = self.find_static(m) else {
            return match m.kind {
                Kind::CONFIGURATION
                | Kind::INITIALIZATION
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
            Kind::INITIALIZATION | Kind::CONFIGURATION if for_below => {
                if m.kind == Kind::CONFIGURATION {
                    self.cov.bump("config_relay");
                }
                // docs/blocks/cpu.md §Messages: an INITIALIZATION for another engine (P_ID = its device ID) is
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
                // docs/blocks/cpu.md §Sequencer timing: EMIT from A + 4 like CONTROL's copies, the list
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
                // docs/blocks/cpu.md §Timing: a command on a stored context, or a non-posted one, goes to EMIT (its
                    // copies, then its acknowledgement) even when there is nothing to send.
                if s.stored || !m.posted {
                    self.hold = Some(Hold::Emit(EXEC_DONE));
                }
                if s.stored {
                    // The copies carry the context's TID (docs/blocks/cpu.md §Messages), the acknowledgement m's.
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
                        // "Already completed", or the kept result to a switch participant (kept.rs).
                        return self.tlp_one_behind(m, &s, k);
                    }
                    return event::BAD_TID;
                }
                let d = self.live[k].clone();
                if d.paused {
                    return event::PAUSED_DROP;
                }
                let p = if m.pid != NO_PARTICIPANT {
                    (m.pid < 128).then_some(usize::from(m.pid))
                } else {
                    (0..128).find(|&i| self.pbv_valid[i] && self.pbv_dev[i] == m.src as u16)
                };
                if d.state >= 2 {
                    // docs/blocks/cpu.md §Messages: a late frame goes up, unless its participant (in the
                    // stored PBV, the entry holding the sender, the right kind) is already counted: then
                    // DuplicateContribution, as while Filling (000 [0143] (a)).
                    let counted = p.is_some_and(|p| bit(s.pbv, p) && self.pbv_valid[p] && self.pbv_dev[p] == m.src as u16 && (m.kind == Kind::RESPONSE) == self.pbv_switch[p] && !bit(d.pbv, p));
                    if counted {
                        self.cov.bump("duplicate_in_full");
                        let r = self.reply(m, Kind::FAILURE, reason::DUPLICATE);
                        self.out(r);
                        return event::DUPLICATE;
                    }
                    let u = self.up(m, &s);
                    self.out(u);
                    return event::PASS_UP;
                }
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
                let c = contribution(m);
                let dd = &mut self.live[k];
                // The round's first contribution: the last round's result is no longer kept.
                dd.kept = None;
                dd.pbv &= !(1u128 << p);
                dd.pcount -= 1;
                dd.count = (dd.count + m.count).min(COUNT_MAX);
                dd.accepted.push(c);
                if dd.state == 0 {
                    // Idle -> Filling on the last REDUCE cycle; the watchdog runs from the next one (CHECK).
                    dd.state = 1;
                    self.cov.transition(0);
                    if !dd.paused_since_load {
                        dd.run_from = Some(cycle + CHECK_AFTER_COMBINE);
                        dd.stalls_after = 0;
                    }
                }
                let done = dd.pbv == 0 && dd.pcount == 0;
                self.cov.op(m.op);
                // docs/blocks/cpu.md §Timing: ISSUE, REDUCE, CHECK, then idle unless it completes.
                self.hold = Some(Hold::Idle(CHECK_AFTER_COMBINE + 1));
                if done {
                    self.complete(k, cycle);
                }
                event::ACCEPT
            }
            Kind::COMPLETION => {
                let Some(k) = live else { return event::DROP_UNKNOWN };
                // docs/blocks/cpu.md §Messages: an acknowledgement (code 5) is not the parent's result.
                if self.live[k].role == role::MASTER || m.code == completion::ACKNOWLEDGED {
                    if m.code == completion::ACKNOWLEDGED && m.tid == s.tid && self.live[k].role != role::MASTER {
                        self.cov.bump("ack_is_not_a_result");
                    }
                    return event::BAD_KIND;
                }
                if m.tid != s.tid {
                    return event::BAD_TID;
                }
                // docs/blocks/cpu.md §Timing: RATCHET from EXEC, one step per cycle to Exiting, then EMIT.
                self.hold = Some(Hold::Emit(EXEC_DONE + u64::from(3 - self.live[k].state) + 1));
                self.ratchet(k, 3);
                let t = CollectiveMsg { src: u32::from(self.engine_id), ..*m };
                self.copies(t, s.pbv);
                self.next_round(k, Some(t));
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
            Kind::RETRY => self.tlp_retry(m, &s, live),
            _ => event::BAD_KIND,
        }
    }
}
