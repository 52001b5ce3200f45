//! `inswitch cosim`: the lockstep regression as CI runs it (issue 13): parallel jobs, shards, JUnit and
//! JSON reports, seeds files, soak runs against a time budget. The jobs themselves run in
//! `inswitch::regress` (verif/regress.rs); this module parses the command line and prints.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use inswitch::regress::{self, JobResult, PoolConfig, RunInfo, Shard, Source};

/// Exit statuses (docs/verification.md §Regression at scale).
const EXIT_USAGE: u8 = 2;

/// Options of `inswitch cosim`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Block to run, a single target (e.g. `output_queue_w64`), or `all`.
    #[arg(long, default_value = "all", value_parser = block_names())]
    pub block: String,
    /// Only the targets of this data width (bits), for blocks built at several widths.
    #[arg(long)]
    pub width: Option<u32>,
    /// First stimulus seed (default 1; a soak run without it starts at a random seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of seeds, from --seed upwards.
    #[arg(long, default_value_t = 4, conflicts_with = "seeds_file")]
    pub seeds: u64,
    /// Read the seeds from this file instead (one per line, decimal or 0x hex, `#` comments).
    #[arg(long, conflicts_with = "seed")]
    pub seeds_file: Option<PathBuf>,
    /// Cycles per target and seed.
    #[arg(long, default_value_t = 1_000_000)]
    pub cycles: u64,
    /// Where failure waveforms (FST) are written.
    #[arg(long, default_value = "cosim-out")]
    pub wave_dir: PathBuf,
    /// Worker threads, each running one target x seed at a time with its own models (default: the
    /// available cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run every target x seed and report every failure (default: no new run starts after the first
    /// failure).
    #[arg(long)]
    pub keep_going: bool,
    /// Run only shard K of N (1-based) of the target x seed list: the N shards are disjoint and together
    /// the whole list, so N machines with K = 1..N run everything once.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Write JUnit XML here: one testcase per target x seed (classname = target, name = `seed N`).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print one JSON summary on stdout instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Soak: keep starting fresh seeds (every target at each) until this many seconds have passed, then
    /// let the running jobs finish. Replaces --seeds.
    #[arg(long, value_name = "SECONDS", conflicts_with_all = ["seeds_file"])]
    pub time_budget: Option<f64>,
    /// Do not shrink a mismatch's input trace (shrinking replays the failing run many times, up to
    /// ~4·10^7 cycles, and writes `<target>-seed<seed>-cycle<cycle>.trace.json` beside the waveform).
    #[arg(long)]
    pub no_shrink: bool,
    /// Replay a (shrunk) input trace written by a failing run instead of running seeds: model and RTL
    /// compared on every cycle of the trace (no scoreboard), a waveform on mismatch.
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// Print every hit bin of the cross coverage, not only its summary, exclusions and holes (the JSON
    /// summary always carries every bin).
    #[arg(long)]
    pub cross_bins: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

fn block_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(regress::block_choices())
}

/// A seed nobody chose: the soak's starting point when `--seed` is not given (printed, so a soak is
/// reproducible from its log).
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish()
}

fn usage(what: String) -> ExitCode {
    eprintln!("inswitch cosim: {what}");
    ExitCode::from(EXIT_USAGE)
}

/// `inswitch cosim --replay FILE`.
fn replay(path: &std::path::Path, wave_dir: PathBuf) -> ExitCode {
    let (name, seed) = match inswitch::shrink::trace_target(path) {
        Ok(t) => t,
        Err(e) => return usage(format!("--replay: {e}")),
    };
    let Some(target) = inswitch::targets::TARGETS.iter().find(|t| t.name == name) else {
        return usage(format!("--replay {}: no target named {name}", path.display()));
    };
    let options = inswitch::checker::RunOptions { shrink: false, replay: Some(path.to_path_buf()) };
    let cfg = inswitch::checker::RunConfig { seed, cycles: 0, wave_dir };
    match inswitch::checker::with_options(options, || target.run(&cfg, &mut |_| {})) {
        Ok(o) => {
            println!("cosim --replay: {name}: matched {} replayed cycles, 0 mismatches", o.cycles);
            ExitCode::SUCCESS
        }
        Err(report) => {
            eprintln!("{report}");
            ExitCode::from(if matches!(report, inswitch::checker::RunError::Setup { .. }) { EXIT_USAGE } else { 1 })
        }
    }
}

/// Runs `inswitch cosim`.
pub fn run(a: &Args) -> ExitCode {
    if let Some(path) = &a.replay {
        return replay(path, a.wave_dir.clone());
    }
    let selected = regress::select(&a.block, a.width);
    if selected.is_empty() {
        return usage(format!("no cosim target for block {} at width {:?}", a.block, a.width));
    }
    let threads = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return usage("--jobs must be at least 1".into());
    }
    let source = if let Some(secs) = a.time_budget {
        if !(secs.is_finite() && secs > 0.0) {
            return usage(format!("--time-budget {secs}: give a positive number of seconds"));
        }
        let first_seed = a.seed.unwrap_or_else(fresh_seed);
        if !a.json {
            println!("soak: {secs} s budget, fresh seeds from {first_seed} ({first_seed:#x}) upwards");
        }
        Source::Soak { targets: selected.clone(), first_seed, shard: a.shard, budget: Duration::from_secs_f64(secs) }
    } else {
        let seeds = match &a.seeds_file {
            Some(path) => match std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| regress::parse_seeds(&t)) {
                Ok(s) => s,
                Err(e) => return usage(format!("seeds file {}: {e}", path.display())),
            },
            None => {
                let first = a.seed.unwrap_or(1);
                (0..a.seeds).map(|i| first.wrapping_add(i)).collect()
            }
        };
        let all = regress::jobs(&selected, &seeds);
        let mine = regress::shard_jobs(&all, a.shard);
        if let Some(s) = a.shard {
            if !a.json {
                println!("shard {}/{}: {} of {} target x seed runs", s.index, s.count, mine.len(), all.len());
            }
        }
        Source::Fixed(mine)
    };

    let total = match &source {
        Source::Fixed(list) => Some(list.len() as u64 * a.cycles),
        Source::Soak { .. } => None,
    };
    let bar = if a.quiet || a.json {
        ProgressBar::hidden()
    } else {
        total.map_or_else(ProgressBar::new_spinner, ProgressBar::new)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} cycles ({per_sec}) {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let cfg = PoolConfig { threads, keep_going: a.keep_going, cycles: a.cycles, wave_dir: a.wave_dir.clone(), coverage_dir: None, shrink: !a.no_shrink };
    let started = Instant::now();
    let done = |r: &JobResult| {
        if let Err(report) = &r.result {
            bar.suspend(|| eprintln!("{report}"));
        }
        bar.set_message(format!("{} seed {} {}", r.target, r.seed, r.status()));
    };
    let results = regress::run(&source, &cfg, &|n| bar.inc(n), &done);
    bar.finish_and_clear();
    let wall = started.elapsed();

    let info = RunInfo { cycles: a.cycles, shard: a.shard, command: std::env::args().collect::<Vec<_>>().join(" ") };
    if let Some(path) = &a.junit {
        if let Err(e) = std::fs::write(path, regress::junit_xml(&results, &info)) {
            return usage(format!("--junit {}: {e}", path.display()));
        }
    }
    let code = regress::exit_code(&results);
    if a.json {
        println!("{}", regress::json_summary(&results, &info, wall));
    } else {
        print_tables(&results);
        for c in regress::merged_cross(&results) {
            print!("{}", c.report(a.cross_bins));
        }
        let seeds: Vec<String> = regress::seeds_used(&results).iter().map(u64::to_string).collect();
        println!("seeds used: {}", seeds.join(" "));
        let failed = results.iter().filter(|r| r.result.is_err()).count();
        let cycles: u64 = results.iter().filter_map(|r| r.result.as_ref().ok()).map(|o| o.cycles).sum();
        let targets_run = results.iter().map(|r| r.target).collect::<std::collections::BTreeSet<_>>().len();
        if failed == 0 {
            println!(
                "cosim: matched {cycles} cycles, {targets_run} targets x {} seeds, 0 mismatches ({:.1} s, {threads} jobs)",
                seeds.len(),
                wall.as_secs_f64()
            );
        } else {
            println!(
                "cosim: {failed} of {} runs FAILED, {cycles} cycles matched in the others ({:.1} s, {threads} jobs){}",
                results.len(),
                wall.as_secs_f64(),
                if a.keep_going { "" } else { "; stopped at the first failure (--keep-going runs everything)" }
            );
        }
    }
    ExitCode::from(code)
}

fn print_tables(results: &[JobResult]) {
    println!("{:<20} {:>6} {:>10} {:>12}  events", "target", "seed", "cycles", "cycles/s");
    for r in results {
        match &r.result {
            Ok(o) => {
                let events: Vec<String> = o.counters.iter().map(|(k, v)| format!("{k}={v}")).collect();
                println!("{:<20} {:>6} {:>10} {:>12.0}  {}", r.target, r.seed, o.cycles, o.cycles as f64 / r.elapsed.as_secs_f64(), events.join(" "));
            }
            Err(inswitch::checker::RunError::Failed(rep)) => {
                println!("{:<20} {:>6} {:>10} {:>12}  {}", r.target, r.seed, rep.failure.cycle(), "FAILED", rep.failure.summary())
            }
            Err(e) => println!("{:<20} {:>6} {:>10} {:>12}  {}", r.target, r.seed, "-", "ERROR", e.summary()),
        }
    }
    // Functional coverage: every counter of every run, four to a line.
    for r in results {
        let Ok(o) = &r.result else { continue };
        println!("coverage {} seed {}:", r.target, r.seed);
        for chunk in o.counters.chunks(4) {
            let cells: Vec<String> = chunk.iter().map(|(k, v)| format!("{k:<28} {v:>9}")).collect();
            println!("  {}", cells.join("  "));
        }
    }
}
