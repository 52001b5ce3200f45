//! The Soft Portals scenario: a reduction tree of seed 002 placed by the manager, rounds run by the
//! root and leaf end nodes through the cycle engines.

use super::collective::INT_SUM;
use crate::drive;
use crate::sim::{Fabric, SimConfig};
use crate::topology::{LinkSpec, Ps, Topology};

/// One round of the Portals scenario at the root end node.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PortalsRound {
    /// The reduction id it ran under (DFA bits 20-18, 002 (60)-(61)).
    pub rid: u8,
    /// `rt_seqno` of the round.
    pub seqno: u16,
    /// Lane 0 of the result, as a signed integer.
    pub result: i64,
    /// Lane 0 of the fold of the leaves' values (computed here, a plain sum).
    pub expected: i64,
    /// Contributions counted.
    pub count: u32,
    /// Frames the root folded.
    pub frames: u32,
    /// When the round's arm left the root, ps.
    pub armed_at_ps: Ps,
    /// From the round's arm leaving the root to the root holding every contribution, ps.
    pub arm_to_result_ps: Ps,
    /// All four lanes equal the fold, every contribution counted.
    pub ok: bool,
}

/// Reductions the Portals scenario runs at once on its tree, ids 0 and 1 ([`run_portals`]).
pub const SCENARIO_REDUCTIONS: usize = 2;

/// The Portals scenario (`inswitch sim --scenario portals`, [`run_portals`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PortalsRun {
    /// Topology.
    pub topology: String,
    /// Why the run could not be done.
    pub error: Option<String>,
    /// Multicast address of the tree (reduction id 0).
    pub dfa: u32,
    /// Multicast addresses of the reductions run, one per id (the tree's with the id in bits 20-18).
    pub dfas: Vec<u32>,
    /// Leaves.
    pub leaves: usize,
    /// Per switch of the tree (top-down): name, wait count.
    pub wait_counts: Vec<(String, u32)>,
    /// Rounds, in the order they were issued (the ids in turn).
    pub rounds: Vec<PortalsRound>,
    /// Soft Portals frames that crossed ISLs.
    pub isl_frames: u64,
}

impl PortalsRun {
    /// Every round is right.
    pub fn ok(&self) -> bool {
        self.error.is_none() && !self.rounds.is_empty() && self.rounds.iter().all(|r| r.ok)
    }

    /// The summary `inswitch sim --scenario portals` prints.
    pub fn text(&self) -> String {
        let dfas: Vec<String> = self.dfas.iter().map(|d| format!("{d:#x}")).collect();
        let mut s = format!(
            "portals: {}, Soft Portals INT_SUM rounds, root end node = the source, {} leaves, tree DFA {:#x}, {} reductions at once (DFAs {})\n",
            self.topology,
            self.leaves,
            self.dfa,
            self.dfas.len(),
            dfas.join(", ")
        );
        if let Some(e) = &self.error {
            return s + &format!("  not run: {e}\n");
        }
        let waits: Vec<String> = self.wait_counts.iter().map(|(n, w)| format!("{n} {w}")).collect();
        s += &format!("  wait counts (contributions beneath, 002 (58)): {}\n", waits.join(", "));
        for r in &self.rounds {
            let verdict = if r.ok { "ok" } else { "WRONG" };
            s += &format!(
                "  id {} seqno {:4}: result {} (expected {}), count {}, {} frame(s) at the root, armed at {:.3} us, arm to result {:.3} us: {verdict}\n",
                r.rid,
                r.seqno,
                r.result,
                r.expected,
                r.count,
                r.frames,
                r.armed_at_ps as f64 / 1e6,
                r.arm_to_result_ps as f64 / 1e6
            );
        }
        s + &format!("  {} Soft Portals frames (102 bytes) crossed ISLs: per ISL one partial result up per round, and every arm down (each id's start arm and its results)\n", self.isl_frames)
    }
}

/// FIG. 7 with a Portals job over every end node (manager-placed; cycle engines, real frames,
/// `hop_latency_ps` per hop): the source (735) is the root end node; six INT_SUM rounds issued as
/// libfabric's CXI provider issues consecutive collectives on one tree, each under the tree's next
/// reduction id (`next_red_id`, round-robin; DFA bits 20-18, 002 (60)-(61)), here over
/// [`SCENARIO_REDUCTIONS`] ids: rounds 0, 2, 4 under id 0 and 1, 3, 5 under id 1, both ids in flight
/// at once, each id's rounds back to back, re-armed by the id's previous result; the root draws both
/// ids' seqnos from the tree's one counter from 1021 (libfabric's `mc_obj->seqno`: id 0's first round
/// 1021, id 1's 1022, then each result arm the next draw, 0, 1, ...: the reserved 1023 is crossed); leaf `e` contributes `(e + 1) * (round + 1)` in
/// lane 0 and checks against a plain sum. `docs/fabric.md` §Portals.
pub fn run_portals(hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> PortalsRun {
    run_portals_captured(hop_latency_ps, false, progress).0
}

/// [`run_portals`], returning the fabric as well, with every frame captured when `capture` (for
/// `inswitch sim --scenario portals --pcap`).
pub fn run_portals_captured(hop_latency_ps: Ps, capture: bool, progress: &mut dyn FnMut(Ps)) -> (PortalsRun, Option<Fabric>) {
    use crate::sim::portals::{Leaf, Reduction, Root};
    use std::collections::VecDeque;
    const ROUNDS: u32 = 6;
    const FIRST_SEQNO: u16 = 1021;
    const VNI: u16 = 0x42;
    /// Magic of the rounds' cookies (bits 31-16); the rest is the tree and the reduction id, as
    /// libfabric fills them (`sim::portals::libfabric_cookie`).
    const MAGIC: u16 = 0x0C0E;
    /// Engine timeouts: 4 ticks of 1024 cycles, about 8 us.
    const ENGINE_TIMEOUT_TICKS: u32 = 4;
    const ROOT_TIMEOUT: Ps = 50_000_000;
    const COMPUTE: Ps = 1_000_000;
    let topology = Topology::fig7(LinkSpec::default());
    let mut out = PortalsRun { topology: "fig7".into(), ..PortalsRun::default() };
    let value = |r: u32, e: usize| [(e as u64 + 1) * u64::from(r + 1), e as u64, u64::from(r), 1];
    let mut run = || -> Result<(Fabric, crate::sim::portals::PortalsJob), String> {
        let mut f = Fabric::new(topology.clone(), SimConfig { hop_latency_ps, capture, ..SimConfig::default() }).map_err(|e| e.to_string())?;
        let mut m = drive::manager_for(&topology).map_err(|e| e.to_string())?;
        f.bring_up(0, 0);
        let all = (0..topology.endpoints.len()).map(|n| crate::manager::NodeId(n as u32)).collect();
        let spec = crate::manager::JobSpec { family: crate::manager::Family::Portals, op: INT_SUM, vni: VNI, ..crate::manager::JobSpec::new(all, crate::manager::NodeId(0)) };
        let job = drive::place_portals(&mut f, &mut m, spec, 0).map_err(|e| e.to_string())?;
        crate::campaign::set_timeouts(&mut f, ENGINE_TIMEOUT_TICKS);
        f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
        // Reduction `rid` runs rounds rid, rid + SCENARIO_REDUCTIONS, ...
        let rounds_of = |rid: u8| (0..ROUNDS).filter(move |r| *r as usize % SCENARIO_REDUCTIONS == usize::from(rid));
        let reductions = (0..SCENARIO_REDUCTIONS as u8)
            .map(|rid| {
                let cookie = crate::sim::portals::libfabric_cookie(job.tree, rid, MAGIC);
                let leaves = job.leaves.iter().map(|&e| (e, Leaf { vni: VNI, cookie, op: INT_SUM, compute: COMPUTE, values: rounds_of(rid).map(|r| Some(value(r, e))).collect(), seqnos: Vec::new() })).collect();
                let root = Root { vni: VNI, cookie, op: INT_SUM, first_seqno: FIRST_SEQNO, expected: job.leaves.len() as u32, rounds: rounds_of(rid).count() as u32, timeout: ROOT_TIMEOUT, own: VecDeque::new(), twins: Vec::new(), await_all: false, rearm: None, restart: None };
                Reduction { rid, root, leaves }
            })
            .collect();
        out.wait_counts = job.switches.iter().map(|&s| (f.topo.switches[s].name.clone(), f.engine(s).and_then(|e| e.regs().mcast_entry(job.tree)).map_or(0, |m| m.wait))).collect();
        let isl_before: u64 = f.channel_frames(|k| matches!(k, crate::sim::ChannelKind::Isl(_))).iter().map(|x| x.1).sum();
        let at = f.now() + COMPUTE;
        out.dfas = f.portals_concurrent(&job, reductions, at).map_err(|e| e.to_string())?;
        f.run_until_quiet(Ps::MAX / 4, progress);
        out.isl_frames = f.channel_frames(|k| matches!(k, crate::sim::ChannelKind::Isl(_))).iter().map(|x| x.1).sum::<u64>() - isl_before;
        Ok((f, job))
    };
    let (f, job) = match run() {
        Ok(x) => x,
        Err(e) => {
            out.error = Some(e);
            return (out, None);
        }
    };
    out.dfa = job.dfa;
    out.leaves = job.leaves.len();
    // Round r is its id's (r / SCENARIO_REDUCTIONS)-th.
    for r in 0..ROUNDS as usize {
        let rid = r % SCENARIO_REDUCTIONS;
        let Some(x) = out.dfas.get(rid).and_then(|&d| f.portals.results(job.root, d).get(r / SCENARIO_REDUCTIONS)) else { continue };
        let expected: [u64; 4] = job.leaves.iter().map(|&e| value(r as u32, e)).fold([0; 4], |a, v| std::array::from_fn(|k| a[k].wrapping_add(v[k])));
        out.rounds.push(PortalsRound {
            rid: rid as u8,
            seqno: x.seqno,
            result: x.data[0] as i64,
            expected: expected[0] as i64,
            count: x.count,
            frames: x.frames,
            armed_at_ps: x.armed_at,
            arm_to_result_ps: x.at - x.armed_at,
            ok: x.data == expected && x.complete && x.count == job.leaves.len() as u32,
        });
    }
    if out.rounds.len() != ROUNDS as usize {
        out.error = Some(format!("{} of {ROUNDS} rounds completed", out.rounds.len()));
    }
    (out, Some(f))
}
