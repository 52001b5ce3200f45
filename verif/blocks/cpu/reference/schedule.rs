//! The sequencer's documented cycle counts the reference times decisions with, written out from
//! docs/blocks/cpu.md (§Sequencer timing, §PBV table), not taken from the model.

use inswitch_model::message::{CollectiveMsg, Family, Kind};

/// docs/blocks/cpu.md §Sequencer timing, in cycles after a message is accepted: the decision of EXEC
/// takes effect (idle again after a drop, or the first EMIT / RATCHET / ISSUE cycle; accept, LOOKUP,
/// COMPARE, EXEC: 4 since session 22's COMPARE, 3 before).
pub(super) const EXEC_DONE: u64 = 4;
/// The CHECK cycle of a first Portals contribution, stored without combining.
pub(super) const CHECK_AFTER_STORE: u64 = 4;
/// docs/blocks/cpu.md §Sequencer: REDUCE waits for the reduction unit, whose latency
/// docs/blocks/reduce_unit.md §Timing gives (6 rising edges since session 15; 3 before).
pub(super) const REDUCE_CYCLES: u64 = 6;
/// The CHECK cycle of a combined contribution: ISSUE on A + 4, REDUCE A + 5 .. A + 4 + REDUCE_CYCLES.
pub(super) const CHECK_AFTER_COMBINE: u64 = EXEC_DONE + 1 + REDUCE_CYCLES;
/// docs/blocks/cpu.md §PBV table: a message whose participant is searched by device ID (a TLP
/// CONTRIBUTION or RESPONSE with P_ID 0xFFFF, a TLP INITIALIZATION or configuration message with a P_ID) spends this many cycles
/// in state SCAN (128 entries, 32 device IDs per RAM word and cycle) between its acceptance and LOOKUP:
/// every later cycle of its decision is that much later.
pub(super) const SCAN_CYCLES: u64 = 128 / 32;

/// The cycles `m` spends in SCAN (written out from docs/blocks/cpu.md §PBV table, not the model's rule).
pub(super) fn scan_cycles(m: &CollectiveMsg) -> u64 {
    let searched = match m.kind {
        // A configuration message's P_ID is the device ID of the engine it is for, as an INITIALIZATION's.
        Kind::INITIALIZATION | Kind::CONFIGURATION => m.pid != 0xffff,
        Kind::CONTRIBUTION | Kind::RESPONSE => m.pid == 0xffff,
        _ => false,
    };
    if m.family == Family::Tlp && searched {
        SCAN_CYCLES
    } else {
        0
    }
}
