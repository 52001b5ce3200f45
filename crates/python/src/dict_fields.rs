//! A dict of frame fields read one key at a time (for `inswitch.encode`): every value range-checked
//! against its field's width, and keys nobody read reported. Shared by the encoders of every kind
//! (`encoder`) and of TLPs (`tlp_encode`), below both.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

pub(crate) type R<T> = Result<T, String>;

/// A dict being read field by field; [`Fields::done`] rejects keys nobody read.
pub(crate) struct Fields<'a> {
    what: &'a str,
    map: &'a Map<String, Value>,
    read: BTreeSet<&'static str>,
}

/// `v` as a dict of fields, named `what` in errors.
pub(crate) fn object<'a>(what: &'a str, v: &'a Value) -> R<Fields<'a>> {
    match v {
        Value::Object(map) => Ok(Fields { what, map, read: BTreeSet::new() }),
        _ => Err(format!("{what}: expected a dict of fields")),
    }
}

/// `v` as an unsigned integer of at most `bits` bits, named `what` in errors.
pub(crate) fn uint(what: &str, v: &Value, bits: u32) -> R<u64> {
    let n = match v {
        Value::Number(n) => n.as_u64().ok_or_else(|| format!("{what}: {n} is not an unsigned integer"))?,
        Value::Bool(b) => u64::from(*b),
        _ => return Err(format!("{what}: expected an integer, got {v}")),
    };
    if bits < 64 && n >> bits != 0 {
        return Err(format!("{what}: {n:#x} does not fit in {bits} bits"));
    }
    Ok(n)
}

impl<'a> Fields<'a> {
    pub(crate) fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.read.insert(key);
        self.map.get(key).filter(|v| !v.is_null())
    }
    pub(crate) fn name(&self, key: &str) -> String {
        format!("{}.{key}", self.what)
    }
    pub(crate) fn u(&mut self, key: &'static str, bits: u32) -> R<u64> {
        let name = self.name(key);
        self.get(key).map_or(Ok(0), |v| uint(&name, v, bits))
    }
    pub(crate) fn opt(&mut self, key: &'static str, bits: u32) -> R<Option<u64>> {
        let name = self.name(key);
        self.get(key).map(|v| uint(&name, v, bits)).transpose()
    }
    pub(crate) fn flag(&mut self, key: &'static str) -> R<bool> {
        Ok(self.u(key, 1)? != 0)
    }
    pub(crate) fn list(&mut self, key: &'static str, bits: u32) -> R<Vec<u64>> {
        let name = self.name(key);
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items.iter().enumerate().map(|(i, v)| uint(&format!("{name}[{i}]"), v, bits)).collect(),
            Some(v) => Err(format!("{name}: expected a list, got {v}")),
        }
    }
    /// A fixed-size byte field: a list (or `bytes`) of exactly N bytes; missing is all zero.
    pub(crate) fn bytes<const N: usize>(&mut self, key: &'static str) -> R<[u8; N]> {
        let name = self.name(key);
        let v = self.list(key, 8)?;
        let mut out = [0u8; N];
        if !v.is_empty() {
            if v.len() != N {
                return Err(format!("{name}: {} bytes, expected {N}", v.len()));
            }
            for (o, x) in out.iter_mut().zip(v) {
                *o = x as u8;
            }
        }
        Ok(out)
    }
    pub(crate) fn sub(&mut self, key: &'static str) -> R<Option<(&'a str, &'a Value)>> {
        Ok(self.get(key).map(|v| (key, v)))
    }
    pub(crate) fn done(self) -> R<()> {
        let unknown: Vec<&str> = self.map.keys().map(String::as_str).filter(|k| !self.read.contains(k)).collect();
        if unknown.is_empty() {
            Ok(())
        } else {
            Err(format!("{}: unknown field(s) {} (known: {})", self.what, unknown.join(", "), self.read.iter().copied().collect::<Vec<_>>().join(", ")))
        }
    }
}
