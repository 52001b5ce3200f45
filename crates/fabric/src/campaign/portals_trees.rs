//! The campaign's Soft Portals trees (seed 002; `docs/fabric.md` §Fault campaign): their definition,
//! their manager plan, and (re-exported from `sim::portals`) the engines' context key of one of a
//! tree's reductions (its reduction id in DFA bits 20-18, 002 (60)-(61)); a round is
//! `campaign::portals_round`.

use crate::manager::plan::{Action, Plan as MPlan};
use crate::manager::{Family, JobId, Role as MRole, SwitchId};
use crate::sim::portals::Port;
use crate::sim::Fabric;
use inswitch_model::cpu::seqno_newer;

pub use crate::sim::portals::{ctx_tree, portals_ctx};

/// VNI of the campaign's Portals trees.
pub const PORTALS_VNI: u16 = 0x42;
/// Magic of the campaign's Portals cookies (cookie bits 31-16; a round's cookie is libfabric's,
/// [`crate::sim::portals::libfabric_cookie`]): libfabric's own `MAGIC` (`cxip_coll.c`).
pub const PORTALS_MAGIC: u16 = 0x677d;

/// A Portals tree of the campaign.
#[derive(Clone, Debug)]
pub struct PortalsCtx {
    /// The multicast tree (context key).
    pub tree: u16,
    /// Its multicast address of reduction id 0 (a round's: [`crate::sim::portals::reduction_dfa`] with the round's id).
    pub dfa: u32,
    /// The root end node.
    pub source: usize,
    /// The leaves.
    pub leaves: Vec<usize>,
    /// The reduction id its next round takes (libfabric's `next_red_id`, round-robin over the 8 ids of
    /// DFA bits 20-18, 002 (61)).
    pub next_rid: u8,
    /// Its twin tree and the twin's multicast address, if it runs on two ([`crate::twin`]).
    pub twin: Option<(u16, u32)>,
}

/// The manager plan of one Portals tree over `source` and `leaves` (the Portals counterpart of
/// [`job_plan`], for a one-level fabric): the source's switch on top, every other switch with leaves
/// one ISL below it; per member engine `VNI_ALLOWED[0]` := [`PORTALS_VNI`], `ENGINE_SFA`, a static
/// entry (slot `static_slot(switch)`, SUBSERVIENT, wait = the contributions beneath, 002 (58)) and
/// the tree's multicast entry (002 (49)-(50)). Ports are numbered as the fabric's
/// multicast forwarding numbers them ([`crate::sim::portals::Portals::port_number`]).
pub fn portals_plan(f: &Fabric, tree: u16, source: usize, leaves: &[usize], static_slot: &dyn Fn(usize) -> u16) -> MPlan {
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
            Action::Multicast { engine, tree, wait, ports },
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

