//! `inswitch vectors`: JSON lines with a versioned header, and a `$readmemh` file whose generated replay
//! bench passes against rtl/output_queue.v under Verilator and fails against a one-line change of it;
//! the same bench under Icarus Verilog (no DPI) passes and fails on one altered vector.


use std::path::Path;
use std::process::Command;

use crate::common::sv::*;

fn vectors(out: &Path, format: &str, cycles: u64) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_inswitch"))
        .args(["vectors", "--block", "output_queue", "--param", "DATA_WIDTH=64", "--seed", "5", "--format", format])
        .args(["--cycles", &cycles.to_string(), "--out", &out.display().to_string()])
        .output()
        .unwrap();
    let log = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{log}");
    log
}

#[test]
fn jsonl_has_a_versioned_header_and_one_line_per_cycle() {
    let dir = work("vectors_jsonl");
    vectors(&dir, "jsonl", 50);
    let text = std::fs::read_to_string(dir.join("output_queue.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 51);
    let h = &lines[0];
    assert_eq!((h["format"].as_str(), h["version"].as_u64(), h["block"].as_str(), h["seed"].as_u64()), (Some("inswitch-vectors"), Some(1), Some("output_queue"), Some(5)));
    assert_eq!(h["params"]["DATA_WIDTH"].as_i64(), Some(64));
    assert_eq!(lines[1]["in"]["rst"].as_str(), Some("0x1"));
    assert_eq!(lines[1]["in"]["s_axis_tdata"].as_str().unwrap().len(), 2 + 16);
    assert_eq!(lines[50]["cycle"].as_u64(), Some(49));
}

#[test]
fn hex_vectors_replay_against_the_rtl_and_catch_a_change() {
    const CYCLES: u64 = 20_000;
    for (name, altered) in [("vectors_hex", false), ("vectors_hex_altered", true)] {
        let dir = work(name);
        vectors(&dir, "hex", CYCLES);
        let hex = std::fs::read_to_string(dir.join("output_queue.hex")).unwrap();
        assert!(hex.starts_with("// inswitch-vectors format 1, inswitch "), "{}", &hex[..80]);
        let rtl = if altered {
            altered_rtl(&dir, "output_queue", "assign s_axis_tready = !fifo_full && !rst;", "assign s_axis_tready = !fifo_full;")
        } else {
            root().join("rtl")
        };
        let sv = dir.join("inswitch_output_queue_replay.sv");
        let o = Command::new("verilator")
            .args(["--binary", "-j", "2", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", "inswitch_output_queue_replay"])
            .arg("-y")
            .arg(&rtl)
            .arg("-Mdir")
            .arg(dir.join("obj"))
            .arg(rtl.join("output_queue.v"))
            .arg(&sv)
            .output()
            .expect("verilator is required (bash scripts/setup)");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let exe = dir.join("obj/Vinswitch_output_queue_replay");
        let (ok, log) = run(&exe, &[&format!("+vectors={}", dir.join("output_queue.hex").display())]);
        if altered {
            assert!(!ok && log.contains("MISMATCH at cycle") && log.contains("port s_axis_tready"), "{log}");
        } else {
            assert!(ok && log.contains(&format!("REPLAY DONE: {CYCLES} cycles, 0 mismatches")), "{log}");
        }
    }
}

#[test]
fn hex_vectors_replay_under_icarus_and_catch_one_altered_vector() {
    const CYCLES: u64 = 3_000;
    // Cycle whose expected stat_route_miss (the last output: bit 0 of the line) is flipped.
    const ALTERED: usize = 1_234;
    let dir = work("vectors_icarus");
    vectors(&dir, "hex", CYCLES);
    let rtl = root().join("rtl");
    let vvp = dir.join("replay.vvp");
    let o = Command::new("iverilog")
        .args(["-g2012", "-o"])
        .arg(&vvp)
        .arg("-y")
        .arg(&rtl)
        .arg(rtl.join("output_queue.v"))
        .arg(dir.join("inswitch_output_queue_replay.sv"))
        .output()
        .expect("iverilog (Icarus Verilog) is required: bash scripts/setup installs it");
    assert!(o.status.success(), "iverilog failed:\n{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let replay = |hex: &Path| {
        let o = Command::new("vvp").arg("-n").arg(&vvp).arg(format!("+vectors={}", hex.display())).output().expect("vvp");
        (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
    };
    let good = dir.join("output_queue.hex");
    let (ok, log) = replay(&good);
    assert!(ok && log.contains(&format!("REPLAY DONE: {CYCLES} cycles, 0 mismatches")), "{log}");

    // One vector altered: the expected stat_route_miss of one cycle flipped.
    let text = std::fs::read_to_string(&good).unwrap();
    let header = text.lines().take_while(|l| l.starts_with("//")).count();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let line = &mut lines[header + ALTERED];
    let last = line.pop().unwrap().to_digit(16).unwrap();
    line.push(char::from_digit(last ^ 1, 16).unwrap());
    let bad = dir.join("altered.hex");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let (ok, log) = replay(&bad);
    assert!(!ok, "the altered vector passed:\n{log}");
    assert!(log.contains(&format!("MISMATCH at cycle {ALTERED} port stat_route_miss")), "{log}");
    assert!(log.contains("REPLAY DONE: 3000 cycles, 1 mismatches"), "{log}");
}
