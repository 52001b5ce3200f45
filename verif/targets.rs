//! Every co-simulation target: a block at one parameter set, with the Verilated model it runs against.

use crate::checker::{FailureReport, Outcome, RunConfig};
use crate::blocks;

/// One runnable (block, parameter set).
pub struct Target {
    /// Target name, equal to its Verilated model's name.
    pub name: &'static str,
    /// Block name (`--block`).
    pub block: &'static str,
    /// Data width in bits, where the block has one (`--width`).
    pub width: Option<u32>,
    /// Runs the target.
    pub run: RunFn,
}

/// How a target runs: the run's configuration and a progress callback (cycles done) in, its outcome or
/// the first failure out.
pub type RunFn = fn(&RunConfig, &mut dyn FnMut(u64)) -> Result<Outcome, Box<FailureReport>>;

/// Every target, in the order `inswitch cosim --block all` runs them.
pub static TARGETS: &[Target] = &[
    Target {
        name: "output_queue_w256",
        block: "output_queue",
        width: Some(256),
        run: |cfg, progress| blocks::output_queue::run("output_queue_w256", cfg, progress),
    },
    Target {
        name: "output_queue_w64",
        block: "output_queue",
        width: Some(64),
        run: |cfg, progress| blocks::output_queue::run("output_queue_w64", cfg, progress),
    },
    Target {
        name: "axis_register",
        block: "axis_register",
        width: None,
        run: |cfg, progress| blocks::axis_register::run("axis_register", cfg, progress),
    },
    Target {
        name: "reduce_unit",
        block: "reduce_unit",
        width: None,
        run: |cfg, progress| blocks::reduce_unit::run("reduce_unit", cfg, progress),
    },
    Target {
        name: "register_space",
        block: "register_space",
        width: None,
        run: |cfg, progress| blocks::register_space::run("register_space", cfg, progress),
    },
    Target {
        name: "input_checker_w256",
        block: "input_checker",
        width: Some(256),
        run: |cfg, progress| blocks::input_checker::run("input_checker_w256", cfg, progress),
    },
    Target {
        name: "input_checker_w64",
        block: "input_checker",
        width: Some(64),
        run: |cfg, progress| blocks::input_checker::run("input_checker_w64", cfg, progress),
    },
    Target {
        name: "interposer",
        block: "interposer",
        width: Some(256),
        run: |cfg, progress| blocks::interposer::run("interposer", cfg, progress),
    },
    Target {
        name: "frame_builder_w256",
        block: "frame_builder",
        width: Some(256),
        run: |cfg, progress| blocks::frame_builder::run("frame_builder_w256", cfg, progress),
    },
    Target {
        name: "frame_builder_w64",
        block: "frame_builder",
        width: Some(64),
        run: |cfg, progress| blocks::frame_builder::run("frame_builder_w64", cfg, progress),
    },
    Target {
        name: "completion_builder",
        block: "completion_builder",
        width: Some(256),
        run: |cfg, progress| blocks::completion_builder::run("completion_builder", cfg, progress),
    },
    Target { name: "cpu", block: "cpu", width: None, run: |cfg, progress| blocks::cpu::run("cpu", cfg, progress) },
    Target {
        name: "packet_engine",
        block: "packet_engine",
        width: Some(256),
        run: |cfg, progress| blocks::packet_engine::run("packet_engine", cfg, progress),
    },
];

/// Block names, without repeats, in target order.
pub fn blocks() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for t in TARGETS {
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
