//! The golden-model paths (docs/golden-model.md): the output queue stepped through the registry's
//! dynamic interface port by port (every input set, one step, every output read, per cycle), through the
//! packed interface, and through the C ABI's one-call cycle (`inswitch_model_cycle`, what the generated
//! DPI checker calls once per cycle), vs the typed model called directly. All four drive the same inputs. The Verilator-side figures (SV bench with and without the
//! DPI checker, check-wave on a large dump) are measured by the commands in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use inswitch_model::output_queue::{OutputQueue, OutputQueueIn, OutputQueueParams};
use inswitch_model::registry;
use inswitch_model::Block;

#[path = "common/packed_drive.rs"]
mod packed_drive;
use packed_drive::{drive, packed_inputs};

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
        let port = |n: &str| m.port_index(n).unwrap();
        let (valid, last, data, keep, ready) = (port("s_axis_tvalid"), port("s_axis_tlast"), port("s_axis_tdata"), port("s_axis_tkeep"), port("m_axis_tready"));
        let ports = m.ports().to_vec();
        let mut w = [0u32; 16];
        b.iter(|| {
            for n in 0..CYCLES {
                for (k, _) in ports.iter().enumerate().filter(|(_, p)| !p.output) {
                    w[0] = match k {
                        _ if k == valid => u32::from(n % 3 != 0),
                        _ if k == last => u32::from(n % 7 == 0),
                        _ if k == data => n as u32,
                        _ if k == keep => 0xff,
                        _ if k == ready => 1,
                        _ => 0,
                    };
                    m.set_input(k, &w).unwrap();
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
    g.bench_function("registry_packed_cycle", |b| {
        let spec = registry::block("output_queue").unwrap();
        let mut m = spec.instantiate(&spec.params_from_str("DATA_WIDTH=64").unwrap()).unwrap();
        let (mut ins, offsets) = packed_inputs(m.ports());
        let mut outs = vec![0u32; registry::packed_bits(m.ports(), true).div_ceil(32)];
        b.iter(|| {
            for n in 0..CYCLES {
                drive(&mut ins, &offsets, n);
                m.set_inputs_packed(&ins).unwrap();
                m.step();
                m.outputs_packed(&mut outs).unwrap();
                std::hint::black_box(&outs);
            }
        })
    });
    g.bench_function("c_abi_cycle", |b| {
        let m = unsafe { inswitch_dpi::inswitch_model_new(c"output_queue".as_ptr(), c"DATA_WIDTH=64".as_ptr()) };
        assert!(!m.is_null());
        let spec = registry::block("output_queue").unwrap();
        let (mut ins, offsets) = packed_inputs(&spec.ports(&spec.params_from_str("DATA_WIDTH=64").unwrap()));
        // The vectors the generated checker passes for this block (`inswitch_model_cycle_256`: 8 words).
        let mut outs = [0u32; 8];
        ins.resize(8, 0);
        b.iter(|| {
            for n in 0..CYCLES {
                drive(&mut ins, &offsets, n);
                let st = unsafe { inswitch_dpi::inswitch_model_cycle(m, ins.as_ptr(), 8, outs.as_mut_ptr(), 8) };
                assert_eq!(st, 0);
                std::hint::black_box(&outs);
            }
        });
        unsafe { inswitch_dpi::inswitch_model_free(m) };
    });
    g.finish();
}


criterion_group!(benches, golden);
criterion_main!(benches);
