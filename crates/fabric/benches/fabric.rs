//! One all-reduce (INT_SUM) on flattened butterflies of 32, 128 and 512 switches x 32 end nodes (1024,
//! 4096, 16384 end nodes), realistic mode: the cycle-level engine in every switch (hierarchical plan,
//! idle-cycle skipping), 100 ns per hop, Table 1's frame sizes. One iteration is the whole run:
//! building the fabric, configuring the engines through their ports, the command, the responses and the
//! result. `cargo bench -p inswitch-fabric --bench fabric`; figures in docs/performance.md. The group
//! `all_reduce_63` is issue 23's 63-end-node shape at 1,008 and 64,512 end nodes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use inswitch_fabric::scenario::{run_collective, table1_spec, Mode, DEFAULT_HOP_LATENCY_PS};
use inswitch_fabric::setup::Arrangement;

fn all_reduce(c: &mut Criterion) {
    let mut g = c.benchmark_group("all_reduce");
    g.sample_size(10);
    for switches in [32usize, 128, 512] {
        let spec = table1_spec(switches, 32, Arrangement::Hierarchical, Mode::Realistic, DEFAULT_HOP_LATENCY_PS);
        let endpoints = switches * 32;
        g.throughput(Throughput::Elements(endpoints as u64));
        g.bench_with_input(BenchmarkId::from_parameter(endpoints), &spec, |b, spec| {
            b.iter(|| {
                let (r, _) = run_collective(spec, &mut |_| {});
                assert_eq!(r.result_value, r.expected_value);
                r.engine_steps
            })
        });
    }
    g.finish();
}

/// Issue 23's scaling check: the same all-reduce on the 63-end-node shape at 1,008 and at 64,512 end
/// nodes (16 and 1,024 switches, every 16-bit device ID at the larger); criterion's elements/s are end
/// nodes per second, whose ratio is the per-end-node cost's (within ±10% is the goal, docs/performance.md
/// §Session 19).
fn all_reduce_63(c: &mut Criterion) {
    const PER_SWITCH: usize = 63;
    let mut g = c.benchmark_group("all_reduce_63");
    g.sample_size(10);
    for switches in [16usize, 1024] {
        let spec = table1_spec(switches, PER_SWITCH, Arrangement::Hierarchical, Mode::Realistic, DEFAULT_HOP_LATENCY_PS);
        let endpoints = switches * PER_SWITCH;
        g.throughput(Throughput::Elements(endpoints as u64));
        g.bench_with_input(BenchmarkId::from_parameter(endpoints), &spec, |b, spec| {
            b.iter(|| {
                let (r, _) = run_collective(spec, &mut |_| {});
                assert_eq!(r.result_value, r.expected_value);
                r.engine_steps
            })
        });
    }
    g.finish();
}

criterion_group!(benches, all_reduce, all_reduce_63);
criterion_main!(benches);
