//! The speed benches' record/replay harness (`benches/cosim.rs`, `cpu.rs`, `packet_engine.rs`; figures
//! in docs/performance.md): a seeded stimulus's inputs are recorded once against the model, then every
//! measured iteration replays the same trace into the Rust model alone, the Verilated RTL alone, or both
//! in lockstep with every output compared, so the three speeds are measured on identical input.

use std::hint::black_box;

use inswitch_model::Block;

use crate::bench::{Rtl, Stimulus};

/// What one replay drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The Rust model alone.
    Model,
    /// The Verilated RTL alone (through the cosim's FFI).
    Verilator,
    /// Both, every output compared on every cycle.
    Lockstep,
}

impl Target {
    /// Every target, in the order the benches report them.
    pub const ALL: [Target; 3] = [Target::Model, Target::Verilator, Target::Lockstep];

    /// The criterion function name.
    pub fn name(self) -> &'static str {
        match self {
            Target::Model => "rust_model",
            Target::Verilator => "verilator",
            Target::Lockstep => "lockstep",
        }
    }
}

/// The inputs `stimulus` produces in `cycles` cycles against `model` (each cycle's inputs depend on the
/// previous outputs): replaying them into a fresh model or RTL reproduces the run.
pub fn record<M: Block, S: Stimulus<M::In, M::Out>>(mut model: M, mut stimulus: S, cycles: usize) -> Vec<M::In> {
    let mut previous = M::Out::default();
    (0..cycles)
        .map(|_| {
            let i = stimulus.next(&previous);
            previous = model.step(&i);
            i
        })
        .collect()
}

/// Replays `inputs` into `target` (`model` and `rtl` fresh). A lockstep difference panics: the cosim
/// tests check the same pair on far longer traces, so it would be a broken build, not a measurement.
pub fn replay<M, R>(target: Target, model: &mut M, rtl: &mut R, inputs: &[M::In])
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
{
    // One loop per target, so that the measured loop holds nothing but the steps.
    match target {
        Target::Model => inputs.iter().for_each(|i| {
            black_box(model.step(i));
        }),
        Target::Verilator => inputs.iter().for_each(|i| {
            black_box(rtl.step(i));
        }),
        Target::Lockstep => inputs.iter().for_each(|i| assert_eq!(model.step(i), rtl.step(i))),
    }
}

/// [`replay`] on a fresh pair that it takes and gives back, for criterion's `iter_batched`: a routine's
/// output is dropped after the timing ends, so the measured time holds the steps and not the drop of the
/// models. The drop is not small: freeing a Verilated top took 0.03-9 ms (session 21, measured beside the
/// benches), against 11-16 ms for the Rust model's 100,000 cycles, so a bench that dropped its pair inside
/// the routine measured the allocator as much as the model (docs/performance.md §Session 21).
pub fn replay_fresh<M, R>(target: Target, (mut model, mut rtl): (M, R), inputs: &[M::In]) -> (M, R)
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
{
    replay(target, &mut model, &mut rtl, inputs);
    (model, rtl)
}
