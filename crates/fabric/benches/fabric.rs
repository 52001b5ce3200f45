//! One all-reduce (INT_SUM) on flattened butterflies of 32, 128 and 512 switches x 32 end nodes (1024,
//! 4096, 16384 end nodes), realistic mode: the cycle-level engine in every switch (hierarchical plan,
//! idle-cycle skipping), 100 ns per hop, Table 1's frame sizes. One iteration is the whole run:
//! building the fabric, configuring the engines through their ports, the command, the responses and the
//! result. `cargo bench -p inswitch-fabric --bench fabric`; figures in docs/performance.md. The group
//! `all_reduce_63` is issue 23's 63-end-node shape at 1,008 and 64,512 end nodes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use inswitch_fabric::scenario::{run_collective, table1_spec, Mode, DEFAULT_HOP_LATENCY_PS};
use inswitch_fabric::setup::Arrangement;

/// One group: the hierarchical all-reduce of `table1_spec` on each switch count, `per_switch` end nodes
/// per switch; criterion's elements/s are end nodes per second.
fn all_reduce_group(c: &mut Criterion, name: &str, per_switch: usize, switch_counts: &[usize]) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    for &switches in switch_counts {
        let spec = table1_spec(switches, per_switch, Arrangement::Hierarchical, Mode::Realistic, DEFAULT_HOP_LATENCY_PS);
        let endpoints = switches * per_switch;
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

fn all_reduce(c: &mut Criterion) {
    all_reduce_group(c, "all_reduce", 32, &[32, 128, 512]);
}

/// Issue 23's scaling check: the same all-reduce on the 63-end-node shape at 1,008 and at 64,512 end
/// nodes (16 and 1,024 switches, every 16-bit device ID at the larger); the ratio of the two elements/s
/// is the per-end-node cost's (within ±10% is the goal, docs/performance.md §Session 19).
fn all_reduce_63(c: &mut Criterion) {
    all_reduce_group(c, "all_reduce_63", 63, &[16, 1024]);
}

criterion_group!(benches, all_reduce, all_reduce_63);
criterion_main!(benches);
