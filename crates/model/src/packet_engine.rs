//! The packet-engine top for one port (`rtl/packet_engine.v`, `docs/blocks/packet_engine.md`): the seven
//! block models (interposer, input checker, register space, CPU, frame builder, completion builder, output
//! queue), the nine register slices between them and the frame arbiter in front of the output queue, wired
//! exactly as the RTL wires them.
//!
//! Every stream between two blocks crosses a [`Slice`] (`rtl/axis_register.v`), whose outputs — valid and
//! data downstream, ready upstream — are registers, and the event vector into the register space is
//! registered. So within one cycle every block's inputs are functions of registers (slices, the event
//! register, the register space's configuration registers) and of the top's inputs only, and
//! [`PacketEngine::step`] evaluates each block exactly once, in a fixed order (§Model of the doc):
//!
//! 1. register space: its inputs are the register-request slice, the response slice's `ready`, the event
//!    register and top inputs; its `cfg_*` outputs are its own registers, which the other blocks read, and
//!    its CPU bridge `cpu_cfg_wr_*` (muxed with the top's back door) feeds the CPU of step 2;
//! 2. interposer, input checker, CPU, frame builder, completion builder, and the output queue behind the
//!    frame arbiter (any order among them): inputs from the slices' registered outputs, the register
//!    space's outputs of step 1 and the top's inputs. The arbiter's select is a function of its own
//!    registers and of the frame-builder and completion-builder slices' valids, so the output queue's
//!    inputs are functions of registers too;
//! 3. the top's outputs (the egress demultiplexer reads the output-queue slice's registers);
//! 4. the rising edge of the nine slices (their inputs are the blocks' outputs of step 2, including each
//!    downstream block's `ready`, which may depend combinationally on that block's inputs; the two builder
//!    slices get the output queue's ready through the arbiter's select), of the arbiter and of the event
//!    register.
//!
//! A block's combinational input-to-output paths (e.g. the checker's `s_axis_tready` on its `m_msg_ready`)
//! all end at a slice's or the event register's input, so no block's output feeds another block's input in
//! the same cycle, and one evaluation is exact.

use crate::axis_register::Slice;
use crate::input_checker::{CheckerParams, InputChecker, InputCheckerIn};
use crate::completion_builder::{CompletionBuilder, CompletionBuilderIn, CompletionBuilderParams};
use crate::cpu::{Cpu, CpuIn, CpuParams};
use crate::frame_builder::{FrameBuilder, FrameBuilderIn, FrameBuilderOut, FrameBuilderParams};
use crate::interposer::{Interposer, InterposerIn, InterposerParams};
use crate::output_queue::{OutputQueue, OutputQueueIn, OutputQueueParams};
use crate::register_space::{RegisterSpace, RegisterSpaceIn};
use crate::message::MsgPort;
use crate::signal::Block;
use crate::{ports, Wide};

/// Parameters of the top (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineParams {
    /// CPU static entries (`STATIC_ENTRIES`).
    pub static_entries: usize,
    /// CPU tree slots (`DESCRIPTORS`), each with `cpu::REDUCTIONS` descriptors (docs/blocks/cpu.md §Descriptors).
    pub descriptors: usize,
    /// CPU timer tick (`TICK_CYCLES`).
    pub tick_cycles: u32,
    /// Output-queue FIFO depth (`FIFO_DEPTH`).
    pub fifo_depth: usize,
    /// Injection credits (`INJ_CREDITS`).
    pub inj_credits: u32,
    /// Interposer multicast-table entries (`MCAST_ENTRIES`, docs/blocks/interposer.md §Multicast table).
    pub mcast_entries: usize,
}

impl Default for EngineParams {
    fn default() -> Self {
        EngineParams {
            // One per 12-bit CC_ID (000 [0169]), the RTL default.
            static_entries: crate::cpu::config::MAX_STATIC_ENTRIES,
            descriptors: 8,
            tick_cycles: 1024,
            fifo_depth: 32,
            inj_credits: 8,
            mcast_entries: crate::interposer::MCAST_ENTRIES_SEED,
        }
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
        /// Register-response ready: ignored (the response port is a status tap), kept for compatibility.
        pub m_reg_rsp_ready: bool,
        /// Credits returned by the VL queue.
        pub vl_credit_return: u8,
        /// Strap: port family (1 Portals).
        pub cfg_family: bool,
        /// Strap: the port's link runs in PCIe 6 flit mode (TLPs without sequence number or LCRC, marked
        /// to the checker in tuser bit 9; ignored on a Soft Portals port).
        pub cfg_flit: bool,
        /// Strap: port number.
        pub cfg_port: u8,
        /// Strap: engine device ID.
        pub cfg_engine_id: u16,
        /// Strap: source MAC of built frames.
        pub cfg_src_mac: u64,
        /// Strap: destination MAC of built frames.
        pub cfg_dst_mac: u64,
        /// CPU configuration back door: write enable (lost in a cycle the register space writes the CPU).
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
        /// Register response valid: a tap, one cycle per response, when the response slice takes it.
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
        /// CPU FAILURE status register: a Failure flag (001) was set since reset (`docs/blocks/cpu.md` §Ports).
        pub cpu_fail_valid: bool,
        /// CPU FAILURE status: family of the last failed context.
        pub cpu_fail_family: bool,
        /// CPU FAILURE status: key of the last failed context.
        pub cpu_fail_ctx: u16,
        /// CPU FAILURE status: Failure flags set since reset, saturating.
        pub cpu_fail_count: u8,
        /// Event pulses into the register-space counters (bit k -> counter 2 + k).
        pub stat_event: u32,
    }
}

/// The top's `stat_event`: each block's event bits, packed in this order from bit 0 (the register
/// space's counter 2 + k counts bit k; docs/blocks/packet_engine.md): `(RTL name prefix, bits)`. The RTL's
/// `<PREFIX>_EVENTS` and `EVENT_WIDTH` are generated from it (`rtl/packet_engine_codes.vh`).
pub const STAT_EVENT_FIELDS: [(&str, u32); 6] = [
    ("CHK", crate::input_checker::codes::event::COUNT),
    ("IP", crate::interposer::event::COUNT),
    // The output queue's route miss.
    ("OQ", 1),
    ("FB", crate::frame_builder::event::COUNT),
    // The CPU's stat_valid.
    ("CPU", 1),
    ("CB", crate::completion_builder::event::COUNT),
];
/// Bits of `stat_event` the blocks drive (`EVENT_WIDTH` in the RTL).
pub const EVENT_WIDTH: u32 = event_lsb(STAT_EVENT_FIELDS.len());
/// The field of [`STAT_EVENT_FIELDS`] that is the output queue's route miss.
const OQ_FIELD: usize = 2;
const _: () = assert!(STAT_EVENT_FIELDS[OQ_FIELD].1 == 1, "the route miss is one bit");
/// The `stat_event` bit of the output queue's route miss: a frame dropped because no route entry
/// matched its destination (`docs/blocks/output_queue.md`; the fabric counts them, `Stats::route_misses`).
pub const ROUTE_MISS_EVENT: u32 = 1 << event_lsb(OQ_FIELD);
const _: () = assert!(EVENT_WIDTH <= 32, "stat_event is a u32");
/// The bits of `stat_event` the blocks drive.
const EVENT_MASK: u32 = low_bits(EVENT_WIDTH);

/// The first bit of field `i` of [`STAT_EVENT_FIELDS`] (`i` = the count: the width of all).
const fn event_lsb(i: usize) -> u32 {
    let (mut lsb, mut k) = (0, 0);
    while k < i {
        lsb += STAT_EVENT_FIELDS[k].1;
        k += 1;
    }
    lsb
}

/// A mask of the low `n` bits (`n` <= 32).
const fn low_bits(n: u32) -> u32 {
    if n >= 32 { u32::MAX } else { (1 << n) - 1 }
}

/// Block `i`'s events `v` in their place in `stat_event`.
#[inline]
fn event_field(i: usize, v: u32) -> u32 {
    (v & low_bits(STAT_EVENT_FIELDS[i].1)) << event_lsb(i)
}

/// The text of `rtl/packet_engine_codes.vh`, to be included inside module `packet_engine`.
pub fn verilog_header() -> String {
    let mut h = crate::codes::Header::new(&[
        "// The packet engine's stat_event layout (docs/blocks/packet_engine.md), included inside module",
        "// packet_engine (rtl/packet_engine.v).",
        "// GENERATED from crates/model/src/packet_engine.rs (STAT_EVENT_FIELDS, from the blocks' event tables): do",
        "// not edit; run `INSWITCH_BLESS=1 cargo test --release -p inswitch-model packet_engine_codes` (the same",
        "// test checks it). The one-bit events are plain wires, hence UNUSEDPARAM off.",
        "",
        "// verilator lint_off UNUSEDPARAM",
    ]);
    let widths = STAT_EVENT_FIELDS.iter().map(|&(n, w)| (format!("{n}_EVENTS"), u64::from(w))).collect::<Vec<_>>();
    let lines = crate::codes::integers(widths.iter().map(|(n, w)| (n.as_str(), *w)).chain([("EVENT_WIDTH", u64::from(EVENT_WIDTH))]));
    h.section("Event bits of each block, packed from bit 0 in this order; EVENT_WIDTH in all", &lines);
    h.line("// verilator lint_on UNUSEDPARAM");
    h.text()
}
/// The output queue's `tdest` bits (its `PORT_WIDTH`): the low bits of `cfg_port` that mean "this port".
const PORT_MASK: u8 = 0xF;

/// One beat of the interposer's extraction stream (`ext_slice_inst`).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct ExtBeat {
    tdata: Wide,
    tkeep: u64,
    tlast: bool,
    tuser: u16,
}

/// One register access from the checker (`reg_slice_inst`).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct RegReq {
    write: bool,
    addr: u16,
    be: u8,
    wdata: u32,
    src: u16,
    tag: u16,
}

/// One register response (`rsp_slice_inst`).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct RegRsp {
    write: bool,
    status: u8,
    rdata: u32,
    src: u16,
    tag: u16,
    addr: u16,
    be: u8,
}

/// One Unsupported Request from the checker (`ur_slice_inst`).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct UrReq {
    src: u16,
    tag: u16,
    tc: u8,
    attr: u8,
    mem_read: bool,
    locked: bool,
    length: u16,
    first_be: u8,
    last_be: u8,
    addr: u8,
}

/// The frame arbiter in front of the output queue (`rtl/packet_engine.v`): the frame-builder and
/// completion-builder slices, one whole frame at a time, round robin per frame when both offer one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Arbiter {
    /// `arb_busy_reg`: inside a frame (its first beat taken, not its last).
    busy: bool,
    /// `arb_sel_reg`: input of the frame in progress (true = completion builder).
    sel: bool,
    /// `arb_last_reg`: input granted the last whole frame.
    last: bool,
}

impl Arbiter {
    /// `arb_sel`: the input selected this cycle (true = completion builder).
    fn select(&self, fb_valid: bool, cb_valid: bool) -> bool {
        if self.busy {
            self.sel
        } else if fb_valid && cb_valid {
            !self.last
        } else {
            cb_valid
        }
    }

    /// The rising edge: a beat taken by the output queue (`valid && ready`) moves the state.
    fn edge(&mut self, rst: bool, sel: bool, valid: bool, ready: bool, last: bool) {
        if rst {
            *self = Arbiter::default();
        } else if valid && ready {
            self.busy = !last;
            self.sel = sel;
            if last {
                self.last = sel;
            }
        }
    }
}

/// One frame-builder or completion-builder beat with its destination ID (`fb_slice_inst`, `cb_slice_inst`).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct FbBeat {
    tdata: Wide,
    tkeep: u64,
    tlast: bool,
    tuser: u16,
}

/// One output-queue beat with its egress port (`oq_slice_inst`).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct OqBeat {
    tdata: Wide,
    tkeep: u64,
    tlast: bool,
    tdest: u8,
}

/// The CPU's and the frame builder's inputs, kept from cycle to cycle: their 168-byte message payload
/// (`s_msg`) is copied in only when the slice in front of the block loads a new one, not every cycle
/// (the two copies were the top's largest cost after the blocks, issue 23). Not state of its own: the
/// payloads are copies of the slices' output registers and the other fields are rewritten every cycle
/// before the block steps, so it takes no part in comparing two engines.
#[derive(Clone, Copy, Debug, Default)]
struct HeldInputs {
    cpu: CpuIn,
    fb: FrameBuilderIn,
}

impl PartialEq for HeldInputs {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The packet-engine top.
#[derive(Clone, Debug, PartialEq)]
pub struct PacketEngine {
    ip: Interposer,
    ck: InputChecker,
    rs: RegisterSpace,
    cpu: Cpu,
    fb: FrameBuilder,
    oq: OutputQueue,
    cb: CompletionBuilder,
    ext: Slice<ExtBeat>,
    reg: Slice<RegReq>,
    cpu_msg: Slice<MsgPort>,
    fb_msg: Slice<MsgPort>,
    fb_out: Slice<FbBeat>,
    oq_out: Slice<OqBeat>,
    rsp: Slice<RegRsp>,
    ur: Slice<UrReq>,
    cb_out: Slice<FbBeat>,
    arb: Arbiter,
    /// `stat_event_reg`: last cycle's events, counted by the register space now.
    stat_event_reg: u32,
    /// The last cycle offered a back-door `cpu_cfg_wr_*` write while the register space wrote the CPU:
    /// the back-door write was lost (a model observation, not an RTL port).
    backdoor_lost: bool,
    /// The register space's own CPU write of the last cycle (`cpu_cfg_wr_addr/data` of its bridge), if
    /// any (a model observation, not an RTL port).
    bridge_write: Option<(u16, u32)>,
    /// The CPU's and the frame builder's inputs ([`HeldInputs`]).
    held: HeldInputs,
}

/// A parameter the top's blocks reject.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("packet engine parameter: {0}")]
pub struct EngineParamError(pub String);

impl PacketEngine {
    /// The top at power-on (registers as the Verilated RTL starts them, before the first reset).
    pub fn power_on(p: EngineParams) -> Result<Self, EngineParamError> {
        let e = |s: String| EngineParamError(s);
        Ok(PacketEngine {
            ip: Interposer::power_on(InterposerParams { inj_credits: p.inj_credits, mcast_entries: p.mcast_entries, ..InterposerParams::default() }).map_err(|x| e(x.to_string()))?,
            ck: InputChecker::new(CheckerParams::default()).map_err(|x| e(x.to_string()))?,
            rs: RegisterSpace::power_on_sized(p.static_entries, p.mcast_entries).map_err(|x| e(x.to_string()))?,
            cpu: Cpu::new(CpuParams { static_entries: p.static_entries, descriptors: p.descriptors, tick_cycles: p.tick_cycles }).map_err(|x| e(x.to_string()))?,
            fb: FrameBuilder::new(FrameBuilderParams::default()).ok_or_else(|| e("frame builder width".into()))?,
            oq: OutputQueue::new(OutputQueueParams { fifo_depth: p.fifo_depth, ..OutputQueueParams::default() }).map_err(|x| e(x.to_string()))?,
            cb: CompletionBuilder::new(CompletionBuilderParams::default()).map_err(|x| e(x.to_string()))?,
            ext: Slice::default(),
            reg: Slice::default(),
            cpu_msg: Slice::default(),
            fb_msg: Slice::default(),
            fb_out: Slice::default(),
            oq_out: Slice::default(),
            rsp: Slice::default(),
            ur: Slice::default(),
            cb_out: Slice::default(),
            arb: Arbiter::default(),
            stat_event_reg: 0,
            backdoor_lost: false,
            bridge_write: None,
            // The slices' power-on payloads are the default message, as here.
            held: HeldInputs::default(),
        })
    }

    /// The register space (counters, PBV table).
    pub fn regs(&self) -> &RegisterSpace {
        &self.rs
    }

    /// Whether the interposer is clearing its multicast table after a reset (receive held,
    /// docs/blocks/interposer.md §Multicast table; [`PacketEngine::advance_idle`] advances it in closed form).
    pub fn clearing(&self) -> bool {
        self.ip.clearing()
    }

    /// Cycles of the interposer's clearing sweep still to run ([`Interposer::clear_remaining`]), 0 when
    /// none runs: the cycle after them is the first in which a receive beat can be taken.
    pub fn clear_remaining(&self) -> u64 {
        self.ip.clear_remaining()
    }

    /// The CPU.
    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }

    /// The interposer's [`Interposer::start_contention`] in the last [`Block::step`]: a receive frame
    /// start waited behind a full extraction path while a frame for this port could have been injected
    /// (a model observation for the cosim's functional coverage, not an RTL port).
    pub fn start_contention(&self) -> bool {
        self.ip.start_contention()
    }

    /// Whether the last [`Block::step`] lost its back-door `cpu_cfg_wr_*` write to the register space's
    /// own CPU write in the same cycle (the post-reset copy, or a write into the CPU window): a driver
    /// offers it again.
    pub fn cpu_backdoor_lost(&self) -> bool {
        self.backdoor_lost
    }

    /// The register space's write to the CPU in the last [`Block::step`] (`(word address, value)`), if it
    /// wrote one: the post-reset copy or a register write into the CPU window (`docs/blocks/register_space.md` §CPU
    /// window).
    pub fn cpu_bridge_write(&self) -> Option<(u16, u32)> {
        self.bridge_write
    }

    /// Puts the engine in exactly the state `n` cycles of the input `held` would leave it in, without
    /// stepping them, and returns the outputs the last of those cycles shows (every one of them shows
    /// the same, except that the cycles of the interposer's clearing sweep hold `s_axis_rx_tready` low).
    /// For simulators that let an idle engine sleep (`crates/fabric`, `docs/fabric.md` §Engines).
    ///
    /// Contract, checked: the engine is *quiescent* under `held`, i.e. one cycle of `held` changes
    /// nothing but the CPU's timer prescaler and running timers and the index of the interposer's
    /// clearing sweep after a reset (checked by stepping a copy one cycle and comparing the whole
    /// state), `held` is not a reset, and `n` does not pass the cycle in which the first running CPU
    /// timer expires ([`Cpu::cycles_to_expiry`]; an expired timer starts the sequencer). Then every
    /// further cycle does the same, because no block reads the prescaler, a timer value or the sweep's
    /// index except the tick logic and the sweep itself, which [`Cpu`] and [`Interposer`] advance in
    /// closed form, until the sweep ends: from then on receive is no longer held, so if `n` crosses the
    /// sweep's end the quiescence is checked again on the state at its end (a beat offered in `held`,
    /// which the sweep held, would now be taken). Otherwise the engine is left as it was and the error
    /// says which condition failed.
    pub fn advance_idle(&mut self, n: u64, held: &EngineIn) -> Result<EngineOut, AdvanceError> {
        if held.rst {
            return Err(AdvanceError::Reset);
        }
        if let Some(limit) = self.cpu.cycles_to_expiry().filter(|&l| n > l) {
            return Err(AdvanceError::PastExpiry { n, limit });
        }
        let sweep = self.ip.clear_remaining();
        let mut stepped = self.clone();
        let out = stepped.step(held);
        let mut advanced = self.clone();
        advanced.advance_closed(1);
        if stepped != advanced {
            return Err(AdvanceError::NotQuiescent);
        }
        if sweep == 0 || n <= sweep {
            self.advance_closed(n);
            return Ok(out);
        }
        // `n` crosses the sweep's end: the state at its end must be quiescent under `held` too.
        advanced.advance_closed(sweep - 1);
        let mut stepped = advanced.clone();
        let out = stepped.step(held);
        advanced.advance_closed(1);
        if stepped != advanced {
            return Err(AdvanceError::NotQuiescent);
        }
        advanced.advance_closed(n - sweep - 1);
        *self = advanced;
        Ok(out)
    }

    /// `n` quiescent cycles in closed form: the CPU's prescaler and timers, the interposer's sweep, the
    /// register space's clearing sweep of its static entries (which holds register accesses only, none
    /// of which is waiting in a quiescent engine, so it ends without an effect).
    fn advance_closed(&mut self, n: u64) {
        self.cpu.advance_timers(n);
        self.ip.advance_clear(n);
        self.rs.advance_sweep(n);
    }
}

/// Why [`PacketEngine::advance_idle`] refused to advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AdvanceError {
    /// A reset is not an idle cycle.
    #[error("a reset is not an idle cycle")]
    Reset,
    /// One cycle of the held input changes more than the CPU's prescaler and timers.
    #[error("the engine is not quiescent: one cycle of the held input changes more than the CPU timers")]
    NotQuiescent,
    /// A running CPU timer expires `limit` cycles from now, before the `n` asked for.
    #[error("a CPU timer expires in {limit} cycles, before the {n} asked for")]
    PastExpiry {
        /// Cycles asked for.
        n: u64,
        /// Cycles to the first expiry (that cycle included).
        limit: u64,
    },
}

impl Block for PacketEngine {
    type In = EngineIn;
    type Out = EngineOut;

    fn step(&mut self, t: &EngineIn) -> EngineOut {
        // 1. Register space: every input is a register or a top input (the CPU's FAILURE status is
        //    its registers, read before the CPU steps).
        let rq = self.reg.m_data();
        let (fail_valid, fail_family, fail_ctx, fail_count) = self.cpu.fail_status();
        let rs = self.rs.step(&RegisterSpaceIn {
            rst: t.rst,
            s_reg_valid: self.reg.m_valid(),
            s_reg_write: rq.write,
            s_reg_addr: rq.addr,
            s_reg_be: rq.be,
            s_reg_wdata: rq.wdata,
            s_reg_src: rq.src,
            s_reg_tag: rq.tag,
            cfg_engine_id: t.cfg_engine_id,
            m_reg_rsp_ready: self.rsp.s_ready(),
            pbv_rd_index: t.pbv_rd_index,
            stat_event: self.stat_event_reg,
            cpu_fail_valid: fail_valid,
            cpu_fail_family: fail_family,
            cpu_fail_ctx: fail_ctx,
            cpu_fail_count: fail_count,
        });

        // 2. The other blocks, each once, from registers, the register space's outputs and top inputs.
        let inj = self.oq_out.m_data();
        let local = inj.tdest == t.cfg_port & PORT_MASK;
        let ip = self.ip.step(&InterposerIn {
            rst: t.rst,
            s_axis_rx_tdata: t.s_axis_rx_tdata,
            s_axis_rx_tkeep: t.s_axis_rx_tkeep,
            s_axis_rx_tvalid: t.s_axis_rx_tvalid,
            s_axis_rx_tlast: t.s_axis_rx_tlast,
            m_axis_vl_tready: t.m_axis_vl_tready,
            m_axis_ext_tready: self.ext.s_ready(),
            s_axis_inj_tdata: inj.tdata,
            s_axis_inj_tkeep: inj.tkeep,
            s_axis_inj_tvalid: self.oq_out.m_valid() && local,
            s_axis_inj_tlast: inj.tlast,
            vl_credit_return: t.vl_credit_return,
            cfg_family: t.cfg_family,
            cfg_flit: t.cfg_flit,
            cfg_port: t.cfg_port,
            cfg_engine_id: t.cfg_engine_id,
            cfg_ethertype: rs.cfg_ethertype,
            cfg_mcast_wr_en: rs.cfg_mcast_wr_en,
            cfg_mcast_wr_valid: rs.cfg_mcast_wr_valid,
            cfg_mcast_wr_tree: rs.cfg_mcast_wr_tree,
            cfg_mcast_wr_wait_count: rs.cfg_mcast_wr_wait_count,
        });
        let ext = self.ext.m_data();
        let ck = self.ck.step(&InputCheckerIn {
            rst: t.rst,
            s_axis_tdata: ext.tdata,
            s_axis_tkeep: ext.tkeep,
            s_axis_tvalid: self.ext.m_valid(),
            s_axis_tlast: ext.tlast,
            s_axis_tuser: ext.tuser,
            m_reg_ready: self.reg.s_ready(),
            m_ur_ready: self.ur.s_ready(),
            m_msg_ready: self.cpu_msg.s_ready(),
            cfg_engine_id: t.cfg_engine_id,
            cfg_ethertype: rs.cfg_ethertype,
            cfg_vendor_id: rs.cfg_vendor_id,
            cfg_validation: rs.cfg_validation,
            cfg_vni_valid: rs.cfg_vni_valid,
            cfg_vni: rs.cfg_vni,
        });
        self.backdoor_lost = t.cpu_cfg_wr_en && rs.cpu_cfg_wr_en;
        self.bridge_write = rs.cpu_cfg_wr_en.then_some((rs.cpu_cfg_wr_addr, rs.cpu_cfg_wr_data));
        // `s_msg` of both is already the slice's output register ([`HeldInputs`]).
        let ci = &mut self.held.cpu;
        ci.rst = t.rst;
        ci.s_msg_valid = self.cpu_msg.m_valid();
        ci.m_msg_ready = self.fb_msg.s_ready();
        // The register space's bridge; the top port is a back door for the cycles it does not write.
        ci.cfg_wr_en = rs.cpu_cfg_wr_en || t.cpu_cfg_wr_en;
        ci.cfg_wr_addr = if rs.cpu_cfg_wr_en { rs.cpu_cfg_wr_addr } else { t.cpu_cfg_wr_addr };
        ci.cfg_wr_data = if rs.cpu_cfg_wr_en { rs.cpu_cfg_wr_data } else { t.cpu_cfg_wr_data };
        debug_assert!(ci.s_msg == *self.cpu_msg.m_data());
        let cpu = self.cpu.step(&self.held.cpu);
        let fi = &mut self.held.fb;
        fi.rst = t.rst;
        fi.s_msg_valid = self.fb_msg.m_valid();
        fi.m_axis_tready = self.fb_out.s_ready();
        fi.cfg_engine_id = t.cfg_engine_id;
        fi.cfg_vendor_id = rs.cfg_vendor_id;
        fi.cfg_ethertype = rs.cfg_ethertype;
        fi.cfg_src_mac = t.cfg_src_mac;
        fi.cfg_dst_mac = t.cfg_dst_mac;
        debug_assert!(fi.s_msg == *self.fb_msg.m_data());
        let fb = self.fb.step(&self.held.fb);
        let r = self.rsp.m_data();
        let u = self.ur.m_data();
        let cb = self.cb.step(&CompletionBuilderIn {
            rst: t.rst,
            s_rsp_valid: self.rsp.m_valid(),
            s_rsp_write: r.write,
            s_rsp_status: r.status,
            s_rsp_rdata: r.rdata,
            s_rsp_src: r.src,
            s_rsp_tag: r.tag,
            s_rsp_addr: r.addr,
            s_rsp_be: r.be,
            s_ur_valid: self.ur.m_valid(),
            s_ur_src: u.src,
            s_ur_tag: u.tag,
            s_ur_tc: u.tc,
            s_ur_attr: u.attr,
            s_ur_mem_read: u.mem_read,
            s_ur_locked: u.locked,
            s_ur_length: u.length,
            s_ur_first_be: u.first_be,
            s_ur_last_be: u.last_be,
            s_ur_addr: u.addr,
            m_axis_tready: self.cb_out.s_ready(),
            cfg_engine_id: t.cfg_engine_id,
        });
        // The arbiter: its select reads registers only (its state, the two builder slices' valids).
        let sel = self.arb.select(self.fb_out.m_valid(), self.cb_out.m_valid());
        let (q, q_valid) = if sel { (self.cb_out.m_data(), self.cb_out.m_valid()) } else { (self.fb_out.m_data(), self.fb_out.m_valid()) };
        let oq = self.oq.step(&OutputQueueIn {
            rst: t.rst,
            s_axis_tdata: q.tdata,
            s_axis_tkeep: q.tkeep,
            s_axis_tvalid: q_valid,
            s_axis_tlast: q.tlast,
            s_axis_tuser: q.tuser,
            m_axis_tready: self.oq_out.s_ready(),
            cfg_route_wr_en: rs.cfg_route_wr_en,
            cfg_route_wr_index: rs.cfg_route_wr_index,
            cfg_route_wr_valid: rs.cfg_route_wr_valid,
            cfg_route_wr_dest_id: rs.cfg_route_wr_dest_id,
            cfg_route_wr_dest_mask: rs.cfg_route_wr_dest_mask,
            cfg_route_wr_port: rs.cfg_route_wr_port,
        });

        // 3. The top's outputs: {cb_event, cpu_stat_valid, fb_event, oq_miss, ip_event, chk_event}
        // (STAT_EVENT_FIELDS).
        let stat_event = event_field(0, ck.stat_event)
            | event_field(1, u32::from(ip.stat_event))
            | event_field(OQ_FIELD, u32::from(oq.stat_route_miss))
            | event_field(3, u32::from(fb.stat_event))
            | event_field(4, u32::from(cpu.stat_valid))
            | event_field(5, u32::from(cb.stat_event));
        let out = EngineOut {
            s_axis_rx_tready: ip.s_axis_rx_tready,
            m_axis_vl_tdata: ip.m_axis_vl_tdata,
            m_axis_vl_tkeep: ip.m_axis_vl_tkeep,
            m_axis_vl_tvalid: ip.m_axis_vl_tvalid,
            m_axis_vl_tlast: ip.m_axis_vl_tlast,
            m_axis_egress_tdata: inj.tdata,
            m_axis_egress_tkeep: inj.tkeep,
            m_axis_egress_tvalid: self.oq_out.m_valid() && !local,
            m_axis_egress_tlast: inj.tlast,
            m_axis_egress_tdest: inj.tdest,
            m_reg_rsp_valid: rs.m_reg_rsp_valid && self.rsp.s_ready(),
            m_reg_rsp_write: rs.m_reg_rsp_write,
            m_reg_rsp_status: rs.m_reg_rsp_status,
            m_reg_rsp_rdata: rs.m_reg_rsp_rdata,
            m_reg_rsp_src: rs.m_reg_rsp_src,
            m_reg_rsp_tag: rs.m_reg_rsp_tag,
            link_credit_return: ip.link_credit_return,
            stat_inj_credits: ip.stat_inj_credits,
            pbv_rd_dev_id: rs.pbv_rd_dev_id,
            cpu_stat_valid: cpu.stat_valid,
            cpu_stat_event: cpu.stat_event,
            cpu_stat_family: cpu.stat_family,
            cpu_stat_ctx: cpu.stat_ctx,
            cpu_fail_valid: cpu.fail_valid,
            cpu_fail_family: cpu.fail_family,
            cpu_fail_ctx: cpu.fail_ctx,
            cpu_fail_count: cpu.fail_count,
            stat_event,
        };

        // 4. Rising edge of the slices and the event register. A payload is built only when the slice
        //    takes it (the RTL's data registers load only with a beat).
        let oq_ready = if local { ip.s_axis_inj_tready } else { t.m_axis_egress_tready };
        self.oq_out.edge_with(t.rst, oq.m_axis_tvalid, oq_ready, || OqBeat {
            tdata: oq.m_axis_tdata,
            tkeep: oq.m_axis_tkeep,
            tlast: oq.m_axis_tlast,
            tdest: oq.m_axis_tdest,
        });
        self.ext.edge_with(t.rst, ip.m_axis_ext_tvalid, ck.s_axis_tready, || ExtBeat {
            tdata: ip.m_axis_ext_tdata,
            tkeep: ip.m_axis_ext_tkeep,
            tlast: ip.m_axis_ext_tlast,
            tuser: ip.m_axis_ext_tuser,
        });
        self.reg.edge_with(t.rst, ck.m_reg_valid, rs.s_reg_ready, || RegReq {
            write: ck.m_reg_write,
            addr: ck.m_reg_addr,
            be: ck.m_reg_be,
            wdata: ck.m_reg_wdata,
            src: ck.m_reg_src,
            tag: ck.m_reg_tag,
        });
        if self.cpu_msg.edge_with(t.rst, ck.m_msg_valid, cpu.s_msg_ready, || ck.m_msg) {
            self.held.cpu.s_msg = *self.cpu_msg.m_data();
        }
        if self.fb_msg.edge_with(t.rst, cpu.m_msg_valid, fb.s_msg_ready, || cpu.m_msg) {
            self.held.fb.s_msg = *self.fb_msg.m_data();
        }
        self.rsp.edge_with(t.rst, rs.m_reg_rsp_valid, cb.s_rsp_ready, || RegRsp {
            write: rs.m_reg_rsp_write,
            status: rs.m_reg_rsp_status,
            rdata: rs.m_reg_rsp_rdata,
            src: rs.m_reg_rsp_src,
            tag: rs.m_reg_rsp_tag,
            addr: rs.m_reg_rsp_addr,
            be: rs.m_reg_rsp_be,
        });
        self.ur.edge_with(t.rst, ck.m_ur_valid, cb.s_ur_ready, || UrReq {
            src: ck.m_ur_src,
            tag: ck.m_ur_tag,
            tc: ck.m_ur_tc,
            attr: ck.m_ur_attr,
            mem_read: ck.m_ur_mem_read,
            locked: ck.m_ur_locked,
            length: ck.m_ur_length,
            first_be: ck.m_ur_first_be,
            last_be: ck.m_ur_last_be,
            addr: ck.m_ur_addr,
        });
        // The output queue's ready reaches the slice the arbiter selects (the sampled `sel` and `q_last`
        // are functions of this cycle's registers, read before any slice edge).
        let q_last = q.tlast;
        self.arb.edge(t.rst, sel, q_valid, oq.s_axis_tready, q_last);
        self.fb_out.edge_with(t.rst, fb.m_axis_tvalid, !sel && oq.s_axis_tready, || fb_beat(&fb));
        self.cb_out.edge_with(t.rst, cb.m_axis_tvalid, sel && oq.s_axis_tready, || FbBeat {
            tdata: cb.m_axis_tdata,
            tkeep: cb.m_axis_tkeep,
            tlast: cb.m_axis_tlast,
            tuser: cb.m_axis_tuser,
        });
        self.stat_event_reg = if t.rst { 0 } else { stat_event & EVENT_MASK };
        out
    }
}

/// The builder's stream outputs as a slice payload.
fn fb_beat(o: &FrameBuilderOut) -> FbBeat {
    FbBeat { tdata: o.m_axis_tdata, tkeep: o.m_axis_tkeep, tlast: o.m_axis_tlast, tuser: o.m_axis_tuser }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_engine_codes_vh_is_current() {
        crate::codes::check_generated("packet_engine_codes.vh", &verilog_header(), "packet_engine_codes");
    }

    /// The layout is the one the register space counts: 32 events, the completion builder's on top.
    #[test]
    fn packet_engine_codes_event_layout() {
        assert_eq!(EVENT_WIDTH as usize, crate::register_space::STAT_EVENTS);
        assert_eq!(event_lsb(5), 28);
        assert_eq!(event_field(5, 0xF), 0xF000_0000);
    }

    fn idle() -> EngineIn {
        EngineIn { m_axis_vl_tready: true, m_axis_egress_tready: true, m_reg_rsp_ready: true, cfg_port: 7, cfg_engine_id: 0x0010, ..EngineIn::default() }
    }

    #[test]
    fn a_frame_for_someone_else_passes_in_two_cycles() {
        let p = EngineParams { static_entries: 2, descriptors: 2, tick_cycles: 16, mcast_entries: 16, ..EngineParams::default() };
        let mut e = PacketEngine::power_on(p).unwrap();
        for _ in 0..3 {
            e.step(&EngineIn { rst: true, ..idle() });
        }
        // The interposer clears its multicast table after reset, one entry per cycle, holding rx.
        let mut o = e.step(&idle());
        let mut sweep = 1;
        while e.clearing() {
            assert!(!o.s_axis_rx_tready, "rx is held while the table is cleared");
            o = e.step(&idle());
            sweep += 1;
        }
        assert_eq!(sweep, 16, "one cycle per entry");
        assert!(!o.s_axis_rx_tready, "the last entry's cycle still holds rx");
        let o = e.step(&idle());
        assert_eq!(o.stat_inj_credits, 8, "injection credits after reset");
        assert!(o.s_axis_rx_tready);
        // A 1-beat memory write to another switch (TLP byte 2 = Fmt 010 Type 00000).
        let mut d = Wide::ZERO;
        d.set_byte(2, 0x40);
        d.set_byte(12, 0x12);
        let o = e.step(&EngineIn { s_axis_rx_tdata: d, s_axis_rx_tkeep: 0xFF_FFFF, s_axis_rx_tvalid: true, s_axis_rx_tlast: true, ..idle() });
        assert!(o.s_axis_rx_tready);
        // The interposer's receive stage (the multicast table's synchronous read) holds it one cycle.
        let o = e.step(&idle());
        assert!(!o.m_axis_vl_tvalid, "in the receive stage");
        let o = e.step(&idle());
        assert!(o.m_axis_vl_tvalid && o.m_axis_vl_tlast);
        assert_eq!(o.m_axis_vl_tdata, d);
        assert_eq!(o.stat_event >> 22 & 1, 1, "interposer: frame passed");
        assert!(!o.m_axis_egress_tvalid && !o.m_reg_rsp_valid);
    }
}
