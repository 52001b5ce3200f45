//! One all-reduce (INT_SUM) on flattened butterflies of 32, 128 and 512 switches x 32 end nodes (1024,
//! 4096, 16384 end nodes), realistic mode: the cycle-level engine in every switch (hierarchical plan,
//! idle-cycle skipping), 100 ns per hop, Table 1's frame sizes. One iteration is the whole run:
//! building the fabric, configuring the engines through their ports, the command, the responses and the
//! result. `cargo bench -p inswitch-fabric --bench fabric`; figures in docs/performance.md.

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

criterion_group!(benches, all_reduce);
criterion_main!(benches);
