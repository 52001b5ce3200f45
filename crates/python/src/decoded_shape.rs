//! `encode(kind, decode(kind, b)) == b` for the non-TLP kinds (dllp, portals, soft-portals,
//! collective): the whole object `decode --json` gives (recognised by its `kind` name and `raw`; its
//! `length` and `raw` describe the old bytes and are not read) is turned into the Rust struct's field
//! names the encoder takes (`encoder`), the frame is emitted, and every key given must read back the same
//! from the new frame (`tlp_encode::read_back`), so a derived field that disagrees (a `tree` that is not
//! the `dfa`'s, an `op` name beside another `op_code`) is an error, never dropped.

use inswitch_frames::collective::NO_PARTICIPANT;
use inswitch_frames::decode::{parse_hex, FrameKind};
use inswitch_frames::json::kind_name;
use serde_json::{json, Map, Value};

type R<T> = Result<T, String>;

/// The member of a decode object of `kind`, or `None` when `v` is not one (then it is the struct shape).
pub fn envelope(kind: FrameKind, v: &Value) -> R<Option<&Map<String, Value>>> {
    let name = kind_name(kind);
    let Value::Object(m) = v else { return Ok(None) };
    if !(m.contains_key("raw") && m.get("kind").is_some_and(Value::is_string)) {
        return Ok(None);
    }
    if m["kind"] != name {
        return Err(format!("{name}: this is the decode object of a frame of kind {}", m["kind"]));
    }
    match m.get(name) {
        Some(Value::Object(inner)) => Ok(Some(inner)),
        _ => Err(format!("{name}: the decode object has no {name} member")),
    }
}

/// Copies `from[src]` to `to[dst]` when present.
fn mv(to: &mut Map<String, Value>, dst: &str, from: &Map<String, Value>, src: &str) {
    if let Some(v) = from.get(src) {
        to.insert(dst.into(), v.clone());
    }
}

/// A hex string (decode's byte strings) as a list of bytes; other values unchanged (the encoder checks).
fn bytes_of(what: &str, v: &Value) -> R<Value> {
    match v {
        Value::String(s) => Ok(json!(parse_hex(s).map_err(|e| format!("{what}: {e}"))?)),
        other => Ok(other.clone()),
    }
}

/// `aa:bb:cc:dd:ee:ff` as 6 bytes.
fn mac(what: &str, v: &Value) -> R<Value> {
    match v {
        Value::String(s) => Ok(json!(parse_hex(&s.replace(':', "")).map_err(|e| format!("{what}: {e}"))?)),
        other => Ok(other.clone()),
    }
}

/// A checksum given as decode shows it (`{"value": ...}`) or as a number.
fn checksum(v: &Value) -> Value {
    match v {
        Value::Object(m) => m.get("value").cloned().unwrap_or(Value::Null),
        other => other.clone(),
    }
}

fn obj<'a>(what: &str, v: &'a Value) -> R<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| format!("{what}: expected a dict, got {v}"))
}

fn dllp(d: &Map<String, Value>) -> R<Value> {
    let mut s = Map::new();
    mv(&mut s, "dllp_type", d, "type_code");
    if let Some(b) = d.get("body") {
        let b = b.as_u64().filter(|b| b >> 24 == 0).ok_or_else(|| format!("dllp.body: {b} is not a 24-bit number"))?;
        s.insert("body".into(), json!([b >> 16 & 0xff, b >> 8 & 0xff, b & 0xff]));
    }
    if let Some(c) = d.get("crc") {
        s.insert("crc".into(), checksum(c));
    }
    Ok(Value::Object(s))
}

fn portals(what: &str, d: &Map<String, Value>) -> R<Value> {
    let mut s = Map::new();
    for k in ["dfa", "sfa", "vni", "command", "flags", "match_bits", "header_data", "data"] {
        mv(&mut s, k, d, k);
    }
    for k in ["reserved", "idc_pad"] {
        if let Some(v) = d.get(k) {
            s.insert(k.into(), bytes_of(&format!("{what}.{k}"), v)?);
        }
    }
    if let Some(h) = d.get("header") {
        let h = obj(&format!("{what}.header"), h)?;
        let mut t = Map::new();
        for (dst, src) in [("seqno", "seqno"), ("arm", "arm"), ("op", "op_code"), ("count", "redcnt"), ("resno", "resno"), ("rc", "red_rc_code"), ("repsum_ovflid", "repsum_ovflid"), ("retry", "retry"), ("reserved", "pad")] {
            mv(&mut t, dst, h, src);
        }
        // Decode shows repsum_m signed (an exponent offset); the field holds its 8-bit pattern.
        if let Some(m) = h.get("repsum_m") {
            t.insert("repsum_m".into(), m.as_i64().filter(|m| (-128..=255).contains(m)).map_or(m.clone(), |m| json!(m & 0xff)));
        }
        if let Some(c) = h.get("cookie") {
            t.insert("cookie".into(), checksum(c));
        }
        s.insert("header".into(), Value::Object(t));
    }
    Ok(Value::Object(s))
}

fn soft_portals(d: &Map<String, Value>) -> R<Value> {
    let mut s = Map::new();
    if let Some(e) = d.get("ethernet") {
        let e = obj("soft_portals.ethernet", e)?;
        for (dst, src) in [("dst", "destination"), ("src", "source")] {
            if let Some(v) = e.get(src) {
                s.insert(dst.into(), mac(&format!("soft_portals.ethernet.{src}"), v)?);
            }
        }
        mv(&mut s, "ethertype", e, "ethertype");
    }
    if let Some(p) = d.get("portals") {
        s.insert("frame".into(), portals("soft_portals.portals", obj("soft_portals.portals", p)?)?);
    }
    if let Some(f) = d.get("fcs") {
        s.insert("fcs".into(), checksum(f));
    }
    Ok(Value::Object(s))
}

fn collective(d: &Map<String, Value>) -> R<Value> {
    let mut s = Map::new();
    for k in ["version", "non_posted", "error_mark", "retry", "tid", "cc_id", "dmu_id"] {
        mv(&mut s, k, d, k);
    }
    mv(&mut s, "kind", d, "kind_code");
    // Decode shows "no participant" as null.
    match d.get("p_id") {
        Some(Value::Null) => {
            s.insert("p_id".into(), json!(NO_PARTICIPANT));
        }
        Some(v) => {
            s.insert("p_id".into(), v.clone());
        }
        None => {}
    }
    if let Some(b) = d.get("body") {
        let b = obj("collective.body", b)?;
        let renames = [
            ("master_id", "master_id"), ("isl_port", "isl_port"), ("validation", "validation"), ("error_reporting", "error_reporting"),
            ("subservient_timeout", "subservient_timeout"), ("master_timeout", "master_timeout"), ("device_ids", "pbv_table"),
            ("subservient_ids", "subservient_ids"), ("p_count", "p_count"), ("operation", "operation_code"), ("accumulator", "accumulator"),
            ("command", "command_code"), ("status", "status_code"), ("contributions", "contributions"), ("completion", "completion_code"),
            ("operands", "operands"), ("reason", "reason_code"), ("attempt", "attempt"), ("engine_id", "engine_id"), ("device_id", "device_id"),
        ];
        for (dst, src) in renames {
            mv(&mut s, dst, b, src);
        }
        // The 128-bit PBV: decode's 0x hex string as [low 64, high 64].
        if let Some(p) = b.get("pbv") {
            let v = match p {
                Value::String(h) => {
                    let x = u128::from_str_radix(h.trim_start_matches("0x"), 16).map_err(|e| format!("collective.body.pbv: {h}: {e}"))?;
                    json!([x as u64, (x >> 64) as u64])
                }
                other => other.clone(),
            };
            s.insert("pbv".into(), v);
        }
        if let Some(r) = b.get("raw") {
            s.insert("body".into(), bytes_of("collective.body.raw", r)?);
        }
    }
    Ok(Value::Object(s))
}

/// The struct-shape fields of a decode member of `kind` (not a TLP kind).
pub fn to_struct_shape(kind: FrameKind, member: &Map<String, Value>) -> R<Value> {
    match kind {
        FrameKind::Dllp => dllp(member),
        FrameKind::Portals => portals("portals", member),
        FrameKind::SoftPortals => soft_portals(member),
        FrameKind::Collective => collective(member),
        FrameKind::Tlp | FrameKind::FlitTlp => Err("TLPs take the decode object directly".into()),
    }
}
