//! The cycle engines in the fabric: idle-cycle skipping is exact, and the table-arithmetic stand-in
//! used for the serialization-only Table 1 sends the same frames as the engines.

use std::collections::BTreeMap;

use inswitch_fabric::scenario::{run_collective, table1_spec, value_of, Mode};
use inswitch_fabric::setup::{self, Arrangement, Plan};
use inswitch_fabric::sim::{Fabric, SimConfig};
use inswitch_fabric::topology::{LinkSpec, Topology};
use inswitch_fabric::wire;
use inswitch_model::packet_engine::EngineParams;

/// Everything observable of a run: every frame (sender, bytes), every channel occupancy (start time,
/// channel, frame) and every delivery.
type Observed = (Vec<(u16, Vec<u8>)>, Vec<(u64, usize, u32)>, Vec<String>);

fn observe(f: &Fabric) -> Observed {
    (
        f.frames.iter().map(|x| (x.origin, x.bytes.clone())).collect(),
        f.captured.iter().map(|c| (c.start, c.channel, c.frame)).collect(),
        f.log.iter().map(|d| format!("{d:?}")).collect(),
    )
}

#[test]
fn skip_is_exact_on_an_all_reduce() {
    let run = |skip: bool| {
        let mut spec = table1_spec(4, 8, Arrangement::Distributed, Mode::Realistic, 100_000);
        spec.skip_idle = skip;
        spec.capture = true;
        let (r, f) = run_collective(&spec, &mut |_| {});
        assert_eq!(r.result_value, r.expected_value);
        (r.engine_steps, r.engine_cycles_skipped, observe(&f.unwrap()))
    };
    let (steps_skip, skipped, a) = run(true);
    let (steps_all, none, b) = run(false);
    assert_eq!(none, 0);
    assert!(skipped > 0 && steps_skip < steps_all, "skipping saved nothing: {steps_skip} vs {steps_all}");
    assert_eq!(a.0, b.0, "the same frames");
    assert_eq!(a.1, b.1, "at the same times on the same links");
    assert_eq!(a.2, b.2, "the same deliveries");
}

/// Short timers (16-cycle ticks, 20-tick timeouts) and one silent participant: the subservient engine
/// times out and sends its partial result marked as an error, the master times out later. The timers
/// run while engines are skipped around them; skipping must not move any expiry.
#[test]
fn skip_is_exact_when_timers_expire() {
    let run_in = |skip: bool, engine_major: bool| {
        let t = Topology::flattened_butterfly(3, 4, LinkSpec::default()).unwrap();
        let cfg = SimConfig { skip_idle: skip, capture: true, hop_latency_ps: 50_000, engine_params: EngineParams { tick_cycles: 16, ..EngineParams::default() }, engine_major, ..SimConfig::default() };
        let mut f = Fabric::new(t.clone(), cfg).unwrap();
        f.cpu_log = Some(Vec::new());
        let ctx = setup::plan(&t, Arrangement::Distributed, 5, 0x14, 0, 0);
        inswitch_fabric::drive::configure(&mut f, &Plan { contexts: vec![ctx.clone()] }, 0, &value_of).unwrap();
        // 20-tick timeouts: RED_TIMEOUT[0..3], forwarded to the CPU (docs/blocks/register_space.md §CPU window).
        for s in 0..3 {
            for k in 0..4u16 {
                f.write_register(0, 0, s, inswitch_model::register_space::offset::RED_TIMEOUT as u16 + 4 * k, 20);
            }
        }
        f.run_until_quiet(u64::MAX / 4, &mut |_| {});
        f.start(&ctx, f.now() + 2_000);
        f.run_until_quiet(u64::MAX / 4, &mut |_| {});
        // A long idle gap (engines asleep when skipping), then everyone but end node 5 answers.
        let at = f.now() + 3_000_000;
        for e in (0..t.endpoints.len()).filter(|&e| e != 5) {
            f.respond(e, 5, at);
        }
        f.run_until_quiet(u64::MAX / 4, &mut |_| {});
        // The completions come only after the subservient's timeout (20 ticks of 16 cycles, 640 ns).
        let first_completion = f.log.iter().filter(|d| d.kind == 6).map(|d| d.at).min().expect("a completion");
        assert!(first_completion > at + 20 * 16 * 2_000, "{first_completion} vs {at}");
        let errors = f.log.iter().filter(|d| d.kind == 6).count();
        (f.stats.engine_steps, f.stats.engine_cycles_skipped, errors, observe(&f), format!("{:?} {:?} {}", f.stats, f.cpu_log, f.now()), f.window_frames)
    };
    // Engine-major windows (`sim::window`) change nothing: every counter, CPU event and time, with
    // engines taking frames queued for their port inside windows (the case of the windows' own frames).
    let (_, _, _, major, all_major, taken) = run_in(true, true);
    let (_, _, _, cycle_major, all_cycle_major, none) = run_in(true, false);
    assert!(taken > 0 && none == 0, "frames taken inside windows: {taken} engine-major, {none} cycle-major");
    assert_eq!(major, cycle_major, "engine-major vs cycle-major: frames, channel times, deliveries");
    assert_eq!(all_major, all_cycle_major, "engine-major vs cycle-major: counters, CPU events, now");
    let run = |skip: bool| {
        let (s, k, c, o, _, _) = run_in(skip, true);
        (s, k, c, o)
    };
    let (s1, skipped, completions, a) = run(true);
    let (s2, _, _, b) = run(false);
    println!("steps with skipping {s1} (skipped {skipped}), without {s2}");
    assert!(completions > 0, "the master's timeout completes the collective");
    assert!(skipped > 0 && s1 < s2, "{s1} vs {s2}");
    assert_eq!(a.0, b.0);
    assert_eq!(a.1, b.1);
    assert_eq!(a.2, b.2);
}

/// Timers running while engines sleep: 16-cycle ticks and 400-tick timeouts (6400 cycles), and one
/// contribution dropped on its link, so the subservient engine waiting for it sleeps on its running
/// timer, wakes in the cycle of the expiry, sends its partial result marked as an error, and the
/// master does the same later. Skipping must not move any expiry: the same frames at the same times
/// on the same links, the same deliveries, the same `now` after every run, and the same CPU timers
/// when a run stops at a limit in the middle of a sleep.
#[test]
fn skip_is_exact_when_engines_sleep_on_running_timers() {
    use inswitch_fabric::faults::{FaultConfig, FaultInjector, FaultKind, Rule};
    const TICK_CYCLES: u32 = 16;
    const TIMEOUT_TICKS: u32 = 400;
    const CC: u16 = 5;
    const SILENT: usize = 5;
    let run_in = |skip: bool, engine_major: bool| {
        let t = Topology::flattened_butterfly(3, 4, LinkSpec::default()).unwrap();
        let params = EngineParams { tick_cycles: TICK_CYCLES, ..EngineParams::default() };
        let cfg = SimConfig { skip_idle: skip, capture: true, hop_latency_ps: 50_000, engine_params: params, engine_major, ..SimConfig::default() };
        let mut f = Fabric::new(t.clone(), cfg).unwrap();
        f.cpu_log = Some(Vec::new());
        let ctx = setup::plan(&t, Arrangement::Distributed, CC, 0x14, 0, 0);
        inswitch_fabric::drive::configure(&mut f, &Plan { contexts: vec![ctx.clone()] }, 0, &value_of).unwrap();
        for s in 0..t.switches.len() {
            for k in 0..4u16 {
                f.write_register(0, 0, s, inswitch_model::register_space::offset::RED_TIMEOUT as u16 + 4 * k, TIMEOUT_TICKS);
            }
        }
        let mut nows = Vec::new();
        f.run_until_quiet(u64::MAX / 4, &mut |_| {});
        nows.push(f.now());
        f.start(&ctx, f.now() + 2_000);
        f.run_until_quiet(u64::MAX / 4, &mut |_| {});
        nows.push(f.now());
        // End node SILENT's contribution is lost on its way up.
        let mut inj = FaultInjector::new(0, FaultConfig::default());
        let from = Some(t.endpoints[SILENT].id);
        inj.rules.push(Rule { action: FaultKind::Drop, kind: Some(4), cc_id: Some(CC), to: None, from, count: 1 });
        f.inject(inj);
        let at = f.now() + 1_000_000;
        for e in 0..t.endpoints.len() {
            f.respond(e, CC, at);
        }
        // Stop halfway through the timeout: every engine's CPU timers as if stepped to here.
        let timeout_ps = u64::from(TICK_CYCLES * TIMEOUT_TICKS) * inswitch_fabric::sim::ENGINE_CLOCK_PS;
        f.run_until_quiet(at + timeout_ps / 2, &mut |_| {});
        nows.push(f.now());
        let timers: Vec<(u32, bool)> = (0..t.switches.len())
            .flat_map(|s| {
                let cpu = f.engine(s).unwrap().cpu();
                (0..cpu.descriptor_count()).map(|i| (cpu.descriptor(i).timer, cpu.descriptor(i).expired)).collect::<Vec<_>>()
            })
            .collect();
        f.run_until_quiet(u64::MAX / 4, &mut |_| {});
        nows.push(f.now());
        let dropped = f.faults.as_ref().unwrap().counts().dropped;
        // The subservient's partial result (a RESPONSE with the error mark) after its timeout.
        let partial = f.log.iter().filter(|d| d.kind == 5 && d.error).map(|d| d.at).min().expect("a partial result");
        assert!(partial > at + timeout_ps, "{partial} vs {at}");
        let completions: Vec<u16> = f.log.iter().filter(|d| d.kind == 6).map(|d| d.contributions).collect();
        let cpu_log = f.cpu_log.clone();
        (f.stats.clone(), dropped, completions, timers, nows, observe(&f), cpu_log)
    };
    // Engine-major windows (`sim::window`) change nothing, a stop at a limit included: every counter,
    // CPU event, CPU timer at the limit and time.
    let major = run_in(true, true);
    let cycle_major = run_in(true, false);
    assert_eq!(format!("{:?}", major.0), format!("{:?}", cycle_major.0), "engine-major vs cycle-major: counters");
    assert_eq!((&major.3, &major.4, &major.5, &major.6), (&cycle_major.3, &cycle_major.4, &cycle_major.5, &cycle_major.6), "engine-major vs cycle-major");
    let run = |skip: bool| {
        let (st, dropped, completions, timers, nows, o, _) = run_in(skip, true);
        (st, dropped, completions, timers, nows, o)
    };
    let (st1, dropped, completions, timers1, nows1, a) = run(true);
    let (st2, _, _, timers2, nows2, b) = run(false);
    println!(
        "steps with skipping {} (skipped {}, timer wake-ups {}, sweep wake-ups {}), without {}",
        st1.engine_steps, st1.engine_cycles_skipped, st1.timer_wakes, st1.sweep_wakes, st2.engine_steps
    );
    assert_eq!(dropped, 1, "the contribution was dropped");
    assert!(st1.timer_wakes > 0, "no engine slept on a running timer");
    assert_eq!(st2.timer_wakes, 0);
    // Every engine slept through its interposer's clearing sweep after the reset (the configuration's
    // register writes waiting at its port): with skipping, all of them together took fewer steps than
    // one sweep of each.
    let engines = 3;
    assert_eq!((st1.sweep_wakes, st2.sweep_wakes), (engines, 0));
    let sweep = EngineParams::default().mcast_entries as u64;
    assert!(st1.engine_steps < engines * sweep, "{} steps: the sweeps were stepped", st1.engine_steps);
    assert!(st1.engine_steps + u64::from(TICK_CYCLES * TIMEOUT_TICKS) < st2.engine_steps, "{} vs {}", st1.engine_steps, st2.engine_steps);
    let participants = (3 * 4 - 1) as u16;
    assert!(!completions.is_empty() && completions.iter().all(|&n| n == participants - 1), "results without the lost one: {completions:?}");
    assert!(timers1.iter().any(|&(t, _)| t > 0), "a timer runs at the limit");
    assert_eq!(timers1, timers2, "the same CPU timers at the limit");
    assert_eq!(nows1, nows2, "the same time after every run");
    assert_eq!(st1.events, st2.events);
    assert_eq!(a.0, b.0, "the same frames");
    assert_eq!(a.1, b.1, "at the same times on the same links");
    assert_eq!(a.2, b.2, "the same deliveries");
}

/// The stand-in (zero-time fan-out, serialization only) must send what the engines send: the same
/// collective frames between the same devices, the same number on every ISL.
#[test]
fn the_table_arithmetic_stand_in_sends_what_the_engines_send() {
    let frames_of = |mode: Mode| {
        let mut spec = table1_spec(4, 8, Arrangement::Distributed, mode, 0);
        spec.capture = true;
        let (_, f) = run_collective(&spec, &mut |_| {});
        let f = f.unwrap();
        let mut m: BTreeMap<(u16, u16, u8), u32> = BTreeMap::new();
        let mut per_isl: BTreeMap<usize, u32> = BTreeMap::new();
        for c in &f.captured {
            let fr = &f.frames[c.frame as usize];
            let Some(msg) = wire::collective_of(&fr.bytes) else { continue };
            if msg.header.kind < 3 {
                continue; // configuration: the stand-in is configured from the plan
            }
            if let inswitch_fabric::sim::ChannelKind::Isl(i) = f.channel(c.channel).kind {
                *per_isl.entry(i).or_default() += 1;
            }
        }
        for fr in &f.frames {
            if let Some(msg) = wire::collective_of(&fr.bytes) {
                if msg.header.kind >= 3 {
                    *m.entry((fr.origin, fr.dst, msg.header.kind)).or_default() += 1;
                }
            }
        }
        (m, per_isl)
    };
    let (engines, isl_e) = frames_of(Mode::Realistic);
    let (stand_in, isl_s) = frames_of(Mode::Serialization);
    assert_eq!(engines, stand_in);
    assert_eq!(isl_e, isl_s);
}

/// `--pcap`: every frame on the master's ISLs, readable back as TLPs in time order.
#[test]
fn pcap_of_the_master_isls_holds_every_frame_they_carried() {
    use inswitch_fabric::report::{write_links_pcap, LinkFilter};
    let mut spec = table1_spec(4, 8, Arrangement::Distributed, Mode::Realistic, 100_000);
    spec.capture = true;
    let f = run_collective(&spec, &mut |_| {}).1.unwrap();
    let carried: u64 = f
        .channels()
        .filter(|c| matches!(c.kind, inswitch_fabric::sim::ChannelKind::Isl(i) if f.routes.directed(i).0 == 0 || f.routes.directed(i).1 == 0))
        .map(|c| c.frames)
        .sum();
    let buf = write_links_pcap(Vec::new(), &f, LinkFilter::SwitchIsls(0)).unwrap();
    assert_eq!(buf as u64, carried);
    let mut out = Vec::new();
    write_links_pcap(&mut out, &f, LinkFilter::SwitchIsls(0)).unwrap();
    let cap = inswitch_frames::pcap::read_pcap(&out[..]).unwrap();
    assert_eq!(cap.records.len() as u64, carried);
    assert!(cap.records.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    for r in &cap.records {
        inswitch_frames::tlp::Tlp::parse(&r.data).expect("a TLP");
    }
}
