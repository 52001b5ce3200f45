//! Lockstep co-simulation of the register slice: Rust model (`AxisRegister`) vs Verilated `axis_register`
//! (WIDTH 300), 10^6 cycles with idle gaps, stalls and resets; a wrong model (a slice that drops its ready
//! one cycle late) must be caught; the slice synthesises without latches and with a short longest path.

use std::path::PathBuf;

use inswitch::blocks::axis_register::{self, counter, AxisRegisterMonitor, AxisRegisterRtl, AxisRegisterStimulus, COSIM_WIDTH};
use inswitch::checker::{self, Bench, Failure, RunConfig};
use inswitch::HarnessError;
use inswitch_model::axis_register::{AxisRegister, AxisRegisterIn, AxisRegisterOut};
use inswitch_model::Block;

/// The bar: at least 10^6 cycles with 0 mismatches.
const CYCLES: u64 = 1_000_000;

fn wave_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn axis_register_matches_rtl_for_a_million_cycles() {
    let cfg = RunConfig { seed: 0x5eed_511c, cycles: CYCLES, wave_dir: wave_dir("cosim-out") };
    let outcome = match axis_register::run("axis_register", &cfg, &mut |_| {}) {
        Ok(o) => o,
        Err(report) => panic!("{report}"),
    };
    assert_eq!(outcome.cycles, CYCLES);
    eprintln!("axis_register: matched {} cycles: {:?}", outcome.cycles, outcome.counters);
    for (name, min) in [
        (counter::BEATS_OUT, 200_000),
        (counter::THROUGH, 50_000),
        (counter::STALLED, 10_000),
        (counter::FULL, 10_000),
        (counter::RESETS, 20),
        (counter::FLUSHED, 5),
    ] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

/// A slice whose `s_axis_tready` reports the skid register one cycle late (a plausible register bug).
struct LateReady(AxisRegister, bool);

impl Block for LateReady {
    type In = AxisRegisterIn;
    type Out = AxisRegisterOut;
    fn step(&mut self, i: &AxisRegisterIn) -> AxisRegisterOut {
        let mut o = self.0.step(i);
        // Report the previous cycle's ready and keep this cycle's for the next.
        std::mem::swap(&mut o.s_axis_tready, &mut self.1);
        o
    }
}

#[test]
fn a_wrong_model_is_caught_with_a_report() {
    let make = |seed: u64| -> Result<_, HarnessError> {
        Ok(Bench::new(
            LateReady(AxisRegister::new(COSIM_WIDTH).unwrap(), false),
            AxisRegisterRtl::new("axis_register")?,
            AxisRegisterStimulus::new(seed),
            AxisRegisterMonitor::new(),
        ))
    };
    let dir = wave_dir("axis-register-mutant");
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = RunConfig { seed: 7, cycles: 100_000, wave_dir: dir };
    let reproduce = |seed: u64, cycles: u64| format!("repro --seed {seed} --cycles {cycles}");
    let report = checker::run_target("axis_register_mutant", &reproduce, &make, &cfg, &mut |_| {}).expect_err("the wrong model must be caught").into_failure().unwrap_or_else(|e| panic!("{e}"));
    let Failure::Mismatch(m) = &report.failure else { panic!("expected a mismatch, got {:?}", report.failure) };
    assert_eq!(m.port, "s_axis_tready");
}

#[test]
fn axis_register_synthesises_without_latches() {
    let rtl = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/rtl"));
    let r = inswitch::hdl::synth(rtl, "axis_register").expect("yosys must be installed (bash scripts/setup)");
    eprintln!("axis_register: {:?} cells, {} flip-flops, longest path {:?}", r.cells, r.flip_flops, r.longest_path);
    assert!(r.passed(), "{}", r.log);
    assert!(r.flip_flops > 0);
}
