//! `inswitch check-wave`: checks a block instance in any simulator's waveform dump (VCD or FST, read with
//! `wellen`) against the golden model.
//!
//! At each rising edge of the clock, every port of the instance is sampled as it was just before the
//! edge (the last change at an earlier time: a value that changes at the edge's own time stamp belongs to
//! the next cycle), the model steps with the sampled inputs, and its outputs are compared with the sampled
//! outputs (docs/architecture.md: `step` returns the outputs just before the edge). As the DPI checker,
//! comparison starts after the first edge with `rst` = 1 (`--from-start`: at once).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use inswitch::checker::hex;
use inswitch_model::registry::{self, PortInfo};
use inswitch_model::signal::MAX_PORT_WORDS;
use wellen::{simple, SignalValue, TimeTableIdx};

/// Arguments of `inswitch check-wave`.
#[derive(clap::Args, Clone)]
pub struct Args {
    /// Block (its RTL module name), e.g. output_queue.
    #[arg(long)]
    block: String,
    /// Waveform file: .vcd or .fst.
    #[arg(long)]
    wave: PathBuf,
    /// Hierarchical path of the block instance in the dump, dot-separated (e.g. TOP.tb.dut).
    #[arg(long)]
    scope: String,
    /// Clock port name in the instance's scope.
    #[arg(long, default_value = "clk")]
    clock: String,
    /// An RTL parameter of the instance, NAME=VALUE (repeatable); others at their RTL defaults.
    #[arg(long = "param")]
    params: Vec<String>,
    /// Compare from the first edge (not only after the first reset).
    #[arg(long)]
    from_start: bool,
    /// Read X and Z bits as 0 instead of reporting them.
    #[arg(long)]
    x_as_zero: bool,
    /// Stop after this many rising edges.
    #[arg(long)]
    cycles: Option<u64>,
    /// Instead of the lockstep model, run the block's transaction-level scoreboard over the dumped ports
    /// alone (for a DUT whose timing differs from the model's; output_queue only).
    #[arg(long)]
    scoreboard: bool,
}

/// A transaction-level scoreboard fed one cycle of packed inputs and outputs.
type Scoreboard = Box<dyn FnMut(u64, &[u32], &[u32]) -> Result<(), String>>;
/// Its event counters as text.
type Counters = Box<dyn Fn() -> String>;

/// The block's scoreboard (the cosim's monitor, `verif/blocks/<block>.rs`), with its event counters.
fn scoreboard(spec: &registry::BlockSpec, params: &registry::ParamSet, ports: &[PortInfo]) -> Result<(Scoreboard, Counters), String> {
    use inswitch::blocks::output_queue::OutputQueueMonitor;
    use inswitch::checker::Monitor;
    use inswitch_model::output_queue::{OutputQueueIn, OutputQueueOut};
    if spec.name != "output_queue" {
        return Err(format!("--scoreboard: block {} has no scoreboard usable on a dump alone yet (output_queue has)", spec.name));
    }
    let wi: Vec<u32> = ports.iter().filter(|p| !p.output).map(|p| p.width).collect();
    let wo: Vec<u32> = ports.iter().filter(|p| p.output).map(|p| p.width).collect();
    let m = std::rc::Rc::new(std::cell::RefCell::new(OutputQueueMonitor::new(registry::typed::output_queue(params))));
    let m2 = m.clone();
    let observe = move |cycle: u64, ins: &[u32], outs: &[u32]| {
        let i: OutputQueueIn = registry::unpack(ins, &wi);
        let o: OutputQueueOut = registry::unpack(outs, &wo);
        m.borrow_mut().observe(cycle, &i, &o)
    };
    let counters = move || m2.borrow().counters().iter().map(|(n, v)| format!("{n} {v}")).collect::<Vec<_>>().join(", ");
    Ok((Box::new(observe), Box::new(counters)))
}

/// One port's value changes: time-table index and whether the value is known (no X/Z bits), with the
/// values' words (X/Z bits as 0) packed at the port's width (`words()` per change) to keep large dumps small.
struct Track {
    port: PortInfo,
    changes: Vec<(TimeTableIdx, bool)>,
    data: Vec<u32>,
    /// The first change not yet applied.
    next: usize,
    /// The value applied last has no X/Z bits (before any change: 0, known).
    known: bool,
}

/// Port `p`'s words from a packed vector at bit `off`.
fn field(packed: &[u32], off: usize, p: &PortInfo) -> [u32; MAX_PORT_WORDS] {
    let mut w = [0u32; MAX_PORT_WORDS];
    registry::read_bits(packed, off, p.width as usize, &mut w);
    w
}

/// Decodes a value into little-endian words; `None` if it has X/Z (or other non-0/1) bits. Reads
/// wellen's packed encodings directly (MSB-first bytes of 8, 4 or 2 values, the last byte holding bit 0):
/// no string per value, which made this the largest cost of a check.
fn words(v: &SignalValue) -> Option<[u32; MAX_PORT_WORDS]> {
    let mut w = [0u32; MAX_PORT_WORDS];
    let (data, bits, per_byte, state_bits) = match v {
        SignalValue::Binary(data, bits) => {
            // Whole bytes at a time.
            let n = (*bits as usize).div_ceil(8);
            for (k, byte) in data[..n].iter().rev().enumerate().take(4 * MAX_PORT_WORDS) {
                w[k / 4] |= u32::from(*byte) << (8 * (k % 4));
            }
            return Some(w);
        }
        SignalValue::FourValue(data, bits) => (*data, *bits as usize, 4, 2),
        SignalValue::NineValue(data, bits) => (*data, *bits as usize, 2, 4),
        _ => return None,
    };
    let n = bits.div_ceil(per_byte);
    let mask = (1u8 << state_bits) - 1;
    for k in 0..bits.min(32 * MAX_PORT_WORDS) {
        let byte = data[n - 1 - k / per_byte];
        match (byte >> (state_bits * (k % per_byte))) & mask {
            0 => {}
            1 => w[k / 32] |= 1 << (k % 32),
            _ => return None,
        }
    }
    Some(w)
}

/// A user error (exit status 2).
fn fail(msg: String) -> ExitCode {
    eprintln!("check-wave: error: {msg}");
    ExitCode::from(2)
}

/// Runs the command.
pub fn run(a: &Args) -> ExitCode {
    match check(a) {
        Ok(code) => code,
        Err(msg) => fail(msg),
    }
}

fn check(a: &Args) -> Result<ExitCode, String> {
    let spec = registry::block(&a.block).map_err(|e| e.to_string())?;
    if a.scoreboard && spec.name != "output_queue" {
        return Err(format!("--scoreboard: block {} has no scoreboard usable on a dump alone yet (output_queue has)", spec.name));
    }
    let params = spec.params_from_str(&a.params.join(",")).map_err(|e| e.to_string())?;
    let mut model = spec.instantiate(&params).map_err(|e| e.to_string())?;
    if !a.wave.is_file() {
        return Err(format!("waveform {} does not exist or is not a file", a.wave.display()));
    }
    // wellen panics on some malformed files: a bad dump is an error message, not a crash.
    let read = std::panic::catch_unwind(|| simple::read(&a.wave));
    let mut wave = match read {
        Ok(Ok(w)) => w,
        Ok(Err(e)) => return Err(format!("cannot read waveform {}: {e}", a.wave.display())),
        Err(_) => return Err(format!("cannot read waveform {}: not a readable VCD or FST file", a.wave.display())),
    };
    let h = wave.hierarchy();
    let path: Vec<&str> = a.scope.split('.').filter(|s| !s.is_empty()).collect();
    if h.lookup_scope(&path).is_none() {
        let tops: Vec<String> = h.scopes().map(|s| h[s].full_name(h)).collect();
        return Err(format!("scope `{}` is not in {} (top-level scopes: {})", a.scope, a.wave.display(), tops.join(", ")));
    }
    let lookup = |name: &str| -> Result<(wellen::SignalRef, u32), String> {
        let var = h.lookup_var(&path, name).ok_or_else(|| format!("port `{name}` of block {} is not in scope `{}`", spec.name, a.scope))?;
        let v = &h[var];
        Ok((v.signal_ref(), v.length().unwrap_or(0)))
    };
    let (clk_ref, clk_width) = lookup(&a.clock)?;
    if clk_width != 1 {
        return Err(format!("clock `{}` is {clk_width} bits wide in the dump, not 1", a.clock));
    }
    // The model's ports (inputs, then outputs), each bound to its dumped signal.
    let mut refs = Vec::new();
    for p in model.ports() {
        let (r, w) = lookup(p.name)?;
        if w != p.width {
            return Err(format!(
                "port `{}` is {w} bits wide in the dump but {} bits in block {} with {params} (set --param?)",
                p.name, p.width, spec.name
            ));
        }
        refs.push(r);
    }
    let mut all = refs.clone();
    all.push(clk_ref);
    wave.load_signals_multi_threaded(&all);
    let times = wave.time_table().to_vec();
    let clk = wave.get_signal(clk_ref).ok_or("the clock could not be loaded")?;
    let mut edges: Vec<TimeTableIdx> = Vec::new();
    let mut last = None;
    for (t, v) in clk.iter_changes() {
        let now = words(&v).map(|w| w[0] & 1);
        if now == Some(1) && last == Some(0) {
            edges.push(t);
        }
        last = now;
    }
    if edges.is_empty() {
        return Err(format!("clock `{}` never rises in {} (no 0 -> 1 change)", a.clock, a.wave.display()));
    }
    let mut tracks: Vec<Track> = model
        .ports()
        .iter()
        .zip(&refs)
        .map(|(p, r)| {
            let s = wave.get_signal(*r).expect("loaded above");
            let n = p.words();
            let (mut changes, mut data) = (Vec::new(), Vec::new());
            for (t, v) in s.iter_changes() {
                let w = words(&v);
                changes.push((t, w.is_some()));
                data.extend_from_slice(&w.unwrap_or_default()[..n]);
            }
            Track { port: p.clone(), changes, data, next: 0, known: true }
        })
        .collect();
    let inputs = spec.input_count();
    // Bit offset of every port in the packed vector of its direction (registry::packed_bits layout):
    // the model takes all inputs in one call and gives all outputs in one, and the dumped outputs are
    // kept packed the same way, so a cycle compares one vector.
    let mut offsets = Vec::with_capacity(tracks.len());
    let mut at = [0usize; 2];
    for t in &tracks {
        let d = usize::from(t.port.output);
        offsets.push(at[d]);
        at[d] += t.port.width as usize;
    }
    let mut ins = vec![0u32; at[0].div_ceil(32).max(1)];
    let mut dumped = vec![0u32; at[1].div_ceil(32).max(1)];
    let mut expected = dumped.clone();
    let rst = model.ports().iter().position(|p| p.name == "rst" && !p.output);
    let mut armed = a.from_start || rst.is_none();
    let limit = a.cycles.unwrap_or(u64::MAX);
    let mut compared = 0u64;
    let mut board = if a.scoreboard { Some(scoreboard(spec, &params, model.ports())?) } else { None };
    for (cycle, &edge) in edges.iter().enumerate() {
        let cycle = cycle as u64;
        if cycle >= limit {
            break;
        }
        // Every port as it was just before the edge; only the changed ones are written.
        for (t, &off) in tracks.iter_mut().zip(&offsets) {
            let n = t.port.words();
            let start = t.next;
            while t.next < t.changes.len() && t.changes[t.next].0 < edge {
                t.next += 1;
            }
            if t.next != start {
                let last = t.next - 1;
                t.known = t.changes[last].1;
                let value = &t.data[last * n..(last + 1) * n];
                let dst = if t.port.output { &mut dumped } else { &mut ins };
                registry::write_bits(dst, off, t.port.width as usize, value);
            }
        }
        let time = times[edge as usize];
        if !a.x_as_zero {
            for t in &tracks {
                // X/Z bits were stored as 0: an error on inputs once armed, and on compared outputs.
                if !t.known && armed {
                    return Err(x_error(a, &t.port, time, cycle));
                }
            }
        }
        if let Some((observe, _)) = board.as_mut() {
            // No lockstep partner: the scoreboard sees the dumped inputs and outputs of every cycle.
            if let Err(why) = observe(cycle, &ins, &dumped) {
                println!("check-wave: SCOREBOARD FAILURE in block {} at scope {}", spec.name, a.scope);
                println!("  at time {time} ({}), cycle {cycle} (rising edge {} of {}): {why}", wave_unit(&wave), cycle + 1, a.clock);
                return Ok(ExitCode::FAILURE);
            }
            compared += 1;
            continue;
        }
        model.set_inputs_packed(&ins).map_err(|e| e.to_string())?;
        model.step();
        if armed {
            model.outputs_packed(&mut expected).map_err(|e| e.to_string())?;
            if expected != dumped {
                let (t, &off) = tracks.iter().zip(&offsets).skip(inputs).find(|(t, &off)| field(&expected, off, &t.port) != field(&dumped, off, &t.port)).expect("a differing vector has a differing port");
                report(a, spec.name, &t.port, time, cycle, &field(&expected, off, &t.port), &field(&dumped, off, &t.port), &wave_unit(&wave));
                return Ok(ExitCode::FAILURE);
            }
            compared += 1;
        }
        if let Some(r) = rst {
            if tracks[r].known && field(&ins, offsets[r], &tracks[r].port)[0] & 1 == 1 {
                armed = true;
            }
        }
    }
    if let Some((_, counters)) = &board {
        println!("check-wave: block {} at scope {} ({params}): scoreboard over {compared} cycles, 0 failures ({})", spec.name, a.scope, counters());
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "check-wave: block {} at scope {} ({}): {compared} cycles compared, 0 mismatches ({} rising edges of {})",
        spec.name,
        a.scope,
        params,
        edges.len().min(limit as usize),
        a.clock
    );
    Ok(ExitCode::SUCCESS)
}

fn wave_unit(w: &simple::Waveform) -> String {
    w.hierarchy().timescale().map_or_else(|| "time units".to_string(), |t| format!("x {t:?}"))
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
    let mut cmd = format!(
        "inswitch check-wave --block {block} --wave {} --scope {} --clock {} --cycles {}",
        shown(&a.wave),
        a.scope,
        a.clock,
        cycle + 1
    );
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

fn shown(p: &Path) -> String {
    p.display().to_string()
}
