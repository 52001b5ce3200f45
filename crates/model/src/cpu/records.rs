//! Record constructors: the descriptors an activation or an ARM writes and the messages the CPU
//! sends (the RTL's `desc_new`, `failure_reply`, `portals_msg`, `tlp_msg`).
//! Side by side with `rtl/cpu_records.vh`.

use super::*;

/// What an activation copies into the tracking store (000 [0141] (b)).
#[derive(Clone, Copy)]
pub(super) struct Stored {
    pub(super) pbv: u128,
    pub(super) pcount: u32,
    pub(super) op: u8,
    pub(super) data: [u64; 4],
    pub(super) posted: bool,
}

impl Cpu {
    pub(super) fn tlp_acc(&self, op: u8, data: [u64; 4]) -> Contribution {
        Contribution { rt_op: op, rt_data: data, sfa: u32::from(self.cfg.engine_id), ..Contribution::default() }
    }

    /// TLP activation of descriptor `di` for static entry `si` (000 [0141] (b), (c)).
    pub(super) fn activate(&mut self, di: usize, si: usize, key: u16, s: Stored) {
        let r = self.st[si].role;
        let load = self.load_for(s.pcount, r);
        self.d[di] = Descriptor {
            valid: true,
            portals: false,
            key,
            sidx: si as u16,
            role: r,
            state: CtxState::Idle,
            pbv: s.pbv,
            pcount: s.pcount,
            acc_valid: true,
            acc: self.tlp_acc(s.op, s.data),
            posted: s.posted,
            timer: load,
            load,
            ..Descriptor::default()
        };
    }

    /// Portals arming of descriptor `di` for static entry `si` (002 (39), (54)).
    pub(super) fn arm(&mut self, di: usize, si: usize, m: &CollectiveMsg) {
        let s = self.st[si];
        let load = self.load_for(s.wait, s.role);
        self.d[di] = Descriptor {
            valid: true,
            portals: true,
            key: m.ctx,
            sidx: si as u16,
            role: s.role,
            state: CtxState::Idle,
            wait: s.wait,
            vni: m.vni,
            cookie: m.cookie,
            seqno: m.seqno,
            dst: m.dst,
            port: m.port,
            timer: load,
            load,
            ..Descriptor::default()
        };
    }

    /// The PBV-table entries that are switches (engines below, 000 [0096]), as a bit vector.
    pub(super) fn switch_mask(&self) -> u128 {
        self.cfg.pbv.iter().enumerate().filter(|(_, e)| e.switch).fold(0, |a, (i, _)| a | 1u128 << i)
    }

    pub(super) fn engine_src(&self) -> u32 {
        u32::from(self.cfg.engine_id)
    }

    /// `m` re-sent with the engine as requester (000 [0097]).
    pub(super) fn rewritten(&self, m: &CollectiveMsg) -> CollectiveMsg {
        CollectiveMsg { src: self.engine_src(), ..*m }
    }

    pub(super) fn failure_reply(&self, m: &CollectiveMsg, why: u8) -> CollectiveMsg {
        CollectiveMsg {
            kind: Kind::FAILURE,
            family: Family::Tlp,
            ctx: m.ctx,
            src: self.engine_src(),
            dst: m.src,
            pid: m.pid,
            dmu_id: m.dmu_id,
            code: why,
            posted: true,
            tid: m.tid,
            op: m.op,
            data: [u64::from(m.src & 0xffff), 0, 0, 0],
            ..CollectiveMsg::default()
        }
    }

    pub(super) fn already_completed(&self, m: &CollectiveMsg) -> CollectiveMsg {
        self.answer(m, completion::ALREADY_COMPLETED)
    }

    /// COMPLETION with `code` to the sender of `m`: "already completed", acknowledgement.
    pub(super) fn answer(&self, m: &CollectiveMsg, code: u8) -> CollectiveMsg {
        CollectiveMsg {
            kind: Kind::COMPLETION,
            family: Family::Tlp,
            ctx: m.ctx,
            src: self.engine_src(),
            dst: m.src,
            pid: m.pid,
            dmu_id: m.dmu_id,
            code,
            posted: true,
            tid: m.tid,
            op: m.op,
            ..CollectiveMsg::default()
        }
    }

    /// The kept result of `d` (the round just completed) resent to the sender of RETRY `m`: COMPLETION
    /// with the code, count, result fields and error mark it went out with, `retry` set (a
    /// retransmission, 000 \[0117\]); addressed as a reply (`m`'s ctx, pid, dmu_id, tid). A one-target
    /// master's participant gets what it got, `ROUND_DONE` without the result (`round_done`).
    pub(super) fn kept_result(&self, m: &CollectiveMsg, d: &Descriptor, round_done: bool) -> CollectiveMsg {
        let r = Self::with_acc(d, CollectiveMsg { code: d.res_code, error: d.res_error, retry: true, ..self.answer(m, 0) });
        if round_done {
            Self::without_result(r)
        } else {
            r
        }
    }

    fn with_acc(d: &Descriptor, m: CollectiveMsg) -> CollectiveMsg {
        CollectiveMsg {
            op: d.acc.rt_op,
            rc: d.acc.rt_rc.0,
            repsum_m: d.acc.rt_repsum_m,
            repsum_oflow_id: d.acc.rt_repsum_oflow_id,
            data: d.acc.rt_data,
            count: d.count,
            ..m
        }
    }

    /// A one-target master's copy to a participant (003 \[0052\], \[0060\]): COMPLETION `ROUND_DONE`,
    /// the result's fields (data, result code, REPSUM fields) 0; opcode, count, TID and error mark kept.
    pub(super) fn without_result(m: CollectiveMsg) -> CollectiveMsg {
        CollectiveMsg { code: completion::ROUND_DONE, data: [0; 4], rc: 0, repsum_m: 0, repsum_oflow_id: 0, ..m }
    }

    pub(super) fn portals_partial(&self, d: &Descriptor) -> CollectiveMsg {
        Self::with_acc(
            d,
            CollectiveMsg {
                kind: Kind::CONTRIBUTION,
                family: Family::Portals,
                port: d.port,
                ctx: d.key,
                src: self.cfg.engine_sfa,
                dst: d.dst,
                pid: NO_PARTICIPANT,
                posted: true,
                vni: d.vni,
                cookie: d.cookie,
                seqno: d.seqno,
                resno: d.seqno,
                ..CollectiveMsg::default()
            },
        )
    }

    pub(super) fn portals_result(&self, d: &Descriptor) -> CollectiveMsg {
        CollectiveMsg { kind: Kind::ARM, port: 0, seqno: next_seqno(d.seqno), ..self.portals_partial(d) }
    }

    pub(super) fn tlp_up(&self, d: &Descriptor, kind: Kind, code: u8, error: bool, retry: bool) -> CollectiveMsg {
        let s = &self.st[usize::from(d.sidx)];
        Self::with_acc(
            d,
            CollectiveMsg {
                kind,
                family: Family::Tlp,
                ctx: d.key,
                src: self.engine_src(),
                dst: u32::from(s.upstream),
                pid: NO_PARTICIPANT,
                dmu_id: s.dmu_id,
                code,
                posted: if kind == Kind::RESPONSE { d.posted } else { true },
                error,
                retry,
                tid: s.tid,
                ..CollectiveMsg::default()
            },
        )
    }

    pub(super) fn tlp_response(&self, d: &Descriptor, error: bool, retry: bool) -> CollectiveMsg {
        let code = if d.acc.rt_op == 0 { completion::BARRIER_MET } else { completion::NONE };
        self.tlp_up(d, Kind::RESPONSE, code, error, retry)
    }

    pub(super) fn tlp_completion(&self, d: &Descriptor, error: bool) -> CollectiveMsg {
        let code = if d.acc.rt_op == 0 { completion::BARRIER_SATISFIED } else { completion::RESULT };
        self.tlp_up(d, Kind::COMPLETION, code, error, false)
    }

    pub(super) fn retry_failure(&self, d: &Descriptor) -> CollectiveMsg {
        let s = &self.st[usize::from(d.sidx)];
        CollectiveMsg {
            kind: Kind::FAILURE,
            family: Family::Tlp,
            ctx: d.key,
            src: self.engine_src(),
            dst: u32::from(s.upstream),
            pid: NO_PARTICIPANT,
            dmu_id: s.dmu_id,
            count: u32::from(d.attempts),
            code: reason::TIMEOUT,
            posted: true,
            // The Failure flag (001) this FAILURE reports.
            error: true,
            tid: s.tid,
            data: [0xffff, 0, 0, 0],
            ..CollectiveMsg::default()
        }
    }
}
