//! Co-simulation of the output queue: stimulus, independent scoreboard, targets.
//!
//! Stimulus (seeded, in phases, see [`crate::stimulus`]): frames of 1 to 3 x FIFO-depth beats with random
//! data and destinations (programmed routes, the default route, misses), idle gaps inside and between
//! frames, backpressure on m_axis from none to near-blocked, route-table writes during traffic, malformed
//! tkeep patterns, frames that never end, and resets in the middle of traffic.
//!
//! Scoreboard (transaction level, independent of the cycle model): every frame that enters leaves exactly
//! once, in order, with the same beats, to a port that the route table gave for its destination at some
//! moment between its arrival and its departure; or is dropped with one `stat_route_miss` pulse when the
//! table had no route for it; or is flushed by a reset. Nothing else leaves.

use std::collections::VecDeque;

use inswitch_model::output_queue::{OutputQueue, OutputQueueIn, OutputQueueOut, OutputQueueParams};
use inswitch_model::Wide;
use rand::RngExt;

use crate::checker::{self, Bench, Monitor, Outcome, RunConfig, RunError, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, Gaps, Phases, Resets, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated output queue.
pub type OutputQueueRtl = VerilatedDut<OutputQueueIn, OutputQueueOut>;

/// Probability per cycle of a route-table write during traffic.
const ROUTE_WRITE_PROBABILITY: f64 = 1e-3;
/// Probability that a beat's tkeep is an arbitrary (malformed) pattern.
const MALFORMED_TKEEP_PROBABILITY: f64 = 0.01;
/// Probability that a frame "never ends" (runs for many FIFO depths before tlast).
const ENDLESS_FRAME_PROBABILITY: f64 = 0.002;

/// Parameters of a Verilated model, from its build.rs entry, over the RTL defaults.
pub fn params_of(model: &str) -> Result<OutputQueueParams, HarnessError> {
    Ok(inswitch_model::registry::typed::output_queue(&crate::targets::model_params(model)?))
}

/// The seeded stimulus of the output queue.
pub struct OutputQueueStimulus {
    p: OutputQueueParams,
    r: StimRng,
    phases: Phases,
    cycle: u64,
    /// Input presented on the previous cycle (to know whether its beat was taken).
    last: OutputQueueIn,
    /// Beats left in the frame being sent (0: between frames).
    beats_left: u64,
    dest: u16,
    idle: Gaps,
    stall: Gaps,
    resets: Resets,
    /// Destinations the programmed routes cover, to aim most frames at them.
    targets: Vec<u16>,
}

impl OutputQueueStimulus {
    /// A stimulus for `seed`.
    pub fn new(p: OutputQueueParams, seed: u64) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        OutputQueueStimulus {
            p,
            r,
            phases,
            cycle: 0,
            last: OutputQueueIn::default(),
            beats_left: 0,
            dest: 0,
            idle: Gaps::default(),
            stall: Gaps::default(),
            resets: Resets::new(),
            targets: Vec::new(),
        }
    }

    fn route_write(&mut self, i: &mut OutputQueueIn) {
        let r = &mut self.r;
        let entries = self.p.route_entries as u64;
        // Mostly entries that exist; sometimes an index beyond the table (must be ignored).
        let index_limit = (1u64 << self.p.route_index_width()).max(entries);
        let index = r.random_range(0..index_limit) as u8;
        let dest_id: u16 = r.random();
        let dest_mask: u16 = match r.random_range(0..4) {
            0 => 0,      // a default route
            1 => 0xffff, // one device
            2 => 0xfff0, // a board of the seed's device-ID plan (000 Tables 2-4)
            _ => r.random(),
        };
        *i = OutputQueueIn {
            cfg_route_wr_en: true,
            cfg_route_wr_index: index,
            cfg_route_wr_valid: r.random_bool(0.9),
            cfg_route_wr_dest_id: dest_id,
            cfg_route_wr_dest_mask: dest_mask,
            cfg_route_wr_port: r.random(),
            ..*i
        };
        if self.targets.len() < 64 {
            self.targets.push(dest_id);
        } else {
            let k = r.random_range(0..self.targets.len());
            self.targets[k] = dest_id;
        }
    }
}

impl Stimulus<OutputQueueIn, OutputQueueOut> for OutputQueueStimulus {
    fn next(&mut self, previous: &OutputQueueOut) -> OutputQueueIn {
        let taken = self.last.s_axis_tvalid && previous.s_axis_tready;
        self.cycle += 1;
        self.phases.tick(&mut self.r);
        let prof = self.phases.profile;
        let mut i = OutputQueueIn {
            m_axis_tready: !self.stall.gap(&mut self.r, prof.stall, prof.persist),
            ..OutputQueueIn::default()
        };

        if self.resets.tick(&mut self.r) {
            i.rst = true;
            // The frame being sent is abandoned with the reset.
            self.beats_left = 0;
            self.last = i;
            return i;
        }
        if self.r.random_bool(ROUTE_WRITE_PROBABILITY) || self.targets.len() < 4 {
            self.route_write(&mut i);
        }

        // AXI-stream source: a beat once offered is held until taken.
        if self.last.s_axis_tvalid && !taken {
            i.s_axis_tdata = self.last.s_axis_tdata;
            i.s_axis_tkeep = self.last.s_axis_tkeep;
            i.s_axis_tvalid = true;
            i.s_axis_tlast = self.last.s_axis_tlast;
            i.s_axis_tuser = self.last.s_axis_tuser;
        } else if !self.idle.gap(&mut self.r, prof.idle, prof.persist) {
            let r = &mut self.r;
            let first = self.beats_left == 0;
            if first {
                let depth = self.p.fifo_depth as u64;
                self.beats_left = if r.random_bool(ENDLESS_FRAME_PROBABILITY) {
                    r.random_range(8 * depth..16 * depth)
                } else {
                    match r.random_range(0..4) {
                        0 => 1,
                        1 => r.random_range(1..=4),
                        2 => r.random_range(1..=depth),
                        _ => r.random_range(1..=3 * depth),
                    }
                };
                self.dest = match r.random_range(0..8) {
                    0 => r.random(),
                    1 => self.targets.first().copied().unwrap_or(0) ^ r.random_range(0..16),
                    _ => self.targets[r.random_range(0..self.targets.len())],
                };
            }
            self.beats_left -= 1;
            let bytes = self.p.keep_width();
            let mut data = Wide::ZERO;
            for limb in data.0.iter_mut() {
                *limb = r.random();
            }
            i.s_axis_tdata = data.truncated(self.p.data_width);
            i.s_axis_tlast = self.beats_left == 0;
            i.s_axis_tkeep = stimulus::tkeep(r, bytes, i.s_axis_tlast, MALFORMED_TKEEP_PROBABILITY);
            i.s_axis_tvalid = true;
            // tuser matters on the first beat only; later beats carry noise to prove it.
            i.s_axis_tuser = if first { self.dest } else { r.random() };
        }
        self.last = i;
        i
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Route {
    valid: bool,
    dest_id: u16,
    dest_mask: u16,
    port: u8,
}

/// Where a frame stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Pending,
    Output(u8),
    Missed,
}

#[derive(Clone, Debug)]
struct Frame {
    id: u64,
    dest: u16,
    beats: Vec<(Wide, u64, bool)>,
    complete: bool,
    /// Route-table version in force when its first beat arrived.
    version: usize,
    fate: Fate,
    emitted: usize,
}

/// Counters of [`OutputQueueMonitor`], by name.
pub mod counter {
    /// Frames whose first beat was accepted.
    pub const FRAMES_IN: &str = "frames_in";
    /// Frames that left complete.
    pub const FRAMES_OUT: &str = "frames_out";
    /// Beats accepted / emitted.
    pub const BEATS_IN: &str = "beats_in";
    /// Beats emitted.
    pub const BEATS_OUT: &str = "beats_out";
    /// Frames dropped for lack of a route.
    pub const ROUTE_MISSES: &str = "route_misses";
    /// Frames flushed by a reset.
    pub const FLUSHED: &str = "frames_flushed_by_reset";
    /// Resets.
    pub const RESETS: &str = "resets";
    /// Route-table writes.
    pub const ROUTE_WRITES: &str = "route_writes";
    /// Cycles the source was refused (FIFO full).
    pub const FULL_CYCLES: &str = "fifo_full_cycles";
    /// Cycles the sink stalled a valid beat.
    pub const STALLED_CYCLES: &str = "output_stalled_cycles";
}

/// Independent transaction-level scoreboard of the output queue.
pub struct OutputQueueMonitor {
    p: OutputQueueParams,
    versions: Vec<Vec<Route>>,
    frames: VecDeque<Frame>,
    next_id: u64,
    /// Frames whose route is decided and that are being emitted, in order.
    emitting: VecDeque<u64>,
    /// The previous cycle's m_axis beat was taken (so this cycle's valid beat is a new one).
    out_beat_new: bool,
    out_in_frame: bool,
    in_frame: bool,
    log: TransactionLog,
    counts: [u64; 10],
}

impl OutputQueueMonitor {
    /// A scoreboard for an instance with parameters `p`.
    pub fn new(p: OutputQueueParams) -> Self {
        OutputQueueMonitor {
            p,
            versions: vec![vec![Route::default(); p.route_entries]],
            frames: VecDeque::new(),
            next_id: 0,
            emitting: VecDeque::new(),
            out_beat_new: true,
            out_in_frame: false,
            in_frame: false,
            log: TransactionLog::default(),
            counts: [0; 10],
        }
    }

    fn bump(&mut self, event: Event) {
        self.add(event, 1);
    }

    fn add(&mut self, event: Event, n: u64) {
        self.counts[event as usize] += n;
    }

    fn lookup(table: &[Route], dest: u16) -> Option<u8> {
        // Independent statement of the rule: the lowest-numbered valid entry whose masked ID matches.
        (0..table.len()).find(|&k| table[k].valid && dest & table[k].dest_mask == table[k].dest_id & table[k].dest_mask).map(|k| table[k].port)
    }

    /// Every result the table could give `frame` between its arrival and now.
    fn possible(&self, f: &Frame) -> Vec<Option<u8>> {
        self.versions[f.version..].iter().map(|t| Self::lookup(t, f.dest)).collect()
    }

    fn frame_mut(&mut self, id: u64) -> Option<&mut Frame> {
        self.frames.iter_mut().find(|f| f.id == id)
    }

    fn retire(&mut self) {
        while let Some(f) = self.frames.front() {
            let done = match f.fate {
                Fate::Missed => f.complete,
                Fate::Output(_) => f.complete && f.emitted == f.beats.len(),
                Fate::Pending => false,
            };
            if !done {
                break;
            }
            self.frames.pop_front();
        }
    }
}

/// Counted events; the discriminant indexes `counts` and [`COUNTERS`] (same order).
#[derive(Clone, Copy)]
enum Event {
    FramesIn,
    FramesOut,
    BeatsIn,
    BeatsOut,
    RouteMisses,
    Flushed,
    Resets,
    RouteWrites,
    FullCycles,
    StalledCycles,
}

const COUNTERS: [&str; 10] = [
    counter::FRAMES_IN,
    counter::FRAMES_OUT,
    counter::BEATS_IN,
    counter::BEATS_OUT,
    counter::ROUTE_MISSES,
    counter::FLUSHED,
    counter::RESETS,
    counter::ROUTE_WRITES,
    counter::FULL_CYCLES,
    counter::STALLED_CYCLES,
];

impl Monitor<OutputQueueIn, OutputQueueOut> for OutputQueueMonitor {
    fn observe(&mut self, cycle: u64, i: &OutputQueueIn, o: &OutputQueueOut) -> Result<(), String> {
        let keep_mask = if self.p.keep_width() >= 64 { u64::MAX } else { (1u64 << self.p.keep_width()) - 1 };

        // Output side first: what the queue shows this cycle comes from earlier cycles.
        if o.stat_route_miss {
            self.bump(Event::RouteMisses);
            let version = self.versions.len() - 1;
            let f = self.frames.iter_mut().find(|f| f.fate == Fate::Pending).ok_or("stat_route_miss pulsed with no frame waiting")?;
            let id = f.id;
            f.fate = Fate::Missed;
            let f = f.clone();
            if !self.possible(&f).contains(&None) {
                return Err(format!("frame #{id} (dest {:#06x}) was dropped as unroutable, but every route-table version since its arrival routes it (current version {version})", f.dest));
            }
            self.log.push(cycle, format!("frame #{id} dest {:#06x} dropped: no route", f.dest));
        }
        if o.m_axis_tvalid && self.out_beat_new {
            if !self.out_in_frame {
                // First beat of an output frame: the route decision of the oldest pending frame.
                let f = self.frames.iter().find(|f| f.fate == Fate::Pending).cloned().ok_or_else(|| {
                    format!("m_axis started a frame (tdest {}) but no frame is waiting", o.m_axis_tdest)
                })?;
                if !self.possible(&f).contains(&Some(o.m_axis_tdest)) {
                    return Err(format!(
                        "frame #{} (dest {:#06x}) leaves on port {}, which no route-table version since its arrival gives (possible: {:?})",
                        f.id,
                        f.dest,
                        o.m_axis_tdest,
                        self.possible(&f)
                    ));
                }
                if let Some(f) = self.frame_mut(f.id) {
                    f.fate = Fate::Output(o.m_axis_tdest);
                }
                self.emitting.push_back(f.id);
            }
            let id = *self.emitting.front().ok_or("m_axis beat with no frame being emitted")?;
            let f = self.frame_mut(id).ok_or("emitting frame vanished")?;
            let k = f.emitted;
            let &(data, keep, last) = f.beats.get(k).ok_or_else(|| format!("frame #{id}: beat {k} leaves before it arrived"))?;
            let port = match f.fate {
                Fate::Output(p) => p,
                _ => unreachable!("emitting frames have an output fate"),
            };
            if (o.m_axis_tdata, o.m_axis_tkeep, o.m_axis_tlast, o.m_axis_tdest) != (data, keep, last, port) {
                return Err(format!(
                    "frame #{id} beat {k}: left as (data {:?}, keep {:#x}, last {}, port {}), entered as (data {data:?}, keep {keep:#x}, last {last}, port {port})",
                    o.m_axis_tdata, o.m_axis_tkeep, o.m_axis_tlast, o.m_axis_tdest
                ));
            }
        }
        let out_taken = o.m_axis_tvalid && i.m_axis_tready;
        if o.m_axis_tvalid && !i.m_axis_tready {
            self.bump(Event::StalledCycles);
        }
        if out_taken {
            self.bump(Event::BeatsOut);
            let id = *self.emitting.front().ok_or("beat taken with no frame being emitted")?;
            let f = self.frame_mut(id).ok_or("emitting frame vanished")?;
            f.emitted += 1;
            let (dest, n, last) = (f.dest, f.emitted, o.m_axis_tlast);
            self.out_in_frame = !last;
            if last {
                self.emitting.pop_front();
                self.bump(Event::FramesOut);
                self.log.push(cycle, format!("frame #{id} dest {dest:#06x} left on port {}, {n} beats", o.m_axis_tdest));
            }
        }
        self.out_beat_new = !o.m_axis_tvalid || out_taken;

        // Input side.
        if i.s_axis_tvalid && !o.s_axis_tready && !i.rst {
            self.bump(Event::FullCycles);
        }
        if i.s_axis_tvalid && o.s_axis_tready {
            self.bump(Event::BeatsIn);
            let beat = (i.s_axis_tdata.truncated(self.p.data_width), i.s_axis_tkeep & keep_mask, i.s_axis_tlast);
            if !self.in_frame {
                let id = self.next_id;
                self.next_id += 1;
                self.frames.push_back(Frame {
                    id,
                    dest: i.s_axis_tuser,
                    beats: Vec::new(),
                    complete: false,
                    version: self.versions.len() - 1,
                    fate: Fate::Pending,
                    emitted: 0,
                });
                self.bump(Event::FramesIn);
            }
            let f = self.frames.back_mut().ok_or("no frame to append to")?;
            f.beats.push(beat);
            f.complete = i.s_axis_tlast;
            self.in_frame = !i.s_axis_tlast;
            if i.s_axis_tlast {
                let (id, dest, n) = (f.id, f.dest, f.beats.len());
                self.log.push(cycle, format!("frame #{id} dest {dest:#06x} entered, {n} beats"));
            }
        }

        // Configuration and reset take effect at the edge ending this cycle.
        let mut table = self.versions.last().cloned().unwrap_or_default();
        let mut changed = false;
        if i.cfg_route_wr_en {
            self.bump(Event::RouteWrites);
            let index = usize::from(i.cfg_route_wr_index) & ((1 << self.p.route_index_width()) - 1);
            if let Some(e) = table.get_mut(index) {
                let port_mask = ((1u16 << self.p.port_width) - 1) as u8;
                *e = Route { valid: i.cfg_route_wr_valid, dest_id: i.cfg_route_wr_dest_id, dest_mask: i.cfg_route_wr_dest_mask, port: i.cfg_route_wr_port & port_mask };
                changed = true;
                self.log.push(cycle, format!(
                    "route[{index}] := valid {} id {:#06x} mask {:#06x} port {}",
                    i.cfg_route_wr_valid, i.cfg_route_wr_dest_id, i.cfg_route_wr_dest_mask, e.port
                ));
            }
        }
        if i.rst {
            self.bump(Event::Resets);
            let flushed = self.frames.iter().filter(|f| !matches!(f.fate, Fate::Missed) || !f.complete).count();
            self.add(Event::Flushed, flushed as u64);
            self.frames.clear();
            self.emitting.clear();
            self.in_frame = false;
            self.out_in_frame = false;
            self.out_beat_new = true;
            for e in &mut table {
                e.valid = false;
            }
            changed = true;
            self.log.push(cycle, "reset".to_string());
        }
        if changed {
            // Frames keep indices into this history, so it only grows (one entry per write or reset).
            self.versions.push(table);
        }
        self.retire();
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        COUNTERS.iter().copied().zip(self.counts).collect()
    }
}

/// Builds a fresh lockstep bench for the Verilated model `model` (an output queue) and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<OutputQueue, OutputQueueRtl, OutputQueueStimulus, OutputQueueMonitor>, HarnessError> {
    let p = params_of(model)?;
    let info = crate::verilated::model_info(model)?;
    let m = OutputQueue::new(p).map_err(|e| HarnessError::Params { model: info.name, detail: e.to_string() })?;
    let rtl = OutputQueueRtl::new(model)?;
    Ok(Bench::new(m, rtl, OutputQueueStimulus::new(p, seed), OutputQueueMonitor::new(p)))
}

/// Runs the output-queue target `model` (`output_queue_w256`, `output_queue_w64`).
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let width = params_of(model).map(|p| p.data_width).unwrap_or_default();
    let reproduce = move |seed: u64, cycles: u64| {
        format!("cargo run --release -- cosim --block output_queue --width {width} --seed {seed} --cycles {cycles}")
    };
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
