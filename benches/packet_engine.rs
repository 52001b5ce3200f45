//! Speed of the packet-engine top: composed Rust model alone, Verilated RTL alone, and the lockstep pair
//! (both stepped and every output compared), on one recorded constrained-random input trace (seed 1:
//! configuration, both families' traffic, register writes, backpressure, drains and resets).
//! Figures go to docs/performance.md. The harness is `inswitch::replay`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use inswitch::blocks::packet_engine::{self, PacketEngineRtl, PacketEngineStimulus, Shared};
use inswitch::replay::{self, Target};
use inswitch_model::engine::PacketEngine;

/// Cycles per measured iteration.
const CYCLES: usize = 100_000;

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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
