//! Input checker and steering (seed 000 \[0092\], \[0140\]; 002 (94)-(99)).
//!
//! Cycle model of `rtl/input_checker.v`; the checks, their priority and the steering rules are
//! `docs/blocks/input_checker.md`. Frames extracted by the interposer arrive on `s_axis` (family and
//! ingress port in `tuser` on the first beat). The checker validates them and steers each to exactly one
//! place: a register access (`m_reg_*`, to the register space), a normalized collective message
//! (`m_msg_*`, to the CPU, [`crate::message`]), or a drop with one reason pulse on `stat_event`.
//!
//! Stream framing (docs/blocks/input_checker.md §Frames): a TLP frame is `{4 reserved bits, 12-bit
//! sequence number}` + TLP + LCRC (little-endian), the data-link form of a TLP; a Portals frame is a Soft
//! Portals frame (Ethernet II header, 84-byte reduction frame, FCS); a PCIe 6 flit-mode TLP (`tuser[9]`,
//! [`flit`]) comes without sequence number or LCRC. Both trailers are CRC-32/ISO-HDLC over
//! everything before them, so one running CRC per frame checks either: over the whole frame, trailer
//! included, it must leave the register at [`CRC32_RESIDUE`].
//!
//! The first [`CAPTURE_BYTES`] bytes of a frame are captured as the beats go by; every check and every
//! field is then decided from the capture in a pipeline (issue 19 item 2: short stages): A registers the
//! beat, B is the stream side, C computes every check's condition and field (the configuration is
//! sampled there), D orders the checks into the verdict and loads the outputs. All stages advance
//! together when the three outputs are free, so the block still takes one beat per cycle; the verdict is
//! out [`PIPELINE_EDGES`] edges after the last beat.

use crate::message::{CollectiveMsg, MsgPort};
use crate::ports;
use crate::signal::{Block, Wide, WIDE_MAX_BITS};

mod classify;
pub mod codes;
mod collective;
pub mod config;
pub mod crc_matrix;
pub mod flit;
pub mod protocol;
mod ur;
mod verdict;
pub use classify::classify;
pub use codes::{event, validation};
pub use config::ConfigWrites;
pub use protocol::*;
pub use ur::{unsupported_request, RequestFields, UR_EVENTS};
pub use verdict::{CheckerConfig, Verdict};

/// Parameters of one checker (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckerParams {
    /// Data bus width in bits: a multiple of 8 from 64 to 512.
    pub data_width: usize,
}

impl Default for CheckerParams {
    fn default() -> Self {
        CheckerParams { data_width: 256 }
    }
}

impl CheckerParams {
    /// Bytes per beat.
    pub fn keep_width(&self) -> usize {
        self.data_width / 8
    }
}

/// A parameter set the block cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckerParamError {
    /// `data_width` is not a multiple of 8 in 64..=512.
    #[error("data_width {0} is not a multiple of 8 between 64 and {WIDE_MAX_BITS}")]
    DataWidth(usize),
}


ports! {
    /// Inputs of `rtl/input_checker.v` (clk aside).
    pub struct InputCheckerIn {
        /// Synchronous, active-high reset: drops the frame in progress and any output not yet taken.
        pub rst: bool,
        /// Frame data from the interposer (byte 0 = bits 7:0).
        pub s_axis_tdata: Wide,
        /// One bit per valid byte.
        pub s_axis_tkeep: u64,
        /// A beat is offered.
        pub s_axis_tvalid: bool,
        /// Last beat of a frame.
        pub s_axis_tlast: bool,
        /// {flit mode, family (1 Portals), ingress port\[7:0\]}, sampled on the first beat (bit 9: a
        /// PCIe 6 flit-mode TLP, [`flit`]; ignored on a Portals frame).
        pub s_axis_tuser: u16,
        /// The register space takes the access.
        pub m_reg_ready: bool,
        /// The CPU takes the message.
        pub m_msg_ready: bool,
        /// The completion builder takes the Unsupported Request.
        pub m_ur_ready: bool,
        /// The engine's device ID.
        pub cfg_engine_id: u16,
        /// Soft Portals EtherType.
        pub cfg_ethertype: u16,
        /// Collective vendor ID.
        pub cfg_vendor_id: u16,
        /// VALIDATION\[3:0\].
        pub cfg_validation: u8,
        /// Allowed-VNI valid bits.
        pub cfg_vni_valid: u8,
        /// Allowed VNIs.
        pub cfg_vni: u64,
    }
}

ports! {
    /// Outputs of `rtl/input_checker.v`.
    pub struct InputCheckerOut {
        /// A beat is taken (both outputs can take a verdict).
        pub s_axis_tready: bool,
        /// A register access is offered.
        pub m_reg_valid: bool,
        /// Write.
        pub m_reg_write: bool,
        /// Byte offset in the window.
        pub m_reg_addr: u16,
        /// Byte enables.
        pub m_reg_be: u8,
        /// Write data.
        pub m_reg_wdata: u32,
        /// Requester ID.
        pub m_reg_src: u16,
        /// Tag.
        pub m_reg_tag: u16,
        /// A dropped non-posted request needing an Unsupported Request completion is offered.
        pub m_ur_valid: bool,
        /// Its Requester ID.
        pub m_ur_src: u16,
        /// Its tag.
        pub m_ur_tag: u16,
        /// Its TC.
        pub m_ur_tc: u8,
        /// Its Attr\[2:0\].
        pub m_ur_attr: u8,
        /// It is a memory read.
        pub m_ur_mem_read: bool,
        /// It is a locked memory read.
        pub m_ur_locked: bool,
        /// Its Length field.
        pub m_ur_length: u16,
        /// Its First DW BE.
        pub m_ur_first_be: u8,
        /// Its Last DW BE.
        pub m_ur_last_be: u8,
        /// Its address bits 6:0.
        pub m_ur_addr: u8,
        /// A message is offered.
        pub m_msg_valid: bool,
        /// The message (`m_msg_<field>`), meaningful while `m_msg_valid`.
        pub m_msg: MsgPort,
        /// One-cycle outcome pulse per frame, bit = [`event`].
        pub stat_event: u32,
    }
}

impl InputCheckerOut {
    /// The message on the `m_msg_*` ports.
    pub fn msg(&self) -> CollectiveMsg {
        self.m_msg.msg()
    }

    fn set_msg(&mut self, m: &CollectiveMsg) {
        self.m_msg = MsgPort::from(m);
    }
}

/// A beat as stage A of the pipeline holds it.
#[derive(Clone, Debug, PartialEq)]
struct Beat {
    data: Wide,
    keep: u64,
    last: bool,
    user: u16,
}

/// A frame as its last beat left the stream side (stage C). Its captured bytes are the checker's
/// capture (`InputChecker::cap`), not a copy: stage C classifies the frame in the first cycle the stages
/// advance after its last beat, before stage B takes the next beat into the capture (and a cycle that
/// does not advance moves neither), so the capture still holds this frame's bytes when C reads them.
/// The copy this held, 128 bytes moved with the stage every beat, was 8% of the top's model time
/// (issue 23, docs/performance.md §Session 17).
#[derive(Clone, Debug, PartialEq)]
struct Frame {
    summary: FrameSummary,
}

/// A verdict (and the Unsupported Request of a drop) waiting in stage D for the output registers.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Decided {
    verdict: Verdict,
    ur: Option<RequestFields>,
}

/// Cycles from the edge that takes a frame's last beat to the edge that loads its verdict into the
/// output registers, with no stall: stages A, B-to-C, C-to-D, D-to-outputs (docs/blocks/input_checker.md
/// §Timing). The verdict is on the outputs in the cycle after that edge.
pub const PIPELINE_EDGES: usize = 4;

/// The input checker's registers. The stream side (stage B) keeps a byte-serial CRC: the RTL computes
/// the same residue checks with XOR trees ([`crc_matrix`]); only the verdicts are observable.
#[derive(Clone, Debug, PartialEq)]
pub struct InputChecker {
    p: CheckerParams,
    a: Option<Beat>,
    cap: [u8; CAPTURE_BYTES],
    in_frame: bool,
    pos: usize,
    crc: u32,
    ecrc: u32,
    ecrc_end: usize,
    tkeep_bad: bool,
    portals: bool,
    flit: bool,
    port: u8,
    /// The frame's bytes past the capture, up to [`config::CONFIG_FRAME_BYTES`] (the RTL's slot store).
    ext: [u8; config::CONFIG_FRAME_BYTES - CAPTURE_BYTES],
    c: Option<Frame>,
    d: Option<Decided>,
    /// Subservient IDs of the configuration message in stage D already read (its preload).
    cfg_pre: usize,
    /// Writes of the configuration message in stage D already loaded into the register output.
    cfg_sent: usize,
    out: InputCheckerOut,
}

/// Frame positions saturate here (frames this long are dropped as too long anyway).
const POS_MAX: usize = 0xFFFF;

impl InputChecker {
    /// A checker in its reset state.
    pub fn new(p: CheckerParams) -> Result<Self, CheckerParamError> {
        if p.data_width < 64 || p.data_width % 8 != 0 || p.data_width > WIDE_MAX_BITS {
            return Err(CheckerParamError::DataWidth(p.data_width));
        }
        Ok(InputChecker {
            p,
            a: None,
            cap: [0; CAPTURE_BYTES],
            in_frame: false,
            pos: 0,
            crc: 0,
            ecrc: 0,
            ecrc_end: 0,
            tkeep_bad: false,
            portals: false,
            flit: false,
            port: 0,
            ext: [0; config::CONFIG_FRAME_BYTES - CAPTURE_BYTES],
            c: None,
            d: None,
            cfg_pre: 0,
            cfg_sent: 0,
            out: InputCheckerOut::default(),
        })
    }
}

impl Block for InputChecker {
    type In = InputCheckerIn;
    type Out = InputCheckerOut;

    #[inline(always)]
    fn step(&mut self, i: &InputCheckerIn) -> InputCheckerOut {
        let reg_free = !self.out.m_reg_valid || i.m_reg_ready;
        let msg_free = !self.out.m_msg_valid || i.m_msg_ready;
        let ur_free = !self.out.m_ur_valid || i.m_ur_ready;
        // A configuration message in stage D with subservient IDs to preload or writes still to load
        // holds the whole pipeline, as a stalled output does; it preloads one subservient ID a cycle,
        // then its next write goes out whenever the register output is free.
        let (preload, cfg) = match &self.d {
            Some(Decided { verdict: Verdict::Config(w), .. }) if self.cfg_pre < w.preload() => (true, None),
            Some(Decided { verdict: Verdict::Config(w), .. }) if self.cfg_sent < w.count() => (false, Some(w.write(self.cfg_sent))),
            _ => (false, None),
        };
        // Every stage advances together, when all three outputs are free and no configuration write
        // waits (the RTL's `adv`).
        let adv = !i.rst && reg_free && msg_free && ur_free && !preload && cfg.is_none();
        let out = InputCheckerOut { s_axis_tready: adv, ..self.out };

        // Rising edge.
        self.out.m_reg_valid &= !i.m_reg_ready;
        self.out.m_msg_valid &= !i.m_msg_ready;
        self.out.m_ur_valid &= !i.m_ur_ready;
        self.out.stat_event = 0;
        if preload && !i.rst {
            self.cfg_pre += 1;
        }
        if let Some(a) = cfg.filter(|_| reg_free && !i.rst) {
            self.set_reg(&a);
            self.cfg_sent += 1;
        }
        if adv {
            // Each stage is taken only when it holds something: `Option::take` moves the whole option
            // (a `Frame` is 150 bytes) even when it is `None`, and these moves were 6% of the top's
            // model time (issue 23, docs/performance.md §Session 16).
            // D: the verdict to the output registers.
            if let Some(d) = self.d.is_some().then(|| self.d.take()).flatten() {
                self.load(&d);
                self.cfg_pre = 0;
                self.cfg_sent = 0;
            }
            // C: classified with this cycle's configuration.
            self.d = self.c.is_some().then(|| self.c.take()).flatten().map(|f| {
                let cfg = CheckerConfig {
                    engine_id: i.cfg_engine_id,
                    ethertype: i.cfg_ethertype,
                    vendor_id: i.cfg_vendor_id,
                    validation: i.cfg_validation,
                    vni_valid: i.cfg_vni_valid,
                    vni: i.cfg_vni,
                };
                let verdict = match classify(&self.cap, &f.summary, &cfg) {
                    // The slots as the write sequencer reads them: capture, then the slot store.
                    Verdict::Config(w) => {
                        let (cap, ext) = (&self.cap, &self.ext);
                        Verdict::Config(w.with_store(|o| if o < CAPTURE_BYTES { cap[o] } else { ext[o - CAPTURE_BYTES] }, f.summary.flit))
                    }
                    v => v,
                };
                let ur = match verdict {
                    Verdict::Drop(reason) => unsupported_request(&self.cap, &f.summary, reason),
                    _ => None,
                };
                Decided { verdict, ur }
            });
            // B: the stream side takes the beat stage A holds.
            self.c = self.a.is_some().then(|| self.a.take()).flatten().and_then(|b| self.stream(&b));
            // A: the beat on the input.
            self.a = i.s_axis_tvalid.then_some(Beat { data: i.s_axis_tdata, keep: i.s_axis_tkeep, last: i.s_axis_tlast, user: i.s_axis_tuser });
        }
        if i.rst {
            self.a = None;
            self.in_frame = false;
            self.pos = 0;
            self.crc = 0;
            self.ecrc = 0;
            self.ecrc_end = 0;
            self.tkeep_bad = false;
            self.portals = false;
            self.flit = false;
            self.port = 0;
            self.c = None;
            self.d = None;
            self.cfg_pre = 0;
            self.cfg_sent = 0;
            self.out = InputCheckerOut::default();
        }
        out
    }
}

impl InputChecker {
    /// Stage B: one beat into the capture, the CRCs and the byte count; the frame when it is the last.
    fn stream(&mut self, b: &Beat) -> Option<Frame> {
        let kw = self.p.keep_width();
        let keep_all = if kw >= 64 { u64::MAX } else { (1u64 << kw) - 1 };
        let first = !self.in_frame;
        let pos = if first { 0 } else { self.pos };
        let keep = b.keep & keep_all;
        let byte = |k: usize| b.data.byte(k);
        if first {
            self.portals = b.user >> 8 & 1 != 0;
            self.flit = !self.portals && b.user >> flit::TUSER_FLIT_BIT & 1 != 0;
            self.port = b.user as u8;
            // The ECRC range: from the TLP's first byte (2, or 0 in flit mode) to the end of its digest.
            // Fmt (non-flit byte 0 bits 7-5) and the Type of the flit-mode requests taken (MWr32/MWr64)
            // both say 4-DW header in bit 5 and data in bit 6; Length is in bytes 2-3 of both DW0s.
            let o = self.tlp_start();
            let (b0, b2, b3) = (byte(o), byte(o + 2), byte(o + 3));
            let length = usize::from(b2 & 3) << 8 | usize::from(b3);
            let len_dw = if length == 0 { 1024 } else { length };
            let hdr = if b0 & 0x20 != 0 { 16 } else { 12 };
            let plen = if b0 & 0x40 != 0 { 4 * len_dw } else { 0 };
            self.ecrc_end = o + hdr + plen + 4;
        }
        let (tlp_start, variant_bits) = if self.flit { (0, &flit::FLIT_ECRC_VARIANT_BITS) } else { (TLP_OFFSET, &ECRC_VARIANT_BITS) };
        let mut crc = if first { u32::MAX } else { self.crc };
        let mut ecrc = if first { u32::MAX } else { self.ecrc };
        // The beat's bytes unpacked once (byte k of the beat is bits 8k+7:8k).
        let mut bytes = [0u8; WIDE_MAX_BITS / 8];
        for (chunk, limb) in bytes.chunks_exact_mut(8).zip(b.data.0) {
            chunk.copy_from_slice(&limb.to_le_bytes());
        }
        let beat = &bytes[..kw];
        for (k, &v) in beat.iter().enumerate() {
            if keep >> k & 1 != 0 {
                crc = crc32_byte(crc, v);
                let at = pos + k;
                if at >= tlp_start && at < self.ecrc_end {
                    let forced = variant_bits.iter().filter(|(o, _)| tlp_start + o == at).fold(0, |a, (_, m)| a | m);
                    ecrc = crc32_byte(ecrc, v | forced);
                }
            }
        }
        // Every byte of the beat is captured, kept or not, up to the capture's end.
        if pos < CAPTURE_BYTES {
            let captured = (CAPTURE_BYTES - pos).min(kw);
            self.cap[pos..pos + captured].copy_from_slice(&beat[..captured]);
        } else if pos < config::CONFIG_FRAME_BYTES {
            // Past the capture: the slot store (a configuration message's slots, read after the verdict).
            let stored = (config::CONFIG_FRAME_BYTES - pos).min(kw);
            self.ext[pos - CAPTURE_BYTES..pos - CAPTURE_BYTES + stored].copy_from_slice(&beat[..stored]);
        }
        let bad = if b.last { keep == 0 || keep & keep.wrapping_add(1) & keep_all != 0 } else { keep != keep_all };
        self.tkeep_bad = (!first && self.tkeep_bad) || bad;
        self.crc = crc;
        self.ecrc = ecrc;
        self.pos = (pos + kw).min(POS_MAX);
        self.in_frame = !b.last;
        b.last.then(|| Frame {
            summary: FrameSummary {
                bytes: (pos + keep.count_ones() as usize).min(POS_MAX),
                link_crc_ok: crc == CRC32_RESIDUE,
                ecrc_ok: ecrc == CRC32_RESIDUE,
                tkeep_bad: self.tkeep_bad,
                portals: self.portals,
                flit: self.flit,
                port: self.port,
            },
        })
    }

    /// Offset of the TLP in the frame being received: after the sequence number, or 0 in flit mode.
    fn tlp_start(&self) -> usize {
        if self.flit { 0 } else { TLP_OFFSET }
    }

    /// A register access into the register output.
    fn set_reg(&mut self, a: &RegAccess) {
        self.out.m_reg_valid = true;
        self.out.m_reg_write = a.write;
        self.out.m_reg_addr = a.addr;
        self.out.m_reg_be = a.be;
        self.out.m_reg_wdata = a.wdata;
        self.out.m_reg_src = a.src;
        self.out.m_reg_tag = a.tag;
    }

    /// Stage D: a verdict into the output registers, with its pulse.
    fn load(&mut self, d: &Decided) {
        self.out.stat_event = 1 << d.verdict.event();
        match d.verdict {
            Verdict::Reg(a) => self.set_reg(&a),
            // Its writes went out while it held stage D; the pulse closes it.
            Verdict::Config(_) => {}
            Verdict::Msg(m) => {
                self.out.m_msg_valid = true;
                self.out.set_msg(&m);
            }
            Verdict::Drop(_) => {
                if let Some(u) = d.ur {
                    self.out.m_ur_valid = true;
                    self.out.m_ur_src = u.src;
                    self.out.m_ur_tag = u.tag;
                    self.out.m_ur_tc = u.tc;
                    self.out.m_ur_attr = u.attr;
                    self.out.m_ur_mem_read = u.mem_read;
                    self.out.m_ur_locked = u.locked;
                    self.out.m_ur_length = u.length;
                    self.out.m_ur_first_be = u.first_be;
                    self.out.m_ur_last_be = u.last_be;
                    self.out.m_ur_addr = u.addr;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
