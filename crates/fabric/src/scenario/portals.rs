//! The Soft Portals scenario: a reduction tree of seed 002 placed by the manager, rounds run by the
//! root and leaf end nodes through the cycle engines.

use super::collective::INT_SUM;
use crate::drive;
use crate::sim::{Fabric, SimConfig};
use crate::topology::{LinkSpec, Ps, Topology};

/// One round of the Portals scenario at the root end node.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PortalsRound {
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
    /// From the round's arm leaving the root to the root holding every contribution, ps.
    pub arm_to_result_ps: Ps,
    /// All four lanes equal the fold, every contribution counted.
    pub ok: bool,
}

/// The Portals scenario (`inswitch sim --scenario portals`, [`run_portals`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PortalsRun {
    /// Topology.
    pub topology: String,
    /// Why the run could not be done.
    pub error: Option<String>,
    /// Multicast address of the tree.
    pub dfa: u32,
    /// Leaves.
    pub leaves: usize,
    /// Per switch of the tree (top-down): name, wait count.
    pub wait_counts: Vec<(String, u32)>,
    /// Rounds, in order.
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
        let mut s = format!("portals: {}, Soft Portals INT_SUM rounds, root end node = the source, {} leaves, tree DFA {:#x}\n", self.topology, self.leaves, self.dfa);
        if let Some(e) = &self.error {
            return s + &format!("  not run: {e}\n");
        }
        let waits: Vec<String> = self.wait_counts.iter().map(|(n, w)| format!("{n} {w}")).collect();
        s += &format!("  wait counts (contributions beneath, 002 (58)): {}\n", waits.join(", "));
        for r in &self.rounds {
            let verdict = if r.ok { "ok" } else { "WRONG" };
            s += &format!(
                "  seqno {:4}: result {} (expected {}), count {}, {} frame(s) at the root, arm to result {:.3} us: {verdict}\n",
                r.seqno,
                r.result,
                r.expected,
                r.count,
                r.frames,
                r.arm_to_result_ps as f64 / 1e6
            );
        }
        s + &format!("  {} Soft Portals frames (102 bytes) crossed ISLs: one partial result up and one arm down per round and ISL\n", self.isl_frames)
    }
}

/// FIG. 7 with a Portals job over every end node (manager-placed; cycle engines, real frames,
/// `hop_latency_ps` per hop): the source (735) is the root end node; six back-to-back INT_SUM rounds
/// from seqno 1020 (so the sequence number crosses the reserved 1023: 1020, 1021, 1022, 0, 1, 2), each
/// re-armed by the previous result; leaf `e` contributes `(e + 1) * (round + 1)` in lane 0 and checks
/// against a plain sum. `docs/fabric.md` §Portals.
pub fn run_portals(hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> PortalsRun {
    run_portals_captured(hop_latency_ps, false, progress).0
}

/// [`run_portals`], returning the fabric as well, with every frame captured when `capture` (for
/// `inswitch sim --scenario portals --pcap`).
pub fn run_portals_captured(hop_latency_ps: Ps, capture: bool, progress: &mut dyn FnMut(Ps)) -> (PortalsRun, Option<Fabric>) {
    use crate::sim::portals::{Leaf, Root};
    use std::collections::VecDeque;
    const ROUNDS: u32 = 6;
    const FIRST_SEQNO: u16 = 1020;
    const VNI: u16 = 0x42;
    const COOKIE: u32 = 0x0C0E_0001;
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
        for &e in &job.leaves {
            let values: VecDeque<_> = (0..ROUNDS).map(|r| Some(value(r, e))).collect();
            f.portals_leaf(e, job.dfa, Leaf { vni: VNI, cookie: COOKIE, op: INT_SUM, compute: COMPUTE, values, seqnos: Vec::new() });
        }
        let root = Root { vni: VNI, cookie: COOKIE, op: INT_SUM, first_seqno: FIRST_SEQNO, expected: job.leaves.len() as u32, rounds: ROUNDS, timeout: ROOT_TIMEOUT, own: VecDeque::new(), twins: Vec::new(), await_all: false, rearm: None, restart: None };
        f.portals_root(job.root, job.dfa, root);
        out.wait_counts = job.switches.iter().map(|&s| (f.topo.switches[s].name.clone(), f.engine(s).map_or(0, |e| e.regs().read(inswitch_model::register_space::Reg::Mcast(0, 1))))).collect();
        let isl_before: u64 = f.channel_frames(|k| matches!(k, crate::sim::ChannelKind::Isl(_))).iter().map(|x| x.1).sum();
        let at = f.now() + COMPUTE;
        f.portals_start(job.root, job.dfa, at);
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
    for (r, x) in f.portals.results(job.root, job.dfa).iter().enumerate() {
        let expected: [u64; 4] = job.leaves.iter().map(|&e| value(r as u32, e)).fold([0; 4], |a, v| std::array::from_fn(|k| a[k].wrapping_add(v[k])));
        out.rounds.push(PortalsRound {
            seqno: x.seqno,
            result: x.data[0] as i64,
            expected: expected[0] as i64,
            count: x.count,
            frames: x.frames,
            arm_to_result_ps: x.at - x.armed_at,
            ok: x.data == expected && x.complete && x.count == job.leaves.len() as u32,
        });
    }
    if out.rounds.len() != ROUNDS as usize {
        out.error = Some(format!("{} of {ROUNDS} rounds completed", out.rounds.len()));
    }
    (out, Some(f))
}
