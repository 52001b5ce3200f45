//! The CPU's functional coverage: named counters, the counters every CI run must see, the event cross.

/// Functional coverage: named counters.
#[derive(Default)]
pub(super) struct Coverage {
    /// Every named counter seen so far, in first-seen order.
    pub(super) counts: Vec<(&'static str, u64)>,
    /// The most contexts live at once.
    pub(super) max_live: u64,
}

impl Coverage {
    /// Counts one `name`.
    pub(super) fn bump(&mut self, name: &'static str) {
        self.add(name, 1);
    }

    fn add(&mut self, name: &'static str, n: u64) {
        match self.counts.iter_mut().find(|(k, _)| *k == name) {
            Some((_, v)) => *v += n,
            None => self.counts.push((name, n)),
        }
    }

    /// Counts a context state transition out of state `from` (0 idle, 1 filling, 2 full, 3 exiting).
    pub(super) fn transition(&mut self, from: u8) {
        self.bump(["idle_to_filling", "filling_to_full", "full_to_exiting", "exiting_to_idle"][usize::from(from & 3)]);
    }

    /// Counts a contribution's operation class.
    pub(super) fn op(&mut self, op: u8) {
        // Classes by the literal opcode table of the sources (`crate::sources`), not the model's decoder.
        use crate::sources::Op;
        self.bump(match crate::sources::op(op) {
            Some(Op::Barrier) => "op_barrier",
            Some(Op::BitAnd | Op::BitOr | Op::BitXor | Op::LogAnd | Op::LogOr | Op::LogXor) => "op_bitwise",
            Some(Op::IntMin | Op::IntMax | Op::IntSum) => "op_integer",
            Some(Op::IntMinMaxLoc | Op::FltMinMaxLoc | Op::FltMinMaxNumLoc) => "op_minmaxloc",
            Some(Op::FltMin | Op::FltMax | Op::FltMinNum | Op::FltMaxNum) => "op_flt_minmax",
            Some(Op::FltSum(..)) => "op_flt_sum",
            Some(Op::FltRepsum) => "op_repsum",
            None => "op_unknown",
        });
    }

    /// Notes `n` contexts live at once.
    pub(super) fn live(&mut self, n: usize) {
        self.max_live = self.max_live.max(n as u64);
    }
}

/// Counter names every CI run must see at least once (the coverage holes test).
pub const REQUIRED: &[&str] = &[
    "messages_in",
    // Messages whose participant the SCAN state searched by device ID (docs/blocks/cpu.md §PBV table).
    "scan_lookups",
    "messages_out",
    "resets",
    "stall_cycles",
    "idle_to_filling",
    "filling_to_full",
    "full_to_exiting",
    "exiting_to_idle",
    "op_barrier",
    "op_bitwise",
    "op_integer",
    "op_minmaxloc",
    "op_flt_minmax",
    "op_flt_sum",
    "op_repsum",
    "op_unknown",
    "results_op_mismatch",
    "contr_overflow",
    "complete_portals_master",
    "complete_portals_subservient",
    "complete_tlp_master",
    "complete_tlp_subservient",
    "one_target_rounds",
    "timeouts_checked",
    "timeouts_exact",
    "timeouts_exact_after_exec",
    "timeouts_exact_after_combine",
    "timeouts_exact_after_emission",
    "timeouts_exact_after_stalled_emission",
    "timeouts_exact_after_expiry",
    "timeouts_exact_after_relay",
    "freed_by_timeout",
    "max_live_descriptors",
    "ack_init",
    "ack_control",
    "ack_control_after_copies",
    "retry_resend_clean",
    "retry_resend_error_marked",
    "retry_none_live",
    "retry_none_stored",
    "retry_result_upstream",
    "retry_result_participant",
    "retry_result_round_done",
    "retry_result_gone",
    // A switch participant's RESPONSE one TID behind (its result lost): the kept result at either role,
    // and "already completed" once the next round began (docs/blocks/cpu.md §Messages "Kept result").
    "response_result_master",
    "response_result_subservient",
    "response_result_gone",
    // A counted participant's retried contribution to a context in Full: DuplicateContribution.
    "duplicate_in_full",
    "control_copies_retagged",
    "failure_status_set",
    "init_relay_direct",
    "init_relay_flood",
    "init_relay_copies",
    "init_relay_invalid_skipped",
    "init_relay_to_nobody",
    // A FIG. 4 configuration message for an engine below relayed as its INITIALIZATION is; one for this
    // engine is not the CPU's.
    "config_relay",
    "config_not_for_below",
    "ack_is_not_a_result",
];

/// Cross coverage of the CPU's decisions (issue 13 point 4): event x role x family. The event names are
/// docs/blocks/cpu.md's, numbered 1-42 as `stat_event` carries them (written out here; a unit test reads them
/// back from `rtl/cpu.v`'s `EV_*`); the role is the one the context's static entry was configured with
/// (docs/blocks/cpu.md §Ports static word 0 bits 21:20: 0 subservient, 1 master), `no_context` when no valid static
/// entry has the event's family and key; the family is `stat_family`.
pub mod event_cross {
    use crate::cross::{Axis, Cross};

    /// Name of the cross.
    pub const NAME: &str = "cpu_event";
    /// `stat_event` code - 1 -> event.
    pub const EVENTS: &[&str] = &[
        "INIT", "ACTIVATE_NO_DESC", "CTRL_START", "CTRL_PAUSE", "CTRL_RESTART", "CTRL_STOP", "CTRL_RESET", "CTRL_NOOP",
        "CTRL_BAD", "ARM", "REARM", "ARM_NO_DESC", "BAD_SEQNO_ARM", "ACCEPT", "PASS_UP", "DROP_UNKNOWN", "DROP_VNI",
        "DROP_COOKIE", "DROP_SEQNO", "UNKNOWN_PARTICIPANT", "MALFORMED", "DUPLICATE", "COUNT_UNDERFLOW", "OLD_TID",
        "BAD_TID", "PAUSED_DROP", "COMPLETION_DOWN", "FAILURE_UP", "BAD_KIND", "COMPLETE", "TIMEOUT_PARTIAL",
        "TIMEOUT_EMPTY", "TIMEOUT_MASTER", "RETRY", "RETRY_EXHAUSTED", "RETRY_RESEND", "RETRY_NONE", "WRONG_SENDER",
        "STALE_ARM", "INIT_RELAY", "RETRY_RESULT", "RESPONSE_RESULT",
    ];
    /// Static word 0 role field, and no static entry.
    pub const ROLES: &[&str] = &["subservient", "master", "no_context"];
    /// `stat_family`: 0 TLP, 1 Portals.
    pub const FAMILIES: &[&str] = &["tlp", "portals"];
    /// The axes.
    pub const AXES: [Axis; 3] = [("event", EVENTS), ("role", ROLES), ("family", FAMILIES)];

    /// Events of the TLP table of docs/blocks/cpu.md §State machine and the TLP rows of §4 only.
    const TLP_ONLY: &[&str] = &[
        "INIT", "ACTIVATE_NO_DESC", "CTRL_START", "CTRL_PAUSE", "CTRL_RESTART", "CTRL_STOP", "CTRL_RESET", "CTRL_NOOP",
        "CTRL_BAD", "UNKNOWN_PARTICIPANT", "MALFORMED", "DUPLICATE", "COUNT_UNDERFLOW", "OLD_TID", "BAD_TID",
        "PAUSED_DROP", "COMPLETION_DOWN", "FAILURE_UP", "TIMEOUT_MASTER", "RETRY", "RETRY_EXHAUSTED", "RETRY_RESEND",
        "RETRY_NONE", "WRONG_SENDER", "INIT_RELAY", "RETRY_RESULT", "RESPONSE_RESULT",
    ];
    /// Events of the Portals table of docs/blocks/cpu.md §State machine and the Portals rows of §4 only.
    const PORTALS_ONLY: &[&str] =
        &["ARM", "REARM", "ARM_NO_DESC", "BAD_SEQNO_ARM", "DROP_VNI", "DROP_COOKIE", "DROP_SEQNO", "STALE_ARM", "TIMEOUT_EMPTY"];
    /// Events of the RESPONSE a TLP SUBSERVIENT holds in Full (§3 RETRY, §4 RETRY rows) and of the
    /// parent's COMPLETION (a MASTER drops it as BAD_KIND).
    const SUBSERVIENT_ONLY: &[&str] = &["RETRY", "RETRY_EXHAUSTED", "RETRY_RESEND", "COMPLETION_DOWN"];

    /// Why a combination cannot happen (docs/blocks/cpu.md §State machine, §Timers), or `None`.
    pub fn unreachable(idx: &[usize]) -> Option<&'static str> {
        let (event, role, family) = (EVENTS[idx[0]], ROLES[idx[1]], FAMILIES[idx[2]]);
        if family == "portals" && TLP_ONLY.contains(&event) {
            return Some("an event of the TLP family only (docs/blocks/cpu.md §State machine TLP table, §4 TLP rows)");
        }
        if family == "tlp" && PORTALS_ONLY.contains(&event) {
            return Some("an event of the Portals family only (docs/blocks/cpu.md §Messages (Portals family), §Timers (Portals rows))");
        }
        match (event, role, family) {
            // Without a static entry only these: the drop of an unknown context, the drop of a kind
            // nobody handles, and a Portals contribution passed up (no live descriptor, 002 (59)).
            ("DROP_UNKNOWN" | "BAD_KIND", "no_context", _) | ("PASS_UP", "no_context", "portals") => None,
            (_, "no_context", _) => Some("needs a static entry for the context (docs/blocks/cpu.md §State machine: no static entry is DROP_UNKNOWN or BAD_KIND)"),
            ("DROP_UNKNOWN", _, "portals") => Some("a Portals DROP_UNKNOWN is an ARM with no static entry (docs/blocks/cpu.md §Messages (Portals family))"),
            (e, "master", _) if SUBSERVIENT_ONLY.contains(&e) => Some("a MASTER holds no RESPONSE and has no parent (docs/blocks/cpu.md §State machine, §Timers)"),
            ("TIMEOUT_MASTER", "subservient", _) => Some("the TLP MASTER's expiry (docs/blocks/cpu.md §Timers)"),
            ("TIMEOUT_PARTIAL", "master", "tlp") => Some("a TLP MASTER's expiry is TIMEOUT_MASTER (docs/blocks/cpu.md §Timers)"),
            _ => None,
        }
    }

    /// The bin of a `stat_event` code, `None` for 0 or a code beyond the table.
    pub fn event(code: u8) -> Option<usize> {
        usize::from(code).checked_sub(1).filter(|&i| i < EVENTS.len())
    }

    /// An empty cross.
    pub fn new() -> Cross {
        Cross::new(NAME, &AXES, unreachable)
    }
}
