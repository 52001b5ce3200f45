//! Co-simulation of the packet-engine top (`rtl/packet_engine.v`, docs/blocks/packet_engine.md).
//!
//! Stimulus (seeded, in episodes): a reset; then a credit-respecting link partner sends the configuration
//! as memory writes into the engine's window: the CPU's through the register space's CPU window (ENGINE_SFA,
//! PBV entries and flags, timeouts, five static entries of both families; the engine ID is the strap) and
//! the rest of the register space (VNI, routes to this port and to another, multicast trees, sometimes the
//! lock and MASTER_ID), with one CPU back-door write (`cpu_cfg_wr_*`) after the post-reset copy; followed by
//! a random mix of frames built with the frames crate: register writes (authorized and not, mapped and
//! not), register reads (answered by completions; 2-DW and mailbox reads get Unsupported Requests),
//! collective messages of
//! every kind to configured and unknown contexts (with the context's TID as the CPU's events show it,
//! or one behind, or random: 001's `OLD_TID` / `BAD_TID` end to end), Soft Portals arm and data frames on armed and unarmed
//! trees with allowed and foreign VNIs, frames for other devices (pass-through), malformed frames (bad
//! LCRC/FCS, random bytes, wrong EtherType); the port family changes between frames. Every sink (VL queue,
//! egress, register responses) stalls in phases and the VL queue returns credits at random rates. A
//! quarter of the phases are emit phases ([`TrafficMode::Emit`]): frames that make the engine emit into
//! this port while the VL queue returns its slots slowly, which reaches the interposer's start contention
//! (counted: `start_contention_cycles`). Each episode ends with a drain (no new frame, every sink ready)
//! and the scoreboard's balance check.
//!
//! Scoreboard (transaction level, from the top's ports only): every receive frame either leaves on
//! `m_axis_vl` whole and in order among the passed frames, or is extracted; extracted frames = checker
//! outcomes (register access + message + counted drop reasons); register accesses = responses (the
//! `m_reg_rsp` tap); non-posted accesses = completions: register reads answered OK = CplD, reads the
//! register space rejected = Completer Aborts, writes = posted responses (no completion), Unsupported
//! Requests ≥ unmapped reads (the rest are the checker's dropped non-posted requests); frames the VL queue
//! gets that did not come from the port = injections (collective frames or completions with a good LCRC
//! that parse); frames built + completions = injected + egress + route misses; egress frames carry a tdest
//! other than this port; and after each drain the credits balance: partner credits + injection credits =
//! the VL depth, injection credits = `INJ_CREDITS`.

use inswitch_model::packet_engine::PacketEngine;

use crate::checker::{self, Bench, Outcome, RunConfig, RunError};
use crate::HarnessError;

// One module per role, and `shared` for what they share (a sibling, so that no role imports this module).
mod directed;
mod monitor;
mod shared;
mod stimulus;

pub use directed::{flit_write_frame, DirectedStimulus, Recorder};
pub use monitor::{completion_of, malformed_engine_frame, PacketEngineMonitor, COUNTERS, N_COUNTERS};
pub use stimulus::{reg_read_frame, reg_write_frame, PacketEngineStimulus};
pub use shared::{
    params_of, ObservedEngine, PacketEngineRtl, Shared, TrafficMode, CPU_BACK_DOOR_DELAY, EMIT_PHASE_WEIGHT, ENGINE_ID,
    LIVENESS_CYCLES, LONG_CONFIG_TAGS, MASTER, OTHER_PORT, PORT, VL_DEPTH,
};

/// Builds a fresh lockstep bench for the Verilated top `model` and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<ObservedEngine, PacketEngineRtl, PacketEngineStimulus, PacketEngineMonitor>, HarnessError> {
    let p = params_of(model)?;
    let m = PacketEngine::power_on(p).map_err(|e| HarnessError::Params { model: "packet_engine", detail: e.to_string() })?;
    let shared = Shared::default();
    let m = ObservedEngine::new(m, shared.clone());
    Ok(Bench::new(m, PacketEngineRtl::new(model)?, PacketEngineStimulus::new(p, seed, shared.clone()), PacketEngineMonitor::new(shared, p)))
}

/// Runs the top target `model`.
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let reproduce = |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block packet_engine --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
