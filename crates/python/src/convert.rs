//! Python objects <-> JSON values: the binding hands the model's JSON interfaces (`reduce --batch`,
//! `decode --json`) Python data and gives their answers back as Python data, so both sides see the same
//! values as the CLI.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// A Python value as JSON: None, bool, int (within 64 bits), float, str, list/tuple, dict with str keys.
/// `bytes` become a list of integers.
pub fn to_json(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: a Python bool is an int.
    if let Ok(b) = obj.downcast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(PyValueError::new_err(format!("integer {obj} does not fit in 64 bits")));
    }
    if let Ok(f) = obj.downcast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| PyValueError::new_err(format!("{v} has no JSON number: give it as a string (\"inf\", \"nan\")")));
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(Value::Array(b.as_bytes().iter().map(|x| Value::from(*x)).collect()));
    }
    if let Ok(l) = obj.downcast::<PyList>() {
        return l.iter().map(|x| to_json(&x)).collect::<PyResult<_>>().map(Value::Array);
    }
    if let Ok(t) = obj.downcast::<PyTuple>() {
        return t.iter().map(|x| to_json(&x)).collect::<PyResult<_>>().map(Value::Array);
    }
    if let Ok(d) = obj.downcast::<PyDict>() {
        let mut m = Map::new();
        for (k, v) in d.iter() {
            let key = k.downcast::<PyString>().map_err(|_| PyTypeError::new_err(format!("dict key {k} is not a str")))?;
            m.insert(key.to_cow()?.into_owned(), to_json(&v)?);
        }
        return Ok(Value::Object(m));
    }
    Err(PyTypeError::new_err(format!("cannot pass a {} to the model", obj.get_type().name()?)))
}

/// A JSON value as a Python object (numbers as int or float, objects as dict).
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a.iter().map(|x| to_py(py, x)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}
