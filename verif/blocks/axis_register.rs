//! Co-simulation of the register slice (`rtl/axis_register.v` vs `inswitch_model::axis_register::AxisRegister`):
//! stimulus, independent scoreboard, target.
//!
//! Stimulus: an AXI-stream source that holds each beat until it is taken (random payload, random payload
//! also while idle), idle gaps and sink stalls shaped in phases (verif/stimulus.rs), and resets in the
//! middle of traffic.
//!
//! Scoreboard (independent of the cycle model): the slice holds the beats taken and not yet delivered, in
//! order, at most two: `m_axis_tvalid` is high exactly when it holds one and `m_axis_tdata` is the oldest;
//! `s_axis_tready` is high exactly when it holds fewer than two (so with a ready sink a beat passes every
//! cycle: full throughput); a reset empties it.

use std::collections::VecDeque;

use inswitch_model::axis_register::{AxisRegister, AxisRegisterIn, AxisRegisterOut};
use inswitch_model::Wide;
use rand::{Rng, RngExt};

use crate::checker::{self, Bench, Monitor, Outcome, RunConfig, RunError, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, Gaps, Phases, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated slice.
pub type AxisRegisterRtl = VerilatedDut<AxisRegisterIn, AxisRegisterOut>;

/// `WIDTH` of the cosim model (build.rs `axis_register`): not a multiple of 32, so the top word of the
/// payload is partial.
pub const COSIM_WIDTH: usize = 300;
/// Beats the slice holds at most: the output register and the skid register.
pub const DEPTH: usize = 2;
/// Cycles of reset at the start of every run.
const RESET_CYCLES: u64 = 4;
/// Probability of a reset pulse starting in a cycle.
const RESET_RATE: f64 = 1e-4;

/// The seeded stimulus of the slice.
pub struct AxisRegisterStimulus {
    r: StimRng,
    cycle: u64,
    phases: Phases,
    idle: Gaps,
    stall: Gaps,
    beat: Option<Wide>,
}

fn random_payload(r: &mut StimRng) -> Wide {
    let mut d = Wide::ZERO;
    for l in d.0.iter_mut() {
        *l = r.next_u64();
    }
    d.truncated(COSIM_WIDTH)
}

impl AxisRegisterStimulus {
    /// A stimulus for `seed`.
    pub fn new(seed: u64) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        AxisRegisterStimulus { r, cycle: 0, phases, idle: Gaps::default(), stall: Gaps::default(), beat: None }
    }
}

impl Stimulus<AxisRegisterIn, AxisRegisterOut> for AxisRegisterStimulus {
    fn next(&mut self, previous: &AxisRegisterOut) -> AxisRegisterIn {
        let r = &mut self.r;
        self.phases.tick(r);
        let p = self.phases.profile;
        // The beat offered last cycle was taken if the slice was ready then.
        if previous.s_axis_tready {
            self.beat = None;
        }
        let rst = self.cycle < RESET_CYCLES || r.random_bool(RESET_RATE);
        if rst {
            self.beat = None;
        }
        self.cycle += 1;
        if self.beat.is_none() && !rst && !self.idle.gap(r, p.idle, p.persist) {
            self.beat = Some(random_payload(r));
        }
        let m_axis_tready = !self.stall.gap(r, p.stall, p.persist);
        match self.beat {
            Some(d) => AxisRegisterIn { rst, s_axis_tdata: d, s_axis_tvalid: true, m_axis_tready },
            // Idle: the payload is garbage, which the slice must not take.
            None => AxisRegisterIn { rst, s_axis_tdata: random_payload(r), s_axis_tvalid: false, m_axis_tready },
        }
    }
}

/// Counters of [`AxisRegisterMonitor`], by name.
pub mod counter {
    /// Beats taken on s_axis.
    pub const BEATS_IN: &str = "beats_in";
    /// Beats delivered on m_axis.
    pub const BEATS_OUT: &str = "beats_out";
    /// Cycles a beat entered and another left (streaming at full rate).
    pub const THROUGH: &str = "through_cycles";
    /// Cycles with m_axis_tvalid and the sink stalled.
    pub const STALLED: &str = "stalled_cycles";
    /// Cycles with both registers full (s_axis_tready low).
    pub const FULL: &str = "full_cycles";
    /// Resets.
    pub const RESETS: &str = "resets";
    /// Resets that dropped held beats.
    pub const FLUSHED: &str = "flushed";
}

const COUNTERS: [&str; 7] =
    [counter::BEATS_IN, counter::BEATS_OUT, counter::THROUGH, counter::STALLED, counter::FULL, counter::RESETS, counter::FLUSHED];

/// Independent scoreboard of the slice.
#[derive(Default)]
pub struct AxisRegisterMonitor {
    held: VecDeque<Wide>,
    log: TransactionLog,
    counts: [u64; COUNTERS.len()],
}

impl AxisRegisterMonitor {
    /// A fresh scoreboard.
    pub fn new() -> Self {
        AxisRegisterMonitor::default()
    }

    fn bump(&mut self, name: &'static str) {
        let i = COUNTERS.iter().position(|&n| n == name).expect("a declared counter");
        self.counts[i] += 1;
    }
}

impl Monitor<AxisRegisterIn, AxisRegisterOut> for AxisRegisterMonitor {
    fn observe(&mut self, cycle: u64, i: &AxisRegisterIn, o: &AxisRegisterOut) -> Result<(), String> {
        let n = self.held.len();
        if o.s_axis_tready != (n < DEPTH) {
            return Err(format!("s_axis_tready {} with {n} beats held (ready iff fewer than {DEPTH})", o.s_axis_tready));
        }
        if o.m_axis_tvalid != (n > 0) {
            return Err(format!("m_axis_tvalid {} with {n} beats held", o.m_axis_tvalid));
        }
        if let Some(front) = self.held.front() {
            if o.m_axis_tdata != *front {
                return Err(format!("m_axis_tdata {:?}, expected the oldest held beat {front:?}", o.m_axis_tdata));
            }
        }
        if n == DEPTH {
            self.bump(counter::FULL);
        }
        if i.rst {
            self.bump(counter::RESETS);
            if n > 0 {
                self.bump(counter::FLUSHED);
            }
            self.held.clear();
            self.log.push(cycle, "reset".to_string());
            return Ok(());
        }
        let out = o.m_axis_tvalid && i.m_axis_tready;
        let inn = i.s_axis_tvalid && o.s_axis_tready;
        if o.m_axis_tvalid && !i.m_axis_tready {
            self.bump(counter::STALLED);
        }
        if out {
            self.held.pop_front();
            self.bump(counter::BEATS_OUT);
            self.log.push(cycle, format!("out {:?}", o.m_axis_tdata));
        }
        if inn {
            self.held.push_back(i.s_axis_tdata.truncated(COSIM_WIDTH));
            self.bump(counter::BEATS_IN);
        }
        if inn && out {
            self.bump(counter::THROUGH);
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        COUNTERS.iter().copied().zip(self.counts).collect()
    }
}

/// Builds a fresh lockstep bench for the Verilated model `model` (a slice of [`COSIM_WIDTH`]) and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<AxisRegister, AxisRegisterRtl, AxisRegisterStimulus, AxisRegisterMonitor>, HarnessError> {
    let slice = AxisRegister::new(COSIM_WIDTH).expect("COSIM_WIDTH fits the model's Wide");
    Ok(Bench::new(slice, AxisRegisterRtl::new(model)?, AxisRegisterStimulus::new(seed), AxisRegisterMonitor::new()))
}

/// Runs the slice target `model` (`axis_register`).
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let reproduce = |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block axis_register --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
