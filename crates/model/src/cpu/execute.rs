//! State `EXEC`: the decision for the latched message, per family and kind (`docs/blocks/cpu.md` §Messages).
//! Side by side with `rtl/cpu_execute.vh` (§EXECUTE of `rtl/cpu.v`, which includes it).

use super::*;
use super::records::Stored;

impl Cpu {
    /// State `EXEC`: the decision for the latched message (`docs/blocks/cpu.md` §Messages).
    pub(super) fn exec(&mut self) {
        let m = self.msg;
        self.ack_src = m.src;
        self.ack_tid = m.tid;
        let lk = self.lk;
        let s = self.st[lk.s_idx];
        let portals = m.family == Family::Portals;
        self.seq = seq::IDLE;
        let ev = if !portals {
            self.exec_tlp(&m, &lk, &s)
        } else {
            self.exec_portals(&m, &lk, &s)
        };
        self.event(ev, portals, m.ctx);
    }

    fn exec_tlp(&mut self, m: &CollectiveMsg, lk: &Lookup, s: &StaticEntry) -> u8 {
        let key = m.ctx & 0xfff;
        let from_st = Stored { pbv: s.pbv, pcount: s.pcount, op: s.op, data: s.data, posted: s.posted };
        match m.kind {
            Kind::INITIALIZATION | Kind::CONFIGURATION => {
                let relay = m.pid != NO_PARTICIPANT && m.pid != self.cfg.engine_id;
                if m.kind == Kind::CONFIGURATION && !relay {
                    // The checker applies a configuration message for this engine itself (register
                    // writes); none is the CPU's.
                    return event::BAD_KIND;
                }
                if !lk.s_hit {
                    return event::DROP_UNKNOWN;
                }
                if relay {
                    // A configuration message (FIG. 4) for an engine below takes the same way as its
                    // INITIALIZATION ([0157]: the master engine sends one configuration packet to each
                    // packet engine), with its fields (`pbv`, `data`) as they came.
                    // For an engine below (000 [0106]-[0107], [0157]): the source configures the master,
                    // the master replicates down. Relayed, with this engine as requester (so the target
                    // stores its parent as upstream), to the target if it is a switch participant of the
                    // stored context, else to every switch participant (multi-hop); acknowledged if
                    // non-posted, like CONTROL. Nothing stored here; no stored context: nowhere to go.
                    if !s.stored {
                        return event::DROP_UNKNOWN;
                    }
                    let switches = self.switch_mask();
                    let direct = lk.p_hit && self.cfg.pbv[lk.p_idx].switch && s.pbv & (1u128 << lk.p_idx) != 0;
                    self.msg = self.rewritten(m);
                    self.em_mask = if direct { 1u128 << lk.p_idx } else { s.pbv & switches };
                    self.em_keep_pid = true;
                    self.em_one = !m.posted;
                    self.em_ack = !m.posted;
                    self.fin = fin::NONE;
                    self.seq = seq::EMIT;
                    return event::INIT_RELAY;
                }
                let st = &mut self.st[lk.s_idx];
                st.stored = true;
                st.pbv = m.pbv;
                st.pcount = m.count;
                st.op = m.op;
                st.data = m.data;
                st.dmu_id = m.dmu_id;
                st.upstream = m.src as u16;
                st.posted = m.posted;
                st.tid = m.tid;
                let from_msg = Stored { pbv: m.pbv, pcount: m.count, op: m.op, data: m.data, posted: m.posted };
                if !m.posted {
                    // Non-posted: acknowledged to the sender (000 [0097], claim 14).
                    self.em_mask = 0;
                    self.em_one = true;
                    self.em_ack = true;
                    self.fin = fin::NONE;
                    self.seq = seq::EMIT;
                }
                if lk.d_hit {
                    self.activate(lk.d_idx, lk.s_idx, key, from_msg);
                    event::INIT
                } else if lk.f_hit {
                    self.activate(lk.f_idx, lk.s_idx, key, from_msg);
                    event::INIT
                } else {
                    event::ACTIVATE_NO_DESC
                }
            }
            Kind::CONTROL => {
                if !lk.s_hit {
                    return event::DROP_UNKNOWN;
                }
                if !(command::START..=command::RESET).contains(&m.code) {
                    return event::CTRL_BAD;
                }
                self.st[lk.s_idx].upstream = m.src as u16;
                let ev = match m.code {
                    command::START => {
                        if lk.d_hit {
                            if self.d[lk.d_idx].paused {
                                self.d[lk.d_idx].paused = false;
                                event::CTRL_START
                            } else {
                                event::CTRL_NOOP
                            }
                        } else if !s.stored {
                            event::CTRL_NOOP
                        } else if lk.f_hit {
                            self.activate(lk.f_idx, lk.s_idx, key, from_st);
                            event::CTRL_START
                        } else {
                            event::ACTIVATE_NO_DESC
                        }
                    }
                    command::PAUSE => {
                        if lk.d_hit {
                            self.d[lk.d_idx].paused = true;
                            event::CTRL_PAUSE
                        } else {
                            event::CTRL_NOOP
                        }
                    }
                    command::RESTART => {
                        if !s.stored {
                            event::CTRL_NOOP
                        } else if lk.d_hit {
                            self.activate(lk.d_idx, lk.s_idx, key, from_st);
                            event::CTRL_RESTART
                        } else if lk.f_hit {
                            self.activate(lk.f_idx, lk.s_idx, key, from_st);
                            event::CTRL_RESTART
                        } else {
                            event::ACTIVATE_NO_DESC
                        }
                    }
                    command::STOP => {
                        if lk.d_hit {
                            self.d[lk.d_idx].valid = false;
                            event::CTRL_STOP
                        } else {
                            event::CTRL_NOOP
                        }
                    }
                    _ => {
                        if lk.d_hit {
                            self.d[lk.d_idx].valid = false;
                        }
                        self.st[lk.s_idx].stored = false;
                        self.st[lk.s_idx].tid = 0;
                        event::CTRL_RESET
                    }
                };
                // Replicated down to every participant of the (previously) stored PBV ([0172]), with
                // the context's TID: an end node learns the round's TID from its START and sends it back
                // in its CONTRIBUTION (001). Then, if non-posted, acknowledged to the sender (000 [0097],
                // claim 14; the acknowledgement keeps `m.tid`).
                if s.stored || !m.posted {
                    self.msg = CollectiveMsg { tid: s.tid, ..self.rewritten(m) };
                    self.em_mask = if s.stored { s.pbv } else { 0 };
                    self.em_one = !m.posted;
                    self.em_ack = !m.posted;
                    self.fin = fin::NONE;
                    self.seq = seq::EMIT;
                }
                ev
            }
            Kind::CONTRIBUTION | Kind::RESPONSE => {
                if !lk.s_hit || (!s.stored && !lk.d_hit) {
                    return event::DROP_UNKNOWN;
                }
                let up = CollectiveMsg { dst: u32::from(s.upstream), ..self.rewritten(m) };
                if !lk.d_hit {
                    self.emit_one(up, fin::NONE);
                    return event::PASS_UP;
                }
                let d = self.d[lk.d_idx];
                if m.tid != s.tid {
                    if s.tid.wrapping_sub(m.tid) & 3 == 1 {
                        // A switch participant's RESPONSE for the round just completed (its copy of the
                        // result was lost, so it resent its RESPONSE): while the result is kept, it gets
                        // the kept result, as its RETRY would, not "already completed", which carries no
                        // value down (docs/blocks/cpu.md §Messages "Kept result").
                        let bit = 1u128 << lk.p_idx;
                        let switch = lk.p_hit && s.pbv & bit != 0 && lk.p_sender && self.cfg.pbv[lk.p_idx].switch;
                        if m.kind == Kind::RESPONSE && d.kept && switch {
                            self.emit_one(self.kept_reply(m, &d, s), fin::NONE);
                            return event::RESPONSE_RESULT;
                        }
                        self.emit_one(self.already_completed(m), fin::NONE);
                        return event::OLD_TID;
                    }
                    return event::BAD_TID;
                }
                if d.paused {
                    return event::PAUSED_DROP;
                }
                if matches!(d.state, CtxState::Full | CtxState::Exiting) {
                    // A late frame goes up (002 (62)), unless its participant is already counted: a
                    // retried contribution gets the seed's reply, DuplicateContribution (000 [0143] (a)),
                    // here as while Filling; passed up, the master would answer it "already completed"
                    // after the round, which this engine would take for its parent's result.
                    let bit = 1u128 << lk.p_idx;
                    let counted = lk.p_hit && s.pbv & bit != 0 && lk.p_sender && (m.kind == Kind::RESPONSE) == self.cfg.pbv[lk.p_idx].switch && d.pbv & bit == 0;
                    if counted {
                        self.emit_one(self.failure_reply(m, reason::DUPLICATE), fin::NONE);
                        return event::DUPLICATE;
                    }
                    self.emit_one(up, fin::NONE);
                    return event::PASS_UP;
                }
                let bit = 1u128 << lk.p_idx;
                let (why, ev) = if !lk.p_hit || s.pbv & bit == 0 {
                    (reason::UNKNOWN_PARTICIPANT, event::UNKNOWN_PARTICIPANT)
                } else if !lk.p_sender {
                    // The P_ID names another device's entry: a late frame passed up by a child keeps
                    // the child's P_ID, and a spoofer picks one. Dropped, not answered.
                    return event::WRONG_SENDER;
                } else if (m.kind == Kind::RESPONSE) != self.cfg.pbv[lk.p_idx].switch {
                    (reason::MALFORMED, event::MALFORMED)
                } else if d.pbv & bit == 0 {
                    (reason::DUPLICATE, event::DUPLICATE)
                } else if d.pcount == 0 {
                    (reason::COUNT_UNDERFLOW, event::COUNT_UNDERFLOW)
                } else {
                    let init = self.tlp_acc(s.op, s.data);
                    let dd = &mut self.d[lk.d_idx];
                    if dd.kept {
                        // The round's first contribution: the kept result of the last round gives way to
                        // the stored initial accumulator (the re-load `finish` deferred).
                        dd.kept = false;
                        dd.acc = init;
                        dd.count = 0;
                    }
                    dd.pbv &= !bit;
                    dd.pcount -= 1;
                    dd.count = (dd.count + m.count).min(COUNT_MAX);
                    self.cur = lk.d_idx;
                    self.seq = seq::ISSUE;
                    return event::ACCEPT;
                };
                self.emit_one(self.failure_reply(m, why), fin::NONE);
                ev
            }
            Kind::COMPLETION => {
                if !lk.s_hit || !lk.d_hit {
                    return event::DROP_UNKNOWN;
                }
                // A master is below no one; an acknowledgement (a child's answer to a non-posted command
                // this engine relayed or replicated) is not the parent's result.
                if self.d[lk.d_idx].role == role::MASTER || m.code == completion::ACKNOWLEDGED {
                    return event::BAD_KIND;
                }
                if m.tid != s.tid {
                    return event::BAD_TID;
                }
                self.msg = self.rewritten(m);
                self.em_mask = s.pbv;
                self.em_one = false;
                self.fin = fin::NEXT_ROUND;
                self.rat_target = CtxState::Exiting;
                self.cur = lk.d_idx;
                self.seq = seq::RATCHET;
                event::COMPLETION_DOWN
            }
            Kind::FAILURE => {
                if !lk.s_hit || !s.stored {
                    return event::DROP_UNKNOWN;
                }
                // 001's Failure flag, carried by the FAILURE it forwards (`error`, the EM bit).
                let mut up = CollectiveMsg { dst: u32::from(s.upstream), ..self.rewritten(m) };
                if lk.d_hit {
                    self.set_failure(lk.d_idx, false, m.ctx);
                    up.error = true;
                }
                self.emit_one(up, fin::NONE);
                event::FAILURE_UP
            }
            Kind::RETRY => {
                // A per-packet retry request (000 [0098], [0117]). The one message this engine keeps for
                // a context is the RESPONSE a subservient holds in Full until its parent answers.
                if !lk.s_hit || (!s.stored && !lk.d_hit) {
                    return event::DROP_UNKNOWN;
                }
                let d = self.d[lk.d_idx];
                // The result of the round just completed (TID − 1), kept until the next round's first
                // contribution, to a master's `upstream` or to a participant named by a P_ID that holds
                // the requester (docs/blocks/cpu.md §Messages "Kept result").
                let from_upstream = d.role == role::MASTER && m.src as u16 == s.upstream;
                let participant = lk.p_hit && s.pbv & (1u128 << lk.p_idx) != 0 && lk.p_sender;
                if lk.d_hit && d.role != role::MASTER && d.state == CtxState::Full && m.src as u16 == s.upstream {
                    self.emit_one(self.tlp_response(&d, d.sent_error, true), fin::NONE);
                    event::RETRY_RESEND
                } else if lk.d_hit && d.kept && s.tid.wrapping_sub(m.tid) & 3 == 1 && (from_upstream || participant) {
                    self.emit_one(self.kept_reply(m, &d, s), fin::NONE);
                    event::RETRY_RESULT
                } else {
                    self.emit_one(self.failure_reply(m, reason::NOTHING_TO_RESEND), fin::NONE);
                    event::RETRY_NONE
                }
            }
            _ => event::BAD_KIND,
        }
    }

    /// The kept result of `d` as the reply to `m` (a RETRY, or a switch participant's RESPONSE one TID
    /// behind): a one-target master's participant gets `ROUND_DONE` without the result, as it did; its
    /// `upstream` (the target) the result.
    fn kept_reply(&self, m: &CollectiveMsg, d: &Descriptor, s: &StaticEntry) -> CollectiveMsg {
        let from_upstream = d.role == role::MASTER && m.src as u16 == s.upstream;
        self.kept_result(m, d, d.role == role::MASTER && s.one_target && !from_upstream)
    }

    fn exec_portals(&mut self, m: &CollectiveMsg, lk: &Lookup, _s: &StaticEntry) -> u8 {
        match m.kind {
            Kind::ARM => {
                if !lk.s_hit {
                    event::DROP_UNKNOWN
                } else if m.seqno == SEQNO_RESERVED {
                    event::BAD_SEQNO_ARM
                } else if lk.d_hit {
                    // 002 (71): "rt_arm can advance the sequence number and clear the state. Frames with
                    // an old sequence number can be dropped": a duplicated or stale arm must not wipe
                    // the running reduction.
                    if seqno_newer(m.seqno, self.d[lk.d_idx].seqno) {
                        self.arm(lk.d_idx, lk.s_idx, m);
                        event::REARM
                    } else {
                        event::STALE_ARM
                    }
                } else if lk.f_hit {
                    self.arm(lk.f_idx, lk.s_idx, m);
                    event::ARM
                } else {
                    event::ARM_NO_DESC
                }
            }
            Kind::CONTRIBUTION => {
                if !lk.d_hit {
                    self.emit_one(*m, fin::NONE);
                    return event::PASS_UP;
                }
                let d = &mut self.d[lk.d_idx];
                if m.vni != d.vni {
                    return event::DROP_VNI;
                }
                if m.cookie != d.cookie {
                    return event::DROP_COOKIE;
                }
                if m.seqno != d.seqno {
                    return event::DROP_SEQNO;
                }
                d.count = (d.count + m.count).min(COUNT_MAX);
                self.cur = lk.d_idx;
                if d.acc_valid {
                    self.seq = seq::ISSUE;
                } else {
                    d.acc = contribution_of(m);
                    d.acc_valid = true;
                    if d.state == CtxState::Idle {
                        d.state = CtxState::Filling;
                    }
                    self.seq = seq::CHECK;
                }
                event::ACCEPT
            }
            _ => event::BAD_KIND,
        }
    }
}
