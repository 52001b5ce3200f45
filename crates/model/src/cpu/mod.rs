//! The collective processing unit (CPU, the "collective engine" of seed 000 \[0093\]): many concurrent
//! collective contexts over both wire families' normalized messages, one coherent context model for
//! seed 000 (PBV / p_count, master / subservient), seed 002 (armed reductions, wait counts, timeouts,
//! cookies) and seed 001 (ratcheted state machine, transaction IDs).
//!
//! Cycle model of `rtl/cpu.v`; the specification is `docs/blocks/cpu.md` (context model §1, per-kind message
//! handling §2, state machine §3, timers §4, ports and registers §5, sequencer and timing §6). Register
//! names are the RTL's without the `_reg` suffix. Like every block, [`Block::step`] returns the outputs
//! just before the rising edge, then updates the registers.
//!
//! Inside one `step` the RTL's priority between writers of the same register is kept: timer ticks first,
//! then the sequencer, then configuration writes.

pub mod codes;
pub mod config;
pub mod context;

// The sequencer's states, one file each, in the order of `rtl/cpu.v`'s sections (`// ==== NAME` banners,
// the same names), each beside the RTL file of the same name (`lookup.rs` and `rtl/cpu_lookup.vh`, ...);
// IDLE, COMPARE, ISSUE / REDUCE and RATCHET are a few lines in `step` below, as in the RTL's sequencer
// (COMPARE's registers, which the model does not need, are in `rtl/cpu_execute.vh`).
// `records` mirrors the RTL's record constructors (`rtl/cpu_records.vh`), `codes` its generated
// `rtl/cpu_codes.vh`.
mod lookup;
mod execute;
mod check;
mod emit;
mod finish;
mod expire;
mod records;
mod types;

use crate::out_of_line::OutOfLine;
use crate::message::{CollectiveMsg, Family, Kind, MsgPort, NO_PARTICIPANT};
use crate::reduce_unit::{wide_to_lanes, ReduceUnit, ReduceUnitIn};
use crate::reduce::{Contribution, Mode, Rc, Tables};
use crate::signal::Block;

use config::Config;
use context::{role, CtxState, Descriptor, PbvEntry, StaticEntry, PBV_ENTRIES, PBV_SCAN_ENTRIES, PBV_SCAN_WORDS};
use types::Lookup;

/// Largest rt_count / p_count (20 bits, 002 (79)); counts saturate here.
pub const COUNT_MAX: u32 = (1 << crate::message::COUNT_WIDTH) - 1;
/// The sequence number libfabric never uses (`CXIP_COLL_MAX_SEQNO` = 2^10 - 1); an ARM carrying it is
/// dropped.
pub const SEQNO_RESERVED: u16 = (1 << crate::message::SEQNO_WIDTH) - 1;

/// The sequence number that follows `s`: (s + 1) mod 1023, skipping the reserved value (libfabric's
/// `INCMOD(seqno, CXIP_COLL_MAX_SEQNO)`).
pub fn next_seqno(s: u16) -> u16 {
    (s + 1) % SEQNO_RESERVED
}

/// Largest forward distance, modulo 1023, at which a sequence number still counts as newer: half the
/// sequence space (serial-number arithmetic, as the TID comparison of seed 001 modulo 4).
pub const SEQNO_NEWER_SPAN: u16 = SEQNO_RESERVED / 2;

/// Whether `new` is newer than `old` in the sequence space 0..1022 (modulo 1023, 1023 reserved): its
/// forward distance from `old` is 1 to [`SEQNO_NEWER_SPAN`]. Equal or older (up to 511 behind) is not.
/// An ARM re-arms a live descriptor only with a newer sequence number (002 (70)-(71)).
pub fn seqno_newer(new: u16, old: u16) -> bool {
    let d = (new % SEQNO_RESERVED + SEQNO_RESERVED - old % SEQNO_RESERVED) % SEQNO_RESERVED;
    d != 0 && d <= SEQNO_NEWER_SPAN
}

pub use codes::{command, completion, event, fin, reason, seq, REDUCTIONS};


/// Parameters of one CPU instance (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuParams {
    /// Static-table entries (`STATIC_ENTRIES`), 1 to 4096 (direct-mapped: context key k in entry
    /// k mod `STATIC_ENTRIES`, docs/blocks/cpu.md §Static table).
    pub static_entries: usize,
    /// Tree slots (`DESCRIPTORS`), 1 to 16: the trees (TLP contexts, Portals multicast trees) live at
    /// once (002 (35): eight), each with [`REDUCTIONS`] descriptors, one per reduction id (002 (61));
    /// `descriptors * REDUCTIONS` descriptors in all (docs/blocks/cpu.md §Descriptors).
    pub descriptors: usize,
    /// Clock cycles per timer tick (`TICK_CYCLES`): 1024 in hardware (002 (80)); a power of two ≥ 2.
    pub tick_cycles: u32,
}

impl Default for CpuParams {
    /// The RTL defaults.
    fn default() -> Self {
        CpuParams { static_entries: config::MAX_STATIC_ENTRIES, descriptors: 8, tick_cycles: 1024 }
    }
}

/// A parameter set the block cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// `static_entries` is not in 1..=4096.
    #[error("static_entries {0} is not between 1 and 4096")]
    StaticEntries(usize),
    /// `descriptors` is not in 1..=16.
    #[error("descriptors {0} is not between 1 and 16")]
    Descriptors(usize),
    /// `tick_cycles` is not a power of two ≥ 2.
    #[error("tick_cycles {0} is not a power of two of at least 2")]
    TickCycles(u32),
}

impl CpuParams {
    /// Checks the parameter set, as the RTL does at elaboration.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(1..=config::MAX_STATIC_ENTRIES).contains(&self.static_entries) {
            return Err(ParamError::StaticEntries(self.static_entries));
        }
        if !(1..=16).contains(&self.descriptors) {
            return Err(ParamError::Descriptors(self.descriptors));
        }
        if self.tick_cycles < 2 || !self.tick_cycles.is_power_of_two() {
            return Err(ParamError::TickCycles(self.tick_cycles));
        }
        Ok(())
    }
}

crate::ports! {
    /// Inputs of `rtl/cpu.v` (clk aside). `s_msg_*` is the normalized message
    /// (`docs/blocks/collective_message.md`).
    pub struct CpuIn {
        /// Synchronous active-high reset.
        pub rst: bool,
        /// A message is offered.
        pub s_msg_valid: bool,
        /// The offered message (`s_msg_<field>`).
        pub s_msg: MsgPort,
        /// The frame builder takes the outgoing message.
        pub m_msg_ready: bool,
        /// Register write.
        pub cfg_wr_en: bool,
        /// Register word address, 14 bits (`config::ADDR_BITS`).
        pub cfg_wr_addr: u16,
        /// Register data.
        pub cfg_wr_data: u32,
    }
}

crate::ports! {
    /// Outputs of `rtl/cpu.v`.
    pub struct CpuOut {
        /// The offered input message is taken.
        pub s_msg_ready: bool,
        /// An outgoing message is offered.
        pub m_msg_valid: bool,
        /// The outgoing message (`m_msg_<field>`), meaningful while `m_msg_valid`.
        pub m_msg: MsgPort,
        /// One-cycle event pulse.
        pub stat_valid: bool,
        /// Event code ([`event`]), 6 bits.
        pub stat_event: u8,
        /// Family of the event's context.
        pub stat_family: bool,
        /// Context key of the event.
        pub stat_ctx: u16,
        /// FAILURE status register (docs/blocks/cpu.md §Ports): a Failure flag (001) was set since reset.
        pub fail_valid: bool,
        /// Family of the context whose Failure flag was set last.
        pub fail_family: bool,
        /// Context key whose Failure flag was set last.
        pub fail_ctx: u16,
        /// Failure flags set since reset, saturating at 255.
        pub fail_count: u8,
    }
}

impl CpuIn {
    /// The offered message, cut to the port widths.
    pub fn msg(&self) -> CollectiveMsg {
        self.s_msg.msg().masked()
    }

    /// Sets the `s_msg_*` fields from `m` (and `s_msg_valid`).
    pub fn set_msg(&mut self, m: &CollectiveMsg) {
        self.s_msg_valid = true;
        self.s_msg = MsgPort::from(m);
    }

    /// A register write.
    pub fn cfg(addr: u16, data: u32) -> CpuIn {
        CpuIn { cfg_wr_en: true, cfg_wr_addr: addr, cfg_wr_data: data, m_msg_ready: true, ..CpuIn::default() }
    }
}

impl CpuOut {
    /// The outgoing message on `m_msg_*` (whether or not `m_msg_valid`).
    pub fn msg(&self) -> CollectiveMsg {
        self.m_msg.msg()
    }
}

/// The contribution a message carries, as the reduction unit sees it (SFA = the message's source).
pub fn contribution_of(m: &CollectiveMsg) -> Contribution {
    Contribution {
        rt_op: m.op,
        rt_data: m.data,
        rt_rc: Rc::from_raw(m.rc),
        rt_repsum_m: m.repsum_m,
        rt_repsum_oflow_id: m.repsum_oflow_id,
        sfa: m.src,
    }
}

/// The collective processing unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Cpu {
    p: CpuParams,
    cfg: Config,
    st: Vec<StaticEntry>,
    d: Vec<Descriptor>,
    seq: u8,
    /// The latched message, then the outgoing message's template once EXEC, CHECK or EXPIRE sets one
    /// (RTL `msg_reg`: one register for both, since no state reads the message after its template is
    /// set; ISSUE's contribution is read on paths that set none).
    msg: CollectiveMsg,
    lk: Lookup,
    /// The word of the device-ID RAM the reverse lookup compares (state `SCAN`; RTL `pbv_raddr_reg`).
    scan_word: usize,
    cur: usize,
    /// The latched message's requester and TID, for the acknowledgement EMIT sends (RTL `ack_src_reg`,
    /// `ack_tid_reg`): the template replaces `msg` (see `msg`).
    ack_src: u32,
    ack_tid: u8,
    em_mask: u128,
    em_one: bool,
    /// The single message is the acknowledgement of the latched message (`ack_msg`), not the template.
    em_ack: bool,
    /// The copies keep the template's P_ID (a relayed INITIALIZATION names its target engine there)
    /// instead of taking their PBV bit; cleared when the emission ends.
    em_keep_pid: bool,
    /// The copies are a one-target master's (003 \[0052\], \[0060\]): COMPLETION `ROUND_DONE` without the
    /// result, which goes to `upstream` alone; cleared when the emission ends.
    em_one_target: bool,
    fin: u8,
    rat_target: CtxState,
    /// The output message register as the `m_msg_*` port shows it: converted once when loaded
    /// (`emit`), not on every cycle's outputs (issue 23).
    out: MsgPort,
    out_valid: bool,
    stat_valid: bool,
    stat_event: u8,
    stat_family: bool,
    stat_ctx: u16,
    tick_cnt: u32,
    /// Cycles of the clearing sweep of the static table still to run after a reset (RTL `sweep_reg`,
    /// `sweep_idx_reg`; docs/blocks/cpu.md §Where the tables live): while it runs, `s_msg_ready` is low
    /// and a configuration write of a static entry is ignored. The model's table is cleared at the reset
    /// itself; the sweep is the RTL's clearing of its RAMs, one entry a cycle.
    sweep: u32,
    /// FAILURE status register: `{valid, family, ctx, count}` (docs/blocks/cpu.md §Ports).
    fail: (bool, bool, u16, u8),
    ru: ReduceUnit,
    timer_rule: TimerRule,
    /// Whether a descriptor may be valid and expired ([`ExpiryHint`]).
    maybe_expired: ExpiryHint,
}

/// A summary of the descriptors, not a register: false only when no descriptor is both valid and
/// expired. Set wherever a timer expires, cleared when the step's search for the first expired
/// descriptor finds none; so a step reads the descriptors (`CPU_DESCRIPTORS` x 112 bytes) only while one
/// may have expired, not every cycle. That search was a third of the packet-engine step at 1,024 engines,
/// whose descriptors were out of the caches (docs/performance.md §Session 19, the engine's hot state).
/// It is derived from the descriptors, so it takes no part in comparing two CPUs' state.
#[derive(Clone, Copy, Debug, Default)]
struct ExpiryHint(bool);

impl PartialEq for ExpiryHint {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The timer's count rule as data (docs/blocks/cpu.md §Timers, 002 (80)): on a tick, a running timer holding
/// `expire_at` ticks or fewer expires, a larger one counts down by one. With [`TIMER_RULE`]
/// (`expire_at` = 1) a timer loaded with T ticks expires on its `max(T, 1)`-th tick. A test builds
/// [`Cpu::with_timer_rule`] on a perturbed copy (`expire_at` = 0: one tick late) to see its checks object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerRule {
    /// The timer value at or below which a tick expires the timer.
    pub expire_at: u32,
}

/// The seed's rule: a T-tick timeout expires on the T-th tick (0 counts as 1).
pub const TIMER_RULE: TimerRule = TimerRule { expire_at: 1 };

impl TimerRule {
    /// Ticks a running timer holding `t` takes to expire.
    pub fn ticks_to_expire(self, t: u32) -> u64 {
        if t <= self.expire_at {
            1
        } else {
            u64::from(t - self.expire_at) + 1
        }
    }
}

impl Cpu {
    /// A CPU in its reset state.
    pub fn new(p: CpuParams) -> Result<Cpu, ParamError> {
        p.validate()?;
        Ok(Self::reset_state(p, vec![StaticEntry::default(); p.static_entries], vec![Descriptor::default(); p.descriptors * REDUCTIONS], OutOfLine::new([PbvEntry::default(); PBV_ENTRIES])))
    }

    /// The reset state with the tables `st` and `d` (cleared): a reset reuses their storage, so it makes
    /// no heap allocation (issue 23, tests/zero_alloc.rs).
    fn reset_state(p: CpuParams, mut st: Vec<StaticEntry>, mut d: Vec<Descriptor>, pbv: OutOfLine<[PbvEntry; PBV_ENTRIES]>) -> Cpu {
        st.fill(StaticEntry::default());
        d.fill(Descriptor::default());
        Cpu {
            p,
            cfg: Config::reset_in(pbv),
            st,
            d,
            seq: seq::IDLE,
            msg: CollectiveMsg::default(),
            lk: Lookup::default(),
            scan_word: 0,
            cur: 0,
            ack_src: 0,
            ack_tid: 0,
            em_mask: 0,
            em_one: false,
            em_ack: false,
            em_keep_pid: false,
            em_one_target: false,
            fin: fin::NONE,
            rat_target: CtxState::Idle,
            out: MsgPort::from(&CollectiveMsg::default()),
            out_valid: false,
            stat_valid: false,
            stat_event: 0,
            stat_family: false,
            stat_ctx: 0,
            tick_cnt: 0,
            // At most 4096 (`CpuParams::validate`).
            sweep: p.static_entries as u32,
            fail: (false, false, 0, 0),
            ru: ReduceUnit::new(),
            timer_rule: TIMER_RULE,
            maybe_expired: ExpiryHint(false),
        }
    }

    /// A CPU whose timers follow `rule` instead of [`TIMER_RULE`]: for tests that plant a wrong
    /// reading of the seed and check that the independent checks object.
    pub fn with_timer_rule(p: CpuParams, rule: TimerRule) -> Result<Cpu, ParamError> {
        Ok(Cpu { timer_rule: rule, ..Cpu::new(p)? })
    }

    /// A CPU whose reduction unit reads the truth tables `t` instead of [`Tables::SEED`] (same purpose).
    pub fn with_reduce_tables(p: CpuParams, t: Tables) -> Result<Cpu, ParamError> {
        Ok(Cpu { ru: ReduceUnit::with_tables(t), ..Cpu::new(p)? })
    }

    /// The instance parameters.
    pub fn params(&self) -> &CpuParams {
        &self.p
    }

    /// The engine registers and PBV table.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Static entry `i`.
    pub fn static_entry(&self, i: usize) -> &StaticEntry {
        &self.st[i]
    }

    /// The number of descriptors: `DESCRIPTORS` tree slots x [`REDUCTIONS`] (docs/blocks/cpu.md §Descriptors).
    pub fn descriptor_count(&self) -> usize {
        self.d.len()
    }

    /// Descriptor `i` (below [`Cpu::descriptor_count`]): reduction id `i % REDUCTIONS` of the tree in slot
    /// `i / REDUCTIONS`.
    pub fn descriptor(&self, i: usize) -> &Descriptor {
        &self.d[i]
    }

    /// The live descriptor of a context, if any.
    pub fn live(&self, portals: bool, key: u16) -> Option<&Descriptor> {
        self.d.iter().find(|d| d.valid && d.portals == portals && d.key == key)
    }

    /// The sequencer state ([`seq`]).
    pub fn seq_state(&self) -> u8 {
        self.seq
    }

    /// The timer prescaler (`tick_cnt`): cycles since the last tick, 0 to `TICK_CYCLES - 1`.
    pub fn tick_phase(&self) -> u64 {
        u64::from(self.tick_cnt)
    }

    /// Cycles of the post-reset clearing sweep still to run (0 when it is over): the CPU takes no
    /// message and ignores configuration writes of static entries until then (docs/blocks/cpu.md
    /// §Where the tables live).
    pub fn sweep_remaining(&self) -> u64 {
        u64::from(self.sweep)
    }

    /// Cycles from now to the one whose timer tick expires the first running timer (`docs/blocks/cpu.md` §Timers),
    /// counting that cycle; `None` when no timer runs. A timer of T ticks (T ≥ 1; 0 counts as 1) expires
    /// on its T-th tick, and the first tick comes in the cycle the prescaler reaches `TICK_CYCLES - 1`.
    pub fn cycles_to_expiry(&self) -> Option<u64> {
        let tick = u64::from(self.p.tick_cycles);
        let first = tick - u64::from(self.tick_cnt);
        let rule = self.timer_rule;
        self.d.iter().filter(|d| d.timer_runs()).map(|d| first + (rule.ticks_to_expire(d.timer) - 1) * tick).min()
    }

    /// What `n` cycles do to the timer prescaler and the running timers when nothing else happens (no
    /// message, no configuration write, the sequencer idle): `(tick_cnt + n) / TICK_CYCLES` ticks, each
    /// decrementing every running timer and expiring it at 1 (the tick logic of [`Block::step`]), and
    /// the clearing sweep's `n` cycles.
    /// Exact only while `n` ≤ [`Cpu::cycles_to_expiry`]: an expired timer starts the sequencer.
    pub(crate) fn advance_timers(&mut self, n: u64) {
        // The sweep is at most 4096 cycles: the remainder fits.
        self.sweep = u64::from(self.sweep).saturating_sub(n) as u32;
        let tick = u64::from(self.p.tick_cycles);
        let total = u64::from(self.tick_cnt) + n;
        // The remainder is below TICK_CYCLES, a u32.
        self.tick_cnt = (total % tick) as u32;
        let ticks = total / tick;
        if ticks == 0 {
            return;
        }
        for d in self.d.iter_mut().filter(|d| d.timer_runs()) {
            if self.timer_rule.ticks_to_expire(d.timer) <= ticks {
                d.timer = 0;
                d.expired = true;
                self.maybe_expired.0 = true;
            } else {
                // Fewer ticks than the timer holds: the difference is below the timer, a u32.
                d.timer -= ticks as u32;
            }
        }
    }

    fn reset(&mut self) {
        let rule = self.timer_rule;
        let tables = self.ru.tables();
        *self = Cpu::reset_state(self.p, std::mem::take(&mut self.st), std::mem::take(&mut self.d), self.cfg.pbv.take());
        self.timer_rule = rule;
        self.ru = ReduceUnit::with_tables(tables);
    }

    /// The FAILURE status register as the `fail_*` outputs show it this cycle: (valid, family, context,
    /// count). Registers only, so a block stepped before the CPU can read it.
    pub fn fail_status(&self) -> (bool, bool, u16, u8) {
        self.fail
    }

    #[inline(always)]
    fn outputs(&self, s_msg_ready: bool) -> CpuOut {
        CpuOut {
            s_msg_ready,
            m_msg_valid: self.out_valid,
            stat_valid: self.stat_valid,
            stat_event: self.stat_event,
            stat_family: self.stat_family,
            stat_ctx: self.stat_ctx,
            fail_valid: self.fail.0,
            fail_family: self.fail.1,
            fail_ctx: self.fail.2,
            fail_count: self.fail.3,
            // 0 while not valid: the RTL's output register is msg_reg with a copy's DST and P_ID
            // (docs/blocks/cpu.md §Timing "Output register"), msg_reg the sequencer's once taken.
            m_msg: if self.out_valid { self.out } else { MsgPort::default() },
        }
    }

    fn mode(&self) -> Mode {
        Mode::from_bit(self.cfg.ieee)
    }

    /// Timer load for wait count `w`: the selected timeout, doubled for a master (000 [0154]).
    fn load_for(&self, w: u32, r: u8) -> u32 {
        self.cfg.timeout_for(w) << u32::from(r == role::MASTER)
    }

    /// Sets the Failure flag (001) of descriptor `di` and records it in the FAILURE status register,
    /// with the context key of the event that set it.
    fn set_failure(&mut self, di: usize, portals: bool, ctx: u16) {
        self.d[di].failure = true;
        self.fail = (true, portals, ctx, self.fail.3.saturating_add(1));
    }

    fn event(&mut self, e: u8, portals: bool, ctx: u16) {
        self.stat_valid = true;
        self.stat_event = e;
        self.stat_family = portals;
        self.stat_ctx = ctx;
    }

    /// A configuration write; `sweeping`: the clearing sweep holds the static table's write ports, so a
    /// write of a static entry is ignored.
    fn config_write(&mut self, addr: u16, data: u32, sweeping: bool) {
        let addr = addr & ((1 << config::ADDR_BITS) - 1);
        if self.cfg.write(addr, data) {
            return;
        }
        let base = config::STATIC;
        if !sweeping && addr >= base && usize::from(addr - base) < 2 * self.p.static_entries {
            let e = &mut self.st[usize::from(addr - base) / 2];
            if (addr - base) % 2 == 0 {
                e.valid = data >> 31 & 1 != 0;
                e.portals = data >> 16 & 1 != 0;
                e.role = (data >> 20 & 3) as u8;
                e.key = (data & 0x1fff) as u16;
                e.stored = false;
                e.tid = 0;
            } else {
                e.wait = data & COUNT_MAX;
                e.one_target = data >> config::ONE_TARGET_BIT & 1 != 0;
            }
        }
    }
}

impl Block for Cpu {
    type In = CpuIn;
    type Out = CpuOut;

    // Inlined into the top's step (as the other blocks' steps are): its inputs reach it in registers
    // rather than through the input struct the top has just written (store-forwarding stalls, issue 23).
    #[inline(always)]
    fn step(&mut self, i: &CpuIn) -> CpuOut {
        let first_expired = if self.maybe_expired.0 {
            let first = self.d.iter().position(|d| d.valid && d.expired);
            self.maybe_expired.0 = first.is_some();
            first
        } else {
            None
        };
        let sweeping = self.sweep > 0;
        // Nothing starts while the output register holds a message (docs/blocks/cpu.md §Timing "Output
        // register": the RTL reads it from msg_reg, which a message or an expiry would change).
        let out_held = self.out_valid;
        let ready = self.seq == seq::IDLE && !out_held && first_expired.is_none() && !i.rst && !sweeping;
        let out = self.outputs(ready);

        // The reduction unit: an operand pair in state ISSUE, from registers only.
        let ru_in = if self.seq == seq::ISSUE {
            let d = &self.d[self.cur];
            ReduceUnitIn { rst: i.rst, ..ReduceUnitIn::pair(self.mode(), &d.acc, &contribution_of(&self.msg)) }
        } else {
            ReduceUnitIn { rst: i.rst, ..ReduceUnitIn::default() }
        };
        let ru_out = self.ru.step(&ru_in);
        if i.rst {
            self.reset();
            return out;
        }

        // Timer ticks (docs/blocks/cpu.md §Timers).
        let tick = self.tick_cnt == self.p.tick_cycles - 1;
        self.tick_cnt = if tick { 0 } else { self.tick_cnt + 1 };
        if tick {
            for d in &mut self.d {
                if d.timer_runs() {
                    if d.timer <= self.timer_rule.expire_at {
                        d.timer = 0;
                        d.expired = true;
                        self.maybe_expired.0 = true;
                    } else {
                        d.timer -= 1;
                    }
                }
            }
        }

        // Output register and event pulse.
        let out_free = !self.out_valid || i.m_msg_ready;
        if self.out_valid && i.m_msg_ready {
            self.out_valid = false;
        }
        self.stat_valid = false;
        self.stat_event = 0;
        self.stat_family = false;
        self.stat_ctx = 0;

        // Sequencer: one arm per state, each under the name of its `rtl/cpu.v` section (`// ==== NAME`).
        match self.seq {
            // ==== IDLE
            seq::IDLE => {
                if out_held {
                    // Waits for the output register (above).
                } else if let Some(di) = first_expired {
                    self.cur = di;
                    self.seq = seq::EXPIRE;
                } else if i.s_msg_valid && !sweeping {
                    self.msg = i.msg();
                    if Self::needs_scan(&self.msg) {
                        self.lk.p_hit = false;
                        self.lk.p_idx = 0;
                        self.scan_word = 0;
                        self.seq = seq::SCAN;
                    } else {
                        self.seq = seq::LOOKUP;
                    }
                }
            }
            // ==== SCAN (lookup.rs)
            seq::SCAN => self.scan(),
            // ==== LOOKUP (lookup.rs)
            seq::LOOKUP => {
                self.lk = self.lookup();
                self.seq = seq::COMPARE;
            }
            // ==== COMPARE: the RTL reads the message's descriptor and registers its compares with the
            // message for EXEC (docs/blocks/cpu.md §Timing, session 22); the model's EXEC reads the
            // descriptor itself, which nothing but a tick (its timer) changes in between.
            seq::COMPARE => self.seq = seq::EXEC,
            // ==== EXECUTE (execute.rs)
            seq::EXEC => self.exec(),
            // ==== ISSUE, REDUCE
            seq::ISSUE => self.seq = seq::REDUCE,
            seq::REDUCE => {
                if ru_out.out_valid {
                    let d = &mut self.d[self.cur];
                    d.acc = Contribution {
                        rt_op: ru_out.out_rt_op,
                        rt_data: wide_to_lanes(&ru_out.out_rt_data),
                        rt_rc: Rc::from_raw(ru_out.out_rt_rc),
                        rt_repsum_m: ru_out.out_rt_repsum_m as i8,
                        rt_repsum_oflow_id: ru_out.out_rt_repsum_oflow_id,
                        sfa: d.acc.sfa,
                    };
                    if d.state == CtxState::Idle {
                        d.state = CtxState::Filling;
                    }
                    self.seq = seq::CHECK;
                }
            }
            // ==== CHECK (check.rs)
            seq::CHECK => self.check(),
            // ==== RATCHET
            seq::RATCHET => {
                let d = &mut self.d[self.cur];
                if d.state != self.rat_target {
                    d.state = d.state.next();
                } else {
                    self.seq = seq::EMIT;
                }
            }
            // ==== EMIT (emit.rs)
            seq::EMIT => self.emit(out_free),
            // ==== FINISH (finish.rs)
            seq::FINISH => self.finish(),
            // ==== EXPIRE (expire.rs)
            seq::EXPIRE => self.expire(),
            _ => self.seq = seq::IDLE,
        }

        if i.cfg_wr_en {
            self.config_write(i.cfg_wr_addr, i.cfg_wr_data, sweeping);
        }
        if sweeping {
            self.sweep -= 1;
        }
        out
    }
}

#[cfg(test)]
mod tests;
