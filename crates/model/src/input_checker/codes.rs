//! The input checker's codes, written once: the `stat_event` bits and the `cfg_validation` bits as Rust
//! constants, and [`verilog_header`], the text of `rtl/input_checker_codes.vh` that `rtl/input_checker.v`
//! includes (with the sizes and protocol constants the RTL shares with `super`). A unit test checks the
//! checked-in header is the generated one (`INSWITCH_BLESS=1 cargo test --release -p inswitch-model
//! input_checker_codes` rewrites it), as `cpu::codes` does for `rtl/cpu_codes.vh`.

use super::protocol::{CAPTURE_BYTES, MAILBOX_OFFSET, PORTALS_OP_BITS, PORTALS_OP_DEFINED, PORTALS_RC_BITS, PORTALS_RC_DEFINED, SOFT_PORTALS_BYTES, TLP_MIN_BYTES, VDM_PROTOCOL_ID, VDM_TYPE1_CODE};
use super::config::{CONFIG_FIXED_BYTES, CONFIG_FIXED_WRITES, CONFIG_MAX_ENTRIES, CONFIG_FRAME_BYTES, CONFIG_MAX_SUBSERVIENT, CONFIG_RELAY_SLOTS, CONFIG_TIMEOUT_BITS, ENCAP_DESCRIPTOR_BYTES, ENCAP_FLIT_EP, ENCAP_FLIT_OHC, ENCAP_FLIT_TS, ENCAP_FMT_4DW, ENCAP_FORM_FLIT, ENCAP_FORM_NON_FLIT, ENCAP_MWR, ENCAP_OP_APPLY, ENCAP_TD_EP, ENCAP_TYPE_CONFIGURATION, ENCAP_TYPE_REGISTER_WRITE, ENCAP_VERSION, PBV_FLAG_SWITCH, PBV_FLAG_VALID};
use super::crc_matrix;
use super::flit::{FLIT_CAPTURE_BYTES, FLIT_MIN_BYTES, FLIT_MWR32, FLIT_MWR64, FLIT_PREFIX_NIBBLE, FLIT_TS_ECRC, FLIT_TYPE_DEFINED, TUSER_FLIT_BIT};
use crate::register_space::offset;
use crate::code_table;

code_table! {
    /// `cfg_validation` bits (the register space's VALIDATION register), as masks.
    pub mod validation: "VALIDATION", 4 bits {
        LCRC = 0x1, "Check the LCRC of TLP frames.";
        ECRC = 0x2, "Check the ECRC of TLPs that carry one.";
        FCS = 0x4, "Check the FCS of Soft Portals frames.";
        VNI = 0x8, "Check the VNI of Portals frames against the allowed VNIs.";
    }
}

code_table! {
    /// `stat_event` bits: one pulse per frame, the frame's outcome. Drop reasons are listed in priority
    /// order (the first check a frame fails names it).
    pub mod event: "EV", 5 bits as u32 {
        ACCEPT_REG = 0, "`stat_event` bits: one pulse per frame, the frame's outcome. Drop reasons are listed in priority order (the first check a frame fails names it). Steered to the register space: a register access, or a configuration message (FIG. 4) as its register writes.";
        ACCEPT_MSG = 1, "Steered to the CPU as a collective message.";
        TKEEP = 2, "tkeep not all ones before the last beat, or not contiguous from byte 0 on it.";
        LCRC = 3, "TLP LCRC wrong.";
        FCS = 4, "Soft Portals FCS wrong.";
        TOO_LONG = 5, "Longer than the capture (no frame the engine takes is).";
        LENGTH = 6, "Length inconsistent: TLP shorter than a header or not the length its header says; Portals not 102 bytes.";
        TLP_MALFORMED = 7, "Reserved Fmt, undefined Type, or a header field inconsistent with Length (Last BE of a 1-DW request).";
        TLP_UNSUPPORTED = 8, "A well-formed TLP the engine does not take: prefixes, TPH, IO/config/completion/atomic types, messages other than vendor-defined Type 1 by ID.";
        POISONED = 9, "EP set.";
        ECRC = 10, "ECRC wrong.";
        RESERVED = 11, "A reserved bit set (sequence-number field, PH of an untranslated address, collective header).";
        NOT_FOR_ENGINE = 12, "Not addressed to this engine (address outside its window, Target ID not its device ID).";
        REG_ACCESS = 13, "A register access that is not one DW, or a read of the message mailbox.";
        VENDOR = 14, "Vendor-defined message with another Vendor ID, or DW3 disagreeing with the payload.";
        COLL_MALFORMED = 15, "Collective message: bad version, unknown kind, length not the kind's.";
        COLL_CONFIG = 16, "Collective configuration message the engine cannot apply: more than 128 PBV entries, or a timeout wider than its 24-bit register; or an encapsulated configuration (kind 10) whose descriptor, encapsulated header or lengths the engine does not take.";
        COLL_OPERANDS = 17, "Collective data message with more than four operands.";
        ETHERTYPE = 18, "Soft Portals EtherType not the port's.";
        PORTALS_HEADER = 19, "Reduction header: undefined rt_op or rt_rc, or rt_count 0 on an upward frame.";
        VNI = 20, "VNI not allowed on this port.";
    }
    /// Number of event bits (the width of `stat_event`).
    pub const COUNT: u32 = TABLE.len() as u32;
    /// Names, by bit: the [`TABLE`] names in lower case (the counters' labels; a unit test checks they agree).
    pub const NAMES: [&str; COUNT as usize] = [
        "accept_reg", "accept_msg", "tkeep", "lcrc", "fcs", "too_long", "length", "tlp_malformed",
        "tlp_unsupported", "poisoned", "ecrc", "reserved", "not_for_engine", "reg_access", "vendor",
        "coll_malformed", "coll_config", "coll_operands", "ethertype", "portals_header", "vni",
    ];
}

/// The text of `rtl/input_checker_codes.vh`, to be included inside module `input_checker`.
pub fn verilog_header() -> String {
    let mut h = crate::codes::Header::new(&[
        "// The input checker's codes and constants (docs/blocks/input_checker.md), included inside module",
        "// input_checker (rtl/input_checker.v).",
        "// GENERATED from crates/model/src/input_checker/codes.rs and crates/model/src/input_checker.rs: do not",
        "// edit; run `INSWITCH_BLESS=1 cargo test --release -p inswitch-model input_checker_codes` (the same test",
        "// checks it).",
        "",
    ]);
    let count = format!("localparam EV_COUNT = {};\n", event::COUNT);
    h.section("Event bits: the bit of stat_event a frame's outcome pulses (EV_COUNT bits in all)", &(event::localparams() + &count));
    let bits = validation::TABLE.iter().map(|&(n, mask)| (n, u64::from(mask.trailing_zeros())));
    h.section("cfg_validation bits (the register space's VALIDATION register): bit numbers", &crate::codes::localparams("VALIDATION", 2, bits));
    // (name, width in bits: 0 for an unsized localparam, as the RTL had it, value)
    let constants: [(&str, u32, u64); 6] = [
        ("CAPTURE_BYTES", 0, CAPTURE_BYTES as u64),
        ("TLP_MIN_BYTES", 16, TLP_MIN_BYTES as u64),
        ("SOFT_PORTALS_BYTES", 16, SOFT_PORTALS_BYTES as u64),
        ("MAILBOX_OFFSET", 12, u64::from(MAILBOX_OFFSET)),
        ("VDM_TYPE1_CODE", 8, u64::from(VDM_TYPE1_CODE)),
        ("VDM_PROTOCOL_ID", 8, u64::from(VDM_PROTOCOL_ID)),
    ];
    let mut lines = String::new();
    for (name, bits, v) in constants {
        lines.push_str(&if bits == 0 {
            format!("localparam {name} = {v};\n")
        } else {
            assert!(v < 1 << bits, "{name} = {v:#x} does not fit {bits} bits");
            // Byte counts in decimal, codes in hex, as the docs write them.
            let v = if name.ends_with("_BYTES") { format!("{bits}'d{v}") } else { format!("{bits}'h{v:X}") };
            format!("localparam [{}:0] {name} = {v};\n", bits - 1)
        });
    }
    h.section("Sizes and protocol constants (crates/model/src/input_checker.rs)", &lines);
    let config = [
        ("CONFIG_FIXED_BYTES", CONFIG_FIXED_BYTES as u64),
        ("CONFIG_MAX_ENTRIES", CONFIG_MAX_ENTRIES as u64),
        ("CONFIG_TIMEOUT_BITS", u64::from(CONFIG_TIMEOUT_BITS)),
        ("CONFIG_MAX_SUBSERVIENT", CONFIG_MAX_SUBSERVIENT as u64),
        ("CONFIG_FRAME_BYTES", CONFIG_FRAME_BYTES as u64),
        ("CONFIG_FIXED_WRITES", CONFIG_FIXED_WRITES as u64),
        ("ENCAP_DESCRIPTOR_BYTES", ENCAP_DESCRIPTOR_BYTES as u64),
        ("CONFIG_RELAY_SLOTS", CONFIG_RELAY_SLOTS as u64),
    ];
    let mut cfg_lines = crate::codes::integers(config);
    // The registers a configuration message writes (docs/blocks/register_space.md §Map) and the PBV_FLAGS bits.
    let regs = [("PBV", offset::PBV), ("PBV_FLAGS", offset::PBV_FLAGS), ("ERROR_REPORTING", offset::ERROR_REPORTING), ("SUB_TIMEOUT", offset::SUB_TIMEOUT), ("MASTER_TIMEOUT", offset::MASTER_TIMEOUT)];
    cfg_lines.push_str(&crate::codes::hex_localparams("CFG_OFFSET", 16, regs.iter().map(|&(n, v)| (n, u64::from(v)))));
    cfg_lines.push_str(&crate::codes::hex_localparams("PBV_FLAG", 2, [("VALID", u64::from(PBV_FLAG_VALID)), ("SWITCH", u64::from(PBV_FLAG_SWITCH))]));
    let encap = [
        ("TYPE_CONFIGURATION", u64::from(ENCAP_TYPE_CONFIGURATION)),
        ("TYPE_REGISTER_WRITE", u64::from(ENCAP_TYPE_REGISTER_WRITE)),
        ("OP_APPLY", u64::from(ENCAP_OP_APPLY)),
        ("VERSION", u64::from(ENCAP_VERSION)),
        ("MWR", u64::from(ENCAP_MWR)),
        ("FMT_4DW", u64::from(ENCAP_FMT_4DW)),
        ("TD_EP", u64::from(ENCAP_TD_EP)),
        ("FORM_NON_FLIT", u64::from(ENCAP_FORM_NON_FLIT)),
        ("FORM_FLIT", u64::from(ENCAP_FORM_FLIT)),
        ("FLIT_OHC", u64::from(ENCAP_FLIT_OHC)),
        ("FLIT_TS", u64::from(ENCAP_FLIT_TS)),
        ("FLIT_EP", u64::from(ENCAP_FLIT_EP)),
    ];
    cfg_lines.push_str(&crate::codes::hex_localparams("ENCAP", 8, encap));
    h.section("Configuration messages, FIG. 4 (crates/model/src/input_checker/config.rs)", &cfg_lines);
    // The defined rt_op / rt_rc codes, one bit per code, indexed by the field in the RTL.
    let masks = [("PORTALS_OP_DEFINED", 1u32 << PORTALS_OP_BITS, PORTALS_OP_DEFINED), ("PORTALS_RC_DEFINED", 1 << PORTALS_RC_BITS, u64::from(PORTALS_RC_DEFINED))];
    let masks: String = masks.iter().map(|&(name, bits, v)| format!("localparam [{}:0] {name} = {bits}'h{v:X};\n", bits - 1)).collect();
    let flit = [
        format!("localparam TUSER_FLIT_BIT = {TUSER_FLIT_BIT};\n"),
        format!("localparam [15:0] FLIT_CAPTURE_BYTES = 16'd{FLIT_CAPTURE_BYTES};\n"),
        format!("localparam [15:0] FLIT_MIN_BYTES = 16'd{FLIT_MIN_BYTES};\n"),
        format!("localparam [7:0] FLIT_MWR32 = 8'h{FLIT_MWR32:02X};\n"),
        format!("localparam [7:0] FLIT_MWR64 = 8'h{FLIT_MWR64:02X};\n"),
        format!("localparam [3:0] FLIT_PREFIX_NIBBLE = 4'h{FLIT_PREFIX_NIBBLE:X};\n"),
        format!("localparam [2:0] FLIT_TS_ECRC = 3'd{FLIT_TS_ECRC};\n"),
        format!("localparam [255:0] FLIT_TYPE_DEFINED = 256'h{:016X}{:016X}{:016X}{:016X};\n", FLIT_TYPE_DEFINED[3], FLIT_TYPE_DEFINED[2], FLIT_TYPE_DEFINED[1], FLIT_TYPE_DEFINED[0]),
    ];
    h.section("PCIe 6 flit-mode TLPs: tuser bit, sizes, the Types taken, defined Type codes one bit each (crates/model/src/input_checker/flit.rs)", &flit.concat());
    h.section("Defined Soft Portals reduction-header codes: bit c set when rt_op / rt_rc c is defined (crates/model/src/input_checker.rs)", &masks);
    h.section("CRC-32 of a whole beat as XOR trees (crates/model/src/input_checker/crc_matrix.rs)", &crc_matrix::localparams());
    h.text()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_checker_codes_vh_is_current() {
        crate::codes::check_generated("input_checker_codes.vh", &verilog_header(), "input_checker_codes");
    }

    /// The counters' labels are the table's names, bit by bit; the bits are 0..COUNT in order; each
    /// validation flag is one bit.
    #[test]
    fn input_checker_codes_names_follow_the_table() {
        for (i, &(name, bit)) in event::TABLE.iter().enumerate() {
            assert_eq!(bit as usize, i, "{name}");
            assert_eq!(event::NAMES[i], name.to_lowercase());
        }
        assert!(validation::TABLE.iter().all(|&(_, m)| m.count_ones() == 1));
    }
}
