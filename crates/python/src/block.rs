//! `inswitch.Block(name, **params)`: any block of the registry (`inswitch_model::registry`) behind one
//! Python class, so every registered block is there without per-block code. Ports are Python ints of
//! any width, moved through the registry's little-endian 32-bit words.

use std::panic::{catch_unwind, AssertUnwindSafe};

use inswitch_model::registry::{self, DynBlock, PortInfo};
use inswitch_model::signal::MAX_PORT_WORDS;
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::intern;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

/// Bits that fit in the fast path (one `u64`, no Python method calls).
const FAST_BITS: u32 = 64;

fn reg_err(e: registry::RegistryError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A clocked block model: `step` is one rising clock edge.
// `unsendable`: the model is `Send` but not `Sync`; a bench steps it from one thread (another thread
// touching it gets a Python exception, not a data race).
#[pyclass(module = "inswitch", unsendable)]
pub struct Block {
    inner: Box<dyn DynBlock>,
    ports: Vec<PortInfo>,
    /// Port name (interned str) -> port index: a Python dict, so a lookup uses the key's cached hash and
    /// pointer identity (dict literals' keys are the same interned objects) instead of copying the name.
    index: Py<PyDict>,
    /// Number of inputs (the first ports).
    inputs: usize,
    /// Set when the model panicked: its state is unknown until `reset()`.
    poisoned: bool,
    /// Each port's name as a Python string, made once (output dicts reuse them as keys).
    keys: Vec<Py<PyString>>,
    /// Scratch for [`Block::set_inputs`] (kept to avoid an allocation per step).
    staged: Vec<(usize, [u32; MAX_PORT_WORDS])>,
    /// Per output: its last value as words and the Python int made from them, reused while the words
    /// do not change (a wide int costs a `from_bytes` call to make).
    last_out: Vec<Option<([u32; MAX_PORT_WORDS], Py<PyAny>)>>,
}

/// `words` (little-endian 32-bit) from a Python int that must fit in `width` bits.
fn int_to_words(v: &Bound<'_, PyAny>, p: &PortInfo, words: &mut [u32; MAX_PORT_WORDS]) -> PyResult<()> {
    let what = || format!("port {} ({} bits)", p.name, p.width);
    if !v.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!("{}: expected an int, got {}", what(), v.get_type().name()?)));
    }
    if p.width <= FAST_BITS {
        let x: u64 = v.extract().map_err(|_| PyValueError::new_err(format!("{}: {v} is negative or wider than 64 bits", what())))?;
        if p.width < 64 && x >> p.width != 0 {
            return Err(PyValueError::new_err(format!("{}: {x:#x} does not fit", what())));
        }
        words[0] = x as u32;
        words[1] = (x >> 32) as u32;
        return Ok(());
    }
    let nbytes = (p.width as usize).div_ceil(8);
    let py = v.py();
    let b = v
        .call_method1(intern!(py, "to_bytes"), (nbytes, intern!(py, "little")))
        .map_err(|_| PyValueError::new_err(format!("{}: the value is negative or does not fit", what())))?;
    let b = b.downcast::<PyBytes>()?.as_bytes();
    if p.width % 8 != 0 && b[nbytes - 1] >> (p.width % 8) != 0 {
        return Err(PyValueError::new_err(format!("{}: value does not fit", what())));
    }
    words.fill(0);
    for (i, byte) in b.iter().enumerate() {
        words[i / 4] |= u32::from(*byte) << (8 * (i % 4));
    }
    Ok(())
}

fn words_to_int<'py>(py: Python<'py>, p: &PortInfo, words: &[u32; MAX_PORT_WORDS]) -> PyResult<Bound<'py, PyAny>> {
    if p.width <= FAST_BITS {
        return Ok((u64::from(words[0]) | u64::from(words[1]) << 32).into_pyobject(py)?.into_any());
    }
    let n = p.words();
    let bytes: Vec<u8> = words[..n].iter().flat_map(|w| w.to_le_bytes()).collect();
    py.get_type::<PyInt>().call_method1(intern!(py, "from_bytes"), (PyBytes::new(py, &bytes), intern!(py, "little")))
}

impl Block {
    fn check(&self) -> PyResult<()> {
        if self.poisoned {
            return Err(PyRuntimeError::new_err(format!("block {}: the model panicked earlier; call reset()", self.inner.spec().name)));
        }
        Ok(())
    }

    /// The index of the input port named `k`.
    fn input_index(&self, k: &Bound<'_, PyAny>) -> PyResult<usize> {
        let Some(i) = self.index.bind(k.py()).get_item(k).ok().flatten() else {
            let name = k.downcast::<PyString>().map_err(|_| PyTypeError::new_err(format!("input name {k} is not a str")))?;
            return Err(PyKeyError::new_err(format!("block {} has no port {:?} (inputs: {})", self.inner.spec().name, name.to_cow()?, self.input_names().join(", "))));
        };
        let i: usize = i.extract()?;
        if i >= self.inputs {
            return Err(PyValueError::new_err(format!("port {} of block {} is an output", self.ports[i].name, self.inner.spec().name)));
        }
        Ok(i)
    }

    /// Sets the given inputs, all or none: every value is checked before any is applied. `inputs` is a
    /// dict {name: int}, or a list / tuple of every input in `ports()` order (`None` = keep the value).
    fn set_inputs(&mut self, inputs: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut staged = std::mem::take(&mut self.staged);
        staged.clear();
        let checked = (|| {
            let mut stage = |i: usize, v: &Bound<'_, PyAny>| -> PyResult<()> {
                let mut w = [0u32; MAX_PORT_WORDS];
                int_to_words(v, &self.ports[i], &mut w)?;
                staged.push((i, w));
                Ok(())
            };
            if let Ok(d) = inputs.downcast::<PyDict>() {
                for (k, v) in d.iter() {
                    stage(self.input_index(&k)?, &v)?;
                }
                return Ok(());
            }
            let values: Vec<Bound<'_, PyAny>> = if let Ok(l) = inputs.downcast::<PyList>() {
                l.iter().collect()
            } else if let Ok(t) = inputs.downcast::<PyTuple>() {
                t.iter().collect()
            } else {
                return Err(PyTypeError::new_err(format!("inputs: expected a dict or a list of every input in ports() order, got {}", inputs.get_type().name()?)));
            };
            if values.len() != self.inputs {
                return Err(PyValueError::new_err(format!(
                    "inputs: {} values for the {} inputs of block {} ({})",
                    values.len(),
                    self.inputs,
                    self.inner.spec().name,
                    self.input_names().join(", ")
                )));
            }
            for (i, v) in values.iter().enumerate() {
                if !v.is_none() {
                    stage(i, v)?;
                }
            }
            Ok(())
        })();
        let applied = checked.and_then(|()| staged.iter().try_for_each(|(i, w)| self.inner.set_input(*i, w).map_err(reg_err)));
        self.staged = staged;
        applied
    }

    fn input_names(&self) -> Vec<&'static str> {
        self.ports.iter().filter(|p| !p.output).map(|p| p.name).collect()
    }

    fn outputs<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let mut w = [0u32; MAX_PORT_WORDS];
        for i in self.inputs..self.ports.len() {
            self.inner.output(i, &mut w).map_err(reg_err)?;
            let value = match &self.last_out[i] {
                Some((last, v)) if *last == w => v.clone_ref(py),
                _ => {
                    let v = words_to_int(py, &self.ports[i], &w)?.unbind();
                    self.last_out[i] = Some((w, v.clone_ref(py)));
                    v
                }
            };
            d.set_item(self.keys[i].bind(py), value)?;
        }
        Ok(d)
    }

    fn guarded(&mut self, f: impl FnOnce(&mut dyn DynBlock)) -> PyResult<()> {
        let inner = &mut self.inner;
        if catch_unwind(AssertUnwindSafe(|| f(inner.as_mut()))).is_err() {
            self.poisoned = true;
            return Err(PyRuntimeError::new_err(format!("block {}: the model panicked (a bug: please report the inputs); call reset()", self.inner.spec().name)));
        }
        Ok(())
    }
}

#[pymethods]
impl Block {
    /// `Block("output_queue", DATA_WIDTH=64)`: the registry's block at RTL parameters (others default).
    #[new]
    #[pyo3(signature = (name, **params))]
    fn new(py: Python<'_>, name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let spec = registry::block(name).map_err(reg_err)?;
        let mut overrides: Vec<(String, i64)> = Vec::new();
        if let Some(d) = params {
            for (k, v) in d.iter() {
                let k: String = k.extract()?;
                let v: i64 = v.extract().map_err(|_| PyValueError::new_err(format!("parameter {k}: expected an int, got {v}")))?;
                overrides.push((k, v));
            }
        }
        let borrowed: Vec<(&str, i64)> = overrides.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let set = spec.resolve(&borrowed).map_err(reg_err)?;
        let inner = spec.instantiate(&set).map_err(reg_err)?;
        let ports = inner.ports().to_vec();
        let inputs = ports.iter().take_while(|p| !p.output).count();
        if ports[inputs..].iter().any(|p| !p.output) {
            return Err(PyRuntimeError::new_err(format!("block {name}: the registry lists an input after an output")));
        }
        let keys: Vec<Py<PyString>> = ports.iter().map(|p| PyString::intern(py, p.name).unbind()).collect();
        let index = PyDict::new(py);
        for (i, k) in keys.iter().enumerate() {
            index.set_item(k.bind(py), i)?;
        }
        let last_out = ports.iter().map(|_| None).collect();
        Ok(Block { inner, ports, index: index.unbind(), inputs, poisoned: false, keys, staged: Vec::new(), last_out })
    }

    /// The block's name (= the RTL module).
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.spec().name
    }

    /// Every RTL parameter's value (defaults, overrides, derived values).
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (n, v) in self.inner.params().values() {
            d.set_item(n, v)?;
        }
        Ok(d)
    }

    /// `[(name, "input"|"output", width_bits), ...]`: inputs first, then outputs; no `clk`.
    fn ports(&self) -> Vec<(&'static str, &'static str, u32)> {
        self.ports.iter().map(|p| (p.name, if p.output { "output" } else { "input" }, p.width)).collect()
    }

    /// One rising clock edge. `inputs` sets some inputs (the others keep their last value, as signals
    /// do): a dict {name: int}, or a list / tuple of every input in `ports()` order (`None` keeps one);
    /// returns every output as it was just before the edge.
    #[pyo3(signature = (inputs = None))]
    fn step<'py>(&mut self, py: Python<'py>, inputs: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyDict>> {
        self.check()?;
        if let Some(d) = inputs {
            self.set_inputs(d)?;
        }
        self.guarded(|m| m.step())?;
        self.outputs(py)
    }

    /// The outputs for `inputs` now, without a clock edge (the combinational paths settled).
    #[pyo3(signature = (inputs = None))]
    fn settle<'py>(&mut self, py: Python<'py>, inputs: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyDict>> {
        self.check()?;
        if let Some(d) = inputs {
            self.set_inputs(d)?;
        }
        self.guarded(|m| m.settle())?;
        self.outputs(py)
    }

    /// Back to power-on: every register, input and output 0 (drive the block's `rst` to reset it as
    /// the RTL is reset).
    fn reset(&mut self) {
        self.inner.reset();
        self.poisoned = false;
    }

    fn __repr__(&self) -> String {
        format!("Block({:?}, {})", self.inner.spec().name, self.inner.params().values().iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(", "))
    }
}

/// `[(name, summary), ...]` of every registered block.
#[pyfunction]
pub fn blocks() -> Vec<(&'static str, &'static str)> {
    registry::blocks().iter().map(|b| (b.name, b.summary)).collect()
}
