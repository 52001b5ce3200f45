//! The `inswitch` command line: exit statuses and the outputs users script against.

use std::process::Command;

fn inswitch(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_inswitch")).args(args).output().expect("run inswitch");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn cosim_matches_and_says_so() {
    let (code, out, err) = inswitch(&["cosim", "--block", "output_queue", "--width", "64", "--seeds", "1", "--cycles", "20000", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("cosim: matched 20000 cycles, 1 targets x 1 seeds, 0 mismatches"), "{out}");
    assert!(out.contains("output_queue_w64") && !out.contains("output_queue_w256"), "{out}");
}

#[test]
fn cosim_rejects_an_unknown_block() {
    let (code, _, err) = inswitch(&["cosim", "--block", "no_such_block"]);
    assert_ne!(code, 0);
    assert!(err.contains("output_queue"), "the error lists the blocks: {err}");
}

#[test]
fn reduce_prints_bit_exact_results() {
    let (code, out, err) = inswitch(&["reduce", "--op", "int_sum", "5", "-7"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["data"][0], 0xffff_ffff_ffff_fffeu64, "{out}");
    assert_eq!(v["values"][0], -2, "{out}");
    assert_eq!(v["rc"], "success", "{out}");
    let (code, _, err) = inswitch(&["reduce", "--op", "no_such_op", "1", "2"]);
    assert_ne!(code, 0);
    assert!(err.contains("no_such_op"), "{err}");
}

#[test]
fn reduce_knows_flt_minmaxloc_at_0x22() {
    // 002 (42): MINMAXLOC on floating point; libfabric's first CXI table put it at 0x22. Equal minima
    // keep the lower index (2), a NaN wins the maximum with its index (9).
    for op in ["FLT_MINMAXLOC", "0x22"] {
        let (code, out, err) = inswitch(&["reduce", "--op", op, "1.0", "0x7", "2.0", "0x3", "1.0", "0x2", "nan", "0x9"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("reduce prints JSON");
        assert_eq!(v["op"], "flt_minmaxloc", "{out}");
        assert_eq!(v["op_code"], 0x22, "{out}");
        assert_eq!(v["rc"], "success", "{out}");
        // Minimum 1.0 (0x3ff0...) at index 2, maximum the default NaN (0x7ff8...) at index 9.
        assert_eq!(v["data"], serde_json::json!([0x3ff0_0000_0000_0000u64, 2, 0x7ff8_0000_0000_0000u64, 9]), "{out}");
    }
}

#[test]
fn decode_reports_a_truncated_frame_and_fails() {
    let (code, _, err) = inswitch(&["decode", "--kind", "portals", "00"]);
    assert_ne!(code, 0);
    assert!(err.contains("need 84 bytes, have 1"), "{err}");
}

/// Issue 15 item 3: `decode --kind portals` shows the reduction header as current libfabric lays it out
/// (`prov/cxi`, commit 52b3927e9: the retry flag moved from cookie bit 31 to header bit 61, the cookie's
/// magic widened to bits 31-16). The frame is written out here: 84 bytes, zero but for the header's first
/// five bytes (bytes 40-44, big-endian): cookie 0xBEEF_0001 and bit 61 set. Under the old layout the
/// magic would read 0x3EEF (15 bits) and the cookie's bit 31 would be the retry flag.
#[test]
fn decode_shows_libfabrics_16_bit_magic_and_the_retry_bit_61() {
    let mut frame = [0u8; 84];
    frame[40..44].copy_from_slice(&[0xBE, 0xEF, 0x00, 0x01]);
    frame[44] = 0x20; // header bit 61: bit 5 of the header's fifth byte (bits 63-56)
    let hex: String = frame.iter().map(|b| format!("{b:02x}")).collect();
    let (code, out, err) = inswitch(&["decode", "--kind", "portals", &hex]);
    assert_eq!(code, 0, "{err}");
    for line in ["rt_cookie: 0xbeef0001", "magic (bits 31-16): 0xbeef", "mcast_id (bits 12-0): 1", "retry (bit 61): 1 (set)"] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
}
