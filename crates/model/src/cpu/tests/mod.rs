//! Directed tests of every rule of `docs/blocks/cpu.md`, one or more per rule.

use super::config::{self, mode_word, pbv_word, static_word0, static_word1};
use super::context::{role, CtxState};
use super::*;
use crate::reduce::{combine, Opcode};

// The Portals family (002) and the kept result in their own files; the TLP family and the shared
// bench below.
mod kept;
mod portals;
mod relay;

const ENGINE_ID: u16 = 0x0100;
const ENGINE_SFA: u32 = 0xE000_0001;
const SOURCE: u16 = 0x0777;
const TICK: u32 = 4;

/// A small test bench: the CPU, with m_msg_ready high unless stalled, recording outputs and events.
struct Tb {
    cpu: Cpu,
    outs: Vec<CollectiveMsg>,
    events: Vec<u8>,
    stall: bool,
    cycles: u64,
    /// The table entry of each context a test configured, by the test's own number for it (the table
    /// is direct-mapped: a context lives at its key's entry, docs/blocks/cpu.md §Static table).
    slots: [usize; 8],
}

impl Tb {
    fn new(p: CpuParams) -> Tb {
        let mut tb = Tb { cpu: Cpu::new(p).unwrap(), outs: Vec::new(), events: Vec::new(), stall: false, cycles: 0, slots: [0; 8] };
        tb.step(CpuIn { rst: true, ..CpuIn::default() });
        tb.cfg(config::ENGINE_ID, u32::from(ENGINE_ID));
        tb.cfg(config::ENGINE_SFA, ENGINE_SFA);
        // Devices 0x0010 + i at PBV entries 0..8; entries 8..10 are switches (subservient engines).
        for i in 0..8u16 {
            tb.cfg(config::PBV_TABLE + i, pbv_word(true, false, 0x0010 + i));
        }
        for i in 8..10u16 {
            tb.cfg(config::PBV_TABLE + i, pbv_word(true, true, 0x0200 + i));
        }
        // The static entries are writable once the clearing sweep after the reset is over.
        while tb.cpu.sweep_remaining() > 0 {
            tb.step(CpuIn::default());
        }
        tb
    }

    fn small() -> Tb {
        Tb::new(CpuParams { static_entries: 4, descriptors: 2, tick_cycles: TICK })
    }

    fn step(&mut self, mut i: CpuIn) -> CpuOut {
        i.m_msg_ready = !self.stall;
        let o = self.cpu.step(&i);
        if o.m_msg_valid && i.m_msg_ready {
            self.outs.push(o.msg());
        }
        if o.stat_valid {
            self.events.push(o.stat_event);
        }
        self.cycles += 1;
        o
    }

    fn cfg(&mut self, addr: u16, data: u32) {
        self.step(CpuIn::cfg(addr, data));
    }

    /// Configures context `key` (the test's context number `s`) at its entry, `key mod STATIC_ENTRIES`.
    fn static_entry(&mut self, s: u16, portals: bool, r: u8, key: u16, wait: u32) {
        let e = config::static_index(key, self.cpu.params().static_entries);
        self.slots[usize::from(s)] = e;
        self.cfg(self.static_addr(s), static_word0(true, portals, r, key));
        self.cfg(self.static_addr(s) + 1, wait);
    }

    /// The word-0 address of the entry of the test's context `s`.
    fn static_addr(&self, s: u16) -> u16 {
        config::STATIC + 2 * self.slots[usize::from(s)] as u16
    }

    /// The static entry of the test's context `s`.
    fn entry(&self, s: u16) -> StaticEntry {
        *self.cpu.static_entry(self.slots[usize::from(s)])
    }

    /// Offers `m` until it is taken, then runs until the CPU is idle with nothing to send.
    fn send(&mut self, m: CollectiveMsg) {
        let mut i = CpuIn::default();
        i.set_msg(&m);
        while !self.step(i).s_msg_ready {}
        self.settle();
    }

    /// Sends an INITIALIZATION; a non-posted one's acknowledgement (§2) is checked and taken out of
    /// the recorded outputs, so tests see only what the context itself sends.
    fn send_init(&mut self, m: CollectiveMsg) {
        let before = self.outs.len();
        self.send(m);
        if !m.posted {
            assert_eq!(self.outs.len(), before + 1);
            let a = self.outs.pop().unwrap();
            assert_eq!((a.kind, a.code, a.dst, a.src, a.ctx, a.tid), (Kind::COMPLETION, completion::ACKNOWLEDGED, m.src, u32::from(ENGINE_ID), m.ctx, m.tid));
        } else {
            assert_eq!(self.outs.len(), before);
        }
    }

    fn settle(&mut self) {
        let mut quiet = 0;
        while quiet < 3 {
            let o = self.step(CpuIn::default());
            quiet = if self.cpu.seq_state() == seq::IDLE && !o.m_msg_valid { quiet + 1 } else { 0 };
        }
    }

    fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step(CpuIn::default());
        }
        self.settle();
    }

    fn take(&mut self) -> (Vec<CollectiveMsg>, Vec<u8>) {
        (std::mem::take(&mut self.outs), std::mem::take(&mut self.events))
    }
}

fn arm(tree: u16, red: u16, seqno: u16) -> CollectiveMsg {
    CollectiveMsg {
        kind: Kind::ARM,
        family: Family::Portals,
        port: 3,
        ctx: red << 13 | tree,
        src: 0xAAAA,
        dst: 0x0080_0000 | u32::from(tree) << 3,
        pid: NO_PARTICIPANT,
        vni: 7,
        cookie: 0xC00C_1E00,
        seqno,
        resno: seqno.wrapping_sub(1) & 0x3ff,
        posted: true,
        ..CollectiveMsg::default()
    }
}

fn pdata(tree: u16, red: u16, seqno: u16, op: Opcode, v: u64, sfa: u32) -> CollectiveMsg {
    CollectiveMsg {
        kind: Kind::CONTRIBUTION,
        family: Family::Portals,
        port: 5,
        ctx: red << 13 | tree,
        src: sfa,
        dst: 0x0080_0000 | u32::from(tree) << 3,
        pid: NO_PARTICIPANT,
        count: 1,
        posted: true,
        vni: 7,
        cookie: 0xC00C_1E00,
        seqno,
        op: op.raw(),
        data: [v, v + 1, v + 2, v + 3],
        ..CollectiveMsg::default()
    }
}

fn init(cc: u16, pbv: u128, pcount: u32, op: Opcode, acc: u64, posted: bool) -> CollectiveMsg {
    CollectiveMsg {
        kind: Kind::INITIALIZATION,
        ctx: cc,
        src: u32::from(SOURCE),
        dst: u32::from(ENGINE_ID),
        pid: NO_PARTICIPANT,
        dmu_id: 0x0D,
        count: pcount,
        posted,
        op: op.raw(),
        data: [acc, 0, 0, 0],
        pbv,
        ..CollectiveMsg::default()
    }
}

fn contrib(cc: u16, pid: u16, src: u16, tid: u8, op: Opcode, v: u64) -> CollectiveMsg {
    CollectiveMsg {
        kind: if pid >= 8 && pid != NO_PARTICIPANT { Kind::RESPONSE } else { Kind::CONTRIBUTION },
        ctx: cc,
        src: u32::from(src),
        dst: u32::from(ENGINE_ID),
        pid,
        count: 1,
        tid,
        op: op.raw(),
        data: [v, 0, 0, 0],
        ..CollectiveMsg::default()
    }
}

fn control(cc: u16, cmd: u8) -> CollectiveMsg {
    CollectiveMsg { kind: Kind::CONTROL, ctx: cc, src: u32::from(SOURCE), pid: NO_PARTICIPANT, code: cmd, posted: true, ..CollectiveMsg::default() }
}

/// A TLP master of CC_ID 0x345 with participants 0, 2, 3 (end devices).
fn tlp_master(tb: &mut Tb, op: Opcode, acc: u64) {
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.send_init(init(0x345, 0b1101, 3, op, acc, false));
}

#[test]
fn a_master_completes_when_pbv_and_p_count_are_zero_and_answers_every_participant() {
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::IntSum, 100);
    tb.send(contrib(0x345, 0, 0x0010, 0, Opcode::IntSum, 1));
    tb.send(contrib(0x345, NO_PARTICIPANT, 0x0013, 0, Opcode::IntSum, 2));
    assert_eq!(tb.cpu.live(false, 0x345).unwrap().state, CtxState::Filling);
    tb.send(contrib(0x345, 2, 0x0012, 0, Opcode::IntSum, 3));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT, event::ACCEPT, event::ACCEPT, event::ACCEPT, event::COMPLETE]);
    let dsts: Vec<(u32, u16)> = outs.iter().map(|o| (o.dst, o.pid)).collect();
    assert_eq!(dsts, [(0x10, 0), (0x12, 2), (0x13, 3), (u32::from(SOURCE), NO_PARTICIPANT)], "000 [0144], [0111]");
    for o in &outs {
        assert_eq!((o.kind, o.code, o.data[0], o.count, o.tid, o.src), (Kind::COMPLETION, completion::RESULT, 106, 3, 0, 0x100));
    }
    let d = tb.cpu.live(false, 0x345).unwrap();
    assert_eq!((d.state, d.pbv, d.pcount, d.kept, d.acc.rt_data[0]), (CtxState::Idle, 0b1101, 3, true, 106), "next round re-loaded, the result kept for a RETRY");
    assert_eq!(tb.entry(0).tid, 1, "001: TID + 1 on Exiting -> Idle");
}

/// Reduce to one target (003 [0052], [0060]: MPI_REDUCE's end result goes to the one target node):
/// with bit 31 of static word 1 set, the master's participants get COMPLETION ROUND_DONE without the
/// result (the exit of 001) and the result goes to `upstream` (the source) alone; in the same
/// cycles as the all-reduce round (only fields differ). A timeout's copies follow the same rule.
#[test]
fn a_one_target_master_sends_the_result_to_upstream_only() {
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::IntSum, 100);
    // Word 1 written after the INITIALIZATION: the stored context stays (only word 0 makes a new one).
    tb.cfg(tb.static_addr(0) + 1, static_word1(0, true));
    assert!(tb.entry(0).one_target && tb.entry(0).stored);
    for (pid, src, v) in [(0, 0x0010, 1), (2, 0x0012, 3), (3, 0x0013, 2)] {
        tb.send(contrib(0x345, pid, src, 0, Opcode::IntSum, v));
    }
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT, event::ACCEPT, event::ACCEPT, event::ACCEPT, event::COMPLETE]);
    let got: Vec<(u32, u16, u8, u64)> = outs.iter().map(|o| (o.dst, o.pid, o.code, o.data[0])).collect();
    let done = completion::ROUND_DONE;
    assert_eq!(got, [(0x10, 0, done, 0), (0x12, 2, done, 0), (0x13, 3, done, 0), (u32::from(SOURCE), NO_PARTICIPANT, completion::RESULT, 106)]);
    assert!(outs.iter().all(|o| o.kind == Kind::COMPLETION && o.count == 3 && o.tid == 0 && o.op == Opcode::IntSum.raw()));
    assert_eq!(tb.entry(0).tid, 1, "the round ends as an all-reduce's");
    // A master timeout: the error-marked partial result to upstream only.
    tb.cfg(config::TIMEOUT, 2);
    tb.send(control(0x345, command::RESTART));
    tb.send(contrib(0x345, 0, 0x10, 1, Opcode::IntSum, 5));
    tb.take();
    tb.run(u64::from(5 * TICK));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::TIMEOUT_MASTER]);
    let got: Vec<(u8, u64, bool)> = outs.iter().map(|o| (o.code, o.data[0], o.error)).collect();
    assert_eq!(got, [(done, 0, true), (done, 0, true), (done, 0, true), (completion::RESULT, 105, true)]);
    // Clearing the bit restores the all-reduce: every copy carries the result.
    tb.cfg(tb.static_addr(0) + 1, static_word1(0, false));
    assert!(!tb.entry(0).one_target);
}

#[test]
fn a_p_id_from_another_device_is_dropped_unanswered() {
    // The P_ID saves the reverse lookup ([0169]) but is trusted only for the device its PBV-table entry
    // holds (000 [0094]): a child's late frame passed up keeps the child's P_ID, and a spoofer picks one.
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::IntSum, 100);
    tb.send(contrib(0x345, 0, 0x0013, 0, Opcode::IntSum, 7));
    tb.send(contrib(0x345, 2, 0x0999, 0, Opcode::IntSum, 7));
    tb.send(contrib(0x345, 0, 0x0010, 0, Opcode::IntSum, 1));
    tb.send(contrib(0x345, 2, 0x0012, 0, Opcode::IntSum, 2));
    tb.send(contrib(0x345, 3, 0x0013, 0, Opcode::IntSum, 3));
    let (outs, events) = tb.take();
    assert_eq!(
        events,
        [event::INIT, event::WRONG_SENDER, event::WRONG_SENDER, event::ACCEPT, event::ACCEPT, event::ACCEPT, event::COMPLETE]
    );
    assert!(outs.iter().all(|o| o.kind == Kind::COMPLETION && o.data[0] == 106), "no reply to a wrong sender");
}

#[test]
fn a_cleared_bit_a_zero_count_or_a_stranger_get_failure_replies() {
    let mut tb = Tb::small();
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.send_init(init(0x345, 0b1101, 1, Opcode::IntSum, 0, false));
    tb.send(contrib(0x345, 1, 0x0011, 0, Opcode::IntSum, 1));
    tb.send(contrib(0x345, NO_PARTICIPANT, 0x0999, 0, Opcode::IntSum, 1));
    tb.send(contrib(0x345, 9, 0x0209, 0, Opcode::IntSum, 1));
    tb.send(contrib(0x345, 0, 0x0010, 0, Opcode::IntSum, 1));
    tb.send(contrib(0x345, 0, 0x0010, 0, Opcode::IntSum, 1));
    tb.send(contrib(0x345, 2, 0x0012, 0, Opcode::IntSum, 1));
    tb.send(contrib(0x345, 3, 0x0013, 0, Opcode::IntSum, 1));
    let (outs, events) = tb.take();
    assert_eq!(
        events,
        [
            event::INIT,
            event::UNKNOWN_PARTICIPANT,
            event::UNKNOWN_PARTICIPANT,
            event::UNKNOWN_PARTICIPANT,
            event::ACCEPT,
            event::DUPLICATE,
            event::COUNT_UNDERFLOW,
            event::COUNT_UNDERFLOW
        ]
    );
    let codes: Vec<u8> = outs.iter().map(|o| o.code).collect();
    assert_eq!(codes, [4, 4, 4, 2, 3, 3]);
    assert!(outs.iter().all(|o| o.kind == Kind::FAILURE && o.src == 0x100));
    assert_eq!((outs[3].dst, outs[3].pid, outs[3].data[0]), (0x10, 0, 0x10));
}

#[test]
fn a_switch_participant_must_send_responses_and_an_end_device_contributions() {
    let mut tb = Tb::small();
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.send_init(init(0x345, 0b11_0000_0001, 2, Opcode::IntSum, 0, false));
    tb.send(CollectiveMsg { kind: Kind::RESPONSE, ..contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 1) });
    tb.send(CollectiveMsg { kind: Kind::CONTRIBUTION, ..contrib(0x345, 8, 0x208, 0, Opcode::IntSum, 1) });
    tb.send(CollectiveMsg { kind: Kind::RESPONSE, count: 5, ..contrib(0x345, NO_PARTICIPANT, 0x208, 0, Opcode::IntSum, 1) });
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT, event::MALFORMED, event::MALFORMED, event::ACCEPT]);
    assert_eq!(outs.iter().map(|o| o.code).collect::<Vec<_>>(), [6, 6]);
    assert_eq!(tb.cpu.live(false, 0x345).unwrap().count, 5, "partial results carry their count");
}

/// A subservient TLP engine for CC_ID 0x0AB with participants 0 and 1.
fn tlp_sub(tb: &mut Tb, posted: bool) {
    tb.static_entry(1, false, role::SUBSERVIENT, 0x0AB, 0);
    tb.send_init(init(0x0AB, 0b11, 2, Opcode::IntMax, 0, posted));
}

#[test]
fn a_subservient_sends_one_partial_up_and_exits_on_the_parents_completion() {
    let mut tb = Tb::small();
    tlp_sub(&mut tb, false);
    tb.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    tb.send(contrib(0x0AB, 1, 0x11, 0, Opcode::IntMax, 9));
    let (outs, _) = tb.take();
    assert_eq!(outs.len(), 1);
    let r = outs[0];
    assert_eq!((r.kind, r.dst, r.count, r.data[0], r.posted, r.error), (Kind::RESPONSE, u32::from(SOURCE), 2, 9, false, false));
    assert_eq!(tb.cpu.live(false, 0x0AB).unwrap().state, CtxState::Full);
    // A counted participant's retried contribution: DuplicateContribution (000 [0143] (a)), not passed up
    // (its parent would answer it "already completed" after the round, issue 20); a frame from a
    // participant of the table outside the PBV is still checked as while Filling.
    let again = contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 1);
    tb.send(again);
    let (outs, events) = tb.take();
    assert_eq!(events, [event::DUPLICATE]);
    assert_eq!((outs[0].kind, outs[0].code, outs[0].dst), (Kind::FAILURE, reason::DUPLICATE, 0x10));
    let result = CollectiveMsg {
        kind: Kind::COMPLETION,
        ctx: 0x0AB,
        src: u32::from(SOURCE),
        pid: NO_PARTICIPANT,
        code: completion::RESULT,
        data: [42, 0, 0, 0],
        count: 9,
        ..CollectiveMsg::default()
    };
    tb.send(result);
    let (outs, events) = tb.take();
    assert_eq!(events, [event::COMPLETION_DOWN]);
    assert_eq!(outs.iter().map(|o| (o.dst, o.pid, o.data[0], o.src)).collect::<Vec<_>>(), [(0x10, 0, 42, 0x100), (0x11, 1, 42, 0x100)]);
    assert_eq!(tb.entry(1).tid, 1);
    assert_eq!(tb.cpu.live(false, 0x0AB).unwrap().state, CtxState::Idle);
}

#[test]
fn a_child_one_transaction_behind_is_told_already_completed() {
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::Barrier, 0);
    for (pid, dev) in [(0u16, 0x10u16), (2, 0x12), (3, 0x13)] {
        tb.send(contrib(0x345, pid, dev, 0, Opcode::Barrier, 0));
    }
    let (outs, _) = tb.take();
    assert!(outs.iter().all(|o| o.code == completion::BARRIER_SATISFIED));
    tb.send(contrib(0x345, 2, 0x12, 0, Opcode::Barrier, 0));
    tb.send(contrib(0x345, 2, 0x12, 2, Opcode::Barrier, 0));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::OLD_TID, event::BAD_TID]);
    assert_eq!((outs[0].kind, outs[0].code, outs[0].tid, outs[0].dst), (Kind::COMPLETION, completion::ALREADY_COMPLETED, 0, 0x12));
    tb.send(contrib(0x345, 2, 0x12, 1, Opcode::Barrier, 0));
    assert_eq!(tb.take().1, [event::ACCEPT]);
}

/// In Full after a timeout's partial result, a participant not counted yet is passed up (002 (62)),
/// a counted one's retried contribution gets DuplicateContribution (000 [0143] (a)): passed up, the
/// parent would answer it "already completed" after the round, which this engine would take for its
/// result (issue 20, `docs/fabric.md` §Goodput: a subservient's lost result).
#[test]
fn in_full_a_late_frame_goes_up_and_a_counted_participants_retry_is_a_duplicate() {
    let mut tb = Tb::small();
    tb.cfg(config::TIMEOUT, 3);
    tlp_sub(&mut tb, false);
    tb.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    tb.take();
    tb.run(u64::from(4 * TICK));
    assert_eq!(tb.take().1, [event::TIMEOUT_PARTIAL]);
    let late = contrib(0x0AB, 1, 0x11, 0, Opcode::IntMax, 9);
    tb.send(late);
    tb.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    let (outs, events) = tb.take();
    let events: Vec<u8> = events.into_iter().filter(|&e| e != event::RETRY).collect();
    let outs: Vec<CollectiveMsg> = outs.into_iter().filter(|o| o.kind != Kind::RESPONSE).collect();
    assert_eq!(events, [event::PASS_UP, event::DUPLICATE]);
    assert_eq!((outs[0].dst, outs[0].src, outs[0].data), (u32::from(SOURCE), 0x100, late.data), "000 [0097]: requester rewritten");
    assert_eq!((outs[1].kind, outs[1].code, outs[1].dst), (Kind::FAILURE, reason::DUPLICATE, 0x10));
}

#[test]
fn a_subservient_timeout_sends_an_error_marked_partial_then_retries_then_fails() {
    let mut tb = Tb::small();
    tb.cfg(config::TIMEOUT, 3);
    tb.cfg(config::MODE, mode_word(false, 2));
    tlp_sub(&mut tb, false);
    tb.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    tb.take();
    tb.run(u64::from(4 * TICK));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::TIMEOUT_PARTIAL]);
    assert_eq!((outs[0].kind, outs[0].error, outs[0].retry, outs[0].count), (Kind::RESPONSE, true, false, 1), "000 [0242]");
    tb.run(u64::from(8 * TICK));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::RETRY, event::RETRY]);
    assert!(outs.iter().all(|o| o.retry && o.error && o.kind == Kind::RESPONSE), "000 [0117]: the same packet again");
    tb.run(u64::from(4 * TICK));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::RETRY_EXHAUSTED]);
    assert_eq!((outs[0].kind, outs[0].code, outs[0].count, outs[0].dst), (Kind::FAILURE, reason::TIMEOUT, 2, u32::from(SOURCE)));
    let d = tb.cpu.live(false, 0x0AB).unwrap();
    assert!(d.failure);
    assert_eq!((d.state, tb.entry(1).tid), (CtxState::Idle, 1));
}

#[test]
fn the_failure_flag_shows_in_the_status_register_and_in_the_failure_messages() {
    // 001: the CSM's Failure flag; observable in the FAILURE status register (fail_*) and carried, as
    // the error mark, by the FAILURE messages the engine sends and forwards on failure.
    let mut tb = Tb::small();
    let o = tb.step(CpuIn::default());
    assert_eq!((o.fail_valid, o.fail_ctx, o.fail_count), (false, 0, 0));
    tb.cfg(config::TIMEOUT, 3);
    tb.cfg(config::MODE, mode_word(false, 0));
    tlp_sub(&mut tb, false);
    tb.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    tb.run(u64::from(8 * TICK));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT, event::ACCEPT, event::TIMEOUT_PARTIAL, event::RETRY_EXHAUSTED]);
    let f = outs.last().unwrap();
    assert_eq!((f.kind, f.code, f.error), (Kind::FAILURE, reason::TIMEOUT, true), "the FAILURE carries the flag");
    let o = tb.step(CpuIn::default());
    assert_eq!((o.fail_valid, o.fail_family, o.fail_ctx, o.fail_count), (true, false, 0x0AB, 1));
    // A FAILURE from below on a live context sets the flag and is forwarded up with it.
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::IntSum, 0);
    tb.send(CollectiveMsg { kind: Kind::FAILURE, ctx: 0x345, src: 0x10, code: 1, ..CollectiveMsg::default() });
    let (outs, _) = tb.take();
    assert_eq!((outs[0].kind, outs[0].error, outs[0].dst), (Kind::FAILURE, true, u32::from(SOURCE)));
    let o = tb.step(CpuIn::default());
    assert_eq!((o.fail_valid, o.fail_ctx, o.fail_count), (true, 0x345, 1));
    // A master timeout too; the count goes on; a reset clears the register.
    tb.cfg(config::TIMEOUT, 2);
    tb.send(control(0x345, command::RESTART));
    tb.run(u64::from(5 * TICK));
    tb.send(contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 5));
    tb.run(u64::from(5 * TICK));
    assert!(tb.take().1.contains(&event::TIMEOUT_MASTER));
    let o = tb.step(CpuIn::default());
    assert_eq!((o.fail_valid, o.fail_ctx, o.fail_count), (true, 0x345, 2));
    tb.step(CpuIn { rst: true, ..CpuIn::default() });
    let o = tb.step(CpuIn::default());
    assert_eq!((o.fail_valid, o.fail_ctx, o.fail_count), (false, 0, 0));
}

#[test]
fn a_posted_subservient_does_not_retry() {
    let mut tb = Tb::small();
    tb.cfg(config::TIMEOUT, 3);
    tlp_sub(&mut tb, true);
    tb.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    tb.send(contrib(0x0AB, 1, 0x11, 0, Opcode::IntMax, 7));
    tb.run(u64::from(20 * TICK));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT, event::ACCEPT, event::ACCEPT, event::COMPLETE]);
    assert!(outs[0].posted);
}

#[test]
fn a_master_timeout_completes_the_round_with_an_error_mark() {
    let mut tb = Tb::small();
    tb.cfg(config::TIMEOUT, 2);
    tlp_master(&mut tb, Opcode::IntSum, 0);
    tb.send(contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 5));
    tb.take();
    tb.run(u64::from(5 * TICK));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::TIMEOUT_MASTER]);
    assert_eq!(outs.len(), 4);
    assert!(outs.iter().all(|o| o.error && o.data[0] == 5 && o.count == 1));
    assert!(tb.cpu.live(false, 0x345).unwrap().failure);
}

#[test]
fn control_pause_start_stop_reset_and_replication() {
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::IntSum, 0);
    tb.send(control(0x345, command::PAUSE));
    tb.send(contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 5));
    tb.send(control(0x345, command::START));
    tb.send(contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 5));
    tb.send(control(0x345, command::STOP));
    tb.send(contrib(0x345, 2, 0x12, 0, Opcode::IntSum, 5));
    tb.send(control(0x345, command::RESTART));
    tb.send(control(0x345, command::RESET));
    tb.send(contrib(0x345, 2, 0x12, 0, Opcode::IntSum, 5));
    tb.send(control(0x345, 9));
    let (outs, events) = tb.take();
    assert_eq!(
        events,
        [
            event::INIT,
            event::CTRL_PAUSE,
            event::PAUSED_DROP,
            event::CTRL_START,
            event::ACCEPT,
            event::CTRL_STOP,
            event::PASS_UP,
            event::CTRL_RESTART,
            event::CTRL_RESET,
            event::DROP_UNKNOWN,
            event::CTRL_BAD
        ]
    );
    // Five commands x three participants, then the pass-up between them.
    let control_dsts: Vec<u32> = outs.iter().filter(|o| o.kind == Kind::CONTROL).map(|o| o.dst).collect();
    assert_eq!(control_dsts.len(), 15);
    assert_eq!(&control_dsts[..3], [0x10, 0x12, 0x13]);
    assert!(outs.iter().all(|o| o.src == 0x100));
    assert!(tb.cpu.live(false, 0x345).is_none());
    assert!(!tb.entry(0).stored);
}

#[test]
fn control_copies_carry_the_context_tid_and_the_acknowledgement_the_senders() {
    // An end node learns the round's TID from the START it is sent (001; docs/blocks/cpu.md §Messages): the copies
    // carry the context's TID whatever the command's, the acknowledgement the command's own.
    let mut tb = Tb::small();
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.send(CollectiveMsg { tid: 2, ..init(0x345, 0b1101, 3, Opcode::IntSum, 0, true) });
    tb.send(CollectiveMsg { tid: 1, posted: false, ..control(0x345, command::START) });
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT, event::CTRL_NOOP]);
    let got: Vec<(Kind, u32, u8)> = outs.iter().map(|o| (o.kind, o.dst, o.tid)).collect();
    assert_eq!(got, [(Kind::CONTROL, 0x10, 2), (Kind::CONTROL, 0x12, 2), (Kind::CONTROL, 0x13, 2), (Kind::COMPLETION, u32::from(SOURCE), 1)]);
    // RESET: the copies still carry the TID the context had; the context's TID is then 0.
    tb.send(CollectiveMsg { tid: 3, ..control(0x345, command::RESET) });
    let (outs, _) = tb.take();
    assert!(outs.len() == 3 && outs.iter().all(|o| o.kind == Kind::CONTROL && o.tid == 2), "{outs:?}");
    assert_eq!(tb.entry(0).tid, 0);
}

#[test]
fn restart_reloads_the_tracking_store_and_clears_failure() {
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::IntSum, 0);
    tb.send(contrib(0x345, 0, 0x10, 0, Opcode::IntSum, 5));
    tb.send(CollectiveMsg { kind: Kind::FAILURE, ctx: 0x345, src: 0x10, code: 1, ..CollectiveMsg::default() });
    assert!(tb.cpu.live(false, 0x345).unwrap().failure);
    tb.send(control(0x345, command::RESTART));
    let d = tb.cpu.live(false, 0x345).unwrap();
    assert_eq!((d.pbv, d.pcount, d.failure, d.count), (0b1101, 3, false, 0));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT, event::ACCEPT, event::FAILURE_UP, event::CTRL_RESTART]);
    assert_eq!((outs[0].kind, outs[0].dst, outs[0].src), (Kind::FAILURE, u32::from(SOURCE), 0x100));
}

#[test]
fn the_state_machine_moves_one_step_per_cycle() {
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 1);
    tb.send(arm(0x12, 0, 1));
    let mut i = CpuIn::default();
    i.set_msg(&pdata(0x12, 0, 1, Opcode::IntSum, 1, 1));
    while !tb.step(i).s_msg_ready {}
    let mut seen = vec![CtxState::Idle];
    for _ in 0..20 {
        tb.step(CpuIn::default());
        let s = tb.cpu.descriptor(0).state;
        if tb.cpu.descriptor(0).valid && *seen.last().unwrap() != s {
            seen.push(s);
        }
    }
    assert_eq!(seen, [CtxState::Idle, CtxState::Filling, CtxState::Full, CtxState::Exiting]);
    assert!(!tb.cpu.descriptor(0).valid);
}

#[test]
fn backpressure_holds_the_output_and_the_sequencer() {
    let mut tb = Tb::small();
    tlp_master(&mut tb, Opcode::IntSum, 0);
    tb.stall = true;
    for (pid, dev) in [(0u16, 0x10u16), (2, 0x12)] {
        tb.send(contrib(0x345, pid, dev, 0, Opcode::IntSum, 1));
    }
    let mut i = CpuIn::default();
    i.set_msg(&contrib(0x345, 3, 0x13, 0, Opcode::IntSum, 1));
    while !tb.step(i).s_msg_ready {}
    for _ in 0..50 {
        let o = tb.step(CpuIn::default());
        assert!(!o.s_msg_ready || tb.cpu.seq_state() != seq::IDLE || o.m_msg_valid);
    }
    assert!(tb.outs.is_empty());
    tb.stall = false;
    tb.settle();
    assert_eq!(tb.outs.len(), 4);
}

#[test]
fn the_accumulator_equals_the_fold_of_the_accepted_contributions() {
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x7, 4);
    tb.send(arm(0x7, 0, 3));
    let op = Opcode::FltSum { rounding: crate::reduce::Rounding::NearestEven, ftz: false };
    let vals = [1e16f64, 1.0, 1.0, -3.5];
    let cs: Vec<CollectiveMsg> = vals
        .iter()
        .enumerate()
        .map(|(k, v)| CollectiveMsg { data: [v.to_bits(); 4], ..pdata(0x7, 0, 3, op, 0, k as u32) })
        .collect();
    for m in &cs {
        tb.send(*m);
    }
    let want = cs.iter().map(contribution_of).reduce(|a, b| combine(Mode::Associative, &a, &b)).unwrap();
    let (outs, _) = tb.take();
    assert_eq!(outs[0].data, want.rt_data);
    assert_eq!(outs[0].rc, want.rt_rc.0);
}

#[test]
fn config_writes_and_reset() {
    let mut tb = Tb::small();
    tb.cfg(config::MODE, mode_word(true, 5));
    tb.cfg(config::TIMEOUT + 3, 0x1ff_ffff);
    tb.static_entry(3, true, role::MASTER, 0x1fff, 0x1f_ffff);
    tb.cfg(config::STATIC + 2 * 4, static_word0(true, false, 0, 1));
    let c = tb.cpu.config();
    assert!(c.ieee);
    assert_eq!((c.retry_limit, c.timeout[3], c.pbv[9].switch), (5, 0xff_ffff, true));
    let s = tb.entry(3);
    assert_eq!((s.valid, s.portals, s.role, s.key, s.wait), (true, true, role::MASTER, 0x1fff, 0xf_ffff));
    tb.step(CpuIn { rst: true, ..CpuIn::default() });
    assert_eq!(tb.cpu.config(), &config::Config::default());
    assert!(!tb.entry(3).valid);
}

/// The static table is direct-mapped (docs/blocks/cpu.md §Static table): CC_IDs 0x345 and 0x341 meet
/// in entry 1 of 4. The entry holds one of them, and its tag tells which: a message for the other one
/// misses (DROP_UNKNOWN) as for a key never configured; configuring the other one in the entry replaces
/// the first (a new context: nothing stored, TID 0), whose messages then miss; a context written at an
/// entry that is not its key's is never found; a Portals tree aliasing a TLP CC_ID is told apart by the
/// family in the tag.
#[test]
fn two_keys_aliasing_one_static_entry_take_turns_and_the_tag_tells_them_apart() {
    let mut tb = Tb::small();
    assert_eq!((config::static_index(0x345, 4), config::static_index(0x341, 4)), (1, 1));
    tlp_master(&mut tb, Opcode::IntSum, 0);
    tb.send(init(0x341, 0b1, 1, Opcode::IntSum, 0, true));
    tb.send(contrib(0x341, 0, 0x0010, 0, Opcode::IntSum, 1));
    tb.send(arm(0x345, 0, 1));
    let (outs, events) = tb.take();
    assert!(outs.is_empty());
    assert_eq!(events, [event::INIT, event::DROP_UNKNOWN, event::DROP_UNKNOWN, event::DROP_UNKNOWN]);
    assert!(tb.cpu.live(false, 0x341).is_none() && tb.entry(0).stored && tb.entry(0).key == 0x345);
    // 0x341 takes the entry: 0x345's stored context is gone with it (its live descriptor stays, as
    // for any rewritten entry, and its messages now miss).
    tb.static_entry(1, false, role::MASTER, 0x341, 0);
    assert_eq!(tb.slots[0], tb.slots[1]);
    let e = tb.entry(1);
    assert_eq!((e.key, e.stored, e.tid), (0x341, false, 0));
    tb.send(control(0x345, command::START));
    tb.send(init(0x341, 0b1, 1, Opcode::IntSum, 7, true));
    tb.send(contrib(0x341, 0, 0x0010, 0, Opcode::IntSum, 1));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::DROP_UNKNOWN, event::INIT, event::ACCEPT, event::COMPLETE]);
    assert_eq!(outs.iter().map(|o| (o.dst, o.data[0])).collect::<Vec<_>>(), [(0x10, 8), (u32::from(SOURCE), 8)]);
    // Written at entry 2, not its key's (1): never found.
    tb.cfg(config::STATIC + 2 * 2, static_word0(true, false, role::MASTER, 0x345));
    tb.send(init(0x345, 0b1, 1, Opcode::IntSum, 0, true));
    assert_eq!(tb.take().1, [event::DROP_UNKNOWN]);
    // A Portals tree with the same 13 bits as the CC_ID misses a TLP entry: the family is in the tag.
    tb.send(arm(0x341, 0, 1));
    assert_eq!(tb.take().1, [event::DROP_UNKNOWN]);
}

#[test]
fn bad_parameters_are_rejected() {
    let d = CpuParams::default();
    assert_eq!(Cpu::new(CpuParams { descriptors: 17, ..d }).unwrap_err(), ParamError::Descriptors(17));
    assert_eq!(Cpu::new(CpuParams { static_entries: 0, ..d }).unwrap_err(), ParamError::StaticEntries(0));
    assert_eq!(Cpu::new(CpuParams { tick_cycles: 1000, ..d }).unwrap_err(), ParamError::TickCycles(1000));
    assert_eq!(event::name(event::RETRY_EXHAUSTED), "RETRY_EXHAUSTED");
    assert_eq!(event::COUNT, 43);
}

/// Ready is low in reset and in the clearing sweep after it, `STATIC_ENTRIES` cycles in which an
/// offered message is not taken (docs/blocks/cpu.md §Where the tables live, "Reset"); the outputs are 0.
#[test]
fn ready_is_low_in_reset_and_the_sweep_and_outputs_are_zero_after_it() {
    let p = CpuParams::default();
    let mut cpu = Cpu::new(p).unwrap();
    let offered = CpuIn { s_msg_valid: true, ..CpuIn::default() };
    let o = cpu.step(&CpuIn { rst: true, ..offered });
    assert!(!o.s_msg_ready);
    for _ in 0..p.static_entries {
        assert_eq!(cpu.step(&offered), CpuOut::default());
    }
    assert_eq!(cpu.seq_state(), seq::IDLE, "nothing taken during the sweep");
    let o = cpu.step(&CpuIn::default());
    assert_eq!(o, CpuOut { s_msg_ready: true, ..CpuOut::default() });
}

/// Steps until `m` is taken; returns the cycle (tb.cycles) of the accepting step.
fn offer(tb: &mut Tb, m: CollectiveMsg) -> u64 {
    let mut i = CpuIn::default();
    i.set_msg(&m);
    loop {
        let at = tb.cycles;
        if tb.step(i).s_msg_ready {
            return at;
        }
    }
}

/// Steps idle until an output message is visible; returns its cycle.
fn next_out(tb: &mut Tb) -> u64 {
    loop {
        let at = tb.cycles;
        if tb.step(CpuIn::default()).m_msg_valid {
            return at;
        }
    }
}

/// Steps idle until the CPU takes messages again; returns that cycle.
fn next_ready(tb: &mut Tb) -> u64 {
    loop {
        let at = tb.cycles;
        let i = CpuIn { s_msg_valid: false, ..CpuIn::default() };
        if tb.step(i).s_msg_ready {
            return at;
        }
    }
}

/// docs/blocks/cpu.md §PBV table: a participant searched by device ID (no P_ID) holds the sequencer 4
/// SCAN cycles more (128 entries, 32 device IDs per RAM word and cycle), one with a P_ID does not; the
/// search finds the lowest valid entry in any word, the last included, and reads each word in its cycle.
#[test]
fn a_reverse_lookup_scans_the_device_id_ram_one_word_per_cycle() {
    let mut tb = Tb::small();
    // Entry 127 (last word) and entry 100 (word 3) hold device 0x0777; entry 100 is the lowest.
    tb.cfg(config::PBV_TABLE + 127, pbv_word(true, false, 0x0777));
    tb.cfg(config::PBV_TABLE + 100, pbv_word(true, false, 0x0777));
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.send_init(init(0x345, 1 << 100 | 1 << 127 | 1, 3, Opcode::IntSum, 0, true));
    // With a P_ID: accept, LOOKUP, COMPARE, EXEC (a combine: idle from A + 12).
    let a = offer(&mut tb, contrib(0x345, 0, 0x0010, 0, Opcode::IntSum, 1));
    assert_eq!(next_ready(&mut tb) - a, 12, "a combine with a P_ID: no SCAN");
    // Without: 4 SCAN cycles first; the participant is entry 100 (the lowest of the two).
    let a = offer(&mut tb, contrib(0x345, NO_PARTICIPANT, 0x0777, 0, Opcode::IntSum, 2));
    assert_eq!(next_ready(&mut tb) - a, 16, "a combine searched by device ID: 4 SCAN cycles more");
    assert_eq!(tb.cpu.live(false, 0x345).unwrap().pbv, 1 << 127, "entry 100 took the contribution");
    // A drop searched by device ID (no static entry): idle from A + 4 + 4.
    let a = offer(&mut tb, contrib(0x346, NO_PARTICIPANT, 0x0777, 0, Opcode::IntSum, 2));
    assert_eq!(next_ready(&mut tb) - a, 8, "a drop after the search");
    // A write to the last word while the first is compared is seen by the search: entry 127 becomes
    // device 0x0778 on the cycle after the acceptance, and 0x0778's contribution completes the context.
    tb.take();
    let mut i = CpuIn::default();
    i.set_msg(&contrib(0x345, NO_PARTICIPANT, 0x0778, 0, Opcode::IntSum, 3));
    while !tb.step(i).s_msg_ready {}
    tb.step(CpuIn::cfg(config::PBV_TABLE + 127, pbv_word(true, false, 0x0778)));
    tb.settle();
    assert_eq!(tb.take().1, [event::ACCEPT, event::COMPLETE]);
}

#[test]
fn latency_and_throughput_are_as_documented() {
    // docs/blocks/cpu.md §Timing.
    let mut tb = Tb::small();
    tb.static_entry(0, true, role::SUBSERVIENT, 0x12, 2);
    tb.send(arm(0x12, 0, 1));
    let a = offer(&mut tb, pdata(0x12, 0, 1, Opcode::IntSum, 1, 1));
    assert_eq!(next_ready(&mut tb) - a, 5, "a first contribution: accept, LOOKUP, COMPARE, EXEC, CHECK");
    let a = offer(&mut tb, pdata(0x12, 0, 1, Opcode::IntSum, 2, 2));
    assert_eq!(next_out(&mut tb) - a, 15, "completing combine: partial result visible 15 edges after acceptance");
    tb.settle();
    let a = offer(&mut tb, pdata(0x12, 0, 1, Opcode::IntSum, 3, 3));
    assert_eq!(next_out(&mut tb) - a, 5, "pass-through visible 5 edges after acceptance");
    assert_eq!(next_ready(&mut tb) - a, 7, "one replied or passed message per 7 cycles");
    tb.send(arm(0x12, 0, 2));
    tb.static_entry(1, true, role::SUBSERVIENT, 0x13, 9);
    tb.send(arm(0x13, 0, 1));
    offer(&mut tb, pdata(0x13, 0, 1, Opcode::IntSum, 1, 1));
    tb.settle();
    let a = offer(&mut tb, pdata(0x13, 0, 1, Opcode::IntSum, 1, 1));
    assert_eq!(next_ready(&mut tb) - a, 12, "one combining contribution per 12 cycles");
    let a = offer(&mut tb, CollectiveMsg { vni: 99, ..pdata(0x13, 0, 1, Opcode::IntSum, 1, 1) });
    assert_eq!(next_ready(&mut tb) - a, 4, "one dropped message per 4 cycles");
}

#[test]
fn non_posted_initialization_and_control_are_acknowledged_posted_ones_are_not() {
    let mut tb = Tb::small();
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    // Non-posted INITIALIZATION: stored, activated, then a COMPLETION ACKNOWLEDGED to the sender.
    let i = CollectiveMsg { tid: 2, dmu_id: 0x77, ..init(0x345, 0b1101, 3, Opcode::IntSum, 0, false) };
    tb.send(i);
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT]);
    assert_eq!(outs.len(), 1);
    let a = outs[0];
    assert_eq!(
        (a.kind, a.family, a.code, a.ctx, a.src, a.dst, a.pid),
        (Kind::COMPLETION, Family::Tlp, completion::ACKNOWLEDGED, 0x345, 0x100, u32::from(SOURCE), NO_PARTICIPANT),
        "000 [0097], claim 14: non-posted = a completion is expected"
    );
    assert_eq!((a.dmu_id, a.tid, a.op, a.posted, a.count, a.data, a.pbv), (0x77, 2, Opcode::IntSum.raw(), true, 0, [0; 4], 0));
    // Posted INITIALIZATION: not answered.
    tb.send(init(0x345, 0b1101, 3, Opcode::IntSum, 0, true));
    assert_eq!(tb.take(), (vec![], vec![event::INIT]));
    // Non-posted CONTROL of a stored context: replicated to the 3 participants, then acknowledged.
    tb.send(CollectiveMsg { posted: false, ..control(0x345, command::PAUSE) });
    let (outs, events) = tb.take();
    assert_eq!(events, [event::CTRL_PAUSE]);
    assert_eq!(outs.iter().map(|o| (o.kind, o.dst)).collect::<Vec<_>>(), [(Kind::CONTROL, 0x10), (Kind::CONTROL, 0x12), (Kind::CONTROL, 0x13), (Kind::COMPLETION, u32::from(SOURCE))]);
    assert_eq!(outs[3].code, completion::ACKNOWLEDGED);
    // Posted CONTROL: copies only.
    tb.send(control(0x345, command::START));
    let (outs, _) = tb.take();
    assert!(outs.iter().all(|o| o.kind == Kind::CONTROL) && outs.len() == 3);
    // Non-posted CONTROL of a context not stored: nothing to replicate, still acknowledged.
    tb.static_entry(1, false, role::MASTER, 0x0AB, 0);
    tb.send(CollectiveMsg { posted: false, ..control(0x0AB, command::START) });
    let (outs, events) = tb.take();
    assert_eq!(events, [event::CTRL_NOOP]);
    assert_eq!((outs.len(), outs[0].kind, outs[0].code, outs[0].ctx), (1, Kind::COMPLETION, completion::ACKNOWLEDGED, 0x0AB));
    // Dropped messages are not acknowledged: unknown context, undefined command.
    tb.send(CollectiveMsg { posted: false, ..control(0x0CD, command::START) });
    tb.send(CollectiveMsg { posted: false, ..control(0x345, 9) });
    tb.send(init(0x0CD, 1, 1, Opcode::IntSum, 0, false));
    assert_eq!(tb.take(), (vec![], vec![event::DROP_UNKNOWN, event::CTRL_BAD, event::DROP_UNKNOWN]));
}

fn retry_request(cc: u16, src: u16) -> CollectiveMsg {
    CollectiveMsg { kind: Kind::RETRY, ctx: cc, src: u32::from(src), pid: NO_PARTICIPANT, code: reason::TIMEOUT, posted: true, ..CollectiveMsg::default() }
}

#[test]
fn a_retry_request_from_the_parent_resends_the_pending_response_else_failure() {
    let mut tb = Tb::small();
    tb.cfg(config::TIMEOUT, 1000);
    tlp_sub(&mut tb, false);
    // Filling: nothing has been sent for the context yet.
    tb.send(contrib(0x0AB, 0, 0x10, 0, Opcode::IntMax, 7));
    tb.take();
    tb.send(retry_request(0x0AB, SOURCE));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::RETRY_NONE]);
    assert_eq!(
        (outs[0].kind, outs[0].code, outs[0].dst, outs[0].src, outs[0].data[0]),
        (Kind::FAILURE, reason::NOTHING_TO_RESEND, u32::from(SOURCE), 0x100, u64::from(SOURCE))
    );
    // Full: the RESPONSE went up and waits for the parent's COMPLETION.
    tb.send(contrib(0x0AB, 1, 0x11, 0, Opcode::IntMax, 9));
    let (outs, _) = tb.take();
    let sent = outs[0];
    assert_eq!((sent.kind, sent.retry), (Kind::RESPONSE, false));
    tb.send(retry_request(0x0AB, SOURCE));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::RETRY_RESEND]);
    assert_eq!(outs, [CollectiveMsg { retry: true, ..sent }], "000 [0117]: the same packet again, marked as a retransmission");
    let d = tb.cpu.live(false, 0x0AB).unwrap();
    assert_eq!((d.state, d.attempts), (CtxState::Full, 0), "the requested resend is not one of the engine's own attempts");
    // A requester other than the parent: this engine sent it nothing it keeps.
    tb.send(retry_request(0x0AB, 0x10));
    let (outs, events) = tb.take();
    assert_eq!(events, [event::RETRY_NONE]);
    assert_eq!((outs[0].kind, outs[0].code, outs[0].dst), (Kind::FAILURE, reason::NOTHING_TO_RESEND, 0x10));
    // After the parent's COMPLETION the round is over: nothing to resend.
    tb.send(CollectiveMsg { kind: Kind::COMPLETION, ctx: 0x0AB, src: u32::from(SOURCE), pid: NO_PARTICIPANT, code: completion::RESULT, ..CollectiveMsg::default() });
    tb.take();
    tb.send(retry_request(0x0AB, SOURCE));
    assert_eq!(tb.take().1, [event::RETRY_NONE]);
    // A master keeps nothing to resend upward; an unknown context is dropped; Portals has no RETRY.
    tlp_master(&mut tb, Opcode::IntSum, 0);
    tb.take();
    tb.send(retry_request(0x345, SOURCE));
    tb.send(retry_request(0x0CD, SOURCE));
    tb.send(CollectiveMsg { family: Family::Portals, ..retry_request(0x12, SOURCE) });
    assert_eq!(tb.take().1, [event::RETRY_NONE, event::DROP_UNKNOWN, event::BAD_KIND]);
}

/// 000 [0106]-[0107], [0157]: the source configures the master, the master replicates down. An
/// INITIALIZATION whose P_ID is another engine's device ID is relayed (docs/blocks/cpu.md §Messages): to that engine
/// if it is a switch participant of the stored context, else to every switch participant (the target
/// is further down); the copies keep the P_ID and carry this engine as requester; nothing is stored.
#[test]
fn an_initialization_for_an_engine_below_is_relayed_down_not_stored() {
    let mut tb = Tb::small();
    // Master context: end device 0 and the switches at entries 8 (0x0208) and 9 (0x0209).
    let master_pbv = 1 | 1 << 8 | 1 << 9;
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.send_init(init(0x345, master_pbv, 3, Opcode::IntSum, 0, true));
    let for_child = CollectiveMsg { pid: 0x0209, tid: 2, ..init(0x345, 0b11, 2, Opcode::IntSum, 7, true) };
    tb.send(for_child);
    tb.send(CollectiveMsg { pid: 0x0555, ..for_child });
    tb.send(CollectiveMsg { posted: false, ..for_child });
    // A context not stored here: nowhere to relay it.
    tb.static_entry(1, false, role::SUBSERVIENT, 0x0AB, 0);
    tb.send(CollectiveMsg { ctx: 0x0AB, ..for_child });
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT, event::INIT_RELAY, event::INIT_RELAY, event::INIT_RELAY, event::DROP_UNKNOWN]);
    let got: Vec<(Kind, u32, u32, u16, u8)> = outs.iter().map(|o| (o.kind, o.src, o.dst, o.pid, o.code)).collect();
    let relay = |dst: u32| (Kind::INITIALIZATION, u32::from(ENGINE_ID), dst, 0x0209u16, 0u8);
    assert_eq!(
        got,
        [
            relay(0x0209),
            (Kind::INITIALIZATION, u32::from(ENGINE_ID), 0x0208, 0x0555, 0),
            (Kind::INITIALIZATION, u32::from(ENGINE_ID), 0x0209, 0x0555, 0),
            relay(0x0209),
            (Kind::COMPLETION, u32::from(ENGINE_ID), u32::from(SOURCE), 0x0209, completion::ACKNOWLEDGED),
        ]
    );
    for o in outs.iter().filter(|o| o.kind == Kind::INITIALIZATION) {
        assert_eq!((o.pbv, o.count, o.tid, o.data[0], o.ctx), (0b11, 2, 2, 7, 0x345), "the target's own context information, unchanged");
    }
    let s = tb.entry(0);
    assert_eq!((s.pbv, s.pcount, s.upstream, s.tid), (master_pbv, 3, SOURCE, 0), "the relaying engine stores nothing");
    assert!(!tb.entry(1).stored);
    // The target: its own device ID as P_ID is its own INITIALIZATION; the relaying parent is its upstream.
    tb.send_init(CollectiveMsg { ctx: 0x0AB, pid: ENGINE_ID, src: 0x0208, ..init(0x0AB, 0b11, 2, Opcode::IntSum, 0, true) });
    assert_eq!(tb.take().1, [event::INIT]);
    let s = tb.entry(1);
    assert_eq!((s.stored, s.pbv, s.upstream), (true, 0b11, 0x0208));
}
