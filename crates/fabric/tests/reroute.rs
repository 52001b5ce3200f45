//! Whole-switch failure and rerouting (`docs/fabric.md` §Rerouting): the simulator's switch fails
//! (`Fabric::switch_down`: its links, its engine, its end nodes) and the manager recomputes the trees
//! that used it (`Manager::switch_down`, 003 [0063]); the change plan goes through the fabric, which
//! routes around the dead switch.
//!
//! Fabric: leaf-spine, 4 leaves (switches 0-3, two end nodes each: end nodes 2l, 2l+1 on leaf l) and 2
//! spines (switches 4, 5, no end nodes), every leaf linked to every spine. Jobs: A over leaves 0 and 1,
//! B over leaves 2 and 3, C over leaves 1 and 3; each job's tree is rooted at a spine (height 1 beats a
//! leaf's height 2, `docs/manager.md` §3). End node e contributes 1000 + e; INT_SUM.

use inswitch_fabric::drive;
use inswitch_fabric::campaign::{self, INT_SUM};
use inswitch_fabric::manager::{JobId, JobSpec, Manager, ManagerError, NodeId, SwitchId};
use inswitch_fabric::setup::ContextPlan;
use inswitch_fabric::sim::{Delivery, Fabric, SimConfig};
use inswitch_fabric::topology::{LinkSpec, Ps, Topology};
use inswitch_fabric::wire;
use inswitch_frames::collective::NO_PARTICIPANT;
use inswitch_model::packet_engine::EngineParams;

const QUIET: Ps = Ps::MAX / 4;
/// 16-cycle CPU ticks and 16-tick timeouts (512 ns; a master's 1.02 us), as the directed fault tests.
const TICK: u32 = 16;
const TIMEOUT_TICKS: u32 = 16;
/// End nodes answer a command this long after it arrives.
const COMPUTE_PS: Ps = 2_000_000;
const COMPLETION: u8 = 6;
const RESULT: u8 = 3;

fn value(e: usize) -> u64 {
    1000 + e as u64
}

/// The result deliveries of context `c` from log entry `from` on: to the source (P_ID none) and to each
/// participant from its own switch's engine (P_ID set).
fn results<'a>(f: &'a Fabric, from: usize, c: &ContextPlan) -> (Vec<&'a Delivery>, Vec<Vec<&'a Delivery>>) {
    let src = f.topo.endpoints[c.source].id;
    let done = |d: &&Delivery| d.cc_id == c.cc_id && d.kind == COMPLETION && d.code == RESULT;
    let root = f.log[from..].iter().filter(done).filter(|d| d.to == src && d.p_id == NO_PARTICIPANT).collect();
    let per = c
        .participants
        .iter()
        .map(|&e| {
            let (id, own) = (f.topo.endpoints[e].id, f.topo.switches[f.topo.endpoints[e].switch].engine_id);
            f.log[from..].iter().filter(done).filter(|d| d.to == id && d.from == own && d.p_id != NO_PARTICIPANT).collect()
        })
        .collect();
    (root, per)
}

/// One reduction of `c`, started `after` ps from now (participants answer by themselves), checked: the
/// source and every participant get the full, correct sum once, without an error mark.
fn assert_completes(f: &mut Fabric, c: &ContextPlan, after: Ps, what: &str) {
    let log0 = f.log.len();
    let at = f.now() + after;
    f.start(c, at);
    f.run_until_quiet(QUIET, &mut |_| {});
    let sum: u64 = c.participants.iter().map(|&e| value(e)).sum();
    let n = c.participants.len() as u16;
    let (root, per) = results(f, log0, c);
    assert_eq!(root.len(), 1, "{what}: one result at the source: {root:?}");
    assert_eq!((root[0].contributions, root[0].error, root[0].operands[0]), (n, false, sum), "{what}: the source's result");
    for (k, got) in per.iter().enumerate() {
        assert_eq!(got.len(), 1, "{what}: participant {}", c.participants[k]);
        assert_eq!((got[0].error, got[0].operands[0]), (false, sum), "{what}: participant {}", c.participants[k]);
    }
}

fn nodes_on(t: &Topology, leaves: &[usize]) -> Vec<usize> {
    (0..t.endpoints.len()).filter(|&e| leaves.contains(&t.endpoints[e].switch)).collect()
}

/// Places the three jobs and applies their plans; returns the fabric, the manager and the jobs.
fn three_jobs() -> (Topology, Fabric, Manager, Vec<JobId>) {
    let t = Topology::leaf_spine(4, 2, 2, LinkSpec::default()).unwrap();
    let cfg = SimConfig { hop_latency_ps: 50_000, engine_params: EngineParams { tick_cycles: TICK, ..EngineParams::default() }, ..SimConfig::default() };
    let mut f = Fabric::new(t.clone(), cfg).unwrap();
    f.bring_up(0, 0);
    f.run_until_quiet(QUIET, &mut |_| {});
    let mut m = drive::manager_for(&t).unwrap();
    let mut jobs = Vec::new();
    for leaves in [[0, 1], [2, 3], [1, 3]] {
        let parts = nodes_on(&t, &leaves);
        let spec = JobSpec { op: INT_SUM, ..JobSpec::new(drive::node_ids(&parts), NodeId(parts[0] as u32)) };
        let at = f.now();
        let (job, _, ctx) = drive::place_and_apply(&mut f, &mut m, spec, at, &value).unwrap();
        assert!(ctx.master() >= 4, "job {}: rooted at a spine, not at a participant's switch", job.0);
        jobs.push(job);
    }
    campaign::set_timeouts(&mut f, TIMEOUT_TICKS);
    f.auto_respond(Some(COMPUTE_PS));
    f.run_until_quiet(QUIET, &mut |_| {});
    (t, f, m, jobs)
}

fn ctx(m: &Manager, job: JobId) -> ContextPlan {
    drive::context_of(m, job, 0).expect("a placed job")
}

/// The spine that masters job A dies. It hosts no participant, so the manager moves every tree that
/// used it to the other spine; the change plan (removals skip the dead engine; the new configuration
/// from the job's source) crosses the fabric around the dead switch, and every job then completes its
/// reductions with the right sums. Nothing of the new configuration is lost.
#[test]
fn a_dead_spine_is_routed_around_and_its_trees_complete_elsewhere() {
    let (_, mut f, mut m, jobs) = three_jobs();
    // Every job completes before the failure.
    for &j in &jobs {
        let c = ctx(&m, j);
        assert_completes(&mut f, &c, 1_000_000, &format!("job {} before", j.0));
    }
    let dead = ctx(&m, jobs[0]).master();
    let users: Vec<JobId> = jobs.iter().copied().filter(|&j| ctx(&m, j).engines.iter().any(|e| e.switch == dead)).collect();
    f.switch_down(dead);
    let change = m.switch_down(SwitchId(dead as u32));
    assert!(change.failed.is_empty(), "{:?}", change.failed);
    assert_eq!(change.replaced, users.iter().map(|&j| (j, 0)).collect::<Vec<_>>(), "exactly the trees through the dead spine move");
    let lost0 = lost(&f);
    let at = f.now();
    drive::apply(&mut f, &m, &change.plan, 0, at, &value).unwrap();
    f.run_until_quiet(QUIET, &mut |_| {});
    assert_eq!(lost(&f), lost0, "no frame of the change plan was lost");
    assert_eq!(f.stats.unreachable, 0, "the plan addresses no dead device");
    for &j in &jobs {
        let c = ctx(&m, j);
        assert!(c.engines.iter().all(|e| e.switch != dead), "job {}: off the dead spine", j.0);
        if !users.contains(&j) {
            // An untouched job's contexts are as they were: a new reduction needs its INITIALIZATIONs again.
            f.reinitialize(c.cc_id, f.now() + 1_000_000, false);
        }
        // Two reductions each (the second after a re-initialization), through the surviving spine.
        assert_completes(&mut f, &c, 2_000_000, &format!("job {} after", j.0));
        f.reinitialize(c.cc_id, f.now() + 1_000_000, false);
        assert_completes(&mut f, &c, 2_000_000, &format!("job {} after, again", j.0));
    }
}

fn lost(f: &Fabric) -> usize {
    f.faults.as_ref().map_or(0, |x| x.log.iter().filter(|x| matches!(x.kind, inswitch_fabric::faults::FaultKind::LostOnDownLink | inswitch_fabric::faults::FaultKind::LostAtStoppedEngine)).count())
}

/// Leaf 3 dies in the middle of a reduction of jobs B and C (after the command went out, before its end
/// nodes answer): their masters time out and report results marked as errors, counting only the live
/// participants, to their sources; the manager reports both jobs failed (their participants on leaf 3
/// are cut off) and their removal goes through the fabric; nothing hangs (every run ends quiet), job A
/// still completes, and frames for the dead leaf's end nodes are counted drops.
#[test]
fn jobs_whose_participants_died_are_reported_not_hung() {
    let (t, mut f, mut m, jobs) = three_jobs();
    let (a, b, c) = (ctx(&m, jobs[0]), ctx(&m, jobs[1]), ctx(&m, jobs[2]));
    let log0 = f.log.len();
    let at = f.now() + 1_000_000;
    f.start(&b, at);
    f.start(&c, at);
    // The commands are out (two hops and an engine each way) well before the end nodes answer.
    f.run_until_quiet(at + COMPUTE_PS / 2, &mut |_| {});
    let dead = 3;
    f.switch_down(dead);
    f.run_until_quiet(QUIET, &mut |_| {});
    for job in [&b, &c] {
        let (root, _) = results(&f, log0, job);
        let live: Vec<usize> = job.participants.iter().copied().filter(|&e| t.endpoints[e].switch != dead).collect();
        assert_eq!(root.len(), 1, "CC_ID {}: one result at the source", job.cc_id);
        let sum: u64 = live.iter().map(|&e| value(e)).sum();
        assert_eq!((root[0].contributions, root[0].error, root[0].operands[0]), (live.len() as u16, true, sum), "CC_ID {}: the live participants only, marked", job.cc_id);
    }
    // The manager: both jobs fail (a participant cut off), job A stays.
    let change = m.switch_down(SwitchId(dead as u32));
    let failed: Vec<(JobId, bool)> = change.failed.iter().map(|(j, e)| (*j, matches!(e, ManagerError::NodeUnreachable(_)))).collect();
    assert_eq!(failed, [(jobs[1], true), (jobs[2], true)]);
    assert!(change.replaced.is_empty());
    assert!(m.job(jobs[1]).is_none() && m.job(jobs[2]).is_none() && m.job(jobs[0]).is_some());
    let at = f.now();
    drive::apply(&mut f, &m, &change.plan, 0, at, &value).unwrap();
    f.run_until_quiet(QUIET, &mut |_| {});
    // Their contexts are gone from every live engine.
    for job in [&b, &c] {
        for e in job.engines.iter().filter(|e| e.switch != dead) {
            let cpu = f.engine(e.switch).unwrap().cpu();
            assert!(cpu.live(false, job.cc_id).is_none(), "CC_ID {} freed on switch {}", job.cc_id, e.switch);
        }
    }
    // A frame for a dead end node is dropped and counted, not routed.
    let before = f.stats.unreachable;
    let to = t.endpoints[nodes_on(&t, &[dead])[0]].id;
    let bytes = wire::message_frame(&wire::contribution(0, 0, 0, INT_SUM, vec![1, 0, 0, 0]), t.endpoints[0].id, to, 1);
    f.send_from(0, f.now() + 1_000, bytes);
    f.run_until_quiet(QUIET, &mut |_| {});
    assert_eq!(f.stats.unreachable, before + 1);
    // Job A, which never used leaf 3, still works.
    f.reinitialize(a.cc_id, f.now() + 1_000_000, false);
    assert_completes(&mut f, &a, 2_000_000, "job A after leaf 3 died");
}
