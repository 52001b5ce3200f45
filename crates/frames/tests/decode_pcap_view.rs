//! `inswitch decode` library functions, pcap round trips, and the zero-copy views checked against the
//! deku declarations.

use std::time::Duration;

use inswitch_frames::decode::{self, FrameKind};
use inswitch_frames::pcap::{self, Record};
use inswitch_frames::portals::ReductionFrame;
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_frames::view::{ReductionView, TlpView};
use proptest::prelude::*;

const TLP_MWR32: &str = "40000001 01002a0f 0010c004 deadbeef";
const VDM: &str = "72000004 0100007f 0200c011 ce030005 13000005 00100002 01000003 00000000";
const SOFT_PORTALS: &str = "01005e000001 020000000001 88b5 001c002800012345001000010000000000000000000000000000000000000000000000000000000012345678000000800006a405000000000000000100000000000000020000000000000003ffffffffffffffff 1da9b53a";

#[test]
fn parse_hex_accepts_common_spellings() {
    assert_eq!(decode::parse_hex("0x40 00:00-01_ab,CD").unwrap(), vec![0x40, 0, 0, 1, 0xab, 0xcd]);
    assert!(matches!(decode::parse_hex("abc"), Err(inswitch_frames::Error::Syntax { .. })));
    assert!(matches!(decode::parse_hex("zz"), Err(inswitch_frames::Error::Syntax { offset: 0, .. })));
    assert_eq!("soft-portals".parse::<FrameKind>().unwrap(), FrameKind::SoftPortals);
    assert!("bogus".parse::<FrameKind>().is_err());
}

#[test]
fn text_shows_every_field() {
    let b = decode::parse_hex(TLP_MWR32).unwrap();
    let s = decode::render_text(FrameKind::Tlp, &b).unwrap();
    for needle in ["PCIe TLP (non-flit): 16 bytes", "    Fmt: 0b010 (3DW header, with data)", "Type: 0b00000 (mem write)", "Requester ID: 0x0100 (01:00.0)", "Address: 0x0010c004", "Payload: deadbeef", "Length: 1 (1 DW)"] {
        assert!(s.contains(needle), "missing {needle:?} in\n{s}");
    }
    let vdm = decode::render_text(FrameKind::Tlp, &decode::parse_hex(VDM).unwrap()).unwrap();
    assert!(vdm.contains("Vendor ID: 0xc011"), "{vdm}");
    assert!(vdm.contains("    Collective message: 16 bytes"), "{vdm}");
    assert!(vdm.contains("Command: 1 (start)"), "{vdm}");
    assert!(vdm.contains("TID: 0"), "{vdm}");
    // The collective header's flag byte (VDM byte 17) with TID 2 in its bits 4:3 (seed 001).
    let mut b = decode::parse_hex(VDM).unwrap();
    b[17] = 2 << 3;
    let vdm = decode::render_text(FrameKind::Tlp, &b).unwrap();
    assert!(vdm.contains("TID: 2"), "{vdm}");
    let sp = decode::render_text(FrameKind::SoftPortals, &decode::parse_hex(SOFT_PORTALS).unwrap()).unwrap();
    for needle in ["EtherType: 0x88b5", "rt_op (op): 0x14 (int_sum)", "multicast tree (bits 15-3): 5", "FCS: 0x3ab5a91d [correct]", "rt_data[3]: 0xffffffffffffffff (i64 -1"] {
        assert!(sp.contains(needle), "missing {needle:?} in\n{sp}");
    }
}

#[test]
fn json_is_data() {
    let b = decode::parse_hex(SOFT_PORTALS).unwrap();
    let j = decode::to_json(FrameKind::SoftPortals, &b).unwrap();
    assert_eq!(j["kind"], "soft_portals");
    assert_eq!(j["soft_portals"]["portals"]["header"]["seqno"], 5);
    assert_eq!(j["soft_portals"]["portals"]["header"]["op"], "int_sum");
    assert_eq!(j["soft_portals"]["portals"]["header"]["arm"], true);
    assert_eq!(j["soft_portals"]["portals"]["multicast"], true);
    assert_eq!(j["soft_portals"]["ethernet"]["ethertype"], 0x88b5);
    assert_eq!(j["soft_portals"]["fcs"]["correct"], true);
    assert_eq!(j["raw"].as_str().unwrap().len(), 2 * b.len());
    // The raw bytes appear once: no other value repeats the whole frame.
    assert_eq!(j.to_string().matches(j["raw"].as_str().unwrap()).count(), 1);
    let e = decode::to_json(FrameKind::Tlp, &b[..10]);
    assert!(e.is_err());
    // The example: an MWr64 to 0x1_0000_0010, tag 5, 2 DW.
    let mwr64 = decode::parse_hex("60000002 01000500 00000001 00000010 11111111 22222222").unwrap();
    let j = decode::to_json(FrameKind::Tlp, &mwr64).unwrap();
    assert_eq!(j["tlp"]["address"], 4294967312u64);
    assert_eq!(j["tlp"]["tag"], 5);
    assert_eq!(j["tlp"]["length"], 2);
    assert_eq!(j["tlp"]["type"], "mem_write");
    assert_eq!(j["tlp"]["td"], false);
    let cpl = decode::parse_hex("4a000001 0100000c 02000500 cafef00d").unwrap();
    assert_eq!(decode::to_json(FrameKind::Tlp, &cpl).unwrap()["tlp"]["type"], "completion");
}

#[test]
fn text_has_no_rust_debug_output() {
    let dllp = inswitch_frames::dllp::Dllp::ack_nak(true, 7);
    let mut d = [0u8; 6];
    dllp.emit(&mut d).unwrap();
    for (k, h) in [(FrameKind::Tlp, TLP_MWR32), (FrameKind::Tlp, VDM), (FrameKind::Tlp, "4a000001 0100000c 02000500 cafef00d"), (FrameKind::SoftPortals, SOFT_PORTALS)] {
        let t = decode::render_text(k, &decode::parse_hex(h).unwrap()).unwrap();
        for bad in ["{", "}", "::", "Some(", "None", "Completion {", "IntSum"] {
            assert!(!t.contains(bad), "{bad:?} in\n{t}");
        }
    }
}

#[test]
fn every_kind_decodes() {
    let dllp = inswitch_frames::dllp::Dllp::ack_nak(true, 7);
    let mut d = [0u8; 6];
    dllp.emit(&mut d).unwrap();
    let cases: Vec<(FrameKind, Vec<u8>)> = vec![
        (FrameKind::Tlp, decode::parse_hex(TLP_MWR32).unwrap()),
        (FrameKind::FlitTlp, decode::parse_hex("20112008 0100a5a5 00000001 00000000 aaaaaaaa eeeeeee1 eeeeeee2 00000000").unwrap()),
        (FrameKind::Dllp, d.to_vec()),
        (FrameKind::Portals, decode::parse_hex(SOFT_PORTALS).unwrap()[14..98].to_vec()),
        (FrameKind::Collective, decode::parse_hex(&VDM[36..]).unwrap()),
    ];
    for (k, b) in cases {
        let t = decode::render_text(k, &b).unwrap_or_else(|e| panic!("{k:?}: {e}"));
        assert!(t.lines().count() > 3, "{k:?}: {t}");
        decode::render_json(k, &b).unwrap();
    }
}

#[test]
fn pcap_round_trip_per_link_type() {
    let tlp = decode::parse_hex(TLP_MWR32).unwrap();
    let sp = decode::parse_hex(SOFT_PORTALS).unwrap();
    for (kind, frame, lt) in [(FrameKind::Tlp, tlp, 147u32), (FrameKind::SoftPortals, sp, 1)] {
        let recs = vec![
            Record { timestamp: Duration::from_nanos(1000), data: frame.clone() },
            Record { timestamp: Duration::from_micros(5), data: frame.clone() },
        ];
        let bytes = pcap::write_pcap(Vec::new(), kind, &recs).unwrap();
        let cap = pcap::read_pcap(bytes.as_slice()).unwrap();
        assert_eq!(cap.linktype, lt);
        assert_eq!(cap.kind(), Some(kind));
        assert_eq!(cap.records, recs);
        for r in &cap.records {
            decode::render_text(kind, &r.data).unwrap();
        }
    }
    assert!(pcap::read_pcap(&b"not a pcap file at all, no"[..]).is_err());
}

fn tlp_bytes() -> impl Strategy<Value = Vec<u8>> {
    // Valid TLP bytes: random header bits, Fmt/Length fixed up so the length matches.
    (any::<[u8; 16]>(), 0u16..20, any::<u8>()).prop_map(|(mut h, len, td)| {
        if h[0] >> 5 == 4 {
            h[0] ^= 0x80;
        }
        h[2] = (h[2] & 0x7c) | (td & 0x80);
        h[3] = len as u8;
        let fmt = h[0] >> 5;
        let mut v = h[..if fmt & 1 != 0 { 16 } else { 12 }].to_vec();
        if fmt & 2 != 0 {
            let n = if len == 0 { 1024 } else { len as usize };
            v.extend((0..4 * n).map(|i| i as u8));
        }
        if td & 0x80 != 0 {
            v.extend([1, 2, 3, 4]);
        }
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// The zero-copy view and the deku repr agree on every field, and on which inputs are valid.
    #[test]
    fn view_matches_deku(b in tlp_bytes()) {
        let repr = Tlp::parse(&b);
        let view = TlpView::new_checked(&b[..]);
        prop_assert_eq!(repr.is_ok(), view.is_ok(), "{:?} vs {:?}", repr, view.map(|_| ()));
        if let (Ok(t), Ok(v)) = (repr, view) {
            prop_assert_eq!(v.fmt(), t.dw0.fmt);
            prop_assert_eq!(v.tlp_type(), t.dw0.tlp_type);
            prop_assert_eq!(v.kind(), t.kind());
            prop_assert_eq!(v.tc(), t.dw0.tc);
            prop_assert_eq!(v.attr(), u8::from(t.dw0.attr2) << 2 | t.dw0.attr);
            prop_assert_eq!(v.td(), t.dw0.td);
            prop_assert_eq!(v.ep(), t.dw0.ep);
            prop_assert_eq!(v.length(), t.dw0.length);
            prop_assert_eq!(v.payload(), &t.payload[..]);
            prop_assert_eq!(v.digest(), t.digest);
            if let Some(rid) = t.requester_id() { prop_assert_eq!(v.requester_id(), rid); }
            if let Some(tag) = t.tag() { prop_assert_eq!(v.tag(), tag); }
            match &t.header {
                Header::Memory { req, address } | Header::Atomic { req, address } => {
                    prop_assert_eq!(v.address(), address.byte_address());
                    prop_assert_eq!((v.first_be(), v.last_be()), (req.first_be, req.last_be));
                }
                Header::Completion(c) => {
                    prop_assert_eq!(v.completer_id(), c.completer_id);
                    prop_assert_eq!(v.status(), c.status);
                    prop_assert_eq!(v.byte_count(), c.byte_count);
                    prop_assert_eq!(v.lower_address(), c.lower_address);
                }
                Header::Message(m) => prop_assert_eq!(v.message_code(), m.message_code),
                _ => {}
            }
        }
    }

    /// `Tlp::parse_fast` (view-based) builds exactly the repr deku builds, and fails exactly when it fails.
    #[test]
    fn to_repr_matches_deku(b in tlp_bytes(), pfx in prop::collection::vec(any::<u32>(), 0..6), cut in any::<usize>(), junk in prop::collection::vec(any::<u8>(), 0..40)) {
        let mut v: Vec<u8> = pfx.iter().flat_map(|w| ((w & 0x1fff_ffff) | 0x8000_0000).to_be_bytes()).collect();
        v.extend(&b);
        for input in [v.clone(), v[..cut % (v.len() + 1)].to_vec(), junk] {
            let slow = Tlp::parse(&input);
            let fast = Tlp::parse_fast(&input);
            match (&slow, &fast) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
                (Err(a), Err(b)) => prop_assert_eq!(std::mem::discriminant(a), std::mem::discriminant(b), "{} vs {}", a, b),
                _ => prop_assert!(false, "parse {:?} vs parse_fast {:?}", slow, fast),
            }
        }
    }

    #[test]
    fn view_never_panics(b in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(v) = TlpView::new_checked(&b[..]) {
            let _ = (v.address(), v.tag(), v.payload(), v.digest(), v.requester_id());
        }
    }

    #[test]
    fn reduction_view_matches_deku(b in any::<[u8; 84]>()) {
        let f = ReductionFrame::parse(&b).unwrap();
        let v = ReductionView::new_checked(&b[..]).unwrap();
        let h = f.header;
        prop_assert_eq!((v.dfa(), v.vni(), v.cookie()), (f.dfa, f.vni, h.cookie));
        prop_assert_eq!((v.seqno(), v.arm(), v.op(), v.count()), (h.seqno, h.arm, h.op, h.count));
        prop_assert_eq!((v.resno(), v.rc(), v.repsum_m(), v.repsum_ovflid(), v.retry()), (h.resno, h.rc, h.repsum_m, h.repsum_ovflid, h.retry));
        for i in 0..4 { prop_assert_eq!(v.operand(i), f.data[i]); }
    }

    /// The collective common header read by byte arithmetic is the one the deku declaration reads.
    #[test]
    fn common_header_matches_deku(b in any::<[u8; 8]>()) {
        use deku::DekuContainerRead;
        use inswitch_frames::collective::CommonHeader;
        let (_, deku) = CommonHeader::from_bytes((&b[..], 0)).unwrap();
        prop_assert_eq!(CommonHeader::from_be_bytes(&b), deku);
    }
}
