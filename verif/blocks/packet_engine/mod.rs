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

use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ControlBody, DataFixed, ErrorBody, InitBody};
use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
use inswitch_frames::portals::{ReductionFrame, ReductionHeader};
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::cpu::context::role;
use inswitch_model::cpu::event as cpu_event;
use inswitch_model::packet_engine::{EngineIn, EngineOut, EngineParams, PacketEngine};
use inswitch_model::{Block, Wide};
use rand::RngExt;

use crate::blocks::input_checker::tlp_frame;
use crate::checker::{self, Bench, Monitor, Outcome, RunConfig, RunError, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{Gaps, Phases, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// Cycles after a reset before the stimulus uses the CPU back door (`cpu_cfg_wr_*`): the register space's
/// post-reset copy to the CPU (10 writes from the second cycle after the reset) has priority over it.
pub const CPU_BACK_DOOR_DELAY: u64 = 12;

/// The Verilated top.
pub type PacketEngineRtl = VerilatedDut<EngineIn, EngineOut>;

/// The engine's device ID (strap).
pub const ENGINE_ID: u16 = 0x0010;
/// This port's number (strap); the output queue's port 7 is injection.
pub const PORT: u8 = 7;
/// The other port the routes use.
pub const OTHER_PORT: u8 = 3;
/// The configuring master's requester ID.
pub const MASTER: u16 = 0x0001;
/// VL-queue depth of the testbench, in beat slots.
pub const VL_DEPTH: i64 = 24;
const ETHERTYPE: u16 = 0x88B5;
const VNI: u16 = 0x0042;
/// Participants (PBV table entries 0-3 of the CPU).
const PARTICIPANTS: [u16; 4] = [0x0011, 0x0012, 0x0013, 0x8014];
/// TLP contexts with a static entry (CC_ID).
const TLP_CTX: [u16; 3] = [1, 2, 3];
/// Multicast trees armed in the interposer (wait count > 0) and their static entries.
const TREES: [u16; 2] = [3, 5];
const RESET_CYCLES: u64 = 3;
/// The 2-bit transaction ID's mask (001; `collective::TID_BITS`).
const TID_MASK: u8 = (1 << collective::TID_BITS) - 1;
const DRAIN_CYCLES: u64 = 3000;

/// Traffic mode of a stimulus phase, drawn with every new phase (docs/verification.md §Packet-engine top).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrafficMode {
    /// The random mix of every frame kind, sinks and credit returns as the phase's profile says.
    Mixed,
    /// Emission pressure: back-to-back frames that make the engine emit frames for this port (CONTROL
    /// commands the CPU replicates to every PBV participant and acknowledges, acknowledged
    /// INITIALIZATIONs, register reads answered by completions), while the VL queue returns its slots
    /// slowly. The injection reserve runs dry, the output queue and everything behind it back up to the
    /// interposer's extraction path, and receive frame starts wait behind it while the engine has frames
    /// to inject: the interposer's start contention (docs/blocks/interposer.md §Arbitration).
    Emit,
}

/// Probability that a phase is an [`TrafficMode::Emit`] phase.
pub const EMIT_PHASE_WEIGHT: f64 = 0.25;
/// The VL queue's chance per cycle of returning slots during an emit phase: one or two slots about every
/// tenth cycle, well below the rate at which the CPU emits, so that the injection reserve is the
/// bottleneck.
const EMIT_DRAIN: f64 = 0.1;
/// PBV of the INITIALIZATIONs of an emit phase: the three participants routed to this port.
const EMIT_PBV: u128 = 0b0111;

/// Parameters of a Verilated top, from its build.rs entry over the RTL defaults.
pub fn params_of(model: &str) -> Result<EngineParams, HarnessError> {
    Ok(inswitch_model::registry::typed::packet_engine(&crate::targets::model_params(model)?))
}

// One module per role; each takes the imports and shared items above with `use super::*`.
mod directed;
mod monitor;
mod stimulus;

pub use directed::{DirectedStimulus, Recorder};
pub use monitor::{completion_of, malformed_engine_frame, PacketEngineMonitor, COUNTERS, N_COUNTERS};
pub use stimulus::{reg_read_frame, reg_write_frame, PacketEngineStimulus};
use monitor::append;
use stimulus::{hold_rx, LinkPartner};

/// What the stimulus tells the scoreboard: the cycle to check the balances on (end of a drain), the
/// receive beats and frames it still had to send then, and its seed (for liveness messages).
#[derive(Clone, Default)]
pub struct Shared {
    check: Rc<Cell<bool>>,
    unsent: Rc<Cell<(usize, usize)>>,
    seed: Rc<Cell<u64>>,
    /// The model's interposer start contention of this cycle ([`ObservedEngine`]).
    contention: Rc<Cell<bool>>,
}

/// The top's model as the lockstep steps it, passing the interposer's start contention
/// ([`PacketEngine::start_contention`], a model observation the RTL has no port for) to the scoreboard
/// for functional coverage. Its outputs are the model's, unchanged.
pub struct ObservedEngine {
    engine: PacketEngine,
    shared: Shared,
}

impl ObservedEngine {
    /// Wraps `engine`, reporting into `shared`.
    pub fn new(engine: PacketEngine, shared: Shared) -> Self {
        ObservedEngine { engine, shared }
    }

    /// The wrapped model.
    pub fn engine(&self) -> &PacketEngine {
        &self.engine
    }
}

impl Block for ObservedEngine {
    type In = EngineIn;
    type Out = EngineOut;

    fn step(&mut self, i: &EngineIn) -> EngineOut {
        let o = self.engine.step(i);
        self.shared.contention.set(self.engine.start_contention());
        o
    }
}

/// Cycles the scoreboard allows without progress (a beat taken on any port, a register response, an
/// event, a credit returned) while work is pending (a receive beat offered, an output valid) before it
/// reports a deadlock. The stimulus's sinks stall in gaps that continue with probability at most 0.95
/// per cycle (`stimulus::Profile`), so a legitimate 5,000-cycle standstill has a probability below
/// 10^-100; the engine's deepest pipeline is 35 cycles.
pub const LIVENESS_CYCLES: u64 = 5_000;

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
