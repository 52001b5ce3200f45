//! The input checker's seeded stimulus: frames of both families, valid or with one known defect,
//! garbage, idle gaps, backpressure, configuration changes and resets.

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ControlBody, DataFixed, ErrorBody, InitBody, ConfigFixed};
use inswitch_frames::crc;
use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
use inswitch_frames::portals::{ReductionFrame, ReductionHeader};
use inswitch_frames::tlp::{self, Address, Dw0, Header, RequestDw1, Tlp};
use inswitch_model::Wide;
use inswitch_model::input_checker::{event, CheckerParams, InputCheckerIn, InputCheckerOut, RegAccess};
use inswitch_model::input_checker::config::{CONFIG_FRAME_BYTES, CONFIG_MAX_ENTRIES, CONFIG_MAX_SUBSERVIENT, CONFIG_RELAY_SLOTS};
use rand::RngExt;

use crate::checker::Stimulus;
use crate::stimulus::{self, Gaps, Phases, Resets, StimRng};

use super::monitor::VERDICT_EDGES;

// Flit-mode frames (`flit_frame`).
mod flit;
// Encapsulated configurations, collective kind 10 (`encap_frame`).
mod encap;
use super::reference::{expected_config_writes, expected_portals_msg, expected_tlp_msg, expected_ur, tlp_frame, Expect, Labels, UrExpect, LONG_CONFIG_LABEL, RESERVED_FLAG_LABEL};

/// The engine's device ID in every run (switch 725 of seed 000 Table 3).
pub const ENGINE_ID: u16 = 0x0010;

/// A generated frame: bytes, family, port, the per-beat tkeep defect, the expected outcome.
#[derive(Clone, Debug)]
struct GenFrame {
    bytes: Vec<u8>,
    portals: bool,
    /// A PCIe 6 flit-mode TLP (`tuser[9]`, docs/blocks/input_checker.md §Flit-mode TLPs).
    flit: bool,
    port: u8,
    bad_keep: bool,
    expect: Expect,
    what: String,
}

/// The checker's configuration inputs during one phase.
#[derive(Clone, Copy, Debug)]
struct Cfg {
    ethertype: u16,
    vendor_id: u16,
    validation: u8,
    vni_valid: u8,
    vni: [u16; 4],
}

/// `tuser` bit of a flit-mode frame (docs/blocks/input_checker.md §Flit-mode TLPs), and the port's bits.
const TUSER_FLIT_BIT: u32 = 9;
const TUSER_MASK: u16 = (1 << (TUSER_FLIT_BIT + 1)) - 1;

/// Offset of the collective message in a VDM's TLP bytes (a 4-DW header).
const VDM_PAYLOAD: usize = 16;

const PORTALS_OPS: [u8; 22] = [0x00, 0x01, 0x02, 0x03, 0x10, 0x11, 0x12, 0x14, 0x20, 0x21, 0x22, 0x24, 0x25, 0x26, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x30];

/// The seeded stimulus of the input checker.
pub struct InputCheckerStimulus {
    p: CheckerParams,
    r: StimRng,
    phases: Phases,
    last: InputCheckerIn,
    idle: Gaps,
    stall_reg: Gaps,
    stall_msg: Gaps,
    stall_ur: Gaps,
    resets: Resets,
    cfg: Cfg,
    /// A configuration change is due: no new frame starts until the pipeline is empty.
    cfg_pending: bool,
    /// Cycles with `s_axis_tready` high since the last frame's last beat was taken.
    quiet: u32,
    /// Beats of the frame being sent (tdata, tkeep, tlast), and the next one to offer.
    beats: Vec<(Wide, u64, bool)>,
    next_beat: usize,
    tuser: u16,
    seq: u16,
    labels: Labels,
}

impl InputCheckerStimulus {
    /// A stimulus for a checker with parameters `p` and `seed`; each frame's expected outcome goes to `labels`.
    pub(super) fn new(p: CheckerParams, seed: u64, labels: Labels) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        InputCheckerStimulus {
            p,
            r,
            phases,
            last: InputCheckerIn::default(),
            idle: Gaps::default(),
            stall_reg: Gaps::default(),
            stall_msg: Gaps::default(),
            stall_ur: Gaps::default(),
            resets: Resets::new(),
            cfg: Cfg { ethertype: 0x88B5, vendor_id: collective::VENDOR_ID, validation: 0xF, vni_valid: 0x1, vni: [0x0042, 0, 0, 0] },
            cfg_pending: false,
            quiet: VERDICT_EDGES,
            beats: Vec::new(),
            next_beat: 0,
            tuser: 0,
            seq: 0,
            labels,
        }
    }

    fn new_cfg(&mut self) {
        let r = &mut self.r;
        self.cfg.validation = if r.random_bool(0.7) { 0xF } else { r.random_range(0..16) };
        self.cfg.ethertype = if r.random_bool(0.8) { 0x88B5 } else { r.random_range(0x0600..=0xFFFF) };
        self.cfg.vni_valid = r.random_range(1..16);
        for v in &mut self.cfg.vni {
            *v = r.random();
        }
    }

    fn allowed_vni(&mut self) -> u16 {
        loop {
            let k = self.r.random_range(0..4);
            if self.cfg.vni_valid >> k & 1 != 0 {
                return self.cfg.vni[k];
            }
        }
    }

    fn collective_message(&mut self, kind: u8) -> CollectiveMessage {
        let r = &mut self.r;
        let header = CommonHeader {
            version: collective::VERSION,
            kind,
            non_posted: r.random(),
            error_mark: r.random(),
            retry: r.random(),
            tid: r.random_range(0..1 << collective::TID_BITS),
            reserved_flags: 0,
            reserved: 0,
            cc_id: r.random_range(0..0x1000),
            dmu_id: r.random(),
            p_id: if r.random_bool(0.2) { collective::NO_PARTICIPANT } else { r.random_range(0..128) },
        };
        let body = match kind {
            1 => Body::Configuration {
                fixed: ConfigFixed { master_id: r.random(), n_devices: 3, ..Default::default() },
                device_ids: vec![0x0011, 0x0012, 0x0013],
                subservient_ids: vec![],
            },
            2 => Body::Initialization(InitBody { p_count: r.random(), operation: r.random_range(0..0x40), accumulator: r.random(), pbv: r.random(), ..Default::default() }),
            3 => Body::Control(ControlBody { command: r.random_range(1..6), p_count: r.random(), ..Default::default() }),
            4..=6 => {
                let n = r.random_range(0..=4);
                Body::Data {
                    fixed: DataFixed { operation: r.random_range(0..0x40), status: r.random_range(0..9), contributions: r.random(), n_operands: n, completion: r.random_range(0..4), reserved: 0 },
                    operands: (0..n).map(|_| r.random()).collect(),
                }
            }
            _ => Body::Error(ErrorBody { reason: r.random_range(1..7), attempt: r.random(), engine_id: r.random(), device_id: r.random(), reserved: 0 }),
        };
        CollectiveMessage { header, body }
    }

    /// A TLP frame (its TLP bytes can be edited by `edit` before the LCRC is computed).
    /// A configuration message's carrier: a mailbox memory write (probability `mailbox_p`) or a VDM, with
    /// its tag (the register path's ten bits, or the VDM's eight); returns whether it went to the mailbox.
    fn config_carrier(&mut self, m: &CollectiveMessage, src: u16, mailbox_p: f64) -> (Tlp, u16, bool) {
        if self.r.random_bool(mailbox_p) {
            let tag = self.r.random_range(0..0x400u16);
            let off = 0x800 + 4 * self.r.random_range(0..0x200u32);
            (collective::to_memory_write(m, src, tag, u64::from(ENGINE_ID) << 16, off).expect("mailbox"), tag, true)
        } else {
            let tag: u8 = self.r.random();
            (collective::to_vdm(m, src, ENGINE_ID, tag).expect("vdm"), u16::from(tag), false)
        }
    }

    fn wrap(&mut self, t: &Tlp, edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut b = t.to_bytes().expect("generated TLPs emit");
        edit(&mut b);
        self.seq = (self.seq + 1) & crc::SEQUENCE_MASK;
        tlp_frame(self.seq, &b)
    }

    fn tlp(&mut self) -> GenFrame {
        use event::*;
        let port = self.r.random_range(0..16);
        let src: u16 = self.r.random();
        let v = self.cfg.validation;
        let base = u64::from(ENGINE_ID) << 16 | 0xC000;
        let g = |bytes, expect, what: &str| GenFrame { bytes, portals: false, flit: false, port, bad_keep: false, expect, what: what.to_string() };
        match self.r.random_range(0..45) {
            // Encapsulated register writes (kind 10 payload type 2), valid or with one defect.
            43..=44 => self.encap_register_write_frame(port, src),
            // FIG. 4 configuration messages, valid or with one defect.
            36..=39 => self.config_frame(port, src),
            // FIG. 4 encapsulated configurations (kind 10), valid or with one defect.
            40..=42 => self.encap_frame(port, src),
            // Non-posted requests the engine does not serve: dropped with an Unsupported Request.
            26..=31 => self.non_posted(port, src),
            // Register write / read (valid).
            0..=3 => {
                let off = self.r.random_range(0..0x200u32) * 4;
                let data: u32 = self.r.random();
                let tag = self.r.random_range(0..0x400u16);
                let mut t = Tlp::memory_write(src, tag, base + u64::from(off), data.to_le_bytes().to_vec()).expect("mwr");
                let be = self.r.random_range(0..16u8);
                if let Header::Memory { req, .. } = &mut t.header {
                    req.first_be = be;
                }
                let ecrc = self.r.random_bool(0.3);
                if ecrc {
                    t.fill_ecrc().expect("ecrc");
                }
                let bytes = self.wrap(&t, |_| {});
                g(bytes, Expect::Reg(RegAccess { write: true, addr: off as u16, be, wdata: data, src, tag }), "register write")
            }
            4..=5 => {
                let off = self.r.random_range(0..0x200u32) * 4;
                let tag = self.r.random_range(0..0x400u16);
                let mut dw0 = Dw0 { fmt: 0, tlp_type: tlp::types::MEM, t9: tag & 0x200 != 0, t8: tag & 0x100 != 0, ..Dw0::default() };
                dw0.set_length_dw(1);
                let t = Tlp { prefixes: vec![], dw0, header: Header::Memory { req: RequestDw1 { requester_id: src, tag: tag as u8, last_be: 0, first_be: 0xF }, address: Address::new32((base as u32) + off, 0) }, payload: vec![], digest: None };
                let bytes = self.wrap(&t, |_| {});
                g(bytes, Expect::Reg(RegAccess { write: false, addr: off as u16, be: 0xF, wdata: 0, src, tag }), "register read")
            }
            // Collective messages, valid, by VDM or mailbox write.
            6..=11 => {
                let kind = self.r.random_range(2..=8);
                let m = self.collective_message(kind);
                let mailbox = self.r.random_bool(0.3);
                let mut t = if mailbox {
                    let off = 0x800 + 4 * self.r.random_range(0..0x200u32);
                    collective::to_memory_write(&m, src, self.r.random_range(0..0x400), u64::from(ENGINE_ID) << 16, off).expect("mailbox")
                } else {
                    collective::to_vdm(&m, src, ENGINE_ID, self.r.random()).expect("vdm")
                };
                if self.r.random_bool(0.3) {
                    t.fill_ecrc().expect("ecrc");
                }
                let bytes = self.wrap(&t, |_| {});
                g(bytes, Expect::Msg(expected_tlp_msg(&m, src, ENGINE_ID, port)), if mailbox { "collective (mailbox)" } else { "collective (VDM)" })
            }
            // Exactly one defect each.
            k => {
                let kind = self.r.random_range(2..=8);
                let m = self.collective_message(kind);
                let mut t = collective::to_vdm(&m, src, ENGINE_ID, self.r.random()).expect("vdm");
                let (bytes, reason, what) = match k {
                    12 if v & 1 != 0 => {
                        let mut b = self.wrap(&t, |_| {});
                        let n = b.len();
                        let (at, bit) = (self.r.random_range(0..4), self.r.random_range(0..8));
                        b[n - 1 - at] ^= 1 << bit;
                        (b, LCRC, "LCRC corrupted")
                    }
                    13 => (self.wrap(&t, |b| b.extend_from_slice(&[0, 0, 0, 0])), LENGTH, "4 bytes too long"),
                    14 => (self.wrap(&t, |b| b[2] |= 0x40), POISONED, "EP set"),
                    15 if v & 2 != 0 => {
                        t.fill_ecrc().expect("ecrc");
                        t.digest = t.digest.map(|d| d ^ 0x0100_0000);
                        (self.wrap(&t, |_| {}), ECRC, "ECRC corrupted")
                    }
                    16 => {
                        let mut b = self.wrap(&t, |_| {});
                        b[0] |= 0x80;
                        let n = b.len();
                        let l = crc::CRC32.checksum(&b[..n - 4]);
                        b[n - 4..].copy_from_slice(&l.to_le_bytes());
                        (b, RESERVED, "sequence-number reserved bit")
                    }
                    17 => {
                        let w = Tlp::memory_write(src, 0, (u64::from(ENGINE_ID ^ 0x0100) << 16) | 0xC000, vec![0; 4]).expect("mwr");
                        (self.wrap(&w, |_| {}), NOT_FOR_ENGINE, "another switch's window")
                    }
                    18 => {
                        let w = Tlp::memory_write(src, 0, base + 0x10, vec![0; 8]).expect("mwr");
                        (self.wrap(&w, |_| {}), REG_ACCESS, "2-DW register write")
                    }
                    19 => (self.wrap(&t, |b| b[1] |= 0x01), TLP_UNSUPPORTED, "TH set"),
                    20 => (self.wrap(&t, |b| b[10] ^= 0x01), VENDOR, "wrong Vendor ID"),
                    21 => (self.wrap(&t, |b| b[VDM_PAYLOAD] = (b[VDM_PAYLOAD] & 0x0F) | 0x20), COLL_MALFORMED, "collective version 2"),
                    // Header byte 1 is {NP, EM, RT, TID[1:0], rsvd[2:0]}: only bits 2:0 (and byte 2's
                    // nibble above CC_ID) are reserved; the message's own TID stays random.
                    32 => {
                        if self.r.random_bool(0.75) {
                            let bits = self.r.random_range(1..1u8 << collective::RESERVED_FLAG_BITS);
                            (self.wrap(&t, |b| b[VDM_PAYLOAD + 1] |= bits), RESERVED, RESERVED_FLAG_LABEL)
                        } else {
                            let bits = self.r.random_range(1..16u8) << 4;
                            (self.wrap(&t, |b| b[VDM_PAYLOAD + 2] |= bits), RESERVED, "collective reserved nibble")
                        }
                    }
                    // A TLP prefix (Fmt 100, T5): prefixes are not parsed, the frame is unsupported, before
                    // its ECRC is judged: with a digest (covering the End-End prefix) good or corrupted too.
                    35 => {
                        let subtype = [0u8, 1, 14, 15][self.r.random_range(0..4)];
                        let content = self.r.random::<u32>() & 0xFF_FFFF;
                        t.prefixes = vec![tlp::TlpPrefix { fmt: tlp::FMT_PREFIX, end_to_end: self.r.random(), subtype, content }];
                        let digest = self.r.random_range(0..3u8);
                        if digest != 0 {
                            t.fill_ecrc().expect("ecrc");
                            t.digest = t.digest.map(|d| if digest == 2 { d ^ 0x0000_0100 } else { d });
                        }
                        (self.wrap(&t, |_| {}), TLP_UNSUPPORTED, "TLP prefix")
                    }
                    // A VDM routed by ID to another device (T16).
                    33 => {
                        let other = collective::to_vdm(&m, src, ENGINE_ID ^ 0x0100, self.r.random()).expect("vdm");
                        (self.wrap(&other, |_| {}), NOT_FOR_ENGINE, "VDM to another device ID")
                    }
                    // A data kind whose payload is 2 or 3 DW: at least the 8-byte header, short of the
                    // 16 bytes every data message has (C4); Length says so, so T9 holds.
                    34 => {
                        let kind = self.r.random_range(4..=6);
                        let d = self.collective_message(kind);
                        let c = collective::to_vdm(&d, src, ENGINE_ID, 0).expect("vdm");
                        let dw = self.r.random_range(2..=3u8);
                        let bytes = self.wrap(&c, |b| {
                            b.truncate(VDM_PAYLOAD + 4 * usize::from(dw));
                            b[2] &= !0x03;
                            b[3] = dw;
                        });
                        (bytes, COLL_MALFORMED, "data message of 2-3 DW")
                    }
                    22 => return self.config_frame(port, src),
                    23 => (self.wrap(&t, |b| b[0] = (b[0] & 0x1F) | 0xA0), TLP_MALFORMED, "reserved Fmt 101"),
                    24 => {
                        let mut w = Tlp::memory_write(src, 0, base + 0x10, vec![0; 4]).expect("mwr");
                        if let Header::Memory { req, .. } = &mut w.header {
                            req.last_be = 0xF;
                        }
                        (self.wrap(&w, |_| {}), TLP_MALFORMED, "1-DW write with a Last BE")
                    }
                    _ => {
                        let mut d = self.collective_message(4);
                        if let Body::Data { fixed, operands } = &mut d.body {
                            fixed.n_operands = 5;
                            *operands = vec![1, 2, 3, 4, 5];
                        }
                        let c = collective::to_vdm(&d, src, ENGINE_ID, 0).expect("vdm");
                        (self.wrap(&c, |_| {}), COLL_OPERANDS, "five operands")
                    }
                };
                g(bytes, Expect::Drop(reason), what)
            }
        }
    }

    /// A FIG. 4 configuration message (000 [0154]-[0158]) by VDM or mailbox write, with and without
    /// ECRC: valid (its register writes expected, [`expected_config_writes`]), too long for the capture,
    /// or with one defect (more than 128 devices, a timeout wider than 24 bits, n_devices disagreeing with
    /// the length, a payload shorter than the fixed part).
    fn config_frame(&mut self, port: u8, src: u16) -> GenFrame {
        use event::*;
        let (mut m, fixed, device_ids, subservient_ids) = self.config_message();
        let n = device_ids.len();
        // P_ID: for this engine (0xFFFF or its ID: applied here, its register writes), or, one in four,
        // for another engine (docs §Configuration messages: a message to the CPU, to relay down the tree;
        // more slots than CONFIG_RELAY_SLOTS: coll_config).
        let relay = self.r.random_bool(0.25);
        m.header.p_id = if relay {
            let mut p: u16 = if self.r.random_bool(0.5) { self.r.random_range(0..128) } else { self.r.random() };
            while p == ENGINE_ID || p == collective::NO_PARTICIPANT {
                p = p.wrapping_add(1);
            }
            p
        } else {
            m.header.p_id
        };
        let (mut t, tag, mailbox) = self.config_carrier(&m, src, 0.3);
        let s = subservient_ids.len();
        let (reason, what) = if relay { (None, "configuration to relay") } else { self.config_defect(&mut t.payload, n, s) };
        t.dw0.set_length_dw(t.payload.len() / 4);
        let what = match reason {
            None if mailbox => "configuration (mailbox)",
            None => "configuration (VDM)",
            Some(_) => what,
        };
        if self.r.random_bool(0.3) {
            t.fill_ecrc().expect("ecrc");
        }
        let bytes = self.wrap(&t, |_| {});
        // Check 3 of docs §Checks: a configuration message is read up to CONFIG_FRAME_BYTES (its slots
        // past the capture from the slot store), a longer one is too long.
        let expect = if bytes.len() > CONFIG_FRAME_BYTES {
            Expect::Drop(TOO_LONG)
        } else if let Some(reason) = reason {
            Expect::Drop(reason)
        } else if relay && device_ids.len() + subservient_ids.len() > CONFIG_RELAY_SLOTS {
            Expect::Drop(COLL_CONFIG)
        } else if relay {
            Expect::Msg(expected_tlp_msg(&m, src, ENGINE_ID, port))
        } else {
            Expect::Config(expected_config_writes(&fixed, &device_ids, &subservient_ids, src, tag))
        };
        let what = if bytes.len() > 128 && matches!(expect, Expect::Config(_)) { format!("{what}{LONG_CONFIG_LABEL}") } else { what.to_string() };
        GenFrame { bytes, portals: false, flit: false, port, bad_keep: false, expect, what }
    }

    /// A FIG. 4 configuration message: n_devices 0-40 (mostly up to 24), n_subservient 0-6, the
    /// subservient IDs mostly PBV entries' (switch participants); one in seven a long one (000 [0157]:
    /// 41-128 devices, 0-17 subservient engines: past the capture, one more subservient ID than
    /// CONFIG_MAX_SUBSERVIENT sometimes); with its fixed part and both ID lists.
    fn config_message(&mut self) -> (CollectiveMessage, ConfigFixed, Vec<u16>, Vec<u16>) {
        let r = &mut self.r;
        let long = r.random_bool(0.15);
        let n = if long {
            r.random_range(41..=CONFIG_MAX_ENTRIES)
        } else if r.random_bool(0.2) {
            r.random_range(0..=40)
        } else {
            r.random_range(0..=24)
        };
        let s = if long { r.random_range(0..=CONFIG_MAX_SUBSERVIENT + 1) } else { r.random_range(0..=6usize) };
        let device_ids: Vec<u16> = (0..n).map(|_| r.random()).collect();
        // Subservient engines: mostly PBV entries (switch participants), some not.
        let subservient_ids: Vec<u16> = (0..s).map(|_| if n > 0 && r.random_bool(0.6) { device_ids[r.random_range(0..n)] } else { r.random() }).collect();
        let fixed = ConfigFixed {
            master_id: r.random(),
            isl_port: r.random(),
            validation: r.random(),
            error_reporting: r.random(),
            n_subservient: s as u8,
            n_devices: n as u16,
            subservient_timeout: r.random_range(0..1 << 24),
            master_timeout: r.random_range(0..1 << 24),
        };
        let mut m = self.collective_message(1);
        // For this engine (0xFFFF or its ID): applied here. `config_frame` names another engine in some.
        m.header.p_id = if self.r.random_bool(0.5) { collective::NO_PARTICIPANT } else { ENGINE_ID };
        m.body = Body::Configuration { fixed, device_ids: device_ids.clone(), subservient_ids: subservient_ids.clone() };
        (m, fixed, device_ids, subservient_ids)
    }

    /// At most one configuration defect (four draws in ten), edited into the message's bytes `payload`
    /// (n devices): more than 128 devices, a timeout wider than 24 bits (`coll_config`), n_devices
    /// disagreeing with the length, a payload shorter than the fixed part (`coll_malformed`). The caller's
    /// carrier takes its Length from the payload.
    /// More than CONFIG_MAX_SUBSERVIENT subservient IDs (`s`) is `coll_config` too (C3, before C5's length).
    fn config_defect(&mut self, payload: &mut Vec<u8>, n: usize, s: usize) -> (Option<u32>, &'static str) {
        use event::*;
        let too_many_subs = s > CONFIG_MAX_SUBSERVIENT;
        match self.r.random_range(0..10) {
            0 => {
                let big = self.r.random_range(129..=0xFFFFu16);
                payload[14..16].copy_from_slice(&big.to_be_bytes());
                (Some(COLL_CONFIG), "configuration: more than 128 devices")
            }
            1 => {
                let at = [16, 20][self.r.random_range(0..2)];
                payload[at] |= 1 << self.r.random_range(0..8);
                (Some(COLL_CONFIG), "configuration: a timeout wider than 24 bits")
            }
            2 => {
                // Two more devices than the slots carry: four bytes more than the payload has.
                payload[14..16].copy_from_slice(&(n as u16 + 2).to_be_bytes());
                let limit = n + 2 > CONFIG_MAX_ENTRIES || too_many_subs;
                (Some(if limit { COLL_CONFIG } else { COLL_MALFORMED }), "configuration: n_devices disagrees with the length")
            }
            3 => {
                let dw = self.r.random_range(2..=5usize);
                payload.truncate(4 * dw);
                (Some(COLL_MALFORMED), "configuration: shorter than its fixed part")
            }
            _ if too_many_subs => (Some(COLL_CONFIG), "configuration: more than 16 subservient engines"),
            _ => (None, "configuration"),
        }
    }

    /// A memory read request (3 DW, or 4 DW with a zero upper address) of `len_dw` DW.
    fn mrd(&mut self, src: u16, address: u64, len_dw: usize, first_be: u8, last_be: u8) -> Tlp {
        let four = self.r.random_bool(0.2);
        self.mrd_as(src, address, len_dw, first_be, last_be, four)
    }

    fn mrd_as(&mut self, src: u16, address: u64, len_dw: usize, first_be: u8, last_be: u8, four: bool) -> Tlp {
        let tag = self.r.random_range(0..0x400u16);
        let mut dw0 = Dw0 { fmt: u8::from(four), tlp_type: tlp::types::MEM, t9: tag & 0x200 != 0, t8: tag & 0x100 != 0, tc: self.r.random_range(0..8), attr: self.r.random_range(0..4), attr2: self.r.random(), ..Dw0::default() };
        dw0.set_length_dw(len_dw);
        let address = if four { Address::new64(address, 0) } else { Address::new32(address as u32, 0) };
        Tlp { prefixes: vec![], dw0, header: Header::Memory { req: RequestDw1 { requester_id: src, tag: tag as u8, last_be, first_be }, address }, payload: vec![], digest: None }
    }

    /// A non-posted request the checker drops (register-window reads of the wrong length, mailbox
    /// reads, reads of another window, poisoned / TPH / PH reads, unsupported non-posted types), with
    /// its drop reason; the expected Unsupported Request comes from the frames crate ([`expected_ur`]).
    fn non_posted(&mut self, port: u8, src: u16) -> GenFrame {
        use event::*;
        let base = u64::from(ENGINE_ID) << 16 | 0xC000;
        let be = |r: &mut StimRng| r.random_range(1..16u8);
        let (bytes, reason, what) = match self.r.random_range(0..9) {
            0 => {
                let off = 0x800 + 4 * self.r.random_range(0..0x200u64);
                let fbe = self.r.random_range(0..16u8);
                let t = self.mrd(src, base + off, 1, fbe, 0);
                (self.wrap(&t, |_| {}), REG_ACCESS, "mailbox read")
            }
            1 => {
                let n = self.r.random_range(2..5);
                let (f, l) = (be(&mut self.r), be(&mut self.r));
                let a = base + 4 * self.r.random_range(0..0x1F0u64);
                let t = self.mrd(src, a, n, f, l);
                (self.wrap(&t, |_| {}), REG_ACCESS, "multi-DW register read")
            }
            2 => {
                let a = (u64::from(ENGINE_ID ^ 0x0100) << 16) | 0xC000 | (4 * self.r.random_range(0..0x400u64));
                let fbe = self.r.random_range(0..16u8);
                let t = self.mrd(src, a, 1, fbe, 0);
                (self.wrap(&t, |_| {}), NOT_FOR_ENGINE, "read of another switch's window")
            }
            3 => {
                let t = self.mrd(src, base + 0x108, 1, 0xF, 0);
                (self.wrap(&t, |b| b[2] |= 0x40), POISONED, "poisoned register read")
            }
            4 => {
                let t = self.mrd(src, base + 0x108, 1, 0xF, 0);
                (self.wrap(&t, |b| b[1] |= 0x01), TLP_UNSUPPORTED, "register read with TH")
            }
            5 => {
                let t = self.mrd(src, base + 0x10C, 1, 0x3, 0);
                let ph = self.r.random_range(1..4u8);
                let four = t.dw0.fmt & 1 != 0;
                (self.wrap(&t, |b| b[if four { 15 } else { 11 }] |= ph), RESERVED, "register read with PH bits")
            }
            6 => {
                // MRdLk, IORd, CfgRd0/1: 3-DW requests without data, made from an MRd by its Type.
                let ty = [tlp::types::MEM_LOCKED, tlp::types::IO, tlp::types::CFG0, tlp::types::CFG1][self.r.random_range(0..4)];
                let mut t = self.mrd_as(src, base + 0x100, 1, 0xF, 0, false);
                t.header = match ty {
                    tlp::types::MEM_LOCKED => t.header,
                    _ => {
                        let Header::Memory { req, .. } = t.header else { unreachable!("mrd builds a memory header") };
                        match ty {
                            tlp::types::IO => Header::Io { req, address: tlp::Address32 { address_dw: self.r.random::<u32>() >> 2, ph: 0 } },
                            _ => Header::Config { req, target: tlp::ConfigDw2 { bus: self.r.random(), device: self.r.random_range(0..32), register: self.r.random_range(0..64), ..Default::default() } },
                        }
                    }
                };
                t.dw0.tlp_type = ty;
                if ty != tlp::types::MEM_LOCKED {
                    t.dw0.tc = 0;
                    t.dw0.attr = 0;
                    t.dw0.attr2 = false;
                }
                (self.wrap(&t, |_| {}), TLP_UNSUPPORTED, "MRdLk / IORd / CfgRd")
            }
            7 => {
                // IOWr, CfgWr, FetchAdd, Swap, CAS, DMWr: requests with data, made from an MWr.
                let (ty, len) = [(tlp::types::IO, 1), (tlp::types::CFG0, 1), (tlp::types::FETCH_ADD, 2), (tlp::types::SWAP, 1), (tlp::types::CAS, 4), (tlp::types::DMWR, 2)][self.r.random_range(0..6)];
                let tag = self.r.random_range(0..0x400u16);
                let mut t = Tlp::memory_write(src, tag, base + 0x40, vec![0x5A; 4 * len]).expect("mwr");
                let Header::Memory { mut req, address } = t.header else { unreachable!("memory_write builds a memory header") };
                if len == 1 {
                    req.last_be = 0;
                }
                t.header = match ty {
                    tlp::types::IO => Header::Io { req, address: tlp::Address32 { address_dw: 0x10, ph: 0 } },
                    tlp::types::CFG0 => Header::Config { req, target: tlp::ConfigDw2::default() },
                    tlp::types::DMWR => Header::Memory { req, address },
                    _ => Header::Atomic { req, address },
                };
                t.dw0.tlp_type = ty;
                (self.wrap(&t, |_| {}), TLP_UNSUPPORTED, "IOWr / CfgWr / AtomicOp / DMWr")
            }
            _ => {
                // Not answered: a truncated read (malformed), a completion sent to the engine.
                if self.r.random_bool(0.5) {
                    let t = self.mrd(src, base + 0x800, 1, 0xF, 0);
                    (self.wrap(&t, |b| b.truncate(b.len() - 4)), LENGTH, "truncated read")
                } else {
                    let mut t = self.mrd_as(src, base, 1, 0xF, 0, false);
                    t.dw0.tlp_type = tlp::types::CPL;
                    let Header::Memory { req, .. } = t.header else { unreachable!("mrd builds a memory header") };
                    t.header = Header::Completion(tlp::CompletionHeader { completer_id: req.requester_id, byte_count: 4, ..Default::default() });
                    (self.wrap(&t, |_| {}), TLP_UNSUPPORTED, "completion to the engine")
                }
            }
        };
        GenFrame { bytes, portals: false, flit: false, port, bad_keep: false, expect: Expect::Drop(reason), what: what.to_string() }
    }

    fn portals(&mut self) -> GenFrame {
        use event::*;
        let port = self.r.random_range(0..16);
        let vni = self.allowed_vni();
        let r = &mut self.r;
        let arm = r.random_bool(0.3);
        let header = ReductionHeader {
            cookie: r.random(),
            reserved: 0,
            retry: r.random(),
            repsum_ovflid: r.random_range(0..4),
            repsum_m: r.random(),
            rc: [0, 1, 3, 4, 5, 6, 7, 8][r.random_range(0..8)],
            resno: r.random_range(0..1024),
            count: if arm { r.random_range(0..1 << 20) } else { r.random_range(1..1 << 20) },
            op: PORTALS_OPS[r.random_range(0..PORTALS_OPS.len())],
            arm,
            seqno: r.random_range(0..1024),
        };
        let mut f = ReductionFrame {
            dfa: r.random(),
            sfa: r.random(),
            vni,
            command: r.random(),
            flags: 1,
            match_bits: r.random(),
            header_data: r.random(),
            reserved: [0; 7],
            idc_pad: [0; 5],
            header,
            data: [r.random(), r.random(), r.random(), r.random()],
        };
        let eth = EthernetHeader { dst: r.random(), src: r.random(), ethertype: self.cfg.ethertype.max(0x0600) };
        let mut expect = Expect::Msg(expected_portals_msg(&f, port));
        let mut what = "Soft Portals";
        let v = self.cfg.validation;
        let defect = r.random_range(0..14);
        let mut eth2 = eth;
        let mut fcs_bad = false;
        let mut resize: i32 = 0;
        match defect {
            0 if v & 4 != 0 => {
                fcs_bad = true;
                expect = Expect::Drop(FCS);
                what = "FCS corrupted";
            }
            1 => {
                eth2.ethertype = self.cfg.ethertype.wrapping_add(1).max(0x0600);
                if eth2.ethertype != self.cfg.ethertype {
                    expect = Expect::Drop(ETHERTYPE);
                    what = "wrong EtherType";
                }
            }
            2 => {
                f.header.reserved = 1;
                expect = Expect::Drop(RESERVED);
                what = "reduction header reserved bit";
            }
            3 => {
                f.header.op = 0x13;
                expect = Expect::Drop(PORTALS_HEADER);
                what = "undefined rt_op";
            }
            4 => {
                f.header.arm = false;
                f.header.count = 0;
                expect = Expect::Drop(PORTALS_HEADER);
                what = "rt_count 0 going up";
            }
            5 if v & 8 != 0 => {
                // A VNI no valid entry holds.
                let mut bad = self.r.random::<u16>();
                while (0..4).any(|k| self.cfg.vni_valid >> k & 1 != 0 && self.cfg.vni[k] == bad) {
                    bad = bad.wrapping_add(1);
                }
                f.vni = bad;
                expect = Expect::Drop(VNI);
                what = "VNI not allowed";
            }
            6 => {
                resize = if self.r.random_bool(0.5) { 4 } else { -4 };
                expect = Expect::Drop(LENGTH);
                what = "Soft Portals length";
            }
            _ => {}
        }
        let sp = SoftPortals::new(eth2, f).expect("soft portals");
        let mut bytes = sp.to_bytes().expect("emit").to_vec();
        if resize != 0 {
            bytes.truncate(bytes.len() - 4);
            if resize > 0 {
                bytes.extend_from_slice(&[0; 4]);
            } else {
                bytes.truncate(bytes.len() - 4);
            }
            let fcs = crc::ethernet_fcs(&bytes);
            bytes.extend_from_slice(&fcs.to_le_bytes());
        }
        if fcs_bad {
            let n = bytes.len();
            let (at, bit) = (self.r.random_range(0..4), self.r.random_range(0..8));
            bytes[n - 1 - at] ^= 1 << bit;
        }
        GenFrame { bytes, portals: true, flit: false, port, bad_keep: false, expect, what: what.to_string() }
    }

    fn frame(&mut self) -> GenFrame {
        let mut g = match self.r.random_range(0..20) {
            0 => {
                // Random garbage of a random family.
                let n = self.r.random_range(1..140);
                let bytes = (0..n).map(|_| self.r.random()).collect();
                let portals: bool = self.r.random();
                // Flit-mode garbage too: no LCRC stops it, the header checks must.
                let flit = !portals && self.r.random_bool(0.3);
                GenFrame { bytes, portals, flit, port: 0, bad_keep: false, expect: Expect::AnyDrop, what: "random bytes".into() }
            }
            1 => {
                // Over-long with a good CRC: too long whatever the enables.
                let n = self.r.random_range(129..400);
                let mut bytes: Vec<u8> = (0..n - 4).map(|_| self.r.random()).collect();
                // Byte 2 (a TLP's Fmt/Type) a reserved Fmt: no memory request or VDM, so never a
                // configuration message, which is read up to CONFIG_FRAME_BYTES.
                bytes[2] = 0xFF;
                let c = crc::CRC32.checksum(&bytes);
                bytes.extend_from_slice(&c.to_le_bytes());
                GenFrame { bytes, portals: self.r.random(), flit: false, port: 0, bad_keep: false, expect: Expect::Drop(event::TOO_LONG), what: "over-long".into() }
            }
            2..=8 => self.portals(),
            9 | 10 => self.flit_frame(),
            _ => self.tlp(),
        };
        if self.r.random_bool(0.03) {
            g.bad_keep = true;
            g.expect = Expect::Drop(event::TKEEP);
            g.what = format!("{} + bad tkeep", g.what);
        }
        g
    }

    fn load(&mut self, g: GenFrame) {
        let kw = self.p.keep_width();
        let n = g.bytes.len();
        let nbeats = n.div_ceil(kw);
        self.beats.clear();
        for b in 0..nbeats {
            let mut d = Wide::ZERO;
            let chunk = &g.bytes[b * kw..((b + 1) * kw).min(n)];
            for (k, &x) in chunk.iter().enumerate() {
                d.set_byte(k, x);
            }
            // Bytes past the end of the frame carry noise (tkeep says they are not there).
            for k in chunk.len()..kw {
                d.set_byte(k, self.r.random());
            }
            let keep = if chunk.len() >= 64 { u64::MAX } else { (1u64 << chunk.len()) - 1 };
            self.beats.push((d, keep, b + 1 == nbeats));
        }
        if g.bad_keep {
            let b = self.r.random_range(0..nbeats);
            let (_, keep, last) = &mut self.beats[b];
            if *last {
                // A hole, or no byte at all.
                *keep = if *keep > 1 && self.r.random_bool(0.7) { *keep & !(1 << self.r.random_range(0..(*keep).count_ones() - 1)) } else { 0 };
                if *keep != 0 && *keep & (*keep + 1) == 0 {
                    *keep = 0;
                }
            } else {
                *keep &= !(1 << self.r.random_range(0..kw));
            }
        }
        self.next_beat = 0;
        self.tuser = u16::from(g.flit) << TUSER_FLIT_BIT | u16::from(g.portals) << 8 | u16::from(g.port);
        // A tkeep defect, a Portals frame or a flit-mode frame is never a request to answer.
        let ur = if g.portals || g.bad_keep || g.flit { if g.expect == Expect::AnyDrop { UrExpect::Any } else { UrExpect::None } } else { expected_ur(&g.bytes, &g.expect) };
        self.labels.borrow_mut().push_back((g.expect, format!("{} ({} bytes)", g.what, n), ur));
    }
}

impl Stimulus<InputCheckerIn, InputCheckerOut> for InputCheckerStimulus {
    fn next(&mut self, previous: &InputCheckerOut) -> InputCheckerIn {
        let taken = self.last.s_axis_tvalid && previous.s_axis_tready;
        if taken {
            self.next_beat += 1;
        }
        let between_frames = self.next_beat >= self.beats.len();
        // Cycles the pipeline advanced since the last frame ended: a configuration change waits until
        // every frame in flight has had its verdict (the checker samples cfg_* in a later stage, C).
        if taken && self.last.s_axis_tlast {
            self.quiet = 0;
        } else if previous.s_axis_tready {
            self.quiet = self.quiet.saturating_add(1);
        }
        if self.phases.tick(&mut self.r) && between_frames {
            self.cfg_pending = true;
        }
        if self.cfg_pending && between_frames && self.quiet >= VERDICT_EDGES {
            self.new_cfg();
            self.cfg_pending = false;
        }
        let prof = self.phases.profile;
        let mut i = InputCheckerIn {
            m_reg_ready: !self.stall_reg.gap(&mut self.r, prof.stall, prof.persist),
            m_msg_ready: !self.stall_msg.gap(&mut self.r, prof.stall, prof.persist),
            m_ur_ready: !self.stall_ur.gap(&mut self.r, prof.stall, prof.persist),
            cfg_engine_id: ENGINE_ID,
            cfg_ethertype: self.cfg.ethertype,
            cfg_vendor_id: self.cfg.vendor_id,
            cfg_validation: self.cfg.validation,
            cfg_vni_valid: self.cfg.vni_valid,
            cfg_vni: (0..4).fold(0, |a, k| a | u64::from(self.cfg.vni[k]) << (16 * k)),
            ..Default::default()
        };
        if self.resets.tick(&mut self.r) {
            i.rst = true;
            self.quiet = VERDICT_EDGES;
            self.beats.clear();
            self.next_beat = 0;
            self.labels.borrow_mut().clear();
            self.last = i;
            return i;
        }
        if self.last.s_axis_tvalid && !taken {
            i.s_axis_tdata = self.last.s_axis_tdata;
            i.s_axis_tkeep = self.last.s_axis_tkeep;
            i.s_axis_tvalid = true;
            i.s_axis_tlast = self.last.s_axis_tlast;
            i.s_axis_tuser = self.last.s_axis_tuser;
        } else if !(self.cfg_pending && between_frames) && !self.idle.gap(&mut self.r, prof.idle, prof.persist) {
            if self.next_beat >= self.beats.len() {
                let g = self.frame();
                self.load(g);
            }
            let (d, k, l) = self.beats[self.next_beat];
            i.s_axis_tdata = d;
            i.s_axis_tkeep = k;
            i.s_axis_tlast = l;
            i.s_axis_tvalid = true;
            // tuser matters on the first beat only.
            i.s_axis_tuser = if self.next_beat == 0 { self.tuser } else { self.r.random::<u16>() & TUSER_MASK };
        }
        self.last = i;
        i
    }
}
