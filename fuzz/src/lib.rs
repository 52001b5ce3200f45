//! Differential fuzzing harness (docs/verification.md §Differential fuzzing).
//!
//! A differential target builds a block's ordinary cosim bench (Rust model, Verilated RTL, seeded
//! stimulus, independent scoreboard) inside [`inswitch::stimulus::with_choices`], so that every random
//! draw of the block's own stimulus (which frame, which defect, field values, idle gaps, sink stalls,
//! resets, configuration, register and route writes) reads one byte of the fuzzer's input first. The
//! bench then runs in lockstep through [`inswitch::checker::lockstep_until`], until a fixed tail after the
//! input is used up (or the target's cycle limit); a mismatch between model and RTL, or a scoreboard
//! failure, panics with the usual failure report, which libFuzzer records as a crash.

use std::path::PathBuf;

use std::cell::RefCell;
use std::rc::Rc;

use inswitch::checker::{self, Bench, Failure, FailureReport, Monitor, Rtl, Stimulus, WAVEFORM_TAIL, WAVEFORM_WINDOW};
use inswitch::stimulus::{self, Choices};
use inswitch::HarnessError;
use inswitch_model::Block;

/// Environment variable naming a directory: when set, a failing input is rerun to write a waveform of
/// the failing window there (`bash scripts/fuzz <target> --replay <file>` sets it).
pub const WAVE_DIR_ENV: &str = "INSWITCH_FUZZ_WAVE_DIR";

/// Environment variable: the cycles a run goes on after its input is used up ([`cycles::TAIL`]), or
/// `none` for no early end (every input runs the target's full `cycles`, as before session 16); for
/// measuring what the early end costs and gains (docs/performance.md §Differential fuzzing).
pub const TAIL_ENV: &str = "INSWITCH_FUZZ_TAIL";

/// Environment variable: when set, every execution prints to stderr the cycles it ran, the cycle its
/// input was used up at and the bytes read (to profile where an execution's cycles go).
pub const PROFILE_ENV: &str = "INSWITCH_FUZZ_PROFILE";

/// The tail after the input is used up: [`TAIL_ENV`] if set, else [`cycles::TAIL`]; `None`: no early end.
fn tail() -> Option<u64> {
    match std::env::var(TAIL_ENV) {
        Err(_) => Some(cycles::TAIL),
        Ok(v) if v == "none" => None,
        Ok(v) => Some(v.parse().unwrap_or_else(|_| panic!("{TAIL_ENV}={v}: a number of cycles or `none`"))),
    }
}

/// The early end of a run: true from `tail` cycles after the cycle at which every byte of the input had
/// been read. Past that point every draw comes from the seeded generator alone, the same stream for
/// every input (offset by the draws the input made), i.e. the seeded regression CI already runs; the
/// tail lets the transactions the input started go through the block and be compared.
struct EarlyEnd {
    choices: Rc<RefCell<Choices>>,
    tail: Option<u64>,
    used_up_at: Option<u64>,
}

impl EarlyEnd {
    fn new(choices: Rc<RefCell<Choices>>) -> Self {
        EarlyEnd { choices, tail: tail(), used_up_at: None }
    }
    fn stop(&mut self, cycle: u64) -> bool {
        if self.used_up_at.is_none() && self.choices.borrow().exhausted() {
            self.used_up_at = Some(cycle);
        }
        match (self.tail, self.used_up_at) {
            (Some(t), Some(at)) => cycle >= at + t,
            _ => false,
        }
    }
}

/// Runs one fuzz input through a lockstep bench for `cycles` cycles; panics on the first failure.
///
/// `make` builds the bench (a block's `bench(model, seed)`); its stimulus draws from `data`, then from
/// the seeded generator once `data` is used up, so every input is a deterministic run.
pub fn differential<M, R, S, Mon>(target: &str, data: &[u8], cycles: u64, make: &dyn Fn() -> Result<Bench<M, R, S, Mon>, HarnessError>)
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
{
    let (bench, choices) = stimulus::with_choices(data, make);
    let Bench { model: mut m, rtl: mut r, stimulus: mut s, monitor: mut mon } = bench.unwrap_or_else(|e| panic!("{target}: cannot build the bench: {e}"));
    let mut end = EarlyEnd::new(choices.clone());
    let result = checker::lockstep_until(&mut m, &mut r, &mut s, &mut mon, cycles, None, &mut |_| {}, &mut |c| end.stop(c));
    if std::env::var_os(PROFILE_ENV).is_some() {
        let ran = result.as_ref().map_or_else(|f| f.cycle() + 1, |o| o.cycles);
        let used_up = end.used_up_at.map_or("never".to_string(), |c| c.to_string());
        eprintln!("profile {target}: {} bytes, {} read, used up at cycle {used_up}, ran {ran} cycles", data.len(), choices.borrow().consumed());
    }
    let failure = match result {
        Ok(_) => return,
        Err(f) => f,
    };
    let recent = mon.recent();
    let (waveform, waveform_error) = match std::env::var_os(WAVE_DIR_ENV) {
        None => (None, Some(format!("set {WAVE_DIR_ENV} (done by `bash scripts/fuzz {target} --replay FILE`) for one"))),
        Some(dir) => match waveform(target, data, cycles, make, &failure, PathBuf::from(dir)) {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(e)),
        },
    };
    let report = FailureReport {
        target: target.to_string(),
        seed: 0,
        failure,
        recent,
        waveform,
        waveform_error,
        reproduce: format!("bash scripts/fuzz {target} --replay <the crash file libFuzzer names below>"),
        // libFuzzer minimises a crash input itself (`-minimize_crash=1`); the trace shrinker is the cosim's.
        shrunk: None,
    };
    panic!("{report}");
}

fn waveform<M, R, S, Mon>(target: &str, data: &[u8], cycles: u64, make: &dyn Fn() -> Result<Bench<M, R, S, Mon>, HarnessError>, failure: &Failure, dir: PathBuf) -> Result<PathBuf, String>
where
    M: Block,
    R: Rtl<In = M::In, Out = M::Out>,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
{
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let cycle = failure.cycle();
    let path = dir.join(format!("fuzz-{target}-cycle{cycle}.fst"));
    let (bench, choices) = stimulus::with_choices(data, make);
    let Bench { model: mut m, rtl: mut r, stimulus: mut s, monitor: mut mon } = bench.map_err(|e| e.to_string())?;
    let start = cycle.saturating_sub(WAVEFORM_WINDOW);
    let mut end = EarlyEnd::new(choices);
    let window = Some((start, path.as_path(), cycle - start + WAVEFORM_TAIL));
    let again = checker::lockstep_until(&mut m, &mut r, &mut s, &mut mon, cycles, window, &mut |_| {}, &mut |c| end.stop(c));
    match again {
        Err(f) if f == *failure => Ok(path),
        other => Err(format!("the rerun did not reproduce the failure ({other:?})")),
    }
}

/// Cycles each differential target runs per input at most: long enough for a few frames through the block
/// and its queues to drain, short enough for hundreds of inputs per second (docs/performance.md). A run
/// ends earlier, [`TAIL`] cycles after its input is used up (`EarlyEnd`): measured in session 16, even a
/// 4,000-byte input is used up by cycle 130-900 (a cycle draws several bytes) and the committed corpora's
/// inputs by cycle 0-160, so 75-99% of a full-length run was the seeded generator's alone.
pub mod cycles {
    /// Input checker (both widths, and the planted copy).
    pub const INPUT_CHECKER: u64 = 2_000;
    /// Interposer.
    pub const INTERPOSER: u64 = 2_000;
    /// Collective processing unit.
    pub const CPU: u64 = 3_000;
    /// Packet-engine top.
    pub const PACKET_ENGINE: u64 = 3_000;
    /// Reduction unit.
    pub const REDUCE_UNIT: u64 = 2_000;
    /// Cycles a run goes on after its input is used up, within the limits above (`EarlyEnd`).
    pub const TAIL: u64 = 500;
}

/// Structure-aware frames for the codec targets: reads a `Repr` from `data` with `arbitrary`, emits it
/// with the codec, then applies the field corruptions the rest of `data` encodes (byte XORs at chosen
/// offsets, a truncation or an extension), so the codec sees frames that start valid and are broken
/// field by field. `None` when the repr does not emit (a field out of its range).
pub fn structured<T: for<'a> arbitrary::Arbitrary<'a>>(data: &[u8], emit: impl Fn(&T) -> Option<Vec<u8>>) -> Option<Vec<u8>> {
    let mut u = arbitrary::Unstructured::new(data);
    let repr: T = u.arbitrary().ok()?;
    let mut bytes = emit(&repr)?;
    let edits: Vec<(u16, u8)> = u.arbitrary().unwrap_or_default();
    for (at, xor) in edits {
        if !bytes.is_empty() {
            let n = bytes.len();
            bytes[usize::from(at) % n] ^= xor;
        }
    }
    let resize: i8 = u.arbitrary().unwrap_or(0);
    match resize {
        r if r < 0 => bytes.truncate(bytes.len().saturating_sub(usize::from(r.unsigned_abs()))),
        r => bytes.extend(std::iter::repeat_n(0u8, usize::from(r.unsigned_abs() % 8))),
    }
    Some(bytes)
}
