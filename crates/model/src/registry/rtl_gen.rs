//! Generates `rtl_table.rs` from the RTL sources: each block's parameters (names and default expressions)
//! and ports (names, directions, range expressions), in declaration order. Run as a test: it fails when
//! the checked-in table differs from the RTL; `INSWITCH_BLESS=1 cargo test -p inswitch-model rtl_table`
//! rewrites it.

use std::fmt::Write as _;
use std::path::PathBuf;

/// The RTL top modules that are registered blocks (`rtl/<name>.v`).
const MODULES: &[&str] = &[
    "output_queue",
    "axis_register",
    "reduce_unit",
    "register_space",
    "input_checker",
    "interposer",
    "frame_builder",
    "completion_builder",
    "cpu",
    "packet_engine",
];

fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The text inside the parenthesis group starting at `s[open]`, and the index after it.
fn group(s: &str, open: usize) -> (&str, usize) {
    assert_eq!(&s[open..open + 1], "(");
    let mut depth = 0;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return (&s[open + 1..open + i], open + i + 1);
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses");
}

fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in s.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Plain `` `define NAME value `` lines and one-argument macros of the message header.
struct Defines {
    plain: Vec<(String, String)>,
    macros: Vec<(String, String, String)>,
}

fn defines(vh: &str) -> Defines {
    let joined = vh.replace("\\\n", " ");
    let mut d = Defines { plain: Vec::new(), macros: Vec::new() };
    for line in joined.lines() {
        let Some(rest) = line.trim().strip_prefix("`define ") else { continue };
        let rest = rest.trim();
        let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let name = &rest[..name_end];
        let tail = &rest[name_end..];
        if let Some(args) = tail.strip_prefix('(') {
            let close = args.find(')').unwrap();
            d.macros.push((name.to_string(), args[..close].trim().to_string(), args[close + 1..].trim().to_string()));
        } else {
            d.plain.push((name.to_string(), tail.trim().to_string()));
        }
    }
    // Longest first, so `X_WIDTH` is not replaced inside `X_WIDTH_LSB`.
    d.plain.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
    d
}

fn expand(text: &str, d: &Defines) -> String {
    let mut s = text.to_string();
    for (name, arg, body) in &d.macros {
        let call = format!("`{name}(");
        while let Some(at) = s.find(&call) {
            let (actual, end) = group(&s, at + call.len() - 1);
            let body = body.replace(&format!("{arg}``"), actual.trim());
            s = format!("{}{}{}", &s[..at], body, &s[end..]);
        }
    }
    for (name, value) in &d.plain {
        s = s.replace(&format!("`{name}"), value);
    }
    s
}

struct Module {
    name: String,
    params: Vec<(String, String)>,
    ports: Vec<(String, bool, String, String)>,
}

fn parse(name: &str, src: &str, d: &Defines) -> Module {
    let s = strip_comments(src);
    let at = s.find(&format!("module {name}")).unwrap_or_else(|| panic!("no `module {name}`"));
    let mut i = at + "module ".len() + name.len();
    let skip_ws = |s: &str, mut i: usize| {
        while s[i..].starts_with(|c: char| c.is_whitespace()) {
            i += 1;
        }
        i
    };
    i = skip_ws(&s, i);
    let mut params = Vec::new();
    if s[i..].starts_with('#') {
        i = skip_ws(&s, i + 1);
        let (text, end) = group(&s, i);
        for item in split_top(text) {
            let item = item.trim_start_matches("parameter").trim();
            let (lhs, rhs) = item.split_once('=').unwrap_or_else(|| panic!("{name}: parameter `{item}` has no default"));
            let pname = lhs.split_whitespace().last().unwrap().to_string();
            params.push((pname, rhs.trim().to_string()));
        }
        i = skip_ws(&s, end);
    }
    let (text, _) = group(&s, i);
    let text = expand(text, d);
    let mut ports = Vec::new();
    let (mut dir, mut range) = (false, ("0".to_string(), "0".to_string()));
    for item in split_top(&text) {
        let mut rest = item.as_str();
        let mut declared_dir = false;
        for (kw, out) in [("input", false), ("output", true)] {
            if let Some(r) = rest.strip_prefix(kw) {
                dir = out;
                rest = r.trim_start();
                declared_dir = true;
                range = ("0".to_string(), "0".to_string());
            }
        }
        for kw in ["wire", "reg", "logic"] {
            if let Some(r) = rest.strip_prefix(kw) {
                rest = r.trim_start();
            }
        }
        if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').unwrap();
            let (msb, lsb) = r[..close].split_once(':').unwrap_or_else(|| panic!("{name}: range `{}`", &r[..close]));
            range = (msb.split_whitespace().collect::<Vec<_>>().join(" "), lsb.trim().to_string());
            rest = r[close + 1..].trim_start();
        } else if declared_dir {
            range = ("0".to_string(), "0".to_string());
        }
        ports.push((rest.trim().to_string(), dir, range.0.clone(), range.1.clone()));
    }
    Module { name: name.to_string(), params, ports }
}

/// The generated table, from the RTL under `rtl_dir`.
pub fn generate(rtl_dir: &std::path::Path) -> String {
    let vh = std::fs::read_to_string(rtl_dir.join("collective_msg.vh")).expect("read collective_msg.vh");
    let d = defines(&vh);
    let mut s = String::from(
        "// GENERATED from rtl/*.v by crates/model/src/registry/rtl_gen.rs: do not edit. Every registered\n\
         // block's RTL parameters (default expressions) and ports (range expressions), in declaration order.\n\
         // `INSWITCH_BLESS=1 cargo test --release -p inswitch-model rtl_table` regenerates it.\n\n\
         use super::rtl_module::{RtlModule, RtlParam, RtlPort};\n\n\
         /// Every registered block's RTL module.\n\
         pub static RTL_MODULES: &[RtlModule] = &[\n",
    );
    for name in MODULES {
        let src = std::fs::read_to_string(rtl_dir.join(format!("{name}.v"))).expect("read rtl");
        let m = parse(name, &src, &d);
        writeln!(s, "    RtlModule {{\n        name: {:?},\n        params: &[", m.name).unwrap();
        for (n, v) in &m.params {
            writeln!(s, "            RtlParam {{ name: {n:?}, default: {v:?} }},").unwrap();
        }
        s.push_str("        ],\n        ports: &[\n");
        for (n, out, msb, lsb) in &m.ports {
            writeln!(s, "            RtlPort {{ name: {n:?}, output: {out}, msb: {msb:?}, lsb: {lsb:?} }},").unwrap();
        }
        s.push_str("        ],\n    },\n");
    }
    s.push_str("];\n");
    s
}

#[test]
fn rtl_table_is_current() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let want = generate(&root.join("../../rtl"));
    let path = root.join("src/registry/rtl_table.rs");
    if std::env::var_os("INSWITCH_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write rtl_table.rs");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "crates/model/src/registry/rtl_table.rs is out of date with rtl/: run \
         `INSWITCH_BLESS=1 cargo test --release -p inswitch-model rtl_table` and commit the result"
    );
}
