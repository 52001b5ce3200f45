//! Lockstep co-simulation of the output queue: Rust model vs Verilated RTL, at two data widths.
//!
//! These tests need the Verilated models, which build.rs builds with Verilator: without Verilator the
//! crate does not build and these tests fail loudly (run `bash scripts/setup`).

use std::path::PathBuf;

use inswitch::blocks::output_queue::{self, counter, OutputQueueMonitor, OutputQueueRtl, OutputQueueStimulus};
use inswitch::checker::{self, Bench, Failure, Monitor, RunConfig};
use inswitch::verilated::VerilatedDut;
use inswitch::HarnessError;
use inswitch_model::output_queue::{OutputQueue, OutputQueueIn, OutputQueueOut, OutputQueueParams};
use inswitch_model::{ports, Wide};

/// The bar: at least 10^6 cycles per width with 0 mismatches.
const CYCLES: u64 = 1_000_000;

fn wave_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn run_and_check_coverage(model: &str, seed: u64) {
    let cfg = RunConfig { seed, cycles: CYCLES, wave_dir: wave_dir("cosim-out") };
    let outcome = match output_queue::run(model, &cfg, &mut |_| {}) {
        Ok(o) => o,
        Err(report) => panic!("{report}"),
    };
    assert_eq!(outcome.cycles, CYCLES);
    // Functional coverage: every behaviour the stimulus is meant to reach was reached.
    for (name, min) in [
        (counter::FRAMES_OUT, 1000),
        (counter::ROUTE_MISSES, 100),
        (counter::FLUSHED, 1),
        (counter::RESETS, 5),
        (counter::ROUTE_WRITES, 500),
        (counter::FULL_CYCLES, 1000),
        (counter::STALLED_CYCLES, 1000),
    ] {
        assert!(outcome.counter(name) >= min, "{model} seed {seed}: coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

#[test]
fn output_queue_256_bit_matches_rtl_for_a_million_cycles() {
    run_and_check_coverage("output_queue_w256", 0x5eed_0256);
}

#[test]
fn output_queue_64_bit_matches_rtl_for_a_million_cycles() {
    run_and_check_coverage("output_queue_w64", 0x5eed_0064);
}

#[test]
fn a_wrong_model_is_caught_with_a_report_and_a_waveform() {
    // The wrong variant: a model whose FIFO is half the RTL's. It agrees until the FIFO fills.
    let model_name = "output_queue_w64";
    let rtl_params = output_queue::params_of(model_name).unwrap();
    let wrong = OutputQueueParams { fifo_depth: rtl_params.fifo_depth / 2, ..rtl_params };
    let make = |seed: u64| -> Result<_, HarnessError> {
        Ok(Bench::new(
            OutputQueue::new(wrong).unwrap(),
            OutputQueueRtl::new(model_name)?,
            OutputQueueStimulus::new(rtl_params, seed),
            OutputQueueMonitor::new(rtl_params),
        ))
    };
    let dir = wave_dir("mutant");
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = RunConfig { seed: 42, cycles: 200_000, wave_dir: dir.clone() };
    let reproduce = |seed: u64, cycles: u64| format!("repro --seed {seed} --cycles {cycles}");
    let report = checker::run_target("mutant_w64", &reproduce, &make, &cfg, &mut |_| {}).expect_err("the wrong model must be caught").into_failure().unwrap_or_else(|e| panic!("{e}"));

    eprintln!("{report}");
    let Failure::Mismatch(m) = &report.failure else { panic!("expected a mismatch, got {:?}", report.failure) };
    assert_eq!(m.port, "s_axis_tready", "a smaller FIFO refuses input earlier");
    assert_eq!((m.model.as_str(), m.rtl.as_str()), ("0x0", "0x1"));
    assert!(m.cycle > 0);
    assert!(!report.recent.is_empty(), "the report lists the last transactions");
    let wave = report.waveform.clone().unwrap_or_else(|| panic!("no waveform: {:?}", report.waveform_error));
    let size = std::fs::metadata(&wave).map(|md| md.len()).unwrap_or(0);
    assert!(size > 100, "{} should hold the failing window, has {size} bytes", wave.display());
    let text = report.to_string();
    for needle in ["seed 42", &format!("cycle {}", m.cycle), "port s_axis_tready", "model: 0x0", "rtl:   0x1", "reproduce: repro --seed 42"] {
        assert!(text.contains(needle), "report lacks {needle:?}:\n{text}");
    }
    assert_eq!(report.reproduce, format!("repro --seed 42 --cycles {}", m.cycle + 1));
}

#[test]
fn the_scoreboard_rejects_what_the_queue_must_never_do() {
    let p = output_queue::params_of("output_queue_w64").unwrap();
    let ready = OutputQueueOut { s_axis_tready: true, ..Default::default() };
    let idle = OutputQueueIn { m_axis_tready: true, ..Default::default() };

    // A beat out of nowhere.
    let mut mon = OutputQueueMonitor::new(p);
    let ghost = OutputQueueOut { m_axis_tvalid: true, m_axis_tlast: true, ..ready };
    assert!(mon.observe(0, &idle, &ghost).unwrap_err().contains("no frame is waiting"));

    // A frame with no route reported as dropped is fine; a routable one is not.
    let mut mon = OutputQueueMonitor::new(p);
    let route = OutputQueueIn { cfg_route_wr_en: true, cfg_route_wr_valid: true, cfg_route_wr_dest_id: 7, cfg_route_wr_dest_mask: 0xffff, cfg_route_wr_port: 2, ..idle };
    mon.observe(0, &route, &ready).unwrap();
    let mut data = Wide::ZERO;
    data.0[0] = 0xabcd;
    let beat = OutputQueueIn { s_axis_tvalid: true, s_axis_tlast: true, s_axis_tuser: 7, s_axis_tdata: data, s_axis_tkeep: 0xff, ..idle };
    mon.observe(1, &beat, &ready).unwrap();
    let miss = OutputQueueOut { stat_route_miss: true, ..ready };
    assert!(mon.observe(2, &idle, &miss).unwrap_err().contains("dropped as unroutable"));

    // Corrupted data, or the wrong port, is caught.
    for (port, tdata, what) in [(2u8, 0xabce_u64, "left as"), (3, 0xabcd, "no route-table version")] {
        let mut mon = OutputQueueMonitor::new(p);
        mon.observe(0, &route, &ready).unwrap();
        mon.observe(1, &beat, &ready).unwrap();
        let mut d = Wide::ZERO;
        d.0[0] = tdata;
        let out = OutputQueueOut { m_axis_tvalid: true, m_axis_tlast: true, m_axis_tdest: port, m_axis_tkeep: 0xff, m_axis_tdata: d, ..ready };
        let err = mon.observe(2, &idle, &out).unwrap_err();
        assert!(err.contains(what), "{err}");
    }
}

ports! {
    /// Output-queue inputs minus one port: binding must fail.
    pub struct MissingPortIn {
        pub rst: bool,
    }
}

ports! {
    /// A port the RTL does not have.
    pub struct ExtraPortOut {
        pub s_axis_tready: bool,
        pub no_such_port: bool,
    }
}

#[test]
fn port_binding_checks_names_and_directions() {
    let err = VerilatedDut::<MissingPortIn, OutputQueueOut>::new("output_queue_w64").err().expect("unbound RTL inputs");
    assert!(err.to_string().contains("RTL ports with no field"), "{err}");
    let err = VerilatedDut::<OutputQueueIn, ExtraPortOut>::new("output_queue_w64").err().expect("extra port");
    assert!(err.to_string().contains("`no_such_port` is not an RTL port"), "{err}");
    let err = VerilatedDut::<OutputQueueOut, OutputQueueIn>::new("output_queue_w64").err().expect("directions swapped");
    assert!(err.to_string().contains("is not an RTL input"), "{err}");
    let err = OutputQueueRtl::new("no_such_model").err().expect("unknown model");
    assert!(err.to_string().contains("output_queue_w256"), "{err}");
}
