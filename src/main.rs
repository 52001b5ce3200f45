//! `inswitch`: command line of the inswitch packet-engine model (see README.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use inswitch::hdl;

mod capture_cmd;
mod cosim_cmd;
mod coverage_cmd;
mod decode_cmd;
mod sim_cmd;

mod check_wave;
mod sv_models;
mod vectors;

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
    ///
    /// CI options: --jobs N (parallel), --keep-going, --shard K/N, --junit FILE, --json, --seeds-file,
    /// --time-budget (soak). Exit status 0 all matched, 1 a mismatch or scoreboard failure, 2 a usage or
    /// build error (docs/verification.md §Regression at scale).
    Cosim(cosim_cmd::CosimArgs),
    /// RTL line coverage of the cosim stimulus: runs targets x seeds with coverage-counting models (a
    /// binary built with `--features coverage`), merges the counts (verilator_coverage), writes
    /// OUT/coverage.info (lcov) and OUT/html (genhtml), prints line coverage per module; --floors FILE
    /// fails below per-module minimums.
    Coverage(coverage_cmd::CoverageArgs),
    /// Decode frames and print every field (like `tshark -V`), from hex on the command line or a pcap
    /// file; optionally write the frames to a pcap file.
    Decode {
        /// Frame kind: tlp, flit, dllp, portals, soft-portals, collective. With --pcap, defaults to the
        /// kind of the file's link type.
        #[arg(long)]
        kind: Option<String>,
        /// Read frames from this pcap file instead of hex arguments.
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// Print JSON (one object per frame, one per line) instead of text.
        #[arg(long)]
        json: bool,
        /// Also write the frames to this pcap file (Ethernet link type for soft-portals, a documented
        /// LINKTYPE_USERn otherwise; see docs/frames.md).
        #[arg(long)]
        write_pcap: Option<PathBuf>,
        /// Frames as hex (spaces, `:` and `0x` allowed), one argument per frame.
        hex: Vec<String>,
    },
    /// Combine two contributions with a reduction operator, bit-exactly as the engine does, and print the
    /// result operands (hex and decoded) and the result code (docs/reduction.md).
    Reduce {
        /// Operator name (any case), e.g. int_sum, flt_sum_noftz_rnd0, flt_sum_ftz_rnd3, flt_minnum, flt_repsum,
        /// int_minmaxloc, barrier, or a 6-bit opcode number. Table: docs/reduction.md.
        #[arg(long, required_unless_present = "batch")]
        op: Option<String>,
        /// R_TF_RED_CFG_MODE: `assoc` (associative) or `ieee`.
        #[arg(long, default_value = "assoc")]
        mode: String,
        /// Read JSON lines {"op":..., "a":[...], "b":[...], "mode":...} on stdin, write one result per line.
        #[arg(long)]
        batch: bool,
        /// Operands: the first half are contribution a's lanes, the second half b's (1 to 4 each); integers
        /// (decimal or 0x hex) or, for float operators, decimal floats.
        #[arg(allow_hyphen_values = true)]
        operands: Vec<String>,
    },
    /// Simulate whole fabrics of switches whose packet engines are the cycle-level model: by default the
    /// seed's Table 1 (32 x 32 flattened butterfly, monolithic vs distributed engines) in serialization-only
    /// mode (the table's assumptions, compared with the seed's figures) and in realistic mode (the engines
    /// stepped, switch latency), then the two-master case of [0150]-[0153]. docs/fabric.md.
    Sim(sim_cmd::SimArgs),
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
    /// Print `rtl/collective_msg.vh`, the RTL's macros for the collective message's signals, generated from
    /// the field list in crates/model/src/message.rs (`msg-header > rtl/collective_msg.vh` after changing it).
    MsgHeader,
    /// Write the generated SystemVerilog golden models and checkers (DPI-C) of every block.
    SvModels(sv_models::Args),
    /// Check a block instance in a VCD/FST dump of any simulator against the golden model: exit 0 with
    /// the cycles compared, 1 with the first mismatch (time, cycle, port, expected and dumped values).
    CheckWave(check_wave::Args),
    /// Write golden vectors: per cycle every input and the model's expected outputs, as JSON lines or as
    /// a `$readmemh` file with a generated SystemVerilog bench that replays it (docs/golden-model.md).
    Vectors(vectors::Args),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Cosim(args) => cosim_cmd::run(args),
        Command::Coverage(args) => coverage_cmd::run(args),
        Command::Decode { kind, pcap, json, write_pcap, hex } => decode_cmd::decode(kind.as_deref(), pcap, json, write_pcap, &hex),
        Command::Reduce { op, mode, batch, operands } => reduce(op.as_deref(), &mode, batch, &operands),
        Command::Sim(args) => sim_cmd::run(&args),
        Command::Lint { rtl } => lint(&rtl),
        Command::Synth { rtl } => synth(&rtl),
        Command::SvModels(a) => sv_models::run(&a),
        Command::CheckWave(a) => check_wave::run(&a),
        Command::Vectors(a) => vectors::run(&a),
        Command::MsgHeader => {
            print!("{}", inswitch_model::message::verilog_header());
            ExitCode::SUCCESS
        }
    }
}

fn reduce(op: Option<&str>, mode: &str, batch: bool, operands: &[String]) -> ExitCode {
    use inswitch_model::reduce::batch as b;
    if batch {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        return match b::run_batch(stdin.lock(), std::io::BufWriter::new(stdout.lock())) {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("reduce --batch: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let Some(op) = op else {
        eprintln!("reduce: give --op or --batch");
        return ExitCode::FAILURE;
    };
    let args: Vec<&str> = operands.iter().map(String::as_str).collect();
    match b::run_args(op, mode, &args) {
        Ok(v) => {
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string()));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("reduce: {e}");
            ExitCode::FAILURE
        }
    }
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
        if !r.passed() {
            failed = true;
            let tail: Vec<&str> = r.log.lines().rev().take(30).collect();
            eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
