//! The fabric simulator: a discrete-event simulation in picoseconds of links, switch crossbars and end
//! nodes, with the cycle-level packet-engine model ([`PacketEngine`], the same model the lockstep cosim
//! checks against the RTL) in every switch, stepped on its own clock.
//!
//! * **Links** serialize frames at their bandwidth, one after another in arrival order (a FIFO per
//!   direction), then add their propagation delay. Switches are **cut-through**: a frame starts on the
//!   next link as soon as its head has crossed the switch (plus the per-hop latency) and that link is
//!   free, and cannot end before its tail has arrived. Buffers are unbounded (no credit stalls between
//!   switches; `docs/fabric.md` §Limits).
//! * **Engines** sit on an internal crossbar port (\[0089\], \[0113\]): frames routed to an engine's device ID
//!   cross the port (serialized at its bandwidth) into the engine's `s_axis_rx` as 256-bit beats, one per
//!   engine clock cycle from the cycle after the first beat has arrived; the engine's `m_axis_vl`
//!   beats are reassembled into frames and routed by the crossbar when their last beat is out.
//! * **Idle-cycle skipping** (`SimConfig::skip_idle`): an engine is only stepped while it has work,
//!   and a cycle visits only the awake engines (a sorted list), so a cycle costs the engines that work
//!   in it, not the fabric's size. An engine is set aside when it is *idle*: nothing to receive, no
//!   output or event for [`QUIET_CYCLES`], the CPU's sequencer idle and no CPU timer expired on a valid descriptor. Its only
//!   changing state is then the CPU's timer prescaler and running timers (`Descriptor::timer_runs`).
//!   With no timer running it sleeps until a frame arrives; with timers running (a context waiting for
//!   contributions) it also gets a wake-up event at the cycle whose tick expires the first one
//!   (`Cpu::cycles_to_expiry`), which is stepped. On waking, the model puts it in exactly the state the
//!   skipped cycles would have (`PacketEngine::advance_idle`, which checks that the engine is idle and
//!   that no timer expires in the skipped cycles, and advances prescaler and timers in closed form).
//!   The tests `skip_is_exact_*` compare every frame and its timing with and without skipping.
//!
//! The **table-arithmetic stand-in** ([`EngineKind::TableArithmetic`]) replaces the engines only for
//! the serialization-only reproduction of Table 1 (zero processing time, the fan-out of the roles, the
//! table's frame sizes); its traffic is checked against the cycle engines' in `tests/`.

use std::collections::{BTreeMap, HashMap, VecDeque};

use inswitch_frames::collective::{Body, CollectiveMessage, NO_PARTICIPANT};
use inswitch_model::cpu::seq;
use inswitch_model::packet_engine::{EngineIn, EngineOut, EngineParams, PacketEngine};
use inswitch_model::{Block, Wide};

use crate::faults::{self, Fault, FaultInjector, FaultKind, Verdict};
use crate::setup::{ContextPlan, Plan, Role};
use crate::topology::{Device, LinkSpec, Ps, Routes, Topology, TopologyError};
use crate::wire;

pub mod portals;

/// The engine clock: one 256-bit beat per cycle at 500 MHz is 16 GB/s, the rate of the PCIe Gen 6 x2
/// port the engine sits on (Table 1), so the engine keeps up with its port.
pub const ENGINE_CLOCK_PS: Ps = 2_000;
/// Bytes per beat of the engine's 256-bit data path.
pub const BEAT_BYTES: usize = 32;
/// Reset cycles at power-on (as the cosim's directed tests).
pub const RESET_CYCLES: u64 = 3;
/// The CPU timeouts the fabric's engines run with, written at bring-up as register writes into
/// `RED_TIMEOUT[k]` / `RED_THRESHOLD[k]`, which the register space forwards to the CPU's `TIMEOUT[k]` /
/// `THRESHOLD[k]` (`docs/registers.md` §CPU window): the CPU's own reset values (`docs/cpu.md` §5: every
/// TIMEOUT 1024 ticks, every context on `TIMEOUT[0]`), which the fabric's scenarios and Table 1 figures
/// were measured with. The register space's reset RED_TIMEOUT / RED_THRESHOLD (1, 0x10, 0x100, 0x1000
/// ticks by wait count), which its post-reset copy gives the CPU, would time out a context waiting one
/// tick. Register offset and value per write.
pub fn bring_up_timeouts() -> impl Iterator<Item = (u16, u32)> {
    use inswitch_model::cpu::config::{THRESHOLD_RESET, TIMEOUT_RESET};
    use inswitch_model::cpu::context::{THRESHOLDS, TIMEOUTS};
    use inswitch_model::register_space::offset::{RED_THRESHOLD, RED_TIMEOUT};
    let at = |base: u32, k: usize| (base + 4 * k as u32) as u16;
    (0..TIMEOUTS).map(move |k| (at(RED_TIMEOUT, k), TIMEOUT_RESET)).chain((0..THRESHOLDS).map(move |k| (at(RED_THRESHOLD, k), THRESHOLD_RESET)))
}
/// Cycles without any input, output or event after which an engine with an idle sequencer and no
/// running timer is quiescent. Longer than the engine's deepest pipeline (35 cycles from the last
/// contribution to the first completion beat, `docs/blocks/packet_engine.md` §Timing).
pub const QUIET_CYCLES: u64 = 64;
/// The output-queue port number of the engine's own port (strap `cfg_port`): the default route sends
/// every engine frame to it, i.e. back into the crossbar through the injection path.
pub const ENGINE_PORT: u8 = 0;

/// Route entry 0 of the output queue as two register writes (`docs/registers.md` ROUTE): destination 0
/// under mask 0 (matches every ID), then valid | the engine's own port [`ENGINE_PORT`].
const DEFAULT_ROUTE: [(u16, u32); 2] =
    [(inswitch_model::register_space::offset::ROUTE as u16, 0), (inswitch_model::register_space::offset::ROUTE as u16 + 4, 1 << 31 | ENGINE_PORT as u32)];

/// Which engine implementation the switches hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum EngineKind {
    /// The cycle-level packet-engine model.
    Cycle,
    /// Zero-time fan-out by role, for the serialization-only Table 1 arithmetic.
    TableArithmetic,
}

/// Frame sizes used for serialization instead of the real frame lengths (Table 1's assumptions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NominalSizes {
    /// INITIALIZATION / CONTROL ("a 32-byte collective command", \[0099\]).
    pub command: u32,
    /// CONTRIBUTION / RESPONSE ("1 KiB payload (1056 bytes) collective responses").
    pub response: u32,
    /// COMPLETION (the result distributed down; \[0099\]: the same 1 KiB).
    pub result: u32,
}

/// Simulator parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SimConfig {
    /// Crossbar latency added at every switch a frame enters, ps.
    pub hop_latency_ps: Ps,
    /// Engines.
    pub engine: EngineKind,
    /// Serialize with these sizes instead of the real frame lengths.
    pub nominal: Option<NominalSizes>,
    /// Skip idle engine cycles (exact, see the module doc).
    pub skip_idle: bool,
    /// Engine parameters (cycle engines).
    #[serde(skip)]
    pub engine_params: EngineParams,
    /// Keep every frame on every link for pcap output.
    pub capture: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { hop_latency_ps: 0, engine: EngineKind::Cycle, nominal: None, skip_idle: true, engine_params: EngineParams::default(), capture: false }
    }
}

/// What a channel joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelKind {
    /// End node → its switch.
    Up(usize),
    /// Switch → end node.
    Down(usize),
    /// Directed ISL `i` (`Routes::directed`).
    Isl(usize),
    /// Crossbar → engine of switch `s`.
    ToEngine(usize),
    /// Engine of switch `s` → crossbar (serializes the stand-in's frames; cycle engines emit at port rate
    /// themselves).
    FromEngine(usize),
}

/// One direction of a link.
#[derive(Clone, Debug)]
pub struct Channel {
    /// What it joins.
    pub kind: ChannelKind,
    /// Bandwidth and delay.
    pub link: LinkSpec,
    free_at: Ps,
    /// Frames carried.
    pub frames: u64,
    /// Bytes carried (serialized sizes).
    pub bytes: u64,
}

/// A frame on the fabric.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The framed TLP.
    pub bytes: Vec<u8>,
    /// Length used for serialization.
    pub wire_len: u32,
    /// Destination device ID.
    pub dst: u16,
    /// Device that sent it.
    pub origin: u16,
    /// The channel it entered last (a switch's ingress port for the Portals multicast, [`portals`]).
    pub via: Option<usize>,
}

/// A captured frame on a channel (pcap).
#[derive(Clone, Debug)]
pub struct Captured {
    /// Time its head entered the channel.
    pub start: Ps,
    /// Channel index.
    pub channel: usize,
    /// Frame index.
    pub frame: u32,
}

/// A collective message delivered somewhere (the log the metrics are computed from).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Time the tail arrived.
    pub at: Ps,
    /// Device ID of the receiver.
    pub to: u16,
    /// Device ID of the sender (requester ID).
    pub from: u16,
    /// Message kind.
    pub kind: u8,
    /// CC_ID.
    pub cc_id: u16,
    /// P_ID (the participant's PBV bit in the sender's table; 0xFFFF: none).
    pub p_id: u16,
    /// Completion code (COMPLETION) or command (CONTROL).
    pub code: u8,
    /// Operands (data messages).
    pub operands: Vec<u64>,
    /// Contributions included (data messages).
    pub contributions: u16,
    /// Error mark (a partial result after a timeout, or a result after the master's timeout, \[0242\]).
    pub error: bool,
    /// Transaction ID (001, header byte 1 bits 4:3).
    pub tid: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// Head of frame `f` enters switch `sw` at `head` (tail at `tail`); processed at `head`, or later
    /// for an engine's frame, which is known only when its last beat is out.
    AtSwitch { f: u32, sw: u32, head: Ps, tail: Ps },
    /// First beat of frame `f` complete at engine `sw`'s receive port (cycle engines); its tail at `tail`.
    ToEngine { f: u32, sw: u32, tail: Ps },
    /// Tail of frame `f` at the stand-in engine of `sw`.
    ToStandIn { f: u32, sw: u32 },
    /// Tail of frame `f` at end node `e`.
    ToEndpoint { f: u32, e: u32 },
    /// End node `e` sends frame `f`.
    Send { f: u32, e: u32 },
    /// End node `e`'s retry timer for context `cc` (a contribution not answered yet).
    Retry { e: u32, cc: u16 },
    /// The Portals root end node `e`'s timer for round `seqno` of tree `dfa` ([`portals`]).
    PortalsRoot { e: u32, dfa: u32, seqno: u16 },
    /// The engine of switch `sw`, asleep with a running CPU timer, wakes in `cycle`, the cycle whose
    /// tick expires the timer (ignored if it woke earlier).
    Wake { sw: u32, cycle: u64 },
}

/// An end node's behaviour in a context.
#[derive(Clone, Debug, Default)]
struct EndCtx {
    operation: u8,
    operands: Vec<u64>,
    /// Whom to answer (the requester of the command), with which P_ID and TID (the START's: 001, the
    /// engine compares it with the context's).
    answer: Option<(u16, u16, u8)>,
    /// The contribution sent and not answered yet (a COMPLETION or FAILURE ends it): where to, P_ID, TID
    /// and the operands it carried (a retry resends the same).
    pending: Option<(u16, u16, u8, Vec<u64>)>,
    /// Retransmissions of the pending contribution.
    attempts: u8,
    /// Node-level pre-reduction (003 \[0055\]): the other end nodes of this representative's host whose
    /// operands (their own contexts' `operands`) it reduces with its own before it contributes.
    group: Vec<usize>,
}

/// A target of several roots (003 \[0062\]): it collects each root's end result (the COMPLETION with
/// the result its root's master sends to its upstream) and reduces them into the job's result.
#[derive(Clone, Debug, Default)]
struct TargetCtx {
    operation: u8,
    /// Each root tree: (root engine's device ID, CC_ID, its end result once it arrived).
    roots: Vec<(u16, u16, Option<Vec<u64>>)>,
    /// The reduction of every root's end result, and when the last one arrived.
    result: Option<(Ps, Vec<u64>)>,
}

#[derive(Clone, Debug, Default)]
struct EndNode {
    ctx: HashMap<u16, EndCtx>,
    /// Respond as soon as the command arrives (after `compute`) instead of on [`Fabric::respond_all`].
    auto: Option<Ps>,
    /// Resend an unanswered contribution after this long, at most this many times (001: a participant
    /// that missed the Exit contributes again and is answered "already completed").
    retry: Option<(Ps, u8)>,
    /// Targets of several roots this end node is (`Action::Target`).
    targets: Vec<TargetCtx>,
}

/// Latency of the host-local transfer of pre-reduction (003 \[0055\]): a non-representative's operands
/// reach its representative over the host's memory, not the fabric. Modelled as one in-host step of
/// 1 µs (a PCIe peer-to-peer or shared-memory copy of a 32-byte operand block plus its notification),
/// added to the representative's contribution time; the fabric carries no frame for it.
pub const HOST_LOCAL_PS: Ps = 1_000_000;

/// Reduces `items` (operand lanes) with opcode `operation` as the engines' reduction unit does
/// (`inswitch_model::reduce::combine`, associative mode), left to right; empty lanes count as 0.
pub fn fold_operands(operation: u8, items: &[Vec<u64>]) -> Vec<u64> {
    use inswitch_model::reduce::{combine, Contribution, Mode, Opcode, LANES};
    let op = Opcode::from_raw(operation);
    let lanes = |v: &Vec<u64>| {
        let mut d = [0u64; LANES];
        d.iter_mut().zip(v).for_each(|(a, b)| *a = *b);
        Contribution::new(op, d)
    };
    let Some((first, rest)) = items.split_first() else { return Vec::new() };
    let acc = rest.iter().fold(lanes(first), |acc, v| combine(Mode::Associative, &acc, &lanes(v)));
    let width = items.iter().map(Vec::len).max().unwrap_or(0);
    acc.rt_data[..width.min(LANES)].to_vec()
}

struct CycleEngine {
    e: PacketEngine,
    id: u16,
    /// Last cycle stepped (None before the first).
    last: Option<u64>,
    /// Frames waiting for the receive port, with the first cycle their first beat may enter.
    rx: VecDeque<(u32, u64)>,
    /// Beats of the head frame already taken.
    rx_beat: usize,
    out: Vec<u8>,
    /// Cycle of the first beat of the frame in `out`.
    out_first: u64,
    vl_taken: u8,
    last_activity: u64,
    /// Stepped every cycle (in [`Fabric::awake`]); otherwise asleep.
    active: bool,
    /// Asleep with a running CPU timer: the cycle of its wake-up ([`Ev::Wake`]).
    wake_at: Option<u64>,
    /// Cycles stepped (for the performance report).
    steps: u64,
    /// Failed (fault injection): no more cycles, frames to it are lost.
    stopped: bool,
    /// CPU events seen on `cpu_stat_*`, by event code (`inswitch_model::cpu::event`).
    events: Vec<u64>,
    /// The port family (`cfg_family`) of the frame at the receive port ([`portals`]).
    family: bool,
}

#[derive(Clone, Debug, Default)]
struct StandInCtx {
    role: Option<Role>,
    members: Vec<(u16, bool)>,
    upstream: u16,
    pending: usize,
    p_count: usize,
}

#[derive(Clone, Debug, Default)]
struct StandIn {
    id: u16,
    ctx: HashMap<u16, StandInCtx>,
}

enum EngineSlot {
    Cycle(Box<CycleEngine>),
    StandIn(StandIn),
}

/// Counters of a run.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    /// Events processed.
    pub events: u64,
    /// Engine cycles stepped.
    pub engine_steps: u64,
    /// Engine cycles skipped.
    pub engine_cycles_skipped: u64,
    /// Wakings that advanced a sleeping engine over its skipped cycles in closed form
    /// (`PacketEngine::advance_idle`).
    pub idle_advances: u64,
    /// Wake-ups of engines asleep on a running CPU timer, in the cycle of its expiry.
    pub timer_wakes: u64,
    /// Frames dropped by a switch for an unknown destination.
    pub unroutable: u64,
    /// Frames dropped because the live fabric cannot take them further: no route to the destination's
    /// switch around failed links and switches, or the frame reached a failed switch.
    pub unreachable: u64,
    /// Frames an engine sent out of `m_axis_egress` (never expected: its only route is its own port).
    pub egress_frames: u64,
    /// Frames end nodes dropped because their LCRC did not match (corrupted on a link).
    pub end_node_lcrc_drops: u64,
    /// Contributions end nodes sent again (retry timer).
    pub end_node_retries: u64,
    /// Corrupted frames (LCRC wrong) that reached an engine's receive port: its input checker drops
    /// and counts each one (LCRC) unless the interposer passes it (a header no longer for the engine).
    pub corrupt_to_engines: u64,
    /// Corrupted frames an engine's interposer passed through (not extracted, so never checked).
    pub corrupt_passed_by_engines: u64,
    /// Frames an engine emitted addressed to itself (a pass-through with nowhere to go), dropped.
    pub self_addressed_drops: u64,
}

/// The simulator.
pub struct Fabric {
    /// The topology.
    pub topo: Topology,
    /// Its routes.
    pub routes: Routes,
    /// Parameters.
    pub cfg: SimConfig,
    /// Every channel.
    pub channels: Vec<Channel>,
    up: Vec<usize>,
    down: Vec<usize>,
    isl: Vec<usize>,
    to_engine: Vec<usize>,
    from_engine: Vec<usize>,
    /// Every frame ever sent.
    pub frames: Vec<Frame>,
    /// The event queue by (time, order of scheduling): a B-tree rather than a binary heap, whose pops
    /// walk a path through the whole queue (cache misses once it holds an event per end node); the
    /// B-tree's next event is in its leftmost leaf, and new events land near it.
    heap: BTreeMap<(Ps, u64), Ev>,
    order: u64,
    now: Ps,
    cycle: u64,
    engines: Vec<EngineSlot>,
    /// The active cycle engines, the only ones a cycle visits (sorted before a cycle when `awake_sorted`
    /// is false: engines step in switch order, as without skipping).
    awake: Vec<u32>,
    awake_sorted: bool,
    /// Engines asleep with a running CPU timer (a wake-up event each in the heap): while there are any,
    /// the engine clock runs as if they were stepped (`run_until_quiet`).
    timer_sleepers: usize,
    ends: Vec<EndNode>,
    /// Collective messages delivered to end nodes and engines.
    pub log: Vec<Delivery>,
    /// Frames on channels (when `cfg.capture`).
    pub captured: Vec<Captured>,
    /// Counters.
    pub stats: Stats,
    seq: u16,
    /// Fault injection (`None`: a fault-free fabric).
    pub faults: Option<FaultInjector>,
    /// The last INITIALIZATION sent to each engine, per CC_ID: (sending end node, engine ID, requester
    /// ID, message), for [`Fabric::reinitialize`].
    inits: HashMap<u16, Vec<(usize, u16, u16, CollectiveMessage)>>,
    /// The source's transaction ID per CC_ID (001): the TID of its last INITIALIZATION, carried by its
    /// START and CONTROL messages; [`Fabric::reinitialize`] advances it.
    source_tids: HashMap<u16, u8>,
    /// Every CPU event (time, switch, event code, context), when `Some` (off by default).
    pub cpu_log: Option<Vec<(Ps, u16, u8, u16)>>,
    /// Soft Portals reduction trees: switch multicast forwarding, end nodes ([`portals`]).
    pub portals: portals::Portals,
}

/// An error building the simulator.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The topology.
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// The engine parameters.
    #[error(transparent)]
    Engine(#[from] inswitch_model::packet_engine::EngineParamError),
    /// A plan the engines cannot hold.
    #[error("plan: {0}")]
    Plan(String),
}

fn beats_of(bytes: &[u8]) -> usize {
    bytes.len().div_ceil(BEAT_BYTES).max(1)
}

impl Fabric {
    /// A fabric at time 0 with every engine at power-on (cycle engines are reset in their first
    /// [`RESET_CYCLES`] cycles).
    pub fn new(topo: Topology, cfg: SimConfig) -> Result<Fabric, SimError> {
        let routes = Routes::new(&topo)?;
        let mut channels = Vec::new();
        let mut add = |kind, link| {
            channels.push(Channel { kind, link, free_at: 0, frames: 0, bytes: 0 });
            channels.len() - 1
        };
        let up = topo.endpoints.iter().enumerate().map(|(i, e)| add(ChannelKind::Up(i), e.link)).collect();
        let down = topo.endpoints.iter().enumerate().map(|(i, e)| add(ChannelKind::Down(i), e.link)).collect();
        let isl = routes.directed.iter().enumerate().map(|(i, d)| add(ChannelKind::Isl(i), d.2)).collect();
        let to_engine = (0..topo.switches.len()).map(|s| add(ChannelKind::ToEngine(s), topo.engine_port)).collect();
        let from_engine = (0..topo.switches.len()).map(|s| add(ChannelKind::FromEngine(s), topo.engine_port)).collect();
        let mut engines = Vec::with_capacity(topo.switches.len());
        for s in &topo.switches {
            engines.push(match cfg.engine {
                EngineKind::Cycle => EngineSlot::Cycle(Box::new(CycleEngine {
                    e: PacketEngine::power_on(cfg.engine_params)?,
                    id: s.engine_id,
                    last: None,
                    rx: VecDeque::new(),
                    rx_beat: 0,
                    out: Vec::new(),
                    out_first: 0,
                    vl_taken: 0,
                    last_activity: 0,
                    active: true,
                    wake_at: None,
                    steps: 0,
                    stopped: false,
                    events: vec![0; inswitch_model::cpu::event::COUNT],
                    family: false,
                })),
                EngineKind::TableArithmetic => EngineSlot::StandIn(StandIn { id: s.engine_id, ctx: HashMap::new() }),
            });
        }
        let awake = (0..engines.len() as u32).filter(|_| cfg.engine == EngineKind::Cycle).collect();
        let ends = vec![EndNode::default(); topo.endpoints.len()];
        let portals = portals::Portals::new(&topo);
        Ok(Fabric {
            topo,
            routes,
            cfg,
            channels,
            up,
            down,
            isl,
            to_engine,
            from_engine,
            frames: Vec::new(),
            heap: BTreeMap::new(),
            order: 0,
            now: 0,
            cycle: 0,
            engines,
            awake,
            awake_sorted: true,
            timer_sleepers: 0,
            ends,
            log: Vec::new(),
            captured: Vec::new(),
            stats: Stats::default(),
            seq: 0,
            faults: None,
            inits: HashMap::new(),
            source_tids: HashMap::new(),
            cpu_log: None,
            portals,
        })
    }

    /// Current time.
    pub fn now(&self) -> Ps {
        self.now
    }

    /// Channel index of directed ISL `i`.
    pub fn isl_channel(&self, i: usize) -> usize {
        self.isl[i]
    }

    /// Channel index of switch `s`'s port into its engine.
    pub fn to_engine_channel(&self, s: usize) -> usize {
        self.to_engine[s]
    }

    fn push(&mut self, t: Ps, ev: Ev) {
        self.order += 1;
        self.heap.insert((t, self.order), ev);
    }

    fn next_seq(&mut self) -> u16 {
        self.seq = self.seq.wrapping_add(1);
        self.seq
    }

    fn wire_len(&self, bytes: &[u8]) -> u32 {
        let real = bytes.len() as u32;
        let Some(n) = self.cfg.nominal else { return real };
        match wire::collective_of(bytes).map(|m| m.header.kind) {
            Some(2 | 3) => n.command,
            Some(4 | 5) => n.response,
            Some(6) => n.result,
            _ => real,
        }
    }

    fn new_frame(&mut self, bytes: Vec<u8>, origin: u16) -> u32 {
        let dst = wire::destination(&bytes).unwrap_or(0xFFFF);
        let wire_len = self.wire_len(&bytes);
        self.frames.push(Frame { bytes, wire_len, dst, origin, via: None });
        (self.frames.len() - 1) as u32
    }

    /// Schedules end node `e` to send `bytes` at `at`.
    pub fn send_from(&mut self, e: usize, at: Ps, bytes: Vec<u8>) {
        let f = self.new_frame(bytes, self.topo.endpoints[e].id);
        self.push(at.max(self.now), Ev::Send { f, e: e as u32 });
    }

    /// The frame on channel `c` from `head`/`tail`: returns the head and tail at the far end.
    fn traverse(&mut self, c: usize, f: u32, head: Ps, tail: Ps) -> (Ps, Ps) {
        let len = self.frames[f as usize].wire_len;
        self.frames[f as usize].via = Some(c);
        let ch = &mut self.channels[c];
        let ser = ch.link.serialize_ps(len);
        let start = head.max(ch.free_at);
        let end = (start + ser).max(tail);
        ch.free_at = end;
        ch.frames += 1;
        ch.bytes += u64::from(len);
        let d = ch.link.delay_ps;
        if self.cfg.capture {
            self.captured.push(Captured { start, channel: c, frame: f });
        }
        (start + d, end + d)
    }

    fn record(&mut self, f: u32, at: Ps, to: u16) -> Option<CollectiveMessage> {
        let fr = &self.frames[f as usize];
        let m = wire::collective_of(&fr.bytes)?;
        let from = wire::requester(&fr.bytes).unwrap_or(0);
        let (code, operands, contributions) = match &m.body {
            Body::Control(c) => (c.command, vec![], 0),
            Body::Data { fixed, operands } => (fixed.completion, operands.clone(), fixed.contributions),
            Body::Error(e) => (e.reason, vec![], 0),
            _ => (0, vec![], 0),
        };
        let error = m.header.error_mark;
        self.log.push(Delivery { at, to, from, kind: m.header.kind, cc_id: m.header.cc_id, p_id: m.header.p_id, code, operands, contributions, error, tid: m.header.tid });
        Some(m)
    }

    fn process(&mut self, t: Ps, ev: Ev) {
        // Wake-ups are engine scheduling, not fabric events (counted in `timer_wakes`).
        if !matches!(ev, Ev::Wake { .. }) {
            self.stats.events += 1;
        }
        match ev {
            Ev::Wake { sw, cycle } => self.wake_on_timer(sw as usize, cycle),
            Ev::Send { f, e } => {
                let sw = self.topo.endpoints[e as usize].switch as u32;
                for (f, h, tl) in self.hop(self.up[e as usize], f, t, t) {
                    self.push(h, Ev::AtSwitch { f, sw, head: h, tail: tl });
                }
            }
            Ev::Retry { e, cc } => self.retry_contribution(e as usize, cc, t),
            Ev::PortalsRoot { e, dfa, seqno } => self.portals_root_timer(e as usize, dfa, seqno, t),
            Ev::AtSwitch { f, sw, head, tail } => {
                let lat = self.cfg.hop_latency_ps;
                let (head, tail) = (head + lat, tail + lat);
                let sw = sw as usize;
                if portals::is_soft_portals(&self.frames[f as usize].bytes) {
                    return self.portals_at_switch(f, sw, head, tail);
                }
                let dst = self.frames[f as usize].dst;
                if !self.routes.switch_up(sw) {
                    // A frame already on its way when the switch failed.
                    self.stats.unreachable += 1;
                    return;
                }
                match self.routes.device[usize::from(dst)] {
                    Some(Device::Engine(s)) if s == sw => {
                        let (h, tl) = self.traverse(self.to_engine[sw], f, head, tail);
                        match self.cfg.engine {
                            EngineKind::Cycle => {
                                // The last beat enters when the tail has arrived, the others one per cycle
                                // before it (at the real length; with nominal sizes the tail is later).
                                let nb = beats_of(&self.frames[f as usize].bytes) as Ps;
                                let first = (h + ENGINE_CLOCK_PS).max(tl.saturating_sub((nb - 1) * ENGINE_CLOCK_PS)).min(tl);
                                self.push(first, Ev::ToEngine { f, sw: sw as u32, tail: tl })
                            }
                            EngineKind::TableArithmetic => self.push(tl, Ev::ToStandIn { f, sw: sw as u32 }),
                        }
                    }
                    Some(Device::Endpoint(e)) if self.topo.endpoints[e].switch == sw => {
                        for (f, _, tl) in self.hop(self.down[e], f, head, tail) {
                            self.push(tl, Ev::ToEndpoint { f, e: e as u32 });
                        }
                    }
                    Some(d) => {
                        let target = match d {
                            Device::Engine(s) => s,
                            Device::Endpoint(e) => self.topo.endpoints[e].switch,
                        };
                        let Some(i) = self.routes.next_hop(sw, target) else {
                            self.stats.unreachable += 1;
                            return;
                        };
                        let next = self.routes.directed[i].1 as u32;
                        for (f, h, tl) in self.hop(self.isl[i], f, head, tail) {
                            self.push(h, Ev::AtSwitch { f, sw: next, head: h, tail: tl });
                        }
                    }
                    None => self.stats.unroutable += 1,
                }
            }
            Ev::ToEngine { f, sw, tail } => {
                let cycle = t.div_ceil(ENGINE_CLOCK_PS);
                if let EngineSlot::Cycle(c) = &mut self.engines[sw as usize] {
                    if c.stopped {
                        let what = faults::summary(&self.frames[f as usize].bytes);
                        let fault = Fault { at: t, kind: FaultKind::LostAtStoppedEngine, channel: Some(sw as usize), frame: Some(f), what };
                        self.faults.get_or_insert_with(|| FaultInjector::new(0, Default::default())).log.push(fault);
                        return;
                    }
                    if self.faults.is_some() && !portals::frame_ok(&self.frames[f as usize].bytes) {
                        self.stats.corrupt_to_engines += 1;
                    }
                    c.rx.push_back((f, cycle));
                }
                self.wake(sw as usize);
                let id = self.topo.switches[sw as usize].engine_id;
                self.record(f, tail, id);
            }
            Ev::ToStandIn { f, sw } => {
                let id = self.topo.switches[sw as usize].engine_id;
                if let Some(m) = self.record(f, t, id) {
                    let from = wire::requester(&self.frames[f as usize].bytes).unwrap_or(0);
                    self.stand_in(sw as usize, t, &m, from);
                }
            }
            Ev::ToEndpoint { f, e } => {
                if self.faults.is_some() && !portals::frame_ok(&self.frames[f as usize].bytes) {
                    // The end node's data-link layer drops a frame whose LCRC (FCS) does not match.
                    self.stats.end_node_lcrc_drops += 1;
                    return;
                }
                if portals::is_soft_portals(&self.frames[f as usize].bytes) {
                    return self.portals_end_node(e as usize, t, f);
                }
                let id = self.topo.endpoints[e as usize].id;
                if let Some(m) = self.record(f, t, id) {
                    let from = wire::requester(&self.frames[f as usize].bytes).unwrap_or(0);
                    self.end_node(e as usize, t, &m, from);
                }
            }
        }
    }

    /// An end node's reaction to a collective message: remember whom to answer for a command; a
    /// COMPLETION (a result, or "already completed") or a FAILURE ends its pending contribution, except
    /// FAILURE DuplicateContribution, which says it was counted and the round is still open.
    fn end_node(&mut self, e: usize, t: Ps, m: &CollectiveMessage, from: u16) {
        let cc = m.header.cc_id;
        if m.header.kind == inswitch_model::message::Kind::COMPLETION.0 {
            if let Body::Data { fixed, operands } = &m.body {
                if fixed.completion == inswitch_model::cpu::completion::RESULT {
                    self.target_collect(e, t, cc, from, operands);
                }
            }
        }
        match m.header.kind {
            3 => {
                // Only a START asks for a contribution; PAUSE, RESTART, STOP and RESET copies do not.
                if !matches!(&m.body, Body::Control(c) if c.command == 1) {
                    return;
                }
                let auto = self.ends[e].auto;
                let Some(c) = self.ends[e].ctx.get_mut(&cc) else { return };
                c.answer = Some((from, m.header.p_id, m.header.tid));
                // A new command: a contribution of an earlier round is no longer pending.
                c.pending = None;
                if let Some(compute) = auto {
                    let late = self.faults.as_mut().and_then(|x| x.late_delay());
                    self.respond_late(e, cc, t + compute, late);
                }
            }
            6 | 8 => {
                // FAILURE DuplicateContribution: counted already, the round is open; an acknowledgement
                // (COMPLETION code 5) answers a command, not a contribution.
                let open = matches!(&m.body, Body::Error(x) if x.reason == 2) || matches!(&m.body, Body::Data { fixed, .. } if m.header.kind == 6 && fixed.completion == 5);
                if let Some(c) = self.ends[e].ctx.get_mut(&cc) {
                    if !open {
                        c.pending = None;
                    }
                }
            }
            _ => {}
        }
    }

    /// A root's end result at end node `e`: stored if `e` is the target of that root's tree; the
    /// target's result is their reduction once every root's has arrived (003 \[0062\]). A second
    /// result of one root (a later round) replaces the first only before the target completes.
    fn target_collect(&mut self, e: usize, t: Ps, cc: u16, from: u16, operands: &[u64]) {
        for tc in &mut self.ends[e].targets {
            if tc.result.is_some() {
                continue;
            }
            let Some(r) = tc.roots.iter_mut().find(|r| r.0 == from && r.1 == cc) else { continue };
            r.2 = Some(operands.to_vec());
            if tc.roots.iter().all(|r| r.2.is_some()) {
                let all: Vec<Vec<u64>> = tc.roots.iter().filter_map(|r| r.2.clone()).collect();
                tc.result = Some((t, fold_operands(tc.operation, &all)));
            }
        }
    }

    /// The retry timer of end node `e` for `cc`: the contribution is still unanswered, send it again.
    fn retry_contribution(&mut self, e: usize, cc: u16, t: Ps) {
        let Some((after, limit)) = self.ends[e].retry else { return };
        let Some(c) = self.ends[e].ctx.get_mut(&cc) else { return };
        let Some((to, pid, tid, operands)) = c.pending.clone() else { return };
        if c.attempts >= limit {
            c.pending = None;
            return;
        }
        c.attempts += 1;
        let m = wire::contribution(cc, pid, tid, c.operation, operands);
        self.stats.end_node_retries += 1;
        let seq = self.next_seq();
        let bytes = wire::message_frame(&m, self.topo.endpoints[e].id, to, seq);
        self.send_from(e, t, bytes);
        self.push(t + after, Ev::Retry { e: e as u32, cc });
    }

    /// A frame entering link channel `c` (head at `head`, tail at `tail`), through the fault injector:
    /// the copies that go on (frame index, head and tail at the far end), none if it is lost.
    fn hop(&mut self, c: usize, f: u32, head: Ps, tail: Ps) -> Vec<(u32, Ps, Ps)> {
        let Some(inj) = self.faults.as_mut() else {
            let (h, tl) = self.traverse(c, f, head, tail);
            return vec![(f, h, tl)];
        };
        match inj.decide(head, c, f, &self.frames[f as usize].bytes) {
            Verdict::Pass => {
                let (h, tl) = self.traverse(c, f, head, tail);
                vec![(f, h, tl)]
            }
            Verdict::Drop => vec![],
            Verdict::Duplicate => {
                let (h, tl) = self.traverse(c, f, head, tail);
                let (h2, tl2) = self.traverse(c, f, tail, tail);
                vec![(f, h, tl), (f, h2, tl2)]
            }
            Verdict::Corrupt { byte, bit } => {
                let fr = &self.frames[f as usize];
                let bad = Frame { bytes: faults::corrupt(&fr.bytes, byte, bit), ..fr.clone() };
                self.frames.push(bad);
                let g = (self.frames.len() - 1) as u32;
                if let Some(x) = self.faults.as_mut().and_then(|i| i.log.last_mut()) {
                    x.frame = Some(g);
                }
                let (h, tl) = self.traverse(c, g, head, tail);
                vec![(g, h, tl)]
            }
        }
    }

    /// Fault injection on from now on (`FaultInjector`); replaces an earlier injector but keeps its log.
    pub fn inject(&mut self, mut inj: FaultInjector) {
        if let Some(old) = self.faults.take() {
            let mut log = old.log;
            log.append(&mut inj.log);
            inj.log = log;
            if inj.down.is_empty() {
                inj.down = old.down;
            }
        }
        self.faults = Some(inj);
    }

    fn injector(&mut self) -> &mut FaultInjector {
        self.faults.get_or_insert_with(|| {
            let mut i = FaultInjector::new(0, Default::default());
            i.enabled = false;
            i
        })
    }

    /// Channel `c` goes down at the current time: every frame entering it from now on is lost.
    pub fn fail_channel(&mut self, c: usize) {
        let (at, n) = (self.now, self.channels.len());
        let inj = self.injector();
        inj.down.resize(n, false);
        inj.down[c] = true;
        inj.log.push(Fault { at, kind: FaultKind::LinkDown, channel: Some(c), frame: None, what: String::new() });
    }

    /// Both directions of every ISL between switches `a` and `b` lose every frame from now on, and the
    /// switches do not notice: routes still use them (a silent failure). Returns the topology ISLs cut
    /// (none if the switches are not neighbours).
    pub fn cut_isl(&mut self, a: usize, b: usize) -> Vec<usize> {
        let isls: Vec<usize> = self.topo.isls.iter().enumerate().filter(|(_, l)| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a)).map(|(i, _)| i).collect();
        for &i in &isls {
            for k in [2 * i, 2 * i + 1] {
                self.fail_channel(self.isl[k]);
            }
        }
        isls
    }

    /// The ISLs between switches `a` and `b` go down (as [`Fabric::cut_isl`]) and the fabric routes
    /// around them from now on ([`Routes::recompute`]: fewest hops over the live links; a frame for a
    /// device it can no longer reach is dropped and counted in `Stats::unreachable`). Frames already on
    /// the link are lost. Returns the topology ISLs failed.
    pub fn fail_isl(&mut self, a: usize, b: usize) -> Vec<usize> {
        let isls = self.cut_isl(a, b);
        for &i in &isls {
            self.routes.set_isl_up(i, false);
        }
        self.routes.recompute();
        isls
    }

    /// Switch `s` fails as a whole at the current time: its engine stops ([`Fabric::fail_engine`]), its
    /// ISLs and its end nodes' links lose every frame, and the fabric routes around it (no transit
    /// through it); its engine and end nodes are unreachable (frames for them are counted in
    /// `Stats::unreachable` or lost on the down links). `docs/fabric.md` §Rerouting.
    pub fn switch_down(&mut self, s: usize) {
        self.fail_engine(s);
        let isls: Vec<usize> = self.topo.isls.iter().enumerate().filter(|(_, l)| l.a == s || l.b == s).map(|(i, _)| i).collect();
        for i in isls {
            for k in [2 * i, 2 * i + 1] {
                if !self.faults.as_ref().is_some_and(|x| x.is_down(self.isl[k])) {
                    self.fail_channel(self.isl[k]);
                }
            }
        }
        let ends: Vec<usize> = self.topo.endpoints_of(s).collect();
        for e in ends {
            for c in [self.up[e], self.down[e]] {
                self.fail_channel(c);
            }
        }
        self.routes.set_switch_up(s, false);
        self.routes.recompute();
    }

    /// The engine of switch `s` stops at the current time: it is no longer stepped and frames that reach
    /// it are lost (its switch still forwards other traffic).
    pub fn fail_engine(&mut self, s: usize) {
        let at = self.now;
        if let EngineSlot::Cycle(c) = &mut self.engines[s] {
            c.stopped = true;
            c.active = false;
            if c.wake_at.take().is_some() {
                self.timer_sleepers -= 1;
            }
            self.awake.retain(|&x| x as usize != s);
        }
        self.injector().log.push(Fault { at, kind: FaultKind::EngineStop, channel: Some(s), frame: None, what: String::new() });
    }

    /// First CC_ID of the filler contexts [`Fabric::fill_descriptors`] uses (the top of the 12-bit space).
    pub const FILLER_CC: u16 = 0xF00;

    /// Engine exhaustion: fills the descriptors of switch `s`'s engine with `n` filler contexts (static
    /// entries from the top of the table, written as register writes into `STATIC[i].KEY`, then an
    /// INITIALIZATION each, all from end node `via` at `at`, so on one path in that order; the
    /// INITIALIZATION activates the context: a TLP context holds its descriptor while Idle,
    /// `docs/cpu.md` §1). [`Fabric::release_descriptors`] frees them (CONTROL RESET).
    pub fn fill_descriptors(&mut self, s: usize, n: usize, via: usize, at: Ps) {
        let top = self.cfg.engine_params.static_entries;
        assert!(n <= top, "{n} fillers, {top} static entries");
        for k in 0..n {
            let slot = (top - 1 - k) as u8;
            let key = inswitch_model::cpu::config::static_word0(true, false, 0, Self::FILLER_CC + k as u16);
            self.write_register(via, at, s, crate::manager::plan::static_key_offset(slot) as u16, key);
        }
        let id = self.topo.switches[s].engine_id;
        let src = self.topo.endpoints[via].id;
        for k in 0..n {
            let body = Body::Initialization(inswitch_frames::collective::InitBody::default());
            let init = CollectiveMessage { header: wire::header(2, Self::FILLER_CC + k as u16, NO_PARTICIPANT), body };
            let seq = self.next_seq();
            self.send_from(via, at, wire::message_frame(&init, src, id, seq));
        }
        let now = self.now;
        self.injector().log.push(Fault { at: now, kind: FaultKind::Exhaust { n }, channel: Some(s), frame: None, what: format!("engine {id:#06x}") });
    }

    /// Releases `n` filler contexts of [`Fabric::fill_descriptors`] on switch `s` (CONTROL RESET from end
    /// node `via`: the descriptor freed, the stored context removed).
    pub fn release_descriptors(&mut self, s: usize, n: usize, via: usize, at: Ps) {
        let id = self.topo.switches[s].engine_id;
        let src = self.topo.endpoints[via].id;
        for k in 0..n {
            let seq = self.next_seq();
            self.send_from(via, at, wire::message_frame(&wire::control(Self::FILLER_CC + k as u16, 5, 0), src, id, seq));
        }
        let now = self.now;
        self.injector().log.push(Fault { at: now, kind: FaultKind::Release, channel: Some(s), frame: None, what: format!("engine {id:#06x}") });
    }

    /// CPU events the engine of switch `s` reported on `cpu_stat_*`, by code (`inswitch_model::cpu::event`).
    pub fn cpu_events(&self, s: usize) -> Option<&[u64]> {
        match &self.engines[s] {
            EngineSlot::Cycle(c) => Some(&c.events),
            EngineSlot::StandIn(_) => None,
        }
    }

    /// CPU events of code `ev`, summed over every engine.
    pub fn cpu_event_total(&self, ev: u8) -> u64 {
        (0..self.engines.len()).filter_map(|s| self.cpu_events(s)).map(|v| v[usize::from(ev)]).sum()
    }

    /// End node `e` resends an unanswered contribution every `after` ps, at most `limit` times
    /// (`None`: never).
    pub fn end_node_retry(&mut self, retry: Option<(Ps, u8)>) {
        for n in &mut self.ends {
            n.retry = retry;
        }
    }

    /// End node `e`'s operands for context `cc` (what it contributes from now on).
    pub fn set_operands(&mut self, e: usize, cc: u16, operands: Vec<u64>) {
        if let Some(c) = self.ends[e].ctx.get_mut(&cc) {
            c.operands = operands;
        }
    }



    /// End node `e` sends its contribution to context `cc` at `at` (if it got the command).
    pub fn respond(&mut self, e: usize, cc: u16, at: Ps) {
        self.respond_late(e, cc, at, None);
    }

    /// As [`Fabric::respond`], `late` ps later (a late contribution, logged as a fault).
    fn respond_late(&mut self, e: usize, cc: u16, at: Ps, late: Option<Ps>) {
        let retry = self.ends[e].retry;
        let Some(c) = self.ends[e].ctx.get(&cc) else { return };
        if c.answer.is_none() {
            return;
        }
        // Pre-reduction: the group's operands come over the host (HOST_LOCAL_PS), then one contribution.
        let mut all = vec![c.operands.clone()];
        all.extend(c.group.iter().filter_map(|&g| self.ends[g].ctx.get(&cc)).map(|g| g.operands.clone()));
        let (operands, local) = if c.group.is_empty() { (c.operands.clone(), 0) } else { (fold_operands(c.operation, &all), HOST_LOCAL_PS) };
        let Some(c) = self.ends[e].ctx.get_mut(&cc) else { return };
        let Some((to, pid, tid)) = c.answer.take() else { return };
        let m = wire::contribution(cc, pid, tid, c.operation, operands.clone());
        c.pending = Some((to, pid, tid, operands));
        c.attempts = 0;
        let seq = self.next_seq();
        let bytes = wire::message_frame(&m, self.topo.endpoints[e].id, to, seq);
        let at = at + local + late.unwrap_or(0);
        self.send_from(e, at, bytes);
        if let Some(delay) = late {
            let f = (self.frames.len() - 1) as u32;
            let what = faults::summary(&self.frames[f as usize].bytes);
            let now = self.now;
            self.injector().log.push(Fault { at: now, kind: FaultKind::Late { delay }, channel: None, frame: Some(f), what });
        }
        if let Some((after, _)) = retry {
            self.push(at.max(self.now) + after, Ev::Retry { e: e as u32, cc });
        }
    }

    /// Every end node that has a command for `cc` answers it at `at` (Table 1: all responses at once).
    pub fn respond_all(&mut self, cc: u16, at: Ps) {
        for e in 0..self.ends.len() {
            self.respond(e, cc, at);
        }
    }

    /// End nodes answer commands by themselves, `compute` after they arrive.
    pub fn auto_respond(&mut self, compute: Option<Ps>) {
        for n in &mut self.ends {
            n.auto = compute;
        }
    }

    /// The stand-in's zero-time fan-out (serialization-only arithmetic).
    fn stand_in(&mut self, sw: usize, t: Ps, m: &CollectiveMessage, from: u16) {
        let EngineSlot::StandIn(si) = &mut self.engines[sw] else { return };
        let id = si.id;
        let cc = m.header.cc_id;
        let Some(c) = si.ctx.get_mut(&cc) else { return };
        let mut out: Vec<(u16, CollectiveMessage)> = Vec::new();
        let copies = |c: &StandInCtx, m: &CollectiveMessage| -> Vec<(u16, CollectiveMessage)> {
            c.members
                .iter()
                .enumerate()
                .map(|(bit, &(dev, _))| {
                    let mut x = m.clone();
                    x.header.p_id = bit as u16;
                    (dev, x)
                })
                .collect()
        };
        match m.header.kind {
            3 => {
                c.upstream = from;
                c.pending = c.p_count;
                out = copies(c, m);
            }
            4 | 5 if c.pending > 0 => {
                c.pending -= 1;
                if c.pending == 0 {
                    if c.role == Some(Role::Master) {
                        let done = wire::data(6, cc, 0, 3, c.p_count as u16);
                        out = copies(c, &done);
                        out.push((c.upstream, wire::data(6, cc, NO_PARTICIPANT, 3, c.p_count as u16)));
                    } else {
                        out.push((c.upstream, wire::data(5, cc, NO_PARTICIPANT, 0, c.p_count as u16)));
                    }
                    c.pending = c.p_count;
                }
            }
            6 => out = copies(c, m),
            _ => {}
        }
        for (dst, msg) in out {
            let seq = self.next_seq();
            let f = self.new_frame(wire::message_frame(&msg, id, dst, seq), id);
            let (h, tl) = self.traverse(self.from_engine[sw], f, t, t);
            self.push(h, Ev::AtSwitch { f, sw: sw as u32, head: h, tail: tl });
        }
    }

    /// Configures every engine and end node of `plan` (the built-in plans, `crate::setup`): cycle engines
    /// through their ports, as the manager's placements are ([`Fabric::bring_up`], then each context as
    /// a manager plan, `crate::drive::builtin_plans`: PBV entries and flags, the static entry and an
    /// INITIALIZATION per engine, sent as frames from the context's source node at `at`); the stand-in
    /// from the plan directly. End nodes learn their operands (`value(endpoint index)`).
    pub fn configure(&mut self, plan: &Plan, at: Ps, value: &dyn Fn(usize) -> u64) -> Result<(), SimError> {
        // Per engine: the union of its members over the contexts (the CPU has one PBV table per engine,
        // docs/cpu.md §7) and its static entries.
        let n = self.topo.switches.len();
        let mut table: Vec<Vec<(u16, bool)>> = vec![vec![]; n];
        let mut statics: Vec<Vec<(u16, Role)>> = vec![vec![]; n];
        for c in &plan.contexts {
            for ec in &c.engines {
                for m in &ec.members {
                    if !table[ec.switch].iter().any(|&(id, _)| id == m.id) {
                        table[ec.switch].push((m.id, m.switch));
                    }
                }
                statics[ec.switch].push((c.cc_id, ec.role));
            }
            for &p in &c.participants {
                self.ends[p].ctx.insert(c.cc_id, EndCtx { operation: c.operation, operands: vec![value(p), 0, 0, 0], ..EndCtx::default() });
            }
        }
        let limit = self.cfg.engine_params.static_entries;
        for s in 0..n {
            if self.cfg.engine == EngineKind::Cycle && table[s].len() > crate::setup::PBV_ENTRIES {
                return Err(SimError::Plan(format!(
                    "engine of {} needs {} PBV entries; the CPU's PBV table holds {} ([0155])",
                    self.topo.switches[s].name,
                    table[s].len(),
                    crate::setup::PBV_ENTRIES
                )));
            }
            if statics[s].len() > limit {
                return Err(SimError::Plan(format!("engine of {} needs {} static entries, it has {limit}", self.topo.switches[s].name, statics[s].len())));
            }
        }
        for s in 0..n {
            if let EngineSlot::StandIn(si) = &mut self.engines[s] {
                for c in &plan.contexts {
                    for ec in c.engines.iter().filter(|ec| ec.switch == s) {
                        let members: Vec<(u16, bool)> = ec.members.iter().map(|m| (m.id, m.switch)).collect();
                        let p_count = members.len();
                        si.ctx.insert(c.cc_id, StandInCtx { role: Some(ec.role), members, upstream: 0, pending: p_count, p_count });
                    }
                }
            }
        }
        if self.cfg.engine == EngineKind::Cycle {
            // The same path as the manager's placements (crate::drive): bring-up, then each context's
            // plan encoded by the manager's encoder, frames from its source.
            if let Some(first) = plan.contexts.first() {
                self.bring_up(first.source, at);
            }
            for (c, p) in plan.contexts.iter().zip(crate::drive::builtin_plans(&self.topo, &plan.contexts)) {
                let enc = p.encode_with(&|s| self.topo.switches[s.0 as usize].engine_id).map_err(|e| SimError::Plan(e.to_string()))?;
                crate::drive::apply_encoded(self, &p, &enc, c.source, at, &|_| c.operation, value)?;
            }
        }
        Ok(())
    }

    /// A new reduction on a configured context: its source sends the INITIALIZATIONs of
    /// [`Fabric::configure`] again at `at` (non-posted if `non_posted`: the engines acknowledge them and
    /// a subservient resends its RESPONSE on its retry timer, `docs/cpu.md` §4), with the source's
    /// next TID (TID + 1 mod 4, 001). An INITIALIZATION sets the context's TID to the message's and
    /// clears its tracking state, so each reduction of a context starts from one, one TID after the previous: a
    /// frame of the previous reduction that arrives late is one TID behind and answered "already
    /// completed", not counted (`docs/fabric.md` §Faults).
    pub fn reinitialize(&mut self, cc: u16, at: Ps, non_posted: bool) {
        let Some(v) = self.inits.get_mut(&cc) else { return };
        let tid = wire::next_tid(self.source_tids.get(&cc).copied().unwrap_or(0));
        self.source_tids.insert(cc, tid);
        for x in v.iter_mut() {
            x.3.header.tid = tid;
        }
        for (source, id, src, mut init) in v.clone() {
            init.header.non_posted = non_posted;
            let seq = self.next_seq();
            self.send_from(source, at, wire::message_frame(&init, src, id, seq));
        }
    }

    /// The source's current transaction ID for context `cc` (001; 0 before any INITIALIZATION).
    pub fn source_tid(&self, cc: u16) -> u8 {
        self.source_tids.get(&cc).copied().unwrap_or(0)
    }

    /// The source of `c` sends CONTROL `command` (4 STOP, 5 RESET, ...) to the master engine at `at`;
    /// the master replicates it to its participants (\[0172\]).
    pub fn control(&mut self, c: &ContextPlan, command: u8, at: Ps) {
        let master = self.topo.switches[c.master()].engine_id;
        let src = self.topo.endpoints[c.source].id;
        let seq = self.next_seq();
        let mut m = wire::control(c.cc_id, command, 0);
        m.header.tid = self.source_tid(c.cc_id);
        self.send_from(c.source, at, wire::message_frame(&m, src, master, seq));
    }

    /// Bring-up of every cycle engine, before any plan (what a manager does not program, `docs/manager.md`
    /// §9), as register writes from end node `from` at `at`: the CPU timeouts and thresholds the fabric
    /// runs with ([`bring_up_timeouts`], forwarded to the CPU by the register space), and route entry 0
    /// (destination 0 under mask 0) to the engine's own port, so its frames go back into the crossbar,
    /// which routes them. The CPU's ENGINE_ID needs no write: the register space copies the strap after
    /// reset. The stand-in needs none.
    pub fn bring_up(&mut self, from: usize, at: Ps) {
        for s in 0..self.engines.len() {
            if !matches!(self.engines[s], EngineSlot::Cycle(_)) {
                continue;
            }
            for (off, v) in bring_up_timeouts().chain(DEFAULT_ROUTE) {
                self.write_register(from, at, s, off, v);
            }
        }
    }

    /// End node `from` sends, at `at`, a 1-DW register write of `value` to byte offset `off` of switch
    /// `s`'s engine window (`docs/registers.md`), with its own requester ID.
    pub fn write_register(&mut self, from: usize, at: Ps, s: usize, off: u16, value: u32) {
        let (src, id) = (self.topo.endpoints[from].id, self.topo.switches[s].engine_id);
        let seq = self.next_seq();
        self.send_from(from, at, wire::register_write(seq, src, id, off, value));
    }

    /// End node `e` sends the TLP `tlp` (bytes, without link framing) at `at`; the fabric adds the link
    /// sequence number and LCRC.
    pub fn send_tlp_from(&mut self, e: usize, at: Ps, tlp: &[u8]) {
        let seq = self.next_seq();
        let frame = wire::link_frame(seq, tlp);
        // INITIALIZATIONs are kept for [`Fabric::reinitialize`].
        if let Some(m) = wire::collective_of(&frame).filter(|m| m.header.kind == 2) {
            let (src, dst) = (wire::requester(&frame).unwrap_or(0), wire::destination(&frame).unwrap_or(0));
            let v = self.inits.entry(m.header.cc_id).or_default();
            // One per engine: a relayed one goes to the master and names its engine in P_ID.
            v.retain(|x| (x.1, x.3.header.p_id) != (dst, m.header.p_id));
            self.source_tids.insert(m.header.cc_id, m.header.tid);
            v.push((e, dst, src, m));
        }
        self.send_from(e, at, frame);
    }

    /// End node `e` takes part in context `cc` (a manager's `EndNode` step): it answers the context's
    /// command with a CONTRIBUTION of `operation` and `operands`.
    pub fn join(&mut self, e: usize, cc: u16, operation: u8, operands: Vec<u64>) {
        self.ends[e].ctx.insert(cc, EndCtx { operation, operands, ..EndCtx::default() });
    }

    /// End node `e` leaves context `cc` (a manager's `EndNodeClear` step); a target of several roots
    /// whose trees include `cc` is dropped with it.
    pub fn leave(&mut self, e: usize, cc: u16) {
        self.ends[e].ctx.remove(&cc);
        self.ends[e].targets.retain(|tc| tc.roots.iter().all(|r| r.1 != cc));
    }

    /// End node `e` is the representative of its host's other end nodes `group` in context `cc`
    /// (a manager's `EndNode` step with `pre_reduce_from`, 003 \[0055\]): it contributes the reduction
    /// of its own and their operands, [`HOST_LOCAL_PS`] after it would have contributed alone. Ignored
    /// if `e` has not joined `cc`.
    pub fn pre_reduce(&mut self, e: usize, cc: u16, group: Vec<usize>) {
        if let Some(c) = self.ends[e].ctx.get_mut(&cc) {
            c.group = group;
        }
    }

    /// End node `e` is the target of several roots (a manager's `Target` step, 003 \[0062\]): root
    /// engine `roots[i]` sends the end result of context `cc_ids[i]` to it, and it reduces them with
    /// `operation` ([`Fabric::target_result`]).
    pub fn target(&mut self, e: usize, operation: u8, roots: &[u16], cc_ids: &[u16]) {
        let roots = roots.iter().zip(cc_ids).map(|(&r, &cc)| (r, cc, None)).collect();
        self.ends[e].targets.push(TargetCtx { operation, roots, result: None });
    }

    /// The result of the target end node `e` whose trees include context `cc`: when the last root's end
    /// result arrived, and the reduction of all of them; `None` until then.
    pub fn target_result(&self, e: usize, cc: u16) -> Option<(Ps, Vec<u64>)> {
        self.ends.get(e)?.targets.iter().find(|tc| tc.roots.iter().any(|r| r.1 == cc))?.result.clone()
    }

    /// The source of `c` sends the command (CONTROL START) to the master engine at `at`.
    pub fn start(&mut self, c: &ContextPlan, at: Ps) {
        let master = self.topo.switches[c.master()].engine_id;
        let src = self.topo.endpoints[c.source].id;
        let p_count = c.engines.iter().find(|e| e.role == Role::Master).map_or(0, |e| e.members.len()) as u16;
        let seq = self.next_seq();
        let mut m = wire::start(c.cc_id, p_count);
        m.header.tid = self.source_tid(c.cc_id);
        self.send_from(c.source, at, wire::message_frame(&m, src, master, seq));
    }

    fn wake(&mut self, s: usize) {
        let skip = self.cfg.skip_idle;
        let now = self.cycle;
        let EngineSlot::Cycle(c) = &mut self.engines[s] else { return };
        if c.active || c.stopped {
            return;
        }
        c.active = true;
        if c.wake_at.take().is_some() {
            self.timer_sleepers -= 1;
        }
        debug_assert!(skip, "engines only sleep when skipping");
        // Cycles the engine did not see: its prescaler and running timers must end where they would have.
        let first = c.last.map_or(0, |l| l + 1);
        let skipped = now.saturating_sub(first);
        self.stats.engine_cycles_skipped += skipped;
        if skipped > 0 {
            // Exact: the model checks that one idle cycle changes nothing but its timer prescaler and
            // running timers, and that no timer expires in the skipped cycles, and advances them in
            // closed form (`PacketEngine::advance_idle`).
            let o = c.e.advance_idle(skipped, &idle_in(c.id, 0)).unwrap_or_else(|x| panic!("engine {s} set aside while not quiescent: {x}"));
            assert!(!busy(&o), "a quiescent engine shows an output while idle");
            self.stats.idle_advances += 1;
        }
        c.last = Some(now.saturating_sub(1).max(first.saturating_sub(1)));
        c.last_activity = now;
        if self.awake.last().is_some_and(|&x| x as usize > s) {
            self.awake_sorted = false;
        }
        self.awake.push(s as u32);
    }

    /// Whether a wake-up ([`Ev::Wake`]) is still due: not if the engine woke since (a frame), whether
    /// or not it went to sleep again.
    fn wake_due(&self, s: usize, cycle: u64) -> bool {
        matches!(&self.engines[s], EngineSlot::Cycle(c) if !c.active && c.wake_at == Some(cycle))
    }

    /// The wake-up of an engine asleep on a running timer ([`Ev::Wake`]), if still due.
    fn wake_on_timer(&mut self, s: usize, cycle: u64) {
        if self.wake_due(s, cycle) {
            let EngineSlot::Cycle(c) = &self.engines[s] else { return };
            let last_activity = c.last_activity;
            debug_assert_eq!(self.cycle, cycle, "a wake-up is processed in its cycle");
            self.stats.timer_wakes += 1;
            self.wake(s);
            // Unlike a frame, the expiry is no activity of its own: the engine goes back to sleep by
            // the same rule, in the same cycle, as if it had been stepped throughout, so `now` at the
            // end of a run is the same with and without skipping.
            if let EngineSlot::Cycle(c) = &mut self.engines[s] {
                c.last_activity = last_activity;
            }
        }
    }

    /// Brings every engine asleep on a running timer to the current cycle in closed form (its timers as
    /// if it had been stepped through the last cycle), without waking it: for inspection when
    /// [`Fabric::run_until_quiet`] stops at its limit. Its wake-up stays where it is.
    fn catch_up_timer_sleepers(&mut self) {
        if self.timer_sleepers == 0 {
            return;
        }
        let now = self.cycle;
        for (s, slot) in self.engines.iter_mut().enumerate() {
            let EngineSlot::Cycle(c) = slot else { continue };
            let Some(first) = c.last.map(|l| l + 1).filter(|_| c.wake_at.is_some() && !c.active) else { continue };
            let n = now.saturating_sub(first);
            if n == 0 {
                continue;
            }
            let o = c.e.advance_idle(n, &idle_in(c.id, 0)).unwrap_or_else(|x| panic!("engine {s} asleep while not quiescent: {x}"));
            assert!(!busy(&o), "a quiescent engine shows an output while idle");
            self.stats.engine_cycles_skipped += n;
            self.stats.idle_advances += 1;
            c.last = Some(now - 1);
        }
    }

    /// Steps every active engine for the current cycle; sets aside those that have no work left.
    fn step_engines(&mut self) {
        let cycle = self.cycle;
        let t_done = (cycle + 1) * ENGINE_CLOCK_PS;
        let skip = self.cfg.skip_idle;
        let mut emitted: Vec<(usize, Vec<u8>, bool, u64)> = Vec::new();
        let mut wakes: Vec<(usize, u64)> = Vec::new();
        if !self.awake_sorted {
            self.awake.sort_unstable();
            self.awake_sorted = true;
        }
        // Only the awake engines are visited; those still awake after the cycle are kept, in order.
        let mut awake = std::mem::take(&mut self.awake);
        let mut kept = 0;
        for k in 0..awake.len() {
            let s = awake[k] as usize;
            let EngineSlot::Cycle(c) = &mut self.engines[s] else { continue };
            if !c.active || c.stopped {
                continue;
            }
            let mut i = idle_in(c.id, c.vl_taken);
            i.rst = cycle < RESET_CYCLES;
            let mut presented = false;
            if !i.rst {
                if let Some(&(f, from)) = c.rx.front() {
                    // Beat k of a frame may enter at `from + k` (the port delivers one beat per cycle).
                    if cycle >= from + c.rx_beat as u64 {
                        let bytes = &self.frames[f as usize].bytes;
                        if c.rx_beat == 0 {
                            c.family = portals::is_soft_portals(bytes);
                        }
                        let nb = beats_of(bytes);
                        let lo = c.rx_beat * BEAT_BYTES;
                        let chunk = &bytes[lo.min(bytes.len())..(lo + BEAT_BYTES).min(bytes.len())];
                        let mut d = Wide::ZERO;
                        for (k, &b) in chunk.iter().enumerate() {
                            d.set_byte(k, b);
                        }
                        i.s_axis_rx_tdata = d;
                        i.s_axis_rx_tkeep = if chunk.len() >= 64 { u64::MAX } else { (1u64 << chunk.len()) - 1 };
                        i.s_axis_rx_tvalid = true;
                        i.s_axis_rx_tlast = c.rx_beat + 1 == nb;
                        presented = true;
                    }
                }
            }
            // The port family of the frame being received (set on its first beat, kept to the next).
            i.cfg_family = c.family;
            let o = c.e.step(&i);
            c.steps += 1;
            self.stats.engine_steps += 1;
            c.last = Some(cycle);
            if o.cpu_stat_valid {
                c.events[usize::from(o.cpu_stat_event) % inswitch_model::cpu::event::COUNT] += 1;
                if let Some(log) = self.cpu_log.as_mut() {
                    log.push((cycle * ENGINE_CLOCK_PS, s as u16, o.cpu_stat_event, o.cpu_stat_ctx));
                }
            }
            if presented && o.s_axis_rx_tready {
                c.rx_beat += 1;
                c.last_activity = cycle;
                if i.s_axis_rx_tlast {
                    c.rx.pop_front();
                    c.rx_beat = 0;
                }
            }
            c.vl_taken = 0;
            for (valid, data, keep, last, egress) in [
                (o.m_axis_vl_tvalid, o.m_axis_vl_tdata, o.m_axis_vl_tkeep, o.m_axis_vl_tlast, false),
                (o.m_axis_egress_tvalid, o.m_axis_egress_tdata, o.m_axis_egress_tkeep, o.m_axis_egress_tlast, true),
            ] {
                if valid {
                    if !egress {
                        c.vl_taken = 1;
                    }
                    if c.out.is_empty() {
                        c.out_first = cycle;
                    }
                    for k in 0..BEAT_BYTES {
                        if keep >> k & 1 == 1 {
                            c.out.push(data.byte(k));
                        }
                    }
                    if last {
                        emitted.push((s, std::mem::take(&mut c.out), egress, c.out_first));
                    }
                }
            }
            if busy(&o) {
                c.last_activity = cycle;
            }
            match if skip { rest(c, cycle) } else { Rest::Awake } {
                Rest::Awake => {
                    awake[kept] = s as u32;
                    kept += 1;
                }
                Rest::Asleep => c.active = false,
                Rest::UntilExpiry(n) => {
                    c.active = false;
                    c.wake_at = Some(cycle + n);
                    wakes.push((s, cycle + n));
                }
            }
        }
        awake.truncate(kept);
        self.awake = awake;
        for (s, w) in wakes {
            self.timer_sleepers += 1;
            self.push(w * ENGINE_CLOCK_PS, Ev::Wake { sw: s as u32, cycle: w });
        }
        for (s, bytes, egress, first) in emitted {
            if egress {
                self.stats.egress_frames += 1;
            }
            let id = self.topo.switches[s].engine_id;
            // The interposer passes what it does not extract (docs/blocks/interposer.md: it does not
            // validate), e.g. a frame whose header a corruption changed. On a real port it would go on
            // to the link partner; the engine's port here has none, and a frame addressed to the engine
            // would come straight back: such frames are counted and dropped.
            if self.faults.is_some() && !portals::frame_ok(&bytes) {
                self.stats.corrupt_passed_by_engines += 1;
                continue;
            }
            if !portals::is_soft_portals(&bytes) && wire::destination(&bytes) == Some(id) {
                self.stats.self_addressed_drops += 1;
                continue;
            }
            let f = self.new_frame(bytes, id);
            // The engine's port into the crossbar: cut-through from the first beat; the engine emits one
            // beat per cycle at port rate, so with real sizes the port adds nothing, with nominal sizes
            // it serializes the nominal length (the serial point of Table 1). The frame is routed once
            // its last beat is out (when the simulator knows it), timed from its first beat.
            let (h, tl) = self.traverse(self.from_engine[s], f, first * ENGINE_CLOCK_PS, t_done);
            self.push(h.max(t_done), Ev::AtSwitch { f, sw: s as u32, head: h, tail: tl });
        }
    }

    /// The time of the next event, after dropping the wake-ups no longer due at the head of the queue
    /// unseen: they must not hold the run open or move the clock.
    fn next_event_time(&mut self) -> Option<Ps> {
        while let Some((&(t, _), &ev)) = self.heap.first_key_value() {
            match ev {
                Ev::Wake { sw, cycle } if !self.wake_due(sw as usize, cycle) => {
                    self.heap.pop_first();
                }
                _ => return Some(t),
            }
        }
        None
    }

    /// Every awake engine is quiescent (asleep ones are, or have a wake-up event pending).
    fn all_quiescent(&self) -> bool {
        self.awake.iter().all(|&s| match &self.engines[s as usize] {
            EngineSlot::Cycle(c) => quiescent(c, self.cycle),
            EngineSlot::StandIn(_) => true,
        })
    }

    /// Runs until nothing is in flight and every engine is quiescent (or `limit` is passed); returns
    /// the time of the last event.
    ///
    /// Cost: each cycle visits only the awake engines. While engines sleep on running timers (and none
    /// is awake), the engine clock jumps from event to event, stopping where stepping every cycle
    /// would have stopped (the first cycle past `limit`), so `now` is the same with and without
    /// skipping.
    pub fn run_until_quiet(&mut self, limit: Ps, progress: &mut dyn FnMut(Ps)) -> Ps {
        let mut last_event = self.now;
        let mut n = 0u64;
        loop {
            let ev_t = self.next_event_time();
            let awake = self.cfg.engine == EngineKind::Cycle && !self.awake.is_empty();
            // The engine clock runs while an engine is awake or asleep on a running timer.
            let clocked = awake || self.timer_sleepers > 0;
            let cyc_t = self.cycle * ENGINE_CLOCK_PS;
            if clocked && ev_t.is_none_or(|t| cyc_t < t) {
                if !awake {
                    // Only timer sleepers: every cycle up to the next event (there is one, their
                    // wake-ups) would be idle. Jump to its cycle, or stop at the first past `limit`.
                    let t = ev_t.expect("a wake-up event for every engine asleep on a timer");
                    let next = t.div_ceil(ENGINE_CLOCK_PS);
                    let past_limit = limit / ENGINE_CLOCK_PS + 1;
                    if past_limit < next {
                        self.cycle = self.cycle.max(past_limit);
                        self.now = self.now.max(self.cycle * ENGINE_CLOCK_PS);
                        self.catch_up_timer_sleepers();
                        break;
                    }
                    self.now = self.now.max((next - 1) * ENGINE_CLOCK_PS);
                    self.cycle = next;
                    continue;
                }
                if ev_t.is_none() && self.all_quiescent() {
                    break;
                }
                self.now = self.now.max(cyc_t);
                if self.now > limit {
                    self.catch_up_timer_sleepers();
                    break;
                }
                self.step_engines();
                self.cycle += 1;
            } else if let Some(((t, order), ev)) = self.heap.pop_first() {
                if t > limit {
                    self.heap.insert((t, order), ev);
                    self.catch_up_timer_sleepers();
                    break;
                }
                self.now = t;
                if !clocked && self.cfg.engine == EngineKind::Cycle {
                    // Every engine slept: the engine clock catches up with the event.
                    self.cycle = self.cycle.max(t / ENGINE_CLOCK_PS);
                }
                // The time of the last fabric event: a wake-up is engine scheduling.
                if !matches!(ev, Ev::Wake { .. }) {
                    last_event = t;
                }
                self.process(t, ev);
            } else {
                break;
            }
            n += 1;
            if n % 65_536 == 0 {
                progress(self.now);
            }
        }
        progress(self.now);
        last_event
    }

    /// Frames carried by each channel of `kind` (a filter), for reports.
    pub fn channel_frames(&self, pick: impl Fn(ChannelKind) -> bool) -> Vec<(usize, u64)> {
        self.channels.iter().enumerate().filter(|(_, c)| pick(c.kind)).map(|(i, c)| (i, c.frames)).collect()
    }

    /// Cycles each cycle engine was stepped.
    pub fn engine_steps(&self) -> Vec<u64> {
        self.engines.iter().map(|e| if let EngineSlot::Cycle(c) = e { c.steps } else { 0 }).collect()
    }

    /// The cycle engine of switch `s` (for inspection in tests).
    pub fn engine(&self, s: usize) -> Option<&PacketEngine> {
        match &self.engines[s] {
            EngineSlot::Cycle(c) => Some(&c.e),
            EngineSlot::StandIn(_) => None,
        }
    }
}

fn idle_in(id: u16, vl_taken: u8) -> EngineIn {
    EngineIn {
        m_axis_vl_tready: true,
        m_axis_egress_tready: true,
        m_reg_rsp_ready: true,
        vl_credit_return: vl_taken,
        cfg_port: ENGINE_PORT,
        cfg_engine_id: id,
        cfg_src_mac: portals::engine_mac(id),
        cfg_dst_mac: portals::TREE_MAC,
        ..EngineIn::default()
    }
}

fn busy(o: &EngineOut) -> bool {
    o.m_axis_vl_tvalid || o.m_axis_egress_tvalid || o.m_reg_rsp_valid || o.cpu_stat_valid || o.stat_event != 0 || o.link_credit_return != 0
}

/// Whether an engine that has just been stepped in `cycle` may sleep.
enum Rest {
    /// It has work: step it next cycle.
    Awake,
    /// Quiescent ([`quiescent`]): until a frame arrives.
    Asleep,
    /// Quiescent but for running CPU timers: until a frame arrives or, at the latest, this many cycles
    /// from now, the cycle whose tick expires the first timer (stepped, not skipped).
    UntilExpiry(u64),
}

/// Nothing to receive or send, no input, output or event for [`QUIET_CYCLES`], the CPU's sequencer
/// idle and no timer expired: one more cycle would change nothing but the CPU's prescaler and running
/// timers (which `PacketEngine::advance_idle` checks on waking).
fn idle(c: &CycleEngine, cycle: u64) -> bool {
    if !c.rx.is_empty() || !c.out.is_empty() || c.vl_taken != 0 || cycle < RESET_CYCLES + QUIET_CYCLES {
        return false;
    }
    if cycle.saturating_sub(c.last_activity) < QUIET_CYCLES {
        return false;
    }
    let cpu = c.e.cpu();
    // An expired timer is work only on a valid descriptor, as the CPU's sequencer sees it
    // (`docs/cpu.md` §4): a descriptor freed (STOP, RESET) in the tick its timer ran out keeps its
    // `expired` flag, which nothing handles or clears until the descriptor is allocated again.
    cpu.seq_state() == seq::IDLE && (0..cpu.params().descriptors).all(|i| {
        let d = cpu.descriptor(i);
        !(d.valid && d.expired)
    })
}

fn rest(c: &CycleEngine, cycle: u64) -> Rest {
    if c.stopped {
        return Rest::Asleep;
    }
    if !idle(c, cycle) {
        return Rest::Awake;
    }
    match c.e.cpu().cycles_to_expiry() {
        None => Rest::Asleep,
        // Sleep only if at least one cycle can be skipped before the expiry cycle.
        Some(n) if n > 1 => Rest::UntilExpiry(n),
        Some(_) => Rest::Awake,
    }
}

/// Idle with no CPU timer running: the engine has nothing left to do until a frame arrives.
fn quiescent(c: &CycleEngine, cycle: u64) -> bool {
    c.stopped || (idle(c, cycle) && c.e.cpu().cycles_to_expiry().is_none())
}
