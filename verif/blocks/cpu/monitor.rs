//! The CPU's independent scoreboard: the [`Reference`] plus the output-protocol checks and coverage.

use inswitch_model::cpu::{
    event, CpuIn, CpuOut, CpuParams,
};
use inswitch_model::message::CollectiveMsg;

use crate::checker::{Monitor, Transaction, TransactionLog};

use super::coverage::event_cross;
use super::reference::{Reference};

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
            self.rf.reset_at(cycle);
            self.held = None;
            self.wrote = None;
            return Ok(());
        }
        // 1. The event pulse.
        if o.stat_valid {
            let name = event::name(o.stat_event);
            self.rf.bump(name);
            if let Some(e) = event_cross::event(o.stat_event) {
                let key = if o.stat_family { o.stat_ctx & 0x1fff } else { o.stat_ctx & 0xfff };
                let role = match self.rf.role_of(o.stat_family, key) {
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
            match self.rf.next_event() {
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
                // docs/blocks/cpu.md §Timers, §Timing: reported exactly two cycles after the documented sequencer took it.
                None if expiry => self.rf.reported_expiry(cycle, o.stat_family, o.stat_ctx, o.stat_event)?,
                None => return Err(format!("event {name} ctx {:#06x} with no message to explain it", o.stat_ctx)),
            }
            // The FAILURE status register changes with the event that set a Failure flag.
            self.rf.fail_status_after_event();
        }
        let got = (o.fail_valid, o.fail_family, o.fail_ctx, o.fail_count);
        if got != self.rf.fail_status() {
            return Err(format!("FAILURE status {got:?}, the reference expects {:?} (valid, family, ctx, count)", self.rf.fail_status()));
        }
        // 1b. An expiry the documented sequencer took is reported on its cycle.
        self.rf.expiry_not_late(cycle)?;
        // 2. Outgoing messages: compared when they appear, held until taken.
        if o.m_msg_valid {
            let m = o.msg();
            match self.held {
                Some(h) if h != m => return Err(format!("m_msg changed while not taken: {} became {}", Self::describe(&h), Self::describe(&m))),
                Some(_) => {}
                None => {
                    let want = self.rf.next_out().ok_or_else(|| format!("unexpected message out: {}", Self::describe(&m)))?;
                    // docs/blocks/cpu.md §Timing: EMIT writes it into the output register the cycle before.
                    if self.wrote != Some(cycle - 1) {
                        return Err(format!(
                            "message out at cycle {cycle}, but the documented sequencer (docs/blocks/cpu.md §Timing) wrote none on cycle {} (last at {:?}, {:?})",
                            cycle - 1,
                            self.wrote,
                            self.rf.sequencer()
                        ));
                    }
                    if want.msg != m {
                        return Err(format!("message out:\n      {}\n    the reference expects:\n      {}", Self::describe(&m), Self::describe(&want.msg)));
                    }
                    self.rf.out_shown(cycle, &want);
                    self.log.push(cycle, format!("out {}", Self::describe(&m)));
                }
            }
            self.held = if i.m_msg_ready { None } else { Some(m) };
            if !i.m_msg_ready {
                self.rf.bump("stall_cycles");
            }
        } else if self.held.is_some() {
            return Err("m_msg_valid fell before the message was taken".to_string());
        }
        // 2b. Exact timers (docs/blocks/cpu.md §Timers "Exact expiry"): from the cycle a running timer's expiry is
        // pending, the CPU may not be ready (an expiry blocks new messages); if the sequencer is seen
        // idle the cycle before, it takes the expiry at once and reports it two cycles later.
        if self.rf.cycle(cycle, !o.m_msg_valid || i.m_msg_ready, o.m_msg_valid, o.s_msg_ready)? {
            self.wrote = Some(cycle);
        }
        // 3. An accepted message.
        if i.s_msg_valid && o.s_msg_ready {
            let m = i.msg();
            self.log.push(cycle, format!("in  {}", Self::describe(&m)));
            self.rf.accept(cycle, &m);
        }
        // 4. Configuration.
        if i.cfg_wr_en {
            self.rf.configure(cycle, i.cfg_wr_addr, i.cfg_wr_data);
        }
        // 5. No timer may be overdue.
        self.rf.check_overdue(cycle, o.m_msg_valid && !i.m_msg_ready)
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.rf.counters()
    }

    fn cross(&self) -> Vec<crate::cross::Cross> {
        vec![self.events.clone()]
    }
}
