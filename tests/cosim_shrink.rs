//! Shrunk failures (issue 13 point 5) on a planted model bug: an output-queue model that corrupts one
//! output bit under a rare data condition fails late in a seeded run; the shrinker cuts the recorded
//! input trace to a few cycles that still fail first on the same port; the trace replays (library and
//! `inswitch cosim --replay`); the failure's JUnit entry carries the report, the reproduce command, the
//! waveform and the shrunk trace.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use inswitch::blocks::output_queue::{self, OutputQueueMonitor, OutputQueueRtl, OutputQueueStimulus};
use inswitch::checker::{self, Bench, Failure, RunConfig, RunOptions};
use inswitch::regress::{self, JobResult, RunInfo};
use inswitch::HarnessError;
use inswitch_model::output_queue::{OutputQueue, OutputQueueIn, OutputQueueOut};
use inswitch_model::Block;

const MODEL: &str = "output_queue_w64";
/// The planted bug fires on an output beat whose low data bits are all ones here: rare (one beat in
/// 2^14 of random data), so the seeded run fails only after thousands of cycles.
const TRIGGER_MASK: u64 = 0x3fff;

/// The output queue with a planted bug: bit 0 of `m_axis_tdata` flipped on a rare data pattern.
struct PlantedBug(OutputQueue);

impl Block for PlantedBug {
    type In = OutputQueueIn;
    type Out = OutputQueueOut;
    fn step(&mut self, i: &OutputQueueIn) -> OutputQueueOut {
        let mut o = self.0.step(i);
        if o.m_axis_tvalid && o.m_axis_tdata.0[0] & TRIGGER_MASK == TRIGGER_MASK {
            o.m_axis_tdata.0[0] ^= 1;
        }
        o
    }
}

fn make(seed: u64) -> Result<Bench<PlantedBug, OutputQueueRtl, OutputQueueStimulus, OutputQueueMonitor>, HarnessError> {
    let p = output_queue::params_of(MODEL)?;
    Ok(Bench::new(PlantedBug(OutputQueue::new(p).unwrap()), OutputQueueRtl::new(MODEL)?, OutputQueueStimulus::new(p, seed), OutputQueueMonitor::new(p)))
}

#[test]
fn a_planted_bug_is_shrunk_to_a_few_cycles_and_replays() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shrink");
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = RunConfig { seed: 42, cycles: 2_000_000, wave_dir: dir.clone() };
    let reproduce = |seed: u64, cycles: u64| format!("repro --seed {seed} --cycles {cycles}");
    let shrink_on = RunOptions { shrink: true, replay: None };
    let started = std::time::Instant::now();
    let report = checker::with_options(shrink_on, || checker::run_target(MODEL, &reproduce, &make, &cfg, &mut |_| {})).expect_err("the planted bug must be caught").into_failure().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{report}\n(shrunk in {:.1} s)", started.elapsed().as_secs_f64());
    let Failure::Mismatch(m) = &report.failure else { panic!("expected a mismatch: {:?}", report.failure) };
    assert_eq!(m.port, "m_axis_tdata");
    assert!(m.cycle > 1000, "the bug is rare: it fires late ({})", m.cycle);
    let (trace, shrunk_cycle) = report.shrunk.clone().expect("shrinking was on").expect("the trace shrank");
    assert!(shrunk_cycle * 20 < m.cycle, "shrunk failing cycle {shrunk_cycle} should be a small fraction of {}", m.cycle);
    let text = report.to_string();
    assert!(text.contains("cosim --replay") && text.contains(&trace.display().to_string()), "{text}");

    // The library replay of the trace against the same buggy model fails at the shrunk cycle, same port.
    let replay_on = RunOptions { shrink: false, replay: Some(trace.clone()) };
    let again = checker::with_options(replay_on, || checker::run_target(MODEL, &reproduce, &make, &cfg, &mut |_| {})).expect_err("the trace still fails").into_failure().unwrap_or_else(|e| panic!("{e}"));
    let Failure::Mismatch(m2) = &again.failure else { panic!("expected a mismatch: {:?}", again.failure) };
    assert_eq!((m2.port, m2.cycle), ("m_axis_tdata", shrunk_cycle));
    assert!(again.waveform.is_some(), "the replay leaves a waveform: {:?}", again.waveform_error);
    assert!(again.reproduce.contains("--replay"), "{}", again.reproduce);

    // The command line replays it against the real model (no planted bug): every cycle matches.
    let o = Command::new(env!("CARGO_BIN_EXE_inswitch")).args(["cosim", "--replay", trace.to_str().unwrap(), "--wave-dir"]).arg(&dir).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(&format!("matched {} replayed cycles, 0 mismatches", shrunk_cycle + 1)), "{out}");

    // The JUnit entry of this failure: message, report, reproduce command, waveform, shrunk trace.
    let r = JobResult { position: 0, target: MODEL, seed: 42, result: Err(checker::RunError::Failed(report.clone())), elapsed: Duration::from_secs(1) };
    let xml = regress::junit_xml(&[r], &RunInfo { cycles: cfg.cycles, shard: None, command: "test".into() });
    let doc = roxmltree::Document::parse(&xml).expect("valid XML");
    assert_eq!(doc.root_element().attribute("failures"), Some("1"));
    let failure = doc.descendants().find(|n| n.has_tag_name("failure")).expect("a failure element");
    assert!(failure.attribute("message").unwrap().contains("on port m_axis_tdata"));
    assert_eq!(failure.attribute("type"), Some("mismatch"));
    let body = failure.text().unwrap();
    let wave = report.waveform.as_ref().expect("waveform").display().to_string();
    for needle in ["reproduce: repro --seed 42", &wave, "cosim --replay", "built from: git", "Verilator 5"] {
        assert!(body.contains(needle), "JUnit failure text lacks {needle:?}:\n{body}");
    }
    let tc = failure.parent().unwrap();
    assert_eq!((tc.attribute("classname"), tc.attribute("name")), (Some(MODEL), Some("seed 42")));
}
