//! Scenarios: the runs `inswitch sim` knows by name (Table 1 of seed 000 in both modes, the two-master
//! case of \[0150\]-\[0153\], FIG. 7, FIG. 3's two contexts with different masters of \[0148\]) and the JSON
//! scenario file (`docs/fabric.md` §Scenario files).
//!
//! Every collective run goes through the same phases on one [`Fabric`]: configuration (engines through
//! their ports, as [`Fabric::configure`]), the command (CONTROL START from the source to the master,
//! replicated down), the responses (every participant answers at the same instant, as Table 1 assumes),
//! and the result distributed back down. Metrics come from the delivery log.

use std::collections::HashMap;
use std::time::Instant;

use inswitch_frames::collective::NO_PARTICIPANT;

use crate::drive;
use crate::manager::{JobSpec, NodeId, SwitchId};
use crate::setup::{self, Arrangement, ContextPlan, Plan};
use crate::sim::{ChannelKind, EngineKind, Fabric, NominalSizes, SimConfig, SimError, ENGINE_CLOCK_PS};
use crate::topology::{LinkSpec, Ps, Topology, FIG3_BOARD_SHIFT, GEN6_X2_BYTES_PER_S};

/// Table 1's frame sizes (\[0099\], Table 1): a 32-byte command, 1056-byte responses (1 KiB payload plus
/// header), and the result distributed with the same 1 KiB payload.
pub const TABLE1_SIZES: NominalSizes = NominalSizes { command: 32, response: 1056, result: 1056 };
/// INT_SUM (`docs/reduction.md`): the realistic runs sum the participants' values and check the result.
pub const INT_SUM: u8 = 0x14;
/// Seed 000 Table 1 figures, ps: forward a 32-byte command (monolithic, distributed), receive 1056-byte
/// responses (monolithic, distributed).
pub const SEED_TABLE1: [(&str, f64, f64); 3] = [
    ("frames per ISL from the master's switch", 32.0, 1.0),
    ("forward a 32-byte command to all endpoints (ns)", 2_000.0, 126.0),
    ("receive 1056-byte responses from all endpoints (ns)", 67_500.0, 4_160.0),
];

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

fn cycle_after(t: Ps) -> Ps {
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
        _ => f.configure(&Plan { contexts: vec![ctx.clone()] }, 0, &value_of),
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
    let mut out = vec![];
    let mut inn = vec![];
    for (i, &(a, b, _)) in f.routes.directed.iter().enumerate() {
        let n = f.channels[f.isl_channel(i)].frames;
        if a == s {
            out.push(n);
        }
        if b == s {
            inn.push(n);
        }
    }
    (out, inn)
}

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
            engine_params: inswitch_model::packet_engine::EngineParams { descriptors: 16, ..Default::default() },
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
    f.configure(&Plan { contexts: ctxs.clone() }, 0, &value_of).expect("the plan fits the engines");
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let masters_at: Vec<usize> = (0..masters.max(1)).map(master_of).collect();
    let isl_out = |f: &Fabric| -> Vec<u64> {
        f.routes.directed.iter().enumerate().filter(|(_, d)| masters_at.contains(&d.0)).map(|(i, _)| f.channels[f.isl_channel(i)].frames).collect()
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

/// Frames each kind of channel carried (for the summary).
pub fn channel_summary(f: &Fabric) -> Vec<(&'static str, u64)> {
    let mut v = vec![("end-node links", 0), ("ISLs", 0), ("engine ports", 0)];
    for c in &f.channels {
        let k = match c.kind {
            ChannelKind::Up(_) | ChannelKind::Down(_) => 0,
            ChannelKind::Isl(_) => 1,
            ChannelKind::ToEngine(_) | ChannelKind::FromEngine(_) => 2,
        };
        v[k].1 += c.frames;
    }
    v
}

/// A topology named on the command line or in a scenario file: `fig3`, `fig7`, `fbfly:<switches>x<end nodes>`,
/// `fattree:<radix>`, or `file:<path>` (either topology file format, `docs/fabric.md` §Topology files:
/// the line format or the manager's JSON, [`drive::load_topology`]). Built-in links are PCIe Gen 6 x2.
pub fn topology_from(spec: &str) -> Result<Topology, String> {
    let link = LinkSpec::default();
    let bad = || format!("topology {spec:?}: expected fig3, fig7, fbfly:<switches>x<end nodes>, fattree:<radix> or file:<path>");
    match spec {
        "fig3" => return Ok(Topology::fig3(link)),
        "fig7" => return Ok(Topology::fig7(link)),
        _ => {}
    }
    let (kind, arg) = spec.split_once(':').ok_or_else(bad)?;
    match kind {
        "fbfly" => {
            let (a, b) = arg.split_once('x').ok_or_else(bad)?;
            let (a, b) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
            Topology::flattened_butterfly(a, b, link).map_err(|e| e.to_string())
        }
        "fattree" => Topology::fat_tree(arg.parse().map_err(|_| bad())?, link).map_err(|e| e.to_string()),
        "file" => {
            let text = std::fs::read_to_string(arg).map_err(|e| format!("{arg}: {e}"))?;
            drive::load_topology(&text).map(|(t, _)| t).map_err(|e| format!("{arg}: {e}"))
        }
        _ => Err(bad()),
    }
}

/// A scenario file (JSON, `docs/fabric.md` §Scenario files): one all-reduce on any topology.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Topology (see [`topology_from`]).
    pub topology: String,
    /// `monolithic` or `distributed` (default).
    #[serde(default = "distributed")]
    pub arrangement: Arrangement,
    /// `serialization` or `realistic` (default).
    #[serde(default = "realistic")]
    pub mode: Mode,
    /// Crossbar latency per hop, ns (realistic mode; default 100).
    pub hop_latency_ns: Option<f64>,
    /// Serialize real frame lengths instead of Table 1's sizes (realistic mode).
    #[serde(default)]
    pub real_frames: bool,
    /// Source end node (index in the topology's end-node list; default 0).
    #[serde(default)]
    pub source: usize,
    /// Master switch (default: the source's switch).
    pub master: Option<usize>,
}

fn distributed() -> Arrangement {
    Arrangement::Distributed
}

fn realistic() -> Mode {
    Mode::Realistic
}

impl ScenarioFile {
    /// The run it describes.
    pub fn spec(&self) -> Result<RunSpec, String> {
        let topology = topology_from(&self.topology)?;
        let src = topology.endpoints.get(self.source).ok_or_else(|| format!("source end node {} does not exist", self.source))?;
        let master = self.master.unwrap_or(src.switch);
        if master >= topology.switches.len() {
            return Err(format!("master switch {master} does not exist"));
        }
        Ok(RunSpec {
            topology_name: topology.name.clone(),
            topology,
            arrangement: self.arrangement,
            mode: self.mode,
            hop_latency_ps: self.hop_latency_ns.map_or(DEFAULT_HOP_LATENCY_PS, |n| (n * 1000.0).round() as Ps),
            source: self.source,
            master,
            skip_idle: true,
            capture: false,
            real_frames: self.real_frames,
        })
    }
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
        let job = f.place_portals(&mut m, spec, 0).map_err(|e| e.to_string())?;
        crate::faults::campaign::set_timeouts(&mut f, ENGINE_TIMEOUT_TICKS);
        f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
        for &e in &job.leaves {
            let values: VecDeque<_> = (0..ROUNDS).map(|r| Some(value(r, e))).collect();
            f.portals_leaf(e, job.dfa, Leaf { vni: VNI, cookie: COOKIE, op: INT_SUM, compute: COMPUTE, values });
        }
        let root = Root { vni: VNI, cookie: COOKIE, op: INT_SUM, first_seqno: FIRST_SEQNO, expected: job.leaves.len() as u32, rounds: ROUNDS, timeout: ROOT_TIMEOUT, own: VecDeque::new(), twins: Vec::new(), await_all: false };
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

/// One context of FIG. 3 as 000 \[0148\] sets it up, by the figure's reference numerals: the end node that
/// starts it, the switch whose engine it names as master, and the participating end nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fig3ContextSpec {
    /// The seed's name of the context.
    pub name: &'static str,
    /// Source node.
    pub source: &'static str,
    /// Switch of the master engine.
    pub master: &'static str,
    /// Participating end nodes.
    pub participants: &'static [&'static str],
}

/// The two contexts of 000 \[0148\] on [`Topology::fig3`]:
///
/// * N: source node 316 names collective engine 312 (master switch 306) as master; participants: the
///   local nodes of board 302 except 328 (\[0148\]) and except the source, the initiator, which is sent no
///   frame (\[0150\]): 318 and 326. Both switches of board 302 are engines of the context (306 the
///   master, 308 for 326). \[0150\] also says 318 is not a participant of N, against \[0148\]'s "all ...
///   except local node 328"; this project follows \[0148\], so that 318 is in N and the source of M at
///   once.
/// * M: local node 318 names collective engine 336 (remote switch 330) as master; participants: the end
///   nodes of board 304 (340, 342, 350, 352), engines 330 (master) and 332.
pub const FIG3_CONTEXTS: [Fig3ContextSpec; 2] = [
    Fig3ContextSpec { name: "N", source: "316", master: "306", participants: &["318", "326"] },
    Fig3ContextSpec { name: "M", source: "318", master: "330", participants: &["340", "342", "350", "352"] },
];

/// \[0153\]'s alternative: context M's master is not collective engine 336 but the engine local to its
/// source, 312 (switch 306), which then serves both contexts.
pub const FIG3_CONTEXTS_ONE_MASTER: [Fig3ContextSpec; 2] =
    [FIG3_CONTEXTS[0], Fig3ContextSpec { name: "M", source: "318", master: "306", participants: &["340", "342", "350", "352"] }];

/// What one context of the FIG. 3 scenario got.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fig3Context {
    /// How it was set up.
    pub spec: Fig3ContextSpec,
    /// Its CC_ID (the manager's key; the two contexts share no engine, so both may get the same one).
    pub cc_id: u16,
    /// Names of the switches whose engines the manager put in the context, the master first.
    pub engines: Vec<String>,
    /// INT_SUM of the participants' values.
    pub expected_value: u64,
    /// Lane 0 of the final result the master sent the source (its upstream copy, P_ID 0xFFFF).
    pub source_result: Option<u64>,
    /// Every participant got exactly one result, from its own switch's engine, equal to `expected_value`,
    /// and the source got exactly one upstream copy.
    pub ok: bool,
    /// From the initiating frame leaving the source to the source holding the final result, ps.
    pub latency_ps: Ps,
    /// Collective frames of this context per link direction during the collective (channel name,
    /// frames), for the links it used, in the fabric's channel order.
    pub link_frames: Vec<(String, u64)>,
}

/// The FIG. 3 scenario (`inswitch sim --scenario fig3`, [`run_fig3`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Fig3Run {
    /// Topology.
    pub topology: String,
    /// Why the run could not be done.
    pub error: Option<String>,
    /// N, then M.
    pub contexts: Vec<Fig3Context>,
    /// Collective frames on the links during the collective that belong to neither context.
    pub unattributed: u64,
    /// Frames of the configuration (both plans) that crossed between the boards.
    pub config_frames_between_boards: u64,
    /// When both sources sent their initiating frames, ps.
    pub started_at: Ps,
    /// Index of the fabric's first capture of the collective phase (after the configuration).
    pub first_collective_capture: usize,
    /// Per switch: name, frames into its engine and out of it during the collective (both contexts).
    pub engine_frames: Vec<(String, u64, u64)>,
}

impl Fig3Run {
    /// Both contexts right.
    pub fn ok(&self) -> bool {
        self.error.is_none() && !self.contexts.is_empty() && self.contexts.iter().all(|c| c.ok) && self.unattributed == 0
    }

    /// The summary `inswitch sim --scenario fig3` prints.
    pub fn text(&self) -> String {
        let names: Vec<&str> = self.contexts.iter().map(|c| c.spec.name).collect();
        let masters: Vec<&str> = self.contexts.iter().map(|c| c.spec.master).collect();
        let mut s = format!("fig3: INT_SUM all-reduces {} at once, master engines in {}, placed by the collective manager, cycle engines\n", names.join(" and "), masters.join(" and "));
        if let Some(e) = &self.error {
            return s + &format!("  not run: {e}\n");
        }
        for c in &self.contexts {
            let result = c.source_result.map_or("none".to_string(), |v| v.to_string());
            s += &format!(
                "  context {} (CC_ID {}): source {}, master engine in {}, engines {}, participants {}: result {result} at the source (expected {}), {:.1} ns from the initiating frame to the result at the source: {}\n",
                c.spec.name,
                c.cc_id,
                c.spec.source,
                c.spec.master,
                c.engines.join(" "),
                c.spec.participants.join(" "),
                c.expected_value,
                c.latency_ps as f64 / 1e3,
                if c.ok { "ok" } else { "WRONG" }
            );
        }
        s += "  collective frames per link direction (seed [0151]: 2 away from the master, 1 towards it):\n";
        for c in &self.contexts {
            let links: Vec<String> = c.link_frames.iter().map(|(n, k)| format!("{n} {k}")).collect();
            s += &format!("    {}: {}\n", c.spec.name, links.join(", "));
        }
        let engines: Vec<String> = self.engine_frames.iter().map(|(n, i, o)| format!("{n} {i} in / {o} out")).collect();
        s += &format!("  frames through each engine's port: {}\n", engines.join(", "));
        s + &format!(
            "  frames of neither context: {}; configuration frames between the boards (the sources' plans): {}\n",
            self.unattributed, self.config_frames_between_boards
        )
    }
}

/// A channel's name for reports: `316->306` (an end node's link up), `306->316`, `306->330` (an ISL),
/// `306->engine`, `engine->306`.
pub fn channel_name(f: &Fabric, c: usize) -> String {
    let sw = |s: usize| f.topo.switches[s].name.clone();
    let ep = |e: usize| &f.topo.endpoints[e];
    match f.channels[c].kind {
        ChannelKind::Up(e) => format!("{}->{}", ep(e).name, sw(ep(e).switch)),
        ChannelKind::Down(e) => format!("{}->{}", sw(ep(e).switch), ep(e).name),
        ChannelKind::Isl(i) => {
            let (a, b, _) = f.routes.directed[i];
            format!("{}->{}", sw(a), sw(b))
        }
        ChannelKind::ToEngine(s) => format!("{}->engine", sw(s)),
        ChannelKind::FromEngine(s) => format!("engine->{}", sw(s)),
    }
}

/// Collective frames per context and link channel (end-node links and ISLs, not engine ports) among the
/// captures from `from_capture` on. A frame belongs to the context one of whose engines sent it or is
/// its destination (every collective message has an engine at one end); `None` collects the rest.
pub fn link_frames_by_context(f: &Fabric, from_capture: usize, ctxs: &[ContextPlan]) -> (Vec<std::collections::BTreeMap<usize, u64>>, u64) {
    let engines: Vec<Vec<u16>> = ctxs.iter().map(|c| c.engines.iter().map(|e| f.topo.switches[e.switch].engine_id).collect()).collect();
    let mut per = vec![std::collections::BTreeMap::new(); ctxs.len()];
    let mut rest = 0;
    for cap in &f.captured[from_capture..] {
        if matches!(f.channels[cap.channel].kind, ChannelKind::ToEngine(_) | ChannelKind::FromEngine(_)) {
            continue;
        }
        let bytes = &f.frames[cap.frame as usize].bytes;
        let Some(m) = crate::wire::collective_of(bytes) else { continue };
        let ends = [crate::wire::requester(bytes), crate::wire::destination(bytes)];
        let owner = (0..ctxs.len()).find(|&k| ctxs[k].cc_id == m.header.cc_id && ends.iter().any(|d| d.is_some_and(|d| engines[k].contains(&d))));
        match owner {
            Some(k) => *per[k].entry(cap.channel).or_insert(0) += 1,
            None => rest += 1,
        }
    }
    (per, rest)
}

/// FIG. 3 with the two contexts of 000 \[0148\] ([`FIG3_CONTEXTS`]): [`run_fig3_contexts`].
pub fn run_fig3(hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> (Fig3Run, Option<Fabric>) {
    run_fig3_contexts(&FIG3_CONTEXTS, hop_latency_ps, progress)
}

/// FIG. 3 with the contexts `contexts` (\[0148\]: [`FIG3_CONTEXTS`]; \[0153\]: [`FIG3_CONTEXTS_ONE_MASTER`]), run at the same time: the collective
/// manager places each (the master named by its source, [`JobSpec::master`]) and its plan configures the
/// cycle engines from that source; both sources then send their initiating frame (CONTROL START) at the
/// same instant, every participant answers as soon as the command arrives, and the engines reduce
/// (INT_SUM of `value_of`) and return the results. Real frame lengths, `hop_latency_ps` per hop, every
/// frame captured. Returns the fabric too (for tests and pcap).
pub fn run_fig3_contexts(contexts: &[Fig3ContextSpec], hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> (Fig3Run, Option<Fabric>) {
    let topology = Topology::fig3(LinkSpec::default());
    let mut out = Fig3Run { topology: topology.name.clone(), ..Fig3Run::default() };
    let limit = Ps::MAX / 4;
    let mut setup = || -> Result<(Fabric, Vec<ContextPlan>, usize), String> {
        let index = |name: &str, found: Option<usize>| found.ok_or_else(|| format!("FIG. 3 has no {name}"));
        let mut f = Fabric::new(topology.clone(), SimConfig { hop_latency_ps, capture: true, ..SimConfig::default() }).map_err(|e| e.to_string())?;
        let mut m = drive::manager_for(&topology).map_err(|e| e.to_string())?;
        let first = contexts.first().ok_or("no context")?;
        let first_source = index(first.source, topology.endpoint_named(first.source))?;
        f.bring_up(first_source, 0);
        f.run_until_quiet(limit, progress);
        let configured = f.captured.len();
        let mut ctxs = Vec::new();
        for c in contexts {
            let source = index(c.source, topology.endpoint_named(c.source))?;
            let master = index(c.master, topology.switch_named(c.master))?;
            let parts = c.participants.iter().map(|&p| index(p, topology.endpoint_named(p))).collect::<Result<Vec<_>, _>>()?;
            let spec = JobSpec { op: INT_SUM, master: Some(SwitchId(master as u32)), ..JobSpec::new(drive::node_ids(&parts), NodeId(source as u32)) };
            let at = f.now();
            let (_, _, ctx) = drive::place_and_apply(&mut f, &mut m, spec, at, &value_of).map_err(|e| format!("context {}: {e}", c.name))?;
            ctxs.push(ctx);
        }
        f.run_until_quiet(limit, progress);
        Ok((f, ctxs, configured))
    };
    let (mut f, ctxs, configured) = match setup() {
        Ok(x) => x,
        Err(e) => {
            out.error = Some(e);
            return (out, None);
        }
    };
    // ISLs 306-330, 306-332, 308-330, 308-332 join the boards; the board is in the device ID.
    let board = |s: usize| f.topo.switches[s].engine_id >> FIG3_BOARD_SHIFT;
    out.config_frames_between_boards = f.captured[configured..]
        .iter()
        .filter(|c| matches!(f.channels[c.channel].kind, ChannelKind::Isl(i) if board(f.routes.directed[i].0) != board(f.routes.directed[i].1)))
        .count() as u64;
    let cap0 = f.captured.len();
    let log0 = f.log.len();
    f.auto_respond(Some(0));
    let t = cycle_after(f.now());
    for c in &ctxs {
        f.start(c, t);
    }
    f.run_until_quiet(limit, progress);
    (out.started_at, out.first_collective_capture) = (t, cap0);
    let (per, rest) = link_frames_by_context(&f, cap0, &ctxs);
    out.unattributed = rest;
    let port_frames = |k: ChannelKind| f.captured[cap0..].iter().filter(|c| f.channels[c.channel].kind == k).count() as u64;
    out.engine_frames = (0..f.topo.switches.len()).map(|s| (f.topo.switches[s].name.clone(), port_frames(ChannelKind::ToEngine(s)), port_frames(ChannelKind::FromEngine(s)))).collect();
    for ((spec, c), links) in contexts.iter().zip(&ctxs).zip(per) {
        let master_id = f.topo.switches[c.master()].engine_id;
        let source_id = f.topo.endpoints[c.source].id;
        let results = |d: &&crate::sim::Delivery| d.kind == 6 && d.cc_id == c.cc_id;
        let expected = c.participants.iter().map(|&e| value_of(e)).fold(0u64, u64::wrapping_add);
        let mut ok = true;
        for &e in &c.participants {
            let ep = &f.topo.endpoints[e];
            let own = f.topo.switches[ep.switch].engine_id;
            let got: Vec<_> = f.log[log0..].iter().filter(results).filter(|d| d.to == ep.id && d.from == own && d.p_id != NO_PARTICIPANT).collect();
            ok &= got.len() == 1 && got[0].operands.first() == Some(&expected);
        }
        let upstream: Vec<_> = f.log[log0..].iter().filter(results).filter(|d| d.to == source_id && d.from == master_id && d.p_id == NO_PARTICIPANT).collect();
        ok &= upstream.len() == 1 && upstream[0].operands.first() == Some(&expected);
        out.contexts.push(Fig3Context {
            spec: *spec,
            cc_id: c.cc_id,
            engines: c.engines.iter().map(|e| f.topo.switches[e.switch].name.clone()).collect(),
            expected_value: expected,
            source_result: upstream.first().and_then(|d| d.operands.first().copied()),
            ok,
            latency_ps: upstream.first().map_or(0, |d| d.at - t),
            link_frames: links.into_iter().map(|(ch, n)| (channel_name(&f, ch), n)).collect(),
        });
    }
    (out, Some(f))
}
