//! One collective run ([`run_collective`]): configuration, command, responses, result, measured from
//! the delivery log; the parameters and results every scenario shares.

use std::collections::HashMap;
use std::time::Instant;

use crate::drive;
use crate::manager::{JobSpec, NodeId, SwitchId};
use crate::setup::{self, Arrangement, Plan};
use crate::sim::{ChannelKind, EngineKind, Fabric, NominalSizes, SimConfig, SimError, ENGINE_CLOCK_PS};
use crate::topology::{Ps, Topology};

/// Table 1's frame sizes (\[0099\], Table 1): a 32-byte command, 1056-byte responses (1 KiB payload plus
/// header), and the result distributed with the same 1 KiB payload.
pub const TABLE1_SIZES: NominalSizes = NominalSizes { command: 32, response: 1056, result: 1056 };
/// INT_SUM (`docs/blocks/reduce_unit.md`): the realistic runs sum the participants' values and check the result.
pub const INT_SUM: u8 = 0x14;

/// How the run is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Table 1's assumptions (\[0103\]): only the time to transmit frames, at the table's frame sizes;
    /// no switch latency, no engine processing time (the table-arithmetic stand-in).
    Serialization,
    /// The cycle-level engines in every switch, the real frames they make and take, a crossbar latency.
    Realistic,
}

/// Parameters of one collective run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunSpec {
    /// Topology.
    #[serde(skip)]
    pub topology: Topology,
    /// Topology name for reports.
    pub topology_name: String,
    /// Engines.
    pub arrangement: Arrangement,
    /// Timing.
    pub mode: Mode,
    /// Crossbar latency per hop (realistic mode), ps.
    pub hop_latency_ps: Ps,
    /// Source end node.
    pub source: usize,
    /// Master switch.
    pub master: usize,
    /// Skip idle engine cycles.
    pub skip_idle: bool,
    /// Keep frames for pcap.
    pub capture: bool,
    /// Serialize the frames' real lengths instead of Table 1's sizes (realistic mode only makes sense
    /// with it or without it; serialization mode always uses the table's sizes).
    pub real_frames: bool,
}

/// What one run measured.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RunResult {
    /// Engines.
    pub arrangement: Option<Arrangement>,
    /// Timing mode.
    pub mode: Option<Mode>,
    /// Topology.
    pub topology: String,
    /// Participants.
    pub participants: usize,
    /// Why the run could not be done (e.g. a PBV the engine cannot hold).
    pub error: Option<String>,
    /// Frames each ISL out of the master's switch carried during the command phase (min, max).
    pub frames_per_isl_from_master: (u64, u64),
    /// Frames on each ISL out of / into the master's switch over the whole collective (max).
    pub isl_frames_whole_collective: (u64, u64),
    /// Frames the master engine sent in the command phase (Table 1: 1023 monolithic; 31 to the
    /// subservient engines, plus, here, its own switch's participants, distributed).
    pub master_sent_command: usize,
    /// Most frames any subservient engine sent in the command phase (Table 1: 32).
    pub subservient_sent_command: usize,
    /// Frames the master engine received in the response phase (responses and partial results).
    pub master_received_responses: usize,
    /// From the command at the master engine to the last participant holding it, ps.
    pub command_to_all_ps: Ps,
    /// From the responses leaving the participants to the master engine holding the last one, ps.
    pub responses_from_all_ps: Ps,
    /// From the responses leaving the participants to the last participant holding the result, ps.
    pub result_to_all_ps: Ps,
    /// Every participant received the command exactly once.
    pub command_exactly_once: bool,
    /// Every participant received the result exactly once.
    pub result_exactly_once: bool,
    /// The result value (lane 0) every participant received, when the engines computed one.
    pub result_value: Option<u64>,
    /// The value expected (the INT_SUM of the participants' values).
    pub expected_value: Option<u64>,
    /// Engine cycles stepped / skipped.
    pub engine_steps: u64,
    /// Engine cycles skipped.
    pub engine_cycles_skipped: u64,
    /// Wakings that advanced a sleeping engine over its skipped cycles in closed form.
    pub idle_advances: u64,
    /// Frames sent.
    pub frames: usize,
    /// Wall-clock seconds.
    pub wall_s: f64,
}

/// The value participant `e` contributes.
pub fn value_of(e: usize) -> u64 {
    e as u64 + 1
}

/// Crossbar latency per hop in realistic mode unless told otherwise: an assumption (the seeds give no
/// switch latency; PCIe switches are commonly quoted at 100-150 ns cut-through).
pub const DEFAULT_HOP_LATENCY_PS: Ps = 100_000;

fn sim_config(spec: &RunSpec) -> SimConfig {
    let nominal = if spec.real_frames && spec.mode == Mode::Realistic { None } else { Some(TABLE1_SIZES) };
    let base = SimConfig { skip_idle: spec.skip_idle, capture: spec.capture, nominal, ..SimConfig::default() };
    match spec.mode {
        Mode::Serialization => SimConfig { engine: EngineKind::TableArithmetic, hop_latency_ps: 0, ..base },
        Mode::Realistic => SimConfig { engine: EngineKind::Cycle, hop_latency_ps: spec.hop_latency_ps, ..base },
    }
}

pub(super) fn cycle_after(t: Ps) -> Ps {
    t.div_ceil(ENGINE_CLOCK_PS) * ENGINE_CLOCK_PS + ENGINE_CLOCK_PS
}

/// Runs one collective (all-reduce INT_SUM) and measures it; the fabric is returned for pcap and tests.
pub fn run_collective(spec: &RunSpec, progress: &mut dyn FnMut(Ps)) -> (RunResult, Option<Fabric>) {
    let wall = Instant::now();
    // Managed: the manager places the job over every end node but the source and its plan configures
    // the cycle engines; the stand-in reads the same placement.
    let mut managed = None;
    let ctx = if spec.arrangement == Arrangement::Managed {
        let placed = drive::manager_for(&spec.topology).map_err(|e| e.to_string()).and_then(|mut m| {
            let parts = (0..spec.topology.endpoints.len()).filter(|&e| e != spec.source).collect::<Vec<_>>();
            let job = JobSpec { op: INT_SUM, master: Some(SwitchId(spec.master as u32)), ..JobSpec::new(drive::node_ids(&parts), NodeId(spec.source as u32)) };
            let (id, plan) = m.place(job).map_err(|e| format!("manager: {e}"))?;
            let ctx = drive::context_of(&m, id, 0).ok_or("the job has no tree")?;
            Ok((m, plan, ctx))
        });
        match placed {
            Ok((m, plan, ctx)) => {
                managed = Some((m, plan));
                ctx
            }
            Err(e) => return (RunResult { arrangement: Some(spec.arrangement), mode: Some(spec.mode), topology: spec.topology_name.clone(), error: Some(e), ..RunResult::default() }, None),
        }
    } else {
        setup::plan(&spec.topology, spec.arrangement, 1, INT_SUM, spec.source, spec.master)
    };
    let master = ctx.master();
    let mut r = RunResult {
        arrangement: Some(spec.arrangement),
        mode: Some(spec.mode),
        topology: spec.topology_name.clone(),
        participants: ctx.participants.len(),
        ..RunResult::default()
    };
    let fail = |mut r: RunResult, e: SimError| {
        r.error = Some(e.to_string());
        (r, None)
    };
    let mut f = match Fabric::new(spec.topology.clone(), sim_config(spec)) {
        Ok(f) => f,
        Err(e) => return fail(r, e),
    };
    let configured = match &managed {
        Some((m, plan)) if spec.mode == Mode::Realistic => {
            f.bring_up(spec.source, 0);
            drive::apply(&mut f, m, plan, spec.source, 0, &value_of).map(|_| ())
        }
        _ => drive::configure(&mut f, &Plan { contexts: vec![ctx.clone()] }, 0, &value_of),
    };
    if let Err(e) = configured {
        return fail(r, e);
    }
    let limit = Ps::MAX / 4;
    f.run_until_quiet(limit, progress);
    // Command.
    let before = isl_counts(&f, master);
    let log0 = f.log.len();
    let frames0 = f.frames.len();
    f.start(&ctx, cycle_after(f.now()));
    f.run_until_quiet(limit, progress);
    let after = isl_counts(&f, master);
    let master_id = spec.topology.switches[master].engine_id;
    let mut sent: HashMap<u16, usize> = HashMap::new();
    for fr in &f.frames[frames0..] {
        *sent.entry(fr.origin).or_default() += 1;
    }
    r.master_sent_command = sent.get(&master_id).copied().unwrap_or(0);
    r.subservient_sent_command =
        ctx.engines.iter().filter(|e| e.switch != master).map(|e| sent.get(&spec.topology.switches[e.switch].engine_id).copied().unwrap_or(0)).max().unwrap_or(0);
    let during: Vec<u64> = after.0.iter().zip(&before.0).map(|(a, b)| a - b).collect();
    r.frames_per_isl_from_master = (during.iter().copied().min().unwrap_or(0), during.iter().copied().max().unwrap_or(0));
    let t0 = f.log[log0..].iter().find(|d| d.to == master_id && d.kind == 3).map(|d| d.at);
    let ids: HashMap<u16, usize> = ctx.participants.iter().map(|&e| (spec.topology.endpoints[e].id, e)).collect();
    let mut got: HashMap<u16, (usize, Ps)> = HashMap::new();
    for d in f.log[log0..].iter().filter(|d| d.kind == 3 && ids.contains_key(&d.to)) {
        let g = got.entry(d.to).or_default();
        g.0 += 1;
        g.1 = g.1.max(d.at);
    }
    r.command_exactly_once = got.len() == ids.len() && got.values().all(|g| g.0 == 1);
    if let Some(t0) = t0 {
        r.command_to_all_ps = got.values().map(|g| g.1).max().unwrap_or(t0) - t0;
    }
    // Responses, all at once, then the result.
    let log1 = f.log.len();
    let t_resp = cycle_after(f.now());
    f.respond_all(ctx.cc_id, t_resp);
    f.run_until_quiet(limit, progress);
    let last_in = f.log[log1..].iter().filter(|d| d.to == master_id && matches!(d.kind, 4 | 5)).map(|d| d.at).max();
    r.responses_from_all_ps = last_in.map_or(0, |t| t - t_resp);
    r.master_received_responses = f.log[log1..].iter().filter(|d| d.to == master_id && matches!(d.kind, 4 | 5)).count();
    let mut res: HashMap<u16, (usize, Ps, Option<u64>)> = HashMap::new();
    for d in f.log[log1..].iter().filter(|d| d.kind == 6 && ids.contains_key(&d.to)) {
        let g = res.entry(d.to).or_insert((0, 0, None));
        g.0 += 1;
        g.1 = g.1.max(d.at);
        g.2 = d.operands.first().copied();
    }
    r.result_exactly_once = res.len() == ids.len() && res.values().all(|g| g.0 == 1);
    r.result_to_all_ps = res.values().map(|g| g.1).max().map_or(0, |t| t - t_resp);
    if spec.mode == Mode::Realistic {
        r.expected_value = Some(ctx.participants.iter().map(|&e| value_of(e)).fold(0u64, u64::wrapping_add));
        let vals: Vec<Option<u64>> = res.values().map(|g| g.2).collect();
        r.result_value = if !vals.is_empty() && vals.iter().all(|v| *v == vals[0]) { vals[0] } else { None };
    }
    let whole = isl_counts(&f, master);
    r.isl_frames_whole_collective = (
        whole.0.iter().zip(&before.0).map(|(a, b)| a - b).max().unwrap_or(0),
        whole.1.iter().zip(&before.1).map(|(a, b)| a - b).max().unwrap_or(0),
    );
    r.engine_steps = f.stats.engine_steps;
    r.engine_cycles_skipped = f.stats.engine_cycles_skipped;
    r.idle_advances = f.stats.idle_advances;
    r.frames = f.frames.len();
    r.wall_s = wall.elapsed().as_secs_f64();
    (r, Some(f))
}

/// Frames so far on each directed ISL out of (`.0`) and into (`.1`) switch `s`.
fn isl_counts(f: &Fabric, s: usize) -> (Vec<u64>, Vec<u64>) {
    // Only the switch's own ISLs (a scan of every directed ISL grew with the square of the switches).
    let (out, inn) = f.routes.isls_at(s);
    let frames = |v: Vec<usize>| v.into_iter().map(|i| f.channel(f.isl_channel(i)).frames).collect();
    (frames(out), frames(inn))
}

/// Frames each kind of channel carried (for the summary).
pub fn channel_summary(f: &Fabric) -> Vec<(&'static str, u64)> {
    let mut v = vec![("end-node links", 0), ("ISLs", 0), ("engine ports", 0)];
    for c in f.channels() {
        let k = match c.kind {
            ChannelKind::Up(_) | ChannelKind::Down(_) => 0,
            ChannelKind::Isl(_) => 1,
            ChannelKind::ToEngine(_) | ChannelKind::FromEngine(_) => 2,
        };
        v[k].1 += c.frames;
    }
    v
}
