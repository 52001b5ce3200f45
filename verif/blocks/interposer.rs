//! Co-simulation of the data-path interposer: stimulus, independent scoreboard, target.
//!
//! Stimulus (seeded, in phases): a credit-respecting link partner sending frames built with the frames
//! crate (TLP memory writes and vendor-defined messages to the engine and to others, Soft Portals frames
//! on armed, unarmed and unknown trees, random bytes) on a port whose family and link mode (PCIe 6 flit
//! mode, `cfg_flit`: memory writes then come as flit-mode TLPs) change between frames; an
//! output queue injecting frames of 1-8 beats; a VL queue that stalls and returns credits at random
//! rates; an input checker that stalls; multicast-table writes; idle gaps; resets.
//!
//! Scoreboard (independent of the cycle model): every receive frame leaves exactly once, whole, in
//! order, on `m_axis_ext` if the documented decision (docs/blocks/interposer.md §Decision, restated here)
//! says it is for the engine under the multicast table in force when its first beat was taken (a table
//! indexed by the tree's low bits, a write replacing the entry of every tree sharing the index, writes
//! ignored during the clearing sweep after a reset, when no receive beat may be taken), else on
//! `m_axis_vl`; a multicast arm extracted on a Soft Portals port leaves on `m_axis_vl` as well, whole,
//! before the next receive frame (002 (39)-(40), the rule restated at [`arm_passes_on`]); every injected
//! frame leaves exactly once, whole, on `m_axis_vl`; frames never interleave on `m_axis_vl`; and on every
//! cycle partner credits + injection credits + VL occupancy + beats in flight + credits being returned =
//! the VL depth (no credit lost or invented).

use std::collections::VecDeque;

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ControlBody};
use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
use inswitch_frames::flit::{self, FlitDw0, FlitTlp};
use inswitch_frames::portals::ReductionFrame;
use inswitch_frames::tlp::Tlp;
use inswitch_model::interposer::{Interposer, InterposerIn, InterposerOut, InterposerParams};
use inswitch_model::Wide;
use rand::RngExt;

use crate::blocks::input_checker::tlp_frame;
use crate::checker::{self, Bench, Monitor, Outcome, RunConfig, RunError, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, Gaps, Phases, Resets, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated interposer.
pub type InterposerRtl = VerilatedDut<InterposerIn, InterposerOut>;

/// VL-queue depth in beat slots (the testbench's VL queue); the partner is advertised this minus the
/// injection reserve.
pub const VL_DEPTH: i64 = 24;
const ENGINE_ID: u16 = 0x0010;
const ETHERTYPE: u16 = 0x88B5;
/// Trees the multicast table is programmed with (and most Portals frames aim at).
const TREES: [u16; 6] = [3, 5, 100, 4095, 8191, 0];

/// The seeded stimulus of the interposer.
pub struct InterposerStimulus {
    p: InterposerParams,
    r: StimRng,
    phases: Phases,
    last: InterposerIn,
    rx_idle: Gaps,
    inj_idle: Gaps,
    vl_stall: Gaps,
    ext_stall: Gaps,
    resets: Resets,
    rx_beats: VecDeque<(Wide, u64, bool)>,
    inj_beats: VecDeque<(Wide, u64, bool)>,
    partner_credits: i64,
    vl_occupancy: i64,
    family: bool,
    /// The link mode switches between frames ([`run_on_flit_links`]); else the link is never in flit mode.
    pub flit_links: bool,
    /// The link is in flit mode (`cfg_flit`).
    flit: bool,
    /// The flit-mode draws' own stream, so that the rest of the stimulus draws what it drew before the
    /// link mode existed.
    fr: StimRng,
    seq: u16,
    /// Probability per cycle that the VL queue frees slots (this phase).
    drain: f64,
}

impl InterposerStimulus {
    /// A stimulus for `seed`.
    pub fn new(p: InterposerParams, seed: u64) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        InterposerStimulus {
            p,
            r,
            phases,
            last: InterposerIn::default(),
            rx_idle: Gaps::default(),
            inj_idle: Gaps::default(),
            vl_stall: Gaps::default(),
            ext_stall: Gaps::default(),
            resets: Resets::new(),
            rx_beats: VecDeque::new(),
            inj_beats: VecDeque::new(),
            partner_credits: VL_DEPTH - i64::from(p.inj_credits),
            vl_occupancy: 0,
            family: false,
            flit_links: false,
            flit: false,
            fr: stimulus::rng(seed, 1),
            seq: 0,
            drain: 0.5,
        }
    }

    fn rx_frame(&mut self) -> Vec<u8> {
        let r = &mut self.r;
        self.seq = self.seq.wrapping_add(1);
        match r.random_range(0..10) {
            0..=1 => {
                // Memory write: mostly into the engine's window, sometimes another switch's or elsewhere.
                let hi = match r.random_range(0..4) {
                    0 => r.random::<u16>(),
                    1 => ENGINE_ID ^ 1,
                    _ => ENGINE_ID,
                };
                let lo: u16 = if r.random_bool(0.8) { 0xC000 | (r.random::<u16>() & 0x0FFC) } else { r.random::<u16>() & !3 };
                let mut addr = u64::from(hi) << 16 | u64::from(lo);
                if r.random_bool(0.2) {
                    addr |= u64::from(r.random_range(0..2u32)) << 32;
                }
                let n = 4 * r.random_range(1..20);
                let requester: u16 = r.random();
                let payload: Vec<u8> = (0..n).map(|_| r.random()).collect();
                if self.flit {
                    // A flit-mode MWr32/MWr64 (docs/frames.md §2): no sequence number, no LCRC.
                    let four = addr >> 32 != 0 || self.fr.random_bool(0.3);
                    let dw0 = FlitDw0 { tlp_type: if four { flit::types::MWR64 } else { flit::types::MWR32 }, length: (n / 4) as u16, ..Default::default() };
                    // DW1: Requester ID, EP 0, R 0, Tag[13:0].
                    let dw1 = u32::from(requester) << 16 | u32::from(self.fr.random::<u16>() >> 2);
                    let header = if four { vec![dw1, (addr >> 32) as u32, addr as u32] } else { vec![dw1, addr as u32] };
                    return FlitTlp { prefixes: vec![], dw0, header, ohc: vec![], payload, trailer: vec![] }.to_bytes().expect("flit TLP");
                }
                let t = Tlp::memory_write(requester, 0, addr, payload).expect("mwr");
                tlp_frame(self.seq, &t.to_bytes().expect("emit"))
            }
            2..=3 => {
                let m = CollectiveMessage {
                    header: CommonHeader { version: 1, kind: 3, cc_id: r.random_range(0..0x1000), ..Default::default() },
                    body: Body::Control(ControlBody { command: 1, ..Default::default() }),
                };
                let dst = if r.random_bool(0.6) { ENGINE_ID } else { r.random() };
                let t = collective::to_vdm(&m, r.random(), dst, 0).expect("vdm");
                tlp_frame(self.seq, &t.to_bytes().expect("emit"))
            }
            4..=7 => {
                let tree = if r.random_bool(0.8) { TREES[r.random_range(0..TREES.len())] } else { r.random_range(0..0x2000) };
                let mut f = ReductionFrame {
                    dfa: (r.random::<u32>() & !0xFFFF) | u32::from(tree) << 3 | r.random_range(0..8),
                    flags: if r.random_bool(0.85) { 1 } else { 0 },
                    vni: r.random(),
                    data: [r.random(), r.random(), r.random(), r.random()],
                    ..Default::default()
                };
                // Arms (going down the tree) and contributions (going up), 002 (39)-(40).
                f.header.arm = r.random_bool(0.5);
                let eth = EthernetHeader { dst: r.random(), src: r.random(), ethertype: if r.random_bool(0.9) { ETHERTYPE } else { 0x0800 } };
                let mut bytes = SoftPortals::new(eth, f).expect("soft portals").to_bytes().expect("emit").to_vec();
                // Sometimes cut short or lengthened: an arm is copied only if it fits a Portals frame.
                match r.random_range(0..20) {
                    0 => bytes.truncate(r.random_range(26..bytes.len())),
                    1 => bytes.extend((0..r.random_range(1..80)).map(|_| r.random::<u8>())),
                    _ => {}
                }
                bytes
            }
            _ => {
                let n = r.random_range(1..300);
                (0..n).map(|_| r.random()).collect()
            }
        }
    }
}

impl Stimulus<InterposerIn, InterposerOut> for InterposerStimulus {
    fn next(&mut self, previous: &InterposerOut) -> InterposerIn {
        let kw = self.p.data_width / 8;
        let l = self.last;
        // Bookkeeping of the previous cycle (a reset cycle starts everything afresh).
        if l.rst {
        } else if l.s_axis_rx_tvalid && previous.s_axis_rx_tready {
            self.rx_beats.pop_front();
            self.partner_credits -= 1;
        }
        if l.s_axis_inj_tvalid && previous.s_axis_inj_tready && !l.rst {
            self.inj_beats.pop_front();
        }
        if previous.m_axis_vl_tvalid && l.m_axis_vl_tready && !l.rst {
            self.vl_occupancy += 1;
        }
        if !l.rst {
            self.partner_credits += i64::from(previous.link_credit_return);
            self.vl_occupancy -= i64::from(l.vl_credit_return);
        }

        if self.phases.tick(&mut self.r) {
            self.drain = [0.1, 0.4, 0.7, 1.0][self.r.random_range(0..4)];
            if self.rx_beats.is_empty() && self.r.random_bool(0.3) {
                self.family = !self.family;
            }
        }
        let prof = self.phases.profile;
        let mut i = InterposerIn {
            m_axis_vl_tready: !self.vl_stall.gap(&mut self.r, prof.stall, prof.persist),
            m_axis_ext_tready: !self.ext_stall.gap(&mut self.r, prof.stall, prof.persist),
            cfg_family: self.family,
            cfg_flit: self.flit,
            cfg_port: 7,
            cfg_engine_id: ENGINE_ID,
            cfg_ethertype: ETHERTYPE,
            ..Default::default()
        };
        if self.resets.tick(&mut self.r) {
            i.rst = true;
            self.rx_beats.clear();
            self.inj_beats.clear();
            self.partner_credits = VL_DEPTH - i64::from(self.p.inj_credits);
            self.vl_occupancy = 0;
            self.last = i;
            return i;
        }
        // The VL queue drains at a random rate.
        if self.vl_occupancy > 0 && self.r.random_bool(self.drain) {
            i.vl_credit_return = self.r.random_range(1..=self.vl_occupancy.min(2)) as u8;
        }
        if self.r.random_bool(0.002) {
            i.cfg_mcast_wr_en = true;
            i.cfg_mcast_wr_valid = self.r.random_bool(0.8);
            i.cfg_mcast_wr_tree = TREES[self.r.random_range(0..TREES.len())];
            i.cfg_mcast_wr_wait_count = if self.r.random_bool(0.6) { self.r.random_range(1..1 << 20) } else { 0 };
        }
        // Receive: a held beat stays; a new one needs a credit.
        if l.s_axis_rx_tvalid && !previous.s_axis_rx_tready {
            i.s_axis_rx_tdata = l.s_axis_rx_tdata;
            i.s_axis_rx_tkeep = l.s_axis_rx_tkeep;
            i.s_axis_rx_tlast = l.s_axis_rx_tlast;
            i.s_axis_rx_tvalid = true;
        } else if self.partner_credits > 0 && !self.rx_idle.gap(&mut self.r, prof.idle, prof.persist) {
            if self.rx_beats.is_empty() {
                // The link retrains between frames: half the frames of a flit-links run on a flit-mode link.
                self.flit = self.flit_links && self.fr.random_bool(0.5);
                i.cfg_flit = self.flit;
                let f = self.rx_frame();
                self.rx_beats = stimulus::frame_beats(&f, kw, 0.0, &mut self.r);
            }
            let (d, k, last) = self.rx_beats[0];
            (i.s_axis_rx_tdata, i.s_axis_rx_tkeep, i.s_axis_rx_tlast, i.s_axis_rx_tvalid) = (d, k, last, true);
        }
        if l.s_axis_inj_tvalid && !previous.s_axis_inj_tready {
            i.s_axis_inj_tdata = l.s_axis_inj_tdata;
            i.s_axis_inj_tkeep = l.s_axis_inj_tkeep;
            i.s_axis_inj_tlast = l.s_axis_inj_tlast;
            i.s_axis_inj_tvalid = true;
        } else if !self.inj_idle.gap(&mut self.r, prof.idle.max(0.5), prof.persist) {
            if self.inj_beats.is_empty() {
                let n = kw * self.r.random_range(1..=8) - self.r.random_range(0..kw);
                let f: Vec<u8> = (0..n).map(|_| self.r.random()).collect();
                self.inj_beats = stimulus::frame_beats(&f, kw, 0.0, &mut self.r);
            }
            let (d, k, last) = self.inj_beats[0];
            (i.s_axis_inj_tdata, i.s_axis_inj_tkeep, i.s_axis_inj_tlast, i.s_axis_inj_tvalid) = (d, k, last, true);
        }
        self.last = i;
        i
    }
}

/// Counters of [`InterposerMonitor`].
pub mod counter {
    /// Receive frames extracted.
    pub const EXTRACTED: &str = "frames_extracted";
    /// Receive frames passed through.
    pub const PASSED: &str = "frames_passed";
    /// Frames injected.
    pub const INJECTED: &str = "frames_injected";
    /// Receive beats taken.
    pub const RX_BEATS: &str = "rx_beats";
    /// Cycles a receive beat waited.
    pub const RX_WAIT: &str = "rx_wait_cycles";
    /// Cycles the partner had no credit.
    pub const NO_CREDIT: &str = "partner_out_of_credit_cycles";
    /// Cycles the injection reserve was empty.
    pub const INJ_EMPTY: &str = "inj_credits_empty_cycles";
    /// Resets.
    pub const RESETS: &str = "resets";
    /// Multicast-table writes ignored because the clearing sweep was running.
    pub const WRITES_IN_CLEAR: &str = "mcast_writes_during_clear";
    /// Multicast-table writes that replaced the entry of another tree with the same index.
    pub const INDEX_SHARED: &str = "mcast_index_shared_writes";
    /// Multicast arms extracted and passed on (002 (39)-(40)).
    pub const ARMS_COPIED: &str = "arms_copied";
    /// Receive frames extracted on a flit-mode link (tuser bit 9 set).
    pub const FLIT_EXTRACTED: &str = "flit_frames_extracted";
}

const NAMES: [&str; 12] = [
    counter::EXTRACTED,
    counter::PASSED,
    counter::INJECTED,
    counter::RX_BEATS,
    counter::RX_WAIT,
    counter::NO_CREDIT,
    counter::INJ_EMPTY,
    counter::RESETS,
    counter::WRITES_IN_CLEAR,
    counter::INDEX_SHARED,
    counter::ARMS_COPIED,
    counter::FLIT_EXTRACTED,
];

type Beat = (Wide, u64, bool);

#[derive(Clone, Debug)]
struct Frame {
    beats: Vec<Beat>,
    complete: bool,
    sent: usize,
    tuser: u16,
    /// The copy of an extracted arm (its VL slots are paid with injection credits).
    copy: bool,
}

/// Soft Portals frame: Ethernet header 14 + Portals reduction frame 84 + FCS 4 (002 (94): the 84-byte
/// frame; docs/frames.md §6).
const PORTALS_FRAME_BYTES: usize = 14 + 84 + 4;
/// rt_arm: bit 10 of the 96-bit big-endian reduction header (libfabric `cxip_coll_hdr`, 002 (94)), the
/// header at byte 40 of the Portals frame: Ethernet 14 + 40 + (11 - 10 / 8) = byte 64, bit 10 % 8 = 2.
const RT_ARM_BYTE: usize = 14 + 40 + 11 - 10 / 8;
const RT_ARM_BIT: u32 = 10 % 8;

/// 002 (39)-(40), restated for the scoreboard: "the reduction engine forwards the barrier frame to the
/// child nodes ... As the barrier frame travels down the reduction tree, all the reduction engines
/// participating in this reduction tree are armed". A frame the engine takes on a Soft Portals port (a
/// multicast frame of an armed tree) with rt_arm set goes on as well: the engine keeps a copy, the frame
/// continues. The interposer's documented bound (docs/blocks/interposer.md §The multicast arm passes on):
/// only a frame of at most as many beats as a Portals frame takes, whose rt_arm byte is present (tkeep).
fn arm_passes_on(beats: &[Beat], portals_port: bool, kw: usize) -> bool {
    let (beat, byte) = (RT_ARM_BYTE / kw, RT_ARM_BYTE % kw);
    portals_port
        && beats.len() <= PORTALS_FRAME_BYTES.div_ceil(kw)
        && beats.get(beat).is_some_and(|&(d, keep, _)| keep >> byte & 1 == 1 && d.byte(byte) >> RT_ARM_BIT & 1 == 1)
}

/// The documented decision, restated (docs/blocks/interposer.md §Decision, §Multicast table, §Flit-mode
/// links): `armed[t mod entries]` holds the armed tree of that index, if any; on a flit-mode link a TLP
/// starts at byte 0 (no sequence number), else at byte 2.
fn for_engine(d: &Wide, portals: bool, flit: bool, armed: &[Option<u16>]) -> bool {
    let b: Vec<u8> = (0..26).map(|k| d.byte(k)).collect();
    if portals {
        let tree = (u16::from_be_bytes([b[16], b[17]]) >> 3) & 0x1FFF;
        u16::from_be_bytes([b[12], b[13]]) == ETHERTYPE && b[25] & 1 == 1 && armed[usize::from(tree) % armed.len()] == Some(tree)
    } else {
        let t = if flit { 0 } else { 2 };
        let fmt = b[t] >> 5;
        let typ = b[t] & 0x1F;
        let word = |o: usize| u32::from_be_bytes([b[t + o], b[t + o + 1], b[t + o + 2], b[t + o + 3]]);
        match (typ, fmt) {
            (0, 0..=3) => {
                let (hi, lo) = if fmt & 1 == 1 { (word(8), word(12)) } else { (0, word(8)) };
                hi == 0 && (lo >> 16) as u16 == ENGINE_ID && lo & 0xF000 == 0xC000
            }
            (0b10010, f) if f & 1 == 1 => u16::from_be_bytes([b[t + 8], b[t + 9]]) == ENGINE_ID,
            _ => false,
        }
    }
}

/// Independent transaction-level scoreboard of the interposer.
pub struct InterposerMonitor {
    p: InterposerParams,
    armed: Vec<Option<u16>>,
    /// Cycles of the clearing sweep still to come.
    clearing: usize,
    ext: VecDeque<Frame>,
    pass: VecDeque<Frame>,
    inj: VecDeque<Frame>,
    rx_current_ext: Option<bool>,
    inj_open: bool,
    /// The VL output frame in progress comes from: Some(true) injection, Some(false) receive.
    vl_source: Option<bool>,
    vl_beat_new: bool,
    ext_beat_new: bool,
    partner: i64,
    occupancy: i64,
    in_flight: i64,
    expected_event: u8,
    armed_run: bool,
    log: TransactionLog,
    counts: [u64; NAMES.len()],
}

impl InterposerMonitor {
    /// A scoreboard for an interposer with parameters `p`, in the reset state (armed by the first reset).
    pub fn new(p: InterposerParams) -> Self {
        InterposerMonitor {
            p,
            armed: vec![None; p.mcast_entries],
            clearing: p.mcast_entries,
            ext: VecDeque::new(),
            pass: VecDeque::new(),
            inj: VecDeque::new(),
            rx_current_ext: None,
            inj_open: false,
            vl_source: None,
            vl_beat_new: true,
            ext_beat_new: true,
            partner: VL_DEPTH - i64::from(p.inj_credits),
            occupancy: 0,
            in_flight: 0,
            expected_event: 0,
            armed_run: false,
            log: TransactionLog::default(),
            counts: [0; NAMES.len()],
        }
    }

    fn bump(&mut self, name: &'static str) {
        let i = NAMES.iter().position(|&n| n == name).unwrap_or(0);
        self.counts[i] += 1;
    }

    fn emit(q: &mut VecDeque<Frame>, got: Beat, tuser: Option<u16>, what: &str) -> Result<bool, String> {
        let f = q.front_mut().ok_or_else(|| format!("{what}: a beat with no frame waiting"))?;
        let exp = f.beats.get(f.sent).copied().ok_or_else(|| format!("{what}: beat {} leaves before it arrived", f.sent))?;
        if got != exp || tuser.is_some_and(|t| t != f.tuser) {
            return Err(format!("{what}: beat {} left as {got:x?} tuser {tuser:x?}, entered as {exp:x?} tuser {:#x}", f.sent, f.tuser));
        }
        f.sent += 1;
        let done = got.2;
        if done {
            q.pop_front();
        }
        Ok(done)
    }
}

impl Monitor<InterposerIn, InterposerOut> for InterposerMonitor {
    fn observe(&mut self, cycle: u64, i: &InterposerIn, o: &InterposerOut) -> Result<(), String> {
        // An extracted beat is in flight from the edge that takes it until it shows on m_axis_ext, in the
        // cycle its credit shows on link_credit_return.
        if o.m_axis_ext_tvalid && self.ext_beat_new {
            self.in_flight -= 1;
        }
        // A copied beat is in flight from the edge that sends it (and takes its injection credit) until
        // the VL queue takes it: it shows on m_axis_vl in the cycle its credit leaves stat_inj_credits.
        if o.m_axis_vl_tvalid && self.vl_beat_new {
            let beat = (o.m_axis_vl_tdata, o.m_axis_vl_tkeep, o.m_axis_vl_tlast);
            let copy = match self.vl_source {
                Some(true) => false,
                Some(false) => self.pass.front().is_some_and(|f| f.copy),
                None => !self.inj.front().is_some_and(|f| f.beats.first() == Some(&beat)) && self.pass.front().is_some_and(|f| f.copy),
            };
            if copy {
                self.in_flight += 1;
            }
        }
        // Credits: every slot is somewhere, exactly once. Reported after the output checks below, so that
        // a beat that is wrong in itself (from nowhere, on the wrong output) is named as such rather than
        // by the credit it unbalances.
        let mut credit_error = None;
        if self.armed_run {
            let total = self.partner + i64::from(o.stat_inj_credits) + self.occupancy + self.in_flight + i64::from(o.link_credit_return);
            if total != VL_DEPTH || u32::from(o.stat_inj_credits) > self.p.inj_credits {
                credit_error = Some(format!(
                    "credits do not balance: partner {} + injection {} + VL occupancy {} + in flight {} + returning {} = {total}, VL depth {VL_DEPTH}",
                    self.partner, o.stat_inj_credits, self.occupancy, self.in_flight, o.link_credit_return
                ));
            }
            if o.stat_inj_credits == 0 {
                self.bump(counter::INJ_EMPTY);
            }
            if self.partner <= 0 {
                self.bump(counter::NO_CREDIT);
            }
        }
        // Events: an injected frame's at the cycle after its first beat is taken (set below), a receive
        // frame's when its first beat shows on its output (set here).
        let mut expected_event = std::mem::take(&mut self.expected_event);
        self.partner += i64::from(o.link_credit_return);
        self.occupancy -= i64::from(i.vl_credit_return);

        // Outputs.
        if o.m_axis_vl_tvalid && self.vl_beat_new {
            let beat = (o.m_axis_vl_tdata, o.m_axis_vl_tkeep, o.m_axis_vl_tlast);
            let src = match self.vl_source {
                Some(s) => s,
                None => {
                    let from_inj = self.inj.front().is_some_and(|f| f.beats.first() == Some(&beat));
                    let from_rx = self.pass.front().is_some_and(|f| f.beats.first() == Some(&beat));
                    if !from_inj && !from_rx {
                        return Err(format!("m_axis_vl starts a frame with {beat:x?}, the first beat of neither the next receive frame nor the next injected frame"));
                    }
                    if !from_inj {
                        expected_event |= 2;
                    }
                    from_inj
                }
            };
            let q = if src { &mut self.inj } else { &mut self.pass };
            let done = Self::emit(q, beat, None, if src { "injected frame" } else { "passed frame" })?;
            self.vl_source = if done { None } else { Some(src) };
        }
        if o.m_axis_ext_tvalid && self.ext_beat_new {
            if self.ext.front().is_some_and(|f| f.sent == 0) {
                expected_event |= 1;
            }
            Self::emit(&mut self.ext, (o.m_axis_ext_tdata, o.m_axis_ext_tkeep, o.m_axis_ext_tlast), Some(o.m_axis_ext_tuser), "extracted frame")?;
        }
        if let Some(e) = credit_error {
            return Err(e);
        }
        if self.armed_run && o.stat_event != expected_event {
            return Err(format!("stat_event {:#x}, expected {expected_event:#x}", o.stat_event));
        }
        let vl_taken = o.m_axis_vl_tvalid && i.m_axis_vl_tready;
        if vl_taken {
            self.in_flight -= 1;
            self.occupancy += 1;
        }
        self.vl_beat_new = !o.m_axis_vl_tvalid || vl_taken;
        self.ext_beat_new = !o.m_axis_ext_tvalid || i.m_axis_ext_tready;

        // Inputs.
        let keep_mask = if self.p.data_width >= 512 { u64::MAX } else { (1u64 << (self.p.data_width / 8)) - 1 };
        if i.s_axis_rx_tvalid && !o.s_axis_rx_tready && !i.rst {
            self.bump(counter::RX_WAIT);
        }
        if self.armed_run && self.clearing > 0 && o.s_axis_rx_tready {
            return Err(format!("s_axis_rx_tready during the clearing sweep ({} cycles of it left)", self.clearing));
        }
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready {
            self.bump(counter::RX_BEATS);
            self.partner -= 1;
            let beat = (i.s_axis_rx_tdata.truncated(self.p.data_width), i.s_axis_rx_tkeep & keep_mask, i.s_axis_rx_tlast);
            let ext = match self.rx_current_ext {
                Some(e) => e,
                None => {
                    // tuser = {flit, family, port}: flit marks a TLP port's flit-mode link only.
                    let flit = i.cfg_flit && !i.cfg_family;
                    let e = for_engine(&i.s_axis_rx_tdata, i.cfg_family, flit, &self.armed);
                    let tuser = u16::from(flit) << 9 | u16::from(i.cfg_family) << 8 | u16::from(i.cfg_port);
                    if e && flit {
                        self.bump(counter::FLIT_EXTRACTED);
                    }
                    let f = Frame { beats: Vec::new(), complete: false, sent: 0, tuser, copy: false };
                    if e { self.ext.push_back(f) } else { self.pass.push_back(f) }
                    self.bump(if e { counter::EXTRACTED } else { counter::PASSED });
                    e
                }
            };
            self.in_flight += 1;
            let q = if ext { &mut self.ext } else { &mut self.pass };
            let f = q.back_mut().ok_or("no frame to append to")?;
            f.beats.push(beat);
            f.complete = beat.2;
            if ext && beat.2 && arm_passes_on(&f.beats, f.tuser >> 8 & 1 == 1, self.p.data_width / 8) {
                let copy = Frame { beats: f.beats.clone(), complete: true, sent: 0, tuser: 0, copy: true };
                self.pass.push_back(copy);
                self.bump(counter::ARMS_COPIED);
            }
            self.rx_current_ext = if beat.2 { None } else { Some(ext) };
        }
        if i.s_axis_inj_tvalid && o.s_axis_inj_tready {
            self.in_flight += 1;
            let beat = (i.s_axis_inj_tdata.truncated(self.p.data_width), i.s_axis_inj_tkeep & keep_mask, i.s_axis_inj_tlast);
            if !self.inj_open {
                self.inj.push_back(Frame { beats: Vec::new(), complete: false, sent: 0, tuser: 0, copy: false });
                self.expected_event |= 4;
                self.bump(counter::INJECTED);
            }
            let f = self.inj.back_mut().ok_or("no injected frame")?;
            f.beats.push(beat);
            f.complete = beat.2;
            self.inj_open = !beat.2;
        }
        // The table is written after this edge's read (a beat taken at the edge of a write sees the old entry).
        if self.clearing > 0 {
            self.clearing -= 1;
            if i.cfg_mcast_wr_en && !i.rst {
                self.bump(counter::WRITES_IN_CLEAR);
            }
        } else if i.cfg_mcast_wr_en {
            let tree = i.cfg_mcast_wr_tree & 0x1FFF;
            let index = usize::from(tree) % self.p.mcast_entries;
            if self.armed[index].is_some_and(|t| t != tree) {
                self.bump(counter::INDEX_SHARED);
            }
            self.armed[index] = (i.cfg_mcast_wr_valid && i.cfg_mcast_wr_wait_count & 0xF_FFFF != 0).then_some(tree);
        }
        if i.rst {
            self.bump(counter::RESETS);
            let (log, counts) = (std::mem::take(&mut self.log), self.counts);
            *self = InterposerMonitor::new(self.p);
            self.log = log;
            self.counts = counts;
            self.armed_run = true;
            self.log.push(cycle, "reset".into());
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

/// Builds a fresh lockstep bench for the Verilated interposer and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<Interposer, InterposerRtl, InterposerStimulus, InterposerMonitor>, HarnessError> {
    let p = inswitch_model::registry::typed::interposer(&crate::targets::model_params(model)?);
    let info = crate::verilated::model_info(model)?;
    let m = Interposer::power_on(p).map_err(|e| HarnessError::Params { model: info.name, detail: e.to_string() })?;
    Ok(Bench::new(m, InterposerRtl::new(model)?, InterposerStimulus::new(p, seed), InterposerMonitor::new(p)))
}

/// Runs the interposer target.
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let reproduce = |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block interposer --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}

/// Runs the interposer target with the link mode switched between frames (PCIe 6 flit mode, `cfg_flit`:
/// memory writes then come as flit-mode TLPs; docs/blocks/interposer.md §Flit-mode links). A separate
/// run, so that [`run`]'s stimulus (and the coverage its seeds reach) is what it was before flit mode.
pub fn run_on_flit_links(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let reproduce = |seed: u64, cycles: u64| format!("interposer::run_on_flit_links, seed {seed}, {cycles} cycles");
    let flit_bench = |seed| {
        bench(model, seed).map(|mut b| {
            b.stimulus.flit_links = true;
            b
        })
    };
    checker::run_target(model, &reproduce, &flit_bench, cfg, progress)
}
