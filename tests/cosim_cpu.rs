//! Lockstep co-simulation of the collective processing unit: Rust model (`Cpu`) vs Verilated `cpu`,
//! at least 10^6 cycles of constrained-random traffic of both families, every output compared every
//! cycle, the transaction-level reference scoreboard clean, no coverage hole; a wrong model and wrong
//! scoreboard inputs must be caught.

use std::path::PathBuf;

use inswitch::blocks::cpu::{self, CpuMonitor, CpuRtl, CpuStimulus, REQUIRED};
use inswitch::checker::{self, Failure, RunConfig};
use inswitch::HarnessError;
use inswitch_model::cpu::{event, Cpu, CpuIn, CpuOut};
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
    assert!(outcome.counter("messages_in") > 50_000, "too little traffic");
}
