//! `inswitch goodput`: the fault campaign swept over drop rates (issue 20, `inswitch_fabric::goodput`):
//! prints the goodput table (success rate per class, outcomes, retries, time to complete against the
//! fault-free run) and writes the plot. docs/fabric.md §Goodput.

use std::path::PathBuf;
use std::process::ExitCode;

use inswitch_fabric::goodput::{self, GoodputRow};

/// Arguments of `inswitch goodput`.
#[derive(clap::Args)]
pub struct Args {
    /// Reductions per drop rate (and in the fault-free reference run); the documented sweep runs 10000.
    #[arg(long, default_value_t = 10_000)]
    reductions: usize,
    /// Seed of the faults and of every random choice (hex with 0x, or decimal).
    #[arg(long, default_value = "0x5eedfa17", value_parser = parse_seed)]
    seed: u64,
    /// Drop rates per frame per link, in percent, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = goodput::DROP_RATES.map(|d| d * 100.0))]
    drop_percent: Vec<f64>,
    /// Write the plot here (.svg or .png). Needs the font of fonts-dejavu-core.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Recovery: per-packet (ordered timeouts, end-node and START retries; the default) or the fault
    /// campaign's timers (the "before" of docs/fabric.md §Goodput).
    #[arg(long, value_enum, default_value_t = RecoveryArg::PerPacket)]
    recovery: RecoveryArg,
    /// Also print the diagnosis: per drop rate and class, the failed reductions by the first fault on
    /// their frames (which fault, which message, between which roles), the most frequent first.
    #[arg(long)]
    explain: bool,
    /// Print one JSON document (the fault-free row and every drop rate's) instead of the table.
    #[arg(long)]
    json: bool,
}

/// `--recovery`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum RecoveryArg {
    /// Timeouts ordered so lower levels retry first, end-node and START retries (issue 20 item 2).
    PerPacket,
    /// The fault campaign's timers (tests/faults.rs).
    Campaign,
}

/// Causes listed per class by `--explain`.
const EXPLAIN_TOP: usize = 12;

fn parse_seed(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => s.replace('_', "").parse(),
    };
    r.map_err(|e| format!("{s}: not a number ({e})"))
}

/// Runs the sweep; exit status 0, 1 if a guarantee broke (a wrong result, a round left open, a leaked
/// descriptor, a failure without a cause), 2 on a usage or plot error.
pub fn run(a: &Args) -> ExitCode {
    if let Some(bad) = a.drop_percent.iter().find(|&&d| !(0.0..=100.0).contains(&d)) {
        eprintln!("--drop-percent {bad}: a rate in percent, 0 to 100");
        return ExitCode::from(2);
    }
    // A plot path with the wrong extension is a usage error before the minutes of the sweep, not after.
    if let Some(Err(e)) = a.plot.as_deref().map(inswitch_fabric::plot::PlotFormat::of) {
        eprintln!("--plot {e}");
        return ExitCode::from(2);
    }
    let drops: Vec<f64> = a.drop_percent.iter().map(|d| d / 100.0).collect();
    let quiet = a.json;
    let recovery = match a.recovery {
        RecoveryArg::PerPacket => goodput::Recovery::PerPacket,
        RecoveryArg::Campaign => goodput::Recovery::Campaign,
    };
    let (base, rows) = goodput::sweep(a.seed, a.reductions, &drops, recovery, &mut |r: &GoodputRow| {
        if !quiet {
            eprintln!("drop {:.1} %: {} reductions in {:.1} s", r.drop * 100.0, r.classes().iter().map(|(_, c)| c.n).sum::<usize>(), r.wall_s);
        }
    });
    if a.json {
        let doc = serde_json::json!({ "seed": a.seed, "reductions": a.reductions, "recovery": recovery, "fault_free": base, "rows": rows });
        println!("{}", serde_json::to_string_pretty(&doc).expect("json"));
    } else {
        println!("goodput sweep, seed {:#x}, {} reductions per point, recovery {recovery:?}\n", a.seed, a.reductions);
        print!("{}", goodput::table(&base, &rows));
        if a.explain {
            println!("\nfailed reductions by first cause (top {EXPLAIN_TOP} per class):\n");
            print!("{}", goodput::explain_table(&rows, EXPLAIN_TOP));
        }
    }
    if let Some(p) = &a.plot {
        if let Err(e) = inswitch_fabric::plot::goodput_vs_drop(p, &base, &rows) {
            eprintln!("plot: {e}");
            return ExitCode::from(2);
        }
        if !quiet {
            println!("plot written to {}", p.display());
        }
    }
    let broken: Vec<&GoodputRow> = std::iter::once(&base).chain(&rows).filter(|r| r.stuck + r.leaked + r.unexplained > 0 || r.classes().iter().any(|(_, c)| c.wrong > 0)).collect();
    if broken.is_empty() {
        ExitCode::SUCCESS
    } else {
        for r in broken {
            eprintln!("drop {:.1} %: a guarantee broke: stuck {} leaked {} unexplained {} wrong {}", r.drop * 100.0, r.stuck, r.leaked, r.unexplained, r.classes().iter().map(|(_, c)| c.wrong).sum::<usize>());
            for line in &r.stuck_first {
                eprintln!("  open: {line}");
            }
        }
        ExitCode::FAILURE
    }
}
