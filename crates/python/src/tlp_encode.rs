//! `inswitch.encode("tlp" | "flit", fields)`: a TLP from the object `decode --json` gives for it, so
//! `encode(kind, decode(kind, b)) == b` for every frame the codec reads (the whole decode object, or
//! only its `tlp` / `flit` member). The bytes are emitted by the frames crate's codec (its checks and
//! messages apply).
//!
//! A TLP header is a union of layouts, and decode shows some values twice (the raw `header_dws` of a
//! flit TLP and the `requester_id` / `tag` / `address` read from them; `type` beside `type_code`).
//! The rule that keeps this honest: the fields that hold the bits are read (a missing one is 0, a named
//! field overrides the raw word it is read from), the frame is emitted, decoded again, and **every key
//! given must read back the same value**. So a derived field that disagrees, a value the layout cannot
//! hold (an address with low bits set, a reserved bit decode does not show) or a key that is not a field
//! of this frame is a `ValueError` naming the key, never silently dropped. Checksums (`ecrc`, the flit
//! `trailer`) are computed when absent and used as given otherwise, to build bad frames.

use inswitch_frames::decode::FrameKind;
use inswitch_frames::flit::{self, FlitDw0, FlitTlp, OHC_A, OHC_B, OHC_C, OHC_E_DW, OHC_E_SHIFT, TS_ECRC};
use inswitch_frames::json::{hex, kind_name};
use inswitch_frames::tlp::{
    Address, Address32, ConfigDw2, CompletionHeader, Dw0, Header, MessageHeader, MessageRouting, RequestDw1, Tlp, TlpKind, TlpPrefix,
    BodyClass, DW, FMT_4DW, FMT_PREFIX, MAX_BYTE_COUNT,
};
use serde_json::{Map, Value};

use crate::dict_fields::{object, uint, Fields};

type R<T> = Result<T, String>;

/// Bits of the 10-bit non-flit tag that live in DW0 (T9, T8).
const TAG8_BITS: u32 = 10;
/// Mask of the address bits a DW address holds (the low 2 are PH or reserved).
const DW_ADDRESS_MASK: u64 = !0b11;

/// A byte string given as a hex string (as decode writes it) or a list of byte values / `bytes`.
fn byte_string(f: &mut Fields<'_>, key: &'static str) -> R<Option<Vec<u8>>> {
    let name = f.name(key);
    match f.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => inswitch_frames::decode::parse_hex(s).map(Some).map_err(|e| format!("{name}: {e}")),
        Some(_) => Ok(Some(f.list(key, 8)?.into_iter().map(|x| x as u8).collect())),
    }
}

/// The object to encode: the whole decode object (`{"kind", "length", "raw", "<kind>": {...}}`, whose
/// `length` and `raw` describe the old bytes and are not read) or its member alone.
pub(crate) fn member(kind: FrameKind, v: &Value) -> R<&Value> {
    let name = kind_name(kind);
    match v {
        // The envelope: `kind` is a frame kind's name and `raw` is there.
        Value::Object(m) if m.contains_key("raw") && m.get("kind").is_some_and(Value::is_string) => {
            let k = &m["kind"];
            if k != name {
                return Err(format!("{name}: this is the decode object of a frame of kind {k}"));
            }
            m.get(name).ok_or_else(|| format!("{name}: the decode object has no {name} member"))
        }
        _ => Ok(v),
    }
}

/// Whether a given value reads back as `got`: JSON equality, with a bool equal to 0/1, a byte list equal
/// to its hex string, a checksum given as a number equal to the decoded `value`, and objects compared on
/// the keys given.
fn same(given: &Value, got: &Value) -> bool {
    match (given, got) {
        (Value::Bool(b), Value::Number(n)) | (Value::Number(n), Value::Bool(b)) => n.as_u64() == Some(u64::from(*b)),
        (Value::Array(a), Value::String(s)) => {
            let bytes: Option<Vec<u8>> = a.iter().map(|x| x.as_u64().and_then(|x| u8::try_from(x).ok())).collect();
            bytes.is_some_and(|b| hex(&b) == *s)
        }
        (Value::String(a), Value::String(b)) => a.eq_ignore_ascii_case(b),
        (Value::Number(_), Value::Object(m)) => m.get("value").is_some_and(|v| same(given, v)),
        (Value::Object(g), Value::Object(m)) => g.iter().all(|(k, v)| m.get(k).is_some_and(|x| same(v, x))),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        _ => given == got,
    }
}

/// Decodes `bytes` again and checks every given key against it (module doc).
pub(crate) fn read_back(kind: FrameKind, given: &Map<String, Value>, bytes: &[u8]) -> R<()> {
    let name = kind_name(kind);
    let decoded = inswitch_frames::json::to_json(kind, bytes).map_err(|e| format!("{name}: the encoded frame does not decode: {e}"))?;
    let got = decoded.get(name).and_then(Value::as_object).ok_or_else(|| format!("{name}: decode gave no {name} object"))?;
    for (k, v) in given {
        match got.get(k) {
            None if v.is_null() => {}
            None => {
                let keys: Vec<&str> = got.keys().map(String::as_str).collect();
                return Err(format!("{name}.{k}: not a field of this frame (its fields: {})", keys.join(", ")));
            }
            Some(x) if !(same(v, x) || v.is_null() && x.is_null()) => {
                return Err(format!(
                    "{name}.{k}: given {v}, but the encoded frame reads {x} (a derived field that disagrees, or bits this layout does not hold)"
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Encodes a TLP (`kind` is `Tlp` or `FlitTlp`) from its decode object.
pub fn encode(kind: FrameKind, fields: &Value) -> R<Vec<u8>> {
    let v = member(kind, fields)?;
    let bytes = match kind {
        FrameKind::FlitTlp => flit_tlp(v)?,
        _ => tlp(v)?,
    };
    if let Value::Object(m) = v {
        read_back(kind, m, &bytes)?;
    }
    Ok(bytes)
}

/// The payload and the Length field: a missing Length is the payload's size in DW, a missing payload is
/// zeros of Length DW (when the type carries data).
fn payload_and_length(f: &mut Fields<'_>, with_data: bool, max_dw: usize) -> R<(Vec<u8>, u16)> {
    let payload = byte_string(f, "payload")?;
    if let Some(p) = &payload {
        if p.len() % DW != 0 || p.len() > max_dw * DW {
            return Err(format!("{}: {} bytes, not a whole number of DW up to {max_dw}", f.name("payload"), p.len()));
        }
    }
    let length = f.opt("length", TAG8_BITS)?;
    let length = match (length, &payload) {
        (Some(l), _) => l as u16,
        // Length 0 means the maximum (1024 DW).
        (None, Some(p)) if with_data => ((p.len() / DW) % max_dw) as u16,
        (None, _) => 0,
    };
    let dw = if length == 0 { max_dw } else { usize::from(length) };
    let payload = payload.unwrap_or_else(|| if with_data { vec![0; dw * DW] } else { Vec::new() });
    Ok((payload, length))
}

fn request_dw1(f: &mut Fields<'_>) -> R<(RequestDw1, u16)> {
    let tag = f.u("tag", TAG8_BITS)? as u16;
    let req = RequestDw1 {
        requester_id: f.u("requester_id", 16)? as u16,
        tag: tag as u8,
        last_be: f.u("last_be", 4)? as u8,
        first_be: f.u("first_be", 4)? as u8,
    };
    Ok((req, tag))
}

fn tlp(v: &Value) -> R<Vec<u8>> {
    let mut f = object("tlp", v)?;
    let mut prefixes = Vec::new();
    if let Some(p) = f.get("prefixes") {
        let items = p.as_array().ok_or_else(|| format!("tlp.prefixes: expected a list, got {p}"))?;
        for (i, item) in items.iter().enumerate() {
            let what = format!("tlp.prefixes[{i}]");
            let mut pf = object(&what, item)?;
            prefixes.push(TlpPrefix {
                fmt: FMT_PREFIX,
                end_to_end: pf.flag("end_to_end")?,
                subtype: pf.u("subtype", 4)? as u8,
                content: pf.u("content", 24)? as u32,
            });
        }
    }
    let mut dw0 = Dw0 {
        fmt: f.u("fmt", 3)? as u8,
        tlp_type: f.u("type_code", 5)? as u8,
        t9: f.flag("t9")?,
        tc: f.u("tc", 3)? as u8,
        t8: f.flag("t8")?,
        attr2: f.flag("attr2")?,
        ln: f.flag("ln")?,
        th: f.flag("th")?,
        td: f.flag("td")?,
        ep: f.flag("ep")?,
        attr: f.u("attr", 2)? as u8,
        at: f.u("at", 2)? as u8,
        length: 0,
    };
    let kind = dw0.kind();
    let four = dw0.fmt & FMT_4DW != 0;
    let (payload, length) = payload_and_length(&mut f, dw0.has_data(), inswitch_frames::tlp::MAX_PAYLOAD_DW)?;
    dw0.length = length;
    let mut tag10 = None;
    let address = |f: &mut Fields<'_>| -> R<Address> {
        let a = f.u("address", 64)?;
        let ph = f.u("ph", 2)? as u8;
        if four {
            Ok(Address::A64(inswitch_frames::tlp::Address64 { address_dw: a >> 2, ph }))
        } else {
            let a = uint("tlp.address", &Value::from(a), 32)?;
            Ok(Address::A32(Address32 { address_dw: (a >> 2) as u32, ph }))
        }
    };
    let header = match kind.body_class() {
        BodyClass::Memory | BodyClass::Atomic => {
            let (req, tag) = request_dw1(&mut f)?;
            tag10 = Some(tag);
            let address = address(&mut f)?;
            if kind.body_class() == BodyClass::Memory { Header::Memory { req, address } } else { Header::Atomic { req, address } }
        }
        BodyClass::Io => {
            let (req, tag) = request_dw1(&mut f)?;
            tag10 = Some(tag);
            let a = f.u("address", 32)?;
            Header::Io { req, address: Address32 { address_dw: (a >> 2) as u32, ph: 0 } }
        }
        BodyClass::Config => {
            let (req, tag) = request_dw1(&mut f)?;
            tag10 = Some(tag);
            let id = f.u("completer_id", 16)? as u16;
            let target = ConfigDw2 {
                bus: (id >> 8) as u8,
                device: (id >> 3 & 0x1f) as u8,
                function: (id & 7) as u8,
                ext_register: f.u("ext_register", 4)? as u8,
                register: f.u("register", 6)? as u8,
                ..ConfigDw2::default()
            };
            Header::Config { req, target }
        }
        BodyClass::Completion => {
            let tag = f.u("tag", TAG8_BITS)? as u16;
            tag10 = Some(tag);
            // Byte Count 0 stands for 4096 (decode shows the byte count, 1..=4096).
            let bc = f.opt("byte_count", 13)?.unwrap_or(0);
            if bc > MAX_BYTE_COUNT as u64 {
                return Err(format!("tlp.byte_count: {bc} is more than {MAX_BYTE_COUNT}"));
            }
            Header::Completion(CompletionHeader {
                completer_id: f.u("completer_id", 16)? as u16,
                status: f.u("status_code", 3)? as u8,
                bcm: f.flag("bcm")?,
                byte_count: (bc as usize % MAX_BYTE_COUNT) as u16,
                requester_id: f.u("requester_id", 16)? as u16,
                tag: tag as u8,
                reserved: false,
                lower_address: f.u("lower_address", 7)? as u8,
            })
        }
        BodyClass::Message => {
            let tag = f.u("tag", TAG8_BITS)? as u16;
            tag10 = Some(tag);
            let code = f.u("message_code", 8)? as u8;
            let mut h = MessageHeader { requester_id: f.u("requester_id", 16)? as u16, tag: tag as u8, message_code: code, dw2: 0, dw3: 0 };
            if matches!(kind, TlpKind::Message { routing: MessageRouting::ByAddress, .. }) {
                let a = f.u("address", 64)?;
                h.dw2 = (a >> 32) as u32;
                h.dw3 = a as u32;
            } else if h.is_vendor_defined() {
                h.dw2 = (f.u("target_id", 16)? as u32) << 16 | f.u("vendor_id", 16)? as u32;
                h.dw3 = f.u("vendor_data", 32)? as u32;
            } else {
                h.dw2 = f.u("dw2", 32)? as u32;
                h.dw3 = f.u("dw3", 32)? as u32;
                if let Some(t) = f.opt("target_id", 16)? {
                    h.dw2 = h.dw2 & 0xffff | (t as u32) << 16;
                }
            }
            Header::Message(h)
        }
        BodyClass::Raw => {
            let n = dw0.header_len() - DW;
            Header::Raw(byte_string(&mut f, "header_rest")?.unwrap_or_else(|| vec![0; n]))
        }
    };
    if let Some(tag) = tag10 {
        dw0.t9 |= tag >> 9 & 1 != 0;
        dw0.t8 |= tag >> 8 & 1 != 0;
    }
    // ECRC: given as decode shows it ({"value": ...}) or as a number; absent with TD set: computed.
    let ecrc = match f.get("ecrc") {
        None => None,
        Some(Value::Object(m)) => Some(uint("tlp.ecrc.value", m.get("value").unwrap_or(&Value::Null), 32)? as u32),
        Some(x) => Some(uint("tlp.ecrc", x, 32)? as u32),
    };
    dw0.td |= ecrc.is_some();
    let mut t = Tlp { prefixes, dw0, header, payload, digest: None };
    match ecrc {
        Some(e) => t.digest = Some(e),
        None if t.dw0.td => t.fill_ecrc().map_err(|e| e.to_string())?,
        None => {}
    }
    t.to_bytes().map_err(|e| e.to_string())
}

/// Words of a list field (`header_dws`, `ohc_e`, `trailer`, `prefixes`): given, or `n` zeros.
fn words(f: &mut Fields<'_>, key: &'static str, n: usize) -> R<(Vec<u32>, bool)> {
    match f.get(key) {
        None => Ok((vec![0; n], false)),
        Some(_) => Ok((f.list(key, 32)?.into_iter().map(|x| x as u32).collect(), true)),
    }
}

fn flit_tlp(v: &Value) -> R<Vec<u8>> {
    let mut f = object("flit", v)?;
    let (prefixes, _) = words(&mut f, "prefixes", 0)?;
    let mut dw0 = FlitDw0 {
        tlp_type: f.u("type_code", 8)? as u8,
        tc: f.u("tc", 3)? as u8,
        ohc: f.u("ohc", flit::OHC_BITS)? as u8,
        ts: f.u("ts", 3)? as u8,
        attr: f.u("attr", 3)? as u8,
        length: 0,
    };
    let t = dw0.tlp_type;
    let (base_dw, with_data) = flit::type_info(t);
    let (payload, length) = payload_and_length(&mut f, with_data, flit::MAX_PAYLOAD_DW)?;
    dw0.length = length;
    let (mut header, _) = words(&mut f, "header_dws", base_dw.saturating_sub(1))?;
    // Named fields override the raw words they are read from (DW1: Requester ID | EP | R | Tag).
    if flit::has_request_dw1(t) {
        if let Some(w) = header.first_mut() {
            if let Some(rid) = f.opt("requester_id", 16)? {
                *w = *w & 0xffff | (rid as u32) << 16;
            }
            if let Some(ep) = f.opt("ep", 1)? {
                *w = *w & !(1 << 15) | (ep as u32) << 15;
            }
            if let Some(tag) = f.opt("tag", flit::TAG_BITS)? {
                *w = *w & !((1 << flit::TAG_BITS) - 1) | tag as u32;
            }
        }
    }
    if let Some(a) = f.opt("address", 64)? {
        let keep = |w: u32| w & !(DW_ADDRESS_MASK as u32);
        if flit::is_addr32(t) {
            let a = uint("flit.address", &Value::from(a), 32)?;
            if let Some(w) = header.get_mut(1) {
                *w = (a & DW_ADDRESS_MASK) as u32 | keep(*w);
            }
        } else if flit::is_addr64(t) && header.len() >= 3 {
            header[1] = (a >> 32) as u32;
            header[2] = (a & DW_ADDRESS_MASK) as u32 | keep(header[2]);
        }
    }
    // OHC words in A-B-C-E order, as the OHC field says which are there.
    let mut ohc = Vec::new();
    for (bit, key) in [(OHC_A, "ohc_a"), (OHC_B, "ohc_b"), (OHC_C, "ohc_c")] {
        let w = f.opt(key, 32)?;
        if dw0.ohc & bit != 0 {
            ohc.push(w.unwrap_or(0) as u32);
        }
    }
    let e_dw = OHC_E_DW[usize::from(dw0.ohc >> OHC_E_SHIFT & 0b11)];
    ohc.extend(words(&mut f, "ohc_e", e_dw)?.0);
    let (trailer, trailer_given) = words(&mut f, "trailer", dw0.trailer_dw())?;
    let mut tlp = FlitTlp { prefixes, dw0, header, ohc, payload, trailer };
    if !trailer_given && tlp.dw0.ts == TS_ECRC {
        tlp.fill_ecrc().map_err(|e| e.to_string())?;
    }
    tlp.to_bytes().map_err(|e| e.to_string())
}
