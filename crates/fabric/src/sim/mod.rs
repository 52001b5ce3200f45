//! The fabric simulator: a discrete-event simulation in picoseconds of links, switch crossbars and end
//! nodes, with the cycle-level packet-engine model ([`inswitch_model::packet_engine::PacketEngine`], the same model the lockstep cosim
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
//!   changing state is then the CPU's timer prescaler and running timers (`Descriptor::timer_runs`)
//!   and, after its reset, the index of the interposer's clearing sweep (which holds receive: a frame
//!   waits at the port). With no timer running and the sweep over it sleeps until a frame arrives; with
//!   timers running (a context waiting for contributions) or in the sweep it also gets a wake-up event
//!   at the cycle whose tick expires the first timer (`Cpu::cycles_to_expiry`) or at the sweep's last
//!   cycle, which is stepped. On waking, the model puts it in exactly the state the skipped cycles would
//!   have (`PacketEngine::advance_idle`, which checks that the engine is idle under the input it had and
//!   that no timer expires in the skipped cycles, and advances prescaler, timers and sweep in closed form).
//!   The tests `skip_is_exact_*` compare every frame and its timing with and without skipping.
//!
//! The **table-arithmetic stand-in** ([`EngineKind::TableArithmetic`]) replaces the engines only for
//! the serialization-only reproduction of Table 1 (zero processing time, the fan-out of the roles, the
//! table's frame sizes); its traffic is checked against the cycle engines' in `tests/`.
//!
//! Layout, by role (each a set of `Fabric` methods over the state defined in `fabric`):
//! `fabric` (state, frames, the event queue), `queue` (the event queue's radix heap), `channels` (the links' directions, ISLs implicit until
//! used), `events` (the event loop), `engine` (the
//! cycle engines and idle skipping), `end_node` (end nodes and the source's commands), `target` (the target of a several-root
//! all-reduce, which sends the job's result down every tree), `stand_in`
//! (the table-arithmetic stand-in), `window` (engine-major windows of cycles), `failures` (fault injection on links, failing links, switches and
//! engines), [`portals`] (Soft Portals trees: their state and results) and `portals_fabric` (their
//! switch multicast and root and leaf end nodes). Configuration from a plan is `crate::drive`'s.

mod channels;
mod end_node;
mod engine;
mod events;
mod fabric;
mod failures;
pub mod portals;
mod portals_fabric;
mod queue;
mod small_map;
mod stand_in;
mod target;
mod window;

pub use end_node::{fold_operands, HOST_LOCAL_PS};
pub use engine::{bring_up_timeouts, QUIET_CYCLES};
pub use channels::{Channel, ChannelKind};
pub use fabric::{Captured, Delivery, EngineKind, Fabric, Frame, NominalSizes, SimConfig, SimError, Stats, BEAT_BYTES, ENGINE_CLOCK_PS, ENGINE_PORT, RESET_CYCLES, SIM_STATIC_ENTRIES};
