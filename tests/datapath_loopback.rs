//! Model-level loopback: a message built into a frame by the frame builder and fed through the input
//! checker comes back as the same message (cut to what its family carries), for both families and every
//! kind the builder emits. The two blocks are each checked cycle-exact against their RTL elsewhere; this
//! checks that they are inverses of each other.

use inswitch::blocks::frame_builder::canonical;
use inswitch_model::input_checker::{CheckerParams, InputChecker, InputCheckerIn, PIPELINE_EDGES};
use inswitch_model::frame_builder::{build, BuilderConfig};
use inswitch_model::message::{CollectiveMsg, Family, Kind};
use inswitch_model::{Block, Wide};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn builder_then_checker_gives_the_message_back() {
    let mut r = ChaCha8Rng::seed_from_u64(6);
    let cfg = BuilderConfig { engine_id: 0x0010, vendor_id: 0xC011, ethertype: 0x88B5, src_mac: 0x0200_0000_0001, dst_mac: 0x0200_0000_0002 };
    let mut checker = InputChecker::new(CheckerParams::default()).unwrap();
    let ready = |i: InputCheckerIn| InputCheckerIn {
        m_reg_ready: true,
        m_msg_ready: true,
        cfg_engine_id: 0x0010,
        cfg_ethertype: 0x88B5,
        cfg_vendor_id: 0xC011,
        cfg_validation: 0x7,
        ..i
    };
    checker.step(&ready(InputCheckerIn { rst: true, ..Default::default() }));
    let mut checked = 0;
    for n in 0..5000u16 {
        let portals = r.random_bool(0.5);
        let m = CollectiveMsg {
            kind: Kind(if portals { [4, 9][r.random_range(0..2)] } else { r.random_range(2..=8) }),
            family: if portals { Family::Portals } else { Family::Tlp },
            ctx: r.random(),
            src: r.random(),
            // The checker takes TLPs addressed to its engine only.
            dst: if portals { r.random() } else { 0x0010 },
            pid: r.random(),
            dmu_id: r.random(),
            count: r.random_range(1..1 << 20),
            code: r.random(),
            posted: r.random(),
            error: r.random(),
            vni: r.random(),
            cookie: r.random(),
            seqno: r.random(),
            resno: r.random(),
            retry: r.random(),
            op: [0x00, 0x14, 0x28, 0x30][r.random_range(0..4)],
            rc: [0, 1, 8][r.random_range(0..3)],
            repsum_m: r.random(),
            repsum_oflow_id: r.random(),
            data: [r.random(), r.random(), r.random(), r.random()],
            pbv: r.random(),
            ..Default::default()
        }
        .masked();
        let frame = build(&m, &cfg, n & 0xFFF).expect("a kind the builder emits");
        let nb = frame.len().div_ceil(32);
        let mut out = None;
        // The beats, then idle cycles until the checker's pipeline has put the verdict out.
        for b in 0..nb + PIPELINE_EDGES {
            let mut i = InputCheckerIn::default();
            if b < nb {
                let chunk = &frame[32 * b..(32 * b + 32).min(frame.len())];
                let mut d = Wide::ZERO;
                for (k, &x) in chunk.iter().enumerate() {
                    d.set_byte(k, x);
                }
                i = InputCheckerIn { s_axis_tdata: d, s_axis_tkeep: (1u64 << chunk.len()) - 1, s_axis_tvalid: true, s_axis_tlast: b + 1 == nb, s_axis_tuser: u16::from(portals) << 8, ..i };
            }
            let o = checker.step(&ready(i));
            if o.m_msg_valid {
                out = Some(o.msg());
            }
        }
        let got = out.unwrap_or_else(|| panic!("message {n} {m:x?} was not accepted back"));
        assert_eq!(got, canonical(&m, 0x0010), "message {n}");
        checked += 1;
    }
    assert_eq!(checked, 5000);
}
