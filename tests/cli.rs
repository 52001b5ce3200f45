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
