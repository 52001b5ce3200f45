//! Encapsulated configurations for the input checker's stimulus (collective kind 10; seed 000 FIG. 4,
//! [0156]: "encapsulated payload descriptors (type, operation bit, version)", the "encapsulated original
//! multicast TLP header" and its payload; docs/frames.md §4 Encapsulated). The bytes are written here
//! from the document (descriptor bytes, the original memory write from the frames crate's TLP codec), the
//! outcome from the document too: the same register writes as the kind-1 message with the same body (for
//! another engine, that kind-1 message to the CPU, to relay), or one defect and the drop the document names for it (`coll_config` for every defect of the
//! encapsulation; `vendor` for a VDM whose DW3 disagrees).

use inswitch_frames::collective::{self, Body, CollectiveMessage};
use inswitch_frames::tlp::Tlp;
use inswitch_model::input_checker::event;
use rand::RngExt;

use super::{GenFrame, InputCheckerStimulus, ENGINE_ID};
use inswitch_model::input_checker::config::CONFIG_RELAY_SLOTS;

use super::super::reference::{expected_config_writes, expected_tlp_msg, Expect, ENCAP_FLIT_LABEL, ENCAP_REGW_LABEL};
use inswitch_model::input_checker::RegAccess;

/// Collective kind of an encapsulated packet (docs/frames.md §4).
const KIND_ENCAPSULATED: u8 = 10;
/// The descriptor of an encapsulated configuration the engine applies: payload type 1 (configuration),
/// operation bit set (apply), version 1, header form 0 (a non-flit original header).
const DESCRIPTOR: [u8; 4] = [1, 0x80, 1, 0];
/// Descriptor byte 3 of a flit-mode original header (docs/frames.md §4).
const FORM_FLIT: u8 = 1;
/// Flit-mode MWr32 / MWr64 Type codes (PCIe 6 Table 2-5, docs/frames.md §2).
const FLIT_MWR32: u8 = 0x40;
const FLIT_MWR64: u8 = 0x60;
/// Bytes of the common header (the configuration body is the kind-1 message from here on).
const HEADER: usize = 8;

impl InputCheckerStimulus {
    /// A kind-10 message in a mailbox write or a VDM: valid, or with one defect (half the draws).
    pub(super) fn encap_frame(&mut self, port: u8, src: u16) -> GenFrame {
        use event::*;
        let (inner, fixed, device_ids, subservient_ids) = self.config_message();
        let body = inner.to_bytes().expect("configuration emits")[HEADER..].to_vec();
        // The original multicast memory write: 3 or 4 DW by its address.
        let addr: u64 = if self.r.random_bool(0.5) { u64::from(self.r.random::<u32>() & !3) } else { (self.r.random::<u64>() | 1 << 40) & !3 };
        // A third of them in flit-mode form (000 [0156]: FIG. 4's header fields are a flit-mode TLP's),
        // written out from docs/frames.md §2: DW0 Type, TC | OHC 0, TS 0 | Attr | Length[9:8],
        // Length[7:0]; DW1 Requester ID, EP 0 R 0 Tag[13:0]; the address DW(s).
        let flit = self.r.random_bool(1.0 / 3.0);
        let header = if flit {
            let len = (body.len() / 4) as u16;
            let four = addr > u64::from(u32::MAX);
            let mut h = vec![if four { FLIT_MWR64 } else { FLIT_MWR32 }, self.r.random_range(0..8u8) << 5, self.r.random_range(0..8u8) << 2 | (len >> 8) as u8, len as u8];
            h.extend_from_slice(&self.r.random::<u16>().to_be_bytes());
            h.extend_from_slice(&(self.r.random::<u16>() & 0x3FFF).to_be_bytes());
            if four {
                h.extend_from_slice(&((addr >> 32) as u32).to_be_bytes());
            }
            h.extend_from_slice(&(addr as u32).to_be_bytes());
            h
        } else {
            let orig = Tlp::memory_write(self.r.random(), self.r.random_range(0..0x400), addr, body.clone()).expect("original mwr");
            let orig = orig.to_bytes().expect("original emits");
            orig[..orig.len() - body.len()].to_vec()
        };
        let hlen = header.len();
        let mut enc = DESCRIPTOR.to_vec();
        if flit {
            enc[3] = FORM_FLIT;
        }
        enc.extend_from_slice(&header);
        enc.extend_from_slice(&body);
        // Defects, in the message's bytes after the common header (descriptor at 0, header at 4).
        let mut other_engine = false;
        let (reason, what) = match self.r.random_range(0..20) {
            0 => {
                enc[0] = self.r.random_range(2..=255);
                (Some(COLL_CONFIG), "encapsulated: unknown payload type")
            }
            1 => {
                enc[1] = if self.r.random_bool(0.5) { 0 } else { 0x80 | 1 << self.r.random_range(0..7) };
                (Some(COLL_CONFIG), "encapsulated: operation bit clear or a reserved bit set")
            }
            2 => {
                enc[2] = self.r.random_range(2..=255);
                (Some(COLL_CONFIG), "encapsulated: unknown version")
            }
            3 => {
                enc[3] = self.r.random_range(2..=255);
                (Some(COLL_CONFIG), "encapsulated: header form neither non-flit nor flit mode")
            }
            4 => {
                // Not a memory write: a memory read (Fmt 000/001) or another Type.
                enc[4] = if self.r.random_bool(0.5) { enc[4] & 0x20 } else { enc[4] | self.r.random_range(1..0x20) };
                (Some(COLL_CONFIG), "encapsulated: header not a memory write")
            }
            5 if flit => {
                // OHC words (byte 1 bits 4:0), a trailer (TS, byte 2 bits 7:5) or EP (byte 6 bit 7).
                match self.r.random_range(0..3) {
                    0 => enc[5] |= 1 << self.r.random_range(0..5),
                    1 => enc[6] |= self.r.random_range(1..8u8) << 5,
                    _ => enc[10] |= 0x80,
                }
                (Some(COLL_CONFIG), "encapsulated: flit-mode header with OHC, a trailer or EP")
            }
            5 => {
                enc[6] |= [0x80, 0x40][self.r.random_range(0..2)];
                (Some(COLL_CONFIG), "encapsulated: header with TD or EP")
            }
            6 => {
                // The header's Length one DW off the body.
                let l = (u16::from(enc[6] & 3) << 8 | u16::from(enc[7])) ^ 1;
                enc[6] = enc[6] & !3 | (l >> 8) as u8;
                enc[7] = l as u8;
                (Some(COLL_CONFIG), "encapsulated: header Length disagrees with the payload")
            }
            7 => {
                // The message one DW shorter or longer than descriptor + header + body.
                if self.r.random_bool(0.5) {
                    enc.truncate(enc.len() - 4);
                } else {
                    enc.extend_from_slice(&[0; 4]);
                }
                (Some(COLL_CONFIG), "encapsulated: message length disagrees with the header")
            }
            8 => {
                let at = 4 + hlen + [8, 12][self.r.random_range(0..2)];
                enc[at] |= 1 << self.r.random_range(0..8);
                (Some(COLL_CONFIG), "encapsulated: a timeout wider than 24 bits")
            }
            9 | 10 => {
                // For another engine: relayed as the kind-1 message with the same body (below).
                other_engine = true;
                (None, "encapsulated configuration for another engine")
            }
            _ => (None, "encapsulated configuration"),
        };
        let mut inner = inner;
        if other_engine {
            // docs §Encapsulated configuration: kind 10 for another engine goes to the CPU as the kind-1
            // message it carries, to be relayed down the tree (000 [0106], [0157]).
            let mut p: u16 = if self.r.random_bool(0.5) { self.r.random_range(0..128) } else { self.r.random() };
            while p == ENGINE_ID || p == collective::NO_PARTICIPANT {
                p = p.wrapping_add(1);
            }
            inner.header.p_id = p;
        }
        let mut m = inner.clone();
        m.header.kind = KIND_ENCAPSULATED;
        m.body = Body::Raw(enc);
        let m = CollectiveMessage { header: m.header, body: m.body };
        let (mut t, tag, mailbox) = self.config_carrier(&m, src, 0.5);
        if self.r.random_bool(0.3) {
            t.fill_ecrc().expect("ecrc");
        }
        let bytes = self.wrap(&t, |_| {});
        // Check 3 of docs §Checks: a frame over 128 bytes is too long, whatever it carries.
        let expect = if bytes.len() > 128 {
            Expect::Drop(TOO_LONG)
        } else if let Some(reason) = reason {
            Expect::Drop(reason)
        } else if other_engine && device_ids.len() + subservient_ids.len() > CONFIG_RELAY_SLOTS {
            Expect::Drop(COLL_CONFIG)
        } else if other_engine {
            Expect::Msg(expected_tlp_msg(&inner, src, ENGINE_ID, port))
        } else {
            Expect::Config(expected_config_writes(&fixed, &device_ids, &subservient_ids, src, tag))
        };
        let what = if reason.is_none() && mailbox { "encapsulated configuration (mailbox)" } else { what };
        // The flit-mode form's label starts with ENCAP_LABEL too (counted with the others and on its own).
        let what = if flit { format!("{ENCAP_FLIT_LABEL}: {what}") } else { what.to_string() };
        GenFrame { bytes, portals: false, flit: false, port, bad_keep: false, expect, what }
    }

    /// A kind-10 register write (payload type 2, docs/frames.md §4 and docs/blocks/input_checker.md
    /// §Encapsulated register write) in a mailbox write or a VDM: valid (the one register write its
    /// original header says, `src` and `tag` the carrier's), or with one defect (half the draws), each
    /// `coll_config`. The original header is written out from docs/frames.md §1 / §2: non-flit DW0 Fmt
    /// 010 / 011 Type 0, Length 1; DW1 requester, tag, Last DW BE 0 | First DW BE; or flit-mode MWr32 /
    /// MWr64 (no byte enables: all four); then the address, a register of this engine's window.
    pub(super) fn encap_register_write_frame(&mut self, port: u8, src: u16) -> GenFrame {
        use event::*;
        let flit = self.r.random_bool(1.0 / 3.0);
        let four = self.r.random_bool(0.3);
        let off = 4 * self.r.random_range(0..0x200u16);
        let wdata: u32 = self.r.random();
        let be = if flit { 0xF } else { self.r.random_range(0..16u8) };
        let mut addr_hi = 0u32;
        let mut addr = u32::from(ENGINE_ID) << 16 | 0xC000 | u32::from(off);
        let mut pid = if self.r.random_bool(0.5) { ENGINE_ID } else { collective::NO_PARTICIPANT };
        let mut header = if flit {
            let mut h = vec![if four { FLIT_MWR64 } else { FLIT_MWR32 }, self.r.random_range(0..8u8) << 5, self.r.random_range(0..8u8) << 2, 1];
            h.extend_from_slice(&self.r.random::<u16>().to_be_bytes());
            h.extend_from_slice(&(self.r.random::<u16>() & 0x3FFF).to_be_bytes());
            h
        } else {
            let mut h = vec![if four { 0x60 } else { 0x40 }, 0, 0, 1];
            h.extend_from_slice(&self.r.random::<u16>().to_be_bytes());
            h.extend_from_slice(&[self.r.random(), be]);
            h
        };
        let mut enc = vec![2, 0x80, 1, if flit { FORM_FLIT } else { 0 }];
        let mut tail = 0i32;
        let (reason, what) = match self.r.random_range(0..24) {
            0 => {
                enc[1] = if self.r.random_bool(0.5) { 0 } else { 0x80 | 1 << self.r.random_range(0..7) };
                (Some(COLL_CONFIG), "operation bit clear or a reserved bit set")
            }
            1 => {
                enc[2] = self.r.random_range(2..=255);
                (Some(COLL_CONFIG), "unknown version")
            }
            2 => {
                enc[3] = self.r.random_range(2..=255);
                (Some(COLL_CONFIG), "header form neither non-flit nor flit mode")
            }
            3 => {
                header[0] = if self.r.random_bool(0.5) { header[0] & 0x20 } else { header[0] | self.r.random_range(1..0x20) };
                (Some(COLL_CONFIG), "header not a memory write")
            }
            4 if flit => {
                match self.r.random_range(0..3) {
                    0 => header[1] |= 1 << self.r.random_range(0..5),
                    1 => header[2] |= self.r.random_range(1..8u8) << 5,
                    _ => header[6] |= 0x80,
                }
                (Some(COLL_CONFIG), "flit-mode header with OHC, a trailer or EP")
            }
            4 => {
                header[2] |= [0x80, 0x40][self.r.random_range(0..2)];
                (Some(COLL_CONFIG), "header with TD or EP")
            }
            5 => {
                // Length 2 (and the data a DW longer: the message agrees with it).
                header[3] = 2;
                tail = 4;
                (Some(COLL_CONFIG), "header Length 2")
            }
            6 => {
                tail = if self.r.random_bool(0.5) { -4 } else { 4 };
                (Some(COLL_CONFIG), "message length disagrees with the header")
            }
            7 if !flit => {
                header[7] |= self.r.random_range(1..16u8) << 4;
                (Some(COLL_CONFIG), "Last DW BE set")
            }
            8 => {
                // Another engine's window (P_ID this engine or none).
                addr ^= u32::from(self.r.random_range(1..=u16::MAX)) << 16;
                (Some(COLL_CONFIG), "address in another engine's window")
            }
            9 => {
                addr = addr & !0xF000 | u32::from(self.r.random_range(0..16u16).max(1) ^ 0xC) << 12;
                (Some(COLL_CONFIG), "address outside the register window")
            }
            10 => {
                addr |= 0x800;
                (Some(COLL_CONFIG), "address in the mailbox")
            }
            11 if four => {
                addr_hi = self.r.random_range(1..=u32::MAX);
                (Some(COLL_CONFIG), "address above 4 GiB")
            }
            12 | 13 => {
                // For another engine, its window in the address: the relay of a register write is not
                // built (docs §Encapsulated register write).
                let mut p: u16 = self.r.random();
                while p == ENGINE_ID || p == collective::NO_PARTICIPANT {
                    p = p.wrapping_add(1);
                }
                pid = p;
                addr = addr & 0xFFFF | u32::from(p) << 16;
                (Some(COLL_CONFIG), "for another engine")
            }
            _ => (None, "valid"),
        };
        if four {
            header.extend_from_slice(&addr_hi.to_be_bytes());
        }
        header.extend_from_slice(&addr.to_be_bytes());
        enc.extend_from_slice(&header);
        enc.extend_from_slice(&wdata.to_le_bytes());
        match tail {
            4 => enc.extend_from_slice(&self.r.random::<u32>().to_le_bytes()),
            -4 => enc.truncate(enc.len() - 4),
            _ => {}
        }
        let h = collective::CommonHeader { version: 1, kind: KIND_ENCAPSULATED, cc_id: self.r.random_range(0..0x1000), dmu_id: self.r.random(), p_id: pid, ..Default::default() };
        let m = CollectiveMessage { header: h, body: Body::Raw(enc) };
        let (mut t, tag, mailbox) = self.config_carrier(&m, src, 0.5);
        if self.r.random_bool(0.3) {
            t.fill_ecrc().expect("ecrc");
        }
        let bytes = self.wrap(&t, |_| {});
        let expect = match reason {
            Some(r) => Expect::Drop(r),
            None => Expect::Reg(RegAccess { write: true, addr: off, be, wdata, src, tag }),
        };
        let carrier = if mailbox { "mailbox" } else { "VDM" };
        let form = if flit { "flit mode" } else { "non-flit" };
        GenFrame { bytes, portals: false, flit: false, port, bad_keep: false, expect, what: format!("{ENCAP_REGW_LABEL} ({carrier}, {form}): {what}") }
    }
}
