//! `inswitch synth --target xilinx`: the FPGA mapping report of `inswitch::fpga` (issue 19 item 3).
//!
//! The checks are printed with PASS/FAIL on every row. The LUT depth per stage fails the command
//! whenever a module is deeper than its bound: issue 19's goal of 8 levels (`fpga::LUT_DEPTH_GOAL`), or
//! for a module in `fpga::LUT_DEPTH_EXCEPTIONS` its listed depth (a listed module measured shallower
//! passes with a note to lower its entry: the bounds only tighten); `--max-lut-depth N` checks every
//! module against N instead. The table check (tables in RAM) changes the exit status only with
//! `--require-ram`, because the CPU keeps the keys of its tables in flip-flops by design (its lookups
//! compare every key at once). CI runs the generic target (time budget).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use inswitch::fpga::{self, DepthVerdict, Placement, TableSpec};

/// Options of `inswitch synth` that apply to `--target xilinx`.
#[derive(clap::Args)]
pub struct Args {
    /// `synth_xilinx -family`: xc7 (7-series, default) or xcup (UltraScale+); both have six-input LUTs.
    #[arg(long, default_value = "xc7", value_parser = ["xc7", "xcu", "xcup"])]
    family: String,
    /// Synthesise only this module (and what it instantiates) instead of every root.
    #[arg(long)]
    top: Option<String>,
    /// Exit 1 unless every table of the RTL maps to RAM.
    #[arg(long)]
    require_ram: bool,
    /// Check every module's longest stage against N LUT levels instead of the gate's bounds (8, or a
    /// listed exception's depth).
    #[arg(long, value_name = "N")]
    max_lut_depth: Option<u64>,
    /// Keep each root's mapped netlist and log as DIR/<root>.json and DIR/<root>.log.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// Report from netlists kept by an earlier `--keep DIR` run, without synthesising.
    #[arg(long, value_name = "DIR", conflicts_with = "keep")]
    from: Option<PathBuf>,
}

impl Args {
    /// The first xilinx-only option given (they mean nothing for the generic target).
    pub fn given(&self) -> Option<&'static str> {
        [
            (self.family != "xc7", "--family"),
            (self.top.is_some(), "--top"),
            (self.require_ram, "--require-ram"),
            (self.max_lut_depth.is_some(), "--max-lut-depth"),
            (self.keep.is_some(), "--keep"),
            (self.from.is_some(), "--from"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name))
    }
}

/// Runs `synth_xilinx` (or reads kept netlists) and prints the report.
pub fn run(rtl: &Path, a: &Args) -> ExitCode {
    let tables = TableSpec::rtl();
    let runs = match &a.from {
        Some(dir) => fpga::from_kept(dir, &tables),
        None => fpga::synth_xilinx_all(rtl, &a.family, a.top.as_deref(), a.keep.as_deref(), &tables),
    };
    let runs = match runs {
        Ok(r) if !r.is_empty() => r,
        Ok(_) => {
            eprintln!("synth: no netlist to report");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("synth --target xilinx: {}: {e} (yosys is installed by `bash scripts/setup`)", rtl.display());
            return ExitCode::FAILURE;
        }
    };
    let (mut failed, mut depth_failed, mut ram_failed) = (false, false, false);
    let bounds = match a.max_lut_depth {
        Some(n) => format!("every module <= {n} (--max-lut-depth)"),
        None => format!("<= {} but the listed exceptions, marked *", fpga::LUT_DEPTH_GOAL),
    };
    println!("LUT depth per stage: {bounds}");
    println!(
        "{:<24} {:>8} {:>8} {:>7} {:>7} {:>7} {:>5} {:>6} {:>5} {:>8} {:>6}  check  (synth_xilinx -family {}; deepest stage ends at)",
        "module (synth_xilinx)", "LUTs", "FFs", "RAMB18", "RAMB36", "LUTRAM", "DSP", "CARRY", "MUXF", "LUTdepth", "bound", a.family
    );
    for run in &runs {
        if !run.ok {
            failed = true;
            println!("{:<24} FAIL: synth_xilinx did not finish (end of its log on stderr)", run.root);
            let tail: Vec<&str> = run.log.lines().rev().take(30).collect();
            eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
            continue;
        }
        for r in &run.rows {
            let check = fpga::check_depth(r, fpga::LUT_DEPTH_EXCEPTIONS, a.max_lut_depth);
            depth_failed |= check.failed();
            if r.latches > 0 {
                failed = true;
            }
            let verdict = match check.verdict {
                DepthVerdict::Pass => "PASS".to_string(),
                DepthVerdict::TooDeep => "FAIL".to_string(),
                DepthVerdict::StaleException => format!("PASS (below its entry: it may be lowered to {})", check.depth.max(fpga::LUT_DEPTH_GOAL)),
            };
            println!(
                "{:<24} {:>8} {:>8} {:>7} {:>7} {:>7} {:>5} {:>6} {:>5} {:>8} {:>6}  {:<4}  {}{}",
                r.module,
                r.luts,
                r.flip_flops,
                r.ramb18,
                r.ramb36,
                r.lutram,
                r.dsps,
                r.carry,
                r.muxf,
                r.lut_depth(),
                format!("{}{}", check.bound, if check.exception { "*" } else { "" }),
                verdict,
                r.depth_end,
                if r.latches > 0 { format!("  FAIL: {} latches", r.latches) } else { String::new() }
            );
        }
    }
    if a.max_lut_depth.is_none() {
        for (m, d, why) in fpga::LUT_DEPTH_EXCEPTIONS {
            println!("* {m}: bound {d} LUT levels (exception: {why})");
        }
    }
    let table_rows: Vec<_> = runs.iter().flat_map(|r| r.tables.iter()).collect();
    println!("\n{:<16} {:<16} {:<34} {:<36} check (table in RAM)", "module", "table", "holds", "mapped to");
    for spec in &tables {
        let found: Vec<_> = table_rows.iter().filter(|t| t.spec.module == spec.module && t.spec.name == spec.name).collect();
        if found.is_empty() && runs.iter().all(|r| r.ok) && a.top.is_none() {
            ram_failed = true;
            println!("{:<16} {:<16} {:<34} {:<36} FAIL", spec.module, spec.name, spec.what, "module not synthesised");
        }
        for t in found {
            let to = match &t.placement {
                Placement::Ram(kind) => format!("RAM ({kind})"),
                Placement::FlipFlops(n) => format!("flip-flops ({n} bits)"),
                Placement::NotFound => "not found (renamed? optimised away?)".to_string(),
            };
            ram_failed |= !t.passed();
            println!("{:<16} {:<16} {:<34} {:<36} {}", spec.module, spec.name, spec.what, to, if t.passed() { "PASS" } else { "FAIL" });
        }
    }
    if a.require_ram && ram_failed {
        eprintln!("synth: a table is not in RAM (--require-ram)");
        failed = true;
    }
    if depth_failed {
        eprintln!("synth: a module's LUT depth is over its bound (8, or its entry in inswitch::fpga::LUT_DEPTH_EXCEPTIONS)");
        failed = true;
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
