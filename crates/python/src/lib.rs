//! `inswitch` for Python: the bit-exact reduction arithmetic, the frame codecs and the block models of
//! the inswitch packet engine, for cocotb and pyuvm benches (docs/python.md). `Block` serves every block
//! of the registry (`inswitch_model::registry`) by name.
//!
//! Every entry point goes through the same library function as the CLI (`reduce --batch`,
//! `decode --json`), so Python and the CLI agree by construction; `verif/python/` checks it.
//! Errors are Python exceptions (`ValueError` for bad values, `TypeError` for bad types); a Rust panic
//! inside the model surfaces as `pyo3_runtime.PanicException`, never as an abort of the interpreter.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde_json::{Map, Value};

mod block;
mod convert;
mod decoded_shape;
mod dict_fields;
mod encoder;
mod tlp_encode;

use inswitch_frames::decode::{self as d, FrameKind};

/// One reduction: the same object as one `inswitch reduce --batch` response line.
#[pyfunction]
#[pyo3(signature = (op, a, b, **fields))]
fn reduce<'py>(py: Python<'py>, op: &Bound<'py, PyAny>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>, fields: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyAny>> {
    let mut req = Map::new();
    if let Some(f) = fields {
        if let Value::Object(m) = convert::to_json(f.as_any())? {
            req = m;
        }
    }
    req.insert("op".into(), convert::to_json(op)?);
    req.insert("a".into(), convert::to_json(a)?);
    req.insert("b".into(), convert::to_json(b)?);
    let out = inswitch_model::reduce::batch::run_request(&Value::Object(req)).map_err(|e| PyValueError::new_err(e.to_string()))?;
    convert::to_py(py, &out)
}

fn kind_of(kind: &str) -> PyResult<FrameKind> {
    kind.parse::<FrameKind>().map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Every field of a frame: the same object as one `inswitch decode --json` line.
#[pyfunction]
fn decode<'py>(py: Python<'py>, kind: &str, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let v = d::to_json(kind_of(kind)?, data).map_err(|e| PyValueError::new_err(e.to_string()))?;
    convert::to_py(py, &v)
}

/// Builds a frame from its fields (docs/python.md §encode) with the codec's own emitter.
#[pyfunction]
fn encode<'py>(py: Python<'py>, kind: &str, fields: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let k = kind_of(kind)?;
    let v = convert::to_json(fields)?;
    let bytes = encoder::encode(k, &v).map_err(PyValueError::new_err)?;
    Ok(PyBytes::new(py, &bytes))
}

/// The frame kinds `decode` and `encode` take.
#[pyfunction]
fn frame_kinds() -> Vec<&'static str> {
    d::FRAME_KIND_NAMES.to_vec()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(reduce, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(frame_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(block::blocks, m)?)?;
    m.add_class::<block::Block>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
