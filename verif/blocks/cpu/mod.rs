//! Co-simulation of the collective processing unit (`rtl/cpu.v` vs `inswitch_model::cpu::Cpu`):
//! stimulus, an independent transaction-level reference scoreboard, functional coverage, target.
//!
//! Stimulus (seeded): *episodes* of 20,000-120,000 cycles, each a reset, a configuration burst (engine
//! registers, PBV table with end devices, switches and invalid entries, up to 16 static contexts of both
//! families with random roles, wait counts, timeouts and thresholds), then traffic: TLP contexts
//! initialized, contributed to by their participants (in random order, sometimes missing, duplicated,
//! from strangers, from the wrong sender for a valid P_ID, with old or impossible TIDs, the wrong
//! kind), controlled (start, pause, restart, stop, reset, undefined commands; posted and non-posted,
//! the latter acknowledged; sometimes with a TID other than the context's: the copies carry the
//! context's), asked to resend by RETRY requests (from the parent or a participant), answered by a simulated parent (COMPLETION after
//! a random delay, or never: retries); Portals trees with up to three concurrent reductions armed and re-armed, contributions with
//! wrong VNI / cookie / seqno, opcode mismatches, partial counts, late frames, more contexts than
//! descriptors; unknown contexts and kinds; idle gaps and output backpressure in phases. Configuration is
//! written only in the window after a reset (docs/blocks/cpu.md §Ports).
//!
//! Scoreboard: [`Reference`], a transaction-level statement of docs/blocks/cpu.md written independently of the
//! cycle model. For every accepted message it predicts the event(s) on `stat_*` and every outgoing
//! message, field by field, in order; results are the fold (the model's arithmetic on the literal tables
//! of `crate::sources`) of exactly the contributions it accepted
//! (never an incremental accumulator). Timers (docs/blocks/cpu.md §Timers "Exact expiry"): the reference computes
//! each running timer's expiry cycle from its load, the cycle it started and the tick counter (ticks
//! every `TICK_CYCLES` from the last reset), not from the model; an expiry reported one cycle before the
//! sequencer could take it fails, a CPU still ready for messages on or after the expiry cycle fails (the
//! expiry is late). The sequencer is timed by docs/blocks/cpu.md §Sequencer timing from what the ports
//! show ([`Seq`]: each decision's hold, its EMIT list worked through on the observed output stalls), so
//! every expiry is taken on the documented idle cycle and must be reported exactly two cycles later,
//! whatever held the sequencer (a drop, a combine, an emission, another expiry); the CPU ready while the
//! documented sequencer is busy fails, and so does a message that appears on another cycle than the one
//! EMIT writes it on. Only an expiry no running timer explains (a timer frozen by PAUSE, resumed by
//! START: its remaining ticks are not counted) is left to "not early" (`timeouts_unpredicted`). When
//! `stat_*` reports an expiry it predicts the outcome; and every cycle it checks that no running timer is
//! overdue beyond the time a busy sequencer may take ("every armed context is freed after its timeout").


use inswitch_model::cpu::{
    Cpu, CpuIn, CpuOut, CpuParams,
};

use crate::checker::{self, Bench, Outcome, RunConfig, RunError};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated CPU.
pub type CpuRtl = VerilatedDut<CpuIn, CpuOut>;

/// Parameters of a Verilated model, from its build.rs entry, over the RTL defaults.
pub fn params_of(model: &str) -> Result<CpuParams, HarnessError> {
    Ok(inswitch_model::registry::typed::cpu(&crate::targets::model_params(model)?))
}

// One module per role; each imports what it uses, from its siblings and never from this module.
mod coverage;
mod monitor;
mod reference;
mod stimulus;

pub use coverage::{event_cross, REQUIRED};
pub use monitor::CpuMonitor;
pub use reference::Reference;
pub use stimulus::CpuStimulus;

/// Builds a fresh lockstep bench for the Verilated model `model` (a CPU) and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<Cpu, CpuRtl, CpuStimulus, CpuMonitor>, HarnessError> {
    let p = params_of(model)?;
    let cpu = Cpu::new(p).map_err(|e| HarnessError::Params { model: "cpu", detail: e.to_string() })?;
    Ok(Bench::new(cpu, CpuRtl::new(model)?, CpuStimulus::new(p, seed), CpuMonitor::new(p)))
}

/// Runs the CPU target `model`.
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let reproduce = |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block cpu --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
