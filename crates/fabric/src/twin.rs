//! Twin Soft Portals trees in the fault campaign (issue 20, seed 002 (70)-(72): "the same reduction
//! could be run on two independent trees ... the host software can multicast the result on both
//! trees"). A twin is a second multicast tree over the same root end node and leaves, built to share as
//! little as the one-level fabric allows with its primary (`campaign::portals_plan`, whose
//! engine on top is the root end node's switch `S` and which combines at every switch with leaves):
//!
//! * its one combining engine is another switch `T` (one with no leaf of the job if there is one, so
//!   the two trees share no engine; else the one with the fewest leaves), reached over the ISL `S`-`T`;
//! * `S` and every other switch with leaves only forward (their multicast entry has wait 0, so their
//!   engine's interposer does not take the tree's frames, `docs/blocks/interposer.md` §Decision): the
//!   arm goes down `S` → `T` → the leaves' switches → the leaves, the contributions come back up the
//!   same way to `T`, `T`'s partial result goes up through `S` to the root; the leaves on `S` answer the
//!   root directly (their contributions are forwarded up to it, and the root folds them, 002 (32));
//! * no leaf outside `S`: no engine at all, `S` forwards.
//!
//! The root end node arms both trees every round and takes the first complete result
//! ([`crate::sim::portals::Root::twins`]); its result re-arms both, which closes the slower tree's round
//! (a newer arm clears an engine's reduction state; the last one's engines free themselves by
//! `TIMEOUT_EMPTY`).

use crate::manager::plan::{Action, Plan as MPlan};
use crate::manager::{Family, JobId, Role as MRole, SwitchId};
use crate::sim::portals::Port;
use crate::sim::Fabric;

/// First multicast tree of the campaign's twins: a multiple of the campaign's static entries, so that
/// twin tree `TWIN_TREE_BASE + e` has static entry `e`.
pub const TWIN_TREE_BASE: u16 = 0x200;

/// The switch whose engine combines the twin of a tree rooted at switch `top` over `leaves` ([module
/// doc](self)): `None` if no leaf is outside `top`.
pub fn twin_engine(f: &Fabric, top: usize, leaves: &[usize]) -> Option<usize> {
    let t = &f.topo;
    if leaves.iter().all(|&e| t.endpoints[e].switch == top) {
        return None;
    }
    let on = |s: usize| leaves.iter().filter(|&&e| t.endpoints[e].switch == s).count();
    (0..t.switches.len()).filter(|&s| s != top && t.isl_between(s, top).is_some()).min_by_key(|&s| (on(s), s))
}

/// The switches the twin of a tree from root end node `source` over `leaves` takes a multicast entry
/// on: the root's, its engine's, and every switch with leaves.
pub fn twin_switches(f: &Fabric, source: usize, leaves: &[usize]) -> Vec<usize> {
    let t = &f.topo;
    let top = t.endpoints[source].switch;
    let mut v: Vec<usize> = std::iter::once(top).chain(twin_engine(f, top, leaves)).chain(leaves.iter().map(|&e| t.endpoints[e].switch)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The manager plan of the twin `tree` of the tree from `source` over `leaves` ([module doc](self)): per
/// switch of [`twin_switches`] the twin tree's multicast entry; at the combining engine
/// also `VNI_ALLOWED[0]` := `vni`,
/// `ENGINE_SFA` and static entry `static_slot` (SUBSERVIENT, wait = the leaves outside the root's
/// switch).
pub fn portals_twin_plan(f: &Fabric, tree: u16, vni: u16, source: usize, leaves: &[usize], static_slot: u16) -> MPlan {
    let t = &f.topo;
    let top = t.endpoints[source].switch;
    let engine_at = twin_engine(f, top, leaves);
    let on = |s: usize| leaves.iter().filter(move |&&e| t.endpoints[e].switch == s).copied();
    let isl = |a: usize, b: usize| t.isl_between(a, b).expect("a one-level fabric: an ISL between every two switches");
    let src = t.endpoints[source].id;
    let mut plan = MPlan::default();
    for s in twin_switches(f, source, leaves) {
        let engine = SwitchId(s as u32);
        let mut ports: Vec<u8> = on(s).filter_map(|e| f.portals.port_number(s, Port::Node(e))).collect();
        let mut wait = 0;
        if s == top {
            ports.extend(engine_at.and_then(|x| f.portals.port_number(s, Port::Isl(isl(s, x)))));
        } else if Some(s) == engine_at {
            let below: Vec<usize> = twin_switches(f, source, leaves).into_iter().filter(|&c| c != top && c != s).collect();
            ports.extend(below.iter().filter_map(|&c| f.portals.port_number(s, Port::Isl(isl(s, c)))));
            wait = leaves.iter().filter(|&&e| t.endpoints[e].switch != top).count() as u32;
            for action in [
                Action::Vni { engine, slot: 0, vni },
                Action::EngineSfa { engine, sfa: u32::from(t.switches[s].engine_id) },
                Action::StaticEntry { engine, slot: static_slot, key: tree, family: Family::Portals, role: MRole::Subservient, wait, one_target: false },
            ] {
                plan.push(JobId(u32::from(tree)), 0, src, action);
            }
        }
        ports.sort_unstable();
        plan.push(JobId(u32::from(tree)), 0, src, Action::Multicast { engine, tree, wait, ports });
    }
    plan
}
