//! Dllp: parse; on success re-emit (must give the same bytes), re-parse (same repr), render the
//! decode text. No input may panic.
#![no_main]
use inswitch_frames::decode::{render_text, FrameKind};
use inswitch_frames::dllp::Dllp;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(data);
    // The same input read as a structure-aware frame (an arbitrary Dllp, emitted, then corrupted).
    if let Some(b) = inswitch_fuzz::structured(data, |r: &Dllp| { let mut b = [0u8; 64]; r.emit(&mut b).ok().map(|n| b[..n].to_vec()) }) {
        check(&b);
    }
});

fn check(data: &[u8]) {
    if let Ok(f) = Dllp::parse(data) {
        let mut b = vec![0u8; data.len()];
        let n = f.emit(&mut b).expect("a parsed frame must emit");
        assert_eq!(n, data.len());
        assert_eq!(&b[..], data);
        assert_eq!(Dllp::parse(&b).expect("re-parse"), f);
        render_text(FrameKind::Dllp, data).expect("decode of a valid frame");
    }
}
