//! `check-wave --scoreboard`: a block's transaction-level scoreboard (the cosim's monitor,
//! `verif/blocks/<block>`) fed the dumped inputs and outputs of every cycle, with no lockstep model: for
//! a DUT whose cycle timing differs from the model's but whose transactions must be the same.

use inswitch::blocks::axis_register::AxisRegisterMonitor;
use inswitch::blocks::completion_builder::CompletionBuilderMonitor;
use inswitch::blocks::cpu::CpuMonitor;
use inswitch::blocks::frame_builder::FrameBuilderMonitor;
use inswitch::blocks::interposer::InterposerMonitor;
use inswitch::blocks::output_queue::OutputQueueMonitor;
use inswitch::blocks::reduce_unit::ReduceUnitMonitor;
use inswitch::blocks::register_space::RegisterSpaceMonitor;
use inswitch::checker::Monitor;
use inswitch_model::registry::{self, typed, ParamSet, PortInfo};
use inswitch_model::signal::Ports;

use super::cycles::{Counters, Scoreboard};

/// Why a block has no scoreboard usable on a dump alone: its scoreboard checks the DUT against what the
/// cosim's stimulus intended, which a dump does not carry.
const NOT_ALONE: [(&str, &str); 2] = [
    ("input_checker", "its scoreboard checks each frame's verdict against the label the cosim's stimulus gave it"),
    ("packet_engine", "its scoreboard reads the configuration and traffic plan the cosim's stimulus shares with it"),
];

/// `Ok` if `block` has a scoreboard usable on a dump alone, else the reason.
pub(super) fn usable(block: &str) -> Result<(), String> {
    match NOT_ALONE.iter().find(|(b, _)| *b == block) {
        Some((_, why)) => Err(format!("--scoreboard: block {block} has no scoreboard usable on a dump alone: {why}; check it in lockstep (without --scoreboard)")),
        None => Ok(()),
    }
}

/// The scoreboard of `block` at `params` over packed vectors of `ports` (inputs first).
pub(super) fn of(block: &str, params: &ParamSet, ports: &[PortInfo]) -> Result<(Scoreboard, Counters), String> {
    usable(block)?;
    Ok(match block {
        "output_queue" => board(OutputQueueMonitor::new(typed::output_queue(params)), ports),
        "axis_register" => board(AxisRegisterMonitor::new(), ports),
        "reduce_unit" => board(ReduceUnitMonitor::new(), ports),
        "register_space" => board(RegisterSpaceMonitor::new(), ports),
        "interposer" => board(InterposerMonitor::new(typed::interposer(params)), ports),
        "frame_builder" => board(FrameBuilderMonitor::new(), ports),
        "completion_builder" => board(CompletionBuilderMonitor::new(), ports),
        "cpu" => board(CpuMonitor::new(typed::cpu(params)), ports),
        other => return Err(format!("--scoreboard: block {other} has no scoreboard")),
    })
}

/// Monitor `m` fed typed ports unpacked from the packed vectors, and its counters as text.
fn board<I: Ports + 'static, O: Ports + 'static, M: Monitor<I, O> + 'static>(m: M, ports: &[PortInfo]) -> (Scoreboard, Counters) {
    let wi: Vec<u32> = ports.iter().filter(|p| !p.output).map(|p| p.width).collect();
    let wo: Vec<u32> = ports.iter().filter(|p| p.output).map(|p| p.width).collect();
    let m = std::rc::Rc::new(std::cell::RefCell::new(m));
    let m2 = m.clone();
    let observe = move |cycle: u64, ins: &[u32], outs: &[u32]| {
        let i: I = registry::unpack(ins, &wi);
        let o: O = registry::unpack(outs, &wo);
        m.borrow_mut().observe(cycle, &i, &o)
    };
    let counters = move || m2.borrow().counters().iter().map(|(n, v)| format!("{n} {v}")).collect::<Vec<_>>().join(", ");
    (Box::new(observe), Box::new(counters))
}
