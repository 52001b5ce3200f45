//! Soft Portals reduction trees in the fabric (seed 002 (24)-(80); `docs/fabric.md` §Portals).
//!
//! * **Frames.** Every Portals frame is a real Soft Portals frame built with the frames crate: Ethernet
//!   header (EtherType [`ETHERTYPE`]), the 84-byte Portals reduction frame with its 12-byte reduction
//!   header, FCS; 102 bytes on every link. A frame is Soft Portals when it is 102 bytes long and carries
//!   the EtherType ([`is_soft_portals`]); everything else is a framed TLP.
//! * **Switch multicast** (002 (36), (39)-(40), (50)-(51)). A switch forwards a multicast Portals frame by
//!   its multicast table, which is the engine's register-space table `MCAST[i]` (tree, wait count,
//!   downward ports), programmed by the manager's plan as register-write frames. A frame with `rt_arm`
//!   goes down: one copy per downward port other than the one it came in on, and the port it came in on
//!   is recorded as the tree's parent port. A frame without `rt_arm` goes up, to the recorded parent
//!   port: "only forwarded back to the root node ... exactly the reverse of the downstream multicast
//!   path" (51). Ports are numbered as the manager numbers them: the switch's end nodes in end-node
//!   order, then its ISLs in ISL order (`TopologyMap::from_topology`).
//! * **Steering to the engine.** A frame that did not come from the engine goes to the engine (and, if it
//!   is an arm, to the downward ports as well) exactly when the engine's interposer would extract it:
//!   [`inswitch_model::interposer::addressed_to_engine`] on its first beat with the engine's table (a
//!   valid entry for the tree with a non-zero wait count, `docs/blocks/interposer.md` §Decision). The
//!   engine itself — arming, wait counts, VNI / cookie / seqno checks, combining, timeouts, pass-up —
//!   is the cycle-level `PacketEngine`; its frames come back into the crossbar through its port and are
//!   forwarded by the same rules (a partial result or a passed-up contribution goes to the parent port).
//! * **End nodes.** A *root* ([`Root`]: the job's source, 002 (32)-(33)) arms the tree with a multicast
//!   `reduction_arm`, folds the frames that come up (its software reduction, with the model's reduction
//!   arithmetic), completes a round when their counts reach the expected number of contributions or its
//!   own timer runs out (a partial result, (68)), and multicasts the result with `rt_arm` set, which
//!   re-arms the tree for the next round: `rt_resno` = the completed round's `rt_seqno`, `rt_seqno` =
//!   the next one, `(seqno + 1) mod 1023` (1023 is reserved, libfabric's `CXIP_COLL_MAX_SEQNO`, 002 (57)).
//!   A *leaf* ([`Leaf`]) answers every arm with one contribution (count 1) of its next value to the
//!   tree's multicast address, with the arm's `rt_seqno`.

use std::collections::{HashMap, VecDeque};

use inswitch_frames::ethernet::{EthernetHeader, SoftPortals, DEFAULT_SOFT_PORTALS_ETHERTYPE, SOFT_PORTALS_LEN};
use inswitch_frames::portals::{width, ReductionFrame, ReductionHeader, FLAG_MULTICAST, OPERANDS};
use inswitch_model::interposer::addressed_to_engine;
use inswitch_model::reduce::{self, Contribution, Mode, Rc};
use inswitch_model::register_space::{Reg, MCAST_ENTRIES};
use inswitch_model::Wide;

use super::{beats_of, ChannelKind, EngineSlot, Ev, Fabric, SimError, BEAT_BYTES, ENGINE_CLOCK_PS};
use crate::manager::{Family, JobId, JobSpec, Manager};
use crate::topology::{Ps, Topology};

/// The Soft Portals EtherType of every port (the register space's reset `ETHERTYPE`, 002 (98)).
pub const ETHERTYPE: u16 = DEFAULT_SOFT_PORTALS_ETHERTYPE;
/// Destination MAC of every Soft Portals frame (an IPv4-multicast-style group address): the fabric
/// forwards by the Portals DFA, not by MAC, so one group address serves every tree. It is also the
/// engines' `cfg_dst_mac` strap.
pub const TREE_MAC: u64 = 0x0100_5E00_0000;
/// The reserved sequence number (libfabric's `CXIP_COLL_MAX_SEQNO` = 2^10 - 1): never armed.
pub const SEQNO_RESERVED: u16 = (1 << width::SEQNO) - 1;
/// Bit 31 of a `VNI_ALLOWED` or `MCAST[i].KEY` register: the entry is valid (`docs/registers.md`).
const ENTRY_VALID: u32 = 1 << 31;
/// `MCAST[i].KEY` bits 12:0: the tree.
const TREE_MASK: u32 = (1 << 13) - 1;
/// Bits of `MCAST[i].PORTS` (ports 0-15).
const MCAST_PORT_BITS: usize = 16;
/// The engines' reduction mode: the register space's reset `RED_CFG_MODE` (associative), which the root
/// end nodes use too.
const MODE_IEEE: bool = false;

/// The locally administered unicast MAC of device `id` (end node or engine; `cfg_src_mac` strap).
pub fn engine_mac(id: u16) -> u64 {
    0x0200_0000_0000 | u64::from(id)
}

/// The sequence number after `s` (002 (57); libfabric `INCMOD(seqno, CXIP_COLL_MAX_SEQNO)`: 1022 → 0):
/// the CPU model's, so an end node and an engine count alike.
pub use inswitch_model::cpu::next_seqno;

/// Whether `bytes` is a Soft Portals frame (its length and EtherType; module doc).
pub fn is_soft_portals(bytes: &[u8]) -> bool {
    bytes.len() == SOFT_PORTALS_LEN && bytes[12..14] == ETHERTYPE.to_be_bytes()
}

/// The integrity check of a receiver: the FCS of a Soft Portals frame, the LCRC of a framed TLP.
pub fn frame_ok(bytes: &[u8]) -> bool {
    if is_soft_portals(bytes) {
        SoftPortals::parse(bytes).is_ok_and(|f| f.check_fcs().is_ok())
    } else {
        crate::faults::lcrc_ok(bytes)
    }
}

/// The Portals reduction frame inside a Soft Portals frame.
pub fn parse(bytes: &[u8]) -> Option<ReductionFrame> {
    is_soft_portals(bytes).then(|| SoftPortals::parse(bytes).ok().map(|s| s.frame)).flatten()
}

/// A Soft Portals frame from device `src` (its MAC and SFA) carrying `frame` (FCS computed).
pub fn soft_portals(src: u16, frame: ReductionFrame) -> Vec<u8> {
    let mac = |m: u64| -> [u8; 6] { m.to_be_bytes()[2..].try_into().expect("6 bytes") };
    let eth = EthernetHeader { dst: mac(TREE_MAC), src: mac(engine_mac(src)), ethertype: ETHERTYPE };
    SoftPortals::new(eth, frame).and_then(|f| f.to_bytes()).expect("a well-formed Soft Portals frame").to_vec()
}

/// A reduction frame to the tree's multicast address `dfa` (module doc's field use).
#[allow(clippy::too_many_arguments)] // the reduction header's fields, named at every call
pub fn reduction_frame(dfa: u32, sfa: u16, vni: u16, cookie: u32, arm: bool, seqno: u16, resno: u16, count: u32, op: u8, rc: u8, data: [u64; OPERANDS]) -> ReductionFrame {
    ReductionFrame {
        dfa,
        sfa: u32::from(sfa),
        vni,
        flags: FLAG_MULTICAST,
        header: ReductionHeader { cookie, arm, seqno, resno, count, op, rc, ..Default::default() },
        data,
        ..Default::default()
    }
}

/// A port of a switch, in the manager's numbering (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Port {
    /// The link to end node `0`.
    Node(usize),
    /// Topology ISL `0` (`Topology::isls`).
    Isl(usize),
    /// The engine's internal port.
    Engine,
}

/// A leaf end node of a tree: what it contributes.
#[derive(Clone, Debug, Default)]
pub struct Leaf {
    /// Protection key (002 (52)).
    pub vni: u16,
    /// The tree's cookie (002 (53)).
    pub cookie: u32,
    /// `rt_op`.
    pub op: u8,
    /// Time from an arm to the contribution.
    pub compute: Ps,
    /// One entry per arm, in order: `Some(data)` is contributed, `None` is a round the node misses
    /// (FIG. 5A's failed endpoint). No entry left: the node does not answer.
    pub values: VecDeque<Option<[u64; OPERANDS]>>,
}

/// The root end node of a tree (002 (32)-(33), (37)): arms, completes, multicasts the result.
#[derive(Clone, Debug, Default)]
pub struct Root {
    /// Protection key.
    pub vni: u16,
    /// Cookie of every round.
    pub cookie: u32,
    /// `rt_op`.
    pub op: u8,
    /// Sequence number of the first round.
    pub first_seqno: u16,
    /// Contributions a round needs (the leaves).
    pub expected: u32,
    /// Rounds to run.
    pub rounds: u32,
    /// The root's timer per round: a round still open this long after its arm is completed with what
    /// arrived (a partial result, 002 (68)).
    pub timeout: Ps,
    /// The root's own contribution per round (`None`: none), folded in software (002 (32), (37)).
    pub own: VecDeque<Option<[u64; OPERANDS]>>,
    /// Multicast addresses of redundant trees (002 (70)-(72)) armed with every round as well: each
    /// round is run on the tree of [`Fabric::portals_root`]'s `dfa` and on these, and the first tree
    /// whose counts reach [`Root::expected`] gives the result, which is multicast on every tree.
    pub twins: Vec<u32>,
    /// A round ends when every tree is complete (or on the timer), not at the first complete one: both
    /// trees' results can then be compared ([`RoundResult::trees`]).
    pub await_all: bool,
}

/// What one tree had given a root when its round ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeRound {
    /// Contributions counted (the frames' `rt_count`s).
    pub count: u32,
    /// Frames folded.
    pub frames: u32,
    /// The tree's reduction (the root's own contribution included), `rt_data`.
    pub data: [u64; OPERANDS],
}

/// One completed round at a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundResult {
    /// `rt_seqno` of the round.
    pub seqno: u16,
    /// The result (`rt_data`).
    pub data: [u64; OPERANDS],
    /// `rt_rc` of the result.
    pub rc: u8,
    /// Contributions counted (the frames' `rt_count`s, the root's own not included).
    pub count: u32,
    /// Frames the root folded.
    pub frames: u32,
    /// The counts reached [`Root::expected`] (else the root's timer ended the round).
    pub complete: bool,
    /// When the round's arm left the root.
    pub armed_at: Ps,
    /// When the round completed.
    pub at: Ps,
    /// The tree whose result this is: 0 the root's own tree, `k` its twin `k - 1` ([`Root::twins`]).
    pub tree: usize,
    /// Every tree's state when the round ended, in the same order.
    pub trees: Vec<TreeRound>,
}

/// One tree's accumulation of the open round at a root.
#[derive(Clone, Debug)]
struct TreeAcc {
    dfa: u32,
    count: u32,
    frames: u32,
    acc: Option<Contribution>,
}

#[derive(Clone, Debug)]
struct RootState {
    cfg: Root,
    seqno: u16,
    open: bool,
    trees: Vec<TreeAcc>,
    /// The first tree whose counts reached the expected number this round.
    first: Option<usize>,
    armed_at: Ps,
    results: Vec<RoundResult>,
}

#[derive(Clone, Debug)]
enum EndTree {
    /// A leaf and the last `rt_seqno` it answered (it contributes once per round: a repeated arm is
    /// not answered again).
    Leaf(Leaf, Option<u16>),
    Root(Box<RootState>),
    /// A redundant tree of the root whose own tree is `primary` (002 (70)).
    Twin { primary: u32 },
}

/// A Portals frame delivered to an end node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortalsDelivery {
    /// Time its tail arrived.
    pub at: Ps,
    /// End-node index.
    pub to: usize,
    /// The reduction frame.
    pub frame: ReductionFrame,
}

/// Counters of the Portals forwarding and end nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PortalsStats {
    /// Multicast frames a switch dropped: no valid multicast entry for the tree.
    pub no_entry: u64,
    /// Upward frames a switch dropped: no parent port recorded for the tree (never armed through it).
    pub no_parent: u64,
    /// Frames not forwarded: unicast DFA (not modelled) or not parseable.
    pub not_forwarded: u64,
    /// Downward ports of a multicast entry that the switch does not have.
    pub bad_ports: u64,
    /// Frames to an end node that has not joined the tree, or of the wrong direction for its role.
    pub unexpected_at_end_nodes: u64,
    /// Frames a root dropped: VNI, cookie or sequence number not the open round's (a stale frame).
    pub root_drops: u64,
    /// Frames that reached a root after its last round.
    pub after_last_round: u64,
    /// Leaves' contributions sent late by the fault injector.
    pub late_contributions: u64,
}

/// The Portals side of a fabric (module doc).
#[derive(Clone, Debug, Default)]
pub struct Portals {
    ports: Vec<Vec<Port>>,
    parent: HashMap<(usize, u16), Port>,
    ends: HashMap<(usize, u32), EndTree>,
    /// Every Portals frame delivered to an end node.
    pub log: Vec<PortalsDelivery>,
    /// Counters.
    pub stats: PortalsStats,
}

impl Portals {
    /// The port tables of `t` (module doc).
    pub fn new(t: &Topology) -> Portals {
        let mut ports = vec![Vec::new(); t.switches.len()];
        for (e, n) in t.endpoints.iter().enumerate() {
            ports[n.switch].push(Port::Node(e));
        }
        for (l, isl) in t.isls.iter().enumerate() {
            ports[isl.a].push(Port::Isl(l));
            ports[isl.b].push(Port::Isl(l));
        }
        Portals { ports, ..Portals::default() }
    }

    /// The number of port `p` of switch `s` in the manager's numbering (module doc), as a multicast
    /// entry's PORTS bit names it.
    pub fn port_number(&self, s: usize, p: Port) -> Option<u8> {
        self.ports.get(s)?.iter().position(|&x| x == p).and_then(|i| u8::try_from(i).ok())
    }

    /// The rounds root end node `e` completed on tree `dfa`.
    pub fn results(&self, e: usize, dfa: u32) -> &[RoundResult] {
        match self.ends.get(&(e, dfa)) {
            Some(EndTree::Root(r)) => &r.results,
            _ => &[],
        }
    }

    /// The parent port switch `s` recorded for `tree` (from the last arm through it).
    pub fn parent(&self, s: usize, tree: u16) -> Option<Port> {
        self.parent.get(&(s, tree)).copied()
    }

    /// The arms (results) end node `e` received on tree `dfa`, in order: (`rt_seqno`, `rt_resno`,
    /// `rt_count`, `rt_data`).
    pub fn arms_at(&self, e: usize, dfa: u32) -> Vec<(u16, u16, u32, [u64; OPERANDS])> {
        self.log.iter().filter(|d| d.to == e && d.frame.dfa == dfa && d.frame.header.arm).map(|d| (d.frame.header.seqno, d.frame.header.resno, d.frame.header.count, d.frame.data)).collect()
    }
}

/// One tree of a Portals job as the fabric runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortalsTree {
    /// The tree (the context key).
    pub tree: u16,
    /// Its multicast address (reduction id 0).
    pub dfa: u32,
    /// The member switches, top-down from the root end node's switch (`manager::portals_shape`).
    pub switches: Vec<usize>,
    /// The switch the manager chose as the tree's root (for a twin, not the root end node's switch).
    pub manager_root: usize,
}

/// A Portals job placed by the manager and configured in the fabric ([`Fabric::place_portals`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortalsJob {
    /// The manager's job.
    pub job: JobId,
    /// The tree (the context key).
    pub tree: u16,
    /// Its multicast address (reduction id 0).
    pub dfa: u32,
    /// The root end node (the job's source).
    pub root: usize,
    /// The leaves (the participants but the root), end-node indices.
    pub leaves: Vec<usize>,
    /// The member switches, top-down.
    pub switches: Vec<usize>,
    /// The redundant twins of the tree (`JobSpec::redundant`, 002 (70)).
    pub twins: Vec<PortalsTree>,
}

impl Fabric {
    /// Places `spec` (family Portals; the master defaults to the source's switch, where the root end
    /// node's arm enters the tree) with the manager and configures the cycle engines from its plan
    /// ([`crate::drive::apply`]: static entries with the wait counts, multicast entries,
    /// `VNI_ALLOWED` := `spec.vni` and `ENGINE_SFA`, all as register-write frames from the source at `at`). With `spec.redundant` the manager also places a twin (002 (70)); every tree is configured
    /// as a multicast tree from the source's switch (`manager::portals_shape`), so the source must be a
    /// participant. [`Fabric::bring_up`] must have been called. End nodes are joined separately
    /// ([`Fabric::portals_root`], [`Fabric::portals_leaf`]).
    pub fn place_portals(&mut self, m: &mut Manager, mut spec: JobSpec, at: Ps) -> Result<PortalsJob, SimError> {
        let root = spec.source.0 as usize;
        let root_switch = self.topo.endpoints.get(root).ok_or_else(|| SimError::Plan(format!("no end node {root}")))?.switch;
        if spec.family != Family::Portals {
            return Err(SimError::Plan("place_portals needs a Portals job".into()));
        }
        spec.master.get_or_insert(crate::manager::SwitchId(root_switch as u32));
        let (job, plan) = m.place(spec).map_err(|e| SimError::Plan(format!("manager: {e}")))?;
        let j = m.job(job).ok_or_else(|| SimError::Plan("placed job missing".into()))?;
        let top = crate::manager::SwitchId(root_switch as u32);
        let mut trees = Vec::new();
        for t in &j.trees {
            let (order, _) = crate::manager::portals_shape(&t.tree, top).ok_or_else(|| SimError::Plan(format!("tree {} does not reach the root end node's switch {root_switch}", t.key)))?;
            let dfa = ReductionFrame::multicast_dfa(t.key, 0).map_err(|e| SimError::Plan(e.to_string()))?;
            trees.push(PortalsTree { tree: t.key, dfa, switches: order.iter().map(|s| s.0 as usize).collect(), manager_root: t.tree.root.0 as usize });
        }
        let leaves: Vec<usize> = j.trees[0].tree.participants().iter().map(|n| n.0 as usize).filter(|&n| n != root).collect();
        crate::drive::apply(self, m, &plan, root, at, &|_| 0)?;
        let first = trees.remove(0);
        Ok(PortalsJob { job, tree: first.tree, dfa: first.dfa, root, leaves, switches: first.switches, twins: trees })
    }

    /// End node `e` is the root of tree `dfa` ([`Root`]); [`Fabric::portals_start`] arms it.
    /// With [`Root::twins`] the root runs every round on those trees too (002 (70)).
    pub fn portals_root(&mut self, e: usize, dfa: u32, cfg: Root) {
        let trees = std::iter::once(dfa).chain(cfg.twins.iter().copied()).map(|dfa| TreeAcc { dfa, count: 0, frames: 0, acc: None }).collect();
        for &t in &cfg.twins {
            self.portals.ends.insert((e, t), EndTree::Twin { primary: dfa });
        }
        let st = RootState { seqno: cfg.first_seqno, cfg, open: false, trees, first: None, armed_at: 0, results: Vec::new() };
        self.portals.ends.insert((e, dfa), EndTree::Root(Box::new(st)));
    }

    /// End node `e` is a leaf of tree `dfa` ([`Leaf`]).
    pub fn portals_leaf(&mut self, e: usize, dfa: u32, cfg: Leaf) {
        self.portals.ends.insert((e, dfa), EndTree::Leaf(cfg, None));
    }

    /// The root end node `e` arms tree `dfa` (and its twins) at `at` (002 (36)): the first round's
    /// `reduction_arm`, count 0, no data, one per tree.
    pub fn portals_start(&mut self, e: usize, dfa: u32, at: Ps) {
        let Some(EndTree::Root(r)) = self.portals.ends.get_mut(&(e, dfa)) else { return };
        if r.cfg.rounds == 0 {
            return;
        }
        let seqno = r.cfg.first_seqno;
        let arms: Vec<ReductionFrame> = r.trees.iter().map(|t| reduction_frame(t.dfa, 0, r.cfg.vni, r.cfg.cookie, true, seqno, seqno, 0, r.cfg.op, 0, [0; OPERANDS])).collect();
        self.open_round(e, dfa, seqno, at);
        for arm in arms {
            self.send_portals(e, at, arm);
        }
    }

    /// Opens round `seqno` at root `e`: its own contribution taken, its timer started.
    fn open_round(&mut self, e: usize, dfa: u32, seqno: u16, at: Ps) {
        let id = self.topo.endpoints[e].id;
        let Some(EndTree::Root(r)) = self.portals.ends.get_mut(&(e, dfa)) else { return };
        r.seqno = seqno;
        r.open = true;
        r.first = None;
        r.armed_at = at;
        let own = r.cfg.own.pop_front().flatten().map(|d| Contribution { rt_op: r.cfg.op, rt_data: d, sfa: u32::from(id), ..Contribution::default() });
        for t in &mut r.trees {
            (t.count, t.frames, t.acc) = (0, 0, own);
        }
        let timeout = r.cfg.timeout;
        self.push(at + timeout, Ev::PortalsRoot { e: e as u32, dfa, seqno });
    }

    /// End node `e` sends `frame` at `at` (its SFA set to the node's device ID).
    fn send_portals(&mut self, e: usize, at: Ps, mut frame: ReductionFrame) {
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
    fn complete_round(&mut self, e: usize, dfa: u32, t: Ps) {
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
        let (resno, next) = (r.seqno, next_seqno(r.seqno));
        let more = (r.results.len() as u32) < r.cfg.rounds;
        let arms: Vec<ReductionFrame> = r.trees.iter().map(|x| reduction_frame(x.dfa, 0, r.cfg.vni, r.cfg.cookie, true, next, resno, count, r.cfg.op, acc.rt_rc.0, acc.rt_data)).collect();
        if more {
            self.open_round(e, dfa, next, t);
        }
        for arm in arms {
            self.send_portals(e, t, arm);
        }
    }

    /// A Portals frame at end node `e` (module doc).
    pub(super) fn portals_end_node(&mut self, e: usize, t: Ps, f: u32) {
        let Some(fr) = parse(&self.frames[f as usize].bytes) else {
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
            Some(EndTree::Leaf(l, last)) if h.arm => {
                if *last == Some(h.seqno) {
                    return;
                }
                *last = Some(h.seqno);
                if let Some(Some(data)) = l.values.pop_front() {
                    let c = reduction_frame(fr.dfa, 0, l.vni, l.cookie, false, h.seqno, 0, 1, l.op, 0, data);
                    let at = t + l.compute;
                    // The fault campaign's late contributions (`faults::FaultConfig::late`).
                    let late = self.faults.as_mut().and_then(|x| x.late_delay());
                    self.send_portals(e, at + late.unwrap_or(0), c);
                    if let Some(delay) = late {
                        self.portals.stats.late_contributions += 1;
                        let f = (self.frames.len() - 1) as u32;
                        let what = crate::faults::summary(&self.frames[f as usize].bytes);
                        let now = self.now;
                        self.injector().log.push(crate::faults::Fault { at: now, kind: crate::faults::FaultKind::Late { delay }, channel: None, frame: Some(f), what });
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
    fn ingress(&self, f: u32) -> Option<Port> {
        match self.channels[self.frames[f as usize].via?].kind {
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
        let Some(fr) = parse(bytes).filter(|fr| fr.flags & FLAG_MULTICAST != 0) else {
            self.portals.stats.not_forwarded += 1;
            return;
        };
        let EngineSlot::Cycle(c) = &self.engines[sw] else {
            self.portals.stats.no_entry += 1;
            return;
        };
        // The switch's multicast table: the engine's register-space entries (tree, wait, ports).
        let regs = c.e.regs();
        let table: Vec<(u16, u32, u32)> = (0..MCAST_ENTRIES)
            .filter(|&i| regs.read(Reg::Mcast(i, 0)) & ENTRY_VALID != 0)
            .map(|i| ((regs.read(Reg::Mcast(i, 0)) & TREE_MASK) as u16, regs.read(Reg::Mcast(i, 1)), regs.read(Reg::Mcast(i, 2))))
            .collect();
        let tree = fr.tree();
        let Some(&(_, _, ports)) = table.iter().find(|e| e.0 == tree) else {
            self.portals.stats.no_entry += 1;
            return;
        };
        let ingress = self.ingress(f);
        let mut beat = Wide::ZERO;
        for (k, &b) in bytes.iter().take(BEAT_BYTES).enumerate() {
            beat.set_byte(k, b);
        }
        let armed = |t: u16| table.iter().any(|e| e.0 == t && e.1 != 0);
        let to_engine = ingress != Some(Port::Engine) && addressed_to_engine(&beat, true, c.id, regs.read(Reg::Ethertype) as u16, &armed);
        let mut outs: Vec<Port> = Vec::new();
        if fr.header.arm {
            if let Some(p) = ingress.filter(|&p| p != Port::Engine) {
                self.portals.parent.insert((sw, tree), p);
            }
            for b in (0..MCAST_PORT_BITS).filter(|b| ports >> b & 1 != 0) {
                match self.portals.ports[sw].get(b) {
                    Some(&p) if Some(p) != ingress => outs.push(p),
                    Some(_) => {}
                    None => self.portals.stats.bad_ports += 1,
                }
            }
            if to_engine {
                outs.push(Port::Engine);
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

    fn copy_frame(&mut self, f: u32) -> u32 {
        let fr = self.frames[f as usize].clone();
        self.frames.push(fr);
        (self.frames.len() - 1) as u32
    }

    /// Frame `g` leaves switch `sw` on port `p` (the crossbar's paths of `Fabric::process`).
    fn portals_out(&mut self, g: u32, sw: usize, p: Port, head: Ps, tail: Ps) {
        match p {
            Port::Node(e) => {
                for (g, _, tl) in self.hop(self.down[e], g, head, tail) {
                    self.push(tl, Ev::ToEndpoint { f: g, e: e as u32 });
                }
            }
            Port::Isl(l) => {
                let i = if self.topo.isls[l].a == sw { 2 * l } else { 2 * l + 1 };
                let next = self.routes.directed[i].1 as u32;
                for (g, h, tl) in self.hop(self.isl[i], g, head, tail) {
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
