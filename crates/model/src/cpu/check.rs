//! State `CHECK`: the completion test after a contribution (`docs/blocks/cpu.md` §Messages).
//! Side by side with `rtl/cpu_check.vh` (§CHECK of `rtl/cpu.v`, which includes it).

use super::*;

impl Cpu {
    /// State `CHECK`: completion test after a contribution (`docs/blocks/cpu.md` §Messages).
    pub(super) fn check(&mut self) {
        let di = self.cur;
        let d = self.d[di];
        let complete = if d.portals { d.count >= d.wait } else { d.pbv == 0 && d.pcount == 0 };
        self.seq = seq::IDLE;
        if !complete {
            return;
        }
        self.event(event::COMPLETE, d.portals, d.key);
        let dd = &mut self.d[di];
        dd.state = dd.state.next();
        if dd.portals && dd.count > dd.wait {
            dd.acc.rt_rc = dd.acc.rt_rc.merge_by(&self.ru.tables().rc_priority, Rc::CONTR_OVERFLOW);
        }
        let d = *dd;
        self.em_mask = 0;
        self.em_one = true;
        self.seq = seq::RATCHET;
        if d.portals {
            self.rat_target = CtxState::Exiting;
            if d.role == role::MASTER {
                self.msg = self.portals_result(&d);
                self.fin = fin::REARM;
            } else {
                self.msg = self.portals_partial(&d);
                self.fin = fin::FREE;
            }
        } else if d.role == role::MASTER {
            self.msg = self.tlp_completion(&d, false);
            self.em_mask = self.st[usize::from(d.sidx)].pbv;
            self.em_one_target = self.st[usize::from(d.sidx)].one_target;
            self.rat_target = CtxState::Exiting;
            self.fin = fin::NEXT_ROUND;
        } else {
            self.msg = self.tlp_response(&d, false, false);
            self.d[di].attempts = 0;
            self.d[di].sent_error = false;
            self.rat_target = CtxState::Full;
            self.fin = fin::WAIT;
        }
    }
}
