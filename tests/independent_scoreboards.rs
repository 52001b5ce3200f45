//! Issue 22 §4: meta-tests of the scoreboards that had none. For each block, a deviation of each kind
//! its scoreboard claims to catch is planted in the model standing in for both the model and the RTL
//! (so lockstep equality cannot see it), by content, never by cycle (independent of the traffic's
//! timing); the scoreboard must object. The reduction unit's and the CPU's are in
//! `tests/independent_reduce_unit.rs` and `tests/independent_cpu_timers.rs`; the completion builder,
//! input checker, interposer, output queue, CPU and packet engine have theirs in `tests/cosim_*.rs`.

use inswitch::blocks::{axis_register, frame_builder, register_space};
use inswitch::checker::{Bench, Monitor, Stimulus};
use inswitch::mutation::{scoreboard_complaint, AsRtl, Mutant};
use inswitch::HarnessError;
use inswitch_model::axis_register::{AxisRegisterIn, AxisRegisterOut};
use inswitch_model::frame_builder::{FrameBuilderIn, FrameBuilderOut};
use inswitch_model::regs::{RegisterSpaceIn, RegisterSpaceOut};
use inswitch_model::Block;

type Bencher<M, R, S, Mon> = fn(&str, u64) -> Result<Bench<M, R, S, Mon>, HarnessError>;

/// Runs the block's own stimulus and scoreboard (from its `bench`) on the mutant `f` of its model on
/// both sides; returns the scoreboard's complaint.
fn complaint<M, R, S, Mon>(bench: Bencher<M, R, S, Mon>, model: &str, name: &str, f: fn(&M::In, &mut M::Out)) -> String
where
    M: Block,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
{
    let make = |seed: u64| -> Result<_, HarnessError> {
        let (m1, _, s, mon) = bench(model, seed)?;
        let (m2, _, _, _) = bench(model, seed)?;
        Ok((Mutant { inner: m1, f }, AsRtl(Mutant { inner: m2, f }), s, mon))
    };
    let msg = scoreboard_complaint(name, &make, 5, 200_000).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{name}: {msg}");
    msg
}

#[test]
fn the_register_slice_scoreboard_rejects_each_kind_of_deviation() {
    type F = fn(&AxisRegisterIn, &mut AxisRegisterOut);
    let cases: [(&str, F); 3] = [
        // A corrupted beat (the payload is checked beat for beat, in order).
        ("axis_data", |_, o| if o.m_axis_tvalid && o.m_axis_tdata.0[0] & 0x10 != 0 { o.m_axis_tdata.0[0] ^= 1 }),
        // tvalid low while a beat is held.
        ("axis_valid", |_, o| if o.m_axis_tvalid && o.m_axis_tdata.0[0] & 0x30 == 0x30 { o.m_axis_tvalid = false }),
        // tready low while the slice has room (throughput).
        ("axis_ready", |i, o| if o.s_axis_tready && i.s_axis_tdata.0[0] & 0x70 == 0x70 { o.s_axis_tready = false }),
    ];
    for (name, f) in cases {
        complaint(axis_register::bench, "axis_register", name, f);
    }
}

#[test]
fn the_frame_builder_scoreboard_rejects_each_kind_of_deviation() {
    type F = fn(&FrameBuilderIn, &mut FrameBuilderOut);
    let cases: [(&str, F); 3] = [
        // A corrupted byte in the last beat of every frame (LCRC / FCS or a field).
        ("frame_byte", |_, o| if o.m_axis_tvalid && o.m_axis_tlast { o.m_axis_tdata.0[0] ^= 0x0100 }),
        // The wrong outcome pulse.
        ("frame_event", |_, o| if o.stat_event != 0 { o.stat_event ^= 3 }),
        // The wrong destination on tuser.
        ("frame_tuser", |_, o| if o.m_axis_tvalid { o.m_axis_tuser ^= 0x0040 }),
    ];
    for (name, f) in cases {
        complaint(frame_builder::bench, "frame_builder_w256", name, f);
    }
}

#[test]
fn the_register_space_scoreboard_rejects_each_kind_of_deviation() {
    type F = fn(&RegisterSpaceIn, &mut RegisterSpaceOut);
    let cases: [(&str, F); 5] = [
        // FAILURE (0x16C) read with the family bit wrong: the CPU's status packed another way.
        ("reg_failure", |_, o| if o.m_reg_rsp_valid && !o.m_reg_rsp_write && o.m_reg_rsp_addr & 0xFFC == 0x16C { o.m_reg_rsp_rdata ^= 1 << 24 }),
        // Read data not the last authorized write.
        ("reg_rdata", |_, o| if o.m_reg_rsp_valid && !o.m_reg_rsp_write && o.m_reg_rsp_rdata != 0 { o.m_reg_rsp_rdata ^= 1 }),
        // The wrong status.
        ("reg_status", |_, o| if o.m_reg_rsp_valid && o.m_reg_rsp_write { o.m_reg_rsp_status ^= 1 }),
        // A configuration port that does not equal its register.
        ("reg_cfg_port", |_, o| if o.cfg_red_timeout0 & 4 != 0 { o.cfg_red_timeout0 ^= 1 }),
        // The response to another requester.
        ("reg_src", |_, o| if o.m_reg_rsp_valid { o.m_reg_rsp_src ^= 0x8000 }),
    ];
    for (name, f) in cases {
        complaint(register_space::bench, "register_space", name, f);
    }
}
