//! Differential fuzzing of the interposer: the fuzzer's bytes steer the block's own cosim stimulus
//! (inswitch::blocks::interposer), the Rust model and the Verilated RTL (`interposer`) run in lockstep and
//! the block's scoreboard watches them; any difference or scoreboard failure is a crash.
#![no_main]
use inswitch::blocks::interposer;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    inswitch_fuzz::differential("cosim_interposer", data, inswitch_fuzz::cycles::INTERPOSER, &|| interposer::bench("interposer", 0));
});
