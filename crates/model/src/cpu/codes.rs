//! The CPU's codes and packed records, written once: each table below gives the Rust constants (and the
//! frames crate's `collective::{Command, CompletionKind, Reason}` take their values from them), and
//! [`verilog_header`] writes the same tables as the localparams of `rtl/cpu_codes.vh`, which `rtl/cpu.v`
//! includes. A unit test checks the checked-in header is the generated one
//! (`INSWITCH_BLESS=1 cargo test --release -p inswitch-model cpu_codes` rewrites it), as
//! `msg_fields!` does for the collective message (`rtl/collective_msg.vh`). The tables are declared with
//! [`code_table!`](crate::code_table) (`crate::codes`), as the input checker's are.

use crate::code_table;

/// Descriptors per tree slot: one per reduction id, DFA bits 20-18 (002 (61): up to 8 concurrent
/// reductions on one tree; ctx bits 15:13 of a Portals message). Descriptor `slot * REDUCTIONS + rid`
/// (docs/blocks/cpu.md §Descriptors).
pub const REDUCTIONS: usize = 8;

code_table! {
    /// Control commands (`code` of a CONTROL message; 000 \[0168\]; frames crate `collective::Command`).
    pub mod command: "CMD", 4 bits {
        START = 1, "Start (activate, or resume a paused context).";
        PAUSE = 2, "Pause.";
        RESTART = 3, "Restart from the stored context information.";
        STOP = 4, "Stop: inactivate.";
        RESET = 5, "Reset: remove.";
    }
}

code_table! {
    /// Completion codes (`code` of a COMPLETION / RESPONSE; frames crate `collective::CompletionKind`).
    pub mod completion: "CODE", 4 bits {
        NONE = 0, "Not a completion.";
        BARRIER_MET = 1, "Barrier met at this engine.";
        BARRIER_SATISFIED = 2, "Barrier satisfied globally.";
        RESULT = 3, "Final result of a reduction.";
        ALREADY_COMPLETED = 4, "The child's transaction already completed (001: answer to a child that missed the Exit).";
        ACKNOWLEDGED = 5, "A non-posted INITIALIZATION / CONTROL was received and acted on (000 \\[0097\\], claim 14: non-posted messages expect a completion). **Decision**, `docs/blocks/cpu.md` §Messages.";
        ROUND_DONE = 6, "The round is over but the result went to the one target only (reduce to one target, 003 \\[0052\\], \\[0060\\]): the exit of 001 without the result. **Decision**, `docs/blocks/cpu.md` §Messages.";
    }
}

code_table! {
    /// Failure reasons (`code` of a FAILURE; frames crate `collective::Reason`).
    pub mod reason: "WHY", 4 bits {
        TIMEOUT = 1, "Watchdog timeout / retries exhausted.";
        DUPLICATE = 2, "The participant's PBV bit was already clear (000 \\[0143\\] (a)).";
        COUNT_UNDERFLOW = 3, "p_count was already zero (000 \\[0143\\] (b)).";
        UNKNOWN_PARTICIPANT = 4, "The requester is not a participant.";
        OP_MISMATCH = 5, "The operation differs from the initialized one (the CPU never sends it: it reduces with the stored operation).";
        MALFORMED = 6, "Wrong message kind for the participant (000 \\[0096\\]).";
        NOTHING_TO_RESEND = 7, "A RETRY request named a context for which this engine remembers no message to resend to the requester (**Decision**, `docs/blocks/cpu.md` §Messages).";
    }
}

code_table! {
    /// Events on the `stat_event` port: one per sequencer decision (`docs/blocks/cpu.md` §Messages to §Timers); 0 is none.
    pub mod event: "EV", 6 bits {
        INIT = 1, "INITIALIZATION stored and activated.";
        ACTIVATE_NO_DESC = 2, "Activation found no free descriptor.";
        CTRL_START = 3, "CONTROL START activated or resumed a context.";
        CTRL_PAUSE = 4, "CONTROL PAUSE paused a live context.";
        CTRL_RESTART = 5, "CONTROL RESTART re-activated a context.";
        CTRL_STOP = 6, "CONTROL STOP inactivated a context.";
        CTRL_RESET = 7, "CONTROL RESET removed a context.";
        CTRL_NOOP = 8, "CONTROL command with nothing to do locally.";
        CTRL_BAD = 9, "CONTROL with an undefined command.";
        ARM = 10, "ARM allocated a descriptor.";
        REARM = 11, "ARM with a newer sequence number re-armed a live descriptor (stale state cleared).";
        ARM_NO_DESC = 12, "ARM found no free descriptor.";
        BAD_SEQNO_ARM = 13, "ARM with the reserved sequence number.";
        ACCEPT = 14, "Contribution accepted.";
        PASS_UP = 15, "Message passed up the tree.";
        DROP_UNKNOWN = 16, "Message for an unknown context dropped.";
        DROP_VNI = 17, "Contribution with a wrong VNI dropped.";
        DROP_COOKIE = 18, "Contribution with a wrong cookie dropped.";
        DROP_SEQNO = 19, "Contribution with a wrong sequence number dropped.";
        UNKNOWN_PARTICIPANT = 20, "Contribution from a non-participant (FAILURE reply).";
        MALFORMED = 21, "Wrong kind for the participant (FAILURE reply).";
        DUPLICATE = 22, "PBV bit already clear (FAILURE reply).";
        COUNT_UNDERFLOW = 23, "p_count already zero (FAILURE reply).";
        OLD_TID = 24, "Contribution one transaction behind: already-completed reply.";
        BAD_TID = 25, "Message with an impossible TID dropped.";
        PAUSED_DROP = 26, "Contribution to a paused context dropped.";
        COMPLETION_DOWN = 27, "COMPLETION from the parent distributed; next round.";
        FAILURE_UP = 28, "FAILURE from below forwarded up.";
        BAD_KIND = 29, "Message kind not handled for the family / role; dropped.";
        COMPLETE = 30, "A context completed its round.";
        TIMEOUT_PARTIAL = 31, "Timeout: partial result sent up.";
        TIMEOUT_EMPTY = 32, "Timeout with nothing accumulated: descriptor freed.";
        TIMEOUT_MASTER = 33, "Master timeout: results marked as error sent down; next round.";
        RETRY = 34, "RESPONSE retransmitted.";
        RETRY_EXHAUSTED = 35, "Retries exhausted: FAILURE up; next round.";
        RETRY_RESEND = 36, "RETRY request from the parent: the pending RESPONSE resent.";
        RETRY_NONE = 37, "RETRY request with nothing to resend: FAILURE reply.";
        WRONG_SENDER = 38, "Contribution whose P_ID names a PBV-table entry of another device: dropped.";
        STALE_ARM = 39, "ARM whose sequence number is not newer than the live descriptor's: dropped.";
        INIT_RELAY = 40, "INITIALIZATION for an engine below relayed down the context's switch participants.";
        RETRY_RESULT = 41, "RETRY request for the round just completed: the kept result resent to the requester (000 \\[0098\\], \\[0117\\]).";
        RESPONSE_RESULT = 42, "RESPONSE one transaction behind from a switch participant (its copy of the result lost): the kept result resent to it, instead of ALREADY_COMPLETED (000 \\[0117\\]; 001's lagging child).";
    }
    /// Number of event codes (0 is "none").
    pub const COUNT: usize = TABLE.len() + 1;
}

code_table! {
    /// Sequencer states (`docs/blocks/cpu.md` §Timing).
    pub mod seq: "SEQ", 4 bits {
        IDLE = 0, "Waiting for a message or an expired timer.";
        LOOKUP = 1, "Associative lookups of the latched message.";
        EXEC = 2, "Decision.";
        ISSUE = 3, "Operand pair into the reduction unit.";
        REDUCE = 4, "Waiting for the reduction unit.";
        CHECK = 5, "Completion test.";
        RATCHET = 6, "State-machine steps up to the action's target.";
        EMIT = 7, "Outgoing messages.";
        FINISH = 8, "End-of-round action.";
        EXPIRE = 9, "Timeout decision.";
        SCAN = 10, "Reverse lookup of the requester in the PBV table's device-ID RAM, one word per cycle.";
        COMPARE = 11, "The message's descriptor read and compared with the message, registered for EXEC's decision.";
    }
}

code_table! {
    /// End-of-emission actions (state `FINISH`).
    pub mod fin: "FIN", 3 bits {
        NONE = 0, "Nothing.";
        FREE = 1, "Free the descriptor.";
        REARM = 2, "Re-arm for the next sequence number (Portals master).";
        WAIT = 3, "Reload the timer and wait for the parent (TLP subservient).";
        NEXT_ROUND = 4, "Reload the stored context for the next transaction (TLP).";
    }
}

/// The RTL's descriptor record (`docs/blocks/cpu.md` §Context model): `(field, width)`, first field in the low bits. The
/// RTL's `D_<FIELD>` localparams are the offsets, `D_W` the total width.
pub const DESCRIPTOR_RECORD: &[(&str, u32)] = &[
    ("VALID", 1),
    ("PORTALS", 1),
    ("KEY", 16),
    ("SIDX", 12),
    ("ROLE", 2),
    ("STATE", 2),
    ("FAILURE", 1),
    ("PAUSED", 1),
    ("PBV", 128),
    ("PCOUNT", 20),
    ("COUNT", 20),
    ("WAIT", 20),
    ("ACCV", 1),
    ("ACC_OP", 6),
    ("ACC_DATA", 256),
    ("ACC_RC", 4),
    ("ACC_RSM", 8),
    ("ACC_OFLOW", 2),
    ("ACC_SFA", 32),
    ("VNI", 16),
    ("COOKIE", 32),
    ("SEQNO", 10),
    ("DST", 32),
    ("PORT", 8),
    ("KEPT", 1),
    ("RES_CODE", 4),
    ("RES_ERROR", 1),
    ("POSTED", 1),
    ("TIMER", 25),
    ("LOAD", 25),
    ("EXPIRED", 1),
    ("ATTEMPTS", 4),
    ("SENT_ERROR", 1),
];

/// The RTL's static-entry record (`docs/blocks/cpu.md` §Context model: configuration, and what an INITIALIZATION stores),
/// as [`DESCRIPTOR_RECORD`]: `S_<FIELD>` offsets, `S_W` the total width.
pub const STATIC_RECORD: &[(&str, u32)] = &[
    ("VALID", 1),
    ("PORTALS", 1),
    ("KEY", 13),
    ("ROLE", 2),
    ("WAIT", 20),
    ("ONE_TARGET", 1),
    ("STORED", 1),
    ("PBV", 128),
    ("PCOUNT", 20),
    ("OP", 6),
    ("DATA", 256),
    ("DMU", 16),
    ("UPSTREAM", 16),
    ("POSTED", 1),
    ("TID", 2),
];

/// The text of `rtl/cpu_codes.vh`: every table above as localparams, to be included inside the module.
pub fn verilog_header() -> String {
    let mut h = crate::codes::Header::new(&[
        "// The CPU's codes and packed records (docs/blocks/cpu.md), included inside module cpu (rtl/cpu.v).",
        "// GENERATED from the tables in crates/model/src/cpu/codes.rs: do not edit; run",
        "// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model cpu_codes` (the same test checks it).",
        "// A code set may name codes the RTL never sends (they are the wire's), hence UNUSEDPARAM off.",
        "",
        "// verilator lint_off UNUSEDPARAM",
    ]);
    h.section("Control commands (000 [0168])", &command::localparams());
    h.section("Completion codes", &completion::localparams());
    h.section("Failure reasons", &reason::localparams());
    h.section("Events on stat_event (docs/blocks/cpu.md §Messages to §Timers)", &event::localparams());
    h.section("Sequencer states (docs/blocks/cpu.md §Timing)", &seq::localparams());
    h.section("End-of-emission actions (state FINISH)", &fin::localparams());
    h.section(
        "PBV table: device IDs per word of the device-ID RAM, compared in one SCAN cycle (docs/blocks/cpu.md §PBV table)",
        &format!("localparam integer PBV_SCAN_ENTRIES = {};\n", super::context::PBV_SCAN_ENTRIES),
    );
    h.section(
        "Descriptors per tree slot, one per reduction id (docs/blocks/cpu.md §Descriptors, 002 (61))",
        &format!("localparam integer REDUCTIONS = {};\n", REDUCTIONS),
    );
    h.section(
        "Configuration word addresses on cfg_wr_addr (crates/model/src/cpu/config.rs)",
        &crate::codes::hex_localparams("CFG", super::config::ADDR_BITS, super::config::ADDRESSES.map(|(n, a)| (n, u64::from(a)))),
    );
    for (what, prefix, record) in [
        ("Descriptor record: field offsets, D_W bits in all", "D", DESCRIPTOR_RECORD),
        ("Static-entry record: field offsets, S_W bits in all", "S", STATIC_RECORD),
    ] {
        let mut lsb = 0;
        let mut lines = String::new();
        for &(name, w) in record {
            lines.push_str(&format!("localparam integer {prefix}_{name} = {lsb};\n"));
            lsb += w;
        }
        lines.push_str(&format!("localparam integer {prefix}_W = {lsb};\n"));
        h.section(what, &lines);
    }
    h.line("// verilator lint_on UNUSEDPARAM");
    h.text()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_codes_vh_is_current() {
        crate::codes::check_generated("cpu_codes.vh", &verilog_header(), "cpu_codes");
    }

    /// Every table's values are distinct and fit the RTL width; the records' offsets are the ones
    /// `rtl/cpu.v` was written with (its packed records are unchanged by being generated).
    #[test]
    fn cpu_codes_fit_and_records_keep_their_layout() {
        for (t, bits) in [
            (command::TABLE, command::BITS),
            (completion::TABLE, completion::BITS),
            (reason::TABLE, reason::BITS),
            (event::TABLE, event::BITS),
            (seq::TABLE, seq::BITS),
            (fin::TABLE, fin::BITS),
        ] {
            for (i, &(n, v)) in t.iter().enumerate() {
                assert!(u32::from(v) < 1 << bits, "{n}");
                assert!(t[..i].iter().all(|&(_, w)| w != v), "{n} repeats a value");
            }
        }
        let total = |r: &[(&str, u32)]| r.iter().map(|&(_, w)| w).sum::<u32>();
        assert_eq!(total(DESCRIPTOR_RECORD), 694);
        assert_eq!(total(STATIC_RECORD), 484);
        assert_eq!(event::COUNT, 43);
    }
}
