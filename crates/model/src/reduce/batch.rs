//! Library side of the `inswitch reduce` CLI: one combine from command-line words ([`run_args`]) or a
//! stream of JSON lines ([`run_batch`]). Format in `docs/blocks/reduce_unit.md` §CLI.
//!
//! Request: `{"op": "FLT_SUM_FTZ_RND2", "a": [...], "b": [...], "mode": "ieee"}` plus optional
//! `a_rc`/`b_rc` (number or name), `a_sfa`/`b_sfa`, `a_op`/`b_op` (to provoke a mismatch), and for
//! FLT_REPSUM `a_m`/`b_m`/`a_oflow_id`/`b_oflow_id` when `a`/`b` are four raw bins instead of one
//! double. Operands: JSON integers, JSON numbers, or strings: `0x...` (raw 64 bits), decimal integers, or
//! (for floating-point operators) float literals including `inf`, `-inf`, `nan`, `snan`, `-0`.
//! Missing lanes are 0. Response: one JSON object per request line, or `{"line": n, "error": "..."}`.

use std::io::{BufRead, Write};

use serde_json::{json, Value};

use super::{combine, float, repsum, Contribution, Mode, Opcode, Rc, LANES};

/// Why a request could not be run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// The opcode name or number is unknown.
    #[error(transparent)]
    Opcode(#[from] super::opcode::ParseOpcodeError),
    /// A field is missing or has the wrong type or value.
    #[error("field {field:?}: {reason}")]
    Field {
        /// The JSON field (or CLI argument) at fault.
        field: String,
        /// What was wrong with it.
        reason: String,
    },
    /// The line is not JSON.
    #[error("not a JSON object: {0}")]
    Json(#[from] serde_json::Error),
}

fn field_err(field: &str, reason: impl Into<String>) -> BatchError {
    BatchError::Field { field: field.to_string(), reason: reason.into() }
}

fn is_float_op(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::FltMin
            | Opcode::FltMax
            | Opcode::FltMinNum
            | Opcode::FltMaxNum
            | Opcode::FltMinMaxLoc
            | Opcode::FltMinMaxNumLoc
            | Opcode::FltSum { .. }
            | Opcode::FltRepsum
    )
}

/// Parses one operand word: `0x` hex bits, a decimal integer, or a float literal (when `float`).
pub fn parse_operand(s: &str, float: bool, field: &str) -> Result<u64, BatchError> {
    let t = s.trim();
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(&h.replace('_', ""), 16).map_err(|e| field_err(field, e.to_string()));
    }
    if float {
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "snan" | "+snan" => return Ok(0x7ff4_0000_0000_0000),
            "-snan" => return Ok(0xfff4_0000_0000_0000),
            "nan" | "qnan" | "+nan" => return Ok(float::DEFAULT_NAN),
            "-nan" | "-qnan" => return Ok(float::DEFAULT_NAN | 1 << 63),
            _ => {}
        }
        // Decimal-to-binary conversion is outside the data path (Rust's parse rounds correctly).
        return t.parse::<f64>().map(f64::to_bits).map_err(|e| field_err(field, e.to_string()));
    }
    if let Ok(v) = t.parse::<i64>() {
        return Ok(v as u64);
    }
    t.parse::<u64>().map_err(|e| field_err(field, e.to_string()))
}

fn value_operand(v: &Value, float: bool, field: &str) -> Result<u64, BatchError> {
    match v {
        Value::String(s) => parse_operand(s, float, field),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if float {
                    Ok((i as f64).to_bits())
                } else {
                    Ok(i as u64)
                }
            } else if let Some(u) = n.as_u64() {
                Ok(u)
            } else {
                let f = n.as_f64().ok_or_else(|| field_err(field, "not a number"))?;
                if float {
                    Ok(f.to_bits())
                } else {
                    Err(field_err(field, "a fractional number for an integer operator"))
                }
            }
        }
        _ => Err(field_err(field, "operand must be a number or a string")),
    }
}

fn opt_u64(obj: &Value, field: &str) -> Result<Option<u64>, BatchError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => value_operand(v, false, field).map(Some),
    }
}

fn parse_rc(obj: &Value, field: &str) -> Result<Rc, BatchError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(Rc::SUCCESS),
        Some(Value::String(s)) => {
            let up = s.to_ascii_uppercase();
            let up = up.strip_prefix("CXIP_COLL_RC_").unwrap_or(&up).to_string();
            (0..16u8)
                .map(Rc)
                .find(|rc| rc.name() == Some(up.as_str()))
                .map_or_else(|| parse_operand(s, false, field).map(|v| Rc::from_raw(v as u8)), Ok)
        }
        Some(v) => value_operand(v, false, field).map(|v| Rc::from_raw(v as u8)),
    }
}

/// Parses a mode name: `associative` (default) or `ieee`, or 0/1.
pub fn parse_mode(s: &str) -> Result<Mode, BatchError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "" | "assoc" | "associative" | "0" => Ok(Mode::Associative),
        "ieee" | "1" => Ok(Mode::Ieee),
        other => Err(field_err("mode", format!("{other:?} is neither \"associative\" nor \"ieee\""))),
    }
}

fn side(req: &Value, p: &str, op: Opcode) -> Result<Contribution, BatchError> {
    let float = is_float_op(op);
    let words: Vec<u64> = match req.get(p) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| value_operand(v, float, &format!("{p}[{i}]")))
            .collect::<Result<_, _>>()?,
        Some(v) => vec![value_operand(v, float, p)?],
    };
    if words.len() > LANES {
        return Err(field_err(p, format!("{} operands, at most {LANES}", words.len())));
    }
    let op_raw = match req.get(format!("{p}_op")) {
        None | Some(Value::Null) => op.raw(),
        Some(Value::String(s)) => Opcode::parse(s)?.raw(),
        Some(v) => value_operand(v, false, &format!("{p}_op"))? as u8 & 0x3f,
    };
    let mut c = Contribution {
        rt_op: op_raw,
        rt_rc: parse_rc(req, &format!("{p}_rc"))?,
        sfa: opt_u64(req, &format!("{p}_sfa"))?.unwrap_or(0) as u32,
        ..Contribution::default()
    };
    let m = opt_u64(req, &format!("{p}_m"))?;
    if op == Opcode::FltRepsum && m.is_none() {
        // One double, split by the software side.
        if words.len() > 1 {
            return Err(field_err(p, format!("FLT_REPSUM takes one double, or four bins with {p}_m")));
        }
        let (r, rc) = repsum::from_f64_bits(words.first().copied().unwrap_or(0));
        c.rt_data = r.t.map(|v| v as u64);
        c.rt_repsum_m = r.m;
        c.rt_rc = c.rt_rc.merge(rc);
    } else {
        for (i, w) in words.iter().enumerate() {
            c.rt_data[i] = *w;
        }
        c.rt_repsum_m = m.unwrap_or(0) as i8;
        c.rt_repsum_oflow_id = opt_u64(req, &format!("{p}_oflow_id"))?.unwrap_or(0) as u8 & 3;
    }
    Ok(c)
}

/// A double as JSON data: a number when finite, else `"nan"`, `"inf"` or `"-inf"` (JSON has no
/// non-finite numbers).
fn float_value(bits: u64) -> Value {
    let f = f64::from_bits(bits);
    if f.is_nan() {
        json!("nan")
    } else if f.is_infinite() {
        json!(if f > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(f)
    }
}

/// The response as data (the conventions of `inswitch decode --json`, docs/blocks/reduce_unit.md §CLI): names in
/// lower case beside their codes, operands as numbers.
fn describe(op: Opcode, r: &Contribution) -> Value {
    let mut out = json!({
        "op": op.name().map_or("unknown".to_string(), str::to_ascii_lowercase),
        "op_code": r.rt_op,
        "data": r.rt_data,
        "rc": r.rt_rc.name().map_or("unknown".to_string(), str::to_ascii_lowercase),
        "rc_code": r.rt_rc.0,
        "repsum_m": r.rt_repsum_m,
        "repsum_oflow_id": r.rt_repsum_oflow_id,
    });
    let values: Vec<Value> = match op {
        _ if r.rt_rc == Rc::OP_MISMATCH => Vec::new(),
        Opcode::FltRepsum => {
            out["repsum_value"] = float_value(repsum::to_f64_bits(&r.repsum()));
            Vec::new()
        }
        Opcode::FltMinMaxLoc | Opcode::FltMinMaxNumLoc => {
            vec![float_value(r.rt_data[0]), json!(r.rt_data[1]), float_value(r.rt_data[2]), json!(r.rt_data[3])]
        }
        op if is_float_op(op) => r.rt_data.iter().map(|v| float_value(*v)).collect(),
        Opcode::IntMinMaxLoc => vec![
            json!(r.rt_data[0] as i64),
            json!(r.rt_data[1]),
            json!(r.rt_data[2] as i64),
            json!(r.rt_data[3]),
        ],
        _ => r.rt_data.iter().map(|v| json!(*v as i64)).collect(),
    };
    if !values.is_empty() {
        out["values"] = Value::Array(values);
    }
    if r.rt_rc == Rc::OP_MISMATCH {
        out["sfa_a"] = json!(r.rt_data[0] as u32);
        out["sfa_b"] = json!((r.rt_data[0] >> 32) as u32);
    }
    out
}

/// Runs one JSON request object and returns the response object.
pub fn run_request(req: &Value) -> Result<Value, BatchError> {
    if !req.is_object() {
        return Err(field_err("", "request must be a JSON object"));
    }
    let op = match req.get("op") {
        Some(Value::String(s)) => Opcode::parse(s)?,
        Some(v @ Value::Number(_)) => Opcode::from_raw(value_operand(v, false, "op")? as u8),
        _ => return Err(field_err("op", "missing (a name such as \"INT_SUM\" or a number)")),
    };
    let mode = match req.get("mode") {
        None | Some(Value::Null) => Mode::Associative,
        Some(Value::String(s)) => parse_mode(s)?,
        Some(Value::Bool(b)) => Mode::from_bit(*b),
        Some(v) => parse_mode(&v.to_string())?,
    };
    let a = side(req, "a", op)?;
    let b = side(req, "b", op)?;
    Ok(describe(op, &combine(mode, &a, &b)))
}

/// `inswitch reduce --op <name> [--mode m] <operand>...`: the first half of `operands` are a's lanes,
/// the second half b's (FLT_REPSUM: one double each).
pub fn run_args(op: &str, mode: &str, operands: &[&str]) -> Result<Value, BatchError> {
    if operands.len() % 2 != 0 || operands.len() > 2 * LANES {
        return Err(field_err(
            "operands",
            format!("{} operands; give the same number (1-{LANES}) for a and for b", operands.len()),
        ));
    }
    let half = operands.len() / 2;
    let req = json!({
        "op": op,
        "mode": mode,
        "a": operands[..half],
        "b": operands[half..],
    });
    run_request(&req)
}

/// Reads JSON-lines requests from `reader` and writes one JSON-lines response per non-blank line to
/// `writer`. A bad line yields `{"line": n, "error": "..."}` and the batch goes on. Returns the number
/// of requests answered without error.
pub fn run_batch<R: BufRead, W: Write>(reader: R, mut writer: W) -> std::io::Result<usize> {
    let mut ok = 0;
    for (n, line) in reader.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let resp = serde_json::from_str::<Value>(&line)
            .map_err(BatchError::from)
            .and_then(|req| run_request(&req));
        let out = match resp {
            Ok(v) => {
                ok += 1;
                v
            }
            Err(e) => json!({ "line": n + 1, "error": e.to_string() }),
        };
        writeln!(writer, "{out}")?;
    }
    Ok(ok)
}
