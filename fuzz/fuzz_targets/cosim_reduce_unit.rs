//! Differential fuzzing of the reduction unit: the fuzzer's bytes steer the block's own cosim stimulus
//! (inswitch::blocks::reduce_unit), the Rust model and the Verilated RTL (`reduce_unit`) run in lockstep and
//! the block's scoreboard watches them; any difference or scoreboard failure is a crash.
#![no_main]
use inswitch::blocks::reduce_unit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    inswitch_fuzz::differential("cosim_reduce_unit", data, inswitch_fuzz::cycles::REDUCE_UNIT, &|| reduce_unit::bench("reduce_unit", 0));
});
