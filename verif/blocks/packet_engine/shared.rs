//! What the top's stimulus, scoreboard and directed tests share: the bench's straps and constants,
//! the traffic modes, the Verilated top's type and parameters, and the channel from the observed model
//! to the scoreboard.

use std::cell::Cell;
use std::rc::Rc;

use inswitch_frames::collective;
use inswitch_model::Block;
use inswitch_model::packet_engine::{EngineIn, EngineOut, EngineParams, PacketEngine};

use crate::HarnessError;
use crate::verilated::VerilatedDut;

/// Cycles after a reset before the stimulus uses the CPU back door (`cpu_cfg_wr_*`): the register space's
/// post-reset copy to the CPU (10 writes from the second cycle after the reset) has priority over it.
pub const CPU_BACK_DOOR_DELAY: u64 = 12;

/// The Verilated top.
pub type PacketEngineRtl = VerilatedDut<EngineIn, EngineOut>;

/// The engine's device ID (strap).
pub const ENGINE_ID: u16 = 0x0010;
/// This port's number (strap); the output queue's port 7 is injection.
pub const PORT: u8 = 7;
/// The other port the routes use.
pub const OTHER_PORT: u8 = 3;
/// The configuring master's requester ID.
pub const MASTER: u16 = 0x0001;
/// VL-queue depth of the testbench, in beat slots.
pub const VL_DEPTH: i64 = 24;
pub(super) const ETHERTYPE: u16 = 0x88B5;
pub(super) const VNI: u16 = 0x0042;
/// Participants (PBV table entries 0-3 of the CPU).
pub(super) const PARTICIPANTS: [u16; 4] = [0x0011, 0x0012, 0x0013, 0x8014];
/// Register writes of one accepted short configuration message of the stimulus (it names the PARTICIPANTS,
/// tag [`CONFIG_TAG`]): 2 per entry and 3 fixed ones (docs/blocks/input_checker.md §Configuration
/// messages). A long one's W is read from its bytes ([`LONG_CONFIG_TAGS`]).
pub(super) const CONFIG_WRITES_PER_MESSAGE: i64 = 2 * PARTICIPANTS.len() as i64 + 3;
/// The tag of the stimulus's configuration messages, which their register writes carry (`m_reg_rsp_tag`):
/// no other register access of the stimulus has it (writes are tag 0, reads avoid it), so the scoreboard
/// counts an accepted message's writes exactly.
pub(super) const CONFIG_TAG: u8 = 0xC5;
/// Device IDs of a long configuration message of the stimulus: past the checker's 128-byte capture, its
/// slots read from the slot store (docs/blocks/input_checker.md §Configuration messages, 000 [0157]: "up
/// to 128 PBVs"). Entries 0-3 are the [`PARTICIPANTS`], the others [`LONG_CONFIG_ID_BASE`] + i.
pub(super) const LONG_CONFIG_DEVICES: std::ops::RangeInclusive<u16> = 41..=128;
/// Device ID of a long message's entry i ≥ 4: no other frame of the stimulus names it.
pub(super) const LONG_CONFIG_ID_BASE: u16 = 0x4000;
/// Tags of the long configuration messages, one per device count (`long_config_tag`), which their writes
/// carry: the scoreboard counts each message's writes apart from the others' (no other register access of
/// the stimulus has one of them) and takes W = 2 n_devices + 3 from the message's own bytes.
pub const LONG_CONFIG_TAGS: std::ops::RangeInclusive<u16> = 0x20..=0x20 + (128 - 41);

/// The tag of a long configuration message of `n` device IDs.
pub(super) fn long_config_tag(n: u16) -> u8 {
    (LONG_CONFIG_TAGS.start() + (n - LONG_CONFIG_DEVICES.start())) as u8
}
/// The tag of the stimulus's flit-mode register writes (docs/blocks/input_checker.md §Flit-mode TLPs: the
/// register path carries the flit tag's low ten bits): no other register access of the stimulus has it,
/// so the scoreboard counts the flit-mode writes the engine answered.
pub(super) const FLIT_REG_TAG: u16 = 0x2A7;
/// The tag of the stimulus's register writes encapsulated in kind 10 (payload type 2, docs/frames.md §4;
/// a VDM's 8-bit tag): no other register write of the stimulus has it, so the scoreboard counts the
/// encapsulated writes the engine took.
pub(super) const ENCAP_REG_TAG: u8 = 0xE7;
/// Probability that a random frame of a TLP port in a mixed phase is sent on a flit-mode link
/// (`cfg_flit`, docs/blocks/interposer.md §Flit-mode links).
pub(super) const FLIT_FRAME_WEIGHT: f64 = 0.08;
/// TLP contexts with a static entry (CC_ID).
pub(super) const TLP_CTX: [u16; 3] = [1, 2, 3];
/// Multicast trees armed in the interposer (wait count > 0) and their static entries.
pub(super) const TREES: [u16; 2] = [4, 5];
pub(super) const RESET_CYCLES: u64 = 3;
/// The 2-bit transaction ID's mask (001; `collective::TID_BITS`).
pub(super) const TID_MASK: u8 = (1 << collective::TID_BITS) - 1;
pub(super) const DRAIN_CYCLES: u64 = 3000;

/// Traffic mode of a stimulus phase, drawn with every new phase (docs/verification.md §Packet-engine top).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrafficMode {
    /// The random mix of every frame kind, sinks and credit returns as the phase's profile says.
    Mixed,
    /// Emission pressure: back-to-back frames that make the engine emit frames for this port (CONTROL
    /// commands the CPU replicates to every PBV participant and acknowledges, acknowledged
    /// INITIALIZATIONs, register reads answered by completions), while the VL queue returns its slots
    /// slowly. The injection reserve runs dry, the output queue and everything behind it back up to the
    /// interposer's extraction path, and receive frame starts wait behind it while the engine has frames
    /// to inject: the interposer's start contention (docs/blocks/interposer.md §Arbitration).
    Emit,
}

/// Probability that a phase is an [`TrafficMode::Emit`] phase.
pub const EMIT_PHASE_WEIGHT: f64 = 0.25;
/// The VL queue's chance per cycle of returning slots during an emit phase: one or two slots about every
/// tenth cycle, well below the rate at which the CPU emits, so that the injection reserve is the
/// bottleneck.
pub(super) const EMIT_DRAIN: f64 = 0.1;
/// PBV of the INITIALIZATIONs of an emit phase: the three participants routed to this port.
pub(super) const EMIT_PBV: u128 = 0b0111;

/// Parameters of a Verilated top, from its build.rs entry over the RTL defaults.
pub fn params_of(model: &str) -> Result<EngineParams, HarnessError> {
    Ok(inswitch_model::registry::typed::packet_engine(&crate::targets::model_params(model)?))
}

/// What the stimulus tells the scoreboard: the cycle to check the balances on (end of a drain), the
/// receive beats and frames it still had to send then, and its seed (for liveness messages).
#[derive(Clone, Default)]
pub struct Shared {
    pub(super) check: Rc<Cell<bool>>,
    pub(super) unsent: Rc<Cell<(usize, usize)>>,
    pub(super) seed: Rc<Cell<u64>>,
    /// The model's interposer start contention of this cycle ([`ObservedEngine`]).
    pub(super) contention: Rc<Cell<bool>>,
    /// Flit-mode register writes sent this episode that the document says the engine takes as register
    /// accesses (a valid MWr32/MWr64 of one DW below the mailbox, docs/blocks/input_checker.md §Flit-mode
    /// TLPs): each is answered once on the response tap, OK or rejected as the lock says.
    pub(super) flit_reg_writes: Rc<Cell<i64>>,
}

/// The top's model as the lockstep steps it, passing the interposer's start contention
/// ([`PacketEngine::start_contention`], a model observation the RTL has no port for) to the scoreboard
/// for functional coverage. Its outputs are the model's, unchanged.
pub struct ObservedEngine {
    engine: PacketEngine,
    shared: Shared,
}

impl ObservedEngine {
    /// Wraps `engine`, reporting into `shared`.
    pub fn new(engine: PacketEngine, shared: Shared) -> Self {
        ObservedEngine { engine, shared }
    }

    /// The wrapped model.
    pub fn engine(&self) -> &PacketEngine {
        &self.engine
    }
}

impl Block for ObservedEngine {
    type In = EngineIn;
    type Out = EngineOut;

    fn step(&mut self, i: &EngineIn) -> EngineOut {
        let o = self.engine.step(i);
        self.shared.contention.set(self.engine.start_contention());
        o
    }
}

/// Cycles the scoreboard allows without progress (a beat taken on any port, a register response, an
/// event, a credit returned) while work is pending (a receive beat offered, an output valid) before it
/// reports a deadlock. The stimulus's sinks stall in gaps that continue with probability at most 0.95
/// per cycle (`stimulus::Profile`), so a legitimate 5,000-cycle standstill has a probability below
/// 10^-100; the engine's deepest pipeline is 35 cycles.
pub const LIVENESS_CYCLES: u64 = 5_000;
