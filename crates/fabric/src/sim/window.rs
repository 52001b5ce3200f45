//! Engine-major windows: the awake engines stepped one after another through a run of cycles in which
//! nothing from outside can reach any of them, each engine's state staying in the cache for its whole
//! run, instead of every awake engine once per cycle (1,024 engines' state does not stay in the cache
//! from one cycle to the next). Exact: the window's effects outside the engines (CPU event log,
//! wake-ups, frames) are then applied cycle by cycle, in the order and at the cycles stepping
//! cycle-major applies them, with the fabric events in between ([`Fabric::run_window`]).
//!
//! Why nothing reaches an engine inside a window (`c0..c1`, `c1 <= c0 + `[`Fabric::lookahead`]): every
//! event still queued is later than cycle `c0`, and a frame an engine finishes in the window enters its
//! switch at `c0 + 1` at the earliest; at a switch a frame takes the hop latency before it goes anywhere,
//! so no event reaches an engine's port (`Ev::ToEngine`) before cycle `c0 + 1 + hop latency / cycle`,
//! except the frames already queued for a port. An awake engine takes each of those into its receive
//! queue before stepping the cycle its event is processed before (all such an event does to an awake
//! engine, [`Fabric::frame_queued`]), and the event itself (its delivery record) is processed in cycle
//! order with the others, marked as taken. An engine that goes to sleep before such a frame stops there,
//! and the frame's event wakes it as it would any sleeping engine. A frame reaching an engine stepped past
//! it without having been taken would panic (checked while the window's events are processed). A
//! wake-up on a running timer inside the window is processed there too: that engine is stepped cycle by
//! cycle from it, like an engine woken in [`Fabric::step_engines`].

use super::engine::{quiescent, step_one, Effect};
use super::fabric::{EngineSlot, Ev, Fabric, ENGINE_CLOCK_PS};
use crate::topology::Ps;

impl Fabric {
    /// Cycles an engine-major window may take: nothing an engine emits in its first cycle reaches an
    /// engine before this many cycles (module doc).
    pub(super) fn lookahead(&self) -> u64 {
        1 + self.cfg.hop_latency_ps / ENGINE_CLOCK_PS
    }

    /// Steps cycles `self.cycle..c1` engine-major and applies their effects in cycle order, processing
    /// the events between its cycles as [`Fabric::run_until_quiet`] would. An awake engine takes the
    /// frames queued for its port inside the window where their events would have put them (module doc);
    /// one a wake-up wakes is stepped cycle-major from there. With `guard`, the window also ends where its
    /// first engine is quiescent or asleep (the run loop's quiescence check, module doc). The caller
    /// guarantees that `c1` is within the lookahead and that `c1 - 1` is within the run's limit. Returns
    /// the cycles stepped (fewer than asked if every engine went to sleep: the run loop goes on from
    /// there) and updates `last_event` with the last fabric event processed.
    pub(super) fn run_window(&mut self, c1: u64, guard: bool, last_event: &mut Ps) -> u64 {
        let c0 = self.cycle;
        let (skip, log) = (self.cfg.skip_idle, self.cpu_log.is_some());
        if !self.awake_sorted {
            self.awake.sort_unstable();
            self.awake_sorted = true;
        }
        // The frames queued for a port inside the window (every one that can reach an engine in it, module
        // doc), by switch and in event order: (switch, event time, order, frame, its first cycle).
        let mut queued: Vec<(u32, Ps, u64, u32, u64)> = Vec::new();
        for &(t, order, sw, f) in self.to_engine_queued.range(..(c1 * ENGINE_CLOCK_PS, 0, 0, 0)) {
            queued.push((sw, t, order, f, t.div_ceil(ENGINE_CLOCK_PS)));
        }
        // Stable: each switch's frames keep the queue's (time, order).
        queued.sort_by_key(|q| q.0);
        // The events whose frame an engine took into its receive queue inside the window, by (time, order).
        let mut delivered: Vec<(Ps, u64)> = Vec::new();
        let batch = std::mem::take(&mut self.awake);
        // Each engine through the window until it goes to sleep: (cycle, engine, effect).
        let mut fx: Vec<(u64, u32, Effect)> = Vec::new();
        let mut one: Vec<(u32, Effect)> = Vec::new();
        // Engines still awake where their own window ended: they go on cycle-major from that cycle.
        let mut joins: Vec<(u64, u32)> = Vec::new();
        let (mut c1, mut end, mut guarded) = (c1, c0, !guard);
        // `batch` and `queued` are both in switch order: each engine's frames start where the previous
        // engine's search stopped (a binary search per engine cost more at 1,024 engines).
        let mut cursor = 0;
        for &s in &batch {
            let EngineSlot::Cycle(c) = &mut self.engines[s as usize] else { continue };
            // As in a cycle: an engine set aside or stopped leaves the awake list unstepped.
            if !c.active || c.stopped {
                continue;
            }
            cursor += queued[cursor..].iter().take_while(|q| q.0 < s).count();
            let mine = &queued[cursor..cursor + queued[cursor..].iter().take_while(|q| q.0 == s).count()];
            let mut next = 0;
            // The guard (the first engine, if asked): the window ends where it is quiescent or asleep.
            let is_guard = !guarded;
            guarded = true;
            let (mut cycle, mut awake) = (c0, true);
            while cycle < c1 {
                if is_guard && cycle > c0 && quiescent(c, cycle) {
                    break;
                }
                // The frames whose events fall before this cycle's step: an awake engine takes each into its
                // receive queue and nothing else ([`Fabric::frame_queued`]), so it is done here, the rest
                // of the event (its delivery record) in cycle order below. An engine that went to sleep
                // stopped before them: their events wake it there.
                while let Some(&(_, t, order, f, from)) = mine.get(next).filter(|q| q.4 <= cycle) {
                    c.rx.push_back((f, from));
                    delivered.push((t, order));
                    next += 1;
                }
                awake = step_one(c, &self.frames, &mut self.stats, log, skip, s, cycle, &mut one);
                fx.extend(one.drain(..).map(|(s, x)| (cycle, s, x)));
                cycle += 1;
                if !awake {
                    break;
                }
            }
            if is_guard {
                c1 = cycle;
            }
            if awake {
                joins.push((cycle, s));
            }
            end = end.max(cycle);
        }
        self.window_frames += delivered.len() as u64;
        delivered.sort_unstable();
        joins.sort_unstable();
        joins.reverse();
        // Cycle order, switch order within a cycle; the sort is stable (an engine's effects of one
        // cycle keep their order). Reversed, to take them from the back.
        fx.sort_by_key(|&(cycle, s, _)| (cycle, s));
        fx.reverse();
        let mut cycle = c0;
        while cycle < c1 {
            self.cycle = cycle;
            let cyc_t = cycle * ENGINE_CLOCK_PS;
            // The events due before this cycle's step: those the window's own frames and wake-ups made.
            while self.next_event_time().is_some_and(|t| t <= cyc_t) {
                let Some((t, order, ev)) = self.heap.pop() else { break };
                let mut taken = false;
                if let Ev::ToEngine { f, sw, .. } = ev {
                    self.to_engine_queued.remove(&(t, order, sw, f));
                    taken = delivered.binary_search(&(t, order)).is_ok();
                    let ahead = matches!(&self.engines[sw as usize], EngineSlot::Cycle(c) if c.last.is_some_and(|l| l >= cycle));
                    assert!(taken || !ahead, "a frame reached engine {sw} in cycle {cycle}, inside its engine-major window {c0}..{c1}");
                }
                self.now = t;
                if !matches!(ev, Ev::Wake { .. }) {
                    *last_event = t;
                }
                match ev {
                    Ev::ToEngine { f, sw, tail } if taken => {
                        self.stats.events += 1;
                        self.to_engine(t, f, sw, tail, true);
                    }
                    _ => self.process(t, ev),
                }
            }
            while joins.last().is_some_and(|j| j.0 == cycle) {
                let (_, s) = joins.pop().expect("checked");
                self.awake.push(s);
                self.awake_sorted = false;
            }
            // No engine stepped in this cycle (all asleep, none woken): the run loop takes over here.
            if cycle >= end && self.awake.is_empty() {
                break;
            }
            self.now = self.now.max(cyc_t);
            // This cycle's effects: the window's engines' (stepped already) and those of engines a
            // wake-up in the window woke (stepped now), in switch order.
            let mut now: Vec<(u32, Effect)> = Vec::new();
            while fx.last().is_some_and(|x| x.0 == cycle) {
                let (_, s, x) = fx.pop().expect("checked");
                now.push((s, x));
            }
            if !self.awake.is_empty() {
                self.step_awake(cycle, &mut now);
                now.sort_by_key(|x| x.0);
            }
            self.apply_effects(cycle, now);
            cycle += 1;
        }
        debug_assert!(fx.is_empty(), "every effect of the window applied");
        self.cycle = cycle;
        // Those awake through the window join the awake list with any woken in it (sorted before the
        // next cycle).
        for (_, s) in joins.drain(..) {
            self.awake.push(s);
            self.awake_sorted = false;
        }
        cycle - c0
    }
}
