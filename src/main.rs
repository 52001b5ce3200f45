//! `inswitch`: command line of the inswitch packet-engine model (see README.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use inswitch::checker::RunConfig;
use inswitch::{hdl, targets};

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
        /// Write every frame on the chosen links to this pcap file (non-flit TLPs, LINKTYPE_USER0).
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// Links for --pcap: master (the ISLs of the master's switch), isls, engines, all.
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
        Command::Decode { kind, pcap, json, write_pcap, hex } => decode(kind.as_deref(), pcap, json, write_pcap, &hex),
        Command::Reduce { op, mode, batch, operands } => reduce(op.as_deref(), &mode, batch, &operands),
        Command::Sim { scenario, hop_latency_ns, json, pcap, pcap_links, plot, no_skip, quiet } => {
            sim(&scenario, hop_latency_ns, json, pcap, &pcap_links, plot, no_skip, quiet)
        }
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
            match t.run(&cfg, &mut |n| bar.inc(n)) {
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
    println!("{:<20} {:>6} {:>10} {:>12}  events", "target", "seed", "cycles", "cycles/s");
    let mut all_cycles = 0;
    for (name, s, o, dt) in &rows {
        all_cycles += o.cycles;
        let events: Vec<String> = o.counters.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("{:<20} {:>6} {:>10} {:>12.0}  {}", name, s, o.cycles, o.cycles as f64 / dt.as_secs_f64(), events.join(" "));
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
        "cosim: matched {all_cycles} cycles, {} targets x {seeds} seeds, 0 mismatches ({:.1} s)",
        selected.len(),
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

fn decode(kind: Option<&str>, pcap: Option<PathBuf>, json: bool, write_pcap: Option<PathBuf>, hex: &[String]) -> ExitCode {
    use inswitch_frames::decode::{self as d, FrameKind};
    use inswitch_frames::pcap as p;
    let fail = |what: String| {
        eprintln!("decode: {what}");
        ExitCode::FAILURE
    };
    let given_kind = match kind.map(str::parse::<FrameKind>).transpose() {
        Ok(k) => k,
        Err(e) => return fail(e.to_string()),
    };
    let (kind, frames): (FrameKind, Vec<Vec<u8>>) = match &pcap {
        Some(path) => {
            let file = match std::fs::File::open(path) {
                Ok(f) => f,
                Err(e) => return fail(format!("{}: {e}", path.display())),
            };
            let cap = match p::read_pcap(std::io::BufReader::new(file)) {
                Ok(c) => c,
                Err(e) => return fail(format!("{}: {e}", path.display())),
            };
            let Some(kind) = given_kind.or(cap.kind()) else {
                return fail(format!("{}: link type {} is not one of ours: give --kind", path.display(), cap.linktype));
            };
            (kind, cap.records.into_iter().map(|r| r.data).collect())
        }
        None => {
            let Some(kind) = given_kind else { return fail("give --kind with hex frames".into()) };
            let mut frames = Vec::new();
            for h in hex {
                match d::parse_hex(h) {
                    Ok(b) => frames.push(b),
                    Err(e) => return fail(format!("{h:?}: {e}")),
                }
            }
            (kind, frames)
        }
    };
    if frames.is_empty() {
        return fail("no frames: give hex arguments or --pcap".into());
    }
    let mut status = ExitCode::SUCCESS;
    for (n, bytes) in frames.iter().enumerate() {
        let shown = if json { d::render_json(kind, bytes).map(|v| v.to_string()) } else { d::render_text(kind, bytes) };
        match shown {
            Ok(text) => println!("{}{text}", if json || frames.len() == 1 { String::new() } else { format!("Frame {n}:\n") }),
            Err(e) => {
                // A malformed frame is reported and the others are still decoded.
                eprintln!("frame {n}: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    if let Some(out) = write_pcap {
        let records: Vec<p::Record> = frames
            .into_iter()
            .enumerate()
            .map(|(n, data)| p::Record { timestamp: std::time::Duration::from_micros(n as u64), data })
            .collect();
        let written = std::fs::File::create(&out).map_err(|e| e.to_string()).and_then(|f| p::write_pcap(f, kind, &records).map(|_| ()).map_err(|e| e.to_string()));
        if let Err(e) = written {
            return fail(format!("{}: {e}", out.display()));
        }
    }
    status
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
        }
        "scaling" => {}
        "portals" => {
            let r = sc::run_portals(hop, &mut progress("portals"));
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
            let (r, _) = sc::run_fig3(hop, &mut progress("fig3"));
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
                let r = sc::run_jobs(&topology, &jobs, hop, &mut progress("jobs"));
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
        let Some(mut spec) = capture_spec else {
            eprintln!("inswitch sim: --pcap needs a scenario with one collective run (table1 captures its realistic distributed run)");
            return ExitCode::from(2);
        };
        spec.capture = true;
        let (_, fabric) = sc::run_collective(&spec, &mut progress("capture"));
        let Some(fabric) = fabric else {
            eprintln!("inswitch sim: the captured run could not be built");
            return ExitCode::from(1);
        };
        let filter = match pcap_links {
            "isls" => LinkFilter::Isls,
            "engines" => LinkFilter::Engines,
            "all" => LinkFilter::All,
            _ => LinkFilter::SwitchIsls(spec.master),
        };
        let written = std::fs::File::create(path).map_err(|e| e.to_string()).and_then(|f| report::write_links_pcap(std::io::BufWriter::new(f), &fabric, filter).map_err(|e| e.to_string()));
        match written {
            Ok(n) => text += &format!("pcap: {} ({n} frames on {pcap_links} links)\n", path.display()),
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
