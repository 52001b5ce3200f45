//! The fabric's state and its core: configuration, channels, frames, the event queue, the engines'
//! and end nodes' state, and the moves every role uses (scheduling, a frame crossing a channel, the
//! log of delivered messages). The roles' behaviour is in the sibling modules ([`super`]).

use std::collections::{BTreeSet, HashMap, VecDeque};

use inswitch_frames::collective::{Body, CollectiveMessage};
use inswitch_model::packet_engine::{EngineParams, PacketEngine};

use super::channels::{Channel, ChannelKind, Channels};
use super::portals::Portals;
use super::queue::EventQueue;
use super::small_map::SmallMap;
use crate::faults::FaultInjector;
use crate::setup::Role;
use crate::topology::{Ps, Routes, Topology, TopologyError};
use crate::wire;

/// The engine clock: one 256-bit beat per cycle at 500 MHz is 16 GB/s, the rate of the PCIe Gen 6 x2
/// port the engine sits on (Table 1), so the engine keeps up with its port.
pub const ENGINE_CLOCK_PS: Ps = 2_000;

/// Bytes per beat of the engine's 256-bit data path.
pub const BEAT_BYTES: usize = 32;

/// Reset cycles at power-on (as the cosim's directed tests).
pub const RESET_CYCLES: u64 = 3;

/// The output-queue port number of the engine's own port (strap `cfg_port`): the default route sends
/// every engine frame to it, i.e. back into the crossbar through the injection path.
pub const ENGINE_PORT: u8 = 0;

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
    /// Step the awake engines engine-major through runs of cycles in which nothing can reach them
    /// (exact, `sim::window`); off: every awake engine once per cycle.
    pub engine_major: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        let engine_params = EngineParams { static_entries: SIM_STATIC_ENTRIES, ..EngineParams::default() };
        SimConfig { hop_latency_ps: 0, engine: EngineKind::Cycle, nominal: None, skip_idle: true, engine_params, capture: false, engine_major: true }
    }
}

/// Static entries of the simulated engines by default: the manager's default capacity
/// (`manager::topology::DEFAULT_CONTEXTS`, 16), so that its slots (key mod 16) are the CPUs' entries; the
/// top's RTL default is 4096 (`EngineParams::default`).
pub const SIM_STATIC_ENTRIES: usize = crate::manager::topology::DEFAULT_CONTEXTS;

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
    /// The channel it entered last (a switch's ingress port for the Portals multicast, [`super::portals`]).
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
pub(super) enum Ev {
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
    /// The source's retry timer for the non-posted START of context `cc` (not acknowledged yet).
    StartRetry { cc: u16 },
    /// A source's INITIALIZATION retry timer for context `cc` ([`Fabric::reinitialize_acked`]).
    InitRetry { cc: u16 },
    /// The Portals root end node `e`'s timer for round `seqno` of tree `dfa` ([`portals`]).
    PortalsRoot { e: u32, dfa: u32, seqno: u16 },
    /// The Portals root end node `e`'s arm retry for round `seqno` of tree `dfa`, the `n`-th ([`portals::Root::rearm`]).
    PortalsRearm { e: u32, dfa: u32, seqno: u16, n: u8 },
    PortalsRestart { e: u32, dfa: u32, seqno: u16 },
    /// The engine of switch `sw`, asleep with a running CPU timer or in its clearing sweep, wakes in
    /// `cycle`, the cycle whose tick expires the timer or the sweep's last cycle (ignored if it woke
    /// earlier).
    Wake { sw: u32, cycle: u64 },
}

/// A source's non-posted START waiting for the master's acknowledgement (COMPLETION code 5).
#[derive(Clone, Debug)]
pub(super) struct PendingStart {
    /// The source end node.
    pub(super) source: usize,
    /// The master engine's device ID.
    pub(super) master: u16,
    /// The START as sent (resent unchanged).
    pub(super) message: CollectiveMessage,
    /// When it was last sent: an acknowledgement arriving earlier answers the INITIALIZATIONs.
    pub(super) sent: Ps,
    /// Resend after this long, at most `limit` times.
    pub(super) after: Ps,
    pub(super) limit: u8,
    pub(super) attempts: u8,
    /// After the acknowledgement, resend every `.0` ps, at most `.1` times, until the result (COMPLETION
    /// code 3) reaches the source ([`Fabric::start_watched`]); `None`: done at the acknowledgement.
    pub(super) watch: Option<(Ps, u8)>,
    /// The master acknowledged it: the timer is the watch's.
    pub(super) acked: bool,
    /// Not sent yet: it waits for the INITIALIZATIONs' acknowledgements ([`PendingInits`]).
    pub(super) deferred: bool,
}

/// A source's non-posted INITIALIZATIONs waiting for their engines' acknowledgements (COMPLETION code
/// 5; [`Fabric::reinitialize_acked`]).
#[derive(Clone, Debug)]
pub(super) struct PendingInits {
    /// The source end node.
    pub(super) source: usize,
    /// Not acknowledged yet: (engine's device ID, requester ID, message).
    pub(super) waiting: Vec<(u16, u16, CollectiveMessage)>,
    /// When they were last sent.
    pub(super) sent: Ps,
    /// Resend after this long, at most `limit` times.
    pub(super) after: Ps,
    pub(super) limit: u8,
    pub(super) attempts: u8,
}

/// An end node's behaviour in a context.
#[derive(Clone, Debug, Default)]
pub(super) struct EndCtx {
    pub(super) operation: u8,
    pub(super) operands: Vec<u64>,
    /// Whom to answer (the requester of the command), with which P_ID and TID (the START's: 001, the
    /// engine compares it with the context's).
    pub(super) answer: Option<(u16, u16, u8)>,
    /// The contribution sent and not answered yet (a COMPLETION or FAILURE ends it): where to, P_ID, TID
    /// and the operands it carried (a retry resends the same).
    pub(super) pending: Option<(u16, u16, u8, Vec<u64>)>,
    /// Retransmissions of the pending contribution.
    pub(super) attempts: u8,
    /// Node-level pre-reduction (003 \[0055\]): the other end nodes of this representative's host whose
    /// operands (their own contexts' `operands`) it reduces with its own before it contributes.
    pub(super) group: Vec<usize>,
    /// The round whose result this participant still waits for, since its contribution left (issue 20:
    /// [`Fabric::participant_watch`]); the result (COMPLETION code 2 / 3) ends it.
    pub(super) watch: Option<ResultWatch>,
}

/// A participant's wait for its round's result (issue 20, 000 \[0098\], \[0117\]): where its
/// contribution went, with which P_ID, TID and operands; whether the engine said it was counted
/// (DuplicateContribution); the RETRYs sent; the time before which a timer is an earlier one's.
#[derive(Clone, Debug)]
pub(super) struct ResultWatch {
    pub(super) to: u16,
    pub(super) pid: u16,
    pub(super) tid: u8,
    pub(super) operands: Vec<u64>,
    pub(super) counted: bool,
    pub(super) retries: u8,
    pub(super) due: Ps,
}

/// A target of several roots (003 \[0062\]): it collects each root's end result (the COMPLETION with
/// the result its root's master sends to its upstream) and reduces them into the job's result.
#[derive(Clone, Debug, Default)]
pub(super) struct TargetCtx {
    pub(super) operation: u8,
    /// Each root tree: (root engine's device ID, CC_ID, its end result once it arrived).
    pub(super) roots: Vec<(u16, u16, Option<Vec<u64>>)>,
    /// The reduction of every root's end result, and when the last one arrived.
    pub(super) result: Option<(Ps, Vec<u64>)>,
}

/// One root's end result of the open round: its TID, contributions counted, error mark, operands.
#[derive(Clone, Debug)]
pub(super) struct RootResult {
    pub(super) tid: u8,
    pub(super) count: u16,
    pub(super) error: bool,
    pub(super) operands: Vec<u64>,
}

/// A target that combines several roots' end results and sends the job's result down (an all-reduce
/// of several roots, `crate::manager::Action::Target` with `send_down`; its behaviour is `target.rs`'s).
#[derive(Clone, Debug, Default)]
pub(super) struct SendDownTarget {
    pub(super) operation: u8,
    /// Each root tree: (root engine's device ID, CC_ID).
    pub(super) roots: Vec<(u16, u16)>,
    /// Each root's end result of the open round, once it arrived.
    pub(super) open: Vec<Option<RootResult>>,
    /// Each root's end result of the last answered round and the COMPLETION sent to it: sent again if
    /// that root repeats that RESPONSE (the COMPLETION was lost and the root retries,
    /// `docs/blocks/cpu.md` §Timers).
    pub(super) sent: Vec<Option<(RootResult, CollectiveMessage)>>,
    /// The job's result of each completed round, with when the last root's end result arrived.
    pub(super) results: Vec<(Ps, Vec<u64>)>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct EndNode {
    pub(super) ctx: SmallMap<EndCtx>,
    /// Respond as soon as the command arrives (after `compute`) instead of on [`Fabric::respond_all`].
    pub(super) auto: Option<Ps>,
    /// Resend an unanswered contribution after this long, at most this many times (001: a participant
    /// that missed the Exit contributes again and is answered "already completed").
    pub(super) retry: Option<(Ps, u8)>,
    /// A participant whose result is late asks its engine for it with a RETRY every this long, at most
    /// this many times ([`Fabric::participant_watch`]; `None`: never).
    pub(super) watch: Option<(Ps, u8)>,
    /// Targets of several roots this end node is (`Action::Target`).
    pub(super) targets: Vec<TargetCtx>,
    /// Targets of several-root all-reduces this end node is (`Action::Target` with `send_down`).
    pub(super) send_down: Vec<SendDownTarget>,
}

pub(super) struct CycleEngine {
    pub(super) e: PacketEngine,
    pub(super) id: u16,
    /// Last cycle stepped (None before the first).
    pub(super) last: Option<u64>,
    /// Frames waiting for the receive port, with the first cycle their first beat may enter.
    pub(super) rx: VecDeque<(u32, u64)>,
    /// Beats of the head frame already taken.
    pub(super) rx_beat: usize,
    pub(super) out: Vec<u8>,
    /// Cycle of the first beat of the frame in `out`.
    pub(super) out_first: u64,
    pub(super) vl_taken: u8,
    pub(super) last_activity: u64,
    /// Stepped every cycle (in [`Fabric::awake`]); otherwise asleep.
    pub(super) active: bool,
    /// Asleep with a running CPU timer or in the interposer's clearing sweep: the cycle of its wake-up
    /// ([`Ev::Wake`]).
    pub(super) wake_at: Option<u64>,
    /// Cycles stepped (for the performance report).
    pub(super) steps: u64,
    /// Failed (fault injection): no more cycles, frames to it are lost.
    pub(super) stopped: bool,
    /// CPU events seen on `cpu_stat_*`, by event code (`inswitch_model::cpu::event`).
    pub(super) events: Vec<u64>,
    /// The port family (`cfg_family`) of the frame at the receive port ([`portals`]).
    pub(super) family: bool,
}

#[derive(Clone, Debug, Default)]
pub(super) struct StandInCtx {
    pub(super) role: Option<Role>,
    pub(super) members: Vec<(u16, bool)>,
    pub(super) upstream: u16,
    pub(super) pending: usize,
    pub(super) p_count: usize,
}

#[derive(Clone, Debug, Default)]
pub(super) struct StandIn {
    pub(super) id: u16,
    pub(super) ctx: HashMap<u16, StandInCtx>,
}

pub(super) enum EngineSlot {
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
    /// Wake-ups of engines asleep in the interposer's clearing sweep after their reset, in the sweep's
    /// last cycle.
    pub sweep_wakes: u64,
    /// Frames dropped by a switch for an unknown destination.
    pub unroutable: u64,
    /// Frames dropped because the live fabric cannot take them further: no route to the destination's
    /// switch around failed links and switches, or the frame reached a failed switch.
    pub unreachable: u64,
    /// Frames an engine sent out of `m_axis_egress` (never expected: its only route is its own port).
    pub egress_frames: u64,
    /// Frames an engine's output queue dropped because no route entry matched (`stat_route_miss`): an
    /// engine that emits before its bring-up's route entry 0 has reached it (never expected: the
    /// bring-up runs until quiet before any plan, `docs/fabric.md` §Two masters, the lost relays).
    pub route_misses: u64,
    /// Frames end nodes dropped because their LCRC did not match (corrupted on a link).
    pub end_node_lcrc_drops: u64,
    /// Contributions end nodes sent again (retry timer).
    pub end_node_retries: u64,
    /// STARTs sources sent again (not acknowledged in time, [`Fabric::start_acked`]).
    pub start_retries: u64,
    /// INITIALIZATIONs sources sent again (not acknowledged in time, [`Fabric::reinitialize_acked`]).
    pub init_retries: u64,
    /// STARTs sources sent again after the acknowledgement, the result not in yet
    /// ([`Fabric::start_watched`]).
    pub start_watch_retries: u64,
    /// RETRY requests sources sent for a result that did not come after the acknowledgement
    /// ([`Fabric::start_watched`]; the master resends its kept result, `docs/blocks/cpu.md` §Messages).
    pub result_retries: u64,
    /// FAILURE DuplicateContribution replies end nodes read as "received" (000 \[0143\] (a): the
    /// retried contribution had arrived; its retries stop).
    pub duplicate_acks: u64,
    /// RETRYs participants sent for their round's missing result ([`Fabric::participant_watch`]).
    pub participant_retries: u64,
    /// Contributions participants resent on a NothingToResend answer to such a RETRY (the round still
    /// open, their contribution not known to be counted).
    pub participant_resends: u64,
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
    /// Every channel ([`Fabric::channel`]; ISLs' implicit until they carry a frame, `sim::channels`).
    pub(super) channels: Channels,
    pub(super) up: Vec<usize>,
    pub(super) down: Vec<usize>,
    pub(super) to_engine: Vec<usize>,
    pub(super) from_engine: Vec<usize>,
    /// Every frame ever sent. A frame's `bytes` are released (left empty) once its last receiver has
    /// taken it (an end node, or an engine its last beat) unless `keep_frame_bytes`, `cfg.capture` or
    /// fault injection is on (pcap output and the fault log read frames after the run); its other
    /// fields stay.
    pub frames: Vec<Frame>,
    /// Keep every frame's bytes after delivery (see `frames`).
    pub keep_frame_bytes: bool,
    /// The event queue by (time, order of scheduling): a radix heap by time, FIFO within a time
    /// (`sim::queue`; a B-tree until session 19, a binary heap before).
    pub(super) heap: EventQueue<Ev>,
    /// The queued [`Ev::ToEngine`] events (time, order, switch, frame): each bounds its engine's
    /// engine-major window (`sim::window`).
    pub(super) to_engine_queued: BTreeSet<(Ps, u64, u32, u32)>,
    pub(super) order: u64,
    pub(super) now: Ps,
    pub(super) cycle: u64,
    pub(super) engines: Vec<EngineSlot>,
    /// The active cycle engines, the only ones a cycle visits (sorted before a cycle when `awake_sorted`
    /// is false: engines step in switch order, as without skipping).
    pub(super) awake: Vec<u32>,
    pub(super) awake_sorted: bool,
    /// Engines asleep with a running CPU timer or in their clearing sweep (a wake-up event each in the
    /// heap): while there are any, the engine clock runs as if they were stepped (`run_until_quiet`).
    pub(super) timer_sleepers: usize,
    pub(super) ends: Vec<EndNode>,
    /// Collective messages delivered to end nodes and engines.
    pub log: Vec<Delivery>,
    /// Frames on channels (when `cfg.capture`).
    pub captured: Vec<Captured>,
    /// Counters.
    pub stats: Stats,
    pub(super) seq: u16,
    /// Fault injection (`None`: a fault-free fabric).
    pub faults: Option<FaultInjector>,
    /// The last INITIALIZATION sent to each engine, per CC_ID: (sending end node, engine ID, requester
    /// ID, message), for [`Fabric::reinitialize`].
    pub(super) inits: HashMap<u16, Vec<(usize, u16, u16, CollectiveMessage)>>,
    /// The source's transaction ID per CC_ID (001): the TID of its last INITIALIZATION, carried by its
    /// START and CONTROL messages; [`Fabric::reinitialize`] advances it.
    pub(super) source_tids: HashMap<u16, u8>,
    /// Non-posted STARTs not acknowledged yet, per CC_ID ([`Fabric::start_acked`]).
    pub(super) starts: HashMap<u16, PendingStart>,
    /// Non-posted INITIALIZATIONs not acknowledged yet, per CC_ID ([`Fabric::reinitialize_acked`]).
    pub(super) pending_inits: HashMap<u16, PendingInits>,
    /// Every CPU event (time, switch, event code, context), when `Some` (off by default).
    pub cpu_log: Option<Vec<(Ps, u16, u8, u16)>>,
    /// Soft Portals reduction trees: switch multicast forwarding, end nodes ([`super::portals`]).
    pub portals: Portals,
    /// Frames engines took into their receive queue inside engine-major windows (`sim::window`): a
    /// scheduling counter, kept out of [`Stats`], which is the same with and without windows.
    pub window_frames: u64,
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

pub(super) fn beats_of(bytes: &[u8]) -> usize {
    bytes.len().div_ceil(BEAT_BYTES).max(1)
}

impl Fabric {
    /// A fabric at time 0 with every engine at power-on (cycle engines are reset in their first
    /// [`RESET_CYCLES`] cycles).
    pub fn new(topo: Topology, cfg: SimConfig) -> Result<Fabric, SimError> {
        let routes = Routes::new(&topo)?;
        // Up and down per end node, the directed ISLs (implicit until used, `sim::channels`), to and
        // from each engine.
        let channel = |kind, link| Channel { kind, link, free_at: 0, frames: 0, bytes: 0 };
        let (ends, switches) = (topo.endpoints.len(), topo.switches.len());
        let mut links: Vec<Channel> = topo.endpoints.iter().enumerate().map(|(i, e)| channel(ChannelKind::Up(i), e.link)).collect();
        links.extend(topo.endpoints.iter().enumerate().map(|(i, e)| channel(ChannelKind::Down(i), e.link)));
        let mut ports: Vec<Channel> = (0..switches).map(|s| channel(ChannelKind::ToEngine(s), topo.engine_port)).collect();
        ports.extend((0..switches).map(|s| channel(ChannelKind::FromEngine(s), topo.engine_port)));
        let channels = Channels::new(links, routes.directed_count(), ports);
        let (up, down) = ((0..ends).collect(), (ends..2 * ends).collect());
        let to_engine = (0..switches).map(|s| channels.after_isls(s)).collect();
        let from_engine = (0..switches).map(|s| channels.after_isls(switches + s)).collect();
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
        let portals = Portals::new(&topo);
        Ok(Fabric {
            topo,
            routes,
            cfg,
            channels,
            up,
            down,
            to_engine,
            from_engine,
            frames: Vec::new(),
            keep_frame_bytes: false,
            heap: EventQueue::new(),
            to_engine_queued: BTreeSet::new(),
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
            starts: HashMap::new(),
            pending_inits: HashMap::new(),
            cpu_log: None,
            portals,
            window_frames: 0,
        })
    }

    /// Current time.
    pub fn now(&self) -> Ps {
        self.now
    }

    /// Channel index of directed ISL `i`.
    pub fn isl_channel(&self, i: usize) -> usize {
        self.channels.isl_channel(i)
    }

    /// Channel `c` (panics if there is none, as an index would).
    pub fn channel(&self, c: usize) -> Channel {
        self.channels.get(c, &self.routes)
    }

    /// Every channel, in index order (a directed ISL no frame entered has zero counters).
    pub fn channels(&self) -> impl Iterator<Item = Channel> + '_ {
        self.channels.iter(&self.routes)
    }

    /// Number of channels.
    pub fn channel_count(&self) -> usize {
        self.channels.len()
    }

    /// Channel index of switch `s`'s port into its engine.
    pub fn to_engine_channel(&self, s: usize) -> usize {
        self.to_engine[s]
    }

    pub(super) fn push(&mut self, t: Ps, ev: Ev) {
        self.order += 1;
        if let Ev::ToEngine { f, sw, .. } = ev {
            self.to_engine_queued.insert((t, self.order, sw, f));
        }
        self.heap.push(t, self.order, ev);
    }

    pub(super) fn next_seq(&mut self) -> u16 {
        self.seq = self.seq.wrapping_add(1);
        self.seq
    }

    pub(super) fn wire_len(&self, bytes: &[u8]) -> u32 {
        let real = bytes.len() as u32;
        let Some(n) = self.cfg.nominal else { return real };
        match wire::collective_of(bytes).map(|m| m.header.kind) {
            Some(2 | 3) => n.command,
            Some(4 | 5) => n.response,
            Some(6) => n.result,
            _ => real,
        }
    }

    pub(super) fn new_frame(&mut self, bytes: Vec<u8>, origin: u16) -> u32 {
        let dst = wire::destination(&bytes).unwrap_or(0xFFFF);
        let wire_len = self.wire_len(&bytes);
        self.frames.push(Frame { bytes, wire_len, dst, origin, via: None });
        (self.frames.len() - 1) as u32
    }

    /// Frame `f` has reached its last receiver: its buffer is freed, unless frames are read after the
    /// run (see [`Fabric::frames`]). Why: 340,984 frames at 64,512 end nodes were all kept for the run,
    /// each new one in memory not touched before; a freed buffer is what the allocator hands the next
    /// frame of its size, still in the caches (a pool of our own measured slower, docs/performance.md
    /// §Session 19).
    pub(super) fn release(&mut self, f: u32) {
        if self.keep_frame_bytes || self.cfg.capture || self.faults.is_some() {
            return;
        }
        drop(std::mem::take(&mut self.frames[f as usize].bytes));
    }

    /// Schedules end node `e` to send `bytes` at `at`.
    pub fn send_from(&mut self, e: usize, at: Ps, bytes: Vec<u8>) {
        let f = self.new_frame(bytes, self.topo.endpoints[e].id);
        self.push(at.max(self.now), Ev::Send { f, e: e as u32 });
    }

    /// The frame on channel `c` from `head`/`tail`: returns the head and tail at the far end.
    pub(super) fn traverse(&mut self, c: usize, f: u32, head: Ps, tail: Ps) -> (Ps, Ps) {
        let len = self.frames[f as usize].wire_len;
        self.frames[f as usize].via = Some(c);
        let ch = self.channels.get_mut(c, &self.routes);
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

    pub(super) fn record(&mut self, f: u32, at: Ps, to: u16) -> Option<CollectiveMessage> {
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

    /// End node `from` sends, at `at`, a 1-DW register write of `value` to byte offset `off` of switch
    /// `s`'s engine window (`docs/blocks/register_space.md`), with its own requester ID.
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

    /// Frames carried by each channel of `kind` (a filter), for reports.
    pub fn channel_frames(&self, pick: impl Fn(ChannelKind) -> bool) -> Vec<(usize, u64)> {
        self.channels().enumerate().filter(|(_, c)| pick(c.kind)).map(|(i, c)| (i, c.frames)).collect()
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
}

