//! inswitch co-simulation harness: the Rust block models and their Verilated RTL driven in lockstep from
//! one seeded stimulus, every output compared on every cycle.
//!
//! Layers (docs/verification.md):
//! - [`inswitch_model::Block`] is the abstract DUT: a Rust model and a [`verilated::VerilatedDut`] both
//!   implement it with the same `In`/`Out` structs, whose fields are the RTL port names;
//! - [`stimulus`] holds the seeded generators (frames, idle gaps, backpressure, faults);
//! - [`checker::lockstep`] drives both, stops at the first differing output, and [`checker::run_target`]
//!   reruns a failing seed to write a waveform of the failing window;
//! - [`blocks`] has one module per block: its stimulus, its independent scoreboard, its targets;
//! - [`targets::TARGETS`] lists every (block, parameter set) the `inswitch cosim` command can run.
#![warn(missing_docs)]

pub mod bench;
pub mod blocks;
pub mod build_info;
pub mod checker;
pub mod coverage;
pub mod cross;
pub mod fpga;
pub mod hdl;
/// The table of Verilated models (shared with build.rs).
pub mod model_table;
pub mod mutation;
pub mod regress;
pub mod replay;
pub mod shrink;
pub mod sources;
pub mod stimulus;
pub mod targets;
pub mod verilated;
pub mod wave_model;

use std::path::PathBuf;

/// Errors of the harness itself (not mismatches: those are [`checker::Failure`]s).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// No Verilated model of that name is linked in.
    #[error("no Verilated model named `{name}` is linked in (known: {known})")]
    UnknownModel {
        /// The name asked for.
        name: String,
        /// The linked models.
        known: String,
    },
    /// The RTL ports and the Rust `In`/`Out` structs disagree.
    #[error("model `{model}`: ports do not match the Rust block: {detail}")]
    PortMismatch {
        /// The model.
        model: &'static str,
        /// What differs.
        detail: String,
    },
    /// A waveform could not be written.
    #[error("waveform {path}: {detail}")]
    Waveform {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// The Rust model and the Verilated model were built with different parameters.
    #[error("model `{model}`: {detail}")]
    Params {
        /// The model.
        model: &'static str,
        /// What differs.
        detail: String,
    },
    /// An input trace to replay could not be read.
    #[error("trace {path}: {detail}")]
    Trace {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// Coverage counts could not be written.
    #[error("coverage {path}: {detail}")]
    Coverage {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// A file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}
