//! `PacketEngine::advance_idle` against stepping: after seeded random traffic (the top cosim's stimulus)
//! and an idle input held until the engine is quiescent, an engine advanced by `n` cycles in closed form
//! equals (`PartialEq` on the whole state) one stepped `n` idle cycles, showed the same outputs on each
//! of those cycles, and gives the same outputs on every cycle of further random traffic. `n` is drawn up
//! to several CPU timer ticks and clipped to the first timer expiry, so running timers, ticks and
//! expiries are crossed in closed form; the refusals (reset, not quiescent, past an expiry) leave the
//! engine untouched. After a reset, the interposer's clearing sweep is advanced in closed form too: `n`
//! within the sweep and across its end, with and without a receive beat offered (held by the sweep),
//! and traffic right after.

use inswitch::blocks::packet_engine::{params_of, PacketEngineStimulus, Shared};
use inswitch::checker::Stimulus;
use inswitch::stimulus::rng;
use inswitch_model::interposer::MCAST_ENTRIES_SEED;
use inswitch_model::packet_engine::{AdvanceError, EngineIn, EngineOut, EngineParams, PacketEngine};
use inswitch_model::{Block, Wide};
use rand::RngExt;

/// Seeds (runs) of the test.
const SEEDS: u64 = 48;
/// Bound on the idle cycles it may take a busy engine to become quiescent.
const QUIESCE_BOUND: u64 = 200_000;
/// Most idle cycles one comparison steps.
const MAX_STEPPED: u64 = 100_000;
/// Random traffic after the advance, compared cycle by cycle.
const AFTER: u64 = 20_000;

/// The stimulus's last input held with nothing offered: no receive beat, no configuration write, no
/// credit returned, every sink ready.
fn idle_from(last: &EngineIn) -> EngineIn {
    EngineIn {
        rst: false,
        s_axis_rx_tvalid: false,
        cpu_cfg_wr_en: false,
        vl_credit_return: 0,
        m_axis_vl_tready: true,
        m_axis_egress_tready: true,
        m_reg_rsp_ready: true,
        ..*last
    }
}

/// An engine after random traffic from the top cosim's stimulus.
struct Warm {
    e: PacketEngine,
    stim: PacketEngineStimulus,
    /// The outputs of the last cycle.
    prev: EngineOut,
    /// The input of the last cycle.
    last: EngineIn,
    /// Cycles stepped.
    cycle: u64,
}

/// At least `warm` cycles of random traffic, ending on a cycle with no receive beat and no reset (so the
/// stimulus's view of the port stays true across the idle stretch that follows).
fn warm_up(p: EngineParams, seed: u64, warm: u64) -> Warm {
    let mut w = Warm {
        e: PacketEngine::power_on(p).unwrap(),
        stim: PacketEngineStimulus::new(p, seed, Shared::default()),
        prev: EngineOut::default(),
        last: EngineIn::default(),
        cycle: 0,
    };
    while w.cycle < warm || w.last.s_axis_rx_tvalid || w.last.rst {
        w.last = w.stim.next(&w.prev);
        w.prev = w.e.step(&w.last);
        w.cycle += 1;
    }
    w
}

/// Coverage of the runs, asserted at the end.
#[derive(Default, Debug)]
struct Seen {
    not_quiescent: u64,
    timers_running: u64,
    ticks_crossed: u64,
    expiries_reached: u64,
}

fn one_run(seed: u64, seen: &mut Seen) {
    let p = params_of("packet_engine").unwrap();
    let mut r = rng(seed, 7);
    let Warm { mut e, mut stim, mut prev, last, mut cycle } = warm_up(p, seed, r.random_range(2_000..40_000u64));
    let idle = idle_from(&last);
    // Refusals leave the engine as it was.
    let before = e.clone();
    assert_eq!(e.advance_idle(5, &EngineIn { rst: true, ..idle }), Err(AdvanceError::Reset));
    assert_eq!(e, before, "seed {seed}: a refused advance changed the engine");
    let mut held = 0u64;
    while let Err(x) = e.clone().advance_idle(0, &idle) {
        assert_eq!(x, AdvanceError::NotQuiescent, "seed {seed}, cycle {cycle}");
        if held == 0 {
            seen.not_quiescent += 1;
            let before = e.clone();
            assert_eq!(e.advance_idle(0, &idle), Err(AdvanceError::NotQuiescent));
            assert_eq!(e, before, "seed {seed}: a refused advance changed the engine");
        }
        prev = e.step(&idle);
        held += 1;
        cycle += 1;
        assert!(held < QUIESCE_BOUND, "seed {seed}: not quiescent after {held} idle cycles (cycle {cycle})");
    }
    let tick = u64::from(p.tick_cycles);
    let limit = e.cpu().cycles_to_expiry();
    if let Some(l) = limit {
        seen.timers_running += 1;
        let before = e.clone();
        assert_eq!(e.advance_idle(l + 1, &idle), Err(AdvanceError::PastExpiry { n: l + 1, limit: l }));
        assert_eq!(e, before, "seed {seed}: a refused advance changed the engine");
    }
    // A drawn n, and the edges of the closed form: the cycles just before and at the next tick and the
    // first expiry.
    let to_tick = tick - e.cpu().tick_phase();
    let drawn = r.random_range(0..8 * tick * 200);
    let mut ns = vec![limit.map_or(drawn, |l| drawn.min(l)), to_tick - 1, to_tick, to_tick + tick];
    if let Some(l) = limit.filter(|&l| l <= MAX_STEPPED) {
        ns.extend([l - 1, l]);
        seen.expiries_reached += 1;
    }
    // Stepping is the slow side: a random register write can set a timeout of millions of cycles.
    ns.retain(|&n| limit.is_none_or(|l| n <= l) && n <= MAX_STEPPED);
    if ns.iter().any(|&n| n >= to_tick) {
        seen.ticks_crossed += 1;
    }
    let mut advanced = Vec::new();
    for &n in &ns {
        let mut a = e.clone();
        let shown = a.advance_idle(n, &idle).unwrap_or_else(|x| panic!("seed {seed}: advance_idle({n}): {x}"));
        let mut b = e.clone();
        for k in 0..n {
            let o = b.step(&idle);
            assert_eq!(o, shown, "seed {seed}: idle cycle {k} of {n} shows other outputs than advance_idle returned");
        }
        assert!(a == b, "seed {seed}: advanced by {n} != stepped {n} cycles\nadvanced: {a:?}\nstepped: {b:?}");
        advanced.push((a, b, shown));
    }
    // Further traffic after the drawn advance.
    // ns[0] is never dropped: drawn is clipped to the limit and below MAX_STEPPED.
    let (mut a, mut b, shown) = advanced.swap_remove(0);
    let n = ns[0];
    if n > 0 {
        prev = shown;
    }
    for k in 0..AFTER {
        let i = stim.next(&prev);
        let oa = a.step(&i);
        let ob = b.step(&i);
        assert_eq!(oa, ob, "seed {seed}: cycle {k} after advancing {n} idle cycles");
        prev = oa;
    }
    assert!(a == b, "seed {seed}: states differ after {AFTER} cycles of traffic");
}

#[test]
fn advance_idle_equals_stepping_idle_cycles() {
    let mut seen = Seen::default();
    for seed in 0..SEEDS {
        one_run(seed, &mut seen);
    }
    // The runs crossed what the closed form has to get right.
    assert!(seen.not_quiescent >= SEEDS / 2, "{seen:?}");
    assert!(seen.timers_running >= 4, "{seen:?}");
    assert!(seen.ticks_crossed >= SEEDS / 2, "{seen:?}");
    assert!(seen.expiries_reached >= 2, "{seen:?}");
}

/// Seeds of the sweep test.
const SWEEP_SEEDS: u64 = 8;
/// Reset cycles the sweep test applies (the fabric's `RESET_CYCLES`).
const RESET_CYCLES: u64 = 3;

/// A one-beat TLP memory write to another device (TLP byte 2 = Fmt 010 Type 00000, destination 0x12xx):
/// a beat the interposer passes, offered while the sweep holds receive.
fn beat_for_someone_else(idle: &EngineIn) -> EngineIn {
    let mut d = Wide::ZERO;
    d.set_byte(2, 0x40);
    d.set_byte(12, 0x12);
    EngineIn { s_axis_rx_tdata: d, s_axis_rx_tkeep: 0xFF_FFFF, s_axis_rx_tvalid: true, s_axis_rx_tlast: true, cfg_family: false, ..*idle }
}

/// `n` cycles of `held` stepped against `advance_idle(n, held)`: equal states, and every stepped cycle
/// shows the returned outputs but for `s_axis_rx_tready`, low exactly in the sweep's cycles. Returns both.
fn compare(e: &PacketEngine, n: u64, held: &EngineIn, seed: u64) -> (PacketEngine, PacketEngine, EngineOut) {
    let sweep = e.clear_remaining();
    let mut a = e.clone();
    let shown = a.advance_idle(n, held).unwrap_or_else(|x| panic!("seed {seed}: advance_idle({n}) in a sweep of {sweep}: {x}"));
    let mut b = e.clone();
    for k in 0..n {
        let o = b.step(held);
        assert_eq!(o.s_axis_rx_tready, k >= sweep, "seed {seed}: cycle {k} of {n}, sweep {sweep}");
        assert_eq!(o, EngineOut { s_axis_rx_tready: o.s_axis_rx_tready, ..shown }, "seed {seed}: cycle {k} of {n}, sweep {sweep}");
    }
    assert!(a == b, "seed {seed}: advanced by {n} != stepped {n} cycles in a sweep of {sweep}\nadvanced: {a:?}\nstepped: {b:?}");
    (a, b, shown)
}

/// After random traffic and a reset, once the post-reset copy is over the engine is quiescent in its
/// clearing sweep: advancing `n` idle cycles (drawn, and the edges of the sweep's end) equals stepping
/// them; with a receive beat offered (the sweep holds it) up to the sweep's end as well, and past it is
/// refused (the beat would be taken); then the beat, and random traffic, give the same outputs on every
/// cycle and the same state.
#[test]
fn advance_idle_crosses_the_clearing_sweep() {
    let cosim = params_of("packet_engine").unwrap();
    // The cosim's table (a sweep of a few cycles left once the engine is quiescent) and the seed's (8192
    // entries, the fabric's default: thousands).
    for p in [cosim, EngineParams { mcast_entries: MCAST_ENTRIES_SEED, ..cosim }] {
        sweep_runs(p);
    }
}

fn sweep_runs(p: EngineParams) {
    let mut taken_after = 0u64;
    for seed in 0..SWEEP_SEEDS {
        let mut r = rng(seed, 11);
        let Warm { mut e, mut stim, last, .. } = warm_up(p, seed, r.random_range(2_000..20_000u64));
        let idle = idle_from(&last);
        for _ in 0..RESET_CYCLES {
            e.step(&EngineIn { rst: true, ..idle });
        }
        let mut held = 0u64;
        while e.clone().advance_idle(0, &idle).is_err() {
            e.step(&idle);
            held += 1;
            assert!(held < QUIESCE_BOUND, "seed {seed}: not quiescent after the reset in {held} cycles");
        }
        let sweep = e.clear_remaining();
        assert!(sweep > 1, "seed {seed}: quiescent only {held} cycles after the reset, with {sweep} sweep cycles left");
        assert_eq!(e.cpu().cycles_to_expiry(), None, "no timer runs after a reset");
        // Idle: within the sweep, to its last cycle, across its end, and well past it.
        let drawn = r.random_range(1..2 * sweep);
        let ns = [drawn, 1, sweep / 2, sweep - 1, sweep, sweep + 1, sweep + 2 * u64::from(p.tick_cycles) + 1];
        let mut ends = Vec::new();
        for &n in &ns {
            ends.push(compare(&e, n, &idle, seed));
        }
        // A beat offered through the sweep: held, so quiescent to the sweep's end; past it, refused.
        let beat = beat_for_someone_else(&idle);
        let (mut a, mut b, _) = compare(&e, sweep, &beat, seed);
        let before = e.clone();
        assert_eq!(e.advance_idle(sweep + 1, &beat), Err(AdvanceError::NotQuiescent), "seed {seed}: the beat is taken after the sweep");
        assert_eq!(e, before, "seed {seed}: a refused advance changed the engine");
        let oa = a.step(&beat);
        assert_eq!(oa, b.step(&beat));
        assert!(oa.s_axis_rx_tready, "seed {seed}: the beat is taken in the first cycle after the sweep");
        // Random traffic right after the sweep (the beat's engine), and right after the idle advance
        // across the sweep's end.
        let (mut c, mut d, shown) = ends.swap_remove(5);
        for (x, y, mut prev) in [(&mut a, &mut b, oa), (&mut c, &mut d, shown)] {
            for k in 0..AFTER {
                let i = stim.next(&prev);
                let ox = x.step(&i);
                assert_eq!(ox, y.step(&i), "seed {seed}: cycle {k} of traffic after the sweep");
                taken_after += u64::from(i.s_axis_rx_tvalid && ox.s_axis_rx_tready && !i.rst);
                prev = ox;
            }
            assert!(*x == *y, "seed {seed}: states differ after {AFTER} cycles of traffic after the sweep");
        }
    }
    assert!(taken_after > 0, "the traffic after the sweep reached the engine ({} entries)", p.mcast_entries);
}
