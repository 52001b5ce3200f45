//! Soft Portals reduction trees on the fabric ([`super::portals`] module doc): the root and leaf end
//! nodes (arm, contribute, fold, complete a round, re-arm) and the switches' multicast forwarding by
//! the engines' `MCAST` tables.

use inswitch_frames::portals::{ReductionFrame, FLAG_MULTICAST, OPERANDS};
use inswitch_model::cpu::seqno_newer;
use inswitch_model::interposer::addressed_to_engine;
use inswitch_model::reduce::{self, Contribution, Mode, Rc};
use inswitch_model::register_space::Reg;
use inswitch_model::Wide;

use super::channels::ChannelKind;
use super::fabric::{beats_of, EngineSlot, Ev, Fabric, BEAT_BYTES, ENGINE_CLOCK_PS};
use super::portals::*;
use crate::faults::{Fault, FaultKind};
use crate::topology::Ps;
use crate::wire::{self, LinkFrame};

/// Bits of `MCAST_PORTS` (ports 0-15).
const MCAST_PORT_BITS: usize = 16;
/// The engines' reduction mode: the register space's reset `RED_CFG_MODE` (associative), which the root
/// end nodes use too.
const MODE_IEEE: bool = false;

impl Fabric {
    /// End node `e` is the root of tree `dfa` ([`Root`]); [`Fabric::portals_start`] arms it.
    /// With [`Root::twins`] the root runs every round on those trees too (002 (70)).
    pub fn portals_root(&mut self, e: usize, dfa: u32, cfg: Root) {
        let trees = std::iter::once(dfa).chain(cfg.twins.iter().copied()).map(|dfa| TreeAcc { dfa, count: 0, frames: 0, acc: None }).collect();
        for &t in &cfg.twins {
            self.portals.ends.insert((e, t), EndTree::Twin { primary: dfa });
        }
        // The tree's first root at `e` seeds its seqno counter (libfabric's `mc_obj->seqno`, one per tree).
        self.portals.counters.entry((e, tree_address(dfa))).or_insert(cfg.first_seqno);
        let st = RootState { seqno: cfg.first_seqno, cfg, open: false, trees, first: None, armed_at: 0, results: Vec::new(), restarted: false, restarts: Vec::new(), one_target: false };
        self.portals.ends.insert((e, dfa), EndTree::Root(Box::new(st)));
    }

    /// Root end node `e` of tree `dfa` runs its rounds as reduce to one target (003 \[0052\], \[0060\]:
    /// MPI_REDUCE): a Soft Portals round's result lands at the root end node (002 (32), (37)), which is
    /// then the one target, and it keeps it. Instead of multicasting the result with `rt_arm` set
    /// (which both re-arms the tree and tells every leaf the result), it re-arms the tree for the next
    /// round with a start arm (`rt_resno` = `rt_seqno`, count 0, no data: the first round's arm), which
    /// carries the round's exit but no result, and after the last round it sends nothing. The engines
    /// need no one-target mode: a Portals engine never sends a result down (every one is SUBSERVIENT,
    /// `docs/fabric.md` §Portals). Ignored if `e` is not that tree's root.
    pub fn portals_one_target(&mut self, e: usize, dfa: u32) {
        if let Some(EndTree::Root(r)) = self.portals.ends.get_mut(&(e, dfa)) {
            r.one_target = true;
        }
    }

    /// The seqno a new round of root end node `e` on the tree of `dfa` (any of its reduction ids) arms
    /// the tree under when it sends its own start arm ([`Fabric::portals_start`] of a new [`Root`]): the
    /// next draw of the tree's counter, one after the last arm the root sent on the tree under any id
    /// (`None`: the tree never had a root at `e`). A round's result multicast arms the tree for the seqno
    /// it drew (002 (37), (57)), and the engines keep that arming until their timeout; a start arm under
    /// the same seqno is not newer, so the engines drop it (`STALE_ARM`, 002 (71)) and the round runs on
    /// the result's arming and its timer. A newer seqno re-arms them ("rt_arm can advance the sequence
    /// number and clear the state", 002 (71); `rt_seqno` one above `rt_resno` "may not be the case in the
    /// event of error", (57)). docs/fabric.md §Goodput: the next round after a late result.
    pub fn portals_next_seqno(&self, e: usize, dfa: u32) -> Option<u16> {
        self.portals.counters.get(&(e, tree_address(dfa))).copied()
    }

    /// Sets the next seqno root end node `e` draws on the tree of `dfa` (module doc of [`super::portals`]:
    /// libfabric sets `mc_obj->seqno` at the tree's join only); the directed tests use it to start a
    /// round under a chosen seqno, e.g. one an engine still holds.
    pub fn portals_set_next_seqno(&mut self, e: usize, dfa: u32, seqno: u16) {
        self.portals.counters.insert((e, tree_address(dfa)), seqno);
    }

    /// Root end node `e` has a round of tree `dfa` open (libfabric's `in_use` of the reduction id).
    pub fn portals_open(&self, e: usize, dfa: u32) -> bool {
        matches!(self.portals.ends.get(&(e, dfa)), Some(EndTree::Root(r)) if r.open)
    }

    /// End node `e` is a leaf of tree `dfa` ([`Leaf`]).
    pub fn portals_leaf(&mut self, e: usize, dfa: u32, cfg: Leaf) {
        self.portals.ends.insert((e, dfa), EndTree::Leaf(cfg, None, None));
    }

    /// The root end node `e` arms tree `dfa` (and its twins) at `at` (002 (36)): the first round's
    /// `reduction_arm`, count 0, no data, one per tree.
    pub fn portals_start(&mut self, e: usize, dfa: u32, at: Ps) {
        let Some(EndTree::Root(r)) = self.portals.ends.get_mut(&(e, dfa)) else { return };
        if r.cfg.rounds == 0 {
            return;
        }
        let seqno = draw_seqno(&mut self.portals.counters, e, dfa, r.cfg.first_seqno);
        let arms: Vec<ReductionFrame> = r.trees.iter().map(|t| reduction_frame(t.dfa, 0, r.cfg.vni, r.cfg.cookie, true, seqno, seqno, 0, r.cfg.op, 0, [0; OPERANDS])).collect();
        self.open_round(e, dfa, seqno, at);
        for arm in arms {
            self.send_portals(e, at, arm);
        }
    }

    /// Starts `reductions` on `job`'s tree at once at `at` (002 (60)-(61): "software can perform multiple
    /// concurrent reductions on the same tree by distinguishing such reductions using high bits of the
    /// multicast address"): each on its own multicast address, the tree's with its reduction id in DFA
    /// bits 20-18 ([`PortalsJob::reduction`]), with its own root and leaf end-node state (module doc of
    /// [`super::portals`]); its arm and its contributions carry that address, so the engines hold each id
    /// in its own descriptor of the tree's slot. Returns the reductions' addresses, in order.
    ///
    /// Refused, with nothing changed: more than [`REDUCTIONS_PER_TREE`] reductions, an id that does not
    /// fit the 3 bits, an id given twice, or an id whose round is still open at the job's root end node
    /// (a tree runs at most 8 reductions at once).
    pub fn portals_concurrent(&mut self, job: &PortalsJob, reductions: Vec<Reduction>, at: Ps) -> Result<Vec<u32>, ConcurrencyError> {
        if reductions.len() > REDUCTIONS_PER_TREE {
            return Err(ConcurrencyError::TooMany(reductions.len()));
        }
        let mut dfas = Vec::with_capacity(reductions.len());
        for (k, r) in reductions.iter().enumerate() {
            let dfa = job.reduction(r.rid)?;
            if reductions[..k].iter().any(|x| x.rid == r.rid) {
                return Err(ConcurrencyError::Duplicate(r.rid));
            }
            if self.portals_open(job.root, dfa) {
                return Err(ConcurrencyError::Busy(r.rid, job.root));
            }
            dfas.push(dfa);
        }
        for (r, &dfa) in reductions.into_iter().zip(&dfas) {
            for (e, leaf) in r.leaves {
                self.portals_leaf(e, dfa, leaf);
            }
            self.portals_root(job.root, dfa, r.root);
            self.portals_start(job.root, dfa, at);
        }
        Ok(dfas)
    }

    /// Opens round `seqno` at root `e`: its own contribution taken, its timer started.
    pub(super) fn open_round(&mut self, e: usize, dfa: u32, seqno: u16, at: Ps) {
        let id = self.topo.endpoints[e].id;
        let Some(EndTree::Root(r)) = self.portals.ends.get_mut(&(e, dfa)) else { return };
        r.seqno = seqno;
        r.open = true;
        r.first = None;
        r.armed_at = at;
        r.restarted = false;
        let own = r.cfg.own.pop_front().flatten().map(|d| Contribution { rt_op: r.cfg.op, rt_data: d, sfa: u32::from(id), ..Contribution::default() });
        for t in &mut r.trees {
            (t.count, t.frames, t.acc) = (0, 0, own);
        }
        let timeout = r.cfg.timeout;
        let (rearm, restart) = (r.cfg.rearm, r.cfg.restart);
        self.push(at + timeout, Ev::PortalsRoot { e: e as u32, dfa, seqno });
        if let Some(after) = restart {
            self.push(at + after, Ev::PortalsRestart { e: e as u32, dfa, seqno });
        }
        if let Some((after, _)) = rearm {
            self.push(at + after, Ev::PortalsRearm { e: e as u32, dfa, seqno, n: 1 });
        }
    }

    /// The root's arm retry ([`Root::rearm`]): round `seqno` still open, each tree whose count is short
    /// is armed again (the round's seqno; `rt_resno` = seqno, count 0, no data: what a leaf and an engine
    /// read of an arm), and the timer runs again until the limit.
    pub(super) fn portals_rearm(&mut self, e: usize, dfa: u32, seqno: u16, n: u8, t: Ps) {
        let Some(EndTree::Root(r)) = self.portals.ends.get(&(e, dfa)) else { return };
        let Some((after, limit)) = r.cfg.rearm.filter(|_| r.open && r.seqno == seqno) else { return };
        let arms: Vec<ReductionFrame> =
            r.trees.iter().filter(|x| x.count < r.cfg.expected).map(|x| reduction_frame(x.dfa, 0, r.cfg.vni, r.cfg.cookie, true, seqno, seqno, 0, r.cfg.op, 0, [0; OPERANDS])).collect();
        self.portals.stats.rearms += arms.len() as u64;
        for arm in arms {
            self.send_portals(e, t, arm);
        }
        if n < limit {
            self.push(t + after, Ev::PortalsRearm { e: e as u32, dfa, seqno, n: n + 1 });
        }
    }

    /// The root's round restart ([`Root::restart`]): round `seqno` still open with no complete tree and
    /// not a restart itself: it is opened again under the tree counter's next seqno (libfabric's retry,
    /// `_progress_root`) and armed on every tree.
    pub(super) fn portals_restart(&mut self, e: usize, dfa: u32, seqno: u16, t: Ps) {
        let Some(EndTree::Root(r)) = self.portals.ends.get(&(e, dfa)) else { return };
        if !r.open || r.seqno != seqno || r.first.is_some() || r.restarted {
            return;
        }
        let next = draw_seqno(&mut self.portals.counters, e, dfa, r.cfg.first_seqno);
        let arms: Vec<ReductionFrame> = r.trees.iter().map(|x| reduction_frame(x.dfa, 0, r.cfg.vni, r.cfg.cookie, true, next, next, 0, r.cfg.op, 0, [0; OPERANDS])).collect();
        self.open_round(e, dfa, next, t);
        if let Some(EndTree::Root(r)) = self.portals.ends.get_mut(&(e, dfa)) {
            r.restarted = true;
            r.restarts.push((seqno, next));
        }
        self.portals.stats.restarts += 1;
        for arm in arms {
            self.send_portals(e, t, arm);
        }
    }

    /// End node `e` sends `frame` at `at` (its SFA set to the node's device ID).
    pub(super) fn send_portals(&mut self, e: usize, at: Ps, mut frame: ReductionFrame) {
        let id = self.topo.endpoints[e].id;
        frame.sfa = u32::from(id);
        self.send_from(e, at, soft_portals(id, frame));
    }

    /// The root's timer for round `seqno`: still open, it completes with what arrived (002 (68)).
    pub(super) fn portals_root_timer(&mut self, e: usize, dfa: u32, seqno: u16, t: Ps) {
        if matches!(self.portals.ends.get(&(e, dfa)), Some(EndTree::Root(r)) if r.open && r.seqno == seqno) {
            self.complete_round(e, dfa, t);
        }
    }

    /// Ends the open round of root `e`: records the result and multicasts it with `rt_arm` set on every
    /// tree, which re-arms them for the next round (002 (37), (57)); with twins, "the host software can
    /// multicast the result on both trees. The sequence number from the successful operation can be
    /// used as the result number" (002 (70)). The result is the first complete tree's, else (the root's
    /// timer) the tree that counted the most contributions (the first such).
    pub(super) fn complete_round(&mut self, e: usize, dfa: u32, t: Ps) {
        let Some(EndTree::Root(r)) = self.portals.ends.get_mut(&(e, dfa)) else { return };
        let best = r.trees.iter().enumerate().fold(0, |b, (k, x)| if x.count > r.trees[b].count { k } else { b });
        let chosen = r.first.unwrap_or(best);
        let op = r.cfg.op;
        let data_of = |x: &TreeAcc| x.acc.unwrap_or(Contribution { rt_op: op, ..Contribution::default() });
        let acc = data_of(&r.trees[chosen]);
        let count = r.trees[chosen].count;
        let trees: Vec<TreeRound> = r.trees.iter().map(|x| TreeRound { count: x.count, frames: x.frames, data: data_of(x).rt_data }).collect();
        let complete = count >= r.cfg.expected;
        r.results.push(RoundResult { seqno: r.seqno, data: acc.rt_data, rc: acc.rt_rc.0, count, frames: r.trees[chosen].frames, complete, armed_at: r.armed_at, at: t, tree: chosen, trees });
        r.open = false;
        let more = (r.results.len() as u32) < r.cfg.rounds;
        // The result arm (and, reducing to one target, a next round's start arm) draws the next round's
        // seqno from the tree's counter (libfabric: "send reduction result to leaves, arm new seqno");
        // a one-target root sends nothing after its last round and draws nothing.
        let resno = r.seqno;
        let next = if r.one_target && !more { next_seqno(resno) } else { draw_seqno(&mut self.portals.counters, e, dfa, r.cfg.first_seqno) };
        let arms: Vec<ReductionFrame> = if r.one_target {
            // Reduce to one target: the next round's start arm, no result; nothing after the last.
            let trees = if more { r.trees.as_slice() } else { &[] };
            trees.iter().map(|x| reduction_frame(x.dfa, 0, r.cfg.vni, r.cfg.cookie, true, next, next, 0, r.cfg.op, 0, [0; OPERANDS])).collect()
        } else {
            r.trees.iter().map(|x| reduction_frame(x.dfa, 0, r.cfg.vni, r.cfg.cookie, true, next, resno, count, r.cfg.op, acc.rt_rc.0, acc.rt_data)).collect()
        };
        if more {
            self.open_round(e, dfa, next, t);
        }
        for arm in arms {
            self.send_portals(e, t, arm);
        }
    }

    /// A Portals frame at end node `e` (module doc).
    pub(super) fn portals_end_node(&mut self, e: usize, t: Ps, f: u32) {
        let Some(fr) = wire::portals_frame(&self.frames[f as usize].bytes) else {
            self.portals.stats.not_forwarded += 1;
            return;
        };
        self.portals.log.push(PortalsDelivery { at: t, to: e, frame: fr });
        let h = fr.header;
        let primary = match self.portals.ends.get(&(e, fr.dfa)) {
            Some(EndTree::Twin { primary }) => *primary,
            _ => fr.dfa,
        };
        match self.portals.ends.get_mut(&(e, primary)) {
            Some(EndTree::Leaf(l, last, sent)) if h.arm => {
                // A start arm (`rt_resno` = `rt_seqno`, count 0) newer than the round's seqno is its
                // restart, under a seqno the root drew when it restarted ([`Leaf::seqnos`]).
                let restart = h.resno == h.seqno && h.count == 0 && l.seqnos.first().is_some_and(|&s| seqno_newer(h.seqno, s));
                if *last == Some(h.seqno) || !(l.seqnos.is_empty() || l.seqnos.contains(&h.seqno) || restart) {
                    return;
                }
                *last = Some(h.seqno);
                let value = match l.values.pop_front() {
                    Some(v) => {
                        *sent = v;
                        v
                    }
                    // No value left and a start arm (not a result: rt_resno = rt_seqno, no count) under a
                    // new seqno: the root restarted the round this leaf answered (`Root::restart`); the
                    // same value once more.
                    None if h.resno == h.seqno && h.count == 0 => sent.take(),
                    None => None,
                };
                if let Some(data) = value {
                    let c = reduction_frame(fr.dfa, 0, l.vni, l.cookie, false, h.seqno, 0, 1, l.op, 0, data);
                    let at = t + l.compute;
                    // The fault campaign's late contributions (`faults::FaultConfig::late`).
                    let late = self.faults.as_mut().and_then(|x| x.late_delay());
                    self.send_portals(e, at + late.unwrap_or(0), c);
                    if let Some(delay) = late {
                        self.portals.stats.late_contributions += 1;
                        let f = (self.frames.len() - 1) as u32;
                        let fault = Fault::on_frame(self.now, FaultKind::Late { delay }, None, Some(f), &LinkFrame::parse(&self.frames[f as usize].bytes));
                        self.injector().log.push(fault);
                    }
                }
            }
            Some(EndTree::Root(r)) if !h.arm => {
                if !r.open {
                    self.portals.stats.after_last_round += 1;
                    return;
                }
                let Some(k) = r.trees.iter().position(|x| x.dfa == fr.dfa) else { return };
                if fr.vni != r.cfg.vni || h.cookie != r.cfg.cookie || h.seqno != r.seqno {
                    self.portals.stats.root_drops += 1;
                    return;
                }
                let c = Contribution { rt_op: h.op, rt_data: fr.data, rt_rc: Rc::from_raw(h.rc), rt_repsum_m: h.repsum_m as i8, rt_repsum_oflow_id: h.repsum_ovflid, sfa: fr.sfa };
                let x = &mut r.trees[k];
                x.acc = Some(match x.acc {
                    Some(a) => reduce::combine(Mode::from_bit(MODE_IEEE), &a, &c),
                    None => c,
                });
                x.count = x.count.saturating_add(h.count);
                x.frames += 1;
                let expected = r.cfg.expected;
                if x.count >= expected && r.first.is_none() {
                    r.first = Some(k);
                }
                let all = r.trees.iter().all(|x| x.count >= expected);
                if r.first.is_some() && (!r.cfg.await_all || all) {
                    self.complete_round(e, primary, t);
                }
            }
            _ => self.portals.stats.unexpected_at_end_nodes += 1,
        }
    }

    /// The switch port frame `f` came in on.
    pub(super) fn ingress(&self, f: u32) -> Option<Port> {
        match self.channel(self.frames[f as usize].via?).kind {
            ChannelKind::Up(e) => Some(Port::Node(e)),
            ChannelKind::Isl(i) => Some(Port::Isl(i / 2)),
            ChannelKind::FromEngine(_) => Some(Port::Engine),
            ChannelKind::Down(_) | ChannelKind::ToEngine(_) => None,
        }
    }

    /// The multicast forwarding of a Soft Portals frame whose head is at switch `sw` at `head` (module
    /// doc).
    pub(super) fn portals_at_switch(&mut self, f: u32, sw: usize, head: Ps, tail: Ps) {
        let bytes = &self.frames[f as usize].bytes;
        let Some(fr) = wire::portals_frame(bytes).filter(|fr| fr.flags & FLAG_MULTICAST != 0) else {
            self.portals.stats.not_forwarded += 1;
            return;
        };
        let EngineSlot::Cycle(c) = &self.engines[sw] else {
            self.portals.stats.no_entry += 1;
            return;
        };
        // The switch's multicast table: the engine's register-space entry of the tree (valid, wait, ports;
        // docs/blocks/register_space.md §Multicast entries), read by the tree.
        let regs = c.e.regs();
        let entry = |t: u16| regs.mcast_entry(t).filter(|e| e.valid);
        let tree = fr.tree();
        let Some(ports) = entry(tree).map(|e| u32::from(e.ports)) else {
            self.portals.stats.no_entry += 1;
            return;
        };
        let ingress = self.ingress(f);
        let mut beat = Wide::ZERO;
        for (k, &b) in bytes.iter().take(BEAT_BYTES).enumerate() {
            beat.set_byte(k, b);
        }
        let armed = |t: u16| entry(t).is_some_and(|e| e.wait != 0);
        let to_engine = ingress != Some(Port::Engine) && addressed_to_engine(&beat, true, c.id, regs.read(Reg::Ethertype) as u16, &armed);
        let mut outs: Vec<Port> = Vec::new();
        if fr.header.arm {
            if let Some(p) = ingress.filter(|&p| p != Port::Engine) {
                self.portals.parent.insert((sw, tree), p);
            }
            if to_engine {
                // 002 (39)-(40): the engine is armed as the arm passes its port. Its interposer keeps a copy
                // and passes the frame on (docs/blocks/interposer.md §The multicast arm passes on); the
                // frame comes back through the engine's port and goes down from there. The crossbar makes
                // no copy of its own.
                outs.push(Port::Engine);
            } else {
                // Down every downward port but the one it came in on; back from the engine, that is the
                // parent port recorded when it came in.
                let upstream = if ingress == Some(Port::Engine) { self.portals.parent(sw, tree) } else { ingress };
                for b in (0..MCAST_PORT_BITS).filter(|b| ports >> b & 1 != 0) {
                    match self.portals.ports[sw].get(b) {
                        Some(&p) if Some(p) != upstream => outs.push(p),
                        Some(_) => {}
                        None => self.portals.stats.bad_ports += 1,
                    }
                }
            }
        } else if to_engine {
            outs.push(Port::Engine);
        } else {
            match self.portals.parent(sw, tree) {
                Some(p) if Some(p) != ingress => outs.push(p),
                _ => self.portals.stats.no_parent += 1,
            }
        }
        let n = outs.len();
        for (k, p) in outs.into_iter().enumerate() {
            // Each output gets its own copy (a frame index is on one channel at a time).
            let g = if k + 1 == n { f } else { self.copy_frame(f) };
            self.portals_out(g, sw, p, head, tail);
        }
    }

    pub(super) fn copy_frame(&mut self, f: u32) -> u32 {
        let fr = self.frames[f as usize].clone();
        self.frames.push(fr);
        (self.frames.len() - 1) as u32
    }

    /// Frame `g` leaves switch `sw` on port `p` (the crossbar's paths of `Fabric::process`).
    pub(super) fn portals_out(&mut self, g: u32, sw: usize, p: Port, head: Ps, tail: Ps) {
        match p {
            Port::Node(e) => {
                for (g, _, tl) in self.hop(self.down[e], g, head, tail) {
                    self.push(tl, Ev::ToEndpoint { f: g, e: e as u32 });
                }
            }
            Port::Isl(l) => {
                let i = if self.topo.isls[l].a == sw { 2 * l } else { 2 * l + 1 };
                let next = self.routes.directed(i).1 as u32;
                for (g, h, tl) in self.hop(self.isl_channel(i), g, head, tail) {
                    self.push(h, Ev::AtSwitch { f: g, sw: next, head: h, tail: tl });
                }
            }
            Port::Engine => {
                let (h, tl) = self.traverse(self.to_engine[sw], g, head, tail);
                let nb = beats_of(&self.frames[g as usize].bytes) as Ps;
                let first = (h + ENGINE_CLOCK_PS).max(tl.saturating_sub((nb - 1) * ENGINE_CLOCK_PS)).min(tl);
                self.push(first, Ev::ToEngine { f: g, sw: sw as u32, tail: tl });
            }
        }
    }
}

/// Draws the next seqno of root end node `e`'s counter of the tree of `dfa` (module doc of
/// [`super::portals`]; `seed` if the tree has none: its [`Root::first_seqno`]), advancing it as
/// libfabric's `INCMOD(mc_obj->seqno, CXIP_COLL_MOD_SEQNO)`.
fn draw_seqno(counters: &mut std::collections::HashMap<(usize, u32), u16>, e: usize, dfa: u32, seed: u16) -> u16 {
    let c = counters.entry((e, tree_address(dfa))).or_insert(seed);
    let s = *c;
    *c = next_seqno(s);
    s
}
