//! CollectiveMessage: parse; on success re-emit (must give the same bytes), re-parse (same repr), render the
//! decode text; the same for the kind-10 encapsulated packet's codec (docs/frames.md §4). No input may panic.
#![no_main]
use inswitch_frames::decode::{render_text, FrameKind};
use inswitch_frames::collective::CollectiveMessage;
use inswitch_frames::encapsulated::Encapsulated;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(data);
    // The same input read as a structure-aware frame (an arbitrary CollectiveMessage, emitted, then corrupted).
    if let Some(b) = inswitch_fuzz::structured(data, |r: &CollectiveMessage| r.to_bytes().ok()) {
        check(&b);
    }
});

fn check(data: &[u8]) {
    if let Ok(f) = CollectiveMessage::parse(data) {
        let mut b = vec![0u8; data.len()];
        let n = f.emit(&mut b).expect("a parsed frame must emit");
        assert_eq!(n, data.len());
        assert_eq!(&b[..], data);
        assert_eq!(CollectiveMessage::parse(&b).expect("re-parse"), f);
        render_text(FrameKind::Collective, data).expect("decode of a valid frame");
    }
    if let Ok(e) = Encapsulated::parse(data) {
        let b = e.to_bytes().expect("a parsed encapsulated packet must emit");
        assert_eq!(&b[..], data);
        assert_eq!(Encapsulated::parse(&b).expect("re-parse"), e);
        // The configuration body, when the type says so: decoded or a typed error, never a panic.
        let _ = e.configuration();
    }
}
