//! Builds the Verilated RTL models that the co-simulation harness (verif/) drives.
//!
//! For every entry of [`MODELS`]: run Verilator 5 on `rtl/`, parse the port declarations of the generated
//! header, write a small C++ shim (verif/shim/inswitch_shim.h) that hands Rust raw port pointers, compile
//! the generated C++ as one translation unit with the `cc` crate, and emit `verilated_models.rs` (the table
//! of models and their C ABI) into OUT_DIR. The Verilator runtime is compiled once per Verilator version
//! and flag set, and a model whose generated C++ did not change is not recompiled, so an edit to one RTL
//! file rebuilds only the models it changes.
//!
//! Verilator is required: without it the build fails with a message naming the setup command. Debian's
//! Verilator 5.006 is the reference version (the `verilator`/`verilated` crates target Verilator 4).

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

// `ModelSpec` and `MODELS`: the table of Verilated models, shared with the harness (verif/targets.rs).
include!("verif/model_table.rs");


/// Verilator options for every model (see docs/verification.md §The lockstep loop, step 1 "Build").
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
    "--noassert",
    "-Wall",
    "--trace-fst",
];

/// C++ options for the generated code and the runtime: the last two together doubled simulation speed
/// on this kind of machine (docs/performance.md).
const CXX_FLAGS: &[&str] = &["-std=c++17", "-faligned-new", "-fno-semantic-interposition"];

/// C++ optimisation level of the generated code and the runtime (part of each library's stamp, so a
/// change rebuilds them). Measured (docs/performance.md §The test command's wall time): the CPU model's
/// C++ compiles in 76 s of CPU at -O3, 57 s at -O2, 62 s at -Os (Verilator's own default) and 32 s at
/// -O1, but at -O1 the CPU and top cosims ran 30-40% slower, which costs the test command as much as the
/// compile saves and the benches more.
const CXX_OPT_LEVEL: u32 = 3;

/// C++ optimisation level of builds whose compile costs more than their runs: the coverage build (every
/// model once more, each run for 10^5 cycles by `inswitch coverage`) and the models in
/// [`LOW_OPT_MODELS`]. -O1 compiles in about 40% of the CPU time of -O3 (measured above); it changes no
/// result, only speed.
const CXX_OPT_LEVEL_LOW: u32 = 1;

/// Models that only one short test runs (`cpu_full`: `cpu_at_full_size_matches_rtl`, 3 x 10^5 cycles):
/// compiled at [`CXX_OPT_LEVEL_LOW`], since at -O3 they cost more to compile than their one test runs.
const LOW_OPT_MODELS: &[&str] = &["cpu_full"];

/// The C++ optimisation level of `model` (`None`: the Verilator runtime) in this build.
fn cxx_opt_level(model: Option<&str>) -> u32 {
    if coverage_build() || model.is_some_and(|m| LOW_OPT_MODELS.contains(&m)) {
        CXX_OPT_LEVEL_LOW
    } else {
        CXX_OPT_LEVEL
    }
}

/// Preprocessor definitions the Verilator runtime and generated code expect (verilated.mk).
const CXX_DEFINES: &[(&str, &str)] = &[
    ("VM_COVERAGE", "0"),
    ("VM_SC", "0"),
    ("VM_TRACE", "1"),
    ("VM_TRACE_FST", "1"),
    ("VM_TRACE_VCD", "0"),
];

/// Warnings the generated code is known to trigger (verilated.mk's CFG_CXXFLAGS_NO_UNUSED).
const CXX_QUIET: &[&str] = &[
    "-Wno-bool-operation",
    "-Wno-sign-compare",
    "-Wno-uninitialized",
    "-Wno-unused-but-set-variable",
    "-Wno-unused-parameter",
    "-Wno-unused-variable",
    "-Wno-shadow",
];

/// Runtime sources (Verilator 5 always needs verilated_threads.cpp; FST needs zlib).
const RUNTIME_SOURCES: &[&str] = &["verilated.cpp", "verilated_threads.cpp", "verilated_fst_c.cpp"];

/// The `coverage` feature (issue 13, `inswitch coverage`): models built with `--coverage-line` at
/// Verilator `-O0` (at -O3 the counts inside large `always @*` blocks read 0 while the frames visibly took
/// those branches: /work/shared/toolchain.md), `VM_COVERAGE=1` and verilated_cov.cpp in the runtime. Cargo
/// gives a different feature set its own OUT_DIR, so the fast build is untouched and pays nothing.
fn coverage_build() -> bool {
    env::var_os("CARGO_FEATURE_COVERAGE").is_some()
}

/// The `rtl-sancov` feature (issue 14, `bash scripts/fuzz --rtl-coverage`): the models in
/// [`SANCOV_MODELS`] are compiled with clang++ and [`SANCOV_FLAGS`], so that the libFuzzer linked by the
/// fuzz crate counts the edges of the Verilated RTL itself, not only the Rust model's (docs/verification.md
/// §Differential fuzzing, "Where coverage comes from"). Only the fuzz crate enables it: the objects call
/// `__sanitizer_cov_*_init`, which libFuzzer defines. The instrumented libraries have their own names
/// (`libvm_<name>_sancov.a`), so they sit next to the normal ones in a shared lib directory.
fn sancov_build() -> bool {
    env::var_os("CARGO_FEATURE_RTL_SANCOV").is_some()
}

/// The models a [`sancov_build`] instruments: the ones the differential fuzz targets drive. The others
/// (never fuzzed) link their normal, uninstrumented library.
const SANCOV_MODELS: &[&str] = FUZZED_MODELS;

/// The compiler of the instrumented models: clang, because g++ has only `-fsanitize-coverage=trace-pc`,
/// a callback libFuzzer does not read as counters (scripts/setup installs Debian's clang).
const SANCOV_CXX: &str = "clang++";

/// SanitizerCoverage as libFuzzer reads it: an 8-bit counter per edge, registered with libFuzzer by a
/// module constructor, and a table of the edges' PCs (libFuzzer's `-print_pcs`; `-print_coverage` would
/// also need a symbolizer, which a `-s none` build lacks). Tried and not kept: `trace-cmp` (the RTL's
/// comparison operands), which did not speed up finding the planted bug (docs/verification.md).
const SANCOV_FLAGS: &[&str] = &["-fsanitize-coverage=inline-8bit-counters,pc-table"];

/// Environment variable: a comma-separated subset of [`SANCOV_MODELS`] to instrument instead of all of
/// them (`scripts/fuzz --smoke` instruments one model, so CI compiles one model with clang, not seven).
const SANCOV_MODELS_ENV: &str = "INSWITCH_RTL_SANCOV_MODELS";

/// Whether `model` (`None`: the Verilator runtime, never instrumented) is compiled with SanitizerCoverage
/// in this build.
fn sancov_model(model: Option<&str>) -> bool {
    let Some(m) = model.filter(|m| sancov_build() && SANCOV_MODELS.contains(m)) else { return false };
    match env::var(SANCOV_MODELS_ENV) {
        Ok(list) if !list.trim().is_empty() => list.split(',').any(|x| x.trim() == m),
        _ => true,
    }
}

/// Verilator options of this build: [`VERILATOR_FLAGS`], with coverage when [`coverage_build`].
fn verilator_flags() -> Vec<&'static str> {
    if coverage_build() {
        VERILATOR_FLAGS.iter().map(|&f| if f == "-O3" { "-O0" } else { f }).chain(["--coverage-line"]).collect()
    } else {
        VERILATOR_FLAGS.to_vec()
    }
}

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=rtl");
    println!("cargo:rerun-if-changed=verif/shim");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=verif/model_table.rs");
    println!("cargo:rerun-if-env-changed=VERILATOR_ROOT");
    println!("cargo:rerun-if-env-changed={SANCOV_MODELS_ENV}");
    if sancov_build() {
        if let Ok(list) = env::var(SANCOV_MODELS_ENV) {
            for m in list.split(',').map(str::trim).filter(|m| !m.is_empty()) {
                assert!(SANCOV_MODELS.contains(&m), "{SANCOV_MODELS_ENV}: `{m}` is not one of the fuzzed models {SANCOV_MODELS:?}");
            }
        }
        assert!(!coverage_build(), "the `coverage` and `rtl-sancov` features are exclusive (different model builds)");
        check_sancov_compiler();
    }

    let verilator = Verilator::find();
    // Reports and JUnit files name the Verilator the models were built with (verif/build_info.rs).
    println!("cargo:rustc-env=INSWITCH_VERILATOR_VERSION={}", verilator.version);
    // Issue 14: a directory of already-compiled models to reuse instead of OUT_DIR/lib: scripts/fuzz points
    // the fuzz crate's build at the main build's, so the RTL is compiled once (the stamps keep it exact).
    println!("cargo:rerun-if-env-changed=INSWITCH_VERILATED_LIB_DIR");
    let lib_dir = env::var_os("INSWITCH_VERILATED_LIB_DIR").map_or_else(|| out.join("lib"), PathBuf::from);
    fs::create_dir_all(&lib_dir).expect("create OUT_DIR/lib");
    // scripts/fuzz looks for the models of a normal build: a coverage build's directory says what it is.
    let marker = lib_dir.join("COVERAGE_BUILD");
    if coverage_build() {
        fs::write(&marker, "models built with --coverage-line (the `coverage` feature)\n").expect("write the coverage marker");
    } else if marker.exists() {
        fs::remove_file(&marker).expect("remove the coverage marker");
    }

    // Verilate every model first (fast, serial), then compile them on all cores.
    let generated: Vec<Generated> =
        MODELS.iter().chain(PLANTED_MODELS.iter().map(|p| &p.model)).map(|m| verilate(&verilator, &root, &out, m)).collect();
    std::thread::scope(|scope| {
        let runtime = scope.spawn(|| build_runtime(&verilator, &lib_dir));
        let models: Vec<_> = generated
            .iter()
            .map(|g| scope.spawn(|| compile_model(&verilator, &root, &lib_dir, g)))
            .collect();
        for m in models {
            m.join().expect("model compile thread");
        }
        runtime.join().expect("runtime compile thread");
    });

    // Link order: models, then the runtime they call, then the system libraries the runtime needs.
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    for g in &generated {
        println!("cargo:rustc-link-lib=static={}", model_lib(g.spec.name));
    }
    println!("cargo:rustc-link-lib=static=verilated_rt");
    for lib in ["stdc++", "z", "pthread", "atomic"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }

    fs::write(out.join("verilated_models.rs"), rust_table(&generated) + &coverage_table(&generated)).expect("write verilated_models.rs");
}

/// The Verilator installation.
struct Verilator {
    bin: PathBuf,
    include: PathBuf,
    version: String,
}

impl Verilator {
    fn find() -> Verilator {
        let bin = PathBuf::from("verilator");
        let version = Command::new(&bin).arg("--version").output();
        let version = match version {
            Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
            _ => panic!(
                "\n\nVerilator was not found on PATH. inswitch builds its RTL models with Verilator 5 \
                 (Debian: verilator 5.006).\nRun `bash scripts/setup` (or `apt-get install -y verilator \
                 zlib1g-dev`) and build again.\n"
            ),
        };
        let root = env::var("VERILATOR_ROOT").ok().filter(|r| !r.is_empty()).unwrap_or_else(|| {
            let o = Command::new(&bin).arg("--getenv").arg("VERILATOR_ROOT").output().expect("verilator --getenv");
            String::from_utf8_lossy(&o.stdout).trim().to_string()
        });
        let include = PathBuf::from(root).join("include");
        assert!(include.join("verilated.h").exists(), "no verilated.h under {}", include.display());
        Verilator { bin, include, version }
    }

    /// A C++ build at `opt_level`, with SanitizerCoverage by clang when `sancov` ([`sancov_model`]).
    fn cc(&self, opt_level: u32, sancov: bool) -> cc::Build {
        let mut b = cc::Build::new();
        if sancov {
            b.compiler(SANCOV_CXX);
            for f in SANCOV_FLAGS {
                b.flag(f);
            }
        }
        b.cpp(true)
            .cargo_metadata(false)
            .warnings(false)
            // The same level in debug builds: the harness runs millions of cycles in tests.
            .opt_level(opt_level)
            .debug(false)
            .include(&self.include)
            .include(self.include.join("vltstd"));
        for f in CXX_FLAGS.iter().chain(CXX_QUIET) {
            b.flag(f);
        }
        for (k, v) in CXX_DEFINES {
            b.define(k, if *k == "VM_COVERAGE" && coverage_build() { "1" } else { *v });
        }
        b
    }
}

/// A verilated model: where its C++ is and what ports it has.
struct Generated {
    spec: &'static ModelSpec,
    dir: PathBuf,
    ports: Vec<Port>,
}

struct Port {
    name: String,
    width: u32,
    output: bool,
}

fn verilate(v: &Verilator, root: &Path, out: &Path, spec: &'static ModelSpec) -> Generated {
    let dir = out.join("vl").join(spec.name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create model dir");
    let rtl = root.join("rtl");
    let mut cmd = Command::new(&v.bin);
    cmd.args(verilator_flags())
        .arg("--top-module")
        .arg(spec.top)
        .arg("--prefix")
        .arg(format!("V{}", spec.name))
        .arg("-Mdir")
        .arg(&dir)
        .arg("-y")
        .arg(&rtl);
    for (k, val) in spec.params {
        cmd.arg(format!("-G{k}={val}"));
    }
    let mut top_file = rtl.join(format!("{}.v", spec.top));
    if let Some(PlantedModel { find, replace, .. }) = PLANTED_MODELS.iter().find(|p| p.model.name == spec.name) {
        let src = fs::read_to_string(&top_file).expect("read the RTL to plant a bug in");
        assert_eq!(src.matches(find).count(), 1, "{}: the planted text `{find}` is not in {} exactly once", spec.name, top_file.display());
        // Same file name as the module, in a directory of its own (Verilator's DECLFILENAME).
        let dir = out.join("planted").join(spec.name);
        fs::create_dir_all(&dir).expect("create the planted copy's directory");
        top_file = dir.join(format!("{}.v", spec.top));
        fs::write(&top_file, src.replace(find, replace)).expect("write the planted copy");
    }
    cmd.arg(top_file);
    let o = cmd.output().expect("run verilator");
    if !o.status.success() {
        panic!(
            "verilator failed on {} ({}):\n{}{}",
            spec.name,
            spec.top,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let header = fs::read_to_string(dir.join(format!("V{}.h", spec.name))).expect("read generated header");
    let ports = parse_ports(&header);
    assert!(ports.iter().any(|p| p.name == "clk" && !p.output), "{}: the top needs an input `clk`", spec.top);
    Generated { spec, dir, ports }
}

/// Parses `VL_IN8(&name,msb,lsb);`, `VL_OUTW(&name,msb,lsb,words);` and friends.
fn parse_ports(header: &str) -> Vec<Port> {
    let mut ports = Vec::new();
    for line in header.lines() {
        let line = line.trim();
        let (output, rest) = if let Some(r) = line.strip_prefix("VL_IN") {
            (false, r)
        } else if let Some(r) = line.strip_prefix("VL_OUT") {
            (true, r)
        } else {
            continue;
        };
        let Some(open) = rest.find("(&") else { continue };
        let args: Vec<&str> = rest[open + 2..].trim_end_matches(");").split(',').map(str::trim).collect();
        let msb: u32 = args[1].parse().expect("port msb");
        let lsb: u32 = args[2].parse().expect("port lsb");
        assert_eq!(lsb, 0, "port {} does not start at bit 0", args[0]);
        ports.push(Port { name: args[0].to_string(), width: msb + 1, output });
    }
    ports
}

fn compile_model(v: &Verilator, root: &Path, lib_dir: &Path, g: &Generated) {
    let prefix = format!("V{}", g.spec.name);
    let mut sources: Vec<String> = fs::read_dir(&g.dir)
        .expect("read model dir")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".cpp"))
        .collect();
    sources.sort();

    let mut unit = String::new();
    for s in &sources {
        writeln!(unit, "#include \"{s}\"").unwrap();
    }
    let mut port_list = String::new();
    for p in &g.ports {
        write!(port_list, " X({}, {}, {})", p.name, p.width, u32::from(p.output)).unwrap();
    }
    writeln!(unit, "#include \"inswitch_shim.h\"").unwrap();
    writeln!(unit, "#define PORTS(X){port_list}").unwrap();
    writeln!(unit, "INSWITCH_SHIM_DEFINE({prefix}, {prefix}, PORTS)").unwrap();
    let unit_path = g.dir.join("inswitch_unit.cpp");
    fs::write(&unit_path, &unit).expect("write unit");

    // Skip the C++ compile when the generated code, the shim and the flags are what the library was
    // built from.
    let mut h = DefaultHasher::new();
    v.version.hash(&mut h);
    let opt_level = cxx_opt_level(Some(g.spec.name));
    let sancov = sancov_model(Some(g.spec.name));
    (verilator_flags(), CXX_FLAGS, opt_level, CXX_DEFINES, coverage_build()).hash(&mut h);
    if sancov {
        // Only an instrumented library's stamp names clang: the normal stamps stay what they were.
        (SANCOV_CXX, SANCOV_FLAGS, sancov_compiler_version()).hash(&mut h);
    }
    unit.hash(&mut h);
    for s in &sources {
        fs::read(g.dir.join(s)).expect("read generated source").hash(&mut h);
    }
    for e in fs::read_dir(&g.dir).expect("read model dir").flatten() {
        if e.file_name().to_string_lossy().ends_with(".h") {
            fs::read(e.path()).expect("read generated header").hash(&mut h);
        }
    }
    fs::read(root.join("verif/shim/inswitch_shim.h")).expect("read shim").hash(&mut h);
    let stamp = format!("{:016x}", h.finish());
    let name = model_lib(g.spec.name);
    let lib = lib_dir.join(format!("lib{name}.a"));
    let stamp_path = lib_dir.join(format!("{name}.stamp"));
    if lib.exists() && fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str()) {
        return;
    }
    v.cc(opt_level, sancov)
        .include(&g.dir)
        .include(root.join("verif/shim"))
        .file(&unit_path)
        .out_dir(lib_dir.join(format!("obj_{}", name)))
        .compile(&name);
    fs::rename(lib_dir.join(format!("obj_{name}/lib{name}.a")), &lib).expect("move lib");
    fs::write(stamp_path, stamp).expect("write stamp");
}

/// The static library of `model` in this build: `vm_<name>`, or `vm_<name>_sancov` when instrumented.
fn model_lib(model: &str) -> String {
    if sancov_model(Some(model)) {
        format!("vm_{model}_sancov")
    } else {
        format!("vm_{model}")
    }
}

/// `clang++ --version`'s first line (part of the instrumented libraries' stamps).
fn sancov_compiler_version() -> String {
    Command::new(SANCOV_CXX)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// Fails the build with the setup command when clang++ is missing (never a silent uninstrumented build).
fn check_sancov_compiler() {
    if sancov_compiler_version().is_empty() {
        panic!(
            "\n\nThe `rtl-sancov` feature (bash scripts/fuzz --rtl-coverage) compiles the Verilated RTL with \
             {SANCOV_CXX}, which was not found on PATH.\nRun `bash scripts/setup` (or `apt-get install -y clang`) \
             and build again.\n"
        );
    }
}

fn build_runtime(v: &Verilator, lib_dir: &Path) {
    let mut h = DefaultHasher::new();
    let opt_level = cxx_opt_level(None);
    (&v.version, CXX_FLAGS, opt_level, CXX_DEFINES, RUNTIME_SOURCES, coverage_build()).hash(&mut h);
    let stamp = format!("{:016x}", h.finish());
    let lib = lib_dir.join("libverilated_rt.a");
    let stamp_path = lib_dir.join("verilated_rt.stamp");
    if lib.exists() && fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str()) {
        return;
    }
    let mut b = v.cc(opt_level, false);
    for s in RUNTIME_SOURCES {
        b.file(v.include.join(s));
    }
    if coverage_build() {
        b.file(v.include.join("verilated_cov.cpp"));
    }
    b.out_dir(lib_dir.join("obj_rt")).compile("verilated_rt");
    fs::rename(lib_dir.join("obj_rt/libverilated_rt.a"), &lib).expect("move runtime lib");
    fs::write(stamp_path, stamp).expect("write runtime stamp");
}

/// Emits the Rust side: C ABI declarations and a `MODELS` table of [`ModelInfo`]s (verif/verilated.rs).
fn rust_table(models: &[Generated]) -> String {
    let mut s = String::from("// Generated by build.rs: the Verilated models linked into this crate.\n\n");
    for g in models {
        let p = format!("V{}", g.spec.name);
        writeln!(
            s,
            "extern \"C\" {{\n    fn {p}_new() -> *mut c_void;\n    fn {p}_delete(h: *mut c_void);\n    \
             fn {p}_ports(h: *mut c_void, out: *mut RawPort, cap: usize) -> usize;\n    \
             fn {p}_eval_low(h: *mut c_void);\n    fn {p}_eval_high(h: *mut c_void);\n    \
             fn {p}_trace_open(h: *mut c_void, path: *const c_char) -> c_int;\n    \
             fn {p}_trace_close(h: *mut c_void);\n}}"
        )
        .unwrap();
    }
    s.push_str("\n/// Every Verilated model linked into this crate.\npub static MODELS: &[ModelInfo] = &[\n");
    for g in models {
        let p = format!("V{}", g.spec.name);
        let params: Vec<String> = g.spec.params.iter().map(|(k, v)| format!("({k:?}, {v:?})")).collect();
        writeln!(
            s,
            "    ModelInfo {{ name: {:?}, top: {:?}, params: &[{}], abi: ModelAbi {{ new: {p}_new, \
             delete: {p}_delete, ports: {p}_ports, eval_low: {p}_eval_low, eval_high: {p}_eval_high, \
             trace_open: {p}_trace_open, trace_close: {p}_trace_close }} }},",
            g.spec.name,
            g.spec.top,
            params.join(", ")
        )
        .unwrap();
    }
    s.push_str("];\n");
    s
}

/// Emits `COVERAGE_WRITERS`: each model's `<prefix>_coverage_write` (verif/verilated.rs), which writes
/// the model's coverage counts in a coverage build and returns -1 otherwise.
fn coverage_table(models: &[Generated]) -> String {
    let mut s = format!("\n/// This build counts RTL line coverage (the `coverage` feature).\npub const COVERAGE_BUILD: bool = {};\n", coverage_build());
    for g in models {
        writeln!(s, "extern \"C\" {{\n    fn V{}_coverage_write(h: *mut c_void, path: *const c_char) -> c_int;\n}}", g.spec.name).unwrap();
    }
    s.push_str("/// Each model's coverage writer, by model name.\npub static COVERAGE_WRITERS: &[(&str, CoverageWriteFn)] = &[\n");
    for g in models {
        writeln!(s, "    ({:?}, V{}_coverage_write),", g.spec.name, g.spec.name).unwrap();
    }
    s.push_str("];\n");
    s
}
