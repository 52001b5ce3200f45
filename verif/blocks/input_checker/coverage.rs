//! The input checker's counters and the cross coverage of its verdicts.

/// Counters of [`InputCheckerMonitor`].
pub mod counter {
    /// Frames whose last beat was taken.
    pub const FRAMES: &str = "frames_in";
    /// Register accesses taken by the register space.
    pub const REG_OUT: &str = "reg_accesses_out";
    /// Messages taken by the CPU.
    pub const MSG_OUT: &str = "messages_out";
    /// Frames dropped.
    pub const DROPS: &str = "drops";
    /// Resets.
    pub const RESETS: &str = "resets";
    /// Cycles the checker refused a beat.
    pub const REFUSED: &str = "refused_cycles";
    /// Cycles with a beat taken.
    pub const BEATS: &str = "beats_in";
    /// Unsupported Requests taken by the completion builder.
    pub const UR_OUT: &str = "unsupported_requests_out";
    /// Accepted TLP collective messages with a nonzero TID (seed 001, header byte 1 bits 4:3).
    pub const TID_NONZERO: &str = "messages_with_tid";
    /// Collective messages dropped for a reserved flag bit (header byte 1 bits 2:0).
    pub const RESERVED_FLAG_DROPS: &str = "reserved_flag_drops";
    /// Configuration messages (FIG. 4) accepted, all their writes seen.
    pub const CONFIG_ACCEPTED: &str = "config_messages_accepted";
    /// Configuration messages longer than the capture (frames over 128 bytes, up to 128 devices and 16
    /// subservient engines) accepted, all their writes seen.
    pub const LONG_CONFIG_ACCEPTED: &str = "long_config_messages_accepted";
    /// Register writes of configuration messages.
    pub const CONFIG_WRITES: &str = "config_writes";
    /// PCIe 6 flit-mode frames (docs/blocks/input_checker.md §Flit-mode TLPs) accepted: register writes,
    /// collective and configuration messages.
    pub const FLIT_ACCEPTED: &str = "flit_frames_accepted";
    /// Flit-mode configuration messages (FIG. 4, 000 [0156]) accepted, all their writes seen.
    pub const FLIT_CONFIG_ACCEPTED: &str = "flit_config_messages_accepted";
    /// Flit-mode frames dropped with the reason expected (a header or payload defect, too long).
    pub const FLIT_DROPS: &str = "flit_frames_dropped";
    /// Encapsulated configurations (kind 10, docs/frames.md §4) applied, all their writes seen.
    pub const ENCAP_ACCEPTED: &str = "encapsulated_configs_accepted";
    /// Encapsulated configurations dropped for a defect of the encapsulation (`coll_config`).
    pub const ENCAP_DROPS: &str = "encapsulated_configs_dropped";
    /// Encapsulated configurations for another engine (P_ID) handed to the CPU as the kind-1 message
    /// their body stands for, to be relayed (docs/blocks/input_checker.md §Encapsulated configuration).
    pub const ENCAP_RELAYED: &str = "encapsulated_configs_relayed";
    /// Encapsulated configurations with a flit-mode original header (descriptor byte 3 = 1) applied.
    pub const ENCAP_FLIT_ACCEPTED: &str = "encapsulated_flit_headers_accepted";
    /// Encapsulated register writes (kind 10 payload type 2) applied: their one register write seen.
    pub const ENCAP_REGW_ACCEPTED: &str = "encapsulated_register_writes_accepted";
    /// Encapsulated register writes dropped for a defect (`coll_config`).
    pub const ENCAP_REGW_DROPS: &str = "encapsulated_register_writes_dropped";
}

/// Every counter of [`super::InputCheckerMonitor`], in report order.
pub(super) const COUNTER_NAMES: [&str; 22] = [
    counter::FRAMES, counter::REG_OUT, counter::MSG_OUT, counter::DROPS, counter::RESETS, counter::REFUSED, counter::BEATS, counter::UR_OUT,
    counter::TID_NONZERO, counter::RESERVED_FLAG_DROPS, counter::CONFIG_ACCEPTED, counter::CONFIG_WRITES, counter::FLIT_ACCEPTED,
    counter::FLIT_CONFIG_ACCEPTED, counter::FLIT_DROPS, counter::ENCAP_ACCEPTED, counter::ENCAP_DROPS, counter::LONG_CONFIG_ACCEPTED,
    counter::ENCAP_RELAYED, counter::ENCAP_FLIT_ACCEPTED, counter::ENCAP_REGW_ACCEPTED, counter::ENCAP_REGW_DROPS,
];

/// Cross coverage of the checker's verdicts (issue 13 point 4): outcome x family x data width. The
/// outcomes and their families are the table of docs/blocks/input_checker.md §Checks written out here
/// (bit numbers of `stat_event`), the family is `tuser[8]` of the frame's first beat (§Frames on the
/// stream), the width the target's `DATA_WIDTH`.
pub mod verdict_cross {
    use crate::cross::{Axis, Cross};

    /// Name of the cross.
    pub const NAME: &str = "checker_verdict";
    /// `stat_event` bit -> outcome (docs/blocks/input_checker.md §Checks, "event (bit)").
    pub const OUTCOMES: &[&str] = &[
        "accept_reg", "accept_msg", "tkeep", "lcrc", "fcs", "too_long", "length", "tlp_malformed", "tlp_unsupported",
        "poisoned", "ecrc", "reserved", "not_for_engine", "reg_access", "vendor", "coll_malformed", "coll_config",
        "coll_operands", "ethertype", "portals_header", "vni",
    ];
    /// `tuser[8]`: 0 TLP, 1 Soft Portals.
    pub const FAMILIES: &[&str] = &["tlp", "portals"];
    /// The data widths the checker is built at (verif/model_table.rs).
    pub const WIDTHS: &[&str] = &["64", "256"];
    /// The axes.
    pub const AXES: [Axis; 3] = [("outcome", OUTCOMES), ("family", FAMILIES), ("width", WIDTHS)];
    /// Outcomes only a Soft Portals frame can have: the FCS residue (check 2), P5, P7, P8.
    const PORTALS_ONLY: &[&str] = &["fcs", "ethertype", "portals_header", "vni"];
    /// Outcomes only a TLP frame can have: the LCRC residue (check 2), T5-T16, C1-C6 (a Soft Portals
    /// frame is never a register access).
    const TLP_ONLY: &[&str] = &[
        "accept_reg", "lcrc", "tlp_malformed", "tlp_unsupported", "poisoned", "ecrc", "not_for_engine", "reg_access", "vendor",
        "coll_malformed", "coll_config", "coll_operands",
    ];

    /// Why a combination cannot happen, or `None`.
    pub fn unreachable(idx: &[usize]) -> Option<&'static str> {
        let outcome = OUTCOMES[idx[0]];
        match FAMILIES[idx[1]] {
            "tlp" if PORTALS_ONLY.contains(&outcome) => Some("a check of Soft Portals frames only (P4-P8, FCS)"),
            "portals" if TLP_ONLY.contains(&outcome) => Some("a check of TLP frames only (LCRC, T5-T16, C1-C6)"),
            _ => None,
        }
    }

    /// The width bin of a data width, `None` for a width not in [`WIDTHS`].
    pub fn width(bits: usize) -> Option<usize> {
        WIDTHS.iter().position(|w| *w == bits.to_string())
    }

    /// An empty cross.
    pub fn new() -> Cross {
        Cross::new(NAME, &AXES, unreachable)
    }
}
