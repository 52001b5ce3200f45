//! Property tests: parse ∘ emit = identity on valid reprs, emit ∘ parse = identity on frames that parse,
//! and no input panics. Failures are recorded by proptest in `proptest-regressions/roundtrip.txt`
//! (committed) and replayed first on every run.

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader};
use inswitch_frames::encapsulated::{self, Encapsulated};
use inswitch_frames::ethernet::{SoftPortals, SOFT_PORTALS_LEN};
use inswitch_frames::flit::{self, FlitDw0, FlitTlp};
use inswitch_frames::portals::{ReductionFrame, ReductionHeader, FRAME_LEN};
use inswitch_frames::tlp::{
    Address, Address32, Address64, BodyClass, CompletionHeader, ConfigDw2, Dw0, Header, MessageHeader, RequestDw1, Tlp,
    TlpPrefix, FMT_PREFIX,
};
use proptest::prelude::*;

// The byte source the field tables' deku checks use too (src/field.rs).
#[path = "common/xorshift.rs"]
mod xorshift;

fn bits(v: u64, n: u32) -> u64 {
    if n >= 64 { v } else { v & ((1u64 << n) - 1) }
}

/// Deterministic filler so payloads of up to 4 KiB do not have to be shrunk byte by byte.
fn filler(seed: u64, len: usize) -> Vec<u8> {
    xorshift::xorshift_bytes(seed | 1).take(len).collect()
}

fn length_dw() -> impl Strategy<Value = u16> {
    prop_oneof![8 => 1u16..=16, 1 => 0u16..1024]
}

prop_compose! {
    fn dw0()(fmt in prop_oneof![0u8..4, 5u8..8], ty in 0u8..32, r in any::<u64>(), length in length_dw()) -> Dw0 {
        Dw0 {
            fmt, tlp_type: ty,
            t9: r & 1 != 0, tc: bits(r >> 1, 3) as u8, t8: r >> 4 & 1 != 0, attr2: r >> 5 & 1 != 0,
            ln: r >> 6 & 1 != 0, th: r >> 7 & 1 != 0, td: r >> 8 & 1 != 0, ep: r >> 9 & 1 != 0,
            attr: bits(r >> 10, 2) as u8, at: bits(r >> 12, 2) as u8, length,
        }
    }
}

fn header_for(dw0: &Dw0, r: [u64; 3]) -> Header {
    let req = RequestDw1 {
        requester_id: r[0] as u16,
        tag: (r[0] >> 16) as u8,
        last_be: bits(r[0] >> 24, 4) as u8,
        first_be: bits(r[0] >> 28, 4) as u8,
    };
    let four = dw0.header_len() == 16;
    let address = if four {
        Address::A64(Address64 { address_dw: bits(r[1], 62), ph: bits(r[2], 2) as u8 })
    } else {
        Address::A32(Address32 { address_dw: bits(r[1], 30) as u32, ph: bits(r[2], 2) as u8 })
    };
    match dw0.kind().body_class() {
        BodyClass::Memory => Header::Memory { req, address },
        BodyClass::Atomic => Header::Atomic { req, address },
        BodyClass::Io => Header::Io { req, address: Address32 { address_dw: bits(r[1], 30) as u32, ph: bits(r[2], 2) as u8 } },
        BodyClass::Config => Header::Config {
            req,
            target: ConfigDw2 {
                bus: r[1] as u8,
                device: bits(r[1] >> 8, 5) as u8,
                function: bits(r[1] >> 13, 3) as u8,
                reserved_hi: bits(r[1] >> 16, 4) as u8,
                ext_register: bits(r[1] >> 20, 4) as u8,
                register: bits(r[1] >> 24, 6) as u8,
                reserved_lo: bits(r[1] >> 30, 2) as u8,
            },
        },
        BodyClass::Completion => Header::Completion(CompletionHeader {
            completer_id: r[1] as u16,
            status: bits(r[1] >> 16, 3) as u8,
            bcm: r[1] >> 19 & 1 != 0,
            byte_count: bits(r[1] >> 20, 12) as u16,
            requester_id: r[2] as u16,
            tag: (r[2] >> 16) as u8,
            reserved: r[2] >> 24 & 1 != 0,
            lower_address: bits(r[2] >> 25, 7) as u8,
        }),
        BodyClass::Message => Header::Message(MessageHeader {
            requester_id: r[0] as u16,
            tag: (r[0] >> 16) as u8,
            message_code: (r[0] >> 24) as u8,
            dw2: r[1] as u32,
            dw3: r[2] as u32,
        }),
        BodyClass::Raw => Header::Raw(filler(r[0], dw0.header_len() - 4)),
    }
}

prop_compose! {
    fn tlp()(
        prefixes in prop::collection::vec((any::<bool>(), 0u8..16, 0u32..(1 << 24)), 0..=2),
        mut dw0 in dw0(),
        r in any::<[u64; 3]>(),
        sel in any::<usize>(),
        digest in any::<u32>(),
        seed in any::<u64>(),
    ) -> Tlp {
        if let Some(allowed) = dw0.kind().allowed_lengths_dw() {
            dw0.set_length_dw(allowed[sel % allowed.len()]);
        }
        let header = header_for(&dw0, r);
        let payload = filler(seed, dw0.payload_len());
        Tlp {
            prefixes: prefixes.into_iter().map(|(e, s, c)| TlpPrefix { fmt: FMT_PREFIX, end_to_end: e, subtype: s, content: c }).collect(),
            digest: dw0.td.then_some(digest),
            dw0, header, payload,
        }
    }
}

prop_compose! {
    fn flit_tlp()(
        ty in any::<u8>().prop_filter("not a prefix type", |t| !flit::LOCAL_PREFIX_TYPES.contains(t)),
        r in any::<u64>(),
        length in length_dw(),
        prefixes in prop::collection::vec((0x80u32..=0x8f, 0u32..(1 << 24)), 0..=2),
        seed in any::<u64>(),
    ) -> FlitTlp {
        let dw0 = FlitDw0 {
            tlp_type: ty, tc: bits(r, 3) as u8, ohc: bits(r >> 3, 5) as u8, ts: bits(r >> 8, 3) as u8,
            attr: bits(r >> 11, 3) as u8, length,
        };
        let words = |n: usize, s: u64| filler(s, 4 * n).chunks(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]])).collect::<Vec<_>>();
        FlitTlp {
            prefixes: prefixes.into_iter().map(|(t, c)| t << 24 | c).collect(),
            header: words(dw0.base_len() / 4 - 1, seed),
            ohc: words(dw0.ohc_dw(), seed ^ 1),
            payload: filler(seed ^ 2, dw0.payload_len()),
            trailer: words(dw0.trailer_dw(), seed ^ 3),
            dw0,
        }
    }
}

prop_compose! {
    fn reduction_frame()(r in any::<[u64; 8]>(), b in any::<[u8; 12]>(), data in any::<[u64; 4]>()) -> ReductionFrame {
        ReductionFrame {
            dfa: r[0] as u32, sfa: (r[0] >> 32) as u32, vni: r[1] as u16, command: (r[1] >> 16) as u8,
            flags: (r[1] >> 24) as u8, match_bits: r[2], header_data: r[3],
            reserved: [b[0], b[1], b[2], b[3], b[4], b[5], b[6]], idc_pad: [b[7], b[8], b[9], b[10], b[11]],
            header: ReductionHeader {
                cookie: r[4] as u32, reserved: bits(r[4] >> 32, 2) as u8, retry: r[4] >> 34 & 1 != 0,
                repsum_ovflid: bits(r[4] >> 35, 2) as u8, repsum_m: (r[4] >> 37) as u8, rc: bits(r[4] >> 45, 4) as u8,
                resno: bits(r[5], 10) as u16, count: bits(r[5] >> 10, 20) as u32, op: bits(r[5] >> 30, 6) as u8,
                arm: r[5] >> 36 & 1 != 0, seqno: bits(r[5] >> 37, 10) as u16,
            },
            data,
        }
    }
}

prop_compose! {
    fn collective_message()(kind in 0u8..10, r in any::<[u64; 3]>(), n in 0usize..40, m in 0usize..6) -> CollectiveMessage {
        let header = CommonHeader {
            version: 1, kind, non_posted: r[0] & 1 != 0, error_mark: r[0] & 2 != 0, retry: r[0] & 4 != 0,
            tid: bits(r[0] >> 3, 2) as u8, reserved_flags: bits(r[0] >> 5, 3) as u8, reserved: bits(r[0] >> 8, 4) as u8, cc_id: bits(r[0] >> 12, 12) as u16,
            dmu_id: (r[0] >> 24) as u16, p_id: (r[0] >> 40) as u16,
        };
        let f = filler(r[1], 64);
        let body = match collective::Kind::from(kind) {
            collective::Kind::Configuration => {
                let ids: Vec<u16> = f.chunks(2).take(n).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
                let subs: Vec<u16> = ids.iter().take(m).map(|x| x ^ 0x5555).collect();
                Body::Configuration {
                    fixed: collective::ConfigFixed {
                        master_id: r[1] as u16, isl_port: (r[1] >> 16) as u8, validation: (r[1] >> 24) as u8,
                        error_reporting: (r[1] >> 32) as u8, n_subservient: subs.len() as u8, n_devices: ids.len() as u16,
                        subservient_timeout: r[2] as u32, master_timeout: (r[2] >> 32) as u32,
                    },
                    device_ids: ids, subservient_ids: subs,
                }
            }
            collective::Kind::Initialization => Body::Initialization(collective::InitBody {
                p_count: r[1] as u16, operation: (r[1] >> 16) as u8, reserved0: (r[1] >> 24) as u8,
                reserved1: (r[1] >> 32) as u32, accumulator: r[2], pbv: u128::from(r[2]) << 64 | u128::from(r[1]),
            }),
            collective::Kind::Control => Body::Control(collective::ControlBody {
                command: r[1] as u8, reserved0: (r[1] >> 8) as u8, p_count: (r[1] >> 16) as u16, reserved1: (r[1] >> 32) as u32,
            }),
            collective::Kind::Contribution | collective::Kind::Response | collective::Kind::Completion => {
                let ops: Vec<u64> = (0..m as u64).map(|i| r[2].rotate_left(i as u32)).collect();
                Body::Data {
                    fixed: collective::DataFixed {
                        operation: r[1] as u8, status: (r[1] >> 8) as u8, contributions: (r[1] >> 16) as u16,
                        n_operands: ops.len() as u16, completion: (r[1] >> 32) as u8, reserved: (r[1] >> 40) as u8,
                    },
                    operands: ops,
                }
            }
            collective::Kind::Retry | collective::Kind::Failure => Body::Error(collective::ErrorBody {
                reason: r[1] as u8, attempt: (r[1] >> 8) as u8, engine_id: (r[1] >> 16) as u16,
                device_id: (r[1] >> 32) as u16, reserved: (r[1] >> 48) as u16,
            }),
            collective::Kind::Unknown(_) => Body::Raw(filler(r[1], 4 * (n % 8) + 8)[..4 * (n % 8) + 8].to_vec()),
        };
        CollectiveMessage { header, body }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn tlp_parse_emit_identity(t in tlp()) {
        let b = t.to_bytes().unwrap();
        prop_assert_eq!(b.len(), t.buffer_len());
        let p = Tlp::parse(&b).unwrap();
        prop_assert_eq!(&p, &t);
        prop_assert_eq!(p.to_bytes().unwrap(), b);
    }

    #[test]
    fn tlp_mutated_bytes_reemit_identically(t in tlp(), at in any::<usize>(), x in 1u8..=255) {
        let mut b = t.to_bytes().unwrap();
        let i = at % b.len().min(24);
        b[i] ^= x;
        if let Ok(p) = Tlp::parse(&b) {
            prop_assert_eq!(p.to_bytes().unwrap(), b);
        }
    }

    #[test]
    fn tlp_arbitrary_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..80)) {
        if let Ok(p) = Tlp::parse(&b) {
            prop_assert_eq!(p.to_bytes().unwrap(), b);
        }
    }

    #[test]
    fn flit_parse_emit_identity(t in flit_tlp()) {
        let b = t.to_bytes().unwrap();
        let p = FlitTlp::parse(&b).unwrap();
        prop_assert_eq!(&p, &t);
        prop_assert_eq!(p.to_bytes().unwrap(), b);
    }

    #[test]
    fn flit_arbitrary_bytes(b in prop::collection::vec(any::<u8>(), 0..96)) {
        if let Ok(p) = FlitTlp::parse(&b) {
            prop_assert_eq!(p.to_bytes().unwrap(), b);
        }
    }

    #[test]
    fn portals_parse_emit_identity(f in reduction_frame()) {
        let b = f.to_bytes().unwrap();
        prop_assert_eq!(ReductionFrame::parse(&b).unwrap(), f);
    }

    #[test]
    fn portals_every_84_bytes_round_trip(b in any::<[u8; FRAME_LEN]>()) {
        let f = ReductionFrame::parse(&b).unwrap();
        prop_assert_eq!(f.to_bytes().unwrap(), b);
    }

    #[test]
    fn soft_portals_every_frame_round_trips(mut b in any::<[u8; SOFT_PORTALS_LEN]>()) {
        b[12] |= 0x06; // Ethernet II EtherType (>= 0x0600)
        let f = SoftPortals::parse(&b).unwrap();
        prop_assert_eq!(f.to_bytes().unwrap(), b);
        let good = SoftPortals::new(f.eth, f.frame).unwrap();
        prop_assert!(good.check_fcs().is_ok());
    }

    #[test]
    fn collective_parse_emit_identity(m in collective_message()) {
        let b = m.to_bytes().unwrap();
        prop_assert_eq!(b.len() % 4, 0);
        let p = CollectiveMessage::parse(&b).unwrap();
        prop_assert_eq!(&p, &m);
        let t = collective::to_vdm(&m, 1, 2, 3).unwrap();
        let tb = t.to_bytes().unwrap();
        prop_assert_eq!(collective::from_vdm(&Tlp::parse(&tb).unwrap()).unwrap(), m);
    }

    /// Kind 10 (docs/frames.md §4, Encapsulated): an original memory write (3 or 4 DW, non-flit or flit
    /// mode by the descriptor's header form) carrying a kind-1 message's body, under a descriptor; parse ∘
    /// emit is the identity and the body decodes back.
    #[test]
    fn encapsulated_parse_emit_identity(m in collective_message(), r in any::<u64>(), four in any::<bool>(), flit_mode in any::<bool>(), desc in any::<[u8; 3]>()) {
        let mut m = m;
        if !matches!(m.body, Body::Configuration { .. }) {
            return Ok(());
        }
        m.header.kind = 1;
        let addr = if four { r | 1 << 40 } else { r & 0xFFFF_FFFF } & !3;
        let w = Encapsulated::wrap_configuration(&m, flit_mode, (r >> 8) as u16, (r >> 24) as u16 & 0x3FF, addr).unwrap();
        prop_assert_eq!(w.original.form(), if flit_mode { encapsulated::FORM_FLIT } else { encapsulated::FORM_NON_FLIT });
        let e = Encapsulated { payload_type: desc[0], apply: desc[1] & 0x80 != 0, reserved_op: desc[1] & 0x7F, version: desc[2], ..w };
        let b = e.to_bytes().unwrap();
        prop_assert_eq!(b.len(), 8 + 4 + if four { 16 } else { 12 } + e.original.payload().len());
        prop_assert_eq!(b[11], e.original.form());
        let p = Encapsulated::parse(&b).unwrap();
        prop_assert_eq!(&p, &e);
        let Body::Configuration { fixed, device_ids, subservient_ids } = m.body else { unreachable!() };
        let p = Encapsulated { payload_type: encapsulated::TYPE_CONFIGURATION, ..p };
        prop_assert_eq!(p.configuration().unwrap().unwrap(), (fixed, device_ids, subservient_ids));
    }

    #[test]
    fn encapsulated_arbitrary_bytes(b in prop::collection::vec(any::<u8>(), 0..96)) {
        if let Ok(p) = Encapsulated::parse(&b) {
            prop_assert_eq!(p.to_bytes().unwrap(), b);
        }
    }

    #[test]
    fn soft_portals_arbitrary_bytes(b in prop::collection::vec(any::<u8>(), 0..120)) {
        if let Ok(p) = SoftPortals::parse(&b) {
            prop_assert_eq!(p.to_bytes().unwrap().to_vec(), b);
        }
    }

    #[test]
    fn collective_arbitrary_bytes(b in prop::collection::vec(any::<u8>(), 0..96)) {
        if let Ok(p) = CollectiveMessage::parse(&b) {
            prop_assert_eq!(p.to_bytes().unwrap(), b);
        }
    }
}
