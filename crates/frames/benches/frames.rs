//! Decode and encode per frame kind, and the same non-flit TLPs decoded by rtlp-lib (parse-only peer).
//! Results: docs/performance.md §Frame codecs. Run: `cargo bench -p inswitch-frames --bench frames`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use inswitch_frames::collective::CollectiveMessage;
use inswitch_frames::decode::parse_hex;
use inswitch_frames::ethernet::SoftPortals;
use inswitch_frames::flit::FlitTlp;
use inswitch_frames::portals::ReductionFrame;
use inswitch_frames::tlp::Tlp;
use inswitch_frames::view::{ReductionView, TlpView};
use rtlp_lib::{new_cmpl_req, new_conf_req, new_mem_req, TlpMode, TlpPacket, TlpType};

/// Non-flit TLPs benchmarked against rtlp-lib: name, hex.
const TLPS: [(&str, &str); 4] = [
    ("mwr32_1dw", "40000001 01002a0f 0010c004 deadbeef"),
    ("mrd64", "20ac1010 abcd55ff 00000012 34567890"),
    ("cpld_1dw", "4a000001 08000004 01002a04 11223344"),
    ("cfgrd0", "04000001 0000010f 01130110"),
];
const FLIT: &str = "20112008 0100a5a5 00000001 00000000 aaaaaaaa eeeeeee1 eeeeeee2 00000000";
const SOFT_PORTALS: &str = "01005e000001 020000000001 88b5 001c002800012345001000010000000000000000000000000000000000000000000000000000000012345678000000800006a405000000000000000100000000000000020000000000000003ffffffffffffffff 1da9b53a";
const COLLECTIVE: &str = "12800abc 0010ffff 00051400 00000000 00000000 00000007 00000000 00000000 00000000 0000001f";

/// The fields every decoder is asked for: requester ID, tag, and address / completer ID / target.
fn rtlp_decode(b: &[u8]) -> u64 {
    let p = TlpPacket::new(b.to_vec(), TlpMode::NonFlit).unwrap();
    let ty = p.tlp_type().unwrap();
    let fmt = p.tlp_format().unwrap();
    match ty {
        TlpType::MemReadReq | TlpType::MemWriteReq => {
            let m = new_mem_req(p.data(), &fmt).unwrap();
            u64::from(m.req_id()) ^ u64::from(m.tag()) ^ m.address()
        }
        TlpType::CplData | TlpType::Cpl => {
            let c = new_cmpl_req(p.data()).unwrap();
            u64::from(c.req_id()) ^ u64::from(c.tag()) ^ u64::from(c.cmpl_id())
        }
        TlpType::ConfType0ReadReq => {
            let c = new_conf_req(p.data()).unwrap();
            u64::from(c.req_id()) ^ u64::from(c.tag()) ^ u64::from(c.reg_nr())
        }
        _ => 0,
    }
}

fn deku_decode(b: &[u8]) -> u64 {
    let t = Tlp::parse(b).unwrap();
    let extra = match &t.header {
        inswitch_frames::tlp::Header::Memory { address, .. } => address.byte_address(),
        inswitch_frames::tlp::Header::Completion(c) => u64::from(c.completer_id),
        inswitch_frames::tlp::Header::Config { target, .. } => u64::from(target.register),
        _ => 0,
    };
    u64::from(t.requester_id().unwrap_or(0)) ^ u64::from(t.tag().unwrap_or(0)) ^ extra
}

fn view_decode(b: &[u8]) -> u64 {
    let v = TlpView::new_checked(b).unwrap();
    let extra = match v.kind() {
        inswitch_frames::tlp::TlpKind::Completion { .. } => u64::from(v.completer_id()),
        inswitch_frames::tlp::TlpKind::CfgRead { .. } => u64::from(b[11] >> 2),
        _ => v.address(),
    };
    u64::from(v.requester_id()) ^ u64::from(v.tag()) ^ extra
}


fn benches(c: &mut Criterion) {

    for (name, hex) in TLPS {
        let b = parse_hex(hex).unwrap();
        let mut g = c.benchmark_group(format!("tlp_decode/{name}"));
        g.bench_function("inswitch_deku", |x| x.iter(|| deku_decode(black_box(&b))));
        g.bench_function("inswitch_view", |x| x.iter(|| view_decode(black_box(&b))));
        g.bench_function("inswitch_parse_fast_repr", |x| x.iter(|| Tlp::parse_fast(black_box(&b)).unwrap()));
        g.bench_function("rtlp_lib", |x| x.iter(|| rtlp_decode(black_box(&b))));
        g.finish();
        let t = Tlp::parse(&b).unwrap();
        let mut out = vec![0u8; b.len()];
        c.bench_function(&format!("tlp_encode/{name}"), |x| x.iter(|| black_box(&t).emit(&mut out).unwrap()));
    }
    let f = parse_hex(FLIT).unwrap();
    c.bench_function("flit_decode", |x| x.iter(|| FlitTlp::parse(black_box(&f)).unwrap()));
    let ft = FlitTlp::parse(&f).unwrap();
    let mut out = vec![0u8; f.len()];
    c.bench_function("flit_encode", |x| x.iter(|| black_box(&ft).emit(&mut out).unwrap()));

    let sp = parse_hex(SOFT_PORTALS).unwrap();
    let portals = sp[14..98].to_vec();
    c.bench_function("portals_decode/deku", |x| x.iter(|| ReductionFrame::parse(black_box(&portals)).unwrap()));
    c.bench_function("portals_decode/view", |x| {
        x.iter(|| {
            let v = ReductionView::new_checked(black_box(&portals[..])).unwrap();
            (v.seqno(), v.op(), v.count(), v.cookie(), v.operand(0))
        })
    });
    let pf = ReductionFrame::parse(&portals).unwrap();
    let mut out = [0u8; 84];
    c.bench_function("portals_encode", |x| x.iter(|| black_box(&pf).emit(&mut out).unwrap()));
    c.bench_function("soft_portals_decode", |x| x.iter(|| SoftPortals::parse(black_box(&sp)).unwrap()));
    let s = SoftPortals::parse(&sp).unwrap();
    c.bench_function("soft_portals_encode_with_fcs", |x| {
        x.iter(|| SoftPortals::new(black_box(s.eth), black_box(s.frame)).unwrap().to_bytes().unwrap())
    });
    let cm = parse_hex(COLLECTIVE).unwrap();
    c.bench_function("collective_decode", |x| x.iter(|| CollectiveMessage::parse(black_box(&cm)).unwrap()));
    let m = CollectiveMessage::parse(&cm).unwrap();
    c.bench_function("collective_encode", |x| x.iter(|| black_box(&m).to_bytes().unwrap()));
}

criterion_group! {
    name = frames;
    config = Criterion::default().warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(30);
    targets = benches
}
criterion_main!(frames);
