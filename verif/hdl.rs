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
    ("register_space", &["-GCPU_STATIC_ENTRIES=16"]),
    ("register_space", &["-GCPU_STATIC_ENTRIES=1"]),
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
pub fn par_map<T: Send>(order: &[usize], jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
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
    /// Yosys' own account of the run that synthesised this module, when it was that run's root or ran
    /// alone: CPU seconds and its costliest passes ([`yosys_cpu_summary`]). The gate prints it so that
    /// the test command's budget can be read from every CI log.
    pub yosys_cpu: Option<String>,
}

impl SynthResult {
    /// Synthesised with no error and no latch.
    pub fn passed(&self) -> bool {
        self.ok && self.latches == 0 && self.cells.is_some()
    }
}

/// Yosys' generic `synth` of `top` without its `memory_map` step: an inferred RAM (the interposer's
/// multicast table, docs/blocks/interposer.md §Multicast table) stays one `$mem_v2` cell, as block RAM
/// would, instead of becoming a flip-flop per bit and a read multiplexer (8,192 flip-flops for the
/// seed-size table, and minutes of synthesis). The rest is `synth`'s `fine` and `check` steps as they are.
pub fn synth_keeping_memories(top: &str) -> String {
    format!("synth -top {top} -run begin:fine; opt -fast -full; opt -full; techmap; opt -fast; abc -fast; opt -fast; synth -top {top} -run check:")
}

/// Synthesises `module` with Yosys' generic `synth` flow (hierarchical), then flattens the synthesised
/// netlist for `ltp`: unflattened, `ltp` takes each submodule instance for one combinational cell from
/// every input bit to every output bit, which makes false loops and meaningless lengths for a module that
/// instantiates others (the packet-engine top: 3,189 "cells" for a real 240; docs/performance.md).
pub fn synth(rtl_dir: &Path, module: &str) -> std::io::Result<SynthResult> {
    let files: Vec<PathBuf> = modules(rtl_dir)?.iter().map(|m| rtl_dir.join(format!("{m}.v"))).collect();
    let reads: Vec<String> = files.iter().map(|f| format!("read_verilog -sv {};", f.display())).collect();
    let script = format!("{} {}; stat; flatten; ltp -noff", reads.join(" "), synth_keeping_memories(module));
    let o = Command::new("yosys").arg("-p").arg(&script).output()?;
    let log = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    Ok(parse_synth(module, o.status.success(), log))
}

/// Synthesises every module under `rtl_dir` and returns one result per synthesised module, sorted by
/// name.
///
/// Yosys' hierarchical `synth` of a module synthesises every module it instantiates, once per parameter
/// set, so synthesising each block again on its own repeated most of the work (the CPU alone takes
/// minutes, inside the top and again on its own). Instead each *root* (a module no other module
/// instantiates: the packet-engine top) is synthesised once, in one Yosys run, and every module under it
/// is reported from that run at the parameters the root gives it: its cells and flip-flops (its own plus
/// its instances', from the hierarchical `stat`) and its longest path (a second Yosys run reads the
/// synthesised netlist back and runs `ltp -noff` on each leaf as is and on each module with
/// submodules flattened: see [`synth`] for why). A module under the root at several parameter sets (the
/// top's register slices) gets one row per set. Roots run on `jobs` threads, largest first; a module
/// that no root's run reached is synthesised on its own.
pub fn synth_all(rtl_dir: &Path, jobs: usize) -> std::io::Result<Vec<SynthResult>> {
    let names = modules(rtl_dir)?;
    let (cost, children) = instantiation_graph(rtl_dir, &names)?;
    let is_child: Vec<bool> = (0..names.len()).map(|i| children.iter().any(|c| c.contains(&i))).collect();
    let mut roots: Vec<usize> = (0..names.len()).filter(|&i| !is_child[i]).collect();
    roots.sort_by_key(|&i| std::cmp::Reverse(cost[i]));
    let mut rows: Vec<SynthResult> = Vec::new();
    // `par_map` takes positions into the list it is mapped over (here `roots`, largest first).
    let order: Vec<usize> = (0..roots.len()).collect();
    for r in par_map(&order, jobs, |k| synth_tree(rtl_dir, &names[roots[k]])) {
        rows.extend(r?);
    }
    let reached: std::collections::HashSet<String> =
        rows.iter().map(|r| r.module.split_whitespace().next().unwrap_or_default().to_string()).collect();
    let missed: Vec<usize> = (0..names.len()).filter(|&i| !reached.contains(&names[i])).collect();
    let order: Vec<usize> = (0..missed.len()).collect();
    for r in par_map(&order, jobs, |k| synth(rtl_dir, &names[missed[k]])) {
        rows.push(r?);
    }
    rows.sort_by(|a, b| a.module.cmp(&b.module));
    Ok(rows)
}

/// One module's section of a hierarchical Yosys `stat`: its own cells and the modules it instantiates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatModule {
    /// Yosys' name: the source name, or `$paramod...` for a parameterised derivation.
    pub name: String,
    /// Cells that are not instances of another module of the design.
    pub own_cells: u64,
    /// Flip-flops among them.
    pub own_flip_flops: u64,
    /// Latches among them.
    pub own_latches: u64,
    /// (module, instances) for each module of the design it instantiates.
    pub children: Vec<(String, u64)>,
}

/// Reads every module's section (`=== name ===`, then its cell table) of a hierarchical `stat`; the
/// `design hierarchy` summary is skipped. A cell type is an instance when it names a module that has a
/// section of its own.
pub fn parse_hier_stat(stat: &str) -> Vec<StatModule> {
    let mut sections: Vec<(String, Vec<(String, u64)>)> = Vec::new();
    let mut in_cells = false;
    for line in stat.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("=== ").and_then(|r| r.strip_suffix(" ===")) {
            sections.push((name.to_string(), Vec::new()));
            in_cells = false;
        } else if t.starts_with("Number of cells:") {
            in_cells = true;
        } else if in_cells {
            let mut it = t.rsplitn(2, char::is_whitespace);
            match (it.next().and_then(|n| n.parse::<u64>().ok()), it.next()) {
                (Some(n), Some(kind)) => sections.last_mut().expect("a cell table follows a header").1.push((kind.trim().to_string(), n)),
                _ => in_cells = false,
            }
        }
    }
    sections.retain(|(name, _)| name != "design hierarchy");
    let modules: std::collections::HashSet<String> = sections.iter().map(|(n, _)| n.clone()).collect();
    sections
        .into_iter()
        .map(|(name, cells)| {
            let mut m = StatModule { name, ..Default::default() };
            for (kind, n) in cells {
                if modules.contains(&kind) {
                    m.children.push((kind, n));
                } else {
                    m.own_cells += n;
                    let (ff, latch) = cell_kind(&kind);
                    m.own_flip_flops += if ff { n } else { 0 };
                    m.own_latches += if latch { n } else { 0 };
                }
            }
            m
        })
        .collect()
}

/// (flip-flop, latch) for a Yosys cell type. Latches are $dlatch/$_DLATCH_*/$adlatch and the SR latches
/// $sr/$_SR_*; $_DFFSR_* is a flip-flop with set and reset.
fn cell_kind(kind: &str) -> (bool, bool) {
    let k = kind.to_ascii_uppercase();
    let latch = k.contains("DLATCH") || k.starts_with("$_SR_") || k == "$SR";
    (!latch && k.contains("DFF"), latch)
}

/// A readable name for a Yosys module name: `$paramod\axis_register\WIDTH=s32'0..0101010010` reads
/// `axis_register WIDTH=338`; `$paramod$<hash>\cpu` (Yosys hashes long parameter lists) reads `cpu`.
pub fn display_name(yosys: &str) -> String {
    let Some(rest) = yosys.strip_prefix("$paramod") else { return yosys.trim_start_matches('\\').to_string() };
    let mut parts = rest.split('\\').skip(1);
    let base = parts.next().unwrap_or(rest).to_string();
    let params: Vec<String> = parts
        .map(|p| match p.split_once('=') {
            Some((k, v)) => {
                let bits = v.split_once('\'').map_or(v, |(_, b)| b);
                match u128::from_str_radix(bits, 2) {
                    Ok(n) => format!("{k}={n}"),
                    Err(_) => format!("{k}={v}"),
                }
            }
            None => p.to_string(),
        })
        .collect();
    if params.is_empty() { base } else { format!("{base} {}", params.join(" ")) }
}

/// Synthesises `root` once (hierarchically) and reports every module under it: see [`synth_all`].
fn synth_tree(rtl_dir: &Path, root: &str) -> std::io::Result<Vec<SynthResult>> {
    let work = std::env::temp_dir().join(format!("inswitch-synth-{}-{root}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let (stat_file, netlist) = (work.join("stat.txt"), work.join("netlist.il"));
    let reads: Vec<String> =
        modules(rtl_dir)?.iter().map(|m| format!("read_verilog -sv {};", rtl_dir.join(format!("{m}.v")).display())).collect();
    let script = format!(
        "{} {}; tee -o {} stat; write_rtlil {}",
        reads.join(" "),
        synth_keeping_memories(root),
        stat_file.display(),
        netlist.display()
    );
    let o = Command::new("yosys").arg("-p").arg(&script).output()?;
    let log = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let stat = std::fs::read_to_string(&stat_file).unwrap_or_default();
    let stats = parse_hier_stat(&stat);
    if !o.status.success() || stats.is_empty() {
        let _ = std::fs::remove_dir_all(&work);
        return Ok(vec![parse_synth(root, false, log)]);
    }
    // Longest paths: a leaf as synthesised; a module with submodules flattened from a saved copy.
    // The leaves first: `hierarchy -top` keeps only one module's subtree, so a leaf named after it would
    // no longer exist (and Yosys would stop the script there).
    let mut ltp = String::from("design -save synthesised;");
    for m in stats.iter().filter(|m| m.children.is_empty()) {
        ltp.push_str(&format!(" ltp -noff {};", m.name));
    }
    for m in stats.iter().filter(|m| !m.children.is_empty()) {
        ltp.push_str(&format!(" design -load synthesised; hierarchy -top {}; flatten; ltp -noff;", m.name));
    }
    let o2 = Command::new("yosys").arg("-p").arg(format!("read_rtlil {}; {ltp}", netlist.display())).output()?;
    let _ = std::fs::remove_dir_all(&work);
    let ltp_log = String::from_utf8_lossy(&o2.stdout).into_owned();
    let path_of = |name: &str| -> Option<u64> {
        let key = format!("Longest topological path in {name} (length=");
        ltp_log.lines().filter_map(|l| l.trim().strip_prefix(key.as_str())).filter_map(|r| r.trim_end_matches("):").parse().ok()).max()
    };
    // Totals over each module's subtree (instances times the child's totals), children first.
    let by_name: std::collections::HashMap<&str, &StatModule> = stats.iter().map(|m| (m.name.as_str(), m)).collect();
    fn total(m: &StatModule, by_name: &std::collections::HashMap<&str, &StatModule>, depth: usize) -> (u64, u64, u64) {
        let (mut c, mut f, mut l) = (m.own_cells, m.own_flip_flops, m.own_latches);
        // The depth bound keeps a (malformed) instantiation cycle from recursing forever.
        if depth <= by_name.len() {
            for (child, n) in &m.children {
                if let Some(cm) = by_name.get(child.as_str()) {
                    let (cc, cf, cl) = total(cm, by_name, depth + 1);
                    (c, f, l) = (c + n * cc, f + n * cf, l + n * cl);
                }
            }
        }
        (c, f, l)
    }
    let inferred = log.matches("Latch inferred").count() as u64;
    let root_cpu = format!(
        "synthesis {}; longest paths {}",
        yosys_cpu_summary(&log).unwrap_or_else(|| "?".into()),
        yosys_cpu_summary(&ltp_log).unwrap_or_else(|| "?".into())
    );
    let tail: String = log.lines().rev().take(40).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
    Ok(stats
        .iter()
        .map(|m| {
            let (cells, flip_flops, latches) = total(m, &by_name, 0);
            let is_root = display_name(&m.name) == root;
            SynthResult {
                module: display_name(&m.name),
                cells: Some(cells),
                flip_flops,
                // A "Latch inferred" message is counted against the root, whose subtree holds it.
                latches: latches + if is_root { inferred } else { 0 },
                longest_path: path_of(&m.name),
                ok: o2.status.success(),
                yosys_cpu: is_root.then(|| root_cpu.clone()),
                log: if is_root { log.clone() } else { format!("(synthesised inside {root}; the end of its log)\n{tail}") },
            }
        })
        .collect())
}

/// A module's synthesis cost estimate for scheduling: its source lines plus the costs of the modules it
/// instantiates (any identifier in its source that names another module), recursively.
pub fn synth_cost(rtl_dir: &Path, names: &[String]) -> std::io::Result<Vec<usize>> {
    Ok(instantiation_graph(rtl_dir, names)?.0)
}

/// Each module's cost (see [`synth_cost`]) and the modules it instantiates (indices into `names`).
pub(crate) fn instantiation_graph(rtl_dir: &Path, names: &[String]) -> std::io::Result<(Vec<usize>, Vec<Vec<usize>>)> {
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
    Ok(((0..names.len()).map(|i| total(i, &lines, &children, 0)).collect(), children))
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
        let (ff, latch) = cell_kind(kind);
        flip_flops += if ff { n } else { 0 };
        latches += if latch { n } else { 0 };
    }
    latches += log.matches("Latch inferred").count() as u64;
    let longest_path = log
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Longest topological path in"))
        .filter_map(|r| r.split("(length=").nth(1))
        .filter_map(|r| r.trim_end_matches("):").trim_end_matches(')').parse().ok())
        .max();
    let yosys_cpu = yosys_cpu_summary(&log);
    SynthResult { module: module.to_string(), cells, flip_flops, latches, longest_path, ok, log, yosys_cpu }
}

/// "user 8.43 s, system 0.13 s; 20% 23x opt_expr (1 sec), 18% 21x opt_clean (1 sec)" from the end of a
/// Yosys log (its `End of script ... CPU: user ...` and `Time spent:` lines), if it has them.
pub fn yosys_cpu_summary(log: &str) -> Option<String> {
    let cpu = log.lines().rev().find_map(|l| l.split_once("CPU: ").map(|(_, r)| r.split(", MEM").next().unwrap_or(r).to_string()))?;
    let cpu = cpu.replace("s system", " s, system").trim_end_matches('s').to_string() + " s";
    let passes = log.lines().rev().find_map(|l| l.strip_prefix("Time spent: ")).map(|r| r.trim_end_matches(", ...").to_string());
    Some(match passes {
        Some(p) => format!("{cpu}; {p}"),
        None => cpu,
    })
}
