//! The CPU's lane-shared reduction unit (`rtl/reduce_shared.v`) against the full `rtl/reduce_unit.v`
//! (itself in lockstep with `ReduceUnit`, tests/cosim_reduce_unit.rs) under the contract the CPU keeps:
//! each operand pair held from `in_valid` to the result (docs/blocks/reduce_unit.md §The CPU's lane-shared
//! unit). Icarus Verilog runs both side by side (tests/fixtures/reduce_shared_tb.v) and compares every
//! output in every cycle; a copy with the MINMAXLOC tie rule broken must be caught.

use std::path::{Path, PathBuf};
use std::process::Command;

const PAIRS: u32 = 1500;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles the bench over `shared` (a copy of rtl/reduce_shared.v) and the real submodules, runs it and
/// returns its output.
fn run(dir: &Path, shared: &Path, seed: u32) -> String {
    let rtl = root().join("rtl");
    let vvp = dir.join("bench.vvp");
    let mut cmd = Command::new("iverilog");
    cmd.args(["-g2005", "-o"]).arg(&vvp).arg("-I").arg(&rtl).arg(root().join("tests/fixtures/reduce_shared_tb.v")).arg(shared);
    for m in ["reduce_unit", "reduce_fadd", "reduce_fminmax", "reduce_repsum"] {
        cmd.arg(rtl.join(format!("{m}.v")));
    }
    let o = cmd.output().expect("iverilog (Icarus Verilog) is required: bash scripts/setup installs it");
    assert!(o.status.success(), "iverilog failed:\n{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let o = Command::new("vvp").arg("-n").arg(&vvp).arg(format!("+pairs={PAIRS}")).arg(format!("+seed={seed}")).output().expect("vvp");
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn work(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_lane_shared_unit_matches_reduce_unit_on_held_pairs() {
    let dir = work("reduce_shared");
    let log = run(&dir, &root().join("rtl/reduce_shared.v"), 7);
    assert!(log.contains(&format!("DONE results={PAIRS} errs=0")), "{log}");
}

#[test]
fn a_broken_minmaxloc_tie_rule_in_the_shared_unit_is_caught() {
    let dir = work("reduce_shared_planted");
    let text = std::fs::read_to_string(root().join("rtl/reduce_shared.v")).unwrap();
    let find = "(hold_eq && p2_b_ult)";
    assert_eq!(text.matches(find).count(), 1, "the planted text is gone from rtl/reduce_shared.v");
    let planted = dir.join("reduce_shared.v");
    std::fs::write(&planted, text.replace(find, "hold_eq")).unwrap();
    let log = run(&dir, &planted, 7);
    assert!(log.contains("MISMATCH") && !log.contains("errs=0"), "{log}");
}
