//! Seed 000 Table 1 ([0099]-[0103]) and the two-master case ([0150]-[0153]) reproduced, and the
//! realistic runs with the cycle-level engines in every switch.

use inswitch_fabric::scenario::{run_collective, table1, table1_spec, two_masters, Mode, RunResult, SEED_TABLE1};
use inswitch_fabric::setup::Arrangement;
use inswitch_fabric::topology::{LinkSpec, Topology};

fn within(ours: f64, seed: f64, tol: f64) -> bool {
    (ours - seed).abs() <= tol * seed
}

fn ns(ps: u64) -> f64 {
    ps as f64 / 1000.0
}

#[test]
fn table_1_serialization_only_is_within_5_percent_of_the_seed() {
    let [mono, dist] = table1(Mode::Serialization, 0, &mut |_| {});
    for r in [&mono, &dist] {
        assert_eq!(r.error, None);
        assert_eq!(r.participants, 1023, "32 x 32 end nodes but the source");
        assert!(r.command_exactly_once, "every end node received the command exactly once");
        assert!(r.result_exactly_once, "every end node received the result exactly once");
    }
    // Frames per ISL from the master's switch: 32 vs 1, on every one of its 31 ISLs.
    assert_eq!(mono.frames_per_isl_from_master, (32, 32));
    assert_eq!(dist.frames_per_isl_from_master, (1, 1));
    let [_, cmd, rsp] = SEED_TABLE1;
    assert!(within(ns(mono.command_to_all_ps), cmd.1, 0.05), "monolithic command {} ns vs ~{} ns", ns(mono.command_to_all_ps), cmd.1);
    assert!(within(ns(dist.command_to_all_ps), cmd.2, 0.05), "distributed command {} ns vs ~{} ns", ns(dist.command_to_all_ps), cmd.2);
    assert!(within(ns(mono.responses_from_all_ps), rsp.1, 0.05), "monolithic responses {} ns vs ~{} ns", ns(mono.responses_from_all_ps), rsp.1);
    assert!(within(ns(dist.responses_from_all_ps), rsp.2, 0.05), "distributed responses {} ns vs ~{} ns", ns(dist.responses_from_all_ps), rsp.2);
    // The exact arithmetic of [0099]-[0100]: 1023 x 2 ns, 31 x 2 + 32 x 2 ns, 1023 x 66 ns, 31 x 66 + 32 x 66 ns.
    assert_eq!(mono.command_to_all_ps, 1023 * 2_000);
    assert_eq!(dist.command_to_all_ps, (31 + 32) * 2_000);
    assert_eq!(mono.responses_from_all_ps, 1023 * 66_000);
    assert_eq!(dist.responses_from_all_ps, (31 + 32) * 66_000);
    // [0151]: each ISL of the master carries 3 frames per all-reduce: 2 away from the master, 1 towards it.
    assert_eq!(dist.isl_frames_whole_collective, (2, 1));
}

#[test]
fn two_masters_halve_the_initial_distribution() {
    // [0153]: 33 ns per 1056-byte frame at Gen 7; 16 contexts take 528 ns on one master, 264 on two;
    // two contexts on one master take one frame (33 ns) longer.
    for (contexts, masters) in [(2, 1), (2, 2), (16, 1), (16, 2)] {
        let r = two_masters(contexts, masters);
        assert!(within(r.distribution_ps as f64, r.seed_ps as f64, 0.05), "{r:?}");
        assert_eq!(r.max_frames_per_isl, (contexts / masters) as u64, "{r:?}");
    }
}

fn check_sum(r: &RunResult) {
    assert_eq!(r.error, None);
    assert!(r.command_exactly_once && r.result_exactly_once, "{r:?}");
    assert!(r.expected_value.is_some());
    assert_eq!(r.result_value, r.expected_value, "every participant holds the engines' INT_SUM");
}

#[test]
fn realistic_distributed_1024_end_nodes_through_the_cycle_engines() {
    let [mono, dist] = table1(Mode::Realistic, 100_000, &mut |_| {});
    // The monolithic engine would need 1023 PBV entries; the CPU's PBV table holds 128.
    assert!(mono.error.as_deref().is_some_and(|e| e.contains("PBV")), "{mono:?}");
    check_sum(&dist);
    assert_eq!(dist.frames_per_isl_from_master, (1, 1));
    assert!(dist.engine_steps > 0);
    // Switch latency (100 ns per hop, 3 hops) and the engines' pipelines come on top of the arithmetic.
    let ser = table1(Mode::Serialization, 0, &mut |_| {})[1].clone();
    assert!(dist.command_to_all_ps > ser.command_to_all_ps + 200_000, "{dist:?}");
    assert!(dist.responses_from_all_ps > ser.responses_from_all_ps, "{dist:?}");
}

#[test]
fn realistic_monolithic_within_the_pbv_and_fig7_distributed() {
    let r = run_collective(&table1_spec(4, 8, Arrangement::Monolithic, Mode::Realistic, 100_000), &mut |_| {}).0;
    check_sum(&r);
    assert_eq!(r.frames_per_isl_from_master, (8, 8));
    let mut spec = table1_spec(3, 3, Arrangement::Distributed, Mode::Realistic, 0);
    spec.topology = Topology::fig7(LinkSpec::default());
    spec.real_frames = true;
    let r = run_collective(&spec, &mut |_| {}).0;
    check_sum(&r);
    assert_eq!(r.result_value, Some((2..=9).sum()), "FIG. 7: the eight nodes but the source 735 contribute 2..9");
}

#[test]
fn hierarchical_4096_end_nodes_and_a_fat_tree_through_the_cycle_engines() {
    let r = run_collective(&table1_spec(128, 32, Arrangement::Hierarchical, Mode::Realistic, 100_000), &mut |_| {}).0;
    check_sum(&r);
    assert_eq!(r.participants, 4095);
    let mut spec = table1_spec(1, 1, Arrangement::Distributed, Mode::Realistic, 100_000);
    spec.topology = inswitch_fabric::scenario::topology_from("fattree:8").unwrap();
    let r = run_collective(&spec, &mut |_| {}).0;
    check_sum(&r);
    assert_eq!(r.participants, 31, "8 leaves x 4 end nodes but the source");
}

#[test]
fn two_masters_through_the_cycle_engines() {
    use inswitch_fabric::scenario::two_masters_in;
    let one = two_masters_in(16, 1, Mode::Realistic, 100_000);
    let two = two_masters_in(16, 2, Mode::Realistic, 100_000);
    for r in [&one, &two] {
        assert_eq!(r.results_ok, Some(true), "{r:?}");
    }
    assert_eq!((one.max_frames_per_isl, two.max_frames_per_isl), (16, 8));
    // [0153]: a single master processes twice the frames; two masters distribute sooner.
    assert!(two.distribution_ps < one.distribution_ps, "{one:?} {two:?}");
    println!("realistic 16 contexts: one master {one:?}\ntwo masters {two:?}");
}

#[test]
fn frames_each_engine_sends_and_receives_as_table_1_counts_them() {
    let [mono, dist] = table1(Mode::Serialization, 0, &mut |_| {});
    assert_eq!((mono.master_sent_command, mono.master_received_responses), (1023, 1023));
    // 31 subservient engines + the master switch's 31 own participants (the table leaves those out).
    assert_eq!((dist.master_sent_command, dist.master_received_responses), (31 + 31, 31 + 31));
    assert_eq!(dist.subservient_sent_command, 32);
    let real = table1(Mode::Realistic, 100_000, &mut |_| {})[1].clone();
    assert_eq!((real.master_sent_command, real.master_received_responses, real.subservient_sent_command), (62, 62, 32));
}

/// The realistic all-reduce on the 40-switch hierarchy (the master serves switches 1-31, switch 1 serves
/// 32-39: two levels below the master), frames captured; its sum checked.
fn hierarchy_of_40_captured() -> (inswitch_fabric::scenario::RunSpec, inswitch_fabric::sim::Fabric) {
    let mut spec = table1_spec(40, 2, Arrangement::Hierarchical, Mode::Realistic, 100_000);
    spec.capture = true;
    let (r, f) = run_collective(&spec, &mut |_| {});
    check_sum(&r);
    (spec, f.expect("a fabric"))
}

/// The collective messages of `kind` that end node `node` sent, as captured on its link up, in order:
/// (requester ID, destination ID, P_ID).
fn messages_from_node(f: &inswitch_fabric::sim::Fabric, node: usize, kind: u8) -> Vec<(u16, u16, u16)> {
    use inswitch_fabric::sim::ChannelKind;
    use inswitch_fabric::wire;
    let up = f.channels().position(|c| c.kind == ChannelKind::Up(node)).expect("the node's link up");
    f.captured
        .iter()
        .filter(|c| c.channel == up)
        .filter_map(|c| {
            let b = &f.frames[c.frame as usize].bytes;
            let m = wire::collective_of(b)?;
            (m.header.kind == kind).then(|| (wire::requester(b).unwrap(), wire::destination(b).unwrap(), m.header.p_id))
        })
        .collect()
}

/// The built-in plans initialize through the master (000 [0106]-[0107], [0161]: the engine at the top
/// distributes "initialize collective operation" to the other packet engines): on a hierarchical plan of
/// 40 switches (the master serves switches 1-31, switch 1 serves 32-39: two levels below the master)
/// every INITIALIZATION leaves the source for the master, the others' naming their engine in P_ID, and
/// each engine stores the engine that relayed it, its parent, as its upstream; no message is dropped for
/// an unknown context and the all-reduce is right.
#[test]
fn builtin_plans_initialize_through_the_master() {
    use inswitch_fabric::manager::static_slot_of;
    use inswitch_model::cpu::event;
    let (spec, f) = hierarchy_of_40_captured();
    let t = &f.topo;
    let id = |s: usize| t.switches[s].engine_id;
    // Collective message kind of an INITIALIZATION (docs/frames.md §4).
    const INITIALIZATION: u8 = 2;
    let inits = messages_from_node(&f, spec.source, INITIALIZATION);
    let src = t.endpoints[spec.source].id;
    let mut want = vec![(src, id(0), 0xFFFF)];
    want.extend((1..40).map(|s| (src, id(0), id(s))));
    assert_eq!(inits, want, "every INITIALIZATION from the source to the master, the others naming their engine");
    let slot = usize::from(static_slot_of(1, f.cfg.engine_params.static_entries));
    for s in 0..40 {
        let parent = match s {
            0 => src,
            1..=31 => id(0),
            _ => id(1),
        };
        // (The run's CONTROL START sets the upstream to the same parent: the frames on the source's link,
        // above, are what tell the relay from INITIALIZATIONs sent to each engine.)
        let e = f.engine(s).unwrap().cpu().static_entry(slot);
        assert_eq!((e.stored, e.upstream), (true, parent), "switch {s}: stored, its upstream its parent");
    }
    assert_eq!(f.cpu_event_total(event::DROP_UNKNOWN), 0);
}

/// The built-in plans configure the engines below the master through it too (000 [0157]: the master's
/// engine sends one configuration packet to each packet engine; [0106]): on the 40-switch hierarchy,
/// every engine below the master whose whole PBV table fits the relay (switches 2-39: two end nodes
/// each) gets it as one FIG. 4 configuration message (kind 1) from the source to the master naming the
/// engine in P_ID, relayed down; switch 1 (two end nodes and eight switches below it: 10 device IDs and
/// 8 subservient IDs, over the relay's 16 slots) keeps [0175]'s register writes. Every engine applied
/// it (the all-reduce is right, nothing dropped for an unknown context).
#[test]
fn builtin_plans_configure_the_engines_below_through_the_master() {
    use inswitch_model::cpu::event;
    // Collective message kind of a FIG. 4 configuration message (docs/frames.md §4).
    const CONFIGURATION: u8 = 1;
    let (spec, f) = hierarchy_of_40_captured();
    let t = &f.topo;
    let id = |s: usize| t.switches[s].engine_id;
    let configs = messages_from_node(&f, spec.source, CONFIGURATION);
    let src = t.endpoints[spec.source].id;
    let want: Vec<(u16, u16, u16)> = (2..40).map(|s| (src, id(0), id(s))).collect();
    assert_eq!(configs, want, "one configuration message per engine below the master whose table fits, to the master");
    assert_eq!(f.cpu_event_total(event::DROP_UNKNOWN), 0);
}

/// The two-master case ([0150]-[0153]) initializes through each context's master as well: every
/// subservient engine of every one of the 16 contexts holds it with its master as the upstream, each
/// master relayed 31 INITIALIZATIONs per context, nothing was dropped for an unknown context (the relays
/// lost in session 19's attempt, docs/fabric.md §The manager drives the fabric), and every participant
/// got its result.
#[test]
fn two_masters_initialize_through_their_masters() {
    use inswitch_fabric::manager::static_slot_of;
    use inswitch_fabric::scenario::two_masters_captured;
    use inswitch_model::cpu::event;
    let (r, f) = two_masters_captured(16, 2, Mode::Realistic, 100_000, true);
    assert_eq!(r.results_ok, Some(true), "{r:?}");
    let f = f.expect("a fabric");
    let id = |s: usize| f.topo.switches[s].engine_id;
    for k in 0..16u16 {
        let (cc, master) = (1 + k, if k % 2 == 1 { 16 } else { 0 });
        let slot = usize::from(static_slot_of(cc, f.cfg.engine_params.static_entries));
        for s in (0..32).filter(|&s| s != master) {
            let e = f.engine(s).unwrap().cpu().static_entry(slot);
            assert_eq!((e.key, e.stored, e.upstream), (cc, true, id(master)), "CC_ID {cc}, switch {s}");
        }
    }
    // (The upstream above is also what the masters' CONTROL START sets; the relay counts are what tell
    // the relay from INITIALIZATIONs sent to each engine.)
    let relays = |s: usize| f.cpu_events(s).unwrap()[usize::from(event::INIT_RELAY)];
    assert_eq!((relays(0), relays(16)), (8 * 31, 8 * 31));
    assert_eq!(f.cpu_event_total(event::INIT_RELAY), 16 * 31);
    assert_eq!(f.cpu_event_total(event::DROP_UNKNOWN), 0);
}

/// Two contexts configured at once from two sources (as the two-master case does), the second master's
/// switch far from the first source on a slow link (30 us, longer than the engines' 16 us clearing sweep
/// after reset): the bring-up, sent from the first context's source, reaches the second master after
/// its own source's INITIALIZATIONs. A master relays its subservients' INITIALIZATIONs as it takes them;
/// before its route entry 0 exists, every copy is dropped by its output queue (a route miss) and the
/// subservients never hold the context. `drive::configure` runs the bring-up until quiet before the
/// plans: no route miss, every engine holds both contexts, both all-reduces are right.
#[test]
fn a_master_nearer_another_source_than_the_bring_up_loses_no_relay() {
    use inswitch_fabric::drive;
    use inswitch_fabric::manager::static_slot_of;
    use inswitch_fabric::scenario::{value_of, INT_SUM};
    use inswitch_fabric::setup::{self, Plan};
    use inswitch_fabric::sim::{Fabric, SimConfig};
    let t = Topology::parse(
        "switch a id=0x0000\nswitch b id=0x0010\nswitch c id=0x0020\n\
         endpoint a0 a id=0x0001\nendpoint a1 a id=0x0002\nendpoint b0 b id=0x0011\nendpoint b1 b id=0x0012\n\
         endpoint c0 c id=0x0021\nendpoint c1 c id=0x0022\n\
         link a b delay_ns=30000\nlink a c\nlink b c\n",
    )
    .unwrap();
    let ctxs = vec![setup::plan(&t, Arrangement::Distributed, 1, INT_SUM, 0, 0), setup::plan(&t, Arrangement::Distributed, 2, INT_SUM, 2, 1)];
    let mut f = Fabric::new(t.clone(), SimConfig { hop_latency_ps: 100_000, ..SimConfig::default() }).unwrap();
    drive::configure(&mut f, &Plan { contexts: ctxs.clone() }, 0, &value_of).unwrap();
    f.run_until_quiet(u64::MAX / 4, &mut |_| {});
    assert_eq!(f.stats.route_misses, 0, "no engine emitted before its route entry");
    for c in &ctxs {
        let slot = usize::from(static_slot_of(c.cc_id, f.cfg.engine_params.static_entries));
        for s in 0..3 {
            assert!(f.engine(s).unwrap().cpu().static_entry(slot).stored, "CC_ID {}: switch {s} holds the context", c.cc_id);
        }
    }
    for c in &ctxs {
        let log0 = f.log.len();
        f.start(c, f.now() + 2_000);
        f.run_until_quiet(u64::MAX / 4, &mut |_| {});
        f.respond_all(c.cc_id, f.now() + 2_000);
        f.run_until_quiet(u64::MAX / 4, &mut |_| {});
        let sum = c.participants.iter().map(|&e| value_of(e)).sum::<u64>();
        for &e in &c.participants {
            let got: Vec<u64> = f.log[log0..].iter().filter(|d| d.kind == 6 && d.cc_id == c.cc_id && d.to == t.endpoints[e].id).map(|d| d.operands[0]).collect();
            assert_eq!(got, [sum], "CC_ID {}: end node {e} gets the sum once", c.cc_id);
        }
    }
}
