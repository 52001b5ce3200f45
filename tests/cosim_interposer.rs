//! Lockstep co-simulation of the data-path interposer (Rust model vs Verilated RTL): extraction,
//! pass-through, injection and credit conservation.

use std::path::PathBuf;

use inswitch::blocks::interposer::{self, counter};
use inswitch::checker::RunConfig;

/// The bar: at least 10^6 cycles with 0 mismatches.
const CYCLES: u64 = 1_000_000;

#[test]
fn interposer_matches_rtl_for_a_million_cycles() {
    let cfg = RunConfig { seed: 0x5eed_2256, cycles: CYCLES, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-out") };
    let outcome = interposer::run("interposer", &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, CYCLES);
    for (name, min) in [
        (counter::EXTRACTED, 2_000),
        (counter::PASSED, 5_000),
        (counter::INJECTED, 5_000),
        (counter::RX_WAIT, 1_000),
        (counter::NO_CREDIT, 1_000),
        (counter::INJ_EMPTY, 1_000),
        (counter::RESETS, 5),
        (counter::ARMS_COPIED, 500),
    ] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

use inswitch::blocks::interposer::{InterposerMonitor, InterposerRtl, InterposerStimulus};
use inswitch::checker::{self, Bench, Failure, Monitor};
use inswitch::HarnessError;
use inswitch_model::interposer::{Interposer, InterposerIn, InterposerOut, InterposerParams};
use inswitch_model::Block;

/// Flit-mode links (docs/blocks/interposer.md §Flit-mode links, issue 15 item 6): the link mode switches
/// between frames; on a flit-mode link memory writes are flit-mode TLPs (no sequence number), decided at
/// byte 0 and marked in tuser bit 9, as the scoreboard restates.
#[test]
fn interposer_on_flit_mode_links_matches_rtl() {
    let cfg = RunConfig { seed: 0x5eed_f117, cycles: 300_000, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-out") };
    let outcome = interposer::run_on_flit_links("interposer", &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, cfg.cycles);
    for (name, min) in [(counter::FLIT_EXTRACTED, 100), (counter::EXTRACTED, 500), (counter::PASSED, 1_000), (counter::RESETS, 1)] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

/// The interposer at the seed's size (8192 multicast entries, one per tree: docs/blocks/interposer.md
/// §Multicast table), with the clearing sweep of 8192 cycles after every reset.
#[test]
fn interposer_at_full_size_matches_rtl() {
    let cfg = RunConfig { seed: 0x5eed_8192, cycles: 300_000, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-out") };
    let outcome = interposer::run("interposer_full", &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, cfg.cycles);
    for (name, min) in [(counter::EXTRACTED, 500), (counter::PASSED, 1_000), (counter::RESETS, 1), (counter::ARMS_COPIED, 100)] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

/// The parameters of the Verilated model `model` (the registry's view of its overrides).
fn rtl_params(model: &str) -> InterposerParams {
    inswitch_model::registry::typed::interposer(&inswitch::targets::model_params(model).unwrap())
}

#[test]
fn a_model_with_a_smaller_injection_reserve_is_caught() {
    let rtl_params = rtl_params("interposer");
    let wrong = InterposerParams { inj_credits: rtl_params.inj_credits - 1, ..rtl_params };
    let make = |seed: u64| -> Result<_, HarnessError> {
        Ok(Bench::new(Interposer::power_on(wrong).unwrap(), InterposerRtl::new("interposer")?, InterposerStimulus::new(rtl_params, seed), InterposerMonitor::new(rtl_params)))
    };
    let cfg = RunConfig { seed: 3, cycles: 100_000, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mutant-interposer") };
    let report = checker::run_target("mutant_interposer", &|s, c| format!("repro {s} {c}"), &make, &cfg, &mut |_| {}).expect_err("must be caught").into_failure().unwrap_or_else(|e| panic!("{e}"));
    let Failure::Mismatch(m) = &report.failure else { panic!("{:?}", report.failure) };
    assert_eq!(m.port, "stat_inj_credits", "{report}");
}

#[test]
fn the_scoreboard_rejects_an_invented_credit() {
    let p = InterposerParams::default();
    let mut mon = InterposerMonitor::new(p);
    mon.observe(0, &InterposerIn { rst: true, ..Default::default() }, &InterposerOut::default()).unwrap();
    let good = InterposerOut { stat_inj_credits: p.inj_credits as u8, ..Default::default() };
    mon.observe(1, &InterposerIn::default(), &good).unwrap();
    let invented = InterposerOut { link_credit_return: 1, ..good };
    let err = mon.observe(2, &InterposerIn::default(), &invented).unwrap_err();
    assert!(err.contains("credits do not balance"), "{err}");
}

/// Line rate (docs/blocks/interposer.md §Timing): back-to-back pass-through and extracted frames, one
/// beat per cycle with no bubble while credits last, each beat out two cycles later (the receive stage
/// waits for the multicast table's synchronous read). After a reset, receive is held for the clearing sweep
/// of the seed-size table, 8192 cycles, and not one cycle more.
#[test]
fn line_rate_pass_and_extract_without_bubbles() {
    let p = InterposerParams::default();
    let mut m = Interposer::new(p).unwrap();
    let held = (0..).take_while(|_| !m.step(&InterposerIn { s_axis_rx_tvalid: true, ..Default::default() }).s_axis_rx_tready).count();
    assert_eq!(held, 8192, "the sweep holds receive for one cycle per entry");
    m.step(&InterposerIn { rst: true, ..Default::default() });
    for _ in 0..p.mcast_entries {
        m.step(&InterposerIn::default());
    }
    let mut mwr_to_engine = inswitch_model::Wide::ZERO;
    for (k, b) in [0x00u8, 0x01, 0x40, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x0F, 0x00, 0x10, 0xC0, 0x04].iter().enumerate() {
        mwr_to_engine.set_byte(k, *b);
    }
    let ready = |i: InterposerIn| InterposerIn { m_axis_vl_tready: true, m_axis_ext_tready: true, cfg_engine_id: 0x0010, vl_credit_return: 1, ..i };
    let mut ext = 0;
    let mut vl = 0;
    for cycle in 0..1000 {
        let d = if cycle % 2 == 0 { mwr_to_engine } else { inswitch_model::Wide::ZERO };
        let o = m.step(&ready(InterposerIn { s_axis_rx_tdata: d, s_axis_rx_tkeep: 0xFFFF_FFFF, s_axis_rx_tvalid: true, s_axis_rx_tlast: true, ..Default::default() }));
        assert!(o.s_axis_rx_tready, "bubble at cycle {cycle}");
        if cycle > 1 {
            assert!(o.m_axis_ext_tvalid ^ o.m_axis_vl_tvalid, "each beat out two cycles later, on one side");
        }
        ext += u32::from(o.m_axis_ext_tvalid);
        vl += u32::from(o.m_axis_vl_tvalid);
    }
    assert_eq!((ext, vl), (499, 499));
}
