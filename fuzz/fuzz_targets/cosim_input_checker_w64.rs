//! Differential fuzzing of the input checker at 64 bits: the fuzzer's bytes steer the block's own cosim stimulus
//! (inswitch::blocks::input_checker), the Rust model and the Verilated RTL (`input_checker_w64`) run in lockstep and
//! the block's scoreboard watches them; any difference or scoreboard failure is a crash.
#![no_main]
use inswitch::blocks::input_checker;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    inswitch_fuzz::differential("cosim_input_checker_w64", data, inswitch_fuzz::cycles::INPUT_CHECKER, &|| input_checker::bench("input_checker_w64", 0));
});
