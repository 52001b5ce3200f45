//! The reference's ends of rounds (ratchet, completion, next round, expiry) and its timing of the
//! sequencer and the timers (docs/blocks/cpu.md §Timers "Exact expiry", §6 "Sequencer timing").

use inswitch_model::cpu::context::role;
use inswitch_model::cpu::{
    completion, event, next_seqno, reason,
};
use inswitch_model::message::{CollectiveMsg, Family, Kind, NO_PARTICIPANT};
use inswitch_model::reduce::{Contribution, Rc};

use super::schedule::EXEC_DONE;
use super::{Reference, RDesc, Hold, Seq};

/// Longest a sequencer event can hold the sequencer without output stalls, in cycles: ratchet steps,
/// one cycle per PBV bit (128) and the single message, a few cycles of decision.
const OVERDUE_PER_EVENT: u64 = 150;

/// After the turn following the last EMIT item: one EMIT cycle that finds the list empty, FINISH.
const EMIT_TAIL: u64 = 2;

/// A message carrying the result `acc` (operation, RC, representative sum, data); the caller fills the rest.
fn carrying(acc: &Contribution) -> CollectiveMsg {
    CollectiveMsg {
        op: acc.rt_op,
        rc: acc.rt_rc.0,
        repsum_m: acc.rt_repsum_m,
        repsum_oflow_id: acc.rt_repsum_oflow_id,
        data: acc.rt_data,
        ..CollectiveMsg::default()
    }
}

impl Reference {
    /// Steps the state machine of live descriptor `k` up to `target`, one state at a time.
    pub(super) fn ratchet(&mut self, k: usize, target: u8) {
        while self.live[k].state != target {
            let s = self.live[k].state;
            self.cov.transition(s);
            self.live[k].state = (s + 1) & 3;
        }
    }

    /// The message a Portals descriptor sends: its result (ARM down the tree) or its contribution up.
    fn portals_out(&self, d: &RDesc, result: bool, acc: &Contribution) -> CollectiveMsg {
        CollectiveMsg {
            kind: if result { Kind::ARM } else { Kind::CONTRIBUTION },
            family: Family::Portals,
            port: if result { 0 } else { d.port },
            ctx: d.key,
            src: self.engine_sfa,
            dst: d.dst,
            pid: NO_PARTICIPANT,
            count: d.count,
            posted: true,
            vni: d.vni,
            cookie: d.cookie,
            seqno: if result { next_seqno(d.seqno) } else { d.seqno },
            resno: d.seqno,
            ..carrying(acc)
        }
    }

    /// The message a TLP descriptor sends upstream: a COMPLETION or a RESPONSE with its result.
    pub(super) fn tlp_out(&self, d: &RDesc, completion: bool, error: bool, retry: bool) -> CollectiveMsg {
        let s = &self.st[d.sidx];
        let acc = self.result(d).unwrap_or_default();
        let barrier = acc.rt_op == 0;
        CollectiveMsg {
            kind: if completion { Kind::COMPLETION } else { Kind::RESPONSE },
            family: Family::Tlp,
            ctx: d.key,
            src: u32::from(self.engine_id),
            dst: u32::from(s.upstream),
            pid: NO_PARTICIPANT,
            dmu_id: s.dmu,
            count: d.count,
            code: match (completion, barrier) {
                (true, true) => completion::BARRIER_SATISFIED,
                (true, false) => completion::RESULT,
                (false, true) => completion::BARRIER_MET,
                (false, false) => completion::NONE,
            },
            posted: if completion { true } else { d.posted },
            error,
            retry,
            tid: s.tid,
            ..carrying(&acc)
        }
    }

    /// The round of live descriptor `k` is complete (docs/blocks/cpu.md §Messages "Completion").
    pub(super) fn complete(&mut self, k: usize, _cycle: u64) {
        let d = self.live[k].clone();
        // docs/blocks/cpu.md §Timing: CHECK steps Filling -> Full itself; RATCHET then steps to Exiting (one step)
        // but for a TLP subservient, which stays Full (none), and takes one more cycle to see the target.
        let steps = u64::from(d.portals || d.role == role::MASTER);
        if let Some(Hold::Idle(after_check)) = self.hold {
            self.hold = Some(Hold::Emit(after_check + steps + 1));
        }
        self.ev(event::COMPLETE, d.portals, d.key);
        self.ratchet(k, 2);
        self.live[k].run_from = None;
        if d.portals {
            let mut acc = self.result(&d).expect("a completed Portals round accepted something");
            if d.count > d.wait {
                // By the literal priority of 002 (97) (crate::sources), not the model's merge.
                acc.rt_rc = Rc(crate::sources::higher(acc.rt_rc.0, crate::sources::rc::CONTR_OVERFLOW));
                self.cov.bump("contr_overflow");
            }
            if acc.rt_rc.0 == crate::sources::rc::OP_MISMATCH {
                self.cov.bump("results_op_mismatch");
            }
            self.ratchet(k, 3);
            let master = d.role == role::MASTER;
            let msg = self.portals_out(&d, master, &acc);
            if master {
                self.cov.bump("complete_portals_master");
                self.out_timed(msg, Some((true, d.key)));
                self.ratchet(k, 0);
                let dd = &mut self.live[k];
                dd.seqno = next_seqno(dd.seqno);
                dd.count = 0;
                dd.accepted.clear();
                dd.run_on_output = true;
                dd.paused_since_load = false;
            } else {
                self.cov.bump("complete_portals_subservient");
                self.out(msg);
                self.ratchet(k, 0);
                self.live.remove(k);
            }
        } else if d.role == role::MASTER {
            self.cov.bump("complete_tlp_master");
            let msg = self.tlp_out(&d, true, false, false);
            self.ratchet(k, 3);
            self.master_copies(msg, d.sidx);
            self.next_round(k, Some(msg));
        } else {
            self.cov.bump("complete_tlp_subservient");
            let msg = self.tlp_out(&d, false, false, false);
            self.out_timed(msg, Some((false, d.key)));
            let dd = &mut self.live[k];
            dd.attempts = 0;
            dd.sent_error = false;
            dd.run_on_output = !dd.posted;
            dd.paused_since_load = false;
        }
    }

    /// Exiting -> Idle of a TLP context: TID + 1, tracking store re-loaded (001; 000 [0141]); `kept`, the
    /// COMPLETION that ended the round, is kept for a RETRY (docs/blocks/cpu.md §Messages "Kept result").
    pub(super) fn next_round(&mut self, k: usize, kept: Option<CollectiveMsg>) {
        self.ratchet(k, 0);
        let si = self.live[k].sidx;
        self.st[si].tid = (self.st[si].tid + 1) & 3;
        let s = self.st[si];
        let init = self.tlp_init(&s);
        let d = &mut self.live[k];
        d.pbv = s.pbv;
        d.pcount = s.pcount;
        d.count = 0;
        d.init = Some(init);
        d.accepted.clear();
        d.attempts = 0;
        d.sent_error = false;
        d.kept = kept;
        d.run_from = None;
        d.run_on_output = false;
        d.paused_since_load = d.paused;
    }

    /// The CPU reported a timer expiry (`observed`) of a context at `cycle`: check it, predict it.
    pub(super) fn expiry(&mut self, cycle: u64, portals: bool, key: u16, observed: u8) -> Result<(), String> {
        let tick = self.p.tick_cycles;
        let k = self
            .find_live(portals, key)
            .ok_or_else(|| format!("{} reported for context {key:#06x} (portals {portals}), which is not live", event::name(observed)))?;
        let d = self.live[k].clone();
        match d.run_from {
            Some(from) => {
                let earliest = self.expiry_pending(from, d.load) + 2;
                if cycle < earliest {
                    return Err(format!(
                        "context {key:#06x} expired at cycle {cycle}, before its timeout allows ({} ticks of {tick} cycles from cycle {from}: not before {earliest})",
                        d.load
                    ));
                }
                self.cov.bump("timeouts_checked");
            }
            None if d.paused_since_load => {}
            None => return Err(format!("context {key:#06x} expired ({}) but its timer does not run in its state", event::name(observed))),
        }
        self.live[k].run_from = None;
        // docs/blocks/cpu.md §Timing: the report comes with the first RATCHET cycle; one step per cycle to the
        // action's target (Portals and a master: Exiting; a TLP subservient: Full), one more, EMIT.
        let target = if portals || d.role == role::MASTER || (d.state == 2 && d.attempts >= self.retry_limit) { 3 } else { 2 };
        self.hold = Some(Hold::Emit(u64::from(target.max(d.state) - d.state) + 1));
        let e = if portals {
            let acc = self.result(&d);
            self.ratchet(k, 3);
            let e = match acc {
                Some(acc) => {
                    let msg = self.portals_out(&d, false, &acc);
                    self.out(msg);
                    event::TIMEOUT_PARTIAL
                }
                None => event::TIMEOUT_EMPTY,
            };
            self.ratchet(k, 0);
            self.live.remove(k);
            self.cov.bump("freed_by_timeout");
            e
        } else {
            let master = d.role == role::MASTER;
            match d.state {
                1 if !master => {
                    let msg = self.tlp_out(&d, false, true, false);
                    self.ratchet(k, 2);
                    self.out_timed(msg, Some((false, key)));
                    let dd = &mut self.live[k];
                    dd.sent_error = true;
                    dd.attempts = 0;
                    dd.run_on_output = !dd.posted;
                    event::TIMEOUT_PARTIAL
                }
                1 => {
                    self.live[k].failure = true;
                    self.fail_marks.push_back((false, key));
                    let msg = self.tlp_out(&d, true, true, false);
                    self.ratchet(k, 3);
                    self.master_copies(msg, d.sidx);
                    self.next_round(k, Some(msg));
                    event::TIMEOUT_MASTER
                }
                2 if !master && d.attempts < self.retry_limit => {
                    let msg = self.tlp_out(&d, false, d.sent_error, true);
                    self.out_timed(msg, Some((false, key)));
                    let dd = &mut self.live[k];
                    dd.attempts += 1;
                    dd.run_on_output = true;
                    event::RETRY
                }
                2 if !master => {
                    self.live[k].failure = true;
                    self.fail_marks.push_back((false, key));
                    let s = self.st[d.sidx];
                    let msg = CollectiveMsg {
                        kind: Kind::FAILURE,
                        family: Family::Tlp,
                        ctx: key,
                        src: u32::from(self.engine_id),
                        dst: u32::from(s.upstream),
                        pid: NO_PARTICIPANT,
                        dmu_id: s.dmu,
                        count: u32::from(d.attempts),
                        code: reason::TIMEOUT,
                        posted: true,
                        error: true,
                        tid: s.tid,
                        data: [0xffff, 0, 0, 0],
                        ..CollectiveMsg::default()
                    };
                    self.ratchet(k, 3);
                    self.out(msg);
                    self.next_round(k, None);
                    event::RETRY_EXHAUSTED
                }
                _ => return Err(format!("TLP context {key:#06x} expired in state {}", d.state)),
            }
        };
        if e != observed {
            return Err(format!(
                "timer expiry of context {key:#06x}: the CPU reported {}, the reference expects {}",
                event::name(observed),
                event::name(e)
            ));
        }
        Ok(())
    }

    /// The exact timer checks of one cycle (see [`CpuMonitor`]'s observe, step 2b).
    pub(super) fn exact_timers(&mut self, cycle: u64, ready: bool) -> Option<String> {
        for d in &self.live {
            let Some(from) = d.run_from else { continue };
            let pending = self.expiry_pending(from, d.load);
            if ready && cycle >= pending {
                return Some(format!(
                    "context {:#06x} (portals {}): its timer of {} ticks from cycle {from} expired on the tick before cycle {pending} (docs/blocks/cpu.md §Timers), but the CPU is still ready for messages at cycle {cycle}: the expiry is late",
                    d.key, d.portals, d.load
                ));
            }
        }
        None
    }

    /// The decision just made at `base` (a message accepted, or an expiry reported) holds the
    /// sequencer as docs/blocks/cpu.md §Sequencer timing states: its EMIT list is `items`, `hold` says
    /// where the paths other than a decision in EXEC (a drop, or EMIT of one reply) leave it.
    pub(super) fn plan(&mut self, base: u64, why: &'static str) {
        let items = std::mem::take(&mut self.items);
        let hold = self.hold.take();
        let why = self.hold_why.take().unwrap_or(why);
        let (hold, why) = match hold {
            Some(h @ Hold::Idle(_)) => (h, "combine"),
            Some(h) => (h, why),
            None if !items.is_empty() => (Hold::Emit(EXEC_DONE), why),
            None => (Hold::Idle(EXEC_DONE), "exec"),
        };
        self.seq_why = why;
        self.seq_stalled = false;
        self.seq = match hold {
            Hold::Idle(n) => Seq::Until(base + n),
            Hold::Emit(n) => Seq::Emit { turn: base + n, items },
        };
    }

    /// One cycle of the documented sequencer (docs/blocks/cpu.md §Timing), with `out_free` = the output register
    /// empty or taken on this cycle (`!m_msg_valid || m_msg_ready`) and `out_held` = it holds a message
    /// (`m_msg_valid`): the sequencer is idle only once it is empty (§Timing "Output register"). Returns
    /// whether EMIT wrote a message into the output register on this cycle (it must appear on `m_msg`
    /// on the next one).
    pub(super) fn seq_step(&mut self, cycle: u64, out_free: bool, out_held: bool) -> bool {
        let mut wrote = false;
        if let Seq::Emit { turn, items } = &mut self.seq {
            if cycle >= *turn {
                match items.front() {
                    None => self.seq = Seq::Until(cycle + EMIT_TAIL),
                    Some(false) => {
                        items.pop_front();
                        *turn = cycle + 1;
                    }
                    Some(true) => {
                        if out_free {
                            items.pop_front();
                            wrote = true;
                        } else {
                            self.seq_stalled = true;
                        }
                        *turn = cycle + 1;
                    }
                }
            }
        }
        if let Seq::Until(u) = self.seq {
            if cycle >= u && out_held {
                // Idle only once the output register is empty: the emission's last message is stalled.
                self.seq_stalled = true;
            } else if cycle >= u {
                self.seq = Seq::Idle;
            }
        }
        wrote
    }

    /// The documented sequencer is idle at `cycle`: it takes the first pending expiry, to be reported
    /// two cycles later (docs/blocks/cpu.md §Timers); `ready` is the CPU's `s_msg_ready`. Returns an error if the CPU
    /// is ready with a busy documented sequencer.
    pub(super) fn seq_take(&mut self, cycle: u64, ready: bool, was_idle: bool) -> Result<(), String> {
        if self.seq != Seq::Idle {
            if ready {
                return Err(format!(
                    "the CPU is ready for messages at cycle {cycle}, but the sequencer is busy ({}, {:?}) by the timing of docs/blocks/cpu.md §Timing: the sequencer is early",
                    self.seq_why, self.seq
                ));
            }
            return Ok(());
        }
        let pending = self.live.iter().filter_map(|d| d.run_from.map(|from| self.expiry_pending(from, d.load))).filter(|&p| p <= cycle).min();
        let label = match pending {
            Some(p) if p == cycle && was_idle => "timeouts_exact",
            Some(_) => match self.seq_why {
                "exec" => "timeouts_exact_after_exec",
                "combine" => "timeouts_exact_after_combine",
                "expiry" => "timeouts_exact_after_expiry",
                "relay" => "timeouts_exact_after_relay",
                _ if self.seq_stalled => "timeouts_exact_after_stalled_emission",
                _ => "timeouts_exact_after_emission",
            },
            // An expiry pending that no running timer of the reference explains (a timer stopped by
            // the decision in flight after it expired, docs/blocks/cpu.md §Timing): reported exactly two cycles
            // later too, its cycle checked "not early" by `expiry`.
            None if !ready => "timeouts_unpredicted",
            None => return Ok(()),
        };
        self.seq = Seq::Expire(cycle + 2);
        self.seq_label = label;
        Ok(())
    }

    /// Every running timer must have expired by its deadline plus the time the sequencer may need to
    /// get to it: the event in progress and the other expired descriptors first (each at most
    /// [`OVERDUE_PER_EVENT`] cycles), and every cycle the output was stalled meanwhile.
    pub(super) fn overdue(&mut self, cycle: u64, stalled: bool) -> Option<String> {
        let tick = u64::from(self.p.tick_cycles);
        let slack = ((self.p.descriptors * inswitch_model::cpu::REDUCTIONS) as u64 + 1) * OVERDUE_PER_EVENT;
        self.live.iter_mut().find_map(|d| {
            let from = d.run_from?;
            let deadline = from + u64::from(d.load.max(1)) * tick + 2;
            if cycle > deadline && stalled {
                d.stalls_after += 1;
            }
            (cycle > deadline + slack + d.stalls_after).then(|| {
                format!(
                    "context {:#06x} (portals {}) armed with a timeout of {} ticks, timer running since cycle {from}, is neither complete nor expired at cycle {cycle}",
                    d.key, d.portals, d.load
                )
            })
        })
    }
}
