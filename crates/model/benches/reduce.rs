//! Combines per second of the reduction model, per operator (`reduce::combine` on 1024 random operand
//! pairs from `reduce::stimulus`, weighted towards special values), and of the cycle model
//! `ReduceUnit::step`. Figures: docs/performance.md §Reduction unit.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use inswitch_model::reduce::stimulus::random_pair;
use inswitch_model::reduce_unit::{ReduceUnit, ReduceUnitIn};
use inswitch_model::reduce::{combine, Contribution, Mode, Opcode};
use inswitch_model::Block;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Duration;

const PAIRS: usize = 1024;

fn pairs_for(op: Opcode) -> Vec<(Mode, Contribution, Contribution)> {
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from(op.raw()));
    let mut next = || rng.next_u64();
    let mut out = Vec::with_capacity(PAIRS);
    while out.len() < PAIRS {
        let i = random_pair(&mut next);
        let (a, b) = i.contributions();
        if a.rt_op == op.raw() && b.rt_op == op.raw() {
            out.push((Mode::from_bit(i.cfg_mode), a, b));
        }
    }
    out
}

fn bench_combine(c: &mut Criterion) {
    let mut g = c.benchmark_group("reduce_combine");
    g.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(20);
    g.throughput(Throughput::Elements(PAIRS as u64));
    for op in Opcode::DEFINED {
        let pairs = pairs_for(op);
        g.bench_function(op.to_string(), |bch| {
            bch.iter(|| {
                for (m, a, b) in &pairs {
                    black_box(combine(*m, black_box(a), black_box(b)));
                }
            })
        });
    }
    g.finish();
}

fn bench_unit(c: &mut Criterion) {
    let mut g = c.benchmark_group("reduce_unit");
    g.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(20);
    g.throughput(Throughput::Elements(PAIRS as u64));
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut next = || rng.next_u64();
    let inputs: Vec<ReduceUnitIn> = (0..PAIRS).map(|_| random_pair(&mut next)).collect();
    g.bench_function("step_mixed_ops", |bch| {
        bch.iter_batched(
            ReduceUnit::new,
            |mut u| {
                for i in &inputs {
                    black_box(u.step(i));
                }
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench_combine, bench_unit);
criterion_main!(benches);
