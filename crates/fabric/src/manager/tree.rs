//! Collection-tree selection (seed 003 \[0046\]-\[0049\], \[0062\]; seed 001's spanning tree; seed 002 (70)).
//! `docs/manager.md` §3 describes the algorithm.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, VecDeque};

use super::topology::{LinkId, NodeId, SwitchId, TopologyMap, Vertex};
use super::error::ManagerError;

/// Cost of one link or switch a redundant tree shares with its twin: larger than any hop count, so the
/// shortest paths minimise sharing first and hops second (002 (70): "two independent trees").
pub const SHARE_PENALTY: u64 = 1 << 20;

/// One switch of a collection tree: its engine takes part in the tree's context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The switch.
    pub switch: SwitchId,
    /// Parent switch and the link to it; `None` at the root (the master engine).
    pub parent: Option<(SwitchId, LinkId)>,
    /// Child switches and their links, by ascending device ID.
    pub children: Vec<(SwitchId, LinkId)>,
    /// Participants attached here that send to this engine (after node-level pre-reduction: the
    /// representatives only), by ascending device ID.
    pub local: Vec<NodeId>,
    /// Hops from the root switch.
    pub level: u32,
}

/// A collection tree (003 \[0046\]) / spanning tree (001): the switches whose engines reduce, each with
/// one parent, rooted at the master engine's switch (000 \[0113\]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectionTree {
    /// Root switch: its engine is the master of the tree's context.
    pub root: SwitchId,
    /// Members by switch.
    pub members: BTreeMap<SwitchId, Member>,
    /// Node-level pre-reduction (003 \[0055\]): representative → the other endpoints of its host that
    /// send their results to it first.
    pub groups: BTreeMap<NodeId, Vec<NodeId>>,
}

impl CollectionTree {
    /// Inter-switch links of the tree (one per non-root member), ascending.
    pub fn links(&self) -> Vec<LinkId> {
        let mut v: Vec<LinkId> = self.members.values().filter_map(|m| m.parent.map(|(_, l)| l)).collect();
        v.sort();
        v
    }

    /// Hops from the master engine to the farthest participant: switch levels plus the attachment
    /// link (the 32x32 butterfly's master → subservient → endpoint is 2).
    pub fn depth(&self) -> u32 {
        self.members.values().filter(|m| !m.local.is_empty()).map(|m| m.level + 1).max().unwrap_or(0)
    }

    /// Every participant the tree reaches: representatives and the endpoints pre-reduced into them.
    pub fn participants(&self) -> Vec<NodeId> {
        let mut v = Vec::new();
        for m in self.members.values() {
            for &n in &m.local {
                v.push(n);
                v.extend(self.groups.get(&n).into_iter().flatten().copied());
            }
        }
        v
    }

    /// The tree uses switch `s`.
    pub fn has_switch(&self, s: SwitchId) -> bool {
        self.members.contains_key(&s)
    }

    /// The tree uses inter-switch link `l`.
    pub fn has_link(&self, l: LinkId) -> bool {
        self.members.values().any(|m| m.parent.is_some_and(|(_, p)| p == l))
    }

    /// Members in breadth-first order from the root, children by device ID (the order the plan
    /// configures them: 000 \[0183\]-\[0190\], the master first).
    pub fn top_down(&self) -> Vec<SwitchId> {
        let mut out = Vec::with_capacity(self.members.len());
        let mut q = VecDeque::from([self.root]);
        while let Some(s) = q.pop_front() {
            out.push(s);
            if let Some(m) = self.members.get(&s) {
                q.extend(m.children.iter().map(|&(c, _)| c));
            }
        }
        out
    }
}

/// What a tree must avoid or prefer beyond the topology.
#[derive(Clone, Debug, Default)]
pub struct Constraints {
    /// Only this root (000 \[0113\]: the source may name the master engine).
    pub root: Option<SwitchId>,
    /// Roots not to use while another root is possible (distinct masters for the roots of one job
    /// and for a redundant twin).
    pub avoid_roots: HashSet<SwitchId>,
    /// Links that cost [`SHARE_PENALTY`] (a redundant twin's links).
    pub shared_links: HashSet<LinkId>,
    /// Switches that cost [`SHARE_PENALTY`] to pass through (a twin's switches), leaf switches exempt.
    pub shared_switches: HashSet<SwitchId>,
    /// Switches that need a free multicast entry too (Portals trees).
    pub need_mcast: bool,
}

/// Why one root is better than another: compared in this order (`docs/manager.md` §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Score {
    /// Links and switches shared with a twin (redundant trees only).
    pub shared: u64,
    /// Switch levels to the farthest leaf switch (fewest hops, 003 \[0048\]).
    pub height: u32,
    /// Inter-switch links of the tree (fewest hops in total).
    pub links: usize,
    /// Sum over the tree's links of the trees already on them (link load, 003 \[0048\]).
    pub link_jobs: u64,
    /// Hops from the source's switch to the root: the source's INITIALIZATION and end-result path (000
    /// \[0148\]: a source uses its own switch's engine as the master).
    pub source_hops: u32,
    /// Trees already mastered by the root engine (000 \[0150\]-\[0153\]: a second master halves the frames
    /// one master processes).
    pub root_masters: usize,
    /// Sum over the tree's links of the bytes already on them per Gb/s of the link (bandwidth).
    pub link_time: u64,
    /// Sum of the tree links' latencies, ns (003 \[0048\]: latency).
    pub latency: u64,
    /// The root's device ID: a deterministic last tie-break.
    pub root_device: u16,
}

/// A switch can hold a new tree context (and a multicast entry if needed).
pub(crate) fn can_host(topo: &TopologyMap, s: SwitchId, need_mcast: bool) -> bool {
    let sw = topo.switch(s);
    sw.has_free_context() && (!need_mcast || sw.used.mcast_entries < sw.capacity.mcast_entries)
}

/// Hop distances from `from` over usable inter-switch links (capacity ignored: routing only).
pub fn hops_from(topo: &TopologyMap, from: SwitchId) -> HashMap<SwitchId, u32> {
    let mut d = HashMap::from([(from, 0)]);
    let mut q = VecDeque::from([from]);
    while let Some(u) = q.pop_front() {
        let du = d[&u];
        for &(l, v) in topo.neighbours(u) {
            if topo.usable(l) && !d.contains_key(&v) {
                d.insert(v, du + 1);
                q.push_back(v);
            }
        }
    }
    d
}

/// Node-level pre-reduction groups (003 \[0055\]): participants of one host on one switch → the lowest
/// device ID is the representative. Without pre-reduction every participant is its own representative.
pub fn pre_reduction_groups(topo: &TopologyMap, participants: &[NodeId], pre_reduce: bool) -> BTreeMap<NodeId, Vec<NodeId>> {
    let mut by_host: BTreeMap<(SwitchId, u32), Vec<NodeId>> = BTreeMap::new();
    let mut groups = BTreeMap::new();
    for &n in participants {
        let node = topo.node(n);
        match (pre_reduce, node.host) {
            (true, Some(h)) => by_host.entry((node.switch, h)).or_default().push(n),
            _ => {
                groups.insert(n, Vec::new());
            }
        }
    }
    for (_, mut v) in by_host {
        v.sort_by_key(|&n| topo.node(n).device_id);
        let rep = v.remove(0);
        groups.insert(rep, v);
    }
    groups
}

/// Selects the best tree reaching the leaf switches (`leaves`: switch → representatives attached to
/// it) under `c`: every usable root is tried, and the lowest [`Score`] wins.
pub fn select(topo: &TopologyMap, leaves: &BTreeMap<SwitchId, Vec<NodeId>>, source: SwitchId, c: &Constraints) -> Result<(CollectionTree, Score), ManagerError> {
    if leaves.is_empty() {
        return Err(ManagerError::EmptyJob);
    }
    for &s in leaves.keys() {
        let sw = topo.switch(s);
        if !sw.up {
            return Err(ManagerError::SwitchDown(sw.name.clone()));
        }
        if !can_host(topo, s, c.need_mcast) {
            return Err(ManagerError::Exhausted(sw.name.clone()));
        }
    }
    let source_hops = hops_from(topo, source);
    // Avoided roots are a preference: they are tried only when no other root reaches every leaf.
    let rounds: Vec<Vec<SwitchId>> = match c.root {
        Some(r) => {
            if !can_host(topo, r, c.need_mcast) {
                let sw = topo.switch(r);
                return Err(if sw.up { ManagerError::Exhausted(sw.name.clone()) } else { ManagerError::SwitchDown(sw.name.clone()) });
            }
            vec![vec![r]]
        }
        None => {
            let (avoided, preferred): (Vec<SwitchId>, Vec<SwitchId>) =
                topo.switch_ids().filter(|&s| can_host(topo, s, c.need_mcast)).partition(|s| c.avoid_roots.contains(s));
            vec![preferred, avoided]
        }
    };
    for candidates in rounds {
        let mut best: Option<(CollectionTree, Score)> = None;
        for r in candidates {
            let Some(tree) = tree_from(topo, r, leaves, c) else { continue };
            let score = score(topo, &tree, c, source_hops.get(&r).copied().unwrap_or(u32::MAX));
            if best.as_ref().is_none_or(|(_, b)| score < *b) {
                best = Some((tree, score));
            }
        }
        if let Some(b) = best {
            return Ok(b);
        }
    }
    Err(ManagerError::Unreachable)
}

/// How a switch's parent is chosen among equally short ones: a parent already in the tree (shares the
/// link), then link load in trees, in bytes per Gb/s, latency, the parent's contexts in use, its device ID.
type ParentKey = (u8, u32, u64, u32, usize, u16);

fn link_cost(c: &Constraints, l: LinkId) -> u64 {
    1 + if c.shared_links.contains(&l) { SHARE_PENALTY } else { 0 }
}

fn switch_cost(c: &Constraints, leaves: &BTreeMap<SwitchId, Vec<NodeId>>, s: SwitchId) -> u64 {
    if c.shared_switches.contains(&s) && !leaves.contains_key(&s) { SHARE_PENALTY } else { 0 }
}

/// The shortest-path tree from `root` to the leaf switches, parents chosen bottom-up to share links
/// and to prefer lightly loaded ones; `None` if a leaf cannot be reached.
fn tree_from(topo: &TopologyMap, root: SwitchId, leaves: &BTreeMap<SwitchId, Vec<NodeId>>, c: &Constraints) -> Option<CollectionTree> {
    // Dijkstra over switches that can hold the context (transit switches reduce too: each is a member).
    let mut dist: HashMap<SwitchId, u64> = HashMap::from([(root, switch_cost(c, leaves, root))]);
    let mut heap = BinaryHeap::from([Reverse((dist[&root], root))]);
    while let Some(Reverse((d, u))) = heap.pop() {
        if dist.get(&u).is_some_and(|&x| x < d) {
            continue;
        }
        for &(l, v) in topo.neighbours(u) {
            if !topo.usable(l) || !can_host(topo, v, c.need_mcast) {
                continue;
            }
            let nd = d + link_cost(c, l) + switch_cost(c, leaves, v);
            if dist.get(&v).is_none_or(|&x| nd < x) {
                dist.insert(v, nd);
                heap.push(Reverse((nd, v)));
            }
        }
    }
    if leaves.keys().any(|s| !dist.contains_key(s)) {
        return None;
    }
    // Bottom-up: the farthest needed switch picks its parent first, so a parent already needed (a shared
    // link) is known when the tie is broken.
    let mut needed: BTreeSet<SwitchId> = leaves.keys().copied().collect();
    let mut work: BTreeSet<(Reverse<u64>, SwitchId)> = needed.iter().map(|&s| (Reverse(dist[&s]), s)).collect();
    let mut parent: HashMap<SwitchId, (SwitchId, LinkId)> = HashMap::new();
    while let Some((Reverse(dv), v)) = work.pop_first() {
        if v == root {
            continue;
        }
        let mut best: Option<(ParentKey, SwitchId, LinkId)> = None;
        for &(l, u) in topo.neighbours(v) {
            let Some(&du) = dist.get(&u) else { continue };
            if !topo.usable(l) || du + link_cost(c, l) + switch_cost(c, leaves, v) != dv {
                continue;
            }
            let k = topo.link(l);
            let key = (
                u8::from(!needed.contains(&u)),
                k.load.jobs,
                k.load.bytes / u64::from(k.bandwidth_gbps),
                k.latency_ns,
                topo.switch(u).used.contexts,
                topo.switch(u).device_id,
            );
            if best.as_ref().is_none_or(|(b, _, _)| key < *b) {
                best = Some((key, u, l));
            }
        }
        // dist[v] came from some neighbour on a usable link, so a parent exists.
        let (_, u, l) = best?;
        parent.insert(v, (u, l));
        if needed.insert(u) {
            work.insert((Reverse(dist[&u]), u));
        }
    }
    let mut members: BTreeMap<SwitchId, Member> = needed
        .iter()
        .map(|&s| {
            let mut local = leaves.get(&s).cloned().unwrap_or_default();
            local.sort_by_key(|&n| topo.node(n).device_id);
            (s, Member { switch: s, parent: parent.get(&s).copied(), children: Vec::new(), local, level: 0 })
        })
        .collect();
    for (&v, &(u, l)) in &parent {
        if let Some(m) = members.get_mut(&u) {
            m.children.push((v, l));
        }
    }
    for m in members.values_mut() {
        m.children.sort_by_key(|&(s, _)| topo.switch(s).device_id);
    }
    let mut tree = CollectionTree { root, members, groups: BTreeMap::new() };
    for s in tree.top_down() {
        let level = tree.members[&s].parent.map(|(p, _)| tree.members[&p].level + 1).unwrap_or(0);
        if let Some(m) = tree.members.get_mut(&s) {
            m.level = level;
        }
    }
    Some(tree)
}

fn score(topo: &TopologyMap, t: &CollectionTree, c: &Constraints, source_hops: u32) -> Score {
    let links = t.links();
    let leaves: BTreeMap<SwitchId, Vec<NodeId>> = t.members.values().filter(|m| !m.local.is_empty()).map(|m| (m.switch, Vec::new())).collect();
    let shared = links.iter().filter(|l| c.shared_links.contains(l)).count() as u64
        + t.members.keys().filter(|&&s| switch_cost(c, &leaves, s) > 0).count() as u64;
    Score {
        shared,
        height: t.members.values().filter(|m| !m.local.is_empty()).map(|m| m.level).max().unwrap_or(0),
        links: links.len(),
        link_jobs: links.iter().map(|&l| u64::from(topo.link(l).load.jobs)).sum(),
        source_hops,
        root_masters: topo.switch(t.root).used.masters,
        link_time: links.iter().map(|&l| topo.link(l).load.bytes / u64::from(topo.link(l).bandwidth_gbps)).sum(),
        latency: links.iter().map(|&l| u64::from(topo.link(l).latency_ns)).sum(),
        root_device: topo.switch(t.root).device_id,
    }
}

/// Splits the leaf switches among `k` roots (003 \[0062\]): the first seed is the best single root, each
/// next seed the leaf switch farthest from the seeds so far; every leaf switch joins its nearest seed.
/// Returns the non-empty groups (at most `k`, at most one per leaf switch).
pub fn partition(topo: &TopologyMap, leaves: &BTreeMap<SwitchId, Vec<NodeId>>, k: usize, first_root: SwitchId) -> Vec<BTreeMap<SwitchId, Vec<NodeId>>> {
    let k = k.clamp(1, leaves.len().max(1));
    let mut seeds = vec![first_root];
    let mut dists = vec![hops_from(topo, first_root)];
    while seeds.len() < k {
        let far = leaves
            .iter()
            .filter(|(s, _)| !seeds.contains(s))
            .max_by_key(|(s, v)| {
                let d = dists.iter().map(|d| d.get(s).copied().unwrap_or(u32::MAX)).min().unwrap_or(u32::MAX);
                (d, v.len(), Reverse(topo.switch(**s).device_id))
            })
            .map(|(&s, _)| s);
        let Some(s) = far else { break };
        seeds.push(s);
        dists.push(hops_from(topo, s));
    }
    let mut groups: Vec<BTreeMap<SwitchId, Vec<NodeId>>> = vec![BTreeMap::new(); seeds.len()];
    let mut sizes = vec![0usize; seeds.len()];
    for (&s, reps) in leaves {
        let g = (0..seeds.len())
            .min_by_key(|&i| (dists[i].get(&s).copied().unwrap_or(u32::MAX), sizes[i], i))
            .unwrap_or(0);
        sizes[g] += reps.len();
        groups[g].insert(s, reps.clone());
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// Checks the structural invariants of a tree against the map; returns the first violation. Used by the
/// manager after every selection and by the property tests.
pub fn check_tree(topo: &TopologyMap, t: &CollectionTree) -> Result<(), String> {
    let root = t.members.get(&t.root).ok_or("root is not a member")?;
    if root.parent.is_some() {
        return Err("root has a parent".into());
    }
    let mut seen = HashSet::new();
    let mut q = VecDeque::from([t.root]);
    while let Some(s) = q.pop_front() {
        if !seen.insert(s) {
            return Err(format!("switch {} reached twice (a cycle)", s.0));
        }
        let m = &t.members[&s];
        for &(c, l) in &m.children {
            let cm = t.members.get(&c).ok_or(format!("child {} is not a member", c.0))?;
            if cm.parent != Some((s, l)) {
                return Err(format!("child {} does not name {} as its parent", c.0, s.0));
            }
            let link = topo.link(l);
            let ends = [link.a.0, link.b.0];
            if !ends.contains(&Vertex::Switch(s)) || !ends.contains(&Vertex::Switch(c)) {
                return Err(format!("link {} does not join {} and {}", l.0, s.0, c.0));
            }
            if !topo.usable(l) {
                return Err(format!("link {} is down", l.0));
            }
            q.push_back(c);
        }
    }
    if seen.len() != t.members.len() {
        return Err("a member is not reachable from the root".into());
    }
    for m in t.members.values() {
        if !topo.switch(m.switch).up {
            return Err(format!("switch {} is down", m.switch.0));
        }
        for &n in &m.local {
            if topo.node(n).switch != m.switch {
                return Err(format!("node {} is not attached to switch {}", n.0, m.switch.0));
            }
        }
    }
    Ok(())
}
