//! The CPU's tables: the engine registers and PBV table (`docs/blocks/cpu.md` §Context model, §Ports), the static context
//! table and the descriptor pool. Field names are the RTL's (`st_<field>_reg`, `d_<field>_reg`,
//! `pbv_<field>_reg`) without prefix and suffix.

use crate::reduce::Contribution;

/// PBV-table entries: one per PBV bit (000 \[0155\], \[0157\]: up to 128).
pub const PBV_ENTRIES: usize = 128;
/// PBV-table entries whose device IDs one word of the RTL's device-ID RAM holds (`pbv_dev_mem`): the
/// reverse lookup of the requester (state `SCAN`) compares one word per cycle (`docs/blocks/cpu.md`
/// §PBV table).
pub const PBV_SCAN_ENTRIES: usize = 32;
/// Words of the device-ID RAM: the cycles a reverse lookup spends in state `SCAN`.
pub const PBV_SCAN_WORDS: usize = PBV_ENTRIES / PBV_SCAN_ENTRIES;
/// Width of a timeout register, in ticks (002 (80)).
pub const TIMEOUT_BITS: u32 = 24;
/// Number of timeout registers (002 (80)).
pub const TIMEOUTS: usize = 4;
/// Number of wait-count thresholds that select among the [`TIMEOUTS`] (002 (54)).
pub const THRESHOLDS: usize = TIMEOUTS - 1;
/// Width of a timer: a timeout doubled for a master (000 \[0154\]).
pub const TIMER_BITS: u32 = TIMEOUT_BITS + 1;
/// Width of the retry-attempt counter (000 \[0117\]).
pub const ATTEMPT_BITS: u32 = 4;
/// Width of a static-table key: a 12-bit CC_ID or a 13-bit multicast tree (002 (61)).
pub const STATIC_KEY_BITS: u32 = 13;

/// Static-entry roles (000 \[0104\]-\[0111\]).
pub mod role {
    /// Sends one partial result up to its parent.
    pub const SUBSERVIENT: u8 = 0;
    /// Completes the collective and sends the result down.
    pub const MASTER: u8 = 1;
}

/// The collective state machine of seed 001: a ratchet that only moves forward, one step at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CtxState {
    /// Armed / active, no contribution yet this round.
    #[default]
    Idle = 0,
    /// At least one contribution of this round folded in.
    Filling = 1,
    /// Every expected contribution arrived (or the partial result went up on a timeout).
    Full = 2,
    /// The round is being released: results go out.
    Exiting = 3,
}

impl CtxState {
    /// The state from its 2-bit encoding.
    pub fn from_bits(b: u8) -> CtxState {
        [CtxState::Idle, CtxState::Filling, CtxState::Full, CtxState::Exiting][usize::from(b & 3)]
    }

    /// The next state of the ratchet.
    pub fn next(self) -> CtxState {
        CtxState::from_bits(self as u8 + 1)
    }
}

/// One PBV-table entry: PBV bit i ↔ device ID (000 \[0155\]), and whether the participant is a switch
/// (an engine below this one) or an end device (000 \[0096\]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PbvEntry {
    /// The entry maps to a device.
    pub valid: bool,
    /// The participant is a switch (sends RESPONSEs), not an end device (sends CONTRIBUTIONs).
    pub switch: bool,
    /// 16-bit device ID.
    pub device_id: u16,
}

/// One static-table entry (`docs/blocks/cpu.md` §Context model): configuration, and for TLP contexts the information stored
/// by INITIALIZATION (000 \[0141\] (a)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StaticEntry {
    /// In use.
    pub valid: bool,
    /// Portals (true) or TLP (false).
    pub portals: bool,
    /// CC_ID or multicast tree.
    pub key: u16,
    /// [`role`].
    pub role: u8,
    /// Portals wait count.
    pub wait: u32,
    /// The fields below hold an initialized context.
    pub stored: bool,
    /// Stored PBV.
    pub pbv: u128,
    /// Stored p_count.
    pub pcount: u32,
    /// Stored opcode.
    pub op: u8,
    /// Stored initial accumulator.
    pub data: [u64; 4],
    /// Stored DMU_ID.
    pub dmu_id: u16,
    /// Requester ID of the upstream requester (000 \[0097\]).
    pub upstream: u16,
    /// Responses of this context are posted.
    pub posted: bool,
    /// Transaction ID (001).
    pub tid: u8,
    /// Reduce to one target (003 \[0052\], \[0060\]): a MASTER sends the result to `upstream` only and
    /// its participants a COMPLETION `ROUND_DONE` without the result (`docs/blocks/cpu.md` §Messages).
    pub one_target: bool,
}

/// One descriptor: the dynamic state of a live context (`docs/blocks/cpu.md` §Context model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Descriptor {
    /// Allocated.
    pub valid: bool,
    /// Portals (true) or TLP (false).
    pub portals: bool,
    /// Full context key (TLP: CC_ID; Portals: reduction id and tree).
    pub key: u16,
    /// Static entry it was allocated from (the key's, `key mod STATIC_ENTRIES`).
    pub sidx: u16,
    /// Role, copied from the static entry.
    pub role: u8,
    /// Collective state machine (001).
    pub state: CtxState,
    /// Failure flag (001).
    pub failure: bool,
    /// Paused by CONTROL PAUSE.
    pub paused: bool,
    /// Tracking PBV (000 \[0141\] (b)).
    pub pbv: u128,
    /// Tracking p_count.
    pub pcount: u32,
    /// rt_count: contributions folded in (saturating).
    pub count: u32,
    /// Wait count (Portals).
    pub wait: u32,
    /// The accumulator holds a value.
    pub acc_valid: bool,
    /// The accumulator.
    pub acc: Contribution,
    /// Armed VNI.
    pub vni: u16,
    /// Armed cookie.
    pub cookie: u32,
    /// Armed sequence number.
    pub seqno: u16,
    /// DFA of the tree.
    pub dst: u32,
    /// Parent port.
    pub port: u8,
    /// TLP: the accumulator, `count`, [`Descriptor::res_code`] and [`Descriptor::res_error`] hold the
    /// result of the round just completed (TID − 1), kept for a RETRY until the next round's first
    /// contribution (`docs/blocks/cpu.md` §Messages "Kept result").
    pub kept: bool,
    /// The completion code the kept result went out with (2, 3, or the parent's code at a subservient).
    pub res_code: u8,
    /// The kept result's error mark.
    pub res_error: bool,
    /// TLP: the context's responses are posted.
    pub posted: bool,
    /// Timer, in ticks.
    pub timer: u32,
    /// Timer reload value.
    pub load: u32,
    /// The timer ran out; not yet handled.
    pub expired: bool,
    /// Retransmissions of the last RESPONSE.
    pub attempts: u8,
    /// The last RESPONSE was marked as an error.
    pub sent_error: bool,
}

impl Descriptor {
    /// Whether the timer counts this tick (`docs/blocks/cpu.md` §Timers).
    pub fn timer_runs(&self) -> bool {
        if !self.valid || self.expired || self.paused {
            return false;
        }
        if self.portals {
            matches!(self.state, CtxState::Idle | CtxState::Filling)
        } else {
            self.state == CtxState::Filling
                || (self.state == CtxState::Full && self.role != role::MASTER && !self.posted)
        }
    }
}
