//! Lockstep co-simulation of the input checker (Rust model vs Verilated RTL) at 256 and 64 bits, with
//! every outcome (acceptance and each drop reason) reached.

use std::path::PathBuf;

use inswitch::blocks::input_checker::{self, counter};
use inswitch::checker::RunConfig;
use inswitch_model::checker::event;

/// The bar: at least 10^6 cycles per width with 0 mismatches.
const CYCLES: u64 = 1_000_000;

fn run(model: &str, seed: u64) {
    let cfg = RunConfig { seed, cycles: CYCLES, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-out") };
    let outcome = input_checker::run(model, &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, CYCLES);
    for (name, min) in [(counter::FRAMES, 10_000), (counter::REG_OUT, 1_000), (counter::MSG_OUT, 1_000), (counter::RESETS, 5), (counter::REFUSED, 1_000)] {
        assert!(outcome.counter(name) >= min, "{model}: coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
    // Every outcome, each drop reason included, happened.
    for (bit, name) in event::NAMES.iter().enumerate() {
        assert!(outcome.counter(name) >= 5, "{model}: coverage hole: outcome {name} (bit {bit}) = {}", outcome.counter(name));
    }
}

#[test]
fn input_checker_256_bit_matches_rtl_for_a_million_cycles() {
    run("input_checker_w256", 0x5eed_1256);
}

#[test]
fn input_checker_64_bit_matches_rtl_for_a_million_cycles() {
    run("input_checker_w64", 0x5eed_1064);
}
