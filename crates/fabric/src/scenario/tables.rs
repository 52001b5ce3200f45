//! Seed 000's Table 1 (monolithic vs distributed engines on a 32 x 32 flattened butterfly), the
//! two-master case of \[0150\]-\[0153\] and latency versus end nodes.

use std::collections::HashMap;

use super::collective::{cycle_after, run_collective, value_of, Mode, RunResult, RunSpec, INT_SUM};
use crate::drive;
use crate::setup::{self, Arrangement, ContextPlan, Plan};
use crate::sim::{EngineKind, Fabric, NominalSizes, SimConfig};
use crate::topology::{LinkSpec, Ps, Topology, GEN6_X2_BYTES_PER_S};

/// Seed 000 Table 1 figures, ps: forward a 32-byte command (monolithic, distributed), receive 1056-byte
/// responses (monolithic, distributed).
pub const SEED_TABLE1: [(&str, f64, f64); 3] = [
    ("frames per ISL from the master's switch", 32.0, 1.0),
    ("forward a 32-byte command to all endpoints (ns)", 2_000.0, 126.0),
    ("receive 1056-byte responses from all endpoints (ns)", 67_500.0, 4_160.0),
];

/// Table 1's fabric: a 1-D flattened butterfly of `switches` x `per_switch`, PCIe Gen 6 x2 everywhere.
pub fn table1_spec(switches: usize, per_switch: usize, arrangement: Arrangement, mode: Mode, hop_latency_ps: Ps) -> RunSpec {
    let link = LinkSpec { bytes_per_s: GEN6_X2_BYTES_PER_S, delay_ps: 0 };
    let topology = Topology::flattened_butterfly(switches, per_switch, link).expect("Table 1 shape fits");
    RunSpec { topology_name: topology.name.clone(), topology, arrangement, mode, hop_latency_ps, source: 0, master: 0, skip_idle: true, capture: false, real_frames: false }
}

/// Both columns of Table 1 in one mode.
pub fn table1(mode: Mode, hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> [RunResult; 2] {
    [Arrangement::Monolithic, Arrangement::Distributed].map(|a| run_collective(&table1_spec(32, 32, a, mode, hop_latency_ps), progress).0)
}

/// The two-master case of \[0150\]-\[0153\].
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TwoMasterResult {
    /// Timing mode.
    pub mode: Option<Mode>,
    /// Contexts started at once.
    pub contexts: usize,
    /// Masters they are spread over.
    pub masters: usize,
    /// Most frames any ISL out of a master's switch carried during the distribution.
    pub max_frames_per_isl: u64,
    /// From the first command at a master to the last subservient engine holding every initiating
    /// frame, ps.
    pub distribution_ps: Ps,
    /// Seed figure for it, ps (33 ns per frame per link: 528 ns for 16 contexts on one master, 264 on two).
    pub seed_ps: Ps,
    /// From every participant answering every context at once to the last participant holding every
    /// result, ps.
    pub all_reduce_ps: Ps,
    /// Realistic mode: every participant got every context's result once, equal to the engines' INT_SUM.
    pub results_ok: Option<bool>,
}

/// \[0153\] in serialization-only mode (the seed's arithmetic).
pub fn two_masters(contexts: usize, masters: usize) -> TwoMasterResult {
    two_masters_in(contexts, masters, Mode::Serialization, 0)
}

/// \[0153\]: Gen 7 links (32 GB/s: a 1056-byte frame in 33 ns); `contexts` all-reduces started at once,
/// their masters spread over `masters` switches (0 and 16) of a 32 x 32 flattened butterfly, each
/// context's source the first end node of its master's switch. The seed counts the frames each link
/// carries, so the engine's crossbar port is not the bottleneck here (Table 1's arithmetic serializes on
/// it instead): it is given 1000x a link's bandwidth. Realistic mode runs the cycle engines (16
/// descriptors, one per live context) at `hop_latency_ps` per hop: there the engines' emission rate,
/// not the links, sets the pace, which is \[0153\]'s point about processing parallelism.
pub fn two_masters_in(contexts: usize, masters: usize, mode: Mode, hop_latency_ps: Ps) -> TwoMasterResult {
    two_masters_captured(contexts, masters, mode, hop_latency_ps, false).0
}

/// [`two_masters_in`], returning the fabric as well, with every frame captured when `capture` (for
/// `inswitch sim --scenario two-masters --pcap`).
pub fn two_masters_captured(contexts: usize, masters: usize, mode: Mode, hop_latency_ps: Ps, capture: bool) -> (TwoMasterResult, Option<Fabric>) {
    let link = LinkSpec { bytes_per_s: 2 * GEN6_X2_BYTES_PER_S, delay_ps: 0 };
    let mut t = Topology::flattened_butterfly(32, 32, link).expect("fits");
    t.engine_port = LinkSpec { bytes_per_s: 1000 * link.bytes_per_s, delay_ps: 0 };
    let sizes = NominalSizes { command: 1056, response: 1056, result: 1056 };
    let cfg = match mode {
        Mode::Serialization => SimConfig { engine: EngineKind::TableArithmetic, nominal: Some(sizes), capture, ..SimConfig::default() },
        Mode::Realistic => SimConfig {
            engine: EngineKind::Cycle,
            nominal: Some(sizes),
            hop_latency_ps,
            engine_params: inswitch_model::packet_engine::EngineParams { descriptors: 16, ..SimConfig::default().engine_params },
            capture,
            ..SimConfig::default()
        },
    };
    let mut f = Fabric::new(t.clone(), cfg).expect("fabric");
    let master_of = |k: usize| if masters > 1 && k % 2 == 1 { 16 } else { 0 };
    let ctxs: Vec<ContextPlan> = (0..contexts)
        .map(|k| {
            let m = master_of(k);
            let source = t.endpoints_of(m).next().expect("an end node");
            setup::plan(&t, Arrangement::Distributed, 1 + k as u16, INT_SUM, source, m)
        })
        .collect();
    drive::configure(&mut f, &Plan { contexts: ctxs.clone() }, 0, &value_of).expect("the plan fits the engines");
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let masters_at: Vec<usize> = (0..masters.max(1)).map(master_of).collect();
    let isl_out = |f: &Fabric| -> Vec<u64> {
        f.routes.directed_iter().enumerate().filter(|(_, d)| masters_at.contains(&d.0)).map(|(i, _)| f.channel(f.isl_channel(i)).frames).collect()
    };
    let before = isl_out(&f);
    let log0 = f.log.len();
    let t_cmd = cycle_after(f.now());
    for c in &ctxs {
        f.start(c, t_cmd);
    }
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let max_isl = isl_out(&f).iter().zip(&before).map(|(a, b)| a - b).max().unwrap_or(0);
    let masters_ids: Vec<u16> = masters_at.iter().map(|&s| t.switches[s].engine_id).collect();
    let first = f.log[log0..].iter().filter(|d| d.kind == 3 && masters_ids.contains(&d.to)).map(|d| d.at).min().unwrap_or(0);
    let subs: Vec<u16> = t.switches.iter().map(|s| s.engine_id).filter(|id| !masters_ids.contains(id)).collect();
    let last = f.log[log0..].iter().filter(|d| d.kind == 3 && subs.contains(&d.to)).map(|d| d.at).max().unwrap_or(0);
    // Every participant answers every context at once; the results come back down.
    let log1 = f.log.len();
    let t_resp = cycle_after(f.now());
    for c in &ctxs {
        f.respond_all(c.cc_id, t_resp);
    }
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let mut all_reduce = 0;
    let mut ok = true;
    for c in &ctxs {
        let ids: HashMap<u16, usize> = c.participants.iter().map(|&e| (t.endpoints[e].id, e)).collect();
        let expected = c.participants.iter().map(|&e| value_of(e)).fold(0u64, u64::wrapping_add);
        let got: Vec<_> = f.log[log1..].iter().filter(|d| d.kind == 6 && d.cc_id == c.cc_id && ids.contains_key(&d.to)).collect();
        all_reduce = got.iter().map(|d| d.at - t_resp).fold(all_reduce, Ps::max);
        let mut seen: HashMap<u16, usize> = HashMap::new();
        for d in &got {
            *seen.entry(d.to).or_default() += 1;
            ok &= mode == Mode::Serialization || d.operands.first() == Some(&expected);
        }
        ok &= seen.len() == ids.len() && seen.values().all(|&n| n == 1);
    }
    let per_link = contexts.div_ceil(masters.max(1)) as Ps;
    let result = TwoMasterResult {
        mode: Some(mode),
        contexts,
        masters,
        max_frames_per_isl: max_isl,
        distribution_ps: last - first,
        seed_ps: per_link * 33_000,
        all_reduce_ps: all_reduce,
        results_ok: (mode == Mode::Realistic).then_some(ok),
    };
    (result, capture.then_some(f))
}

/// Latency versus end nodes: flattened butterflies of `switches` x 32 end nodes, both arrangements, in
/// `mode` (realistic monolithic runs only where its PBV fits the engine).
pub fn scaling(mode: Mode, switches: &[usize], hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> Vec<RunResult> {
    let mut out = Vec::new();
    for &n in switches {
        for a in [Arrangement::Monolithic, Arrangement::Distributed] {
            out.push(run_collective(&table1_spec(n, 32, a, mode, hop_latency_ps), progress).0);
        }
    }
    out
}
