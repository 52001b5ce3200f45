//! Lockstep co-simulation of the register space (Rust model vs Verilated RTL), and the seed's PBV
//! programming example (000 [0174]-[0178], Tables 5-7) replayed as register writes.

use std::path::PathBuf;

use inswitch::blocks::register_space::{self, counter};
use inswitch::checker::RunConfig;
use inswitch_model::register_space::{offset, status, RegisterSpace, RegisterSpaceIn, RegisterSpaceOut, ENGINE_BASE};
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
        (counter::FAILURE_READS, 100),
        (counter::STATIC_INDEX_WRITES, 1_000),
        (counter::STATIC_READS_NONZERO, 300),
        (counter::STATIC_BEYOND, 300),
        (counter::MCAST_INDEX_WRITES, 1_000),
        (counter::MCAST_READS_WRITTEN, 300),
        (counter::MCAST_BEYOND, 300),
    ] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

/// The multicast entries at the seed's size (8192 trees in RAM, docs/blocks/register_space.md §Multicast
/// entries), with the clearing sweep of 8192 cycles after every reset: trees at both ends of the table.
#[test]
fn register_space_at_full_multicast_size_matches_rtl() {
    let cfg = RunConfig { seed: 0x5eed_2024, cycles: 300_000, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-out") };
    let outcome = register_space::run("register_space_full", &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, cfg.cycles);
    for (name, min) in [
        (counter::MCAST_INDEX_WRITES, 300),
        (counter::MCAST_COMMITS, 100),
        (counter::MCAST_COMMITS_HIGH, 50),
        (counter::MCAST_READS_WRITTEN, 100),
        (counter::MCAST_BEYOND, 50),
        (counter::RESETS, 1),
    ] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

/// Trees 17 and 8191 armed on one engine at once, through the Verilated RTL and the model in lockstep:
/// beyond the 16 slots the window had before session 24 (the interposer's table has every tree). The
/// pulses to the interposer name each tree with its values, and both entries read back.
#[test]
fn trees_17_and_8191_are_armed_at_once_through_the_rtl() {
    use inswitch::blocks::register_space::RegisterSpaceRtl;
    use inswitch_model::register_space::mcast_entry_writes;
    let mut rtl = RegisterSpaceRtl::new("register_space_full").unwrap();
    let mut model = RegisterSpace::power_on_sized(16, 8192).unwrap();
    let idle = RegisterSpaceIn { m_reg_rsp_ready: true, ..Default::default() };
    let acc = |write: bool, off: u32, v: u32| RegisterSpaceIn { s_reg_valid: true, s_reg_write: write, s_reg_addr: off as u16, s_reg_be: 0xF, s_reg_wdata: v, s_reg_src: 0x0001, m_reg_rsp_ready: true, ..Default::default() };
    let mut pulses = vec![];
    let mut reads = vec![];
    let mut cycle = 0u64;
    let mut step = |i: &RegisterSpaceIn, pulses: &mut Vec<(u16, bool, u32, u16)>, reads: &mut Vec<u32>| {
        let (o, m) = (rtl.step(i), model.step(i));
        assert_eq!(o, m, "cycle {cycle}: RTL and model differ");
        cycle += 1;
        if o.cfg_mcast_wr_en {
            pulses.push((o.cfg_mcast_wr_tree, o.cfg_mcast_wr_valid, o.cfg_mcast_wr_wait_count, o.cfg_mcast_wr_ports));
        }
        if o.m_reg_rsp_valid && !o.m_reg_rsp_write {
            reads.push(o.m_reg_rsp_rdata);
        }
        o.s_reg_ready
    };
    step(&RegisterSpaceIn { rst: true, ..idle }, &mut pulses, &mut reads);
    while !step(&idle, &mut pulses, &mut reads) {}
    let mut seq: Vec<(bool, u32, u32)> = vec![];
    for (tree, wait, ports) in [(17u16, 2, 0x0003u16), (8191, 5, 0x8000)] {
        seq.extend(mcast_entry_writes(tree, true, wait, ports).map(|(o, v)| (true, o, v)));
    }
    for tree in [17, 8191] {
        seq.extend([(true, offset::MCAST_INDEX, tree), (false, offset::MCAST_KEY, 0), (false, offset::MCAST_WAIT, 0), (false, offset::MCAST_PORTS, 0)]);
    }
    for (write, off, v) in seq {
        // Offered until taken (an index write holds the next access for a cycle).
        while !step(&acc(write, off, v), &mut pulses, &mut reads) {}
        step(&idle, &mut pulses, &mut reads);
    }
    step(&idle, &mut pulses, &mut reads);
    assert_eq!(pulses, [(17, true, 2, 3), (8191, true, 5, 0x8000)], "both trees committed to the interposer");
    assert_eq!(reads, [0x8000_0011, 2, 3, 0x8000_1FFF, 5, 0x8000], "both entries held at once");
    assert_eq!(model.mcast_entry(17).map(|e| e.valid), Some(true));
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
    // The post-reset copy to the CPU and the static entries' clearing sweep hold accesses off.
    for _ in 0..r.reset_cycles() {
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

/// One source of truth, end to end at block level: the register space's `cpu_cfg_wr_*` drives the CPU
/// model's `cfg_wr_*` (docs/blocks/cpu.md §Ports, decoded by the CPU's own `Config::write`, not by the bridge's
/// scoreboard); after the Table 5 programming of [0176] and 20,000 random register writes (any offset,
/// byte enables, requesters, lock changes), every value the CPU holds equals what the register map reads.
#[test]
fn the_register_space_is_the_cpus_only_configuration_source() {
    use inswitch_model::cpu::{Cpu, CpuIn, CpuParams};
    use inswitch_model::register_space::{decode, static_entry_writes, CPU_STATIC_ENTRIES};
    use rand::{RngExt, SeedableRng};

    const ENGINE: u16 = 0x0000; // switch 720 of Tables 2 and 5
    let mut rs = RegisterSpace::power_on();
    let mut cpu = Cpu::new(CpuParams { static_entries: CPU_STATIC_ENTRIES, ..CpuParams::default() }).expect("CPU parameters");
    let cycle = |rs: &mut RegisterSpace, cpu: &mut Cpu, i: RegisterSpaceIn| -> RegisterSpaceOut {
        let i = RegisterSpaceIn { cfg_engine_id: ENGINE, m_reg_rsp_ready: true, ..i };
        let o = rs.step(&i);
        // The CPU samples the bridge's write in the cycle it is on the port.
        let ci = if o.cpu_cfg_wr_en { CpuIn::cfg(o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data) } else { CpuIn { m_msg_ready: true, ..CpuIn::default() } };
        cpu.step(&CpuIn { rst: i.rst, ..ci });
        o
    };
    cycle(&mut rs, &mut cpu, RegisterSpaceIn { rst: true, ..Default::default() });
    // Writes are offered until taken (s_reg_ready is low during the post-reset copy and second PBV entries).
    let write = |rs: &mut RegisterSpace, cpu: &mut Cpu, off: u32, be: u8, data: u32, src: u16| {
        let i = RegisterSpaceIn { s_reg_valid: true, s_reg_write: true, s_reg_addr: off as u16, s_reg_be: be, s_reg_wdata: data, s_reg_src: src, ..Default::default() };
        while !cycle(rs, cpu, i).s_reg_ready {}
    };
    // Table 5 ([0176]): PBV0, PBV1 the subservient switches 725 and 730, PBV2 the source, PBV3-4 nodes.
    for (e, dev) in [0x0010u32, 0x0020, 0x0001, 0x0002, 0x0003].into_iter().enumerate() {
        let off = 2 * e as u32;
        let (be, data) = if off % 4 == 0 { (0x3, dev) } else { (0xC, dev << 16) };
        write(&mut rs, &mut cpu, offset::PBV + (off & !3), be, data, 1);
    }
    write(&mut rs, &mut cpu, offset::PBV_FLAGS, 0xF, 0x0003_0003, 1);
    write(&mut rs, &mut cpu, offset::PBV_FLAGS + 4, 0xF, 0x0001_0001, 1);
    write(&mut rs, &mut cpu, offset::PBV_FLAGS + 8, 0x3, 0x0000_0001, 1);
    // CC_ID 1, TLP, MASTER, valid, in entry 1; and CC_ID 0xFFF in the last entry, 4095 (the table is
    // direct-mapped, docs/blocks/cpu.md §Static table).
    for (s, key) in [(1u16, 0x8010_0001u32), (4095, 0x8010_0FFF)] {
        for (off, v) in static_entry_writes(s, key, 0) {
            write(&mut rs, &mut cpu, off, 0xF, v, 1);
        }
    }
    // The last write is on cpu_cfg_wr the next cycle and in the CPU the one after.
    for _ in 0..2 {
        cycle(&mut rs, &mut cpu, RegisterSpaceIn::default());
    }
    let p = *cpu.config().pbv;
    assert!(p[0].valid && p[0].switch && p[0].device_id == 0x0010, "{:?}", p[0]);
    assert!(p[2].valid && !p[2].switch && p[2].device_id == 0x0001, "{:?}", p[2]);
    assert!(!p[5].valid);
    let s = cpu.static_entry(1);
    assert!(s.valid && !s.portals && s.key == 1 && s.role == 1);
    let s = cpu.static_entry(4095);
    assert!(s.valid && !s.portals && s.key == 0xFFF && s.role == 1);

    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed_b41d);
    for _ in 0..20_000 {
        let off = match r.random_range(0..6) {
            0 => r.random_range(0..0x100u32),
            1 => 0x500 + r.random_range(0..0x100u32),
            2 => 0x600 + r.random_range(0..0x10u32),
            3 => [0x104, 0x108, 0x11C, 0x164, 0x168][r.random_range(0..5)],
            4 => 0x130 + r.random_range(0..0x1Cu32),
            _ => r.random_range(0..0x800u32),
        } & !3;
        let data = match off {
            0x104 => u32::from(r.random_bool(0.3)),
            0x108 => r.random_range(0..3),
            // STATIC_INDEX: the first and last entries, often, so that entries are rewritten.
            0x600 if r.random_bool(0.8) => [r.random_range(0..8), r.random_range(4088..4096)][r.random_range(0..2)],
            _ => r.random(),
        };
        write(&mut rs, &mut cpu, off, r.random_range(0..16), data, r.random_range(0..3));
    }
    for _ in 0..4 {
        cycle(&mut rs, &mut cpu, RegisterSpaceIn::default());
    }
    let read = |off: u32| decode(off as u16).map(|reg| rs.read_with(reg, ENGINE)).unwrap_or(0);
    let c = cpu.config();
    for e in 0..128u32 {
        let (dev, flags) = (read(4 * (e / 2)) >> (16 * (e % 2)) & 0xFFFF, read(0x500 + 4 * (e / 2)) >> (16 * (e % 2)));
        let want = (flags & 1 != 0, flags & 2 != 0, dev as u16);
        let got = c.pbv[e as usize];
        assert_eq!((got.valid, got.switch, got.device_id), want, "PBV entry {e}");
    }
    for k in 0..4 {
        assert_eq!(c.timeout[k], read(0x130 + 4 * k as u32), "TIMEOUT{k}");
    }
    for k in 0..3 {
        assert_eq!(c.threshold[k], read(0x140 + 4 * k as u32), "THRESHOLD{k}");
    }
    assert_eq!(c.engine_id, ENGINE);
    assert_eq!(c.engine_sfa, read(0x164));
    assert_eq!((c.ieee, u32::from(c.retry_limit)), (read(0x11C) & 1 != 0, read(0x168)));
    for s in 0..CPU_STATIC_ENTRIES {
        let (k, w) = rs.static_words(s);
        let e = cpu.static_entry(s);
        // STATIC[s].WAIT: [19:0] wait count, [31] one target (docs/blocks/register_space.md).
        let got = (e.valid, e.portals, e.key, e.role, e.wait, e.one_target);
        assert_eq!(got, (k >> 31 != 0, k >> 16 & 1 != 0, (k & 0x1FFF) as u16, (k >> 20 & 3) as u8, w & 0xF_FFFF, w >> 31 != 0), "static entry {s}");
    }
}
