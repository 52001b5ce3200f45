//! The kept result (docs/blocks/cpu.md §Messages "Kept result"): what a TLP RETRY gets, written out
//! from the documentation (000 [0098], [0117]: per-packet retries), not from the model.

use inswitch_model::cpu::context::role;
use inswitch_model::cpu::{completion, event, reason};
use inswitch_model::message::{CollectiveMsg, Kind};

use super::{bit, RStatic, Reference};

impl Reference {
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
                let kr = self.live[k].kept.expect("checked");
                // A one-target master's participant got ROUND_DONE without the result: again.
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
                    self.cov.bump("retry_result_round_done");
                }
                self.cov.bump(if from_upstream { "retry_result_upstream" } else { "retry_result_participant" });
                self.out(r);
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
