//! The kept result (docs/blocks/cpu.md §Messages "Kept result"): what a TLP RETRY, or a switch
//! participant's RESPONSE one TID behind, gets, written out from the documentation (000 [0098], [0117]:
//! per-packet retries), not from the model.

use inswitch_model::cpu::context::role;
use inswitch_model::cpu::{completion, event, reason};
use inswitch_model::message::{CollectiveMsg, Kind, NO_PARTICIPANT};

use super::{bit, RStatic, Reference};

impl Reference {
    /// Sends the kept result of live context `k` to the sender of `m`, as a reply marked as a
    /// retransmission (000 [0117]); a one-target master's participant (not its upstream) gets what it
    /// got, ROUND_DONE without the result. Returns whether it was ROUND_DONE.
    fn kept_reply(&mut self, m: &CollectiveMsg, s: &RStatic, k: usize, from_upstream: bool) -> bool {
        let kr = self.live[k].kept.expect("a kept result");
        let round_done = self.live[k].role == role::MASTER && s.one_target && !from_upstream;
        let mut r = CollectiveMsg {
            code: kr.code,
            count: kr.count,
            op: kr.op,
            rc: kr.rc,
            repsum_m: kr.repsum_m,
            repsum_oflow_id: kr.repsum_oflow_id,
            data: kr.data,
            error: kr.error,
            retry: true,
            ..self.reply(m, Kind::COMPLETION, 0)
        };
        if round_done {
            r = CollectiveMsg { code: completion::ROUND_DONE, rc: 0, repsum_m: 0, repsum_oflow_id: 0, data: [0; 4], ..r };
        }
        self.out(r);
        round_done
    }

    /// A TLP CONTRIBUTION or RESPONSE one TID behind the context's (live context `k`): 001's lagging
    /// child, told "already completed"; but a switch participant's RESPONSE (its parent's result to it
    /// lost, its RESPONSE resent) gets the kept result while it is kept, as its RETRY would
    /// (docs/blocks/cpu.md §Messages "Kept result"). The participant: its P_ID, else the lowest valid
    /// PBV-table entry holding the requester; in the stored PBV, holding the requester, a switch.
    pub(super) fn tlp_one_behind(&mut self, m: &CollectiveMsg, s: &RStatic, k: usize) -> u8 {
        let p = if m.pid != NO_PARTICIPANT {
            (m.pid < 128).then_some(usize::from(m.pid))
        } else {
            (0..128).find(|&i| self.pbv_valid[i] && self.pbv_dev[i] == m.src as u16)
        };
        let switch = p.is_some_and(|p| bit(s.pbv, p) && self.pbv_valid[p] && self.pbv_dev[p] == m.src as u16 && self.pbv_switch[p]);
        if m.kind == Kind::RESPONSE && switch {
            if self.live[k].kept.is_some() {
                let from_upstream = self.live[k].role == role::MASTER && m.src as u16 == s.upstream;
                if self.kept_reply(m, s, k, from_upstream) {
                    self.cov.bump("response_result_round_done");
                }
                self.cov.bump(if self.live[k].role == role::MASTER { "response_result_master" } else { "response_result_subservient" });
                return event::RESPONSE_RESULT;
            }
            // The next round has begun: the old answer, never the newer result.
            self.cov.bump("response_result_gone");
        }
        let r = self.reply(m, Kind::COMPLETION, completion::ALREADY_COMPLETED);
        self.out(r);
        event::OLD_TID
    }

    /// A TLP RETRY on a stored or live context (`s` its static entry, `live` its descriptor).
    pub(super) fn tlp_retry(&mut self, m: &CollectiveMsg, s: &RStatic, live: Option<usize>) -> u8 {
        // docs/blocks/cpu.md §Messages: the parent asks again for the RESPONSE a subservient holds in Full;
        // anything else is answered FAILURE NothingToResend.
        if !s.stored && live.is_none() {
            return event::DROP_UNKNOWN;
        }
        // The kept result (docs/blocks/cpu.md §Messages "Kept result"; 000 [0098], [0117]: per-packet
        // retries): for the round just completed (TID one behind the context's), to a master's
        // upstream or to a participant whose P_ID's table entry holds the requester.
        let from_upstream = live.is_some_and(|k| self.live[k].role == role::MASTER) && m.src as u16 == s.upstream;
        let p = usize::from(m.pid);
        let participant = p < 128 && bit(s.pbv, p) && self.pbv_valid[p] && self.pbv_dev[p] == m.src as u16;
        let previous = (s.tid + 4 - m.tid) % 4 == 1;
        match live {
            Some(k)
                if self.live[k].role != role::MASTER && self.live[k].state == 2 && m.src as u16 == s.upstream =>
            {
                let d = self.live[k].clone();
                let r = self.tlp_out(&d, false, d.sent_error, true);
                self.cov.bump(if d.sent_error { "retry_resend_error_marked" } else { "retry_resend_clean" });
                self.out(r);
                event::RETRY_RESEND
            }
            Some(k) if previous && (from_upstream || participant) && self.live[k].kept.is_some() => {
                if self.kept_reply(m, s, k, from_upstream) {
                    self.cov.bump("retry_result_round_done");
                }
                self.cov.bump(if from_upstream { "retry_result_upstream" } else { "retry_result_participant" });
                event::RETRY_RESULT
            }
            _ => {
                if live.is_some() && previous && (from_upstream || participant) {
                    // The next round has begun: an older round's request gets nothing, never the
                    // newer result.
                    self.cov.bump("retry_result_gone");
                }
                let r = self.reply(m, Kind::FAILURE, reason::NOTHING_TO_RESEND);
                self.cov.bump(if live.is_some() { "retry_none_live" } else { "retry_none_stored" });
                self.out(r);
                event::RETRY_NONE
            }
        }
    }
}
