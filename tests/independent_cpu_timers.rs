//! Issue 22 §2: exact timers. A Portals reduction armed with a timeout of T ticks, for T in {0, 1, 2, 3,
//! max}, the arm accepted at every phase of the tick counter, must report its expiry on exactly the cycle
//! of the rule of docs/blocks/cpu.md §Timers ("Exact expiry"), computed here from that rule alone:
//!
//! - ticks come at cycles `R + n * TICK_CYCLES`, n >= 1, R the last reset cycle;
//! - the timer of an arm accepted at cycle A counts the ticks from cycle A + 4 on (A + 3 before session
//!   22's COMPARE state);
//! - it expires on its max(T, 1)-th tick (002 (80): timeouts are counts of ticks);
//! - the idle sequencer reports it on `stat_*` (TIMEOUT_EMPTY, nothing accumulated) 3 cycles after that
//!   tick.
//!
//! Run on the Verilated RTL (`TICK_CYCLES` = 16) and on the model; T = max (2^24 - 1 ticks) on the model
//! built with `TICK_CYCLES` = 2 (the smallest: 33.5 M cycles per phase). Then the CPU scoreboard's exact
//! timer checks: it accepts the seed's rule and objects to a timer one tick late or one tick early (the
//! timer rule perturbed in a copy, `Cpu::with_timer_rule`), and the directed test objects too.

use inswitch::blocks::cpu::{self, CpuMonitor, CpuRtl, CpuStimulus};
use inswitch::mutation::{scoreboard_complaint, AsRtl, Mutant};
use inswitch_model::cpu::{event, Cpu, CpuIn, CpuOut, CpuParams, TimerRule, TIMER_RULE};
use inswitch_model::message::{CollectiveMsg, Family, Kind};
use inswitch_model::Block;

/// Register words of docs/blocks/cpu.md §Ports (written out, not taken from the model's register map).
const TIMEOUT0: u16 = 0x080;
const STATIC0_WORD0: u16 = 0x100;
const STATIC0_WORD1: u16 = 0x101;
const VALID: u32 = 1 << 31;
const FAMILY_PORTALS: u32 = 1 << 16;
/// The tree key of the one context: at static entry 0 (`STATIC0_WORD0`) in a table of any size up to
/// 4096 (the table is direct-mapped, key mod STATIC_ENTRIES, docs/blocks/cpu.md §Static table).
const KEY: u16 = 0x1000;
/// The largest timeout: 24-bit (002 (80)).
const T_MAX: u32 = (1 << 24) - 1;

/// The documented cycle of the expiry report of an arm accepted at `accepted` with `t` ticks, after a
/// reset at cycle `reset`, with `tick` cycles per tick (docs/blocks/cpu.md §Timers "Exact expiry").
fn documented_report(reset: u64, accepted: u64, t: u32, tick: u64) -> u64 {
    let from = accepted + 4;
    let first = (from - reset).div_ceil(tick).max(1);
    let expiring_tick = reset + (first + u64::from(t.max(1)) - 1) * tick;
    expiring_tick + 3
}

/// Largest post-reset clearing sweep: one cycle per static entry, at most 4096 (docs/blocks/cpu.md §Where
/// the tables live, "Reset").
const MAX_SWEEP: u64 = 4096;

/// Resets `dut` at cycle 0 and holds it idle through the clearing sweep after the reset (docs/blocks/cpu.md
/// §Where the tables live: `s_msg_ready` low for `STATIC_ENTRIES` cycles, static entries not writable),
/// then idle up to the next multiple of `tick` cycles; returns the sweep's length (the cycles with
/// `s_msg_ready` low). These cycles are not counted in the callers' cycle numbers: a whole number of ticks
/// after the reset the tick phase is the reset's, and nothing else has changed (no context, no timer),
/// so their documented cycles, counted from the reset, stand.
fn reset_and_sweep<B: Block<In = CpuIn, Out = CpuOut>>(dut: &mut B, tick: u64) -> u64 {
    dut.step(&CpuIn { rst: true, ..CpuIn::default() });
    let idle = CpuIn { m_msg_ready: true, ..CpuIn::default() };
    let mut swept = 0;
    while !dut.step(&idle).s_msg_ready {
        swept += 1;
        assert!(swept <= MAX_SWEEP, "the CPU is still not ready {swept} cycles after the reset");
    }
    for _ in (swept + 1)..(swept + 1).next_multiple_of(tick) {
        dut.step(&idle);
    }
    swept
}

/// Resets `dut` at cycle 0 and configures TIMEOUT[0] = `t` and one Portals subservient tree `KEY`
/// (wait count 4) on cycles 1-3; returns the last cycle and the idle input (output always ready).
fn reset_and_configure<B: Block<In = CpuIn, Out = CpuOut>>(dut: &mut B, t: u32, tick: u64) -> (u64, CpuIn) {
    let mut cycle = 0u64;
    reset_and_sweep(dut, tick);
    let idle = CpuIn { m_msg_ready: true, ..CpuIn::default() };
    for (a, d) in [(TIMEOUT0, t), (STATIC0_WORD0, VALID | FAMILY_PORTALS | u32::from(KEY)), (STATIC0_WORD1, 4)] {
        cycle += 1;
        dut.step(&CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: d, ..idle });
    }
    (cycle, idle)
}

/// Resets `dut` at cycle 0, configures one Portals subservient context with TIMEOUT[0] = `t`, offers an
/// arm so that it is accepted at the first cycle of phase `phase` (cycles since the reset, modulo
/// `tick`) after the configuration, and returns (acceptance cycle, cycle of the expiry report).
fn arm_and_wait<B: Block<In = CpuIn, Out = CpuOut>>(dut: &mut B, tick: u64, t: u32, phase: u64) -> Result<(u64, u64), String> {
    let (mut cycle, idle) = reset_and_configure(dut, t, tick);
    let arm = arm_of(KEY);
    // Idle up to the wanted phase (at least a few cycles after the configuration).
    loop {
        cycle += 1;
        if cycle >= 8 && cycle % tick == phase {
            break;
        }
        dut.step(&idle);
    }
    let mut offer = idle;
    offer.set_msg(&arm);
    let o = dut.step(&offer);
    if !o.s_msg_ready {
        return Err(format!("the idle CPU did not take the arm at cycle {cycle}"));
    }
    let accepted = cycle;
    let limit = accepted + (u64::from(t.max(1)) + 2) * tick + 64;
    while cycle < limit {
        cycle += 1;
        let o = dut.step(&idle);
        if o.stat_valid && matches!(o.stat_event, event::TIMEOUT_EMPTY | event::TIMEOUT_PARTIAL) {
            return Ok((accepted, cycle));
        }
    }
    Err(format!("no expiry reported by cycle {limit} (arm accepted at {accepted}, T = {t})"))
}

/// Every phase of the tick counter, every T of `ts`: the report on the documented cycle.
fn check_exact<B: Block<In = CpuIn, Out = CpuOut>>(make: &dyn Fn() -> B, tick: u64, ts: &[u32]) -> Result<usize, String> {
    let mut n = 0;
    for &t in ts {
        for phase in 0..tick {
            let mut dut = make();
            let (accepted, got) = arm_and_wait(&mut dut, tick, t, phase)?;
            let want = documented_report(0, accepted, t, tick);
            if got != want {
                return Err(format!(
                    "T = {t} ticks of {tick} cycles, arm accepted at cycle {accepted} (phase {phase}): expiry reported at cycle {got}, docs/blocks/cpu.md §Timers says {want} ({})",
                    if got > want { "late" } else { "early" }
                ));
            }
            n += 1;
        }
    }
    Ok(n)
}

#[test]
fn rtl_timers_expire_on_the_documented_cycle_at_every_phase() {
    let p = cpu::params_of("cpu").unwrap();
    let tick = u64::from(p.tick_cycles);
    let n = check_exact(&|| CpuRtl::new("cpu").expect("the cpu model is built"), tick, &[0, 1, 2, 3]).unwrap();
    assert_eq!(n, 4 * p.tick_cycles as usize);
}

#[test]
fn model_timers_expire_on_the_documented_cycle_at_every_phase() {
    let p = cpu::params_of("cpu").unwrap();
    let n = check_exact(&|| Cpu::new(p).unwrap(), u64::from(p.tick_cycles), &[0, 1, 2, 3]).unwrap();
    assert_eq!(n, 4 * p.tick_cycles as usize);
}

#[test]
fn the_longest_timeout_expires_on_the_documented_cycle() {
    let p = CpuParams { tick_cycles: 2, ..CpuParams::default() };
    let n = check_exact(&|| Cpu::new(p).unwrap(), 2, &[T_MAX]).unwrap();
    assert_eq!(n, 2);
}

#[test]
fn a_timer_one_tick_late_or_early_fails_the_directed_test() {
    let p = cpu::params_of("cpu").unwrap();
    let tick = u64::from(p.tick_cycles);
    let late = TimerRule { expire_at: TIMER_RULE.expire_at - 1 };
    let e = check_exact(&|| Cpu::with_timer_rule(p, late).unwrap(), tick, &[1, 2, 3]).expect_err("one tick late");
    assert!(e.contains("late"), "{e}");
    let early = TimerRule { expire_at: TIMER_RULE.expire_at + 1 };
    let e = check_exact(&|| Cpu::with_timer_rule(p, early).unwrap(), tick, &[2, 3]).expect_err("one tick early");
    assert!(e.contains("early"), "{e}");
}

/// The scoreboard's complaint about a CPU with timer rule `rule` standing in for model and RTL.
fn scoreboard_on(rule: TimerRule, name: &str) -> Result<String, String> {
    let p = cpu::params_of("cpu").unwrap();
    let make = |seed: u64| {
        Ok(inswitch::checker::Bench::new(Cpu::with_timer_rule(p, rule).unwrap(), AsRtl(Cpu::with_timer_rule(p, rule).unwrap()), CpuStimulus::new(p, seed), CpuMonitor::new(p)))
    };
    scoreboard_complaint(name, &make, 11, 300_000)
}

#[test]
fn the_cpu_scoreboard_accepts_the_seeds_timer_rule() {
    let e = scoreboard_on(TIMER_RULE, "cpu_seed_timer").expect_err("the seed's rule must pass");
    assert!(e.contains("accepted 300000 cycles"), "{e}");
}

#[test]
fn the_cpu_scoreboard_rejects_a_timer_one_tick_late() {
    let msg = scoreboard_on(TimerRule { expire_at: TIMER_RULE.expire_at - 1 }, "cpu_late_timer").unwrap();
    eprintln!("{msg}");
    assert!(msg.contains("late"), "{msg}");
}

#[test]
fn the_cpu_scoreboard_rejects_a_timer_one_tick_early() {
    let msg = scoreboard_on(TimerRule { expire_at: TIMER_RULE.expire_at + 1 }, "cpu_early_timer").unwrap();
    eprintln!("{msg}");
    assert!(msg.contains("before its timeout allows"), "{msg}");
}

#[test]
fn the_lockstep_run_checks_many_expiries_to_the_cycle() {
    let cfg = inswitch::checker::RunConfig {
        seed: 0x22,
        cycles: 300_000,
        wave_dir: std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("independent-cpu"),
    };
    let outcome = cpu::run("cpu", &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    let exact = outcome.counter("timeouts_exact");
    let busy = outcome.counter("timeouts_exact_busy");
    let unpredicted = outcome.counter("timeouts_unpredicted");
    let checked = outcome.counter("timeouts_checked");
    for (k, v) in outcome.counters.iter().filter(|(k, _)| k.starts_with("timeouts_")) {
        eprintln!("{k:40} {v}");
    }
    assert!(exact >= 20, "only {exact} expiries met an idle sequencer");
    // docs/blocks/cpu.md §Timing: every expiry is checked to the cycle, whatever held the sequencer; the only ones
    // left to "not early" are those no running timer explains (a timer stopped after it expired).
    for path in ["exec", "combine", "emission", "stalled_emission", "expiry", "relay"] {
        let n = outcome.counter(&format!("timeouts_exact_after_{path}"));
        assert!(n >= 5, "only {n} expiries checked to the cycle after a sequencer busy with {path}");
    }
    let reported: u64 = ["TIMEOUT_PARTIAL", "TIMEOUT_EMPTY", "TIMEOUT_MASTER", "RETRY", "RETRY_EXHAUSTED"].iter().map(|e| outcome.counter(e)).sum();
    assert_eq!(exact + busy + unpredicted, reported, "every expiry reported is counted once");
    assert!(unpredicted * 100 <= checked, "{unpredicted} of {checked} expiries only checked not early");
}

/// Resets `dut`, arms the context as [`arm_and_wait`] does with the arm accepted at the first cycle of
/// phase 0, then, `k` cycles before its expiry becomes pending (docs/blocks/cpu.md §Timers: the cycle after the
/// expiring tick), offers a CONTRIBUTION with a VNI other than the armed one, which the CPU drops
/// (`DROP_VNI`, 002 (52)); returns (the drop's acceptance cycle, the cycle the expiry is pending, the
/// cycle of the expiry report).
fn busy_across_the_expiry<B: Block<In = CpuIn, Out = CpuOut>>(dut: &mut B, tick: u64, t: u32, k: u64) -> Result<(u64, u64, u64), String> {
    let (mut cycle, idle) = reset_and_configure(dut, t, tick);
    let arm = arm_of(KEY);
    loop {
        cycle += 1;
        if cycle >= 8 && cycle % tick == 0 {
            break;
        }
        dut.step(&idle);
    }
    let mut offer = idle;
    offer.set_msg(&arm);
    if !dut.step(&offer).s_msg_ready {
        return Err(format!("the idle CPU did not take the arm at cycle {cycle}"));
    }
    let pending = documented_report(0, cycle, t, tick) - 2;
    let at = pending - k;
    while cycle + 1 < at {
        cycle += 1;
        dut.step(&idle);
    }
    cycle += 1;
    let mut offer = idle;
    offer.set_msg(&CollectiveMsg { kind: Kind::CONTRIBUTION, vni: 0x78, count: 1, data: [1, 2, 3, 4], ..arm });
    if !dut.step(&offer).s_msg_ready {
        return Err(format!("the idle CPU did not take the contribution at cycle {cycle}"));
    }
    let (mut dropped, mut report) = (false, None);
    while cycle < at + 32 {
        cycle += 1;
        let o = dut.step(&idle);
        if o.stat_valid && o.stat_event == event::DROP_VNI {
            dropped = true;
        }
        if o.stat_valid && matches!(o.stat_event, event::TIMEOUT_EMPTY | event::TIMEOUT_PARTIAL) && report.is_none() {
            report = Some(cycle);
        }
    }
    if !dropped {
        return Err(format!("the contribution with a wrong VNI accepted at cycle {at} was not dropped (DROP_VNI)"));
    }
    let report = report.ok_or_else(|| format!("no expiry reported by cycle {cycle} (pending from {pending})"))?;
    Ok((at, pending, report))
}

/// docs/blocks/cpu.md §Timers and §6: an expiry that becomes pending while the sequencer is busy is taken when the
/// sequencer is next idle and reported two cycles later; a dropped message holds the sequencer for 4
/// cycles (accept, LOOKUP, COMPARE, EXEC: "one dropped message per 4 cycles"), so a drop accepted at cycle
/// A makes the report come at max(pending, A + 4) + 2 exactly, never a cycle earlier or later.
fn check_busy<B: Block<In = CpuIn, Out = CpuOut>>(make: &dyn Fn() -> B, tick: u64) -> Result<usize, String> {
    const DROP_CYCLES: u64 = 4;
    let mut n = 0;
    for t in [1, 2] {
        for k in 1..=DROP_CYCLES + 1 {
            let (at, pending, got) = busy_across_the_expiry(&mut make(), tick, t, k)?;
            let want = pending.max(at + DROP_CYCLES) + 2;
            if got != want {
                return Err(format!(
                    "T = {t}: a drop accepted at cycle {at}, the expiry pending from {pending}: reported at {got}, docs/blocks/cpu.md §Timers, §Timing say {want} ({})",
                    if got > want { "late" } else { "early" }
                ));
            }
            n += 1;
        }
    }
    Ok(n)
}

#[test]
fn an_expiry_while_the_sequencer_is_busy_is_reported_on_the_documented_cycle() {
    let p = cpu::params_of("cpu").unwrap();
    let tick = u64::from(p.tick_cycles);
    assert_eq!(check_busy(&|| CpuRtl::new("cpu").expect("the cpu model is built"), tick).unwrap(), 10);
    assert_eq!(check_busy(&|| Cpu::new(p).unwrap(), tick).unwrap(), 10);
    // A timer one tick late is late here too.
    let late = TimerRule { expire_at: TIMER_RULE.expire_at - 1 };
    let e = check_busy(&|| Cpu::with_timer_rule(p, late).unwrap(), tick).expect_err("one tick late");
    assert!(e.contains("late"), "{e}");
}

/// What held the sequencer when an expiry became pending, recognised by a CPU standing in for model
/// and RTL from what it shows on its ports (docs/blocks/cpu.md §Sequencer timing).
#[derive(Clone, Copy, Debug, PartialEq)]
enum After {
    /// A decision in EXEC with nothing to send: the expiry reported 6 cycles after the message was
    /// accepted (idle from A + 4).
    Exec,
    /// A combine that does not complete: reported 14 cycles after the contribution was accepted
    /// (ISSUE, 6 cycles of REDUCE, CHECK; idle from A + 12).
    Combine,
    /// A pass-up (one message, EMIT from A + 4) never stalled: reported 4 cycles after the message
    /// appeared (EMIT writes it, one more EMIT cycle, FINISH, idle, 2 cycles to the report).
    Emission,
    /// The same with its message stalled on `m_msg` past the cycle the sequencer would be idle: nothing
    /// starts while the output register holds a message (§Timing "Output register"), so reported 3
    /// cycles after it is taken (idle the cycle after).
    StalledEmission,
    /// Another expiry with nothing to send (TIMEOUT_EMPTY: 3 ratchet steps, a cycle to see the target,
    /// EMIT, FINISH): reported 8 cycles after it.
    Expiry,
    /// An INITIALIZATION relayed down (INIT_RELAY, EMIT from A + 4 of its copies, then the
    /// acknowledgement if non-posted): reported 4 cycles after the last message appeared, or 8 cycles
    /// after the INITIALIZATION was accepted when the list is empty (EMIT sees nothing, FINISH, idle
    /// from A + 6).
    Relay,
}

fn is_expiry(e: u8) -> bool {
    matches!(e, event::TIMEOUT_PARTIAL | event::TIMEOUT_EMPTY | event::TIMEOUT_MASTER | event::RETRY | event::RETRY_EXHAUSTED)
}

/// The scoreboard's complaint about a CPU standing in for model and RTL that reports an expiry one cycle
/// late when it came `after` the given sequencer work (planted by content: the acceptances, events,
/// messages and stalls on the ports, not by cycle). Only expiries that set no FAILURE flag are delayed,
/// so the complaint is the timer check's.
fn late_after(after: After) -> String {
    #[derive(Clone, Default)]
    struct Late {
        cycle: u64,
        accepted: u64,
        last_event: (u8, u64),
        /// The cycle the last message appeared on `m_msg`, and whether the output was free last cycle.
        appeared: u64,
        was_free: bool,
        /// The last cycle `m_msg` was stalled.
        stalled: u64,
        held: Option<(u8, bool, u16)>,
    }
    let mut st = Late { was_free: true, ..Late::default() };
    let f = move |i: &CpuIn, o: &mut CpuOut| {
        st.cycle += 1;
        let c = st.cycle;
        if o.m_msg_valid && st.was_free {
            st.appeared = c;
        }
        st.was_free = !o.m_msg_valid || i.m_msg_ready;
        if o.m_msg_valid && !i.m_msg_ready {
            st.stalled = c;
        }
        if let Some((e, fam, ctx)) = st.held.take() {
            if !o.stat_valid {
                (o.stat_valid, o.stat_event, o.stat_family, o.stat_ctx) = (true, e, fam, ctx);
            }
        } else if o.stat_valid && matches!(o.stat_event, event::TIMEOUT_EMPTY | event::TIMEOUT_PARTIAL | event::RETRY) {
            let (last, at) = st.last_event;
            let a = st.accepted;
            let planted = match after {
                After::Exec => a + 6 == c && at + 2 == c && !is_expiry(last),
                After::Combine => a + 14 == c && last == event::ACCEPT && at == a + 4,
                After::Emission => last == event::PASS_UP && at == a + 4 && st.appeared + 4 == c && st.stalled < a,
                After::StalledEmission => {
                    last == event::PASS_UP && at == a + 4 && st.appeared == a + 5 && st.stalled > st.appeared && st.stalled + 4 == c
                }
                After::Expiry => last == event::TIMEOUT_EMPTY && at + 8 == c && a < at,
                After::Relay => {
                    // A TLP INITIALIZATION naming its engine by P_ID is searched first (docs/blocks/cpu.md
                    // §PBV table: 4 SCAN cycles before LOOKUP), so its event is 4 or 8 cycles after it.
                    let scan = if at == a + 4 + SCAN_CYCLES { SCAN_CYCLES } else { 0 };
                    let idle = if st.appeared > a { st.appeared + 2 } else { a + 6 + scan };
                    last == event::INIT_RELAY && at == a + 4 + scan && idle + 2 == c
                }
            };
            if planted {
                st.held = Some((o.stat_event, o.stat_family, o.stat_ctx));
                o.stat_valid = false;
            }
        }
        if o.stat_valid {
            st.last_event = (o.stat_event, c);
        }
        if i.s_msg_valid && o.s_msg_ready && !i.rst {
            st.accepted = c;
        }
    };
    let p = cpu::params_of("cpu").unwrap();
    let make = |seed: u64| {
        Ok(inswitch::checker::Bench::new(
            Mutant { inner: Cpu::new(p).unwrap(), f },
            AsRtl(Mutant { inner: Cpu::new(p).unwrap(), f }),
            CpuStimulus::new(p, seed),
            CpuMonitor::new(p),
        ))
    };
    scoreboard_complaint(&format!("cpu_late_after_{after:?}"), &make, 11, 300_000).unwrap()
}

/// The scoreboard's exact expiry check (verif/blocks/cpu/reference/timing.rs `Reference::seq_take`) objects to an expiry
/// reported one cycle late on each path that can hold the sequencer across an expiry, and names it.
#[test]
fn the_cpu_scoreboard_rejects_an_expiry_one_cycle_late_after_a_busy_sequencer() {
    for (after, label) in [
        (After::Exec, "timeouts_exact_after_exec"),
        (After::Combine, "timeouts_exact_after_combine"),
        (After::Emission, "timeouts_exact_after_emission"),
        (After::StalledEmission, "timeouts_exact_after_stalled_emission"),
        (After::Expiry, "timeouts_exact_after_expiry"),
        (After::Relay, "timeouts_exact_after_relay"),
    ] {
        let msg = late_after(after);
        eprintln!("{after:?}: {msg}");
        assert!(msg.contains(label) && msg.contains("late"), "{after:?}: {msg}");
    }
}

/// Cycles of the CPU's reverse lookup (docs/blocks/cpu.md §PBV table: 4 words of 32 device IDs, one per
/// cycle), written out from the document.
const SCAN_CYCLES: u64 = 4;

/// The second tree key of the queued-expiry tests: at static entry 1 (`STATIC0_WORD0 + 2`).
const KEY2: u16 = KEY + 1;

/// The arm of tree `key` (the one of [`arm_and_wait`], with its own key).
fn arm_of(key: u16) -> CollectiveMsg {
    CollectiveMsg {
        kind: Kind::ARM,
        family: Family::Portals,
        ctx: key,
        dst: 0x00C0_0000 | u32::from(key) << 3,
        src: 0xAB00_0123,
        vni: 0x77,
        cookie: 0x1234_5678,
        seqno: 5,
        resno: 4,
        op: 0x14,
        ..CollectiveMsg::default()
    }
}

/// Drives `dut` from a reset at cycle 0 and its sweep ([`reset_and_sweep`]): configures TIMEOUT[0] = `t` and two Portals subservient
/// trees `KEY`, `KEY2` (wait count 4), then on each cycle offers what `offer(cycle)` says with
/// `m_msg_ready` = `ready(cycle)`, up to cycle `until`. Returns the cycles each offered message was
/// accepted, the expiry reports (cycle, ctx) and the cycles a message appeared on `m_msg`.
type Trace = (Vec<u64>, Vec<(u64, u16)>, Vec<u64>);
fn drive<B: Block<In = CpuIn, Out = CpuOut>>(
    dut: &mut B,
    t: u32,
    offer: &dyn Fn(u64) -> Option<CollectiveMsg>,
    ready: &dyn Fn(u64) -> bool,
    until: u64,
    tick: u64,
) -> Trace {
    reset_and_sweep(dut, tick);
    let config = [
        (TIMEOUT0, t),
        (STATIC0_WORD0, VALID | FAMILY_PORTALS | u32::from(KEY)),
        (STATIC0_WORD1, 4),
        (STATIC0_WORD0 + 2, VALID | FAMILY_PORTALS | u32::from(KEY2)),
        (STATIC0_WORD1 + 2, 4),
    ];
    let (mut accepted, mut reports, mut appeared) = (Vec::new(), Vec::new(), Vec::new());
    let mut was_free = true;
    for cycle in 1..=until {
        let mut i = CpuIn { m_msg_ready: ready(cycle), ..CpuIn::default() };
        if let Some(&(a, d)) = config.get(cycle as usize - 1) {
            (i.cfg_wr_en, i.cfg_wr_addr, i.cfg_wr_data) = (true, a, d);
        } else if let Some(m) = offer(cycle) {
            i.set_msg(&m);
        }
        let o = dut.step(&i);
        if i.s_msg_valid && o.s_msg_ready {
            accepted.push(cycle);
        }
        if o.stat_valid && is_expiry(o.stat_event) {
            reports.push((cycle, o.stat_ctx));
        }
        if o.m_msg_valid && was_free {
            appeared.push(cycle);
        }
        was_free = !o.m_msg_valid || i.m_msg_ready;
    }
    (accepted, reports, appeared)
}

/// docs/blocks/cpu.md §Sequencer timing, on two queued paths (the rule written out here, not taken from
/// the scoreboard):
///
/// 1. Two trees armed 4 cycles apart (an ARM holds the sequencer 4) in the same tick period expire on the same tick: the lower
///    descriptor's TIMEOUT_EMPTY is reported 3 cycles after the tick, and the other's 8 cycles later
///    (an empty Portals expiry holds the sequencer 3 ratchet steps, a cycle that sees the target, one
///    EMIT cycle with nothing to send, FINISH: idle 6 cycles after its report).
/// 2. Behind an emission waiting on a stalled output: a contribution for the unarmed tree `KEY2` is
///    passed up (EMIT from acceptance B0 + 4, on `m_msg` from B0 + 5), its message held there for `s`
///    cycles. The sequencer is idle again from I = max(B0 + 7, the cycle after the message is taken):
///    an EMIT cycle and FINISH, and nothing starts while the output register holds a message (§Timing
///    "Output register"). If the expiry, pending from P, is pending on I, it is taken there, reported on
///    E = I + 2 and holds the sequencer to E + 6 (an empty Portals expiry), where a second pass-up is
///    accepted (B2); else the second is accepted on B2 = I. It is written on W = B2 + 4 and appears on
///    W + 1, and the expiry (if not yet taken) is reported on max(P, W + 3) + 2. The second is offered on
///    B2 - 1 too, where the CPU must refuse it.
fn check_queued<B: Block<In = CpuIn, Out = CpuOut>>(make: &dyn Fn() -> B, tick: u64) -> Result<usize, String> {
    let mut n = 0;
    for t in [1, 2] {
        // 1. Behind another expiry.
        let a = 2 * tick;
        let offer = |c: u64| match c {
            c if c == a => Some(arm_of(KEY)),
            c if c == a + 4 => Some(arm_of(KEY2)),
            _ => None,
        };
        let (acc, reports, _) = drive(&mut make(), t, &offer, &|_| true, a + u64::from(t) * tick + 64, tick);
        if acc != [a, a + 4] {
            return Err(format!("T = {t}: the arms at {a} and {} were accepted at {acc:?}", a + 4));
        }
        let first = documented_report(0, a, t, tick);
        let want = vec![(first, KEY), (first + 8, KEY2)];
        if reports != want {
            return Err(format!(
                "T = {t}: two expiries on one tick reported at {reports:?}, docs/blocks/cpu.md §Timers, §Timing say {want:?} ({})",
                if reports.get(1).is_some_and(|r| r.0 > first + 8) || reports.first().is_some_and(|r| r.0 > first) { "late" } else { "early" }
            ));
        }
        n += 1;
        // 2. Behind an emission stalled by the output.
        for s in [0, 2, 5, 8, 12] {
            let pending = first - 2;
            let b0 = pending - 12;
            let taken = b0 + 5 + s;
            let idle = (b0 + 7).max(taken + 1);
            let early = pending <= idle;
            let b2 = if early { idle + 2 + 6 } else { idle };
            let contribution = CollectiveMsg { kind: Kind::CONTRIBUTION, ctx: KEY2, count: 1, data: [1, 2, 3, 4], ..arm_of(KEY2) };
            let offer = |c: u64| match c {
                c if c == a => Some(arm_of(KEY)),
                c if c == b0 || c == b2 - 1 || c == b2 => Some(contribution),
                _ => None,
            };
            // The first pass-up appears on b0 + 5 and is held there for `s` cycles.
            let ready = |c: u64| !(b0 + 5..b0 + 5 + s).contains(&c);
            let (acc, reports, appeared) = drive(&mut make(), t, &offer, &ready, first + 64, tick);
            if acc != [a, b0, b2] {
                return Err(format!("T = {t}, stall {s}: messages offered at {a}, {b0}, {}, {b2} must be accepted at {:?}, were at {acc:?}", b2 - 1, [a, b0, b2]));
            }
            let w = b2 + 4;
            let want_out = vec![b0 + 5, w + 1];
            if appeared != want_out {
                return Err(format!("T = {t}, stall {s}: pass-ups appeared at {appeared:?}, docs/blocks/cpu.md §Timing says {want_out:?}"));
            }
            let want = if early { idle + 2 } else { pending.max(w + 3) + 2 };
            if reports != [(want, KEY)] {
                return Err(format!(
                    "T = {t}, stall {s}: expiry pending from {pending}, second pass-up written on {w}: reported at {reports:?}, docs/blocks/cpu.md §Timers, §Timing say {want} ({})",
                    if reports.first().is_some_and(|r| r.0 > want) { "late" } else { "early" }
                ));
            }
            n += 1;
        }
    }
    Ok(n)
}

#[test]
fn an_expiry_queued_behind_another_expiry_or_a_stalled_emission_is_reported_on_the_documented_cycle() {
    let p = cpu::params_of("cpu").unwrap();
    let tick = u64::from(p.tick_cycles);
    assert_eq!(check_queued(&|| CpuRtl::new("cpu").expect("the cpu model is built"), tick).unwrap(), 12);
    assert_eq!(check_queued(&|| Cpu::new(p).unwrap(), tick).unwrap(), 12);
    // A timer one tick late is late here too.
    let late = TimerRule { expire_at: TIMER_RULE.expire_at - 1 };
    let e = check_queued(&|| Cpu::with_timer_rule(p, late).unwrap(), tick).expect_err("one tick late");
    assert!(e.contains("late"), "{e}");
}

/// The clearing sweep after a reset (docs/blocks/cpu.md §Where the tables live, "Reset"): `s_msg_ready`
/// low for exactly `STATIC_ENTRIES` cycles after the last reset cycle, on the RTL and the model; a
/// static-entry write during the sweep is ignored (a context written there is not found: its arm is
/// dropped as unknown), one after it takes effect.
#[test]
fn the_sweep_holds_the_cpu_for_static_entries_cycles_and_ignores_static_writes() {
    fn check<B: Block<In = CpuIn, Out = CpuOut>>(dut: &mut B, entries: u64) {
        let idle = CpuIn { m_msg_ready: true, ..CpuIn::default() };
        dut.step(&CpuIn { rst: true, ..CpuIn::default() });
        // Entry 0 written in the sweep's first two cycles: ignored.
        let mut swept = 0;
        for (a, d) in [(STATIC0_WORD0, VALID | FAMILY_PORTALS | u32::from(KEY)), (STATIC0_WORD1, 4)] {
            assert!(!dut.step(&CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: d, ..idle }).s_msg_ready);
            swept += 1;
        }
        while !dut.step(&idle).s_msg_ready {
            swept += 1;
        }
        assert_eq!(swept, entries, "s_msg_ready low for STATIC_ENTRIES cycles after the reset");
        let arm_event = |dut: &mut B| {
            let mut offer = idle;
            offer.set_msg(&arm_of(KEY));
            assert!(dut.step(&offer).s_msg_ready);
            (0..8).find_map(|_| Some(dut.step(&idle)).filter(|o| o.stat_valid).map(|o| o.stat_event)).expect("an event")
        };
        assert_eq!(arm_event(dut), event::DROP_UNKNOWN, "the write during the sweep was ignored");
        for (a, d) in [(STATIC0_WORD0, VALID | FAMILY_PORTALS | u32::from(KEY)), (STATIC0_WORD1, 4)] {
            dut.step(&CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: d, ..idle });
        }
        assert_eq!(arm_event(dut), event::ARM, "the write after the sweep took");
    }
    let p = cpu::params_of("cpu").unwrap();
    check(&mut CpuRtl::new("cpu").expect("the cpu model is built"), p.static_entries as u64);
    check(&mut Cpu::new(p).unwrap(), p.static_entries as u64);
    let full = cpu::params_of("cpu_full").unwrap();
    check(&mut CpuRtl::new("cpu_full").expect("the cpu_full model is built"), full.static_entries as u64);
    check(&mut Cpu::new(full).unwrap(), full.static_entries as u64);
}

/// The stamp bits that replace the per-entry "new" flag (docs/blocks/cpu.md §Where the tables live, "Two
/// writers"): a word-0 write of a TLP context's entry at every cycle from its INITIALIZATION's
/// acceptance (A) to A + 7, so at the edge of EXEC (A + 3; A + 2 before session 22's COMPARE), where the
/// sequencer writes the same entry back and the configuration must win, and before and after it. The RTL and the model are stepped
/// together on the same inputs and must agree on every output of every cycle, through a CONTRIBUTION and
/// a second INITIALIZATION and CONTRIBUTION after the write; and the model's entry must hold no stored
/// context after a write at or after EXEC's edge, and the INITIALIZATION's after one before it.
#[test]
fn a_word0_write_around_a_sequencer_write_matches_the_model() {
    const ENGINE_ID: u16 = 0x0100;
    const DEVICE: u16 = 0x0010;
    const CC_ID: u16 = 5;
    const ROLE_MASTER: u32 = 1 << 20;
    const EXEC: u64 = 3;
    let p = cpu::params_of("cpu").unwrap();
    let word0 = VALID | ROLE_MASTER | u32::from(CC_ID);
    let init = CollectiveMsg {
        kind: Kind::INITIALIZATION,
        family: Family::Tlp,
        ctx: CC_ID,
        src: 0x0777,
        pid: 0xffff,
        count: 1,
        pbv: 1,
        op: 0x14,
        tid: 2,
        posted: true,
        ..CollectiveMsg::default()
    };
    let contribution = CollectiveMsg { kind: Kind::CONTRIBUTION, src: u32::from(DEVICE), pid: 0, count: 1, pbv: 0, data: [1, 2, 3, 4], ..init };
    for d in 0..8u64 {
        let mut rtl = CpuRtl::new("cpu").expect("the cpu model is built");
        let mut model = Cpu::new(p).unwrap();
        let mut cycle = 0u64;
        let mut step = |i: &CpuIn| -> CpuOut {
            let (a, b) = (rtl.step(i), model.step(i));
            assert_eq!(a, b, "RTL and model differ at cycle {cycle}, word-0 write {d} cycles after the acceptance");
            cycle += 1;
            a
        };
        let idle = CpuIn { m_msg_ready: true, ..CpuIn::default() };
        let cfg = |a: u16, v: u32| CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: v, ..idle };
        step(&CpuIn { rst: true, ..idle });
        while !step(&idle).s_msg_ready {}
        step(&cfg(0x087, u32::from(ENGINE_ID)));
        step(&cfg(0x000, VALID | u32::from(DEVICE)));
        step(&cfg(STATIC0_WORD0 + 2 * CC_ID, word0));
        step(&cfg(STATIC0_WORD1 + 2 * CC_ID, 0));
        // Offers `m` (with the word-0 write in the same input when `at` is 0) until taken, then 39
        // idle cycles, with the write on the `at`-th after the acceptance.
        let send = |step: &mut dyn FnMut(&CpuIn) -> CpuOut, m: &CollectiveMsg, at: Option<u64>| {
            let mut offer = if at == Some(0) { cfg(STATIC0_WORD0 + 2 * CC_ID, word0) } else { idle };
            offer.set_msg(m);
            while !step(&offer).s_msg_ready {}
            for k in 1..40 {
                step(&if at == Some(k) { cfg(STATIC0_WORD0 + 2 * CC_ID, word0) } else { idle });
            }
        };
        send(&mut step, &init, Some(d));
        send(&mut step, &contribution, None);
        send(&mut step, &init, None);
        send(&mut step, &contribution, None);
    }

    // (The model's entry is checked in a second pass below: `step` borrows both DUTs.)
    for d in 0..8u64 {
        let mut model = Cpu::new(p).unwrap();
        let idle = CpuIn { m_msg_ready: true, ..CpuIn::default() };
        let cfg = |a: u16, v: u32| CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: v, ..idle };
        model.step(&CpuIn { rst: true, ..idle });
        while !model.step(&idle).s_msg_ready {}
        model.step(&cfg(0x087, u32::from(ENGINE_ID)));
        model.step(&cfg(0x000, VALID | u32::from(DEVICE)));
        model.step(&cfg(STATIC0_WORD0 + 2 * CC_ID, word0));
        let mut offer = if d == 0 { cfg(STATIC0_WORD0 + 2 * CC_ID, word0) } else { idle };
        offer.set_msg(&init);
        assert!(model.step(&offer).s_msg_ready);
        for k in 1..40 {
            model.step(&if k == d { cfg(STATIC0_WORD0 + 2 * CC_ID, word0) } else { idle });
        }
        let e = *model.static_entry(usize::from(CC_ID) % p.static_entries);
        assert_eq!(e.stored, d < EXEC, "word-0 write {d} cycles after the acceptance: stored {} (EXEC at + {EXEC})", e.stored);
        assert_eq!(e.tid, if d < EXEC { 2 } else { 0 });
    }
}

/// The load level registered in COMPARE (session 24, docs/blocks/cpu.md §Timing): an ARM's timeout is
/// chosen by its wait count against the thresholds as EXEC (A + 3) reads them, so a configuration write
/// on any cycle up to A + 2 (COMPARE, the write taking effect at the edge into EXEC) is seen and one from
/// A + 3 on is not, whether it writes a threshold or the tree's wait count (static word 1). Written on
/// every cycle from A to A + 7, RTL and model stepped together must agree on every output of every cycle,
/// and the expiry must come from TIMEOUT[1] (6 ticks) for a write up to A + 2, from TIMEOUT[0] (2 ticks)
/// after: the wait count 4 is not over THRESHOLD[0] = 4, and is once the write sets the wait count to 8
/// or THRESHOLD[0] to 2.
#[test]
fn a_threshold_or_wait_count_write_before_exec_chooses_the_arms_timeout() {
    const THRESHOLD0: u16 = 0x084;
    const EXEC: u64 = 3;
    let p = cpu::params_of("cpu").unwrap();
    let tick = u64::from(p.tick_cycles);
    for (what, late_write) in [("THRESHOLD[0] = 2", (THRESHOLD0, 2u32)), ("wait count 8", (STATIC0_WORD1, 8))] {
        let mut expiries = Vec::new();
        for d in 0..8u64 {
            let mut rtl = CpuRtl::new("cpu").expect("the cpu model is built");
            let mut model = Cpu::new(p).unwrap();
            let mut cycle = 0u64;
            let mut step = |i: &CpuIn| -> CpuOut {
                let (a, b) = (rtl.step(i), model.step(i));
                assert_eq!(a, b, "RTL and model differ at cycle {cycle}, {what} written {d} cycles after the acceptance");
                cycle += 1;
                a
            };
            let idle = CpuIn { m_msg_ready: true, ..CpuIn::default() };
            let cfg = |(a, v): (u16, u32)| CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: v, ..idle };
            step(&CpuIn { rst: true, ..idle });
            while !step(&idle).s_msg_ready {}
            for w in [(TIMEOUT0, 2), (TIMEOUT0 + 1, 6), (THRESHOLD0, 4), (STATIC0_WORD0, VALID | FAMILY_PORTALS | u32::from(KEY)), (STATIC0_WORD1, 4)] {
                step(&cfg(w));
            }
            let mut offer = if d == 0 { cfg(late_write) } else { idle };
            offer.set_msg(&arm_of(KEY));
            assert!(step(&offer).s_msg_ready);
            let mut events = Vec::new();
            for k in 1..12 * tick {
                let o = step(&if k == d { cfg(late_write) } else { idle });
                if o.stat_valid {
                    events.push((k, o.stat_event));
                }
            }
            assert_eq!(events.len(), 2, "{what} at A + {d}: the ARM and its expiry, got {events:?}");
            assert_eq!(events[0].1, event::ARM);
            assert_eq!(events[1].1, event::TIMEOUT_EMPTY);
            expiries.push(events[1].0);
        }
        // The six ticks' expiry 4 ticks after the two ticks' (the same tick phase at every d).
        let (seen, unseen) = expiries.split_at(EXEC as usize);
        assert!(seen.iter().all(|&e| e == seen[0]) && unseen.iter().all(|&e| e == unseen[0]), "{what}: expiries {expiries:?}");
        assert_eq!(seen[0], unseen[0] + 4 * tick, "{what}: a write up to A + 2 is seen by EXEC, one after is not: {expiries:?}");
    }
}
