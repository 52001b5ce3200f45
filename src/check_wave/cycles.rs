//! The per-edge work of `inswitch check-wave`, shared by both ways of reading a dump (a loaded VCD, a
//! streamed FST): the sampled ports kept packed, one model step or scoreboard call per rising edge, the
//! comparison, and the reports.

use std::process::ExitCode;

use inswitch::checker::hex;
use inswitch_model::registry::{self, DynBlock, PortInfo};
use inswitch_model::signal::MAX_PORT_WORDS;

use super::Args;

/// A transaction-level scoreboard fed one cycle of packed inputs and outputs.
pub(super) type Scoreboard = Box<dyn FnMut(u64, &[u32], &[u32]) -> Result<(), String>>;
/// Its event counters as text.
pub(super) type Counters = Box<dyn Fn() -> String>;

/// What the caller does after an edge.
pub(super) enum Flow {
    /// Read on.
    Go,
    /// Stop reading: the check has its answer (a mismatch, or `--cycles` reached).
    Stop,
}

/// The instance's ports as sampled so far, and the check's state across edges.
pub(super) struct Cycles<'a> {
    a: &'a Args,
    block: &'static str,
    params: String,
    unit: String,
    model: Box<dyn DynBlock>,
    ports: Vec<PortInfo>,
    inputs: usize,
    /// Bit offset of every port in the packed vector of its direction (registry::packed_bits layout):
    /// the model takes all inputs in one call and gives all outputs in one, and the dumped outputs are
    /// kept packed the same way, so a cycle compares one vector.
    offsets: Vec<usize>,
    ins: Vec<u32>,
    dumped: Vec<u32>,
    expected: Vec<u32>,
    /// The value applied last has no X/Z bits (before any change: 0, known).
    known: Vec<bool>,
    rst: Option<usize>,
    armed: bool,
    limit: u64,
    /// Rising edges seen (the next edge's cycle number).
    edges: u64,
    compared: u64,
    board: Option<(Scoreboard, Counters)>,
    /// Set when the check has its answer: the command's exit status.
    pub(super) verdict: Option<ExitCode>,
}

impl<'a> Cycles<'a> {
    pub(super) fn new(a: &'a Args, block: &'static str, params: String, unit: String, model: Box<dyn DynBlock>, inputs: usize, board: Option<(Scoreboard, Counters)>) -> Self {
        let ports = model.ports().to_vec();
        let mut offsets = Vec::with_capacity(ports.len());
        let mut at = [0usize; 2];
        for p in &ports {
            let d = usize::from(p.output);
            offsets.push(at[d]);
            at[d] += p.width as usize;
        }
        let dumped = vec![0u32; at[1].div_ceil(32).max(1)];
        let rst = ports.iter().position(|p| p.name == "rst" && !p.output);
        Cycles {
            a,
            block,
            params,
            unit,
            inputs,
            offsets,
            ins: vec![0u32; at[0].div_ceil(32).max(1)],
            expected: dumped.clone(),
            dumped,
            known: vec![true; ports.len()],
            armed: a.from_start || rst.is_none(),
            rst,
            limit: a.cycles.unwrap_or(u64::MAX),
            edges: 0,
            compared: 0,
            board,
            verdict: None,
            model,
            ports,
        }
    }

    /// The message of a dump that cannot be read.
    pub(super) fn unreadable(&self, why: impl std::fmt::Display) -> String {
        format!("cannot read waveform {}: {why}", self.a.wave.display())
    }

    /// The block's ports, inputs first (the model's order).
    pub(super) fn ports(&self) -> &[PortInfo] {
        &self.ports
    }

    /// Port `port` changed: to `value` (little-endian words), or to a value with X/Z bits (`None`,
    /// kept as 0).
    pub(super) fn set(&mut self, port: usize, value: Option<&[u32]>) {
        let p = &self.ports[port];
        self.known[port] = value.is_some();
        let dst = if p.output { &mut self.dumped } else { &mut self.ins };
        let zero = [0u32; MAX_PORT_WORDS];
        registry::write_bits(dst, self.offsets[port], p.width as usize, value.unwrap_or(&zero[..p.words()]));
    }

    /// A rising edge of the clock at `time`, with every port as it was just before it (every change at
    /// an earlier time applied, none at `time`). Errors are the user's (X/Z bits).
    pub(super) fn edge(&mut self, time: u64) -> Result<Flow, String> {
        let cycle = self.edges;
        if cycle >= self.limit {
            return Ok(Flow::Stop);
        }
        self.edges += 1;
        if !self.a.x_as_zero && self.armed {
            // X/Z bits were stored as 0: an error on inputs once armed, and on compared outputs.
            if let Some(p) = self.known.iter().position(|k| !k) {
                return Err(x_error(self.a, &self.ports[p], time, cycle));
            }
        }
        if let Some((observe, _)) = self.board.as_mut() {
            // No lockstep partner: the scoreboard sees the dumped inputs and outputs of every cycle.
            if let Err(why) = observe(cycle, &self.ins, &self.dumped) {
                println!("check-wave: SCOREBOARD FAILURE in block {} at scope {}", self.block, self.a.scope);
                println!("  at time {time} ({}), cycle {cycle} (rising edge {} of {}): {why}", self.unit, cycle + 1, self.a.clock);
                self.verdict = Some(ExitCode::FAILURE);
                return Ok(Flow::Stop);
            }
            self.compared += 1;
            return Ok(Flow::Go);
        }
        self.model.set_inputs_packed(&self.ins).map_err(|e| e.to_string())?;
        self.model.step();
        if self.armed {
            self.model.outputs_packed(&mut self.expected).map_err(|e| e.to_string())?;
            if self.expected != self.dumped {
                let p = (self.inputs..self.ports.len()).find(|&p| self.field(&self.expected, p) != self.field(&self.dumped, p)).expect("a differing vector has a differing port");
                report(self.a, self.block, &self.ports[p], time, cycle, &self.field(&self.expected, p), &self.field(&self.dumped, p), &self.unit);
                self.verdict = Some(ExitCode::FAILURE);
                return Ok(Flow::Stop);
            }
            self.compared += 1;
        }
        if let Some(r) = self.rst {
            if self.known[r] && self.field(&self.ins, r)[0] & 1 == 1 {
                self.armed = true;
            }
        }
        Ok(Flow::Go)
    }

    /// Port `p`'s words from the packed vector of its direction.
    fn field(&self, packed: &[u32], p: usize) -> [u32; MAX_PORT_WORDS] {
        let mut w = [0u32; MAX_PORT_WORDS];
        registry::read_bits(packed, self.offsets[p], self.ports[p].width as usize, &mut w);
        w
    }

    /// The end of the dump: the verdict, or the summary line.
    pub(super) fn finish(self) -> Result<ExitCode, String> {
        if let Some(v) = self.verdict {
            return Ok(v);
        }
        if self.edges == 0 {
            return Err(format!("clock `{}` never rises in {} (no 0 -> 1 change)", self.a.clock, self.a.wave.display()));
        }
        if let Some((_, counters)) = &self.board {
            println!("check-wave: block {} at scope {} ({}): scoreboard over {} cycles, 0 failures ({})", self.block, self.a.scope, self.params, self.compared, counters());
            return Ok(ExitCode::SUCCESS);
        }
        println!(
            "check-wave: block {} at scope {} ({}): {} cycles compared, 0 mismatches ({} rising edges of {})",
            self.block, self.a.scope, self.params, self.compared, self.edges, self.a.clock
        );
        Ok(ExitCode::SUCCESS)
    }
}

fn x_error(a: &Args, p: &PortInfo, time: u64, cycle: u64) -> String {
    format!(
        "port `{}` has X or Z bits just before the rising edge at time {time} (cycle {cycle}) in {}; \
         drive it, or pass --x-as-zero to read X/Z as 0",
        p.name,
        a.wave.display()
    )
}

#[allow(clippy::too_many_arguments)]
fn report(a: &Args, block: &str, p: &PortInfo, time: u64, cycle: u64, expected: &[u32], dumped: &[u32], unit: &str) {
    println!("check-wave: MISMATCH in block {block} at scope {}", a.scope);
    println!("  first mismatch at time {time} ({unit}), cycle {cycle} (rising edge {} of {}), port {}", cycle + 1, a.clock, p.name);
    println!("    expected (model): {}", hex(expected, p.width));
    println!("    dumped:           {}", hex(dumped, p.width));
    let mut cmd = format!("inswitch check-wave --block {block} --wave {} --scope {} --clock {} --cycles {}", a.wave.display(), a.scope, a.clock, cycle + 1);
    for p in &a.params {
        cmd.push_str(&format!(" --param {p}"));
    }
    if a.from_start {
        cmd.push_str(" --from-start");
    }
    if a.x_as_zero {
        cmd.push_str(" --x-as-zero");
    }
    println!("  narrow it down (stops at that cycle; look at the dump just before time {time}):\n    {cmd}");
}
