//! `inswitch synth`: every RTL module through Yosys's generic `synth` (`inswitch::hdl::synth_all`), or
//! with `--target xilinx` through `synth_xilinx` (src/synth_xilinx_cmd.rs).

use std::path::PathBuf;
use std::process::ExitCode;

use inswitch::hdl;

/// Arguments of `inswitch synth`.
#[derive(clap::Args)]
pub struct Args {
    /// RTL directory.
    #[arg(long, default_value = "rtl")]
    pub rtl: PathBuf,
    /// `generic`: Yosys `synth` (cells, flip-flops, latches, longest path; what CI runs). `xilinx`:
    /// `synth_xilinx` (LUTs, flip-flops, block RAMs, LUT RAM, DSPs, LUT depth per stage, the tables'
    /// placement: docs/performance.md §FPGA mapping).
    #[arg(long, value_enum, default_value_t = Target::Generic)]
    pub target: Target,
    #[command(flatten)]
    pub xilinx: crate::synth_xilinx_cmd::Args,
}

/// Synthesis target of `inswitch synth`.
#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum Target {
    /// Yosys' generic `synth`.
    Generic,
    /// Yosys' `synth_xilinx`.
    Xilinx,
}

/// Runs the command: exit status 1 on an error or any latch (and, with `--target xilinx`, a failed check
/// that an option makes binding).
pub fn run(a: &Args) -> ExitCode {
    if a.target == Target::Xilinx {
        return crate::synth_xilinx_cmd::run(&a.rtl, &a.xilinx);
    }
    if let Some(flag) = a.xilinx.given() {
        eprintln!("synth: {flag} needs --target xilinx");
        return ExitCode::FAILURE;
    }
    let rtl = &a.rtl;
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results = match hdl::synth_all(rtl, jobs) {
        Ok(r) if !r.is_empty() => r,
        Ok(_) => {
            eprintln!("synth: no modules in {}", rtl.display());
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("synth: {}: {e} (yosys is installed by `bash scripts/setup`)", rtl.display());
            return ExitCode::FAILURE;
        }
    };
    println!("{:<24} {:>9} {:>11} {:>8} {:>14}  result", "module (yosys synth)", "cells", "flip-flops", "latches", "longest path");
    let mut failed = false;
    let mut cpu = Vec::new();
    for r in results {
        let show = |v: Option<u64>| v.map_or("-".to_string(), |n| n.to_string());
        println!(
            "{:<24} {:>9} {:>11} {:>8} {:>14}  {}",
            r.module,
            show(r.cells),
            r.flip_flops,
            r.latches,
            show(r.longest_path),
            if r.passed() { "ok" } else { "FAIL" }
        );
        if let Some(c) = &r.yosys_cpu {
            cpu.push(format!("yosys CPU, {}: {c}", r.module));
        }
        if !r.passed() {
            failed = true;
            let tail: Vec<&str> = r.log.lines().rev().take(30).collect();
            eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
        }
    }
    for line in cpu {
        println!("{line}");
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
