//! Issue 22 §4: meta-tests of the scoreboards that had none. For each block, a deviation of each kind
//! its scoreboard claims to catch is planted in the model standing in for both the model and the RTL
//! (so lockstep equality cannot see it), by content, never by cycle (independent of the traffic's
//! timing); the scoreboard must object, with the message of the check that kind of deviation belongs to.
//! The completion builder, input checker, interposer and output queue are here as well as the register
//! slice, frame builder and register space; the reduction unit's and the CPU's are in
//! `tests/independent_reduce_unit.rs`, `tests/independent_cpu_timers.rs` and
//! `tests/independent_cpu_tables.rs`; the packet engine's in `tests/cosim_packet_engine.rs`
//! (`the_scoreboard_rejects_wrong_behaviour`, `..._each_kind_of_deviation`).

use inswitch::blocks::{axis_register, completion_builder, frame_builder, input_checker, interposer, output_queue, register_space};
use inswitch::checker::{Bench, Monitor, Stimulus};
use inswitch::mutation::{scoreboard_complaint, AsRtl, Mutant};
use inswitch::HarnessError;
use inswitch_frames::crc;
use inswitch_model::axis_register::{AxisRegisterIn, AxisRegisterOut};
use inswitch_model::input_checker::{event, InputCheckerIn, InputCheckerOut};
use inswitch_model::completion_builder::{CompletionBuilderIn, CompletionBuilderOut};
use inswitch_model::interposer::{InterposerIn, InterposerOut};
use inswitch_model::output_queue::{OutputQueueIn, OutputQueueOut};
use inswitch_model::frame_builder::{FrameBuilderIn, FrameBuilderOut};
use inswitch_model::register_space::{RegisterSpaceIn, RegisterSpaceOut};
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
        let Bench { model: m1, stimulus: s, monitor: mon, .. } = bench(model, seed)?;
        let m2 = bench(model, seed)?.model;
        Ok(Bench::new(Mutant { inner: m1, f }, AsRtl(Mutant { inner: m2, f }), s, mon))
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

/// Like [`complaint`], for a deviation that may keep state (planted at the first matching event, a whole
/// frame suppressed); the scoreboard's message must contain one of `want`.
fn complaint_by<M, R, S, Mon, F>(bench: Bencher<M, R, S, Mon>, model: &str, name: &str, f: F, want: &[&str])
where
    M: Block,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
    F: FnMut(&M::In, &mut M::Out) + Clone,
{
    let make = |seed: u64| -> Result<_, HarnessError> {
        let Bench { model: m1, stimulus: s, monitor: mon, .. } = bench(model, seed)?;
        let m2 = bench(model, seed)?.model;
        Ok(Bench::new(Mutant { inner: m1, f: f.clone() }, AsRtl(Mutant { inner: m2, f: f.clone() }), s, mon))
    };
    let msg = scoreboard_complaint(name, &make, 5, 200_000).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{name}: {msg}");
    assert!(want.iter().any(|w| msg.contains(w)), "{name}: the scoreboard objected, but not with {want:?}: {msg}");
}

/// Rewrites the LCRC of the one-beat completion on `o` after a planted field change, so that the field's
/// own check (not the LCRC's) must object.
fn refix_lcrc(o: &mut CompletionBuilderOut) {
    let n = o.m_axis_tkeep.trailing_ones() as usize;
    let bytes: Vec<u8> = (0..n).map(|k| o.m_axis_tdata.byte(k)).collect();
    let seq = u16::from_be_bytes([bytes[0], bytes[1]]);
    for (k, b) in crc::lcrc(seq, &bytes[2..n - 4]).to_le_bytes().into_iter().enumerate() {
        o.m_axis_tdata.set_byte(n - 4 + k, b);
    }
}

/// A field of the completion on `o` changed at frame byte `k` by `x`, the LCRC made right again.
fn plant_byte(o: &mut CompletionBuilderOut, k: usize, x: u8) {
    if o.m_axis_tvalid && (o.m_axis_tkeep.trailing_ones() as usize) > k + 4 {
        o.m_axis_tdata.set_byte(k, o.m_axis_tdata.byte(k) ^ x);
        refix_lcrc(o);
    }
}

/// Every check of the completion builder's scoreboard (verif/blocks/completion_builder.rs), one planted
/// deviation each. Frame bytes: 0-1 sequence, 2-5 DW0, 6-9 Completer ID / status / Byte Count, 10-13
/// Requester ID / tag / Lower Address, 14-17 the CplD's data, then the LCRC.
#[test]
fn the_completion_builder_scoreboard_rejects_each_kind_of_deviation() {
    type F = fn(&CompletionBuilderIn, &mut CompletionBuilderOut);
    let cases: [(&str, F, &str); 15] = [
        ("cpl_tuser", |_, o| if o.m_axis_tvalid { o.m_axis_tuser ^= 0x0100 }, "tuser"),
        ("cpl_length", |_, o| if o.m_axis_tvalid { o.m_axis_tkeep >>= 4 }, "completion frame of"),
        ("cpl_sequence", |_, o| plant_byte(o, 1, 0x01), "sequence field"),
        ("cpl_lcrc", |_, o| if o.m_axis_tvalid { let n = o.m_axis_tkeep.trailing_ones() as usize; o.m_axis_tdata.set_byte(n - 1, o.m_axis_tdata.byte(n - 1) ^ 0x80) }, "LCRC wrong"),
        // DW0 byte 1 bits 6:4: the Traffic Class.
        ("cpl_dw0_tc", |_, o| plant_byte(o, 3, 0x10), "DW0"),
        ("cpl_byte_count", |_, o| plant_byte(o, 9, 0x01), "byte count"),
        ("cpl_lower_address", |_, o| plant_byte(o, 13, 0x04), "lower address"),
        ("cpl_payload", |_, o| if o.m_axis_tkeep.trailing_ones() == 22 { plant_byte(o, 14, 0x01) }, "payload"),
        // A successful read reported as a rejected one.
        ("cpl_event", |_, o| if o.stat_event == 0x1 { o.stat_event = 0x2 }, "stat_event 0x2, expected 0x1"),
        ("cpl_event_from_nowhere", |i, o| if o.stat_event == 0 && !o.m_axis_tvalid && !i.rst { o.stat_event = 0x8 }, "with no request taken"),
        ("cpl_completion_late", |_, o| if o.stat_event & 0x7 != 0 { o.m_axis_tvalid = false }, "expected its completion now"),
        ("cpl_beat_from_nowhere", |i, o| if !o.m_axis_tvalid && o.stat_event == 0 && !i.rst { o.m_axis_tvalid = true; o.m_axis_tlast = true }, "a completion beat with no request"),
        ("cpl_tlast", |_, o| if o.m_axis_tvalid { o.m_axis_tlast = false }, "tlast must be set"),
        ("cpl_tkeep", |_, o| if o.m_axis_tvalid { o.m_axis_tkeep &= !0x4 }, "not contiguous"),
        ("cpl_both_taken", |i, o| if i.s_rsp_valid && i.s_ur_valid && o.s_rsp_ready { o.s_ur_ready = true }, "both streams taken"),
    ];
    for (name, f, want) in cases {
        complaint_by(completion_builder::bench, "completion_builder", name, f, &[want]);
    }
    // Register responses first (docs/blocks/completion_builder.md): a dropped request taken instead.
    let f: F = |i, o| {
        if i.s_rsp_valid && i.s_ur_valid && o.s_rsp_ready {
            o.s_rsp_ready = false;
            o.s_ur_ready = true;
        }
    };
    complaint_by(completion_builder::bench, "completion_builder", "cpl_priority", f, &["while a register response waits"]);
}

/// Every check of the input checker's scoreboard (verif/blocks/input_checker/), one planted deviation
/// each; the verdict pulse comes four cycles after a frame's last beat is taken (k+4).
#[test]
fn the_input_checker_scoreboard_rejects_each_kind_of_deviation() {
    const DROP_LCRC: u32 = 1 << event::LCRC;
    const DROP_FCS: u32 = 1 << event::FCS;
    const REG: u32 = 1 << event::ACCEPT_REG;
    const MSG: u32 = 1 << event::ACCEPT_MSG;
    type F = fn(&InputCheckerIn, &mut InputCheckerOut);
    let cases: [(&str, F, &[&str]); 9] = [
        ("ic_two_pulses", |_, o| if o.stat_event != 0 { o.stat_event |= if o.stat_event == DROP_FCS { DROP_LCRC } else { DROP_FCS } }, &["is not one pulse"]),
        ("ic_drop_reason", |_, o| if o.stat_event >= 1 << event::TKEEP { o.stat_event = if o.stat_event == DROP_LCRC { DROP_FCS } else { DROP_LCRC } }, &["expected drop"]),
        // A frame with a defect accepted (a labelled defect, or random bytes).
        ("ic_bad_frame_accepted", |_, o| if o.stat_event >= 1 << event::TKEEP { o.stat_event = MSG }, &["expected drop", "random bytes accepted"]),
        ("ic_good_frame_dropped", |_, o| if o.stat_event == MSG { o.stat_event = DROP_LCRC }, &["outcome lcrc, message"]),
        ("ic_register_access", |_, o| if o.stat_event == REG { o.m_reg_addr ^= 1 }, &["register access"]),
        ("ic_message_field", |_, o| if o.stat_event == MSG { o.m_msg.ctx ^= 1 }, &["message"]),
        ("ic_output_from_nowhere", |_, o| if o.stat_event == 0 && !o.m_msg_valid { o.m_msg_valid = true }, &["without an accepted frame"]),
        ("ic_ur_field", |_, o| if o.m_ur_valid && o.stat_event != 0 { o.m_ur_tag ^= 1 }, &["Unsupported Request"]),
        ("ic_ur_from_nowhere", |_, o| if o.stat_event == 0 && !o.m_ur_valid { o.m_ur_valid = true }, &["Unsupported Request valid"]),
    ];
    for (name, f, want) in cases {
        complaint_by(input_checker::bench, "input_checker_w256", name, f, want);
    }
    // A verdict in a cycle where none is due: the model, whose verdict comes through the four-stage
    // pipeline (docs/blocks/input_checker.md §Timing), shows none this cycle.
    let f = |i: &InputCheckerIn, o: &mut InputCheckerOut| {
        if o.stat_event == 0 && !i.rst {
            o.stat_event = DROP_LCRC;
        }
    };
    complaint_by(input_checker::bench, "input_checker_w256", "ic_verdict_from_nowhere", f, &["with no verdict due"]);
}

/// Every check of the interposer's scoreboard (verif/blocks/interposer.rs), one planted deviation each.
#[test]
fn the_interposer_scoreboard_rejects_each_kind_of_deviation() {
    type F = fn(&InterposerIn, &mut InterposerOut);
    let cases: [(&str, F, &[&str]); 10] = [
        ("ip_credit_invented", |i, o| if o.link_credit_return == 0 && !i.rst { o.link_credit_return = 1 }, &["credits do not balance"]),
        ("ip_credit_lost", |_, o| if o.link_credit_return > 0 { o.link_credit_return -= 1 }, &["credits do not balance"]),
        ("ip_injection_credit", |_, o| if o.stat_inj_credits > 0 { o.stat_inj_credits -= 1 }, &["credits do not balance"]),
        ("ip_event", |_, o| if o.stat_event != 0 { o.stat_event ^= 0x7 }, &["stat_event"]),
        ("ip_event_lost", |_, o| o.stat_event = 0, &["stat_event"]),
        ("ip_passed_beat", |_, o| if o.m_axis_vl_tvalid && o.m_axis_vl_tlast { o.m_axis_vl_tdata.0[0] ^= 1 }, &["left as", "neither the next receive frame"]),
        ("ip_extracted_beat", |_, o| if o.m_axis_ext_tvalid { o.m_axis_ext_tdata.0[0] ^= 1 }, &["extracted frame: beat"]),
        ("ip_extracted_tuser", |_, o| if o.m_axis_ext_tvalid { o.m_axis_ext_tuser ^= 1 }, &["extracted frame: beat"]),
        ("ip_vl_beat_from_nowhere", |i, o| if !o.m_axis_vl_tvalid && !i.rst { o.m_axis_vl_tvalid = true }, &["neither the next receive frame", "with no frame waiting"]),
        ("ip_ext_beat_from_nowhere", |i, o| if !o.m_axis_ext_tvalid && !i.rst { o.m_axis_ext_tvalid = true }, &["extracted frame: a beat with no frame waiting"]),
    ];
    for (name, f, want) in cases {
        complaint_by(interposer::bench, "interposer", name, f, want);
    }
    // A frame for the engine sent on to the VL queue (the wrong decision): its beats moved from
    // m_axis_ext to an idle m_axis_vl.
    let f: F = |_, o| {
        if o.m_axis_ext_tvalid && !o.m_axis_vl_tvalid {
            o.m_axis_vl_tvalid = true;
            o.m_axis_vl_tdata = o.m_axis_ext_tdata;
            o.m_axis_vl_tkeep = o.m_axis_ext_tkeep;
            o.m_axis_vl_tlast = o.m_axis_ext_tlast;
            o.m_axis_ext_tvalid = false;
        }
    };
    complaint_by(interposer::bench, "interposer", "ip_wrong_decision", f, &["neither the next receive frame", "left as"]);
}

/// Every check of the output queue's scoreboard (verif/blocks/output_queue.rs), one planted deviation
/// each. A wrongful route miss is planted on a hand-written trace in `tests/cosim_output_queue.rs`
/// (`the_scoreboard_rejects_what_the_queue_must_never_do`): under random traffic the oldest waiting
/// frame may be one that some route-table version leaves unroutable, whose drop is legal.
#[test]
fn the_output_queue_scoreboard_rejects_each_kind_of_deviation() {
    type F = fn(&OutputQueueIn, &mut OutputQueueOut);
    let cases: [(&str, F, &[&str]); 3] = [
        ("oq_beat_from_nowhere", |i, o| if !o.m_axis_tvalid && !i.rst { o.m_axis_tvalid = true; o.m_axis_tlast = true }, &["no frame is waiting", "leaves before it arrived"]),
        ("oq_corrupted_beat", |_, o| if o.m_axis_tvalid && o.m_axis_tlast { o.m_axis_tdata.0[0] ^= 1 }, &["left as"]),
        ("oq_wrong_port", |_, o| if o.m_axis_tvalid { o.m_axis_tdest ^= 1 }, &["no route-table version", "left as"]),
    ];
    for (name, f, want) in cases {
        complaint_by(output_queue::bench, "output_queue_w64", name, f, want);
    }
    // A frame lost (never shown, no route miss): the first whole frame offered is hidden.
    let (mut hiding, mut done, mut in_frame) = (false, false, false);
    let f = move |i: &OutputQueueIn, o: &mut OutputQueueOut| {
        if !o.m_axis_tvalid || i.rst {
            return;
        }
        let taken = i.m_axis_tready;
        if !done && !in_frame {
            hiding = true;
        }
        if taken {
            in_frame = !o.m_axis_tlast;
        }
        if hiding {
            if taken && o.m_axis_tlast {
                hiding = false;
                done = true;
            }
            o.m_axis_tvalid = false;
        }
    };
    complaint_by(output_queue::bench, "output_queue_w64", "oq_lost_frame", f, &["left as", "no route-table version", "leaves before it arrived"]);
}
