//! `inswitch`: command line of the inswitch packet-engine model (see README.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

mod capture_cmd;
mod cosim_cmd;
mod coverage_cmd;
mod decode_cmd;
mod lint_cmd;
mod msg_header_cmd;
mod reduce_cmd;
mod synth_cmd;

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
    /// result operands (hex and decoded) and the result code (docs/reduction.md).
    Reduce(reduce_cmd::Args),
    /// Simulate whole fabrics of switches whose packet engines are the cycle-level model: by default the
    /// seed's Table 1 (32 x 32 flattened butterfly, monolithic vs distributed engines) in serialization-only
    /// mode (the table's assumptions, compared with the seed's figures) and in realistic mode (the engines
    /// stepped, switch latency), then the two-master case of [0150]-[0153]. docs/fabric.md.
    Sim {
        /// A built-in scenario (table1, two-masters, fig7, fig3, jobs, portals, scaling) or a JSON scenario file
        /// (docs/fabric.md §Scenario files).
        #[arg(long, default_value = "table1")]
        scenario: String,
        /// Crossbar latency per switch hop in realistic mode, ns.
        #[arg(long, default_value_t = 100.0)]
        hop_latency_ns: f64,
        /// Print one JSON document instead of tables.
        #[arg(long)]
        json: bool,
        /// Write every frame on the chosen links to this file: pcapng (one interface per link and direction,
        /// nanosecond simulated time, emitter comments), or classic pcap of the TLPs when it ends in .pcap.
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// Links for --pcap: master (the ISLs of the master's switch; every ISL for the portals, fig3 and jobs
        /// scenarios), isls, engines, all.
        #[arg(long, default_value = "master", value_parser = ["master", "isls", "engines", "all"])]
        pcap_links: String,
        /// Write a plot of latency vs end nodes (monolithic vs distributed) here, SVG or PNG by the
        /// extension (.svg, .png); runs the scaling scenario. Needs the font of fonts-dejavu-core.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Step every engine on every cycle (no idle-cycle skipping; same results, slower).
        #[arg(long)]
        no_skip: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Lint every RTL module with `verilator --lint-only -Wall`; exit status 1 on any warning.
    Lint(lint_cmd::Args),
    /// Synthesise every RTL module with Yosys (generic `synth`); print cells, flip-flops and the longest
    /// path; exit status 1 on an error or any latch.
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
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Cosim(a) => cosim_cmd::run(&a),
        Command::Coverage(a) => coverage_cmd::run(&a),
        Command::Decode(a) => decode_cmd::run(&a),
        Command::Reduce(a) => reduce_cmd::run(&a),
        Command::Sim { scenario, hop_latency_ns, json, pcap, pcap_links, plot, no_skip, quiet } => {
            sim(&scenario, hop_latency_ns, json, pcap, &pcap_links, plot, no_skip, quiet)
        }
        Command::Lint(a) => lint_cmd::run(&a),
        Command::Synth(a) => synth_cmd::run(&a),
        Command::SvModels(a) => sv_models::run(&a),
        Command::CheckWave(a) => check_wave::run(&a),
        Command::Vectors(a) => vectors::run(&a),
        Command::MsgHeader => msg_header_cmd::run(),
    }
}

/// [0150]-[0153]: 2 and 16 contexts on one and two masters, serialization-only and realistic.
fn two_masters_all(hop: u64) -> Vec<inswitch_fabric::scenario::TwoMasterResult> {
    use inswitch_fabric::scenario::{two_masters_in, Mode};
    let mut v = Vec::new();
    for mode in [Mode::Serialization, Mode::Realistic] {
        for (c, m) in [(2, 1), (2, 2), (16, 1), (16, 2)] {
            v.push(two_masters_in(c, m, mode, hop));
        }
    }
    v
}

#[allow(clippy::too_many_arguments)]
fn sim(scenario: &str, hop_latency_ns: f64, json: bool, pcap: Option<PathBuf>, pcap_links: &str, plot: Option<PathBuf>, no_skip: bool, quiet: bool) -> ExitCode {
    use inswitch_fabric::report::{self, LinkFilter};
    use inswitch_fabric::scenario::{self as sc, Mode, RunSpec, ScenarioFile};
    use inswitch_fabric::setup::Arrangement;

    // Refuse an unknown plot format before the runs, not after them.
    if let Some(Err(e)) = plot.as_deref().map(inswitch_fabric::plot::PlotFormat::of) {
        eprintln!("inswitch sim: plot {e}");
        return ExitCode::from(2);
    }
    let hop = (hop_latency_ns * 1000.0).round() as u64;
    let bar = if quiet || json { ProgressBar::hidden() } else { ProgressBar::new_spinner() };
    bar.set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("template"));
    let started = Instant::now();
    let progress = |what: &str| {
        let bar = bar.clone();
        let what = what.to_string();
        move |ps: u64| {
            bar.set_message(format!("{what}: simulated {:.3} us", ps as f64 / 1e6));
            bar.tick();
        }
    };
    // One run (file, fig7) or the Table 1 runs; any of them can feed the pcap.
    let mut out = serde_json::Map::new();
    let mut text = String::new();
    let mut capture_spec: Option<RunSpec> = None;
    // Scenarios that build their own fabric hand it over for --pcap.
    let mut captured: Option<inswitch_fabric::sim::Fabric> = None;
    match scenario {
        "table1" => {
            let ser = sc::table1(Mode::Serialization, 0, &mut progress("Table 1, serialization only"));
            let mut real_specs = [Arrangement::Monolithic, Arrangement::Distributed].map(|a| sc::table1_spec(32, 32, a, Mode::Realistic, hop));
            for s in &mut real_specs {
                s.skip_idle = !no_skip;
            }
            let real = real_specs.clone().map(|s| sc::run_collective(&s, &mut progress("Table 1, realistic")).0);
            // The largest flattened butterfly whose monolithic engine fits the CPU's 128-entry PBV: 4 x 32.
            let small = [Arrangement::Monolithic, Arrangement::Distributed].map(|a| {
                let mut s = sc::table1_spec(4, 32, a, Mode::Realistic, hop);
                s.skip_idle = !no_skip;
                sc::run_collective(&s, &mut progress("4 x 32, realistic")).0
            });
            let two = two_masters_all(hop);
            text += &report::table1_text(&ser, Some(&real), hop);
            text += "\nrealistic, where the monolithic engine fits its 128-entry PBV (4 x 32 end nodes):\n";
            for r in &small {
                text += &report::run_line(r);
            }
            out.insert("realistic_4x32".into(), serde_json::to_value(&small).expect("json"));
            text += &report::two_masters_text(&two);
            out.insert("table1_serialization".into(), serde_json::to_value(&ser).expect("json"));
            out.insert("table1_realistic".into(), serde_json::to_value(&real).expect("json"));
            out.insert("two_masters".into(), serde_json::to_value(&two).expect("json"));
            capture_spec = Some(real_specs[1].clone());
        }
        "two-masters" => {
            let two = two_masters_all(hop);
            text += &report::two_masters_text(&two);
            out.insert("two_masters".into(), serde_json::to_value(&two).expect("json"));
            if pcap.is_some() {
                // --pcap captures one of the eight runs: [0153]'s case, 16 contexts on two masters, with
                // the cycle engines (realistic mode), whose frames are real.
                captured = sc::two_masters_captured(16, 2, Mode::Realistic, hop, true).1;
            }
        }
        "scaling" => {
            // --pcap captures the smallest realistic distributed run.
            capture_spec = Some(sc::table1_spec(2, 32, Arrangement::Distributed, Mode::Realistic, hop));
        }
        "portals" => {
            let (r, fabric) = sc::run_portals_captured(hop, pcap.is_some(), &mut progress("portals"));
            captured = fabric;
            text += &r.text();
            out.insert("portals".into(), serde_json::to_value(&r).expect("json"));
            if !r.ok() {
                bar.finish_and_clear();
                print!("{text}");
                eprintln!("inswitch sim: a Portals round is wrong");
                return ExitCode::FAILURE;
            }
        }
        "fig3" => {
            // [0148]: N and M with their own masters; [0153]: M mastered by N's engine as well.
            let (r, fabric) = sc::run_fig3(hop, &mut progress("fig3"));
            captured = fabric;
            let (one, _) = sc::run_fig3_contexts(&sc::FIG3_CONTEXTS_ONE_MASTER, hop, &mut progress("fig3, one master"));
            text += &r.text();
            text += "\n[0153]: context M mastered by collective engine 312 (switch 306) as well\n";
            text += &one.text();
            out.insert("fig3".into(), serde_json::to_value(&r).expect("json"));
            out.insert("fig3_one_master".into(), serde_json::to_value(&one).expect("json"));
            if !r.ok() || !one.ok() {
                bar.finish_and_clear();
                print!("{text}");
                eprintln!("inswitch sim: a FIG. 3 context's result is wrong");
                return ExitCode::FAILURE;
            }
        }
        "jobs" => {
            let mut all = Vec::new();
            let mut failed = false;
            for (topology, jobs) in sc::builtin_jobs() {
                // --pcap captures the first topology's jobs (FIG. 7).
                let (r, fabric) = sc::run_jobs_captured(&topology, &jobs, hop, pcap.is_some() && captured.is_none(), &mut progress("jobs"));
                if captured.is_none() {
                    captured = fabric;
                }
                failed |= r.error.is_some() || r.jobs.iter().any(|j| !j.ok);
                text += &report::jobs_text(&r);
                all.push(r);
            }
            out.insert("jobs".into(), serde_json::to_value(&all).expect("json"));
            if failed {
                bar.finish_and_clear();
                print!("{text}");
                eprintln!("inswitch sim: a job's result is wrong");
                return ExitCode::FAILURE;
            }
        }
        other => {
            let spec = if other == "fig7" {
                ScenarioFile { topology: "fig7".into(), arrangement: Arrangement::Managed, mode: Mode::Realistic, hop_latency_ns: Some(hop_latency_ns), real_frames: true, source: 0, master: None }.spec()
            } else {
                std::fs::read_to_string(other)
                    .map_err(|e| format!("scenario {other:?} is neither a built-in name (table1, two-masters, fig7, fig3, jobs, portals, scaling) nor a readable file: {e}"))
                    .and_then(|t| serde_json::from_str::<ScenarioFile>(&t).map_err(|e| format!("{other}: {e}")))
                    .and_then(|f| f.spec())
            };
            let mut spec = match spec {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("inswitch sim: {e}");
                    return ExitCode::from(2);
                }
            };
            spec.skip_idle = !no_skip;
            let r = sc::run_collective(&spec, &mut progress(other)).0;
            text += &report::run_line(&r);
            out.insert("run".into(), serde_json::to_value(&r).expect("json"));
            capture_spec = Some(spec);
        }
    }
    if let Some(path) = &plot {
        let switches = [2, 4, 8, 16, 32];
        let mut runs = sc::scaling(Mode::Serialization, &switches, 0, &mut progress("scaling, serialization only"));
        runs.extend(sc::scaling(Mode::Realistic, &switches, hop, &mut progress("scaling, realistic")));
        if let Err(e) = inswitch_fabric::plot::latency_vs_endpoints(path, &runs) {
            eprintln!("inswitch sim: plot {}: {e}", path.display());
            return ExitCode::from(2);
        }
        text += &format!("\nplot: {} ({} runs)\n", path.display(), runs.len());
        out.insert("scaling".into(), serde_json::to_value(&runs).expect("json"));
    } else if scenario == "scaling" {
        let runs = sc::scaling(Mode::Serialization, &[2, 4, 8, 16, 32], 0, &mut progress("scaling"));
        for r in &runs {
            text += &report::run_line(r);
        }
        out.insert("scaling".into(), serde_json::to_value(&runs).expect("json"));
    }
    if let Some(path) = &pcap {
        let (fabric, master) = match (captured, capture_spec) {
            (Some(f), _) => (f, None),
            (None, Some(mut spec)) => {
                spec.capture = true;
                spec.skip_idle = !no_skip;
                match sc::run_collective(&spec, &mut progress("capture")).1 {
                    Some(f) => (f, Some(spec.master)),
                    None => {
                        eprintln!("inswitch sim: the captured run could not be built");
                        return ExitCode::from(1);
                    }
                }
            }
            (None, None) => {
                eprintln!("inswitch sim: scenario {scenario:?} has no run to capture");
                return ExitCode::from(2);
            }
        };
        let filter = match (pcap_links, master) {
            ("master", Some(m)) => LinkFilter::SwitchIsls(m),
            ("engines", _) => LinkFilter::Engines,
            ("all", _) => LinkFilter::All,
            _ => LinkFilter::Isls,
        };
        match capture_cmd::write(path, &fabric, filter, pcap_links) {
            Ok(line) => text += &line,
            Err(e) => {
                eprintln!("inswitch sim: pcap {}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
    }
    bar.finish_and_clear();
    if json {
        println!("{}", serde_json::Value::Object(out));
    } else {
        print!("{text}");
        println!("\n{:.2} s wall", started.elapsed().as_secs_f64());
    }
    ExitCode::SUCCESS
}
