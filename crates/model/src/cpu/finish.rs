//! State `FINISH`: the end-of-round action (`docs/blocks/cpu.md` §State machine, §4).
//! Side by side with `rtl/cpu_finish.vh` (§FINISH of `rtl/cpu.v`, which includes it).

use super::*;

impl Cpu {
    /// State `FINISH`: the end-of-round action.
    pub(super) fn finish(&mut self) {
        let di = self.cur;
        self.seq = seq::IDLE;
        match self.fin {
            fin::FREE => {
                self.d[di].state = CtxState::Idle;
                self.d[di].valid = false;
            }
            fin::REARM => {
                let d = &mut self.d[di];
                d.state = CtxState::Idle;
                d.seqno = next_seqno(d.seqno);
                d.count = 0;
                d.acc_valid = false;
                d.acc = Contribution::default();
                d.timer = d.load;
                d.expired = false;
            }
            fin::WAIT => {
                let d = &mut self.d[di];
                d.timer = d.load;
                d.expired = false;
            }
            fin::NEXT_ROUND => {
                let si = usize::from(self.d[di].sidx);
                let s = self.st[si];
                self.st[si].tid = (s.tid + 1) & 3;
                let acc = self.tlp_acc(s.op, s.data);
                let t = self.msg;
                let d = &mut self.d[di];
                d.state = CtxState::Idle;
                d.pbv = s.pbv;
                d.pcount = s.pcount;
                // A round that ended with a COMPLETION (the master's result or timeout, the parent's
                // result at a subservient) keeps it for a RETRY (000 [0098], [0117]): the accumulator and
                // count take the message's result fields, re-loaded at the next round's first
                // contribution (`exec`). A round that ended with retries exhausted keeps nothing.
                d.kept = t.kind == Kind::COMPLETION;
                if d.kept {
                    d.acc.rt_op = t.op;
                    d.acc.rt_data = t.data;
                    d.acc.rt_rc = Rc::from_raw(t.rc);
                    d.acc.rt_repsum_m = t.repsum_m;
                    d.acc.rt_repsum_oflow_id = t.repsum_oflow_id;
                    d.count = t.count;
                    d.res_code = t.code;
                    d.res_error = t.error;
                } else {
                    d.count = 0;
                    d.acc = acc;
                }
                d.acc_valid = true;
                d.attempts = 0;
                d.sent_error = false;
                d.timer = d.load;
                d.expired = false;
            }
            _ => {}
        }
    }
}
