//! Soft Portals reduction trees in the fabric (seed 002 (24)-(80); `docs/fabric.md` §Portals).
//!
//! * **Frames.** Every Portals frame is a real Soft Portals frame built with the frames crate: Ethernet
//!   header (EtherType [`crate::wire::SOFT_PORTALS_ETHERTYPE`]), the 84-byte Portals reduction frame with its 12-byte reduction
//!   header, FCS; 102 bytes on every link. A frame is Soft Portals when it is 102 bytes long and carries
//!   the EtherType ([`crate::wire::is_soft_portals`]); everything else is a framed TLP.
//! * **Switch multicast** (002 (36), (39)-(40), (50)-(51)). A switch forwards a multicast Portals frame by
//!   its multicast table, which is the engine's register-space entry of the frame's tree (valid, wait
//!   count, downward ports; `RegisterSpace::mcast_entry`, one per tree), programmed by the manager's
//!   plan as register-write frames. A frame with `rt_arm`
//!   goes down: one copy per downward port other than the one it came in on, and the port it came in on
//!   is recorded as the tree's parent port. A frame without `rt_arm` goes up, to the recorded parent
//!   port: "only forwarded back to the root node ... exactly the reverse of the downstream multicast
//!   path" (51). Ports are numbered as the manager numbers them: the switch's end nodes in end-node
//!   order, then its ISLs in ISL order (`TopologyMap::from_topology`).
//! * **Steering to the engine.** A frame that did not come from the engine goes to the engine (only: an
//!   arm too, which the engine's interposer copies and passes on, 002 (39)-(40), and which then goes down
//!   from the engine's port, every downward port but the recorded parent) exactly when the engine's
//!   interposer would extract it:
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
//!   the next draw of the tree's seqno counter (below).
//! * **Seqnos.** A root end node draws every arm's `rt_seqno` (a round's start arm, its restart's, a
//!   result's) from **one counter per tree**, shared by the tree's reduction ids, as libfabric's CXI
//!   root does (`prov/cxi/src/cxip_coll.c`, `_progress_root`: `reduction->seqno = mc_obj->seqno;
//!   INCMOD(mc_obj->seqno, CXIP_COLL_MOD_SEQNO)` at a retry and at a result's re-arm). Each draw is the
//!   one after the last, `(seqno + 1) mod 1023` (1023 is reserved, libfabric's `CXIP_COLL_MAX_SEQNO`,
//!   002 (57)); the tree's first root seeds it with [`Root::first_seqno`]. The engines compare seqnos
//!   per descriptor (per id), and an id's next draw is still newer than its last.
//!   A *leaf* ([`Leaf`]) answers every arm with one contribution (count 1) of its next value to the
//!   tree's multicast address, with the arm's `rt_seqno`.
//! * **Concurrent reductions** (002 (60)-(61)). DFA bits 20-18 name one of up to
//!   [`REDUCTIONS_PER_TREE`] reductions running on one tree at once (bits 15-3, the tree, pick the
//!   switches' multicast entry and parent port, shared). End-node state is keyed by (end node, DFA), so
//!   each reduction id has its own round state at the root and at every leaf (libfabric keeps one
//!   `cxip_coll_reduction` per id, `CXIP_COLL_MAX_CONCUR` = 8), and the engines index their descriptors
//!   by (tree slot, reduction id). [`PortalsJob::reduction`] is a reduction's address,
//!   [`crate::sim::Fabric::portals_concurrent`] starts several on one tree.

use std::collections::{HashMap, VecDeque};

use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
use inswitch_frames::portals::{dfa as dfa_bits, width, ReductionFrame, ReductionHeader, FLAG_MULTICAST, OPERANDS};
use inswitch_model::reduce::Contribution;

use crate::manager::JobId;
use crate::topology::{Ps, Topology};
use crate::wire::{engine_mac, SOFT_PORTALS_ETHERTYPE, TREE_MAC};

/// The reserved sequence number (libfabric's `CXIP_COLL_MAX_SEQNO` = 2^10 - 1): never armed.
pub const SEQNO_RESERVED: u16 = (1 << width::SEQNO) - 1;
/// The sequence number after `s` (002 (57); libfabric `INCMOD(seqno, CXIP_COLL_MAX_SEQNO)`: 1022 → 0):
/// the engine's own rule, so end nodes and engines cannot drift apart.
pub use inswitch_model::cpu::next_seqno;

/// Reductions one tree can run at once: the values of the reduction id, DFA bits 20-18 (002 (61): "up
/// to 8 reductions being performed concurrently on the same tree"; libfabric's `CXIP_COLL_MAX_CONCUR`).
pub const REDUCTIONS_PER_TREE: usize = 1 << dfa_bits::REDUCTION_ID_BITS;
// The engines hold one descriptor per reduction id in each tree slot (docs/blocks/cpu.md §Descriptors).
const _: () = assert!(REDUCTIONS_PER_TREE == inswitch_model::cpu::REDUCTIONS);

/// Why concurrent reductions on a tree were refused ([`crate::sim::Fabric::portals_concurrent`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConcurrencyError {
    /// The id does not fit DFA bits 20-18.
    #[error("reduction id {0} does not fit DFA bits 20-18 (0-7, 002 (61))")]
    ReductionId(u8),
    /// More reductions than a tree's reduction ids.
    #[error("{0} concurrent reductions on one tree: at most 8, one per reduction id (002 (61))")]
    TooMany(usize),
    /// Two reductions given the same id.
    #[error("reduction id {0} given twice")]
    Duplicate(u8),
    /// The id's round is still open at the root end node.
    #[error("reduction id {0} of the tree is still running at root end node {1}")]
    Busy(u8, usize),
}

/// The multicast address of reduction `rid` on the tree of multicast address `dfa` (its reduction id
/// replaced, DFA bits 20-18, 002 (61)).
pub fn reduction_dfa(dfa: u32, rid: u8) -> Result<u32, ConcurrencyError> {
    if usize::from(rid) >= REDUCTIONS_PER_TREE {
        return Err(ConcurrencyError::ReductionId(rid));
    }
    Ok(tree_address(dfa) | u32::from(rid) << dfa_bits::REDUCTION_ID_SHIFT)
}

/// The engines' context key of reduction `rid` of Portals tree `tree`: the tree in bits 12:0 (DFA bits
/// 15-3), the reduction id above it (DFA bits 20-18; `docs/blocks/cpu.md` §Descriptors).
pub fn portals_ctx(tree: u16, rid: u8) -> u16 {
    u16::from(rid) << inswitch_frames::portals::dfa::TREE_BITS | tree
}

/// The tree of an engine context key ([`portals_ctx`]; a TLP CC_ID below 2^13 is itself).
pub fn ctx_tree(ctx: u16) -> u16 {
    ctx & ((1 << inswitch_frames::portals::dfa::TREE_BITS) - 1)
}

/// The tree of multicast address `dfa`: its address of reduction id 0 (the key of the tree's seqno
/// counter at a root, module doc).
pub fn tree_address(dfa: u32) -> u32 {
    let mask = ((REDUCTIONS_PER_TREE - 1) as u32) << dfa_bits::REDUCTION_ID_SHIFT;
    dfa & !mask
}

/// libfabric's cookie of reduction `rid` on tree `mcast_id` (`cxip_coll.c`, `cxip_coll_send_red_pkt`:
/// `cookie.mcast_id = mc_obj->mcast_addr`, `cookie.red_id = reduction->red_id`, `cookie.magic =
/// MAGIC`): the tree in bits 12-0, the reduction id in bits 15-13, `magic` in bits 31-16
/// ([`inswitch_frames::portals::Cookie`]). The engines copy an arm's cookie into the id's descriptor
/// and drop a contribution whose cookie differs (`DROP_COOKIE`), so each id's frames carry their own
/// and the engine needs no change. (The seqnos of every id of a tree come from one counter at the
/// root, as libfabric's `mc_obj->seqno`: module doc.)
pub fn libfabric_cookie(mcast_id: u16, rid: u8, magic: u16) -> u32 {
    use inswitch_frames::portals::cookie;
    let mcast = u32::from(mcast_id) & ((1 << cookie::MCAST_ID_BITS) - 1);
    let red = u32::from(rid) & ((1 << cookie::RED_ID_BITS) - 1);
    u32::from(magic) << cookie::MAGIC_SHIFT | red << cookie::RED_ID_SHIFT | mcast
}

/// A Soft Portals frame from device `src` (its MAC and SFA) carrying `frame` (FCS computed).
pub fn soft_portals(src: u16, frame: ReductionFrame) -> Vec<u8> {
    let mac = |m: u64| -> [u8; 6] { m.to_be_bytes()[2..].try_into().expect("6 bytes") };
    let eth = EthernetHeader { dst: mac(TREE_MAC), src: mac(engine_mac(src)), ethertype: SOFT_PORTALS_ETHERTYPE };
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

/// Ports of a switch that a port number (a `u8`, [`Portals::port_number`]) can name.
const PORT_NUMBERS: usize = 1 << u8::BITS;

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
    /// The sequence numbers the values are for (empty: every arm's). An arm under another seqno is not
    /// answered, but for the round's restart ([`Root::restart`]): a start arm (`rt_resno` = `rt_seqno`,
    /// count 0) under a seqno newer than the first listed, which the root draws from the tree's counter
    /// when it restarts (module doc), so no one knows it in advance. The fault campaign gives a leaf one
    /// value per round, for the round's seqno; a leaf that missed every arm of its round must not give
    /// that value to the next round when the round's result arm (002 (36)) reaches it (docs/fabric.md
    /// §Goodput: a leaf's stale value).
    pub seqnos: Vec<u16>,
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
    /// The first seqno of the tree's counter at this root end node (module doc), if the tree has none
    /// there yet; a later root of the tree (another reduction id, later rounds) draws from the counter.
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
    /// round is run on the tree of [`crate::sim::Fabric::portals_root`]'s `dfa` and on these, and the first tree
    /// whose counts reach [`Root::expected`] gives the result, which is multicast on every tree.
    pub twins: Vec<u32>,
    /// A round ends when every tree is complete (or on the timer), not at the first complete one: both
    /// trees' results can then be compared ([`RoundResult::trees`]).
    pub await_all: bool,
    /// The root's arm retry (issue 20): a round still open `.0` ps after its arm is armed again on every
    /// tree whose count is short, at most `.1` times (`None`: never). A leaf answers one arm per seqno and
    /// an engine drops an arm that is not newer than its live one (`STALE_ARM`), so only a switch, engine
    /// or leaf whose arm was lost acts on it.
    pub rearm: Option<(Ps, u8)>,
    /// The root's round restart (issue 20, session 16): a round in which no tree is complete this long
    /// after its arm is run again, once, on every tree under the next seqno (a start arm: `rt_resno` =
    /// `rt_seqno`, count 0); the newer arm clears every engine's state of the round (002 (70)-(72)) and
    /// each leaf answers it with the value it gave the round ([`EndTree::Leaf`]). The result carries the
    /// restart's seqno (`None`: never).
    pub restart: Option<Ps>,
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
pub(super) struct TreeAcc {
    pub(super) dfa: u32,
    pub(super) count: u32,
    pub(super) frames: u32,
    pub(super) acc: Option<Contribution>,
}

#[derive(Clone, Debug)]
pub(super) struct RootState {
    pub(super) cfg: Root,
    pub(super) seqno: u16,
    pub(super) open: bool,
    pub(super) trees: Vec<TreeAcc>,
    /// The first tree whose counts reached the expected number this round.
    pub(super) first: Option<usize>,
    pub(super) armed_at: Ps,
    pub(super) results: Vec<RoundResult>,
    /// The open round is a restart ([`Root::restart`]): it is not restarted again.
    pub(super) restarted: bool,
    /// The rounds the root restarted ([`Root::restart`]): (the round's seqno, the restart's).
    pub(super) restarts: Vec<(u16, u16)>,
    /// Reduce to one target ([`Fabric::portals_one_target`]): the result stays at the root.
    pub(super) one_target: bool,
}

#[derive(Clone, Debug)]
pub(super) enum EndTree {
    /// A leaf, the last `rt_seqno` it answered (it contributes once per round: a repeated arm is
    /// not answered again), and the value it last gave, kept for a restart of that round ([`Root::restart`]).
    Leaf(Leaf, Option<u16>, Option<[u64; OPERANDS]>),
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
    /// Arms roots sent again ([`Root::rearm`]).
    pub rearms: u64,
    /// Rounds roots ran again under the next seqno ([`Root::restart`]).
    pub restarts: u64,
}

/// The Portals side of a fabric (module doc).
#[derive(Clone, Debug, Default)]
pub struct Portals {
    pub(super) ports: Vec<Vec<Port>>,
    pub(super) parent: HashMap<(usize, u16), Port>,
    pub(super) ends: HashMap<(usize, u32), EndTree>,
    /// Each (root end node, tree)'s seqno counter: the next seqno it draws (module doc; libfabric's
    /// `mc_obj->seqno`). The tree is its reduction id 0 address ([`tree_address`]).
    pub(super) counters: HashMap<(usize, u32), u16>,
    /// Every Portals frame delivered to an end node.
    pub log: Vec<PortalsDelivery>,
    /// Counters.
    pub stats: PortalsStats,
}

impl Portals {
    /// The port tables of `t` (module doc).
    pub fn new(t: &Topology) -> Portals {
        // Only the ports a number can name are kept (the first `PORT_NUMBERS` of each switch): in a
        // flattened butterfly of 1,024 switches a switch has 1,086, and the lists of them all (18 MB)
        // grew with the square of the switches (issue 23). Each list is reserved at its length.
        let mut count = vec![0usize; t.switches.len()];
        for s in t.endpoints.iter().map(|n| n.switch).chain(t.isls.iter().flat_map(|l| [l.a, l.b])) {
            count[s] += 1;
        }
        let mut ports: Vec<Vec<Port>> = count.into_iter().map(|n| Vec::with_capacity(n.min(PORT_NUMBERS))).collect();
        let mut add = |s: usize, p: Port| {
            if ports[s].len() < PORT_NUMBERS {
                ports[s].push(p);
            }
        };
        for (e, n) in t.endpoints.iter().enumerate() {
            add(n.switch, Port::Node(e));
        }
        for (l, isl) in t.isls.iter().enumerate() {
            add(isl.a, Port::Isl(l));
            add(isl.b, Port::Isl(l));
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

    /// The seqno root end node `e` restarted its round `seqno` of `dfa` under ([`Root::restart`]; drawn
    /// from the tree's counter, so not always the next one), if it restarted it.
    pub fn restart_of(&self, e: usize, dfa: u32, seqno: u16) -> Option<u16> {
        match self.ends.get(&(e, dfa)) {
            Some(EndTree::Root(r)) => r.restarts.iter().find(|x| x.0 == seqno).map(|x| x.1),
            _ => None,
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
    /// Its multicast address of reduction id 0 ([`PortalsTree::reduction`]: the others).
    pub dfa: u32,
    /// The member switches, top-down from the root end node's switch (`manager::portals_shape`).
    pub switches: Vec<usize>,
    /// The switch the manager chose as the tree's root (for a twin, not the root end node's switch).
    pub manager_root: usize,
}

impl PortalsTree {
    /// The multicast address of the tree's reduction `rid` (DFA bits 20-18, 002 (61)).
    pub fn reduction(&self, rid: u8) -> Result<u32, ConcurrencyError> {
        reduction_dfa(self.dfa, rid)
    }
}

/// A Portals job placed by the manager and configured in the fabric (`crate::drive::place_portals`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortalsJob {
    /// The manager's job.
    pub job: JobId,
    /// The tree (the context key).
    pub tree: u16,
    /// Its multicast address of reduction id 0 ([`PortalsJob::reduction`]: the others).
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

impl PortalsJob {
    /// The multicast address of the tree's reduction `rid` (DFA bits 20-18, 002 (61)); 0 is [`PortalsJob::dfa`].
    pub fn reduction(&self, rid: u8) -> Result<u32, ConcurrencyError> {
        reduction_dfa(self.dfa, rid)
    }

    /// libfabric's cookie of the job's reduction `rid` ([`libfabric_cookie`] of its tree, under
    /// `magic`): every round of that id carries it, on the twins too (one collective on several paths).
    pub fn cookie(&self, rid: u8, magic: u16) -> u32 {
        libfabric_cookie(self.tree, rid, magic)
    }
}

/// One of the concurrent reductions [`crate::sim::Fabric::portals_concurrent`] starts on a tree.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// Its reduction id (0-7, DFA bits 20-18).
    pub rid: u8,
    /// The root end node's rounds of it ([`Root::twins`], if any, must be the twins' addresses of the
    /// same id: [`PortalsTree::reduction`]).
    pub root: Root,
    /// Each leaf end node and what it contributes to it.
    pub leaves: Vec<(usize, Leaf)>,
}
