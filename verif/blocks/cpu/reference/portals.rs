//! The reference's Soft Portals messages (002: ARM, contribution, RESPONSE on a tree's reduction id; docs/blocks/cpu.md
//! §Messages): an `impl Reference` of its own, beside the TLP family's in the parent.

use super::*;

impl Reference {
    pub(super) fn portals_message(&mut self, cycle: u64, m: &CollectiveMsg) -> u8 {
        let live = self.find_live(true, m.ctx);
        match m.kind {
            Kind::ARM => {
                let Some(si) = self.find_static(m) else { return event::DROP_UNKNOWN };
                if m.seqno == SEQNO_RESERVED {
                    return event::BAD_SEQNO_ARM;
                }
                let s = self.st[si];
                let d = RDesc {
                    portals: true,
                    key: m.ctx,
                    sidx: si,
                    role: s.role,
                    state: 0,
                    failure: false,
                    paused: false,
                    pbv: 0,
                    pcount: 0,
                    count: 0,
                    wait: s.wait,
                    init: None,
                    accepted: Vec::new(),
                    vni: m.vni,
                    cookie: m.cookie,
                    seqno: m.seqno,
                    dst: m.dst,
                    port: m.port,
                    posted: false,
                    attempts: 0,
                    sent_error: false,
                    kept: None,
                    load: self.load(s.wait, s.role),
                    run_from: Some(cycle + EXEC_DONE), // from the cycle after EXEC (§Timers)
                    run_on_output: false,
                    paused_since_load: false,
                    stalls_after: 0,
                };
                if let Some(k) = live {
                    // 002 (71), docs/blocks/cpu.md §Messages: only a newer seqno (forward distance 1..=511 modulo
                    // 1023) re-arms; a duplicated or older arm leaves the reduction running.
                    let ahead = (m.seqno + 1023 - self.live[k].seqno) % 1023;
                    if !(1..=511).contains(&ahead) {
                        return event::STALE_ARM;
                    }
                    self.live[k] = d;
                    event::REARM
                } else if self.has_room(true, m.ctx) {
                    self.live.push(d);
                    self.cov.live(self.live.len());
                    event::ARM
                } else {
                    event::ARM_NO_DESC
                }
            }
            Kind::CONTRIBUTION => {
                let Some(k) = live else {
                    self.out(*m);
                    return event::PASS_UP;
                };
                let d = &self.live[k];
                if m.vni != d.vni {
                    return event::DROP_VNI;
                }
                if m.cookie != d.cookie {
                    return event::DROP_COOKIE;
                }
                if m.seqno != d.seqno {
                    return event::DROP_SEQNO;
                }
                let c = contribution(m);
                let dd = &mut self.live[k];
                dd.count = (dd.count + m.count).min(COUNT_MAX);
                dd.accepted.push(c);
                if dd.state == 0 {
                    dd.state = 1;
                    self.cov.transition(0);
                }
                self.cov.op(m.op);
                // docs/blocks/cpu.md §Timing: the first contribution is stored (CHECK next), later ones combined.
                let check = if self.live[k].accepted.len() == 1 { CHECK_AFTER_STORE } else { CHECK_AFTER_COMBINE };
                self.hold = Some(Hold::Idle(check + 1));
                if self.live[k].count >= self.live[k].wait {
                    self.complete(k, cycle);
                }
                event::ACCEPT
            }
            _ => event::BAD_KIND,
        }
    }
}
