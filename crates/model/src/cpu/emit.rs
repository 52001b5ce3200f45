//! State `EMIT`: the outgoing messages, one per cycle (`docs/blocks/cpu.md` §Messages, §6).
//! Side by side with `rtl/cpu_emit.vh` (§EMIT of `rtl/cpu.v`, which includes it).

use super::*;

impl Cpu {
    /// Emission of one message (`em_one`), no per-participant copies.
    pub(super) fn emit_one(&mut self, tmpl: CollectiveMsg, f: u8) {
        self.msg = tmpl;
        self.em_mask = 0;
        self.em_one = true;
        self.fin = f;
        self.seq = seq::EMIT;
    }

    /// State `EMIT`: one outgoing message per cycle when the output register is free.
    pub(super) fn emit(&mut self, out_free: bool) {
        if self.em_mask != 0 {
            let b = self.em_mask.trailing_zeros() as usize;
            let e = self.cfg.pbv[b];
            if !e.valid {
                self.em_mask &= !(1u128 << b);
            } else if out_free {
                let pid = if self.em_keep_pid { self.msg.pid } else { b as u16 };
                let copy = CollectiveMsg { dst: u32::from(e.device_id), pid, ..self.msg };
                // Reduce to one target (003 [0052], [0060]): the participants learn the round is over,
                // not its result.
                self.out = MsgPort::from(&if self.em_one_target { Self::without_result(copy) } else { copy });
                self.out_valid = true;
                self.em_mask &= !(1u128 << b);
            }
        } else if self.em_one {
            if out_free {
                if self.em_ack {
                    // The acknowledgement answers the latched message's requester and TID (kept by EXEC:
                    // the template in `msg` may be a relayed copy with the engine as requester and
                    // another TID); the RTL writes it into msg_reg, which its output register shows.
                    let acked = CollectiveMsg { src: self.ack_src, tid: self.ack_tid, ..self.msg };
                    self.msg = self.answer(&acked, completion::ACKNOWLEDGED);
                }
                self.out = MsgPort::from(&self.msg);
                self.out_valid = true;
                self.em_one = false;
                self.em_ack = false;
            }
        } else {
            self.em_keep_pid = false;
            self.em_one_target = false;
            self.seq = seq::FINISH;
        }
    }
}
