//! ReductionFrame: parse; on success re-emit (must give the same bytes), re-parse (same repr), render the
//! decode text. No input may panic.
#![no_main]
use inswitch_frames::decode::{render_text, FrameKind};
use inswitch_frames::portals::ReductionFrame;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(data);
    // The same input read as a structure-aware frame (an arbitrary ReductionFrame, emitted, then corrupted).
    if let Some(b) = inswitch_fuzz::structured(data, |r: &ReductionFrame| r.to_bytes().ok().map(|b| b.to_vec())) {
        check(&b);
    }
});

fn check(data: &[u8]) {
    if let Ok(f) = ReductionFrame::parse(data) {
        let mut b = vec![0u8; data.len()];
        let n = f.emit(&mut b).expect("a parsed frame must emit");
        assert_eq!(n, data.len());
        assert_eq!(&b[..], data);
        assert_eq!(ReductionFrame::parse(&b).expect("re-parse"), f);
        render_text(FrameKind::Portals, data).expect("decode of a valid frame");
    }
}
