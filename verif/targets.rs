//! Every co-simulation target: a block at one parameter set, with the Verilated model it runs against.
//!
//! The targets are the Verilated models of [`crate::model_table::MODELS`] (the table build.rs builds
//! from); each runs its block's lockstep bench from [`COSIM`]. Parameter names and defaults come from the
//! block registry ([`inswitch_model::registry`]).

use std::sync::LazyLock;

use inswitch_model::registry;

use crate::blocks;
use crate::checker::{Outcome, RunConfig, RunError};
use crate::model_table::MODELS;

/// One runnable (block, parameter set).
pub struct Target {
    /// Target name, equal to its Verilated model's name.
    pub name: &'static str,
    /// Block name (`--block`).
    pub block: &'static str,
    /// Data width in bits, where the block has one (`--width`).
    pub width: Option<u32>,
    /// The block's cosim bench.
    pub cosim: BlockRun,
}

impl Target {
    /// Where the regression pool takes this target's jobs: slower blocks first (their place in [`COSIM`]),
    /// and of one block the wider build first (its data path costs more per cycle).
    pub fn cost_rank(&self) -> (usize, std::cmp::Reverse<u32>) {
        let block = COSIM.iter().position(|(b, _)| *b == self.block).unwrap_or(COSIM.len());
        (block, std::cmp::Reverse(self.width.unwrap_or(0)))
    }

    /// Runs the target.
    pub fn run(&self, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
        (self.cosim)(self.name, cfg, progress)
    }
}

/// How a target runs: the Verilated model's name, the run's configuration and a progress callback
/// (cycles done) in, its outcome or the first failure out.
pub type BlockRun = fn(&str, &RunConfig, &mut dyn FnMut(u64)) -> Result<Outcome, RunError>;

/// The cosim side of the registry: each block's lockstep bench (stimulus, scoreboard, run), listed
/// slowest first (time per cycle, docs/performance.md §Parallel regression): the regression pool starts
/// the slow jobs first ([`Target::cost_rank`]) so that no worker is left alone with a long job at the end.
pub static COSIM: &[(&str, BlockRun)] = &[
    ("packet_engine", blocks::packet_engine::run),
    ("cpu", blocks::cpu::run),
    ("completion_builder", blocks::completion_builder::run),
    ("input_checker", blocks::input_checker::run),
    ("register_space", blocks::register_space::run),
    ("reduce_unit", blocks::reduce_unit::run),
    ("frame_builder", blocks::frame_builder::run),
    ("interposer", blocks::interposer::run),
    ("output_queue", blocks::output_queue::run),
    ("axis_register", blocks::axis_register::run),
];

/// The registry's parameters of Verilated model `model` (its overrides over the RTL defaults).
pub fn model_params(model: &str) -> Result<registry::ParamSet, crate::HarnessError> {
    let info = crate::verilated::model_info(model)?;
    let bad = |detail: String| crate::HarnessError::Params { model: info.name, detail };
    let spec = registry::block(info.top).map_err(|e| bad(e.to_string()))?;
    let text: Vec<String> = info.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    spec.params_from_str(&text.join(",")).map_err(|e| bad(e.to_string()))
}

/// Every target, in the order `inswitch cosim --block all` runs them.
pub static TARGETS: LazyLock<Vec<Target>> = LazyLock::new(|| {
    MODELS
        .iter()
        .map(|m| {
            let cosim = COSIM.iter().find(|(b, _)| *b == m.top).map(|(_, r)| *r);
            let cosim = cosim.unwrap_or_else(|| panic!("model {}: block {} has no cosim bench in COSIM", m.name, m.top));
            let width = model_params(m.name).ok().and_then(|p| p.get("DATA_WIDTH")).map(|w| w as u32);
            Target { name: m.name, block: m.top, width, cosim }
        })
        .collect()
});

/// Block names, without repeats, in target order.
pub fn blocks() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for t in TARGETS.iter() {
        if !v.contains(&t.block) {
            v.push(t.block);
        }
    }
    v
}

/// The targets selected by `--block` (a name or `all`) and an optional `--width`.
pub fn select(block: &str, width: Option<u32>) -> Vec<&'static Target> {
    TARGETS
        .iter()
        .filter(|t| block == "all" || t.block == block)
        .filter(|t| width.is_none() || t.width == width)
        .collect()
}
