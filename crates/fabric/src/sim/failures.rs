//! Faults and failures on the fabric: a frame entering a link through the fault injector, links,
//! ISLs, switches and engines failing, engine exhaustion (`docs/fabric.md` §Faults, §Rerouting).

use inswitch_frames::collective::{Body, CollectiveMessage, NO_PARTICIPANT};

use super::fabric::{EngineSlot, Fabric, Frame};
use crate::faults::{Fault, FaultInjector, FaultKind, Verdict};
use crate::topology::Ps;
use crate::wire;
use inswitch_model::register_space::offset;

/// The copies of a frame a hop passes on (frame, head and tail at the far end): none, one, or two (a
/// duplicate), held inline: a `Vec` here was an allocation and a free per frame per hop.
pub(super) type Hops = std::iter::Take<std::array::IntoIter<(u32, Ps, Ps), 2>>;

fn hops(copies: [(u32, Ps, Ps); 2], n: usize) -> Hops {
    copies.into_iter().take(n)
}

impl Fabric {
    /// A frame entering link channel `c` (head at `head`, tail at `tail`), through the fault injector:
    /// the copies that go on (frame index, head and tail at the far end), none if it is lost.
    pub(super) fn hop(&mut self, c: usize, f: u32, head: Ps, tail: Ps) -> Hops {
        let one = |x| hops([x, x], 1);
        let Some(inj) = self.faults.as_mut() else {
            let (h, tl) = self.traverse(c, f, head, tail);
            return one((f, h, tl));
        };
        match inj.decide(head, c, f, &self.frames[f as usize].bytes) {
            Verdict::Pass => {
                let (h, tl) = self.traverse(c, f, head, tail);
                one((f, h, tl))
            }
            Verdict::Drop => hops([(f, 0, 0); 2], 0),
            Verdict::Duplicate => {
                let (h, tl) = self.traverse(c, f, head, tail);
                let (h2, tl2) = self.traverse(c, f, tail, tail);
                hops([(f, h, tl), (f, h2, tl2)], 2)
            }
            Verdict::Corrupt { byte, bit } => {
                let fr = &self.frames[f as usize];
                let bad = Frame { bytes: wire::corrupt(&fr.bytes, byte, bit), ..fr.clone() };
                self.frames.push(bad);
                let g = (self.frames.len() - 1) as u32;
                if let Some(x) = self.faults.as_mut().and_then(|i| i.log.last_mut()) {
                    x.frame = Some(g);
                }
                let (h, tl) = self.traverse(c, g, head, tail);
                one((g, h, tl))
            }
        }
    }

    /// Fault injection on from now on (`FaultInjector`); replaces an earlier injector but keeps its log.
    pub fn inject(&mut self, mut inj: FaultInjector) {
        if let Some(old) = self.faults.take() {
            let mut log = old.log;
            log.append(&mut inj.log);
            inj.log = log;
            if inj.down.is_empty() {
                inj.down = old.down;
            }
        }
        self.faults = Some(inj);
    }

    pub(super) fn injector(&mut self) -> &mut FaultInjector {
        self.faults.get_or_insert_with(|| {
            let mut i = FaultInjector::new(0, Default::default());
            i.enabled = false;
            i
        })
    }

    /// Channel `c` goes down at the current time: every frame entering it from now on is lost.
    pub fn fail_channel(&mut self, c: usize) {
        let (at, n) = (self.now, self.channels.len());
        let inj = self.injector();
        inj.down.resize(n, false);
        inj.down[c] = true;
        inj.log.push(Fault { at, kind: FaultKind::LinkDown, channel: Some(c), frame: None, mark: None, what: String::new() });
    }

    /// Both directions of every ISL between switches `a` and `b` lose every frame from now on, and the
    /// switches do not notice: routes still use them (a silent failure). Returns the topology ISLs cut
    /// (none if the switches are not neighbours).
    pub fn cut_isl(&mut self, a: usize, b: usize) -> Vec<usize> {
        let isls: Vec<usize> = self.topo.isls.iter().enumerate().filter(|(_, l)| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a)).map(|(i, _)| i).collect();
        for &i in &isls {
            for k in [2 * i, 2 * i + 1] {
                self.fail_channel(self.isl_channel(k));
            }
        }
        isls
    }

    /// The ISLs between switches `a` and `b` go down (as [`Fabric::cut_isl`]) and the fabric routes
    /// around them from now on ([`crate::topology::Routes::recompute`]: fewest hops over the live links; a frame for a
    /// device it can no longer reach is dropped and counted in `Stats::unreachable`). Frames already on
    /// the link are lost. Returns the topology ISLs failed.
    pub fn fail_isl(&mut self, a: usize, b: usize) -> Vec<usize> {
        let isls = self.cut_isl(a, b);
        for &i in &isls {
            self.routes.set_isl_up(i, false);
        }
        self.routes.recompute();
        isls
    }

    /// Switch `s` fails as a whole at the current time: its engine stops ([`Fabric::fail_engine`]), its
    /// ISLs and its end nodes' links lose every frame, and the fabric routes around it (no transit
    /// through it); its engine and end nodes are unreachable (frames for them are counted in
    /// `Stats::unreachable` or lost on the down links). `docs/fabric.md` §Rerouting.
    pub fn switch_down(&mut self, s: usize) {
        self.fail_engine(s);
        let isls: Vec<usize> = self.topo.isls.iter().enumerate().filter(|(_, l)| l.a == s || l.b == s).map(|(i, _)| i).collect();
        for i in isls {
            for k in [2 * i, 2 * i + 1] {
                let c = self.isl_channel(k);
                if !self.faults.as_ref().is_some_and(|x| x.is_down(c)) {
                    self.fail_channel(c);
                }
            }
        }
        let ends: Vec<usize> = self.topo.endpoints_of(s).collect();
        for e in ends {
            for c in [self.up[e], self.down[e]] {
                self.fail_channel(c);
            }
        }
        self.routes.set_switch_up(s, false);
        self.routes.recompute();
    }

    /// The engine of switch `s` stops at the current time: it is no longer stepped and frames that reach
    /// it are lost (its switch still forwards other traffic).
    pub fn fail_engine(&mut self, s: usize) {
        let at = self.now;
        if let EngineSlot::Cycle(c) = &mut self.engines[s] {
            c.stopped = true;
            c.active = false;
            if c.wake_at.take().is_some() {
                self.timer_sleepers -= 1;
            }
            self.awake.retain(|&x| x as usize != s);
        }
        self.injector().log.push(Fault { at, kind: FaultKind::EngineStop, channel: Some(s), frame: None, mark: None, what: String::new() });
    }

    /// The CC_ID of filler context `k` of [`Fabric::fill_descriptors`] in an engine of `top` static
    /// entries: the highest 12-bit CC_ID whose entry (CC_ID mod `top`, the CPU's static table is
    /// direct-mapped, docs/blocks/cpu.md §Static table) is `top - 1 - k`, the top entries as the
    /// fillers always took; so at the top of the 12-bit space, away from the plans' CC_IDs.
    pub fn filler_cc(top: usize, k: usize) -> u16 {
        let last = (1usize << inswitch_frames::collective::CC_ID_BITS) - 1;
        let entry = top - 1 - k;
        // At most `last`, and congruent to `entry` modulo `top`; a 12-bit value.
        (last - (last - entry) % top) as u16
    }

    /// Engine exhaustion: fills the descriptors of switch `s`'s engine with `n` filler contexts (static
    /// entries from the top of the table, written as register writes into `STATIC[i].KEY`, then an
    /// INITIALIZATION each, all from end node `via` at `at`, so on one path in that order; the
    /// INITIALIZATION activates the context: a TLP context holds its descriptor while Idle,
    /// `docs/blocks/cpu.md` §Context model). [`Fabric::release_descriptors`] frees them (CONTROL RESET).
    pub fn fill_descriptors(&mut self, s: usize, n: usize, via: usize, at: Ps) {
        let top = self.cfg.engine_params.static_entries;
        assert!(n <= top, "{n} fillers, {top} static entries");
        for k in 0..n {
            // The filler's CC_ID is chosen for the entry (the table is direct-mapped, CC_ID mod
            // STATIC_ENTRIES, docs/blocks/cpu.md §Static table): the top entries, as before.
            let slot = (top - 1 - k) as u32;
            let cc = Self::filler_cc(top, k);
            let key = inswitch_model::cpu::config::static_word0(true, false, 0, cc);
            // Through the register space's window: STATIC_INDEX, then STATIC_KEY.
            self.write_register(via, at, s, offset::STATIC_INDEX as u16, slot);
            self.write_register(via, at, s, offset::STATIC_KEY as u16, key);
        }
        let id = self.topo.switches[s].engine_id;
        let src = self.topo.endpoints[via].id;
        for k in 0..n {
            let body = Body::Initialization(inswitch_frames::collective::InitBody::default());
            let init = CollectiveMessage { header: wire::header(2, Self::filler_cc(top, k), NO_PARTICIPANT), body };
            let seq = self.next_seq();
            self.send_from(via, at, wire::message_frame(&init, src, id, seq));
        }
        let now = self.now;
        self.injector().log.push(Fault { at: now, kind: FaultKind::Exhaust { n }, channel: Some(s), frame: None, mark: None, what: format!("engine {id:#06x}") });
    }

    /// Releases `n` filler contexts of [`Fabric::fill_descriptors`] on switch `s` (CONTROL RESET from end
    /// node `via`: the descriptor freed, the stored context removed).
    pub fn release_descriptors(&mut self, s: usize, n: usize, via: usize, at: Ps) {
        let id = self.topo.switches[s].engine_id;
        let src = self.topo.endpoints[via].id;
        let top = self.cfg.engine_params.static_entries;
        for k in 0..n {
            let seq = self.next_seq();
            self.send_from(via, at, wire::message_frame(&wire::control(Self::filler_cc(top, k), 5, 0), src, id, seq));
        }
        let now = self.now;
        self.injector().log.push(Fault { at: now, kind: FaultKind::Release, channel: Some(s), frame: None, mark: None, what: format!("engine {id:#06x}") });
    }
}

