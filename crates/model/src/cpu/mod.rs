//! The collective processing unit (CPU, the "collective engine" of seed 000 \[0093\]): many concurrent
//! collective contexts over both wire families' normalized messages, one coherent context model for
//! seed 000 (PBV / p_count, master / subservient), seed 002 (armed reductions, wait counts, timeouts,
//! cookies) and seed 001 (ratcheted state machine, transaction IDs).
//!
//! Cycle model of `rtl/cpu.v`; the specification is `docs/cpu.md` (context model §1, per-kind message
//! handling §2, state machine §3, timers §4, ports and registers §5, sequencer and timing §6). Register
//! names are the RTL's without the `_reg` suffix. Like every block, [`Block::step`] returns the outputs
//! just before the rising edge, then updates the registers.
//!
//! Inside one `step` the RTL's priority between writers of the same register is kept: timer ticks first,
//! then the sequencer, then configuration writes.

pub mod config;
pub mod context;

use crate::message::{CollectiveMsg, Family, Kind, MsgPort, NO_PARTICIPANT};
use crate::reduce_unit::{wide_to_lanes, ReduceUnit, ReduceUnitIn};
use crate::reduce::{Contribution, Mode, Rc, Tables};
use crate::signal::Block;

use config::Config;
use context::{role, CtxState, Descriptor, StaticEntry, PBV_ENTRIES};

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

/// Control commands (`code` of a CONTROL message; 000 \[0168\]; frames crate `collective::Command`).
pub mod command {
    /// Start (activate, or resume a paused context).
    pub const START: u8 = 1;
    /// Pause.
    pub const PAUSE: u8 = 2;
    /// Restart from the stored context information.
    pub const RESTART: u8 = 3;
    /// Stop: inactivate.
    pub const STOP: u8 = 4;
    /// Reset: remove.
    pub const RESET: u8 = 5;
}

/// Completion codes (`code` of a COMPLETION / RESPONSE; frames crate `collective::CompletionKind`).
pub mod completion {
    /// Not a completion.
    pub const NONE: u8 = 0;
    /// Barrier met at this engine.
    pub const BARRIER_MET: u8 = 1;
    /// Barrier satisfied globally.
    pub const BARRIER_SATISFIED: u8 = 2;
    /// Final result of a reduction.
    pub const RESULT: u8 = 3;
    /// The child's transaction already completed (001: answer to a child that missed the Exit).
    pub const ALREADY_COMPLETED: u8 = 4;
    /// A non-posted INITIALIZATION / CONTROL was received and acted on (000 \[0097\], claim 14:
    /// non-posted messages expect a completion). **Decision**, `docs/cpu.md` §2.
    pub const ACKNOWLEDGED: u8 = 5;
}

/// Failure reasons (`code` of a FAILURE; frames crate `collective::Reason`).
pub mod reason {
    /// Watchdog timeout / retries exhausted.
    pub const TIMEOUT: u8 = 1;
    /// The participant's PBV bit was already clear (000 \[0143\] (a)).
    pub const DUPLICATE: u8 = 2;
    /// p_count was already zero (000 \[0143\] (b)).
    pub const COUNT_UNDERFLOW: u8 = 3;
    /// The requester is not a participant.
    pub const UNKNOWN_PARTICIPANT: u8 = 4;
    /// Wrong message kind for the participant (000 \[0096\]).
    pub const MALFORMED: u8 = 6;
    /// A RETRY request named a context for which this engine remembers no message to resend to the
    /// requester (**Decision**, `docs/cpu.md` §2).
    pub const NOTHING_TO_RESEND: u8 = 7;
}

/// Events on the `stat_event` port: one per sequencer decision (`docs/cpu.md` §2-§4).
pub mod event {
    macro_rules! events {
        ($($name:ident = $v:expr, $doc:expr;)*) => {
            $(#[doc = $doc] pub const $name: u8 = $v;)*
            /// Number of event codes (0 is "none").
            pub const COUNT: usize = [$($v),*].len() + 1;
            /// The event's name, as in `docs/cpu.md`.
            pub fn name(e: u8) -> &'static str {
                match e { $($v => stringify!($name),)* _ => "NONE" }
            }
        };
    }
    events! {
        INIT = 1, "INITIALIZATION stored and activated.";
        ACTIVATE_NO_DESC = 2, "Activation found no free descriptor.";
        CTRL_START = 3, "CONTROL START activated or resumed a context.";
        CTRL_PAUSE = 4, "CONTROL PAUSE paused a live context.";
        CTRL_RESTART = 5, "CONTROL RESTART re-activated a context.";
        CTRL_STOP = 6, "CONTROL STOP inactivated a context.";
        CTRL_RESET = 7, "CONTROL RESET removed a context.";
        CTRL_NOOP = 8, "CONTROL command with nothing to do locally.";
        CTRL_BAD = 9, "CONTROL with an undefined command.";
        ARM = 10, "ARM allocated a descriptor.";
        REARM = 11, "ARM with a newer sequence number re-armed a live descriptor (stale state cleared).";
        ARM_NO_DESC = 12, "ARM found no free descriptor.";
        BAD_SEQNO_ARM = 13, "ARM with the reserved sequence number.";
        ACCEPT = 14, "Contribution accepted.";
        PASS_UP = 15, "Message passed up the tree.";
        DROP_UNKNOWN = 16, "Message for an unknown context dropped.";
        DROP_VNI = 17, "Contribution with a wrong VNI dropped.";
        DROP_COOKIE = 18, "Contribution with a wrong cookie dropped.";
        DROP_SEQNO = 19, "Contribution with a wrong sequence number dropped.";
        UNKNOWN_PARTICIPANT = 20, "Contribution from a non-participant (FAILURE reply).";
        MALFORMED = 21, "Wrong kind for the participant (FAILURE reply).";
        DUPLICATE = 22, "PBV bit already clear (FAILURE reply).";
        COUNT_UNDERFLOW = 23, "p_count already zero (FAILURE reply).";
        OLD_TID = 24, "Contribution one transaction behind: already-completed reply.";
        BAD_TID = 25, "Message with an impossible TID dropped.";
        PAUSED_DROP = 26, "Contribution to a paused context dropped.";
        COMPLETION_DOWN = 27, "COMPLETION from the parent distributed; next round.";
        FAILURE_UP = 28, "FAILURE from below forwarded up.";
        BAD_KIND = 29, "Message kind not handled for the family / role; dropped.";
        COMPLETE = 30, "A context completed its round.";
        TIMEOUT_PARTIAL = 31, "Timeout: partial result sent up.";
        TIMEOUT_EMPTY = 32, "Timeout with nothing accumulated: descriptor freed.";
        TIMEOUT_MASTER = 33, "Master timeout: results marked as error sent down; next round.";
        RETRY = 34, "RESPONSE retransmitted.";
        RETRY_EXHAUSTED = 35, "Retries exhausted: FAILURE up; next round.";
        RETRY_RESEND = 36, "RETRY request from the parent: the pending RESPONSE resent.";
        RETRY_NONE = 37, "RETRY request with nothing to resend: FAILURE reply.";
        WRONG_SENDER = 38, "Contribution whose P_ID names a PBV-table entry of another device: dropped.";
        STALE_ARM = 39, "ARM whose sequence number is not newer than the live descriptor's: dropped.";
        INIT_RELAY = 40, "INITIALIZATION for an engine below relayed down the context's switch participants.";
    }
}

/// Sequencer states (`docs/cpu.md` §6); the RTL's `SEQ_*`.
pub mod seq {
    /// Waiting for a message or an expired timer.
    pub const IDLE: u8 = 0;
    /// Associative lookups of the latched message.
    pub const LOOKUP: u8 = 1;
    /// Decision.
    pub const EXEC: u8 = 2;
    /// Operand pair into the reduction unit.
    pub const ISSUE: u8 = 3;
    /// Waiting for the reduction unit.
    pub const REDUCE: u8 = 4;
    /// Completion test.
    pub const CHECK: u8 = 5;
    /// State-machine steps up to the action's target.
    pub const RATCHET: u8 = 6;
    /// Outgoing messages.
    pub const EMIT: u8 = 7;
    /// End-of-round action.
    pub const FINISH: u8 = 8;
    /// Timeout decision.
    pub const EXPIRE: u8 = 9;
}

/// End-of-emission actions (state `FINISH`).
mod fin {
    pub const NONE: u8 = 0;
    pub const FREE: u8 = 1;
    pub const REARM: u8 = 2;
    pub const WAIT: u8 = 3;
    pub const NEXT_ROUND: u8 = 4;
}

/// Parameters of one CPU instance (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuParams {
    /// Static-table entries (`STATIC_ENTRIES`), 1 to 64.
    pub static_entries: usize,
    /// Descriptors (`DESCRIPTORS`), 1 to 16.
    pub descriptors: usize,
    /// Clock cycles per timer tick (`TICK_CYCLES`): 1024 in hardware (002 (80)); a power of two ≥ 2.
    pub tick_cycles: u32,
}

impl Default for CpuParams {
    /// The RTL defaults.
    fn default() -> Self {
        CpuParams { static_entries: 16, descriptors: 8, tick_cycles: 1024 }
    }
}

/// A parameter set the block cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// `static_entries` is not in 1..=64.
    #[error("static_entries {0} is not between 1 and 64")]
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
        /// Register word address, 12 bits.
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
        /// FAILURE status register (docs/cpu.md §5): a Failure flag (001) was set since reset.
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

    fn set_msg(&mut self, m: &CollectiveMsg) {
        self.m_msg = MsgPort::from(m);
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

/// Results of the associative lookups (registered in state `LOOKUP`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Lookup {
    s_hit: bool,
    s_idx: usize,
    d_hit: bool,
    d_idx: usize,
    f_hit: bool,
    f_idx: usize,
    p_hit: bool,
    p_idx: usize,
    /// The requester is the device of entry `p_idx` (000 [0094], [0169]): always so for a reverse lookup;
    /// for a given P_ID, the entry is valid and holds `m.src[15:0]` (`docs/cpu.md` §2).
    p_sender: bool,
}

/// What an activation copies into the tracking store (000 [0141] (b)).
#[derive(Clone, Copy)]
struct Stored {
    pbv: u128,
    pcount: u32,
    op: u8,
    data: [u64; 4],
    posted: bool,
}

/// The collective processing unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Cpu {
    p: CpuParams,
    cfg: Config,
    st: Vec<StaticEntry>,
    d: Vec<Descriptor>,
    seq: u8,
    msg: CollectiveMsg,
    lk: Lookup,
    cur: usize,
    tmpl: CollectiveMsg,
    em_mask: u128,
    em_one: bool,
    /// The single message is the acknowledgement of the latched message (`ack_msg`), not `tmpl`.
    em_ack: bool,
    /// The copies keep the template's P_ID (a relayed INITIALIZATION names its target engine there)
    /// instead of taking their PBV bit; cleared when the emission ends.
    em_keep_pid: bool,
    fin: u8,
    rat_target: CtxState,
    out: CollectiveMsg,
    out_valid: bool,
    stat_valid: bool,
    stat_event: u8,
    stat_family: bool,
    stat_ctx: u16,
    tick_cnt: u32,
    /// FAILURE status register: `{valid, family, ctx, count}` (docs/cpu.md §5).
    fail: (bool, bool, u16, u8),
    ru: ReduceUnit,
    timer_rule: TimerRule,
}

/// The timer's count rule as data (docs/cpu.md §4, 002 (80)): on a tick, a running timer holding
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
        Ok(Self::reset_state(p, vec![StaticEntry::default(); p.static_entries], vec![Descriptor::default(); p.descriptors]))
    }

    /// The reset state with the tables `st` and `d` (cleared): a reset reuses their storage, so it makes
    /// no heap allocation (issue 23, tests/zero_alloc.rs).
    fn reset_state(p: CpuParams, mut st: Vec<StaticEntry>, mut d: Vec<Descriptor>) -> Cpu {
        st.fill(StaticEntry::default());
        d.fill(Descriptor::default());
        Cpu {
            p,
            cfg: Config::default(),
            st,
            d,
            seq: seq::IDLE,
            msg: CollectiveMsg::default(),
            lk: Lookup::default(),
            cur: 0,
            tmpl: CollectiveMsg::default(),
            em_mask: 0,
            em_one: false,
            em_ack: false,
            em_keep_pid: false,
            fin: fin::NONE,
            rat_target: CtxState::Idle,
            out: CollectiveMsg::default(),
            out_valid: false,
            stat_valid: false,
            stat_event: 0,
            stat_family: false,
            stat_ctx: 0,
            tick_cnt: 0,
            fail: (false, false, 0, 0),
            ru: ReduceUnit::new(),
            timer_rule: TIMER_RULE,
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

    /// Descriptor `i`.
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

    /// Cycles from now to the one whose timer tick expires the first running timer (`docs/cpu.md` §4),
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
    /// decrementing every running timer and expiring it at 1 (the tick logic of [`Block::step`]).
    /// Exact only while `n` ≤ [`Cpu::cycles_to_expiry`]: an expired timer starts the sequencer.
    pub(crate) fn advance_timers(&mut self, n: u64) {
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
            } else {
                // Fewer ticks than the timer holds: the difference is below the timer, a u32.
                d.timer -= ticks as u32;
            }
        }
    }

    fn reset(&mut self) {
        let rule = self.timer_rule;
        let tables = self.ru.tables();
        *self = Cpu::reset_state(self.p, std::mem::take(&mut self.st), std::mem::take(&mut self.d));
        self.timer_rule = rule;
        self.ru = ReduceUnit::with_tables(tables);
    }

    /// The FAILURE status register as the `fail_*` outputs show it this cycle: (valid, family, context,
    /// count). Registers only, so a block stepped before the CPU can read it.
    pub fn fail_status(&self) -> (bool, bool, u16, u8) {
        self.fail
    }

    fn outputs(&self, s_msg_ready: bool) -> CpuOut {
        let mut o = CpuOut {
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
            ..CpuOut::default()
        };
        o.set_msg(&self.out);
        o
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

    /// Emission of one message (`em_one`), no per-participant copies.
    fn emit_one(&mut self, tmpl: CollectiveMsg, f: u8) {
        self.tmpl = tmpl;
        self.em_mask = 0;
        self.em_one = true;
        self.fin = f;
        self.seq = seq::EMIT;
    }

    fn tlp_acc(&self, op: u8, data: [u64; 4]) -> Contribution {
        Contribution { rt_op: op, rt_data: data, sfa: u32::from(self.cfg.engine_id), ..Contribution::default() }
    }

    /// TLP activation of descriptor `di` for static entry `si` (000 [0141] (b), (c)).
    fn activate(&mut self, di: usize, si: usize, key: u16, s: Stored) {
        let r = self.st[si].role;
        let load = self.load_for(s.pcount, r);
        self.d[di] = Descriptor {
            valid: true,
            portals: false,
            key,
            sidx: si as u8,
            role: r,
            state: CtxState::Idle,
            pbv: s.pbv,
            pcount: s.pcount,
            acc_valid: true,
            acc: self.tlp_acc(s.op, s.data),
            posted: s.posted,
            timer: load,
            load,
            ..Descriptor::default()
        };
    }

    /// Portals arming of descriptor `di` for static entry `si` (002 (39), (54)).
    fn arm(&mut self, di: usize, si: usize, m: &CollectiveMsg) {
        let s = self.st[si];
        let load = self.load_for(s.wait, s.role);
        self.d[di] = Descriptor {
            valid: true,
            portals: true,
            key: m.ctx,
            sidx: si as u8,
            role: s.role,
            state: CtxState::Idle,
            wait: s.wait,
            vni: m.vni,
            cookie: m.cookie,
            seqno: m.seqno,
            dst: m.dst,
            port: m.port,
            timer: load,
            load,
            ..Descriptor::default()
        };
    }

    /// The PBV-table entries that are switches (engines below, 000 [0096]), as a bit vector.
    fn switch_mask(&self) -> u128 {
        self.cfg.pbv.iter().enumerate().filter(|(_, e)| e.switch).fold(0, |a, (i, _)| a | 1u128 << i)
    }

    fn engine_src(&self) -> u32 {
        u32::from(self.cfg.engine_id)
    }

    /// `m` re-sent with the engine as requester (000 [0097]).
    fn rewritten(&self, m: &CollectiveMsg) -> CollectiveMsg {
        CollectiveMsg { src: self.engine_src(), ..*m }
    }

    fn failure_reply(&self, m: &CollectiveMsg, why: u8) -> CollectiveMsg {
        CollectiveMsg {
            kind: Kind::FAILURE,
            family: Family::Tlp,
            ctx: m.ctx,
            src: self.engine_src(),
            dst: m.src,
            pid: m.pid,
            dmu_id: m.dmu_id,
            code: why,
            posted: true,
            tid: m.tid,
            op: m.op,
            data: [u64::from(m.src & 0xffff), 0, 0, 0],
            ..CollectiveMsg::default()
        }
    }

    fn already_completed(&self, m: &CollectiveMsg) -> CollectiveMsg {
        self.answer(m, completion::ALREADY_COMPLETED)
    }

    /// COMPLETION with `code` to the sender of `m`: "already completed", acknowledgement.
    fn answer(&self, m: &CollectiveMsg, code: u8) -> CollectiveMsg {
        CollectiveMsg {
            kind: Kind::COMPLETION,
            family: Family::Tlp,
            ctx: m.ctx,
            src: self.engine_src(),
            dst: m.src,
            pid: m.pid,
            dmu_id: m.dmu_id,
            code,
            posted: true,
            tid: m.tid,
            op: m.op,
            ..CollectiveMsg::default()
        }
    }

    fn with_acc(d: &Descriptor, m: CollectiveMsg) -> CollectiveMsg {
        CollectiveMsg {
            op: d.acc.rt_op,
            rc: d.acc.rt_rc.0,
            repsum_m: d.acc.rt_repsum_m,
            repsum_oflow_id: d.acc.rt_repsum_oflow_id,
            data: d.acc.rt_data,
            count: d.count,
            ..m
        }
    }

    fn portals_partial(&self, d: &Descriptor) -> CollectiveMsg {
        Self::with_acc(
            d,
            CollectiveMsg {
                kind: Kind::CONTRIBUTION,
                family: Family::Portals,
                port: d.port,
                ctx: d.key,
                src: self.cfg.engine_sfa,
                dst: d.dst,
                pid: NO_PARTICIPANT,
                posted: true,
                vni: d.vni,
                cookie: d.cookie,
                seqno: d.seqno,
                resno: d.seqno,
                ..CollectiveMsg::default()
            },
        )
    }

    fn portals_result(&self, d: &Descriptor) -> CollectiveMsg {
        CollectiveMsg { kind: Kind::ARM, port: 0, seqno: next_seqno(d.seqno), ..self.portals_partial(d) }
    }

    fn tlp_up(&self, d: &Descriptor, kind: Kind, code: u8, error: bool, retry: bool) -> CollectiveMsg {
        let s = &self.st[usize::from(d.sidx)];
        Self::with_acc(
            d,
            CollectiveMsg {
                kind,
                family: Family::Tlp,
                ctx: d.key,
                src: self.engine_src(),
                dst: u32::from(s.upstream),
                pid: NO_PARTICIPANT,
                dmu_id: s.dmu_id,
                code,
                posted: if kind == Kind::RESPONSE { d.posted } else { true },
                error,
                retry,
                tid: s.tid,
                ..CollectiveMsg::default()
            },
        )
    }

    fn tlp_response(&self, d: &Descriptor, error: bool, retry: bool) -> CollectiveMsg {
        let code = if d.acc.rt_op == 0 { completion::BARRIER_MET } else { completion::NONE };
        self.tlp_up(d, Kind::RESPONSE, code, error, retry)
    }

    fn tlp_completion(&self, d: &Descriptor, error: bool) -> CollectiveMsg {
        let code = if d.acc.rt_op == 0 { completion::BARRIER_SATISFIED } else { completion::RESULT };
        self.tlp_up(d, Kind::COMPLETION, code, error, false)
    }

    fn retry_failure(&self, d: &Descriptor) -> CollectiveMsg {
        let s = &self.st[usize::from(d.sidx)];
        CollectiveMsg {
            kind: Kind::FAILURE,
            family: Family::Tlp,
            ctx: d.key,
            src: self.engine_src(),
            dst: u32::from(s.upstream),
            pid: NO_PARTICIPANT,
            dmu_id: s.dmu_id,
            count: u32::from(d.attempts),
            code: reason::TIMEOUT,
            posted: true,
            // The Failure flag (001) this FAILURE reports.
            error: true,
            tid: s.tid,
            data: [0xffff, 0, 0, 0],
            ..CollectiveMsg::default()
        }
    }

    fn lookup(&self) -> Lookup {
        let m = &self.msg;
        let portals = m.family == Family::Portals;
        let skey = if portals { m.ctx & 0x1fff } else { m.ctx & 0xfff };
        let dkey = if portals { m.ctx } else { m.ctx & 0xfff };
        let s = self.st.iter().position(|e| e.valid && e.portals == portals && e.key == skey);
        let d = self.d.iter().position(|e| e.valid && e.portals == portals && e.key == dkey);
        let f = self.d.iter().position(|e| !e.valid);
        // A TLP INITIALIZATION's P_ID is the device ID of the engine it is for (a relay, docs/cpu.md
        // §2): the reverse lookup finds that engine's PBV-table entry. Other messages: P_ID is an index.
        let init = !portals && m.kind == Kind::INITIALIZATION;
        let p = if m.pid != NO_PARTICIPANT && !init {
            (usize::from(m.pid) < PBV_ENTRIES).then_some(usize::from(m.pid) % PBV_ENTRIES)
        } else {
            let who = if init { m.pid } else { m.src as u16 };
            self.cfg.pbv.iter().position(|e| e.valid && e.device_id == who)
        };
        let p_sender = p.is_some_and(|i| self.cfg.pbv[i].valid && self.cfg.pbv[i].device_id == m.src as u16);
        Lookup {
            s_hit: s.is_some(),
            s_idx: s.unwrap_or(0),
            d_hit: d.is_some(),
            d_idx: d.unwrap_or(0),
            f_hit: f.is_some(),
            f_idx: f.unwrap_or(0),
            p_hit: p.is_some(),
            p_idx: p.unwrap_or(0),
            p_sender,
        }
    }

    /// State `EXEC`: the decision for the latched message (`docs/cpu.md` §2).
    fn exec(&mut self) {
        let m = self.msg;
        let lk = self.lk;
        let s = self.st[lk.s_idx];
        let portals = m.family == Family::Portals;
        self.seq = seq::IDLE;
        let ev = if !portals {
            self.exec_tlp(&m, &lk, &s)
        } else {
            self.exec_portals(&m, &lk, &s)
        };
        self.event(ev, portals, m.ctx);
    }

    fn exec_tlp(&mut self, m: &CollectiveMsg, lk: &Lookup, s: &StaticEntry) -> u8 {
        let key = m.ctx & 0xfff;
        let from_st = Stored { pbv: s.pbv, pcount: s.pcount, op: s.op, data: s.data, posted: s.posted };
        match m.kind {
            Kind::INITIALIZATION => {
                if !lk.s_hit {
                    return event::DROP_UNKNOWN;
                }
                if m.pid != NO_PARTICIPANT && m.pid != self.cfg.engine_id {
                    // For an engine below (000 [0106]-[0107], [0157]): the source configures the master,
                    // the master replicates down. Relayed, with this engine as requester (so the target
                    // stores its parent as upstream), to the target if it is a switch participant of the
                    // stored context, else to every switch participant (multi-hop); acknowledged if
                    // non-posted, like CONTROL. Nothing stored here; no stored context: nowhere to go.
                    if !s.stored {
                        return event::DROP_UNKNOWN;
                    }
                    let switches = self.switch_mask();
                    let direct = lk.p_hit && self.cfg.pbv[lk.p_idx].switch && s.pbv & (1u128 << lk.p_idx) != 0;
                    self.tmpl = self.rewritten(m);
                    self.em_mask = if direct { 1u128 << lk.p_idx } else { s.pbv & switches };
                    self.em_keep_pid = true;
                    self.em_one = !m.posted;
                    self.em_ack = !m.posted;
                    self.fin = fin::NONE;
                    self.seq = seq::EMIT;
                    return event::INIT_RELAY;
                }
                let st = &mut self.st[lk.s_idx];
                st.stored = true;
                st.pbv = m.pbv;
                st.pcount = m.count;
                st.op = m.op;
                st.data = m.data;
                st.dmu_id = m.dmu_id;
                st.upstream = m.src as u16;
                st.posted = m.posted;
                st.tid = m.tid;
                let from_msg = Stored { pbv: m.pbv, pcount: m.count, op: m.op, data: m.data, posted: m.posted };
                if !m.posted {
                    // Non-posted: acknowledged to the sender (000 [0097], claim 14).
                    self.em_mask = 0;
                    self.em_one = true;
                    self.em_ack = true;
                    self.fin = fin::NONE;
                    self.seq = seq::EMIT;
                }
                if lk.d_hit {
                    self.activate(lk.d_idx, lk.s_idx, key, from_msg);
                    event::INIT
                } else if lk.f_hit {
                    self.activate(lk.f_idx, lk.s_idx, key, from_msg);
                    event::INIT
                } else {
                    event::ACTIVATE_NO_DESC
                }
            }
            Kind::CONTROL => {
                if !lk.s_hit {
                    return event::DROP_UNKNOWN;
                }
                if !(command::START..=command::RESET).contains(&m.code) {
                    return event::CTRL_BAD;
                }
                self.st[lk.s_idx].upstream = m.src as u16;
                let ev = match m.code {
                    command::START => {
                        if lk.d_hit {
                            if self.d[lk.d_idx].paused {
                                self.d[lk.d_idx].paused = false;
                                event::CTRL_START
                            } else {
                                event::CTRL_NOOP
                            }
                        } else if !s.stored {
                            event::CTRL_NOOP
                        } else if lk.f_hit {
                            self.activate(lk.f_idx, lk.s_idx, key, from_st);
                            event::CTRL_START
                        } else {
                            event::ACTIVATE_NO_DESC
                        }
                    }
                    command::PAUSE => {
                        if lk.d_hit {
                            self.d[lk.d_idx].paused = true;
                            event::CTRL_PAUSE
                        } else {
                            event::CTRL_NOOP
                        }
                    }
                    command::RESTART => {
                        if !s.stored {
                            event::CTRL_NOOP
                        } else if lk.d_hit {
                            self.activate(lk.d_idx, lk.s_idx, key, from_st);
                            event::CTRL_RESTART
                        } else if lk.f_hit {
                            self.activate(lk.f_idx, lk.s_idx, key, from_st);
                            event::CTRL_RESTART
                        } else {
                            event::ACTIVATE_NO_DESC
                        }
                    }
                    command::STOP => {
                        if lk.d_hit {
                            self.d[lk.d_idx].valid = false;
                            event::CTRL_STOP
                        } else {
                            event::CTRL_NOOP
                        }
                    }
                    _ => {
                        if lk.d_hit {
                            self.d[lk.d_idx].valid = false;
                        }
                        self.st[lk.s_idx].stored = false;
                        self.st[lk.s_idx].tid = 0;
                        event::CTRL_RESET
                    }
                };
                // Replicated down to every participant of the (previously) stored PBV ([0172]), with
                // the context's TID: an end node learns the round's TID from its START and sends it back
                // in its CONTRIBUTION (001). Then, if non-posted, acknowledged to the sender (000 [0097],
                // claim 14; the acknowledgement keeps `m.tid`).
                if s.stored || !m.posted {
                    self.tmpl = CollectiveMsg { tid: s.tid, ..self.rewritten(m) };
                    self.em_mask = if s.stored { s.pbv } else { 0 };
                    self.em_one = !m.posted;
                    self.em_ack = !m.posted;
                    self.fin = fin::NONE;
                    self.seq = seq::EMIT;
                }
                ev
            }
            Kind::CONTRIBUTION | Kind::RESPONSE => {
                if !lk.s_hit || (!s.stored && !lk.d_hit) {
                    return event::DROP_UNKNOWN;
                }
                let up = CollectiveMsg { dst: u32::from(s.upstream), ..self.rewritten(m) };
                if !lk.d_hit {
                    self.emit_one(up, fin::NONE);
                    return event::PASS_UP;
                }
                let d = self.d[lk.d_idx];
                if m.tid != s.tid {
                    if s.tid.wrapping_sub(m.tid) & 3 == 1 {
                        self.emit_one(self.already_completed(m), fin::NONE);
                        return event::OLD_TID;
                    }
                    return event::BAD_TID;
                }
                if d.paused {
                    return event::PAUSED_DROP;
                }
                if matches!(d.state, CtxState::Full | CtxState::Exiting) {
                    self.emit_one(up, fin::NONE);
                    return event::PASS_UP;
                }
                let bit = 1u128 << lk.p_idx;
                let (why, ev) = if !lk.p_hit || s.pbv & bit == 0 {
                    (reason::UNKNOWN_PARTICIPANT, event::UNKNOWN_PARTICIPANT)
                } else if !lk.p_sender {
                    // The P_ID names another device's entry: a late frame passed up by a child keeps
                    // the child's P_ID, and a spoofer picks one. Dropped, not answered.
                    return event::WRONG_SENDER;
                } else if (m.kind == Kind::RESPONSE) != self.cfg.pbv[lk.p_idx].switch {
                    (reason::MALFORMED, event::MALFORMED)
                } else if d.pbv & bit == 0 {
                    (reason::DUPLICATE, event::DUPLICATE)
                } else if d.pcount == 0 {
                    (reason::COUNT_UNDERFLOW, event::COUNT_UNDERFLOW)
                } else {
                    let dd = &mut self.d[lk.d_idx];
                    dd.pbv &= !bit;
                    dd.pcount -= 1;
                    dd.count = (dd.count + m.count).min(COUNT_MAX);
                    self.cur = lk.d_idx;
                    self.seq = seq::ISSUE;
                    return event::ACCEPT;
                };
                self.emit_one(self.failure_reply(m, why), fin::NONE);
                ev
            }
            Kind::COMPLETION => {
                if !lk.s_hit || !lk.d_hit {
                    return event::DROP_UNKNOWN;
                }
                // A master is below no one; an acknowledgement (a child's answer to a non-posted command
                // this engine relayed or replicated) is not the parent's result.
                if self.d[lk.d_idx].role == role::MASTER || m.code == completion::ACKNOWLEDGED {
                    return event::BAD_KIND;
                }
                if m.tid != s.tid {
                    return event::BAD_TID;
                }
                self.tmpl = self.rewritten(m);
                self.em_mask = s.pbv;
                self.em_one = false;
                self.fin = fin::NEXT_ROUND;
                self.rat_target = CtxState::Exiting;
                self.cur = lk.d_idx;
                self.seq = seq::RATCHET;
                event::COMPLETION_DOWN
            }
            Kind::FAILURE => {
                if !lk.s_hit || !s.stored {
                    return event::DROP_UNKNOWN;
                }
                // 001's Failure flag, carried by the FAILURE it forwards (`error`, the EM bit).
                let mut up = CollectiveMsg { dst: u32::from(s.upstream), ..self.rewritten(m) };
                if lk.d_hit {
                    self.set_failure(lk.d_idx, false, m.ctx);
                    up.error = true;
                }
                self.emit_one(up, fin::NONE);
                event::FAILURE_UP
            }
            Kind::RETRY => {
                // A per-packet retry request (000 [0098], [0117]). The one message this engine keeps for
                // a context is the RESPONSE a subservient holds in Full until its parent answers.
                if !lk.s_hit || (!s.stored && !lk.d_hit) {
                    return event::DROP_UNKNOWN;
                }
                let d = self.d[lk.d_idx];
                if lk.d_hit && d.role != role::MASTER && d.state == CtxState::Full && m.src as u16 == s.upstream {
                    self.emit_one(self.tlp_response(&d, d.sent_error, true), fin::NONE);
                    event::RETRY_RESEND
                } else {
                    self.emit_one(self.failure_reply(m, reason::NOTHING_TO_RESEND), fin::NONE);
                    event::RETRY_NONE
                }
            }
            _ => event::BAD_KIND,
        }
    }

    fn exec_portals(&mut self, m: &CollectiveMsg, lk: &Lookup, _s: &StaticEntry) -> u8 {
        match m.kind {
            Kind::ARM => {
                if !lk.s_hit {
                    event::DROP_UNKNOWN
                } else if m.seqno == SEQNO_RESERVED {
                    event::BAD_SEQNO_ARM
                } else if lk.d_hit {
                    // 002 (71): "rt_arm can advance the sequence number and clear the state. Frames with
                    // an old sequence number can be dropped": a duplicated or stale arm must not wipe
                    // the running reduction.
                    if seqno_newer(m.seqno, self.d[lk.d_idx].seqno) {
                        self.arm(lk.d_idx, lk.s_idx, m);
                        event::REARM
                    } else {
                        event::STALE_ARM
                    }
                } else if lk.f_hit {
                    self.arm(lk.f_idx, lk.s_idx, m);
                    event::ARM
                } else {
                    event::ARM_NO_DESC
                }
            }
            Kind::CONTRIBUTION => {
                if !lk.d_hit {
                    self.emit_one(*m, fin::NONE);
                    return event::PASS_UP;
                }
                let d = &mut self.d[lk.d_idx];
                if m.vni != d.vni {
                    return event::DROP_VNI;
                }
                if m.cookie != d.cookie {
                    return event::DROP_COOKIE;
                }
                if m.seqno != d.seqno {
                    return event::DROP_SEQNO;
                }
                d.count = (d.count + m.count).min(COUNT_MAX);
                self.cur = lk.d_idx;
                if d.acc_valid {
                    self.seq = seq::ISSUE;
                } else {
                    d.acc = contribution_of(m);
                    d.acc_valid = true;
                    if d.state == CtxState::Idle {
                        d.state = CtxState::Filling;
                    }
                    self.seq = seq::CHECK;
                }
                event::ACCEPT
            }
            _ => event::BAD_KIND,
        }
    }

    /// State `CHECK`: completion test after a contribution (`docs/cpu.md` §2).
    fn check(&mut self) {
        let di = self.cur;
        let d = self.d[di];
        let complete = if d.portals { d.count >= d.wait } else { d.pbv == 0 && d.pcount == 0 };
        self.seq = seq::IDLE;
        if !complete {
            return;
        }
        self.event(event::COMPLETE, d.portals, d.key);
        let dd = &mut self.d[di];
        dd.state = dd.state.next();
        if dd.portals && dd.count > dd.wait {
            dd.acc.rt_rc = dd.acc.rt_rc.merge_by(&self.ru.tables().rc_priority, Rc::CONTR_OVERFLOW);
        }
        let d = *dd;
        self.em_mask = 0;
        self.em_one = true;
        self.seq = seq::RATCHET;
        if d.portals {
            self.rat_target = CtxState::Exiting;
            if d.role == role::MASTER {
                self.tmpl = self.portals_result(&d);
                self.fin = fin::REARM;
            } else {
                self.tmpl = self.portals_partial(&d);
                self.fin = fin::FREE;
            }
        } else if d.role == role::MASTER {
            self.tmpl = self.tlp_completion(&d, false);
            self.em_mask = self.st[usize::from(d.sidx)].pbv;
            self.rat_target = CtxState::Exiting;
            self.fin = fin::NEXT_ROUND;
        } else {
            self.tmpl = self.tlp_response(&d, false, false);
            self.d[di].attempts = 0;
            self.d[di].sent_error = false;
            self.rat_target = CtxState::Full;
            self.fin = fin::WAIT;
        }
    }

    /// State `EXPIRE`: the timeout action of descriptor `cur` (`docs/cpu.md` §4).
    fn expire(&mut self) {
        let di = self.cur;
        self.d[di].expired = false;
        let d = self.d[di];
        self.em_mask = 0;
        self.em_one = true;
        self.seq = seq::RATCHET;
        let ev = if d.portals {
            self.rat_target = CtxState::Exiting;
            self.fin = fin::FREE;
            self.em_one = d.acc_valid;
            self.tmpl = self.portals_partial(&d);
            if d.acc_valid {
                event::TIMEOUT_PARTIAL
            } else {
                event::TIMEOUT_EMPTY
            }
        } else {
            let master = d.role == role::MASTER;
            match d.state {
                CtxState::Filling if !master => {
                    self.d[di].sent_error = true;
                    self.d[di].attempts = 0;
                    self.tmpl = self.tlp_response(&d, true, false);
                    self.rat_target = CtxState::Full;
                    self.fin = fin::WAIT;
                    event::TIMEOUT_PARTIAL
                }
                CtxState::Filling => {
                    self.set_failure(di, false, d.key);
                    self.tmpl = self.tlp_completion(&d, true);
                    self.em_mask = self.st[usize::from(d.sidx)].pbv;
                    self.rat_target = CtxState::Exiting;
                    self.fin = fin::NEXT_ROUND;
                    event::TIMEOUT_MASTER
                }
                CtxState::Full if !master && d.attempts < self.cfg.retry_limit => {
                    self.d[di].attempts += 1;
                    self.tmpl = self.tlp_response(&d, d.sent_error, true);
                    self.rat_target = CtxState::Full;
                    self.fin = fin::WAIT;
                    event::RETRY
                }
                CtxState::Full if !master => {
                    self.set_failure(di, false, d.key);
                    self.tmpl = self.retry_failure(&d);
                    self.rat_target = CtxState::Exiting;
                    self.fin = fin::NEXT_ROUND;
                    event::RETRY_EXHAUSTED
                }
                _ => {
                    self.em_one = false;
                    self.seq = seq::IDLE;
                    event::TIMEOUT_EMPTY
                }
            }
        };
        self.event(ev, d.portals, d.key);
    }

    /// State `EMIT`: one outgoing message per cycle when the output register is free.
    fn emit(&mut self, out_free: bool) {
        if self.em_mask != 0 {
            let b = self.em_mask.trailing_zeros() as usize;
            let e = self.cfg.pbv[b];
            if !e.valid {
                self.em_mask &= !(1u128 << b);
            } else if out_free {
                let pid = if self.em_keep_pid { self.tmpl.pid } else { b as u16 };
                self.out = CollectiveMsg { dst: u32::from(e.device_id), pid, ..self.tmpl };
                self.out_valid = true;
                self.em_mask &= !(1u128 << b);
            }
        } else if self.em_one {
            if out_free {
                self.out = if self.em_ack { self.answer(&self.msg, completion::ACKNOWLEDGED) } else { self.tmpl };
                self.out_valid = true;
                self.em_one = false;
                self.em_ack = false;
            }
        } else {
            self.em_keep_pid = false;
            self.seq = seq::FINISH;
        }
    }

    /// State `FINISH`: the end-of-round action.
    fn finish(&mut self) {
        let di = self.cur;
        self.seq = seq::IDLE;
        match self.fin {
            fin::FREE => {
                self.d[di].state = CtxState::Idle;
                self.d[di].valid = false;
            }
            fin::REARM => {
                let d = &mut self.d[di];
                d.state = CtxState::Idle;
                d.seqno = next_seqno(d.seqno);
                d.count = 0;
                d.acc_valid = false;
                d.acc = Contribution::default();
                d.timer = d.load;
                d.expired = false;
            }
            fin::WAIT => {
                let d = &mut self.d[di];
                d.timer = d.load;
                d.expired = false;
            }
            fin::NEXT_ROUND => {
                let si = usize::from(self.d[di].sidx);
                let s = self.st[si];
                self.st[si].tid = (s.tid + 1) & 3;
                let acc = self.tlp_acc(s.op, s.data);
                let d = &mut self.d[di];
                d.state = CtxState::Idle;
                d.pbv = s.pbv;
                d.pcount = s.pcount;
                d.count = 0;
                d.acc = acc;
                d.acc_valid = true;
                d.attempts = 0;
                d.sent_error = false;
                d.timer = d.load;
                d.expired = false;
            }
            _ => {}
        }
    }

    fn config_write(&mut self, addr: u16, data: u32) {
        let addr = addr & ((1 << config::ADDR_BITS) - 1);
        if self.cfg.write(addr, data) {
            return;
        }
        let base = config::STATIC;
        if addr >= base && usize::from(addr - base) < 2 * self.p.static_entries {
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
            }
        }
    }
}

impl Block for Cpu {
    type In = CpuIn;
    type Out = CpuOut;

    fn step(&mut self, i: &CpuIn) -> CpuOut {
        let first_expired = self.d.iter().position(|d| d.valid && d.expired);
        let ready = self.seq == seq::IDLE && first_expired.is_none() && !i.rst;
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

        // Timer ticks (docs/cpu.md §4).
        let tick = self.tick_cnt == self.p.tick_cycles - 1;
        self.tick_cnt = if tick { 0 } else { self.tick_cnt + 1 };
        if tick {
            for d in &mut self.d {
                if d.timer_runs() {
                    if d.timer <= self.timer_rule.expire_at {
                        d.timer = 0;
                        d.expired = true;
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

        // Sequencer.
        match self.seq {
            seq::IDLE => {
                if let Some(di) = first_expired {
                    self.cur = di;
                    self.seq = seq::EXPIRE;
                } else if i.s_msg_valid {
                    self.msg = i.msg();
                    self.seq = seq::LOOKUP;
                }
            }
            seq::LOOKUP => {
                self.lk = self.lookup();
                self.seq = seq::EXEC;
            }
            seq::EXEC => self.exec(),
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
            seq::CHECK => self.check(),
            seq::RATCHET => {
                let d = &mut self.d[self.cur];
                if d.state != self.rat_target {
                    d.state = d.state.next();
                } else {
                    self.seq = seq::EMIT;
                }
            }
            seq::EMIT => self.emit(out_free),
            seq::FINISH => self.finish(),
            seq::EXPIRE => self.expire(),
            _ => self.seq = seq::IDLE,
        }

        if i.cfg_wr_en {
            self.config_write(i.cfg_wr_addr, i.cfg_wr_data);
        }
        out
    }
}

#[cfg(test)]
mod tests;
