//! The end nodes: what they contribute and when (on command, automatically, again on a retry
//! timer), node-level pre-reduction and targets of several roots (003), and the source's commands
//! (START, CONTROL, a new INITIALIZATION round).

use inswitch_frames::collective::{Body, CollectiveMessage};

use super::fabric::{EndCtx, Ev, Fabric, PendingInits, PendingStart, ResultWatch, TargetCtx};
use crate::faults::{Fault, FaultKind};
use crate::setup::{ContextPlan, Role};
use crate::topology::Ps;
use crate::wire::{self, LinkFrame};

/// Latency of the host-local transfer of pre-reduction (003 \[0055\]): a non-representative's operands
/// reach its representative over the host's memory, not the fabric. Modelled as one in-host step of
/// 1 µs (a PCIe peer-to-peer or shared-memory copy of a 32-byte operand block plus its notification),
/// added to the representative's contribution time; the fabric carries no frame for it.
pub const HOST_LOCAL_PS: Ps = 1_000_000;

/// Reduces `items` (operand lanes) with opcode `operation` as the engines' reduction unit does
/// (`inswitch_model::reduce::combine`, associative mode), left to right; empty lanes count as 0.
pub fn fold_operands(operation: u8, items: &[Vec<u64>]) -> Vec<u64> {
    use inswitch_model::reduce::{combine, Contribution, Mode, Opcode, LANES};
    let op = Opcode::from_raw(operation);
    let lanes = |v: &Vec<u64>| {
        let mut d = [0u64; LANES];
        d.iter_mut().zip(v).for_each(|(a, b)| *a = *b);
        Contribution::new(op, d)
    };
    let Some((first, rest)) = items.split_first() else { return Vec::new() };
    let acc = rest.iter().fold(lanes(first), |acc, v| combine(Mode::Associative, &acc, &lanes(v)));
    let width = items.iter().map(Vec::len).max().unwrap_or(0);
    acc.rt_data[..width.min(LANES)].to_vec()
}

impl Fabric {
    /// An end node's reaction to a collective message: remember whom to answer for a command; a
    /// COMPLETION (a result, or "already completed") or a FAILURE ends its pending contribution, except
    /// FAILURE DuplicateContribution, which says it was counted and the round is still open.
    pub(super) fn end_node(&mut self, e: usize, t: Ps, m: &CollectiveMessage, from: u16) {
        let cc = m.header.cc_id;
        // A root's end result for the target of a several-root all-reduce (`target.rs`).
        if m.header.kind == inswitch_model::message::Kind::RESPONSE.0 {
            return self.target_response(e, t, m, from);
        }
        if m.header.kind == inswitch_model::message::Kind::COMPLETION.0 {
            if let Body::Data { fixed, operands } = &m.body {
                if fixed.completion == inswitch_model::cpu::completion::RESULT {
                    self.target_collect(e, t, cc, from, operands);
                }
            }
        }
        match m.header.kind {
            3 => {
                // Only a START asks for a contribution; PAUSE, RESTART, STOP and RESET copies do not.
                if !matches!(&m.body, Body::Control(c) if c.command == 1) {
                    return;
                }
                let auto = self.ends[e].auto;
                let Some(c) = self.ends[e].ctx.get_mut(&cc) else { return };
                c.answer = Some((from, m.header.p_id, m.header.tid));
                // A new command: a contribution of an earlier round is no longer pending.
                c.pending = None;
                if let Some(compute) = auto {
                    let late = self.faults.as_mut().and_then(|x| x.late_delay());
                    self.respond_late(e, cc, t + compute, late);
                }
            }
            6 | 8 => {
                // An acknowledgement (COMPLETION code 5) answers a command, not a contribution: the
                // source's non-posted START, if one waits for it.
                let ack = matches!(&m.body, Body::Data { fixed, .. } if m.header.kind == 6 && fixed.completion == 5);
                if ack {
                    // While INITIALIZATIONs wait for theirs, the START is not sent: an acknowledgement is
                    // an INITIALIZATION's.
                    if self.init_acked(e, cc, from, m.header.p_id, t) {
                        return;
                    }
                    if self.starts.get(&cc).is_some_and(|p| p.source == e && p.master == from && p.sent < t && !p.acked && !p.deferred) {
                        let p = self.starts.get_mut(&cc).expect("checked");
                        match p.watch {
                            // Watch for the result from now on: resend on the watch's timer.
                            Some((after, limit)) => {
                                (p.acked, p.sent, p.after, p.limit, p.attempts) = (true, t, after, limit, 0);
                                self.push(t + after, Ev::StartRetry { cc });
                            }
                            None => {
                                self.starts.remove(&cc);
                            }
                        }
                    }
                    return;
                }
                // The result at the source ends its START's watch.
                let result = matches!(&m.body, Body::Data { fixed, .. } if m.header.kind == 6 && fixed.completion == inswitch_model::cpu::completion::RESULT);
                let watched = self.starts.get(&cc).is_some_and(|p| p.source == e && p.master == from && p.acked);
                if result && self.starts.get(&cc).is_some_and(|p| p.source == e && p.master == from) {
                    self.starts.remove(&cc);
                }
                // FAILURE NothingToResend from the master answers the source's RETRY (`retry_start`): the
                // round is still open, so a START copy may have been lost; the START goes again now (the
                // master replicates it, `CTRL_NOOP`) and the watch's timer restarts. It says nothing of a
                // contribution of this node, which stays pending.
                if watched && matches!(&m.body, Body::Error(x) if m.header.kind == 8 && x.reason == inswitch_model::cpu::reason::NOTHING_TO_RESEND) {
                    self.stats.start_watch_retries += 1;
                    if let Some(p) = self.starts.get_mut(&cc) {
                        p.sent = t;
                    }
                    self.send_start(cc, t);
                    return;
                }
                // A participant's wait for its result (issue 20, `participant_watch`): the result ends
                // it; "already completed" asks the engine for the kept result; NothingToResend (the round
                // open) resends a contribution not known to be counted; DuplicateContribution marks it
                // counted. Either reply to a RETRY says nothing of a pending contribution.
                if self.ends[e].watch.is_some() && self.ends[e].ctx.get(&cc).is_some_and(|c| c.watch.is_some()) && self.participant_reply(e, t, m) {
                    return;
                }
                // FAILURE DuplicateContribution (000 [0143] (a): the participant's PBV bit was already
                // clear): the contribution had arrived, so this retry's answer reads "received" and the
                // retries stop (the round is still open; its result comes down when it completes).
                if matches!(&m.body, Body::Error(x) if x.reason == 2) && self.ends[e].ctx.get(&cc).is_some_and(|c| c.pending.is_some()) {
                    self.stats.duplicate_acks += 1;
                }
                if let Some(c) = self.ends[e].ctx.get_mut(&cc) {
                    c.pending = None;
                }
            }
            _ => {}
        }
    }

    /// A root's end result at end node `e`: stored if `e` is the target of that root's tree; the
    /// target's result is their reduction once every root's has arrived (003 \[0062\]). A second
    /// result of one root (a later round) replaces the first only before the target completes.
    pub(super) fn target_collect(&mut self, e: usize, t: Ps, cc: u16, from: u16, operands: &[u64]) {
        for tc in &mut self.ends[e].targets {
            if tc.result.is_some() {
                continue;
            }
            let Some(r) = tc.roots.iter_mut().find(|r| r.0 == from && r.1 == cc) else { continue };
            r.2 = Some(operands.to_vec());
            if tc.roots.iter().all(|r| r.2.is_some()) {
                let all: Vec<Vec<u64>> = tc.roots.iter().filter_map(|r| r.2.clone()).collect();
                tc.result = Some((t, fold_operands(tc.operation, &all)));
            }
        }
    }

    /// The retry timer of end node `e` for `cc`: the contribution is still unanswered, send it again.
    /// With no contribution pending (answered, or its retries spent), the participant's result watch
    /// ([`Fabric::participant_watch`]) asks for a late result.
    pub(super) fn retry_contribution(&mut self, e: usize, cc: u16, t: Ps) {
        let Some((after, limit)) = self.ends[e].retry else { return self.watch_timer(e, cc, t) };
        let Some(c) = self.ends[e].ctx.get_mut(&cc) else { return };
        let Some((to, pid, tid, operands)) = c.pending.clone() else { return self.watch_timer(e, cc, t) };
        if c.attempts >= limit {
            c.pending = None;
            return self.arm_watch(e, cc, t);
        }
        c.attempts += 1;
        let m = wire::contribution(cc, pid, tid, c.operation, operands);
        self.stats.end_node_retries += 1;
        let seq = self.next_seq();
        let bytes = wire::message_frame(&m, self.topo.endpoints[e].id, to, seq);
        self.send_from(e, t, bytes);
        self.push(t + after, Ev::Retry { e: e as u32, cc });
    }

    /// A participant's reply for its result watch (issue 20): true if `m` was a reply to it (handled).
    /// The result (COMPLETION code 2 / 3, or 6 at a one-target context, first or resent) ends the watch. "Already completed" (code 4,
    /// the round's TID: a contribution reached its engine after the round) asks at once for the kept
    /// result with a RETRY naming the participant (P_ID). FAILURE NothingToResend answers that RETRY
    /// while the round is open: a contribution not known to be counted goes again (its retries
    /// continue); a counted one waits for the timer. DuplicateContribution marks it counted (and ends
    /// its pending contribution, as before: returns false).
    fn participant_reply(&mut self, e: usize, t: Ps, m: &CollectiveMessage) -> bool {
        use inswitch_model::cpu::{completion, reason};
        let cc = m.header.cc_id;
        let Some(c) = self.ends[e].ctx.get_mut(&cc) else { return false };
        let Some(w) = c.watch.as_mut() else { return false };
        match &m.body {
            Body::Data { fixed, .. } if m.header.kind == 6 && matches!(fixed.completion, completion::RESULT | completion::BARRIER_SATISFIED | completion::ROUND_DONE) => {
                c.watch = None;
                false
            }
            Body::Data { fixed, .. } if m.header.kind == 6 && fixed.completion == completion::ALREADY_COMPLETED && m.header.tid == w.tid => {
                c.pending = None;
                // A subservient whose copy of the result was lost got "already completed" from its
                // master and keeps that code, no value: its answer to this RETRY is the same code again,
                // and so are the next ones, up to the limit (`docs/fabric.md` §Goodput: not built).
                self.send_participant_retry(e, cc, t);
                true
            }
            Body::Error(x) if m.header.kind == 8 && x.reason == reason::DUPLICATE => {
                w.counted = true;
                let armed = c.pending.is_some();
                if armed {
                    self.stats.duplicate_acks += 1;
                }
                c.pending = None;
                self.arm_watch(e, cc, t);
                true
            }
            Body::Error(x) if m.header.kind == 8 && x.reason == reason::NOTHING_TO_RESEND && m.header.tid == w.tid => {
                if !w.counted && c.pending.is_none() {
                    let (to, pid, tid, operands) = (w.to, w.pid, w.tid, w.operands.clone());
                    let msg = wire::contribution(cc, pid, tid, c.operation, operands.clone());
                    c.pending = Some((to, pid, tid, operands));
                    self.stats.participant_resends += 1;
                    let seq = self.next_seq();
                    let bytes = wire::message_frame(&msg, self.topo.endpoints[e].id, to, seq);
                    self.send_from(e, t, bytes);
                    if let Some((after, _)) = self.ends[e].retry {
                        self.push(t + after, Ev::Retry { e: e as u32, cc });
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// Starts (or restarts) the result watch's timer of participant `e` for `cc`.
    fn arm_watch(&mut self, e: usize, cc: u16, t: Ps) {
        let Some((after, _)) = self.ends[e].watch else { return };
        let Some(w) = self.ends[e].ctx.get_mut(&cc).and_then(|c| c.watch.as_mut()) else { return };
        w.due = t + after;
        self.push(t + after, Ev::Retry { e: e as u32, cc });
    }

    /// The result watch's timer: no contribution pending and the result still missing, ask for it.
    fn watch_timer(&mut self, e: usize, cc: u16, t: Ps) {
        let Some(c) = self.ends[e].ctx.get(&cc) else { return };
        if c.pending.is_some() || c.watch.as_ref().is_none_or(|w| t < w.due) {
            return; // a contribution's retry runs, no watch, or an earlier timer
        }
        self.send_participant_retry(e, cc, t);
    }

    /// Participant `e` sends its engine a RETRY for its round's result (TID of its contribution, its
    /// P_ID): the engine resends its kept result to it (`docs/blocks/cpu.md` §Messages "Kept result"),
    /// or answers NothingToResend while the round is open. At most the watch's limit per round; each
    /// restarts the watch's timer.
    fn send_participant_retry(&mut self, e: usize, cc: u16, t: Ps) {
        let Some((after, limit)) = self.ends[e].watch else { return };
        let Some(w) = self.ends[e].ctx.get_mut(&cc).and_then(|c| c.watch.as_mut()) else { return };
        if w.retries >= limit {
            return;
        }
        w.retries += 1;
        w.due = t + after;
        let mut m = wire::retry(cc, w.tid, w.retries);
        m.header.p_id = w.pid;
        let to = w.to;
        self.stats.participant_retries += 1;
        let seq = self.next_seq();
        let bytes = wire::message_frame(&m, self.topo.endpoints[e].id, to, seq);
        self.send_from(e, t, bytes);
        self.push(t + after, Ev::Retry { e: e as u32, cc });
    }

    /// Participants ask for a late result (issue 20; 000 \[0098\], \[0117\]): once its contribution is
    /// answered "already completed" (the round ended without its result reaching it), or
    /// DuplicateContribution (counted) or its retries ran out and then `watch.0` ps pass without the
    /// result, an end node sends its engine a RETRY for the round's TID naming itself (P_ID), every
    /// `watch.0` ps, at most `watch.1` times; the engine's kept result answers it. `None`: never (an
    /// end node then learns only that the round is over).
    pub fn participant_watch(&mut self, watch: Option<(Ps, u8)>) {
        for n in &mut self.ends {
            n.watch = watch;
        }
    }

    /// End node `e` resends an unanswered contribution every `after` ps, at most `limit` times
    /// (`None`: never).
    pub fn end_node_retry(&mut self, retry: Option<(Ps, u8)>) {
        for n in &mut self.ends {
            n.retry = retry;
        }
    }

    /// End node `e`'s operands for context `cc` (what it contributes from now on).
    pub fn set_operands(&mut self, e: usize, cc: u16, operands: Vec<u64>) {
        if let Some(c) = self.ends[e].ctx.get_mut(&cc) {
            c.operands = operands;
        }
    }

    /// End node `e` sends its contribution to context `cc` at `at` (if it got the command).
    pub fn respond(&mut self, e: usize, cc: u16, at: Ps) {
        self.respond_late(e, cc, at, None);
    }

    /// As [`Fabric::respond`], `late` ps later (a late contribution, logged as a fault).
    pub(super) fn respond_late(&mut self, e: usize, cc: u16, at: Ps, late: Option<Ps>) {
        let retry = self.ends[e].retry;
        let Some(c) = self.ends[e].ctx.get(&cc) else { return };
        if c.answer.is_none() {
            return;
        }
        // Pre-reduction: the group's operands come over the host (HOST_LOCAL_PS), then one contribution.
        let mut all = vec![c.operands.clone()];
        all.extend(c.group.iter().filter_map(|&g| self.ends[g].ctx.get(&cc)).map(|g| g.operands.clone()));
        let (operands, local) = if c.group.is_empty() { (c.operands.clone(), 0) } else { (fold_operands(c.operation, &all), HOST_LOCAL_PS) };
        let Some(c) = self.ends[e].ctx.get_mut(&cc) else { return };
        let Some((to, pid, tid)) = c.answer.take() else { return };
        let m = wire::contribution(cc, pid, tid, c.operation, operands.clone());
        c.watch = Some(ResultWatch { to, pid, tid, operands: operands.clone(), counted: false, retries: 0, due: 0 });
        c.pending = Some((to, pid, tid, operands));
        c.attempts = 0;
        let seq = self.next_seq();
        let bytes = wire::message_frame(&m, self.topo.endpoints[e].id, to, seq);
        let at = at + local + late.unwrap_or(0);
        self.send_from(e, at, bytes);
        if let Some(delay) = late {
            let f = (self.frames.len() - 1) as u32;
            let fault = Fault::on_frame(self.now, FaultKind::Late { delay }, None, Some(f), &LinkFrame::parse(&self.frames[f as usize].bytes));
            self.injector().log.push(fault);
        }
        if let Some((after, _)) = retry {
            self.push(at.max(self.now) + after, Ev::Retry { e: e as u32, cc });
        }
    }

    /// Every end node that has a command for `cc` answers it at `at` (Table 1: all responses at once).
    pub fn respond_all(&mut self, cc: u16, at: Ps) {
        for e in 0..self.ends.len() {
            self.respond(e, cc, at);
        }
    }

    /// End nodes answer commands by themselves, `compute` after they arrive.
    pub fn auto_respond(&mut self, compute: Option<Ps>) {
        for n in &mut self.ends {
            n.auto = compute;
        }
    }

    /// End node `e` takes part in context `cc` (a manager's `EndNode` step): it answers the context's
    /// command with a CONTRIBUTION of `operation` and `operands`.
    pub fn join(&mut self, e: usize, cc: u16, operation: u8, operands: Vec<u64>) {
        self.ends[e].ctx.insert(cc, EndCtx { operation, operands, ..EndCtx::default() });
    }

    /// End node `e` leaves context `cc` (a manager's `EndNodeClear` step); a target of several roots
    /// whose trees include `cc` is dropped with it.
    pub fn leave(&mut self, e: usize, cc: u16) {
        self.ends[e].ctx.remove(&cc);
        self.ends[e].targets.retain(|tc| tc.roots.iter().all(|r| r.1 != cc));
        self.ends[e].send_down.retain(|tc| !tc.has(cc));
    }

    /// End node `e` is the representative of its host's other end nodes `group` in context `cc`
    /// (a manager's `EndNode` step with `pre_reduce_from`, 003 \[0055\]): it contributes the reduction
    /// of its own and their operands, [`HOST_LOCAL_PS`] after it would have contributed alone. Ignored
    /// if `e` has not joined `cc`.
    pub fn pre_reduce(&mut self, e: usize, cc: u16, group: Vec<usize>) {
        if let Some(c) = self.ends[e].ctx.get_mut(&cc) {
            c.group = group;
        }
    }

    /// End node `e` is the target of several roots (a manager's `Target` step, 003 \[0062\]): root
    /// engine `roots[i]` sends the end result of context `cc_ids[i]` to it, and it reduces them with
    /// `operation` ([`Fabric::target_result`]).
    pub fn target(&mut self, e: usize, operation: u8, roots: &[u16], cc_ids: &[u16]) {
        let roots = roots.iter().zip(cc_ids).map(|(&r, &cc)| (r, cc, None)).collect();
        self.ends[e].targets.push(TargetCtx { operation, roots, result: None });
    }

    /// The result of the target end node `e` whose trees include context `cc`: when the last root's end
    /// result arrived, and the reduction of all of them; `None` until then. For the target of a
    /// several-root all-reduce, its first round's ([`Fabric::target_results`] gives every round's).
    pub fn target_result(&self, e: usize, cc: u16) -> Option<(Ps, Vec<u64>)> {
        match self.ends.get(e)?.targets.iter().find(|tc| tc.roots.iter().any(|r| r.1 == cc)) {
            Some(tc) => tc.result.clone(),
            None => self.send_down_first(e, cc),
        }
    }

    /// The source of `c` sends the command (CONTROL START) to the master engine at `at`.
    pub fn start(&mut self, c: &ContextPlan, at: Ps) {
        let master = self.topo.switches[c.master()].engine_id;
        let src = self.topo.endpoints[c.source].id;
        let p_count = c.engines.iter().find(|e| e.role == Role::Master).map_or(0, |e| e.members.len()) as u16;
        let seq = self.next_seq();
        let mut m = wire::start(c.cc_id, p_count);
        m.header.tid = self.source_tid(c.cc_id);
        self.send_from(c.source, at, wire::message_frame(&m, src, master, seq));
    }

    /// As [`Fabric::start`], non-posted (per-packet retry, 000 \[0098\], \[0117\]): the master
    /// acknowledges the START (COMPLETION code 5) and the source resends it `after` ps after each send
    /// until acknowledged, at most `limit` times. A copy that reaches a live context is a no-op there
    /// and replicated again (`docs/blocks/cpu.md` §Messages CONTROL), so participants that missed the
    /// first START get it; one that had contributed answers again and gets DuplicateContribution.
    pub fn start_acked(&mut self, c: &ContextPlan, at: Ps, after: Ps, limit: u8) {
        self.start_watched(c, at, after, limit, None);
    }

    /// As [`Fabric::start_acked`], and (issue 20) after the acknowledgement the source keeps a timer
    /// until the result (COMPLETION code 3) reaches it: every `watch.0` ps, at most `watch.1` times, it
    /// sends the START again. The master, live, replicates it again (`CTRL_NOOP`), and so does each
    /// subservient: a participant whose START copy was lost (master → subservient, engine → end node)
    /// gets one and contributes before its engine's timeout; one that had contributed answers again and
    /// gets DuplicateContribution. If the source's INITIALIZATIONs still wait for acknowledgements
    /// ([`Fabric::reinitialize_acked`]), the START leaves when the last one arrives (or their retries run
    /// out), not before `at`.
    pub fn start_watched(&mut self, c: &ContextPlan, at: Ps, after: Ps, limit: u8, watch: Option<(Ps, u8)>) {
        let master = self.topo.switches[c.master()].engine_id;
        let p_count = c.engines.iter().find(|e| e.role == Role::Master).map_or(0, |e| e.members.len()) as u16;
        let mut m = wire::start(c.cc_id, p_count);
        m.header.tid = self.source_tid(c.cc_id);
        m.header.non_posted = true;
        let deferred = self.pending_inits.get(&c.cc_id).is_some_and(|p| p.source == c.source && !p.waiting.is_empty());
        self.starts.insert(c.cc_id, PendingStart { source: c.source, master, message: m, sent: at, after, limit, attempts: 0, watch, acked: false, deferred });
        if !deferred {
            self.send_start(c.cc_id, at);
        }
    }

    /// An acknowledgement from engine `from` at source `e` for `cc` answers one of its waiting
    /// INITIALIZATIONs ([`Fabric::reinitialize_acked`]): that one is done; after the last, a deferred
    /// START leaves. False if none waited for it. The one whose P_ID the acknowledgement carries: a master
    /// acknowledges the INITIALIZATIONs it relays for the engines below it as well as its own (000 [0106]),
    /// all from its own ID, so matching the sender alone let a relayed one's acknowledgement stand for a
    /// lost own one, which was then never resent (the master ran the next round on its previous
    /// period's counts: a wrong result, docs/fabric.md §Goodput, session 20). An acknowledgement naming
    /// no waiting P_ID falls back to the sender's first.
    fn init_acked(&mut self, e: usize, cc: u16, from: u16, p_id: u16, t: Ps) -> bool {
        let Some(p) = self.pending_inits.get_mut(&cc).filter(|p| p.source == e) else { return false };
        let exact = p.waiting.iter().position(|w| w.0 == from && w.2.header.p_id == p_id);
        let Some(i) = exact.or_else(|| p.waiting.iter().position(|w| w.0 == from)) else { return false };
        p.waiting.remove(i);
        if p.waiting.is_empty() {
            self.pending_inits.remove(&cc);
            self.send_deferred_start(cc, t);
        }
        true
    }

    /// Sends the START that waited for the INITIALIZATIONs, at `t` or its own time if later.
    fn send_deferred_start(&mut self, cc: u16, t: Ps) {
        let Some(p) = self.starts.get_mut(&cc).filter(|p| p.deferred) else { return };
        p.deferred = false;
        let at = p.sent.max(t);
        p.sent = at;
        self.send_start(cc, at);
    }

    /// A new reduction, as [`Fabric::reinitialize`] non-posted, and (issue 20, per-packet retry, 000
    /// \[0098\], \[0117\]) the source resends each INITIALIZATION its engine has not acknowledged
    /// every `after` ps, at most `limit` times; a START of `cc` waits for them ([`Fabric::start_watched`]).
    /// An engine that missed its INITIALIZATION would run the reduction from the last one it stored, a
    /// TID behind: its partial result is answered "already completed" and its contributions are lost.
    /// A resent INITIALIZATION reaches a context that is not running a round yet (the START waits), so
    /// storing it again changes nothing but the lost state.
    pub fn reinitialize_acked(&mut self, cc: u16, at: Ps, after: Ps, limit: u8) {
        self.reinitialize(cc, at, true);
        let Some(v) = self.inits.get(&cc) else { return };
        let Some(source) = v.first().map(|x| x.0) else { return };
        let waiting = v.iter().map(|(_, id, src, m)| {
            let mut m = m.clone();
            m.header.non_posted = true;
            (*id, *src, m)
        });
        let waiting = waiting.collect();
        self.pending_inits.insert(cc, PendingInits { source, waiting, sent: at, after, limit, attempts: 0 });
        self.push(at.max(self.now) + after, Ev::InitRetry { cc });
    }

    /// The source's INITIALIZATION retry timer for `cc`: resend the unacknowledged ones (up to the
    /// limit; then the START leaves anyway).
    pub(super) fn retry_inits(&mut self, cc: u16, t: Ps) {
        let Some(p) = self.pending_inits.get_mut(&cc) else { return };
        if t < p.sent + p.after {
            return; // a timer of an earlier round of INITIALIZATIONs
        }
        if p.attempts >= p.limit {
            self.pending_inits.remove(&cc);
            self.send_deferred_start(cc, t);
            return;
        }
        p.attempts += 1;
        p.sent = t;
        let (source, after, resend) = (p.source, p.after, p.waiting.clone());
        for (id, src, m) in resend {
            self.stats.init_retries += 1;
            let seq = self.next_seq();
            self.send_from(source, t, wire::message_frame(&m, src, id, seq));
        }
        self.push(t + after, Ev::InitRetry { cc });
    }

    fn send_start(&mut self, cc: u16, at: Ps) {
        let Some(p) = self.starts.get(&cc) else { return };
        let (source, master, after, m) = (p.source, p.master, p.after, p.message.clone());
        let src = self.topo.endpoints[source].id;
        let seq = self.next_seq();
        self.send_from(source, at, wire::message_frame(&m, src, master, seq));
        self.push(at.max(self.now) + after, Ev::StartRetry { cc });
    }

    /// The source's START retry timer for `cc`: not acknowledged, send it again (up to the limit).
    pub(super) fn retry_start(&mut self, cc: u16, t: Ps) {
        let Some(p) = self.starts.get_mut(&cc) else { return };
        if t < p.sent + p.after {
            return; // a timer of an earlier START of this context
        }
        if p.attempts >= p.limit {
            self.starts.remove(&cc);
            return;
        }
        p.attempts += 1;
        p.sent = t;
        if p.acked {
            // The result is late (issue 20; 000 [0098], [0117]: retries are per packet): ask the master
            // for it with a RETRY for the round's TID rather than resend the START, which would run a
            // finished round again. The master resends its kept result, or answers NothingToResend while
            // the round is open, which resends the START (`end_node`: a START copy may have been lost
            // below).
            self.stats.result_retries += 1;
            let (source, master, attempt, tid, after) = (p.source, p.master, p.attempts, p.message.header.tid, p.after);
            let m = wire::retry(cc, tid, attempt);
            let src = self.topo.endpoints[source].id;
            let seq = self.next_seq();
            self.send_from(source, t, wire::message_frame(&m, src, master, seq));
            self.push(t + after, Ev::StartRetry { cc });
        } else {
            self.stats.start_retries += 1;
            self.send_start(cc, t);
        }
    }

    /// The source of `c` sends CONTROL `command` (4 STOP, 5 RESET, ...) to the master engine at `at`;
    /// the master replicates it to its participants (\[0172\]).
    pub fn control(&mut self, c: &ContextPlan, command: u8, at: Ps) {
        let master = self.topo.switches[c.master()].engine_id;
        let src = self.topo.endpoints[c.source].id;
        let seq = self.next_seq();
        let mut m = wire::control(c.cc_id, command, 0);
        m.header.tid = self.source_tid(c.cc_id);
        self.send_from(c.source, at, wire::message_frame(&m, src, master, seq));
    }

    /// A new reduction on a configured context: its source sends the INITIALIZATIONs of
    /// `crate::drive::configure` again at `at` (non-posted if `non_posted`: the engines acknowledge them and
    /// a subservient resends its RESPONSE on its retry timer, `docs/blocks/cpu.md` §Timers), with the source's
    /// next TID (TID + 1 mod 4, 001). An INITIALIZATION sets the context's TID to the message's and
    /// clears its tracking state, so each reduction of a context starts from one, one TID after the previous: a
    /// frame of the previous reduction that arrives late is one TID behind and answered "already
    /// completed", not counted (`docs/fabric.md` §Faults).
    pub fn reinitialize(&mut self, cc: u16, at: Ps, non_posted: bool) {
        let Some(v) = self.inits.get_mut(&cc) else { return };
        let tid = wire::next_tid(self.source_tids.get(&cc).copied().unwrap_or(0));
        self.source_tids.insert(cc, tid);
        for x in v.iter_mut() {
            x.3.header.tid = tid;
        }
        for (source, id, src, mut init) in v.clone() {
            init.header.non_posted = non_posted;
            let seq = self.next_seq();
            self.send_from(source, at, wire::message_frame(&init, src, id, seq));
        }
    }

    /// The source's current transaction ID for context `cc` (001; 0 before any INITIALIZATION).
    pub fn source_tid(&self, cc: u16) -> u8 {
        self.source_tids.get(&cc).copied().unwrap_or(0)
    }
}

