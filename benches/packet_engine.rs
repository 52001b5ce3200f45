//! Speed of the packet-engine top: composed Rust model alone, Verilated RTL alone, and the lockstep pair
//! (both stepped and every output compared), on one recorded constrained-random input trace (seed 1:
//! configuration, both families' traffic, register writes, backpressure, drains and resets).
//! Figures go to docs/performance.md.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use inswitch::blocks::packet_engine::{self, PacketEngineRtl, PacketEngineStimulus, Shared};
use inswitch::checker::Stimulus;
use inswitch_model::engine::{EngineIn, PacketEngine};
use inswitch_model::Block;
use std::hint::black_box;

/// Cycles per measured iteration.
const CYCLES: usize = 100_000;

/// Records the inputs a seeded stimulus produces against the model: replaying them reproduces the run.
fn trace() -> Vec<EngineIn> {
    let p = packet_engine::params_of("packet_engine").unwrap();
    let mut m = PacketEngine::power_on(p).unwrap();
    let mut s = PacketEngineStimulus::new(p, 1, Shared::default());
    let mut prev = Default::default();
    (0..CYCLES)
        .map(|_| {
            let i = s.next(&prev);
            prev = m.step(&i);
            i
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let inputs = trace();
    let p = packet_engine::params_of("packet_engine").unwrap();
    let mut g = c.benchmark_group("packet_engine");
    g.throughput(Throughput::Elements(CYCLES as u64));
    g.sample_size(10);
    g.bench_function("rust_model", |b| {
        b.iter_batched(
            || PacketEngine::power_on(p).unwrap(),
            |mut m| {
                for i in &inputs {
                    black_box(m.step(i));
                }
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("verilator", |b| {
        b.iter_batched(
            || PacketEngineRtl::new("packet_engine").unwrap(),
            |mut r| {
                for i in &inputs {
                    black_box(r.step(i));
                }
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("lockstep", |b| {
        b.iter_batched(
            || (PacketEngine::power_on(p).unwrap(), PacketEngineRtl::new("packet_engine").unwrap()),
            |(mut m, mut r)| {
                for i in &inputs {
                    assert_eq!(m.step(i), r.step(i));
                }
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
