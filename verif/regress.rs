//! Regression at scale (issue 13, `inswitch cosim` in CI): the target x seed job list, its split into
//! shards, a pool of worker threads that runs the jobs, and the results as JUnit XML and JSON.
//!
//! Every job builds its own Rust model and its own Verilated model inside the worker thread that runs
//! it; every Verilated model has its own `VerilatedContext` (verif/shim/inswitch_shim.h), which is what
//! Verilator 5 asks for models evaluated in parallel threads. Nothing else is shared between jobs but the
//! progress counter, so a job's result does not depend on `--jobs` (tests/cosim_regress.rs checks that).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use quick_xml::escape::escape;

use crate::checker::{Failure, Outcome, RunConfig, RunError};
use crate::targets::Target;

/// Shard `index` of `count` (`--shard K/N`, 1-based like SLURM array tasks and GitHub matrices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1 ..= count.
    pub index: u32,
    /// Number of shards, at least 1.
    pub count: u32,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s.split_once('/').ok_or_else(|| format!("shard {s:?} is not K/N (e.g. 2/8)"))?;
        let index: u32 = k.trim().parse().map_err(|_| format!("shard index {k:?} is not a number"))?;
        let count: u32 = n.trim().parse().map_err(|_| format!("shard count {n:?} is not a number"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard {index}/{count}: need 1 <= K <= N"));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether this shard runs the job at `position` in the canonical job list. Round robin: each shard
    /// takes every N-th job, so the shards are disjoint, together complete, and each gets a similar mix
    /// of fast and slow targets.
    pub fn owns(self, position: usize) -> bool {
        position % self.count as usize == (self.index - 1) as usize
    }
}

/// One run: a target at one seed.
#[derive(Clone, Copy)]
pub struct Job {
    /// What runs.
    pub target: &'static Target,
    /// Its stimulus seed.
    pub seed: u64,
}

/// The targets of `--block`: a block name or `all` ([`crate::targets::select`]), or one target by its
/// name (`output_queue_w64`).
pub fn select(block_or_target: &str, width: Option<u32>) -> Vec<&'static Target> {
    let by_block = crate::targets::select(block_or_target, width);
    if !by_block.is_empty() {
        return by_block;
    }
    crate::targets::TARGETS.iter().filter(|t| t.name == block_or_target && width.is_none_or(|w| t.width == Some(w))).collect()
}

/// `all`, the block names and the target names: what `--block` accepts.
pub fn block_choices() -> Vec<&'static str> {
    let mut names = vec!["all"];
    names.extend(crate::targets::blocks());
    for t in crate::targets::TARGETS.iter() {
        if !names.contains(&t.name) {
            names.push(t.name);
        }
    }
    names
}

/// The canonical job list: target-major (every seed of the first target, then the next target), the
/// order in which `--shard` counts positions.
pub fn jobs(targets: &[&'static Target], seeds: &[u64]) -> Vec<Job> {
    targets.iter().flat_map(|&target| seeds.iter().map(move |&seed| Job { target, seed })).collect()
}

/// The jobs of `shard` (all of them without one), in canonical order.
pub fn shard_jobs(all: &[Job], shard: Option<Shard>) -> Vec<Job> {
    all.iter().enumerate().filter(|(i, _)| shard.is_none_or(|s| s.owns(*i))).map(|(_, j)| *j).collect()
}

/// Reads a seeds file: one seed per line, decimal or `0x` hex; `#` starts a comment; blank lines ignored.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let mut seeds = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let parsed = match line.strip_prefix("0x").or_else(|| line.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16),
            None => line.replace('_', "").parse(),
        };
        seeds.push(parsed.map_err(|_| format!("line {}: {line:?} is not a seed (decimal or 0x hex)", n + 1))?);
    }
    if seeds.is_empty() {
        return Err("no seeds in the file".into());
    }
    Ok(seeds)
}

/// Where the jobs come from.
pub enum Source {
    /// A fixed list.
    Fixed(Vec<Job>),
    /// A soak: fresh seeds from `first_seed` upwards, every target at each, this shard's share, started
    /// until `budget` has passed since the start (running jobs finish).
    Soak {
        /// The targets.
        targets: Vec<&'static Target>,
        /// First seed.
        first_seed: u64,
        /// This machine's shard.
        shard: Option<Shard>,
        /// No job starts after this much time.
        budget: Duration,
    },
}

/// The outcome of one job.
pub struct JobResult {
    /// Position in the job list (a soak's: the order the jobs were started); results are returned sorted by it.
    pub position: usize,
    /// Target name.
    pub target: &'static str,
    /// Seed.
    pub seed: u64,
    /// What happened.
    pub result: Result<Outcome, RunError>,
    /// Wall time of the job.
    pub elapsed: Duration,
}

impl JobResult {
    /// `passed`, `mismatch`, `scoreboard` or `error` (the bench could not be built).
    pub fn status(&self) -> &'static str {
        match &self.result {
            Ok(_) => "passed",
            Err(RunError::Setup { .. }) => "error",
            Err(RunError::Failed(r)) => match r.failure {
                Failure::Mismatch(_) => "mismatch",
                Failure::Scoreboard { .. } => "scoreboard",
            },
        }
    }
}

/// How the pool runs.
#[derive(Clone, Debug)]
pub struct PoolConfig {
    /// Worker threads.
    pub threads: usize,
    /// Run every job even after a failure; otherwise no job starts after the first failure.
    pub keep_going: bool,
    /// Cycles per job.
    pub cycles: u64,
    /// Failure waveforms go here.
    pub wave_dir: PathBuf,
    /// Each Verilated model writes its coverage counts here when dropped (`inswitch coverage`, a
    /// coverage build).
    pub coverage_dir: Option<PathBuf>,
    /// Shrink every mismatch's input trace ([`crate::checker::RunOptions::shrink`]).
    pub shrink: bool,
}

/// Runs the jobs on `cfg.threads` worker threads. `progress` gets cycles done (from any thread), `done`
/// every finished job as it finishes. Returns the results in job order.
pub fn run(source: &Source, cfg: &PoolConfig, progress: &(dyn Fn(u64) + Sync), done: &(dyn Fn(&JobResult) + Sync)) -> Vec<JobResult> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results = Mutex::new(Vec::new());
    let start = Instant::now();
    // A fixed list is taken longest first (stable, so seeds keep their order): with the long jobs started
    // last, one worker would run them alone at the end while the others idle. Positions (and so the
    // report's order) stay those of the list.
    let taking_order: Vec<usize> = match source {
        Source::Fixed(list) => {
            let mut order: Vec<usize> = (0..list.len()).collect();
            order.sort_by_key(|&i| list[i].target.cost_rank());
            order
        }
        Source::Soak { .. } => Vec::new(),
    };
    let job_at = |taken: usize| -> Option<(usize, Job)> {
        match source {
            Source::Fixed(list) => taking_order.get(taken).map(|&position| (position, list[position])),
            Source::Soak { targets, first_seed, shard, budget } => {
                if targets.is_empty() || start.elapsed() >= *budget {
                    return None;
                }
                // This shard's taken-th job of the endless seed-major list.
                let global = match shard {
                    Some(s) => taken * s.count as usize + (s.index - 1) as usize,
                    None => taken,
                };
                let target = targets[global % targets.len()];
                Some((taken, Job { target, seed: first_seed.wrapping_add((global / targets.len()) as u64) }))
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..cfg.threads.max(1) {
            scope.spawn(|| {
                crate::verilated::collect_coverage_into(cfg.coverage_dir.clone());
                while !stop.load(Ordering::Relaxed) {
                    let Some((position, job)) = job_at(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    let run_cfg = RunConfig { seed: job.seed, cycles: cfg.cycles, wave_dir: cfg.wave_dir.clone() };
                    let t0 = Instant::now();
                    let options = crate::checker::RunOptions { shrink: cfg.shrink, replay: None };
                    let result = crate::checker::with_options(options, || job.target.run(&run_cfg, &mut |n| progress(n)));
                    let r = JobResult { position, target: job.target.name, seed: job.seed, result, elapsed: t0.elapsed() };
                    if r.result.is_err() && !cfg.keep_going {
                        stop.store(true, Ordering::Relaxed);
                    }
                    done(&r);
                    results.lock().unwrap_or_else(|e| e.into_inner()).push(r);
                }
            });
        }
    });
    let mut v = results.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by_key(|r| r.position);
    v
}

/// What identifies a regression run in its reports.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Cycles per job.
    pub cycles: u64,
    /// `K/N`, if sharded.
    pub shard: Option<Shard>,
    /// The command line, for the record.
    pub command: String,
}

/// XML 1.0 cannot carry most control characters, even escaped: drop them (reports are ASCII text).
pub fn xml_text(s: &str) -> String {
    let clean: String = s.chars().filter(|&c| c == '\n' || c == '\t' || !c.is_control()).collect();
    escape(clean.as_str()).into_owned()
}

/// The seeds of the results, in order of first use, without repeats.
pub fn seeds_used(results: &[JobResult]) -> Vec<u64> {
    let mut seeds: Vec<u64> = Vec::new();
    for r in results {
        if !seeds.contains(&r.seed) {
            seeds.push(r.seed);
        }
    }
    seeds
}

/// JUnit XML: one `testsuite` per target (GitLab and Jenkins group by it), one `testcase` per target x
/// seed with `classname` = target and `name` = `seed <n>`; a mismatch or scoreboard failure is a
/// `failure` whose text is the whole report (values, last transactions, waveform path, reproduce
/// command); a bench that could not be built is an `error`. Each suite's `properties` carry the git
/// revision, the Verilator version, the cycles, the shard and the seeds.
pub fn junit_xml(results: &[JobResult], info: &RunInfo) -> String {
    let mut targets: Vec<&'static str> = Vec::new();
    for r in results {
        if !targets.contains(&r.target) {
            targets.push(r.target);
        }
    }
    let count = |rs: &[&JobResult], status: &[&str]| rs.iter().filter(|r| status.contains(&r.status())).count();
    let all: Vec<&JobResult> = results.iter().collect();
    let total_time: f64 = results.iter().map(|r| r.elapsed.as_secs_f64()).sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"inswitch cosim\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{total_time:.3}\">",
        results.len(),
        count(&all, &["mismatch", "scoreboard"]),
        count(&all, &["error"])
    );
    let seeds: Vec<String> = seeds_used(results).iter().map(u64::to_string).collect();
    let properties = [
        ("git_revision", crate::build_info::git_revision().to_string()),
        ("verilator_version", crate::build_info::verilator_version().to_string()),
        ("cycles", info.cycles.to_string()),
        ("shard", info.shard.map_or("1/1".to_string(), |s| format!("{}/{}", s.index, s.count))),
        ("seeds", seeds.join(" ")),
        ("command", info.command.clone()),
    ];
    for target in targets {
        let rs: Vec<&JobResult> = results.iter().filter(|r| r.target == target).collect();
        let time: f64 = rs.iter().map(|r| r.elapsed.as_secs_f64()).sum();
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{time:.3}\">",
            xml_text(target),
            rs.len(),
            count(&rs, &["mismatch", "scoreboard"]),
            count(&rs, &["error"])
        );
        x.push_str("    <properties>\n");
        for (k, v) in &properties {
            let _ = writeln!(x, "      <property name=\"{k}\" value=\"{}\"/>", xml_text(v));
        }
        x.push_str("    </properties>\n");
        for r in rs {
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"seed {}\" time=\"{:.3}\"",
                xml_text(r.target),
                r.seed,
                r.elapsed.as_secs_f64()
            );
            match &r.result {
                Ok(o) => {
                    let counters: Vec<String> = o.counters.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    let _ = writeln!(x, ">\n      <system-out>{} cycles matched; {}</system-out>\n    </testcase>", o.cycles, xml_text(&counters.join(" ")));
                }
                Err(report) => {
                    let tag = if matches!(report, RunError::Setup { .. }) { "error" } else { "failure" };
                    let _ = writeln!(
                        x,
                        ">\n      <{tag} message=\"{}\" type=\"{}\">{}</{tag}>\n    </testcase>",
                        xml_text(&report.summary()),
                        r.status(),
                        xml_text(&report.to_string())
                    );
                }
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

/// The JSON summary (`inswitch cosim --json`): build identity, the seeds, one object per run, totals.
pub fn json_summary(results: &[JobResult], info: &RunInfo, wall: Duration) -> serde_json::Value {
    use serde_json::json;
    let runs: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let mut o = json!({ "target": r.target, "seed": r.seed, "status": r.status(), "seconds": r.elapsed.as_secs_f64() });
            match &r.result {
                Ok(out) => {
                    o["cycles"] = json!(out.cycles);
                    o["counters"] = serde_json::Value::Object(out.counters.iter().map(|(k, v)| (k.to_string(), json!(v))).collect());
                }
                Err(RunError::Failed(rep)) => {
                    o["cycle"] = json!(rep.failure.cycle());
                    o["message"] = json!(rep.failure.summary());
                    if let Failure::Mismatch(m) = &rep.failure {
                        o["port"] = json!(m.port);
                        o["model"] = json!(m.model);
                        o["rtl"] = json!(m.rtl);
                    }
                    o["waveform"] = json!(rep.waveform.as_ref().map(|p| p.display().to_string()));
                    o["reproduce"] = json!(rep.reproduce);
                    o["report"] = json!(rep.to_string());
                }
                // Nothing ran: no cycle, no waveform.
                Err(e @ RunError::Setup { reproduce, .. }) => {
                    o["message"] = json!(e.summary());
                    o["reproduce"] = json!(reproduce);
                    o["report"] = json!(e.to_string());
                }
            }
            o
        })
        .collect();
    let failed = results.iter().filter(|r| r.result.is_err()).count();
    json!({
        "git_revision": crate::build_info::git_revision(),
        "verilator_version": crate::build_info::verilator_version(),
        "cycles_per_run": info.cycles,
        "shard": info.shard.map(|s| format!("{}/{}", s.index, s.count)),
        "seeds": seeds_used(results),
        "runs": runs,
        "cross": merged_cross(results).iter().map(crate::cross::Cross::to_json).collect::<Vec<_>>(),
        "passed": results.len() - failed,
        "failed": failed,
        "exit_code": exit_code(results),
        "seconds": wall.as_secs_f64(),
    })
}

/// The cross coverage of the passed runs, merged by cross name (over seeds and over the targets of one
/// block, e.g. the checker's two widths).
pub fn merged_cross(results: &[JobResult]) -> Vec<crate::cross::Cross> {
    crate::cross::Cross::merge_all(results.iter().filter_map(|r| r.result.as_ref().ok()).flat_map(|o| o.cross.iter()))
}

/// The documented exit status: 0 every run matched, 1 a mismatch or scoreboard failure, 2 a bench that
/// could not be built (a build or usage error: nothing was compared).
pub fn exit_code(results: &[JobResult]) -> u8 {
    if results.iter().any(|r| r.status() == "error") {
        2
    } else if results.iter().any(|r| r.result.is_err()) {
        1
    } else {
        0
    }
}
