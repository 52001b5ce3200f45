//! Property tests of the collective manager (`docs/manager.md` §8): random topologies, random jobs,
//! random link and switch failures.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use inswitch_fabric::manager::tree::check_tree;
use inswitch_fabric::manager::{Action, EngineCapacity, Family, JobSpec, LinkId, Manager, NodeId, SwitchId, TopologyMap, TreeKind};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct World {
    switches: usize,
    /// (a, b, up) for pairs a < b that are linked.
    links: Vec<(usize, usize, bool)>,
    /// Per end node: (switch, host, attachment up).
    nodes: Vec<(usize, Option<u32>, bool)>,
    /// Contexts per switch.
    contexts: Vec<usize>,
}

fn world() -> impl Strategy<Value = World> {
    (1usize..9).prop_flat_map(|n| {
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect();
        let np = pairs.len();
        (
            Just(n),
            Just(pairs),
            proptest::collection::vec((prop::bool::weighted(0.7), prop::bool::weighted(0.9)), np),
            proptest::collection::vec((0..n, prop::option::of(0u32..3), prop::bool::weighted(0.99)), 1..24),
            proptest::collection::vec(prop_oneof![1 => Just(0usize), 1 => Just(1), 1 => Just(2), 12 => Just(16)], n),
        )
            .prop_map(|(n, pairs, sel, nodes, contexts)| World {
                switches: n,
                links: pairs.iter().zip(sel).filter(|(_, (on, _))| *on).map(|(&(a, b), (_, up))| (a, b, up)).collect(),
                nodes,
                contexts,
            })
    })
}

fn build(w: &World) -> TopologyMap {
    let mut t = TopologyMap::new();
    let mut port = vec![0u8; w.switches];
    for s in 0..w.switches {
        let cap = EngineCapacity { contexts: w.contexts[s], ..Default::default() };
        t.add_switch_with(&format!("s{s}"), (s as u16 + 1) << 8, cap).unwrap();
    }
    for (k, &(s, host, up)) in w.nodes.iter().enumerate() {
        let n = t.add_node(&format!("n{k}"), ((s as u16 + 1) << 8) | (k as u16 + 1), SwitchId(s as u32), port[s], host).unwrap();
        port[s] += 1;
        if !up {
            let l = t.node(n).link;
            t.set_link_up(l, false);
        }
    }
    for &(a, b, up) in &w.links {
        let l = t.add_link(SwitchId(a as u32), port[a], SwitchId(b as u32), port[b]).unwrap();
        port[a] += 1;
        port[b] += 1;
        if !up {
            t.set_link_up(l, false);
        }
    }
    t
}

#[derive(Clone, Debug)]
struct JobGen {
    members: Vec<bool>,
    source: usize,
    roots: usize,
    redundant: bool,
    pre_reduce: bool,
    portals: bool,
    /// A master the source names (000 [0113]), as an index into the switches.
    master: Option<usize>,
}

fn job_gen() -> impl Strategy<Value = JobGen> {
    (proptest::collection::vec(any::<bool>(), 24), 0usize..24, 1usize..4, any::<bool>(), any::<bool>(), any::<bool>(), prop::option::weighted(0.2, 0usize..8))
        .prop_map(|(members, source, roots, redundant, pre_reduce, portals, master)| JobGen { members, source, roots, redundant, pre_reduce, portals, master })
}

fn spec(t: &TopologyMap, g: &JobGen) -> JobSpec {
    let n = t.nodes().len();
    let parts: Vec<NodeId> = (0..n).filter(|&i| g.members[i]).map(|i| NodeId(i as u32)).collect();
    JobSpec {
        roots: g.roots,
        redundant: g.redundant,
        pre_reduce: g.pre_reduce,
        family: if g.portals { Family::Portals } else { Family::Tlp },
        master: g.master.map(|k| SwitchId((k % t.switches().len()) as u32)),
        ..JobSpec::new(parts, NodeId((g.source % n) as u32))
    }
}

/// Every invariant of the placed jobs against the map (the property).
fn check_all(m: &Manager) -> Result<(), TestCaseError> {
    let t = m.topology();
    let mut contexts: HashMap<SwitchId, usize> = HashMap::new();
    let mut masters: HashMap<SwitchId, usize> = HashMap::new();
    let mut load: HashMap<LinkId, u32> = HashMap::new();
    for job in m.jobs() {
        let mut reached: Vec<NodeId> = Vec::new();
        for (i, p) in job.trees.iter().enumerate() {
            check_tree(t, &p.tree).map_err(|e| TestCaseError::fail(format!("job {} tree {i}: {e}", job.id.0)))?;
            for l in p.tree.links() {
                prop_assert!((l.0 as usize) < t.links().len(), "tree link exists");
                prop_assert!(t.usable(l), "tree link {} is up", l.0);
                *load.entry(l).or_default() += 1;
            }
            let parts = p.tree.participants();
            let set: BTreeSet<NodeId> = parts.iter().copied().collect();
            prop_assert_eq!(set.len(), parts.len(), "a participant reached twice in one tree");
            for &n in &parts {
                *load.entry(t.node(n).link).or_default() += 1;
                prop_assert!(t.link(t.node(n).link).up && t.switch(t.node(n).switch).up, "participant {} is cut off", n.0);
            }
            match p.kind {
                TreeKind::Primary { .. } => reached.extend(parts),
                TreeKind::Redundant { of } => {
                    let mut a = job.trees[of].tree.participants();
                    let mut b = p.tree.participants();
                    a.sort();
                    b.sort();
                    prop_assert_eq!(a, b, "a twin reaches what its primary reaches");
                }
            }
            for (&s, slots) in &p.engines {
                *contexts.entry(s).or_default() += 1;
                let mem = &p.tree.members[&s];
                if job.spec.family == Family::Tlp {
                    prop_assert_eq!(slots.pbv.len(), mem.children.len() + mem.local.len(), "PBV = children + local participants");
                    prop_assert_eq!(slots.pbv_bits().count_ones() as usize, slots.pbv.len(), "distinct PBV entries");
                }
            }
            *masters.entry(p.tree.root).or_default() += 1;
            // Every key is unique on every member engine.
            for (k, q) in job.trees.iter().enumerate() {
                if k != i && q.tree.members.keys().any(|s| p.tree.has_switch(*s)) {
                    prop_assert_ne!(q.key, p.key, "two trees of one job share a key on an engine");
                }
            }
        }
        reached.sort();
        let mut want = job.spec.participants.clone();
        want.sort();
        prop_assert_eq!(reached, want, "every participant reached exactly once by the primaries");
    }
    for s in t.switch_ids() {
        let u = t.switch(s).used;
        prop_assert_eq!(u.contexts, contexts.get(&s).copied().unwrap_or(0), "contexts on {}", s.0);
        prop_assert_eq!(u.descriptors, u.contexts);
        prop_assert_eq!(u.masters, masters.get(&s).copied().unwrap_or(0));
        prop_assert!(u.contexts <= t.switch(s).capacity.contexts, "over capacity");
    }
    for (i, l) in t.links().iter().enumerate() {
        prop_assert_eq!(l.load.jobs, load.get(&LinkId(i as u32)).copied().unwrap_or(0), "load on link {}", i);
    }
    // Keys per engine are unique across all jobs.
    let mut keys: HashSet<(SwitchId, u16)> = HashSet::new();
    for job in m.jobs() {
        for p in &job.trees {
            for &s in p.tree.members.keys() {
                prop_assert!(keys.insert((s, p.key)), "key {} twice on switch {}", p.key, s.0);
            }
        }
    }
    Ok(())
}

/// Switches reachable from `s` over usable links, all with room for a context.
fn component(t: &TopologyMap, s: SwitchId) -> BTreeSet<SwitchId> {
    let mut seen = BTreeSet::from([s]);
    let mut q = VecDeque::from([s]);
    while let Some(u) = q.pop_front() {
        for &(l, v) in t.neighbours(u) {
            if t.usable(l) && seen.insert(v) {
                q.push_back(v);
            }
        }
    }
    seen
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn placed_trees_are_trees_reaching_every_participant_once(w in world(), jobs in proptest::collection::vec(job_gen(), 1..5), fail in proptest::collection::vec((0u8..3, any::<prop::sample::Index>()), 0..3)) {
        let t = build(&w);
        let mut m = Manager::new(t);
        for g in &jobs {
            let s = spec(m.topology(), g);
            let before: Vec<_> = m.topology().switches().iter().map(|s| s.used).collect();
            let loads: Vec<_> = m.topology().links().iter().map(|l| l.load).collect();
            // When one component holds every participant, the source, free contexts on every switch of it
            // (and up attachment links), a placement must succeed.
            let t = m.topology();
            let ends: Vec<NodeId> = s.participants.iter().copied().chain([s.source]).collect();
            let comp = component(t, t.node(ends[0]).switch);
            let easy = !s.participants.is_empty()
                && s.master.is_none_or(|r| comp.contains(&r))
                && ends.iter().all(|&n| comp.contains(&t.node(n).switch) && t.link(t.node(n).link).up)
                && comp.iter().all(|&x| {
                    let (c, u, k) = (t.switch(x).capacity, t.switch(x).used, 2 * s.roots.max(1));
                    c.contexts >= u.contexts + k && c.descriptors >= u.descriptors + k && c.mcast_entries >= u.mcast_entries + k
                });
            match m.place(s.clone()) {
                Ok((id, plan)) => {
                    let job = m.job(id).unwrap();
                    let want = if s.redundant { 2 } else { 1 } * job.primaries().count();
                    prop_assert_eq!(job.trees.len(), want);
                    prop_assert!(job.primaries().count() <= s.roots.max(1));
                    if let Some(r) = s.master {
                        prop_assert_eq!(job.trees[0].tree.root, r, "the named master is the first tree's root");
                    }
                    // One static entry per member engine per tree.
                    let statics = plan.steps.iter().filter(|x| matches!(x.action, Action::StaticEntry { .. })).count();
                    prop_assert_eq!(statics, job.trees.iter().map(|p| p.tree.members.len()).sum::<usize>());
                    prop_assert!(plan.encode(m.topology()).is_ok() || s.family == Family::Portals);
                }
                Err(e) => {
                    prop_assert!(!easy, "an easy job was refused: {e}");
                    let after: Vec<_> = m.topology().switches().iter().map(|s| s.used).collect();
                    prop_assert_eq!(after, before, "a refused job leaves nothing allocated");
                    let after: Vec<_> = m.topology().links().iter().map(|l| l.load).collect();
                    prop_assert_eq!(after, loads);
                }
            }
            check_all(&m)?;
        }
        // Failures: each re-places exactly the trees on the failed element; the others are untouched.
        for (what, idx) in fail {
            let before: BTreeMap<_, _> = m.jobs().map(|j| (j.id, j.clone())).collect();
            // 0: any switch; 1: any link; 2: an inter-switch link some tree uses (if any).
            let used: Vec<LinkId> = m.jobs().flat_map(|j| j.trees.iter().flat_map(|p| p.tree.links())).collect::<BTreeSet<_>>().into_iter().collect();
            let change = if what == 0 {
                let s = SwitchId(idx.index(m.topology().switches().len()) as u32);
                let c = m.switch_down(s);
                for j in m.jobs() {
                    for p in &j.trees {
                        prop_assert!(!p.tree.has_switch(s), "a tree still uses the dead switch");
                    }
                }
                c
            } else {
                let l = if what == 2 && !used.is_empty() { used[idx.index(used.len())] } else { LinkId(idx.index(m.topology().links().len()) as u32) };
                let c = m.link_down(l);
                for j in m.jobs() {
                    for p in &j.trees {
                        prop_assert!(!p.tree.has_link(l), "a tree still uses the dead link");
                    }
                }
                c
            };
            let touched: BTreeSet<_> = change.replaced.iter().map(|r| r.0).chain(change.failed.iter().map(|f| f.0)).collect();
            for (id, job) in &before {
                if !touched.contains(id) {
                    prop_assert_eq!(m.job(*id), Some(job), "an unaffected job changed");
                }
            }
            for (id, _) in &change.failed {
                prop_assert!(m.job(*id).is_none());
            }
            for s in &change.plan.steps {
                prop_assert!(touched.contains(&s.job), "a plan step for an unaffected job");
                if let Some(e) = s.action.engine() {
                    prop_assert!(m.topology().switch(e).up, "an action for a dead engine");
                }
            }
            check_all(&m)?;
        }
        // Removing everything frees everything.
        let ids: Vec<_> = m.jobs().map(|j| j.id).collect();
        for id in ids {
            m.remove(id).unwrap();
        }
        prop_assert!(m.topology().switches().iter().all(|s| s.used == Default::default()));
        prop_assert!(m.topology().links().iter().all(|l| l.load == Default::default()));
    }
}
