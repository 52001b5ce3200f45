//! The collective manager drives the fabric (issue 7): one topology description ([`Topology`], from
//! which the manager's [`TopologyMap`] is derived), manager placements applied to the simulated engines
//! through their real ports, and the simulator's view of a placed tree ([`ContextPlan`], what its
//! metrics and the table-arithmetic stand-in read). `docs/fabric.md` §The manager drives the fabric.
//!
//! [`apply`] turns a manager [`MPlan`] into what travels:
//!
//! * its frames (`Plan::encode`: PBV-table and PBV_FLAGS writes, CPU static entries, multicast entries,
//!   all as register writes into the engines' windows, and INITIALIZATION and RESET messages, in plan
//!   order) are sent from the job's source node as real TLPs: they cross the source's link and the
//!   crossbars to the engine they address, whatever requester ID the plan gives them (the master's for
//!   the subservient engines' register writes, `docs/manager.md` §5). INITIALIZATIONs all go to the
//!   tree's master, which replicates those of the engines below it down the tree (000 \[0106\]-\[0107\],
//!   \[0157\]; `docs/blocks/cpu.md` §Messages). The CPU is
//!   configured only through the register space's CPU window (`docs/blocks/register_space.md` §CPU window): the
//!   fabric does not use the engines' `cpu_cfg_wr_*` back door;
//! * its end-node steps tell the simulated end nodes which contexts they answer.
//!
//! Order: frames from one node to one engine take one path and arrive in order, so a context's PBV
//! entries, flags and static entry are in before its INITIALIZATION. A plan that clears an engine's
//! configuration after a message to it (a removal: the RESET must find the context before its static
//! entry is cleared) is applied in phases ([`apply_encoded`]). [`configure`] sends the built-in
//! plans the same way ([`configure`], [`builtin_plans`]).

use inswitch_frames::collective::NO_PARTICIPANT;

use inswitch_frames::portals::ReductionFrame;

use crate::manager::{Action, Encoded, Family, JobId, JobSpec, Manager, ManagerError, NodeId, Plan as MPlan, Role as MRole, SwitchId, TopologyMap};
use crate::setup::{ContextPlan, EngineContext, Member, Plan, Role};
use crate::sim::portals::{PortalsJob, PortalsTree};
use crate::sim::{EngineKind, Fabric, SimError};
use crate::topology::{Ps, Topology};

/// A manager over the map of `t` (switch `i` is `SwitchId(i)`, end node `i` is `NodeId(i)`).
pub fn manager_for(t: &Topology) -> Result<Manager, ManagerError> {
    Ok(Manager::new(TopologyMap::from_topology(t)?))
}

/// Reads a topology file in either format (`docs/fabric.md` §Topology files): the JSON of
/// `docs/manager.md` §4 (the text starts with `{`) or the simulator's line format. Returns the simulator's
/// topology and the manager's map of the same fabric (switch `i` = `SwitchId(i)`, end node `i` =
/// `NodeId(i)`): from JSON the map is the file's (ports, hosts, capacities, up/down as written) and the
/// topology its [`TopologyMap::to_topology`]; from the line format the topology is the file's and the map
/// its [`TopologyMap::from_topology`]. Both are checked (duplicate IDs, a disconnected fabric).
pub fn load_topology(text: &str) -> Result<(Topology, TopologyMap), String> {
    let (t, m) = if text.trim_start().starts_with('{') {
        let m = TopologyMap::from_json(text).map_err(|e| e.to_string())?;
        (m.to_topology("file"), m)
    } else {
        let t = Topology::parse(text).map_err(|e| e.to_string())?;
        let m = TopologyMap::from_topology(&t).map_err(|e| e.to_string())?;
        (t, m)
    };
    crate::topology::Routes::new(&t).map_err(|e| e.to_string())?;
    Ok((t, m))
}

/// The simulator's view of tree `tree` of a placed job: every member engine with its role and its PBV
/// members in bit order (the order the CPU emits in), the participants and the source as end-node
/// indices. `None` if the job or tree does not exist.
///
/// The view's `source`, the node that starts the rounds, is the job's target ([`JobSpec::target_node`]):
/// a CONTROL sets the root engine's `upstream` to its requester (`docs/blocks/cpu.md` §Messages), so the
/// node that commands a round is the one its end result goes to (003 \[0052\]). The view's master is
/// the tree's root engine, even when the plan makes it SUBSERVIENT to the target
/// (`Job::combines_at_target`): it is where the START goes.
pub fn context_of(m: &Manager, job: JobId, tree: usize) -> Option<ContextPlan> {
    let j = m.job(job)?;
    let p = j.trees.get(tree)?;
    let mut engines: Vec<EngineContext> = p
        .engines
        .iter()
        .map(|(&s, slots)| {
            let mut pbv = slots.pbv.clone();
            pbv.sort_by_key(|e| e.0);
            EngineContext {
                switch: s.0 as usize,
                role: if s == p.tree.root { Role::Master } else { Role::Subservient },
                members: pbv.iter().map(|&(_, id, switch, _)| Member { id, switch }).collect(),
            }
        })
        .collect();
    engines.sort_by_key(|e| (e.role != Role::Master, e.switch));
    Some(ContextPlan {
        cc_id: p.key,
        operation: j.spec.op,
        accumulator: 0,
        source: j.spec.target_node().0 as usize,
        participants: p.tree.participants().iter().map(|n| n.0 as usize).collect(),
        engines,
    })
}

/// Applies a manager plan to the cycle engines of `f` (module doc): the plan's frames from end node
/// `from` at `at` (or now, if later), end nodes joined to their contexts with the operand
/// `value(end node)` in lane 0. Returns the encoded plan.
///
/// Host steps: an end node whose `EndNode` step names its PBV entry joins the context; with
/// `pre_reduce_from` it is its host's representative and contributes the reduction of its group
/// ([`Fabric::pre_reduce`], 003 \[0055\], an in-host step of [`crate::sim::HOST_LOCAL_PS`]); an end
/// node that sends to its representative (P_ID 0xFFFF) joins to hold its operands but gets no command
/// from an engine. An `Action::Target` makes its node collect and reduce the roots' end results
/// ([`Fabric::target`], 003 \[0062\]) and, for an all-reduce, send the job's result down every tree
/// ([`Fabric::target_send_down`]).
pub fn apply(f: &mut Fabric, m: &Manager, plan: &MPlan, from: usize, at: Ps, value: &dyn Fn(usize) -> u64) -> Result<Encoded, SimError> {
    let enc = plan.encode(m.topology()).map_err(|e| SimError::Plan(e.to_string()))?;
    apply_encoded(f, plan, &enc, from, at, &|j| m.job(j).map_or(0, |j| j.spec.op), value)?;
    Ok(enc)
}

/// Whether `a` clears configuration an earlier message to its engine may still need.
fn clears(a: &Action) -> bool {
    matches!(a, Action::StaticClear { .. } | Action::PbvClear { .. } | Action::MulticastClear { .. })
}

/// [`apply`] of a plan already encoded; `op_of` gives a job's opcode (for the end nodes it joins).
///
/// The frames of a configuration need no waiting: an engine's register writes and its INITIALIZATION
/// travel one path in plan order. A clear of an engine's static entry, PBV entry or multicast entry
/// after a collective message to the same engine (a removal: the RESET must reach the CPU before its
/// static entry is cleared, `docs/manager.md` §5) is another matter: the register space forwards a
/// write to the CPU within a few cycles while the CPU may not have taken the message yet. Such a plan
/// is applied in phases cut before such a clear, the fabric run until quiet between them; a
/// configuration plan is one phase and nothing is run.
pub fn apply_encoded(f: &mut Fabric, plan: &MPlan, enc: &Encoded, from: usize, at: Ps, op_of: &dyn Fn(JobId) -> u8, value: &dyn Fn(usize) -> u64) -> Result<(), SimError> {
    let mut cuts = vec![0usize];
    let mut messaged = std::collections::HashSet::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let engine = step.action.engine();
        if clears(&step.action) && engine.is_some_and(|e| messaged.contains(&e)) {
            cuts.push(i);
            messaged.clear();
        }
        if matches!(step.action, Action::Initialize { .. } | Action::Reset { .. }) {
            messaged.extend(engine);
        }
    }
    cuts.push(plan.steps.len());
    for (k, w) in cuts.windows(2).enumerate() {
        let steps = w[0]..w[1];
        if k > 0 {
            f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
        }
        for &i in enc.host_steps.iter().filter(|i| steps.contains(i)) {
            let step = &plan.steps[i];
            match step.action {
                Action::EndNode { node, cc_id, p_id, ref pre_reduce_from, .. } => {
                    let op = op_of(step.job);
                    let e = node.0 as usize;
                    f.join(e, cc_id, op, vec![value(e), 0, 0, 0]);
                    if p_id != NO_PARTICIPANT && !pre_reduce_from.is_empty() {
                        let group = pre_reduce_from.iter().filter_map(|&d| f.topo.endpoints.iter().position(|n| n.id == d)).collect();
                        f.pre_reduce(e, cc_id, group);
                    }
                }
                Action::Target { node, ref roots, ref cc_ids, send_down: false } => f.target(node.0 as usize, op_of(step.job), roots, cc_ids),
                Action::Target { node, ref roots, ref cc_ids, send_down: true } => f.target_send_down(node.0 as usize, op_of(step.job), roots, cc_ids),
                Action::EndNodeClear { node, cc_id } => f.leave(node.0 as usize, cc_id),
                _ => {}
            }
        }
        let t = at.max(f.now());
        for fr in enc.frames.iter().filter(|fr| steps.contains(&fr.step)) {
            let bytes = fr.tlp.to_bytes().map_err(|e| SimError::Plan(format!("step {}: {e}", fr.step)))?;
            f.send_tlp_from(from, t, &bytes);
        }
    }
    Ok(())
}

/// Configures every engine and end node of `plan` (the built-in plans, `crate::setup`): cycle engines
/// through their ports, as the manager's placements are ([`Fabric::bring_up`], then each context as
/// a manager plan, [`builtin_plans`]: PBV entries and flags, the static entry and an INITIALIZATION
/// per engine, sent as frames from the context's source node at `at`, [`apply_encoded`]); the
/// stand-in from the plan directly ([`Fabric::configure_stand_ins`]). End nodes join their contexts
/// with their operands (`value(endpoint index)`).
pub fn configure(f: &mut Fabric, plan: &Plan, at: Ps, value: &dyn Fn(usize) -> u64) -> Result<(), SimError> {
    // Per engine: the union of its members over the contexts (the CPU has one PBV table per engine,
    // docs/blocks/cpu.md §Not built) and its static entries.
    let n = f.topo.switches.len();
    let mut table: Vec<Vec<u16>> = vec![vec![]; n];
    let mut statics = vec![0usize; n];
    // The static entries each engine's contexts take (docs/blocks/cpu.md §Static table: direct-mapped,
    // CC_ID mod STATIC_ENTRIES): two contexts of one engine in one entry are refused below.
    let mut entries: Vec<Vec<(usize, u16)>> = vec![Vec::new(); n];
    let entries_per_engine = f.cfg.engine_params.static_entries;
    for c in &plan.contexts {
        for ec in &c.engines {
            for m in &ec.members {
                if !table[ec.switch].contains(&m.id) {
                    table[ec.switch].push(m.id);
                }
            }
            statics[ec.switch] += 1;
            let e = crate::manager::static_slot_of(c.cc_id, entries_per_engine).into();
            if let Some(&(_, other)) = entries[ec.switch].iter().find(|x| x.0 == e && x.1 != c.cc_id) {
                return Err(SimError::Plan(format!(
                    "engine of {}: contexts {other:#x} and {:#x} meet in static entry {e} (CC_ID mod {entries_per_engine})",
                    f.topo.switches[ec.switch].name, c.cc_id
                )));
            }
            entries[ec.switch].push((e, c.cc_id));
        }
        for &p in &c.participants {
            f.join(p, c.cc_id, c.operation, vec![value(p), 0, 0, 0]);
        }
    }
    let cycle = f.cfg.engine == EngineKind::Cycle;
    let limit = f.cfg.engine_params.static_entries;
    for s in 0..n {
        if cycle && table[s].len() > crate::setup::PBV_ENTRIES {
            return Err(SimError::Plan(format!(
                "engine of {} needs {} PBV entries; the CPU's PBV table holds {} ([0155])",
                f.topo.switches[s].name,
                table[s].len(),
                crate::setup::PBV_ENTRIES
            )));
        }
        if statics[s] > limit {
            return Err(SimError::Plan(format!("engine of {} needs {} static entries, it has {limit}", f.topo.switches[s].name, statics[s])));
        }
    }
    f.configure_stand_ins(plan);
    if cycle {
        // The same path as the manager's placements: bring-up, then each context's plan encoded by the
        // manager's encoder, frames from its source.
        // The bring-up first, run until quiet: an engine must hold its route entry 0 before a plan makes
        // it emit (a master relaying INITIALIZATIONs), and another context's source may be nearer to it
        // than the first's (docs/fabric.md §Two masters: the relays lost to route misses).
        if let Some(first) = plan.contexts.first() {
            f.bring_up(first.source, at);
            f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
        }
        for (c, p) in plan.contexts.iter().zip(builtin_plans(&f.topo, &plan.contexts, entries_per_engine)) {
            let enc = p.encode_with(&|s| f.topo.switches[s.0 as usize].engine_id).map_err(|e| SimError::Plan(e.to_string()))?;
            apply_encoded(f, &p, &enc, c.source, at, &|_| c.operation, value)?;
        }
    }
    Ok(())
}

/// The built-in contexts ([`crate::setup::plan`], `scenario::two_masters`) as manager plans, one per
/// context (job id = its index, tree 0), so that they are encoded and sent exactly as the manager's
/// placements are: per engine of the context, the PBV-table entries the engine does not hold yet (one
/// table per engine, shared by its contexts, `docs/blocks/cpu.md` §Not built; in first-use order, which is the
/// context's PBV order; for an engine below the master whose whole table a FIG. 4 configuration message
/// can carry, that message through the master instead, just before the engine's INITIALIZATION, as the
/// manager sends it: `Action::Configure`), then its static entry (the CC_ID's, CC_ID mod `static_entries`: the CPU's static
/// table is direct-mapped); then one INITIALIZATION per engine from the source, all to the context's
/// master, the subservients' naming their engine in P_ID (`Action::Initialize::relay`), which the
/// engines relay down the tree as they do the manager's (000 \[0106\]-\[0107\], \[0161\];
/// `docs/blocks/cpu.md` §Messages): each subservient stores the engine that has it as a switch member,
/// its parent, as its upstream. The engines are in top-down order in every built-in plan (master
/// first; the hierarchy's parents before their children), so an engine holds the context before it
/// relays. Requester of every frame: the source. The initial accumulator is 0 (the identity of the
/// built-ins' INT_SUM and barrier). End nodes are not in the plans ([`configure`] joins them).
pub fn builtin_plans(t: &Topology, contexts: &[ContextPlan], static_entries: usize) -> Vec<MPlan> {
    // Each engine's PBV table as the plans so far have filled it: (device ID, switch participant).
    let mut table: Vec<Vec<(u16, bool)>> = vec![Vec::new(); t.switches.len()];
    let mut plans = Vec::with_capacity(contexts.len());
    for (k, c) in contexts.iter().enumerate() {
        let job = JobId(k as u32);
        let source = t.endpoints[c.source].id;
        let master = SwitchId(c.master() as u32);
        let mut plan = MPlan::default();
        let mut inits = Vec::new();
        for ec in &c.engines {
            let engine = SwitchId(ec.switch as u32);
            let mut pbv = 0u128;
            let mut added = Vec::new();
            for mem in &ec.members {
                let index = match table[ec.switch].iter().position(|&(d, _)| d == mem.id) {
                    Some(i) => i,
                    None => {
                        table[ec.switch].push((mem.id, mem.switch));
                        added.push(Action::PbvEntry { engine, index: (table[ec.switch].len() - 1) as u8, device_id: mem.id, switch: mem.switch });
                        table[ec.switch].len() - 1
                    }
                };
                pbv |= 1 << index;
            }
            // The master's from the source; the others' to the master naming their engine, relayed down
            // the tree (000 [0106]-[0107], [0161]; docs/blocks/cpu.md §Messages): their upstream is the
            // engine that has them as a switch member.
            let id = t.switches[ec.switch].engine_id;
            let parent = c.engines.iter().find(|p| p.members.iter().any(|m| m.switch && m.id == id));
            let (upstream, relay) = match (ec.role, parent) {
                (Role::Subservient, Some(p)) => (t.switches[p.switch].engine_id, Some(master)),
                _ => (source, None),
            };
            // A relayed engine's new entries travel as one FIG. 4 configuration message through the
            // master, as the manager's placements send them (000 [0157]: the master's engine sends one
            // configuration packet to each packet engine; `Action::Configure`), when the message can carry
            // the whole table; else as the register writes of [0175].
            let whole: Vec<Option<(u16, bool)>> = table[ec.switch].iter().copied().map(Some).collect();
            match relay.and(crate::manager::plan::relayed_table(&whole)) {
                Some(entries) if !added.is_empty() => inits.push(Action::Configure { engine, master, cc_id: c.cc_id, entries }),
                _ => added.into_iter().for_each(|a| plan.push(job, 0, source, a)),
            }
            let role = if ec.role == Role::Master { MRole::Master } else { MRole::Subservient };
            let slot = crate::manager::static_slot_of(c.cc_id, static_entries);
            plan.push(job, 0, source, Action::StaticEntry { engine, slot, key: c.cc_id, family: Family::Tlp, role, wait: 0, one_target: false });
            inits.push(Action::Initialize { engine, upstream, cc_id: c.cc_id, pbv, p_count: ec.members.len() as u16, op: c.operation, tid: 0, relay });
        }
        for a in inits {
            plan.push(job, 0, source, a);
        }
        plans.push(plan);
    }
    plans
}

/// Places `spec` with the manager and applies its plan from the job's source node at `at`; returns the
/// job, its encoded plan and the context view of its first tree.
pub fn place_and_apply(f: &mut Fabric, m: &mut Manager, spec: JobSpec, at: Ps, value: &dyn Fn(usize) -> u64) -> Result<(JobId, Encoded, ContextPlan), SimError> {
    let source = spec.source;
    let (job, plan) = m.place(spec).map_err(|e| SimError::Plan(format!("manager: {e}")))?;
    let enc = apply(f, m, &plan, source.0 as usize, at, value)?;
    let ctx = context_of(m, job, 0).ok_or_else(|| SimError::Plan(format!("job {} has no tree", job.0)))?;
    Ok((job, enc, ctx))
}

/// The end nodes `nodes` of a topology as manager node ids.
pub fn node_ids(nodes: &[usize]) -> Vec<NodeId> {
    nodes.iter().map(|&n| NodeId(n as u32)).collect()
}

/// Places `spec` (family Portals; the master defaults to the source's switch, where the root end
/// node's arm enters the tree) with the manager and configures the cycle engines from its plan
/// ([`apply`]: static entries with the wait counts, multicast entries,
/// `VNI_ALLOWED` := `spec.vni` and `ENGINE_SFA`, all as register-write frames from the source at `at`). With `spec.redundant` the manager also places a twin (002 (70)); every tree is configured
/// as a multicast tree from the source's switch (`manager::portals_shape`), so the source must be a
/// participant. [`Fabric::bring_up`] must have been called. End nodes are joined separately
/// ([`Fabric::portals_root`], [`Fabric::portals_leaf`]).
pub fn place_portals(f: &mut Fabric, m: &mut Manager, mut spec: JobSpec, at: Ps) -> Result<PortalsJob, SimError> {
    let root = spec.source.0 as usize;
    let root_switch = f.topo.endpoints.get(root).ok_or_else(|| SimError::Plan(format!("no end node {root}")))?.switch;
    if spec.family != Family::Portals {
        return Err(SimError::Plan("place_portals needs a Portals job".into()));
    }
    spec.master.get_or_insert(SwitchId(root_switch as u32));
    let (job, plan) = m.place(spec).map_err(|e| SimError::Plan(format!("manager: {e}")))?;
    let j = m.job(job).ok_or_else(|| SimError::Plan("placed job missing".into()))?;
    let top = SwitchId(root_switch as u32);
    let mut trees = Vec::new();
    for t in &j.trees {
        let (order, _) = crate::manager::portals_shape(&t.tree, top).ok_or_else(|| SimError::Plan(format!("tree {} does not reach the root end node's switch {root_switch}", t.key)))?;
        let dfa = ReductionFrame::multicast_dfa(t.key, 0).map_err(|e| SimError::Plan(e.to_string()))?;
        trees.push(PortalsTree { tree: t.key, dfa, switches: order.iter().map(|s| s.0 as usize).collect(), manager_root: t.tree.root.0 as usize });
    }
    let leaves: Vec<usize> = j.trees[0].tree.participants().iter().map(|n| n.0 as usize).filter(|&n| n != root).collect();
    apply(f, m, &plan, root, at, &|_| 0)?;
    let first = trees.remove(0);
    Ok(PortalsJob { job, tree: first.tree, dfa: first.dfa, root, leaves, switches: first.switches, twins: trees })
}
