//! `inswitch check-wave`: checks a block instance in any simulator's waveform dump (VCD or FST, read with
//! `wellen`) against the golden model.
//!
//! At each rising edge of the clock, every port of the instance is sampled as it was just before the
//! edge (the last change at an earlier time: a value that changes at the edge's own time stamp belongs to
//! the next cycle), the model steps with the sampled inputs, and its outputs are compared with the sampled
//! outputs (docs/architecture.md: `step` returns the outputs just before the edge). As the DPI checker,
//! comparison starts after the first edge with `rst` = 1 (`--from-start`: at once).

mod cycles;
mod fst_stream;
mod scoreboard;

use std::path::PathBuf;
use std::process::ExitCode;

use inswitch_model::registry;
use inswitch_model::signal::MAX_PORT_WORDS;
use wellen::{viewers, FileFormat, LoadOptions, SignalValue};

use cycles::{Cycles, Flow};

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
    /// alone (for a DUT whose timing differs from the model's; every block but input_checker and
    /// packet_engine, whose scoreboards read what the cosim's stimulus meant).
    #[arg(long)]
    scoreboard: bool,
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

/// The instance's signals in the dump: the model's ports (inputs, then outputs), then the clock.
struct Bound {
    signals: Vec<wellen::SignalRef>,
}

fn check(a: &Args) -> Result<ExitCode, String> {
    let spec = registry::block(&a.block).map_err(|e| e.to_string())?;
    if a.scoreboard {
        scoreboard::usable(spec.name)?;
    }
    let params = spec.params_from_str(&a.params.join(",")).map_err(|e| e.to_string())?;
    let model = spec.instantiate(&params).map_err(|e| e.to_string())?;
    if !a.wave.is_file() {
        return Err(format!("waveform {} does not exist or is not a file", a.wave.display()));
    }
    let unreadable = |e: String| format!("cannot read waveform {}: {e}", a.wave.display());
    // wellen panics on some malformed files: a bad dump is an error message, not a crash.
    let options = LoadOptions::default();
    let header = match std::panic::catch_unwind(|| viewers::read_header_from_file(&a.wave, &options)) {
        Ok(Ok(h)) => h,
        Ok(Err(e)) => return Err(unreadable(e.to_string())),
        Err(_) => return Err(unreadable("not a readable VCD or FST file".into())),
    };
    let h = &header.hierarchy;
    let unit = h.timescale().map_or_else(|| "time units".to_string(), |t| format!("x {t:?}"));
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
    let mut signals = Vec::new();
    for p in model.ports() {
        let (r, w) = lookup(p.name)?;
        if w != p.width {
            return Err(format!(
                "port `{}` is {w} bits wide in the dump but {} bits in block {} with {params} (set --param?)",
                p.name, p.width, spec.name
            ));
        }
        signals.push(r);
    }
    signals.push(clk_ref);
    let board = if a.scoreboard { Some(scoreboard::of(spec.name, &params, model.ports())?) } else { None };
    let mut cycles = Cycles::new(a, spec.name, params.to_string(), unit, model, spec.input_count(), board);
    let bound = Bound { signals };
    // An FST is streamed (its value changes come in time order, block by block: nothing is kept); other
    // formats are loaded whole by wellen. A port that is a slice of another dumped signal needs wellen's
    // slicing, so such a dump is loaded too.
    let sliced = bound.signals.iter().any(|s| h.get_slice_info(*s).is_some());
    if header.file_format == FileFormat::Fst && !sliced {
        drop(header);
        fst_stream::run(&a.wave, &bound.signals, &mut cycles)?;
    } else {
        loaded(header, &bound, &mut cycles)?;
    }
    cycles.finish()
}

/// Loads the instance's signals whole (wellen) and walks the clock's rising edges.
fn loaded<R: std::io::BufRead + std::io::Seek + Sync + Send + 'static>(header: viewers::HeaderResult<R>, bound: &Bound, cycles: &mut Cycles) -> Result<(), String> {
    let body = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| viewers::read_body(header.body, &header.hierarchy, None))) {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return Err(cycles.unreadable(e)),
        Err(_) => return Err(cycles.unreadable("not a readable VCD or FST file")),
    };
    let mut source = body.source;
    let loaded = source.load_signals(&bound.signals, &header.hierarchy, true);
    let signal = |r: wellen::SignalRef| &loaded.iter().find(|(s, _)| *s == r).expect("every requested signal is loaded").1;
    let times = &body.time_table;
    let (clk_ref, port_refs) = bound.signals.split_last().expect("the clock is bound");
    // Each port's value changes, decoded once: time-table index and whether the value is known (no
    // X/Z bits), with the words (X/Z bits as 0) packed at the port's width to keep large dumps small.
    let tracks: Vec<(Vec<(wellen::TimeTableIdx, bool)>, Vec<u32>)> = port_refs
        .iter()
        .zip(cycles.ports())
        .map(|(r, p)| {
            let (mut changes, mut data) = (Vec::new(), Vec::new());
            for (t, v) in signal(*r).iter_changes() {
                let w = words(&v);
                changes.push((t, w.is_some()));
                data.extend_from_slice(&w.unwrap_or_default()[..p.words()]);
            }
            (changes, data)
        })
        .collect();
    let mut next = vec![0usize; tracks.len()];
    let mut last = None;
    for (t, v) in signal(*clk_ref).iter_changes() {
        let now = words(&v).map(|w| w[0] & 1);
        let rising = now == Some(1) && last == Some(0);
        last = now;
        if !rising {
            continue;
        }
        // Every port as it was just before the edge; only the changed ones are written.
        for (port, (changes, data)) in tracks.iter().enumerate() {
            let start = next[port];
            while next[port] < changes.len() && changes[next[port]].0 < t {
                next[port] += 1;
            }
            if next[port] != start {
                let n = cycles.ports()[port].words();
                let k = next[port] - 1;
                cycles.set(port, changes[k].1.then(|| &data[k * n..(k + 1) * n]));
            }
        }
        if let Flow::Stop = cycles.edge(times[t as usize])? {
            break;
        }
    }
    Ok(())
}
