//! Directed tests of the Portals family's rules (002) in `docs/blocks/cpu.md`: wait counts, ARM and
//! re-arm, timeouts, the root's multicast.

use super::*;

#[test]
fn portals_reduction_completes_at_the_wait_count_and_frees_the_descriptor() {
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 3);
    tb.send(arm(0x12, 2, 5));
    let sum = Opcode::IntSum;
    for (k, v) in [10u64, 20, 30].into_iter().enumerate() {
        tb.send(pdata(0x12, 2, 5, sum, v, 0x100 + k as u32));
    }
    let (outs, events) = tb.take();
    assert_eq!(events, [event::ARM, event::ACCEPT, event::ACCEPT, event::ACCEPT, event::COMPLETE]);
    assert_eq!(outs.len(), 1);
    let o = outs[0];
    assert_eq!((o.kind, o.family, o.ctx, o.count, o.port), (Kind::CONTRIBUTION, Family::Portals, 2 << 13 | 0x12, 3, 3));
    assert_eq!((o.seqno, o.resno, o.src, o.vni, o.cookie), (5, 5, ENGINE_SFA, 7, 0xC00C_1E00), "002 (57): resno = seqno upward");
    assert_eq!(o.data, [60, 63, 66, 69]);
    assert!(tb.cpu.live(true, 2 << 13 | 0x12).is_none(), "002 (56): dynamic state freed");
}

#[test]
fn wrong_vni_cookie_or_seqno_is_dropped_and_never_combined() {
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 2);
    tb.send(arm(0x12, 0, 9));
    let good = pdata(0x12, 0, 9, Opcode::IntSum, 1, 0x1);
    tb.send(CollectiveMsg { vni: 8, ..good });
    tb.send(CollectiveMsg { cookie: 1, ..good });
    tb.send(CollectiveMsg { seqno: 8, ..good });
    tb.send(good);
    tb.send(CollectiveMsg { data: [5; 4], ..good });
    let (outs, events) = tb.take();
    assert_eq!(
        events,
        [event::ARM, event::DROP_VNI, event::DROP_COOKIE, event::DROP_SEQNO, event::ACCEPT, event::ACCEPT, event::COMPLETE]
    );
    assert_eq!(outs[0].data, [6, 7, 8, 9]);
    assert_eq!(outs[0].count, 2);
}

#[test]
fn a_different_opcode_gives_op_mismatch_with_both_sfas() {
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 2);
    tb.send(arm(0x12, 0, 1));
    tb.send(pdata(0x12, 0, 1, Opcode::IntSum, 1, 0x1111));
    tb.send(pdata(0x12, 0, 1, Opcode::IntMax, 1, 0x2222));
    let (outs, _) = tb.take();
    assert_eq!(outs[0].rc, Rc::OP_MISMATCH.0);
    assert_eq!(outs[0].data[0], 0x2222_0000_1111);
}

#[test]
fn without_a_free_descriptor_frames_pass_up_unchanged() {
    let mut tb = Tb::small();
    for (s, tree) in [(0u16, 0x10u16), (1, 0x11), (2, 0x12)] {
        tb.static_entry(s, true, role::SUBSERVIENT, tree, 4);
    }
    tb.send(arm(0x10, 0, 1));
    tb.send(arm(0x11, 0, 1));
    tb.send(arm(0x12, 0, 1));
    let late = pdata(0x12, 0, 1, Opcode::IntSum, 3, 0x3);
    tb.send(late);
    let (outs, events) = tb.take();
    assert_eq!(events, [event::ARM, event::ARM, event::ARM_NO_DESC, event::PASS_UP]);
    assert_eq!(outs, [late], "002 (59): the frame goes on up the multicast path as it came");
}

/// Issue 15 item 9, 002 (35), (61): each tree slot holds eight reductions of its tree at once (reduction
/// ids 0-7, ctx bits 15:13), beside the other slots' trees; a tree with no slot left gets none. Before
/// session 18 one pool of `DESCRIPTORS` (2 here) served every reduction of every tree: the third ARM
/// found no descriptor.
#[test]
fn each_tree_slot_holds_eight_concurrent_reductions_of_its_tree() {
    let mut tb = Tb::small();
    for (s, tree) in [(0u16, 0x10u16), (1, 0x11), (2, 0x12)] {
        tb.static_entry(s, true, role::SUBSERVIENT, tree, 1);
    }
    for tree in [0x10u16, 0x11] {
        for red in 0..8 {
            tb.send(arm(tree, red, 1 + red));
        }
    }
    tb.send(arm(0x12, 0, 1));
    let (_, events) = tb.take();
    assert_eq!(events[..16], [event::ARM; 16], "sixteen reductions live: eight on each of two trees");
    assert_eq!(events[16], event::ARM_NO_DESC, "a third tree: both slots are taken");
    for tree in [0x10u16, 0x11] {
        for red in 0..8 {
            assert!(tb.cpu.live(true, red << 13 | tree).is_some(), "tree {tree:#x} reduction {red} held");
        }
    }
    // Every one of them combines on its own and completes (wait count 1).
    for tree in [0x10u16, 0x11] {
        for red in 0..8 {
            tb.send(pdata(tree, red, 1 + red, Opcode::IntSum, u64::from(100 * tree + red), 0x100));
        }
    }
    let (outs, events) = tb.take();
    assert_eq!(events, [event::ACCEPT, event::COMPLETE].repeat(16));
    let got: Vec<(u16, u16, u64)> = outs.iter().map(|o| (o.ctx, o.seqno, o.data[0])).collect();
    let want: Vec<(u16, u16, u64)> =
        [0x10u16, 0x11].iter().flat_map(|&t| (0..8u16).map(move |r| (r << 13 | t, 1 + r, u64::from(100 * t + r)))).collect();
    assert_eq!(got, want);
    // The slots are free again: the third tree now arms.
    tb.send(arm(0x12, 5, 1));
    assert_eq!(tb.take().1, [event::ARM]);
}

#[test]
fn a_timeout_sends_the_partial_result_and_late_frames_pass_up() {
    // 7 ticks (28 cycles): the two contributions (the second combined, 11 cycles since the reduction
    // unit's 6-cycle pipeline, session 15) are in before it; with 5 it expired while they were sent.
    const TIMEOUT: u32 = 7;
    let mut tb = Tb::small();
    tb.cfg(config::TIMEOUT, TIMEOUT);
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 4);
    tb.send(arm(0x12, 0, 1));
    tb.send(pdata(0x12, 0, 1, Opcode::IntSum, 1, 0x1));
    tb.send(pdata(0x12, 0, 1, Opcode::IntSum, 2, 0x2));
    assert_eq!(tb.take().1, [event::ARM, event::ACCEPT, event::ACCEPT], "no expiry before both are in");
    tb.run(u64::from(TIMEOUT * TICK) + 4);
    let (outs, events) = tb.take();
    assert_eq!(events, [event::TIMEOUT_PARTIAL]);
    assert_eq!((outs[0].count, outs[0].data[0]), (2, 3), "002 (63): forwarded with its count");
    assert!(tb.cpu.live(true, 0x12).is_none());
    let late = pdata(0x12, 0, 1, Opcode::IntSum, 4, 0x4);
    tb.send(late);
    assert_eq!(tb.take(), (vec![late], vec![event::PASS_UP]));
}

#[test]
fn an_armed_context_with_nothing_is_freed_at_its_timeout_not_before() {
    let mut tb = Tb::small();
    tb.cfg(config::TIMEOUT, 6);
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 4);
    tb.send(arm(0x12, 0, 1));
    tb.take();
    let armed_at = tb.cycles;
    while tb.events.is_empty() {
        tb.step(CpuIn::default());
    }
    let waited = tb.cycles - armed_at;
    assert!(waited > u64::from(5 * TICK) && waited <= u64::from(6 * TICK) + 8, "freed after {waited} cycles");
    tb.settle();
    assert_eq!(tb.take(), (vec![], vec![event::TIMEOUT_EMPTY]));
    assert!(tb.cpu.live(true, 0x12).is_none());
}

#[test]
fn the_timeout_is_chosen_by_the_wait_count_and_doubled_for_a_master() {
    let mut tb = Tb::small();
    for (k, t) in [10u32, 20, 30, 40].into_iter().enumerate() {
        tb.cfg(config::TIMEOUT + k as u16, t);
    }
    for (k, t) in [4u32, 16, 64].into_iter().enumerate() {
        tb.cfg(config::THRESHOLD + k as u16, t);
    }
    let cpu = &tb.cpu;
    assert_eq!([4, 5, 16, 17, 64, 65].map(|w| cpu.config().timeout_for(w)), [10, 20, 20, 30, 30, 40]);
    tb.static_entry(0, true, role::SUBSERVIENT, 0x1, 17);
    tb.static_entry(1, true, role::MASTER, 0x2, 17);
    tb.send(arm(0x1, 0, 1));
    tb.send(arm(0x2, 0, 1));
    assert_eq!(tb.cpu.live(true, 0x1).unwrap().load, 30);
    assert_eq!(tb.cpu.live(true, 0x2).unwrap().load, 60, "000 [0154]: master's timeout is longer");
}

#[test]
fn a_portals_master_multicasts_the_result_and_re_arms_with_the_next_seqno() {
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::MASTER, 0x12, 2);
    tb.send(arm(0x12, 1, 1022));
    tb.send(pdata(0x12, 1, 1022, Opcode::IntMin, 5, 0x1));
    tb.send(pdata(0x12, 1, 1022, Opcode::IntMin, 3, 0x2));
    let (outs, _) = tb.take();
    let o = outs[0];
    assert_eq!((o.kind, o.seqno, o.resno, o.data[0], o.count), (Kind::ARM, 0, 1022, 3, 2), "1023 is skipped");
    let d = tb.cpu.live(true, 1 << 13 | 0x12).expect("re-armed");
    assert_eq!((d.seqno, d.count, d.acc_valid, d.state), (0, 0, false, CtxState::Idle));
    tb.send(pdata(0x12, 1, 0, Opcode::IntMin, 9, 0x1));
    assert_eq!(tb.take().1, [event::ACCEPT]);
    assert_eq!(next_seqno(5), 6);
}

#[test]
fn an_arm_with_the_reserved_seqno_is_dropped_and_a_rearm_clears_stale_state() {
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 3);
    tb.send(arm(0x12, 0, 1023));
    tb.send(arm(0x12, 0, 4));
    tb.send(pdata(0x12, 0, 4, Opcode::IntSum, 1, 0x1));
    tb.send(arm(0x12, 0, 5));
    let d = *tb.cpu.live(true, 0x12).unwrap();
    assert_eq!((d.count, d.acc_valid, d.seqno), (0, false, 5), "002 (71)");
    assert_eq!(tb.take().1, [event::BAD_SEQNO_ARM, event::ARM, event::ACCEPT, event::REARM]);
}

#[test]
fn only_a_newer_arm_re_arms_a_duplicated_or_older_one_is_dropped() {
    // 002 (70)-(71): an arm with a newer seqno clears the state; frames with an old seqno are dropped.
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 3);
    tb.send(arm(0x12, 0, 1021));
    tb.send(pdata(0x12, 0, 1021, Opcode::IntSum, 1, 0x1));
    tb.send(arm(0x12, 0, 1021)); // duplicated arm
    tb.send(arm(0x12, 0, 1000)); // older
    tb.send(arm(0x12, 0, 510)); // 512 ahead modulo 1023 = 511 behind: older
    let d = *tb.cpu.live(true, 0x12).unwrap();
    assert_eq!((d.count, d.acc_valid, d.seqno), (1, true, 1021), "the running reduction survives");
    assert_eq!(tb.take().1, [event::ARM, event::ACCEPT, event::STALE_ARM, event::STALE_ARM, event::STALE_ARM]);
    tb.send(arm(0x12, 0, 2)); // newer across the wrap (1021, 1022, 0, 1, 2)
    let d = *tb.cpu.live(true, 0x12).unwrap();
    assert_eq!((d.count, d.acc_valid, d.seqno), (0, false, 2));
    assert_eq!(tb.take().1, [event::REARM]);
    assert!(seqno_newer(0, 1022) && seqno_newer(511, 0) && !seqno_newer(512, 0) && !seqno_newer(7, 7));
    assert!(!seqno_newer(1022, 0) && seqno_newer(1021, 510) && !seqno_newer(510, 1021));
}

#[test]
fn more_contributions_than_the_wait_count_raise_contr_overflow() {
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 2);
    tb.send(arm(0x12, 0, 1));
    tb.send(CollectiveMsg { count: 3, ..pdata(0x12, 0, 1, Opcode::BitOr, 1, 0x1) });
    let (outs, _) = tb.take();
    assert_eq!((outs[0].count, outs[0].rc), (3, Rc::CONTR_OVERFLOW.0));
}
