//! `inswitch vectors`: golden vectors for simulators without DPI. A seeded random stimulus drives the
//! block model; every cycle's inputs and expected outputs are written as JSON lines or as a `$readmemh`
//! file plus a generated SystemVerilog bench that replays it against the RTL.
//!
//! Hex layout (format version [`FORMAT_VERSION`]), documented in docs/golden-model.md: `//` comment lines
//! carry the header; then one line per cycle, the hex of the concatenation
//! `{in_0, in_1, ..., in_k, out_0, ..., out_m}` in the registry's port order (`in_0` in the most
//! significant bits), each port at its RTL width: the line for cycle `c` holds the inputs just before
//! rising edge `c` and the outputs just before that edge.
//!
//! The stimulus (per port, by name): `rst` for the first cycles and rarely later; `*valid` half the
//! cycles, `*ready` three quarters; a write port's enable (`*_wr_en`) one cycle in 16 with fresh data
//! (masks 0 half the time so lookups hit); other `cfg_*` straps drawn rarely; everything else random.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use inswitch_model::registry::{self, PortInfo};
use inswitch_model::signal::MAX_PORT_WORDS;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Version of the vector formats; bumped on any change of layout.
pub const FORMAT_VERSION: u32 = 1;

/// The two vector formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per cycle.
    Jsonl,
    /// A `$readmemh` file and the SystemVerilog bench that replays it.
    Hex,
}

/// Arguments of `inswitch vectors`.
#[derive(clap::Args)]
pub struct Args {
    /// Block (RTL module name).
    #[arg(long)]
    block: String,
    /// Stimulus seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cycles.
    #[arg(long, default_value_t = 10_000)]
    cycles: u64,
    /// An RTL parameter NAME=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// `jsonl` or `hex` (`$readmemh` file plus a replay bench).
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    format: Format,
    /// Output directory.
    #[arg(long, default_value = "vectors")]
    out: PathBuf,
}

/// Cycles of reset at the start.
const RESET_CYCLES: u64 = 4;

fn is_write_data(inputs: &[PortInfo], name: &str) -> bool {
    name.split_once("_wr_").is_some_and(|(prefix, _)| inputs.iter().any(|p| p.name == format!("{prefix}_wr_en")))
}

/// The next value of input `p` on cycle `n`, given its current value.
fn draw(r: &mut ChaCha8Rng, inputs: &[PortInfo], p: &PortInfo, n: u64, cur: &mut [u32; MAX_PORT_WORDS]) {
    let random = |r: &mut ChaCha8Rng| {
        let mut w = [0u32; MAX_PORT_WORDS];
        for x in w.iter_mut().take(p.words()) {
            *x = r.random();
        }
        w
    };
    let bit = |b: bool| {
        let mut w = [0u32; MAX_PORT_WORDS];
        w[0] = u32::from(b);
        w
    };
    let name = p.name;
    *cur = if name == "rst" {
        bit(n < RESET_CYCLES || r.random_range(0..20_000) == 0)
    } else if name.ends_with("_wr_en") {
        bit(r.random_range(0..16) == 0)
    } else if is_write_data(inputs, name) && name.contains("mask") {
        if r.random_bool(0.5) { [0; MAX_PORT_WORDS] } else { random(r) }
    } else if is_write_data(inputs, name) {
        random(r)
    } else if name.starts_with("cfg_") || name.starts_with("cpu_cfg_") {
        if n < RESET_CYCLES || r.random_range(0..4096) == 0 { random(r) } else { *cur }
    } else if name.ends_with("valid") {
        bit(r.random_bool(0.5))
    } else if name.ends_with("ready") {
        bit(r.random_range(0..4) != 0)
    } else {
        random(r)
    };
    let top = p.width % 32;
    if top != 0 {
        cur[p.words() - 1] &= (1 << top) - 1;
    }
    for w in cur.iter_mut().skip(p.words()) {
        *w = 0;
    }
}

/// Hex digits of a port value at its width.
fn hex_digits(w: &[u32], width: u32) -> String {
    let digits = (width as usize).div_ceil(4);
    (0..digits).rev().map(|d| char::from_digit((w[d / 8] >> (4 * (d % 8))) & 0xf, 16).unwrap_or('0')).collect()
}

/// Runs the command.
pub fn run(a: &Args) -> ExitCode {
    match generate(a) {
        Ok(msg) => {
            println!("{msg}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("vectors: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn generate(a: &Args) -> Result<String, String> {
    let spec = registry::block(&a.block).map_err(|e| e.to_string())?;
    let params = spec.params_from_str(&a.params.join(",")).map_err(|e| e.to_string())?;
    let mut m = spec.instantiate(&params).map_err(|e| e.to_string())?;
    let ports = m.ports().to_vec();
    let n_in = spec.input_count();
    let (inputs, outputs) = ports.split_at(n_in);
    std::fs::create_dir_all(&a.out).map_err(|e| format!("cannot create {}: {e}", a.out.display()))?;
    let mut r = ChaCha8Rng::seed_from_u64(a.seed);
    let mut cur = vec![[0u32; MAX_PORT_WORDS]; n_in];
    let mut out = [0u32; MAX_PORT_WORDS];
    let header = format!(
        "inswitch-vectors format {FORMAT_VERSION}, inswitch {}, block {}, parameters {params}, seed {}, cycles {}",
        env!("CARGO_PKG_VERSION"),
        spec.name,
        a.seed,
        a.cycles
    );
    let mut text = String::new();
    if a.format == Format::Jsonl {
        let port_list: Vec<serde_json::Value> =
            ports.iter().map(|p| serde_json::json!({"name": p.name, "dir": if p.output {"out"} else {"in"}, "width": p.width})).collect();
        let params_json: serde_json::Map<String, serde_json::Value> = params.values().iter().map(|(k, v)| (k.to_string(), (*v).into())).collect();
        let h = serde_json::json!({
            "format": "inswitch-vectors", "version": FORMAT_VERSION, "inswitch": env!("CARGO_PKG_VERSION"),
            "block": spec.name, "params": params_json, "seed": a.seed, "cycles": a.cycles, "ports": port_list,
        });
        writeln!(text, "{h}").unwrap();
    } else {
        writeln!(text, "// {header}").unwrap();
        let layout: Vec<String> = ports.iter().map(|p| format!("{}[{}]", p.name, p.width)).collect();
        writeln!(text, "// one line per cycle, MSB first: {{{}}}", layout.join(", ")).unwrap();
    }
    for n in 0..a.cycles {
        for (k, p) in inputs.iter().enumerate() {
            draw(&mut r, inputs, p, n, &mut cur[k]);
            m.set_input(k, &cur[k]).map_err(|e| e.to_string())?;
        }
        m.step();
        let mut outs = Vec::with_capacity(outputs.len());
        for (k, _) in outputs.iter().enumerate() {
            m.output(n_in + k, &mut out).map_err(|e| e.to_string())?;
            outs.push(out);
        }
        if a.format == Format::Jsonl {
            let field = |ps: &[PortInfo], vs: &[[u32; MAX_PORT_WORDS]]| {
                ps.iter().zip(vs).map(|(p, v)| (p.name.to_string(), serde_json::Value::from(format!("0x{}", hex_digits(v, p.width))))).collect::<serde_json::Map<_, _>>()
            };
            writeln!(text, "{}", serde_json::json!({"cycle": n, "in": field(inputs, &cur), "out": field(outputs, &outs)})).unwrap();
        } else {
            let bits: String = inputs.iter().zip(&cur).chain(outputs.iter().zip(&outs)).map(|(p, v)| bits_of(v, p.width)).collect();
            writeln!(text, "{}", bin_to_hex(&bits)).unwrap();
        }
    }
    let file = a.out.join(format!("{}.{}", spec.name, if a.format == Format::Jsonl { "jsonl" } else { "hex" }));
    std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let mut msg = format!("wrote {} ({header})", file.display());
    if a.format == Format::Hex {
        let sv = a.out.join(format!("inswitch_{}_replay.sv", spec.name));
        std::fs::write(&sv, replay_sv(spec, &params, &ports, n_in, a.cycles, &header)).map_err(|e| format!("cannot write {}: {e}", sv.display()))?;
        msg.push_str(&format!(" and {}", sv.display()));
    }
    Ok(msg)
}

fn bits_of(w: &[u32], width: u32) -> String {
    (0..width as usize).rev().map(|b| if w[b / 32] >> (b % 32) & 1 == 1 { '1' } else { '0' }).collect()
}

fn bin_to_hex(bits: &str) -> String {
    let pad = (4 - bits.len() % 4) % 4;
    let padded = format!("{}{bits}", "0".repeat(pad));
    padded.as_bytes().chunks(4).map(|c| char::from_digit(c.iter().fold(0, |a, b| a * 2 + u32::from(*b == b'1')), 16).unwrap_or('0')).collect()
}

/// The replay bench: reads the hex file, drives the RTL's inputs at the falling edge, compares its
/// outputs at the rising edge (from the cycle after the first reset), ends with `$fatal` on a mismatch.
fn replay_sv(spec: &registry::BlockSpec, params: &registry::ParamSet, ports: &[PortInfo], n_in: usize, cycles: u64, header: &str) -> String {
    let total: u32 = ports.iter().map(|p| p.width).sum();
    let mut s = format!("// GENERATED by `inswitch vectors --format hex`: replays {}.hex against rtl/{}.v.\n// {header}\n", spec.name, spec.name);
    s.push_str("`timescale 1ns / 1ps\n\n");
    let overrides: Vec<String> = params.values().iter().map(|(k, v)| format!(".{k}({v})")).collect();
    writeln!(s, "module inswitch_{}_replay;\n    localparam CYCLES = {cycles};\n    localparam W = {total};", spec.name).unwrap();
    writeln!(s, "    reg [W-1:0] mem [0:CYCLES-1];\n    reg [W-1:0] v;\n    reg clk = 0;\n    reg armed = 0;\n    integer i;\n    integer mismatches = 0;\n    reg [1023:0] file;").unwrap();
    for p in ports {
        writeln!(s, "    {} [{}:0] {};", if p.output { "wire" } else { "reg " }, p.width - 1, p.name).unwrap();
    }
    let conns: Vec<String> = std::iter::once(".clk(clk)".to_string()).chain(ports.iter().map(|p| format!(".{0}({0})", p.name))).collect();
    writeln!(s, "\n    {} #({}) dut ({});\n\n    always #5 clk = ~clk;\n", spec.name, overrides.join(", "), conns.join(", ")).unwrap();
    // Bit offsets, MSB first.
    let mut hi = total;
    let mut slices = Vec::new();
    for p in ports {
        slices.push((p, hi - 1, hi - p.width));
        hi -= p.width;
    }
    s.push_str("    initial begin\n");
    writeln!(s, "        if (!$value$plusargs(\"vectors=%s\", file)) file = \"{}.hex\";\n        $readmemh(file, mem);", spec.name).unwrap();
    s.push_str("        for (i = 0; i < CYCLES; i = i + 1) begin\n            @(negedge clk);\n            v = mem[i];\n");
    for (p, h, l) in slices.iter().take(n_in) {
        writeln!(s, "            {} = v[{h}:{l}];", p.name).unwrap();
    }
    s.push_str("            @(posedge clk);\n            if (armed) begin\n");
    for (p, h, l) in slices.iter().skip(n_in) {
        writeln!(
            s,
            "                if ({n} !== v[{h}:{l}]) begin\n                    mismatches = mismatches + 1;\n                    \
             if (mismatches == 1) $display(\"MISMATCH at cycle %0d port {n}: expected 0x%h rtl 0x%h\", i, v[{h}:{l}], {n});\n                end",
            n = p.name
        )
        .unwrap();
    }
    s.push_str("            end\n");
    if ports.iter().any(|p| p.name == "rst") {
        s.push_str("            if (rst) armed = 1;\n");
    } else {
        s.push_str("            armed = 1;\n");
    }
    s.push_str("        end\n        $display(\"REPLAY DONE: %0d cycles, %0d mismatches\", CYCLES, mismatches);\n");
    s.push_str("        if (mismatches != 0) $fatal(1, \"%0d mismatches\", mismatches);\n        $finish;\n    end\nendmodule\n");
    s
}
