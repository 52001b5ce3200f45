//! Differential fuzzing of the packet-engine top: the fuzzer's bytes steer the block's own cosim stimulus
//! (inswitch::blocks::packet_engine), the Rust model and the Verilated RTL (`packet_engine`) run in lockstep and
//! the block's scoreboard watches them; any difference or scoreboard failure is a crash.
#![no_main]
use inswitch::blocks::packet_engine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    inswitch_fuzz::differential("cosim_packet_engine", data, inswitch_fuzz::cycles::PACKET_ENGINE, &|| packet_engine::bench("packet_engine", 0));
});
