//! Fixed byte vectors per frame kind: parse, field getters, emit, every truncated length, one extra byte.
//! The same vectors seed the fuzz corpus (`fuzz/seeds.rs` writes them out) and the benches.

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ControlBody, InitBody};
use inswitch_frames::dllp::Dllp;
use inswitch_frames::ethernet::SoftPortals;
use inswitch_frames::flit::{self, FlitTlp};
use inswitch_frames::portals::{ReductionFrame, ReductionOp, ReductionRc};
use inswitch_frames::tlp::{Address, CompletionStatus, Header, MessageCode, MessageRouting, Tlp, TlpKind};
use inswitch_frames::{crc, Error};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Every strictly shorter prefix must fail with `Truncated` (never panic); one extra byte must fail too.
fn truncations<T: std::fmt::Debug>(bytes: &[u8], parse: impl Fn(&[u8]) -> Result<T, Error>) {
    for n in 0..bytes.len() {
        match parse(&bytes[..n]) {
            Err(Error::Truncated { needed, actual, .. }) => {
                assert_eq!(actual, n);
                assert!(needed > n, "needed {needed} <= actual {n}");
            }
            other => panic!("length {n} of {}: expected Truncated, got {other:?}", bytes.len()),
        }
    }
    let mut longer = bytes.to_vec();
    longer.push(0);
    assert!(parse(&longer).is_err(), "one trailing byte must not parse");
}

// ---------------------------------------------------------------- non-flit TLPs

pub const TLP_MWR32: &str = "40000001 01002a0f 0010c004 deadbeef";
pub const TLP_MRD64_TAG10: &str = "20ac1010 abcd55ff 00000012 34567890";
pub const TLP_CPLD: &str = "4a000001 08000004 01002a04 11223344";
pub const TLP_CFGRD0: &str = "04000001 0000010f 01130110";
pub const TLP_CAS64: &str = "6e000002 01000700 00000001 00000000 00000001 00000002";
pub const TLP_PREFIX_MWR32: &str = "91001234 40000001 01002a0f 0010c004 deadbeef";
pub const TLP_RESERVED_FMT: &str = "ff000001 00000000 11111111 22222222 33333333";
pub const TLP_IOWR: &str = "42000001 0100050f 0000cf8c 80000000";

#[test]
fn tlp_mwr32() {
    let b = hex(TLP_MWR32);
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.kind(), TlpKind::MemWrite);
    assert_eq!(t.dw0.length_dw(), 1);
    assert_eq!(t.requester_id(), Some(0x0100));
    assert_eq!(t.tag(), Some(0x2a));
    match &t.header {
        Header::Memory { req, address } => {
            assert_eq!((req.last_be, req.first_be), (0, 0xf));
            assert_eq!(address.byte_address(), 0x0010_c004);
            assert!(matches!(address, Address::A32(_)));
        }
        h => panic!("{h:?}"),
    }
    assert_eq!(t.payload, hex("deadbeef"));
    assert_eq!(t.to_bytes().unwrap(), b);
    // The constructor builds the same bytes.
    assert_eq!(Tlp::memory_write(0x0100, 0x2a, 0x0010_c004, hex("deadbeef")).unwrap().to_bytes().unwrap(), b);
    truncations(&b, Tlp::parse);
}

#[test]
fn tlp_mrd64_with_10bit_tag() {
    let b = hex(TLP_MRD64_TAG10);
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.kind(), TlpKind::MemRead);
    assert_eq!(t.dw0.tc, 2);
    assert!(t.dw0.attr2);
    assert_eq!(t.dw0.attr, 1);
    assert_eq!(t.dw0.length_dw(), 16);
    assert_eq!(t.dw0.payload_len(), 0);
    assert_eq!(t.tag(), Some(0x355));
    assert_eq!(t.requester_id(), Some(0xabcd));
    match &t.header {
        Header::Memory { address, .. } => assert_eq!(address.byte_address(), 0x12_3456_7890),
        h => panic!("{h:?}"),
    }
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, Tlp::parse);
}

#[test]
fn tlp_completion_with_data() {
    let b = hex(TLP_CPLD);
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.kind(), TlpKind::Completion { locked: false, data: true });
    match &t.header {
        Header::Completion(c) => {
            assert_eq!(c.completer_id, 0x0800);
            assert_eq!(c.status(), CompletionStatus::Success);
            assert_eq!(c.byte_count_bytes(), 4);
            assert_eq!(c.lower_address, 4);
            assert_eq!(c.requester_id, 0x0100);
            assert_eq!(c.tag, 0x2a);
        }
        h => panic!("{h:?}"),
    }
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, Tlp::parse);
}

#[test]
fn tlp_byte_count_zero_means_4096_and_length_zero_means_1024() {
    let mut b = hex("4a000000 08000000 01002a00");
    b.extend(std::iter::repeat_n(0xa5, 4096));
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.dw0.length_dw(), 1024);
    match &t.header {
        Header::Completion(c) => assert_eq!(c.byte_count_bytes(), 4096),
        h => panic!("{h:?}"),
    }
    assert_eq!(t.to_bytes().unwrap(), b);
}

#[test]
fn tlp_config_read() {
    let b = hex(TLP_CFGRD0);
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.kind(), TlpKind::CfgRead { type1: false });
    match &t.header {
        Header::Config { target, .. } => {
            assert_eq!((target.bus, target.device, target.function), (1, 2, 3));
            assert_eq!(target.target_id(), 0x0113);
            assert_eq!(target.byte_offset(), 0x110);
        }
        h => panic!("{h:?}"),
    }
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, Tlp::parse);
}

#[test]
fn tlp_io_write() {
    let b = hex(TLP_IOWR);
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.kind(), TlpKind::IoWrite);
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, Tlp::parse);
}

#[test]
fn tlp_atomics_and_their_lengths() {
    let b = hex(TLP_CAS64);
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.kind(), TlpKind::Cas);
    assert_eq!(t.payload.len(), 8);
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, Tlp::parse);
    // CAS with 1 DW is malformed.
    let bad = hex("6e000001 01000700 00000001 00000000 00000001");
    assert!(matches!(Tlp::parse(&bad), Err(Error::InvalidField { field: "Length", .. })));
    // FetchAdd 3DW with 2 DW is fine, with 4 DW is not.
    assert_eq!(Tlp::parse(&hex("4c000002 01000700 00001000 00000000 00000001")).unwrap().kind(), TlpKind::FetchAdd);
    assert!(Tlp::parse(&hex("4c000004 01000700 00001000 00000000 00000001 00000000 00000001")).is_err());
    // Swap 3DW, 1 DW.
    assert_eq!(Tlp::parse(&hex("4d000001 01000700 00001000 00000001")).unwrap().kind(), TlpKind::Swap);
}

#[test]
fn tlp_prefix() {
    let b = hex(TLP_PREFIX_MWR32);
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.prefixes.len(), 1);
    assert!(t.prefixes[0].end_to_end);
    assert_eq!(t.prefixes[0].subtype, 1);
    assert_eq!(t.prefixes[0].content, 0x1234);
    assert_eq!(t.kind(), TlpKind::MemWrite);
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, Tlp::parse);
    // Five prefixes are refused.
    let mut many = hex("91001234").repeat(5);
    many.extend(hex(TLP_MWR32));
    assert!(matches!(Tlp::parse(&many), Err(Error::InvalidField { field: "Fmt", .. })));
}

#[test]
fn tlp_reserved_fmt_type_round_trips() {
    let b = hex(TLP_RESERVED_FMT);
    let t = Tlp::parse(&b).unwrap();
    assert_eq!(t.kind(), TlpKind::Unknown { fmt: 0b111, tlp_type: 0x1f });
    assert!(matches!(t.header, Header::Raw(ref r) if r.len() == 12));
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, Tlp::parse);
}

#[test]
fn tlp_vendor_defined_message_with_ecrc() {
    let msg = CollectiveMessage {
        header: CommonHeader { version: 1, kind: 3, cc_id: 5, dmu_id: 0x10, p_id: 2, ..Default::default() },
        body: Body::Control(ControlBody { command: 1, p_count: 3, ..Default::default() }),
    };
    let mut t = collective::to_vdm(&msg, 0x0100, 0x0200, 0).unwrap();
    let plain = t.to_bytes().unwrap();
    assert_eq!(&plain[..16], &hex("72000004 0100007f 0200c011 ce030005")[..]);
    match &t.header {
        Header::Message(m) => {
            assert_eq!(m.code(), MessageCode::VendorDefinedType1);
            assert_eq!(m.target_id(), 0x0200);
            assert_eq!(m.vendor_id(), 0xc011);
        }
        h => panic!("{h:?}"),
    }
    assert_eq!(t.kind(), TlpKind::Message { routing: MessageRouting::ById, data: true });
    t.fill_ecrc().unwrap();
    let b = t.to_bytes().unwrap();
    assert_eq!(b.len(), plain.len() + 4);
    let p = Tlp::parse(&b).unwrap();
    p.check_ecrc().unwrap();
    // The variant bits do not change the ECRC; any other bit does.
    let mut poisoned = p.clone();
    poisoned.dw0.ep = true;
    poisoned.check_ecrc().unwrap();
    let mut bad = p.clone();
    bad.payload[0] ^= 1;
    assert!(matches!(bad.check_ecrc(), Err(Error::Checksum { .. })));
    assert_eq!(collective::from_vdm(&p).unwrap(), msg);
    truncations(&b, Tlp::parse);
}

#[test]
fn tlp_emit_checks() {
    let mut t = Tlp::parse(&hex(TLP_MWR32)).unwrap();
    t.payload.push(0);
    assert!(matches!(t.to_bytes(), Err(Error::LengthMismatch { field: "payload", .. })));
    let mut t = Tlp::parse(&hex(TLP_MWR32)).unwrap();
    t.dw0.tc = 9;
    assert!(matches!(t.to_bytes(), Err(Error::FieldOverflow { field: "TC", .. })));
    let mut t = Tlp::parse(&hex(TLP_MWR32)).unwrap();
    t.dw0.td = true;
    assert!(matches!(t.to_bytes(), Err(Error::Inconsistent { .. })));
    let t = Tlp::parse(&hex(TLP_MWR32)).unwrap();
    let mut small = [0u8; 15];
    assert!(matches!(t.emit(&mut small), Err(Error::BufferTooSmall { needed: 16, actual: 15, .. })));
}

#[test]
fn lcrc_of_a_tlp() {
    // Known answers computed outside this crate, with Python's zlib: `zlib.crc32(bytes([0, 7]) + tlp)`
    // (the 16-bit field before the TLP holds the 12-bit sequence number, big-endian); the LFSR of the
    // PCIe specification agrees (tests/crc_oracle.rs).
    let t = Tlp::parse(&hex(TLP_MWR32)).unwrap();
    assert_eq!(t.lcrc(7).unwrap(), 0x766c_d422);
    assert_eq!(t.lcrc(0xfff).unwrap(), 0xb83b_3a4f);
    assert_eq!(t.lcrc(0xf007).unwrap(), 0x766c_d422, "the 4 bits above the sequence number are taken as 0");
    assert_eq!(crc::lcrc(0, &[0; 12]), 0xd1bb_79c7);
}

/// A Local prefix (vendor L0, Type 0x0E) then an End-End one (PASID, Type 0x11) in front of
/// [`TLP_MWR32`] with TD set.
const TLP_PREFIXED_MWR32: &str = "8e00abcd 91000123 40008001 01002a0f 0010c004 deadbeef";

#[test]
fn ecrc_covers_the_end_end_prefixes_and_not_the_local_ones() {
    // Known answers computed outside this crate, with Python's zlib over the covered bytes with the
    // header's Type[0] and EP taken as 1 (PCIe Base Specification §2.7.1: End-End prefixes, header and
    // data; Local prefixes not): `zlib.crc32(bytes.fromhex("91000123 4100c001 01002a0f 0010c004
    // deadbeef"))` = 0x2ea97afb, and without the End-End prefix 0xb1fca5f3.
    let b = hex(TLP_PREFIXED_MWR32);
    let with_digest = |b: &[u8], e: u32| [b, &e.to_le_bytes()[..]].concat();
    let t = Tlp::parse(&with_digest(&b, 0)).unwrap();
    assert_eq!(t.prefixes.len(), 2);
    assert!(!t.prefixes[0].end_to_end && t.prefixes[1].end_to_end);
    assert_eq!(t.compute_ecrc().unwrap(), 0x2ea9_7afb);
    let mut no_local = t.clone();
    no_local.prefixes.remove(0);
    assert_eq!(no_local.compute_ecrc().unwrap(), 0x2ea9_7afb, "a Local prefix is not covered");
    let mut no_prefix = no_local.clone();
    no_prefix.prefixes.clear();
    assert_eq!(no_prefix.compute_ecrc().unwrap(), 0xb1fc_a5f3);
    // The prefix's Type[0] is not a variant bit: PASID (0x11) and TPH (0x10) give different ECRCs.
    let mut tph = no_local.clone();
    tph.prefixes[0].subtype = 0;
    assert_ne!(tph.compute_ecrc().unwrap(), 0x2ea9_7afb);
    // fill_ecrc writes the digest little-endian after the data; a change to the End-End prefix breaks
    // it, a change to the Local prefix does not.
    let mut filled = t.clone();
    filled.fill_ecrc().unwrap();
    let wire = filled.to_bytes().unwrap();
    assert_eq!(wire, with_digest(&b, 0x2ea9_7afb));
    Tlp::parse(&wire).unwrap().check_ecrc().unwrap();
    let mut local_changed = wire.clone();
    local_changed[3] ^= 0x01;
    Tlp::parse(&local_changed).unwrap().check_ecrc().unwrap();
    let mut end_end_changed = wire;
    end_end_changed[7] ^= 0x01;
    assert!(matches!(Tlp::parse(&end_end_changed).unwrap().check_ecrc(), Err(Error::Checksum { .. })));
}

// ---------------------------------------------------------------- flit mode

pub const FLIT_MWR32: &str = "40000001 01001234 0010c000 cafef00d";
pub const FLIT_MRD64_OHC: &str = "20112008 0100a5a5 00000001 00000000 aaaaaaaa eeeeeee1 eeeeeee2 00000000";
pub const FLIT_NOP: &str = "00000000";
pub const FLIT_RESERVED_16: &str = "16000001 11111111 22222222 33333333 44444444 55555555 66666666 77777777";
pub const FLIT_PREFIX_MWR32: &str = "8d000000 40000001 01001234 0010c000 cafef00d";

#[test]
fn flit_mwr32() {
    let b = hex(FLIT_MWR32);
    let t = FlitTlp::parse(&b).unwrap();
    assert_eq!(flit::type_name(t.dw0.tlp_type), "MWr");
    let d = t.dw1().unwrap();
    assert_eq!((d.requester_id, d.ep, d.tag), (0x0100, false, 0x1234));
    assert_eq!(t.address(), Some(0x0010_c000));
    assert_eq!(t.payload, hex("cafef00d"));
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, FlitTlp::parse);
}

#[test]
fn flit_ohc_sizes_are_not_a_popcount() {
    let b = hex(FLIT_MRD64_OHC);
    let t = FlitTlp::parse(&b).unwrap();
    assert_eq!(t.dw0.ohc, 0b10001);
    assert_eq!(t.dw0.ohc_dw(), 3); // A (1) + E2 (2), not popcount 2
    assert_eq!(t.dw0.ts, 1);
    assert_eq!(t.ohc_a(), Some(0xaaaa_aaaa));
    assert_eq!(t.ohc_b(), None);
    assert_eq!(t.ohc_e(), &[0xeeee_eee1, 0xeeee_eee2]);
    assert_eq!(t.address(), Some(0x1_0000_0000));
    assert_eq!(t.dw1().unwrap().tag, 0x25a5);
    assert_eq!(t.to_bytes().unwrap(), b);
    truncations(&b, FlitTlp::parse);
    let mut e = t.clone();
    e.fill_ecrc().unwrap();
    FlitTlp::parse(&e.to_bytes().unwrap()).unwrap().check_ecrc().unwrap();
    // Flit mode has Local prefixes only, and the ECRC does not cover them (§2.7.1).
    let mut prefixed = e.clone();
    prefixed.prefixes = vec![0x8e00_abcd];
    assert_eq!(prefixed.compute_ecrc().unwrap(), e.compute_ecrc().unwrap());
    FlitTlp::parse(&prefixed.to_bytes().unwrap()).unwrap().check_ecrc().unwrap();
    let mut ohc_e4 = t;
    ohc_e4.dw0.ohc = 0b11000;
    assert_eq!(ohc_e4.dw0.ohc_dw(), 4);
}

#[test]
fn flit_nop_reserved_and_prefix() {
    for v in [FLIT_NOP, FLIT_RESERVED_16, FLIT_PREFIX_MWR32] {
        let b = hex(v);
        let t = FlitTlp::parse(&b).unwrap();
        assert_eq!(t.to_bytes().unwrap(), b, "{v}");
        truncations(&b, FlitTlp::parse);
    }
    let t = FlitTlp::parse(&hex(FLIT_RESERVED_16)).unwrap();
    assert_eq!(t.header.len(), 6);
    assert_eq!(t.payload.len(), 4);
    assert_eq!(flit::type_name(0x16), "Reserved");
}

#[test]
fn flit_type_table_spot_checks() {
    assert_eq!(flit::type_info(0x00), (1, false));
    assert_eq!(flit::type_info(0x03), (3, false));
    assert_eq!(flit::type_info(0x20), (4, false));
    assert_eq!(flit::type_info(0x40), (3, true));
    assert_eq!(flit::type_info(0x4a), (3, true));
    assert_eq!(flit::type_info(0x60), (4, true));
    assert_eq!(flit::type_info(0x72), (4, true));
    assert_eq!(flit::type_info(0x8d), (1, false));
    assert_eq!(flit::type_info(0xff), (7, true));
}

// ---------------------------------------------------------------- Portals

pub const PORTALS: &str = "001c002800012345001000010000000000000000000000000000000000000000000000000000000012345678000000800006a405000000000000000100000000000000020000000000000003ffffffffffffffff";
pub const SOFT_PORTALS: &str = "01005e000001 020000000001 88b5 001c002800012345001000010000000000000000000000000000000000000000000000000000000012345678000000800006a405000000000000000100000000000000020000000000000003ffffffffffffffff 1da9b53a";

#[test]
fn portals_reduction_frame() {
    let b = hex(PORTALS);
    let f = ReductionFrame::parse(&b).unwrap();
    assert_eq!(f.tree(), 5);
    assert_eq!(f.reduction_id(), 7);
    assert_eq!(ReductionFrame::multicast_dfa(5, 7).unwrap(), f.dfa);
    assert_eq!(f.sfa, 0x12345);
    assert_eq!(f.vni, 0x10);
    let h = f.header;
    assert_eq!(h.cookie, 0x1234_5678);
    assert_eq!(h.seqno, 5);
    assert!(h.arm);
    assert_eq!(h.op(), ReductionOp::IntSum);
    assert_eq!(h.count, 3);
    assert_eq!(h.resno, 4);
    assert_eq!(h.rc(), ReductionRc::Success);
    assert_eq!(f.int_operands(), [1, 2, 3, -1]);
    assert_eq!(f.to_bytes().unwrap().to_vec(), b);
    truncations(&b, ReductionFrame::parse);
    // libfabric's 49-byte red_pkt is the tail of the frame.
    assert_eq!(&b[inswitch_frames::portals::RED_PKT_OFFSET + 5..][..4], &hex("12345678")[..]);
}

#[test]
fn portals_unknown_opcode_and_rc_round_trip() {
    let mut f = ReductionFrame::parse(&hex(PORTALS)).unwrap();
    f.header.op = 0x3f;
    f.header.rc = 0xf;
    let b = f.to_bytes().unwrap();
    let g = ReductionFrame::parse(&b).unwrap();
    assert_eq!(g.header.op(), ReductionOp::Unknown(0x3f));
    assert_eq!(g.header.rc(), ReductionRc::Unknown(0xf));
    assert_eq!(u8::from(g.header.op()), 0x3f);
    f.header.count = 1 << 20;
    assert!(matches!(f.to_bytes(), Err(Error::FieldOverflow { field: "rt_count", .. })));
}

#[test]
fn portals_minmaxloc_and_repsum_layouts() {
    use inswitch_frames::portals::{MinMaxLoc, RepSum};
    let mut f = ReductionFrame::default();
    let m = MinMaxLoc { min_value: (-5i64) as u64, min_index: 3, max_value: 9, max_index: 7 };
    f.set_minmaxloc(m);
    let b = f.to_bytes().unwrap();
    assert_eq!(&b[52..60], &(-5i64).to_be_bytes());
    assert_eq!(&b[60..68], &3u64.to_be_bytes());
    assert_eq!(&b[68..76], &9u64.to_be_bytes());
    assert_eq!(&b[76..84], &7u64.to_be_bytes());
    assert_eq!(ReductionFrame::parse(&b).unwrap().minmaxloc(), m);
    let r = RepSum { parts: [1, -2, 3, -4], m: -3, overflow_id: 2 };
    f.set_repsum(r).unwrap();
    let g = ReductionFrame::parse(&f.to_bytes().unwrap()).unwrap();
    assert_eq!(g.repsum(), r);
    assert_eq!(g.header.repsum_m, 0xfd);
}

#[test]
fn soft_portals() {
    let b = hex(SOFT_PORTALS);
    let f = SoftPortals::parse(&b).unwrap();
    assert_eq!(f.eth.ethertype, 0x88b5);
    assert_eq!(f.eth.dst, [0x01, 0x00, 0x5e, 0, 0, 1]);
    f.check_fcs().unwrap();
    assert_eq!(f.fcs, 0x3ab5_a91d);
    assert_eq!(f.to_bytes().unwrap().to_vec(), b);
    assert_eq!(SoftPortals::new(f.eth, f.frame).unwrap(), f);
    assert!(SoftPortals::parse_for_port(&b, 0x88b5).is_ok());
    assert!(matches!(SoftPortals::parse_for_port(&b, 0x1234), Err(Error::InvalidField { field: "EtherType", offset: 12, .. })));
    let mut bad = b.clone();
    bad[20] ^= 0x40;
    assert!(matches!(SoftPortals::parse(&bad).unwrap().check_fcs(), Err(Error::Checksum { .. })));
    truncations(&b, SoftPortals::parse);
    // Regression (found by the scapy oracle): an EtherType below 0x0600 is an 802.3 length.
    let mut dot3 = b.clone();
    dot3[12] = 0x05;
    dot3[13] = 0xdc;
    assert!(matches!(SoftPortals::parse(&dot3), Err(Error::InvalidField { field: "EtherType", offset: 12, value: 0x5dc, .. })));
}

// ---------------------------------------------------------------- DLLP

#[test]
fn dllp_ack() {
    let d = Dllp::ack_nak(false, 0x123);
    let mut b = [0u8; 6];
    d.emit(&mut b).unwrap();
    let p = Dllp::parse(&b).unwrap();
    p.check_crc().unwrap();
    assert_eq!(p.seq(), 0x123);
    truncations(&b, Dllp::parse);
}

// ---------------------------------------------------------------- collective messages

fn init_msg() -> CollectiveMessage {
    CollectiveMessage {
        header: CommonHeader { version: 1, kind: 2, non_posted: true, cc_id: 0xabc, dmu_id: 0x0010, p_id: 0xffff, ..Default::default() },
        body: Body::Initialization(InitBody { p_count: 5, operation: 0x14, accumulator: 7, pbv: 0x001f, ..Default::default() }),
    }
}

pub const COLL_INIT: &str = "12800abc 0010ffff 00051400 00000000 00000000 00000007 00000000 00000000 00000000 0000001f";

#[test]
fn collective_initialization() {
    let b = hex(COLL_INIT);
    let m = CollectiveMessage::parse(&b).unwrap();
    assert_eq!(m, init_msg());
    assert_eq!(m.kind(), collective::Kind::Initialization);
    assert_eq!(m.to_bytes().unwrap(), b);
    // PBV at payload bytes 24..40 ([0166]).
    assert_eq!(&b[24..40], &0x001fu128.to_be_bytes());
    truncations(&b, CollectiveMessage::parse);
}

#[test]
fn collective_tid_sits_in_flag_byte_bits_4_3() {
    // Header byte 1 is {NP, EM, RT, TID[1:0], rsvd[2:0]} (docs/frames.md §4; seed 001's 2-bit TID).
    let mut m = init_msg();
    m.header.retry = true;
    m.header.tid = 3;
    let b = m.to_bytes().unwrap();
    assert_eq!(b[1], 0b1011_1000);
    assert_eq!(CollectiveMessage::parse(&b).unwrap(), m);
    for tid in 0..4u8 {
        let mut x = hex(COLL_INIT);
        x[1] = 0x80 | tid << 3;
        assert_eq!(CollectiveMessage::parse(&x).unwrap().header.tid, tid);
    }
    // Bits 2:0 stay reserved and round-trip; a TID wider than 2 bits is refused on emit.
    let mut r = init_msg();
    r.header.reserved_flags = 0b101;
    let b = r.to_bytes().unwrap();
    assert_eq!(b[1], 0x85);
    assert_eq!(CollectiveMessage::parse(&b).unwrap(), r);
    m.header.tid = 4;
    assert!(matches!(m.to_bytes(), Err(Error::FieldOverflow { field: "TID", bits: 2, .. })));
}

#[test]
fn collective_configuration_pads_to_dw() {
    let m = CollectiveMessage {
        header: CommonHeader { version: 1, kind: 1, cc_id: 2, dmu_id: 1, p_id: 0xffff, ..Default::default() },
        body: Body::Configuration {
            fixed: collective::ConfigFixed {
                master_id: 0x0010,
                isl_port: 3,
                validation: 0b111,
                error_reporting: 0b01,
                n_subservient: 1,
                n_devices: 2,
                subservient_timeout: 100,
                master_timeout: 250,
            },
            device_ids: vec![0x0010, 0x0020],
            subservient_ids: vec![0x0300],
        },
    };
    let b = m.to_bytes().unwrap();
    assert_eq!(b.len(), 32); // 24 + 6, padded to 32
    assert_eq!(&b[24..32], &hex("00100020 03000000")[..]);
    assert_eq!(CollectiveMessage::parse(&b).unwrap(), m);
    truncations(&b, CollectiveMessage::parse);
    let mut nonzero_pad = b.clone();
    nonzero_pad[31] = 1;
    assert!(matches!(CollectiveMessage::parse(&nonzero_pad), Err(Error::InvalidField { field: "padding", offset: 31, .. })));
    let t = collective::to_memory_write(&m, 0x0100, 1, 0x0010_0000, 0x10).unwrap();
    match &t.header {
        Header::Memory { address, .. } => assert_eq!(address.byte_address(), 0x0010_c010),
        h => panic!("{h:?}"),
    }
}

#[test]
fn collective_data_and_errors() {
    let resp = CollectiveMessage {
        header: CommonHeader { version: 1, kind: 5, error_mark: true, cc_id: 9, dmu_id: 4, p_id: 1, ..Default::default() },
        body: Body::Data {
            fixed: collective::DataFixed { operation: 0x14, status: 0, contributions: 3, n_operands: 2, completion: 0, reserved: 0 },
            operands: vec![10, u64::MAX],
        },
    };
    let b = resp.to_bytes().unwrap();
    assert_eq!(b.len(), 32);
    assert_eq!(CollectiveMessage::parse(&b).unwrap(), resp);
    truncations(&b, CollectiveMessage::parse);
    let fail = CollectiveMessage {
        header: CommonHeader { version: 1, kind: 8, cc_id: 9, dmu_id: 4, p_id: 1, ..Default::default() },
        body: Body::Error(collective::ErrorBody { reason: 1, attempt: 2, engine_id: 0x300, device_id: 0x31, reserved: 0 }),
    };
    let b = fail.to_bytes().unwrap();
    assert_eq!(b, hex("18000009 00040001 01020300 00310000"));
    assert_eq!(CollectiveMessage::parse(&b).unwrap(), fail);
    // A body that does not match the kind is refused on emit.
    let mut wrong = fail.clone();
    wrong.header.kind = 3;
    assert!(matches!(wrong.to_bytes(), Err(Error::Inconsistent { .. })));
}
