//! The manager's host steps executed by the fabric's TLP end nodes (`docs/fabric.md` §The manager
//! drives the fabric, `docs/manager.md` §3: several roots, node-level pre-reduction): a job of several roots whose
//! target reduces the roots' end results (003 [0062]), and node-level pre-reduction, where a host's
//! representative contributes the reduction of its host's participants (003 [0055]). The oracle is a
//! plain wrapping sum of the participants' operands written in the test; nothing is computed by the
//! code under test.

use inswitch_fabric::drive;
use inswitch_fabric::manager::{JobId, JobSpec, Manager, NodeId};
use inswitch_fabric::scenario::INT_SUM;
use inswitch_fabric::sim::{Fabric, SimConfig};
use inswitch_fabric::topology::{LinkSpec, Ps, Topology};

/// Crossbar latency per hop (the realistic default).
const HOP_PS: Ps = 100_000;
/// End nodes answer a command this long after it arrives.
const COMPUTE_PS: Ps = 200_000;
/// Kind code of a CONTRIBUTION (000 [0168]).
const CONTRIBUTION: u8 = 4;

/// The operand of end node `e`: distinct, not the index + 1 of the scenarios.
fn operand(e: usize) -> u64 {
    1000 + 37 * e as u64
}

fn run(f: &mut Fabric) {
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
}

fn fabric(t: &Topology) -> Fabric {
    let cfg = SimConfig { hop_latency_ps: HOP_PS, ..SimConfig::default() };
    let mut f = Fabric::new(t.clone(), cfg).unwrap();
    f.bring_up(0, 0);
    run(&mut f);
    f.auto_respond(Some(COMPUTE_PS));
    f
}

/// Places `spec`, applies its plan, starts every primary tree of the job from its source and runs the
/// fabric until quiet. Returns the job and the CC_IDs of its trees.
fn place_and_run(f: &mut Fabric, m: &mut Manager, spec: JobSpec) -> (JobId, Vec<u16>) {
    let at = f.now();
    let (job, _, _) = drive::place_and_apply(f, m, spec, at, &operand).unwrap();
    run(f);
    let trees = m.job(job).unwrap().trees.len();
    let mut ccs = Vec::new();
    for i in 0..trees {
        let ctx = drive::context_of(m, job, i).unwrap();
        ccs.push(ctx.cc_id);
        let at = f.now() + HOP_PS;
        f.start(&ctx, at);
    }
    run(f);
    (job, ccs)
}

/// Contributions (CONTRIBUTION messages) delivered to any engine.
fn contributions_at_engines(f: &Fabric) -> usize {
    let engines: Vec<u16> = f.topo.switches.iter().map(|s| s.engine_id).collect();
    f.log.iter().filter(|d| d.kind == CONTRIBUTION && engines.contains(&d.to)).count()
}

fn roots_job(roots: usize) {
    let t = Topology::flattened_butterfly(8, 4, LinkSpec::default()).unwrap();
    let mut f = fabric(&t);
    let mut m = drive::manager_for(&t).unwrap();
    let all: Vec<usize> = (0..t.endpoints.len()).collect();
    let spec = JobSpec { op: INT_SUM, roots, ..JobSpec::new(drive::node_ids(&all), NodeId(0)) };
    let (job, ccs) = place_and_run(&mut f, &mut m, spec);
    assert_eq!(ccs.len(), roots, "one tree per root");
    let j = m.job(job).unwrap();
    let mut root_set: Vec<_> = j.trees.iter().map(|p| p.tree.root).collect();
    root_set.dedup();
    assert_eq!(root_set.len(), roots, "distinct roots");
    let expected: u64 = all.iter().map(|&e| operand(e)).fold(0u64, u64::wrapping_add);
    // Each root's end result is a partial sum (its subset), so no one tree alone gives the answer.
    for (i, p) in j.trees.iter().enumerate() {
        let part: u64 = p.tree.participants().iter().map(|n| operand(n.0 as usize)).sum();
        assert!(part < expected, "tree {i} reduces a strict subset");
    }
    for &cc in &ccs {
        let (_, got) = f.target_result(0, cc).expect("the target has every root's end result");
        assert_eq!(got.first().copied(), Some(expected), "target result = plain sum of all {} participants", all.len());
    }
    assert_eq!(contributions_at_engines(&f), all.len(), "every participant contributes once");
}

#[test]
fn a_two_root_job_is_reduced_by_its_target() {
    roots_job(2);
}

#[test]
fn a_three_root_job_is_reduced_by_its_target() {
    roots_job(3);
}

/// Hosts of 2, 3 and 4 participants on two switches, and the source alone on a host of its own.
const HOSTS: &str = r#"{
  "switches": [ {"name": "a", "device_id": "0x0100"}, {"name": "b", "device_id": "0x0200"} ],
  "nodes": [
    {"name": "src", "device_id": "0x0101", "switch": "a", "port": 0},
    {"name": "h0.gpu0", "device_id": "0x0102", "switch": "a", "port": 1, "host": 0},
    {"name": "h0.gpu1", "device_id": "0x0103", "switch": "a", "port": 2, "host": 0},
    {"name": "h1.gpu0", "device_id": "0x0104", "switch": "a", "port": 3, "host": 1},
    {"name": "h1.gpu1", "device_id": "0x0105", "switch": "a", "port": 4, "host": 1},
    {"name": "h1.gpu2", "device_id": "0x0106", "switch": "a", "port": 5, "host": 1},
    {"name": "h2.gpu0", "device_id": "0x0201", "switch": "b", "port": 0, "host": 2},
    {"name": "h2.gpu1", "device_id": "0x0202", "switch": "b", "port": 1, "host": 2},
    {"name": "h2.gpu2", "device_id": "0x0203", "switch": "b", "port": 2, "host": 2},
    {"name": "h2.gpu3", "device_id": "0x0204", "switch": "b", "port": 3, "host": 2}
  ],
  "links": [ {"a": "a", "a_port": 8, "b": "b", "b_port": 8, "bandwidth_gbps": 256, "latency_ns": 50} ]
}"#;

/// The result every participant of `cc` received (the COMPLETIONs with P_ID ≠ 0xFFFF, lane 0), by
/// end node.
fn results_at(f: &Fabric, parts: &[usize], cc: u16) -> Vec<(usize, Vec<u64>)> {
    parts
        .iter()
        .map(|&e| {
            let id = f.topo.endpoints[e].id;
            (e, f.log.iter().filter(|d| d.to == id && d.cc_id == cc && d.kind == 6 && d.code == 3).filter_map(|d| d.operands.first().copied()).collect())
        })
        .collect()
}

fn pre_reduction_run(pre_reduce: bool) -> (Fabric, Vec<usize>, u16) {
    let (t, map) = drive::load_topology(HOSTS).unwrap();
    let mut f = fabric(&t);
    let mut m = Manager::new(map);
    let parts: Vec<usize> = (1..t.endpoints.len()).collect();
    let spec = JobSpec { op: INT_SUM, pre_reduce, ..JobSpec::new(drive::node_ids(&parts), NodeId(0)) };
    let (_, ccs) = place_and_run(&mut f, &mut m, spec);
    (f, parts, ccs[0])
}

#[test]
fn pre_reduction_sends_one_contribution_per_host() {
    let (f, parts, cc) = pre_reduction_run(true);
    let expected: u64 = parts.iter().map(|&e| operand(e)).sum();
    // Three hosts: three representatives (h0.gpu0, h1.gpu0, h2.gpu0) contribute for nine participants.
    assert_eq!(contributions_at_engines(&f), 3, "one contribution per host");
    assert!(3 < parts.len());
    // The source gets the result (the master's COMPLETION to its upstream) and so do the representatives.
    let src = f.topo.endpoints[0].id;
    let at_source: Vec<u64> = f.log.iter().filter(|d| d.to == src && d.cc_id == cc && d.kind == 6 && d.code == 3).filter_map(|d| d.operands.first().copied()).collect();
    assert_eq!(at_source, vec![expected], "result = plain sum of the nine participants");
    let reps = [1usize, 3, 6];
    for (e, got) in results_at(&f, &reps, cc) {
        assert_eq!(got, vec![expected], "representative {e}");
    }
    // The others are not in any PBV: no frame of the collective reaches them.
    for (e, got) in results_at(&f, &[2, 4, 5, 7, 8, 9], cc) {
        assert!(got.is_empty(), "non-representative {e}");
    }
}

#[test]
fn without_pre_reduction_every_participant_contributes() {
    let (f, parts, cc) = pre_reduction_run(false);
    let expected: u64 = parts.iter().map(|&e| operand(e)).sum();
    assert_eq!(contributions_at_engines(&f), parts.len());
    for (e, got) in results_at(&f, &parts, cc) {
        assert_eq!(got, vec![expected], "end node {e}");
    }
}

/// Completion code of the exit a one-target master sends its participants (`docs/blocks/cpu.md`
/// §Messages: COMPLETION ROUND_DONE, the round is over, no result).
const ROUND_DONE: u8 = 6;
/// Completion code of a reduction's result (000 [0168]).
const RESULT: u8 = 3;
/// Kind code of a COMPLETION (000 [0168]).
const COMPLETION: u8 = 6;

/// The COMPLETIONs end node `e` received for `cc`: (code, operands).
fn completions_at(f: &Fabric, e: usize, cc: u16) -> Vec<(u8, Vec<u64>)> {
    let id = f.topo.endpoints[e].id;
    f.log.iter().filter(|d| d.to == id && d.cc_id == cc && d.kind == COMPLETION).map(|d| (d.code, d.operands.clone())).collect()
}

/// A reduction on the flattened butterfly (masters and subservients), from node 0, over every end
/// node, `rounds` rounds; `one_target` selects MPI_REDUCE (003 [0052], [0060]) over MPI_ALLREDUCE.
fn reduce_job(one_target: bool, roots: usize, rounds: usize) -> (Fabric, Vec<usize>, Vec<u16>) {
    let t = Topology::flattened_butterfly(8, 4, LinkSpec::default()).unwrap();
    let mut f = fabric(&t);
    let mut m = drive::manager_for(&t).unwrap();
    let all: Vec<usize> = (0..t.endpoints.len()).collect();
    let spec = JobSpec { op: INT_SUM, roots, one_target, ..JobSpec::new(drive::node_ids(&all), NodeId(0)) };
    let (job, ccs) = place_and_run(&mut f, &mut m, spec);
    for _ in 1..rounds {
        for i in 0..ccs.len() {
            let ctx = drive::context_of(&m, job, i).unwrap();
            let at = f.now() + HOP_PS;
            f.start(&ctx, at);
        }
        run(&mut f);
    }
    (f, all, ccs)
}

/// Reduce to one target (003 [0052]: "If the collective function specifies that the end result is
/// sent to a single target process (e.g., in an MPI_REDUCE function), the offload manager configures
/// the root switch to forward the end result to the node running that process"; [0060]). The target
/// is the job's source. Every other end node receives no result: only the exit of the round (001),
/// COMPLETION ROUND_DONE without data, which is also how the subservient engines below the master
/// close the round (the second round completes too).
#[test]
fn reduce_to_one_target_delivers_the_result_to_the_source_only() {
    let rounds = 2;
    let (f, all, ccs) = reduce_job(true, 1, rounds);
    let cc = ccs[0];
    let expected: u64 = all.iter().map(|&e| operand(e)).fold(0u64, u64::wrapping_add);
    let at_source = completions_at(&f, 0, cc);
    let results: Vec<u64> = at_source.iter().filter(|c| c.0 == RESULT).map(|c| c.1[0]).collect();
    assert_eq!(results, vec![expected; rounds], "the target gets the end result of every round (plain sum)");
    for &e in &all {
        let got = completions_at(&f, e, cc);
        let exits: Vec<&(u8, Vec<u64>)> = got.iter().filter(|c| c.0 == ROUND_DONE).collect();
        assert_eq!(exits.len(), rounds, "end node {e}: one exit per round");
        assert!(exits.iter().all(|c| c.1.iter().all(|&v| v == 0)), "end node {e}: the exit carries no result");
        if e != 0 {
            assert!(got.iter().all(|c| c.0 == ROUND_DONE), "end node {e} gets no result: {got:?}");
        }
    }
    assert_eq!(contributions_at_engines(&f), rounds * all.len(), "every participant contributes once a round");
}

/// The same job as an all-reduce (the bit clear): every participant gets the result, nobody an exit
/// without it (the behaviour before reduce to one target, unchanged).
#[test]
fn all_reduce_still_delivers_the_result_to_every_participant() {
    let (f, all, ccs) = reduce_job(false, 1, 1);
    let expected: u64 = all.iter().map(|&e| operand(e)).fold(0u64, u64::wrapping_add);
    for &e in &all {
        let got = completions_at(&f, e, ccs[0]);
        let results: Vec<u64> = got.iter().filter(|c| c.0 == RESULT).map(|c| c.1[0]).collect();
        // The source is a participant and the master's upstream: two results.
        assert_eq!(results, vec![expected; if e == 0 { 2 } else { 1 }], "end node {e}");
        assert!(got.iter().all(|c| c.0 != ROUND_DONE), "end node {e}: no exit without the result");
    }
}

/// Several roots (003 [0062]) reducing to one target: each root's end result goes to the source, which
/// reduces them; no participant gets any root's result.
#[test]
fn a_two_root_reduce_to_one_target_reaches_the_target_only() {
    let (f, all, ccs) = reduce_job(true, 2, 1);
    let expected: u64 = all.iter().map(|&e| operand(e)).fold(0u64, u64::wrapping_add);
    for &cc in &ccs {
        let (_, got) = f.target_result(0, cc).expect("the target has every root's end result");
        assert_eq!(got.first().copied(), Some(expected), "target result = plain sum of every participant");
        for &e in &all[1..] {
            assert!(completions_at(&f, e, cc).iter().all(|c| c.0 == ROUND_DONE), "end node {e} gets no result of tree {cc:#x}");
        }
    }
}
