//! Data-path interposer (seed 000 \[0092\]; 002 (39)).
//!
//! Cycle model of `rtl/interposer.v`; interface, the header bytes examined, the credit scheme and the
//! timing are `docs/blocks/interposer.md`. The interposer sits between a port's receive path and its
//! virtual-link (VL) queue:
//!
//! * receive beats (`s_axis_rx`) whose frame is addressed to the engine are extracted to the input
//!   checker (`m_axis_ext`, with `{flit, family, port}` in tuser); every other frame passes to the VL queue
//!   (`m_axis_vl`) untouched and in order. The decision is made on the first beat from fixed header bytes
//!   and the multicast table, a RAM indexed by the tree and read synchronously: a receive beat waits one
//!   cycle in the receive stage, where the table's answer arrives, then moves to its output register.
//! * frames from the output queue (`s_axis_inj`) are injected into the VL path between receive frames;
//!   receive and injected frames never interleave on `m_axis_vl`.
//! * credits, in units of one VL-queue beat slot: the link partner's credits for extracted beats are
//!   returned at once (`link_credit_return`); the VL queue's returns (`vl_credit_return`) first refill the
//!   interposer's injection reserve (`INJ_CREDITS` slots, which injected beats consume), the rest go back
//!   to the partner. No credit is lost or invented: partner credits + injection credits + VL occupancy +
//!   beats in flight + credits being returned = VL depth, on every cycle.

use crate::out_of_line::OutOfLine;
use crate::ports;
use crate::signal::{Block, Wide, WIDE_MAX_BITS};

/// Offset of the TLP in a TLP frame (after the 2-byte sequence-number field).
pub const TLP_OFFSET: usize = 2;
/// Offset of the TLP in a frame of a flit-mode link: PCIe 6 flit mode protects flits, not TLPs, so a TLP
/// comes without sequence number or LCRC (docs/blocks/interposer.md §Flit-mode links).
pub const FLIT_TLP_OFFSET: usize = 0;
/// `m_axis_ext_tuser`'s flit-mode bit (the input checker's `s_axis_tuser[9]`); below it family and port.
pub const TUSER_FLIT_BIT: u32 = 9;
/// Bytes of the first beat the decision reads (up to the Portals flags byte 25).
pub const DECISION_BYTES: usize = 26;
/// Bits of a multicast tree: DFA bits 15-3, 8K trees (002 (60)-(61)).
pub const TREE_BITS: u32 = 13;
/// Multicast-table entries at the seed's size: one per tree (002 (61): "can distinguish 8K multicast trees").
pub const MCAST_ENTRIES_SEED: usize = 1 << TREE_BITS;
/// Entries in a page of the multicast table's storage (`crate::paged_table`): 512 bytes, so a fabric's
/// few armed trees take a page or two of an engine's 16 KB table.
const MCAST_PAGE: usize = 256;
/// The multicast table's storage.
type McastTable = crate::paged_table::PagedTable<u16, MCAST_PAGE>;
/// The arm's copy buffer: (data, keep) per beat, on the heap ([`OutOfLine`]).
type CopyBuf = OutOfLine<[(Wide, u64); COPY_BEATS_MAX]>;
/// The copy buffer after a reset.
const COPY_BUF_RESET: [(Wide, u64); COPY_BEATS_MAX] = [(Wide::ZERO, 0); COPY_BEATS_MAX];
/// The byte of a Soft Portals frame holding `rt_arm`: Ethernet header 14 + the reduction header at Portals
/// byte 40 + byte 10 of that 96-bit big-endian header (bit 10, docs/frames.md §5-§6).
pub const ARM_BYTE: usize = 14 + 40 + 10;
/// `rt_arm`'s bit in [`ARM_BYTE`] (header bit 10 = bit 2 of byte 10).
pub const ARM_BIT: u32 = 10 % 8;
/// The longest frame whose arm is copied to the VL output: a Soft Portals frame, Ethernet 14 + the 84-byte
/// Portals reduction frame + FCS 4 (docs/frames.md §6). A longer frame of an armed tree is extracted only.
pub const ARM_COPY_BYTES: usize = 14 + 84 + 4;
/// The most beats a copy takes (at the narrowest bus, [`DECISION_BYTES`] bytes a beat).
const COPY_BEATS_MAX: usize = ARM_COPY_BYTES.div_ceil(DECISION_BYTES);

/// Parameters (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterposerParams {
    /// Data width in bits: a multiple of 8, at least 8 * [`DECISION_BYTES`], at most 512.
    pub data_width: usize,
    /// Multicast-table entries: a power of two from 2 to [`MCAST_ENTRIES_SEED`] (the table is indexed by
    /// the tree's low bits; below the seed's size an entry keeps the tree's other bits as a tag).
    pub mcast_entries: usize,
    /// Injection credits reserved at reset (VL-queue beat slots the engine may fill).
    pub inj_credits: u32,
}

impl Default for InterposerParams {
    fn default() -> Self {
        InterposerParams { data_width: 256, mcast_entries: MCAST_ENTRIES_SEED, inj_credits: 8 }
    }
}

/// A parameter set the block cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InterposerParamError {
    /// `data_width` is not a multiple of 8 in 208..=512.
    #[error("data_width {0} is not a multiple of 8 between 208 and {WIDE_MAX_BITS}")]
    DataWidth(usize),
    /// `mcast_entries` not a power of two in 2..=8192, or `inj_credits` not in 1..=255.
    #[error("mcast_entries {0} must be a power of two from 2 to {MCAST_ENTRIES_SEED} and inj_credits {1} 1-255")]
    Sizes(usize, u32),
}

crate::code_table! {
    /// `stat_event` bits.
    pub mod event: "EV", 2 bits as u32 {
        EXTRACTED = 0, "A receive frame was extracted (pulse on its first beat).";
        PASSED = 1, "A receive frame passed through (pulse on its first beat).";
        INJECTED = 2, "An output-queue frame was injected (pulse on its first beat).";
    }
    /// Number of event bits (the width of `stat_event`).
    pub const COUNT: u32 = TABLE.len() as u32;
}

ports! {
    /// Inputs of `rtl/interposer.v` (clk aside).
    pub struct InterposerIn {
        /// Synchronous, active-high reset.
        pub rst: bool,
        /// Receive data from the port.
        pub s_axis_rx_tdata: Wide,
        /// Receive tkeep.
        pub s_axis_rx_tkeep: u64,
        /// Receive beat offered.
        pub s_axis_rx_tvalid: bool,
        /// Receive last beat.
        pub s_axis_rx_tlast: bool,
        /// The VL queue takes the beat.
        pub m_axis_vl_tready: bool,
        /// The input checker takes the beat.
        pub m_axis_ext_tready: bool,
        /// Frames to inject (from the output queue).
        pub s_axis_inj_tdata: Wide,
        /// Inject tkeep.
        pub s_axis_inj_tkeep: u64,
        /// Inject beat offered.
        pub s_axis_inj_tvalid: bool,
        /// Inject last beat.
        pub s_axis_inj_tlast: bool,
        /// VL-queue beat slots freed this cycle.
        pub vl_credit_return: u8,
        /// The port's family: 1 Soft Portals, 0 TLP.
        pub cfg_family: bool,
        /// The port number (goes to the checker in tuser).
        pub cfg_port: u8,
        /// The link runs in PCIe 6 flit mode (negotiated per link at training; a strap as the family):
        /// a TLP port's frames are TLPs without sequence number or LCRC, decided at offset 0 and marked
        /// in tuser bit 9 (ignored on a Soft Portals port).
        pub cfg_flit: bool,
        /// The engine's device ID.
        pub cfg_engine_id: u16,
        /// Soft Portals EtherType.
        pub cfg_ethertype: u16,
        /// Multicast-table write (from the register space): the entry of tree `cfg_mcast_wr_tree`.
        pub cfg_mcast_wr_en: bool,
        /// Entry valid.
        pub cfg_mcast_wr_valid: bool,
        /// Tree (DFA bits 15-3).
        pub cfg_mcast_wr_tree: u16,
        /// Wait count (0: the engine does not reduce this tree; its frames pass).
        pub cfg_mcast_wr_wait_count: u32,
    }
}

ports! {
    /// Outputs of `rtl/interposer.v`.
    pub struct InterposerOut {
        /// A receive beat is taken.
        pub s_axis_rx_tready: bool,
        /// To the VL queue.
        pub m_axis_vl_tdata: Wide,
        /// tkeep.
        pub m_axis_vl_tkeep: u64,
        /// Beat offered.
        pub m_axis_vl_tvalid: bool,
        /// Last beat.
        pub m_axis_vl_tlast: bool,
        /// To the input checker.
        pub m_axis_ext_tdata: Wide,
        /// tkeep.
        pub m_axis_ext_tkeep: u64,
        /// Beat offered.
        pub m_axis_ext_tvalid: bool,
        /// Last beat.
        pub m_axis_ext_tlast: bool,
        /// {flit, family, port}: flit = `cfg_flit` and not `cfg_family`, as sampled with the beat.
        pub m_axis_ext_tuser: u16,
        /// An inject beat is taken.
        pub s_axis_inj_tready: bool,
        /// Credits returned to the link partner this cycle.
        pub link_credit_return: u8,
        /// Injection credits held.
        pub stat_inj_credits: u8,
        /// Event pulses ([`event`]).
        pub stat_event: u8,
    }
}

/// Who owns the VL output for the frame in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    None,
    Rx,
    Inj,
    /// The copy of a multicast arm (docs/blocks/interposer.md §The multicast arm passes on).
    Copy,
}

/// The receive stage: a beat taken from `s_axis_rx`, waiting for the multicast table's answer, with what
/// was decided from its header, and the straps, at the edge that took it (a strap change after that edge
/// does not reach it).
#[derive(Clone, Debug, PartialEq)]
struct RxStage {
    tdata: Wide,
    tkeep: u64,
    tlast: bool,
    /// For the engine on a TLP port.
    tlp_hit: bool,
    /// For the engine on a Soft Portals port if its tree is armed (EtherType and multicast flag match).
    portals_hit: bool,
    family: bool,
    /// A flit-mode TLP port's frame (`cfg_flit` and not `cfg_family` at the edge).
    flit: bool,
    port: u8,
}

/// The interposer's registers.
#[derive(Clone, Debug, PartialEq)]
pub struct Interposer {
    p: InterposerParams,
    /// The table RAM: entry = tag (tree bits above the index) << 1 | armed; paged, as an engine arms
    /// few of its 8,192 entries (`crate::paged_table`).
    mcast: McastTable,
    /// The RAM's read register (read when a receive beat is taken).
    mcast_rd: u16,
    /// The clearing sweep after reset: the next entry it clears.
    clear: Option<usize>,
    rxs: Option<RxStage>,
    rx_in_frame: bool,
    rx_ext: bool,
    inj_in_frame: bool,
    owner: Owner,
    last_inj: bool,
    inj_credits: u32,
    /// The receive frame in progress is a multicast frame of an armed tree (its arm would be copied).
    watch: bool,
    /// Beats of the receive frame in progress moved so far, saturating at [`Interposer::copy_beats`].
    rx_count: usize,
    /// `rt_arm` as seen in the receive frame in progress.
    arm: bool,
    /// The arm's copy: its beats (data, keep), kept as they were extracted. Out of line: only a frame of an
    /// armed tree writes it, and the registers every cycle reads then fit fewer cache lines (a fabric steps
    /// 1,024 engines in turn; docs/performance.md §Session 19, the engine's hot state).
    copy_buf: CopyBuf,
    /// A copy is waiting for or going to `m_axis_vl`.
    copy_pending: bool,
    /// The copy's next beat to send, and the index of its last.
    copy_index: usize,
    copy_last: usize,
    out: InterposerOut,
    /// Model observation, not an RTL register: the last step's [`Interposer::start_contention`].
    start_contention: bool,
}

/// Whether a receive frame whose first beat is `d` is for the engine (docs/blocks/interposer.md §Decision).
pub fn addressed_to_engine(d: &Wide, portals: bool, engine_id: u16, ethertype: u16, armed_tree: &dyn Fn(u16) -> bool) -> bool {
    addressed_to_engine_on(d, portals, false, engine_id, ethertype, armed_tree)
}

/// [`addressed_to_engine`] on a link in flit mode or not: a flit-mode TLP is read at [`FLIT_TLP_OFFSET`]
/// (its header base keeps the Fmt in Type bits 7-5 and the address and Target ID in DW2-DW3, as a
/// non-flit header: docs/frames.md §2); `flit` is ignored on a Soft Portals port.
pub fn addressed_to_engine_on(d: &Wide, portals: bool, flit: bool, engine_id: u16, ethertype: u16, armed_tree: &dyn Fn(u16) -> bool) -> bool {
    let b = |i: usize| d.byte(i);
    let be16 = |i: usize| u16::from_be_bytes([b(i), b(i + 1)]);
    let be32 = |i: usize| u32::from_be_bytes([b(i), b(i + 1), b(i + 2), b(i + 3)]);
    if portals {
        let dfa = be32(14);
        be16(12) == ethertype && b(25) & 1 != 0 && armed_tree(((dfa >> 3) & 0x1FFF) as u16)
    } else {
        let t = if flit { FLIT_TLP_OFFSET } else { TLP_OFFSET };
        let (fmt, typ) = (b(t) >> 5, b(t) & 0x1F);
        let four = fmt & 1 != 0;
        if typ == 0 && fmt < 4 {
            let hi = if four { be32(t + 8) } else { 0 };
            let lo = if four { be32(t + 12) } else { be32(t + 8) };
            hi == 0 && lo >> 16 == u32::from(engine_id) && (lo >> 12) & 0xF == 0xC
        } else {
            typ == 0b1_0010 && four && be16(t + 8) == engine_id
        }
    }
}

impl Interposer {
    /// An interposer in its reset state.
    pub fn new(p: InterposerParams) -> Result<Self, InterposerParamError> {
        if p.data_width < 8 * DECISION_BYTES || p.data_width % 8 != 0 || p.data_width > WIDE_MAX_BITS {
            return Err(InterposerParamError::DataWidth(p.data_width));
        }
        let sizes_ok = p.mcast_entries.is_power_of_two() && (2..=MCAST_ENTRIES_SEED).contains(&p.mcast_entries);
        if !sizes_ok || !(1..=255).contains(&p.inj_credits) {
            return Err(InterposerParamError::Sizes(p.mcast_entries, p.inj_credits));
        }
        Ok(Self::reset_state(p, McastTable::new(p.mcast_entries), 0, OutOfLine::new(COPY_BUF_RESET)))
    }

    /// The reset state with the multicast table `mcast` and its read register `mcast_rd` (a reset clears
    /// neither: the RAM is cleared by the sweep that the reset starts, and no receive beat is taken, so no
    /// entry is read, before the sweep ends; the model clears the storage at once, which is the same seen
    /// from the ports). A reset reuses the storage of the table and of `copy_buf` (cleared here).
    fn reset_state(p: InterposerParams, mut mcast: McastTable, mcast_rd: u16, copy_buf: CopyBuf) -> Self {
        mcast.clear();
        Interposer {
            p,
            mcast,
            mcast_rd,
            clear: Some(0),
            rxs: None,
            rx_in_frame: false,
            rx_ext: false,
            inj_in_frame: false,
            owner: Owner::None,
            last_inj: false,
            inj_credits: p.inj_credits,
            watch: false,
            rx_count: 0,
            arm: false,
            copy_buf: copy_buf.refill(COPY_BUF_RESET),
            copy_pending: false,
            copy_index: 0,
            copy_last: 0,
            out: InterposerOut { stat_inj_credits: p.inj_credits as u8, ..Default::default() },
            start_contention: false,
        }
    }

    /// The state before the first reset (RTL registers at 0 under `--x-initial fast`).
    pub fn power_on(p: InterposerParams) -> Result<Self, InterposerParamError> {
        let mut m = Self::new(p)?;
        m.inj_credits = 0;
        m.out.stat_inj_credits = 0;
        // Registers and the RAM at 0: no sweep is running, every entry reads not armed.
        m.clear = None;
        Ok(m)
    }

    /// The instance parameters.
    pub fn params(&self) -> &InterposerParams {
        &self.p
    }

    /// The index of the tree's entry in the multicast table, and the tag the entry keeps.
    fn mcast_slot(&self, tree: u16) -> (usize, u16) {
        let tree = tree & ((1 << TREE_BITS) - 1);
        let bits = self.p.mcast_entries.trailing_zeros();
        (usize::from(tree) & (self.p.mcast_entries - 1), tree >> bits)
    }

    /// Beats of the longest frame whose arm is copied ([`ARM_COPY_BYTES`] at this width).
    pub fn copy_beats(&self) -> usize {
        ARM_COPY_BYTES.div_ceil(self.p.data_width / 8)
    }

    /// Whether the multicast table is being cleared after a reset (no receive beat is taken).
    pub fn clearing(&self) -> bool {
        self.clear.is_some()
    }

    /// Cycles of the clearing sweep still to run (each holds receive), 0 when no sweep runs.
    pub fn clear_remaining(&self) -> u64 {
        self.clear.map_or(0, |k| (self.p.mcast_entries - k) as u64)
    }

    /// What `n` cycles of the clearing sweep do, in closed form: the sweep's index moves `n` entries,
    /// and the sweep ends if `n` reaches [`Interposer::clear_remaining`] (further cycles change nothing
    /// more). The entries it clears are clear already (the model clears the storage at the reset), so
    /// the index is all the sweep changes. Bit-exact with `n` cycles of [`Block::step`] only if those
    /// cycles change nothing else: no reset, no receive beat in flight, no injection, no credit returned
    /// (what the caller checks, as `PacketEngine::advance_idle` does). A simulation shortcut of the
    /// model: the RTL has no such port.
    pub fn advance_clear(&mut self, n: u64) {
        if let Some(k) = self.clear {
            let next = k as u64 + n;
            self.clear = (next < self.p.mcast_entries as u64).then_some(next as usize);
        }
    }

    /// Whether the last [`Block::step`] had a receive frame start waiting behind a full extraction path
    /// while an injected frame start could have been taken (credit held, VL output free, no frame in
    /// progress): the arbitration that deadlocked an emitting engine when the waiting start kept the
    /// turn (docs/blocks/interposer.md §Arbitration). A model observation for functional coverage, not
    /// an RTL port.
    pub fn start_contention(&self) -> bool {
        self.start_contention
    }
}

impl Block for Interposer {
    type In = InterposerIn;
    type Out = InterposerOut;

    #[inline(always)]
    fn step(&mut self, i: &InterposerIn) -> InterposerOut {
        let keep_mask = if self.p.data_width >= 512 { u64::MAX } else { (1u64 << (self.p.data_width / 8)) - 1 };
        let vl_free = !self.out.m_axis_vl_tvalid || i.m_axis_vl_tready;
        let ext_free = !self.out.m_axis_ext_tvalid || i.m_axis_ext_tready;
        let rx_first = !self.rx_in_frame;
        let inj_first = !self.inj_in_frame;
        let credit = self.inj_credits > 0;
        let head = self.rxs.is_some();
        // A receive start competes only when it can be taken (rtl/interposer.v says why: else a start
        // blocked by a full extraction path holds the turn and the engine's own output is never injected).
        // A pending copy of an arm goes before any new frame start (it keeps the receive order on the VL path).
        let copy = self.copy_pending;
        let rx_req = head && rx_first && self.owner == Owner::None && !copy && vl_free && ext_free;
        let inj_req = i.s_axis_inj_tvalid && inj_first && self.owner == Owner::None && !copy && credit;
        self.start_contention = !i.rst
            && head
            && rx_first
            && !ext_free
            && i.s_axis_inj_tvalid
            && inj_first
            && self.owner == Owner::None
            && !copy
            && credit
            && vl_free;
        // Round robin between frame starts on the VL path.
        let inj_wins = inj_req && (!rx_req || !self.last_inj);
        // The beat in the receive stage moves to its output.
        let rx_beat = !i.rst
            && head
            && if rx_first { self.owner == Owner::None && !copy && !inj_wins && vl_free && ext_free } else if self.rx_ext { ext_free } else { vl_free };
        // The copy moves one beat a cycle with the VL output free and an injection credit held.
        let copy_go = !i.rst && copy && vl_free && credit && matches!(self.owner, Owner::None | Owner::Copy);
        let rx_ready = !i.rst && self.clear.is_none() && (!head || rx_beat);
        let inj_ready = !i.rst && vl_free && credit && (self.owner == Owner::Inj || (inj_first && inj_wins && vl_free));
        let out = InterposerOut { s_axis_rx_tready: rx_ready, s_axis_inj_tready: inj_ready, ..self.out };

        // Rising edge.
        let rx_take = i.s_axis_rx_tvalid && rx_ready;
        let inj_beat = i.s_axis_inj_tvalid && inj_ready;
        self.out.m_axis_vl_tvalid &= !i.m_axis_vl_tready;
        self.out.m_axis_ext_tvalid &= !i.m_axis_ext_tready;
        self.out.stat_event = 0;
        let mut extracted_beat = false;
        let moving = if rx_beat { self.rxs.take() } else { None };
        if let Some(st) = moving {
            let mut watch = self.watch;
            let ext = if rx_first {
                // The entry read when this beat was taken, at its tree's index: armed, and its tag matches.
                let rd = self.mcast_rd;
                let bits = self.p.mcast_entries.trailing_zeros();
                let armed = |tree: u16| rd & 1 != 0 && rd >> 1 == (tree & ((1 << TREE_BITS) - 1)) >> bits;
                let d = &st.tdata;
                let ext = if st.family { st.portals_hit && armed((u16::from_be_bytes([d.byte(16), d.byte(17)]) >> 3) & ((1 << TREE_BITS) - 1)) } else { st.tlp_hit };
                self.rx_ext = ext;
                self.out.stat_event = 1 << if ext { event::EXTRACTED } else { event::PASSED };
                if !ext && !st.tlast {
                    self.owner = Owner::Rx;
                }
                self.last_inj = false;
                watch = ext && st.family;
                ext
            } else {
                self.rx_ext
            };
            // The arm's copy: a watched beat is kept while the frame fits; rt_arm is read in its beat.
            let count = self.rx_count;
            let full = self.copy_beats();
            if ext && watch && count != full {
                self.copy_buf[count] = (st.tdata, st.tkeep);
            }
            let kw = self.p.data_width / 8;
            let (arm_beat, arm_offset) = (ARM_BYTE / kw, ARM_BYTE % kw);
            let arm_seen = if count == arm_beat { st.tkeep >> arm_offset & 1 != 0 && st.tdata.byte(arm_offset) >> ARM_BIT & 1 != 0 } else { !rx_first && self.arm };
            if watch && st.tlast && count != full && arm_seen {
                self.copy_pending = true;
                self.copy_index = 0;
                self.copy_last = count;
            }
            self.watch = watch && !st.tlast;
            self.arm = arm_seen;
            self.rx_count = if st.tlast { 0 } else { (count + 1).min(full) };
            if ext {
                extracted_beat = true;
                self.out.m_axis_ext_tdata = st.tdata;
                self.out.m_axis_ext_tkeep = st.tkeep;
                self.out.m_axis_ext_tvalid = true;
                self.out.m_axis_ext_tlast = st.tlast;
                self.out.m_axis_ext_tuser = u16::from(st.flit) << TUSER_FLIT_BIT | u16::from(st.family) << 8 | u16::from(st.port);
            } else {
                self.out.m_axis_vl_tdata = st.tdata;
                self.out.m_axis_vl_tkeep = st.tkeep;
                self.out.m_axis_vl_tvalid = true;
                self.out.m_axis_vl_tlast = st.tlast;
                if st.tlast && self.owner == Owner::Rx {
                    self.owner = Owner::None;
                }
            }
            self.rx_in_frame = !st.tlast;
        }
        if rx_take {
            // The table is read before this edge's write (read-before-write, as the RAM's registered read).
            let d = &i.s_axis_rx_tdata;
            let tree = (u16::from_be_bytes([d.byte(16), d.byte(17)]) >> 3) & ((1 << TREE_BITS) - 1);
            self.mcast_rd = self.mcast.get(self.mcast_slot(tree).0);
            // The header's parse at this edge, against this edge's straps; the tree's tag is compared in the stage.
            let (id, et) = (i.cfg_engine_id, i.cfg_ethertype);
            self.rxs = Some(RxStage {
                tdata: d.truncated(self.p.data_width),
                tkeep: i.s_axis_rx_tkeep & keep_mask,
                tlast: i.s_axis_rx_tlast,
                tlp_hit: addressed_to_engine_on(d, false, i.cfg_flit, id, et, &|_| false),
                portals_hit: addressed_to_engine(d, true, id, et, &|_| true),
                family: i.cfg_family,
                flit: i.cfg_flit && !i.cfg_family,
                port: i.cfg_port,
            });
        }
        if copy_go {
            if self.copy_index == 0 {
                self.out.stat_event |= 1 << event::PASSED;
            }
            let last = self.copy_index == self.copy_last;
            self.owner = if last { Owner::None } else { Owner::Copy };
            (self.out.m_axis_vl_tdata, self.out.m_axis_vl_tkeep) = self.copy_buf[self.copy_index];
            self.out.m_axis_vl_tvalid = true;
            self.out.m_axis_vl_tlast = last;
            self.copy_index += 1;
            self.copy_pending = !last;
        }
        if inj_beat {
            if inj_first {
                self.out.stat_event |= 1 << event::INJECTED;
                self.last_inj = true;
                self.owner = Owner::Inj;
            }
            self.out.m_axis_vl_tdata = i.s_axis_inj_tdata.truncated(self.p.data_width);
            self.out.m_axis_vl_tkeep = i.s_axis_inj_tkeep & keep_mask;
            self.out.m_axis_vl_tvalid = true;
            self.out.m_axis_vl_tlast = i.s_axis_inj_tlast;
            if i.s_axis_inj_tlast {
                self.owner = Owner::None;
            }
            self.inj_in_frame = !i.s_axis_inj_tlast;
        }
        // Credits: the VL queue's returns refill the injection reserve first.
        let avail = self.inj_credits - u32::from(inj_beat || copy_go);
        let returned = u32::from(i.vl_credit_return);
        let take = returned.min(self.p.inj_credits - avail);
        self.inj_credits = avail + take;
        self.out.link_credit_return = (returned - take + u32::from(extracted_beat)) as u8;
        self.out.stat_inj_credits = self.inj_credits as u8;

        // The table's one write port: the clearing sweep (the model's table is already clear), else a
        // configuration write, which the sweep's cycles ignore.
        if let Some(k) = self.clear {
            self.clear = (k + 1 < self.p.mcast_entries).then_some(k + 1);
        } else if i.cfg_mcast_wr_en {
            let (index, tag) = self.mcast_slot(i.cfg_mcast_wr_tree);
            let armed = i.cfg_mcast_wr_valid && i.cfg_mcast_wr_wait_count & 0xF_FFFF != 0;
            self.mcast.set(index, tag << 1 | u16::from(armed));
        }
        if i.rst {
            // In place: a reset makes no heap allocation (issue 23, tests/zero_alloc.rs).
            *self = Self::reset_state(self.p, std::mem::take(&mut self.mcast), self.mcast_rd, self.copy_buf.take());
        }
        out
    }
}

/// The text of `rtl/interposer_codes.vh`, to be included inside module `interposer`.
pub fn verilog_header() -> String {
    let mut h = crate::codes::Header::new(&[
        "// The interposer's event bits (docs/blocks/interposer.md), included inside module interposer (rtl/interposer.v).",
        "// GENERATED from crates/model/src/interposer.rs: do not edit; run",
        "// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model interposer_codes` (the same test checks it).",
        "",
    ]);
    let count = format!("localparam EV_COUNT = {};\n", event::COUNT);
    h.section("Event bits: the bit of stat_event a frame's outcome pulses (EV_COUNT bits in all)", &(event::localparams() + &count));
    let arm = crate::codes::integers([("ARM_BYTE", ARM_BYTE as u64), ("ARM_BIT", u64::from(ARM_BIT)), ("ARM_COPY_BYTES", ARM_COPY_BYTES as u64)]);
    h.section("The multicast arm's copy (002 (39)-(40)): rt_arm's byte and bit in a Soft Portals frame, the longest frame copied", &arm);
    h.text()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interposer_codes_vh_is_current() {
        crate::codes::check_generated("interposer_codes.vh", &verilog_header(), "interposer_codes");
    }

    fn beat(bytes: &[u8], last: bool) -> Wide {
        let mut w = Wide::ZERO;
        for (k, &b) in bytes.iter().enumerate() {
            w.set_byte(k, b);
        }
        let _ = last;
        w
    }

    #[test]
    fn decision_reads_the_documented_bytes() {
        // MWr32 to 0x0010_C004 from the frames crate layout: seq(2) | 40 00 00 01 | req tag be | addr.
        let mwr = [0x00, 0x01, 0x40, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x0F, 0x00, 0x10, 0xC0, 0x04];
        let none = |_: u16| false;
        assert!(addressed_to_engine(&beat(&mwr, true), false, 0x0010, 0x88B5, &none));
        assert!(!addressed_to_engine(&beat(&mwr, true), false, 0x0020, 0x88B5, &none));
        // VDM by ID (Fmt 011 Type 10010) to target 0x0010.
        let vdm = [0x00, 0x01, 0x72, 0x00, 0x00, 0x04, 0x01, 0x00, 0x00, 0x7F, 0x00, 0x10, 0xC0, 0x11];
        assert!(addressed_to_engine(&beat(&vdm, true), false, 0x0010, 0x88B5, &none));
        // Soft Portals: EtherType 0x88B5, DFA tree 5 (bits 15-3), flags multicast.
        let mut sp = [0u8; 26];
        sp[12] = 0x88;
        sp[13] = 0xB5;
        sp[17] = 5 << 3;
        sp[25] = 1;
        let tree5 = |t: u16| t == 5;
        assert!(addressed_to_engine(&beat(&sp, true), true, 0, 0x88B5, &tree5));
        assert!(!addressed_to_engine(&beat(&sp, true), true, 0, 0x88B6, &tree5));
    }

    #[test]
    fn credits_are_conserved_in_a_short_run() {
        let p = InterposerParams::default();
        let mut m = Interposer::new(p).unwrap();
        // Inject one 2-beat frame with the VL queue ready, then return both slots.
        let inj = |last| InterposerIn { s_axis_inj_tvalid: true, s_axis_inj_tlast: last, s_axis_inj_tkeep: 0xFFFF_FFFF, m_axis_vl_tready: true, m_axis_ext_tready: true, ..Default::default() };
        assert!(m.step(&inj(false)).s_axis_inj_tready);
        assert!(m.step(&inj(true)).s_axis_inj_tready);
        let o = m.step(&InterposerIn { vl_credit_return: 3, m_axis_vl_tready: true, ..Default::default() });
        assert_eq!(o.stat_inj_credits, 6);
        let o = m.step(&InterposerIn { m_axis_vl_tready: true, ..Default::default() });
        assert_eq!((o.stat_inj_credits, o.link_credit_return), (8, 1), "reserve refilled first, the rest to the partner");
    }

    /// A one-beat Soft Portals multicast frame to `tree` (EtherType 0x88B5, flags bit 0).
    fn portals_to(tree: u16) -> Wide {
        let mut sp = [0u8; 26];
        sp[12] = 0x88;
        sp[13] = 0xB5;
        sp[16..18].copy_from_slice(&(tree << 3).to_be_bytes());
        sp[25] = 1;
        beat(&sp, true)
    }

    fn portals_in(d: Wide) -> InterposerIn {
        InterposerIn { s_axis_rx_tdata: d, s_axis_rx_tkeep: 0xFFFF_FFFF, s_axis_rx_tvalid: true, s_axis_rx_tlast: true, cfg_family: true, cfg_ethertype: 0x88B5, m_axis_vl_tready: true, m_axis_ext_tready: true, ..Default::default() }
    }

    /// No beat offered, outputs ready, the port a Soft Portals port.
    fn idle() -> InterposerIn {
        InterposerIn { s_axis_rx_tvalid: false, ..portals_in(Wide::ZERO) }
    }

    fn write(tree: u16, wait_count: u32) -> InterposerIn {
        InterposerIn { cfg_mcast_wr_en: true, cfg_mcast_wr_valid: true, cfg_mcast_wr_tree: tree, cfg_mcast_wr_wait_count: wait_count, ..idle() }
    }

    /// Sends a one-beat frame to `tree` through an idle interposer; true if it came out extracted.
    fn extracted(m: &mut Interposer, tree: u16) -> bool {
        assert!(m.step(&portals_in(portals_to(tree))).s_axis_rx_tready);
        m.step(&idle());
        let o = m.step(&idle());
        assert!(o.m_axis_ext_tvalid ^ o.m_axis_vl_tvalid, "the beat leaves two cycles after it is taken");
        o.m_axis_ext_tvalid
    }

    #[test]
    fn the_table_is_indexed_by_the_tree_and_tagged_below_the_seed_size() {
        let mut m = Interposer::power_on(InterposerParams { mcast_entries: 16, ..Default::default() }).unwrap();
        assert!(!extracted(&mut m, 5), "power-on table: nothing armed");
        m.step(&write(5, 3));
        assert!(extracted(&mut m, 5));
        assert!(!extracted(&mut m, 21), "tree 21 shares tree 5's index: the tag tells them apart");
        m.step(&write(21, 1));
        assert!(extracted(&mut m, 21));
        assert!(!extracted(&mut m, 5), "the write for tree 21 replaced tree 5's entry (same index)");
        m.step(&write(21, 0));
        assert!(!extracted(&mut m, 21), "wait count 0: the tree's frames pass");
        // At the seed's size every tree has its own entry.
        let mut m = Interposer::power_on(InterposerParams::default()).unwrap();
        m.step(&write(5, 3));
        m.step(&write(8189, 3));
        assert!(extracted(&mut m, 5) && extracted(&mut m, 8189) && !extracted(&mut m, 21));
    }

    #[test]
    fn a_beat_taken_at_the_edge_of_a_write_sees_the_old_entry() {
        let mut m = Interposer::power_on(InterposerParams { mcast_entries: 16, ..Default::default() }).unwrap();
        let both = InterposerIn { cfg_mcast_wr_en: true, cfg_mcast_wr_valid: true, cfg_mcast_wr_tree: 7, cfg_mcast_wr_wait_count: 2, ..portals_in(portals_to(7)) };
        assert!(m.step(&both).s_axis_rx_tready);
        m.step(&idle());
        assert!(m.step(&idle()).m_axis_vl_tvalid, "read before write: the beat passed");
        assert!(extracted(&mut m, 7), "the next beat sees the write");
    }

    /// The straps are sampled with the beat: a family switched the cycle after a TLP register write's
    /// beat is taken (as a link partner does between frames) does not reach it (the packet engine lost
    /// that write when the receive stage sampled the straps a cycle late).
    #[test]
    fn a_strap_change_after_the_edge_does_not_reach_a_taken_beat() {
        let mut m = Interposer::power_on(InterposerParams { mcast_entries: 16, ..Default::default() }).unwrap();
        // A 3-DW MWr to the engine's window (engine 0x0010): address 0x0010_C004.
        let mwr = [0x00, 0x01, 0x40, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x0F, 0x00, 0x10, 0xC0, 0x04];
        let tlp = InterposerIn { cfg_family: false, cfg_port: 3, cfg_engine_id: 0x0010, ..portals_in(beat(&mwr, true)) };
        assert!(m.step(&tlp).s_axis_rx_tready);
        m.step(&InterposerIn { cfg_port: 9, ..idle() });
        let o = m.step(&idle());
        assert!(o.m_axis_ext_tvalid && !o.m_axis_vl_tvalid, "decided as a TLP frame");
        assert_eq!(o.m_axis_ext_tuser, 3, "tuser: family 0, port 3, as sampled");
    }

    /// A flit-mode link (`cfg_flit`): the TLP starts at byte 0 (no sequence number), is decided there and
    /// marked in tuser bit 9; the same bytes on a non-flit link are read two bytes later and pass; a Soft
    /// Portals port ignores the strap (issue 15 item 6).
    #[test]
    fn a_flit_mode_link_decides_at_byte_0_and_marks_tuser_bit_9() {
        // A flit-mode MWr32 (Type 0x40, Length 1) to 0x0010_C004: DW0 | Requester ID, tag | address.
        let flit = [0x40, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x0F, 0x00, 0x10, 0xC0, 0x04];
        assert!(addressed_to_engine_on(&beat(&flit, true), false, true, 0x0010, 0x88B5, &|_| false));
        assert!(!addressed_to_engine(&beat(&flit, true), false, 0x0010, 0x88B5, &|_| false));
        let run = |flit_link: bool, family: bool| {
            let mut m = Interposer::power_on(InterposerParams { mcast_entries: 16, ..Default::default() }).unwrap();
            let i = InterposerIn { cfg_family: family, cfg_flit: flit_link, cfg_port: 3, cfg_engine_id: 0x0010, ..portals_in(beat(&flit, true)) };
            assert!(m.step(&i).s_axis_rx_tready);
            m.step(&InterposerIn { cfg_flit: !flit_link, ..idle() });
            m.step(&idle())
        };
        let o = run(true, false);
        assert!(o.m_axis_ext_tvalid && !o.m_axis_vl_tvalid, "a flit-mode link's MWr to the window is extracted");
        assert_eq!(o.m_axis_ext_tuser, 1 << TUSER_FLIT_BIT | 3, "tuser: flit 1, family 0, port 3, as sampled");
        assert!(run(false, false).m_axis_vl_tvalid, "unmarked, the bytes are read at byte 2 and pass");
        assert!(run(true, true).m_axis_vl_tvalid, "a Soft Portals port ignores the flit strap");
    }

    /// A Soft Portals frame of `len` bytes (102: the real size) to multicast `tree`, `rt_arm` = `arm`
    /// (byte 64 bit 2: Ethernet 14 + reduction header at Portals byte 40, header bit 10, docs/frames.md).
    fn portals_frame(tree: u16, arm: bool, len: usize) -> Vec<u8> {
        let mut f: Vec<u8> = (0..len).map(|k| (k as u8).wrapping_mul(37) & !0x04).collect();
        f[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
        f[14..18].copy_from_slice(&u32::from(tree << 3).to_be_bytes());
        f[25] = 1;
        if len > ARM_BYTE {
            f[ARM_BYTE] = if arm { f[ARM_BYTE] | 0x04 } else { f[ARM_BYTE] & !0x04 };
        }
        f
    }

    /// Offers `frames` back to back on a Soft Portals port, `vl_ready(cycle)` on the VL output, the
    /// checker always ready, every VL slot returned the cycle after it is taken; returns the frames that
    /// left on m_axis_ext and on m_axis_vl (bytes by tkeep) and the event pulses seen.
    fn run_frames(m: &mut Interposer, frames: &[Vec<u8>], cycles: usize, vl_ready: &dyn Fn(usize) -> bool) -> (Vec<Vec<u8>>, Vec<Vec<u8>>, Vec<u8>) {
        let kw = m.params().data_width / 8;
        let mut beats: std::collections::VecDeque<(Wide, u64, bool)> = frames
            .iter()
            .flat_map(|f| {
                let n = f.len().div_ceil(kw);
                (0..n).map(move |b| {
                    let chunk = &f[b * kw..((b + 1) * kw).min(f.len())];
                    (beat(chunk, false), (1u64 << chunk.len()) - 1, b + 1 == n)
                })
            })
            .collect();
        let (mut ext, mut vl, mut events) = (vec![Vec::new()], vec![Vec::new()], Vec::new());
        let mut returned = 0;
        for cycle in 0..cycles {
            let ready = vl_ready(cycle);
            let mut i = InterposerIn { vl_credit_return: returned, m_axis_vl_tready: ready, ..idle() };
            if let Some(&(d, k, last)) = beats.front() {
                (i.s_axis_rx_tdata, i.s_axis_rx_tkeep, i.s_axis_rx_tlast, i.s_axis_rx_tvalid) = (d, k, last, true);
            }
            let o = m.step(&i);
            if o.s_axis_rx_tready && i.s_axis_rx_tvalid {
                beats.pop_front();
            }
            for (valid, taken, d, k, last, out) in [
                (o.m_axis_ext_tvalid, true, o.m_axis_ext_tdata, o.m_axis_ext_tkeep, o.m_axis_ext_tlast, &mut ext),
                (o.m_axis_vl_tvalid, ready, o.m_axis_vl_tdata, o.m_axis_vl_tkeep, o.m_axis_vl_tlast, &mut vl),
            ] {
                if valid && taken {
                    let cur = out.last_mut().unwrap();
                    cur.extend((0..kw).filter(|&b| k >> b & 1 != 0).map(|b| d.byte(b)));
                    if last {
                        out.push(Vec::new());
                    }
                }
            }
            returned = u8::from(o.m_axis_vl_tvalid && ready);
            if o.stat_event != 0 {
                events.push(o.stat_event);
            }
        }
        ext.pop();
        vl.pop();
        (ext, vl, events)
    }

    /// A 16-entry interposer after its reset and clearing sweep (injection credits held: a copy is paid
    /// with them), tree 5 armed.
    fn reset_with_tree_5() -> Interposer {
        let mut m = Interposer::new(InterposerParams { mcast_entries: 16, ..Default::default() }).unwrap();
        while m.clearing() {
            m.step(&idle());
        }
        m.step(&write(5, 3));
        m
    }

    /// 002 (39)-(40): "the reduction engine forwards the barrier frame to the child nodes ... As the
    /// barrier frame travels down the reduction tree, all the reduction engines participating in this
    /// reduction tree are armed": an arm (rt_arm = 1) of an armed tree reaches the engine *and* leaves on
    /// the pass-through path, whole; a contribution (rt_arm = 0) of the same tree reaches the engine only.
    /// Before issue 15 item 4 the interposer extracted the arm only (this test failed: no VL frame).
    #[test]
    fn a_multicast_arm_reaches_the_engine_and_passes_on() {
        let mut m = reset_with_tree_5();
        let arm = portals_frame(5, true, ARM_COPY_BYTES);
        let contribution = portals_frame(5, false, ARM_COPY_BYTES);
        let (ext, vl, events) = run_frames(&mut m, &[arm.clone(), contribution.clone()], 40, &|_| true);
        assert_eq!(ext, vec![arm.clone(), contribution], "both reach the engine");
        assert_eq!(vl, vec![arm], "the arm passes on, the contribution does not");
        let bit = |e| 1u8 << e;
        assert_eq!(events, vec![bit(event::EXTRACTED), bit(event::PASSED), bit(event::EXTRACTED)]);
        // An arm of a tree the engine does not reduce passes as before, once.
        let other = portals_frame(6, true, ARM_COPY_BYTES);
        let (ext, vl, _) = run_frames(&mut m, &[other.clone()], 20, &|_| true);
        assert!(ext.is_empty());
        assert_eq!(vl, vec![other]);
    }

    /// A frame of an armed tree with rt_arm set but longer than a Soft Portals frame is not a Portals
    /// reduction frame: it is extracted only (the checker drops it), never copied.
    #[test]
    fn an_arm_longer_than_a_portals_frame_is_extracted_only() {
        let mut m = reset_with_tree_5();
        let long = portals_frame(5, true, ARM_COPY_BYTES + 40);
        let short = portals_frame(5, true, ARM_BYTE);
        let (ext, vl, _) = run_frames(&mut m, &[long.clone(), short.clone()], 40, &|_| true);
        assert_eq!(ext, vec![long, short]);
        assert!(vl.is_empty(), "no copy of a long frame, nor of one that ends before rt_arm's byte");
    }

    /// The two ways stalled one at a time (docs/blocks/interposer.md §The multicast arm passes on): the
    /// arm streams to the engine as any extracted frame; its copy waits for the VL output, and the next
    /// receive frame waits behind the copy (receive order on the VL path).
    #[test]
    fn the_copy_waits_for_the_vl_output_and_the_next_frame_waits_for_the_copy() {
        let mut m = reset_with_tree_5();
        let arm = portals_frame(5, true, ARM_COPY_BYTES);
        let passing = portals_frame(9, false, ARM_COPY_BYTES);
        let (ext, vl, _) = run_frames(&mut m, &[arm.clone(), passing.clone()], 60, &|c| c >= 30);
        assert_eq!(ext, vec![arm.clone()], "the engine's side is not held by the stalled VL output");
        assert_eq!(vl, vec![arm, passing], "the copy first, then the next receive frame");
    }

    /// `advance_clear(n)` against `n` idle cycles: the same state (`PartialEq` on every register) for
    /// every `n` from 0 past the sweep's end, started anywhere in the sweep, and the same outputs on every
    /// cycle of traffic offered right after (a frame waiting for the sweep's end included).
    #[test]
    fn advance_clear_equals_stepping_the_sweep() {
        let p = InterposerParams { mcast_entries: 16, ..Default::default() };
        let entries = p.mcast_entries as u64;
        let reset = InterposerIn { rst: true, ..idle() };
        let frames = [portals_frame(5, true, ARM_COPY_BYTES), portals_frame(9, false, ARM_COPY_BYTES)];
        for start in 0..entries {
            for n in 0..=entries + 2 {
                let mut stepped = Interposer::new(p).unwrap();
                stepped.step(&reset);
                for _ in 0..start {
                    stepped.step(&idle());
                }
                assert_eq!(stepped.clear_remaining(), entries - start);
                let mut advanced = stepped.clone();
                for _ in 0..n {
                    stepped.step(&idle());
                }
                advanced.advance_clear(n);
                assert_eq!(advanced, stepped, "sweep from entry {start}, {n} cycles");
                assert_eq!(advanced.clear_remaining(), (entries - start).saturating_sub(n));
                // Tree 5 armed once the sweep lets writes through, then frames offered at once.
                for m in [&mut stepped, &mut advanced] {
                    m.step(&write(5, 3));
                }
                let a = run_frames(&mut advanced, &frames, 60, &|c| c % 3 != 1);
                let b = run_frames(&mut stepped, &frames, 60, &|c| c % 3 != 1);
                assert_eq!(a, b, "traffic after the sweep from entry {start}, {n} cycles");
                assert_eq!(a.1.len(), 2, "both frames left on the VL path (the arm copied) within the run");
                assert_eq!(advanced, stepped);
            }
        }
        // Outside a sweep it changes nothing.
        let mut m = Interposer::power_on(p).unwrap();
        let before = m.clone();
        m.advance_clear(5);
        assert_eq!(m, before);
    }

    #[test]
    fn a_reset_clears_the_table_by_a_sweep_that_holds_receive_and_ignores_writes() {
        let p = InterposerParams { mcast_entries: 16, ..Default::default() };
        let mut m = Interposer::power_on(p).unwrap();
        m.step(&write(9, 4));
        assert!(extracted(&mut m, 9));
        m.step(&InterposerIn { rst: true, ..Default::default() });
        for k in 0..p.mcast_entries {
            assert!(m.clearing());
            let o = m.step(&InterposerIn { s_axis_rx_tvalid: true, ..write(3, 1) });
            assert!(!o.s_axis_rx_tready, "receive held during the sweep (cycle {k})");
        }
        assert!(!m.clearing());
        assert!(!extracted(&mut m, 9), "the sweep cleared tree 9");
        assert!(!extracted(&mut m, 3), "writes during the sweep are ignored");
    }
}
