//! The block registry: every block model declared once, usable by name from the CLI, the co-simulation
//! harness, the C ABI (`crates/dpi`), generated SystemVerilog and any other front end.
//!
//! # What a registration holds
//! A [`BlockSpec`] per block ([`blocks`], [`block`]):
//! - `name`: the block name, which is also the RTL module (`rtl/<name>.v`) and the Rust module's subject;
//! - the RTL parameters, with their RTL names and default expressions ([`BlockSpec::params`]), read from
//!   the RTL by a generator (`rtl_table.rs`, checked current by a test), and which of them the model
//!   honours ([`ParamSpec::settable`]); the others are fixed at their RTL default in the model;
//! - the port table for a parameter set ([`BlockSpec::ports`]): name, direction, RTL width, in the model's
//!   order (every input of the block's `In` struct, then every output of its `Out` struct; `clk` is not a
//!   port of the model: one [`DynBlock::step`] is one rising edge); [`BlockSpec::rtl_ports`] gives the RTL
//!   declaration order with `clk`;
//! - a constructor: [`BlockSpec::instantiate`] builds the model, type-erased as a [`DynBlock`].
//!
//! # Using it
//! ```
//! use inswitch_model::registry;
//! let spec = registry::block("output_queue").unwrap();
//! let params = spec.params_from_str("DATA_WIDTH=64").unwrap();
//! assert_eq!(params.get("KEEP_WIDTH"), Some(8)); // derived as the RTL derives it
//! let mut m = spec.instantiate(&params).unwrap();
//! let rst = m.port_index("rst").unwrap();
//! m.set_input(rst, &[1]).unwrap();
//! m.step(); // one rising edge; outputs are those seen just before it
//! let ready = m.port_index("s_axis_tready").unwrap();
//! let mut w = [0u32; 1];
//! m.output(ready, &mut w).unwrap();
//! assert_eq!(w[0], 0); // the queue refuses beats while in reset
//! ```
//!
//! Values cross the interface as little-endian 32-bit words (`words[0]` = bits 31:0), like Verilator's
//! ports and DPI-C's `svBitVecVal`; an input is truncated to its RTL width. Errors are values
//! ([`RegistryError`]), never panics: the C ABI turns them into a status and a message.
//!
//! Cycle convention (docs/architecture.md §Clock and reset): set every input to its value in the cycle
//! before a rising edge, call [`DynBlock::step`]; [`DynBlock::output`] then reads the outputs as they were
//! just before that edge (a function of the registers and, for combinational paths, of those inputs).

mod expr;
#[cfg(test)]
mod rtl_gen;
mod rtl_table;

use std::fmt;

use crate::signal::{Block, Ports, MAX_PORT_WORDS, WIDE_MAX_BITS};

mod fixed_table;
mod layout;
mod packed;
mod port;
mod rtl_module;
#[cfg(test)]
mod fixed_gen;
use layout::{FixedLayouts, Layout, Table, WithLayout};
pub use packed::{packed_bits, read_bits, unpack, write_bits};
pub use port::PortInfo;
pub use rtl_module::{RtlModule, RtlParam, RtlPort};

pub use expr::{clog2, eval};

/// A parameter of a block.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// RTL name.
    pub name: &'static str,
    /// RTL default expression.
    pub default: &'static str,
    /// The model honours other values (else the model implements the RTL default only).
    pub settable: bool,
}

/// Every error of the registry and of a [`DynBlock`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// No block of that name.
    #[error("no block named `{name}` (known: {known})")]
    UnknownBlock {
        /// Asked for.
        name: String,
        /// Registered names.
        known: String,
    },
    /// The block has no such parameter.
    #[error("block `{block}` has no parameter `{name}` (parameters: {known})")]
    UnknownParam {
        /// Block.
        block: &'static str,
        /// Asked for.
        name: String,
        /// Its parameters.
        known: String,
    },
    /// A parameter assignment could not be read.
    #[error("block `{block}`: cannot read parameter assignment `{text}`: {why}")]
    BadParam {
        /// Block.
        block: &'static str,
        /// The text.
        text: String,
        /// Why.
        why: String,
    },
    /// The model implements this parameter at one value only.
    #[error("block `{block}`: the model implements {name} = {fixed} only (asked for {value})")]
    FixedParam {
        /// Block.
        block: &'static str,
        /// Parameter.
        name: &'static str,
        /// The value asked for.
        value: i64,
        /// The value the model implements.
        fixed: i64,
    },
    /// The model's constructor rejects the parameter set.
    #[error("block `{block}`: the model rejects these parameters: {detail}")]
    Rejected {
        /// Block.
        block: &'static str,
        /// Why.
        detail: String,
    },
    /// A port index out of range.
    #[error("block `{block}` has {count} ports (0..{count}); there is no port {index}")]
    NoPort {
        /// Block.
        block: &'static str,
        /// Asked for.
        index: usize,
        /// Ports.
        count: usize,
    },
    /// A port name that does not exist.
    #[error("block `{block}` has no port named `{name}`")]
    NoPortNamed {
        /// Block.
        block: &'static str,
        /// Asked for.
        name: String,
    },
    /// A port used in the wrong direction.
    #[error("port {index} (`{name}`) of block `{block}` is an {actual}, not an {wanted}")]
    Direction {
        /// Block.
        block: &'static str,
        /// Index.
        index: usize,
        /// Port name.
        name: &'static str,
        /// What it is.
        actual: &'static str,
        /// What the call needs.
        wanted: &'static str,
    },
    /// A word buffer too small for the port.
    #[error("port `{name}` of block `{block}` is {width} bits: it needs {need} 32-bit words, the buffer has {got}")]
    Buffer {
        /// Block.
        block: &'static str,
        /// Port.
        name: &'static str,
        /// Width.
        width: u32,
        /// Words needed.
        need: usize,
        /// Words given.
        got: usize,
    },
}

/// Resolved values of every RTL parameter of a block (defaults, overrides, derived values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSet {
    block: &'static str,
    values: Vec<(&'static str, i64)>,
}

impl ParamSet {
    /// A parameter's value.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
    /// Every (name, value), in RTL order.
    pub fn values(&self) -> &[(&'static str, i64)] {
        &self.values
    }
    /// The block these belong to.
    pub fn block(&self) -> &'static str {
        self.block
    }
    fn usize(&self, name: &str) -> usize {
        self.get(name).map_or(0, |v| v.max(0) as usize)
    }
}

impl fmt::Display for ParamSet {
    /// `NAME=VALUE,NAME=VALUE`, the form [`BlockSpec::params_from_str`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (n, v)) in self.values.iter().enumerate() {
            write!(f, "{}{n}={v}", if i == 0 { "" } else { "," })?;
        }
        Ok(())
    }
}

/// Builds a model; `table` asks for the run-time layout even where one is compiled in.
type Build = fn(&'static BlockSpec, &ParamSet, bool) -> Result<Box<dyn DynBlock>, RegistryError>;

/// One registered block.
pub struct BlockSpec {
    /// Block name = RTL module name.
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    rtl: &'static RtlModule,
    settable: &'static [&'static str],
    inputs: &'static [&'static str],
    outputs: &'static [&'static str],
    build: Build,
}

impl fmt::Debug for BlockSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockSpec").field("name", &self.name).finish_non_exhaustive()
    }
}

impl BlockSpec {
    /// The RTL module as declared.
    pub fn rtl(&self) -> &'static RtlModule {
        self.rtl
    }

    /// Parameters, in RTL order.
    pub fn params(&self) -> Vec<ParamSpec> {
        self.rtl
            .params
            .iter()
            .map(|p| ParamSpec { name: p.name, default: p.default, settable: self.settable.contains(&p.name) })
            .collect()
    }

    /// Resolves overrides over the RTL defaults (derived parameters follow their expressions, as in the
    /// RTL), and checks that the model implements the result.
    pub fn resolve(&'static self, overrides: &[(&str, i64)]) -> Result<ParamSet, RegistryError> {
        for (name, _) in overrides {
            if !self.rtl.params.iter().any(|p| p.name == *name) {
                return Err(RegistryError::UnknownParam {
                    block: self.name,
                    name: (*name).to_string(),
                    known: self.rtl.params.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
                });
            }
        }
        let mut values: Vec<(&'static str, i64)> = Vec::new();
        let mut defaults: Vec<(&'static str, i64)> = Vec::new();
        for p in self.rtl.params {
            let bad = |why: String| RegistryError::BadParam { block: self.name, text: format!("{} = {}", p.name, p.default), why };
            let v = eval(p.default, &|n| values.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)).map_err(bad)?;
            let d = eval(p.default, &|n| defaults.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)).map_err(bad)?;
            let v = overrides.iter().rev().find(|(n, _)| *n == p.name).map_or(v, |(_, v)| *v);
            if !self.settable.contains(&p.name) {
                // Fixed in the model: its value must be the RTL's, given the settable ones.
                let fixed = if self.derived(p.name) { eval(p.default, &|n| values.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)).unwrap_or(d) } else { d };
                if v != fixed {
                    return Err(RegistryError::FixedParam { block: self.name, name: p.name, value: v, fixed });
                }
            }
            values.push((p.name, v));
            defaults.push((p.name, d));
        }
        Ok(ParamSet { block: self.name, values })
    }

    /// A parameter whose default refers to other parameters (`KEEP_WIDTH = DATA_WIDTH / 8`).
    fn derived(&self, name: &str) -> bool {
        self.rtl.params.iter().find(|p| p.name == name).is_some_and(|p| eval(p.default, &|_| None).is_err())
    }

    /// Resolves `NAME=VALUE` assignments separated by commas, semicolons or spaces (empty: defaults).
    pub fn params_from_str(&'static self, text: &str) -> Result<ParamSet, RegistryError> {
        let mut overrides = Vec::new();
        for item in text.split([',', ';', ' ', '\n']).map(str::trim).filter(|s| !s.is_empty()) {
            let bad = |why: &str| RegistryError::BadParam { block: self.name, text: item.to_string(), why: why.to_string() };
            let (n, v) = item.split_once('=').ok_or_else(|| bad("expected NAME=VALUE"))?;
            let v = eval(v.trim(), &|_| None).map_err(|e| bad(&e))?;
            overrides.push((n.trim(), v));
        }
        self.resolve(&overrides)
    }

    /// The RTL default parameter set.
    pub fn defaults(&'static self) -> ParamSet {
        self.resolve(&[]).expect("the RTL defaults resolve")
    }

    fn width(&self, p: &RtlPort, params: &ParamSet) -> u32 {
        let look = |n: &str| params.get(n);
        let msb = eval(p.msb, &look).unwrap_or(0);
        let lsb = eval(p.lsb, &look).unwrap_or(0);
        (msb - lsb + 1).max(1) as u32
    }

    /// The RTL ports in declaration order (`clk` included) at `params`.
    pub fn rtl_ports(&self, params: &ParamSet) -> Vec<PortInfo> {
        self.rtl.ports.iter().map(|p| PortInfo { name: p.name, output: p.output, width: self.width(p, params) }).collect()
    }

    /// The model's ports at `params`: the inputs in `In` order, then the outputs in `Out` order.
    pub fn ports(&self, params: &ParamSet) -> Vec<PortInfo> {
        let find = |n: &str| self.rtl.ports.iter().find(|p| p.name == n);
        let mut v = Vec::with_capacity(self.inputs.len() + self.outputs.len());
        for (names, output) in [(self.inputs, false), (self.outputs, true)] {
            for n in names {
                // A port of the model missing from the RTL is caught by the registry's tests.
                let width = find(n).map_or(1, |p| self.width(p, params));
                v.push(PortInfo { name: n, output, width });
            }
        }
        v
    }

    /// Number of inputs (the first ports of [`BlockSpec::ports`]).
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// Builds the model at `params` (from [`BlockSpec::resolve`] of this block), at power-on: every
    /// register 0, as the Verilated RTL starts; the block's reset input then brings it to its reset state.
    pub fn instantiate(&'static self, params: &ParamSet) -> Result<Box<dyn DynBlock>, RegistryError> {
        self.build_model(params, false)
    }

    /// [`BlockSpec::instantiate`] with the packed layout read from a run-time table even where one is
    /// compiled in ([`DynBlock::compiled_layout`]): the same model, the packed calls slower. Not part of
    /// the interface: for the tests that check the two layouts agree and the harness that measures them.
    #[doc(hidden)]
    pub fn instantiate_with_runtime_layout(&'static self, params: &ParamSet) -> Result<Box<dyn DynBlock>, RegistryError> {
        self.build_model(params, true)
    }

    fn build_model(&'static self, params: &ParamSet, table: bool) -> Result<Box<dyn DynBlock>, RegistryError> {
        if params.block != self.name {
            return Err(RegistryError::Rejected { block: self.name, detail: format!("parameters of block `{}`", params.block) });
        }
        (self.build)(self, params, table)
    }
}

/// A block model behind a dynamic interface: ports by index, values as 32-bit words.
pub trait DynBlock: Send {
    /// Its registration.
    fn spec(&self) -> &'static BlockSpec;
    /// Its parameters.
    fn params(&self) -> &ParamSet;
    /// Its ports (inputs, then outputs), as [`BlockSpec::ports`].
    fn ports(&self) -> &[PortInfo];
    /// Sets input `index` (little-endian words, truncated to the port width; at least
    /// [`PortInfo::words`] words).
    fn set_input(&mut self, index: usize, words: &[u32]) -> Result<(), RegistryError>;
    /// One rising clock edge with the inputs set: the outputs become those just before the edge.
    fn step(&mut self);
    /// Recomputes the outputs for the inputs set now, without a clock edge (for combinational paths).
    fn settle(&mut self);
    /// Reads output `index` into `words` (at least [`PortInfo::words`]; extra words are zeroed).
    fn output(&self, index: usize, words: &mut [u32]) -> Result<(), RegistryError>;
    /// Back to the power-on state, inputs and outputs 0.
    fn reset(&mut self);
    /// Sets every input from one packed vector (one call per cycle instead of one per port): input `k`
    /// at bits `[off + width - 1 : off]`, `off` the sum of the widths of the inputs before it
    /// ([`packed_bits`] words at least; the layout of the generated SV's `{last, ..., first}`).
    fn set_inputs_packed(&mut self, bits: &[u32]) -> Result<(), RegistryError>;
    /// Reads every output into one packed vector, laid out as [`DynBlock::set_inputs_packed`]'s inputs
    /// (words past the last output's are zeroed).
    fn outputs_packed(&self, bits: &mut [u32]) -> Result<(), RegistryError>;
    /// One whole cycle in one call: [`DynBlock::set_inputs_packed`] from `inputs`, [`DynBlock::step`],
    /// [`DynBlock::outputs_packed`] into `outputs`, without the dynamic dispatch and the checks between
    /// them (the foreign callers' path: the C ABI's `inswitch_model_cycle`). Both buffers are checked
    /// first (the outputs', then the inputs'): a refused call leaves the model as it was.
    fn cycle_packed(&mut self, inputs: &[u32], outputs: &mut [u32]) -> Result<(), RegistryError>;
    /// [`DynBlock::settle`] in one call, as [`DynBlock::cycle_packed`] is a step: every input from
    /// `inputs`, the outputs for them without a clock edge into `outputs` (the generated drop-in model's
    /// combinational process). Both buffers are checked first: a refused call leaves the model as it was.
    fn eval_packed(&mut self, inputs: &[u32], outputs: &mut [u32]) -> Result<(), RegistryError>;
    /// Whether the packed layout of this model's ports is compiled in (each block at its RTL defaults and
    /// at each data width the model accepts, the other parameters at their defaults:
    /// `registry/fixed_table.rs`), which makes the packed calls faster; other parameter sets read a
    /// run-time table, with the same results.
    fn compiled_layout(&self) -> bool;
    /// Index of the port named `name`.
    fn port_index(&self, name: &str) -> Result<usize, RegistryError> {
        self.ports().iter().position(|p| p.name == name).ok_or_else(|| RegistryError::NoPortNamed { block: self.spec().name, name: name.to_string() })
    }
}

struct Erased<B: Block, K> {
    spec: &'static BlockSpec,
    params: ParamSet,
    ports: Vec<PortInfo>,
    /// Bits of the packed inputs and outputs (for the messages of refused calls).
    packed: [usize; 2],
    /// Where each input and output sits in the packed vectors: compiled in, or a run-time table.
    layout: K,
    fresh: B,
    model: B,
    inputs: B::In,
    outputs: B::Out,
}

/// Builds the model around the layout that [`FixedLayouts::select`] chose for its ports' widths.
struct Boxer<'a, B> {
    spec: &'static BlockSpec,
    params: &'a ParamSet,
    ports: Vec<PortInfo>,
    model: B,
}

impl<B: Block + Clone + Send + 'static> WithLayout<B::In, B::Out> for Boxer<'_, B>
where
    B::In: Send,
    B::Out: Send,
{
    type Output = Box<dyn DynBlock>;
    fn with<K: Layout<B::In, B::Out>>(self, layout: K) -> Box<dyn DynBlock> {
        let Boxer { spec, params, ports, model } = self;
        Box::new(Erased {
            packed: [packed_bits(&ports, false), packed_bits(&ports, true)],
            layout,
            spec,
            params: params.clone(),
            ports,
            fresh: model.clone(),
            model,
            inputs: B::In::default(),
            outputs: B::Out::default(),
        })
    }
}

fn boxed<B: Block + Clone + Send + 'static>(spec: &'static BlockSpec, params: &ParamSet, model: B, table: bool) -> Box<dyn DynBlock>
where
    B::In: Send + FixedLayouts,
    B::Out: Send,
{
    let ports = spec.ports(params);
    let widths: Vec<u32> = ports.iter().map(|p| p.width).collect();
    let (ins, outs) = widths.split_at(spec.inputs.len());
    let to = Boxer { spec, params, ports, model };
    if table {
        return to.with(Table::new(ins, outs));
    }
    <B::In as FixedLayouts>::select(ins, outs, to)
}

impl<B: Block, K> Erased<B, K> {
    fn port(&self, index: usize, output: bool) -> Result<&PortInfo, RegistryError> {
        let p = self.ports.get(index).ok_or(RegistryError::NoPort { block: self.spec.name, index, count: self.ports.len() })?;
        if p.output != output {
            let dir = |o: bool| if o { "output" } else { "input" };
            return Err(RegistryError::Direction { block: self.spec.name, index, name: p.name, actual: dir(p.output), wanted: dir(output) });
        }
        Ok(p)
    }
}

impl<B: Block + Clone + Send + 'static, K: Layout<B::In, B::Out>> DynBlock for Erased<B, K>
where
    B::In: Send,
    B::Out: Send,
{
    fn spec(&self) -> &'static BlockSpec {
        self.spec
    }
    fn params(&self) -> &ParamSet {
        &self.params
    }
    fn ports(&self) -> &[PortInfo] {
        &self.ports
    }
    fn set_input(&mut self, index: usize, words: &[u32]) -> Result<(), RegistryError> {
        let p = self.port(index, false)?;
        let need = p.words();
        if words.len() < need {
            return Err(RegistryError::Buffer { block: self.spec.name, name: p.name, width: p.width, need, got: words.len() });
        }
        let mut w = [0u32; MAX_PORT_WORDS];
        w[..need].copy_from_slice(&words[..need]);
        let top = p.width % 32;
        if top != 0 {
            w[need - 1] &= (1u32 << top) - 1;
        }
        self.inputs.port_from_words(index, &w);
        Ok(())
    }
    fn step(&mut self) {
        self.outputs = self.model.step(&self.inputs);
    }
    fn settle(&mut self) {
        self.outputs = self.model.clone().step(&self.inputs);
    }
    fn output(&self, index: usize, words: &mut [u32]) -> Result<(), RegistryError> {
        let p = self.port(index, true)?;
        let need = p.words();
        if words.len() < need {
            return Err(RegistryError::Buffer { block: self.spec.name, name: p.name, width: p.width, need, got: words.len() });
        }
        let mut w = [0u32; MAX_PORT_WORDS];
        self.outputs.port_to_words(index - self.spec.inputs.len(), &mut w);
        for (i, dst) in words.iter_mut().enumerate() {
            *dst = if i < need { w[i] } else { 0 };
        }
        let top = p.width % 32;
        if top != 0 {
            words[need - 1] &= (1u32 << top) - 1;
        }
        Ok(())
    }
    fn reset(&mut self) {
        self.model = self.fresh.clone();
        self.inputs = B::In::default();
        self.outputs = B::Out::default();
    }
    fn set_inputs_packed(&mut self, bits: &[u32]) -> Result<(), RegistryError> {
        self.packed_room(false, bits.len())?;
        self.layout.unpack(bits, &mut self.inputs);
        Ok(())
    }
    fn outputs_packed(&self, bits: &mut [u32]) -> Result<(), RegistryError> {
        self.packed_room(true, bits.len())?;
        self.layout.pack_shared(&self.outputs, bits);
        Ok(())
    }
    fn cycle_packed(&mut self, inputs: &[u32], outputs: &mut [u32]) -> Result<(), RegistryError> {
        self.packed_room(true, outputs.len())?;
        self.packed_room(false, inputs.len())?;
        self.layout.unpack(inputs, &mut self.inputs);
        self.outputs = self.model.step(&self.inputs);
        self.layout.pack(&self.outputs, outputs);
        Ok(())
    }
    fn eval_packed(&mut self, inputs: &[u32], outputs: &mut [u32]) -> Result<(), RegistryError> {
        self.packed_room(true, outputs.len())?;
        self.packed_room(false, inputs.len())?;
        self.layout.unpack(inputs, &mut self.inputs);
        self.settle();
        self.layout.pack(&self.outputs, outputs);
        Ok(())
    }
    fn compiled_layout(&self) -> bool {
        self.layout.compiled()
    }
}

impl<B: Block, K: Layout<B::In, B::Out>> Erased<B, K> {
    #[inline(always)]
    fn packed_room(&self, output: bool, got: usize) -> Result<(), RegistryError> {
        if got < self.layout.words()[usize::from(output)] {
            return Err(self.packed_short(output, got));
        }
        Ok(())
    }

    #[cold]
    fn packed_short(&self, output: bool, got: usize) -> RegistryError {
        let bits = self.packed[usize::from(output)];
        let name = if output { "all outputs" } else { "all inputs" };
        RegistryError::Buffer { block: self.spec.name, name, width: bits as u32, need: bits.div_ceil(32), got }
    }
}

fn rtl(name: &str) -> &'static RtlModule {
    rtl_table::RTL_MODULES.iter().find(|m| m.name == name).expect("every registered block has an RTL table entry")
}

fn rejected(spec: &BlockSpec) -> impl Fn(String) -> RegistryError + '_ {
    move |detail| RegistryError::Rejected { block: spec.name, detail }
}

macro_rules! registration {
    ($name:literal, $summary:literal, $in:ty, $out:ty, [$($settable:literal),*], |$spec:ident, $p:ident| $make:expr) => {
        BlockSpec {
            name: $name,
            summary: $summary,
            rtl: rtl($name),
            settable: &[$($settable),*],
            inputs: <$in as Ports>::NAMES,
            outputs: <$out as Ports>::NAMES,
            build: |$spec, $p, table| {
                let reject = rejected($spec);
                let model = $make(&reject)?;
                Ok(boxed($spec, $p, model, table))
            },
        }
    };
}

use crate::axis_register::{AxisRegister, AxisRegisterIn, AxisRegisterOut};
use crate::input_checker::{CheckerParams, InputChecker, InputCheckerIn, InputCheckerOut};
use crate::completion_builder::{CompletionBuilder, CompletionBuilderIn, CompletionBuilderOut, CompletionBuilderParams};
use crate::cpu::{Cpu, CpuIn, CpuOut, CpuParams};
use crate::packet_engine::{EngineIn, EngineOut, EngineParams, PacketEngine};
use crate::frame_builder::{FrameBuilder, FrameBuilderIn, FrameBuilderOut, FrameBuilderParams};
use crate::interposer::{Interposer, InterposerIn, InterposerOut, InterposerParams};
use crate::output_queue::{OutputQueue, OutputQueueIn, OutputQueueOut, OutputQueueParams};

/// Each block's typed parameter struct from a resolved [`ParamSet`] (the one mapping from RTL
/// parameter names to model fields; the cosim harness uses it too).
pub mod typed {
    use super::*;

    /// `output_queue`.
    pub fn output_queue(p: &ParamSet) -> OutputQueueParams {
        OutputQueueParams {
            data_width: p.usize("DATA_WIDTH"),
            port_width: p.usize("PORT_WIDTH") as u32,
            fifo_depth: p.usize("FIFO_DEPTH"),
            route_entries: p.usize("ROUTE_ENTRIES"),
        }
    }
    /// `input_checker`.
    pub fn input_checker(p: &ParamSet) -> CheckerParams {
        CheckerParams { data_width: p.usize("DATA_WIDTH") }
    }
    /// `interposer`.
    pub fn interposer(p: &ParamSet) -> InterposerParams {
        InterposerParams { data_width: p.usize("DATA_WIDTH"), mcast_entries: p.usize("MCAST_ENTRIES"), inj_credits: p.usize("INJ_CREDITS") as u32 }
    }
    /// `frame_builder`.
    pub fn frame_builder(p: &ParamSet) -> FrameBuilderParams {
        FrameBuilderParams { data_width: p.usize("DATA_WIDTH") }
    }
    /// `completion_builder`.
    pub fn completion_builder(p: &ParamSet) -> CompletionBuilderParams {
        CompletionBuilderParams { data_width: p.usize("DATA_WIDTH") }
    }
    /// `cpu`.
    pub fn cpu(p: &ParamSet) -> CpuParams {
        CpuParams { static_entries: p.usize("STATIC_ENTRIES"), descriptors: p.usize("DESCRIPTORS"), tick_cycles: p.usize("TICK_CYCLES") as u32 }
    }
    /// `packet_engine`.
    pub fn packet_engine(p: &ParamSet) -> EngineParams {
        EngineParams {
            static_entries: p.usize("STATIC_ENTRIES"),
            descriptors: p.usize("DESCRIPTORS"),
            tick_cycles: p.usize("TICK_CYCLES") as u32,
            fifo_depth: p.usize("FIFO_DEPTH"),
            inj_credits: p.usize("INJ_CREDITS") as u32,
            mcast_entries: p.usize("MCAST_ENTRIES"),
        }
    }
}
use crate::reduce_unit::{ReduceUnit, ReduceUnitIn, ReduceUnitOut};
use crate::register_space::{RegisterSpace, RegisterSpaceIn, RegisterSpaceOut};

fn registrations() -> Vec<BlockSpec> {
    vec![
        registration!("output_queue", "route lookup and beat FIFO in front of the data path", OutputQueueIn, OutputQueueOut,
            ["DATA_WIDTH", "PORT_WIDTH", "FIFO_DEPTH", "ROUTE_ENTRIES"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                OutputQueue::new(typed::output_queue(p)).map_err(|e| r(e.to_string()))
            }),
        registration!("axis_register", "one-deep AXI-stream register slice", AxisRegisterIn, AxisRegisterOut,
            ["WIDTH"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                AxisRegister::new(p.usize("WIDTH")).map_err(|e| r(format!("WIDTH {} is not 1..={WIDE_MAX_BITS}", e.0)))
            }),
        registration!("reduce_unit", "the reduction ALU (docs/blocks/reduce_unit.md)", ReduceUnitIn, ReduceUnitOut,
            [], |s, p| |_r: &dyn Fn(String) -> RegistryError| Ok::<_, RegistryError>(ReduceUnit::new())),
        registration!("register_space", "the engine's configuration and status registers", RegisterSpaceIn, RegisterSpaceOut,
            ["CPU_STATIC_ENTRIES", "MCAST_ENTRIES"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                RegisterSpace::power_on_sized(p.usize("CPU_STATIC_ENTRIES"), p.usize("MCAST_ENTRIES")).map_err(|e| r(e.to_string()))
            }),
        registration!("input_checker", "frame and TLP checks on the receive path", InputCheckerIn, InputCheckerOut,
            ["DATA_WIDTH"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                InputChecker::new(typed::input_checker(p)).map_err(|e| r(e.to_string()))
            }),
        registration!("interposer", "splits engine frames from the data path and injects the engine's own", InterposerIn, InterposerOut,
            ["DATA_WIDTH", "MCAST_ENTRIES", "INJ_CREDITS"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                Interposer::power_on(typed::interposer(p)).map_err(|e| r(e.to_string()))
            }),
        registration!("frame_builder", "builds the engine's outgoing frames from messages", FrameBuilderIn, FrameBuilderOut,
            ["DATA_WIDTH"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                let q = typed::frame_builder(p);
                FrameBuilder::new(q).ok_or_else(|| r(format!("DATA_WIDTH {} is not supported", q.data_width)))
            }),
        registration!("completion_builder", "completions for register reads and dropped requests", CompletionBuilderIn, CompletionBuilderOut,
            ["DATA_WIDTH"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                CompletionBuilder::new(typed::completion_builder(p)).map_err(|e| r(e.to_string()))
            }),
        registration!("cpu", "the collective processing unit", CpuIn, CpuOut,
            ["STATIC_ENTRIES", "DESCRIPTORS", "TICK_CYCLES"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                Cpu::new(typed::cpu(p)).map_err(|e| r(e.to_string()))
            }),
        registration!("packet_engine", "the whole packet engine (top)", EngineIn, EngineOut,
            ["STATIC_ENTRIES", "DESCRIPTORS", "TICK_CYCLES", "FIFO_DEPTH", "INJ_CREDITS", "MCAST_ENTRIES"], |s, p| |r: &dyn Fn(String) -> RegistryError| {
                PacketEngine::power_on(typed::packet_engine(p)).map_err(|e| r(e.to_string()))
            }),
    ]
}

/// Every registered block, in the order `inswitch cosim --block all` runs them.
pub fn blocks() -> &'static [BlockSpec] {
    static ALL: std::sync::OnceLock<Vec<BlockSpec>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        registrations()
    })
}

/// The block named `name`.
pub fn block(name: &str) -> Result<&'static BlockSpec, RegistryError> {
    blocks().iter().find(|b| b.name == name).ok_or_else(|| RegistryError::UnknownBlock {
        name: name.to_string(),
        known: blocks().iter().map(|b| b.name).collect::<Vec<_>>().join(", "),
    })
}

#[cfg(test)]
mod tests;
