//! The PCIe CRCs (LCRC, ECRC non-flit and flit, DLLP CRC-16) against references that share no code with
//! this crate, run in the repository's Python venv by `scripts/oracles/crc_oracle.py`: C zlib's
//! `crc32` and a bit-serial LFSR written from the PCIe Base Specification's description (polynomial
//! 04C1_1DB7h, seed FFFF_FFFFh, bit 0 of each byte first, remainder complemented and bit-reversed),
//! and cocotbext-pcie's DLLP packer / CRC-16 (docs/frames.md §7).
//! This test FAILS (it does not skip) when `.venv` is missing: run `bash scripts/setup`.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use inswitch_frames::crc;
use inswitch_frames::dllp::Dllp;
use inswitch_frames::tlp::Tlp;
use serde_json::{json, Value};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the CRC oracle on JSON lines; returns its answers.
fn run_oracle(lines: &[Value]) -> Vec<Value> {
    let py = repo_root().join(".venv/bin/python");
    assert!(py.exists(), "\n\nPython oracle venv missing at {}.\nRun `bash scripts/setup`.\n", py.display());
    let input = std::env::temp_dir().join(format!("inswitch-crc-oracle-{}", std::process::id()));
    let mut f = std::fs::File::create(&input).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    drop(f);
    let out = Command::new(&py)
        .arg(repo_root().join("scripts/oracles/crc_oracle.py"))
        .arg(&input)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", py.display()));
    let _ = std::fs::remove_file(&input);
    assert!(out.status.success(), "crc_oracle.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let answers: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), lines.len());
    answers
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn lcrc_ecrc_and_dllp_crc_agree_with_zlib_the_spec_lfsr_and_cocotbext_pcie() {
    let mut x: u64 = 0x0c5c_0de5_1eed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut lines = Vec::new();
    // Known TLPs (a 3DW MWr with data, a 4DW header) and random byte strings of every length class.
    for (seq, t) in [(7u16, "40000001 01002a0f 0010c004 deadbeef"), (0xfff, "20000000 01000a0f 00000001 0010c000")] {
        let tlp = Tlp::parse(&unhex(t)).unwrap();
        lines.push(json!({"kind": "lcrc", "seq": seq, "hex": hex(&tlp.to_bytes().unwrap()), "value": tlp.lcrc(seq).unwrap()}));
    }
    for n in 0..300usize {
        let len = [0, 1, 3, 4, 12, 16, 20][n % 7] + (next() % 64) as usize * usize::from(n % 3 == 0);
        let b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let seq = next() as u16; // bits above the 12-bit sequence number must be ignored
        lines.push(json!({"kind": "lcrc", "seq": seq, "hex": hex(&b), "value": crc::lcrc(seq, &b)}));
        lines.push(json!({"kind": "ecrc", "flit": false, "hex": hex(&b), "value": crc::ecrc(&b)}));
        lines.push(json!({"kind": "ecrc", "flit": true, "hex": hex(&b), "value": crc::flit_ecrc(&b)}));
        let body = (next() as u32).to_le_bytes();
        lines.push(json!({"kind": "dllp_body", "hex": hex(&body), "value": crc::dllp_crc16(&body)}));
        let (nak, s) = (next() & 1 != 0, (next() & 0xfff) as u16);
        let mut out = [0u8; 6];
        Dllp::ack_nak(nak, s).emit(&mut out).unwrap();
        lines.push(json!({"kind": "dllp", "nak": nak, "seq": s, "hex": hex(&out)}));
    }
    let answers = run_oracle(&lines);
    let bad: Vec<String> = answers
        .iter()
        .zip(&lines)
        .filter(|(a, _)| !a["errors"].as_array().unwrap().is_empty())
        .map(|(a, l)| format!("{l} -> {}", a["errors"]))
        .collect();
    assert!(bad.is_empty(), "{} of {} disagree:\n{}", bad.len(), lines.len(), bad[..bad.len().min(10)].join("\n"));
}
