//! Co-simulation of the completion builder: stimulus, independent scoreboard, targets.
//!
//! Stimulus (seeded, in phases): register-space responses (reads and writes, every status, random byte
//! enables, offsets, requester IDs and 10-bit tags, read data) and dropped non-posted requests (memory
//! reads of every length 1-1024 DW with valid byte enables, locked reads, other non-posted types, random
//! TC and Attr), on both streams at once in phases so the priority is exercised; idle gaps, output
//! backpressure, Completer-ID changes, resets.
//!
//! Scoreboard (independent of the cycle model): every taken request gives exactly one `stat_event` pulse
//! the next cycle naming its outcome, and every non-posted one exactly one completion, in order, offered
//! from that same cycle; each frame is one beat with tlast, contiguous tkeep, `tuser` = Requester ID, and
//! is decoded with the frames crate: sequence field counting completions from 0 after reset, LCRC by
//! `crc::lcrc`, `Tlp::parse` of a completion (CplD for a successful read with the read data, Cpl for UR
//! and CA, CplLk for a locked read) whose Completer ID, status, Requester ID, tag, TC, Attr, BCM, Byte
//! Count and Lower Address equal what the request asks for. Byte Count and Lower Address are computed
//! here by listing the request's enabled byte addresses (the first and the last), not with Table 2-40's
//! formula the model and RTL use. The first [`ORACLE_SAMPLES`] completions are kept with their requests
//! for the cocotbext-pcie oracle (`tests/cosim_completion_builder.rs`).

use std::collections::VecDeque;

use inswitch_frames::crc;
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::completion_builder::{CompletionBuilder, CompletionBuilderIn, CompletionBuilderOut, CompletionBuilderParams};
use rand::RngExt;

use crate::checker::{self, Bench, Monitor, Outcome, RunConfig, RunError, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, Gaps, Phases, Resets, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated completion builder.
pub type CompletionBuilderRtl = VerilatedDut<CompletionBuilderIn, CompletionBuilderOut>;

/// Completions kept (with their requests) for the cocotbext-pcie oracle.
pub const ORACLE_SAMPLES: usize = 600;

/// What a request asks for, as the scoreboard reads the documented rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// Completion Status code (0 SC, 1 UR, 4 CA); `None`: a posted write, no completion.
    pub status: Option<u8>,
    /// Read data (SC only).
    pub data: u32,
    /// Requester ID.
    pub requester_id: u16,
    /// 10-bit tag.
    pub tag: u16,
    /// Traffic Class.
    pub tc: u8,
    /// Attr\[2:0\].
    pub attr: u8,
    /// Memory read (Byte Count / Lower Address from the request).
    pub mem_read: bool,
    /// Locked read (CplLk).
    pub locked: bool,
    /// Length in DW, 1-1024.
    pub length_dw: u32,
    /// First DW BE.
    pub first_be: u8,
    /// Last DW BE.
    pub last_be: u8,
    /// Address bits 6:0.
    pub addr: u8,
    /// Completer ID in force when the request was taken.
    pub completer_id: u16,
    /// Sequence number the frame must carry.
    pub seq: u16,
}

impl Expected {
    /// Byte addresses (relative to the request's DW-aligned address) of the enabled bytes.
    fn enabled_bytes(&self) -> Vec<u32> {
        let mut v = Vec::new();
        for dw in 0..self.length_dw {
            let be = if dw == 0 {
                self.first_be
            } else if dw + 1 == self.length_dw {
                self.last_be
            } else {
                0xF
            };
            v.extend((0..4).filter(|b| be >> b & 1 != 0).map(|b| 4 * dw + b));
        }
        v
    }

    /// Byte Count the completion must carry (§2.3.1.1: first to last enabled byte of a memory read; a
    /// zero-length read counts 1; every other request 4), as the 12-bit field.
    pub fn byte_count(&self) -> u16 {
        if !self.mem_read {
            return 4;
        }
        let e = self.enabled_bytes();
        let n = match (e.first(), e.last()) {
            (Some(f), Some(l)) => l - f + 1,
            _ => 1,
        };
        (n & 0xFFF) as u16
    }

    /// Lower Address the completion must carry (the first enabled byte's address bits 6:0 for a memory
    /// read, 0 for a zero-length read's byte lane, 0 for every other request).
    pub fn lower_address(&self) -> u8 {
        if !self.mem_read {
            return 0;
        }
        let first = self.enabled_bytes().first().copied().unwrap_or(0);
        ((u32::from(self.addr) & 0x7C) + first) as u8 & 0x7F
    }
}

/// A completion kept for the oracle: the request and the TLP bytes (no sequence field, no LCRC).
#[derive(Clone, Debug)]
pub struct Sample {
    /// What was asked.
    pub expected: Expected,
    /// The TLP the block built.
    pub tlp: Vec<u8>,
}

/// The seeded stimulus of the completion builder.
pub struct CompletionBuilderStimulus {
    r: StimRng,
    phases: Phases,
    last: CompletionBuilderIn,
    idle_rsp: Gaps,
    idle_ur: Gaps,
    stall: Gaps,
    resets: Resets,
    engine_id: u16,
}

impl CompletionBuilderStimulus {
    fn new(seed: u64) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        CompletionBuilderStimulus {
            r,
            phases,
            last: CompletionBuilderIn::default(),
            idle_rsp: Gaps::default(),
            idle_ur: Gaps::default(),
            stall: Gaps::default(),
            resets: Resets::new(),
            engine_id: 0x0010,
        }
    }

    fn any_be(r: &mut StimRng) -> u8 {
        match r.random_range(0..4) {
            0 => r.random_range(0..16),
            _ => 0xF,
        }
    }

    fn response(&mut self, i: &mut CompletionBuilderIn) {
        let r = &mut self.r;
        i.s_rsp_valid = true;
        i.s_rsp_write = r.random_bool(0.4);
        i.s_rsp_status = [0, 0, 0, 1, 2, 2, 3][r.random_range(0..7)];
        i.s_rsp_rdata = r.random();
        i.s_rsp_src = r.random();
        i.s_rsp_tag = r.random::<u16>() & 0x3FF;
        i.s_rsp_addr = r.random::<u16>() & 0x0FFF;
        i.s_rsp_be = Self::any_be(r);
    }

    fn dropped_request(&mut self, i: &mut CompletionBuilderIn) {
        let r = &mut self.r;
        i.s_ur_valid = true;
        i.s_ur_src = r.random();
        i.s_ur_tag = r.random::<u16>() & 0x3FF;
        i.s_ur_tc = r.random_range(0..8);
        i.s_ur_attr = r.random_range(0..8);
        i.s_ur_mem_read = r.random_bool(0.7);
        i.s_ur_locked = i.s_ur_mem_read && r.random_bool(0.2);
        i.s_ur_addr = r.random::<u8>() & 0x7F;
        // Valid byte enables (PCIe §2.2.5): a 1-DW request has Last BE 0; a longer one non-zero BEs.
        let length: u16 = match r.random_range(0..5) {
            0 | 1 => 1,
            2 => r.random_range(2..4),
            3 => r.random_range(1..1024),
            _ => 0, // 1024 DW
        };
        i.s_ur_length = length;
        if length == 1 {
            i.s_ur_first_be = Self::any_be(r);
            i.s_ur_last_be = 0;
        } else {
            i.s_ur_first_be = r.random_range(1..16);
            i.s_ur_last_be = r.random_range(1..16);
        }
        if !i.s_ur_mem_read {
            // IO / configuration / AtomicOp: 1 DW or an atomic operand; the fields do not matter.
            i.s_ur_length = r.random_range(1..3);
        }
    }
}

impl Stimulus<CompletionBuilderIn, CompletionBuilderOut> for CompletionBuilderStimulus {
    fn next(&mut self, previous: &CompletionBuilderOut) -> CompletionBuilderIn {
        if self.phases.tick(&mut self.r) && self.r.random_bool(0.2) {
            self.engine_id = self.r.random();
        }
        let prof = self.phases.profile;
        let mut i = self.last;
        i.rst = false;
        if !self.last.s_rsp_valid || previous.s_rsp_ready {
            i.s_rsp_valid = false;
            if !self.idle_rsp.gap(&mut self.r, prof.idle, prof.persist) {
                self.response(&mut i);
            }
        }
        if !self.last.s_ur_valid || previous.s_ur_ready {
            i.s_ur_valid = false;
            // Dropped requests are rarer than register accesses, except in some phases.
            if !self.idle_ur.gap(&mut self.r, (prof.idle * 2.0).min(0.95), prof.persist) {
                self.dropped_request(&mut i);
            }
        }
        i.m_axis_tready = !self.stall.gap(&mut self.r, prof.stall, prof.persist);
        i.cfg_engine_id = self.engine_id;
        if self.resets.tick(&mut self.r) {
            i.rst = true;
            i.s_rsp_valid = false;
            i.s_ur_valid = false;
        }
        self.last = i;
        i
    }
}

/// Counters of [`CompletionBuilderMonitor`], by name.
pub mod counter {
    /// CplD (successful register reads).
    pub const CPLD: &str = "cpld";
    /// Unsupported Request completions from register responses.
    pub const UR_REGISTER: &str = "ur_register";
    /// Unsupported Request completions from dropped requests.
    pub const UR_DROPPED: &str = "ur_dropped";
    /// Of those, CplLk.
    pub const UR_LOCKED: &str = "ur_locked";
    /// Of those, memory reads longer than 1 DW.
    pub const UR_MULTI_DW: &str = "ur_multi_dw";
    /// Completer Abort completions.
    pub const CA: &str = "ca";
    /// Posted-write responses (no completion).
    pub const POSTED: &str = "posted";
    /// Cycles both streams offered a request.
    pub const BOTH_OFFERED: &str = "both_offered_cycles";
    /// Cycles the output stalled.
    pub const STALLED: &str = "stalled_cycles";
    /// Resets.
    pub const RESETS: &str = "resets";
}

const NAMES: [&str; 10] = [
    counter::CPLD,
    counter::UR_REGISTER,
    counter::UR_DROPPED,
    counter::UR_LOCKED,
    counter::UR_MULTI_DW,
    counter::CA,
    counter::POSTED,
    counter::BOTH_OFFERED,
    counter::STALLED,
    counter::RESETS,
];

/// Independent transaction-level scoreboard of the completion builder.
pub struct CompletionBuilderMonitor {
    /// Outcome due this cycle (the request taken at the last edge).
    due: Option<Expected>,
    frames: VecDeque<Expected>,
    seq: u16,
    armed: bool,
    log: TransactionLog,
    counts: [u64; 10],
    samples: Vec<Sample>,
}

impl Default for CompletionBuilderMonitor {
    fn default() -> Self {
        Self::new()
    }
}

impl CompletionBuilderMonitor {
    /// A scoreboard before the first reset.
    pub fn new() -> Self {
        CompletionBuilderMonitor { due: None, frames: VecDeque::new(), seq: 0, armed: false, log: TransactionLog::default(), counts: [0; 10], samples: Vec::new() }
    }

    /// Completions kept for the oracle.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    fn bump(&mut self, name: &'static str) {
        let i = NAMES.iter().position(|&n| n == name).unwrap_or(0);
        self.counts[i] += 1;
    }

    fn check_frame(&mut self, e: &Expected, bytes: &[u8], tuser: u16) -> Result<(), String> {
        if tuser != e.requester_id {
            return Err(format!("tuser {tuser:#06x}, Requester ID {:#06x}", e.requester_id));
        }
        let n = bytes.len();
        let want_len = if e.status == Some(0) { 22 } else { 18 };
        if n != want_len {
            return Err(format!("completion frame of {n} bytes, expected {want_len}"));
        }
        let seq = u16::from_be_bytes([bytes[0], bytes[1]]);
        if seq != e.seq {
            return Err(format!("sequence field {seq:#06x}, expected {:#06x}", e.seq));
        }
        let tlp = &bytes[2..n - 4];
        let lcrc = u32::from_le_bytes([bytes[n - 4], bytes[n - 3], bytes[n - 2], bytes[n - 1]]);
        if lcrc != crc::lcrc(seq, tlp) {
            return Err("LCRC wrong".into());
        }
        let t = Tlp::parse(tlp).map_err(|err| format!("frames crate rejects the completion: {err}"))?;
        let Header::Completion(h) = &t.header else { return Err(format!("not a completion: {:?}", t.header)) };
        let d = &t.dw0;
        let want_type = if e.locked { 0b01011 } else { 0b01010 };
        let want_fmt = if e.status == Some(0) { 0b010 } else { 0b000 };
        let tag = u16::from(d.t9) << 9 | u16::from(d.t8) << 8 | u16::from(h.tag);
        let got = (d.fmt, d.tlp_type, d.tc, u8::from(d.attr2) << 2 | d.attr, d.th, d.td, d.ep, d.ln, d.at, d.length);
        let want = (want_fmt, want_type, e.tc, e.attr, false, false, false, false, 0, u16::from(e.status == Some(0)));
        if got != want {
            return Err(format!("DW0 (fmt, type, tc, attr, th, td, ep, ln, at, length) = {got:?}, expected {want:?}"));
        }
        let got = (h.completer_id, Some(h.status), h.bcm, h.byte_count, h.requester_id, tag, h.reserved, h.lower_address);
        let want = (e.completer_id, e.status, false, e.byte_count(), e.requester_id, e.tag, false, e.lower_address());
        if got != want {
            return Err(format!("completion (completer, status, bcm, byte count, requester, tag, R, lower address) = {got:x?}, expected {want:x?}"));
        }
        let want_payload: Vec<u8> = if e.status == Some(0) { e.data.to_le_bytes().to_vec() } else { Vec::new() };
        if t.payload != want_payload {
            return Err(format!("payload {:02x?}, expected {want_payload:02x?}", t.payload));
        }
        if self.samples.len() < ORACLE_SAMPLES {
            self.samples.push(Sample { expected: e.clone(), tlp: tlp.to_vec() });
        }
        Ok(())
    }
}

impl Monitor<CompletionBuilderIn, CompletionBuilderOut> for CompletionBuilderMonitor {
    fn observe(&mut self, cycle: u64, i: &CompletionBuilderIn, o: &CompletionBuilderOut) -> Result<(), String> {
        if self.armed {
            match self.due.take() {
                None if o.stat_event != 0 => return Err(format!("stat_event {:#x} with no request taken", o.stat_event)),
                None => {}
                Some(e) => {
                    let want_event = match e.status {
                        None => 0x8,
                        Some(0) => 0x1,
                        Some(1) => 0x2,
                        Some(_) => 0x4,
                    };
                    if o.stat_event != want_event {
                        return Err(format!("stat_event {:#x}, expected {want_event:#x} for {e:x?}", o.stat_event));
                    }
                    if e.status.is_some() {
                        if !o.m_axis_tvalid || !self.frames.is_empty() {
                            return Err(format!("request taken: tvalid {}, {} frames ahead; expected its completion now", o.m_axis_tvalid, self.frames.len()));
                        }
                        self.frames.push_back(e);
                    }
                }
            }
            if o.m_axis_tvalid && self.frames.is_empty() {
                return Err("a completion beat with no request".into());
            }
            if o.m_axis_tvalid && !i.m_axis_tready {
                self.bump(counter::STALLED);
            }
            if o.m_axis_tvalid && i.m_axis_tready {
                if !o.m_axis_tlast {
                    return Err("a completion is one beat: tlast must be set".into());
                }
                let n = o.m_axis_tkeep.trailing_ones() as usize;
                if o.m_axis_tkeep != (1u64 << n) - 1 {
                    return Err(format!("tkeep {:#x} not contiguous from bit 0", o.m_axis_tkeep));
                }
                let bytes: Vec<u8> = (0..n).map(|k| o.m_axis_tdata.byte(k)).collect();
                let e = self.frames.pop_front().ok_or("frame vanished")?;
                self.check_frame(&e, &bytes, o.m_axis_tuser)?;
                self.log.push(cycle, format!("completion status {:?} to {:#06x} tag {:#05x} checked", e.status, e.requester_id, e.tag));
            }
            if i.s_rsp_valid && i.s_ur_valid {
                self.bump(counter::BOTH_OFFERED);
            }
        }
        let taken_rsp = i.s_rsp_valid && o.s_rsp_ready && !i.rst;
        let taken_ur = i.s_ur_valid && o.s_ur_ready && !i.rst;
        if taken_rsp && taken_ur {
            return Err("both streams taken in one cycle".into());
        }
        if i.s_rsp_valid && !o.s_rsp_ready && o.s_ur_ready {
            return Err("a dropped request taken while a register response waits".into());
        }
        let mut e = None;
        if taken_rsp {
            let status = if i.s_rsp_write {
                self.bump(counter::POSTED);
                None
            } else {
                // docs/blocks/completion_builder.md: OK -> SC, unmapped (2) -> UR, rejected (1) and 3 -> CA.
                Some(match i.s_rsp_status & 3 {
                    0 => {
                        self.bump(counter::CPLD);
                        0
                    }
                    2 => {
                        self.bump(counter::UR_REGISTER);
                        1
                    }
                    _ => {
                        self.bump(counter::CA);
                        4
                    }
                })
            };
            e = Some(Expected {
                status,
                data: i.s_rsp_rdata,
                requester_id: i.s_rsp_src,
                tag: i.s_rsp_tag & 0x3FF,
                tc: 0,
                attr: 0,
                mem_read: true,
                locked: false,
                length_dw: 1,
                first_be: i.s_rsp_be & 0xF,
                last_be: 0,
                addr: (i.s_rsp_addr & 0x7F) as u8,
                completer_id: i.cfg_engine_id,
                seq: self.seq,
            });
        } else if taken_ur {
            self.bump(counter::UR_DROPPED);
            if i.s_ur_locked {
                self.bump(counter::UR_LOCKED);
            }
            let length_dw = if i.s_ur_length & 0x3FF == 0 { 1024 } else { u32::from(i.s_ur_length & 0x3FF) };
            if i.s_ur_mem_read && length_dw > 1 {
                self.bump(counter::UR_MULTI_DW);
            }
            e = Some(Expected {
                status: Some(1),
                data: 0,
                requester_id: i.s_ur_src,
                tag: i.s_ur_tag & 0x3FF,
                tc: i.s_ur_tc & 7,
                attr: i.s_ur_attr & 7,
                mem_read: i.s_ur_mem_read,
                locked: i.s_ur_locked,
                length_dw,
                first_be: i.s_ur_first_be & 0xF,
                last_be: i.s_ur_last_be & 0xF,
                addr: i.s_ur_addr & 0x7F,
                completer_id: i.cfg_engine_id,
                seq: self.seq,
            });
        }
        if let Some(e) = e {
            if e.status.is_some() {
                self.seq = (self.seq + 1) & 0xFFF;
            }
            self.due = Some(e);
        }
        if i.rst {
            self.bump(counter::RESETS);
            let (log, counts, samples) = (std::mem::take(&mut self.log), self.counts, std::mem::take(&mut self.samples));
            *self = CompletionBuilderMonitor::new();
            self.log = log;
            self.counts = counts;
            self.samples = samples;
            self.armed = true;
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        NAMES.iter().copied().zip(self.counts).collect()
    }
}

/// Parameters of a Verilated completion builder from its build.rs entry.
pub fn params_of(model: &str) -> Result<CompletionBuilderParams, HarnessError> {
    Ok(inswitch_model::registry::typed::completion_builder(&crate::targets::model_params(model)?))
}

/// Builds a fresh lockstep bench.
pub fn bench(model: &str, seed: u64) -> Result<Bench<CompletionBuilder, CompletionBuilderRtl, CompletionBuilderStimulus, CompletionBuilderMonitor>, HarnessError> {
    let p = params_of(model)?;
    let info = crate::verilated::model_info(model)?;
    let m = CompletionBuilder::new(p).map_err(|e| HarnessError::Params { model: info.name, detail: e.to_string() })?;
    Ok(Bench::new(m, CompletionBuilderRtl::new(model)?, CompletionBuilderStimulus::new(seed), CompletionBuilderMonitor::new()))
}

/// Runs a completion-builder target.
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let width = params_of(model).map(|p| p.data_width).unwrap_or_default();
    let reproduce = move |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block completion_builder --width {width} --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
