//! Differential fuzzing of the collective processing unit: the fuzzer's bytes steer the block's own cosim stimulus
//! (inswitch::blocks::cpu), the Rust model and the Verilated RTL (`cpu`) run in lockstep and
//! the block's scoreboard watches them; any difference or scoreboard failure is a crash.
#![no_main]
use inswitch::blocks::cpu;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    inswitch_fuzz::differential("cosim_cpu", data, inswitch_fuzz::cycles::CPU, &|| cpu::bench("cpu", 0));
});
