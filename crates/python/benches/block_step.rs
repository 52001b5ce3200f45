//! The Rust side of docs/performance.md §Python binding: one clock cycle of a block model called from
//! Rust, (1) typed (`Block::step` on the model's own `In`/`Out` structs) and (2) through the registry's
//! type-erased `DynBlock` (every input set from 32-bit words, one step, every output read), on the same
//! stimulus as `verif/python/bench_block_step.py`, which times `inswitch.Block.step` from Python.
//! `cargo bench -p inswitch-python --bench block_step`.
//!
//! Each is measured twice: `block_step` in wall time (criterion's default) and `block_step_cpu` in CPU
//! time of the benchmarking thread (`CLOCK_THREAD_CPUTIME_ID`), the figure to compare with the
//! Python side's CPU-time rate when other processes share the cores.

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use inswitch_model::output_queue::{OutputQueue, OutputQueueIn};
use inswitch_model::reduce_unit::{ReduceUnit, ReduceUnitIn};
use inswitch_model::registry;
use inswitch_model::signal::{Block, Ports, MAX_PORT_WORDS};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Cycles of precomputed stimulus, replayed in a loop.
const STIMULUS_CYCLES: usize = 4096;

fn oq_stimulus(rng: &mut ChaCha8Rng) -> Vec<OutputQueueIn> {
    (0..STIMULUS_CYCLES)
        .map(|c| {
            let mut i = OutputQueueIn { rst: c < 2, ..OutputQueueIn::default() };
            for l in i.s_axis_tdata.0.iter_mut().take(4) {
                *l = rng.random();
            }
            i.s_axis_tkeep = u64::from(u32::MAX);
            i.s_axis_tvalid = rng.random_bool(0.7);
            i.s_axis_tlast = rng.random_bool(0.3);
            i.s_axis_tuser = 0x0100;
            i.m_axis_tready = rng.random_bool(0.7);
            i.cfg_route_wr_en = c == 3;
            i.cfg_route_wr_valid = true;
            i.cfg_route_wr_dest_id = 0x0100;
            i.cfg_route_wr_dest_mask = 0xff00;
            i
        })
        .collect()
}

fn ru_stimulus(rng: &mut ChaCha8Rng) -> Vec<ReduceUnitIn> {
    (0..STIMULUS_CYCLES)
        .map(|c| {
            let mut i = ReduceUnitIn { rst: c < 2, in_valid: rng.random_bool(0.85), ..ReduceUnitIn::default() };
            i.a_rt_op = [0x14, 0x11, 0x28, 0x30][c % 4];
            i.b_rt_op = i.a_rt_op;
            for l in 0..4 {
                i.a_rt_data.0[l] = rng.random();
                i.b_rt_data.0[l] = rng.random();
            }
            i
        })
        .collect()
}

/// CPU time the calling thread has run (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`: ns resolution, where
/// `/proc/thread-self/schedstat` only moves at scheduler ticks).
fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Criterion measurement in CPU time of the benchmarking thread (criterion runs the routine on it).
struct CpuTime;

/// Formats CPU durations as criterion formats wall durations.
static DURATION_FORMAT: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        thread_cpu()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        DURATION_FORMAT.formatter()
    }
}

fn typed<B: Block, M: Measurement>(c: &mut Criterion<M>, group: &str, name: &str, mut model: B, stim: &[B::In]) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(1));
    let mut n = 0usize;
    g.bench_function(format!("{name}/rust_typed"), |b| {
        b.iter(|| {
            n = (n + 1) % stim.len();
            std::hint::black_box(model.step(&stim[n]))
        })
    });
    g.finish();
}

fn erased<P: Ports, M: Measurement>(c: &mut Criterion<M>, group: &str, name: &str, stim: &[P]) {
    let spec = registry::block(name).expect("registered");
    let mut m = spec.instantiate(&spec.defaults()).expect("defaults build");
    let ports = m.ports().to_vec();
    let inputs = spec.input_count();
    // The words of every input port on every stimulus cycle, as a front end holds them.
    let words: Vec<Vec<[u32; MAX_PORT_WORDS]>> = stim
        .iter()
        .map(|s| {
            (0..inputs)
                .map(|i| {
                    let mut w = [0u32; MAX_PORT_WORDS];
                    s.port_to_words(i, &mut w);
                    w
                })
                .collect()
        })
        .collect();
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(1));
    let mut n = 0usize;
    let mut out = [0u32; MAX_PORT_WORDS];
    g.bench_function(format!("{name}/rust_registry"), |b| {
        b.iter(|| {
            n = (n + 1) % words.len();
            for (i, w) in words[n].iter().enumerate() {
                m.set_input(i, w).expect("input");
            }
            m.step();
            for i in inputs..ports.len() {
                m.output(i, &mut out).expect("output");
                std::hint::black_box(&out);
            }
        })
    });
    g.finish();
}

fn run<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let oq = oq_stimulus(&mut rng);
    let spec = registry::block("output_queue").expect("registered");
    typed(c, group, "output_queue", OutputQueue::new(registry::typed::output_queue(&spec.defaults())).expect("defaults"), &oq);
    erased(c, group, "output_queue", &oq);
    let ru = ru_stimulus(&mut rng);
    typed(c, group, "reduce_unit", ReduceUnit::new(), &ru);
    erased(c, group, "reduce_unit", &ru);
}

fn bench(c: &mut Criterion) {
    run(c, "block_step");
}

fn bench_cpu(c: &mut Criterion<CpuTime>) {
    run(c, "block_step_cpu");
}

criterion_group!(benches, bench);
criterion_group! {
    name = benches_cpu;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench_cpu
}
criterion_main!(benches, benches_cpu);
