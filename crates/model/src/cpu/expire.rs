//! State `EXPIRE`: the timeout action of an expired descriptor (`docs/blocks/cpu.md` §Timers).
//! Side by side with `rtl/cpu_expire.vh` (§EXPIRE of `rtl/cpu.v`, which includes it).

use super::*;

impl Cpu {
    /// State `EXPIRE`: the timeout action of descriptor `cur` (`docs/blocks/cpu.md` §Timers).
    pub(super) fn expire(&mut self) {
        let di = self.cur;
        self.d[di].expired = false;
        let d = self.d[di];
        self.em_mask = 0;
        self.em_one = true;
        self.seq = seq::RATCHET;
        let ev = if d.portals {
            self.rat_target = CtxState::Exiting;
            self.fin = fin::FREE;
            self.em_one = d.acc_valid;
            self.msg = self.portals_partial(&d);
            if d.acc_valid {
                event::TIMEOUT_PARTIAL
            } else {
                event::TIMEOUT_EMPTY
            }
        } else {
            let master = d.role == role::MASTER;
            match d.state {
                CtxState::Filling if !master => {
                    self.d[di].sent_error = true;
                    self.d[di].attempts = 0;
                    self.msg = self.tlp_response(&d, true, false);
                    self.rat_target = CtxState::Full;
                    self.fin = fin::WAIT;
                    event::TIMEOUT_PARTIAL
                }
                CtxState::Filling => {
                    self.set_failure(di, false, d.key);
                    self.msg = self.tlp_completion(&d, true);
                    self.em_mask = self.st[usize::from(d.sidx)].pbv;
                    self.em_one_target = self.st[usize::from(d.sidx)].one_target;
                    self.rat_target = CtxState::Exiting;
                    self.fin = fin::NEXT_ROUND;
                    event::TIMEOUT_MASTER
                }
                CtxState::Full if !master && d.attempts < self.cfg.retry_limit => {
                    self.d[di].attempts += 1;
                    self.msg = self.tlp_response(&d, d.sent_error, true);
                    self.rat_target = CtxState::Full;
                    self.fin = fin::WAIT;
                    event::RETRY
                }
                CtxState::Full if !master => {
                    self.set_failure(di, false, d.key);
                    self.msg = self.retry_failure(&d);
                    self.rat_target = CtxState::Exiting;
                    self.fin = fin::NEXT_ROUND;
                    event::RETRY_EXHAUSTED
                }
                _ => {
                    self.em_one = false;
                    self.seq = seq::IDLE;
                    event::TIMEOUT_EMPTY
                }
            }
        };
        self.event(ev, d.portals, d.key);
    }
}
