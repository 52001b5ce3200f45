//! The input checker's independent transaction-level scoreboard.

use std::collections::VecDeque;

use inswitch_model::input_checker::{event, InputCheckerIn, InputCheckerOut, RegAccess, RequestFields};
use inswitch_model::message::Family;

use crate::checker::{Monitor, Transaction, TransactionLog};

use super::coverage::{counter, verdict_cross, COUNTER_NAMES};
use super::reference::{Expect, Labels, UrExpect, ENCAP_FLIT_LABEL, ENCAP_LABEL, ENCAP_REGW_LABEL, FLIT_LABEL, LONG_CONFIG_LABEL, RESERVED_FLAG_LABEL};

/// Adv edges (cycles with `s_axis_tready` high) from the one that takes a frame's last beat to the one
/// that loads its verdict, written from docs/blocks/input_checker.md §Timing (stages A, B, C, D): the
/// pulse is on `stat_event` in the cycle after the last of them, 4 cycles after the last beat when no
/// output stalls.
pub const VERDICT_EDGES: u32 = 4;

/// Independent transaction-level scoreboard of the input checker.
pub struct InputCheckerMonitor {
    /// The verdict cross, and this instance's width bin.
    verdicts: crate::cross::Cross,
    width_bin: Option<usize>,
    /// `tuser[8]` of the frame in progress.
    in_frame_portals: bool,
    labels: Labels,
    in_frame: Option<(Expect, String, UrExpect)>,
    /// Frames whose last beat was taken, oldest first, with their `tuser[8]` and the adv edges still
    /// ahead of their verdict: the one at 0 has its pulse due now.
    in_flight: VecDeque<(Expect, String, UrExpect, bool, u32)>,
    reg_pending: bool,
    msg_pending: bool,
    ur_pending: bool,
    events: [u64; event::COUNT as usize],
    log: TransactionLog,
    counts: [u64; COUNTER_NAMES.len()],
}

impl InputCheckerMonitor {
    /// A scoreboard reading the expected outcomes from `labels`.
    pub fn new(labels: Labels) -> Self {
        InputCheckerMonitor::with_width(labels, 0)
    }

    /// A scoreboard of a checker `data_width` bits wide (the width bin of the verdict cross).
    pub fn with_width(labels: Labels, data_width: usize) -> Self {
        InputCheckerMonitor {
            verdicts: verdict_cross::new(),
            width_bin: verdict_cross::width(data_width),
            in_frame_portals: false,
            labels, in_frame: None, in_flight: VecDeque::new(), reg_pending: false, msg_pending: false, ur_pending: false, events: [0; event::COUNT as usize], log: TransactionLog::default(), counts: [0; COUNTER_NAMES.len()] }
    }

    fn bump(&mut self, name: &'static str) {
        let i = COUNTER_NAMES.iter().position(|&n| n == name).unwrap_or(0);
        self.counts[i] += 1;
    }

    /// Frames per outcome event, by [`event`] bit.
    pub fn events(&self) -> &[u64] {
        &self.events
    }
}

impl Monitor<InputCheckerIn, InputCheckerOut> for InputCheckerMonitor {
    fn observe(&mut self, cycle: u64, i: &InputCheckerIn, o: &InputCheckerOut) -> Result<(), String> {
        // The verdict of the frame whose last pipeline edge was last cycle.
        let ev = o.stat_event;
        let due = if self.in_flight.front().is_some_and(|f| f.4 == 0) { self.in_flight.pop_front() } else { None };
        match due {
            None if ev != 0 => return Err(format!("stat_event {ev:#x} with no verdict due")),
            None => {}
            Some((expect, what, ur, due_portals, _)) => {
                if ev.count_ones() != 1 {
                    return Err(format!("frame '{what}': stat_event {ev:#x} is not one pulse"));
                }
                let bit = ev.trailing_zeros();
                self.events[bit as usize] += 1;
                if let Some(w) = self.width_bin {
                    self.verdicts.hit(&[bit as usize, usize::from(due_portals), w]);
                }
                let name = event::NAMES.get(bit as usize).copied().unwrap_or("?");
                match &expect {
                    Expect::Drop(r) if *r != bit => return Err(format!("frame '{what}': outcome {name}, expected drop {}", event::NAMES[*r as usize])),
                    Expect::AnyDrop if bit < 2 => return Err(format!("frame '{what}': random bytes accepted ({name})")),
                    Expect::Reg(a) => {
                        let got = RegAccess { write: o.m_reg_write, addr: o.m_reg_addr, be: o.m_reg_be, wdata: o.m_reg_wdata, src: o.m_reg_src, tag: o.m_reg_tag };
                        if bit != event::ACCEPT_REG || !o.m_reg_valid || got != *a {
                            return Err(format!("frame '{what}': outcome {name}, register access {got:x?} (valid {}), expected {a:x?}", o.m_reg_valid));
                        }
                        if self.reg_pending {
                            return Err("a register access replaced one not yet taken".into());
                        }
                        self.reg_pending = true;
                    }
                    Expect::Config(left) => {
                        if bit != event::ACCEPT_REG || !left.is_empty() {
                            return Err(format!("frame '{what}': outcome {name} with {} of its configuration writes not seen, expected accept_reg after all", left.len()));
                        }
                        self.bump(counter::CONFIG_ACCEPTED);
                        if what.starts_with(FLIT_LABEL) {
                            self.bump(counter::FLIT_CONFIG_ACCEPTED);
                        }
                        // The label goes on with the frame's size ("... (long) (334 bytes)").
                        if what.contains(LONG_CONFIG_LABEL) {
                            self.bump(counter::LONG_CONFIG_ACCEPTED);
                        }
                    }
                    Expect::Msg(m) => {
                        if bit != event::ACCEPT_MSG || !o.m_msg_valid || o.msg() != *m {
                            return Err(format!("frame '{what}': outcome {name}, message {:x?} (valid {}), expected {m:x?}", o.msg(), o.m_msg_valid));
                        }
                        if self.msg_pending {
                            return Err("a message replaced one not yet taken".into());
                        }
                        self.msg_pending = true;
                        if m.family == Family::Tlp && m.tid != 0 {
                            self.bump(counter::TID_NONZERO);
                        }
                    }
                    _ => {
                        self.bump(counter::DROPS);
                        if what.starts_with(RESERVED_FLAG_LABEL) {
                            self.bump(counter::RESERVED_FLAG_DROPS);
                        }
                    }
                }
                if what.starts_with(FLIT_LABEL) {
                    self.bump(if bit <= event::ACCEPT_MSG { counter::FLIT_ACCEPTED } else { counter::FLIT_DROPS });
                }
                // Kind 10: applied (all its writes seen, checked above) or dropped for a defect of the
                // encapsulation (coll_config), not counting frames too long for the capture.
                let encap_config = what.starts_with(ENCAP_LABEL) && !what.starts_with(ENCAP_REGW_LABEL);
                if encap_config && (bit == event::ACCEPT_REG || bit == event::COLL_CONFIG) {
                    self.bump(if bit == event::ACCEPT_REG { counter::ENCAP_ACCEPTED } else { counter::ENCAP_DROPS });
                }
                // Kind 10 payload type 2: the one register write (checked above) or a defect's drop.
                if what.starts_with(ENCAP_REGW_LABEL) && (bit == event::ACCEPT_REG || bit == event::COLL_CONFIG) {
                    self.bump(if bit == event::ACCEPT_REG { counter::ENCAP_REGW_ACCEPTED } else { counter::ENCAP_REGW_DROPS });
                }
                if what.starts_with(ENCAP_FLIT_LABEL) && bit == event::ACCEPT_REG {
                    self.bump(counter::ENCAP_FLIT_ACCEPTED);
                }
                // Kind 10 for another engine: the message to the CPU (its fields checked above).
                if what.starts_with(ENCAP_LABEL) && bit == event::ACCEPT_MSG {
                    self.bump(counter::ENCAP_RELAYED);
                }
                let got = RequestFields {
                    src: o.m_ur_src,
                    tag: o.m_ur_tag,
                    tc: o.m_ur_tc,
                    attr: o.m_ur_attr,
                    mem_read: o.m_ur_mem_read,
                    locked: o.m_ur_locked,
                    length: o.m_ur_length,
                    first_be: o.m_ur_first_be,
                    last_be: o.m_ur_last_be,
                    addr: o.m_ur_addr,
                };
                match &ur {
                    UrExpect::None => {}
                    UrExpect::Request(u) => {
                        if self.ur_pending || !o.m_ur_valid || got != *u {
                            return Err(format!("frame '{what}': Unsupported Request {got:x?} (valid {}, one pending {}), expected {u:x?}", o.m_ur_valid, self.ur_pending));
                        }
                        self.ur_pending = true;
                    }
                    UrExpect::Any => {
                        if o.m_ur_valid && !self.ur_pending {
                            self.ur_pending = true;
                        }
                    }
                }
                self.log.push(cycle, format!("{what}: {name}{}", if matches!(ur, UrExpect::Request(_)) { " + Unsupported Request" } else { "" }));
            }
        }
        // A register access on the output that no pulse announced: the next write of the configuration
        // message whose verdict is due next (it holds the pipeline until its writes are out, docs
        // §Configuration messages).
        if o.m_reg_valid && !self.reg_pending {
            let front = self.in_flight.front_mut().filter(|f| f.4 <= 1);
            let Some((Expect::Config(left), what, ..)) = front else {
                return Err(format!("register access {:x?} with no accepted frame or configuration message due", o.m_reg_addr));
            };
            let got = RegAccess { write: o.m_reg_write, addr: o.m_reg_addr, be: o.m_reg_be, wdata: o.m_reg_wdata, src: o.m_reg_src, tag: o.m_reg_tag };
            match left.pop_front() {
                Some(want) if want == got => {}
                want => return Err(format!("frame '{what}': configuration write {got:x?}, expected {want:x?}")),
            }
            self.reg_pending = true;
            self.bump(counter::CONFIG_WRITES);
        }
        if o.m_reg_valid != self.reg_pending || o.m_msg_valid != self.msg_pending {
            return Err(format!("output valid (reg {}, msg {}) without an accepted frame (reg {}, msg {})", o.m_reg_valid, o.m_msg_valid, self.reg_pending, self.msg_pending));
        }
        if o.m_ur_valid != self.ur_pending {
            return Err(format!("Unsupported Request valid {} with {} expected", o.m_ur_valid, u8::from(self.ur_pending)));
        }
        if o.m_ur_valid && i.m_ur_ready {
            self.ur_pending = false;
            self.bump(counter::UR_OUT);
        }
        if o.m_reg_valid && i.m_reg_ready {
            self.reg_pending = false;
            self.bump(counter::REG_OUT);
        }
        if o.m_msg_valid && i.m_msg_ready {
            self.msg_pending = false;
            self.bump(counter::MSG_OUT);
        }
        if i.s_axis_tvalid && !o.s_axis_tready && !i.rst {
            self.bump(counter::REFUSED);
        }
        // The pipeline moves on every cycle tready is high (all outputs free), and only then.
        if o.s_axis_tready {
            for f in self.in_flight.iter_mut() {
                f.4 = f.4.saturating_sub(1);
            }
        }
        if i.s_axis_tvalid && o.s_axis_tready {
            self.bump(counter::BEATS);
            if self.in_frame.is_none() {
                self.in_frame = Some(self.labels.borrow_mut().pop_front().ok_or("a frame started with no label")?);
                self.in_frame_portals = i.s_axis_tuser >> 8 & 1 != 0;
            }
            if i.s_axis_tlast {
                self.bump(counter::FRAMES);
                if let Some((expect, what, ur)) = self.in_frame.take() {
                    self.in_flight.push_back((expect, what, ur, self.in_frame_portals, VERDICT_EDGES - 1));
                }
            }
        }
        if i.rst {
            self.bump(counter::RESETS);
            self.in_frame = None;
            self.in_flight.clear();
            self.reg_pending = false;
            self.msg_pending = false;
            self.ur_pending = false;
            self.log.push(cycle, "reset".into());
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v: Vec<(&'static str, u64)> = COUNTER_NAMES.iter().copied().zip(self.counts).collect();
        v.extend(event::NAMES.iter().copied().zip(self.events));
        v
    }

    fn cross(&self) -> Vec<crate::cross::Cross> {
        vec![self.verdicts.clone()]
    }
}
