//! The arguments of `inswitch check-wave`, in a module of their own so that the per-edge code
//! (`cycles`) and the entry point both read them without a use circle.

use std::path::PathBuf;

/// Arguments of `inswitch check-wave`.
#[derive(clap::Args, Clone)]
pub struct Args {
    /// Block (its RTL module name), e.g. output_queue.
    #[arg(long)]
    pub(super) block: String,
    /// Waveform file: .vcd or .fst.
    #[arg(long)]
    pub(super) wave: PathBuf,
    /// Hierarchical path of the block instance in the dump, dot-separated (e.g. TOP.tb.dut).
    #[arg(long)]
    pub(super) scope: String,
    /// Clock port name in the instance's scope.
    #[arg(long, default_value = "clk")]
    pub(super) clock: String,
    /// An RTL parameter of the instance, NAME=VALUE (repeatable); others at their RTL defaults.
    #[arg(long = "param")]
    pub(super) params: Vec<String>,
    /// Compare from the first edge (not only after the first reset).
    #[arg(long)]
    pub(super) from_start: bool,
    /// Read X and Z bits as 0 instead of reporting them.
    #[arg(long)]
    pub(super) x_as_zero: bool,
    /// Stop after this many rising edges.
    #[arg(long)]
    pub(super) cycles: Option<u64>,
    /// Instead of the lockstep model, run the block's transaction-level scoreboard over the dumped ports
    /// alone (for a DUT whose timing differs from the model's; every block but input_checker and
    /// packet_engine, whose scoreboards read what the cosim's stimulus meant).
    #[arg(long)]
    pub(super) scoreboard: bool,
}
