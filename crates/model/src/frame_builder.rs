//! Frame builder: the inverse of the input checker for the outgoing direction (seed 000 \[0097\], \[0144\];
//! 002 (94)-(99)).
//!
//! Cycle model of `rtl/frame_builder.v`; layouts, the field mapping and timing are
//! `docs/blocks/frame_builder.md`. A normalized [`CollectiveMsg`] from the CPU (`s_msg_*`) becomes a wire
//! frame on `m_axis` with the destination device ID in `tuser`, ready for the output queue:
//!
//! * family TLP: a vendor-defined Type 1 MsgD routed by ID (Requester ID = the engine's own device ID,
//!   000 \[0097\]; Target ID = `dst[15:0]`) carrying the collective message of `kind` 2-8, in the
//!   data-link form the checker reads (`{0000, seq[11:0]}`, TLP, LCRC little-endian), with the sequence
//!   number counting frames; kind 1, a FIG. 4 configuration message the CPU relays down the tree
//!   (000 \[0157\]), with its `ConfigFixed` from `pbv` and its device-ID slots from `data`;
//! * family Portals: a Soft Portals frame (Ethernet header from the configuration, 84-byte reduction
//!   frame with rt_arm = (kind == ARM), FCS) for kinds 4 and 9.
//!
//! Messages the builder cannot express (TLP kinds 0, 9-15, a configuration message with more slots than
//! `data` holds; Portals kinds other than 4 and 9) are taken
//! and dropped with a `stat_event` pulse (bit 1).

use crate::input_checker::config::CONFIG_RELAY_SLOTS;
use crate::input_checker::{coll_flag, crc_matrix};
use crate::message::{CollectiveMsg, Family, Kind, MsgPort};
use crate::frame_buf::FrameBuf;
use crate::ports;
use crate::signal::{Block, Wide, WIDE_MAX_BITS};

/// Largest frame (Soft Portals).
pub const MAX_FRAME_BYTES: usize = 102;
/// Frame buffer (a power of two holding the largest frame).
pub const BUFFER_BYTES: usize = 128;
/// Widest beat in bytes (`DATA_WIDTH` 512): the RTL's CRC starts `z < MAX_BEAT_BYTES` bytes early.
pub const MAX_BEAT_BYTES: usize = 64;
/// Offset of the TLP payload (collective message) in a TLP frame: sequence field + 4-DW header.
pub const TLP_PAYLOAD_OFFSET: usize = 18;

crate::code_table! {
    /// `stat_event` bits.
    pub mod event: "EV", 1 bits as u32 {
        BUILT = 0, "A frame was built (pulse when its message is taken).";
        DROPPED = 1, "A message was taken and dropped: its kind has no frame in its family.";
    }
    /// Number of event bits (the width of `stat_event`).
    pub const COUNT: u32 = TABLE.len() as u32;
}

/// Configuration inputs of the builder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuilderConfig {
    /// The engine's device ID (Requester ID of its TLPs).
    pub engine_id: u16,
    /// Collective VDM vendor ID.
    pub vendor_id: u16,
    /// Soft Portals EtherType.
    pub ethertype: u16,
    /// Source MAC of Soft Portals frames.
    pub src_mac: u64,
    /// Destination MAC of Soft Portals frames.
    pub dst_mac: u64,
}

/// Collective-message payload length of a TLP message, or `None` if the builder has no frame for it. A
/// configuration message (kind 1, FIG. 4) is one the CPU relays down the tree (docs/blocks/cpu.md
/// §Messages): `ConfigFixed` in `pbv`, its slots in `data`; its length follows from n_devices and
/// n_subservient (docs/frames.md §4), and more slots than `data` holds have no frame.
pub fn tlp_payload_len(m: &CollectiveMsg) -> Option<usize> {
    match m.kind.0 {
        1 => {
            let (n, s) = config_counts(m);
            (n + s <= CONFIG_RELAY_SLOTS).then(|| crate::input_checker::config::config_len(n, s))
        }
        2 => Some(40),
        3 | 7 | 8 => Some(16),
        4..=6 => Some(48),
        _ => None,
    }
}

/// (n_devices, n_subservient) of a configuration message in the normalized form: `ConfigFixed` bytes
/// 14-15 and 13 (payload bytes 8-23 are `pbv`, big-endian).
fn config_counts(m: &CollectiveMsg) -> (usize, usize) {
    let b = m.pbv.to_be_bytes();
    (usize::from(u16::from_be_bytes([b[6], b[7]])), usize::from(b[5]))
}

/// The frame for `m` (CRC included), or `None` when dropped. `seq` is the TLP sequence number.
pub fn build(m: &CollectiveMsg, cfg: &BuilderConfig, seq: u16) -> Option<Vec<u8>> {
    build_buf(m, cfg, seq).map(|f| f.to_vec())
}

/// [`build`] into a fixed buffer: no heap allocation (the model's step path, issue 23).
pub fn build_buf(m: &CollectiveMsg, cfg: &BuilderConfig, seq: u16) -> Option<FrameBuf<MAX_FRAME_BYTES>> {
    let mut f = FrameBuf::new();
    match m.family {
        Family::Tlp => {
            let plen = tlp_payload_len(m)?;
            let kind = m.kind.0 & 0xF;
            let cc = m.ctx & 0xFFF;
            f.extend_from_slice(&(seq & 0xFFF).to_be_bytes());
            f.extend_from_slice(&[0x72, 0x00, 0x00, (plen / 4) as u8]);
            f.extend_from_slice(&cfg.engine_id.to_be_bytes());
            f.extend_from_slice(&[0x00, 0x7F]);
            f.extend_from_slice(&(m.dst as u16).to_be_bytes());
            f.extend_from_slice(&cfg.vendor_id.to_be_bytes());
            f.extend_from_slice(&(0xCE00_0000 | u32::from(kind) << 16 | u32::from(cc)).to_be_bytes());
            // Collective message (docs/frames.md §4).
            f.push(0x10 | kind);
            // Byte 1 {NP, EM, RT, TID[1:0], rsvd[2:0]}: RT is not sent (the message's `retry` is
            // Portals'); the TID is seed 001's transaction ID.
            f.push(if m.posted { 0 } else { coll_flag::NP } | if m.error { coll_flag::EM } else { 0 } | (m.tid & coll_flag::TID_MASK) << coll_flag::TID_SHIFT);
            f.extend_from_slice(&cc.to_be_bytes());
            f.extend_from_slice(&m.dmu_id.to_be_bytes());
            f.extend_from_slice(&m.pid.to_be_bytes());
            let count16 = (m.count as u16).to_be_bytes();
            match kind {
                1 => {
                    f.extend_from_slice(&m.pbv.to_be_bytes());
                    // The n + s slots, then the padding slot of an odd count, zero (docs/frames.md §4).
                    let (n, s) = config_counts(m);
                    for j in 0..(plen - crate::input_checker::config::CONFIG_FIXED_BYTES) / 2 {
                        let slot = if j < n + s { (m.data[j / 4] >> (48 - 16 * (j % 4))) as u16 } else { 0 };
                        f.extend_from_slice(&slot.to_be_bytes());
                    }
                }
                2 => {
                    f.extend_from_slice(&count16);
                    f.extend_from_slice(&[m.op & 0x3F, 0, 0, 0, 0, 0]);
                    f.extend_from_slice(&m.data[0].to_be_bytes());
                    f.extend_from_slice(&m.pbv.to_be_bytes());
                }
                3 => {
                    f.extend_from_slice(&[m.code & 0xF, 0]);
                    f.extend_from_slice(&count16);
                    f.extend_from_slice(&[0; 4]);
                }
                4..=6 => {
                    f.extend_from_slice(&[m.op & 0x3F, m.rc & 0xF]);
                    f.extend_from_slice(&count16);
                    f.extend_from_slice(&[0, 4, m.code & 0xF, 0]);
                    for d in m.data {
                        f.extend_from_slice(&d.to_be_bytes());
                    }
                }
                _ => {
                    f.extend_from_slice(&[m.code & 0xF, m.count as u8]);
                    f.extend_from_slice(&(m.data[0] as u16).to_be_bytes());
                    f.extend_from_slice(&((m.data[0] >> 16) as u16).to_be_bytes());
                    f.extend_from_slice(&[0, 0]);
                }
            }
            debug_assert_eq!(f.len(), TLP_PAYLOAD_OFFSET + plen);
        }
        Family::Portals => {
            if m.kind != Kind::CONTRIBUTION && m.kind != Kind::ARM {
                return None;
            }
            f.extend_from_slice(&cfg.dst_mac.to_be_bytes()[2..]);
            f.extend_from_slice(&cfg.src_mac.to_be_bytes()[2..]);
            f.extend_from_slice(&cfg.ethertype.to_be_bytes());
            f.extend_from_slice(&m.dst.to_be_bytes());
            f.extend_from_slice(&m.src.to_be_bytes());
            f.extend_from_slice(&m.vni.to_be_bytes());
            f.extend_from_slice(&[0x00, 0x01]);
            f.extend_from_slice(&[0; 28]);
            f.extend_from_slice(&m.cookie.to_be_bytes());
            let w = u64::from(m.seqno & 0x3FF)
                | u64::from(m.kind == Kind::ARM) << 10
                | u64::from(m.op & 0x3F) << 11
                | u64::from(m.count & 0xF_FFFF) << 17
                | u64::from(m.resno & 0x3FF) << 37
                | u64::from(m.rc & 0xF) << 47
                | u64::from(m.repsum_m as u8) << 51
                | u64::from(m.repsum_oflow_id & 3) << 59
                | u64::from(m.retry) << 61;
            f.extend_from_slice(&w.to_be_bytes());
            for d in m.data {
                f.extend_from_slice(&d.to_be_bytes());
            }
        }
    }
    let crc = crate::crc32::crc32_frame(&f);
    f.extend_from_slice(&crc.to_le_bytes());
    Some(f)
}

ports! {
    /// Inputs of `rtl/frame_builder.v` (clk aside).
    pub struct FrameBuilderIn {
        /// Synchronous, active-high reset: the frame in progress is abandoned, the sequence number is 0.
        pub rst: bool,
        /// A message is offered.
        pub s_msg_valid: bool,
        /// The offered message (`s_msg_<field>`).
        pub s_msg: MsgPort,
        /// The output queue takes the beat.
        pub m_axis_tready: bool,
        /// The engine's device ID.
        pub cfg_engine_id: u16,
        /// Collective vendor ID.
        pub cfg_vendor_id: u16,
        /// Soft Portals EtherType.
        pub cfg_ethertype: u16,
        /// Source MAC (48 bits).
        pub cfg_src_mac: u64,
        /// Destination MAC (48 bits).
        pub cfg_dst_mac: u64,
    }
}

ports! {
    /// Outputs of `rtl/frame_builder.v`.
    pub struct FrameBuilderOut {
        /// The message is taken.
        pub s_msg_ready: bool,
        /// Frame data.
        pub m_axis_tdata: Wide,
        /// Byte enables.
        pub m_axis_tkeep: u64,
        /// A beat is offered.
        pub m_axis_tvalid: bool,
        /// Last beat.
        pub m_axis_tlast: bool,
        /// Destination device ID (`dst[15:0]`).
        pub m_axis_tuser: u16,
        /// Pulses ([`event`]).
        pub stat_event: u8,
    }
}

impl FrameBuilderIn {
    /// The message on the `s_msg_*` ports.
    pub fn msg(&self) -> CollectiveMsg {
        self.s_msg.msg().masked()
    }

    /// Puts `m` on the `s_msg_*` ports (valid not set).
    pub fn set_msg(&mut self, m: &CollectiveMsg) {
        self.s_msg = MsgPort::from(m);
    }
}

/// Parameters (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameBuilderParams {
    /// Data width in bits: 64, 128, 256, 512.
    pub data_width: usize,
}

impl Default for FrameBuilderParams {
    fn default() -> Self {
        FrameBuilderParams { data_width: 256 }
    }
}

/// The frame builder's registers.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameBuilder {
    p: FrameBuilderParams,
    frame: [u8; BUFFER_BYTES],
    len: usize,
    beat: usize,
    busy: bool,
    dest: u16,
    seq: u16,
    stat_event: u8,
}

/// Bytes in one 64-bit limb of a [`Wide`] beat.
const LIMB_BYTES: usize = 8;

impl FrameBuilder {
    /// A builder in its reset state; `None` for a width other than 64, 128, 256, 512.
    pub fn new(p: FrameBuilderParams) -> Option<Self> {
        if ![64, 128, 256, 512].contains(&p.data_width) || p.data_width > WIDE_MAX_BITS {
            return None;
        }
        Some(FrameBuilder { p, frame: [0; BUFFER_BYTES], len: 0, beat: 0, busy: false, dest: 0, seq: 0, stat_event: 0 })
    }
}

impl Block for FrameBuilder {
    type In = FrameBuilderIn;
    type Out = FrameBuilderOut;

    #[inline(always)]
    fn step(&mut self, i: &FrameBuilderIn) -> FrameBuilderOut {
        let kw = self.p.data_width / 8;
        let last = (self.beat + 1) * kw >= self.len;
        let mut out = FrameBuilderOut { stat_event: self.stat_event, m_axis_tuser: self.dest, ..Default::default() };
        let base = self.beat * kw;
        if self.busy {
            // Eight bytes at a time into each 64-bit limb (little-endian: byte k is bits 8k+7:8k), bytes
            // past the buffer 0; `kw` is a multiple of 8 (the widths `new` accepts).
            for (j, limb) in out.m_axis_tdata.0.iter_mut().take(kw / LIMB_BYTES).enumerate() {
                let lo = (base + j * LIMB_BYTES).min(BUFFER_BYTES);
                let hi = (lo + LIMB_BYTES).min(BUFFER_BYTES);
                let mut b = [0u8; LIMB_BYTES];
                b[..hi - lo].copy_from_slice(&self.frame[lo..hi]);
                *limb = u64::from_le_bytes(b);
            }
        }
        let rem = self.len.saturating_sub(base).min(kw);
        out.m_axis_tkeep = if self.busy { if rem >= 64 { u64::MAX } else { (1u64 << rem) - 1 } } else { 0 };
        out.m_axis_tvalid = self.busy;
        out.m_axis_tlast = self.busy && last;
        out.s_msg_ready = !i.rst && (!self.busy || (i.m_axis_tready && last));

        // Rising edge.
        self.stat_event = 0;
        if self.busy && i.m_axis_tready {
            self.beat += 1;
            if last {
                self.busy = false;
            }
        }
        if i.s_msg_valid && out.s_msg_ready {
            let cfg = BuilderConfig {
                engine_id: i.cfg_engine_id,
                vendor_id: i.cfg_vendor_id,
                ethertype: i.cfg_ethertype,
                src_mac: i.cfg_src_mac & 0xFFFF_FFFF_FFFF,
                dst_mac: i.cfg_dst_mac & 0xFFFF_FFFF_FFFF,
            };
            let m = i.msg();
            match build_buf(&m, &cfg, self.seq) {
                Some(f) => {
                    self.frame = [0; BUFFER_BYTES];
                    self.frame[..f.len()].copy_from_slice(&f);
                    self.len = f.len();
                    self.beat = 0;
                    self.busy = true;
                    self.dest = m.dst as u16;
                    if m.family == Family::Tlp {
                        self.seq = (self.seq + 1) & 0xFFF;
                    }
                    self.stat_event = 1 << event::BUILT;
                }
                None => self.stat_event = 1 << event::DROPPED,
            }
        }
        if i.rst {
            *self = FrameBuilder::new(self.p).expect("parameters were checked");
        }
        out
    }
}

/// The text of `rtl/frame_builder_codes.vh`, to be included inside module `frame_builder`.
pub fn verilog_header() -> String {
    let mut h = crate::codes::Header::new(&[
        "// The frame builder's event bits and sizes (docs/blocks/frame_builder.md), included inside module frame_builder (rtl/frame_builder.v).",
        "// GENERATED from crates/model/src/frame_builder.rs: do not edit; run",
        "// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model frame_builder_codes` (the same test checks it).",
        "",
    ]);
    let count = format!("localparam EV_COUNT = {};\n", event::COUNT);
    h.section("Event bits: the bit of stat_event a frame's outcome pulses (EV_COUNT bits in all)", &(event::localparams() + &count));
    let sizes = crate::codes::integers([("BUFFER_BYTES", BUFFER_BYTES as u64), ("CONFIG_RELAY_SLOTS", CONFIG_RELAY_SLOTS as u64)]);
    h.section("The frame buffer's bytes", &sizes);
    h.section(
        "FCS / LCRC: the reflected CRC-32 of a whole beat as XOR trees, and the initial values z zero bytes early (crates/model/src/input_checker/crc_matrix.rs)",
        &(crc_matrix::rows_localparams() + &crc_matrix::init_early_localparams(MAX_BEAT_BYTES)),
    );
    h.text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input_checker::crc32_byte;

    #[test]
    fn frame_builder_codes_vh_is_current() {
        crate::codes::check_generated("frame_builder_codes.vh", &verilog_header(), "frame_builder_codes");
    }

    #[test]
    fn soft_portals_frame_is_102_bytes_with_a_good_fcs() {
        let m = CollectiveMsg { kind: Kind::ARM, family: Family::Portals, count: 3, op: 0x14, ..Default::default() };
        let f = build(&m, &BuilderConfig { ethertype: 0x88B5, ..Default::default() }, 0).unwrap();
        assert_eq!(f.len(), MAX_FRAME_BYTES);
        assert_eq!(f.iter().fold(u32::MAX, |c, &b| crc32_byte(c, b)), crate::input_checker::CRC32_RESIDUE);
    }

    /// What `rtl/frame_builder.v` computes: the frame stored z bytes late, so its data (everything before
    /// the CRC) ends on a beat boundary, and the CRC run a whole beat at a time with the generated rows
    /// from the initial value z bytes early, gives the byte-serial CRC, for every frame length and width.
    #[test]
    fn whole_beat_crc_from_z_bytes_early_is_the_frame_crc() {
        let cfg = BuilderConfig { engine_id: 0x1234, vendor_id: 0x1E0F, ethertype: 0x88B5, src_mac: 0x0200_0000_0001, dst_mac: 0x0200_0000_0002 };
        let data = [0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, 0x5555_AAAA_3333_CCCC, 0x0F0F_F0F0_1111_EEEE];
        let msgs = [(Family::Tlp, Kind::INITIALIZATION, 0), (Family::Tlp, Kind::CONTROL, 0), (Family::Tlp, Kind::CONTRIBUTION, 0), (Family::Portals, Kind::ARM, 0)];
        // And a relayed configuration message of every slot count 0-16 (n_devices in ConfigFixed bytes
        // 14-15, n_subservient 0): payload 24 + 4 ceil(n / 2).
        let configs = (0..=CONFIG_RELAY_SLOTS as u128).map(|n| (Family::Tlp, Kind::CONFIGURATION, n << 64));
        let mut lens = Vec::new();
        for (family, kind, counts) in msgs.into_iter().chain(configs) {
            let pbv = if kind == Kind::CONFIGURATION { counts | 0xA5A5_0000_0000_0000_0000_0000_8000_0001 } else { 0xA5A5_0000_FFFF_1234_0000_0000_8000_0001 };
            let m = CollectiveMsg { family, kind, data, pbv, count: 7, ..Default::default() };
            let f = build(&m, &cfg, 5).unwrap();
            lens.push(f.len());
            let n = f.len() - 4;
            let want = !f[..n].iter().fold(u32::MAX, |c, &b| crc32_byte(c, b));
            assert_eq!(f[n..], want.to_le_bytes());
            for kw in [8, 16, 32, 64] {
                let z = (kw - n % kw) % kw;
                let mut padded = vec![0u8; z];
                padded.extend_from_slice(&f[..n]);
                assert_eq!(padded.len() % kw, 0);
                assert!(padded.len() <= BUFFER_BYTES && z < MAX_BEAT_BYTES);
                let crc = padded.chunks(kw).fold(crc_matrix::init_bytes_early(z), crc_matrix::beat_crc);
                assert_eq!(!crc, want, "length {} width {}", f.len(), 8 * kw);
            }
        }
        assert_eq!(lens[..4], [62, 38, 70, 102]);
        let config_lens: Vec<usize> = (0..=CONFIG_RELAY_SLOTS).map(|n| 18 + 24 + 4 * n.div_ceil(2) + 4).collect();
        assert_eq!(lens[4..], config_lens);
    }

    /// Issue 15 item 5 (000 [0157]): the configuration message the CPU relays becomes a FIG. 4 message
    /// (docs/frames.md §4): `ConfigFixed` = `pbv` byte for byte, then the n + s slots from `data` (first
    /// slot in the high bits of operand 0) and, for an odd count, a zero padding slot.
    #[test]
    fn a_relayed_configuration_message_is_its_fig4_frame() {
        let cfg = BuilderConfig { engine_id: 0x0209, vendor_id: 0xC011, ..Default::default() };
        // n_devices 3, n_subservient 2.
        let pbv = 0x0001_0402_0302_0003_0000_0400_0000_0C00u128;
        let data = [0x0011_0012_8014_8014, 0x0012_ABCD_FFFF_FFFF, 0xFFFF, 0xFFFF];
        let m = CollectiveMsg { kind: Kind::CONFIGURATION, ctx: 9, dst: 0x8014, pid: 0x8014, posted: true, pbv, data, ..Default::default() };
        let f = build(&m, &cfg, 0).unwrap();
        assert_eq!(f.len(), 18 + 36 + 4);
        assert_eq!(f[5], 9, "Length: 36 bytes = 9 DW");
        let p = &f[TLP_PAYLOAD_OFFSET..f.len() - 4];
        assert_eq!((p[0], p[6], p[7]), (0x11, 0x80, 0x14), "version 1 kind 1, P_ID");
        assert_eq!(p[8..24], pbv.to_be_bytes());
        assert_eq!(p[24..36], [0x00, 0x11, 0x00, 0x12, 0x80, 0x14, 0x80, 0x14, 0x00, 0x12, 0x00, 0x00], "the padding slot is zero");
    }

    #[test]
    fn unsupported_kinds_are_dropped() {
        let cfg = BuilderConfig::default();
        // A configuration message with more slots than `data` carries (n_devices 16, n_subservient 1).
        let too_many = 16u128 << 64 | 1 << 80;
        assert!(build(&CollectiveMsg { kind: Kind::CONFIGURATION, pbv: too_many, ..Default::default() }, &cfg, 0).is_none());
        assert!(build(&CollectiveMsg { kind: Kind::NONE, ..Default::default() }, &cfg, 0).is_none());
        assert!(build(&CollectiveMsg { kind: Kind::CONTROL, family: Family::Portals, ..Default::default() }, &cfg, 0).is_none());
        assert_eq!(build(&CollectiveMsg { kind: Kind::CONTROL, ..Default::default() }, &cfg, 0).unwrap().len(), 38);
    }
}
