//! `inswitch coverage`: RTL line coverage of the lockstep stimulus (issue 13 point 3). Needs a binary
//! built with `--features coverage` (build.rs verilates the models with `--coverage-line`); runs the
//! chosen targets x seeds like `inswitch cosim` (every run still compared), each Verilated model writing
//! its counts to its own file, then merges them (docs/verification.md §RTL code coverage).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use inswitch::coverage;
use inswitch::regress::{self, PoolConfig, Source};

/// Options of `inswitch coverage`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Block to run, a single target (e.g. `output_queue_w64`), or `all`.
    #[arg(long, default_value = "all")]
    pub block: String,
    /// Only the targets of this data width (bits).
    #[arg(long)]
    pub width: Option<u32>,
    /// First stimulus seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of seeds, from --seed upwards.
    #[arg(long, default_value_t = 1)]
    pub seeds: u64,
    /// Cycles per target and seed.
    #[arg(long, default_value_t = 100_000)]
    pub cycles: u64,
    /// Output directory: dat/ (one file per model instance), merged.dat, coverage.info (lcov),
    /// annotated/ (sources with counts), html/ (genhtml).
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads (default: the available cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Fail (exit 1) when a module's line coverage is below its floor in this file (`module percent`
    /// per line).
    #[arg(long)]
    pub floors: Option<PathBuf>,
    /// Skip the HTML report (genhtml).
    #[arg(long)]
    pub no_html: bool,
}

fn fail(code: u8, what: String) -> ExitCode {
    eprintln!("inswitch coverage: {what}");
    ExitCode::from(code)
}

/// Runs `inswitch coverage`.
pub fn run(a: &Args) -> ExitCode {
    if !inswitch::verilated::COVERAGE_BUILD {
        return fail(
            2,
            "this binary's models count no coverage: build it with the coverage feature, e.g. \
             `cargo run --release --features coverage -- coverage ...`"
                .into(),
        );
    }
    let selected = regress::select(&a.block, a.width);
    if selected.is_empty() {
        return fail(2, format!("no target for block {} at width {:?} (one of: {})", a.block, a.width, regress::block_choices().join(", ")));
    }
    let floors = match &a.floors {
        Some(p) => match std::fs::read_to_string(p).map_err(|e| e.to_string()).and_then(|t| coverage::parse_floors(&t)) {
            Ok(f) => Some(f),
            Err(e) => return fail(2, format!("floors {}: {e}", p.display())),
        },
        None => None,
    };
    let dat = a.out.join("dat");
    // Stale counts of an earlier run would be merged in: start empty.
    let _ = std::fs::remove_dir_all(&dat);
    if let Err(e) = std::fs::create_dir_all(&dat) {
        return fail(2, format!("{}: {e}", dat.display()));
    }
    let seeds: Vec<u64> = (0..a.seeds).map(|i| a.seed.wrapping_add(i)).collect();
    let jobs = regress::jobs(&selected, &seeds);
    let threads = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let cfg = PoolConfig { threads, keep_going: true, cycles: a.cycles, wave_dir: a.out.join("waves"), coverage_dir: Some(dat.clone()), shrink: false };
    let started = Instant::now();
    let results = regress::run(&Source::Fixed(jobs), &cfg, &|_| {}, &|r| {
        if let Err(report) = &r.result {
            eprintln!("{report}");
        }
    });
    let run_time = started.elapsed();
    let info = match coverage::merge(&dat, &a.out, !a.no_html) {
        Ok(i) => i,
        Err(e) => return fail(2, e),
    };
    let text = match std::fs::read_to_string(&info) {
        Ok(t) => t,
        Err(e) => return fail(2, format!("{}: {e}", info.display())),
    };
    let cov = coverage::parse_lcov(&text);
    println!(
        "coverage: {} targets x {} seeds x {} cycles in {:.1} s ({} jobs); lcov {}{}",
        selected.len(),
        seeds.len(),
        a.cycles,
        run_time.as_secs_f64(),
        threads,
        info.display(),
        if a.no_html { String::new() } else { format!(", HTML {}", a.out.join("html/index.html").display()) }
    );
    println!("{:<22} {:>7} {:>7} {:>8}  uncovered lines", "module", "lines", "hit", "line %");
    for (m, c) in &cov {
        let shown: Vec<String> = c.uncovered.iter().take(24).map(u64::to_string).collect();
        let more = if c.uncovered.len() > 24 { format!(" ... (+{})", c.uncovered.len() - 24) } else { String::new() };
        println!("{m:<22} {:>7} {:>7} {:>7.1}%  {}{more}", c.found, c.hit, c.percent(), shown.join(" "));
    }
    let mut code = regress::exit_code(&results);
    if let Some(floors) = floors {
        let broken = coverage::check_floors(&cov, &floors);
        for (m, floor, got) in &broken {
            match got {
                Some(p) => eprintln!("coverage FLOOR: {m} line coverage {p:.1}% is below its floor {floor}%"),
                None => eprintln!("coverage FLOOR: {m} has no coverage data (floor {floor}%): was it run?"),
            }
        }
        if broken.is_empty() {
            println!("coverage floors: all {} met", floors.len());
        } else {
            code = code.max(1);
        }
    }
    ExitCode::from(code)
}
