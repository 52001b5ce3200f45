//! Speed of the output queue: Rust model alone, Verilated RTL alone, and the lockstep pair (both stepped
//! and every output compared), on the same recorded constrained-random input trace, at 256 and 64 bits.
//! Figures go to docs/performance.md as ratios. The harness is `inswitch::replay`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use inswitch::blocks::output_queue::{self, OutputQueueRtl, OutputQueueStimulus};
use inswitch::replay::{self, Target};
use inswitch_model::output_queue::OutputQueue;

/// Cycles per measured iteration.
const CYCLES: usize = 100_000;

fn bench(c: &mut Criterion) {
    for model in ["output_queue_w256", "output_queue_w64"] {
        let p = output_queue::params_of(model).unwrap();
        let inputs = replay::record(OutputQueue::new(p).unwrap(), OutputQueueStimulus::new(p, 1), CYCLES);
        let mut g = c.benchmark_group(model);
        g.throughput(Throughput::Elements(CYCLES as u64));
        g.sample_size(20);
        for t in Target::ALL {
            g.bench_function(t.name(), |b| {
                b.iter_batched(
                    || (OutputQueue::new(p).unwrap(), OutputQueueRtl::new(model).unwrap()),
                    |pair| replay::replay_fresh(t, pair, &inputs),
                    BatchSize::LargeInput,
                )
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
