//! Speed of the output queue: Rust model alone, Verilated RTL alone, and the lockstep pair (both stepped
//! and every output compared), on the same recorded constrained-random input trace, at 256 and 64 bits.
//! Figures go to docs/performance.md as ratios.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use inswitch::blocks::output_queue::{self, OutputQueueRtl, OutputQueueStimulus};
use inswitch::checker::Stimulus;
use inswitch_model::output_queue::{OutputQueue, OutputQueueIn};
use inswitch_model::Block;
use std::hint::black_box;

/// Cycles per measured iteration.
const CYCLES: usize = 100_000;

/// Records the inputs a seeded stimulus produces against the model: replaying them reproduces the run.
fn trace(model: &str) -> Vec<OutputQueueIn> {
    let p = output_queue::params_of(model).unwrap();
    let mut m = OutputQueue::new(p).unwrap();
    let mut s = OutputQueueStimulus::new(p, 1);
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
    for model in ["output_queue_w256", "output_queue_w64"] {
        let inputs = trace(model);
        let p = output_queue::params_of(model).unwrap();
        let mut g = c.benchmark_group(model);
        g.throughput(Throughput::Elements(CYCLES as u64));
        g.sample_size(20);
        g.bench_function("rust_model", |b| {
            b.iter_batched(
                || OutputQueue::new(p).unwrap(),
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
                || OutputQueueRtl::new(model).unwrap(),
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
                || (OutputQueue::new(p).unwrap(), OutputQueueRtl::new(model).unwrap()),
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
}

criterion_group!(benches, bench);
criterion_main!(benches);
