//! The campaign's Soft Portals trees (seed 002; `docs/fabric.md` §Fault campaign): their manager plan,
//! a round under one of the tree's reduction ids (DFA bits 20-18, 002 (60)-(61)), and the engines'
//! context key of a reduction.

use std::collections::VecDeque;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{CampaignReport, CampaignSpec, PortalsCtx, INT_SUM, PORTALS_COOKIE, PORTALS_VNI};
use crate::manager::plan::{Action, Plan as MPlan};
use crate::manager::{Family, JobId, Role as MRole, SwitchId};
use crate::sim::portals::{self, Leaf, Port, Root};
use crate::sim::Fabric;
use crate::topology::Ps;
use inswitch_model::cpu::seqno_newer;

/// The manager plan of one Portals tree over `source` and `leaves` (the Portals counterpart of
/// [`job_plan`], for a one-level fabric): the source's switch on top, every other switch with leaves
/// one ISL below it; per member engine `VNI_ALLOWED[0]` := [`PORTALS_VNI`], `ENGINE_SFA`, a static
/// entry (slot `static_slot(switch)`, SUBSERVIENT, wait = the contributions beneath, 002 (58)) and
/// multicast entry `mcast_slot(switch)` (002 (49)-(50)). Ports are numbered as the fabric's
/// multicast forwarding numbers them ([`portals::Portals::port_number`]).
pub fn portals_plan(f: &Fabric, tree: u16, source: usize, leaves: &[usize], static_slot: &dyn Fn(usize) -> u16, mcast_slot: &dyn Fn(usize) -> u8) -> MPlan {
    let t = &f.topo;
    let top = t.endpoints[source].switch;
    let on = |s: usize| leaves.iter().filter(move |&&e| t.endpoints[e].switch == s).copied();
    let mut below: Vec<usize> = leaves.iter().map(|&e| t.endpoints[e].switch).filter(|&s| s != top).collect();
    below.sort_unstable();
    below.dedup();
    let src = t.endpoints[source].id;
    let mut plan = MPlan::default();
    for s in std::iter::once(top).chain(below.iter().copied()) {
        let engine = SwitchId(s as u32);
        let mut ports: Vec<u8> = on(s).filter_map(|e| f.portals.port_number(s, Port::Node(e))).collect();
        let mut wait = on(s).count() as u32;
        if s == top {
            for &c in &below {
                let l = t.isl_between(s, c).expect("a one-level fabric: an ISL to every switch");
                ports.extend(f.portals.port_number(s, Port::Isl(l)));
                wait += on(c).count() as u32;
            }
        }
        ports.sort_unstable();
        let id = t.switches[s].engine_id;
        for action in [
            Action::Vni { engine, slot: 0, vni: PORTALS_VNI },
            Action::EngineSfa { engine, sfa: u32::from(id) },
            Action::StaticEntry { engine, slot: static_slot(s), key: tree, family: Family::Portals, role: MRole::Subservient, wait, one_target: false },
            Action::Multicast { engine, slot: mcast_slot(s), tree, wait, ports },
        ] {
            plan.push(JobId(u32::from(tree)), 0, src, action);
        }
    }
    plan
}

/// An engine holds a live Soft Portals arming of reduction `rid` of `tree` that an arm under `seqno`
/// would not replace: its seqno is `seqno` or newer (`cpu::seqno_newer`), so the arm is dropped
/// (`STALE_ARM`).
pub fn stale_arming(f: &Fabric, tree: u16, rid: u8, seqno: u16) -> bool {
    let key = portals_ctx(tree, rid);
    (0..f.topo.switches.len()).filter_map(|s| f.engine(s)).any(|e| {
        let cpu = e.cpu();
        (0..cpu.descriptor_count()).map(|i| cpu.descriptor(i)).any(|d| d.valid && d.portals && d.key == key && !seqno_newer(seqno, d.seqno))
    })
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

/// Starts one Soft Portals round of `p` under reduction `rid` (multicast address `dfa`, its twin's
/// `twin_dfa`) at `start`: fresh values at the leaves, the root end node arms the tree 300 ns into the
/// period. Returns its seqno and the expected sum.
#[allow(clippy::too_many_arguments)] // the campaign's state, passed as it is
pub(super) fn portals_round(f: &mut Fabric, rng: &mut ChaCha8Rng, spec: &CampaignSpec, report: &mut CampaignReport, p: &PortalsCtx, rid: u8, dfa: u32, twin_dfa: Option<u32>, start: Ps) -> (u16, u64) {
    // The round's own start arm under a seqno newer than every arm the id's root sent: its last round's
    // result arm armed the next seqno, and a round restarted late (its timer counted from the restart)
    // multicasts it just before this period; under that seqno this round's arm would be dropped
    // (`STALE_ARM`) and the engines would run the round on the result's arming and its timer
    // (docs/fabric.md §Goodput: the next round after a late result). An id's first round takes 0.
    let seqno = f.portals_next_seqno(p.source, dfa).unwrap_or(0);
    let mut expected = 0u64;
    // The values are this round's: its seqno and its restart's (not the seqno its result arm arms,
    // which no round answers).
    let seqnos = if spec.portals_restart.is_some() { vec![seqno, portals::next_seqno(seqno)] } else { vec![seqno] };
    if stale_arming(f, p.tree, rid, seqno) || p.twin.is_some_and(|(tw, _)| stale_arming(f, tw, rid, seqno)) {
        report.portals_stale_starts += 1;
    }
    for &e in &p.leaves {
        let v = u64::from(rng.random::<u32>());
        expected = expected.wrapping_add(v);
        let values = VecDeque::from([Some([v, 0, 0, 0])]);
        let leaf = Leaf { vni: PORTALS_VNI, cookie: PORTALS_COOKIE, op: INT_SUM, compute: spec.compute_ps, values, seqnos: seqnos.clone() };
        if let Some(d) = twin_dfa {
            f.portals_leaf(e, d, leaf.clone());
        }
        f.portals_leaf(e, dfa, leaf);
    }
    // The root's timer: longer than the engines' and the latest late contribution, within the period.
    let timeout = spec.period_ps * 2 / 3;
    let root = Root { vni: PORTALS_VNI, cookie: PORTALS_COOKIE, op: INT_SUM, first_seqno: seqno, expected: p.leaves.len() as u32, rounds: 1, timeout, own: VecDeque::new(), twins: twin_dfa.into_iter().collect(), await_all: false, rearm: spec.portals_rearm, restart: spec.portals_restart };
    f.portals_root(p.source, dfa, root);
    f.portals_start(p.source, dfa, start + 300_000);
    (seqno, expected)
}

