//! Lockstep co-simulation of the collective processing unit: Rust model (`Cpu`) vs Verilated `cpu`,
//! at least 10^6 cycles of constrained-random traffic of both families, every output compared every
//! cycle, the transaction-level reference scoreboard clean, no coverage hole; a wrong model and wrong
//! scoreboard inputs must be caught.

use std::path::PathBuf;

use inswitch::blocks::cpu::{self, CpuMonitor, CpuRtl, CpuStimulus, REQUIRED};
use inswitch::checker::{self, Bench, Failure, RunConfig};
use inswitch::HarnessError;
use inswitch_model::cpu::{event, Cpu, CpuIn, CpuOut, CpuParams};
use inswitch_model::Block;

/// The bar: at least 10^6 cycles per CI run.
const CYCLES: u64 = 1_000_000;

fn wave_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn cpu_matches_rtl_for_a_million_cycles_with_no_coverage_hole() {
    let cfg = RunConfig { seed: 0x5eed_c0de, cycles: CYCLES, wave_dir: wave_dir("cosim-out") };
    let outcome = match cpu::run("cpu", &cfg, &mut |_| {}) {
        Ok(o) => o,
        Err(report) => panic!("{report}"),
    };
    assert_eq!(outcome.cycles, CYCLES);
    eprintln!("cpu: matched {} cycles", outcome.cycles);
    for (k, v) in &outcome.counters {
        eprintln!("  {k:<32} {v}");
    }
    let mut holes: Vec<&str> = REQUIRED.iter().copied().filter(|n| outcome.counter(n) == 0).collect();
    for e in 1..event::COUNT as u8 {
        if outcome.counter(event::name(e)) == 0 {
            holes.push(event::name(e));
        }
    }
    assert!(holes.is_empty(), "coverage holes: {holes:?}");
    // Cross coverage: every reachable event x role x family, none of those claimed unreachable.
    let cross = outcome.cross(cpu::event_cross::NAME).expect("the CPU event cross");
    eprint!("{}", cross.report(false));
    assert!(cross.excluded_hits().is_empty(), "{}", cross.report(false));
    // 89: INIT_RELAY (event 40, TLP only, needs a stored context) adds master and subservient; 91:
    // RETRY_RESULT (event 41, TLP only, a live descriptor) adds master and subservient; 93:
    // RESPONSE_RESULT (event 42, the same) adds master and subservient.
    assert_eq!(cross.bins() - cross.excluded_count(), 93, "reachable bins (exclusions changed?)");
    assert!(cross.holes().is_empty(), "{}", cross.report(false));
    assert!(outcome.counter("messages_in") > 50_000, "too little traffic");
    // The acknowledgements of non-posted INITIALIZATION / CONTROL and the RETRY requests (docs/blocks/cpu.md
    // §Messages) must be exercised more than incidentally.
    let minimums = [
        ("ack_init", 50),
        ("ack_control", 20),
        ("ack_control_after_copies", 100),
        (event::name(event::RETRY_RESEND), 30),
        ("retry_resend_clean", 10),
        ("retry_resend_error_marked", 10),
        (event::name(event::RETRY_NONE), 100),
        (event::name(event::WRONG_SENDER), 100),
        ("retry_none_live", 30),
        ("retry_none_stored", 30),
        (event::name(event::RETRY_RESULT), 30),
        ("retry_result_upstream", 10),
        ("retry_result_participant", 10),
        ("retry_result_gone", 10),
        // A subservient's resent RESPONSE after its result was lost (the kept result, or "already
        // completed" once the next round began), at either role.
        (event::name(event::RESPONSE_RESULT), 100),
        ("response_result_master", 30),
        ("response_result_subservient", 30),
        ("response_result_gone", 30),
    ];
    let low: Vec<_> = minimums.iter().filter(|(n, min)| outcome.counter(n) < *min).collect();
    assert!(low.is_empty(), "below their minimums: {low:?}");
}

/// The CPU at its largest tables (`cpu_full`: 4096 static entries, the default, and 16 tree slots, 128
/// descriptors), all in RAM (docs/blocks/cpu.md §Where the tables live): every output compared every
/// cycle, the scoreboard clean, 64 static entries spread over the whole table and more than 8 descriptors
/// in use.
#[test]
fn cpu_at_full_size_matches_rtl() {
    let p = cpu::params_of("cpu_full").unwrap();
    assert_eq!((p.static_entries, p.descriptors), (4096, 16));
    let cfg = RunConfig { seed: 0x5eed_0064, cycles: 300_000, wave_dir: wave_dir("cosim-out") };
    let outcome = cpu::run("cpu_full", &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, cfg.cycles);
    for (name, min) in [("messages_in", 10_000), (event::name(event::ACCEPT), 1_000), (event::name(event::COMPLETE), 100), ("max_live_descriptors", 9)] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

/// Issue 15 item 9 (002 (35), (61)) in the RTL: the `cpu` build's 8 tree slots (the default) hold eight
/// concurrent reductions of one tree, eight of a second and one of each of six more at once (22 live;
/// before session 18 its pool held 8 reductions in all), a ninth tree gets no descriptor, and every
/// reduction completes on its own. RTL and model stepped together, every output compared every cycle, the scoreboard watching.
#[test]
fn eight_concurrent_reductions_on_one_tree_are_held_by_the_rtl() {
    use inswitch::bench::Monitor;
    use inswitch_model::cpu::config::{self as ccfg, static_word0};
    use inswitch_model::message::{CollectiveMsg, Family, Kind, NO_PARTICIPANT};
    let p = cpu::params_of("cpu").unwrap();
    assert_eq!(p.descriptors, 8, "eight tree slots, the default");
    let mut rtl = CpuRtl::new("cpu").expect("the cpu model is built");
    let mut model = Cpu::new(p).unwrap();
    let mut sb = CpuMonitor::new(p);
    let mut cycle = 0u64;
    let events: std::cell::RefCell<Vec<(u8, u16)>> = Default::default();
    let outs: std::cell::RefCell<Vec<CollectiveMsg>> = Default::default();
    let mut step = |i: &CpuIn| -> CpuOut {
        let (a, b) = (rtl.step(i), model.step(i));
        assert_eq!(a, b, "RTL and model differ at cycle {cycle}");
        if let Err(e) = sb.observe(cycle, i, &a) {
            panic!("scoreboard at cycle {cycle}: {e}");
        }
        if a.stat_valid {
            events.borrow_mut().push((a.stat_event, a.stat_ctx));
        }
        if a.m_msg_valid && i.m_msg_ready {
            outs.borrow_mut().push(a.msg());
        }
        cycle += 1;
        a
    };
    let idle = CpuIn { m_msg_ready: true, ..CpuIn::default() };
    let cfg = |a: u16, v: u32| CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: v, ..idle };
    step(&CpuIn { rst: true, ..idle });
    while !step(&idle).s_msg_ready {}
    for t in 0x10..0x19u16 {
        let e = ccfg::static_index(t, p.static_entries) as u16;
        step(&cfg(ccfg::STATIC + 2 * e, static_word0(true, true, 0, t)));
        step(&cfg(ccfg::STATIC + 2 * e + 1, 1));
    }
    let mut send = |m: &CollectiveMsg| {
        let mut offer = idle;
        offer.set_msg(m);
        while !step(&offer).s_msg_ready {}
        for _ in 0..30 {
            step(&idle);
        }
    };
    fn portals(kind: Kind, tree: u16, red: u16, v: u64) -> CollectiveMsg {
        let mut m = CollectiveMsg::default();
        (m.kind, m.family, m.port, m.ctx, m.src, m.dst, m.pid) = (kind, Family::Portals, 3, red << 13 | tree, 0x100, 0x0080_0000 | u32::from(tree) << 3, NO_PARTICIPANT);
        (m.count, m.posted, m.vni, m.cookie, m.seqno, m.op) = (u32::from(kind == Kind::CONTRIBUTION), true, 7, 0xC00C_1E00, 1 + red, 0x14);
        m.data = [v; 4];
        m
    }
    let held: Vec<(u16, u16)> =
        (0x10..0x18u16).flat_map(|t| (0..if t < 0x12 { 8 } else { 1 }).map(move |r: u16| (t, r))).collect();
    assert_eq!(held.len(), 22);
    for &(t, r) in &held {
        send(&portals(Kind::ARM, t, r, 0));
    }
    send(&portals(Kind::ARM, 0x18, 0, 0));
    let got: Vec<u8> = events.borrow().iter().map(|e| e.0).collect();
    let mut want = vec![event::ARM; held.len()];
    want.push(event::ARM_NO_DESC);
    assert_eq!(got, want, "22 reductions held, the ninth tree finds no slot");
    events.borrow_mut().clear();
    for &(t, r) in &held {
        send(&portals(Kind::CONTRIBUTION, t, r, u64::from(t) * 100 + u64::from(r)));
    }
    let got: Vec<u8> = events.borrow().iter().map(|e| e.0).collect();
    assert_eq!(got, [event::ACCEPT, event::COMPLETE].repeat(held.len()));
    let results: Vec<(u16, u64)> = outs.borrow().iter().map(|o| (o.ctx, o.data[0])).collect();
    let want: Vec<(u16, u64)> = held.iter().map(|&(t, r)| (r << 13 | t, u64::from(t) * 100 + u64::from(r))).collect();
    assert_eq!(results, want, "each reduction's own result, in order");
}

/// A model with one bug on the wire: every Portals partial result leaves with `resno` one too high.
struct ResnoBug(Cpu);

impl Block for ResnoBug {
    type In = CpuIn;
    type Out = CpuOut;
    fn step(&mut self, i: &CpuIn) -> CpuOut {
        let mut o = self.0.step(i);
        if o.m_msg_valid && o.m_msg.family && o.m_msg.kind == 4 {
            o.m_msg.resno = (o.m_msg.resno + 1) & 0x3ff;
        }
        o
    }
}

#[test]
fn a_wrong_model_is_caught_with_a_report() {
    let p = cpu::params_of("cpu").unwrap();
    let make = |seed: u64| -> Result<_, HarnessError> {
        Ok(Bench::new(ResnoBug(Cpu::new(p).unwrap()), CpuRtl::new("cpu")?, CpuStimulus::new(p, seed), CpuMonitor::new(p)))
    };
    let dir = wave_dir("cpu-mutant");
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = RunConfig { seed: 3, cycles: 300_000, wave_dir: dir };
    let reproduce = |seed: u64, cycles: u64| format!("repro --seed {seed} --cycles {cycles}");
    let report = checker::run_target("cpu_mutant", &reproduce, &make, &cfg, &mut |_| {}).expect_err("the wrong model must be caught").into_failure().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{report}");
    let Failure::Mismatch(m) = &report.failure else { panic!("expected a mismatch, got {:?}", report.failure) };
    assert_eq!(m.port, "m_msg_resno");
    assert!(report.waveform.as_ref().is_some_and(|w| w.exists()), "{:?}", report.waveform_error);
}

/// A Rust model standing in for the RTL, so that "model" and "RTL" agree on a wrong behaviour and only
/// the scoreboard can object.
struct AsRtl<B>(B);

impl<B: Block> Block for AsRtl<B> {
    type In = B::In;
    type Out = B::Out;
    fn step(&mut self, i: &B::In) -> B::Out {
        self.0.step(i)
    }
}

impl<B: Block> checker::Rtl for AsRtl<B> {
    fn start_waveform(&mut self, _: &std::path::Path) -> Result<(), HarnessError> {
        Ok(())
    }
    fn stop_waveform(&mut self) {}
    fn port_width(&self, _: &str) -> Option<u32> {
        None
    }
}

/// Runs model and "RTL" both built by `dut`, checked by the real reference; returns the scoreboard's
/// complaint.
fn scoreboard_failure<B: Block<In = CpuIn, Out = CpuOut>>(dut: &dyn Fn() -> B) -> String {
    let p = cpu::params_of("cpu").unwrap();
    let make = |seed: u64| -> Result<_, HarnessError> { Ok(Bench::new(dut(), AsRtl(dut()), CpuStimulus::new(p, seed), CpuMonitor::new(p))) };
    let cfg = RunConfig { seed: 11, cycles: 400_000, wave_dir: wave_dir("cpu-scoreboard") };
    let reproduce = |seed: u64, cycles: u64| format!("repro --seed {seed} --cycles {cycles}");
    let report = checker::run_target("cpu_scoreboard", &reproduce, &make, &cfg, &mut |_| {}).expect_err("the scoreboard must object").into_failure().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{report}");
    match report.failure {
        Failure::Scoreboard { message, .. } => message,
        f => panic!("expected a scoreboard failure, got {f:?}"),
    }
}

/// Corrupts the outgoing data of every Portals partial result (a reduction-arithmetic bug).
struct DataBug(Cpu);

impl Block for DataBug {
    type In = CpuIn;
    type Out = CpuOut;
    fn step(&mut self, i: &CpuIn) -> CpuOut {
        let mut o = self.0.step(i);
        if o.m_msg_valid && o.m_msg.family && o.m_msg.kind == 4 && o.m_msg.count > 1 {
            o.m_msg.data.0[1] ^= 1 << 7;
        }
        o
    }
}

/// Loses the VNI of every contribution inside the DUT, so good contributions are dropped.
struct VniBug(Cpu);

impl Block for VniBug {
    type In = CpuIn;
    type Out = CpuOut;
    fn step(&mut self, i: &CpuIn) -> CpuOut {
        let mut j = *i;
        if j.s_msg.family && j.s_msg.kind == 4 {
            j.s_msg.vni ^= 0x8000;
        }
        self.0.step(&j)
    }
}

#[test]
fn the_scoreboard_rejects_a_wrong_result_that_model_and_rtl_agree_on() {
    let p = cpu::params_of("cpu").unwrap();
    let msg = scoreboard_failure(&|| DataBug(Cpu::new(p).unwrap()));
    assert!(msg.contains("the reference expects"), "{msg}");
}

#[test]
fn the_scoreboard_rejects_dropped_good_contributions() {
    let p = cpu::params_of("cpu").unwrap();
    let msg = scoreboard_failure(&|| VniBug(Cpu::new(p).unwrap()));
    // Caught as a dropped contribution, or as a passed-up frame that left with the corrupted VNI.
    assert!(msg.contains("DROP_VNI") || msg.contains("unexpected message") || msg.contains("the reference expects"), "{msg}");
}

#[test]
fn the_scoreboard_rejects_timers_that_run_slow_or_fast() {
    let p = cpu::params_of("cpu").unwrap();
    let slow = scoreboard_failure(&|| Cpu::new(CpuParams { tick_cycles: 4 * p.tick_cycles, ..p }).unwrap());
    // Caught by the exact check (docs/blocks/cpu.md §Timers: the CPU still ready after the expiry cycle) or by the
    // deadline.
    assert!(slow.contains("the expiry is late") || slow.contains("neither complete nor expired"), "{slow}");
    let fast = scoreboard_failure(&|| Cpu::new(CpuParams { tick_cycles: p.tick_cycles / 4, ..p }).unwrap());
    assert!(fast.contains("before its timeout allows"), "{fast}");
}

// Synthesis of the CPU (about 5 minutes with Yosys) is gated once, by `inswitch synth` in scripts/test,
// which fails the run on an error or a latch.

/// Directed lockstep of the RTL and the model on the same inputs, every output compared every cycle, the
/// reference scoreboard watching; the messages taken from m_msg recorded (the directed tests below write
/// the expected ones out).
mod directed {
    use inswitch::bench::Monitor;
    use inswitch::blocks::cpu::{self, CpuMonitor, CpuRtl};
    use inswitch_model::cpu::{Cpu, CpuIn, CpuOut};
    use inswitch_model::message::{CollectiveMsg, Family, Kind};
    use inswitch_model::Block;

    pub const ENGINE_ID: u16 = 0x0100;
    pub const SOURCE: u16 = 0x0777;
    pub const VALID: u32 = 1 << 31;
    pub const ROLE_MASTER: u32 = 1 << 20;
    /// PBV-table word: the entry is a switch (an engine below, 000 [0096]).
    pub const SWITCH: u32 = 1 << 16;
    pub const NO_PID: u16 = 0xffff;
    pub const INT_SUM: u8 = 0x14;

    pub struct Lockstep {
        rtl: CpuRtl,
        model: Cpu,
        sb: CpuMonitor,
        cycle: u64,
        pub outs: Vec<CollectiveMsg>,
    }

    impl Lockstep {
        /// The `cpu` instance out of reset, its engine ID written.
        pub fn new() -> Lockstep {
            let p = cpu::params_of("cpu").unwrap();
            let rtl = CpuRtl::new("cpu").expect("the cpu model is built");
            let mut l = Lockstep { rtl, model: Cpu::new(p).unwrap(), sb: CpuMonitor::new(p), cycle: 0, outs: Vec::new() };
            l.step(&CpuIn { rst: true, ..Self::idle() });
            while !l.step(&Self::idle()).s_msg_ready {}
            l.cfg(0x087, u32::from(ENGINE_ID));
            l
        }

        fn idle() -> CpuIn {
            CpuIn { m_msg_ready: true, ..CpuIn::default() }
        }

        fn step(&mut self, i: &CpuIn) -> CpuOut {
            let (a, b) = (self.rtl.step(i), self.model.step(i));
            assert_eq!(a, b, "RTL and model differ at cycle {}", self.cycle);
            if let Err(e) = self.sb.observe(self.cycle, i, &a) {
                panic!("scoreboard at cycle {}: {e}", self.cycle);
            }
            if a.m_msg_valid && i.m_msg_ready {
                self.outs.push(a.msg());
            }
            self.cycle += 1;
            a
        }

        /// A configuration write (register address `a`, docs/blocks/cpu.md §Configuration registers).
        pub fn cfg(&mut self, a: u16, v: u32) {
            self.step(&CpuIn { cfg_wr_en: true, cfg_wr_addr: a, cfg_wr_data: v, ..Self::idle() });
        }

        /// Offers `m` until taken, then 40 idle cycles (the decision and its messages).
        pub fn send(&mut self, m: &CollectiveMsg) {
            let mut offer = Self::idle();
            offer.set_msg(m);
            while !self.step(&offer).s_msg_ready {}
            for _ in 0..40 {
                self.step(&Self::idle());
            }
        }
    }

    /// A TLP message for context `cc` to the engine (posted, IntSum), operand `v`.
    pub fn msg(kind: Kind, cc: u16, src: u16, pid: u16, tid: u8, count: u32, v: u64) -> CollectiveMsg {
        let mut m = CollectiveMsg::default();
        (m.kind, m.family, m.ctx, m.dst, m.posted) = (kind, Family::Tlp, cc, u32::from(ENGINE_ID), true);
        (m.src, m.pid, m.tid, m.count, m.op) = (u32::from(src), pid, tid, count, INT_SUM);
        m.data[0] = v;
        m
    }
}

/// Issue 20 item 2 (000 [0098], [0117]: retries are per packet, not a restart of the collective): the
/// result of a round a TLP master completed is kept, and a RETRY for that round (its TID, one behind the
/// context's) from the source (`upstream`) or from a participant naming itself by P_ID gets it again,
/// to the requester alone: COMPLETION code 3 with the same sum and count, `retry` set. A RETRY after
/// the next round's first contribution gets FAILURE NothingToResend (never the newer round's result).
/// The RTL and the model are stepped together on the same inputs, every output compared every cycle, the
/// reference scoreboard watching; the expected messages are written out here (docs/blocks/cpu.md §Messages
/// "Kept result"). Before the kept result, both RETRYs got FAILURE NothingToResend.
#[test]
fn a_retry_for_a_completed_round_gets_the_kept_result_from_the_rtl() {
    use directed::*;
    use inswitch_model::message::{CollectiveMsg, Kind};
    const CC_ID: u16 = 5;
    let mut l = Lockstep::new();
    l.cfg(0x000, VALID | 0x0010);
    l.cfg(0x001, VALID | 0x0011);
    l.cfg(0x100 + 2 * CC_ID, VALID | ROLE_MASTER | u32::from(CC_ID));
    l.cfg(0x101 + 2 * CC_ID, 0);
    let mut init = msg(Kind::INITIALIZATION, CC_ID, SOURCE, NO_PID, 0, 2, 100);
    init.pbv = 0b11;
    let contribution = |dev: u16, pid: u16, tid: u8, v: u64| msg(Kind::CONTRIBUTION, CC_ID, dev, pid, tid, 1, v);
    let retry = |src: u16, pid: u16, tid: u8| msg(Kind::RETRY, CC_ID, src, pid, tid, 0, 0);
    l.send(&init);
    l.send(&contribution(0x0010, 0, 0, 20));
    l.send(&contribution(0x0011, 1, 0, 3));
    let round = l.outs.len();
    assert_eq!(round, 3, "two copies and the source's result: {:?}", l.outs);
    l.send(&retry(SOURCE, NO_PID, 0));
    l.send(&retry(0x0011, 1, 0));
    l.send(&contribution(0x0010, 0, 1, 7));
    l.send(&retry(SOURCE, NO_PID, 0));
    let outs = &l.outs;
    let got: Vec<(Kind, u8, u32, u16, u8, u32, u64, bool)> =
        outs[round..].iter().map(|m| (m.kind, m.code, m.dst, m.pid, m.tid, m.count, m.data[0], m.retry)).collect();
    assert_eq!(
        got,
        [
            (Kind::COMPLETION, 3, u32::from(SOURCE), NO_PID, 0, 2, 123, true),
            (Kind::COMPLETION, 3, 0x0011, 1, 0, 2, 123, true),
            (Kind::FAILURE, 7, u32::from(SOURCE), NO_PID, 0, 0, u64::from(SOURCE), false),
        ],
        "the kept result (100 + 20 + 3) to each requester alone, then nothing once the next round began"
    );
    assert_eq!(outs[2], CollectiveMsg { retry: false, ..outs[round] }, "the same COMPLETION the source got");
}

/// Issue 20: the master's COMPLETION to a subservient (a switch participant) is lost; the subservient,
/// still Full, resends its RESPONSE for that round (TID one behind the master's). While the result is
/// kept the master answers it with the kept result (COMPLETION code 3, the sum and count, `retry` set, to
/// that requester alone; event RESPONSE_RESULT), not "already completed" (code 4, no value); an end
/// device's CONTRIBUTION one behind still gets code 4, and so does the RESPONSE once the next round has a
/// contribution. A subservient (context 6) in Full answers its participant's retried contribution
/// DuplicateContribution (not a pass-up), and takes a COMPLETION marked `retry` with its TID as its
/// round's result and sends it down. RTL, model and scoreboard in lockstep; before this rule the first answer
/// was code 4 (docs/blocks/cpu.md §Messages "Kept result").
#[test]
fn a_subservients_resent_response_gets_the_kept_result_from_the_rtl() {
    use directed::*;
    use inswitch_model::message::{CollectiveMsg, Kind};
    const MASTER: u16 = 5;
    const SUB: u16 = 6;
    let mut l = Lockstep::new();
    l.cfg(0x000, VALID | 0x0010);
    l.cfg(0x001, VALID | SWITCH | 0x0201);
    l.cfg(0x100 + 2 * MASTER, VALID | ROLE_MASTER | u32::from(MASTER));
    l.cfg(0x101 + 2 * MASTER, 0);
    l.cfg(0x100 + 2 * SUB, VALID | u32::from(SUB));
    l.cfg(0x101 + 2 * SUB, 0);
    let mut init = msg(Kind::INITIALIZATION, MASTER, SOURCE, NO_PID, 0, 2, 100);
    init.pbv = 0b11;
    l.send(&init);
    l.send(&msg(Kind::CONTRIBUTION, MASTER, 0x0010, 0, 0, 1, 20));
    let response = msg(Kind::RESPONSE, MASTER, 0x0201, NO_PID, 0, 3, 5);
    l.send(&response);
    let round = l.outs.len();
    assert_eq!(round, 3, "two copies and the source's result: {:?}", l.outs);
    let lost = l.outs[1];
    assert_eq!((lost.dst, lost.pid, lost.code, lost.count, lost.data[0]), (0x0201, 1, 3, 4, 125));
    l.send(&CollectiveMsg { retry: true, ..response });
    l.send(&msg(Kind::CONTRIBUTION, MASTER, 0x0010, 0, 0, 1, 20));
    l.send(&msg(Kind::CONTRIBUTION, MASTER, 0x0010, 0, 1, 1, 7));
    l.send(&response);
    let got: Vec<(Kind, u8, u32, u16, u8, u32, u64, bool)> =
        l.outs[round..].iter().map(|m| (m.kind, m.code, m.dst, m.pid, m.tid, m.count, m.data[0], m.retry)).collect();
    assert_eq!(
        got,
        [
            (Kind::COMPLETION, 3, 0x0201, NO_PID, 0, 4, 125, true),
            (Kind::COMPLETION, 4, 0x0010, 0, 0, 0, 0, false),
            (Kind::COMPLETION, 4, 0x0201, NO_PID, 0, 0, 0, false),
        ],
        "the kept result (100 + 20 + 5) to the subservient alone; code 4 to an end device, and after the next round began"
    );
    assert_eq!(l.outs[round], CollectiveMsg { pid: NO_PID, retry: true, ..lost }, "the copy it lost, as a reply");
    // The subservient's side: Full after its RESPONSE, it takes the retransmitted COMPLETION.
    let mut init = msg(Kind::INITIALIZATION, SUB, SOURCE, NO_PID, 0, 1, 0);
    init.pbv = 0b01;
    l.send(&init);
    l.send(&msg(Kind::CONTRIBUTION, SUB, 0x0010, 0, 0, 1, 9));
    // In Full, its participant's retried contribution (already counted) gets DuplicateContribution,
    // not a pass-up the master would answer "already completed" (FAILURE reason 2, the requester's ID in
    // data lane 0).
    l.send(&msg(Kind::CONTRIBUTION, SUB, 0x0010, 0, 0, 1, 9));
    let up = l.outs.len();
    assert_eq!((l.outs[up - 2].kind, l.outs[up - 2].dst), (Kind::RESPONSE, u32::from(SOURCE)));
    assert_eq!((l.outs[up - 1].kind, l.outs[up - 1].code, l.outs[up - 1].dst), (Kind::FAILURE, 2, 0x0010));
    let mut result = msg(Kind::COMPLETION, SUB, SOURCE, NO_PID, 0, 4, 125);
    (result.code, result.retry) = (3, true);
    l.send(&result);
    let down: Vec<(Kind, u8, u32, u16, u8, u32, u64)> = l.outs[up..].iter().map(|m| (m.kind, m.code, m.dst, m.pid, m.tid, m.count, m.data[0])).collect();
    assert_eq!(down, [(Kind::COMPLETION, 3, 0x0010, 0, 0, 4, 125)], "the result down to its participant");
}
