//! What the checker decides for a frame ([`Verdict`]) and the configuration it decides with
//! ([`CheckerConfig`]): a leaf shared by the checks ([`super::classify`], [`super::collective`]) and the
//! pipeline ([`super`]).

use super::codes::event;
use super::config::ConfigWrites;
use super::protocol::RegAccess;
use crate::message::CollectiveMsg;

/// The checker's configuration inputs (from the register space, and the engine's device ID).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckerConfig {
    /// The engine's device ID (its switch's ID; the upper half of its 32-bit window address).
    pub engine_id: u16,
    /// Soft Portals EtherType.
    pub ethertype: u16,
    /// Collective VDM vendor ID.
    pub vendor_id: u16,
    /// [`validation`] bits.
    pub validation: u8,
    /// Allowed VNIs: valid bits and values.
    pub vni_valid: u8,
    /// Allowed VNIs, entry i in bits 16i+15:16i.
    pub vni: u64,
}


/// Where a frame goes.
///
/// `Config` (312 bytes: the message's slots) is much larger than the other variants (`Msg` 96 bytes) and
/// is not boxed: a verdict is made and moved once per frame, not per cycle, and waits in stage D in
/// place (`Option<Decided>`, matched by reference), so the unboxed copy costs a 320-byte move per frame,
/// against a heap allocation per configuration frame on the step path (issue 23 took the allocations
/// out of it) and the loss of `Copy`.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// To the register space.
    Reg(RegAccess),
    /// To the CPU.
    Msg(CollectiveMsg),
    /// A configuration message (FIG. 4): its register writes, one at a time on the register path.
    Config(ConfigWrites),
    /// Dropped, with its [`event`] bit.
    Drop(u32),
}

impl Verdict {
    /// The [`event`] bit this verdict pulses.
    pub fn event(&self) -> u32 {
        match self {
            Verdict::Reg(_) | Verdict::Config(_) => event::ACCEPT_REG,
            Verdict::Msg(_) => event::ACCEPT_MSG,
            Verdict::Drop(e) => *e,
        }
    }
}
