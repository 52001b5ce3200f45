//! Data-path interposer (seed 000 \[0092\]; 002 (39)).
//!
//! Cycle model of `rtl/interposer.v`; interface, the header bytes examined, the credit scheme and the
//! timing are `docs/blocks/interposer.md`. The interposer sits between a port's receive path and its
//! virtual-link (VL) queue:
//!
//! * receive beats (`s_axis_rx`) whose frame is addressed to the engine are extracted to the input
//!   checker (`m_axis_ext`, with `{family, port}` in tuser); every other frame passes to the VL queue
//!   (`m_axis_vl`) untouched and in order. The decision is made on the first beat from fixed header bytes.
//! * frames from the output queue (`s_axis_inj`) are injected into the VL path between receive frames;
//!   receive and injected frames never interleave on `m_axis_vl`.
//! * credits, in units of one VL-queue beat slot: the link partner's credits for extracted beats are
//!   returned at once (`link_credit_return`); the VL queue's returns (`vl_credit_return`) first refill the
//!   interposer's injection reserve (`INJ_CREDITS` slots, which injected beats consume), the rest go back
//!   to the partner. No credit is lost or invented: partner credits + injection credits + VL occupancy +
//!   beats in flight + credits being returned = VL depth, on every cycle.

use crate::ports;
use crate::signal::{Block, Wide, WIDE_MAX_BITS};

/// Offset of the TLP in a TLP frame (after the 2-byte sequence-number field).
pub const TLP_OFFSET: usize = 2;
/// Bytes of the first beat the decision reads (up to the Portals flags byte 25).
pub const DECISION_BYTES: usize = 26;

/// Parameters (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterposerParams {
    /// Data width in bits: a multiple of 8, at least 8 * [`DECISION_BYTES`], at most 512.
    pub data_width: usize,
    /// Multicast-table entries.
    pub mcast_entries: usize,
    /// Injection credits reserved at reset (VL-queue beat slots the engine may fill).
    pub inj_credits: u32,
}

impl Default for InterposerParams {
    fn default() -> Self {
        InterposerParams { data_width: 256, mcast_entries: 16, inj_credits: 8 }
    }
}

/// A parameter set the block cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InterposerParamError {
    /// `data_width` is not a multiple of 8 in 208..=512.
    #[error("data_width {0} is not a multiple of 8 between 208 and {WIDE_MAX_BITS}")]
    DataWidth(usize),
    /// `mcast_entries` not in 1..=16 or `inj_credits` not in 1..=255.
    #[error("mcast_entries {0} must be 1-16 and inj_credits {1} 1-255")]
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
        /// The engine's device ID.
        pub cfg_engine_id: u16,
        /// Soft Portals EtherType.
        pub cfg_ethertype: u16,
        /// Multicast-table write (from the register space).
        pub cfg_mcast_wr_en: bool,
        /// Entry.
        pub cfg_mcast_wr_index: u8,
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
        /// {family, port}.
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
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct McastEntry {
    valid: bool,
    tree: u16,
    armed: bool,
}

/// The interposer's registers.
#[derive(Clone, Debug, PartialEq)]
pub struct Interposer {
    p: InterposerParams,
    mcast: Vec<McastEntry>,
    rx_in_frame: bool,
    rx_ext: bool,
    inj_in_frame: bool,
    owner: Owner,
    last_inj: bool,
    inj_credits: u32,
    out: InterposerOut,
    /// Model observation, not an RTL register: the last step's [`Interposer::start_contention`].
    start_contention: bool,
}

/// Whether a receive frame whose first beat is `d` is for the engine (docs/blocks/interposer.md §Decision).
pub fn addressed_to_engine(d: &Wide, portals: bool, engine_id: u16, ethertype: u16, armed_tree: &dyn Fn(u16) -> bool) -> bool {
    let b = |i: usize| d.byte(i);
    let be16 = |i: usize| u16::from_be_bytes([b(i), b(i + 1)]);
    let be32 = |i: usize| u32::from_be_bytes([b(i), b(i + 1), b(i + 2), b(i + 3)]);
    if portals {
        let dfa = be32(14);
        be16(12) == ethertype && b(25) & 1 != 0 && armed_tree(((dfa >> 3) & 0x1FFF) as u16)
    } else {
        let t = TLP_OFFSET;
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
        if !(1..=16).contains(&p.mcast_entries) || !(1..=255).contains(&p.inj_credits) {
            return Err(InterposerParamError::Sizes(p.mcast_entries, p.inj_credits));
        }
        Ok(Self::reset_state(p, vec![McastEntry::default(); p.mcast_entries]))
    }

    /// The reset state with the multicast table `mcast` (cleared): a reset reuses the table's storage.
    fn reset_state(p: InterposerParams, mut mcast: Vec<McastEntry>) -> Self {
        mcast.fill(McastEntry::default());
        Interposer {
            p,
            mcast,
            rx_in_frame: false,
            rx_ext: false,
            inj_in_frame: false,
            owner: Owner::None,
            last_inj: false,
            inj_credits: p.inj_credits,
            out: InterposerOut { stat_inj_credits: p.inj_credits as u8, ..Default::default() },
            start_contention: false,
        }
    }

    /// The state before the first reset (RTL registers at 0 under `--x-initial fast`).
    pub fn power_on(p: InterposerParams) -> Result<Self, InterposerParamError> {
        let mut m = Self::new(p)?;
        m.inj_credits = 0;
        m.out.stat_inj_credits = 0;
        Ok(m)
    }

    /// The instance parameters.
    pub fn params(&self) -> &InterposerParams {
        &self.p
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

    fn step(&mut self, i: &InterposerIn) -> InterposerOut {
        let keep_mask = if self.p.data_width >= 512 { u64::MAX } else { (1u64 << (self.p.data_width / 8)) - 1 };
        let vl_free = !self.out.m_axis_vl_tvalid || i.m_axis_vl_tready;
        let ext_free = !self.out.m_axis_ext_tvalid || i.m_axis_ext_tready;
        let rx_first = !self.rx_in_frame;
        let inj_first = !self.inj_in_frame;
        let credit = self.inj_credits > 0;
        // A receive start competes only when it can be taken (rtl/interposer.v says why: else a start
        // blocked by a full extraction path holds the turn and the engine's own output is never injected).
        let rx_req = i.s_axis_rx_tvalid && rx_first && self.owner == Owner::None && vl_free && ext_free;
        let inj_req = i.s_axis_inj_tvalid && inj_first && self.owner == Owner::None && credit;
        self.start_contention = !i.rst
            && i.s_axis_rx_tvalid
            && rx_first
            && !ext_free
            && i.s_axis_inj_tvalid
            && inj_first
            && self.owner == Owner::None
            && credit
            && vl_free;
        // Round robin between frame starts on the VL path.
        let inj_wins = inj_req && (!rx_req || !self.last_inj);
        let rx_ready = !i.rst
            && if rx_first { self.owner == Owner::None && !inj_wins && vl_free && ext_free } else if self.rx_ext { ext_free } else { vl_free };
        let inj_ready = !i.rst && vl_free && credit && (self.owner == Owner::Inj || (inj_first && inj_wins && vl_free));
        let out = InterposerOut { s_axis_rx_tready: rx_ready, s_axis_inj_tready: inj_ready, ..self.out };

        // Rising edge.
        let rx_beat = i.s_axis_rx_tvalid && rx_ready;
        let inj_beat = i.s_axis_inj_tvalid && inj_ready;
        self.out.m_axis_vl_tvalid &= !i.m_axis_vl_tready;
        self.out.m_axis_ext_tvalid &= !i.m_axis_ext_tready;
        self.out.stat_event = 0;
        let mut extracted_beat = false;
        if rx_beat {
            let ext = if rx_first {
                let mcast = &self.mcast;
                let armed = |tree: u16| mcast.iter().any(|e| e.valid && e.armed && e.tree == tree);
                let ext = addressed_to_engine(&i.s_axis_rx_tdata, i.cfg_family, i.cfg_engine_id, i.cfg_ethertype, &armed);
                self.rx_ext = ext;
                self.out.stat_event = 1 << if ext { event::EXTRACTED } else { event::PASSED };
                if !ext && !i.s_axis_rx_tlast {
                    self.owner = Owner::Rx;
                }
                self.last_inj = false;
                ext
            } else {
                self.rx_ext
            };
            let data = i.s_axis_rx_tdata.truncated(self.p.data_width);
            let keep = i.s_axis_rx_tkeep & keep_mask;
            if ext {
                extracted_beat = true;
                self.out.m_axis_ext_tdata = data;
                self.out.m_axis_ext_tkeep = keep;
                self.out.m_axis_ext_tvalid = true;
                self.out.m_axis_ext_tlast = i.s_axis_rx_tlast;
                self.out.m_axis_ext_tuser = u16::from(i.cfg_family) << 8 | u16::from(i.cfg_port);
            } else {
                self.out.m_axis_vl_tdata = data;
                self.out.m_axis_vl_tkeep = keep;
                self.out.m_axis_vl_tvalid = true;
                self.out.m_axis_vl_tlast = i.s_axis_rx_tlast;
                if i.s_axis_rx_tlast && self.owner == Owner::Rx {
                    self.owner = Owner::None;
                }
            }
            self.rx_in_frame = !i.s_axis_rx_tlast;
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
        let avail = self.inj_credits - u32::from(inj_beat);
        let returned = u32::from(i.vl_credit_return);
        let take = returned.min(self.p.inj_credits - avail);
        self.inj_credits = avail + take;
        self.out.link_credit_return = (returned - take + u32::from(extracted_beat)) as u8;
        self.out.stat_inj_credits = self.inj_credits as u8;

        let index = usize::from(i.cfg_mcast_wr_index & 0xF);
        if i.cfg_mcast_wr_en && index < self.p.mcast_entries {
            self.mcast[index] = McastEntry { valid: i.cfg_mcast_wr_valid, tree: i.cfg_mcast_wr_tree & 0x1FFF, armed: i.cfg_mcast_wr_wait_count & 0xF_FFFF != 0 };
        }
        if i.rst {
            // In place: a reset makes no heap allocation (issue 23, tests/zero_alloc.rs).
            *self = Self::reset_state(self.p, std::mem::take(&mut self.mcast));
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
}
