//! Collective plans as the simulator sees them: which engine is the master of a context, which are
//! subservient, and whom each one serves ([`ContextPlan`]). Two sources: the collective manager's
//! placements (`crate::drive::context_of` gives this view of a placed tree) and the built-in
//! arrangements below, which the manager does not make (the monolithic engine, the 512-switch
//! hierarchy, the two-master case with named masters). Either way the engines are configured through
//! their ports by the manager's encoder (`crate::drive`, [`crate::drive::configure`]). The
//! built-in plans are the seed's:
//!
//! * **distributed** (\[0100\], \[0104\]-\[0111\], Table 1 right column): one master engine in the source's
//!   switch, one subservient engine in every other switch; the master serves the subservient engines
//!   (PBV entries marked "switch", \[0096\]) and its own local participants; each subservient serves its
//!   switch's participants;
//! * **monolithic** (Table 1 left column): the master engine serves every participant itself.
//!
//! PBV order is the emission order (the CPU emits in ascending PBV bit, `docs/blocks/cpu.md` §Messages): subservient
//! engines come first, as in Table 5 (\[0176\]: PBV 0 = 0x0010, PBV 1 = 0x0020, then the nodes), so the
//! far switches get the command before the local nodes.

use crate::topology::Topology;

/// Largest PBV: the CPU's PBV table has 128 entries (\[0155\], \[0157\]).
pub const PBV_ENTRIES: usize = 128;

/// Role of an engine in a context (the CPU's static-entry role field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Sends one partial result up (000 \[0109\]).
    Subservient,
    /// Completes the collective and distributes the result (\[0111\]).
    Master,
}

/// One participant of an engine's context: a device ID and whether it is an engine below (a "switch"
/// PBV entry, which answers with a RESPONSE) or an end device (a CONTRIBUTION).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// Device ID.
    pub id: u16,
    /// An engine below this one.
    pub switch: bool,
}

/// What one engine does in one context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineContext {
    /// Switch index of the engine.
    pub switch: usize,
    /// Role.
    pub role: Role,
    /// Participants in PBV order.
    pub members: Vec<Member>,
}

/// One collective context across the fabric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextPlan {
    /// CC_ID (12 bits, \[0168\]).
    pub cc_id: u16,
    /// Reduction opcode (0 barrier, 0x14 INT_SUM, `docs/blocks/reduce_unit.md`).
    pub operation: u8,
    /// Initial accumulator (the operation's identity).
    pub accumulator: u64,
    /// The source node (endpoint index) that configures and starts it (\[0113\]).
    pub source: usize,
    /// Participant end nodes (endpoint indices).
    pub participants: Vec<usize>,
    /// Every engine taking part.
    pub engines: Vec<EngineContext>,
}

impl ContextPlan {
    /// The master engine's switch.
    pub fn master(&self) -> usize {
        self.engines.iter().find(|e| e.role == Role::Master).expect("a plan has a master").switch
    }

    /// The largest PBV any engine of the plan needs.
    pub fn widest_pbv(&self) -> usize {
        self.engines.iter().map(|e| e.members.len()).max().unwrap_or(0)
    }
}

/// Every context of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Contexts.
    pub contexts: Vec<ContextPlan>,
}

/// How the engines are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrangement {
    /// One engine serves every participant.
    Monolithic,
    /// One master, one subservient engine per other switch with participants.
    Distributed,
    /// Distributed over more levels when one master cannot hold every switch in its PBV: switches form
    /// a tree of fan-out [`HIERARCHY_FANOUT`] (master first, then in switch order), each engine serving
    /// the engines below it and its own end nodes (multi-hop hierarchy, \[0106\]-\[0107\]).
    Hierarchical,
    /// The collective manager places the job (`crate::drive`, `docs/manager.md`) and its plan configures
    /// the engines through the fabric. Its built-in plan (for [`plan`]) is the distributed one, which is
    /// what the manager chooses for one source over a flattened butterfly.
    Managed,
}

/// Engines below one engine in the hierarchical plan: 31 engines plus up to 32 local end nodes keep
/// every PBV under half the CPU's 128 entries, and for 32 switches it is the distributed plan.
pub const HIERARCHY_FANOUT: usize = 31;

/// The built-in plan of one context: `source` starts it, every other end node takes part, the master is
/// in switch `master`.
pub fn plan(t: &Topology, arrangement: Arrangement, cc_id: u16, operation: u8, source: usize, master: usize) -> ContextPlan {
    let participants: Vec<usize> = (0..t.endpoints.len()).filter(|&e| e != source).collect();
    let engine_id = |s: usize| t.switches[s].engine_id;
    // The participants of each switch, in participant order: one pass, where filtering all participants
    // per switch cost switches x end nodes (66 M steps at 1,024 x 63, 6% of that all-reduce).
    let mut by_switch: Vec<Vec<usize>> = vec![Vec::new(); t.switches.len()];
    for &e in &participants {
        by_switch[t.endpoints[e].switch].push(e);
    }
    let local = |s: usize| by_switch[s].iter().map(|&e| Member { id: t.endpoints[e].id, switch: false });
    let engines = match arrangement {
        Arrangement::Monolithic => {
            let members = participants.iter().map(|&e| Member { id: t.endpoints[e].id, switch: false }).collect();
            vec![EngineContext { switch: master, role: Role::Master, members }]
        }
        Arrangement::Distributed | Arrangement::Managed => {
            let mut with_nodes: Vec<usize> = participants.iter().map(|&e| t.endpoints[e].switch).filter(|&s| s != master).collect();
            with_nodes.sort_unstable();
            with_nodes.dedup();
            let mut members: Vec<Member> = with_nodes.iter().map(|&s| Member { id: engine_id(s), switch: true }).collect();
            members.extend(local(master));
            let mut engines = vec![EngineContext { switch: master, role: Role::Master, members }];
            engines.extend(with_nodes.iter().map(|&s| EngineContext { switch: s, role: Role::Subservient, members: local(s).collect() }));
            engines
        }
        Arrangement::Hierarchical => {
            let mut order: Vec<usize> = participants.iter().map(|&e| t.endpoints[e].switch).filter(|&s| s != master).collect();
            order.sort_unstable();
            order.dedup();
            order.insert(0, master);
            (0..order.len())
                .map(|i| {
                    let children = (i * HIERARCHY_FANOUT + 1..((i + 1) * HIERARCHY_FANOUT + 1).min(order.len())).map(|c| Member { id: engine_id(order[c]), switch: true });
                    let mut members: Vec<Member> = children.collect();
                    members.extend(local(order[i]));
                    EngineContext { switch: order[i], role: if i == 0 { Role::Master } else { Role::Subservient }, members }
                })
                .collect()
        }
    };
    ContextPlan { cc_id, operation, accumulator: 0, source, participants, engines }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::LinkSpec;

    #[test]
    fn fig7_distributed_plan_is_table_5_for_the_master() {
        let t = Topology::fig7(LinkSpec::default());
        let p = plan(&t, Arrangement::Distributed, 1, 0, 0, 0);
        let ids: Vec<u16> = p.engines[0].members.iter().map(|m| m.id).collect();
        // Table 5 without the source itself (it starts the collective, [0150]): 0x0010, 0x0020, then nodes.
        assert_eq!(ids, [0x0010, 0x0020, 0x0002, 0x0003]);
        assert_eq!(p.engines.len(), 3);
        assert_eq!(p.engines[1].members.len(), 3);
        let m = plan(&t, Arrangement::Monolithic, 1, 0, 0, 0);
        assert_eq!(m.widest_pbv(), 8);
        assert_eq!(plan(&t, Arrangement::Hierarchical, 1, 0, 0, 0), p, "small fabrics: hierarchical = distributed");
    }

    #[test]
    fn hierarchical_plan_fits_the_pbv_at_512_switches() {
        let t = Topology::flattened_butterfly(512, 32, LinkSpec::default()).unwrap();
        let p = plan(&t, Arrangement::Hierarchical, 1, 0, 0, 0);
        assert_eq!(p.engines.len(), 512);
        assert!(p.widest_pbv() <= 63, "{}", p.widest_pbv());
        // Every engine but the master is exactly one other engine's member.
        let below: usize = p.engines.iter().map(|e| e.members.iter().filter(|m| m.switch).count()).sum();
        assert_eq!(below, 511);
        let ends: usize = p.engines.iter().map(|e| e.members.iter().filter(|m| !m.switch).count()).sum();
        assert_eq!(ends, 512 * 32 - 1);
    }
}
