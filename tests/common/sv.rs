//! Shared by the SystemVerilog tests: a generated `$urandom` bench around `rtl/<block>.v`, built with
//! `verilator --binary` (with the generated DPI checker, and/or dumping a waveform).
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use inswitch_model::registry;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the DPI static library (release) and returns its path.
pub fn dpi_lib() -> PathBuf {
    let st = Command::new(env!("CARGO"))
        .args(["build", "--release", "-p", "inswitch-dpi", "--lib"])
        .current_dir(root())
        .status()
        .expect("run cargo build -p inswitch-dpi");
    assert!(st.success(), "building the inswitch-dpi static library failed");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let lib = target.join("release/libinswitch_dpi.a");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

/// A `$urandom` expression of `width` bits.
fn random(width: u32) -> String {
    let words = width.div_ceil(32);
    let parts: Vec<&str> = (0..words).map(|_| "$urandom").collect();
    format!("{width}'({{{}}})", parts.join(", "))
}

/// The bench: every port declared, DUT and checker connected by name, stimulus at the falling edge.
pub fn bench(block: &str, params: &str, cycles: u64) -> String {
    bench_with(block, params, cycles, true, None)
}

/// The bench, with or without the DPI checker, optionally dumping every signal to `dump` ($dumpfile).
pub fn bench_with(block: &str, params: &str, cycles: u64, checker: bool, dump: Option<&str>) -> String {
    let spec = registry::block(block).unwrap();
    let p = spec.params_from_str(params).unwrap();
    let overrides: Vec<String> = params
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let (k, v) = s.split_once('=').unwrap();
            format!(".{}({})", k.trim(), v.trim())
        })
        .collect();
    let inst_params = if overrides.is_empty() { String::new() } else { format!(" #({})", overrides.join(", ")) };
    let mut s = String::from("`timescale 1ns / 1ps\n\nmodule tb;\n");
    writeln!(s, "    longint unsigned cycles = {cycles};\n    longint unsigned n = 0;\n    int unsigned seed = 1;").unwrap();
    for port in spec.rtl_ports(&p) {
        writeln!(s, "    logic [{}:0] {} = '0;", port.width - 1, port.name).unwrap();
    }
    writeln!(s, "\n    {block}{inst_params} dut (.*);").unwrap();
    if checker {
        writeln!(s, "    inswitch_{block}_check{inst_params} chk (.*);").unwrap();
    }
    s.push('\n');
    s.push_str("    always #5 clk = ~clk;\n\n    initial begin\n");
    s.push_str("        void'($value$plusargs(\"cycles=%d\", cycles));\n        if ($value$plusargs(\"seed=%d\", seed)) void'($urandom(seed));\n");
    if let Some(f) = dump {
        writeln!(s, "        $dumpfile(\"{f}\");\n        $dumpvars(0, tb);").unwrap();
    }
    s.push_str("        while (n < cycles) begin\n            @(negedge clk);\n            n++;\n");
    let inputs: Vec<&str> = spec.rtl_ports(&p).iter().filter(|p| !p.output).map(|p| p.name).collect();
    for port in spec.rtl_ports(&p).into_iter().filter(|p| !p.output && p.name != "clk") {
        let name = port.name;
        let line = if name == "rst" {
            "rst = (n <= 4) || ($urandom % 20000 == 0);".to_string()
        } else if name.ends_with("_wr_en") {
            format!("{name} = ($urandom % 16 == 0);")
        } else if written_each_cycle(&inputs, name) && !name.contains("mask") {
            format!("{name} = {};", random(port.width))
        } else if written_each_cycle(&inputs, name) {
            // Half the masks 0 (a default route or a match-all entry) so that lookups hit.
            format!("{name} = ($urandom % 2) ? '0 : {};", random(port.width))
        } else if name.starts_with("cfg_") || name.starts_with("cpu_cfg_") {
            format!("if (n <= 4 || $urandom % 4096 == 0) {name} = {};", random(port.width))
        } else if name.ends_with("valid") {
            format!("{name} = $urandom % 2;")
        } else if name.ends_with("ready") {
            format!("{name} = ($urandom % 4 != 0);")
        } else {
            format!("{name} = {};", random(port.width))
        };
        writeln!(s, "            {line}").unwrap();
    }
    s.push_str("        end\n        @(posedge clk);\n        #1;\n");
    if checker {
        s.push_str("        $display(\"BENCH DONE: %0d cycles, %0d mismatches\", chk.cycle, chk.mismatches);\n");
        s.push_str("        if (chk.mismatches != 0) $fatal(1, \"%0d mismatches\", chk.mismatches);\n");
    }
    s.push_str("        $finish;\n    end\nendmodule\n");
    s
}

/// The bench with the generated drop-in model `inswitch_<block>_model` (instance `gold`) beside the DUT
/// instead of the checker: the model's outputs on `model_<port>` wires, compared with the DUT's in SV at
/// each falling edge before the new stimulus (the state after the edge) and 1 ns after it (the
/// combinational response), from the first reset on; ends with `BENCH DONE: <cycles> cycles, <n>
/// mismatches` and `$fatal` if n != 0.
pub fn bench_model(block: &str, params: &str, cycles: u64) -> String {
    let spec = registry::block(block).unwrap();
    let p = spec.params_from_str(params).unwrap();
    let ports = spec.rtl_ports(&p);
    let base = bench_with(block, params, cycles, false, None);
    let inst = format!("    {block}");
    let at = base.find(&inst).expect("the DUT instance");
    let (head, tail) = base.split_at(at);
    let dut_line = tail.lines().next().unwrap();
    let mut s = head.to_string();
    for port in ports.iter().filter(|p| p.output) {
        writeln!(s, "    logic [{}:0] model_{};", port.width - 1, port.name).unwrap();
    }
    s.push_str("    longint unsigned mismatches = 0;
    bit armed = 0;
");
    let conns: Vec<String> = ports.iter().map(|p| if p.output { format!(".{0}(model_{0})", p.name) } else { format!(".{0}({0})", p.name) }).collect();
    let gold = dut_line.replacen(block, &format!("inswitch_{block}_model"), 1).replace("dut (.*);", &format!("gold ({});", conns.join(", ")));
    writeln!(s, "{dut_line}
{gold}").unwrap();
    s.push_str("    task automatic compare(input bit arm);
        if (armed) begin
");
    for port in ports.iter().filter(|p| p.output) {
        writeln!(
            s,
            "            if (model_{n} !== {n}) begin
                mismatches++;
                             if (mismatches <= 10) $display(\"MISMATCH at cycle %0d port {n}: model 0x%h dut 0x%h\", n, model_{n}, {n});
            end",
            n = port.name
        )
        .unwrap();
    }
    s.push_str("        end
        if (arm && rst) armed = 1;
    endtask
");
    let rest = &tail[dut_line.len() + 1..];
    let rest = rest.replacen("            n++;\n", "            n++;\n            compare(1);\n", 1);
    let rest = rest.replacen("        end\n        @(posedge clk);", "            #1 compare(0);\n        end\n        @(posedge clk);", 1);
    let rest = rest.replacen(
        "        $finish;",
        "        $display(\"BENCH DONE: %0d cycles, %0d mismatches\", n, mismatches);\n        if (mismatches != 0) $fatal(1, \"%0d mismatches\", mismatches);\n        $finish;",
        1,
    );
    s.push_str(&rest);
    s
}

/// A write port's data (`<x>_wr_<field>` with a `<x>_wr_en`): a fresh value each cycle.
fn written_each_cycle(inputs: &[&str], name: &str) -> bool {
    name.split_once("_wr_").is_some_and(|(prefix, _)| inputs.contains(&format!("{prefix}_wr_en").as_str()))
}

/// Verilates `tb` with the RTL in `rtl_dir` and the generated SV; returns the executable.
pub fn build(dir: &Path, rtl_dir: &Path, block: &str, tb: &str, extra: &[&str]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let tb_path = dir.join("tb.sv");
    std::fs::write(&tb_path, tb).unwrap();
    let sv = root().join("crates/dpi/sv");
    let lib = dpi_lib();
    let out = Command::new("verilator")
        .args(["--binary", "-j", "2", "--top-module", "tb", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-O3"])
        // The benches run 10^5 cycles or fewer: compiling the C++ at -O1 instead of Verilator's default
        // -Os costs less than it saves in run time.
        .args(["-MAKEFLAGS", "OPT_FAST=-O1 OPT_SLOW=-O1 OPT_GLOBAL=-O1"])
        .arg(format!("-I{}", rtl_dir.display()))
        .arg("-y")
        .arg(rtl_dir)
        .arg("-Mdir")
        .arg(dir.join("obj"))
        .arg(sv.join("inswitch_dpi_pkg.sv"))
        // Options or more sources (after the package: a source may import it).
        .args(extra)
        .arg(sv.join(format!("inswitch_{block}_check.sv")))
        .arg(rtl_dir.join(format!("{block}.v")))
        .arg(&tb_path)
        .arg(&lib)
        .args(["-LDFLAGS", "-lpthread -ldl -lm"])
        .output()
        .unwrap_or_else(|e| panic!("verilator is required for the SV benches (bash scripts/setup installs it): {e}"));
    assert!(
        out.status.success(),
        "verilator failed for {block}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("obj/Vtb")
}

pub fn run(exe: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(exe).args(args).output().expect("run the bench");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

fn work_base() -> PathBuf {
    option_env!("CARGO_TARGET_TMPDIR").map_or_else(std::env::temp_dir, PathBuf::from).join("sv_benches")
}

/// The directory `work(name)` makes, as it is.
pub fn work_dir(name: &str) -> PathBuf {
    work_base().join(name)
}

/// `work_dir(name)`, emptied.
pub fn work(name: &str) -> PathBuf {
    let d = work_dir(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `make` (which builds into `work` directories) once for every process of this test binary:
/// cargo test runs the tests as threads of one process, but cargo-nextest runs each test in its own
/// process, and two processes building one directory at once break each other's build. `make` runs
/// under an exclusive lock on `sv_benches/<name>.lock`, and runs again only when the test binary is not
/// the one that last ran it (a rebuilt binary may carry changed RTL or benches).
pub fn once_per_binary(name: &str, make: impl FnOnce()) {
    let base = work_base();
    std::fs::create_dir_all(&base).unwrap();
    let lock = std::fs::File::create(base.join(format!("{name}.lock"))).unwrap();
    lock.lock().unwrap_or_else(|e| panic!("lock {name}.lock: {e}"));
    let exe = std::env::current_exe().unwrap();
    let key = format!("{} {:?}", exe.display(), std::fs::metadata(&exe).and_then(|m| m.modified()).ok());
    let stamp = base.join(format!("{name}.stamp"));
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(key.as_str()) {
        return;
    }
    let _ = std::fs::remove_file(&stamp);
    make();
    std::fs::write(&stamp, key).unwrap();
}

/// A copy of rtl/ with `from` replaced by `to` in `<block>.v` (exactly once).
pub fn altered_rtl(dir: &Path, block: &str, from: &str, to: &str) -> PathBuf {
    let rtl = dir.join("rtl");
    std::fs::create_dir_all(&rtl).unwrap();
    for e in std::fs::read_dir(root().join("rtl")).unwrap().flatten() {
        std::fs::copy(e.path(), rtl.join(e.file_name())).unwrap();
    }
    let path = rtl.join(format!("{block}.v"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once in rtl/{block}.v");
    std::fs::write(&path, text.replace(from, to)).unwrap();
    rtl
}

