//! Shrunk failures (issue 13 point 5): on a mismatch, the failing run's input trace (every input port
//! on every cycle, as the stimulus drove it) is cut down by delta debugging, keeping a cut only if the
//! same output port still mismatches first; the minimal trace is written as JSON and
//! `inswitch cosim --replay FILE` replays it.
//!
//! The shrinker knows no block: it removes contiguous ranges of cycles, halving the range size from half
//! the trace down to one cycle, so it drops whole phases first, then frames, then single idle cycles.
//! A replayed trace is a fixed input sequence: model and RTL get identical inputs, so a mismatch on a
//! shrunk trace is still a real disagreement, even where the cut left the inputs out of protocol (a
//! source that dropped `tvalid` before `tready`). The scoreboard is not consulted on a trace. The
//! leading reset cycles are never cut ([`leading_reset`]).

use std::path::Path;

use inswitch_model::signal::MAX_PORT_WORDS;
use inswitch_model::{Block, Ports};

use crate::bench::{hex, Rtl, Stimulus};
use crate::HarnessError;

/// Trace file format tag.
pub const FORMAT: &str = "inswitch-cosim-trace-1";

/// Replays at most this many cycles in total while shrinking (about a minute for the slowest target);
/// the best trace found so far is kept when the budget runs out.
pub const SHRINK_CYCLE_BUDGET: u64 = 40_000_000;

/// Feeds `inputs` in order (then idles with all-default inputs).
pub struct Replay<I> {
    inputs: Vec<I>,
    next: usize,
}

impl<I> Replay<I> {
    /// A stimulus that replays `inputs`.
    pub fn new(inputs: Vec<I>) -> Self {
        Replay { inputs, next: 0 }
    }
}

impl<I: Ports, O> Stimulus<I, O> for Replay<I> {
    fn next(&mut self, _previous: &O) -> I {
        let i = self.inputs.get(self.next).copied().unwrap_or_default();
        self.next += 1;
        i
    }
}

/// The cycle and port of the first mismatch of `inputs` replayed into fresh `model` and `rtl`.
pub fn first_mismatch<M, R>(model: &mut M, rtl: &mut R, inputs: &[M::In]) -> Option<(u64, &'static str)>
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
{
    for (cycle, i) in inputs.iter().enumerate() {
        let (a, b) = (model.step(i), rtl.step(i));
        if let Some(port) = a.first_difference(&b) {
            return Some((cycle as u64, M::Out::NAMES[port]));
        }
    }
    None
}

/// What shrinking achieved.
#[derive(Clone, Debug)]
pub struct Shrunk<I> {
    /// The minimal trace found, ending at its failing cycle.
    pub inputs: Vec<I>,
    /// Its first mismatching cycle.
    pub cycle: u64,
    /// Replays tried.
    pub tries: u64,
}

/// Delta-debugs `inputs` (which mismatch first on `port`): returns the shortest trace found that still
/// mismatches first on `port`. `fresh` builds a new (model, RTL) pair for each try.
pub fn shrink<M, R>(fresh: &dyn Fn() -> Result<(M, R), HarnessError>, inputs: Vec<M::In>, port: &str) -> Result<Shrunk<M::In>, HarnessError>
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
{
    let spent = std::cell::Cell::new(0u64);
    let tries = std::cell::Cell::new(0u64);
    let test = |trace: &[M::In]| -> Result<Option<u64>, HarnessError> {
        let (mut m, mut r) = fresh()?;
        tries.set(tries.get() + 1);
        let found = first_mismatch(&mut m, &mut r, trace);
        spent.set(spent.get() + found.map_or(trace.len() as u64, |(c, _)| c + 1));
        Ok(found.filter(|(_, p)| *p == port).map(|(c, _)| c))
    };
    let Some(cycle) = test(&inputs)? else {
        return Err(HarnessError::Params { model: "shrink", detail: format!("the recorded trace does not mismatch first on {port}") });
    };
    let mut best = inputs;
    best.truncate(cycle as usize + 1);
    let mut best_cycle = cycle;
    let keep = leading_reset(&best);
    let mut chunk = (best.len() - keep).div_ceil(2).max(1);
    while chunk >= 1 && spent.get() < SHRINK_CYCLE_BUDGET {
        let mut start = keep;
        while start < best.len() && spent.get() < SHRINK_CYCLE_BUDGET {
            let end = (start + chunk).min(best.len());
            let candidate: Vec<M::In> = best[..start].iter().chain(&best[end..]).copied().collect();
            match test(&candidate)? {
                Some(c) => {
                    best = candidate;
                    best.truncate(c as usize + 1);
                    best_cycle = c;
                }
                None => start += chunk,
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2).min(best.len().div_ceil(2)).max(1);
    }
    Ok(Shrunk { inputs: best, cycle: best_cycle, tries: tries.get() })
}

/// The cycles at the start of `inputs` that hold the `rst` input high: never cut, since without them
/// the RTL starts from Verilator's power-up state, which the model does not claim to match (a cut
/// reset makes mismatches that are no bug).
fn leading_reset<I: Ports>(inputs: &[I]) -> usize {
    let Some(rst) = I::NAMES.iter().position(|n| *n == "rst") else { return 0 };
    inputs
        .iter()
        .take_while(|i| {
            let mut w = [0u32; MAX_PORT_WORDS];
            i.port_to_words(rst, &mut w);
            w[0] & 1 == 1
        })
        .count()
}

/// Writes a trace: target, seed, the port, the original and shrunk failing cycles, and per cycle every
/// input port in hex (in `I::NAMES` order, named once in `ports`).
pub fn write_trace<I: Ports>(path: &Path, target: &str, seed: u64, port: &str, original_cycle: u64, inputs: &[I]) -> Result<(), HarnessError> {
    let cycles: Vec<serde_json::Value> = inputs
        .iter()
        .map(|i| {
            (0..I::NAMES.len())
                .map(|p| {
                    let mut w = [0u32; MAX_PORT_WORDS];
                    i.port_to_words(p, &mut w);
                    serde_json::Value::String(hex(&w, I::WIDTHS[p] as u32))
                })
                .collect()
        })
        .collect();
    let doc = serde_json::json!({
        "format": FORMAT,
        "target": target,
        "seed": seed,
        "port": port,
        "original_cycle": original_cycle,
        "cycle": inputs.len().saturating_sub(1),
        "git_revision": crate::build_info::git_revision(),
        "verilator_version": crate::build_info::verilator_version(),
        "ports": I::NAMES,
        "inputs": cycles,
    });
    std::fs::write(path, serde_json::to_string(&doc).unwrap_or_default()).map_err(|source| HarnessError::Io { path: path.to_path_buf(), source })
}

/// A trace file's target name and seed (to pick the target before its input type is known).
pub fn trace_target(path: &Path) -> Result<(String, u64), String> {
    let doc = read_json(path)?;
    let target = doc["target"].as_str().ok_or("no target")?.to_string();
    Ok((target, doc["seed"].as_u64().unwrap_or(0)))
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if doc["format"] != FORMAT {
        return Err(format!("{}: not an {FORMAT} trace", path.display()));
    }
    Ok(doc)
}

/// Reads a trace's inputs for the block whose inputs are `I`; the port list must be `I`'s.
pub fn read_trace<I: Ports>(path: &Path) -> Result<Vec<I>, String> {
    let doc = read_json(path)?;
    let ports: Vec<&str> = doc["ports"].as_array().ok_or("no ports")?.iter().filter_map(|p| p.as_str()).collect();
    if ports != I::NAMES {
        return Err(format!("{}: its input ports are not this target's", path.display()));
    }
    let mut out = Vec::new();
    for (c, cycle) in doc["inputs"].as_array().ok_or("no inputs")?.iter().enumerate() {
        let values = cycle.as_array().ok_or_else(|| format!("cycle {c} is not a list"))?;
        if values.len() != ports.len() {
            return Err(format!("cycle {c}: {} values for {} ports", values.len(), ports.len()));
        }
        let mut i = I::default();
        for (p, v) in values.iter().enumerate() {
            let digits: String = v.as_str().unwrap_or_default().trim_start_matches("0x").chars().filter(|&d| d != '_').collect();
            let mut w = [0u32; MAX_PORT_WORDS];
            for (k, d) in digits.chars().rev().enumerate() {
                let n = d.to_digit(16).ok_or_else(|| format!("cycle {c} port {}: {v} is not hex", ports[p]))?;
                if k / 8 >= MAX_PORT_WORDS {
                    return Err(format!("cycle {c} port {}: too wide", ports[p]));
                }
                w[k / 8] |= n << (4 * (k % 8));
            }
            i.port_from_words(p, &w);
        }
        out.push(i);
    }
    Ok(out)
}
