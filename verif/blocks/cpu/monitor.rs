//! The CPU's independent scoreboard: the [`Reference`] plus the output-protocol checks and coverage.

use super::*;

/// Independent scoreboard of the CPU: the [`Reference`] plus output-protocol checks and coverage.
pub struct CpuMonitor {
    events: crate::cross::Cross,
    rf: Reference,
    log: TransactionLog,
    /// The output message on display last cycle, if not yet taken (it must be held).
    held: Option<CollectiveMsg>,
    /// The last cycle the documented sequencer wrote a message into the output register.
    wrote: Option<u64>,
}

impl CpuMonitor {
    /// A scoreboard for an instance with parameters `p`.
    pub fn new(p: CpuParams) -> Self {
        CpuMonitor { events: event_cross::new(), rf: Reference::new(p), log: TransactionLog::default(), held: None, wrote: None }
    }

    fn describe(m: &CollectiveMsg) -> String {
        format!(
            "kind {} fam {:?} ctx {:#06x} src {:#x} dst {:#x} pid {:#x} count {} code {} tid {} seq {}/{} vni {:#x} op {:#04x} rc {} err {} retry {} posted {} data[0] {:#x}",
            m.kind.0, m.family, m.ctx, m.src, m.dst, m.pid, m.count, m.code, m.tid, m.seqno, m.resno, m.vni, m.op, m.rc, m.error, m.retry, m.posted, m.data[0]
        )
    }
}

impl Monitor<CpuIn, CpuOut> for CpuMonitor {
    fn observe(&mut self, cycle: u64, i: &CpuIn, o: &CpuOut) -> Result<(), String> {
        if i.rst {
            self.rf.reset();
            self.rf.last_reset = cycle;
            self.rf.cov.bump("resets");
            self.held = None;
            self.wrote = None;
            return Ok(());
        }
        // 1. The event pulse.
        if o.stat_valid {
            let name = event::name(o.stat_event);
            self.rf.cov.bump(name);
            if let Some(e) = event_cross::event(o.stat_event) {
                let key = if o.stat_family { o.stat_ctx & 0x1fff } else { o.stat_ctx & 0xfff };
                let entry = self.rf.st.iter().find(|s| s.valid && s.portals == o.stat_family && s.key == key);
                let role = match entry.map(|s| s.role) {
                    None => Some(2),
                    Some(r @ (0 | 1)) => Some(usize::from(r)),
                    Some(_) => None,
                };
                if let Some(role) = role {
                    self.events.hit(&[e, role, usize::from(o.stat_family)]);
                }
            }
            self.log.push(cycle, format!("event {name} ctx {:#06x} portals {}", o.stat_ctx, o.stat_family));
            let expiry = matches!(
                o.stat_event,
                event::TIMEOUT_PARTIAL | event::TIMEOUT_EMPTY | event::TIMEOUT_MASTER | event::RETRY | event::RETRY_EXHAUSTED
            );
            match self.rf.events.pop_front() {
                Some(want) => {
                    if want != (o.stat_event, o.stat_family, o.stat_ctx) {
                        return Err(format!(
                            "event {name} ctx {:#06x} (portals {}), the reference expects {} ctx {:#06x} (portals {})",
                            o.stat_ctx,
                            o.stat_family,
                            event::name(want.0),
                            want.2,
                            want.1
                        ));
                    }
                }
                None if expiry => {
                    // docs/blocks/cpu.md §Timers, §Timing: reported exactly two cycles after the documented sequencer took it.
                    if self.rf.seq != Seq::Expire(cycle) {
                        return Err(format!(
                            "{name} of context {:#06x} reported at cycle {cycle}, but the documented sequencer (docs/blocks/cpu.md §Timers, §Timing) has taken no expiry to report on this cycle ({}, {:?}): the expiry is early",
                            o.stat_ctx, self.rf.seq_why, self.rf.seq
                        ));
                    }
                    self.rf.cov.bump(self.rf.seq_label);
                    if self.rf.seq_label != "timeouts_exact" && self.rf.seq_label != "timeouts_unpredicted" {
                        self.rf.cov.bump("timeouts_exact_busy");
                    }
                    self.rf.expiry(cycle, o.stat_family, o.stat_ctx, o.stat_event)?;
                    self.rf.plan(cycle, "expiry");
                }
                None => return Err(format!("event {name} ctx {:#06x} with no message to explain it", o.stat_ctx)),
            }
            // The FAILURE status register changes with the event that set a Failure flag.
            while let Some((fam, ctx)) = self.rf.fail_marks.pop_front() {
                let f = &mut self.rf.fail;
                *f = (true, fam, ctx, f.3.saturating_add(1));
                self.rf.cov.bump("failure_status_set");
            }
        }
        let got = (o.fail_valid, o.fail_family, o.fail_ctx, o.fail_count);
        if got != self.rf.fail {
            return Err(format!("FAILURE status {got:?}, the reference expects {:?} (valid, family, ctx, count)", self.rf.fail));
        }
        // 1b. An expiry the documented sequencer took is reported on its cycle.
        if let Seq::Expire(due) = self.rf.seq {
            if cycle >= due {
                return Err(format!(
                    "the sequencer took an expiry at cycle {} ({}: {}), but none was reported at cycle {due}: the expiry is late",
                    due - 2,
                    self.rf.seq_label,
                    if self.rf.seq_label == "timeouts_exact" { "idle".to_string() } else { format!("after {}", self.rf.seq_why) }
                ));
            }
        }
        // 2. Outgoing messages: compared when they appear, held until taken.
        if o.m_msg_valid {
            let m = o.msg();
            match self.held {
                Some(h) if h != m => return Err(format!("m_msg changed while not taken: {} became {}", Self::describe(&h), Self::describe(&m))),
                Some(_) => {}
                None => {
                    let want = self.rf.outs.pop_front().ok_or_else(|| format!("unexpected message out: {}", Self::describe(&m)))?;
                    // docs/blocks/cpu.md §Timing: EMIT writes it into the output register the cycle before.
                    if self.wrote != Some(cycle - 1) {
                        return Err(format!(
                            "message out at cycle {cycle}, but the documented sequencer (docs/blocks/cpu.md §Timing) wrote none on cycle {} (last at {:?}, {:?})",
                            cycle - 1,
                            self.wrote,
                            self.rf.seq
                        ));
                    }
                    if want.msg != m {
                        return Err(format!("message out:\n      {}\n    the reference expects:\n      {}", Self::describe(&m), Self::describe(&want.msg)));
                    }
                    if let Some((portals, key)) = want.starts_timer {
                        if let Some(k) = self.rf.find_live(portals, key) {
                            let d = &mut self.rf.live[k];
                            if d.run_on_output {
                                // FINISH reloads the timer the cycle after next; a paused one stays put.
                                d.run_on_output = false;
                                d.stalls_after = 0;
                                if d.paused {
                                    d.paused_since_load = true;
                                } else {
                                    d.run_from = Some(cycle + 2);
                                }
                            }
                        }
                    }
                    self.rf.cov.bump("messages_out");
                    self.log.push(cycle, format!("out {}", Self::describe(&m)));
                }
            }
            self.held = if i.m_msg_ready { None } else { Some(m) };
            if !i.m_msg_ready {
                self.rf.cov.bump("stall_cycles");
            }
        } else if self.held.is_some() {
            return Err("m_msg_valid fell before the message was taken".to_string());
        }
        // 2b. Exact timers (docs/blocks/cpu.md §Timers "Exact expiry"): from the cycle a running timer's expiry is
        // pending, the CPU may not be ready (an expiry blocks new messages); if the sequencer is seen
        // idle the cycle before, it takes the expiry at once and reports it two cycles later.
        let was_idle = self.rf.seq == Seq::Idle;
        if self.rf.seq_step(cycle, !o.m_msg_valid || i.m_msg_ready) {
            self.wrote = Some(cycle);
        }
        self.rf.seq_take(cycle, o.s_msg_ready, was_idle)?;
        if let Some(e) = self.rf.exact_timers(cycle, o.s_msg_ready) {
            return Err(e);
        }
        // 3. An accepted message.
        if i.s_msg_valid && o.s_msg_ready {
            let m = i.msg();
            self.rf.cov.bump("messages_in");
            self.rf.cov.bump(if m.family == Family::Portals { "portals_in" } else { "tlp_in" });
            self.log.push(cycle, format!("in  {}", Self::describe(&m)));
            self.rf.message(cycle, &m);
            self.rf.plan(cycle, "emission");
        }
        // 4. Configuration.
        if i.cfg_wr_en {
            self.rf.cov.bump("cfg_writes");
            self.rf.write(i.cfg_wr_addr, i.cfg_wr_data);
        }
        // 5. No timer may be overdue.
        if let Some(e) = self.rf.overdue(cycle, o.m_msg_valid && !i.m_msg_ready) {
            return Err(e);
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v = self.rf.cov.counts.clone();
        v.push(("max_live_descriptors", self.rf.cov.max_live));
        v.sort_by_key(|(k, _)| *k);
        v
    }

    fn cross(&self) -> Vec<crate::cross::Cross> {
        vec![self.events.clone()]
    }
}
