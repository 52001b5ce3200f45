//! [`verilog_header`]: the text of `rtl/register_space_codes.vh`, which `rtl/register_space.v` includes:
//! the register map of [`super::map`] (response status, register offsets as DW indices, window sizes,
//! reset values, the CPU register addresses the bridge writes) written once, here. A unit test checks the
//! checked-in header is the generated one (`INSWITCH_BLESS=1 cargo test --release -p inswitch-model
//! register_space_codes` rewrites it).

use super::map::{offset, reset, status};
use super::map::{CPU_STATIC_KEY_MASK, CPU_STATIC_WORD1_MASK, ID_VALUE, INTERNAL_COUNTERS, MCAST_INDEX_MASK, MCAST_INDEX_SLOTS, PBV_ENTRIES, RED_THRESHOLDS, RED_TIMEOUTS, STATIC_INDEX_MASK, STATIC_INDEX_SLOTS, SYNC_WRITES, VNI_ENTRIES};
use crate::codes::{hex, hex_localparams, integers, localparams, Header};

/// Width of a DW index into the 4 KiB window (the RTL's `dw`).
const DW_BITS: u32 = 10;

/// The text of `rtl/register_space_codes.vh`, to be included inside module `register_space`.
pub fn verilog_header() -> String {
    let mut h = Header::new(&[
        "// The register space's map (docs/blocks/register_space.md), included inside module register_space",
        "// (rtl/register_space.v).",
        "// GENERATED from crates/model/src/register_space/map.rs (and the CPU's register addresses,",
        "// crates/model/src/cpu/config.rs): do not edit; run",
        "// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model register_space_codes` (the same test checks it).",
        "// The map names registers the RTL decodes by range (DW_PBV), hence UNUSEDPARAM off.",
        "",
        "// verilator lint_off UNUSEDPARAM",
    ]);
    h.section("Response status (m_reg_rsp_status)", &status::localparams());
    let dws = offset::TABLE.iter().map(|&(n, byte)| (n, u64::from(byte / 4)));
    h.section("Register offsets as DW indices (byte offset / 4)", &hex_localparams("DW", DW_BITS, dws));
    h.section(
        "Table sizes: PBV DWs (two entries a DW), reduction timeouts and thresholds, allowed VNIs, own counters, STATIC_INDEX and MCAST_INDEX bits and slots",
        &integers([
            ("PBV_DWS", (PBV_ENTRIES / 2) as u64),
            ("RED_TIMEOUTS", RED_TIMEOUTS as u64),
            ("RED_THRESHOLDS", RED_THRESHOLDS as u64),
            ("VNI_ENTRIES", VNI_ENTRIES as u64),
            ("INTERNAL_COUNTERS", INTERNAL_COUNTERS as u64),
            ("STATIC_INDEX_BITS", u64::from(STATIC_INDEX_MASK.count_ones())),
            ("STATIC_INDEX_SLOTS", STATIC_INDEX_SLOTS as u64),
            ("MCAST_INDEX_BITS", u64::from(MCAST_INDEX_MASK.count_ones())),
            ("MCAST_INDEX_SLOTS", MCAST_INDEX_SLOTS as u64),
        ]),
    );
    let mut values = hex("ID_VALUE", 32, u64::from(ID_VALUE))
        + &hex("RESET_ETHERTYPE", 16, u64::from(reset::ETHERTYPE))
        + &hex("RESET_VENDOR_ID", 16, u64::from(reset::VENDOR_ID))
        + &hex("RESET_VALIDATION", 4, u64::from(reset::VALIDATION))
        + &hex("RESET_SUB_TIMEOUT", 24, u64::from(reset::SUB_TIMEOUT))
        + &hex("RESET_MASTER_TIMEOUT", 24, u64::from(reset::MASTER_TIMEOUT));
    for (i, v) in reset::RED_TIMEOUT.iter().enumerate() {
        values += &hex(&format!("RESET_RED_TIMEOUT{i}"), 24, u64::from(*v));
    }
    for (i, v) in reset::RED_THRESHOLD.iter().enumerate() {
        values += &localparams("RESET", 20, [(format!("RED_THRESHOLD{i}").as_str(), u64::from(*v))]);
    }
    values += &localparams("RESET", 4, [("RETRY_LIMIT", u64::from(reset::RETRY_LIMIT))]);
    values += &hex("CPU_STATIC_KEY_MASK", 32, u64::from(CPU_STATIC_KEY_MASK));
    values += &hex("CPU_STATIC_WORD1_MASK", 32, u64::from(CPU_STATIC_WORD1_MASK));
    h.section("The ID register's value; reset values; the bits a CPU static entry's DW0 and DW1 keep", &values);
    let cpu = crate::cpu::config::ADDRESSES.map(|(n, a)| (n, u64::from(a)));
    h.section(
        "CPU register word addresses the bridge writes (docs/blocks/cpu.md §Ports); the post-reset copy is SYNC_WRITES writes, TIMEOUT..MODE",
        &(hex_localparams("CPU", crate::cpu::config::ADDR_BITS, cpu) + &localparams("SYNC", 4, [("WRITES", u64::from(SYNC_WRITES))])),
    );
    h.line("// verilator lint_on UNUSEDPARAM");
    h.text()
}

#[cfg(test)]
mod tests {
    #[test]
    fn register_space_codes_vh_is_current() {
        crate::codes::check_generated("register_space_codes.vh", &super::verilog_header(), "register_space_codes");
    }

    /// Every offset is a DW boundary inside the window, the post-reset copy ends on MODE, and the static
    /// key mask is the key's fields.
    #[test]
    fn register_space_codes_fit() {
        use super::super::map::{cpu_addr, offset, SYNC_WRITES, WINDOW_BYTES};
        assert!(offset::TABLE.iter().all(|&(_, o)| o % 4 == 0 && o < WINDOW_BYTES));
        assert_eq!(cpu_addr::TIMEOUT + SYNC_WRITES - 1, cpu_addr::MODE);
        let all = super::super::map::CpuStaticKey::new().with_key(0x1FFF).with_family(true).with_role(3).with_valid(true);
        assert_eq!(u32::from(all), super::super::map::CPU_STATIC_KEY_MASK);
    }
}
