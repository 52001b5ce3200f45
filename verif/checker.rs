//! The lockstep checker: one seeded stimulus drives a Rust model and an RTL model; every output port is
//! compared on every cycle; the first difference stops the run and is reported with the seed, cycle, port,
//! both values in hex and the last transactions; the failing window is rerun to write a waveform.
//!
//! The bench's parts ([`Bench`], [`Rtl`], [`Stimulus`], [`Monitor`], [`TransactionLog`], [`hex`]) live in
//! [`crate::bench`], below this module and below [`crate::replay`], [`crate::shrink`] and
//! [`crate::wave_model`], which this module uses; they are re-exported here, where the blocks and tests
//! name them.

use std::fmt;
use std::path::{Path, PathBuf};

use inswitch_model::signal::MAX_PORT_WORDS;
use inswitch_model::{Block, Ports};

pub use crate::bench::{hex, Bench, Monitor, Rtl, Stimulus, Transaction, TransactionLog, RECENT_TRANSACTIONS};
use crate::wave_model::Recorder;
use crate::HarnessError;

/// Cycles of waveform kept before the first failing cycle.
pub const WAVEFORM_WINDOW: u64 = 200;
/// Cycles of waveform kept after the first failing cycle.
pub const WAVEFORM_TAIL: u64 = 4;

/// The first output port that differs between the model and the RTL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Cycle (0 = the first `step`).
    pub cycle: u64,
    /// RTL port name.
    pub port: &'static str,
    /// Model value, hex.
    pub model: String,
    /// RTL value, hex.
    pub rtl: String,
    /// Other ports that differ on the same cycle.
    pub also: Vec<&'static str>,
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Model and RTL disagree.
    Mismatch(Mismatch),
    /// Model and RTL agree, but the independent scoreboard rejects what they did.
    Scoreboard {
        /// Cycle.
        cycle: u64,
        /// What is wrong.
        message: String,
    },
}

impl Failure {
    /// Cycle of the failure.
    pub fn cycle(&self) -> u64 {
        match self {
            Failure::Mismatch(m) => m.cycle,
            Failure::Scoreboard { cycle, .. } => *cycle,
        }
    }

    /// One line saying what failed where (JUnit's `message` attribute).
    pub fn summary(&self) -> String {
        match self {
            Failure::Mismatch(m) => format!("first mismatch at cycle {} on port {}: model {} rtl {}", m.cycle, m.port, m.model, m.rtl),
            Failure::Scoreboard { cycle, message } => {
                let first = message.lines().next().unwrap_or_default();
                format!("scoreboard failure at cycle {cycle}: {first}")
            }
        }
    }
}

/// A successful run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Cycles compared.
    pub cycles: u64,
    /// The monitor's counters at the end.
    pub counters: Vec<(&'static str, u64)>,
    /// The monitor's cross coverage at the end.
    pub cross: Vec<crate::cross::Cross>,
}

impl Outcome {
    /// A cross by name.
    pub fn cross(&self, name: &str) -> Option<&crate::cross::Cross> {
        self.cross.iter().find(|c| c.name == name)
    }

    /// A counter by name (0 if absent).
    pub fn counter(&self, name: &str) -> u64 {
        self.counters.iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v)
    }
}

/// A failed run, with everything needed to understand and reproduce it.
#[derive(Clone, Debug)]
pub struct FailureReport {
    /// Cosim target (block and parameter set).
    pub target: String,
    /// Stimulus seed.
    pub seed: u64,
    /// What failed.
    pub failure: Failure,
    /// The transactions just before the failure.
    pub recent: Vec<Transaction>,
    /// Waveform of the failing window, if one was written.
    pub waveform: Option<PathBuf>,
    /// Why no waveform was written, if none was.
    pub waveform_error: Option<String>,
    /// The command that reruns exactly this failure.
    pub reproduce: String,
    /// The shrunk input trace of a mismatch and its failing cycle, when shrinking was on
    /// ([`RunOptions::shrink`]); or why shrinking failed.
    pub shrunk: Option<Result<(PathBuf, u64), String>>,
}

impl fmt::Display for FailureReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "COSIM FAILURE: target {} seed {}", self.target, self.seed)?;
        match &self.failure {
            Failure::Mismatch(m) => {
                writeln!(f, "  first mismatch at cycle {} on port {}", m.cycle, m.port)?;
                writeln!(f, "    model: {}", m.model)?;
                writeln!(f, "    rtl:   {}", m.rtl)?;
                if !m.also.is_empty() {
                    writeln!(f, "  ports also differing on that cycle: {}", m.also.join(", "))?;
                }
            }
            Failure::Scoreboard { cycle, message } => {
                writeln!(f, "  scoreboard failure at cycle {cycle} (model and RTL agree): {message}")?;
            }
        }
        writeln!(f, "  last transactions:")?;
        for t in &self.recent {
            writeln!(f, "    @{:>10}  {}", t.cycle, t.text)?;
        }
        match (&self.waveform, &self.waveform_error) {
            (Some(p), None) => writeln!(
                f,
                "  waveform of the failing window (RTL in scope `{}`, the model's expected outputs and a `{}` flag in scope `{}`): {}",
                crate::wave_model::RTL_SCOPE,
                crate::wave_model::MISMATCH_SIGNAL,
                crate::wave_model::MODEL_SCOPE,
                p.display()
            )?,
            (Some(p), Some(e)) => writeln!(f, "  waveform of the failing window: {} ({e})", p.display())?,
            (None, Some(e)) => writeln!(f, "  no waveform: {e}")?,
            (None, None) => {}
        }
        match &self.shrunk {
            Some(Ok((path, cycle))) => writeln!(
                f,
                "  shrunk input trace: fails at cycle {cycle} (was {}): {}\n  replay it: cargo run --release -- cosim --replay {}",
                self.failure.cycle(),
                path.display(),
                path.display()
            )?,
            Some(Err(e)) => writeln!(f, "  not shrunk: {e}")?,
            None => {}
        }
        writeln!(f, "  built from: git {}, {}", crate::build_info::git_revision(), crate::build_info::verilator_version())?;
        write!(f, "  reproduce: {}", self.reproduce)
    }
}

/// Why a target's run did not pass.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The bench could not be built (no such model, parameters the model refuses, ports that do not
    /// bind, an unreadable trace): nothing was compared. `inswitch cosim` exits 2 for it, not 1.
    #[error("COSIM SETUP ERROR: target {target} seed {seed}: could not build the bench: {error}\n  reproduce: {reproduce}")]
    Setup {
        /// Cosim target.
        target: String,
        /// Stimulus seed.
        seed: u64,
        /// Why.
        error: HarnessError,
        /// The command that tries again.
        reproduce: String,
    },
    /// The run failed: a mismatch or a scoreboard failure.
    #[error("{0}")]
    Failed(Box<FailureReport>),
}

impl RunError {
    /// The failure report of a run that failed, or the error that kept the bench from being built.
    pub fn into_failure(self) -> Result<Box<FailureReport>, HarnessError> {
        match self {
            RunError::Failed(r) => Ok(r),
            RunError::Setup { error, .. } => Err(error),
        }
    }

    /// One line saying what failed (JUnit's `message` attribute).
    pub fn summary(&self) -> String {
        match self {
            RunError::Failed(r) => r.failure.summary(),
            RunError::Setup { error, .. } => format!("could not build the bench: {error}"),
        }
    }
}

fn mismatch<O: Ports>(cycle: u64, model: &O, rtl: &O, widths: &dyn Fn(&str) -> Option<u32>, first: usize) -> Mismatch {
    let value = |o: &O, i: usize| {
        let mut w = [0u32; MAX_PORT_WORDS];
        o.port_to_words(i, &mut w);
        let width = widths(O::NAMES[i]).unwrap_or(O::WIDTHS[i] as u32);
        hex(&w, width)
    };
    let also = (first + 1..O::NAMES.len())
        .filter(|&i| value(model, i) != value(rtl, i))
        .map(|i| O::NAMES[i])
        .collect();
    Mismatch { cycle, port: O::NAMES[first], model: value(model, first), rtl: value(rtl, first), also }
}

/// Runs `cycles` cycles in lockstep. `progress` is called every [`PROGRESS_STRIDE`] cycles with the
/// cycles done. A waveform is written from cycle `waveform.0` to `waveform.0 + waveform.2` if given.
pub fn lockstep<M, R, S, Mon>(
    model: &mut M,
    rtl: &mut R,
    stimulus: &mut S,
    monitor: &mut Mon,
    cycles: u64,
    waveform: Option<(u64, &Path, u64)>,
    progress: &mut dyn FnMut(u64),
) -> Result<Outcome, Failure>
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
{
    lockstep_until(model, rtl, stimulus, monitor, cycles, waveform, progress, &mut |_| false)
}

/// [`lockstep`] that also ends early, before the cycle for which `stop(cycle)` is true (asked before
/// every cycle, after the previous one was compared): the differential fuzzers end a run a fixed tail
/// after their input is used up (fuzz/src/lib.rs).
#[allow(clippy::too_many_arguments)]
pub fn lockstep_until<M, R, S, Mon>(
    model: &mut M,
    rtl: &mut R,
    stimulus: &mut S,
    monitor: &mut Mon,
    cycles: u64,
    waveform: Option<(u64, &Path, u64)>,
    progress: &mut dyn FnMut(u64),
    stop: &mut dyn FnMut(u64) -> bool,
) -> Result<Outcome, Failure>
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
{
    let mut previous = M::Out::default();
    let mut result = Ok(());
    let (wave_start, wave_stop) = match waveform {
        Some((start, _, len)) => (start, start + len),
        None => (u64::MAX, u64::MAX),
    };
    let mut cycle = 0;
    while cycle < cycles.min(wave_stop) && !stop(cycle) {
        if cycle == wave_start {
            if let Some((_, path, _)) = waveform {
                // A waveform that cannot be opened is reported by the caller; keep checking.
                let _ = rtl.start_waveform(path);
            }
        }
        let inputs = stimulus.next(&previous);
        let a = model.step(&inputs);
        let b = rtl.step(&inputs);
        // Only the first failure counts; with a waveform the run goes on to record the tail.
        if result.is_ok() {
            if let Some(first) = a.first_difference(&b) {
                let widths = |n: &str| rtl.port_width(n);
                result = Err(Failure::Mismatch(mismatch(cycle, &a, &b, &widths, first)));
            } else if let Err(message) = monitor.observe(cycle, &inputs, &a) {
                result = Err(Failure::Scoreboard { cycle, message });
            }
            if result.is_err() && waveform.is_none() {
                break;
            }
        }
        previous = a;
        cycle += 1;
        if cycle % PROGRESS_STRIDE == 0 {
            progress(PROGRESS_STRIDE);
        }
    }
    progress(cycle % PROGRESS_STRIDE);
    rtl.stop_waveform();
    result.map(|()| Outcome { cycles: cycle, counters: monitor.counters(), cross: monitor.cross() })
}

/// Cycles between progress callbacks.
pub const PROGRESS_STRIDE: u64 = 1 << 14;

/// How to run one target: seed, length, where failures leave their waveforms.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Stimulus seed.
    pub seed: u64,
    /// Cycles to run.
    pub cycles: u64,
    /// Directory for failure waveforms.
    pub wave_dir: PathBuf,
}

/// Switches of the runs on this thread that the target's run function does not carry (it is shared by
/// every target and test): set by `inswitch cosim` on each worker thread ([`with_options`]).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// On a mismatch, delta-debug the input trace and write the minimal one ([`crate::shrink`]).
    pub shrink: bool,
    /// Replay this trace file instead of running the seeded stimulus (`inswitch cosim --replay`).
    pub replay: Option<PathBuf>,
}

thread_local! {
    static OPTIONS: std::cell::RefCell<RunOptions> = std::cell::RefCell::new(RunOptions::default());
}

/// Runs `f` with `options` in force for the runs on this thread.
pub fn with_options<T>(options: RunOptions, f: impl FnOnce() -> T) -> T {
    let before = OPTIONS.with(|o| o.replace(options));
    let out = f();
    OPTIONS.with(|o| *o.borrow_mut() = before);
    out
}

fn options() -> RunOptions {
    OPTIONS.with(|o| o.borrow().clone())
}

/// A monitor that checks nothing: a replayed trace is compared port by port only (its cut inputs need
/// not make transactions a scoreboard would accept).
struct CompareOnly;

impl<I, O> Monitor<I, O> for CompareOnly {
    fn observe(&mut self, _: u64, _: &I, _: &O) -> Result<(), String> {
        Ok(())
    }
    fn recent(&self) -> Vec<Transaction> {
        Vec::new()
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// Records the failing run's inputs up to the failing cycle, shrinks them and writes the trace next to
/// the waveforms.
fn shrink_failure<M, R, S, Mon>(
    target: &str,
    make: &dyn Fn(u64) -> Result<Bench<M, R, S, Mon>, HarnessError>,
    cfg: &RunConfig,
    cycle: u64,
    port: &'static str,
) -> Result<(PathBuf, u64), String>
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
    S: Stimulus<M::In, M::Out>,
{
    let bench = make(cfg.seed).map_err(|e| e.to_string())?;
    let inputs = crate::replay::record(bench.model, bench.stimulus, cycle as usize + 1);
    let fresh = || make(cfg.seed).map(|b| (b.model, b.rtl));
    let shrunk = crate::shrink::shrink(&fresh, inputs, port).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&cfg.wave_dir).map_err(|e| format!("{}: {e}", cfg.wave_dir.display()))?;
    let path = cfg.wave_dir.join(format!("{target}-seed{}-cycle{cycle}.trace.json", cfg.seed));
    crate::shrink::write_trace(&path, target, cfg.seed, port, cycle, &shrunk.inputs).map_err(|e| e.to_string())?;
    Ok((path, shrunk.cycle))
}

/// Runs one target: lockstep for `cfg.cycles`; on failure, builds a fresh bench for the same seed and
/// reruns it with a waveform of the [`WAVEFORM_WINDOW`] cycles before the failure (and, with
/// [`RunOptions::shrink`], shrinks a mismatch's input trace). With [`RunOptions::replay`] the trace file
/// replaces the seeded stimulus and the scoreboard.
pub fn run_target<M, R, S, Mon>(
    target: &str,
    reproduce: &dyn Fn(u64, u64) -> String,
    make: &dyn Fn(u64) -> Result<Bench<M, R, S, Mon>, HarnessError>,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64),
) -> Result<Outcome, RunError>
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
{
    let Some(path) = options().replay else {
        return run_bench(target, reproduce, make, cfg, progress);
    };
    let inputs = match crate::shrink::read_trace::<M::In>(&path) {
        Ok(i) => i,
        Err(detail) => {
            return Err(RunError::Setup {
                target: target.to_string(),
                seed: cfg.seed,
                error: HarnessError::Trace { path: path.clone(), detail },
                reproduce: format!("cargo run --release -- cosim --replay {}", path.display()),
            })
        }
    };
    let replay_cfg = RunConfig { cycles: inputs.len() as u64, ..cfg.clone() };
    let again = format!("cargo run --release -- cosim --replay {}", path.display());
    let replay_make = |seed: u64| make(seed).map(|b| Bench::new(b.model, b.rtl, crate::shrink::Replay::new(inputs.clone()), CompareOnly));
    // A replay is not shrunk again and does not replay itself.
    with_options(RunOptions::default(), || run_bench(target, &|_, _| again.clone(), &replay_make, &replay_cfg, progress))
}

fn run_bench<M, R, S, Mon>(
    target: &str,
    reproduce: &dyn Fn(u64, u64) -> String,
    make: &dyn Fn(u64) -> Result<Bench<M, R, S, Mon>, HarnessError>,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64),
) -> Result<Outcome, RunError>
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
{
    let setup_failure = |error: HarnessError| RunError::Setup { target: target.to_string(), seed: cfg.seed, error, reproduce: reproduce(cfg.seed, cfg.cycles) };
    let Bench { model: mut m, rtl: mut r, stimulus: mut s, monitor: mut mon } = make(cfg.seed).map_err(setup_failure)?;
    let failure = match lockstep(&mut m, &mut r, &mut s, &mut mon, cfg.cycles, None, progress) {
        Ok(outcome) => return Ok(outcome),
        Err(f) => f,
    };
    let recent = mon.recent();
    let cycle = failure.cycle();
    let path = cfg.wave_dir.join(format!("{target}-seed{}-cycle{cycle}.fst", cfg.seed));
    let mut model_scope: Option<String> = None;
    let waveform = std::fs::create_dir_all(&cfg.wave_dir)
        .map_err(|e| format!("cannot create {}: {e}", cfg.wave_dir.display()))
        .and_then(|()| {
            let Bench { model: m, rtl: r, stimulus: mut s, monitor: mut mon } = make(cfg.seed).map_err(|e| e.to_string())?;
            let start = cycle.saturating_sub(WAVEFORM_WINDOW);
            let len = cycle - start + WAVEFORM_TAIL;
            // Both sides' outputs over the window, for the model scope of the waveform.
            let (mut m, mut r) = (Recorder::new(m, start), Recorder::new(r, start));
            let again = lockstep(&mut m, &mut r, &mut s, &mut mon, cfg.cycles, Some((start, &path, len)), &mut |_| {});
            match again {
                Err(f) if f == failure => {
                    let widths = |n: &str| r.port_width(n);
                    model_scope = crate::wave_model::add_model_scope(&path, &m.outputs, &r.outputs, &widths).err();
                    Ok(path.clone())
                }
                other => Err(format!("the rerun did not reproduce the failure ({other:?}): is the stimulus deterministic?")),
            }
        });
    let options = options();
    let shrunk = match &failure {
        Failure::Mismatch(mm) if options.shrink => Some(shrink_failure(target, make, cfg, cycle, mm.port)),
        _ => None,
    };
    let (waveform, waveform_error) = match waveform {
        Ok(p) if p.exists() => (Some(p), model_scope.map(|e| format!("the model scope could not be added (RTL only): {e}"))),
        Ok(p) => (None, Some(format!("{} was not written", p.display()))),
        Err(e) => (None, Some(e)),
    };
    Err(RunError::Failed(Box::new(FailureReport {
        target: target.to_string(),
        seed: cfg.seed,
        failure,
        recent,
        waveform,
        waveform_error,
        reproduce: reproduce(cfg.seed, cycle + 1),
        shrunk,
    })))
}
