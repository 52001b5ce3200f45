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
    place_and_run_with(f, m, spec, &operand)
}

/// [`place_and_run`] with the end nodes' operands from `value`. Each tree is started by its context's
/// source (`drive::context_of`: the job's target, the source unless the job names another).
fn place_and_run_with(f: &mut Fabric, m: &mut Manager, spec: JobSpec, value: &dyn Fn(usize) -> u64) -> (JobId, Vec<u16>) {
    let at = f.now();
    let (job, _, _) = drive::place_and_apply(f, m, spec, at, value).unwrap();
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

// ---------------------------------------------------------------------------------------------------
// Several roots, all-reduce: the whole job's result at every participant (003 [0062] with [0052],
// [0060]; issue 15 item 8). The target (the source) combines the roots' end results and answers each
// root, whose engine replicates the job's result down its tree (`docs/manager.md` §3, several roots).

/// binary64 maximum (`docs/blocks/reduce_unit.md`; libfabric's COLL_OPCODE_FLT_MAX).
const FLT_MAX: u8 = inswitch_model::reduce::codes::op::FLT_MAX;
/// binary64 sum, no flush to zero, rounding mode 0 (`inswitch_model::reduce::codes::FLT_SUM_BASE`).
const FLT_SUM: u8 = inswitch_model::reduce::codes::FLT_SUM_BASE;
/// Kind code of a RESPONSE (000 [0168]).
const RESPONSE: u8 = inswitch_model::message::Kind::RESPONSE.0;
/// The barrier's opcode (`docs/blocks/reduce_unit.md`).
const BARRIER: u8 = inswitch_model::reduce::codes::op::BARRIER;
/// Completion code of a satisfied barrier (000 [0168]).
const BARRIER_SATISFIED: u8 = 2;

/// A float operand of end node `e`: quarter steps in -3.0 ..= 4.75 in a scattered order (the largest,
/// 4.75, at end node 9), so every sum of them is exact in binary64 and the maximum lies in one root's
/// group only.
fn float_operand(e: usize) -> u64 {
    (((e * 7) % 32) as f64 * 0.25 - 3.0).to_bits()
}

/// An all-reduce of `roots` roots over every end node of the 8x4 flattened butterfly with `op` and the
/// operands `value`, `rounds` rounds, its target `target` (None: the source, node 0). Checks that every
/// participant receives the whole job's result `expected` once a round (and no exit without it), that
/// the target holds it for every round, that each root's end result went up to the target as a RESPONSE
/// and came back as one COMPLETION from the target per root and round; returns the trees' roots' partial
/// results (lane 0) of the first round, for the caller to compare with `expected`.
fn all_reduce_everywhere(roots: usize, op: u8, value: &dyn Fn(usize) -> u64, expected: u64, rounds: usize, target: Option<usize>) -> Vec<u64> {
    let t = Topology::flattened_butterfly(8, 4, LinkSpec::default()).unwrap();
    let mut f = fabric(&t);
    let mut m = drive::manager_for(&t).unwrap();
    let all: Vec<usize> = (0..t.endpoints.len()).collect();
    let spec = JobSpec { op, roots, target: target.map(|n| NodeId(n as u32)), ..JobSpec::new(drive::node_ids(&all), NodeId(0)) };
    let (job, ccs) = place_and_run_with(&mut f, &mut m, spec, value);
    for _ in 1..rounds {
        for i in 0..ccs.len() {
            let ctx = drive::context_of(&m, job, i).unwrap();
            let at = f.now() + HOP_PS;
            f.start(&ctx, at);
        }
        run(&mut f);
    }
    assert_eq!(ccs.len(), roots, "one tree per root");
    let j = m.job(job).unwrap();
    let tgt = target.unwrap_or(0);
    // A barrier's result is BarrierSatisfied, a reduction's a Result (000 [0168]).
    let code = if op == BARRIER { BARRIER_SATISFIED } else { RESULT };
    let tgt_id = t.endpoints[tgt].id;
    let mut partials = Vec::new();
    for (i, p) in j.trees.iter().enumerate() {
        let cc = ccs[i];
        let root_id = t.switches[p.tree.root.0 as usize].engine_id;
        // The root's end result goes up to the target (a RESPONSE: the root is SUBSERVIENT to it) ...
        let up: Vec<&inswitch_fabric::sim::Delivery> = f.log.iter().filter(|d| d.kind == RESPONSE && d.cc_id == cc && d.from == root_id && d.to == tgt_id).collect();
        assert_eq!(up.len(), rounds, "tree {cc:#x}: one end result up to the target per round");
        partials.push(lane0(&up[0].operands));
        assert_eq!(up[0].contributions as usize, p.tree.participants().len(), "tree {cc:#x}: the root's count");
        // ... and the job's result comes back down from the target: one COMPLETION per round.
        let down: Vec<&inswitch_fabric::sim::Delivery> = f.log.iter().filter(|d| d.kind == COMPLETION && d.cc_id == cc && d.from == tgt_id && d.to == root_id).collect();
        assert_eq!(down.len(), rounds, "tree {cc:#x}: one COMPLETION from the target per round");
        assert!(down.iter().all(|d| d.code == code && lane0(&d.operands) == expected && d.contributions as usize == all.len()), "tree {cc:#x}: {down:?}");
        let results: Vec<u64> = f.target_results(tgt, cc).iter().map(|r| lane0(&r.1)).collect();
        assert_eq!(results, vec![expected; rounds], "the target's result of every round");
        for n in p.tree.participants() {
            let e = n.0 as usize;
            let got = completions_at(&f, e, cc);
            let res: Vec<u64> = got.iter().filter(|c| c.0 == code).map(|c| lane0(&c.1)).collect();
            assert_eq!(res, vec![expected; rounds], "end node {e} (tree {cc:#x}) gets the whole job's result every round");
            assert!(got.iter().all(|c| c.0 == code), "end node {e}: only results: {got:?}");
        }
    }
    assert_eq!(contributions_at_engines(&f), rounds * all.len(), "every participant contributes once a round");
    partials
}

/// Lane 0 of `operands` (0 if it has none: a barrier's messages may carry no operand).
fn lane0(operands: &[u64]) -> u64 {
    operands.first().copied().unwrap_or(0)
}

/// The whole job's INT_SUM (wrapping) over every end node.
fn int_sum_of_all() -> u64 {
    (0..32).map(operand).fold(0u64, u64::wrapping_add)
}

/// 2 roots, INT_SUM, two rounds: every participant gets the sum of all 32 operands, not its root's
/// partial sum (the behaviour before: each root's result went to its own participants only).
#[test]
fn a_two_root_all_reduce_gives_every_participant_the_whole_result() {
    let expected = int_sum_of_all();
    let partials = all_reduce_everywhere(2, INT_SUM, &operand, expected, 2, None);
    assert!(partials.iter().all(|&p| p != expected), "each root alone reduces a strict subset: {partials:?}");
    assert_eq!(partials.iter().fold(0u64, |a, &p| a.wrapping_add(p)), expected, "the roots' partials add up");
}

#[test]
fn a_three_root_all_reduce_gives_every_participant_the_whole_result() {
    let expected = int_sum_of_all();
    let partials = all_reduce_everywhere(3, INT_SUM, &operand, expected, 2, None);
    assert!(partials.iter().all(|&p| p != expected), "{partials:?}");
}

/// A float maximum over 3 roots: the largest operand (end node 9) is in one root's group only, yet
/// every participant gets it.
#[test]
fn a_three_root_float_max_gives_every_participant_the_global_maximum() {
    let expected = (0..32).map(|e| f64::from_bits(float_operand(e))).fold(f64::NEG_INFINITY, f64::max).to_bits();
    assert_eq!(f64::from_bits(expected), 4.75);
    let partials = all_reduce_everywhere(3, FLT_MAX, &float_operand, expected, 1, None);
    assert_eq!(partials.iter().filter(|&&p| p == expected).count(), 1, "one root's group holds the maximum");
}

/// A float sum over 2 roots (quarter steps: exact in binary64 in any order).
#[test]
fn a_two_root_float_sum_gives_every_participant_the_whole_sum() {
    let expected = (0..32).map(|e| f64::from_bits(float_operand(e))).sum::<f64>().to_bits();
    let partials = all_reduce_everywhere(2, FLT_SUM, &float_operand, expected, 1, None);
    assert!(partials.iter().all(|&p| p != expected));
}

/// A two-root barrier, two rounds: each root's BarrierMet goes up to the target, which answers each
/// root with BarrierSatisfied; every participant gets it once a round (the data 0).
#[test]
fn a_two_root_barrier_is_satisfied_at_every_participant() {
    all_reduce_everywhere(2, BARRIER, &operand, 0, 2, None);
}

/// The target's COMPLETION to one root is lost (a fault rule drops exactly that frame). The contexts are
/// stored non-posted first, so the root, in Full, resends its RESPONSE on its retry timer
/// (`docs/blocks/cpu.md` §Timers); the target, which answered that round already, sends the same
/// COMPLETION again, and that root's participants still get the whole job's result; the other root's
/// are not disturbed.
#[test]
fn a_lost_completion_from_the_target_is_sent_again_on_the_root_s_retry() {
    use inswitch_fabric::faults::{FaultConfig, FaultInjector, FaultKind, Rule};
    let t = Topology::flattened_butterfly(8, 4, LinkSpec::default()).unwrap();
    let mut f = fabric(&t);
    let mut m = drive::manager_for(&t).unwrap();
    let all: Vec<usize> = (0..t.endpoints.len()).collect();
    let spec = JobSpec { op: INT_SUM, roots: 2, ..JobSpec::new(drive::node_ids(&all), NodeId(0)) };
    let at = f.now();
    let (job, _, _) = drive::place_and_apply(&mut f, &mut m, spec, at, &operand).unwrap();
    run(&mut f);
    let ctxs: Vec<_> = (0..2).map(|i| drive::context_of(&m, job, i).unwrap()).collect();
    // Non-posted contexts: a RESPONSE waiting in Full has a retry timer.
    inswitch_fabric::campaign::store_non_posted(&mut f, &ctxs);
    let src = t.endpoints[0].id;
    let roots: Vec<u16> = ctxs.iter().map(|c| t.switches[c.master()].engine_id).collect();
    let mut inj = FaultInjector::new(1, FaultConfig::default());
    inj.rules.push(Rule { action: FaultKind::Drop, kind: Some(COMPLETION), cc_id: Some(ctxs[0].cc_id), to: Some(roots[0]), from: Some(src), count: 1 });
    f.inject(inj);
    let from_log = f.log.len();
    for c in &ctxs {
        let at = f.now() + HOP_PS;
        f.start(c, at);
    }
    run(&mut f);
    assert_eq!(f.faults.as_ref().unwrap().counts().dropped, 1, "{}", f.faults.as_ref().unwrap().report());
    let expected = int_sum_of_all();
    let log = &f.log[from_log..];
    for (i, c) in ctxs.iter().enumerate() {
        let up: Vec<u16> = log.iter().filter(|d| d.kind == RESPONSE && d.cc_id == c.cc_id && d.from == roots[i] && d.to == src).map(|d| d.contributions).collect();
        let down: Vec<u64> = log.iter().filter(|d| d.kind == COMPLETION && d.cc_id == c.cc_id && d.from == src && d.to == roots[i]).map(|d| lane0(&d.operands)).collect();
        // Root 0: its end result, the lost COMPLETION, its retry of the same end result, the COMPLETION
        // again (delivered once). Its children, waiting in Full as well, time out and resend their
        // partial results, which root 0 passes up (fewer contributions): the target does not answer them.
        let n = c.participants.len() as u16;
        let own = up.iter().filter(|&&k| k == n).count();
        assert_eq!((own, down.len()), (if i == 0 { 2 } else { 1 }, 1), "tree {i}: the root's end results up, COMPLETIONs delivered: {up:?}");
        assert!(up.iter().all(|&k| k <= n), "tree {i}: {up:?}");
        if i == 1 {
            assert_eq!(up, vec![n], "tree 1 undisturbed");
        }
        assert!(down.iter().all(|&v| v == expected));
        for &e in &c.participants {
            let id = t.endpoints[e].id;
            let got: Vec<u64> = log.iter().filter(|d| d.to == id && d.cc_id == c.cc_id && d.kind == COMPLETION).map(|d| lane0(&d.operands)).collect();
            assert_eq!(got, vec![expected], "end node {e} (tree {i})");
        }
    }
    assert_eq!(f.target_results(0, ctxs[0].cc_id).len(), 1, "one round combined once");
}

// ---------------------------------------------------------------------------------------------------
// A target other than the source (003 [0052]: "forward the end result to the node running that
// process"). The manager writes the root's INITIALIZATION with the target's requester ID and the target
// starts the rounds, so the root engine's `upstream` (`docs/blocks/cpu.md` §Messages) is the target.

/// End node 13 (switch s3 of the 8x4 butterfly; the source, node 0, is on s0).
const CHOSEN: usize = 13;

/// Reduce to one target with the target at [`CHOSEN`], one root, two rounds: the result reaches node 13
/// every round and nobody else, the source included (a participant like any other: the exit only).
#[test]
fn reduce_to_a_chosen_target_delivers_the_result_there_only() {
    let rounds = 2;
    let t = Topology::flattened_butterfly(8, 4, LinkSpec::default()).unwrap();
    let mut f = fabric(&t);
    let mut m = drive::manager_for(&t).unwrap();
    let all: Vec<usize> = (0..t.endpoints.len()).collect();
    let spec = JobSpec { op: INT_SUM, one_target: true, target: Some(NodeId(CHOSEN as u32)), ..JobSpec::new(drive::node_ids(&all), NodeId(0)) };
    let (job, ccs) = place_and_run(&mut f, &mut m, spec);
    let ctx = drive::context_of(&m, job, 0).unwrap();
    assert_eq!(ctx.source, CHOSEN, "the target commands the rounds");
    f.start(&ctx, f.now() + HOP_PS);
    run(&mut f);
    let cc = ccs[0];
    let expected = int_sum_of_all();
    let master = t.switches[ctx.master()].engine_id;
    assert_ne!(t.endpoints[CHOSEN].switch, ctx.master(), "the target is not on the master's switch");
    // The master's result, to its upstream: node 13 (pid 0xFFFF: not as a participant).
    let at_target: Vec<u64> = f.log.iter().filter(|d| d.to == t.endpoints[CHOSEN].id && d.from == master && d.cc_id == cc && d.kind == COMPLETION && d.code == RESULT && d.p_id == 0xFFFF).map(|d| d.operands[0]).collect();
    assert_eq!(at_target, vec![expected; rounds], "the chosen target gets the end result every round");
    for &e in &all {
        let got = completions_at(&f, e, cc);
        let exits = got.iter().filter(|c| c.0 == ROUND_DONE).count();
        assert_eq!(exits, rounds, "end node {e}: one exit per round");
        if e != CHOSEN {
            assert!(got.iter().all(|c| c.0 == ROUND_DONE), "end node {e} gets no result: {got:?}");
        }
    }
    assert_eq!(contributions_at_engines(&f), rounds * all.len());
}

/// Several roots reducing to a chosen target: each root's end result goes to node 13, which reduces
/// them; the source holds nothing and no participant gets a result.
#[test]
fn a_two_root_reduce_to_a_chosen_target_is_reduced_there() {
    let t = Topology::flattened_butterfly(8, 4, LinkSpec::default()).unwrap();
    let mut f = fabric(&t);
    let mut m = drive::manager_for(&t).unwrap();
    let all: Vec<usize> = (0..t.endpoints.len()).collect();
    let spec = JobSpec { op: INT_SUM, roots: 2, one_target: true, target: Some(NodeId(CHOSEN as u32)), ..JobSpec::new(drive::node_ids(&all), NodeId(0)) };
    let (_, ccs) = place_and_run(&mut f, &mut m, spec);
    let expected = int_sum_of_all();
    for &cc in &ccs {
        assert_eq!(f.target_result(CHOSEN, cc).map(|r| r.1[0]), Some(expected), "the chosen target reduces both roots' results");
        assert_eq!(f.target_result(0, cc), None, "the source is not the target");
        for &e in &all {
            if e != CHOSEN {
                assert!(completions_at(&f, e, cc).iter().all(|c| c.0 == ROUND_DONE), "end node {e}");
            }
        }
    }
}

/// A three-root all-reduce whose target is node 13: it combines and sends the result down.
#[test]
fn a_three_root_all_reduce_combined_at_a_chosen_target() {
    all_reduce_everywhere(3, INT_SUM, &operand, int_sum_of_all(), 1, Some(CHOSEN));
}

/// The plans of the above: the root's INITIALIZATION carries the target's requester ID (its upstream),
/// an all-reduce's roots are SUBSERVIENT and its `Target` step sends down; a reduce-to-one's roots are
/// MASTERs with the one-target bit and its `Target` only collects; a Portals job's target must be its
/// source.
#[test]
fn the_plan_points_each_root_at_the_target() {
    use inswitch_fabric::manager::{Action, Family, ManagerError, Role};
    let t = Topology::flattened_butterfly(8, 4, LinkSpec::default()).unwrap();
    let all: Vec<usize> = (0..t.endpoints.len()).collect();
    let target = NodeId(CHOSEN as u32);
    for one_target in [false, true] {
        let mut m = drive::manager_for(&t).unwrap();
        let spec = JobSpec { op: INT_SUM, roots: 2, one_target, target: Some(target), ..JobSpec::new(drive::node_ids(&all), NodeId(0)) };
        let (job, plan) = m.place(spec).unwrap();
        let j = m.job(job).unwrap();
        let roots: Vec<_> = j.trees.iter().map(|p| p.tree.root).collect();
        let tdev = m.topology().node(target).device_id;
        for s in &plan.steps {
            match s.action {
                Action::Initialize { engine, upstream, relay: None, .. } => {
                    assert!(roots.contains(&engine));
                    assert_eq!(upstream, tdev, "a root's upstream is the target");
                }
                Action::StaticEntry { engine, role, one_target: bit, .. } if roots.contains(&engine) => {
                    assert_eq!(role, if one_target { Role::Master } else { Role::Subservient });
                    assert_eq!(bit, one_target);
                }
                Action::Target { node, send_down, .. } => {
                    assert_eq!(node, target);
                    assert_eq!(send_down, !one_target);
                }
                _ => {}
            }
        }
    }
    let mut m = drive::manager_for(&t).unwrap();
    let spec = JobSpec { family: Family::Portals, target: Some(target), ..JobSpec::new(drive::node_ids(&all[..8]), NodeId(0)) };
    assert_eq!(m.place(spec).unwrap_err(), ManagerError::PortalsTarget);
}

// ---------------------------------------------------------------------------------------------------
// Reduce to one target on a Soft Portals tree (`docs/fabric.md` §Portals): the root end node is where
// the result lands (002 (32), (37)); in a one-target round it keeps it and re-arms the tree without it.

/// An arm a leaf received: (seqno, resno, count, lane 0).
type Arm = (u16, u16, u32, u64);

/// FIG. 7's Portals job (root end node 735 = node 0, the 8 other nodes leaves), `rounds` INT_SUM rounds
/// from seqno 5, leaf `e` giving `100 · round + e`; `one_target` selects the one-target round. Returns
/// the root's results and each leaf's arms.
fn portals_rounds(one_target: bool, rounds: u32) -> (Vec<inswitch_fabric::sim::portals::RoundResult>, Vec<Vec<Arm>>) {
    use inswitch_fabric::manager::Family;
    use inswitch_fabric::sim::portals::{Leaf, Root};
    use inswitch_model::packet_engine::EngineParams;
    const VNI: u16 = 0x42;
    const US: Ps = 1_000_000;
    let t = Topology::fig7(LinkSpec::default());
    let cfg = SimConfig { hop_latency_ps: HOP_PS, engine_params: EngineParams { tick_cycles: 16, ..EngineParams::default() }, ..SimConfig::default() };
    let mut f = Fabric::new(t.clone(), cfg).unwrap();
    f.bring_up(0, 0);
    let mut m = drive::manager_for(&t).unwrap();
    let spec = JobSpec { family: Family::Portals, op: INT_SUM, vni: VNI, one_target, ..JobSpec::new((0..9).map(NodeId).collect(), NodeId(0)) };
    let job = drive::place_portals(&mut f, &mut m, spec, 0).unwrap();
    // Engine timeouts of 64 ticks of 16 cycles, as tests/portals.rs: longer than a round's arm-to-contribution time.
    inswitch_fabric::campaign::set_timeouts(&mut f, 64);
    run(&mut f);
    for &e in &job.leaves {
        let values = (0..rounds).map(|r| Some([u64::from(100 * r) + e as u64, 0, 0, 0])).collect();
        f.portals_leaf(e, job.dfa, Leaf { vni: VNI, cookie: job.cookie(0, inswitch_fabric::campaign::PORTALS_MAGIC), op: INT_SUM, compute: US, values, seqnos: Vec::new() });
    }
    let root = Root { vni: VNI, cookie: job.cookie(0, inswitch_fabric::campaign::PORTALS_MAGIC), op: INT_SUM, first_seqno: 5, expected: 8, rounds, timeout: 10 * US, ..Root::default() };
    f.portals_root(0, job.dfa, root);
    if one_target {
        f.portals_one_target(0, job.dfa);
    }
    f.portals_start(0, job.dfa, f.now() + US);
    run(&mut f);
    let arms = job.leaves.iter().map(|&e| f.portals.arms_at(e, job.dfa).into_iter().map(|(s, r, c, d)| (s, r, c, d[0])).collect()).collect();
    (f.portals.results(0, job.dfa).to_vec(), arms)
}

/// Three one-target Soft Portals rounds: the root end node (the target) gets every round's sum, complete;
/// every leaf gets each round's arm, none carrying a result (start arms: resno = seqno, count 0, no
/// data), and no arm after the last round. The all-reduce run of the same job gives every leaf the
/// results (the contrast: the one-target mode is what withholds them).
#[test]
fn a_one_target_portals_round_keeps_the_result_at_the_root() {
    let rounds = 3;
    let sum = |r: u32| (1..9u64).map(|e| u64::from(100 * r) + e).sum::<u64>();
    let (results, arms) = portals_rounds(true, rounds);
    let got: Vec<(u64, u32, bool)> = results.iter().map(|r| (r.data[0], r.count, r.complete)).collect();
    assert_eq!(got, (0..rounds).map(|r| (sum(r), 8, true)).collect::<Vec<_>>(), "the root's result of every round");
    for a in &arms {
        assert_eq!(a, &vec![(5, 5, 0, 0), (6, 6, 0, 0), (7, 7, 0, 0)], "a leaf gets each round's start arm and no result");
    }
    let (results, arms) = portals_rounds(false, rounds);
    assert_eq!(results.iter().map(|r| r.data[0]).collect::<Vec<_>>(), (0..rounds).map(sum).collect::<Vec<_>>());
    for a in &arms {
        assert_eq!(a.iter().filter(|x| x.0 != x.1).map(|x| x.3).collect::<Vec<_>>(), (0..rounds).map(sum).collect::<Vec<_>>(), "all-reduce: every result reaches the leaf");
    }
}
