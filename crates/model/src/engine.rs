//! The packet-engine top for one port (`rtl/packet_engine.v`, `docs/blocks/packet_engine.md`): the seven
//! block models (interposer, input checker, register space, CPU, frame builder, completion builder,
//! output queue) and the frame arbiter wired exactly as the RTL wires them.
//!
//! The blocks' models only offer [`Block::step`], so the top settles the wires between them as a
//! fixed point: each block is stepped on a *copy* with its current guess of inputs; the outputs give new
//! inputs; blocks whose inputs changed are re-evaluated until nothing changes (the wiring has no
//! combinational loop, so this ends within a few rounds); the copies stepped with the settled inputs
//! become the new state. This gives exactly the RTL's cycle behaviour, whatever the combinational paths
//! inside each block are.

use crate::checker::{CheckerParams, InputChecker, InputCheckerIn, InputCheckerOut};
use crate::completion_builder::{CompletionBuilder, CompletionBuilderIn, CompletionBuilderOut, CompletionBuilderParams};
use crate::cpu::{Cpu, CpuIn, CpuOut, CpuParams};
use crate::frame_builder::{FrameBuilder, FrameBuilderIn, FrameBuilderOut, FrameBuilderParams};
use crate::interposer::{Interposer, InterposerIn, InterposerOut, InterposerParams};
use crate::output_queue::{OutputQueue, OutputQueueIn, OutputQueueOut, OutputQueueParams};
use crate::regs::{RegisterSpace, RegisterSpaceIn, RegisterSpaceOut};
use crate::signal::Block;
use crate::{ports, Wide};

/// Parameters of the top (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineParams {
    /// CPU static entries (`STATIC_ENTRIES`).
    pub static_entries: usize,
    /// CPU descriptors (`DESCRIPTORS`).
    pub descriptors: usize,
    /// CPU timer tick (`TICK_CYCLES`).
    pub tick_cycles: u32,
    /// Output-queue FIFO depth (`FIFO_DEPTH`).
    pub fifo_depth: usize,
    /// Injection credits (`INJ_CREDITS`).
    pub inj_credits: u32,
}

impl Default for EngineParams {
    fn default() -> Self {
        EngineParams { static_entries: 16, descriptors: 8, tick_cycles: 1024, fifo_depth: 32, inj_credits: 8 }
    }
}

ports! {
    /// Inputs of `packet_engine` (256-bit data path).
    pub struct EngineIn {
        /// Synchronous reset.
        pub rst: bool,
        /// Port receive data.
        pub s_axis_rx_tdata: Wide,
        /// Port receive keep.
        pub s_axis_rx_tkeep: u64,
        /// Port receive valid.
        pub s_axis_rx_tvalid: bool,
        /// Port receive last.
        pub s_axis_rx_tlast: bool,
        /// VL queue ready.
        pub m_axis_vl_tready: bool,
        /// Egress (other ports) ready.
        pub m_axis_egress_tready: bool,
        /// Register-response ready.
        pub m_reg_rsp_ready: bool,
        /// Credits returned by the VL queue.
        pub vl_credit_return: u8,
        /// Strap: port family (1 Portals).
        pub cfg_family: bool,
        /// Strap: port number.
        pub cfg_port: u8,
        /// Strap: engine device ID.
        pub cfg_engine_id: u16,
        /// Strap: source MAC of built frames.
        pub cfg_src_mac: u64,
        /// Strap: destination MAC of built frames.
        pub cfg_dst_mac: u64,
        /// CPU configuration write enable.
        pub cpu_cfg_wr_en: bool,
        /// CPU configuration write address.
        pub cpu_cfg_wr_addr: u16,
        /// CPU configuration write data.
        pub cpu_cfg_wr_data: u32,
        /// PBV read index.
        pub pbv_rd_index: u8,
    }
}

ports! {
    /// Outputs of `packet_engine`.
    pub struct EngineOut {
        /// Port receive ready.
        pub s_axis_rx_tready: bool,
        /// VL data.
        pub m_axis_vl_tdata: Wide,
        /// VL keep.
        pub m_axis_vl_tkeep: u64,
        /// VL valid.
        pub m_axis_vl_tvalid: bool,
        /// VL last.
        pub m_axis_vl_tlast: bool,
        /// Egress data (frames for other ports).
        pub m_axis_egress_tdata: Wide,
        /// Egress keep.
        pub m_axis_egress_tkeep: u64,
        /// Egress valid.
        pub m_axis_egress_tvalid: bool,
        /// Egress last.
        pub m_axis_egress_tlast: bool,
        /// Egress port.
        pub m_axis_egress_tdest: u8,
        /// Register response valid.
        pub m_reg_rsp_valid: bool,
        /// Response to a write.
        pub m_reg_rsp_write: bool,
        /// Response status.
        pub m_reg_rsp_status: u8,
        /// Read data.
        pub m_reg_rsp_rdata: u32,
        /// Requester.
        pub m_reg_rsp_src: u16,
        /// Tag.
        pub m_reg_rsp_tag: u16,
        /// Credits returned to the link partner.
        pub link_credit_return: u8,
        /// Injection credits held.
        pub stat_inj_credits: u8,
        /// PBV table entry.
        pub pbv_rd_dev_id: u16,
        /// CPU event valid.
        pub cpu_stat_valid: bool,
        /// CPU event.
        pub cpu_stat_event: u8,
        /// CPU event family.
        pub cpu_stat_family: bool,
        /// CPU event context.
        pub cpu_stat_ctx: u16,
        /// Event pulses into the register-space counters (bit k -> counter 2 + k).
        pub stat_event: u32,
    }
}

#[derive(Clone, Copy, Default, PartialEq)]
struct Wires {
    ip: InterposerIn,
    ck: InputCheckerIn,
    rs: RegisterSpaceIn,
    cpu: CpuIn,
    fb: FrameBuilderIn,
    oq: OutputQueueIn,
    cb: CompletionBuilderIn,
}

#[derive(Clone, Copy, Default)]
struct Outs {
    ip: InterposerOut,
    ck: InputCheckerOut,
    rs: RegisterSpaceOut,
    cpu: CpuOut,
    fb: FrameBuilderOut,
    oq: OutputQueueOut,
    cb: CompletionBuilderOut,
}

/// The frame arbiter in front of the output queue (`rtl/packet_engine.v`): frame builder and completion
/// builder, one whole frame at a time, round robin per frame when both offer one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Arbiter {
    /// Inside a frame (its first beat taken, not its last).
    busy: bool,
    /// Input of the frame in progress (true = completion builder).
    sel: bool,
    /// Input granted the last whole frame.
    last: bool,
}

impl Arbiter {
    /// The input selected this cycle (true = completion builder).
    fn select(&self, fb_valid: bool, cb_valid: bool) -> bool {
        if self.busy {
            self.sel
        } else if fb_valid && cb_valid {
            !self.last
        } else {
            cb_valid
        }
    }
}

/// The packet-engine top.
#[derive(Clone, Debug)]
pub struct PacketEngine {
    ip: Interposer,
    ck: InputChecker,
    rs: RegisterSpace,
    cpu: Cpu,
    fb: FrameBuilder,
    oq: OutputQueue,
    cb: CompletionBuilder,
    arb: Arbiter,
    wires: Wires,
    /// Block evaluations in the last cycle (6 when the first guess was right).
    pub evaluations: u32,
}

impl std::fmt::Debug for Wires {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Wires")
    }
}

/// A parameter the top's blocks reject.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("packet engine parameter: {0}")]
pub struct EngineParamError(pub String);

/// The inputs of every block given the top's inputs and every block's outputs (the RTL's wires).
fn wire(t: &EngineIn, o: &Outs, arb: &Arbiter) -> Wires {
    let mut w = Wires::default();
    let sel = arb.select(o.fb.m_axis_tvalid, o.cb.m_axis_tvalid);
    let local = o.oq.m_axis_tdest == (t.cfg_port & 0xF);
    // interposer
    w.ip = InterposerIn {
        rst: t.rst,
        s_axis_rx_tdata: t.s_axis_rx_tdata,
        s_axis_rx_tkeep: t.s_axis_rx_tkeep,
        s_axis_rx_tvalid: t.s_axis_rx_tvalid,
        s_axis_rx_tlast: t.s_axis_rx_tlast,
        m_axis_vl_tready: t.m_axis_vl_tready,
        m_axis_ext_tready: o.ck.s_axis_tready,
        s_axis_inj_tdata: o.oq.m_axis_tdata,
        s_axis_inj_tkeep: o.oq.m_axis_tkeep,
        s_axis_inj_tvalid: o.oq.m_axis_tvalid && local,
        s_axis_inj_tlast: o.oq.m_axis_tlast,
        vl_credit_return: t.vl_credit_return,
        cfg_family: t.cfg_family,
        cfg_port: t.cfg_port,
        cfg_engine_id: t.cfg_engine_id,
        cfg_ethertype: o.rs.cfg_ethertype,
        cfg_mcast_wr_en: o.rs.cfg_mcast_wr_en,
        cfg_mcast_wr_index: o.rs.cfg_mcast_wr_index,
        cfg_mcast_wr_valid: o.rs.cfg_mcast_wr_valid,
        cfg_mcast_wr_tree: o.rs.cfg_mcast_wr_tree,
        cfg_mcast_wr_wait_count: o.rs.cfg_mcast_wr_wait_count,
    };
    w.ck = InputCheckerIn {
        rst: t.rst,
        s_axis_tdata: o.ip.m_axis_ext_tdata,
        s_axis_tkeep: o.ip.m_axis_ext_tkeep,
        s_axis_tvalid: o.ip.m_axis_ext_tvalid,
        s_axis_tlast: o.ip.m_axis_ext_tlast,
        s_axis_tuser: o.ip.m_axis_ext_tuser,
        m_reg_ready: o.rs.s_reg_ready,
        m_msg_ready: o.cpu.s_msg_ready,
        m_ur_ready: o.cb.s_ur_ready,
        cfg_engine_id: t.cfg_engine_id,
        cfg_ethertype: o.rs.cfg_ethertype,
        cfg_vendor_id: o.rs.cfg_vendor_id,
        cfg_validation: o.rs.cfg_validation,
        cfg_vni_valid: o.rs.cfg_vni_valid,
        cfg_vni: o.rs.cfg_vni,
    };
    w.rs = RegisterSpaceIn {
        rst: t.rst,
        s_reg_valid: o.ck.m_reg_valid,
        s_reg_write: o.ck.m_reg_write,
        s_reg_addr: o.ck.m_reg_addr,
        s_reg_be: o.ck.m_reg_be,
        s_reg_wdata: o.ck.m_reg_wdata,
        s_reg_src: o.ck.m_reg_src,
        s_reg_tag: o.ck.m_reg_tag,
        cfg_engine_id: t.cfg_engine_id,
        m_reg_rsp_ready: o.cb.s_rsp_ready,
        pbv_rd_index: t.pbv_rd_index,
        stat_event: stat_event(o),
    };
    w.cpu.rst = t.rst;
        w.cpu.s_msg_valid = o.ck.m_msg_valid;
        w.cpu.s_msg_kind = o.ck.m_msg_kind;
        w.cpu.s_msg_family = o.ck.m_msg_family;
        w.cpu.s_msg_port = o.ck.m_msg_port;
        w.cpu.s_msg_ctx = o.ck.m_msg_ctx;
        w.cpu.s_msg_src = o.ck.m_msg_src;
        w.cpu.s_msg_dst = o.ck.m_msg_dst;
        w.cpu.s_msg_pid = o.ck.m_msg_pid;
        w.cpu.s_msg_dmu_id = o.ck.m_msg_dmu_id;
        w.cpu.s_msg_count = o.ck.m_msg_count;
        w.cpu.s_msg_code = o.ck.m_msg_code;
        w.cpu.s_msg_posted = o.ck.m_msg_posted;
        w.cpu.s_msg_error = o.ck.m_msg_error;
        w.cpu.s_msg_tid = o.ck.m_msg_tid;
        w.cpu.s_msg_vni = o.ck.m_msg_vni;
        w.cpu.s_msg_cookie = o.ck.m_msg_cookie;
        w.cpu.s_msg_seqno = o.ck.m_msg_seqno;
        w.cpu.s_msg_resno = o.ck.m_msg_resno;
        w.cpu.s_msg_retry = o.ck.m_msg_retry;
        w.cpu.s_msg_op = o.ck.m_msg_op;
        w.cpu.s_msg_rc = o.ck.m_msg_rc;
        w.cpu.s_msg_repsum_m = o.ck.m_msg_repsum_m;
        w.cpu.s_msg_repsum_oflow_id = o.ck.m_msg_repsum_oflow_id;
        w.cpu.s_msg_data = o.ck.m_msg_data;
        w.cpu.s_msg_pbv = o.ck.m_msg_pbv;
    w.cpu.m_msg_ready = o.fb.s_msg_ready;
    // The register space configures the CPU; the top port is a back door for the cycles it does not.
    w.cpu.cfg_wr_en = o.rs.cpu_cfg_wr_en || t.cpu_cfg_wr_en;
    (w.cpu.cfg_wr_addr, w.cpu.cfg_wr_data) =
        if o.rs.cpu_cfg_wr_en { (o.rs.cpu_cfg_wr_addr, o.rs.cpu_cfg_wr_data) } else { (t.cpu_cfg_wr_addr, t.cpu_cfg_wr_data) };
    w.fb.rst = t.rst;
        w.fb.s_msg_valid = o.cpu.m_msg_valid;
        w.fb.s_msg_kind = o.cpu.m_msg_kind;
        w.fb.s_msg_family = o.cpu.m_msg_family;
        w.fb.s_msg_port = o.cpu.m_msg_port;
        w.fb.s_msg_ctx = o.cpu.m_msg_ctx;
        w.fb.s_msg_src = o.cpu.m_msg_src;
        w.fb.s_msg_dst = o.cpu.m_msg_dst;
        w.fb.s_msg_pid = o.cpu.m_msg_pid;
        w.fb.s_msg_dmu_id = o.cpu.m_msg_dmu_id;
        w.fb.s_msg_count = o.cpu.m_msg_count;
        w.fb.s_msg_code = o.cpu.m_msg_code;
        w.fb.s_msg_posted = o.cpu.m_msg_posted;
        w.fb.s_msg_error = o.cpu.m_msg_error;
        w.fb.s_msg_tid = o.cpu.m_msg_tid;
        w.fb.s_msg_vni = o.cpu.m_msg_vni;
        w.fb.s_msg_cookie = o.cpu.m_msg_cookie;
        w.fb.s_msg_seqno = o.cpu.m_msg_seqno;
        w.fb.s_msg_resno = o.cpu.m_msg_resno;
        w.fb.s_msg_retry = o.cpu.m_msg_retry;
        w.fb.s_msg_op = o.cpu.m_msg_op;
        w.fb.s_msg_rc = o.cpu.m_msg_rc;
        w.fb.s_msg_repsum_m = o.cpu.m_msg_repsum_m;
        w.fb.s_msg_repsum_oflow_id = o.cpu.m_msg_repsum_oflow_id;
        w.fb.s_msg_data = o.cpu.m_msg_data;
        w.fb.s_msg_pbv = o.cpu.m_msg_pbv;
    w.fb.m_axis_tready = !sel && o.oq.s_axis_tready;
    w.fb.cfg_engine_id = t.cfg_engine_id;
    w.fb.cfg_vendor_id = o.rs.cfg_vendor_id;
    w.fb.cfg_ethertype = o.rs.cfg_ethertype;
    w.fb.cfg_src_mac = t.cfg_src_mac;
    w.fb.cfg_dst_mac = t.cfg_dst_mac;
    w.cb = CompletionBuilderIn {
        rst: t.rst,
        s_rsp_valid: o.rs.m_reg_rsp_valid,
        s_rsp_write: o.rs.m_reg_rsp_write,
        s_rsp_status: o.rs.m_reg_rsp_status,
        s_rsp_rdata: o.rs.m_reg_rsp_rdata,
        s_rsp_src: o.rs.m_reg_rsp_src,
        s_rsp_tag: o.rs.m_reg_rsp_tag,
        s_rsp_addr: o.rs.m_reg_rsp_addr,
        s_rsp_be: o.rs.m_reg_rsp_be,
        s_ur_valid: o.ck.m_ur_valid,
        s_ur_src: o.ck.m_ur_src,
        s_ur_tag: o.ck.m_ur_tag,
        s_ur_tc: o.ck.m_ur_tc,
        s_ur_attr: o.ck.m_ur_attr,
        s_ur_mem_read: o.ck.m_ur_mem_read,
        s_ur_locked: o.ck.m_ur_locked,
        s_ur_length: o.ck.m_ur_length,
        s_ur_first_be: o.ck.m_ur_first_be,
        s_ur_last_be: o.ck.m_ur_last_be,
        s_ur_addr: o.ck.m_ur_addr,
        m_axis_tready: sel && o.oq.s_axis_tready,
        cfg_engine_id: t.cfg_engine_id,
    };
    let q = if sel { (o.cb.m_axis_tdata, o.cb.m_axis_tkeep, o.cb.m_axis_tvalid, o.cb.m_axis_tlast, o.cb.m_axis_tuser) } else { (o.fb.m_axis_tdata, o.fb.m_axis_tkeep, o.fb.m_axis_tvalid, o.fb.m_axis_tlast, o.fb.m_axis_tuser) };
    w.oq = OutputQueueIn {
        rst: t.rst,
        s_axis_tdata: q.0,
        s_axis_tkeep: q.1,
        s_axis_tvalid: q.2,
        s_axis_tlast: q.3,
        s_axis_tuser: q.4,
        m_axis_tready: if local { o.ip.s_axis_inj_tready } else { t.m_axis_egress_tready },
        cfg_route_wr_en: o.rs.cfg_route_wr_en,
        cfg_route_wr_index: o.rs.cfg_route_wr_index,
        cfg_route_wr_valid: o.rs.cfg_route_wr_valid,
        cfg_route_wr_dest_id: o.rs.cfg_route_wr_dest_id,
        cfg_route_wr_dest_mask: o.rs.cfg_route_wr_dest_mask,
        cfg_route_wr_port: o.rs.cfg_route_wr_port,
    };
    w
}

/// `{cb_event[3:0], cpu_stat_valid, fb_event[1:0], oq_miss, ip_event[2:0], chk_event[20:0]}`.
fn stat_event(o: &Outs) -> u32 {
    (o.ck.stat_event & 0x1F_FFFF)
        | u32::from(o.ip.stat_event & 7) << 21
        | u32::from(o.oq.stat_route_miss) << 24
        | u32::from(o.fb.stat_event & 3) << 25
        | u32::from(o.cpu.stat_valid) << 27
        | u32::from(o.cb.stat_event & 0xF) << 28
}

fn top_out(t: &EngineIn, o: &Outs) -> EngineOut {
    let local = o.oq.m_axis_tdest == (t.cfg_port & 0xF);
    EngineOut {
        s_axis_rx_tready: o.ip.s_axis_rx_tready,
        m_axis_vl_tdata: o.ip.m_axis_vl_tdata,
        m_axis_vl_tkeep: o.ip.m_axis_vl_tkeep,
        m_axis_vl_tvalid: o.ip.m_axis_vl_tvalid,
        m_axis_vl_tlast: o.ip.m_axis_vl_tlast,
        m_axis_egress_tdata: o.oq.m_axis_tdata,
        m_axis_egress_tkeep: o.oq.m_axis_tkeep,
        m_axis_egress_tvalid: o.oq.m_axis_tvalid && !local,
        m_axis_egress_tlast: o.oq.m_axis_tlast,
        m_axis_egress_tdest: o.oq.m_axis_tdest,
        // A tap: one cycle per response, when the completion builder takes it.
        m_reg_rsp_valid: o.rs.m_reg_rsp_valid && o.cb.s_rsp_ready,
        m_reg_rsp_write: o.rs.m_reg_rsp_write,
        m_reg_rsp_status: o.rs.m_reg_rsp_status,
        m_reg_rsp_rdata: o.rs.m_reg_rsp_rdata,
        m_reg_rsp_src: o.rs.m_reg_rsp_src,
        m_reg_rsp_tag: o.rs.m_reg_rsp_tag,
        link_credit_return: o.ip.link_credit_return,
        stat_inj_credits: o.ip.stat_inj_credits,
        pbv_rd_dev_id: o.rs.pbv_rd_dev_id,
        cpu_stat_valid: o.cpu.stat_valid,
        cpu_stat_event: o.cpu.stat_event,
        cpu_stat_family: o.cpu.stat_family,
        cpu_stat_ctx: o.cpu.stat_ctx,
        stat_event: stat_event(o),
    }
}

impl PacketEngine {
    /// The top at power-on (registers as the Verilated RTL starts them, before the first reset).
    pub fn power_on(p: EngineParams) -> Result<Self, EngineParamError> {
        let e = |s: String| EngineParamError(s);
        Ok(PacketEngine {
            ip: Interposer::power_on(InterposerParams { inj_credits: p.inj_credits, ..InterposerParams::default() }).map_err(|x| e(x.to_string()))?,
            ck: InputChecker::new(CheckerParams::default()).map_err(|x| e(x.to_string()))?,
            rs: RegisterSpace::power_on_with(p.static_entries).map_err(|x| e(x.to_string()))?,
            cpu: Cpu::new(CpuParams { static_entries: p.static_entries, descriptors: p.descriptors, tick_cycles: p.tick_cycles }).map_err(|x| e(x.to_string()))?,
            fb: FrameBuilder::new(FrameBuilderParams::default()).ok_or_else(|| e("frame builder width".into()))?,
            oq: OutputQueue::new(OutputQueueParams { fifo_depth: p.fifo_depth, ..OutputQueueParams::default() }).map_err(|x| e(x.to_string()))?,
            cb: CompletionBuilder::new(CompletionBuilderParams::default()).map_err(|x| e(x.to_string()))?,
            arb: Arbiter::default(),
            wires: Wires::default(),
            evaluations: 0,
        })
    }

    /// The register space (counters, PBV table).
    pub fn regs(&self) -> &RegisterSpace {
        &self.rs
    }

    /// The CPU.
    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }
}

/// The blocks stepped on copies, not yet committed.
type Next = (
    Option<Interposer>,
    Option<InputChecker>,
    Option<RegisterSpace>,
    Option<Cpu>,
    Option<FrameBuilder>,
    Option<OutputQueue>,
    Option<CompletionBuilder>,
);

/// Rounds of settling before the wiring is declared a combinational loop.
const MAX_ROUNDS: usize = 16;

impl Block for PacketEngine {
    type In = EngineIn;
    type Out = EngineOut;

    fn step(&mut self, t: &EngineIn) -> EngineOut {
        // Start from last cycle's settled wires; the top's inputs replace their part at the first wiring.
        let mut w = self.wires;
        let mut next: Next = (None, None, None, None, None, None, None);
        let mut o = Outs::default();
        let mut done = Wires::default();
        let mut first = true;
        self.evaluations = 0;
        for _ in 0..MAX_ROUNDS {
            macro_rules! eval {
                ($f:ident, $slot:tt) => {
                    if first || w.$f != done.$f || next.$slot.is_none() {
                        let mut b = self.$f.clone();
                        o.$f = b.step(&w.$f);
                        next.$slot = Some(b);
                        done.$f = w.$f;
                        self.evaluations += 1;
                    }
                };
            }
            eval!(ip, 0);
            eval!(ck, 1);
            eval!(rs, 2);
            eval!(cpu, 3);
            eval!(fb, 4);
            eval!(oq, 5);
            eval!(cb, 6);
            first = false;
            let nw = wire(t, &o, &self.arb);
            if nw == done {
                self.ip = next.0.take().expect("evaluated");
                self.ck = next.1.take().expect("evaluated");
                self.rs = next.2.take().expect("evaluated");
                self.cpu = next.3.take().expect("evaluated");
                self.fb = next.4.take().expect("evaluated");
                self.oq = next.5.take().expect("evaluated");
                self.cb = next.6.take().expect("evaluated");
                // The arbiter's registers (rtl/packet_engine.v): a frame in progress keeps its input.
                let sel = self.arb.select(o.fb.m_axis_tvalid, o.cb.m_axis_tvalid);
                if t.rst {
                    self.arb = Arbiter::default();
                } else if nw.oq.s_axis_tvalid && o.oq.s_axis_tready {
                    self.arb.busy = !nw.oq.s_axis_tlast;
                    self.arb.sel = sel;
                    if nw.oq.s_axis_tlast {
                        self.arb.last = sel;
                    }
                }
                self.wires = nw;
                return top_out(t, &o);
            }
            w = nw;
        }
        panic!("packet engine: the wiring did not settle in {MAX_ROUNDS} rounds (a combinational loop)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idle() -> EngineIn {
        EngineIn { m_axis_vl_tready: true, m_axis_egress_tready: true, m_reg_rsp_ready: true, cfg_port: 7, cfg_engine_id: 0x0010, ..EngineIn::default() }
    }

    #[test]
    fn a_frame_for_someone_else_passes_in_one_cycle_and_the_wires_settle() {
        let p = EngineParams { static_entries: 2, descriptors: 2, tick_cycles: 16, ..EngineParams::default() };
        let mut e = PacketEngine::power_on(p).unwrap();
        for _ in 0..3 {
            e.step(&EngineIn { rst: true, ..idle() });
        }
        let o = e.step(&idle());
        assert_eq!(o.stat_inj_credits, 8, "injection credits after reset");
        assert!(o.s_axis_rx_tready);
        // A 1-beat memory write to another switch (TLP byte 2 = Fmt 010 Type 00000).
        let mut d = Wide::ZERO;
        d.set_byte(2, 0x40);
        d.set_byte(12, 0x12);
        let o = e.step(&EngineIn { s_axis_rx_tdata: d, s_axis_rx_tkeep: 0xFF_FFFF, s_axis_rx_tvalid: true, s_axis_rx_tlast: true, ..idle() });
        assert!(o.s_axis_rx_tready);
        assert!(e.evaluations >= 6 && e.evaluations <= 6 * MAX_ROUNDS as u32);
        let o = e.step(&idle());
        assert!(o.m_axis_vl_tvalid && o.m_axis_vl_tlast);
        assert_eq!(o.m_axis_vl_tdata, d);
        assert_eq!(o.stat_event >> 22 & 1, 1, "interposer: frame passed");
        assert!(!o.m_axis_egress_tvalid && !o.m_reg_rsp_valid);
    }
}
