//! The words of a job every manager module shares: its id, its wire family, an engine's role.

use inswitch_model::cpu::context::role;

/// Identifier of a placed job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub u32);

/// Which wire family the job's contexts use (`docs/blocks/cpu.md` §Context model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Family {
    /// PCIe TLP collective messages (seed 000): PBV tables and INITIALIZATION.
    #[default]
    Tlp,
    /// Portals reduction frames (seed 002): multicast entries with wait counts.
    Portals,
}

/// An engine's role in a context (000 \[0104\]-\[0111\]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The root: completes the collective, answers the source, distributes the result.
    Master,
    /// Sends one partial result up to its parent.
    Subservient,
}

impl Role {
    /// The static entry's role code (`docs/blocks/cpu.md` §Context model).
    pub fn code(self) -> u8 {
        match self {
            Role::Master => role::MASTER,
            Role::Subservient => role::SUBSERVIENT,
        }
    }
}
