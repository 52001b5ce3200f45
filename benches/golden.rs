//! The golden-model paths (docs/golden-model.md): the output queue stepped through the registry's
//! dynamic interface, as the DPI checker drives it (every input set, one step, every output read, per
//! cycle), vs the typed model called directly. The Verilator-side figures (SV bench with and without the
//! DPI checker, check-wave on a large dump) are measured by the commands in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use inswitch_model::output_queue::{OutputQueue, OutputQueueIn, OutputQueueParams};
use inswitch_model::registry;
use inswitch_model::Block;

const CYCLES: u64 = 10_000;

fn golden(c: &mut Criterion) {
    let mut g = c.benchmark_group("golden_output_queue");
    g.throughput(Throughput::Elements(CYCLES));
    g.bench_function("typed_step", |b| {
        let mut m = OutputQueue::new(OutputQueueParams { data_width: 64, ..Default::default() }).unwrap();
        let mut i = OutputQueueIn { m_axis_tready: true, s_axis_tkeep: 0xff, ..Default::default() };
        b.iter(|| {
            for n in 0..CYCLES {
                i.s_axis_tvalid = n % 3 != 0;
                i.s_axis_tlast = n % 7 == 0;
                i.s_axis_tdata.0[0] = n;
                std::hint::black_box(m.step(&i));
            }
        })
    });
    g.bench_function("registry_dyn_all_ports", |b| {
        let spec = registry::block("output_queue").unwrap();
        let mut m = spec.instantiate(&spec.params_from_str("DATA_WIDTH=64").unwrap()).unwrap();
        let ports = m.ports().to_vec();
        let mut w = [0u32; 16];
        b.iter(|| {
            for n in 0..CYCLES {
                for (k, p) in ports.iter().enumerate() {
                    if !p.output {
                        w[0] = (n as u32).wrapping_mul(k as u32 + 1);
                        m.set_input(k, &w).unwrap();
                    }
                }
                m.step();
                for (k, p) in ports.iter().enumerate() {
                    if p.output {
                        m.output(k, &mut w).unwrap();
                    }
                }
                std::hint::black_box(&w);
            }
        })
    });
    g.finish();
}

criterion_group!(benches, golden);
criterion_main!(benches);
