//! The table-arithmetic stand-in ([`super::EngineKind::TableArithmetic`]): zero-time fan-out by role,
//! for the serialization-only reproduction of Table 1.

use inswitch_frames::collective::{CollectiveMessage, NO_PARTICIPANT};

use super::fabric::{EngineSlot, Ev, Fabric, StandInCtx};
use crate::setup::{Plan, Role};
use crate::topology::Ps;
use crate::wire;

impl Fabric {
    /// The stand-in's zero-time fan-out (serialization-only arithmetic).
    pub(super) fn stand_in(&mut self, sw: usize, t: Ps, m: &CollectiveMessage, from: u16) {
        let EngineSlot::StandIn(si) = &mut self.engines[sw] else { return };
        let id = si.id;
        let cc = m.header.cc_id;
        let Some(c) = si.ctx.get_mut(&cc) else { return };
        let mut out: Vec<(u16, CollectiveMessage)> = Vec::new();
        let copies = |c: &StandInCtx, m: &CollectiveMessage| -> Vec<(u16, CollectiveMessage)> {
            c.members
                .iter()
                .enumerate()
                .map(|(bit, &(dev, _))| {
                    let mut x = m.clone();
                    x.header.p_id = bit as u16;
                    (dev, x)
                })
                .collect()
        };
        match m.header.kind {
            3 => {
                c.upstream = from;
                c.pending = c.p_count;
                out = copies(c, m);
            }
            4 | 5 if c.pending > 0 => {
                c.pending -= 1;
                if c.pending == 0 {
                    if c.role == Some(Role::Master) {
                        let done = wire::data(6, cc, 0, 3, c.p_count as u16);
                        out = copies(c, &done);
                        out.push((c.upstream, wire::data(6, cc, NO_PARTICIPANT, 3, c.p_count as u16)));
                    } else {
                        out.push((c.upstream, wire::data(5, cc, NO_PARTICIPANT, 0, c.p_count as u16)));
                    }
                    c.pending = c.p_count;
                }
            }
            6 => out = copies(c, m),
            _ => {}
        }
        for (dst, msg) in out {
            let seq = self.next_seq();
            let f = self.new_frame(wire::message_frame(&msg, id, dst, seq), id);
            let (h, tl) = self.traverse(self.from_engine[sw], f, t, t);
            self.push(h, Ev::AtSwitch { f, sw: sw as u32, head: h, tail: tl });
        }
    }

    /// The stand-in engines learn the contexts of `plan` directly (their roles, members and fan-out;
    /// cycle engines are configured through their ports, `crate::drive::configure`).
    pub fn configure_stand_ins(&mut self, plan: &Plan) {
        for s in 0..self.engines.len() {
            if let EngineSlot::StandIn(si) = &mut self.engines[s] {
                for c in &plan.contexts {
                    for ec in c.engines.iter().filter(|ec| ec.switch == s) {
                        let members: Vec<(u16, bool)> = ec.members.iter().map(|m| (m.id, m.switch)).collect();
                        let p_count = members.len();
                        si.ctx.insert(c.cc_id, StandInCtx { role: Some(ec.role), members, upstream: 0, pending: p_count, p_count });
                    }
                }
            }
        }
    }
}
