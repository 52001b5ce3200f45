//! The collective manager of issue 7 (seed 003's offload manager, seed 001's subnet manager, seed 000's
//! configuring source): it holds the [`TopologyMap`], selects a collection tree per job, allocates the
//! engines' contexts, and emits the [`Plan`] that configures them. Specification: `docs/manager.md`. It drives the simulator
//! through [`crate::drive`] (`docs/fabric.md` §The manager drives the fabric).
//!
//! The simulator's entry points: [`Manager::new`], [`Manager::place`] (a [`JobSpec`] → job id and plan),
//! [`Manager::remove`], [`Manager::link_down`] / [`Manager::switch_down`] (topology change → [`Change`]),
//! [`Plan::encode`] (frames: register writes, including the CPU's configuration through the register
//! space's CPU window, and collective messages).
//!
//! ```
//! use inswitch_fabric::manager::{JobSpec, Manager, TopologyMap};
//!
//! let mut mgr = Manager::new(TopologyMap::flattened_butterfly_32x32());
//! let parts: Vec<_> = mgr.topology().node_ids().collect();
//! let source = parts[0];
//! let (job, plan) = mgr.place(JobSpec::new(parts, source)).unwrap();
//! let tree = &mgr.job(job).unwrap().trees[0].tree;
//! assert_eq!((tree.members.len(), tree.depth()), (32, 2)); // 1 master + 31 subservient engines
//! let enc = plan.encode(mgr.topology()).unwrap();
//! // PBV entries (ID and flags: two writes each), static entries (STATIC_INDEX, WAIT, KEY), INITIALIZATIONs.
//! assert_eq!(enc.frames.len(), 2 * ((31 + 32) + 31 * 32) + 3 * 32 + 32);
//! let link = tree.links()[0];
//! let change = mgr.link_down(link);
//! assert_eq!(change.replaced.len(), 1);
//! ```

pub mod alloc;
mod error;
mod job;
pub mod plan;
pub mod topology;
pub mod tree;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use inswitch_model::register_space::VNI_ENTRIES;

pub use alloc::{EngineBook, Tid};
pub use error::ManagerError;
pub use job::{Family, JobId, Role};
pub use plan::{Action, EncodeError, Encoded, Plan, PlannedFrame, Step};
pub use topology::{DeviceId, EndNode, EngineCapacity, EngineUsage, Link, LinkId, LinkLoad, NodeId, Switch, SwitchId, TopologyMap, Vertex};
pub use tree::{CollectionTree, Constraints, Member, Score};

/// A collective job (003: a communicator; 001: a collective group).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSpec {
    /// Participating end nodes.
    pub participants: Vec<NodeId>,
    /// The source node: configures the master and receives the end result (000 \[0113\], \[0148\]).
    pub source: NodeId,
    /// Wire family.
    pub family: Family,
    /// Reduction opcode of the INITIALIZATION (0 = barrier; `docs/blocks/reduce_unit.md`).
    pub op: u8,
    /// Master engine named by the source (000 \[0113\]); `None`: the manager chooses.
    pub master: Option<SwitchId>,
    /// Number of roots (003 \[0062\]); 1 = one tree.
    pub roots: usize,
    /// Also build a redundant twin of every tree (002 (70)).
    pub redundant: bool,
    /// Endpoints of one host pre-reduce into one node-level result (003 \[0055\]).
    pub pre_reduce: bool,
    /// Bytes per round the job puts on each link it uses (load estimate for later jobs).
    pub bytes: u64,
    /// Portals protection key (VNI, 002 (52), (99)): every member engine admits it (`VNI_ALLOWED`).
    /// TLP jobs do not use it.
    pub vni: u16,
    /// Reduce to one target (003 \[0052\], \[0060\]: MPI_REDUCE): each master sends the end result to
    /// the source only (its `upstream`, the target) and its participants the exit without the result
    /// (COMPLETION ROUND_DONE, `docs/blocks/cpu.md` §Messages); `false`: all-reduce, every participant gets
    /// it. TLP jobs: the plan sets the masters' one-target bit. A Portals tree's result lands at its
    /// root end node (the source), which is then the target and keeps it
    /// (`Fabric::portals_one_target`, host software: the plan is the same).
    pub one_target: bool,
    /// The node the end result goes to (003 \[0052\]: "the node running that process"; \[0062\]: the
    /// target that reduces several roots' end results); `None`: the source. TLP: each root's
    /// INITIALIZATION carries the target's requester ID, so the root engine stores the target as its
    /// `upstream` (`docs/blocks/cpu.md` §Messages), and the simulator's view of the tree
    /// (`drive::context_of`) has the target command the rounds (its STARTs set `upstream` again).
    /// Portals jobs: must be `None` or the source (the root end node is where the result lands).
    pub target: Option<NodeId>,
}

/// Default per-round bytes: one 1056-byte response frame (000 \[0115\]: 1 KiB payload + header).
pub const DEFAULT_JOB_BYTES: u64 = 1056;
/// Default Portals VNI of a job (libfabric's default service VNI is 1).
pub const DEFAULT_VNI: u16 = 1;

impl JobSpec {
    /// A TLP barrier over `participants` from `source`, one root, no twin, no pre-reduction.
    pub fn new(participants: Vec<NodeId>, source: NodeId) -> Self {
        JobSpec { participants, source, family: Family::Tlp, op: 0, master: None, roots: 1, redundant: false, pre_reduce: false, bytes: DEFAULT_JOB_BYTES, vni: DEFAULT_VNI, one_target: false, target: None }
    }

    /// The node the end result goes to: [`JobSpec::target`], else the source.
    pub fn target_node(&self) -> NodeId {
        self.target.unwrap_or(self.source)
    }
}

/// What a placed tree is within its job.
#[allow(missing_docs)] // each variant's doc names its one field
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeKind {
    /// Tree of root `part` (0 .. roots).
    Primary { part: usize },
    /// Redundant twin of tree `of` (002 (70)).
    Redundant { of: usize },
}

/// The static entry of context key `key` in an engine with `contexts` static entries (the CPU's
/// `STATIC_ENTRIES`): `key mod contexts`, the CPU's direct-mapped index
/// (`inswitch_model::cpu::config::static_index`, docs/blocks/cpu.md §Static table).
pub fn static_slot_of(key: u16, contexts: usize) -> u16 {
    // The register space's STATIC_INDEX reaches the CPU's 4096 entries; an index beyond them (a capacity
    // above 4096) is refused by the encoder (`SlotOutOfRange`) rather than written into another entry.
    u16::try_from(inswitch_model::cpu::config::static_index(key, contexts)).unwrap_or(u16::MAX)
}

/// The slots one engine holds for one tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSlots {
    /// CPU static entry.
    pub static_slot: u16,
    /// The engine holds the tree's multicast entry (Portals): the register space's entry of the tree's
    /// key, one per tree (`docs/blocks/register_space.md` §Multicast entries), so nothing to allocate.
    pub mcast: bool,
    /// PBV entries in bit order: (index, device ID, is a switch, newly written for this tree).
    pub pbv: Vec<(u8, DeviceId, bool, bool)>,
    /// `VNI_ALLOWED` entry of the job's VNI (Portals): (index, newly written for this tree).
    pub vni: Option<(u8, bool)>,
}

impl EngineSlots {
    /// The context's PBV: bit i = PBV entry i (000 \[0094\], \[0180\]-\[0182\]).
    pub fn pbv_bits(&self) -> u128 {
        self.pbv.iter().fold(0, |a, &(i, ..)| a | 1u128 << i)
    }
}

/// A tree placed on the fabric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedTree {
    /// Primary or twin.
    pub kind: TreeKind,
    /// The tree.
    pub tree: CollectionTree,
    /// Context key on every member: CC_ID (TLP) or multicast tree (Portals).
    pub key: u16,
    /// Transaction ID (001): every member starts at 0.
    pub tid: Tid,
    /// Slots per member engine.
    pub engines: BTreeMap<SwitchId, EngineSlots>,
}

/// A placed job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Its id.
    pub id: JobId,
    /// What was asked.
    pub spec: JobSpec,
    /// Its trees: primaries (one per root) first, then twins.
    pub trees: Vec<PlacedTree>,
}

impl Job {
    /// The primary trees.
    pub fn primaries(&self) -> impl Iterator<Item = &PlacedTree> {
        self.trees.iter().filter(|t| matches!(t.kind, TreeKind::Primary { .. }))
    }

    /// A TLP all-reduce of several roots whose target combines the roots' end results and sends the
    /// whole job's result back down every tree (003 \[0062\] with \[0052\], \[0060\];
    /// `docs/manager.md` §3, several roots): each primary's root engine is then SUBSERVIENT (its end
    /// result goes up to the target as a RESPONSE, and it waits in Full for the target's COMPLETION,
    /// which it replicates down as any subservient does, `docs/blocks/cpu.md` §Messages).
    pub fn combines_at_target(&self) -> bool {
        self.spec.family == Family::Tlp && !self.spec.one_target && self.primaries().count() > 1
    }
}

/// Result of a topology change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// Removal of the affected trees, then their new configuration.
    pub plan: Plan,
    /// Trees re-placed (job, tree index).
    pub replaced: Vec<(JobId, usize)>,
    /// Jobs that could not be re-placed and were removed.
    pub failed: Vec<(JobId, ManagerError)>,
}

/// The collective manager.
#[derive(Clone, Debug)]
pub struct Manager {
    topo: TopologyMap,
    books: Vec<EngineBook>,
    jobs: BTreeMap<JobId, Job>,
    next_job: u32,
}

impl Manager {
    /// A manager over `topo` with nothing placed.
    pub fn new(topo: TopologyMap) -> Self {
        let books = vec![EngineBook::default(); topo.switches().len()];
        Manager { topo, books, jobs: BTreeMap::new(), next_job: 0 }
    }

    /// The topology map with its current usage and loads.
    pub fn topology(&self) -> &TopologyMap {
        &self.topo
    }

    /// Changes a switch's engine capacity (e.g. contexts taken by something else).
    pub fn set_capacity(&mut self, s: SwitchId, c: EngineCapacity) {
        self.topo.set_capacity(s, c);
    }

    /// An engine's allocations.
    pub fn book(&self, s: SwitchId) -> &EngineBook {
        &self.books[s.0 as usize]
    }

    /// A placed job.
    pub fn job(&self, id: JobId) -> Option<&Job> {
        self.jobs.get(&id)
    }

    /// The placed jobs.
    pub fn jobs(&self) -> impl Iterator<Item = &Job> {
        self.jobs.values()
    }

    /// Advances a tree's TID after a completed round (001) and returns the new one.
    pub fn advance_tid(&mut self, id: JobId, tree: usize) -> Result<Tid, ManagerError> {
        let t = self.jobs.get_mut(&id).and_then(|j| j.trees.get_mut(tree)).ok_or(ManagerError::UnknownJob(id.0))?;
        t.tid = t.tid.next();
        Ok(t.tid)
    }

    /// Places a job: selects its trees, allocates their contexts and returns the configuration plan.
    /// On an error nothing is placed.
    pub fn place(&mut self, spec: JobSpec) -> Result<(JobId, Plan), ManagerError> {
        let mut spec = spec;
        self.check_spec(&mut spec)?;
        let id = JobId(self.next_job);
        let mut job = Job { id, spec, trees: Vec::new() };
        match self.build_trees(&mut job) {
            Ok(()) => {}
            Err(e) => {
                for t in std::mem::take(&mut job.trees) {
                    self.release(&job.spec, &t);
                }
                return Err(e);
            }
        }
        self.next_job += 1;
        let mut plan = Plan::default();
        for i in 0..job.trees.len() {
            plan.extend(self.config_plan(&job, i));
        }
        plan.extend(self.target_plan(&job));
        self.jobs.insert(id, job);
        Ok((id, plan))
    }

    /// Removes a job: frees its contexts and returns the removal plan.
    pub fn remove(&mut self, id: JobId) -> Result<Plan, ManagerError> {
        let job = self.jobs.remove(&id).ok_or(ManagerError::UnknownJob(id.0))?;
        let mut plan = Plan::default();
        for (i, t) in job.trees.iter().enumerate() {
            plan.extend(self.removal_plan(&job, i));
            self.release(&job.spec, t);
        }
        Ok(plan)
    }

    /// A link went down: the trees that use it (or a participant attached by it) are removed and
    /// placed again; all other trees are untouched (003 \[0063\]).
    pub fn link_down(&mut self, l: LinkId) -> Change {
        self.topo.set_link_up(l, false);
        let topo = &self.topo;
        let hit = self.affected(|job, t| {
            t.tree.has_link(l) || t.tree.participants().iter().chain([&job.spec.source]).any(|&n| topo.node(n).link == l)
        });
        self.recompute(hit)
    }

    /// A switch went down: the trees that use it (or a participant attached to it) are removed and
    /// placed again; all other trees are untouched.
    pub fn switch_down(&mut self, s: SwitchId) -> Change {
        self.topo.set_switch_up(s, false);
        let topo = &self.topo;
        let hit = self.affected(|job, t| {
            t.tree.has_switch(s) || t.tree.participants().iter().chain([&job.spec.source]).any(|&n| topo.node(n).switch == s)
        });
        self.recompute(hit)
    }

    /// A link came back: nothing is moved (placed trees stay); later placements may use it.
    pub fn link_up(&mut self, l: LinkId) {
        self.topo.set_link_up(l, true);
    }

    /// A switch came back: nothing is moved.
    pub fn switch_up(&mut self, s: SwitchId) {
        self.topo.set_switch_up(s, true);
    }

    // ---------------------------------------------------------------------------------------------

    fn check_spec(&self, spec: &mut JobSpec) -> Result<(), ManagerError> {
        let n = self.topo.nodes().len() as u32;
        spec.participants.sort();
        spec.participants.dedup();
        if spec.participants.is_empty() {
            return Err(ManagerError::EmptyJob);
        }
        for &p in spec.participants.iter().chain([&spec.source]).chain(spec.target.as_ref()) {
            if p.0 >= n {
                return Err(ManagerError::UnknownNode(p.0));
            }
        }
        if let Some(m) = spec.master {
            if m.0 as usize >= self.topo.switches().len() {
                return Err(ManagerError::UnknownSwitch(m.0));
            }
        }
        spec.roots = spec.roots.max(1);
        // A Portals tree's result lands at its root end node, the source (002 (32), (37)): another
        // target would need the root end node to be the target (place the job from it).
        if spec.family == Family::Portals && spec.target.is_some_and(|t| t != spec.source) {
            return Err(ManagerError::PortalsTarget);
        }
        Ok(())
    }

    fn reachable(&self, n: NodeId) -> Result<(), ManagerError> {
        let node = self.topo.node(n);
        if !self.topo.link(node.link).up || !self.topo.switch(node.switch).up {
            return Err(ManagerError::NodeUnreachable(node.name.clone()));
        }
        Ok(())
    }

    /// Leaf switches of a job: switch → representatives (after node-level pre-reduction).
    fn leaves(&self, spec: &JobSpec, participants: &[NodeId]) -> (BTreeMap<SwitchId, Vec<NodeId>>, BTreeMap<NodeId, Vec<NodeId>>) {
        let groups = tree::pre_reduction_groups(&self.topo, participants, spec.pre_reduce);
        let mut leaves: BTreeMap<SwitchId, Vec<NodeId>> = BTreeMap::new();
        for &rep in groups.keys() {
            leaves.entry(self.topo.node(rep).switch).or_default().push(rep);
        }
        (leaves, groups)
    }

    fn build_trees(&mut self, job: &mut Job) -> Result<(), ManagerError> {
        for &p in &job.spec.participants {
            self.reachable(p)?;
        }
        self.reachable(job.spec.source)?;
        self.reachable(job.spec.target_node())?;
        let spec = job.spec.clone();
        let source_sw = self.topo.node(spec.source).switch;
        let need_mcast = spec.family == Family::Portals;
        let (leaves, groups) = self.leaves(&spec, &spec.participants);
        let parts = if spec.roots > 1 {
            let first = tree::select(&self.topo, &leaves, source_sw, &Constraints { root: spec.master, need_mcast, ..Default::default() })?.0.root;
            tree::partition(&self.topo, &leaves, spec.roots, first)
        } else {
            vec![leaves]
        };
        let mut roots: HashSet<SwitchId> = HashSet::new();
        for (i, part) in parts.iter().enumerate() {
            let c = Constraints { root: if i == 0 { spec.master } else { None }, avoid_roots: roots.clone(), need_mcast, ..Default::default() };
            let (mut t, _) = tree::select(&self.topo, part, source_sw, &c)?;
            t.groups = groups.iter().filter(|(r, _)| part.contains_key(&self.topo.node(**r).switch)).map(|(&r, v)| (r, v.clone())).collect();
            roots.insert(t.root);
            let placed = self.commit(&spec, TreeKind::Primary { part: i }, t, None)?;
            job.trees.push(placed);
        }
        if spec.redundant {
            let n = job.trees.len();
            for i in 0..n {
                let c = self.twin_constraints(job, i, &roots, need_mcast);
                let leaves = leaves_of(&job.trees[i].tree);
                let (mut t, _) = tree::select(&self.topo, &leaves, source_sw, &c)?;
                t.groups = job.trees[i].tree.groups.clone();
                roots.insert(t.root);
                let placed = self.commit(&spec, TreeKind::Redundant { of: i }, t, None)?;
                job.trees.push(placed);
            }
        }
        Ok(())
    }

    /// Constraints for a tree whose twin is tree `of` of `job`: avoid its links, switches and root.
    fn twin_constraints(&self, job: &Job, of: usize, roots: &HashSet<SwitchId>, need_mcast: bool) -> Constraints {
        let twin = &job.trees[of].tree;
        let mut avoid = roots.clone();
        avoid.insert(twin.root);
        Constraints {
            root: None,
            avoid_roots: avoid,
            shared_links: twin.links().into_iter().collect(),
            shared_switches: twin.members.keys().copied().collect(),
            need_mcast,
        }
    }

    /// Allocates a selected tree's key, slots and PBV entries and adds its load.
    fn commit(&mut self, spec: &JobSpec, kind: TreeKind, t: CollectionTree, preferred_key: Option<u16>) -> Result<PlacedTree, ManagerError> {
        if let Err(e) = tree::check_tree(&self.topo, &t) {
            unreachable!("the selection built a broken tree: {e}");
        }
        let portals = spec.family == Family::Portals;
        let limit = if portals { alloc::TREE_KEYS } else { alloc::CC_ID_KEYS };
        // A key is free on an engine when no context there uses it and its static entry is free: the
        // CPU's static table is direct-mapped, context key k at entry k mod STATIC_ENTRIES
        // (docs/blocks/cpu.md §Static table), so two contexts whose keys meet in one entry cannot both
        // live on one engine.
        let free_on_all = |k: u16| {
            t.members.keys().all(|s| {
                let book = &self.books[s.0 as usize];
                !book.keys.contains(&k) && !book.static_slots.contains(&static_slot_of(k, self.topo.switch(*s).capacity.contexts))
            })
        };
        let key = preferred_key
            .filter(|&k| free_on_all(k))
            .or_else(|| (0..limit).map(|k| k as u16).find(|&k| free_on_all(k)))
            .ok_or(ManagerError::NoKey)?;
        // Dry run: every member must have room before anything changes.
        let mut plans = BTreeMap::new();
        for (&s, m) in &t.members {
            let sw = self.topo.switch(s);
            let book = &self.books[s.0 as usize];
            // The key's entry (free: the key was chosen so).
            let static_slot = static_slot_of(key, sw.capacity.contexts);
            if book.static_slots.contains(&static_slot) || usize::from(static_slot) >= sw.capacity.contexts {
                return Err(ManagerError::Exhausted(sw.name.clone()));
            }
            // The tree's multicast entry is entry `key`: the engine must have it.
            if portals && usize::from(key) >= sw.capacity.mcast_entries {
                return Err(ManagerError::Exhausted(sw.name.clone()));
            }
            let mcast = portals;
            let vni = if portals {
                Some(book.vni_plan(spec.vni, VNI_ENTRIES).ok_or_else(|| ManagerError::Exhausted(sw.name.clone()))?)
            } else {
                None
            };
            let pbv = if portals {
                Vec::new()
            } else {
                let devices = pbv_devices(&self.topo, m);
                let idx = book.pbv_plan(&sw.capacity, &devices.iter().map(|d| d.0).collect::<Vec<_>>()).ok_or_else(|| ManagerError::PbvFull(sw.name.clone()))?;
                devices.iter().zip(idx).map(|(&(d, is_sw), (i, new))| (i, d, is_sw, new)).collect()
            };
            plans.insert(s, EngineSlots { static_slot, mcast, pbv, vni });
        }
        for (&s, slots) in &plans {
            let book = &mut self.books[s.0 as usize];
            book.keys.insert(key);
            book.static_slots.insert(slots.static_slot);
            for &(i, d, ..) in &slots.pbv {
                book.pbv_take(i, d);
            }
            if let Some((i, _)) = slots.vni {
                book.vni_take(i, spec.vni);
            }
            let used = book.pbv_used();
            let u = &mut self.topo.switch_mut(s).used;
            u.contexts += 1;
            u.descriptors += 1;
            u.mcast_entries += usize::from(slots.mcast);
            u.pbv_entries = used;
            u.masters += usize::from(s == t.root);
        }
        for l in tree_load_links(&self.topo, &t) {
            let load = &mut self.topo.link_mut(l).load;
            load.jobs += 1;
            load.bytes += spec.bytes;
        }
        Ok(PlacedTree { kind, tree: t, key, tid: Tid::default(), engines: plans })
    }

    /// Frees what [`Self::commit`] took; returns the PBV entries that became free per engine.
    fn release(&mut self, spec: &JobSpec, p: &PlacedTree) -> BTreeMap<SwitchId, Vec<u8>> {
        let mut freed = BTreeMap::new();
        for (&s, slots) in &p.engines {
            let book = &mut self.books[s.0 as usize];
            book.keys.remove(&p.key);
            book.static_slots.remove(&slots.static_slot);
            let mut f = Vec::new();
            for &(i, ..) in &slots.pbv {
                if book.pbv_release(i) {
                    f.push(i);
                }
            }
            freed.insert(s, f);
            if let Some((i, _)) = slots.vni {
                book.vni_release(i);
            }
            let used = book.pbv_used();
            let u = &mut self.topo.switch_mut(s).used;
            u.contexts -= 1;
            u.descriptors -= 1;
            u.mcast_entries -= usize::from(slots.mcast);
            u.pbv_entries = used;
            u.masters -= usize::from(s == p.tree.root);
        }
        for l in tree_load_links(&self.topo, &p.tree) {
            let load = &mut self.topo.link_mut(l).load;
            load.jobs -= 1;
            load.bytes -= spec.bytes;
        }
        freed
    }

    /// The configuration of tree `i` of `job` (`docs/manager.md` §5).
    fn config_plan(&self, job: &Job, i: usize) -> Plan {
        let mut plan = Plan::default();
        let p = &job.trees[i];
        let t = &p.tree;
        let dev = |s: SwitchId| self.topo.switch(s).device_id;
        let source = self.topo.node(job.spec.source).device_id;
        // The root engine's upstream: where its end result goes (003 [0052]).
        let target = self.topo.node(job.spec.target_node()).device_id;
        let root = dev(t.root);
        let order = t.top_down();
        let requester = |s: SwitchId| if s == t.root { source } else { root };
        // Several roots of an all-reduce: the target combines their end results and sends the job's
        // result back down (`Job::combines_at_target`), so a primary's root is SUBSERVIENT to it.
        let root_role = if job.combines_at_target() && matches!(p.kind, TreeKind::Primary { .. }) { Role::Subservient } else { Role::Master };
        let role = |s: SwitchId| if s == t.root { root_role } else { Role::Subservient };
        // A Portals tree is a multicast tree from the root end node (the source): its switches and links
        // re-rooted at the source's switch (`portals_shape`), so that a redundant twin whose root switch
        // is elsewhere is reached through its own links (002 (70)).
        let source_sw = self.topo.node(job.spec.source).switch;
        let shape = if job.spec.family == Family::Portals { portals_shape(t, source_sw) } else { None };
        let portals_order = shape.as_ref().map_or_else(|| order.clone(), |(o, _)| o.clone());
        let below = |s: SwitchId| -> Vec<(SwitchId, LinkId)> {
            match &shape {
                Some((_, ch)) => ch.get(&s).cloned().unwrap_or_default(),
                None => t.members[&s].children.clone(),
            }
        };
        // The master configures its subservients (000 [0106], [0157]): an engine below the root whose table
        // changes gets its whole PBV table in one FIG. 4 configuration message, relayed by the master,
        // when the message can carry it (`plan::relayed_table`); else the master's [0175] writes as before.
        let relayed: BTreeMap<SwitchId, Vec<(DeviceId, bool)>> = if job.spec.family == Family::Tlp {
            order
                .iter()
                .filter(|&&s| s != t.root && p.engines[&s].pbv.iter().any(|e| e.3))
                .filter_map(|&s| {
                    let is_switch = |d: DeviceId| self.topo.switches().iter().any(|w| w.device_id == d);
                    let table: Vec<Option<(DeviceId, bool)>> = self.books[s.0 as usize].pbv.iter().map(|e| e.map(|(d, _)| (d, is_switch(d)))).collect();
                    plan::relayed_table(&table).map(|e| (s, e))
                })
                .collect()
        } else {
            BTreeMap::new()
        };
        match job.spec.family {
            Family::Tlp => {
                for &s in &order {
                    let slots = &p.engines[&s];
                    let req = requester(s);
                    for &(index, device_id, switch, new) in &slots.pbv {
                        if new && !relayed.contains_key(&s) {
                            plan.push(job.id, i, req, Action::PbvEntry { engine: s, index, device_id, switch });
                        }
                    }
                    // 003 [0052]: the root is configured to send the end result to the one target.
                    let one_target = job.spec.one_target && s == t.root;
                    plan.push(job.id, i, req, Action::StaticEntry { engine: s, slot: slots.static_slot, key: p.key, family: Family::Tlp, role: role(s), wait: 0, one_target });
                }
            }
            Family::Portals => {
                for &s in &portals_order {
                    let m = &t.members[&s];
                    let slots = &p.engines[&s];
                    let req = requester(s);
                    // 002 (52), (94): the protection key the input checker admits (written once per VNI
                    // and engine, shared by the engine's trees of that VNI) and the engine's own SFA.
                    if let Some((slot, true)) = slots.vni {
                        plan.push(job.id, i, req, Action::Vni { engine: s, slot, vni: job.spec.vni });
                    }
                    plan.push(job.id, i, req, Action::EngineSfa { engine: s, sfa: u32::from(dev(s)) });
                    // 002 (58): the wait count is the number of contributions (endpoints) beneath the
                    // engine, since a child engine's partial result counts every contribution it holds
                    // (the CPU adds rt_count, `docs/blocks/cpu.md` §Messages). The source is the tree's root endpoint
                    // (002 (32)-(33), (37)): it arms the tree and completes the reduction itself, so it
                    // is neither a contribution nor a downward port, and every engine is SUBSERVIENT:
                    // it sends its partial result up, towards the root endpoint.
                    let wait = portals_wait(t, &below, s, job.spec.source);
                    plan.push(job.id, i, req, Action::StaticEntry { engine: s, slot: slots.static_slot, key: p.key, family: Family::Portals, role: Role::Subservient, wait, one_target: false });
                    let mut ports: Vec<u8> = below(s).iter().filter_map(|&(_, l)| self.topo.port(l, Vertex::Switch(s))).collect();
                    ports.extend(m.local.iter().filter(|&&n| n != job.spec.source).filter_map(|&n| self.topo.port(self.topo.node(n).link, Vertex::Switch(s))));
                    ports.sort_unstable();
                    plan.push(job.id, i, req, Action::Multicast { engine: s, tree: p.key, wait, ports });
                }
            }
        }
        if job.spec.family == Family::Tlp {
            for &s in &order {
                let upstream = t.members[&s].parent.map_or(target, |(u, _)| dev(u));
                let pbv = p.engines[&s].pbv_bits();
                // The source initializes the master; the master replicates the others' down the tree
                // (000 [0106]-[0107], [0157]): each sent to the master, naming its engine.
                let relay = (s != t.root).then_some(t.root);
                if let Some(entries) = relayed.get(&s) {
                    // After the INITIALIZATIONs of the engines above it, which relay it.
                    plan.push(job.id, i, source, Action::Configure { engine: s, master: t.root, cc_id: p.key, entries: entries.clone() });
                }
                let action = Action::Initialize { engine: s, upstream, cc_id: p.key, pbv, p_count: pbv.count_ones() as u16, op: job.spec.op, tid: p.tid.0, relay };
                plan.push(job.id, i, source, action);
            }
        }
        for &s in &order {
            let m = &t.members[&s];
            let slots = &p.engines[&s];
            for &rep in &m.local {
                let rdev = self.topo.node(rep).device_id;
                let p_id = slots.pbv.iter().find(|e| e.1 == rdev).map_or(collective::NO_PARTICIPANT, |e| u16::from(e.0));
                let group = t.groups.get(&rep).cloned().unwrap_or_default();
                let from: Vec<DeviceId> = group.iter().map(|&n| self.topo.node(n).device_id).collect();
                plan.push(job.id, i, source, Action::EndNode { node: rep, send_to: dev(s), cc_id: p.key, p_id, pre_reduce_from: from });
                for n in group {
                    plan.push(job.id, i, source, Action::EndNode { node: n, send_to: rdev, cc_id: p.key, p_id: collective::NO_PARTICIPANT, pre_reduce_from: Vec::new() });
                }
            }
        }
        plan
    }

    /// With several roots, the target (the source unless the job names one) reduces their end results
    /// (003 [0062]); for an all-reduce it then sends the job's result down every tree
    /// (`Job::combines_at_target`).
    fn target_plan(&self, job: &Job) -> Plan {
        let mut plan = Plan::default();
        let prim: Vec<&PlacedTree> = job.primaries().collect();
        if prim.len() > 1 {
            let roots = prim.iter().map(|t| self.topo.switch(t.tree.root).device_id).collect();
            let cc_ids = prim.iter().map(|t| t.key).collect();
            let source = self.topo.node(job.spec.source).device_id;
            let send_down = job.combines_at_target();
            plan.push(job.id, 0, source, Action::Target { node: job.spec.target_node(), roots, cc_ids, send_down });
        }
        plan
    }

    /// The removal of tree `i` of `job`, skipping engines on switches that are down. Call before
    /// [`Self::release`] (it reads the PBV reference counts).
    ///
    /// TLP: the RESETs first, top-down, then each engine's clears, bottom-up. The master's RESET goes
    /// from the source to the master, which replicates it to its PBV participants, the engines below
    /// it among them, and they to theirs (000 \[0161\]: the engine at the top distributes "reset
    /// collective operation" to the other packet engines; \[0172\], multi-hop \[0107\]; the CPU's
    /// CONTROL rule, `docs/blocks/cpu.md` §Messages): an engine below the master whose way up to it is
    /// all up has a RESET step relayed by the master and no frame of its own. An engine cut off from the
    /// master by a switch that is down (or whose master is down) gets its RESET from the source, with
    /// its parent's requester ID, as before the relay.
    fn removal_plan(&self, job: &Job, i: usize) -> Plan {
        let mut plan = Plan::default();
        let p = &job.trees[i];
        let t = &p.tree;
        let source = self.topo.node(job.spec.source).device_id;
        let root = self.topo.switch(t.root).device_id;
        for n in t.participants() {
            plan.push(job.id, i, source, Action::EndNodeClear { node: n, cc_id: p.key });
        }
        let up = |s: SwitchId| self.topo.switch(s).up;
        if job.spec.family == Family::Tlp {
            for &s in t.top_down().iter().filter(|&&s| up(s)) {
                let upstream = t.members[&s].parent.map_or(source, |(u, _)| self.topo.switch(u).device_id);
                // Every engine from `s` up to the root is up: the root's RESET reaches `s` through them.
                let mut way = t.members[&s].parent.map(|(u, _)| u);
                let mut reached = true;
                while let Some(u) = way {
                    reached &= up(u);
                    way = t.members[&u].parent.map(|(v, _)| v);
                }
                let relay = (s != t.root && reached).then_some(t.root);
                plan.push(job.id, i, upstream, Action::Reset { engine: s, upstream, cc_id: p.key, relay });
            }
        }
        for &s in t.top_down().iter().rev() {
            if !up(s) {
                continue;
            }
            let slots = &p.engines[&s];
            let req = if s == t.root { source } else { root };
            match job.spec.family {
                Family::Tlp => {
                    plan.push(job.id, i, req, Action::StaticClear { engine: s, slot: slots.static_slot });
                    let book = &self.books[s.0 as usize];
                    for &(index, ..) in &slots.pbv {
                        // The last context using the entry: the CPU's copy is invalidated.
                        if book.pbv.get(usize::from(index)).copied().flatten().is_some_and(|(_, r)| r == 1) {
                            plan.push(job.id, i, req, Action::PbvClear { engine: s, index });
                        }
                    }
                }
                Family::Portals => {
                    if slots.mcast {
                        plan.push(job.id, i, req, Action::MulticastClear { engine: s, tree: p.key });
                    }
                    plan.push(job.id, i, req, Action::StaticClear { engine: s, slot: slots.static_slot });
                    // The last tree using the VNI on this engine: the entry is invalidated.
                    if let Some((slot, _)) = slots.vni {
                        if self.books[s.0 as usize].vnis.get(usize::from(slot)).copied().flatten().is_some_and(|(_, r)| r == 1) {
                            plan.push(job.id, i, req, Action::VniClear { engine: s, slot });
                        }
                    }
                }
            }
        }
        plan
    }

    /// The trees `f` selects.
    fn affected(&self, f: impl Fn(&Job, &PlacedTree) -> bool) -> BTreeSet<(JobId, usize)> {
        let mut hit = BTreeSet::new();
        for job in self.jobs.values() {
            for (i, t) in job.trees.iter().enumerate() {
                if f(job, t) {
                    hit.insert((job.id, i));
                }
            }
        }
        hit
    }

    /// Removes the trees in `hit`, then places each again (same job, same index, the old key
    /// if it is still free); a job whose tree cannot be placed is removed entirely.
    fn recompute(&mut self, hit: BTreeSet<(JobId, usize)>) -> Change {
        let mut change = Change::default();
        // Remove all affected trees first, so their own load does not steer their new placement.
        for &(id, i) in &hit {
            let job = &self.jobs[&id];
            let plan = self.removal_plan(job, i);
            let (spec, t) = (job.spec.clone(), job.trees[i].clone());
            change.plan.extend(plan);
            self.release(&spec, &t);
        }
        let mut failed: BTreeMap<JobId, ManagerError> = BTreeMap::new();
        for &(id, i) in &hit {
            if failed.contains_key(&id) {
                continue;
            }
            match self.replace_tree(id, i, &hit) {
                Ok(plan) => {
                    change.plan.extend(plan);
                    change.replaced.push((id, i));
                }
                Err(e) => {
                    failed.insert(id, e);
                }
            }
        }
        for (id, e) in failed {
            // Remove what is still placed of the job (trees not affected, or already re-placed).
            if let Some(job) = self.jobs.remove(&id) {
                for (i, t) in job.trees.iter().enumerate() {
                    if hit.contains(&(id, i)) && !change.replaced.contains(&(id, i)) {
                        continue;
                    }
                    change.plan.extend(self.removal_plan(&job, i));
                    self.release(&job.spec, t);
                }
            }
            change.replaced.retain(|&(j, _)| j != id);
            change.failed.push((id, e));
        }
        change
    }

    /// Places tree `i` of job `id` again after its removal.
    fn replace_tree(&mut self, id: JobId, i: usize, removed: &BTreeSet<(JobId, usize)>) -> Result<Plan, ManagerError> {
        let job = &self.jobs[&id];
        let spec = job.spec.clone();
        let old = job.trees[i].clone();
        for n in old.tree.participants() {
            self.reachable(n)?;
        }
        self.reachable(spec.source)?;
        self.reachable(spec.target_node())?;
        let source_sw = self.topo.node(spec.source).switch;
        let need_mcast = spec.family == Family::Portals;
        let roots: HashSet<SwitchId> = job
            .trees
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != i && !removed.contains(&(id, k)))
            .map(|(_, t)| t.tree.root)
            .collect();
        // The twin of this tree (its primary, or its redundant copy), if it is placed.
        let twin = job.trees.iter().enumerate().position(|(k, t)| {
            !removed.contains(&(id, k)) && match (old.kind, t.kind) {
                (TreeKind::Primary { part }, TreeKind::Redundant { of }) => of == part,
                (TreeKind::Redundant { of }, TreeKind::Primary { part }) => of == part,
                _ => false,
            }
        });
        let mut c = match twin {
            Some(k) => self.twin_constraints(job, k, &roots, need_mcast),
            None => Constraints { avoid_roots: roots, need_mcast, ..Default::default() },
        };
        // The master the source named stays the master of the first tree (000 [0113]).
        if old.kind == (TreeKind::Primary { part: 0 }) {
            c.root = spec.master;
        }
        let leaves = leaves_of(&old.tree);
        let (mut t, _) = tree::select(&self.topo, &leaves, source_sw, &c)?;
        t.groups = old.tree.groups.clone();
        let placed = self.commit(&spec, old.kind, t, Some(old.key))?;
        let job = self.jobs.get_mut(&id).ok_or(ManagerError::UnknownJob(id.0))?;
        job.trees[i] = placed;
        let job = &self.jobs[&id];
        let mut plan = self.config_plan(job, i);
        if matches!(old.kind, TreeKind::Primary { .. }) {
            plan.extend(self.target_plan(job));
        }
        Ok(plan)
    }
}

use inswitch_frames::collective;

/// The leaf switches of a tree with their representatives.
fn leaves_of(t: &CollectionTree) -> BTreeMap<SwitchId, Vec<NodeId>> {
    t.members.values().filter(|m| !m.local.is_empty()).map(|m| (m.switch, m.local.clone())).collect()
}

/// The devices in a member engine's PBV, in bit order: child switches, then local participants (the
/// order of seed 000 Table 5: switches 725, 730, then source node 735 and nodes 1, 2). `true`: a switch.
fn pbv_devices(topo: &TopologyMap, m: &Member) -> Vec<(DeviceId, bool)> {
    m.children
        .iter()
        .map(|&(c, _)| (topo.switch(c).device_id, true))
        .chain(m.local.iter().map(|&n| (topo.node(n).device_id, false)))
        .collect()
}

/// Links a tree loads: its inter-switch links and its participants' attachment links.
fn tree_load_links(topo: &TopologyMap, t: &CollectionTree) -> Vec<LinkId> {
    let mut v = t.links();
    v.extend(t.participants().iter().map(|&n| topo.node(n).link));
    v
}

/// Portals wait count of switch `s` in tree `t` whose child switches are `below(s)`: the contributions
/// beneath it (002 (49), (58)), i.e. its local participants other than the root endpoint `root`, their
/// pre-reduced groups, and its child switches' wait counts.
fn portals_wait(t: &CollectionTree, below: &dyn Fn(SwitchId) -> Vec<(SwitchId, LinkId)>, s: SwitchId, root: NodeId) -> u32 {
    let Some(m) = t.members.get(&s) else { return 0 };
    let local: usize = m.local.iter().filter(|&&n| n != root).map(|n| 1 + t.groups.get(n).map_or(0, Vec::len)).sum();
    local as u32 + below(s).iter().map(|&(c, _)| portals_wait(t, below, c, root)).sum::<u32>()
}

/// Each member switch's child switches with the links to them.
pub type ChildSwitches = BTreeMap<SwitchId, Vec<(SwitchId, LinkId)>>;

/// Portals tree `t` as the multicast tree of its root end node, whose switch is `top` (002 (36)): the
/// same switches and links, re-rooted at `top`. The manager's tree may have its root elsewhere (a
/// redundant twin avoids its primary's root switch, 002 (70)); the root end node's arm enters the fabric
/// at `top` and must reach every member, and every partial result must come back to `top`, through the
/// tree's own links. Returns the members top-down (breadth first from `top`) and each member's child
/// switches with the links to them; `None` if `top` is not a member (the root end node is not a
/// participant and its switch serves no other one).
pub fn portals_shape(t: &CollectionTree, top: SwitchId) -> Option<(Vec<SwitchId>, ChildSwitches)> {
    if !t.members.contains_key(&top) {
        return None;
    }
    let mut adj: BTreeMap<SwitchId, Vec<(SwitchId, LinkId)>> = BTreeMap::new();
    for m in t.members.values() {
        for &(c, l) in &m.children {
            adj.entry(m.switch).or_default().push((c, l));
            adj.entry(c).or_default().push((m.switch, l));
        }
    }
    let mut order = vec![top];
    let mut seen: BTreeSet<SwitchId> = BTreeSet::from([top]);
    let mut children = BTreeMap::new();
    let mut k = 0;
    while k < order.len() {
        let s = order[k];
        k += 1;
        let mut ch = Vec::new();
        for &(n, l) in adj.get(&s).into_iter().flatten() {
            if seen.insert(n) {
                ch.push((n, l));
                order.push(n);
            }
        }
        children.insert(s, ch);
    }
    Some((order, children))
}
