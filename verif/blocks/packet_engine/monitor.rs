//! The top's end-to-end scoreboard (transaction level, from the top's ports only) and its counters.

use std::collections::{BTreeMap, VecDeque};

use inswitch_frames::ethernet::SoftPortals;
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::Wide;
use inswitch_model::cpu::event as cpu_event;
use inswitch_model::packet_engine::{EngineIn, EngineOut, EngineParams};

use crate::checker::{Monitor, Transaction, TransactionLog};

use super::shared::{ENGINE_ID, PORT, VL_DEPTH, Shared, LIVENESS_CYCLES, CONFIG_WRITES_PER_MESSAGE, CONFIG_TAG, ENCAP_REG_TAG, FLIT_REG_TAG, LONG_CONFIG_TAGS, MASTER};

/// Counters of [`PacketEngineMonitor`] (coverage).
pub const COUNTERS: [&str; N_COUNTERS] = [
    "rx_frames",
    "passed_frames",
    "extracted_frames",
    "injected_frames",
    "egress_frames",
    "reg_accesses",
    "reg_rsp_ok",
    "reg_rsp_rejected",
    "reg_rsp_unmapped",
    "messages_to_cpu",
    "checker_drops",
    "frames_built",
    "builder_drops",
    "route_misses",
    "cpu_events",
    "balance_checks",
    "balance_checks_skipped",
    "resets",
    "rx_stall_cycles",
    "vl_stall_cycles",
    "reg_reads",
    "reg_reads_ok",
    "reg_reads_rejected",
    "reg_reads_unmapped",
    "reg_writes",
    "cpl_sc",
    "cpl_ur",
    "cpl_ca",
    "cpl_posted",
    "completions_injected",
    "cpu_accept",
    "cpu_old_tid",
    "cpu_bad_tid",
    "start_contention_cycles",
    "interposer_extracted",
    "arm_candidates_on_vl",
    "config_writes",
    "flit_frames",
    "flit_reg_writes",
    "encap_reg_writes",
    "long_config_writes",
    "long_config_messages_received",
];

/// Number of [`COUNTERS`].
pub const N_COUNTERS: usize = 42;

/// Bytes of a beat of the top's streams (DATA_WIDTH 256).
const BEAT_BYTES: usize = 32;

/// 002 (39)-(40): an arm (rt_arm, bit 10 of the reduction header: byte 14 + 40 + 10 = 64, bit 2, of a Soft
/// Portals frame) that the engine takes passes on as well. A receive frame seen on m_axis_vl that could be
/// such an arm may have been extracted too (its tree armed or not: the scoreboard does not follow the table).
/// The interposer's rule is on beats and byte lanes, not on the frame's bytes (docs/blocks/interposer.md
/// §The multicast arm passes on): at most `ceil(ARM_COPY_BYTES / beat)` beats, and in the beat holding lane
/// 64 that lane's tkeep set and its bit 2 set. A frame with a hole in tkeep before lane 64 is one byte
/// shorter once reassembled and its byte 64 is another lane's, so the test on the reassembled bytes missed
/// such an arm's copy (seed 0x5eed_4096 at 4096 entries: a 102-byte arm of tree 5 with a hole in its first
/// two beats, extracted, dropped by the checker as `tkeep` and copied, counted as passed but not as an arm).
#[derive(Clone, Copy, Default)]
struct ArmWatch {
    beats: usize,
    arm_lane: bool,
}

impl ArmWatch {
    /// Takes one beat of a frame on m_axis_vl.
    fn beat(&mut self, d: &Wide, keep: u64) {
        use inswitch_model::interposer::{ARM_BIT, ARM_BYTE};
        if self.beats == ARM_BYTE / BEAT_BYTES {
            let lane = ARM_BYTE % BEAT_BYTES;
            self.arm_lane = keep >> lane & 1 != 0 && d.byte(lane) >> ARM_BIT & 1 != 0;
        }
        self.beats += 1;
    }

    /// Whether the frame whose beats were taken could be an arm's copy.
    fn candidate(&self) -> bool {
        self.beats <= inswitch_model::interposer::ARM_COPY_BYTES.div_ceil(BEAT_BYTES) && self.arm_lane
    }
}

fn ix(name: &str) -> usize {
    COUNTERS.iter().position(|&n| n == name).expect("counter name")
}

/// Why `f` is not a frame the frame builder could have made (a Soft Portals frame with a good FCS, or a
/// TLP frame with a good LCRC that parses), if it is not.
pub fn malformed_engine_frame(f: &[u8]) -> Option<String> {
    if f.len() == inswitch_frames::ethernet::SOFT_PORTALS_LEN {
        return match SoftPortals::parse(f) {
            Ok(sp) if sp.check_fcs().is_ok() => None,
            Ok(_) => Some("bad FCS".into()),
            Err(e) => Some(format!("{e}")),
        };
    }
    if f.len() < 2 + 12 + 4 {
        return Some("too short".into());
    }
    let seq = u16::from_be_bytes([f[0], f[1]]);
    let tlp = &f[2..f.len() - 4];
    let lcrc = u32::from_le_bytes([f[f.len() - 4], f[f.len() - 3], f[f.len() - 2], f[f.len() - 1]]);
    if inswitch_frames::crc::lcrc(seq, tlp) != lcrc {
        return Some("bad LCRC".into());
    }
    Tlp::parse(tlp).err().map(|e| format!("{e}"))
}

/// The completion header of `f` if it is a completion frame (data-link form, good LCRC, parses).
pub fn completion_of(f: &[u8]) -> Option<inswitch_frames::tlp::CompletionHeader> {
    if f.len() < 2 + 12 + 4 || malformed_engine_frame(f).is_some() {
        return None;
    }
    match Tlp::parse(&f[2..f.len() - 4]) {
        Ok(Tlp { header: Header::Completion(h), .. }) => Some(h),
        _ => None,
    }
}

/// The end-to-end scoreboard of the top.
pub struct PacketEngineMonitor {
    shared: Shared,
    log: TransactionLog,
    counts: [u64; N_COUNTERS],
    /// Per-episode counts, for the balances.
    ep: [i64; N_COUNTERS],
    /// Per episode, for each tag of [`LONG_CONFIG_TAGS`]: W = 2 n_devices + 3 read from the bytes of the
    /// long configuration messages received with that tag (whole: LCRC good), and the register writes
    /// answered with it.
    long_w: BTreeMap<u16, i64>,
    long_writes: BTreeMap<u16, i64>,
    /// Receive frames not yet seen leaving (bytes), oldest first; `rx_cur` is the one arriving.
    rx: VecDeque<Vec<u8>>,
    rx_cur: Vec<u8>,
    vl_cur: Vec<u8>,
    /// The beats of the frame in progress on m_axis_vl, for [`ArmWatch::candidate`].
    vl_arm: ArmWatch,
    eg_open: bool,
    partner: i64,
    occupancy: i64,
    last_activity: u64,
    /// Last cycle with progress or nothing pending (liveness).
    last_progress: u64,
    /// Drop reason events seen, per checker bit (coverage of every outcome).
    pub checker_bits: [u64; 21],
    inj_credits: i64,
}

/// Appends the bytes of beat `d` that `keep` marks to `v` (a frame being reassembled).
pub(super) fn append(v: &mut Vec<u8>, d: &Wide, keep: u64) {
    for k in 0..BEAT_BYTES {
        if keep >> k & 1 != 0 {
            v.push(d.byte(k));
        }
    }
}

impl PacketEngineMonitor {
    /// A scoreboard sharing `shared` with the stimulus.
    pub fn new(shared: Shared, p: EngineParams) -> Self {
        PacketEngineMonitor {
            shared,
            log: TransactionLog::default(),
            counts: [0; N_COUNTERS],
            ep: [0; N_COUNTERS],
            long_w: BTreeMap::new(),
            long_writes: BTreeMap::new(),
            rx: VecDeque::new(),
            rx_cur: Vec::new(),
            vl_cur: Vec::new(),
            vl_arm: ArmWatch::default(),
            eg_open: false,
            partner: VL_DEPTH - i64::from(p.inj_credits),
            occupancy: 0,
            last_activity: 0,
            last_progress: 0,
            checker_bits: [0; 21],
            inj_credits: i64::from(p.inj_credits),
        }
    }

    fn bump(&mut self, name: &str) {
        let k = ix(name);
        self.counts[k] += 1;
        self.ep[k] += 1;
    }

    fn e(&self, name: &str) -> i64 {
        self.ep[ix(name)]
    }

    /// A receive frame (non-flit link): if it is a whole VDM (its LCRC good) carrying a FIG. 4
    /// configuration message with a tag of [`LONG_CONFIG_TAGS`], W = 2 n_devices + 3 from its bytes
    /// (docs/frames.md §4: n_devices at payload bytes 14-15) for that tag. A tag met with two W is a
    /// stimulus error.
    fn note_long_config(&mut self, f: &[u8]) -> Result<(), String> {
        use inswitch_frames::{collective, crc};
        let Some(tlp) = f.get(2..f.len().saturating_sub(4)).filter(|t| t.len() >= 4) else { return Ok(()) };
        let seq = u16::from_be_bytes([f[0], f[1]]);
        if crc::lcrc(seq, tlp).to_le_bytes() != f[f.len() - 4..] {
            return Ok(());
        }
        let Ok(t) = Tlp::parse(tlp) else { return Ok(()) };
        let Some(tag) = t.tag().filter(|tag| LONG_CONFIG_TAGS.contains(tag)) else { return Ok(()) };
        let Ok(m) = collective::from_vdm(&t) else { return Ok(()) };
        let collective::Body::Configuration { fixed, .. } = m.body else { return Ok(()) };
        let w = 2 * i64::from(fixed.n_devices) + 3;
        if *self.long_w.entry(tag).or_insert(w) != w {
            return Err(format!("tag {tag:#x} carried configuration messages of two lengths"));
        }
        self.bump("long_config_messages_received");
        Ok(())
    }

    /// Liveness at the end of a drain (every sink ready for `DRAIN_CYCLES`): the stimulus sent every
    /// receive frame it had, whatever else happened (an engine that stops taking receive beats is a
    /// deadlock, e.g. the interposer's, even if every frame it did take is accounted for).
    fn drained(&mut self, cycle: u64) -> Result<(), String> {
        let (beats, frames) = self.shared.unsent.get();
        if beats + frames > 0 {
            return Err(format!(
                "liveness after the drain (seed {}, cycle {cycle}): {beats} beats of a receive frame and {frames} more frames never sent: the engine stopped taking receive beats",
                self.shared.seed.get()
            ));
        }
        Ok(())
    }

    /// Liveness every cycle: some progress within [`LIVENESS_CYCLES`] while work is pending.
    fn progress(&mut self, cycle: u64, i: &EngineIn, o: &EngineOut) -> Result<(), String> {
        let moved = (i.s_axis_rx_tvalid && o.s_axis_rx_tready)
            || (o.m_axis_vl_tvalid && i.m_axis_vl_tready)
            || (o.m_axis_egress_tvalid && i.m_axis_egress_tready)
            || o.m_reg_rsp_valid
            || o.cpu_stat_valid
            || o.stat_event != 0
            || o.link_credit_return != 0;
        let pending = i.s_axis_rx_tvalid || o.m_axis_vl_tvalid || o.m_axis_egress_tvalid;
        if moved || !pending {
            self.last_progress = cycle;
        } else if cycle - self.last_progress >= LIVENESS_CYCLES {
            return Err(format!(
                "liveness (seed {}, cycle {cycle}): no progress for {LIVENESS_CYCLES} cycles while work is pending: receive beat offered {}, m_axis_vl valid {} (ready {}), m_axis_egress valid {} (ready {})",
                self.shared.seed.get(),
                i.s_axis_rx_tvalid,
                o.m_axis_vl_tvalid,
                i.m_axis_vl_tready,
                o.m_axis_egress_tvalid,
                i.m_axis_egress_tready
            ));
        }
        Ok(())
    }

    fn balance(&mut self, cycle: u64, o: &EngineOut) -> Result<(), String> {
        if cycle - self.last_activity < 400 {
            self.counts[ix("balance_checks_skipped")] += 1;
            return Ok(());
        }
        // Receive frames after the last passed one were all extracted.
        let unpassed = self.rx.len();
        while self.rx.pop_front().is_some() {
            self.bump("extracted_frames");
        }
        let e = |n: &str| self.e(n);
        let responses = e("reg_rsp_ok") + e("reg_rsp_rejected") + e("reg_rsp_unmapped");
        // Accepted configuration messages: the accept_reg pulses not answered by a response of their own
        // (a plain register access has exactly one; a message's writes carry CONFIG_TAG).
        let configs = e("reg_accesses") - (responses - e("config_writes") - e("long_config_writes"));
        // Long configuration messages: each tag's writes are a whole number of its messages' W (read from
        // their bytes: the tag names one device count), and those messages are among the accepted ones.
        let mut long_messages = 0;
        for (&tag, &writes) in &self.long_writes {
            let w = *self.long_w.get(&tag).ok_or_else(|| format!("{writes} configuration writes with tag {tag:#x}, no long configuration message received with it"))?;
            if writes % w != 0 {
                return Err(format!("tag {tag:#x}: {writes} configuration writes, not a multiple of W = {w} (2 n_devices + 3 of its message)"));
            }
            long_messages += writes / w;
        }
        let checks = [
            ("receive frames = passed + extracted", e("rx_frames"), e("passed_frames") + e("extracted_frames")),
            // The interposer's extractions: the receive frames not seen on m_axis_vl, and arms seen there
            // that were also extracted (passed on, 002 (39)-(40)): at most every arm candidate seen.
            ("extracted = register accesses + messages + checker drops", e("interposer_extracted"), e("reg_accesses") + e("messages_to_cpu") + e("checker_drops")),
            ("interposer extractions = receive frames not passed + arms passed on", (e("interposer_extracted") - e("extracted_frames")).clamp(0, e("arm_candidates_on_vl")), e("interposer_extracted") - e("extracted_frames")),
            // An accepted configuration message is one accept_reg pulse and exactly W = 2 n_devices + 3
            // register writes (docs/blocks/input_checker.md §Configuration messages); the stimulus's short
            // ones name the PARTICIPANTS (CONFIG_TAG), the long ones' W is their own (above). A lost or
            // extra response of either kind breaks this.
            ("configuration writes = W x (register accesses - other responses - long messages)", e("config_writes"), CONFIG_WRITES_PER_MESSAGE * (configs - long_messages)),
            // A valid flit-mode MWr32/MWr64 of one DW below the mailbox from the master is one register
            // write (docs/blocks/input_checker.md §Flit-mode TLPs, on a flit-mode link:
            // docs/blocks/interposer.md §Flit-mode links); one with a header defect is none.
            ("flit-mode register writes answered = valid ones sent", e("flit_reg_writes"), self.shared.flit_reg_writes.get()),
            ("register reads answered OK = CplD", e("reg_reads_ok"), e("cpl_sc")),
            ("register reads rejected = Completer Aborts", e("reg_reads_rejected"), e("cpl_ca")),
            ("register writes = posted (no completion)", e("reg_writes"), e("cpl_posted")),
            ("Unsupported Requests >= unmapped reads", e("cpl_ur").min(e("reg_reads_unmapped")), e("reg_reads_unmapped")),
            (
                "frames built + completions = injected + egress + route misses",
                e("frames_built") + e("cpl_sc") + e("cpl_ur") + e("cpl_ca"),
                e("injected_frames") + e("egress_frames") + e("route_misses"),
            ),
            ("partner credits + injection credits = VL depth", self.partner + i64::from(o.stat_inj_credits) + self.occupancy, VL_DEPTH),
            ("injection credits refilled", i64::from(o.stat_inj_credits), self.inj_credits),
        ];
        for (what, a, b) in checks {
            if a != b {
                return Err(format!(
                    "balance after the drain: {what}: {a} != {b} (receive frame in progress: {} bytes; VL frame in progress: {} bytes; receive frames after the last passed one: {unpassed})",
                    self.rx_cur.len(),
                    self.vl_cur.len()
                ));
            }
        }
        // Quiet for 400 cycles with every sink ready: the outputs stopped because nothing is left, not
        // in the middle of a frame.
        if o.m_axis_vl_tvalid || o.m_axis_egress_tvalid || !self.vl_cur.is_empty() || self.eg_open || !self.rx_cur.is_empty() {
            return Err(format!(
                "liveness after the drain (seed {}, cycle {cycle}): a frame is still open (VL valid {}, egress valid {}, {} VL bytes, {} receive bytes)",
                self.shared.seed.get(),
                o.m_axis_vl_tvalid,
                o.m_axis_egress_tvalid,
                self.vl_cur.len(),
                self.rx_cur.len()
            ));
        }
        self.counts[ix("balance_checks")] += 1;
        self.log.push(cycle, "balance checked".into());
        Ok(())
    }
}

impl Monitor<EngineIn, EngineOut> for PacketEngineMonitor {
    fn observe(&mut self, cycle: u64, i: &EngineIn, o: &EngineOut) -> Result<(), String> {
        if i.rst {
            if !self.ep.iter().all(|&x| x == 0) || cycle == 0 {
                self.bump("resets");
            }
            self.ep = [0; N_COUNTERS];
            self.long_w.clear();
            self.long_writes.clear();
            self.rx.clear();
            self.rx_cur.clear();
            self.vl_cur.clear();
            self.vl_arm = ArmWatch::default();
            self.eg_open = false;
            self.partner = VL_DEPTH - self.inj_credits;
            self.occupancy = 0;
            self.last_progress = cycle;
            return Ok(());
        }
        self.progress(cycle, i, o)?;
        if self.shared.contention.get() {
            self.counts[ix("start_contention_cycles")] += 1;
        }
        // Receive frames.
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready {
            append(&mut self.rx_cur, &i.s_axis_rx_tdata, i.s_axis_rx_tkeep);
            self.partner -= 1;
            if i.s_axis_rx_tlast {
                if !i.cfg_flit {
                    self.note_long_config(&self.rx_cur.clone())?;
                }
                self.rx.push_back(std::mem::take(&mut self.rx_cur));
                self.bump("rx_frames");
                if i.cfg_flit && !i.cfg_family {
                    self.bump("flit_frames");
                }
            }
        } else if i.s_axis_rx_tvalid {
            self.counts[ix("rx_stall_cycles")] += 1;
        }
        self.partner += i64::from(o.link_credit_return);
        self.occupancy -= i64::from(i.vl_credit_return);
        // VL frames: a passed receive frame (the oldest ones before it were extracted) or an injection.
        if o.m_axis_vl_tvalid && i.m_axis_vl_tready {
            self.occupancy += 1;
            append(&mut self.vl_cur, &o.m_axis_vl_tdata, o.m_axis_vl_tkeep);
            self.vl_arm.beat(&o.m_axis_vl_tdata, o.m_axis_vl_tkeep);
            if o.m_axis_vl_tlast {
                let f = std::mem::take(&mut self.vl_cur);
                let arm = std::mem::take(&mut self.vl_arm).candidate();
                if let Some(k) = self.rx.iter().position(|x| *x == f) {
                    for _ in 0..k {
                        self.rx.pop_front();
                        self.bump("extracted_frames");
                    }
                    self.rx.pop_front();
                    self.bump("passed_frames");
                    if arm {
                        self.bump("arm_candidates_on_vl");
                    }
                    self.log.push(cycle, format!("passed a {}-byte frame", f.len()));
                } else {
                    // Not a receive frame: it must be a well-formed frame as the builder makes them.
                    if let Some(why) = malformed_engine_frame(&f) {
                        return Err(format!("a {}-byte frame on m_axis_vl is neither a receive frame nor a built one ({why}): {f:02x?}", f.len()));
                    }
                    self.bump("injected_frames");
                    if let Some(cpl) = completion_of(&f) {
                        if cpl.completer_id != ENGINE_ID {
                            return Err(format!("a completion with Completer ID {:#06x}, not the engine's", cpl.completer_id));
                        }
                        self.bump("completions_injected");
                    }
                    self.log.push(cycle, format!("injected a {}-byte frame", f.len()));
                }
                self.last_activity = cycle;
            }
        } else if o.m_axis_vl_tvalid {
            self.counts[ix("vl_stall_cycles")] += 1;
        }
        if o.m_axis_egress_tvalid {
            if o.m_axis_egress_tdest == PORT & 0xF {
                return Err(format!("egress frame with tdest {} = this port", o.m_axis_egress_tdest));
            }
            if i.m_axis_egress_tready {
                self.eg_open = !o.m_axis_egress_tlast;
                if o.m_axis_egress_tlast {
                    self.bump("egress_frames");
                    self.log.push(cycle, format!("egress frame to port {}", o.m_axis_egress_tdest));
                    self.last_activity = cycle;
                }
            }
        }
        // The tap: one cycle per response (m_reg_rsp_ready does not matter).
        if o.m_reg_rsp_valid {
            self.bump(if o.m_reg_rsp_write { "reg_writes" } else { "reg_reads" });
            if !o.m_reg_rsp_write {
                self.bump(match o.m_reg_rsp_status {
                    0 => "reg_reads_ok",
                    1 => "reg_reads_rejected",
                    _ => "reg_reads_unmapped",
                });
            }
            let n = match o.m_reg_rsp_status {
                0 => "reg_rsp_ok",
                1 => "reg_rsp_rejected",
                2 => "reg_rsp_unmapped",
                s => return Err(format!("register response status {s}")),
            };
            self.bump(n);
            if o.m_reg_rsp_tag == u16::from(CONFIG_TAG) {
                self.bump("config_writes");
            }
            if o.m_reg_rsp_write && LONG_CONFIG_TAGS.contains(&o.m_reg_rsp_tag) {
                self.bump("long_config_writes");
                *self.long_writes.entry(o.m_reg_rsp_tag).or_insert(0) += 1;
            }
            // Whatever its status (the register space's lock decides that): the access was taken.
            if o.m_reg_rsp_tag == FLIT_REG_TAG && o.m_reg_rsp_write && o.m_reg_rsp_src == MASTER {
                self.bump("flit_reg_writes");
            }
            // A register write encapsulated in kind 10 (docs/frames.md §4), taken whatever its status.
            if o.m_reg_rsp_tag == u16::from(ENCAP_REG_TAG) && o.m_reg_rsp_write {
                self.bump("encap_reg_writes");
            }
            self.log.push(cycle, format!("register response {n} tag {:#x} src {:#06x}", o.m_reg_rsp_tag, o.m_reg_rsp_src));
        }
        // Events (docs/blocks/packet_engine.md §Events).
        let ev = o.stat_event;
        for (b, n) in [(28, "cpl_sc"), (29, "cpl_ur"), (30, "cpl_ca"), (31, "cpl_posted")] {
            if ev >> b & 1 != 0 {
                self.bump(n);
                self.last_activity = cycle;
            }
        }
        for b in 0..21 {
            if ev >> b & 1 != 0 {
                self.checker_bits[b] += 1;
                self.bump(match b {
                    0 => "reg_accesses",
                    1 => "messages_to_cpu",
                    _ => "checker_drops",
                });
            }
        }
        if ev >> 21 & 1 != 0 {
            self.bump("interposer_extracted");
        }
        if ev >> 24 & 1 != 0 {
            self.bump("route_misses");
        }
        if ev >> 25 & 1 != 0 {
            self.bump("frames_built");
            self.last_activity = cycle;
        }
        if ev >> 26 & 1 != 0 {
            self.bump("builder_drops");
        }
        if o.cpu_stat_valid {
            self.bump("cpu_events");
            self.last_activity = cycle;
            // The TID paths end to end (001): contributions counted, "already completed", dropped.
            match o.cpu_stat_event {
                cpu_event::ACCEPT => self.bump("cpu_accept"),
                cpu_event::OLD_TID => self.bump("cpu_old_tid"),
                cpu_event::BAD_TID => self.bump("cpu_bad_tid"),
                _ => {}
            }
        }
        if ev & 0x1F_FFFF != 0 {
            self.last_activity = cycle;
        }
        if self.shared.check.get() {
            self.drained(cycle)?;
            self.balance(cycle, o)?;
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v: Vec<(&'static str, u64)> = COUNTERS.iter().copied().zip(self.counts).collect();
        // Distinct checker drop reasons (bits 2-20) seen at least once.
        v.push(("drop_reasons_seen", self.checker_bits[2..].iter().filter(|&&n| n > 0).count() as u64));
        v.push(("drop_reasons_mask", self.checker_bits.iter().enumerate().filter(|(_, &n)| n > 0).fold(0, |a, (k, _)| a | 1 << k)));
        v
    }
}
