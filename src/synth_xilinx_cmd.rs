//! `inswitch synth --target xilinx`: the FPGA mapping report of `inswitch::fpga` (issue 19 item 3).
//!
//! The checks (tables in RAM, LUT depth per stage within a bound) are printed with PASS/FAIL on every
//! row; they change the exit status only when `--require-ram` / `--max-lut-depth` ask for it, because
//! today's RTL keeps its tables in flip-flops (issue 19 item 1) and CI runs the generic target.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use inswitch::fpga::{self, Placement, TableSpec};

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
    /// Exit 1 if any module's longest stage is deeper than N LUT levels (the report's bound is
    /// N, or the goal of 8 without this option).
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
    let bound = a.max_lut_depth.unwrap_or(fpga::LUT_DEPTH_GOAL);
    let (mut failed, mut depth_failed, mut ram_failed) = (false, false, false);
    println!(
        "{:<24} {:>8} {:>8} {:>7} {:>7} {:>7} {:>5} {:>6} {:>5} {:>8}  depth <= {bound}  (synth_xilinx -family {}; deepest stage ends at)",
        "module (synth_xilinx)", "LUTs", "FFs", "RAMB18", "RAMB36", "LUTRAM", "DSP", "CARRY", "MUXF", "LUTdepth", a.family
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
            let deep = r.lut_depth() > bound;
            depth_failed |= deep;
            if r.latches > 0 {
                failed = true;
            }
            println!(
                "{:<24} {:>8} {:>8} {:>7} {:>7} {:>7} {:>5} {:>6} {:>5} {:>8}  {:<4}  {}{}",
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
                if deep { "FAIL" } else { "PASS" },
                r.depth_end,
                if r.latches > 0 { format!("  FAIL: {} latches", r.latches) } else { String::new() }
            );
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
    if a.max_lut_depth.is_some() && depth_failed {
        eprintln!("synth: a stage is deeper than {bound} LUT levels (--max-lut-depth)");
        failed = true;
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
