//! Waveforms that explain (issue 13 point 6): the failure FST carries, beside Verilator's RTL scope
//! (`dut`), a scope [`MODEL_SCOPE`] with the Rust model's value of every output port on every cycle of the
//! window and a 1-bit [`MISMATCH_SIGNAL`] that is 1 on the cycles where the RTL's outputs differ from the
//! model's; GTKWave and Surfer show both side by side.
//!
//! Verilator writes the RTL scope; its FST writer cannot take foreign signals, so the file is read back
//! with `wellen` and written again with `fst-writer` (both by the same author, the FST reader and writer
//! GTKWave-compatible viewers use), every RTL signal copied and the model scope added.

use std::collections::HashMap;
use std::path::Path;

use fst_writer::{FstFileType, FstInfo, FstScopeType, FstSignalId, FstSignalType, FstVarDirection, FstVarType};
use inswitch_model::signal::MAX_PORT_WORDS;
use inswitch_model::{Block, Ports};

use crate::bench::Rtl;

/// The scope of the RTL's ports in Verilator's dump: the instance name the shim gives the model
/// (`new Top(context, "dut")`, verif/shim/inswitch_shim.h).
pub const RTL_SCOPE: &str = "dut";
/// The scope of the model's expected outputs.
pub const MODEL_SCOPE: &str = "model";
/// The flag in [`MODEL_SCOPE`] that marks the cycles where model and RTL differ.
pub const MISMATCH_SIGNAL: &str = "mismatch";
/// Waveform time of one clock cycle: two half periods of `INSWITCH_SHIM_HALF_PERIOD`
/// (verif/shim/inswitch_shim.h); cycle `c` of a run is dumped at `c * CYCLE_TIME` (clk low, the outputs
/// the lockstep compares) and `c * CYCLE_TIME + CYCLE_TIME / 2` (the rising edge).
pub const CYCLE_TIME: u64 = 10;

/// A model wrapper that keeps its outputs from cycle `from` on.
pub struct Recorder<B: Block> {
    /// The wrapped block.
    pub inner: B,
    cycle: u64,
    from: u64,
    /// (cycle, outputs), in cycle order.
    pub outputs: Vec<(u64, B::Out)>,
}

impl<B: Block> Recorder<B> {
    /// Records `inner`'s outputs from cycle `from` on.
    pub fn new(inner: B, from: u64) -> Self {
        Recorder { inner, cycle: 0, from, outputs: Vec::new() }
    }
}

impl<B: Block> Block for Recorder<B> {
    type In = B::In;
    type Out = B::Out;
    fn step(&mut self, inputs: &B::In) -> B::Out {
        let o = self.inner.step(inputs);
        if self.cycle >= self.from {
            self.outputs.push((self.cycle, o));
        }
        self.cycle += 1;
        o
    }
}

impl<B: Rtl> Rtl for Recorder<B> {
    fn start_waveform(&mut self, path: &Path) -> Result<(), crate::HarnessError> {
        self.inner.start_waveform(path)
    }
    fn stop_waveform(&mut self) {
        self.inner.stop_waveform()
    }
    fn port_width(&self, name: &str) -> Option<u32> {
        self.inner.port_width(name)
    }
}

/// A port value as FST bit characters, most significant first.
fn bits(words: &[u32], width: u32) -> Vec<u8> {
    (0..width).rev().map(|b| if words[(b / 32) as usize] >> (b % 32) & 1 != 0 { b'1' } else { b'0' }).collect()
}

fn io(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

/// Rewrites the FST at `path` with the model scope: `model` and `rtl` are the two sides' outputs on the
/// same cycles (cycle numbers from the start of the run), `width` gives each output port's width.
pub fn add_model_scope<O: Ports>(path: &Path, model: &[(u64, O)], rtl: &[(u64, O)], width: &dyn Fn(&str) -> Option<u32>) -> Result<(), String> {
    // wellen panics on some malformed files: an unreadable dump is an error, not a crash.
    let mut wave = match std::panic::catch_unwind(|| wellen::simple::read(path)) {
        Ok(Ok(w)) => w,
        Ok(Err(e)) => return Err(io(path, e)),
        Err(_) => return Err(io(path, "wellen could not read the RTL waveform")),
    };
    let h = wave.hierarchy();
    let exponent = h.timescale().and_then(|t| Some(t.unit.to_exponent()? + (t.factor.max(1) as f64).log10().round() as i8)).unwrap_or(-12);
    let info = FstInfo {
        start_time: 0,
        timescale_exponent: exponent,
        version: format!("inswitch (Verilator RTL + model scope, {})", crate::build_info::verilator_version()),
        date: String::new(),
        file_type: FstFileType::Verilog,
    };
    let mut buf = fst_writer::FstHeaderWriter::write_to_mem(&info).map_err(|e| io(path, e))?;
    // The RTL hierarchy, scope by scope; signals shared by several vars stay aliases.
    let mut ids: HashMap<wellen::SignalRef, FstSignalId> = HashMap::new();
    let mut copied: Vec<(wellen::SignalRef, FstSignalId)> = Vec::new();
    let mut stack: Vec<(wellen::ScopeRef, bool)> = h.scopes().map(|s| (s, false)).collect::<Vec<_>>();
    stack.reverse();
    while let Some((s, done)) = stack.pop() {
        if done {
            buf.up_scope().map_err(|e| io(path, e))?;
            continue;
        }
        let scope = &h[s];
        buf.scope(scope.name(h), scope.component(h).unwrap_or_default(), FstScopeType::Module).map_err(|e| io(path, e))?;
        for v in scope.vars(h) {
            let var = &h[v];
            let Some(len) = var.length() else { continue };
            let dir = match var.direction() {
                wellen::VarDirection::Input => FstVarDirection::Input,
                wellen::VarDirection::Output => FstVarDirection::Output,
                wellen::VarDirection::InOut => FstVarDirection::InOut,
                _ => FstVarDirection::Implicit,
            };
            let alias = ids.get(&var.signal_ref()).copied();
            let id = buf.var(var.name(h), FstSignalType::bit_vec(len), FstVarType::Wire, dir, alias).map_err(|e| io(path, e))?;
            if alias.is_none() {
                ids.insert(var.signal_ref(), id);
                copied.push((var.signal_ref(), id));
            }
        }
        stack.push((s, true));
        let mut children: Vec<wellen::ScopeRef> = scope.scopes(h).collect();
        children.reverse();
        stack.extend(children.into_iter().map(|c| (c, false)));
    }
    // The model scope: every output port at its RTL width, and the mismatch flag.
    buf.scope(MODEL_SCOPE, "rust model", FstScopeType::Module).map_err(|e| io(path, e))?;
    let mut model_ids = Vec::new();
    for (k, name) in O::NAMES.iter().enumerate() {
        let w = width(name).unwrap_or(O::WIDTHS[k] as u32).max(1);
        let id = buf.var(*name, FstSignalType::bit_vec(w), FstVarType::Wire, FstVarDirection::Output, None).map_err(|e| io(path, e))?;
        model_ids.push((id, w));
    }
    let flag = buf.var(MISMATCH_SIGNAL, FstSignalType::bit_vec(1), FstVarType::Wire, FstVarDirection::Implicit, None).map_err(|e| io(path, e))?;
    buf.up_scope().map_err(|e| io(path, e))?;

    // Every change, RTL and model, in time order.
    let refs: Vec<wellen::SignalRef> = copied.iter().map(|(r, _)| *r).collect();
    wave.load_signals(&refs);
    let times = wave.time_table().to_vec();
    let mut changes: Vec<(u64, FstSignalId, Vec<u8>)> = Vec::new();
    for (r, id) in &copied {
        let Some(sig) = wave.get_signal(*r) else { continue };
        for (t, v) in sig.iter_changes() {
            if let Some(s) = v.to_bit_string() {
                changes.push((times[t as usize], *id, s.into_bytes()));
            }
        }
    }
    let mut w = [0u32; MAX_PORT_WORDS];
    for (n, (cycle, m)) in model.iter().enumerate() {
        let t = cycle * CYCLE_TIME;
        for (k, (id, width)) in model_ids.iter().enumerate() {
            w.fill(0);
            m.port_to_words(k, &mut w);
            changes.push((t, *id, bits(&w, *width)));
        }
        let differs = rtl.get(n).is_some_and(|(c, r)| c == cycle && r.first_difference(m).is_some());
        changes.push((t, flag, vec![if differs { b'1' } else { b'0' }]));
    }
    changes.sort_by_key(|(t, _, _)| *t);
    let mut body = buf.finish().map_err(|e| io(path, e))?;
    let mut now = None;
    for (t, id, v) in &changes {
        if now != Some(*t) {
            body.time_change(*t).map_err(|e| io(path, e))?;
            now = Some(*t);
        }
        body.signal_change(*id, v).map_err(|e| io(path, e))?;
    }
    let bytes = body.finish().map_err(|e| io(path, e))?.into_inner();
    std::fs::write(path, bytes).map_err(|e| io(path, e))
}
