//! Issue 23 point 2: the Rust model of the packet-engine top makes no heap allocation in a steady-state
//! cycle. A golden model is stepped billions of cycles inside other people's regressions; an allocation
//! per cycle (or per frame) is a cost added to each of them.
//!
//! A counting global allocator, scoped to this test binary (its own file, so no other test pays for it),
//! counts allocations made by the thread that arms it. The stimulus's inputs are recorded first (the
//! stimulus itself may allocate: it builds frames as `Vec`s), then a fresh model is stepped through the
//! recorded trace: a warm-up, then the counted cycles, which must allocate nothing. The trace is the top
//! cosim's constrained-random stimulus (configuration, both families' traffic, register reads and writes,
//! completions, backpressure, drains and resets), so every block moves frames during the counted cycles;
//! the test checks that too, so that it cannot pass on an idle engine.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use inswitch::blocks::packet_engine::{self, PacketEngineStimulus, Shared};
use inswitch::replay;
use inswitch_model::packet_engine::PacketEngine;
use inswitch_model::Block;

/// Counts the allocations (and reallocations) of the threads that armed it.
struct Counting;

thread_local! {
    /// Whether this thread's allocations are counted.
    static ARMED: Cell<bool> = const { Cell::new(false) };
    /// Allocations counted on this thread.
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the allocator can be called while a thread's locals are being torn down.
    let _ = ARMED.try_with(|a| {
        if a.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; counting touches only const-initialised
// thread locals (no allocation).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations `f` makes on this thread.
fn allocations_in(f: impl FnOnce()) -> u64 {
    COUNT.with(|c| c.set(0));
    ARMED.with(|a| a.set(true));
    f();
    ARMED.with(|a| a.set(false));
    COUNT.with(|c| c.get())
}

/// Cycles before counting starts: reset, the configuration burst and the first frames of every kind.
const WARM_UP: usize = 20_000;
/// Bit of the top's `stat_event` that pulses when the frame builder builds a frame (`fb_event[0]`,
/// rtl/packet_engine.v's event concatenation).
const FRAME_BUILT_EVENT: u32 = 25;
/// Cycles counted.
const COUNTED: usize = 200_000;

#[test]
fn the_counter_sees_an_allocation() {
    // The test below could pass on a counter that counts nothing.
    let n = allocations_in(|| {
        std::hint::black_box(vec![1u8; 64]);
    });
    assert_eq!(n, 1);
}

#[test]
fn packet_engine_top_allocates_nothing_per_cycle_once_warmed_up() {
    for seed in [1u64, 2, 3] {
        let p = packet_engine::params_of("packet_engine").expect("the top is linked");
        let inputs = replay::record(PacketEngine::power_on(p).unwrap(), PacketEngineStimulus::new(p, seed, Shared::default()), WARM_UP + COUNTED);
        let mut model = PacketEngine::power_on(p).unwrap();
        for i in &inputs[..WARM_UP] {
            model.step(i);
        }
        let (mut vl_beats, mut egress_beats, mut rsp, mut resets, mut built) = (0u64, 0u64, 0u64, 0u64, 0u64);
        let n = allocations_in(|| {
            for i in &inputs[WARM_UP..] {
                let o = model.step(i);
                vl_beats += u64::from(o.m_axis_vl_tvalid && i.m_axis_vl_tready);
                egress_beats += u64::from(o.m_axis_egress_tvalid && i.m_axis_egress_tready);
                rsp += u64::from(o.m_reg_rsp_valid);
                resets += u64::from(i.rst);
                built += u64::from(o.stat_event >> FRAME_BUILT_EVENT & 1);
            }
        });
        assert!(vl_beats > 1000 && egress_beats > 100 && rsp > 10 && built > 10, "seed {seed}: the counted cycles carry traffic (VL beats {vl_beats}, egress beats {egress_beats}, register responses {rsp}, frames built {built})");
        assert_eq!(n, 0, "seed {seed}: {n} heap allocations in {COUNTED} steady-state cycles of the packet-engine top ({resets} resets among them)");
    }
}
