//! Directed tests of the collective manager (`docs/manager.md` §8).

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use inswitch_fabric::manager::plan::{self, EncodeError};
use inswitch_fabric::manager::tree::check_tree;
use inswitch_fabric::manager::{
    Action, DeviceId, EngineCapacity, Family, JobId, JobSpec, LinkId, Manager, ManagerError, NodeId, Plan, Role, SwitchId, Tid, TopologyMap, TreeKind, Vertex,
};
use inswitch_frames::collective::{self, Body};
use inswitch_frames::tlp::Header;
use inswitch_model::cpu::context::role;
use inswitch_model::message::{CollectiveMsg, Kind};
use inswitch_model::register_space::{decode, McastEntry};

use crate::common::*;

// -------------------------------------------------------------------------------------------------
// Seed 000 FIG. 7, Tables 2-7, [0174]-[0182].

struct Fig7 {
    m: Manager,
    plans: Vec<Plan>,
    jobs: Vec<JobId>,
}

fn fig7_three_collectives() -> Fig7 {
    let t = TopologyMap::fig7();
    let all: Vec<NodeId> = t.node_ids().collect();
    let source = node(&t, "735");
    let s730 = sw(&t, "730");
    // #0 all end devices; #1 without switch 730 and its nodes; #2 without the third node of 725.
    let c1: Vec<NodeId> = all.iter().copied().filter(|&n| t.node(n).switch != s730).collect();
    let c2: Vec<NodeId> = all.iter().copied().filter(|&n| n != node(&t, "710.node2")).collect();
    let mut m = Manager::new(t);
    let mut plans = Vec::new();
    let mut jobs = Vec::new();
    for parts in [all, c1, c2] {
        let (id, p) = m.place(JobSpec::new(parts, source)).unwrap();
        plans.push(p);
        jobs.push(id);
    }
    Fig7 { m, plans, jobs }
}

#[test]
fn fig7_tree_is_the_seeds_two_level_hierarchy() {
    let f = fig7_three_collectives();
    let t = f.m.topology();
    let (s720, s725, s730) = (sw(t, "720"), sw(t, "725"), sw(t, "730"));
    let job = f.m.job(f.jobs[0]).unwrap();
    let tree = &job.trees[0].tree;
    // [0174]: switch 720 is the master switch, 725 and 730 subservient in a two-level hierarchy.
    assert_eq!(tree.root, s720);
    assert_eq!(tree.members.keys().copied().collect::<Vec<_>>(), vec![s720, s725, s730]);
    assert_eq!(tree.members[&s725].parent.map(|p| p.0), Some(s720));
    assert_eq!(tree.members[&s730].parent.map(|p| p.0), Some(s720));
    assert_eq!(tree.depth(), 2);
    // Collective #1 excludes switch 730 ([0181]).
    let t1 = &f.m.job(f.jobs[1]).unwrap().trees[0].tree;
    assert!(!t1.has_switch(s730));
    // CC_IDs 0x000, 0x001, 0x002 ([0180]-[0182]).
    let keys: Vec<u16> = f.jobs.iter().map(|&j| f.m.job(j).unwrap().trees[0].key).collect();
    assert_eq!(keys, vec![0, 1, 2]);
}

#[test]
fn fig7_plan_programs_tables_5_to_7() {
    let f = fig7_three_collectives();
    let t = f.m.topology();
    let (s720, s725, s730) = (sw(t, "720"), sw(t, "725"), sw(t, "730"));
    // Table 5 ([0176]): PBV0 switch 725, PBV1 switch 730, PBV2 source node 735, PBV3/4 nodes 1, 2.
    assert_eq!(pbv_writes(&f.plans[0], s720), vec![(0, 0x0010, true), (1, 0x0020, true), (2, 0x0001, false), (3, 0x0002, false), (4, 0x0003, false)]);
    // Tables 6 and 7 as the text of [0177]-[0178] gives them (the printed tables repeat Table 5's first
    // three IDs, docs/manager.md §7): each switch's own three nodes, in one FIG. 4 configuration message
    // each, relayed by the master (000 [0157]; issue 15 item 5), no [0175] write of the source.
    assert_eq!(pbv_writes(&f.plans[0], s725), vec![(0, 0x0011, false), (1, 0x0012, false), (2, 0x0013, false)]);
    assert_eq!(pbv_writes(&f.plans[0], s730), vec![(0, 0x0021, false), (1, 0x0022, false), (2, 0x0023, false)]);
    for s in [s725, s730] {
        let steps: Vec<&Action> = f.plans[0].for_engine(s).map(|st| &st.action).collect();
        assert!(steps.iter().all(|a| !matches!(a, Action::PbvEntry { .. })), "{steps:?}");
        assert!(steps.iter().any(|a| matches!(a, Action::Configure { master, cc_id: 0, .. } if *master == s720)), "{steps:?}");
    }
    // Collectives #1 and #2 reuse the tables: no PBV write at all.
    for p in &f.plans[1..] {
        assert!(p.steps.iter().all(|s| !matches!(s.action, Action::PbvEntry { .. })), "{p:?}");
    }

    // [0175]: 5 writes to 0x0000_C0yy, 3 to 0x0010_C0yy, 3 to 0x0020_C0yy; 2-byte writes at 0xC000 + 2i.
    // Each is followed by the entry's CPU flags (PBV_FLAGS, 0xC500 + 2i, the same byte lanes); each engine
    // then gets its static entry, STATIC_INDEX, WAIT, then KEY (0xC600, 0xC608, 0xC604: slot 0),
    // docs/blocks/register_space.md §CPU window.
    let enc = frames_round_trip(&f.m, &f.plans[0]);
    let mut per_window: BTreeMap<u64, Vec<(u64, u8)>> = BTreeMap::new();
    for fr in &enc.frames {
        if let Header::Memory { req, address } = &fr.tlp.header {
            let a = address.byte_address();
            per_window.entry(a >> 16).or_default().push((a & 0xFFFF, req.first_be));
            // The source writes the master's registers, the master (720) the others' ([0175]).
            let expect_req = if a >> 16 == 0 { 0x0001 } else { 0x0000 };
            assert_eq!(req.requester_id, expect_req);
        }
    }
    // The engines below get their tables in configuration messages: from the source to the master 720,
    // P_ID naming the engine, Tables 6 and 7 as device IDs (no subservient engine below them).
    let configs: Vec<(u16, DeviceId, u16, Vec<u16>)> = enc
        .frames
        .iter()
        .filter_map(|fr| {
            let m = collective::from_vdm(&fr.tlp).ok()?;
            let Body::Configuration { device_ids, subservient_ids, .. } = m.body else { return None };
            assert!(subservient_ids.is_empty());
            Some((fr.tlp.requester_id().unwrap(), fr.to, m.header.p_id, device_ids))
        })
        .collect();
    assert_eq!(configs, [(0x0001, 0x0000, 0x0010, vec![0x0011, 0x0012, 0x0013]), (0x0001, 0x0000, 0x0020, vec![0x0021, 0x0022, 0x0023])]);
    let table = |w: u64, lo: u64, hi: u64| per_window[&w].iter().filter(|&&(a, _)| (lo..hi).contains(&a)).copied().collect::<Vec<_>>();
    let pbv_at = [(0xC000, 0x3), (0xC000, 0xC), (0xC004, 0x3), (0xC004, 0xC), (0xC008, 0x3)];
    let flags_at = pbv_at.map(|(a, be)| (a + 0x500, be));
    assert_eq!(table(0x0000, 0xC000, 0xC100), pbv_at);
    assert_eq!(table(0x0000, 0xC500, 0xC600), flags_at);
    for w in [0x0010, 0x0020] {
        assert!(table(w, 0xC000, 0xC100).is_empty(), "window {w:#x}: no PBV write");
        assert!(table(w, 0xC500, 0xC600).is_empty(), "window {w:#x}: no PBV_FLAGS write");
    }
    for w in [0x0000, 0x0010, 0x0020] {
        assert_eq!(table(w, 0xC600, 0xC700), [(0xC600, 0xF), (0xC608, 0xF), (0xC604, 0xF)], "window {w:#x}: static entry 0");
        // Every PBV ID write is directly followed by its flags.
        let v = &per_window[&w];
        for (k, &(a, be)) in v.iter().enumerate().filter(|(_, x)| x.0 < 0xC100) {
            assert_eq!(v[k + 1], (a + 0x500, be), "window {w:#x}: flags after the ID");
        }
    }

    // The register-space model holds the tables after the writes (and, below the master, the writes
    // each engine's input checker makes of its configuration message).
    let tables: [(DeviceId, &[DeviceId]); 3] = [(0x0000, &[0x0010, 0x0020, 0x0001, 0x0002, 0x0003]), (0x0010, &[0x0011, 0x0012, 0x0013]), (0x0020, &[0x0021, 0x0022, 0x0023])];
    for (dev, table) in tables {
        let r = register_space_after(&enc, dev);
        for (i, &d) in table.iter().enumerate() {
            assert_eq!(r.pbv(i), d, "switch {dev:#06x} PBV {i}");
        }
        assert_eq!(r.pbv(table.len()), 0);
        // The CPU's words (valid, switch, ID) the register space holds for the CPU (docs/blocks/cpu.md §Ports).
        for (i, &d) in table.iter().enumerate() {
            let switch = dev == 0x0000 && i < 2;
            assert_eq!(r.cpu_pbv_word(i), inswitch_model::cpu::config::pbv_word(true, switch, d), "switch {dev:#06x} CPU PBV {i}");
        }
    }
}

#[test]
fn fig7_pbv_values_of_the_three_collectives() {
    let f = fig7_three_collectives();
    let t = f.m.topology();
    let (s720, s725, s730) = (sw(t, "720"), sw(t, "725"), sw(t, "730"));
    let pbv = |j: usize, s: SwitchId| init_of(&f.plans[j], s).map(|i| i.2);
    // [0180]: collective #0.
    assert_eq!((pbv(0, s720), pbv(0, s725), pbv(0, s730)), (Some(0x001f), Some(0x0007), Some(0x0007)));
    // [0181]: collective #1, switch 730 not set, not in the collective.
    assert_eq!((pbv(1, s720), pbv(1, s725), pbv(1, s730)), (Some(0x001d), Some(0x0007), None));
    // [0182]: collective #2, third node of 725 not included.
    assert_eq!((pbv(2, s720), pbv(2, s725), pbv(2, s730)), (Some(0x001f), Some(0x0003), Some(0x0007)));
    // p_count = the participants in the PBV; upstream: the source at the master, the master below.
    assert_eq!(init_of(&f.plans[1], s720), Some((0x0001, 1, 0x1d, 4)));
    assert_eq!(init_of(&f.plans[2], s725), Some((0x0000, 2, 0x03, 2)));
    // End nodes are told where to send and their PBV index ([0050] of 003, P_ID of [0169]).
    let n = node(t, "710.node1");
    let e = f.plans[0].steps.iter().find_map(|s| match &s.action {
        Action::EndNode { node, send_to, p_id, .. } if *node == n => Some((*send_to, *p_id)),
        _ => None,
    });
    assert_eq!(e, Some((0x0010, 1)));
}

#[test]
fn fig7_frames_configure_the_cpu_models() {
    let f = fig7_three_collectives();
    let t = f.m.topology();
    let (s720, s725) = (sw(t, "720"), sw(t, "725"));
    let mut all = Plan::default();
    for p in &f.plans {
        all.extend(p.clone());
    }
    let enc = frames_round_trip(&f.m, &all);
    // INITIALIZATION frames decode back to the manager's message.
    for fr in &enc.frames {
        if let Header::Message(_) = fr.tlp.header {
            let msg = collective::from_vdm(&fr.tlp).unwrap();
            if matches!(msg.body, Body::Configuration { .. }) {
                // 725's and 730's PBV tables (above).
                assert!(matches!(all.steps[fr.step].action, Action::Configure { .. }));
                continue;
            }
            let Action::Initialize { engine, cc_id, pbv, p_count, op, upstream, tid, relay } = all.steps[fr.step].action else { panic!("not an init step") };
            // 720's own from the source; 725's and 730's from the source to 720, naming them (000
            // [0106], [0157], docs/blocks/cpu.md §Messages).
            let mut want = plan::init_message(cc_id, pbv, p_count, op, tid);
            if relay.is_some() {
                want.header.p_id = t.switch(engine).device_id;
            }
            assert_eq!(msg, want);
            assert_eq!((fr.tlp.requester_id(), fr.to), (Some(0x0001), t.switch(s720).device_id));
            assert_eq!((relay.is_none(), upstream == 0x0001), (engine == s720, engine == s720));
        }
    }
    let master = cpu_after(&f.m, &enc, s720);
    let sub = cpu_after(&f.m, &enc, s725);
    for (slot, key) in [(0usize, 0u16), (1, 1), (2, 2)] {
        let e = master.static_entry(slot);
        assert!(e.valid && !e.portals && e.key == key && e.role == role::MASTER, "720 slot {slot}: {e:?}");
        assert!(e.stored, "initialized");
        assert_eq!(e.upstream, 0x0001, "the master answers the source");
        let s = sub.static_entry(slot);
        assert!(s.valid && s.role == role::SUBSERVIENT && s.stored, "725 slot {slot}: {s:?}");
        assert_eq!(s.upstream, 0x0000, "725's parent is 720 (003 [0051])");
    }
    assert_eq!(master.static_entry(1).pbv, 0x1d);
    assert_eq!(sub.static_entry(2).pbv, 0x03);
    assert_eq!(sub.static_entry(2).pcount, 2);
    // The CPU's own PBV table: 725 and 730 flagged as switches (000 [0096]).
    let c = master.config();
    assert!(c.pbv[0].valid && c.pbv[0].switch && c.pbv[0].device_id == 0x0010);
    assert!(c.pbv[2].valid && !c.pbv[2].switch && c.pbv[2].device_id == 0x0001);
}

#[test]
fn portals_plan_programs_multicast_entries() {
    let t = TopologyMap::fig7();
    let source = node(&t, "735");
    let parts: Vec<NodeId> = t.node_ids().collect();
    let (s720, s725) = (sw(&t, "720"), sw(&t, "725"));
    let mut m = Manager::new(t);
    let (_, p) = m.place(JobSpec { family: Family::Portals, op: 0x14, ..JobSpec::new(parts, source) }).unwrap();
    let mc: Vec<(SwitchId, u32, Vec<u8>)> = p
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Multicast { engine, wait, ports, .. } => Some((*engine, *wait, ports.clone())),
            _ => None,
        })
        .collect();
    // 002 (58): the wait count is the number of contributions beneath: 720 has its two nodes besides the
    // source (the root endpoint, which completes the reduction itself and is not a downward port) and
    // the three of each of 725 and 730.
    assert_eq!(mc[0], (s720, 8, vec![1, 2, 3, 4]));
    assert_eq!(mc[1], (s725, 3, vec![0, 1, 2]));
    assert!(p.steps.iter().all(|s| !matches!(s.action, Action::PbvEntry { .. } | Action::Initialize { .. })));
    let enc = frames_round_trip(&m, &p);
    // The tree's own entry (docs/blocks/register_space.md §Multicast entries): tree 0, valid.
    let r = register_space_after(&enc, 0x0000);
    assert_eq!(r.mcast_entry(0), Some(McastEntry { valid: true, wait: 8, ports: 0b1_1110 }));
    assert_eq!(r.mcast_entry(1), Some(McastEntry::default()), "no other tree");
    let cpu = cpu_after(&m, &enc, s725);
    let e = cpu.static_entry(0);
    assert!(e.valid && e.portals && e.wait == 3 && e.role == role::SUBSERVIENT, "{e:?}");
    // Every engine of a Portals tree is SUBSERVIENT: the root endpoint completes (002 (32), (37)).
    let cpu720 = cpu_after(&m, &enc, s720);
    let e = cpu720.static_entry(0);
    assert!(e.valid && e.portals && e.wait == 8 && e.role == role::SUBSERVIENT, "{e:?}");
    // The butterfly's ports do not fit the 16-bit PORTS register: refused, not truncated.
    let mut m = Manager::new(TopologyMap::flattened_butterfly(4, 20).unwrap());
    let parts: Vec<NodeId> = m.topology().node_ids().collect();
    let (_, p) = m.place(JobSpec { family: Family::Portals, ..JobSpec::new(parts, NodeId(0)) }).unwrap();
    assert!(matches!(p.encode(m.topology()), Err(EncodeError::PortOutOfRange { .. })));
}

/// The Portals protection key and the engine's own SFA are plan actions (002 (52), (94), (99)), encoded
/// as register-write frames into each member engine's window: `VNI_ALLOWED[k]` := valid | VNI (0x150 +
/// 4k) and `ENGINE_SFA` := the engine's device ID (0x164). An engine's trees of one VNI share its entry
/// (written by the first, cleared by the last); a fifth VNI on an engine with four entries is refused.
#[test]
fn portals_vni_and_engine_sfa_are_register_writes_of_the_plan() {
    let t = TopologyMap::fig7();
    let source = node(&t, "735");
    let parts: Vec<NodeId> = t.node_ids().collect();
    let s720 = sw(&t, "720");
    let dev720 = t.switch(s720).device_id;
    let mut m = Manager::new(t);
    let job = |vni: u16| JobSpec { family: Family::Portals, op: 0x14, vni, ..JobSpec::new(parts.clone(), source) };
    let vnis = |p: &Plan| -> Vec<(SwitchId, u8, u16)> {
        p.steps.iter().filter_map(|s| if let Action::Vni { engine, slot, vni } = s.action { Some((engine, slot, vni)) } else { None }).collect()
    };
    let (a, pa) = m.place(job(0x42)).unwrap();
    let members: Vec<SwitchId> = m.job(a).unwrap().trees[0].tree.top_down();
    assert_eq!(vnis(&pa), members.iter().map(|&s| (s, 0, 0x42)).collect::<Vec<_>>(), "entry 0 of every member");
    let sfas: Vec<(SwitchId, u32)> = pa.steps.iter().filter_map(|s| if let Action::EngineSfa { engine, sfa } = s.action { Some((engine, sfa)) } else { None }).collect();
    assert_eq!(sfas, members.iter().map(|&s| (s, u32::from(m.topology().switch(s).device_id))).collect::<Vec<_>>());
    // The frames: whole-DW memory writes from the source into 720's window, in plan order.
    let enc = frames_round_trip(&m, &pa);
    let writes: Vec<(u64, u8, u32)> = enc
        .frames
        .iter()
        .filter(|f| f.to == dev720)
        .filter_map(|f| match &f.tlp.header {
            Header::Memory { req, address } => Some((address.byte_address() & 0xFFF, req.first_be, u32::from_le_bytes(f.tlp.payload[..4].try_into().unwrap()))),
            _ => None,
        })
        .collect();
    assert!(writes.contains(&(0x150, 0xF, 1 << 31 | 0x42)), "{writes:x?}");
    assert!(writes.contains(&(0x164, 0xF, u32::from(dev720))), "{writes:x?}");
    let r = register_space_after(&enc, dev720);
    assert_eq!(r.read(decode(0x150).unwrap()), 1 << 31 | 0x42);
    assert_eq!(r.read(decode(0x164).unwrap()), u32::from(dev720));
    // A second job of the same VNI shares the entry; another VNI takes entry 1.
    let (b, pb) = m.place(job(0x42)).unwrap();
    assert!(vnis(&pb).is_empty(), "shared");
    let (c, pc) = m.place(job(0x43)).unwrap();
    assert!(vnis(&pc).iter().all(|&(_, slot, vni)| (slot, vni) == (1, 0x43)));
    let (_, _) = m.place(job(0x44)).unwrap();
    let (_, _) = m.place(job(0x45)).unwrap();
    assert_eq!(m.place(job(0x46)).map(|x| x.0), Err(ManagerError::Exhausted("720".into())), "four VNI_ALLOWED entries");
    // Removal: the entry is cleared by the last tree that uses it.
    let clears = |p: &Plan| p.steps.iter().filter(|s| matches!(s.action, Action::VniClear { .. })).count();
    assert_eq!(clears(&m.remove(a).unwrap()), 0);
    assert_eq!(clears(&m.remove(b).unwrap()), members.len());
    let rc = m.remove(c).unwrap();
    assert_eq!(clears(&rc), members.len());
    let r = register_space_after(&frames_round_trip(&m, &rc), dev720);
    assert_eq!(r.read(decode(0x154).unwrap()), 0, "VNI_ALLOWED[1] written invalid");
}

/// A Portals twin (002 (70)) whose root switch is not the source's is configured as a multicast tree
/// from the source's switch over the twin's own links (`portals_shape`): the source's switch sends the
/// arm down its link to the twin's root and waits for every contribution; the twin's root waits for
/// those beneath it. On the butterfly (full mesh), with the sixteen nodes of switches 0-3 and the
/// source node 0: the primary is 0 → {1, 2, 3}; the twin's root is another switch X, and its entry at
/// switch 0 names node ports 1-3 and the ISL to X, wait 15; X waits for 12.
#[test]
fn a_portals_twin_is_re_rooted_at_the_source_switch() {
    let t = TopologyMap::flattened_butterfly(8, 4).unwrap();
    let parts: Vec<NodeId> = (0..16).map(NodeId).collect();
    let mut m = Manager::new(t);
    let (id, p) = m.place(JobSpec { family: Family::Portals, redundant: true, master: Some(SwitchId(0)), ..JobSpec::new(parts, NodeId(0)) }).unwrap();
    let job = m.job(id).unwrap();
    let (a, b) = (&job.trees[0], &job.trees[1]);
    let x = b.tree.root;
    assert_eq!(a.tree.root, SwitchId(0));
    assert_ne!(x, SwitchId(0));
    assert!(a.tree.links().iter().all(|l| !b.tree.has_link(*l)), "link-disjoint");
    let (order, children) = inswitch_fabric::manager::portals_shape(&b.tree, SwitchId(0)).unwrap();
    assert_eq!(order[0], SwitchId(0));
    assert_eq!(order.len(), b.tree.members.len());
    let mc = |tree: u16, s: SwitchId| {
        p.steps.iter().find_map(|st| match &st.action {
            Action::Multicast { engine, tree: k, wait, ports, .. } if *engine == s && *k == tree => Some((*wait, ports.clone())),
            _ => None,
        })
    };
    let isl_port = |s: SwitchId, to: SwitchId| {
        let l = children[&s].iter().find(|c| c.0 == to).expect("a child").1;
        m.topology().port(l, Vertex::Switch(s)).unwrap()
    };
    let (w0, ports0) = mc(b.key, SwitchId(0)).unwrap();
    assert_eq!(w0, 15, "every contribution but the root end node's");
    assert_eq!(ports0, vec![1, 2, 3, isl_port(SwitchId(0), x)]);
    assert_eq!(mc(b.key, x).unwrap().0, 12);
    assert_eq!(mc(a.key, SwitchId(0)).unwrap().0, 15);
}

// -------------------------------------------------------------------------------------------------
// Flattened butterfly 32x32 (000 Table 1, [0099]-[0103]).

#[test]
fn butterfly_job_over_all_endpoints_is_one_master_and_31_subservients() {
    let t = TopologyMap::flattened_butterfly_32x32();
    let all: Vec<NodeId> = t.node_ids().collect();
    assert_eq!(all.len(), 1024);
    let source = node(&t, "s5.e3");
    let mut m = Manager::new(t);
    let (id, p) = m.place(JobSpec::new(all, source)).unwrap();
    let t = m.topology();
    let job = m.job(id).unwrap();
    let tree = &job.trees[0].tree;
    check_tree(t, tree).unwrap();
    assert_eq!(tree.depth(), 2, "master → subservient → endpoint");
    // The source's own switch is the master (fewest hops from the source, [0148]).
    assert_eq!(tree.root, sw(t, "s5"));
    let roles: Vec<Role> = p.steps.iter().filter_map(|s| match s.action {
        Action::StaticEntry { role, .. } => Some(role),
        _ => None,
    }).collect();
    assert_eq!(roles.iter().filter(|&&r| r == Role::Master).count(), 1);
    assert_eq!(roles.iter().filter(|&&r| r == Role::Subservient).count(), 31);
    // Each inter-switch link from the master is used once; no other inter-switch link is used.
    let links = tree.links();
    assert_eq!(links.len(), 31);
    assert_eq!(links.iter().collect::<HashSet<_>>().len(), 31);
    for (i, l) in t.links().iter().enumerate() {
        let isl = matches!(l.b.0, inswitch_fabric::manager::Vertex::Switch(_));
        if isl {
            assert_eq!(l.load.jobs, u32::from(links.contains(&LinkId(i as u32))), "link {i}");
        } else {
            assert_eq!(l.load.jobs, 1, "every attachment link carries the job");
        }
    }
    // PBV: the master has 31 switches and its 32 endpoints; a subservient its 32 endpoints.
    assert_eq!(init_of(&p, tree.root).unwrap().2.count_ones(), 63);
    assert_eq!(init_of(&p, sw(t, "s0")).unwrap().2, (1u128 << 32) - 1);
    assert_eq!(tree.participants().len(), 1024);
    frames_round_trip(&m, &p);
}

#[test]
fn two_jobs_get_different_masters_and_share_one_link() {
    let t = TopologyMap::flattened_butterfly_32x32();
    let all: Vec<NodeId> = t.node_ids().collect();
    let mut m = Manager::new(t);
    let (a, _) = m.place(JobSpec::new(all.clone(), NodeId(0))).unwrap();
    let (b, _) = m.place(JobSpec::new(all, NodeId(0))).unwrap();
    let ta = &m.job(a).unwrap().trees[0].tree;
    let tb = &m.job(b).unwrap().trees[0].tree;
    // 000 [0153]: a second master halves the master's frames; 003 [0048]: balance link load.
    assert_ne!(ta.root, tb.root);
    let la: HashSet<LinkId> = ta.links().into_iter().collect();
    let shared: Vec<LinkId> = tb.links().into_iter().filter(|l| la.contains(l)).collect();
    assert_eq!(shared, vec![m.topology().link_between(ta.root, tb.root).unwrap()], "only the masters' link is shared");
    assert_eq!(m.topology().switch(ta.root).used.masters, 1);
    assert_eq!(m.topology().switch(tb.root).used.masters, 1);
}

#[test]
fn fat_tree_jobs_spread_over_spines_and_avoid_an_exhausted_spine() {
    let t = TopologyMap::fat_tree(4, 3, 4).unwrap();
    let parts = |t: &TopologyMap, leaves: &[&str]| -> Vec<NodeId> {
        t.node_ids().filter(|&n| leaves.contains(&t.switch(t.node(n).switch).name.as_str())).collect()
    };
    let p01 = parts(&t, &["leaf0", "leaf1"]);
    let (s0, s1, s2) = (sw(&t, "spine0"), sw(&t, "spine1"), sw(&t, "spine2"));
    let mut m = Manager::new(t.clone());
    let (a, _) = m.place(JobSpec::new(p01.clone(), p01[0])).unwrap();
    let (b, _) = m.place(JobSpec::new(p01.clone(), p01[0])).unwrap();
    let ra = m.job(a).unwrap().trees[0].tree.root;
    let rb = m.job(b).unwrap().trees[0].tree.root;
    // Height 1 from a spine beats height 2 from a leaf; the second job takes an unloaded spine.
    assert_eq!(ra, s0);
    assert_eq!(rb, s1);
    let la: HashSet<LinkId> = m.job(a).unwrap().trees[0].tree.links().into_iter().collect();
    assert!(m.job(b).unwrap().trees[0].tree.links().iter().all(|l| !la.contains(l)));

    // Spine 0 exhausted (no context left): the tree goes through another spine.
    let mut m = Manager::new(t.clone());
    m.set_capacity(s0, EngineCapacity { contexts: 0, ..Default::default() });
    let (a, _) = m.place(JobSpec::new(p01.clone(), p01[0])).unwrap();
    let tree = &m.job(a).unwrap().trees[0].tree;
    assert!(!tree.has_switch(s0));
    assert_eq!(tree.root, s1);

    // Every spine full: no tree joins leaf0 and leaf1, and nothing is left allocated.
    let mut m = Manager::new(t.clone());
    for s in [s0, s1, s2] {
        m.set_capacity(s, EngineCapacity { descriptors: 0, ..Default::default() });
    }
    assert_eq!(m.place(JobSpec::new(p01.clone(), p01[0])), Err(ManagerError::Unreachable));
    assert!(m.topology().switches().iter().all(|s| s.used == Default::default()));
    assert!(m.topology().links().iter().all(|l| l.load == Default::default()));

    // A leaf switch with participants and no context cannot be avoided.
    let mut m = Manager::new(t);
    let l1 = sw(m.topology(), "leaf1");
    m.set_capacity(l1, EngineCapacity { contexts: 0, ..Default::default() });
    assert_eq!(m.place(JobSpec::new(p01.clone(), p01[0])), Err(ManagerError::Exhausted("leaf1".into())));
}

#[test]
fn contexts_run_out_after_capacity_jobs() {
    let t = TopologyMap::fig7();
    let all: Vec<NodeId> = t.node_ids().collect();
    let mut m = Manager::new(t);
    // DESCRIPTORS = 8 per engine (002 (35)): eight overlapping jobs fit, the ninth does not.
    for k in 0..8u16 {
        let (id, _) = m.place(JobSpec::new(all.clone(), NodeId(0))).unwrap();
        assert_eq!(m.job(id).unwrap().trees[0].key, k);
    }
    assert!(matches!(m.place(JobSpec::new(all.clone(), NodeId(0))), Err(ManagerError::Exhausted(_))));
    // Removing one frees exactly its context; its CC_ID is reused.
    let (first, _) = (JobId(3), ());
    let rm = m.remove(first).unwrap();
    assert!(rm.steps.iter().any(|s| matches!(s.action, Action::Reset { cc_id: 3, .. })));
    assert!(!rm.steps.iter().any(|s| matches!(s.action, Action::PbvClear { .. })), "PBV entries still used by other jobs");
    let (id, p) = m.place(JobSpec::new(all, NodeId(0))).unwrap();
    assert_eq!(m.job(id).unwrap().trees[0].key, 3);
    assert!(p.steps.iter().any(|s| matches!(s.action, Action::StaticEntry { slot: 3, .. })));
}

#[test]
fn removing_every_job_frees_everything() {
    let t = TopologyMap::fig7();
    let all: Vec<NodeId> = t.node_ids().collect();
    let mut m = Manager::new(t);
    let (a, _) = m.place(JobSpec::new(all.clone(), NodeId(0))).unwrap();
    let (b, _) = m.place(JobSpec { redundant: true, family: Family::Portals, ..JobSpec::new(all[3..].to_vec(), NodeId(0)) }).unwrap();
    let ra = m.remove(a).unwrap();
    // The last context using a PBV entry invalidates the CPU's copy.
    assert_eq!(ra.steps.iter().filter(|s| matches!(s.action, Action::PbvClear { .. })).count(), 11);
    let rb = m.remove(b).unwrap();
    assert!(rb.steps.iter().any(|s| matches!(s.action, Action::MulticastClear { .. })));
    assert!(m.topology().switches().iter().all(|s| s.used == Default::default()), "{:?}", m.topology().switches());
    assert!(m.topology().links().iter().all(|l| l.load == Default::default()));
    assert_eq!(m.remove(a), Err(ManagerError::UnknownJob(a.0)));
    frames_round_trip(&m, &ra);
}

// -------------------------------------------------------------------------------------------------
// Topology change (003 [0063]).

fn on_switches(t: &TopologyMap, names: &[&str]) -> Vec<NodeId> {
    t.node_ids().filter(|&n| names.contains(&t.switch(t.node(n).switch).name.as_str())).collect()
}

#[test]
fn link_down_recomputes_only_the_trees_on_it() {
    let t = TopologyMap::flattened_butterfly(8, 4).unwrap();
    let pa = on_switches(&t, &["s0", "s1", "s2", "s3"]);
    let pb = on_switches(&t, &["s4", "s5", "s6", "s7"]);
    let mut m = Manager::new(t);
    let (a, _) = m.place(JobSpec::new(pa.clone(), pa[0])).unwrap();
    let (b, _) = m.place(JobSpec::new(pb.clone(), pb[0])).unwrap();
    let before_b = m.job(b).unwrap().clone();
    let old_a = m.job(a).unwrap().trees[0].clone();
    let victim = old_a.tree.links()[0];

    // A link no tree uses: nothing happens.
    let idle = m.topology().link_between(sw(m.topology(), "s0"), sw(m.topology(), "s7")).unwrap();
    assert!(!old_a.tree.has_link(idle) && !before_b.trees[0].tree.has_link(idle));
    let c = m.link_down(idle);
    assert!(c.plan.steps.is_empty() && c.replaced.is_empty() && c.failed.is_empty());

    let c = m.link_down(victim);
    assert_eq!(c.replaced, vec![(a, 0)]);
    assert!(c.failed.is_empty());
    assert!(c.plan.steps.iter().all(|s| s.job == a), "job b untouched");
    assert_eq!(m.job(b).unwrap(), &before_b);
    let new_a = &m.job(a).unwrap().trees[0];
    assert!(!new_a.tree.has_link(victim), "the new tree avoids the link");
    check_tree(m.topology(), &new_a.tree).unwrap();
    let mut got = new_a.tree.participants();
    got.sort();
    assert_eq!(got, pa);
    assert_eq!(new_a.key, old_a.key, "the context keeps its CC_ID");
    // Removal (a RESET per old engine) comes before the new configuration.
    let resets: Vec<usize> = c.plan.steps.iter().enumerate().filter(|(_, s)| matches!(s.action, Action::Reset { .. })).map(|(i, _)| i).collect();
    let inits: Vec<usize> = c.plan.steps.iter().enumerate().filter(|(_, s)| matches!(s.action, Action::Initialize { .. })).map(|(i, _)| i).collect();
    assert_eq!(resets.len(), old_a.tree.members.len());
    assert_eq!(inits.len(), new_a.tree.members.len());
    assert!(resets.iter().max() < inits.iter().min());
    // The master's RESET goes from the source; the engines below it have it relayed by the master (000
    // [0161], [0172]): their steps name the root and send no frame. One RESET frame, to the old root.
    let old_root = old_a.tree.root;
    for &i in &resets {
        let Action::Reset { engine, relay, .. } = c.plan.steps[i].action else { unreachable!() };
        assert_eq!(relay, (engine != old_root).then_some(old_root), "engine {engine:?}");
    }
    let enc = frames_round_trip(&m, &c.plan);
    let reset_frames: Vec<DeviceId> = enc.frames.iter().filter(|f| resets.contains(&f.step)).map(|f| f.to).collect();
    assert_eq!(reset_frames, [m.topology().switch(old_root).device_id]);
    // The victim carries no load any more; loads match the placed trees.
    assert_eq!(m.topology().link(victim).load.jobs, 0);
}

#[test]
fn switch_down_moves_the_tree_or_drops_the_job() {
    let t = TopologyMap::fat_tree(4, 2, 2).unwrap();
    let p01 = on_switches(&t, &["leaf0", "leaf1"]);
    let p23 = on_switches(&t, &["leaf2", "leaf3"]);
    let (s0, s1) = (sw(&t, "spine0"), sw(&t, "spine1"));
    let mut m = Manager::new(t);
    let (a, _) = m.place(JobSpec::new(p01.clone(), p01[0])).unwrap();
    let (b, _) = m.place(JobSpec::new(p23.clone(), p23[0])).unwrap();
    assert_eq!(m.job(a).unwrap().trees[0].tree.root, s0);
    // Job b's source is as close to both spines; spine 0 already masters job a, so b takes spine 1.
    let before_b = m.job(b).unwrap().clone();
    assert_eq!(before_b.trees[0].tree.root, s1);
    // Spine 0 dies: job a moves to spine 1, job b is untouched; no removal action is addressed to the
    // dead engine.
    let c = m.switch_down(s0);
    assert_eq!(c.replaced, vec![(a, 0)]);
    assert!(c.plan.steps.iter().all(|s| s.action.engine() != Some(s0)));
    // The dead master cannot relay the RESETs: each engine left of the old tree gets its own, from the
    // source with its parent's requester ID (the relay's fallback).
    let resets: Vec<&Action> = c.plan.steps.iter().map(|s| &s.action).filter(|a| matches!(a, Action::Reset { .. })).collect();
    assert!(!resets.is_empty() && resets.iter().all(|a| matches!(a, Action::Reset { relay: None, .. })), "{resets:?}");
    assert!(c.plan.steps.iter().all(|s| s.job == a));
    assert_eq!(m.job(a).unwrap().trees[0].tree.root, s1);
    assert_eq!(m.job(b).unwrap(), &before_b);
    assert_eq!(m.topology().switch(s0).used, Default::default());
    // A leaf with participants dies: the job cannot be placed and is removed; the other stays.
    let l0 = sw(m.topology(), "leaf0");
    let before_b = m.job(b).unwrap().clone();
    let c = m.switch_down(l0);
    assert_eq!(c.failed.len(), 1);
    assert_eq!(c.failed[0].0, a);
    assert!(m.job(a).is_none());
    assert_eq!(m.job(b).unwrap(), &before_b);
    assert_eq!(m.topology().switch(s1).used.contexts, 1, "only job b's context is left on spine 1");
}

// -------------------------------------------------------------------------------------------------
// Redundant trees (002 (70)), several roots (003 [0062]), node-level pre-reduction (003 [0055]).

#[test]
fn redundant_trees_are_disjoint_on_the_butterfly() {
    let t = TopologyMap::flattened_butterfly(8, 4).unwrap();
    let parts = on_switches(&t, &["s0", "s1", "s2", "s3"]);
    let mut m = Manager::new(t);
    let (id, p) = m.place(JobSpec { redundant: true, ..JobSpec::new(parts.clone(), parts[0]) }).unwrap();
    let job = m.job(id).unwrap();
    assert_eq!(job.trees.len(), 2);
    assert_eq!(job.trees[1].kind, TreeKind::Redundant { of: 0 });
    let (a, b) = (&job.trees[0].tree, &job.trees[1].tree);
    let la: HashSet<LinkId> = a.links().into_iter().collect();
    assert!(b.links().iter().all(|l| !la.contains(l)), "link-disjoint");
    // Only the leaf switches (where the participants are attached) are common.
    let leaves: BTreeSet<SwitchId> = parts.iter().map(|&n| m.topology().node(n).switch).collect();
    let common: BTreeSet<SwitchId> = a.members.keys().filter(|s| b.has_switch(**s)).copied().collect();
    assert_eq!(common, leaves);
    assert_ne!(a.root, b.root);
    assert!(!leaves.contains(&b.root), "the twin's master is a switch the first tree does not use");
    assert_ne!(job.trees[0].key, job.trees[1].key);
    let mut pb = b.participants();
    pb.sort();
    assert_eq!(pb, parts);
    frames_round_trip(&m, &p);

    // Over all endpoints every switch is a leaf and every link of the first master is in the first tree:
    // the twin cannot avoid sharing one of them, and shares exactly one.
    let t = TopologyMap::flattened_butterfly_32x32();
    let all: Vec<NodeId> = t.node_ids().collect();
    let mut m = Manager::new(t);
    let (id, _) = m.place(JobSpec { redundant: true, ..JobSpec::new(all, NodeId(0)) }).unwrap();
    let job = m.job(id).unwrap();
    let (a, b) = (&job.trees[0].tree, &job.trees[1].tree);
    let la: HashSet<LinkId> = a.links().into_iter().collect();
    assert_eq!(b.links().iter().filter(|l| la.contains(l)).count(), 1);
    assert_ne!(a.root, b.root);
    check_tree(m.topology(), b).unwrap();
}

#[test]
fn two_roots_split_the_participants_and_the_source_reduces_both_results() {
    let t = TopologyMap::flattened_butterfly(8, 4).unwrap();
    let all: Vec<NodeId> = t.node_ids().collect();
    let mut m = Manager::new(t);
    let (id, p) = m.place(JobSpec { roots: 2, ..JobSpec::new(all.clone(), NodeId(0)) }).unwrap();
    let job = m.job(id).unwrap();
    assert_eq!(job.trees.len(), 2);
    let (a, b) = (&job.trees[0].tree, &job.trees[1].tree);
    assert_ne!(a.root, b.root);
    let pa: BTreeSet<NodeId> = a.participants().into_iter().collect();
    let pb: BTreeSet<NodeId> = b.participants().into_iter().collect();
    assert!(pa.is_disjoint(&pb));
    assert_eq!(pa.len() + pb.len(), all.len());
    let target = p.steps.iter().find_map(|s| match &s.action {
        Action::Target { node, roots, cc_ids, send_down: true } => Some((*node, roots.clone(), cc_ids.clone())),
        _ => None,
    });
    let dev = |s: SwitchId| m.topology().switch(s).device_id;
    assert_eq!(target, Some((NodeId(0), vec![dev(a.root), dev(b.root)], vec![job.trees[0].key, job.trees[1].key])));
}

#[test]
fn node_level_pre_reduction_puts_one_result_per_host_in_the_pbv() {
    // Two hosts with two endpoints each on switch a, one single endpoint on switch b.
    let file = r#"{
      "switches": [ {"name": "a", "device_id": "0x0100"}, {"name": "b", "device_id": "0x0200", "contexts": 4} ],
      "nodes": [
        {"name": "h0.gpu0", "device_id": "0x0101", "switch": "a", "port": 0, "host": 0},
        {"name": "h0.gpu1", "device_id": "0x0102", "switch": "a", "port": 1, "host": 0},
        {"name": "h1.gpu0", "device_id": "0x0103", "switch": "a", "port": 2, "host": 1},
        {"name": "h1.gpu1", "device_id": "0x0104", "switch": "a", "port": 3, "host": 1},
        {"name": "solo", "device_id": 513, "switch": "b", "port": 0}
      ],
      "links": [ {"a": "a", "a_port": 8, "b": "b", "b_port": 8, "bandwidth_gbps": 256, "latency_ns": 50} ]
    }"#;
    let t = TopologyMap::from_json(file).unwrap();
    let all: Vec<NodeId> = t.node_ids().collect();
    let a = sw(&t, "a");
    let mut m = Manager::new(t.clone());
    let (_, p) = m.place(JobSpec { pre_reduce: true, ..JobSpec::new(all.clone(), all[0]) }).unwrap();
    // Switch a: the link to b and the two representatives (lowest device ID of each host).
    assert_eq!(pbv_writes(&p, a), vec![(0, 0x0200, true), (1, 0x0101, false), (2, 0x0103, false)]);
    let ends: BTreeMap<NodeId, (DeviceId, Vec<DeviceId>)> = p
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::EndNode { node, send_to, pre_reduce_from, .. } => Some((*node, (*send_to, pre_reduce_from.clone()))),
            _ => None,
        })
        .collect();
    assert_eq!(ends[&all[0]], (0x0100, vec![0x0102]));
    assert_eq!(ends[&all[1]], (0x0101, vec![]), "gpu1 sends to its host's representative");
    assert_eq!(ends.len(), 5);
    // Without pre-reduction all four endpoints of switch a are in its PBV.
    let mut m = Manager::new(t);
    let (_, p) = m.place(JobSpec::new(all.clone(), all[0])).unwrap();
    assert_eq!(pbv_writes(&p, a).len(), 5);
}

#[test]
fn forced_master_is_used_and_a_down_link_is_never_in_a_tree() {
    let t = TopologyMap::fig7();
    let all: Vec<NodeId> = t.node_ids().collect();
    let (s720, s725, s730) = (sw(&t, "720"), sw(&t, "725"), sw(&t, "730"));
    let mut m = Manager::new(t);
    // [0209]: 725 as the master; 730 reports to 725 via 720.
    let (id, _) = m.place(JobSpec { master: Some(s725), ..JobSpec::new(all.clone(), NodeId(0)) }).unwrap();
    let tree = &m.job(id).unwrap().trees[0].tree;
    assert_eq!(tree.root, s725);
    assert_eq!(tree.members[&s730].parent.map(|p| p.0), Some(s720));
    assert_eq!(tree.members[&s720].parent.map(|p| p.0), Some(s725));
    assert_eq!(tree.depth(), 3);
    // With the 720-730 link down, 730's nodes are cut off from the others.
    let l = m.topology().link_between(s720, s730).unwrap();
    let c = m.link_down(l);
    assert_eq!(c.failed, vec![(id, ManagerError::Unreachable)]);
    assert!(m.place(JobSpec::new(all, NodeId(0))).is_err());
}

#[test]
fn topology_file_round_trips() {
    let t = TopologyMap::fig7();
    let text = t.to_json();
    assert_eq!(TopologyMap::from_json(&text).unwrap(), t);
    let f = TopologyMap::fat_tree(3, 2, 2).unwrap();
    assert_eq!(TopologyMap::from_json(&f.to_json()).unwrap(), f);
    // Errors name the problem.
    let e = TopologyMap::from_json(r#"{"switches": [{"name": "x", "device_id": 1}, {"name": "y", "device_id": "0x1"}]}"#).unwrap_err();
    assert!(e.to_string().contains("0x0001 used twice"), "{e}");
    let e = TopologyMap::from_json(r#"{"switches": [], "nodes": [{"name": "n", "device_id": 1, "switch": "nope", "port": 0}]}"#).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
    let e = TopologyMap::from_json(r#"{"switches": [], "bogus": 1}"#).unwrap_err();
    assert!(e.to_string().contains("bogus"), "{e}");
}

/// One fabric file for the simulator and the manager (`docs/fabric.md` §Topology files): the manager's
/// JSON and the simulator's line format both load into the same pair (simulator topology, manager map)
/// through `drive::load_topology`, which `inswitch sim --topology file:<path>` reads too.
#[test]
fn one_topology_file_for_the_simulator_and_the_manager() {
    use inswitch_fabric::topology::{LinkSpec, Topology};
    let fig7 = Topology::fig7(LinkSpec::default());
    // The manager's JSON of FIG. 7 gives the simulator's FIG. 7 (same switches, IDs, end nodes, ISLs,
    // link rates) and the map itself.
    let json = TopologyMap::fig7().to_json();
    let (t, map) = inswitch_fabric::drive::load_topology(&json).unwrap();
    assert_eq!(map, TopologyMap::fig7());
    assert_eq!(Topology { name: fig7.name.clone(), ..t.clone() }, fig7);
    // The same fabric in the line format gives the same pair.
    let mut text = String::from("name fig7\n");
    for s in &fig7.switches {
        text += &format!("switch {} id={:#06x}\n", s.name, s.engine_id);
    }
    for e in &fig7.endpoints {
        text += &format!("endpoint {} {} id={:#06x}\n", e.name, fig7.switches[e.switch].name, e.id);
    }
    for l in &fig7.isls {
        text += &format!("link {} {}\n", fig7.switches[l.a].name, fig7.switches[l.b].name);
    }
    let (t2, map2) = inswitch_fabric::drive::load_topology(&text).unwrap();
    assert_eq!((t2, map2), (fig7.clone(), TopologyMap::fig7()));
    // What only the manager uses survives in the map from JSON (a down link, a capacity), and the
    // simulator gets the link's latency.
    let mut m = TopologyMap::fig7();
    let l = m.link_between(SwitchId(0), SwitchId(2)).unwrap();
    m.set_link_up(l, false);
    m.set_capacity(SwitchId(1), EngineCapacity { contexts: 2, ..Default::default() });
    let json = m.to_json().replace("\"latency_ns\": 0", "\"latency_ns\": 250");
    let (t3, map3) = inswitch_fabric::drive::load_topology(&json).unwrap();
    assert!(!map3.link(l).up && map3.switch(SwitchId(1)).capacity.contexts == 2);
    assert!(t3.isls.iter().all(|i| i.link.delay_ps == 250_000) && t3.endpoints.iter().all(|e| e.link.delay_ps == 250_000));
    // The simulator's command line reads the JSON file too.
    let path = std::env::temp_dir().join(format!("inswitch-fig7-{}.json", std::process::id()));
    std::fs::write(&path, TopologyMap::fig7().to_json()).unwrap();
    let from_cli = inswitch_fabric::scenario::topology_from(&format!("file:{}", path.display())).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(Topology { name: fig7.name.clone(), ..from_cli }, fig7);
    // Errors of either format are reported, not panics.
    assert!(inswitch_fabric::drive::load_topology("{\"switches\": [], \"bogus\": 1}").unwrap_err().contains("bogus"));
    assert!(inswitch_fabric::drive::load_topology("switch a id=0\nswitch b id=16\n").unwrap_err().contains("not connected"));
}

#[test]
fn transaction_ids_are_two_bits_modulo_four() {
    assert_eq!(Tid(3).next(), Tid(0));
    assert!(Tid(0).is_behind(Tid(1)));
    assert!(Tid(3).is_behind(Tid(0)));
    assert!(!Tid(0).is_behind(Tid(2)));
    assert!(!Tid(1).is_behind(Tid(0)));
    let t = TopologyMap::fig7();
    let all: Vec<NodeId> = t.node_ids().collect();
    let mut m = Manager::new(t);
    let (id, _) = m.place(JobSpec::new(all, NodeId(0))).unwrap();
    assert_eq!(m.job(id).unwrap().trees[0].tid, Tid(0), "001: every member begins at 0");
    for k in [1, 2, 3, 0] {
        assert_eq!(m.advance_tid(id, 0), Ok(Tid(k)));
    }
}

#[test]
fn check_tree_rejects_broken_trees() {
    let t = TopologyMap::fig7();
    let all: Vec<NodeId> = t.node_ids().collect();
    let (s720, s725, s730) = (sw(&t, "720"), sw(&t, "725"), sw(&t, "730"));
    let mut m = Manager::new(t);
    let (id, _) = m.place(JobSpec::new(all, NodeId(0))).unwrap();
    let good = m.job(id).unwrap().trees[0].tree.clone();
    check_tree(m.topology(), &good).unwrap();
    // A cycle: 720 also a child of 725.
    let mut bad = good.clone();
    let l = bad.members[&s725].parent.unwrap().1;
    bad.members.get_mut(&s725).unwrap().children.push((s720, l));
    assert!(check_tree(m.topology(), &bad).is_err());
    // A child joined by a link that does not touch it.
    let mut bad = good.clone();
    let l725 = bad.members[&s725].parent.unwrap().1;
    bad.members.get_mut(&s730).unwrap().parent = Some((s720, l725));
    bad.members.get_mut(&s720).unwrap().children[1] = (s730, l725);
    assert!(check_tree(m.topology(), &bad).unwrap_err().contains("does not join"));
    // A participant on the wrong switch.
    let mut bad = good.clone();
    let n = bad.members[&s725].local[0];
    bad.members.get_mut(&s730).unwrap().local.push(n);
    assert!(check_tree(m.topology(), &bad).is_err());
    // A down link.
    let mut t2 = m.topology().clone();
    t2.set_link_up(l725, false);
    assert!(check_tree(&t2, &good).unwrap_err().contains("down"));
}

/// Runs one barrier round on CPU models configured by the plans: every end node of `job` sends its
/// CONTRIBUTION where its `EndNode` step says; CPU outputs addressed to an engine's device ID are fed to
/// that CPU, the others are deliveries to end nodes. Returns the deliveries (kind, destination).
fn barrier_on_cpus(m: &Manager, plans: &Plan, job: JobId) -> Vec<(u8, u16)> {
    let enc = frames_round_trip(m, plans);
    let t = m.topology();
    let mut cpus = cpus_after(m, &enc);
    let mut queues: BTreeMap<DeviceId, VecDeque<CollectiveMsg>> = cpus.keys().map(|&d| (d, Default::default())).collect();
    for s in plans.steps.iter().filter(|s| s.job == job) {
        if let Action::EndNode { node, send_to, cc_id, p_id, .. } = s.action {
            let c = CollectiveMsg {
                kind: Kind::CONTRIBUTION,
                ctx: cc_id,
                src: u32::from(t.node(node).device_id),
                dst: u32::from(send_to),
                pid: p_id,
                count: 1,
                posted: true,
                ..Default::default()
            };
            queues.get_mut(&send_to).expect("end nodes send to an engine here").push_back(c);
        }
    }
    let mut delivered = Vec::new();
    exchange(&mut cpus, &mut queues, 5_000, &mut |msg| delivered.push((msg.kind.0, msg.dst as u16)));
    delivered.sort();
    delivered
}

#[test]
fn fig7_barrier_completes_on_cpu_models_configured_by_the_plans() {
    let f = fig7_three_collectives();
    let mut all = Plan::default();
    for p in &f.plans {
        all.extend(p.clone());
    }
    // Collective #2 ([0183]-[0207]): everyone but the third node of 725. 720 completes and sends the
    // result to 725, 730, its three local nodes and the source (000 [0201]-[0207]); 725 and 730 copy it
    // to their participating nodes only.
    let got = barrier_on_cpus(&f.m, &all, f.jobs[2]);
    let completion = Kind::COMPLETION.0;
    let want: Vec<(u8, u16)> = [0x0001, 0x0001, 0x0002, 0x0003, 0x0011, 0x0012, 0x0021, 0x0022, 0x0023].iter().map(|&d| (completion, d)).collect();
    assert_eq!(got, want);
    // The same on a master the source named (725, [0209]): 730 reports through 720.
    let t = TopologyMap::fig7();
    let all_nodes: Vec<NodeId> = t.node_ids().collect();
    let s725 = sw(&t, "725");
    let mut m = Manager::new(t);
    let (id, p) = m.place(JobSpec { master: Some(s725), ..JobSpec::new(all_nodes, NodeId(0)) }).unwrap();
    let got = barrier_on_cpus(&m, &p, id);
    let want: Vec<(u8, u16)> = [0x0001, 0x0001, 0x0002, 0x0003, 0x0011, 0x0012, 0x0013, 0x0021, 0x0022, 0x0023].iter().map(|&d| (completion, d)).collect();
    assert_eq!(got, want);
}

#[test]
fn a_named_master_survives_a_recomputation_of_its_twin_pair() {
    // 8x4 butterfly, participants on s0..s3, master named s2, with a twin: a link of the primary dies;
    // the primary is placed again with s2 as its master and still avoids the twin's links.
    let t = TopologyMap::flattened_butterfly(8, 4).unwrap();
    let parts = on_switches(&t, &["s0", "s1", "s2", "s3"]);
    let s2 = sw(&t, "s2");
    let mut m = Manager::new(t);
    let (id, _) = m.place(JobSpec { master: Some(s2), redundant: true, ..JobSpec::new(parts.clone(), parts[0]) }).unwrap();
    let primary = m.job(id).unwrap().trees[0].tree.clone();
    assert_eq!(primary.root, s2);
    assert_eq!(m.topology().switch(s2).free_contexts(), 16 - 2, "s2 holds the primary and, as a leaf, the twin");
    let c = m.link_down(primary.links()[0]);
    assert_eq!(c.replaced, vec![(id, 0)]);
    let job = m.job(id).unwrap();
    assert_eq!(job.trees[0].tree.root, s2);
    let twin: HashSet<LinkId> = job.trees[1].tree.links().into_iter().collect();
    assert!(job.trees[0].tree.links().iter().all(|l| !twin.contains(l)), "still disjoint from the twin");
}

/// Issue 19: a static entry in the CPU's last slot, 4095 (one per 12-bit CC_ID), is written through the
/// register space's STATIC_INDEX window (docs/blocks/register_space.md §CPU window): STATIC_INDEX := 4095,
/// STATIC_WAIT, then STATIC_KEY, each a full-DW write into the engine's window; a slot beyond the CPU's
/// largest table (4096) is refused, and so is a clear of it.
#[test]
fn a_static_entry_in_slot_4095_is_written_through_the_index_window() {
    use inswitch_fabric::manager::{Action, Family, JobId, Plan, Role, SwitchId};
    const DEV: u16 = 0x0030;
    let entry = |slot: u16| Action::StaticEntry { engine: SwitchId(0), slot, key: 0xFFF, family: Family::Tlp, role: Role::Master, wait: 5, one_target: true };
    let mut p = Plan::default();
    p.push(JobId(1), 0, 0x0001, entry(4095));
    p.push(JobId(1), 0, 0x0001, Action::StaticClear { engine: SwitchId(0), slot: 4095 });
    let enc = p.encode_with(&|_| DEV).expect("slot 4095 encodes");
    let writes: Vec<(u64, u32)> = enc
        .frames
        .iter()
        .map(|f| match &f.tlp.header {
            Header::Memory { req, address } => {
                assert_eq!(req.first_be, 0xF);
                (address.byte_address(), u32::from_le_bytes(f.tlp.payload[..4].try_into().unwrap()))
            }
            h => panic!("not a memory write: {h:?}"),
        })
        .collect();
    let at = |off: u64| u64::from(DEV) << 16 | 0xC000 | off;
    assert_eq!(writes, vec![
        (at(0x600), 4095),
        (at(0x608), 1 << 31 | 5),
        (at(0x604), 1 << 31 | 1 << 20 | 0xFFF),
        (at(0x600), 4095),
        (at(0x604), 0),
    ]);
    let mut bad = Plan::default();
    bad.push(JobId(1), 0, 0x0001, entry(4096));
    assert!(matches!(bad.encode_with(&|_| DEV), Err(EncodeError::SlotOutOfRange { step: 0, slot: 4096 })));
}

/// Session 24 (issue 19 item 1): the register space has a multicast entry per tree (docs/blocks/
/// register_space.md §Multicast entries), so one engine holds more than the 16 trees its slots allowed
/// before: 20 trees (0-18 and 8191, the last), written by one plan through the fabric (frames from an end
/// node into switch 720's engine), are valid at once with their own wait counts and ports, and clearing
/// one leaves the others. With the 16-slot window the plan could not even name a 17th entry.
#[test]
fn one_engine_holds_more_than_16_multicast_trees_at_once() {
    use inswitch_fabric::drive;
    use inswitch_fabric::sim::{Fabric, SimConfig};
    use inswitch_fabric::topology::{LinkSpec, Ps, Topology};
    let t = Topology::fig7(LinkSpec::default());
    let mut f = Fabric::new(t.clone(), SimConfig::default()).unwrap();
    f.bring_up(0, 0);
    let trees: Vec<u16> = (0..19).chain([8191]).collect();
    let src = t.endpoints[0].id;
    let mut p = Plan::default();
    for (k, &tree) in trees.iter().enumerate() {
        p.push(JobId(1), 0, src, Action::Multicast { engine: SwitchId(0), tree, wait: k as u32 + 1, ports: vec![(k % 5) as u8] });
    }
    p.push(JobId(1), 0, src, Action::MulticastClear { engine: SwitchId(0), tree: 5 });
    let enc = p.encode_with(&|s| t.switches[s.0 as usize].engine_id).unwrap();
    let at = f.now();
    drive::apply_encoded(&mut f, &p, &enc, 0, at, &|_| 0, &|_| 0).unwrap();
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let regs = f.engine(0).unwrap().regs();
    let held: Vec<u16> = trees.iter().copied().filter(|&tr| regs.mcast_entry(tr).is_some_and(|e| e.valid)).collect();
    assert_eq!(held.len(), 19, "20 trees armed, one cleared: {held:?}");
    assert!(held.contains(&17) && held.contains(&8191) && !held.contains(&5));
    for (k, &tree) in trees.iter().enumerate().filter(|&(_, &tr)| tr != 5) {
        assert_eq!(regs.mcast_entry(tree), Some(McastEntry { valid: true, wait: k as u32 + 1, ports: 1 << (k % 5) }), "tree {tree}");
    }
}
