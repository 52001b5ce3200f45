//! Speed of the packet-engine top: composed Rust model alone, Verilated RTL alone, and the lockstep pair
//! (both stepped and every output compared), on one recorded constrained-random input trace (seed 1:
//! configuration, both families' traffic, register writes, backpressure, drains and resets), at two
//! sizes: the small cosim top (`packet_engine`: 5 static entries, 3 descriptors) and the top at the seed's
//! static-table size (`packet_engine_full`: 4096 static entries, 8 descriptors, issue 19). Figures go to
//! docs/performance.md (`bash scripts/bench` prints the ratios). The harness is `inswitch::replay`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use inswitch::blocks::packet_engine::{self, PacketEngineRtl, PacketEngineStimulus, Shared};
use inswitch::replay::{self, Target};
use inswitch_model::packet_engine::PacketEngine;

/// Cycles per measured iteration.
const CYCLES: usize = 100_000;

/// The Verilated tops measured, each with the suffix of its criterion function names (build.rs's
/// `packet_engine` and `packet_engine_full`, verif/model_table.rs).
const SIZES: [(&str, &str); 2] = [("packet_engine", ""), ("packet_engine_full", "_full")];

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("packet_engine");
    g.throughput(Throughput::Elements(CYCLES as u64));
    g.sample_size(10);
    for (model, suffix) in SIZES {
        let p = packet_engine::params_of(model).unwrap();
        // Each size replays its own trace, recorded at its parameters (the stimulus configures the
        // entries the parameters allow), so the two sizes' work differs a little.
        let inputs = replay::record(PacketEngine::power_on(p).unwrap(), PacketEngineStimulus::new(p, 1, Shared::default()), CYCLES);
        for t in Target::ALL {
            g.bench_function(format!("{}{suffix}", t.name()), |b| {
                b.iter_batched(
                    || (PacketEngine::power_on(p).unwrap(), PacketEngineRtl::new(model).unwrap()),
                    |pair| replay::replay_fresh(t, pair, &inputs),
                    BatchSize::LargeInput,
                )
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
