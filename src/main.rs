//! `inswitch`: command line of the inswitch packet-engine model (see README.md).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod capture_cmd;
mod cosim_cmd;
mod coverage_cmd;
mod decode_cmd;
mod goodput_cmd;
mod lint_cmd;
mod msg_header_cmd;
mod reduce_cmd;
mod sim_cmd;
mod synth_cmd;
mod synth_xilinx_cmd;

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
    Cosim(cosim_cmd::Args),
    /// RTL line coverage of the cosim stimulus: runs targets x seeds with coverage-counting models (a
    /// binary built with `--features coverage`), merges the counts (verilator_coverage), writes
    /// OUT/coverage.info (lcov) and OUT/html (genhtml), prints line coverage per module; --floors FILE
    /// fails below per-module minimums.
    Coverage(coverage_cmd::Args),
    /// Decode frames and print every field (like `tshark -V`), from hex on the command line or a pcap
    /// file; optionally write the frames to a pcap file.
    Decode(decode_cmd::Args),
    /// Combine two contributions with a reduction operator, bit-exactly as the engine does, and print the
    /// result operands (hex and decoded) and the result code (docs/blocks/reduce_unit.md).
    Reduce(reduce_cmd::Args),
    /// Simulate whole fabrics of switches whose packet engines are the cycle-level model: by default the
    /// seed's Table 1 (32 x 32 flattened butterfly, monolithic vs distributed engines) in serialization-only
    /// mode (the table's assumptions, compared with the seed's figures) and in realistic mode (the engines
    /// stepped, switch latency), then the two-master case of [0150]-[0153]. docs/fabric.md.
    Sim(sim_cmd::SimArgs),
    /// Lint every RTL module with `verilator --lint-only -Wall`; exit status 1 on any warning.
    Lint(lint_cmd::Args),
    /// Synthesise every RTL module with Yosys (generic `synth`); print cells, flip-flops and the longest
    /// path; exit status 1 on an error or any latch. `--target xilinx`: `synth_xilinx`, LUTs, flip-flops,
    /// block RAMs, LUT depth per stage and whether the tables are in RAM.
    Synth(synth_cmd::Args),
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
    /// Sweep the fault campaign over drop rates (0.1-5 % by default) and print the goodput table: success
    /// rate per class (TLP non-posted, TLP posted, Soft Portals), retries, time to complete against the
    /// fault-free run; --plot FILE writes it (docs/fabric.md §Goodput).
    Goodput(goodput_cmd::Args),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Cosim(a) => cosim_cmd::run(&a),
        Command::Coverage(a) => coverage_cmd::run(&a),
        Command::Decode(a) => decode_cmd::run(&a),
        Command::Reduce(a) => reduce_cmd::run(&a),
        Command::Sim(a) => sim_cmd::run(&a),
        Command::Lint(a) => lint_cmd::run(&a),
        Command::Synth(a) => synth_cmd::run(&a),
        Command::SvModels(a) => sv_models::run(&a),
        Command::CheckWave(a) => check_wave::run(&a),
        Command::Vectors(a) => vectors::run(&a),
        Command::MsgHeader => msg_header_cmd::run(),
        Command::Goodput(a) => goodput_cmd::run(&a),
    }
}
