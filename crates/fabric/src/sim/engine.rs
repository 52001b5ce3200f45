//! The cycle engines in the fabric: bring-up, stepping them cycle by cycle on the engine clock
//! (beats in, beats out, frames back into the crossbar), and idle-cycle skipping (when an engine may
//! sleep, how it wakes exactly where stepping would have left it; [`super`] module doc).

use inswitch_model::cpu::seq;
use inswitch_model::packet_engine::{EngineIn, EngineOut};
use inswitch_model::{Block, Wide};

use super::fabric::{beats_of, CycleEngine, EngineSlot, Ev, Fabric, Frame, Stats, BEAT_BYTES, ENGINE_CLOCK_PS, ENGINE_PORT, RESET_CYCLES};
use crate::topology::Ps;
use crate::wire;

/// The CPU timeouts the fabric's engines run with, written at bring-up as register writes into
/// `RED_TIMEOUT[k]` / `RED_THRESHOLD[k]`, which the register space forwards to the CPU's `TIMEOUT[k]` /
/// `THRESHOLD[k]` (`docs/blocks/register_space.md` §CPU window): the CPU's own reset values (`docs/blocks/cpu.md` §Ports: every
/// TIMEOUT 1024 ticks, every context on `TIMEOUT[0]`), which the fabric's scenarios and Table 1 figures
/// were measured with. The register space's reset RED_TIMEOUT / RED_THRESHOLD (1, 0x10, 0x100, 0x1000
/// ticks by wait count), which its post-reset copy gives the CPU, would time out a context waiting one
/// tick. Register offset and value per write.
pub fn bring_up_timeouts() -> impl Iterator<Item = (u16, u32)> {
    use inswitch_model::cpu::config::{THRESHOLD_RESET, TIMEOUT_RESET};
    use inswitch_model::cpu::context::{THRESHOLDS, TIMEOUTS};
    use inswitch_model::register_space::offset::{RED_THRESHOLD, RED_TIMEOUT};
    let at = |base: u32, k: usize| (base + 4 * k as u32) as u16;
    (0..TIMEOUTS).map(move |k| (at(RED_TIMEOUT, k), TIMEOUT_RESET)).chain((0..THRESHOLDS).map(move |k| (at(RED_THRESHOLD, k), THRESHOLD_RESET)))
}

/// Cycles without any input, output or event after which an engine with an idle sequencer and no
/// running timer is quiescent. Longer than the engine's deepest pipeline (35 cycles from the last
/// contribution to the first completion beat, `docs/blocks/packet_engine.md` §Timing).
pub const QUIET_CYCLES: u64 = 64;

/// Route entry 0 of the output queue as two register writes (`docs/blocks/register_space.md` ROUTE): destination 0
/// under mask 0 (matches every ID), then valid | the engine's own port [`ENGINE_PORT`].
const DEFAULT_ROUTE: [(u16, u32); 2] =
    [(inswitch_model::register_space::offset::ROUTE as u16, 0), (inswitch_model::register_space::offset::ROUTE as u16 + 4, 1 << 31 | ENGINE_PORT as u32)];

impl Fabric {
    /// Bring-up of every cycle engine, before any plan (what a manager does not program, `docs/manager.md`
    /// §9), as register writes from end node `from` at `at`: the CPU timeouts and thresholds the fabric
    /// runs with ([`bring_up_timeouts`], forwarded to the CPU by the register space), and route entry 0
    /// (destination 0 under mask 0) to the engine's own port, so its frames go back into the crossbar,
    /// which routes them. The CPU's ENGINE_ID needs no write: the register space copies the strap after
    /// reset. The stand-in needs none.
    pub fn bring_up(&mut self, from: usize, at: Ps) {
        for s in 0..self.engines.len() {
            if !matches!(self.engines[s], EngineSlot::Cycle(_)) {
                continue;
            }
            for (off, v) in bring_up_timeouts().chain(DEFAULT_ROUTE) {
                self.write_register(from, at, s, off, v);
            }
        }
    }

    pub(super) fn wake(&mut self, s: usize) {
        let skip = self.cfg.skip_idle;
        let now = self.cycle;
        let EngineSlot::Cycle(c) = &mut self.engines[s] else { return };
        if c.active || c.stopped {
            return;
        }
        c.active = true;
        if c.wake_at.take().is_some() {
            self.timer_sleepers -= 1;
        }
        debug_assert!(skip, "engines only sleep when skipping");
        // Cycles the engine did not see: its prescaler and running timers must end where they would have.
        let first = c.last.map_or(0, |l| l + 1);
        let skipped = now.saturating_sub(first);
        if skipped > 0 {
            advance_asleep(c, &self.frames, &mut self.stats, s, first, skipped);
        }
        c.last = Some(now.saturating_sub(1).max(first.saturating_sub(1)));
        c.last_activity = now;
        if self.awake.last().is_some_and(|&x| x as usize > s) {
            self.awake_sorted = false;
        }
        self.awake.push(s as u32);
    }

    /// Frame `f` queued for engine `s`'s port, its first beat from `cycle` on ([`Ev::ToEngine`]): wakes
    /// the engine (brought to the current cycle with the input it had before the frame), unless it is
    /// asleep in its interposer's clearing sweep, which takes no receive beat before its wake-up in the
    /// sweep's last cycle. That engine sleeps on; if the frame is the first waiting, its input changes (a
    /// beat offered from the frame's cycle on), so it is first brought to the current cycle in closed
    /// form with the input it had.
    pub(super) fn frame_queued(&mut self, s: usize, f: u32, cycle: u64) {
        let now = self.cycle;
        let EngineSlot::Cycle(c) = &mut self.engines[s] else { return };
        let in_sweep = !c.active && !c.stopped && c.wake_at.is_some() && c.e.clearing();
        if in_sweep {
            let first = c.last.map_or(0, |l| l + 1);
            if c.rx.is_empty() && now > first {
                advance_asleep(c, &self.frames, &mut self.stats, s, first, now - first);
                c.last = Some(now - 1);
            }
        } else {
            self.wake(s);
        }
        if let EngineSlot::Cycle(c) = &mut self.engines[s] {
            c.rx.push_back((f, cycle));
        }
    }

    /// Whether a wake-up ([`Ev::Wake`]) is still due: not if the engine woke since (a frame), whether
    /// or not it went to sleep again.
    pub(super) fn wake_due(&self, s: usize, cycle: u64) -> bool {
        matches!(&self.engines[s], EngineSlot::Cycle(c) if !c.active && c.wake_at == Some(cycle))
    }

    /// The wake-up of an engine asleep on a running timer or in its clearing sweep ([`Ev::Wake`]), if
    /// still due.
    pub(super) fn wake_on_timer(&mut self, s: usize, cycle: u64) {
        if self.wake_due(s, cycle) {
            let EngineSlot::Cycle(c) = &self.engines[s] else { return };
            let last_activity = c.last_activity;
            debug_assert_eq!(self.cycle, cycle, "a wake-up is processed in its cycle");
            if c.e.clearing() {
                self.stats.sweep_wakes += 1;
            } else {
                self.stats.timer_wakes += 1;
            }
            self.wake(s);
            // Unlike a frame, the expiry (or the sweep's end) is no activity of its own: the engine goes back to sleep by
            // the same rule, in the same cycle, as if it had been stepped throughout, so `now` at the
            // end of a run is the same with and without skipping.
            if let EngineSlot::Cycle(c) = &mut self.engines[s] {
                c.last_activity = last_activity;
            }
        }
    }

    /// Brings every engine asleep on a running timer (or in its clearing sweep) to the current cycle in closed form (its timers as
    /// if it had been stepped through the last cycle), without waking it: for inspection when
    /// [`Fabric::run_until_quiet`] stops at its limit. Its wake-up stays where it is.
    pub(super) fn catch_up_timer_sleepers(&mut self) {
        if self.timer_sleepers == 0 {
            return;
        }
        let now = self.cycle;
        for (s, slot) in self.engines.iter_mut().enumerate() {
            let EngineSlot::Cycle(c) = slot else { continue };
            let Some(first) = c.last.map(|l| l + 1).filter(|_| c.wake_at.is_some() && !c.active) else { continue };
            let n = now.saturating_sub(first);
            if n == 0 {
                continue;
            }
            advance_asleep(c, &self.frames, &mut self.stats, s, first, n);
            c.last = Some(now - 1);
        }
    }

    /// Steps every active engine for the current cycle; sets aside those that have no work left.
    pub(super) fn step_engines(&mut self) {
        let cycle = self.cycle;
        let mut fx = Vec::new();
        self.step_awake(cycle, &mut fx);
        self.apply_effects(cycle, fx);
    }

    /// Steps the engines of the awake list in `cycle` (in switch order) and keeps those still awake;
    /// what their cycle does outside them goes to `fx`, in switch order.
    pub(super) fn step_awake(&mut self, cycle: u64, fx: &mut Vec<(u32, Effect)>) {
        let (skip, log) = (self.cfg.skip_idle, self.cpu_log.is_some());
        if !self.awake_sorted {
            self.awake.sort_unstable();
            self.awake_sorted = true;
        }
        // Only the awake engines are visited; those still awake after the cycle are kept, in order.
        let mut awake = std::mem::take(&mut self.awake);
        let mut kept = 0;
        for k in 0..awake.len() {
            let s = awake[k] as usize;
            let EngineSlot::Cycle(c) = &mut self.engines[s] else { continue };
            if !c.active || c.stopped {
                continue;
            }
            if step_one(c, &self.frames, &mut self.stats, log, skip, s as u32, cycle, fx) {
                awake[kept] = s as u32;
                kept += 1;
            }
        }
        awake.truncate(kept);
        self.awake = awake;
    }

    /// What the engines' cycle `cycle` does outside them, `fx` in switch order: the CPU event log, then
    /// the wake-ups of those asleep on a timer, then the frames they finished, into the crossbar.
    pub(super) fn apply_effects(&mut self, cycle: u64, fx: Vec<(u32, Effect)>) {
        let t_done = (cycle + 1) * ENGINE_CLOCK_PS;
        if let Some(log) = self.cpu_log.as_mut() {
            for (s, x) in &fx {
                if let Effect::Cpu { event, ctx } = *x {
                    log.push((cycle * ENGINE_CLOCK_PS, *s as u16, event, ctx));
                }
            }
        }
        for (s, x) in &fx {
            if let Effect::Wake(w) = *x {
                self.timer_sleepers += 1;
                self.push(w * ENGINE_CLOCK_PS, Ev::Wake { sw: *s, cycle: w });
            }
        }
        for (s, x) in fx {
            let (bytes, egress, first) = match x {
                Effect::Emit { bytes, egress, first } => (bytes, egress, first),
                Effect::Taken(f) => {
                    if !wire::is_soft_portals(&self.frames[f as usize].bytes) {
                        self.release(f);
                    }
                    continue;
                }
                _ => continue,
            };
            let s = s as usize;
            if egress {
                self.stats.egress_frames += 1;
            }
            let id = self.topo.switches[s].engine_id;
            // The interposer passes what it does not extract (docs/blocks/interposer.md: it does not
            // validate), e.g. a frame whose header a corruption changed. On a real port it would go on
            // to the link partner; the engine's port here has none, and a frame addressed to the engine
            // would come straight back: such frames are counted and dropped.
            if self.faults.is_some() && !wire::frame_ok(&bytes) {
                self.stats.corrupt_passed_by_engines += 1;
                continue;
            }
            if !wire::is_soft_portals(&bytes) && wire::destination(&bytes) == Some(id) {
                self.stats.self_addressed_drops += 1;
                continue;
            }
            let f = self.new_frame(bytes, id);
            // The engine's port into the crossbar: cut-through from the first beat; the engine emits one
            // beat per cycle at port rate, so with real sizes the port adds nothing, with nominal sizes
            // it serializes the nominal length (the serial point of Table 1). The frame is routed once
            // its last beat is out (when the simulator knows it), timed from its first beat.
            let (h, tl) = self.traverse(self.from_engine[s], f, first * ENGINE_CLOCK_PS, t_done);
            self.push(h.max(t_done), Ev::AtSwitch { f, sw: s as u32, head: h, tail: tl });
        }
    }

    /// Every awake engine is quiescent (asleep ones are, or have a wake-up event pending).
    pub(super) fn all_quiescent(&self) -> bool {
        self.awake.iter().all(|&s| match &self.engines[s as usize] {
            EngineSlot::Cycle(c) => quiescent(c, self.cycle),
            EngineSlot::StandIn(_) => true,
        })
    }
}

/// What an engine's cycle does outside the engine, applied in switch order by
/// [`Fabric::apply_effects`] (an engine-major window applies them after stepping, `sim::window`).
#[derive(Debug)]
pub(super) enum Effect {
    /// A CPU event on `cpu_stat_*` (for [`Fabric::cpu_log`]).
    Cpu { event: u8, ctx: u16 },
    /// Asleep on a running timer until this cycle ([`Ev::Wake`]).
    Wake(u64),
    /// A frame whose last beat is out, from the VL or the egress output, its first beat in `first`.
    Emit { bytes: Vec<u8>, egress: bool, first: u64 },
    /// The engine took the last beat of this frame: its buffer may be released ([`Fabric::release`];
    /// applied with the cycle's effects, after the frame's [`Ev::ToEngine`], whose time is at or before
    /// its first beat's cycle, has recorded it).
    Taken(u32),
}

/// Steps engine `s` (active, not stopped) in `cycle`: its receive beat in, its beats out, its counters;
/// what the cycle does outside it goes to `fx`. Returns whether it stays awake (else it is set aside:
/// asleep, or asleep until a timer's wake-up, an [`Effect::Wake`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn step_one(c: &mut CycleEngine, frames: &[Frame], stats: &mut Stats, log: bool, skip: bool, s: u32, cycle: u64, fx: &mut Vec<(u32, Effect)>) -> bool {
    let (i, presented) = input_of(c, frames, cycle);
    // The port family of the frame being received (set on its first beat, kept to the next).
    c.family = i.cfg_family;
    let o = c.e.step(&i);
    c.steps += 1;
    stats.engine_steps += 1;
    c.last = Some(cycle);
    if o.stat_event & inswitch_model::packet_engine::ROUTE_MISS_EVENT != 0 {
        stats.route_misses += 1;
    }
    if o.cpu_stat_valid {
        c.events[usize::from(o.cpu_stat_event) % inswitch_model::cpu::event::COUNT] += 1;
        if log {
            fx.push((s, Effect::Cpu { event: o.cpu_stat_event, ctx: o.cpu_stat_ctx }));
        }
    }
    if presented && o.s_axis_rx_tready {
        c.rx_beat += 1;
        c.last_activity = cycle;
        if i.s_axis_rx_tlast {
            if let Some((f, _)) = c.rx.pop_front() {
                fx.push((s, Effect::Taken(f)));
            }
            c.rx_beat = 0;
        }
    }
    c.vl_taken = 0;
    for (valid, data, keep, last, egress) in [
        (o.m_axis_vl_tvalid, o.m_axis_vl_tdata, o.m_axis_vl_tkeep, o.m_axis_vl_tlast, false),
        (o.m_axis_egress_tvalid, o.m_axis_egress_tdata, o.m_axis_egress_tkeep, o.m_axis_egress_tlast, true),
    ] {
        if valid {
            if !egress {
                c.vl_taken = 1;
            }
            if c.out.is_empty() {
                c.out_first = cycle;
            }
            for k in 0..BEAT_BYTES {
                if keep >> k & 1 == 1 {
                    c.out.push(data.byte(k));
                }
            }
            if last {
                // The next frame's buffer at this one's size: one allocation, not a doubling per few beats.
                let next = Vec::with_capacity(c.out.len());
                fx.push((s, Effect::Emit { bytes: std::mem::replace(&mut c.out, next), egress, first: c.out_first }));
            }
        }
    }
    if busy(&o) {
        c.last_activity = cycle;
    }
    match if skip { rest(c, cycle) } else { Rest::Awake } {
        Rest::Awake => true,
        Rest::Asleep => {
            c.active = false;
            false
        }
        Rest::UntilWake(n) => {
            c.active = false;
            c.wake_at = Some(cycle + n);
            fx.push((s, Effect::Wake(cycle + n)));
            false
        }
    }
}

/// The input [`step_one`] gives engine `c` in `cycle`, and whether it offers a receive beat: the head
/// frame's next beat once it may enter (beat k of a frame from its cycle + k: the port delivers one beat
/// per cycle), with the port family of the frame being received (set on its first beat, kept to the next).
fn input_of(c: &CycleEngine, frames: &[Frame], cycle: u64) -> (EngineIn, bool) {
    let mut i = idle_in(c.id, c.vl_taken);
    i.rst = cycle < RESET_CYCLES;
    i.cfg_family = c.family;
    let Some(&(f, from)) = c.rx.front().filter(|_| !i.rst) else { return (i, false) };
    if cycle < from + c.rx_beat as u64 {
        return (i, false);
    }
    let bytes = &frames[f as usize].bytes;
    if c.rx_beat == 0 {
        i.cfg_family = wire::is_soft_portals(bytes);
    }
    let nb = beats_of(bytes);
    let lo = c.rx_beat * BEAT_BYTES;
    let chunk = &bytes[lo.min(bytes.len())..(lo + BEAT_BYTES).min(bytes.len())];
    let mut d = Wide::ZERO;
    for (k, &b) in chunk.iter().enumerate() {
        d.set_byte(k, b);
    }
    i.s_axis_rx_tdata = d;
    i.s_axis_rx_tkeep = if chunk.len() >= 64 { u64::MAX } else { (1u64 << chunk.len()) - 1 };
    i.s_axis_rx_tvalid = true;
    i.s_axis_rx_tlast = c.rx_beat + 1 == nb;
    (i, true)
}

/// Advances engine `s` (`c`), asleep since cycle `first`, over the `n` cycles from `first` in closed
/// form. Exact: its input is the same in each of them (checked: the first and the last), and the model
/// checks that one cycle of that input changes nothing but the CPU's timer prescaler and running timers
/// and the interposer's clearing sweep, and that no timer expires in them, and advances those in closed
/// form (`PacketEngine::advance_idle`; a beat waiting at the port through the sweep is held by it).
fn advance_asleep(c: &mut CycleEngine, frames: &[Frame], stats: &mut Stats, s: usize, first: u64, n: u64) {
    let (held, _) = input_of(c, frames, first);
    assert_eq!(held, input_of(c, frames, first + n - 1).0, "engine {s}: its input changed while asleep (cycles {first}..{})", first + n);
    let o = c.e.advance_idle(n, &held).unwrap_or_else(|x| panic!("engine {s} set aside while not quiescent: {x}"));
    assert!(!busy(&o), "a quiescent engine shows an output while idle");
    stats.engine_cycles_skipped += n;
    stats.idle_advances += 1;
}

fn idle_in(id: u16, vl_taken: u8) -> EngineIn {
    EngineIn {
        m_axis_vl_tready: true,
        m_axis_egress_tready: true,
        m_reg_rsp_ready: true,
        vl_credit_return: vl_taken,
        cfg_port: ENGINE_PORT,
        cfg_engine_id: id,
        cfg_src_mac: wire::engine_mac(id),
        cfg_dst_mac: wire::TREE_MAC,
        ..EngineIn::default()
    }
}

fn busy(o: &EngineOut) -> bool {
    o.m_axis_vl_tvalid || o.m_axis_egress_tvalid || o.m_reg_rsp_valid || o.cpu_stat_valid || o.stat_event != 0 || o.link_credit_return != 0
}

/// Whether an engine that has just been stepped in `cycle` may sleep.
enum Rest {
    /// It has work: step it next cycle.
    Awake,
    /// Quiescent ([`quiescent`]): until a frame arrives.
    Asleep,
    /// Quiescent but for running CPU timers or the interposer's clearing sweep: until a frame arrives
    /// (one arriving in the sweep waits for it) or, at the latest, this many cycles from now, the cycle
    /// whose tick expires the first timer or the sweep's last cycle (stepped, not skipped).
    UntilWake(u64),
}

/// Nothing to receive (but frames the clearing sweep holds at the port) or send, no input, output or
/// event for [`QUIET_CYCLES`], the CPU's sequencer idle and no timer expired: one more cycle would change
/// nothing but the CPU's prescaler and running timers and the interposer's clearing sweep after the reset
/// (which `PacketEngine::advance_idle` checks on waking).
fn idle(c: &CycleEngine, cycle: u64) -> bool {
    // While the sweep runs the interposer takes no receive beat: a frame waits at the port unchanged.
    let receiving = !c.rx.is_empty() && !c.e.clearing();
    if receiving || !c.out.is_empty() || c.vl_taken != 0 || cycle < RESET_CYCLES + QUIET_CYCLES {
        return false;
    }
    if cycle.saturating_sub(c.last_activity) < QUIET_CYCLES {
        return false;
    }
    let cpu = c.e.cpu();
    // An expired timer is work only on a valid descriptor, as the CPU's sequencer sees it
    // (`docs/blocks/cpu.md` §Timers): a descriptor freed (STOP, RESET) in the tick its timer ran out keeps its
    // `expired` flag, which nothing handles or clears until the descriptor is allocated again.
    cpu.seq_state() == seq::IDLE && (0..cpu.descriptor_count()).all(|i| {
        let d = cpu.descriptor(i);
        !(d.valid && d.expired)
    })
}

fn rest(c: &CycleEngine, cycle: u64) -> Rest {
    if c.stopped {
        return Rest::Asleep;
    }
    if !idle(c, cycle) {
        return Rest::Awake;
    }
    // The sweep's last cycle is stepped as an expiry is: from the next cycle on, receive is no longer
    // held (a waiting frame enters), and the engine is quiescent or not by the same rule, in the same
    // cycle, as if stepped throughout (so a run ends where it would without skipping).
    let sweep = Some(c.e.clear_remaining()).filter(|&n| n > 0);
    match c.e.cpu().cycles_to_expiry().into_iter().chain(sweep).min() {
        None => Rest::Asleep,
        // Sleep only if at least one cycle can be skipped before the wake-up's cycle.
        Some(n) if n > 1 => Rest::UntilWake(n),
        Some(_) => Rest::Awake,
    }
}

/// Idle with no CPU timer running and its clearing sweep over: the engine has nothing left to do until
/// a frame arrives.
pub(super) fn quiescent(c: &CycleEngine, cycle: u64) -> bool {
    c.stopped || (idle(c, cycle) && c.e.cpu().cycles_to_expiry().is_none() && !c.e.clearing())
}

