//! Unit tests of the register space: the map and the access path; the CPU configuration bridge in
//! [`bridge`].

use super::*;

fn access(write: bool, addr: u32, be: u8, data: u32, src: u16) -> RegisterSpaceIn {
    RegisterSpaceIn {
        s_reg_valid: true,
        s_reg_write: write,
        s_reg_addr: addr as u16,
        s_reg_be: be,
        s_reg_wdata: data,
        s_reg_src: src,
        m_reg_rsp_ready: true,
        ..Default::default()
    }
}
fn idle() -> RegisterSpaceIn {
    RegisterSpaceIn { m_reg_rsp_ready: true, ..Default::default() }
}
/// Out of reset, with the post-reset copy to the CPU done.
fn synced() -> RegisterSpace {
    let mut r = RegisterSpace::new();
    for _ in 0..r.reset_cycles() {
        r.step(&idle());
    }
    r
}

#[test]
fn bitfield_layouts_are_the_documented_ones() {
    assert_eq!(u32::from(RouteAction::new().with_valid(true).with_port(3)), 0x8000_0003);
    assert_eq!(u32::from(McastKey::new().with_valid(true).with_tree(0x1fff)), 0x8000_1fff);
    assert_eq!(u32::from(PbvPair::new().with_even(0x10).with_odd(0x20)), 0x0020_0010);
    assert_eq!(u32::from(VniAllowed::new().with_valid(true).with_vni(7)), 0x8000_0007);
    assert_eq!(u32::from(Validation::new().with_fcs(true)), 4);
}

#[test]
fn read_after_write_and_one_cycle_response() {
    let mut r = synced();
    let o = r.step(&access(true, offset::MASTER_ID, 0xF, 0xABCD_0042, 7));
    assert!(o.s_reg_ready && !o.m_reg_rsp_valid);
    let o = r.step(&access(false, offset::MASTER_ID, 0xF, 0, 7));
    assert!(o.m_reg_rsp_valid && o.m_reg_rsp_write && o.m_reg_rsp_status == status::OK);
    assert_eq!(o.cfg_master_id, 0x42);
    let o = r.step(&idle());
    assert_eq!((o.m_reg_rsp_write, o.m_reg_rsp_rdata), (false, 0x42));
}

#[test]
fn locked_writes_from_others_are_rejected_and_counted() {
    let mut r = synced();
    r.step(&access(true, offset::MASTER_ID, 0xF, 0x0001, 1));
    r.step(&access(true, offset::CTRL, 0xF, 1, 1));
    r.step(&access(true, offset::ETHERTYPE, 0xF, 0x1234, 2));
    let o = r.step(&access(true, offset::ETHERTYPE, 0x1, 0x0055, 1));
    assert_eq!(o.m_reg_rsp_status, status::REJECTED);
    let o = r.step(&idle());
    assert_eq!(o.m_reg_rsp_status, status::OK);
    assert_eq!(o.cfg_ethertype, 0x8855, "byte enable 0001 writes bits 7:0 only");
    assert_eq!(r.counter(0), 1);
}

#[test]
fn route_commit_pulses_the_output_queue_port() {
    let mut r = synced();
    r.step(&access(true, offset::ROUTE + 8 * 3, 0xF, 0xFFF0_0010, 0));
    let o = r.step(&access(true, offset::ROUTE + 8 * 3 + 4, 0xF, 0x8000_0005, 0));
    assert!(!o.cfg_route_wr_en);
    let o = r.step(&idle());
    assert!(o.cfg_route_wr_en && o.cfg_route_wr_valid);
    assert_eq!((o.cfg_route_wr_index, o.cfg_route_wr_dest_id, o.cfg_route_wr_dest_mask, o.cfg_route_wr_port), (3, 0x10, 0xfff0, 5));
    assert!(!r.step(&idle()).cfg_route_wr_en);
}

#[test]
fn unmapped_and_read_only_are_counted() {
    let mut r = synced();
    r.step(&access(false, 0xFFC, 0xF, 0, 0));
    r.step(&access(true, offset::ID, 0xF, 0, 0));
    let o = r.step(&access(false, offset::COUNTERS + 4, 0xF, 0, 0));
    assert_eq!(o.m_reg_rsp_status, status::UNMAPPED);
    assert_eq!(r.step(&idle()).m_reg_rsp_rdata, 2);
}

#[test]
fn failure_reads_the_cpu_status_and_is_read_only() {
    // docs/blocks/register_space.md FAILURE (0x16C): {valid[31], family[24], count[23:16], context[15:0]}, the
    // CPU's FAILURE status register (001's Failure flag) as its fail_* outputs show it.
    let mut r = synced();
    let failing = |i: RegisterSpaceIn| RegisterSpaceIn { cpu_fail_valid: true, cpu_fail_family: true, cpu_fail_ctx: 0x0345, cpu_fail_count: 2, ..i };
    r.step(&failing(access(false, offset::FAILURE, 0xF, 0, 1)));
    let o = r.step(&failing(idle()));
    assert_eq!((o.m_reg_rsp_status, o.m_reg_rsp_rdata), (status::OK, 0x8102_0345));
    r.step(&failing(access(true, offset::FAILURE, 0xF, 0, 1)));
    let o = r.step(&idle());
    assert_eq!(o.m_reg_rsp_status, status::UNMAPPED, "read-only");
    assert_eq!(r.counter(1), 1);
    r.step(&access(false, offset::FAILURE, 0xF, 0, 1));
    assert_eq!(r.step(&idle()).m_reg_rsp_rdata, 0, "no failure: reads 0");
}

#[test]
fn decode_covers_the_map() {
    assert_eq!(decode(0x0C2), Some(Reg::Pbv(0x30)));
    assert_eq!(decode(0x204), Some(Reg::Route(0, 1)));
    assert_eq!(decode(0x300), Some(Reg::McastIndex));
    assert_eq!(decode(0x30E), Some(Reg::McastPorts));
    assert_eq!(decode(0x310), None);
    assert_eq!(decode(0x3F4), None, "the 16-slot window is gone");
    assert_eq!(decode(0x400 + 4 * 33), Some(Reg::Counter(33)));
    assert_eq!(decode(0x400 + 4 * 34), None);
    assert_eq!(decode(0x12C), None);
    assert_eq!(decode(0x16C), Some(Reg::Failure));
    assert_eq!(decode(0x170), None);
}

/// The CPU configuration bridge (docs/blocks/register_space.md §CPU window).
mod bridge {
    use crate::register_space::*;

    fn idle(engine_id: u16) -> RegisterSpaceIn {
        RegisterSpaceIn { m_reg_rsp_ready: true, cfg_engine_id: engine_id, ..Default::default() }
    }

    #[test]
    fn after_reset_the_cpu_gets_the_reset_values_then_accesses_are_taken() {
        // Five static entries: the clearing sweep (5 cycles) ends before the copy (10).
        let mut r = RegisterSpace::with_sizes(5, 5).expect("5 entries");
        let mut writes = Vec::new();
        for _ in 0..SYNC_WRITES + 2 {
            let o = r.step(&idle(0x0720));
            if o.cpu_cfg_wr_en {
                writes.push((o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data));
            }
            assert_eq!(o.s_reg_ready, writes.len() == usize::from(SYNC_WRITES));
        }
        assert_eq!(writes, vec![
            (0x080, 1), (0x081, 0x10), (0x082, 0x100), (0x083, 0x1000),
            (0x084, 4), (0x085, 64), (0x086, 1024),
            (0x087, 0x0720), (0x088, 0), (0x089, 0x300),
        ]);
    }

    #[test]
    fn a_pbv_dw_write_configures_both_cpu_entries_on_consecutive_cycles() {
        let mut r = RegisterSpace::new();
        for _ in 0..r.reset_cycles() {
            r.step(&idle(1));
        }
        let w = |off: u32, be: u8, data: u32| RegisterSpaceIn {
            s_reg_valid: true, s_reg_write: true, s_reg_addr: off as u16, s_reg_be: be, s_reg_wdata: data,
            m_reg_rsp_ready: true, ..Default::default()
        };
        // Flags: entry 4 valid switch, entry 5 valid end device.
        let o = r.step(&w(offset::PBV_FLAGS + 8, 0xF, 0x0001_0003));
        assert!(o.s_reg_ready);
        let o = r.step(&idle(1));
        assert!(o.cpu_cfg_wr_en && o.cpu_cfg_wr_addr == 4 && o.cpu_cfg_wr_data == 0x8001_0000);
        assert!(!o.s_reg_ready, "the second entry's write holds the next access");
        let o = r.step(&idle(1));
        assert_eq!((o.cpu_cfg_wr_en, o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (true, 5, 0x8000_0000));
        assert!(o.s_reg_ready);
        r.step(&w(offset::PBV + 8, 0xF, 0x0022_0011));
        let o = r.step(&idle(1));
        assert_eq!((o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (4, 0x8001_0011));
        let o = r.step(&idle(1));
        assert_eq!((o.cpu_cfg_wr_en, o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (true, 5, 0x8000_0022));
        // A 2-byte write (seed 000 [0175]) configures one entry.
        r.step(&w(offset::PBV + 8, 0xC, 0x0033_0000));
        let o = r.step(&idle(1));
        assert_eq!((o.cpu_cfg_wr_en, o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (true, 5, 0x8000_0033));
        assert!(!r.step(&idle(1)).cpu_cfg_wr_en);
    }
}

/// The CPU window's indirect access to the static entries (docs/blocks/register_space.md §CPU window).
mod static_window {
    use crate::register_space::*;

    fn idle() -> RegisterSpaceIn {
        RegisterSpaceIn { m_reg_rsp_ready: true, ..Default::default() }
    }
    fn acc(write: bool, off: u32, data: u32) -> RegisterSpaceIn {
        RegisterSpaceIn { s_reg_valid: true, s_reg_write: write, s_reg_addr: off as u16, s_reg_be: 0xF, s_reg_wdata: data, m_reg_rsp_ready: true, ..Default::default() }
    }
    /// Out of reset with `n` entries, the sweep and the copy done; the number of cycles that took.
    fn ready(n: usize) -> (RegisterSpace, usize) {
        // A multicast table no longer than the static one, so that the sweep is the static table's.
        let mut r = RegisterSpace::with_sizes(n, n.min(16)).expect("entries");
        let mut cycles = 0;
        while !r.step(&idle()).s_reg_ready {
            cycles += 1;
        }
        (r, cycles)
    }
    /// Offers `i` until it is taken; returns the cycles it waited.
    fn take(r: &mut RegisterSpace, i: &RegisterSpaceIn) -> (usize, RegisterSpaceOut) {
        let mut waited = 0;
        loop {
            let o = r.step(i);
            if o.s_reg_ready {
                return (waited, o);
            }
            waited += 1;
        }
    }
    fn read(r: &mut RegisterSpace, off: u32) -> (u8, u32) {
        take(r, &acc(false, off, 0));
        let o = r.step(&idle());
        (o.m_reg_rsp_status, o.m_reg_rsp_rdata)
    }

    #[test]
    fn the_clearing_sweep_holds_accesses_for_the_longer_of_it_and_the_copy() {
        assert_eq!(ready(5).1, usize::from(SYNC_WRITES));
        assert_eq!(ready(4096).1, 4096);
        // At the defaults the multicast table's 8192 entries are the longer sweep.
        assert_eq!(RegisterSpace::new().reset_cycles(), 8192);
        assert!(RegisterSpace::with_static_entries(4097).is_err() && RegisterSpace::with_static_entries(0).is_err());
    }

    #[test]
    fn entry_4095_is_written_through_the_index_read_back_and_forwarded() {
        let (mut r, _) = ready(4096);
        let [(io, iv), (wo, wv), (ko, kv)] = static_entry_writes(4095, 0x8011_0FFF, 0x8000_0003);
        take(&mut r, &acc(true, io, iv));
        // The index write's RAM read: the next access waits one cycle.
        let (waited, _) = take(&mut r, &acc(true, wo, wv));
        assert_eq!(waited, 1, "an index write holds the next access for one cycle");
        let o = r.step(&idle());
        assert_eq!((o.cpu_cfg_wr_en, o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (true, 0x100 + 2 * 4095 + 1, 0x8000_0003));
        take(&mut r, &acc(true, ko, kv | 0x0100_0000));
        let o = r.step(&idle());
        // Reserved bits are dropped; the CPU's word address 0x20FE is the 14-bit map's last static word 0.
        assert_eq!((o.cpu_cfg_wr_en, o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (true, 0x20FE, 0x8011_0FFF));
        assert_eq!(read(&mut r, offset::STATIC_KEY), (status::OK, 0x8011_0FFF));
        assert_eq!(read(&mut r, offset::STATIC_WAIT), (status::OK, 0x8000_0003));
        assert_eq!(read(&mut r, offset::STATIC_INDEX), (status::OK, 4095));
        // Another entry reads its own (0), and 4095 keeps what was written.
        take(&mut r, &acc(true, offset::STATIC_INDEX, 4095 - 16));
        assert_eq!(read(&mut r, offset::STATIC_KEY), (status::OK, 0));
        take(&mut r, &acc(true, offset::STATIC_INDEX, 0xFFFF_FFFF));
        assert_eq!(read(&mut r, offset::STATIC_INDEX), (status::OK, 4095), "the index keeps bits 11:0");
        assert_eq!(read(&mut r, offset::STATIC_KEY), (status::OK, 0x8011_0FFF));
        assert_eq!(r.static_words(4095), (0x8011_0FFF, 0x8000_0003));
    }

    #[test]
    fn an_index_beyond_the_table_or_none_leaves_key_and_wait_unmapped() {
        let (mut r, _) = ready(16);
        take(&mut r, &acc(true, offset::STATIC_INDEX, 16));
        take(&mut r, &acc(true, offset::STATIC_KEY, 0x8000_0001));
        let o = r.step(&idle());
        assert_eq!(o.m_reg_rsp_status, status::UNMAPPED);
        assert!(!o.cpu_cfg_wr_en, "nothing forwarded");
        assert_eq!(read(&mut r, offset::STATIC_WAIT).0, status::UNMAPPED);
        assert_eq!(r.counter(1), 2, "both counted as unmapped");
        assert_eq!(read(&mut r, offset::STATIC_INDEX), (status::OK, 16));
        assert_eq!(decode(0x60C), None);
    }

    #[test]
    fn the_sweep_advances_in_closed_form_as_it_steps() {
        for n in [0u64, 1, 100, 4095, 4096, 5000, 8191, 8192, 9000] {
            let (mut stepped, mut advanced) = (RegisterSpace::new(), RegisterSpace::new());
            // The copy's last write is on the outputs one cycle after it ends.
            for _ in 0..=SYNC_WRITES {
                stepped.step(&idle());
                advanced.step(&idle());
            }
            for _ in 0..n {
                stepped.step(&idle());
            }
            advanced.advance_sweep(n);
            assert_eq!(stepped.sweep_remaining(), advanced.sweep_remaining(), "{n}");
            assert_eq!(stepped, advanced, "{n} cycles");
        }
    }

    #[test]
    fn each_requester_has_its_own_index_so_interleaved_streams_reach_their_entries() {
        let (mut r, _) = ready(4096);
        let from = |src: u16, write: bool, off: u32, data: u32| RegisterSpaceIn { s_reg_src: src, ..acc(write, off, data) };
        // Sources 1 and 2 interleave their triples (the fabric's configuration frames meet at the engine).
        let (a, b) = (static_entry_writes(5, 0x8000_0005, 7), static_entry_writes(4095, 0x8010_0FFF, 9));
        for k in 0..3 {
            take(&mut r, &from(1, true, a[k].0, a[k].1));
            take(&mut r, &from(2, true, b[k].0, b[k].1));
        }
        r.step(&idle());
        assert_eq!((r.static_words(5), r.static_words(4095)), ((0x8000_0005, 7), (0x8010_0FFF, 9)));
        take(&mut r, &from(1, false, offset::STATIC_INDEX, 0));
        assert_eq!(r.step(&idle()).m_reg_rsp_rdata, 5, "requester 1's own index");
        // More requesters take the other slots and one more the oldest (requester 1's).
        for src in 3..=STATIC_INDEX_SLOTS as u16 + 1 {
            take(&mut r, &from(src, true, offset::STATIC_INDEX, 100));
        }
        take(&mut r, &from(1, false, offset::STATIC_KEY, 0));
        assert_eq!(r.step(&idle()).m_reg_rsp_status, status::UNMAPPED, "requester 1 lost its slot");
        take(&mut r, &from(2, false, offset::STATIC_KEY, 0));
        let o = r.step(&idle());
        assert_eq!((o.m_reg_rsp_status, o.m_reg_rsp_rdata), (status::OK, 0x8010_0FFF), "requester 2 keeps its");
    }

    #[test]
    fn a_reset_clears_the_entries() {
        let (mut r, _) = ready(16);
        for w in static_entry_writes(15, 0x8000_0007, 2) {
            take(&mut r, &acc(true, w.0, w.1));
        }
        r.step(&idle());
        assert_eq!(r.static_words(15), (0x8000_0007, 2));
        r.step(&RegisterSpaceIn { rst: true, ..idle() });
        let mut waited = 0;
        while !r.step(&idle()).s_reg_ready {
            waited += 1;
        }
        assert_eq!(waited, 16);
        take(&mut r, &acc(true, offset::STATIC_INDEX, 15));
        assert_eq!(read(&mut r, offset::STATIC_KEY), (status::OK, 0));
        assert_eq!(read(&mut r, offset::STATIC_WAIT), (status::OK, 0));
    }
}

/// The multicast entries behind MCAST_INDEX (docs/blocks/register_space.md §Multicast entries).
mod mcast_window {
    use crate::register_space::*;

    fn idle() -> RegisterSpaceIn {
        RegisterSpaceIn { m_reg_rsp_ready: true, ..Default::default() }
    }
    fn acc(src: u16, write: bool, off: u32, data: u32) -> RegisterSpaceIn {
        RegisterSpaceIn { s_reg_valid: true, s_reg_write: write, s_reg_addr: off as u16, s_reg_be: 0xF, s_reg_wdata: data, s_reg_src: src, m_reg_rsp_ready: true, ..Default::default() }
    }
    fn ready(n: usize, m: usize) -> RegisterSpace {
        let mut r = RegisterSpace::with_sizes(n, m).expect("entries");
        while !r.step(&idle()).s_reg_ready {}
        r
    }
    /// Offers `i` until it is taken; the cycles it waited and the output of the cycle after (its
    /// response, and the pulse of a commit).
    fn take(r: &mut RegisterSpace, i: &RegisterSpaceIn) -> (usize, RegisterSpaceOut) {
        let mut waited = 0;
        while !r.step(i).s_reg_ready {
            waited += 1;
        }
        (waited, r.step(&idle()))
    }

    #[test]
    fn trees_17_and_8191_are_armed_at_once_and_read_back() {
        let mut r = ready(16, MCAST_ENTRIES);
        assert_eq!(r.mcast_entries(), 8192);
        let mut pulses = vec![];
        for (tree, wait, ports) in [(17u16, 3, 0x0005u16), (8191, 0xF_FFFF, 0x8001)] {
            for (k, (off, v)) in mcast_entry_writes(tree, true, wait, ports).into_iter().enumerate() {
                let (_, o) = take(&mut r, &acc(1, true, off, v));
                assert_eq!(o.m_reg_rsp_status, status::OK);
                // The index write's RAM read holds the next access for one cycle.
                assert_eq!(o.s_reg_ready, k != 0);
                if o.cfg_mcast_wr_en {
                    pulses.push((o.cfg_mcast_wr_tree, o.cfg_mcast_wr_valid, o.cfg_mcast_wr_wait_count, o.cfg_mcast_wr_ports));
                }
            }
        }
        assert_eq!(pulses, [(17, true, 3, 5), (8191, true, 0xF_FFFF, 0x8001)], "one commit per tree, named by the index");
        assert_eq!(r.mcast_entry(17), Some(McastEntry { valid: true, wait: 3, ports: 5 }));
        assert_eq!(r.mcast_entry(8191), Some(McastEntry { valid: true, wait: 0xF_FFFF, ports: 0x8001 }));
        // Read back through the index: the key reads the tree; writes to its tree bits are ignored.
        take(&mut r, &acc(1, true, offset::MCAST_INDEX, 17));
        take(&mut r, &acc(1, true, offset::MCAST_KEY, 0x8000_1FFF));
        assert_eq!(take(&mut r, &acc(1, false, offset::MCAST_KEY, 0)).1.m_reg_rsp_rdata, 0x8000_0011);
        assert_eq!(take(&mut r, &acc(1, false, offset::MCAST_WAIT, 0)).1.m_reg_rsp_rdata, 3);
        assert_eq!(take(&mut r, &acc(1, false, offset::MCAST_PORTS, 0)).1.m_reg_rsp_rdata, 5);
        assert_eq!(take(&mut r, &acc(1, false, offset::MCAST_INDEX, 0)).1.m_reg_rsp_rdata, 17);
        // Clearing tree 17 names it; 8191 stays.
        let (_, o) = take(&mut r, &acc(1, true, offset::MCAST_KEY, 0));
        assert_eq!((o.cfg_mcast_wr_en, o.cfg_mcast_wr_tree, o.cfg_mcast_wr_valid), (true, 17, false));
        assert!(r.mcast_entry(8191).is_some_and(|e| e.valid));
    }

    #[test]
    fn a_tree_beyond_the_table_or_no_index_is_unmapped() {
        let mut r = ready(16, 16);
        assert_eq!(take(&mut r, &acc(1, false, offset::MCAST_WAIT, 0)).1.m_reg_rsp_status, status::UNMAPPED, "no index");
        take(&mut r, &acc(1, true, offset::MCAST_INDEX, 16));
        let o = take(&mut r, &acc(1, true, offset::MCAST_KEY, 1 << 31)).1;
        assert_eq!(o.m_reg_rsp_status, status::UNMAPPED);
        assert!(!o.cfg_mcast_wr_en, "nothing committed");
        assert_eq!(r.counter(1), 2);
        assert_eq!(take(&mut r, &acc(1, false, offset::MCAST_INDEX, 0)).1.m_reg_rsp_rdata, 16);
        assert!(RegisterSpace::with_sizes(16, 8193).is_err() && RegisterSpace::with_sizes(16, 0).is_err());
    }

    #[test]
    fn interleaved_requesters_reach_their_own_trees() {
        let mut r = ready(16, MCAST_ENTRIES);
        let (a, b) = (mcast_entry_writes(100, true, 1, 1), mcast_entry_writes(5000, true, 2, 2));
        for k in 0..4 {
            take(&mut r, &acc(1, true, a[k].0, a[k].1));
            take(&mut r, &acc(2, true, b[k].0, b[k].1));
        }
        assert_eq!(r.mcast_entry(100), Some(McastEntry { valid: true, wait: 1, ports: 1 }));
        assert_eq!(r.mcast_entry(5000), Some(McastEntry { valid: true, wait: 2, ports: 2 }));
        // A reset clears the entries (after the sweep).
        r.step(&RegisterSpaceIn { rst: true, ..idle() });
        let mut waited = 0;
        while !r.step(&idle()).s_reg_ready {
            waited += 1;
        }
        assert_eq!(waited, 8192, "the multicast table's sweep");
        assert_eq!(r.mcast_entry(5000), Some(McastEntry::default()));
    }
}
