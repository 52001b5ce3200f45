//! Lockstep co-simulation of the reduction unit: Rust model (`ReduceUnit`) vs Verilated `reduce_unit`,
//! 10^6 cycles of operand pairs weighted towards special values, every opcode; and a wrong model (one
//! rounding bug) must be caught with a report.

use std::path::PathBuf;

use inswitch::blocks::reduce_unit::{self, counter, ReduceUnitMonitor, ReduceUnitRtl, ReduceUnitStimulus};
use inswitch::checker::{self, Bench, Failure, RunConfig};
use inswitch::HarnessError;
use inswitch_model::reduce_unit::{wide_to_lanes, ReduceUnit, ReduceUnitIn, ReduceUnitOut};
use inswitch_model::reduce::{Opcode, Rounding};
use inswitch_model::Block;

/// The bar: at least 10^6 random vectors per CI run.
const CYCLES: u64 = 1_000_000;

fn wave_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn reduce_unit_matches_rtl_for_a_million_cycles() {
    let cfg = RunConfig { seed: 0x5eed_4ed0, cycles: CYCLES, wave_dir: wave_dir("cosim-out") };
    let outcome = match reduce_unit::run("reduce_unit", &cfg, &mut |_| {}) {
        Ok(o) => o,
        Err(report) => panic!("{report}"),
    };
    assert_eq!(outcome.cycles, CYCLES);
    eprintln!("reduce_unit: matched {} cycles: {:?}", outcome.cycles, outcome.counters);
    for (name, min) in [
        (counter::RESULTS_OUT, 800_000),
        (counter::FLT_SUM, 200_000),
        (counter::REPSUM, 20_000),
        (counter::MINMAXLOC, 40_000),
        (counter::FLT_MINMAX, 80_000),
        (counter::UNKNOWN_OP, 10_000),
        (counter::MISMATCH, 10_000),
        (counter::FLT_INVALID, 1_000),
        (counter::FLT_OVERFLOW, 1_000),
        (counter::FLT_INEXACT, 1_000),
        (counter::REP_INEXACT, 1_000),
        (counter::INT_OVERFLOW, 1_000),
        (counter::RESETS, 1_000),
    ] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
    // Cross coverage: every reachable rounding x FTZ x operand classes x code combination of FLT_SUM,
    // and none of those claimed unreachable.
    let cross = outcome.cross(reduce_unit::flt_sum_cross::NAME).expect("the FLT_SUM cross");
    eprint!("{}", cross.report(false));
    assert!(cross.excluded_hits().is_empty(), "{}", cross.report(false));
    assert_eq!(cross.bins() - cross.excluded_count(), 340, "reachable bins (exclusions changed?)");
    assert!(cross.holes().is_empty(), "{}", cross.report(false));
}

/// A model with one arithmetic bug: FLT_SUM toward +inf returns the result one ulp low when inexact.
struct RoundingBug(ReduceUnit);

impl Block for RoundingBug {
    type In = ReduceUnitIn;
    type Out = ReduceUnitOut;
    fn step(&mut self, i: &ReduceUnitIn) -> ReduceUnitOut {
        let mut o = self.0.step(i);
        let op = Opcode::FltSum { rounding: Rounding::TowardPositive, ftz: false };
        if o.out_valid && o.out_rt_op == op.raw() && o.out_rt_rc == 1 {
            let d = wide_to_lanes(&o.out_rt_data);
            o.out_rt_data.0[0] = d[0] ^ 1;
        }
        o
    }
}

#[test]
fn a_wrong_model_is_caught_with_a_report() {
    let make = |seed: u64| -> Result<_, HarnessError> {
        Ok(Bench::new(RoundingBug(ReduceUnit::new()), ReduceUnitRtl::new("reduce_unit")?, ReduceUnitStimulus::new(seed), ReduceUnitMonitor::new()))
    };
    let dir = wave_dir("reduce-mutant");
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = RunConfig { seed: 7, cycles: 100_000, wave_dir: dir };
    let reproduce = |seed: u64, cycles: u64| format!("repro --seed {seed} --cycles {cycles}");
    let report = checker::run_target("reduce_mutant", &reproduce, &make, &cfg, &mut |_| {}).expect_err("the wrong model must be caught").into_failure().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{report}");
    let Failure::Mismatch(m) = &report.failure else { panic!("expected a mismatch, got {:?}", report.failure) };
    assert_eq!(m.port, "out_rt_data");
    // Every report names the source revision and the Verilator it was built with.
    let text = report.to_string();
    assert!(text.contains(&format!("built from: git {}, Verilator 5", inswitch::build_info::git_revision())), "{text}");
    model_scope_explains(&report, m);
}

/// The failure waveform carries the model's expected outputs in scope `model` beside the RTL's `dut`: at
/// the failing cycle, `model.out_rt_data` is the report's model value, `dut.out_rt_data` its RTL value,
/// and `model.mismatch` is 1 there and 0 on the cycle before (read back with wellen).
fn model_scope_explains(report: &checker::FailureReport, m: &checker::Mismatch) {
    use inswitch::wave_model::{CYCLE_TIME, MISMATCH_SIGNAL, MODEL_SCOPE, RTL_SCOPE};
    let path = report.waveform.as_ref().unwrap_or_else(|| panic!("no waveform: {:?}", report.waveform_error));
    assert!(report.waveform_error.is_none(), "{:?}", report.waveform_error);
    let mut w = wellen::simple::read(path).expect("the failure waveform reads back");
    let h = w.hierarchy();
    let scopes: Vec<String> = h.iter_scopes().map(|s| s.full_name(h)).collect();
    let var = |scope: &str, name: &str| h[h.lookup_var(&[scope], name).unwrap_or_else(|| panic!("{scope}.{name} not in {} (scopes {scopes:?})", path.display()))].signal_ref();
    let (model, rtl, flag) = (var(MODEL_SCOPE, m.port), var(RTL_SCOPE, m.port), var(MODEL_SCOPE, MISMATCH_SIGNAL));
    w.load_signals(&[model, rtl, flag]);
    let times = w.time_table().to_vec();
    let at = |r: wellen::SignalRef, t: u64| -> String {
        let s = w.get_signal(r).expect("loaded");
        let idx = times.iter().rposition(|&x| x <= t).expect("a time at or before t");
        let bits = s.get_value_at(&s.get_offset(idx as u32).expect("a value by then"), 0).to_bit_string().expect("bits");
        let v: Vec<u32> = bits.as_bytes().rchunks(32).map(|c| u32::from_str_radix(std::str::from_utf8(c).unwrap(), 2).unwrap()).collect();
        checker::hex(&v, bits.len() as u32)
    };
    let t = m.cycle * CYCLE_TIME;
    assert_eq!(at(model, t), m.model, "model scope at the failing cycle");
    assert_eq!(at(rtl, t), m.rtl, "RTL scope at the failing cycle");
    assert_ne!(m.model, m.rtl);
    assert_eq!(at(flag, t), "0x1");
    assert_eq!(at(flag, t - CYCLE_TIME), "0x0", "the first mismatch is the failing cycle");
}

// The reduction unit's synthesis (no latch, a longest path) is the synthesis gate's row for it
// (`inswitch synth`, scripts/test): it is synthesised once, inside the top, not again here.
