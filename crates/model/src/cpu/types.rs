//! Types the sequencer (`mod.rs`) and its states' files share: kept apart from both so that the parent
//! and its children import them without importing each other.

/// Results of the associative lookups (registered in state `LOOKUP`; the participant's in `SCAN` too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Lookup {
    pub(super) s_hit: bool,
    pub(super) s_idx: usize,
    pub(super) d_hit: bool,
    pub(super) d_idx: usize,
    pub(super) f_hit: bool,
    pub(super) f_idx: usize,
    pub(super) p_hit: bool,
    pub(super) p_idx: usize,
    /// The requester is the device of entry `p_idx` (000 [0094], [0169]): always so for a reverse lookup;
    /// for a given P_ID, the entry is valid and holds `m.src[15:0]` (`docs/blocks/cpu.md` §Messages).
    pub(super) p_sender: bool,
}
