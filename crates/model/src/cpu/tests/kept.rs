//! Directed tests of the kept result (`docs/blocks/cpu.md` §Messages "Kept result"; 000 [0098], [0117]:
//! retries are per packet, not a restart of the collective): a RETRY for the round just completed gets
//! its result again, to the requester alone; nothing else changes.

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
