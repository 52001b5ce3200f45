//! Co-simulation of the frame builder: stimulus, independent scoreboard, targets.
//!
//! Stimulus (seeded, in phases): normalized messages of both families and every kind (including kinds
//! with no frame), random field values at full port width, idle gaps, backpressure from the output queue,
//! EtherType changes between messages, resets.
//!
//! Scoreboard (independent of the cycle model): every taken message gives exactly one pulse one cycle
//! later, "built" exactly for TLP kinds 2-8 and Portals kinds 4 and 9; every built frame leaves exactly
//! once, its first beat in that same cycle, and is parsed by the frames crate codecs: TLP frames by
//! `Tlp::parse` + `collective::from_vdm` with the LCRC checked by `crc::lcrc` and the sequence number
//! counting TLP frames, Soft Portals frames by `SoftPortals::parse_for_port` + `check_fcs`; the parsed
//! repr, mapped back with the input checker's documented mapping, must equal the message (fields the
//! family or kind does not carry cut as docs/blocks/frame_builder.md says).

use std::collections::VecDeque;

use inswitch_frames::collective;
use inswitch_frames::crc;
use inswitch_frames::ethernet::SoftPortals;
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::frame_builder::{FrameBuilder, FrameBuilderIn, FrameBuilderOut, FrameBuilderParams};
use inswitch_model::input_checker::config::CONFIG_RELAY_SLOTS;
use inswitch_model::message::{CollectiveMsg, Family, Kind, NO_PARTICIPANT};
use rand::RngExt;

use crate::blocks::input_checker::{expected_portals_msg, expected_tlp_msg};
use crate::checker::{self, Bench, Monitor, Outcome, RunConfig, RunError, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, Gaps, Phases, Resets, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated frame builder.
pub type FrameBuilderRtl = VerilatedDut<FrameBuilderIn, FrameBuilderOut>;

const ENGINE_ID: u16 = 0x0010;

/// The seeded stimulus of the frame builder.
pub struct FrameBuilderStimulus {
    r: StimRng,
    phases: Phases,
    last: FrameBuilderIn,
    idle: Gaps,
    stall: Gaps,
    resets: Resets,
    ethertype: u16,
    src_mac: u64,
    dst_mac: u64,
}

impl FrameBuilderStimulus {
    fn new(seed: u64) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        let (src_mac, dst_mac) = (r.random::<u64>() & 0xFFFF_FFFF_FFFF, r.random::<u64>() & 0xFFFF_FFFF_FFFF);
        FrameBuilderStimulus { r, phases, last: FrameBuilderIn::default(), idle: Gaps::default(), stall: Gaps::default(), resets: Resets::new(), ethertype: 0x88B5, src_mac, dst_mac }
    }

    fn message(&mut self) -> CollectiveMsg {
        let r = &mut self.r;
        let family = if r.random_bool(0.5) { Family::Portals } else { Family::Tlp };
        let kind = if r.random_bool(0.1) {
            r.random_range(0..16)
        } else if family == Family::Tlp && r.random_bool(0.1) {
            1
        } else if family == Family::Portals {
            [4, 9][r.random_range(0..2)]
        } else {
            r.random_range(2..=8)
        };
        CollectiveMsg {
            kind: Kind(kind),
            family,
            port: r.random(),
            ctx: r.random(),
            src: r.random(),
            dst: r.random(),
            pid: r.random(),
            dmu_id: r.random(),
            count: r.random(),
            code: r.random(),
            posted: r.random(),
            error: r.random(),
            tid: r.random(),
            vni: r.random(),
            cookie: r.random(),
            seqno: r.random(),
            resno: r.random(),
            retry: r.random(),
            op: r.random(),
            rc: r.random(),
            repsum_m: r.random(),
            repsum_oflow_id: r.random(),
            data: [r.random(), r.random(), r.random(), r.random()],
            pbv: if kind == 1 && r.random_bool(0.9) { config_pbv(r) } else { r.random() },
        }
    }
}

impl Stimulus<FrameBuilderIn, FrameBuilderOut> for FrameBuilderStimulus {
    fn next(&mut self, previous: &FrameBuilderOut) -> FrameBuilderIn {
        let taken = self.last.s_msg_valid && previous.s_msg_ready;
        if self.phases.tick(&mut self.r) && (!self.last.s_msg_valid || taken) {
            self.ethertype = if self.r.random_bool(0.5) { 0x88B5 } else { self.r.random_range(0x0600..=0xFFFF) };
        }
        let prof = self.phases.profile;
        let mut i = if self.last.s_msg_valid && !taken {
            self.last
        } else if self.idle.gap(&mut self.r, prof.idle, prof.persist) {
            FrameBuilderIn::default()
        } else {
            let m = self.message();
            let mut i = FrameBuilderIn { s_msg_valid: true, ..Default::default() };
            i.set_msg(&m);
            i
        };
        i.m_axis_tready = !self.stall.gap(&mut self.r, prof.stall, prof.persist);
        i.cfg_engine_id = ENGINE_ID;
        i.cfg_vendor_id = collective::VENDOR_ID;
        i.cfg_ethertype = self.ethertype;
        i.cfg_src_mac = self.src_mac;
        i.cfg_dst_mac = self.dst_mac;
        i.rst = false;
        if self.resets.tick(&mut self.r) {
            i.rst = true;
            i.s_msg_valid = false;
        }
        self.last = i;
        i
    }
}

/// A relayed configuration message's `pbv` (its `ConfigFixed`, payload bytes 8-23 big-endian): random,
/// with n_devices (bytes 14-15) and n_subservient (byte 13) mostly fitting CONFIG_RELAY_SLOTS together,
/// sometimes one more.
fn config_pbv(r: &mut StimRng) -> u128 {
    let n = r.random_range(0..=CONFIG_RELAY_SLOTS);
    let s = r.random_range(0..=CONFIG_RELAY_SLOTS - n) + usize::from(r.random_bool(0.1));
    let mut b = r.random::<u128>().to_be_bytes();
    b[5] = s as u8;
    b[6..8].copy_from_slice(&(n as u16).to_be_bytes());
    u128::from_be_bytes(b)
}

/// (n_devices, n_subservient) of a configuration message's `pbv`.
fn config_counts(pbv: u128) -> (usize, usize) {
    let b = pbv.to_be_bytes();
    (usize::from(u16::from_be_bytes([b[6], b[7]])), usize::from(b[5]))
}

/// Whether the builder has a frame for `m` (docs/blocks/frame_builder.md): TLP kinds 2-8, and kind 1 (a
/// configuration message the CPU relays) with at most CONFIG_RELAY_SLOTS slots; Portals kinds 4 and 9.
fn has_frame(m: &CollectiveMsg) -> bool {
    match m.family {
        Family::Tlp if m.kind.0 == 1 => {
            let (n, s) = config_counts(m.pbv);
            n + s <= CONFIG_RELAY_SLOTS
        }
        Family::Tlp => (2..=8).contains(&m.kind.0),
        Family::Portals => m.kind == Kind::CONTRIBUTION || m.kind == Kind::ARM,
    }
}

/// What the frame must decode to: the message cut to what its family and kind carry
/// (docs/blocks/frame_builder.md §Mapping).
pub fn canonical(m: &CollectiveMsg, engine_id: u16) -> CollectiveMsg {
    let m = m.masked();
    match m.family {
        Family::Tlp => {
            let mut e = CollectiveMsg {
                kind: m.kind,
                family: Family::Tlp,
                ctx: m.ctx & 0xFFF,
                src: u32::from(engine_id),
                dst: m.dst & 0xFFFF,
                pid: m.pid,
                dmu_id: m.dmu_id,
                posted: m.posted,
                error: m.error,
                tid: m.tid,
                ..CollectiveMsg::default()
            };
            match m.kind.0 {
                1 => {
                    // ConfigFixed whole, and the n + s slots it names (the padding slot of an odd count
                    // is sent but not decoded).
                    e.pbv = m.pbv;
                    let (n, s) = config_counts(m.pbv);
                    for j in 0..n + s {
                        let at = 48 - 16 * (j % 4);
                        e.data[j / 4] |= (m.data[j / 4] >> at & 0xFFFF) << at;
                    }
                }
                2 => {
                    e.count = m.count & 0xFFFF;
                    e.op = m.op;
                    e.data[0] = m.data[0];
                    e.pbv = m.pbv;
                }
                3 => {
                    e.code = m.code;
                    e.count = m.count & 0xFFFF;
                }
                4..=6 => {
                    e.op = m.op;
                    e.rc = m.rc;
                    e.count = m.count & 0xFFFF;
                    e.code = m.code;
                    e.data = m.data;
                }
                _ => {
                    e.code = m.code;
                    e.count = m.count & 0xFF;
                    e.data[0] = m.data[0] & 0xFFFF_FFFF;
                }
            }
            e
        }
        Family::Portals => CollectiveMsg {
            port: 0,
            ctx: ((m.dst >> 18 & 7) << 13 | (m.dst >> 3 & 0x1FFF)) as u16,
            pid: NO_PARTICIPANT,
            dmu_id: 0,
            code: 0,
            posted: true,
            error: false,
            tid: 0,
            pbv: 0,
            ..m
        },
    }
}

/// Counters of [`FrameBuilderMonitor`].
pub mod counter {
    /// TLP frames built and checked.
    pub const TLP_FRAMES: &str = "tlp_frames";
    /// Soft Portals frames built and checked.
    pub const PORTALS_FRAMES: &str = "portals_frames";
    /// Messages dropped (no frame for the kind).
    pub const DROPPED: &str = "dropped";
    /// Cycles the output stalled a beat.
    pub const STALLED: &str = "stalled_cycles";
    /// Resets.
    pub const RESETS: &str = "resets";
}

const NAMES: [&str; 5] = [counter::TLP_FRAMES, counter::PORTALS_FRAMES, counter::DROPPED, counter::STALLED, counter::RESETS];

#[derive(Clone, Debug)]
struct Pending {
    msg: CollectiveMsg,
    ethertype: u16,
    src_mac: u64,
    dst_mac: u64,
    seq: u16,
}

/// Independent transaction-level scoreboard of the frame builder.
pub struct FrameBuilderMonitor {
    /// Outcome due this cycle: Some(Some(frame)) built, Some(None) dropped.
    due: Option<Option<Pending>>,
    frames: VecDeque<Pending>,
    bytes: Vec<u8>,
    seq: u16,
    armed: bool,
    log: TransactionLog,
    counts: [u64; 5],
}

impl FrameBuilderMonitor {
    /// A monitor with nothing seen yet (also `check-wave --scoreboard`'s, on a dump alone).
    pub fn new() -> Self {
        FrameBuilderMonitor { due: None, frames: VecDeque::new(), bytes: Vec::new(), seq: 0, armed: false, log: TransactionLog::default(), counts: [0; 5] }
    }

    fn bump(&mut self, name: &'static str) {
        let i = NAMES.iter().position(|&n| n == name).unwrap_or(0);
        self.counts[i] += 1;
    }

    fn check_frame(&mut self, p: &Pending, bytes: &[u8], tuser: u16) -> Result<(), String> {
        let want = canonical(&p.msg, ENGINE_ID);
        if tuser != p.msg.dst as u16 {
            return Err(format!("tuser {tuser:#06x}, destination {:#06x}", p.msg.dst as u16));
        }
        let got = match p.msg.family {
            Family::Tlp => {
                let n = bytes.len();
                if n < 6 {
                    return Err(format!("TLP frame of {n} bytes"));
                }
                let seq = u16::from_be_bytes([bytes[0], bytes[1]]);
                if seq != p.seq {
                    return Err(format!("sequence field {seq:#06x}, expected {:#06x}", p.seq));
                }
                let tlp_bytes = &bytes[2..n - 4];
                let lcrc = u32::from_le_bytes([bytes[n - 4], bytes[n - 3], bytes[n - 2], bytes[n - 1]]);
                if lcrc != crc::lcrc(seq, tlp_bytes) {
                    return Err("LCRC wrong".into());
                }
                let t = Tlp::parse(tlp_bytes).map_err(|e| format!("frames crate rejects the TLP: {e}"))?;
                let m = collective::from_vdm(&t).map_err(|e| format!("frames crate rejects the collective VDM: {e}"))?;
                let Header::Message(h) = &t.header else { return Err("not a message".into()) };
                if h.requester_id != ENGINE_ID {
                    return Err(format!("Requester ID {:#06x}", h.requester_id));
                }
                self.bump(counter::TLP_FRAMES);
                expected_tlp_msg(&m, h.requester_id, h.target_id(), 0)
            }
            Family::Portals => {
                let f = SoftPortals::parse_for_port(bytes, p.ethertype).map_err(|e| format!("frames crate rejects the Soft Portals frame: {e}"))?;
                f.check_fcs().map_err(|e| format!("FCS: {e}"))?;
                let mac = |a: [u8; 6]| a.iter().fold(0u64, |v, &b| v << 8 | u64::from(b));
                if mac(f.eth.src) != p.src_mac || mac(f.eth.dst) != p.dst_mac || f.frame.flags != 1 {
                    return Err(format!("Ethernet header {:x?} / flags {}", f.eth, f.frame.flags));
                }
                self.bump(counter::PORTALS_FRAMES);
                expected_portals_msg(&f.frame, 0)
            }
        };
        if got != want {
            return Err(format!("frame decodes to {got:x?}, the message was {want:x?}"));
        }
        Ok(())
    }
}

impl Monitor<FrameBuilderIn, FrameBuilderOut> for FrameBuilderMonitor {
    fn observe(&mut self, cycle: u64, i: &FrameBuilderIn, o: &FrameBuilderOut) -> Result<(), String> {
        if self.armed {
            match self.due.take() {
                None if o.stat_event != 0 => return Err(format!("stat_event {:#x} with no message taken", o.stat_event)),
                None => {}
                Some(None) if o.stat_event != 2 => return Err(format!("message with no frame: stat_event {:#x}, expected 0x2", o.stat_event)),
                Some(None) => self.bump(counter::DROPPED),
                Some(Some(p)) => {
                    if o.stat_event != 1 || !o.m_axis_tvalid || !self.bytes.is_empty() || !self.frames.is_empty() {
                        return Err(format!("message taken: stat_event {:#x}, tvalid {}, expected its first beat now", o.stat_event, o.m_axis_tvalid));
                    }
                    self.frames.push_back(p);
                }
            }
            if o.m_axis_tvalid && self.frames.is_empty() {
                return Err("a beat with no frame being built".into());
            }
            if o.m_axis_tvalid && !i.m_axis_tready {
                self.bump(counter::STALLED);
            }
            if o.m_axis_tvalid && i.m_axis_tready {
                for k in 0..64 {
                    if o.m_axis_tkeep >> k & 1 != 0 {
                        self.bytes.push(o.m_axis_tdata.byte(k));
                    }
                }
                if o.m_axis_tlast {
                    let p = self.frames.pop_front().ok_or("frame vanished")?;
                    let bytes = std::mem::take(&mut self.bytes);
                    self.check_frame(&p, &bytes, o.m_axis_tuser)?;
                    self.log.push(cycle, format!("{:?} kind {} frame of {} bytes checked", p.msg.family, p.msg.kind.0, bytes.len()));
                }
            }
        }
        if i.s_msg_valid && o.s_msg_ready && !i.rst {
            let m = i.msg();
            let built = has_frame(&m);
            self.due = Some(built.then_some(Pending { msg: m, ethertype: i.cfg_ethertype, src_mac: i.cfg_src_mac & 0xFFFF_FFFF_FFFF, dst_mac: i.cfg_dst_mac & 0xFFFF_FFFF_FFFF, seq: self.seq }));
            if built && m.family == Family::Tlp {
                self.seq = (self.seq + 1) & 0xFFF;
            }
        }
        if i.rst {
            self.bump(counter::RESETS);
            let (log, counts) = (std::mem::take(&mut self.log), self.counts);
            *self = FrameBuilderMonitor::new();
            self.log = log;
            self.counts = counts;
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

/// Parameters of a Verilated frame builder from its build.rs entry.
pub fn params_of(model: &str) -> Result<FrameBuilderParams, HarnessError> {
    Ok(inswitch_model::registry::typed::frame_builder(&crate::targets::model_params(model)?))
}

/// Builds a fresh lockstep bench.
pub fn bench(model: &str, seed: u64) -> Result<Bench<FrameBuilder, FrameBuilderRtl, FrameBuilderStimulus, FrameBuilderMonitor>, HarnessError> {
    let p = params_of(model)?;
    let info = crate::verilated::model_info(model)?;
    let m = FrameBuilder::new(p).ok_or_else(|| HarnessError::Params { model: info.name, detail: format!("{p:?}") })?;
    Ok(Bench::new(m, FrameBuilderRtl::new(model)?, FrameBuilderStimulus::new(seed), FrameBuilderMonitor::new()))
}

/// Runs a frame-builder target.
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let width = params_of(model).map(|p| p.data_width).unwrap_or_default();
    let reproduce = move |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block frame_builder --width {width} --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}

