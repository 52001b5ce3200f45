//! `inswitch sim`: runs a built-in scenario (`inswitch_fabric::builtin`, which decides what each one
//! runs and reports) or a JSON scenario file, prints its report (text or one JSON document), and writes
//! the plot and pcap outputs. docs/fabric.md.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::builder::{PossibleValue, TypedValueParser};
use indicatif::{ProgressBar, ProgressStyle};
use inswitch_fabric::builtin::{self, Builtin, Capture, Options, Outcome};
use inswitch_fabric::report::LinkFilter;
use inswitch_fabric::scenario::{self as sc, ScenarioFile};

use crate::capture_cmd;

/// Arguments of `inswitch sim`.
#[derive(clap::Args)]
pub struct SimArgs {
    /// A built-in scenario, or a JSON scenario file (docs/fabric.md §Scenario files).
    #[arg(long, default_value = builtin::DEFAULT, value_parser = ScenarioParser)]
    scenario: Scenario,
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
    /// Links for --pcap.
    #[arg(long, value_enum, default_value_t = PcapLinks::Master)]
    pcap_links: PcapLinks,
    /// Write a plot of latency vs end nodes (monolithic vs distributed) here, SVG or PNG by the
    /// extension (.svg, .png); runs the scaling scenario. Needs the font of fonts-dejavu-core.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// With `--scenario scaling`: one realistic all-reduce (hierarchical plan, cycle engines, result
    /// checked at every end node) on a flattened butterfly of this many end nodes, instead of the
    /// serialization-only series; up to 64512 with `--per-switch 63` (every 16-bit device ID).
    #[arg(long)]
    end_nodes: Option<usize>,
    /// End nodes per switch for `--end-nodes` (only read with it).
    #[arg(long, default_value_t = 32)]
    per_switch: usize,
    /// Step every engine on every cycle (no idle-cycle skipping; same results, slower).
    #[arg(long)]
    no_skip: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// The links `--pcap` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PcapLinks {
    /// The ISLs of the master's switch (every ISL for the scenarios that build their own fabric:
    /// two-masters, portals, fig3, jobs).
    Master,
    /// Every ISL.
    Isls,
    /// The engines' crossbar ports.
    Engines,
    /// Every link.
    All,
}

impl PcapLinks {
    /// Its name on the command line (as the report line says it).
    fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self).expect("no variant is skipped").get_name().to_string()
    }
}

/// A scenario named on the command line.
#[derive(Clone)]
enum Scenario {
    /// A built-in one.
    Builtin(&'static Builtin),
    /// A scenario file: its path and text.
    File { path: String, text: String },
}

/// Parses `--scenario`: a built-in name ([`builtin::BUILTINS`], which `--help` lists) or a readable
/// file; anything else is a usage error.
#[derive(Clone)]
struct ScenarioParser;

impl TypedValueParser for ScenarioParser {
    type Value = Scenario;

    fn parse_ref(&self, cmd: &clap::Command, _arg: Option<&clap::Arg>, value: &OsStr) -> Result<Scenario, clap::Error> {
        let name = value.to_string_lossy();
        if let Some(b) = builtin::find(&name) {
            return Ok(Scenario::Builtin(b));
        }
        match std::fs::read_to_string(value) {
            Ok(text) => Ok(Scenario::File { path: name.into_owned(), text }),
            Err(e) => {
                let msg = format!("scenario {name:?} is neither a built-in name ({}) nor a readable file: {e}\n", builtin::names());
                Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, msg).with_cmd(cmd))
            }
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(builtin::BUILTINS.iter().map(|b| PossibleValue::new(b.name).help(b.about))))
    }
}

/// Runs `inswitch sim`: exit status 0, 1 when a result is wrong or an output cannot be written, 2 on a
/// usage error.
pub fn run(args: &SimArgs) -> ExitCode {
    // Refuse an unknown plot format before the runs, not after them.
    if let Some(Err(e)) = args.plot.as_deref().map(inswitch_fabric::plot::PlotFormat::of) {
        eprintln!("inswitch sim: plot {e}");
        return ExitCode::from(2);
    }
    let size = args.end_nodes.map(|end_nodes| builtin::FabricSize { end_nodes, per_switch: args.per_switch });
    if size.is_some() && !matches!(&args.scenario, Scenario::Builtin(b) if b.name == "scaling") {
        eprintln!("inswitch sim: --end-nodes sizes the scaling scenario only");
        return ExitCode::from(2);
    }
    let opts = Options { hop_latency_ns: args.hop_latency_ns, skip_idle: !args.no_skip, capture: args.pcap.is_some(), plot: args.plot.is_some(), size };
    let bar = if args.quiet || args.json { ProgressBar::hidden() } else { ProgressBar::new_spinner() };
    bar.set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("template"));
    let started = Instant::now();
    let mut progress = |what: &str, ps: u64| {
        bar.set_message(format!("{what}: simulated {:.3} us", ps as f64 / 1e6));
        bar.tick();
    };
    let outcome = match &args.scenario {
        Scenario::Builtin(b) => (b.run)(&opts, &mut progress),
        Scenario::File { path, text } => serde_json::from_str::<ScenarioFile>(text)
            .map_err(|e| format!("{path}: {e}"))
            .and_then(|file| builtin::run_file(&file, path, &opts, &mut progress)),
    };
    let Outcome { mut text, json, failure, capture } = match outcome {
        Ok(o) => o,
        Err(e) => {
            eprintln!("inswitch sim: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(why) = failure {
        bar.finish_and_clear();
        print!("{text}");
        eprintln!("inswitch sim: {why}");
        return ExitCode::FAILURE;
    }
    let mut out: serde_json::Map<String, serde_json::Value> = json.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    if let Some(path) = &args.plot {
        let runs = builtin::scaling_for_plot(&opts, &mut progress);
        if let Err(e) = inswitch_fabric::plot::latency_vs_endpoints(path, &runs) {
            eprintln!("inswitch sim: plot {}: {e}", path.display());
            return ExitCode::from(2);
        }
        text += &format!("\nplot: {} ({} runs)\n", path.display(), runs.len());
        out.insert("scaling".into(), serde_json::to_value(&runs).expect("json"));
    }
    if let Some(path) = &args.pcap {
        let (fabric, master) = match capture {
            Capture::Fabric(f) => (f, None),
            Capture::Rerun(mut spec) => {
                spec.capture = true;
                spec.skip_idle = opts.skip_idle;
                match sc::run_collective(&spec, &mut |ps| progress("capture", ps)).1 {
                    Some(f) => (Box::new(f), Some(spec.master)),
                    None => {
                        eprintln!("inswitch sim: the captured run could not be built");
                        return ExitCode::from(1);
                    }
                }
            }
            Capture::Nothing => {
                let name = match &args.scenario {
                    Scenario::Builtin(b) => b.name.to_string(),
                    Scenario::File { path, .. } => path.clone(),
                };
                eprintln!("inswitch sim: scenario {name:?} has no run to capture");
                return ExitCode::from(2);
            }
        };
        let filter = match (args.pcap_links, master) {
            (PcapLinks::Master, Some(m)) => LinkFilter::SwitchIsls(m),
            (PcapLinks::Engines, _) => LinkFilter::Engines,
            (PcapLinks::All, _) => LinkFilter::All,
            _ => LinkFilter::Isls,
        };
        match capture_cmd::write(path, &fabric, filter, &args.pcap_links.name()) {
            Ok(line) => text += &line,
            Err(e) => {
                eprintln!("inswitch sim: pcap {}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
    }
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::Value::Object(out));
    } else {
        print!("{text}");
        println!("\n{:.2} s wall", started.elapsed().as_secs_f64());
    }
    ExitCode::SUCCESS
}
