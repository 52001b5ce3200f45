//! Non-flit TLP: parse; on success re-emit (must give the same bytes), re-parse (same repr), check the
//! zero-copy view agrees on validity, and render the decode text.
#![no_main]
use inswitch_frames::decode::{render_text, FrameKind};
use inswitch_frames::tlp::Tlp;
use inswitch_frames::view::TlpView;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(data);
    // The same input read as a structure-aware frame (an arbitrary Tlp, emitted, then corrupted).
    if let Some(b) = inswitch_fuzz::structured(data, |r: &Tlp| r.to_bytes().ok()) {
        check(&b);
    }
});

fn check(data: &[u8]) {
    let parsed = Tlp::parse(data);
    if let Ok(t) = &parsed {
        let b = t.to_bytes().expect("a parsed TLP must emit");
        assert_eq!(b, data);
        assert_eq!(&Tlp::parse(&b).expect("re-parse"), t);
        let _ = t.check_ecrc();
        render_text(FrameKind::Tlp, data).expect("decode of a valid TLP");
    }
    if t_has_no_prefix(data) {
        assert_eq!(TlpView::new_checked(data).is_ok(), parsed.is_ok());
    }
    match (&parsed, Tlp::parse_fast(data)) {
        (Ok(a), Ok(b)) => assert_eq!(a, &b),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("parse {a:?} vs parse_fast {b:?}"),
    }
    let _ = Tlp::parse_prefix(data);
}

fn t_has_no_prefix(data: &[u8]) -> bool {
    data.first().map(|b| b >> 5 != 0b100).unwrap_or(true)
}
