//! RTL quality gates: `verilator --lint-only -Wall` on every module and a Yosys synthesis of every module
//! that fails on latches or errors and reports cells and the longest logic path.
//!
//! Every file `rtl/<module>.v` holds one module of the same name; each is linted and synthesised as a top
//! at its default parameters (and linted at the extra parameter sets of [`LINT_PARAMS`]).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Extra parameter sets linted besides the defaults: (module, parameter overrides).
pub const LINT_PARAMS: &[(&str, &[&str])] = &[
    ("axis_register", &["-GWIDTH=1"]),
    ("axis_register", &["-GWIDTH=626"]),
    ("output_queue", &["-GDATA_WIDTH=64"]),
    ("output_queue", &["-GDATA_WIDTH=512", "-GROUTE_ENTRIES=12"]),
    ("input_checker", &["-GDATA_WIDTH=64"]),
    ("input_checker", &["-GDATA_WIDTH=512"]),
    ("interposer", &["-GDATA_WIDTH=512", "-GINJ_CREDITS=1"]),
    ("frame_builder", &["-GDATA_WIDTH=64"]),
    ("frame_builder", &["-GDATA_WIDTH=512"]),
    ("completion_builder", &["-GDATA_WIDTH=512"]),
    ("register_space", &["-GCPU_STATIC_ENTRIES=64"]),
    ("register_space", &["-GCPU_STATIC_ENTRIES=5"]),
    ("cpu", &["-GSTATIC_ENTRIES=64", "-GDESCRIPTORS=16", "-GTICK_CYCLES=2"]),
    ("cpu", &["-GSTATIC_ENTRIES=5", "-GDESCRIPTORS=3", "-GTICK_CYCLES=16"]),
    ("packet_engine", &["-GSTATIC_ENTRIES=5", "-GDESCRIPTORS=3", "-GTICK_CYCLES=16", "-GFIFO_DEPTH=8", "-GINJ_CREDITS=1"]),
];

/// The modules under `rtl_dir`: every `*.v` file, by stem, sorted.
pub fn modules(rtl_dir: &Path) -> std::io::Result<Vec<String>> {
    let mut v: Vec<String> = std::fs::read_dir(rtl_dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "v"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    v.sort();
    Ok(v)
}

/// The result of linting one module at one parameter set.
#[derive(Debug, Clone)]
pub struct LintResult {
    /// Module.
    pub module: String,
    /// Parameter overrides.
    pub params: Vec<String>,
    /// Verilator's warnings and errors (empty when clean).
    pub messages: String,
    /// Verilator exited 0 with no message.
    pub clean: bool,
}

/// Lints `module` (in `rtl_dir/<module>.v`) with `verilator --lint-only -Wall`.
pub fn lint(rtl_dir: &Path, module: &str, params: &[&str]) -> std::io::Result<LintResult> {
    let o = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", module, "-y"])
        .arg(rtl_dir)
        .args(params)
        .arg(rtl_dir.join(format!("{module}.v")))
        .output()?;
    let messages = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    Ok(LintResult {
        module: module.to_string(),
        params: params.iter().map(|s| s.to_string()).collect(),
        clean: o.status.success() && messages.trim().is_empty(),
        messages,
    })
}

/// Lints every module at its defaults and at [`LINT_PARAMS`], on as many threads as there are cores.
pub fn lint_all(rtl_dir: &Path) -> std::io::Result<Vec<LintResult>> {
    let mut runs: Vec<(String, &[&str])> = Vec::new();
    for m in modules(rtl_dir)? {
        runs.push((m.clone(), &[]));
        runs.extend(LINT_PARAMS.iter().filter(|(module, _)| *module == m).map(|(module, p)| (module.to_string(), *p)));
    }
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let order: Vec<usize> = (0..runs.len()).collect();
    par_map(&order, jobs, |i| lint(rtl_dir, &runs[i].0, runs[i].1)).into_iter().collect()
}

/// `f` over `order` (indices into some list) on `jobs` threads, taken in that order; the results come
/// back indexed as the list (`result[i]` is `f(i)`), so a caller can schedule long items first.
fn par_map<T: Send>(order: &[usize], jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: std::sync::Mutex<Vec<Option<T>>> = std::sync::Mutex::new((0..order.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, order.len().max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&i) = order.get(k) else { break };
                let r = f(i);
                slots.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    slots.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect()
}

/// The result of synthesising one module.
#[derive(Debug, Clone)]
pub struct SynthResult {
    /// Module.
    pub module: String,
    /// Cells after `synth`, if Yosys got that far.
    pub cells: Option<u64>,
    /// Flip-flop cells among them.
    pub flip_flops: u64,
    /// Latches inferred (must be 0).
    pub latches: u64,
    /// Longest topological path, in cells (`ltp -noff` on the flattened netlist, across submodules).
    pub longest_path: Option<u64>,
    /// Yosys exited 0.
    pub ok: bool,
    /// Yosys log (kept for failures).
    pub log: String,
}

impl SynthResult {
    /// Synthesised with no error and no latch.
    pub fn passed(&self) -> bool {
        self.ok && self.latches == 0 && self.cells.is_some()
    }
}

/// Synthesises `module` with Yosys' generic `synth` flow (hierarchical), then flattens the synthesised
/// netlist for `ltp`: unflattened, `ltp` takes each submodule instance for one combinational cell from
/// every input bit to every output bit, which makes false loops and meaningless lengths for a module that
/// instantiates others (the packet-engine top: 3,189 "cells" for a real 240; docs/performance.md).
pub fn synth(rtl_dir: &Path, module: &str) -> std::io::Result<SynthResult> {
    let files: Vec<PathBuf> = modules(rtl_dir)?.iter().map(|m| rtl_dir.join(format!("{m}.v"))).collect();
    let reads: Vec<String> = files.iter().map(|f| format!("read_verilog -sv {};", f.display())).collect();
    let script = format!("{} synth -top {module}; stat; flatten; ltp -noff", reads.join(" "));
    let o = Command::new("yosys").arg("-p").arg(&script).output()?;
    let log = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    Ok(parse_synth(module, o.status.success(), log))
}

/// Synthesises every module under `rtl_dir` on `jobs` threads (one Yosys process each) and returns the
/// results in module order. Yosys is single-threaded and the top re-synthesises every block it
/// instantiates, so the modules are started largest first (by [`synth_cost`]): the top runs on one core
/// while the blocks share the others.
pub fn synth_all(rtl_dir: &Path, jobs: usize) -> std::io::Result<Vec<SynthResult>> {
    let names = modules(rtl_dir)?;
    let cost = synth_cost(rtl_dir, &names)?;
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost[i]));
    par_map(&order, jobs, |i| synth(rtl_dir, &names[i])).into_iter().collect()
}

/// A module's synthesis cost estimate for scheduling: its source lines plus the costs of the modules it
/// instantiates (any identifier in its source that names another module), recursively.
pub fn synth_cost(rtl_dir: &Path, names: &[String]) -> std::io::Result<Vec<usize>> {
    let mut lines = Vec::with_capacity(names.len());
    let mut children: Vec<Vec<usize>> = Vec::with_capacity(names.len());
    for (i, m) in names.iter().enumerate() {
        let text = std::fs::read_to_string(rtl_dir.join(format!("{m}.v")))?;
        lines.push(text.lines().count());
        let idents: std::collections::HashSet<&str> =
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).collect();
        children.push((0..names.len()).filter(|&j| j != i && idents.contains(names[j].as_str())).collect());
    }
    fn total(i: usize, lines: &[usize], children: &[Vec<usize>], depth: usize) -> usize {
        // The depth bound keeps a (malformed) instantiation cycle from recursing forever.
        if depth > children.len() {
            return lines[i];
        }
        lines[i] + children[i].iter().map(|&j| total(j, lines, children, depth + 1)).sum::<usize>()
    }
    Ok((0..names.len()).map(|i| total(i, &lines, &children, 0)).collect())
}

/// Reads cells, flip-flops, latches and the longest path out of a Yosys log.
pub fn parse_synth(module: &str, ok: bool, log: String) -> SynthResult {
    let number_after = |line: &str, key: &str| -> Option<u64> {
        line.trim().strip_prefix(key).and_then(|r| r.trim().trim_end_matches(':').split_whitespace().last()).and_then(|n| n.parse().ok())
    };
    // The final `stat` comes last: take the last "Number of cells" and the cell table that follows it.
    let stat_start = log.rfind("Number of cells:").unwrap_or(0);
    let stat = &log[stat_start..];
    let cells = stat.lines().next().and_then(|l| number_after(l, "Number of cells:"));
    let mut flip_flops = 0;
    let mut latches = 0;
    for line in stat.lines().skip(1) {
        let mut it = line.split_whitespace();
        let (Some(kind), Some(n), None) = (it.next(), it.next(), it.next()) else { continue };
        let Ok(n) = n.parse::<u64>() else { continue };
        let k = kind.to_ascii_uppercase();
        // Latches are $dlatch/$_DLATCH_*/$adlatch and the SR latches $sr/$_SR_*; $_DFFSR_* is a flip-flop.
        if k.contains("DLATCH") || k.starts_with("$_SR_") || k == "$SR" {
            latches += n;
        } else if k.contains("DFF") {
            flip_flops += n;
        }
    }
    latches += log.matches("Latch inferred").count() as u64;
    let longest_path = log
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Longest topological path in"))
        .filter_map(|r| r.split("(length=").nth(1))
        .filter_map(|r| r.trim_end_matches("):").trim_end_matches(')').parse().ok())
        .max();
    SynthResult { module: module.to_string(), cells, flip_flops, latches, longest_path, ok, log }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synth_log_parsing_finds_latches_and_paths() {
        let log = "Latch inferred for signal `\\m.\\q' from process `\\m.$proc'\n\
                   Number of cells: 5\n     $_DFF_P_  1\n     $_DFFSR_PNN_  1\n     $_DLATCH_P_  1\n     $_SR_NN_  1\n     $_AND_ 1\n\
                   Longest topological path in m (length=2):\n";
        let r = parse_synth("m", true, log.to_string());
        assert_eq!(r.cells, Some(5));
        assert_eq!(r.flip_flops, 2, "$_DFFSR_ is a flip-flop with set/reset, not a latch");
        assert_eq!(r.latches, 3, "a D latch, an SR latch and one 'Latch inferred' line");
        assert_eq!(r.longest_path, Some(2));
        assert!(!r.passed());
    }

    #[test]
    fn par_map_returns_every_result_at_its_index_whatever_the_order() {
        let order = [3, 0, 4, 1, 2];
        for jobs in [1, 2, 8] {
            assert_eq!(par_map(&order, jobs, |i| i * 10), vec![0, 10, 20, 30, 40], "{jobs} jobs");
        }
        assert!(par_map(&[], 2, |i| i).is_empty());
    }

    #[test]
    fn synthesis_starts_with_the_top_whose_cost_covers_its_blocks() {
        let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl");
        let names = modules(&rtl).unwrap();
        let cost = synth_cost(&rtl, &names).unwrap();
        let of = |m: &str| cost[names.iter().position(|n| n == m).unwrap()];
        let lines = |m: &str| std::fs::read_to_string(rtl.join(format!("{m}.v"))).unwrap().lines().count();
        assert_eq!(of("axis_register"), lines("axis_register"), "a leaf costs its own lines");
        assert!(of("packet_engine") >= lines("packet_engine") + of("cpu") + of("input_checker"));
        assert_eq!(cost.iter().max(), Some(&of("packet_engine")), "the top is scheduled first");
    }
}
