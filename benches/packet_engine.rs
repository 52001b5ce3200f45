//! Speed of the packet-engine top: composed Rust model alone, Verilated RTL alone, and the lockstep pair
//! (both stepped and every output compared), on one recorded constrained-random input trace (seed 1:
//! configuration, both families' traffic, register writes, backpressure, drains and resets).
//! Figures go to docs/performance.md. The harness is `inswitch::replay`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use inswitch::blocks::packet_engine::{self, PacketEngineRtl, PacketEngineStimulus, Shared};
use inswitch::replay::{self, Target};
use inswitch_model::packet_engine::{EngineParams, PacketEngine};
use inswitch_model::Block;

/// Cycles per measured iteration.
const CYCLES: usize = 100_000;
/// The engine's largest static table: the register space's CPU window (`register_space::MAX_CPU_STATIC_ENTRIES`;
/// the CPU alone reaches 4096, `cpu::config::MAX_STATIC_ENTRIES`).
const LARGEST_STATIC_ENTRIES: usize = 64;
/// The CPU's largest descriptor table.
const LARGEST_DESCRIPTORS: usize = 16;

fn bench(c: &mut Criterion) {
    let p = packet_engine::params_of("packet_engine").unwrap();
    let inputs = replay::record(PacketEngine::power_on(p).unwrap(), PacketEngineStimulus::new(p, 1, Shared::default()), CYCLES);
    let mut g = c.benchmark_group("packet_engine");
    g.throughput(Throughput::Elements(CYCLES as u64));
    g.sample_size(10);
    for t in Target::ALL {
        g.bench_function(t.name(), |b| {
            b.iter_batched(
                || (PacketEngine::power_on(p).unwrap(), PacketEngineRtl::new("packet_engine").unwrap()),
                |(mut m, mut r)| replay::replay(t, &mut m, &mut r, &inputs),
                BatchSize::LargeInput,
            )
        });
    }
    // The largest parameters the model supports today (64 static entries, 16 descriptors: the CPU's and
    // the register space's limits), model alone: no Verilated top is linked at these parameters (each
    // variant costs minutes of C++ to every build), and the seeds' sizes (4096 contexts, 8192 multicast
    // addresses) wait for the hardware-scale issue (19). Its ratio to `rust_model` says whether the
    // model's cost grows with its tables.
    let largest = EngineParams { static_entries: LARGEST_STATIC_ENTRIES, descriptors: LARGEST_DESCRIPTORS, ..p };
    let inputs = replay::record(PacketEngine::power_on(largest).unwrap(), PacketEngineStimulus::new(largest, 1, Shared::default()), CYCLES);
    g.bench_function("rust_model_largest", |b| {
        b.iter_batched(
            || PacketEngine::power_on(largest).unwrap(),
            |mut m| inputs.iter().for_each(|i| {
                black_box(m.step(i));
            }),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
