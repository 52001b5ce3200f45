//! The event loop: what each event does (a frame at a switch, at an engine, at an end node; timers)
//! and the run, which interleaves the events with the engine clock.

use crate::faults::{Fault, FaultInjector, FaultKind};
use crate::topology::{Device, Ps};
use crate::wire::{self, LinkFrame};

use super::fabric::{beats_of, EngineKind, EngineSlot, Ev, Fabric, ENGINE_CLOCK_PS};

/// Loop iterations (events, cycles) between two calls of a run's progress callback.
const PROGRESS_EVERY: u64 = 65_536;

impl Fabric {
    pub(super) fn process(&mut self, t: Ps, ev: Ev) {
        // Wake-ups are engine scheduling, not fabric events (counted in `timer_wakes`).
        if !matches!(ev, Ev::Wake { .. }) {
            self.stats.events += 1;
        }
        match ev {
            Ev::Wake { sw, cycle } => self.wake_on_timer(sw as usize, cycle),
            Ev::Send { f, e } => {
                let sw = self.topo.endpoints[e as usize].switch as u32;
                for (f, h, tl) in self.hop(self.up[e as usize], f, t, t) {
                    self.push(h, Ev::AtSwitch { f, sw, head: h, tail: tl });
                }
            }
            Ev::Retry { e, cc } => self.retry_contribution(e as usize, cc, t),
            Ev::StartRetry { cc } => self.retry_start(cc, t),
            Ev::InitRetry { cc } => self.retry_inits(cc, t),
            Ev::PortalsRoot { e, dfa, seqno } => self.portals_root_timer(e as usize, dfa, seqno, t),
            Ev::PortalsRearm { e, dfa, seqno, n } => self.portals_rearm(e as usize, dfa, seqno, n, t),
            Ev::PortalsRestart { e, dfa, seqno } => self.portals_restart(e as usize, dfa, seqno, t),
            Ev::AtSwitch { f, sw, head, tail } => {
                let lat = self.cfg.hop_latency_ps;
                let (head, tail) = (head + lat, tail + lat);
                let sw = sw as usize;
                if wire::is_soft_portals(&self.frames[f as usize].bytes) {
                    return self.portals_at_switch(f, sw, head, tail);
                }
                let dst = self.frames[f as usize].dst;
                if !self.routes.switch_up(sw) {
                    // A frame already on its way when the switch failed.
                    self.stats.unreachable += 1;
                    return;
                }
                match self.routes.device[usize::from(dst)] {
                    Some(Device::Engine(s)) if s == sw => {
                        let (h, tl) = self.traverse(self.to_engine[sw], f, head, tail);
                        match self.cfg.engine {
                            EngineKind::Cycle => {
                                // The last beat enters when the tail has arrived, the others one per cycle
                                // before it (at the real length; with nominal sizes the tail is later).
                                let nb = beats_of(&self.frames[f as usize].bytes) as Ps;
                                let first = (h + ENGINE_CLOCK_PS).max(tl.saturating_sub((nb - 1) * ENGINE_CLOCK_PS)).min(tl);
                                self.push(first, Ev::ToEngine { f, sw: sw as u32, tail: tl })
                            }
                            EngineKind::TableArithmetic => self.push(tl, Ev::ToStandIn { f, sw: sw as u32 }),
                        }
                    }
                    Some(Device::Endpoint(e)) if self.topo.endpoints[e].switch == sw => {
                        for (f, _, tl) in self.hop(self.down[e], f, head, tail) {
                            self.push(tl, Ev::ToEndpoint { f, e: e as u32 });
                        }
                    }
                    Some(d) => {
                        let target = match d {
                            Device::Engine(s) => s,
                            Device::Endpoint(e) => self.topo.endpoints[e].switch,
                        };
                        let Some((i, next)) = self.routes.next_hop_to(sw, target) else {
                            self.stats.unreachable += 1;
                            return;
                        };
                        let next = next as u32;
                        for (f, h, tl) in self.hop(self.isl_channel(i), f, head, tail) {
                            self.push(h, Ev::AtSwitch { f, sw: next, head: h, tail: tl });
                        }
                    }
                    None => self.stats.unroutable += 1,
                }
            }
            Ev::ToEngine { f, sw, tail } => self.to_engine(t, f, sw, tail, false),
            Ev::ToStandIn { f, sw } => {
                let id = self.topo.switches[sw as usize].engine_id;
                if let Some(m) = self.record(f, t, id) {
                    let from = wire::requester(&self.frames[f as usize].bytes).unwrap_or(0);
                    self.stand_in(sw as usize, t, &m, from);
                }
            }
            Ev::ToEndpoint { f, e } => {
                if self.faults.is_some() && !wire::frame_ok(&self.frames[f as usize].bytes) {
                    // The end node's data-link layer drops a frame whose LCRC (FCS) does not match.
                    self.stats.end_node_lcrc_drops += 1;
                    return;
                }
                if wire::is_soft_portals(&self.frames[f as usize].bytes) {
                    return self.portals_end_node(e as usize, t, f);
                }
                let id = self.topo.endpoints[e as usize].id;
                if let Some(m) = self.record(f, t, id) {
                    let from = wire::requester(&self.frames[f as usize].bytes).unwrap_or(0);
                    self.end_node(e as usize, t, &m, from);
                }
                self.release(f);
            }
        }
    }

    /// Frame `f` at engine `sw`'s port ([`Ev::ToEngine`] at `t`). `queued`: an engine-major window has put
    /// it in the engine's receive queue already (`sim::window`), where this would have.
    pub(super) fn to_engine(&mut self, t: Ps, f: u32, sw: u32, tail: Ps, queued: bool) {
        let cycle = t.div_ceil(ENGINE_CLOCK_PS);
        if let EngineSlot::Cycle(c) = &mut self.engines[sw as usize] {
            if c.stopped {
                let fault = Fault::on_frame(t, FaultKind::LostAtStoppedEngine, Some(sw as usize), Some(f), &LinkFrame::parse(&self.frames[f as usize].bytes));
                self.faults.get_or_insert_with(|| FaultInjector::new(0, Default::default())).log.push(fault);
                return;
            }
            if self.faults.is_some() && !wire::frame_ok(&self.frames[f as usize].bytes) {
                self.stats.corrupt_to_engines += 1;
            }
        }
        if !queued {
            self.frame_queued(sw as usize, f, cycle);
        }
        let id = self.topo.switches[sw as usize].engine_id;
        self.record(f, tail, id);
    }

    /// The time of the next event, after dropping the wake-ups no longer due at the head of the queue
    /// unseen: they must not hold the run open or move the clock.
    pub(super) fn next_event_time(&mut self) -> Option<Ps> {
        while let Some((t, _, ev)) = self.heap.first() {
            match ev {
                Ev::Wake { sw, cycle } if !self.wake_due(sw as usize, cycle) => {
                    self.heap.pop();
                }
                _ => return Some(t),
            }
        }
        None
    }

    /// Runs until nothing is in flight and every engine is quiescent (or `limit` is passed); returns
    /// the time of the last event.
    ///
    /// Cost: each cycle visits only the awake engines. While engines sleep on running timers (and none
    /// is awake), the engine clock jumps from event to event, stopping where stepping every cycle
    /// would have stopped (the first cycle past `limit`), so `now` is the same with and without
    /// skipping.
    pub fn run_until_quiet(&mut self, limit: Ps, progress: &mut dyn FnMut(Ps)) -> Ps {
        let mut last_event = self.now;
        let mut n = 0u64;
        loop {
            let ev_t = self.next_event_time();
            let awake = self.cfg.engine == EngineKind::Cycle && !self.awake.is_empty();
            // The engine clock runs while an engine is awake or asleep on a running timer.
            let clocked = awake || self.timer_sleepers > 0;
            let cyc_t = self.cycle * ENGINE_CLOCK_PS;
            if clocked && ev_t.is_none_or(|t| cyc_t < t) {
                if !awake {
                    // Only timer sleepers: every cycle up to the next event (there is one, their
                    // wake-ups) would be idle. Jump to its cycle, or stop at the first past `limit`.
                    let t = ev_t.expect("a wake-up event for every engine asleep on a timer");
                    let next = t.div_ceil(ENGINE_CLOCK_PS);
                    let past_limit = limit / ENGINE_CLOCK_PS + 1;
                    if past_limit < next {
                        self.cycle = self.cycle.max(past_limit);
                        self.now = self.now.max(self.cycle * ENGINE_CLOCK_PS);
                        self.catch_up_timer_sleepers();
                        break;
                    }
                    self.now = self.now.max((next - 1) * ENGINE_CLOCK_PS);
                    self.cycle = next;
                    continue;
                }
                if ev_t.is_none() && self.all_quiescent() {
                    break;
                }
                self.now = self.now.max(cyc_t);
                if self.now > limit {
                    self.catch_up_timer_sleepers();
                    break;
                }
                // Engine-major while nothing can reach an awake engine (`sim::window`): up to the
                // lookahead, within the limit.
                let c1 = (self.cycle + self.lookahead()).min(limit / ENGINE_CLOCK_PS + 1);
                if self.cfg.engine_major && self.awake.len() > 1 && c1 > self.cycle + 1 {
                    // With no event left (the queue may empty inside the window), the loop stops at the
                    // first cycle in which every awake engine is quiescent: the window keeps one that is not.
                    let guard = !self.heap.last().is_some_and(|(t, _, ev)| t >= c1 * ENGINE_CLOCK_PS && !matches!(ev, Ev::Wake { .. }));
                    let stepped = self.run_window(c1, guard, &mut last_event);
                    if (n + stepped) / PROGRESS_EVERY != n / PROGRESS_EVERY {
                        progress(self.now);
                    }
                    n += stepped;
                    continue;
                }
                self.step_engines();
                self.cycle += 1;
            } else if let Some((t, order, ev)) = self.heap.first() {
                if t > limit {
                    self.catch_up_timer_sleepers();
                    break;
                }
                self.heap.pop();
                if let Ev::ToEngine { f, sw, .. } = ev {
                    self.to_engine_queued.remove(&(t, order, sw, f));
                }
                self.now = t;
                if !clocked && self.cfg.engine == EngineKind::Cycle {
                    // Every engine slept: the engine clock catches up with the event.
                    self.cycle = self.cycle.max(t / ENGINE_CLOCK_PS);
                }
                // The time of the last fabric event: a wake-up is engine scheduling.
                if !matches!(ev, Ev::Wake { .. }) {
                    last_event = t;
                }
                self.process(t, ev);
            } else {
                break;
            }
            n += 1;
            if n % PROGRESS_EVERY == 0 {
                progress(self.now);
            }
        }
        progress(self.now);
        last_event
    }
}

