//! Several jobs placed by the manager on one fabric, run at once (FIG. 7's built-in jobs).


use inswitch_frames::collective::NO_PARTICIPANT;

use super::collective::{cycle_after, value_of, INT_SUM};
use crate::drive;
use crate::manager::{JobSpec, NodeId};
use crate::sim::{Fabric, SimConfig};
use crate::topology::{LinkSpec, Ps, Topology};

/// One job of a multi-job run ([`run_jobs`]): an INT_SUM all-reduce over `participants` (end-node
/// indices) started by `source`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct JobRun {
    /// Participating end nodes.
    pub participants: Vec<usize>,
    /// Source end node.
    pub source: usize,
}

/// What one job of a multi-job run got.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct JobResult {
    /// The context's CC_ID (the manager's key).
    pub cc_id: u16,
    /// Name of the master engine's switch (the manager's choice).
    pub master: String,
    /// Engines in the tree.
    pub engines: usize,
    /// Participants.
    pub participants: usize,
    /// The INT_SUM of the participants' values.
    pub expected_value: u64,
    /// Every participant got exactly one result from its own switch's engine, equal to `expected_value`.
    pub ok: bool,
    /// From the responses leaving to the last participant holding its result, ps.
    pub all_reduce_ps: Ps,
}

/// Several jobs at once (`inswitch sim --scenario jobs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct JobsResult {
    /// Topology.
    pub topology: String,
    /// Why the run could not be done (a job the manager refused).
    pub error: Option<String>,
    /// Per job, in placement order.
    pub jobs: Vec<JobResult>,
    /// Frames sent (configuration included).
    pub frames: usize,
}

/// Places every job with the collective manager (in order, so later jobs see the earlier ones' load),
/// applies the plans through the fabric (cycle engines, real frame lengths, `hop_latency_ps` per hop),
/// starts every job at the same instant, lets every participant of every job answer at the same
/// instant, and checks each participant's result.
pub fn run_jobs(topology: &Topology, jobs: &[JobRun], hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> JobsResult {
    run_jobs_captured(topology, jobs, hop_latency_ps, false, progress).0
}

/// [`run_jobs`], returning the fabric as well, with every frame captured when `capture` (for `inswitch
/// sim --scenario jobs --pcap`).
pub fn run_jobs_captured(topology: &Topology, jobs: &[JobRun], hop_latency_ps: Ps, capture: bool, progress: &mut dyn FnMut(Ps)) -> (JobsResult, Option<Fabric>) {
    let mut out = JobsResult { topology: topology.name.clone(), ..JobsResult::default() };
    let cfg = SimConfig { hop_latency_ps, capture, ..SimConfig::default() };
    let placed = Fabric::new(topology.clone(), cfg).map_err(|e| e.to_string()).and_then(|f| drive::manager_for(topology).map(|m| (f, m)).map_err(|e| e.to_string()));
    let (mut f, mut m) = match placed {
        Ok(x) => x,
        Err(e) => {
            out.error = Some(e);
            return (out, None);
        }
    };
    let limit = Ps::MAX / 4;
    f.bring_up(jobs.first().map_or(0, |j| j.source), 0);
    f.run_until_quiet(limit, progress);
    let mut ctxs = Vec::new();
    for j in jobs {
        let spec = JobSpec { op: INT_SUM, ..JobSpec::new(drive::node_ids(&j.participants), NodeId(j.source as u32)) };
        let at = f.now();
        match drive::place_and_apply(&mut f, &mut m, spec, at, &value_of) {
            Ok((_, _, ctx)) => ctxs.push(ctx),
            Err(e) => {
                out.error = Some(e.to_string());
                return (out, Some(f));
            }
        }
    }
    f.run_until_quiet(limit, progress);
    let t = cycle_after(f.now());
    for c in &ctxs {
        f.start(c, t);
    }
    f.run_until_quiet(limit, progress);
    let log0 = f.log.len();
    let t_resp = cycle_after(f.now());
    for c in &ctxs {
        f.respond_all(c.cc_id, t_resp);
    }
    f.run_until_quiet(limit, progress);
    for c in &ctxs {
        let expected = c.participants.iter().map(|&e| value_of(e)).fold(0u64, u64::wrapping_add);
        let mut ok = true;
        let mut last = 0;
        for &e in &c.participants {
            let ep = &f.topo.endpoints[e];
            let own = f.topo.switches[ep.switch].engine_id;
            // The participant's copy comes from its own switch's engine with its P_ID (the source also
            // gets the master's upstream copy, P_ID 0xFFFF).
            let got: Vec<_> = f.log[log0..].iter().filter(|d| d.kind == 6 && d.cc_id == c.cc_id && d.to == ep.id && d.from == own && d.p_id != NO_PARTICIPANT).collect();
            ok &= got.len() == 1 && got.iter().all(|d| d.operands.first() == Some(&expected));
            last = got.iter().map(|d| d.at).fold(last, Ps::max);
        }
        out.jobs.push(JobResult {
            cc_id: c.cc_id,
            master: f.topo.switches[c.master()].name.clone(),
            engines: c.engines.len(),
            participants: c.participants.len(),
            expected_value: expected,
            ok,
            all_reduce_ps: last.saturating_sub(t_resp),
        });
    }
    out.frames = f.frames.len();
    (out, Some(f))
}

/// The runs of `inswitch sim --scenario jobs`: FIG. 7 with the three collectives of 000 \[0180\]-\[0182\]
/// (all end nodes; all but switch 730's; all but switch 725's third node; source 735), and a flattened
/// butterfly of 8 x 8 with four jobs over four consecutive switches each (switches 2k .. 2k+3 mod 8, so
/// every switch serves two jobs), each started by the first end node of its first switch.
pub fn builtin_jobs() -> Vec<(Topology, Vec<JobRun>)> {
    let fig7 = Topology::fig7(LinkSpec::default());
    let sets = [(0..9).collect(), (0..6).collect(), (0..9).filter(|&e| e != 5).collect()];
    let fig7_jobs = sets.into_iter().map(|participants| JobRun { participants, source: 0 }).collect();
    let fb = Topology::flattened_butterfly(8, 8, LinkSpec::default()).expect("8 x 8 fits");
    let fb_jobs = (0..4)
        .map(|k| {
            let switches: Vec<usize> = (0..4).map(|i| (2 * k + i) % 8).collect();
            let participants = (0..fb.endpoints.len()).filter(|&e| switches.contains(&fb.endpoints[e].switch)).collect();
            JobRun { participants, source: fb.endpoints_of(2 * k).next().expect("an end node") }
        })
        .collect();
    vec![(fig7, fig7_jobs), (fb, fb_jobs)]
}
