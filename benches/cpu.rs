//! Speed of the collective processing unit: Rust model alone, Verilated RTL alone, and the lockstep pair
//! (both stepped and every output compared), on one recorded constrained-random input trace (seed 1:
//! configuration, both families' traffic under load, idle gaps, backpressure, timer expiries).
//! Figures go to docs/performance.md. The harness is `inswitch::replay`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use inswitch::blocks::cpu::{self, CpuRtl, CpuStimulus};
use inswitch::replay::{self, Target};
use inswitch_model::cpu::Cpu;

/// Cycles per measured iteration.
const CYCLES: usize = 100_000;

fn bench(c: &mut Criterion) {
    let p = cpu::params_of("cpu").unwrap();
    let inputs = replay::record(Cpu::new(p).unwrap(), CpuStimulus::new(p, 1), CYCLES);
    let mut g = c.benchmark_group("cpu");
    g.throughput(Throughput::Elements(CYCLES as u64));
    g.sample_size(10);
    for t in Target::ALL {
        g.bench_function(t.name(), |b| {
            b.iter_batched(|| (Cpu::new(p).unwrap(), CpuRtl::new("cpu").unwrap()), |pair| replay::replay_fresh(t, pair, &inputs), BatchSize::LargeInput)
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
