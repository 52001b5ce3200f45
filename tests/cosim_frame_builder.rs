//! Lockstep co-simulation of the frame builder (Rust model vs Verilated RTL) at 256 and 64 bits; every
//! frame is decoded by the frames crate codecs and mapped back to the message it came from.

use std::path::PathBuf;

use inswitch::blocks::frame_builder::{self, counter};
use inswitch::checker::RunConfig;

/// The bar: at least 10^6 cycles per width with 0 mismatches.
const CYCLES: u64 = 1_000_000;

fn run(model: &str, seed: u64) {
    let cfg = RunConfig { seed, cycles: CYCLES, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-out") };
    let outcome = frame_builder::run(model, &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, CYCLES);
    for (name, min) in [(counter::TLP_FRAMES, 5_000), (counter::PORTALS_FRAMES, 5_000), (counter::DROPPED, 500), (counter::STALLED, 1_000), (counter::RESETS, 5)] {
        assert!(outcome.counter(name) >= min, "{model}: coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

#[test]
fn frame_builder_256_bit_matches_rtl_for_a_million_cycles() {
    run("frame_builder_w256", 0x5eed_3256);
}

#[test]
fn frame_builder_64_bit_matches_rtl_for_a_million_cycles() {
    run("frame_builder_w64", 0x5eed_3064);
}
