//! Lockstep co-simulation of the register space (Rust model vs Verilated RTL), and the seed's PBV
//! programming example (000 [0174]-[0178], Tables 5-7) replayed as register writes.

use std::path::PathBuf;

use inswitch::blocks::register_space::{self, counter};
use inswitch::checker::RunConfig;
use inswitch_model::regs::{offset, status, RegisterSpace, RegisterSpaceIn, RegisterSpaceOut, ENGINE_BASE, SYNC_WRITES};
use inswitch_model::Block;

/// The bar: at least 10^6 cycles with 0 mismatches.
const CYCLES: u64 = 1_000_000;

#[test]
fn register_space_matches_rtl_for_a_million_cycles() {
    let cfg = RunConfig { seed: 0x5eed_0006, cycles: CYCLES, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-out") };
    let outcome = register_space::run("register_space", &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, CYCLES);
    for (name, min) in [
        (counter::WRITES_OK, 10_000),
        (counter::REJECTED, 1_000),
        (counter::UNMAPPED, 1_000),
        (counter::READS, 10_000),
        (counter::ROUTE_COMMITS, 1_000),
        (counter::MCAST_COMMITS, 1_000),
        (counter::COUNTER_CLEARS, 1_000),
        (counter::STALLED, 1_000),
        (counter::RESETS, 5),
        (counter::LOCKED_CYCLES, 10_000),
        (counter::CPU_WRITES, 10_000),
        (counter::CPU_PBV_WRITES, 5_000),
        (counter::CPU_DOUBLE_WRITES, 1_000),
        (counter::CPU_STATIC_WRITES, 1_000),
        (counter::CPU_IMAGE_CHECKS, 50),
    ] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

/// A memory write as the input checker hands it over: the TLP address is `switch << 16 | 0xC000 | off`,
/// the register space sees the 12-bit offset.
fn write16(switch_id: u16, address: u32, device_id: u16, src: u16) -> RegisterSpaceIn {
    assert_eq!(address >> 16, u32::from(switch_id), "[0175]: each switch's engine is in its own 64 KiB");
    assert_eq!(address & 0xF000, ENGINE_BASE);
    let off = address & 0xFFF;
    // A 2-byte write: First BE 0011 or 1100 in the DW, data in the enabled lanes (little-endian).
    let (be, data) = if off % 4 == 0 { (0x3, u32::from(device_id)) } else { (0xC, u32::from(device_id) << 16) };
    RegisterSpaceIn { s_reg_valid: true, s_reg_write: true, s_reg_addr: off as u16, s_reg_be: be, s_reg_wdata: data, s_reg_src: src, m_reg_rsp_ready: true, ..Default::default() }
}

fn program(switch_id: u16, table: &[u16], master: u16) -> RegisterSpace {
    let mut r = RegisterSpace::new();
    // The post-reset copy to the CPU holds accesses off for SYNC_WRITES cycles.
    for _ in 0..SYNC_WRITES {
        r.step(&RegisterSpaceIn { m_reg_rsp_ready: true, ..Default::default() });
    }
    let lock = |off: u32, v: u32| RegisterSpaceIn { s_reg_valid: true, s_reg_write: true, s_reg_addr: off as u16, s_reg_be: 0xF, s_reg_wdata: v, s_reg_src: master, m_reg_rsp_ready: true, ..Default::default() };
    r.step(&lock(offset::MASTER_ID, u32::from(master)));
    r.step(&lock(offset::CTRL, 1));
    let base = u32::from(switch_id) << 16 | ENGINE_BASE;
    let mut outs: Vec<RegisterSpaceOut> = Vec::new();
    for (entry, &dev) in table.iter().enumerate() {
        outs.push(r.step(&write16(switch_id, base + 2 * entry as u32, dev, master)));
    }
    outs.push(r.step(&RegisterSpaceIn { m_reg_rsp_ready: true, ..Default::default() }));
    // Each 2-byte write configured the CPU's PBV entry (flags still 0: not valid yet), one cycle later.
    let cpu: Vec<(u16, u32)> = outs.iter().filter(|o| o.cpu_cfg_wr_en).map(|o| (o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data)).collect();
    let want: Vec<(u16, u32)> = table.iter().enumerate().map(|(e, &d)| (e as u16, u32::from(d))).collect();
    assert_eq!(cpu, want, "CPU PBV writes of switch {switch_id:#06x}");
    // A stranger's write to PBV 0 is rejected.
    r.step(&write16(switch_id, base, 0xDEAD, 0x0777));
    let o = r.step(&RegisterSpaceIn { m_reg_rsp_ready: true, ..Default::default() });
    assert_eq!(o.m_reg_rsp_status, status::REJECTED);
    assert_eq!(r.counter(0), 1);
    r
}

#[test]
fn tables_5_to_7_pbv_programming_replayed_as_register_writes() {
    // Master engine: switch 720 (device 0x0000) is configured by source node 735 (0x0001); it then writes
    // the PBV tables of switches 725 (0x0010) and 730 (0x0020): 5x 0x0000_C0yy, 3x 0x0010_C0yy,
    // 3x 0x0020_C0yy ([0175]).
    let table5 = [0x0010, 0x0020, 0x0001, 0x0002, 0x0003];
    // Tables 6 and 7 as printed repeat Table 5's first three IDs; the text of [0177]-[0178] says each
    // holds its own three nodes. Both are replayed: the register space stores whatever is written.
    let table6_printed = [0x0010, 0x0020, 0x0001];
    let table6_text = [0x0011, 0x0012, 0x0013];
    let table7_text = [0x0021, 0x0022, 0x0023];
    for (switch_id, table, master) in [
        (0x0000u16, &table5[..], 0x0001u16),
        (0x0010, &table6_printed[..], 0x0000),
        (0x0010, &table6_text[..], 0x0000),
        (0x0020, &table7_text[..], 0x0000),
    ] {
        let mut r = program(switch_id, table, master);
        for (entry, &dev) in table.iter().enumerate() {
            assert_eq!(r.pbv(entry), dev, "switch {switch_id:#06x} PBV {entry}");
            let o = r.step(&RegisterSpaceIn { pbv_rd_index: entry as u8, m_reg_rsp_ready: true, ..Default::default() });
            assert_eq!(o.pbv_rd_dev_id, dev, "PBV read port");
        }
        assert_eq!(r.pbv(table.len()), 0, "entries not written stay 0");
    }
}
