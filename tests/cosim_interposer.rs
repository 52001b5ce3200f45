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
    ] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}
