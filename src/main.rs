//! `inswitch`: command line of the inswitch packet-engine model (see README.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use inswitch::checker::RunConfig;
use inswitch::{hdl, targets};

/// inswitch: a cycle-level Rust model and the Verilog RTL of an in-switch collective packet engine,
/// cross-checked cycle for cycle under Verilator.
#[derive(Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the lockstep co-simulation: the Rust model and the Verilated RTL of a block, driven by the same
    /// seeded constrained-random stimulus (idle gaps, backpressure, malformed frames, resets), every output
    /// compared on every cycle, plus an independent scoreboard. Exit status 0 when everything matched; on
    /// the first mismatch: a report (seed, cycle, port, both values in hex, last transactions), a waveform
    /// of the failing window, the command that reproduces it, and exit status 1.
    Cosim {
        /// Block to run, or `all`.
        #[arg(long, default_value = "all", value_parser = block_names())]
        block: String,
        /// Only the targets of this data width (bits), for blocks built at several widths.
        #[arg(long)]
        width: Option<u32>,
        /// First stimulus seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Number of seeds, from --seed upwards.
        #[arg(long, default_value_t = 4)]
        seeds: u64,
        /// Cycles per target and seed.
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        /// Where failure waveforms (FST) are written.
        #[arg(long, default_value = "cosim-out")]
        wave_dir: PathBuf,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Lint every RTL module with `verilator --lint-only -Wall`; exit status 1 on any warning.
    Lint {
        /// RTL directory.
        #[arg(long, default_value = "rtl")]
        rtl: PathBuf,
    },
    /// Synthesise every RTL module with Yosys (generic `synth`); print cells, flip-flops and the longest
    /// path; exit status 1 on an error or any latch.
    Synth {
        /// RTL directory.
        #[arg(long, default_value = "rtl")]
        rtl: PathBuf,
    },
}

fn block_names() -> clap::builder::PossibleValuesParser {
    let mut names = vec!["all"];
    names.extend(targets::blocks());
    clap::builder::PossibleValuesParser::new(names)
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Cosim { block, width, seed, seeds, cycles, wave_dir, quiet } => {
            cosim(&block, width, seed, seeds, cycles, wave_dir, quiet)
        }
        Command::Lint { rtl } => lint(&rtl),
        Command::Synth { rtl } => synth(&rtl),
    }
}

fn cosim(block: &str, width: Option<u32>, seed: u64, seeds: u64, cycles: u64, wave_dir: PathBuf, quiet: bool) -> ExitCode {
    let selected = targets::select(block, width);
    if selected.is_empty() {
        eprintln!("no cosim target for block {block} at width {width:?}");
        return ExitCode::FAILURE;
    }
    let total = selected.len() as u64 * seeds * cycles;
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(total) };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} cycles ({per_sec}) {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = Vec::new();
    let start = Instant::now();
    for t in &selected {
        for s in seed..seed + seeds {
            bar.set_message(format!("{} seed {s}", t.name));
            let cfg = RunConfig { seed: s, cycles, wave_dir: wave_dir.clone() };
            let t0 = Instant::now();
            match (t.run)(&cfg, &mut |n| bar.inc(n)) {
                Ok(outcome) => rows.push((t.name, s, outcome, t0.elapsed())),
                Err(report) => {
                    bar.abandon();
                    eprintln!("{report}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    bar.finish_and_clear();
    println!("{:<20} {:>6} {:>10} {:>10} {:>10} {:>8} {:>7} {:>12}", "target", "seed", "cycles", "frames in", "frames out", "no route", "resets", "cycles/s");
    let mut all_cycles = 0;
    let mut all_frames = 0;
    for (name, s, o, dt) in &rows {
        all_cycles += o.cycles;
        all_frames += o.counter("frames_in");
        println!(
            "{:<20} {:>6} {:>10} {:>10} {:>10} {:>8} {:>7} {:>12.0}",
            name,
            s,
            o.cycles,
            o.counter("frames_in"),
            o.counter("frames_out"),
            o.counter("route_misses"),
            o.counter("resets"),
            o.cycles as f64 / dt.as_secs_f64()
        );
    }
    // Functional coverage: every counter of every run, four to a line.
    for (name, s, o, _) in &rows {
        println!("coverage {name} seed {s}:");
        for chunk in o.counters.chunks(4) {
            let cells: Vec<String> = chunk.iter().map(|(k, v)| format!("{k:<28} {v:>9}")).collect();
            println!("  {}", cells.join("  "));
        }
    }
    println!(
        "cosim: matched {all_cycles} cycles, {all_frames} frames, {} targets x {seeds} seeds, 0 mismatches ({:.1} s)",
        selected.len(),
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

fn lint(rtl: &std::path::Path) -> ExitCode {
    let results = match hdl::lint_all(rtl) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lint: cannot run verilator on {}: {e} (run `bash scripts/setup`)", rtl.display());
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for r in &results {
        let params = if r.params.is_empty() { "defaults".to_string() } else { r.params.join(" ") };
        if r.clean {
            println!("lint ok    {:<24} {params}", r.module);
        } else {
            failed = true;
            println!("lint FAIL  {:<24} {params}\n{}", r.module, r.messages);
        }
    }
    if results.is_empty() {
        eprintln!("lint: no modules in {}", rtl.display());
        return ExitCode::FAILURE;
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn synth(rtl: &std::path::Path) -> ExitCode {
    let modules = match hdl::modules(rtl) {
        Ok(m) if !m.is_empty() => m,
        Ok(_) => {
            eprintln!("synth: no modules in {}", rtl.display());
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("synth: {}: {e}", rtl.display());
            return ExitCode::FAILURE;
        }
    };
    println!("{:<24} {:>9} {:>11} {:>8} {:>14}  result", "module (yosys synth)", "cells", "flip-flops", "latches", "longest path");
    let mut failed = false;
    for m in modules {
        match hdl::synth(rtl, &m) {
            Ok(r) => {
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
                if !r.passed() {
                    failed = true;
                    let tail: Vec<&str> = r.log.lines().rev().take(30).collect();
                    eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
                }
            }
            Err(e) => {
                eprintln!("synth: cannot run yosys: {e} (run `bash scripts/setup`)");
                return ExitCode::FAILURE;
            }
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
