//! Directed tests of the kept result (`docs/blocks/cpu.md` §Messages "Kept result"; 000 [0098], [0117]:
//! retries are per packet, not a restart of the collective): a RETRY for the round just completed gets
//! its result again, to the requester alone, and so does a switch participant's RESPONSE for it (its copy
//! lost); nothing else changes.

use super::*;

/// A RETRY request for context `cc` from `src` naming participant `pid`, for transaction `tid`.
fn retry(cc: u16, src: u16, pid: u16, tid: u8) -> CollectiveMsg {
    CollectiveMsg { kind: Kind::RETRY, ctx: cc, src: u32::from(src), pid, tid, posted: true, ..CollectiveMsg::default() }
}

/// One all-reduce round of the master of [`tlp_master`] (participants 0, 2, 3), TID `tid`: its outputs.
fn master_round(tb: &mut Tb, tid: u8, values: [u64; 3]) -> Vec<CollectiveMsg> {
    for ((pid, dev), v) in [(0u16, 0x10u16), (2, 0x12), (3, 0x13)].into_iter().zip(values) {
        tb.send(contrib(0x345, pid, dev, tid, Opcode::IntSum, v));
    }
    tb.take().0
}

#[test]
fn a_master_resends_the_kept_result_to_its_source_or_a_participant_and_to_no_one_else() {
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::IntSum, 100);
    tb.take();
    let outs = master_round(&mut tb, 0, [1, 2, 3]);
    let to_source = *outs.last().unwrap();
    assert_eq!((to_source.dst, to_source.data[0], to_source.count), (u32::from(SOURCE), 106, 3));
    let d = tb.cpu.live(false, 0x345).unwrap();
    assert_eq!((d.state, d.pbv, d.pcount, d.kept), (CtxState::Idle, 0b1101, 3, true), "tracking re-loaded, result kept");
    // The source lost its result: its RETRY (TID of the round, one behind the context's) gets it again.
    tb.send(retry(0x345, SOURCE, NO_PARTICIPANT, 0));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::RETRY_RESULT]);
    assert_eq!(outs.len(), 1, "to the requester alone");
    let r = outs[0];
    assert_eq!(
        (r.kind, r.code, r.dst, r.src, r.pid, r.tid, r.count, r.data, r.op, r.error, r.retry, r.posted),
        (Kind::COMPLETION, completion::RESULT, u32::from(SOURCE), 0x100, NO_PARTICIPANT, 0, 3, to_source.data, to_source.op, false, true, true),
        "the same result, marked as a retransmission (000 [0117])"
    );
    // A participant (P_ID that holds the requester) gets its copy again; a P_ID of another device, a
    // requester without P_ID that is not the source, a stale TID (two behind) or the current round's TID
    // get NothingToResend.
    tb.send(retry(0x345, 0x12, 2, 0));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::RETRY_RESULT]);
    assert_eq!((outs[0].dst, outs[0].pid, outs[0].data[0], outs[0].code), (0x12, 2, 106, completion::RESULT));
    for m in [retry(0x345, 0x12, 3, 0), retry(0x345, 0x12, NO_PARTICIPANT, 0), retry(0x345, SOURCE, NO_PARTICIPANT, 3), retry(0x345, SOURCE, NO_PARTICIPANT, 1)] {
        tb.send(m);
        let (outs, events) = tb.take();
        assert_eq!(events, [event::RETRY_NONE], "{m:?}");
        assert_eq!((outs[0].kind, outs[0].code), (Kind::FAILURE, reason::NOTHING_TO_RESEND));
    }
    // The next round's first contribution starts from the stored initial accumulator (100), not the
    // kept result; from then on the last round's result is gone.
    tb.send(contrib(0x345, 0, 0x10, 1, Opcode::IntSum, 10));
    tb.take();
    assert!(!tb.cpu.live(false, 0x345).unwrap().kept);
    tb.send(retry(0x345, SOURCE, NO_PARTICIPANT, 0));
    assert_eq!(tb.take().1, [event::RETRY_NONE], "a retry for an older round never gets a newer round's result");
    let outs = master_round_rest(&mut tb, 1, [20, 30]);
    assert_eq!((outs.last().unwrap().data[0], outs.last().unwrap().count), (160, 3));
    tb.send(retry(0x345, SOURCE, NO_PARTICIPANT, 1));
    let (outs, _) = tb.take();
    assert_eq!((outs[0].data[0], outs[0].tid), (160, 1));
    // STOP frees the descriptor, and the result with it.
    tb.send(control(0x345, command::STOP));
    tb.take();
    tb.send(retry(0x345, SOURCE, NO_PARTICIPANT, 1));
    assert_eq!(tb.take().1, [event::RETRY_NONE]);
}

fn master_round_rest(tb: &mut Tb, tid: u8, values: [u64; 2]) -> Vec<CollectiveMsg> {
    for ((pid, dev), v) in [(2u16, 0x12u16), (3, 0x13)].into_iter().zip(values) {
        tb.send(contrib(0x345, pid, dev, tid, Opcode::IntSum, v));
    }
    tb.take().0
}

/// A master timeout's result is kept with its error mark; a one-target master's participant gets
/// ROUND_DONE again (what it got), its source the result.
#[test]
fn the_kept_result_keeps_its_error_mark_and_the_one_target_rule() {
    let mut tb = Tb::small();
    tb.cfg(config::TIMEOUT, 2);
    tlp_master(&mut tb, Opcode::IntSum, 0);
    tb.cfg(tb.static_addr(0) + 1, static_word1(0, true));
    tb.send(contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 5));
    tb.take();
    tb.run(u64::from(5 * TICK));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::TIMEOUT_MASTER]);
    tb.send(retry(0x345, SOURCE, NO_PARTICIPANT, 0));
    tb.send(retry(0x345, 0x13, 3, 0));
    let (again, events) = tb.take();
    assert_eq!(events, [event::RETRY_RESULT, event::RETRY_RESULT]);
    assert_eq!((again[0].code, again[0].data[0], again[0].error, again[0].count), (completion::RESULT, 5, true, 1));
    assert_eq!((again[1].code, again[1].data[0], again[1].error, again[1].op), (completion::ROUND_DONE, 0, true, outs[2].op));
    assert_eq!(again[1], CollectiveMsg { retry: true, dmu_id: 0, ..outs[2] }, "the participant's copy again (dmu_id: the request's)");
}

/// A subservient keeps its parent's COMPLETION and resends it to a participant that asks; its parent
/// (upstream) has nothing to ask it for once the round is over.
#[test]
fn a_subservient_resends_its_parents_result_to_a_participant() {
    let mut tb = Tb::small();
    tlp_sub(&mut tb, false);
    tb.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    tb.send(contrib(0x0AB, 1, 0x11, 0, Opcode::IntMax, 9));
    tb.take();
    let result = CollectiveMsg {
        kind: Kind::COMPLETION,
        ctx: 0x0AB,
        src: u32::from(SOURCE),
        pid: NO_PARTICIPANT,
        code: completion::RESULT,
        op: Opcode::IntMax.raw(),
        data: [42, 1, 2, 3],
        count: 9,
        error: true,
        ..CollectiveMsg::default()
    };
    tb.send(result);
    let (copies, _) = tb.take();
    tb.send(retry(0x0AB, 0x11, 1, 0));
    tb.send(retry(0x0AB, SOURCE, NO_PARTICIPANT, 0));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::RETRY_RESULT, event::RETRY_NONE]);
    assert_eq!(outs[0], CollectiveMsg { retry: true, posted: true, ..copies[1] }, "participant 1's copy again (posted, as every reply)");
}

/// A switch participant's RESPONSE for context `cc` from `src` (P_ID `pid`, often none: the subservient
/// sends none, the master searches its requester ID), transaction `tid`, partial result `v`.
fn response(cc: u16, pid: u16, src: u16, tid: u8, v: u64) -> CollectiveMsg {
    CollectiveMsg { kind: Kind::RESPONSE, count: 2, ..contrib(cc, pid, src, tid, Opcode::IntSum, v) }
}

/// Issue 20: the master's COMPLETION to a subservient is lost; the subservient, still Full, resends its
/// RESPONSE (retry timer); the master, one round on, answers it with the kept result (not "already
/// completed", which carries no value down: 001's exit, with the value of 000's all-reduce), to the
/// subservient alone, marked as a retransmission. The subservient takes it as its round's result and
/// sends it down. Only a switch participant of the context (verified as a RETRY's P_ID is) and only
/// while the result is kept; after the next round's first contribution it gets "already completed".
#[test]
fn a_subservients_resent_response_gets_the_kept_result_which_it_sends_down() {
    let mut tb = Tb::small();
    // Master 0x345: participant 0 (end device 0x10) and 8 (switch 0x208).
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.send_init(init(0x345, 0b1_0000_0001, 2, Opcode::IntSum, 100, false));
    tb.take();
    tb.send(contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 1));
    tb.send(response(0x345, NO_PARTICIPANT, 0x208, 0, 20));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::ACCEPT, event::ACCEPT, event::COMPLETE]);
    let lost = outs[1];
    assert_eq!((lost.dst, lost.pid, lost.code, lost.data[0], lost.count, lost.retry), (0x208, 8, completion::RESULT, 121, 3, false));
    // The copy to 0x208 is lost: its RESPONSE comes again, with or without its P_ID.
    for pid in [NO_PARTICIPANT, 8] {
        tb.send(CollectiveMsg { retry: true, ..response(0x345, pid, 0x208, 0, 20) });
        let (outs, events) = tb.take();
        assert_eq!(events, [event::RESPONSE_RESULT]);
        assert_eq!(outs.len(), 1, "to the requester alone");
        assert_eq!(
            outs[0],
            CollectiveMsg { pid, dmu_id: 0, retry: true, ..lost },
            "the copy it lost, as a reply (P_ID and DMU_ID the request's), marked as a retransmission"
        );
    }
    // Not a switch participant of the context that sent it, or not a RESPONSE: "already completed".
    let stale = [
        contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 1),          // an end device's CONTRIBUTION
        response(0x345, 0, 0x10, 0, 1),                          // a RESPONSE from an end-device entry
        response(0x345, 8, 0x10, 0, 1),                          // a switch's P_ID from another device
        response(0x345, NO_PARTICIPANT, 0x209, 0, 1),            // a switch outside the PBV
    ];
    for m in stale {
        tb.send(m);
        let (outs, events) = tb.take();
        assert_eq!(events, [event::OLD_TID], "{m:?}");
        assert_eq!((outs[0].code, outs[0].data[0], outs[0].retry), (completion::ALREADY_COMPLETED, 0, false), "{m:?}");
    }
    // The next round's first contribution: the old RESPONSE gets "already completed" again.
    tb.send(contrib(0x345, 0, 0x10, 1, Opcode::IntSum, 5));
    tb.send(response(0x345, NO_PARTICIPANT, 0x208, 0, 20));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::ACCEPT, event::OLD_TID]);
    assert_eq!(outs[0].code, completion::ALREADY_COMPLETED);

    // The subservient (0x0AB here, its upstream SOURCE) in Full, waiting for its parent, gets the
    // master's answer: COMPLETION_DOWN with the value, the retry mark carried (a retransmission), and
    // the result kept for its own participants' RETRYs.
    let mut sub = Tb::small();
    tlp_sub(&mut sub, false);
    sub.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    sub.send(contrib(0x0AB, 1, 0x11, 0, Opcode::IntMax, 9));
    sub.take();
    let answer = CollectiveMsg { ctx: 0x0AB, src: u32::from(SOURCE), dst: u32::from(ENGINE_ID), op: Opcode::IntMax.raw(), ..lost };
    sub.send(CollectiveMsg { pid: NO_PARTICIPANT, retry: true, ..answer });
    let (outs, events) = sub.take();
    assert_eq!(events, [event::COMPLETION_DOWN]);
    assert_eq!(outs.iter().map(|o| (o.dst, o.pid, o.code, o.data[0], o.count)).collect::<Vec<_>>(), [(0x10, 0, completion::RESULT, 121, 3), (0x11, 1, completion::RESULT, 121, 3)]);
    assert_eq!((sub.entry(1).tid, sub.cpu.live(false, 0x0AB).unwrap().kept), (1, true));
}

/// The same rule at a one-target master (its switch participant gets ROUND_DONE again, what it lost)
/// and at a subservient whose own child is a subservient (multi-hop, 000 [0107]: it answers with the
/// parent's result it kept).
#[test]
fn a_resent_response_gets_round_done_at_a_one_target_master_and_the_result_at_a_subservient() {
    let mut tb = Tb::small();
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.cfg(tb.static_addr(0) + 1, static_word1(0, true));
    tb.send_init(init(0x345, 0b1_0000_0000, 1, Opcode::IntSum, 0, false));
    tb.send(response(0x345, NO_PARTICIPANT, 0x208, 0, 20));
    let (outs, _) = tb.take();
    assert_eq!((outs[0].code, outs[0].data[0], outs[1].data[0]), (completion::ROUND_DONE, 0, 20));
    tb.send(response(0x345, NO_PARTICIPANT, 0x208, 0, 20));
    let (again, events) = tb.take();
    assert_eq!(events, [event::RESPONSE_RESULT]);
    assert_eq!(again[0], CollectiveMsg { retry: true, dmu_id: 0, pid: NO_PARTICIPANT, ..outs[0] });

    let mut sub = Tb::small();
    sub.static_entry(1, false, role::SUBSERVIENT, 0x0AB, 0);
    sub.send_init(init(0x0AB, 0b10_0000_0000, 1, Opcode::IntSum, 0, true));
    sub.send(response(0x0AB, NO_PARTICIPANT, 0x209, 0, 4));
    sub.take();
    let parent = CollectiveMsg { kind: Kind::COMPLETION, ctx: 0x0AB, src: u32::from(SOURCE), pid: NO_PARTICIPANT, code: completion::RESULT, op: Opcode::IntSum.raw(), data: [77, 0, 0, 0], count: 6, ..CollectiveMsg::default() };
    sub.send(parent);
    sub.take();
    sub.send(response(0x0AB, NO_PARTICIPANT, 0x209, 0, 4));
    let (outs, events) = sub.take();
    assert_eq!(events, [event::RESPONSE_RESULT]);
    assert_eq!((outs[0].dst, outs[0].code, outs[0].data[0], outs[0].count, outs[0].retry, outs[0].tid), (0x209, completion::RESULT, 77, 6, true, 0));
}
