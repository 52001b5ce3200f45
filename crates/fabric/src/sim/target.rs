//! The target of a several-root all-reduce (003 \[0062\]): the end node the roots' end results go to
//! combines them and sends the whole job's result back down every tree (`docs/fabric.md` §The manager
//! drives the fabric, several roots; `docs/manager.md` §3).
//!
//! Seed 003 \[0062\]: "each of the root switches calculates a respective end result of the collective
//! function, and forwards the end result to the appropriate target process or processes [...]. Each
//! target process receives multiple end results—one end result from each root switch, and performs a
//! final reduction"; \[0052\], \[0060\]: an all-reduce's result goes "to all the nodes in the group". The
//! manager makes each root engine SUBSERVIENT to the target (`Job::combines_at_target`): the root sends
//! its end result up as a RESPONSE (as any subservient sends its partial result) and waits in Full for
//! its parent's COMPLETION; the target, once it holds every root's, answers each root with one
//! COMPLETION carrying the reduction of all of them, and each root replicates it down its tree as any
//! subservient replicates its parent's COMPLETION (`docs/blocks/cpu.md` §Messages). Every participant of
//! every root thus gets the job's result through frames the engines already handle: k frames leave the
//! target, not one per participant.

use inswitch_frames::collective::{Body, CollectiveMessage, DataFixed, NO_PARTICIPANT};
use inswitch_model::cpu::completion;

use super::end_node::fold_operands;
use super::fabric::{Fabric, RootResult, SendDownTarget};
use crate::topology::Ps;
use crate::wire;

/// Kind code of a COMPLETION (000 \[0168\]).
const COMPLETION: u8 = inswitch_model::message::Kind::COMPLETION.0;
/// Kind code of a RESPONSE (000 \[0168\]).
const RESPONSE: u8 = inswitch_model::message::Kind::RESPONSE.0;
/// The barrier's opcode (`docs/blocks/reduce_unit.md`): its COMPLETION code is BarrierSatisfied.
const BARRIER: u8 = inswitch_model::reduce::codes::op::BARRIER;

impl SendDownTarget {
    fn root_of(&self, from: u16, cc: u16) -> Option<usize> {
        self.roots.iter().position(|&r| r == (from, cc))
    }

    pub(super) fn has(&self, cc: u16) -> bool {
        self.roots.iter().any(|r| r.1 == cc)
    }

    pub(super) fn first_result(&self) -> Option<(Ps, Vec<u64>)> {
        self.results.first().cloned()
    }
}

impl Fabric {
    /// End node `e` is the target of a several-root all-reduce (a manager's `Target` step with
    /// `send_down`, 003 \[0062\]): root engine `roots[i]` (SUBSERVIENT to `e`) sends the end result of
    /// context `cc_ids[i]` to it as a RESPONSE; when every root's of a round is in, `e` reduces them with
    /// `operation` and answers each root with a COMPLETION carrying the job's result (module doc). A
    /// target of the same trees placed before (a tree re-placed after a topology change) is replaced.
    pub fn target_send_down(&mut self, e: usize, operation: u8, roots: &[u16], cc_ids: &[u16]) {
        let roots: Vec<(u16, u16)> = roots.iter().copied().zip(cc_ids.iter().copied()).collect();
        let k = roots.len();
        // An end node the fabric does not have: nothing to configure (a plan for another fabric).
        let Some(n) = self.ends.get_mut(e) else { return };
        n.send_down.retain(|tc| !roots.iter().any(|r| tc.has(r.1)));
        n.send_down.push(SendDownTarget { operation, roots, open: vec![None; k], sent: vec![None; k], results: Vec::new() });
    }

    /// The job's result of every completed round at target `e` of a several-root all-reduce whose trees
    /// include `cc`, with when the last root's end result of the round arrived (empty if `e` is no such
    /// target).
    pub fn target_results(&self, e: usize, cc: u16) -> Vec<(Ps, Vec<u64>)> {
        self.ends.get(e).and_then(|n| n.send_down.iter().find(|tc| tc.has(cc))).map_or_else(Vec::new, |tc| tc.results.clone())
    }

    /// The first completed round's result at send-down target `e` for `cc` ([`Fabric::target_result`]).
    pub(super) fn send_down_first(&self, e: usize, cc: u16) -> Option<(Ps, Vec<u64>)> {
        self.ends.get(e)?.send_down.iter().find(|tc| tc.has(cc))?.first_result()
    }

    /// A RESPONSE at end node `e` (module doc): a root's end result if `e` is its send-down target,
    /// else ignored (an end node is nobody else's parent).
    pub(super) fn target_response(&mut self, e: usize, t: Ps, m: &CollectiveMessage, from: u16) {
        if m.header.kind != RESPONSE {
            return;
        }
        let cc = m.header.cc_id;
        let Body::Data { fixed, operands } = &m.body else { return };
        let Some(x) = self.ends[e].send_down.iter().position(|tc| tc.root_of(from, cc).is_some()) else { return };
        // The root's RESPONSE is its answer to the source's START: it ends the START's watch as the
        // master's result does (`Fabric::start_watched`).
        if self.starts.get(&cc).is_some_and(|p| p.source == e && p.master == from) {
            self.starts.remove(&cc);
        }
        let tc = &mut self.ends[e].send_down[x];
        let i = tc.root_of(from, cc).expect("found above");
        let got = RootResult { tid: m.header.tid, count: fixed.contributions, error: m.header.error_mark, operands: operands.clone() };
        // The root's first RESPONSE of a round is its end result. Any other RESPONSE from it is its own
        // retry (the same packet) or a late child's frame it passed up from Full (`PASS_UP`,
        // `docs/blocks/cpu.md` §Messages: a child that timed out and resent its partial result).
        if tc.open[i].is_some() {
            return;
        }
        if let Some((r, c)) = tc.sent[i].clone() {
            if r.tid == got.tid {
                // The answered round again: the root's retry of the same end result means the
                // COMPLETION was lost, so it is sent again; a passed-up frame is not answered.
                if (r.count, &r.operands) == (got.count, &got.operands) {
                    self.send_to_root(e, t, &c, from);
                }
                return;
            }
            if wire::next_tid(got.tid) == r.tid {
                return; // a frame of the round before, late
            }
        }
        tc.open[i] = Some(got);
        if tc.open.iter().any(Option::is_none) {
            return;
        }
        let open: Vec<RootResult> = tc.open.iter_mut().filter_map(Option::take).collect();
        let all: Vec<Vec<u64>> = open.iter().map(|r| r.operands.clone()).collect();
        let result = fold_operands(tc.operation, &all);
        let count = open.iter().fold(0u16, |a, r| a.saturating_add(r.count));
        let error = open.iter().any(|r| r.error);
        let code = if tc.operation == BARRIER { completion::BARRIER_SATISFIED } else { completion::RESULT };
        tc.results.push((t, result.clone()));
        let mut out = Vec::new();
        for (i, (&(root, cc), r)) in tc.roots.iter().zip(&open).enumerate() {
            let fixed = DataFixed { operation: tc.operation, contributions: count, n_operands: result.len() as u16, completion: code, ..Default::default() };
            let mut c = CollectiveMessage { header: wire::header(COMPLETION, cc, NO_PARTICIPANT), body: Body::Data { fixed, operands: result.clone() } };
            c.header.tid = r.tid;
            c.header.error_mark = error;
            tc.sent[i] = Some((r.clone(), c.clone()));
            out.push((c, root));
        }
        for (c, root) in out {
            self.send_to_root(e, t, &c, root);
        }
    }

    fn send_to_root(&mut self, e: usize, t: Ps, c: &CollectiveMessage, root: u16) {
        let seq = self.next_seq();
        let bytes = wire::message_frame(c, self.topo.endpoints[e].id, root, seq);
        self.send_from(e, t, bytes);
    }
}
