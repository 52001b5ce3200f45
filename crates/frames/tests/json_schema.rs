//! `decode --json` output (`inswitch_frames::json::to_json`) checked against the documented JSON Schema
//! `schemas/decode.schema.json` for every frame kind, every TLP header class, every collective message
//! kind, and arbitrary bytes that happen to decode. The validator is the Python reference implementation
//! (`jsonschema`, draft 2020-12) in the repository's venv (`scripts/oracles/json_schema.py`): independent
//! of the Rust code under test, and one validator call per test instead of a Rust validator's crates in
//! every test build (docs/performance.md §The test command's wall time).

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ConfigFixed, ControlBody, DataFixed, ErrorBody, InitBody};
use inswitch_frames::decode::{parse_hex, FrameKind};
use inswitch_frames::dllp::Dllp;
use inswitch_frames::flit::{FlitDw0, FlitTlp};
use inswitch_frames::json::to_json;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::Value;

use crate::oracles::run_oracle;

/// Each document's schema errors (empty: valid), from one run of the validator over all of them.
fn schema_errors(docs: &[Value]) -> Vec<Vec<String>> {
    run_oracle("json_schema.py", docs)
        .into_iter()
        .map(|a| a["errors"].as_array().expect("the validator answers an error list").iter().map(|e| e.as_str().unwrap_or_default().to_string()).collect())
        .collect()
}

/// Asserts that every document is valid, naming the first invalid one and its errors.
fn assert_all_valid(docs: &[Value]) {
    assert!(!docs.is_empty(), "no document to validate");
    for (d, errors) in docs.iter().zip(schema_errors(docs)) {
        assert!(errors.is_empty(), "{d}\nschema errors:\n{}", errors.join("\n"));
    }
}

/// The JSON of one frame, kept in `docs` for validation.
fn check(docs: &mut Vec<Value>, kind: FrameKind, bytes: &[u8]) -> Value {
    let j = to_json(kind, bytes).unwrap_or_else(|e| panic!("{kind:?} {bytes:02x?}: {e}"));
    docs.push(j.clone());
    j
}

fn header(kind: collective::Kind) -> CommonHeader {
    CommonHeader { version: collective::VERSION, kind: kind.into(), tid: 1, cc_id: 0x123, dmu_id: 0x0200, p_id: 3, ..CommonHeader::default() }
}

/// One collective message of every kind.
fn messages() -> Vec<CollectiveMessage> {
    use collective::Kind;
    let data = |k: Kind| CollectiveMessage {
        header: header(k),
        body: Body::Data { fixed: DataFixed { operation: 0x14, status: 0, contributions: 2, n_operands: 2, completion: 3, reserved: 0 }, operands: vec![u64::MAX, 7] },
    };
    vec![
        CollectiveMessage {
            header: header(Kind::Configuration),
            body: Body::Configuration {
                fixed: ConfigFixed { master_id: 0x10, isl_port: 2, n_subservient: 1, n_devices: 2, subservient_timeout: 1000, master_timeout: 2000, ..ConfigFixed::default() },
                device_ids: vec![0x11, 0x12],
                subservient_ids: vec![0x20],
            },
        },
        CollectiveMessage {
            header: CommonHeader { p_id: collective::NO_PARTICIPANT, ..header(Kind::Initialization) },
            body: Body::Initialization(InitBody { p_count: 3, operation: 0x30, accumulator: 1 << 63, pbv: 1 << 127 | 0b101, ..InitBody::default() }),
        },
        CollectiveMessage { header: header(Kind::Control), body: Body::Control(ControlBody { command: 1, p_count: 3, ..ControlBody::default() }) },
        data(Kind::Contribution),
        data(Kind::Response),
        data(Kind::Completion),
        CollectiveMessage { header: header(Kind::Retry), body: Body::Error(ErrorBody { reason: 1, attempt: 2, engine_id: 0x10, device_id: 0x11, reserved: 0 }) },
        CollectiveMessage { header: header(Kind::Failure), body: Body::Error(ErrorBody { reason: 99, ..ErrorBody::default() }) },
        CollectiveMessage { header: CommonHeader { kind: 0xf, ..header(Kind::Control) }, body: Body::Raw(vec![1, 2, 3, 4]) },
    ]
}

#[test]
fn every_frame_kind_matches_the_schema() {
    let mut docs = Vec::new();
    let v = &mut docs;
    // TLPs: memory 32/64, completion with data, config, message by ID and by address, IO, atomic, ECRC.
    let tlps = [
        "40000001 01002a0f 0010c004 deadbeef",
        "60000002 01000500 00000001 00000010 11111111 22222222",
        "4a000001 0100000c 02000500 cafef00d",
        "44000001 01000a0f 02180010 12345678",
        "30000000 0100007e 00000000 00000000",
        "31000000 01000014 00000001 00000000",
        "42000001 0100000f 00000100 01020304",
        "4c000001 0100000f 00001000 00000001",
        "00000000 0100000f 00001000",
    ];
    for h in tlps {
        check(v, FrameKind::Tlp, &parse_hex(h).unwrap());
    }
    // ECRC: the TLP codec computes it.
    let mut t = inswitch_frames::tlp::Tlp::memory_write(0x100, 5, 0x1_0000_0010, vec![1, 2, 3, 4]).unwrap();
    t.dw0.td = true;
    t.digest = Some(t.compute_ecrc().unwrap());
    let j = check(v, FrameKind::Tlp, &t.to_bytes().unwrap());
    assert_eq!(j["tlp"]["ecrc"]["correct"], true);
    // Every collective message kind, alone and inside a vendor-defined message and a flit-mode MsgD.
    for m in messages() {
        let b = m.to_bytes().unwrap();
        let j = check(v, FrameKind::Collective, &b);
        assert_eq!(j["collective"]["cc_id"], 0x123);
        let vdm = collective::to_vdm(&m, 0x0001, 0x0010, 9).unwrap();
        let j = check(v, FrameKind::Tlp, &vdm.to_bytes().unwrap());
        assert_eq!(j["tlp"]["collective"]["kind"], m.kind().name(), "{j}");
        let flit = FlitTlp {
            prefixes: vec![],
            dw0: FlitDw0 { tlp_type: 0x70, tc: 0, ohc: 0, ts: 0, attr: 0, length: (b.len() / 4) as u16 },
            header: vec![0x0001_0009, 0x0000_007f, 0x0010_c011],
            ohc: vec![],
            payload: b.clone(),
            trailer: vec![],
        };
        let j = check(v, FrameKind::FlitTlp, &flit.to_bytes().unwrap());
        assert_eq!(j["flit"]["collective"]["kind"], m.kind().name(), "{j}");
    }
    // DLLPs: Ack, Nak, an unnamed type.
    for d in [Dllp::ack_nak(false, 4095), Dllp::ack_nak(true, 7), Dllp { dllp_type: 0x40, body: [1, 2, 3], crc: 0 }] {
        let mut b = [0u8; 6];
        d.emit(&mut b).unwrap();
        check(v, FrameKind::Dllp, &b);
    }
    // Soft Portals and the bare Portals reduction frame.
    let sp = parse_hex("01005e000001 020000000001 88b5 001c002800012345001000010000000000000000000000000000000000000000000000000000000012345678000000800006a405000000000000000100000000000000020000000000000003ffffffffffffffff 1da9b53a").unwrap();
    check(v, FrameKind::SoftPortals, &sp);
    let j = check(v, FrameKind::Portals, &sp[14..98]);
    assert_eq!(j["portals"]["header"]["cookie"]["magic"], 0x1234);
    assert_all_valid(&docs);
}

#[test]
fn the_schema_can_fail() {
    // The former output (values as display strings) and a wrong type are rejected.
    let old: Value = serde_json::json!({"PCIe TLP (non-flit)": {"Length": "1 (1 DW)"}, "raw": "40"});
    let good = to_json(FrameKind::Tlp, &parse_hex("40000001 01002a0f 0010c004 deadbeef").unwrap()).unwrap();
    let mut bad = good.clone();
    bad["tlp"]["tag"] = Value::String("0x2a".into());
    let errors = schema_errors(&[old, good, bad]);
    assert!(!errors[0].is_empty(), "the former output was accepted");
    assert!(errors[1].is_empty(), "a decoded TLP was rejected: {:?}", errors[1]);
    assert!(errors[2].iter().any(|e| e.contains("/tlp/tag")), "a string tag was accepted or not named: {:?}", errors[2]);
}

/// Arbitrary bytes: whatever decodes has JSON the schema accepts (512 draws from a fixed-seed runner,
/// validated in one run).
#[test]
fn arbitrary_frames_match_the_schema() {
    let kinds = [FrameKind::Tlp, FrameKind::FlitTlp, FrameKind::Dllp, FrameKind::Portals, FrameKind::SoftPortals, FrameKind::Collective];
    let draw = (prop::collection::vec(any::<u8>(), 0..120), 0..kinds.len());
    let mut runner = TestRunner::deterministic();
    let mut docs = Vec::new();
    for _ in 0..512 {
        let (mut b, k) = draw.new_tree(&mut runner).expect("a draw").current();
        let kind = kinds[k];
        if kind == FrameKind::Portals { b.resize(84, 0); }
        if kind == FrameKind::Dllp { b.resize(6, 0); }
        if let Ok(j) = to_json(kind, &b) {
            docs.push(j);
        }
    }
    assert!(docs.len() >= 64, "only {} of 512 draws decoded", docs.len());
    assert_all_valid(&docs);
}
