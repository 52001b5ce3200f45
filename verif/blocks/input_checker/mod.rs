//! Co-simulation of the input checker: stimulus, independent scoreboard, targets.
//!
//! Stimulus (seeded, in phases): frames of both families built with the frames crate codecs
//! (`inswitch_frames`: TLP memory reads/writes to the register window, collective messages of every kind
//! as vendor-defined messages and as mailbox memory writes, with and without ECRC, with random TIDs;
//! Soft Portals reduction frames; PCIe 6 flit-mode MWr32/MWr64 from the flit codec, `stimulus/flit.rs`), each either valid or given exactly one defect whose drop reason is known (a CRC, tkeep,
//! length, EP, reserved bit (the collective header's flag bits 2:0 and nibble), address, Vendor ID, VDM DW3, collective version/kind/length/operand count,
//! EtherType, reduction header, VNI ...), plus random garbage and over-long frames; idle gaps inside and
//! between frames, backpressure on both outputs, configuration (validation enables, EtherType, allowed
//! VNIs) changed between frames, and resets in the middle of traffic.
//!
//! Scoreboard (independent of the cycle model): each generated frame carries its expected outcome,
//! computed from the codec's own representation of what was built (not from its bytes): every frame
//! that enters gets exactly one `stat_event` pulse, [`monitor::VERDICT_EDGES`] cycles after its last beat
//! (later by the cycles an output stalls the pipeline), naming its outcome;
//! an accepted frame's register access or normalized message equals the one the documented mapping
//! (docs/blocks/input_checker.md §Mapping) gives for the frame's repr; register and message outputs
//! leave once each.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use inswitch_model::input_checker::{CheckerParams, InputChecker, InputCheckerIn, InputCheckerOut};

use crate::checker::{self, Bench, Outcome, RunConfig, RunError};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated input checker.
pub type InputCheckerRtl = VerilatedDut<InputCheckerIn, InputCheckerOut>;

// One module per role; each imports what it uses, from its siblings and never from this module.
mod coverage;
mod monitor;
mod reference;
mod stimulus;

pub use coverage::{counter, verdict_cross};
pub use monitor::{InputCheckerMonitor, VERDICT_EDGES};
pub use reference::{expected_config_writes, expected_portals_msg, expected_tlp_msg, expected_ur, tlp_frame, Expect, Labels, UrExpect};
pub use stimulus::{InputCheckerStimulus, ENGINE_ID};

/// Parameters of a Verilated checker from its build.rs entry.
pub fn params_of(model: &str) -> Result<CheckerParams, HarnessError> {
    Ok(inswitch_model::registry::typed::input_checker(&crate::targets::model_params(model)?))
}

/// Builds a fresh lockstep bench for the Verilated checker `model` and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<InputChecker, InputCheckerRtl, InputCheckerStimulus, InputCheckerMonitor>, HarnessError> {
    let p = params_of(model)?;
    let info = crate::verilated::model_info(model)?;
    let m = InputChecker::new(p).map_err(|e| HarnessError::Params { model: info.name, detail: e.to_string() })?;
    let labels: Labels = Rc::new(RefCell::new(VecDeque::new()));
    Ok(Bench::new(m, InputCheckerRtl::new(model)?, InputCheckerStimulus::new(p, seed, labels.clone()), InputCheckerMonitor::with_width(labels, p.data_width)))
}

/// Runs an input-checker target (`input_checker_w256`, `input_checker_w64`).
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let width = params_of(model).map(|p| p.data_width).unwrap_or_default();
    let reproduce = move |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block input_checker --width {width} --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
