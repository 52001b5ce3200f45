//! RTL quality gates: every module lint-clean under `verilator --lint-only -Wall`; every module
//! synthesises with Yosys with no latch; and the latch gate itself rejects a latch.

use std::path::Path;

use inswitch::hdl;

fn rtl() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/rtl"))
}

#[test]
fn every_rtl_module_is_lint_clean() {
    let results = hdl::lint_all(rtl()).expect("verilator must be installed (bash scripts/setup)");
    assert!(results.iter().any(|r| r.module == "output_queue"));
    for r in results {
        assert!(r.clean, "{} {:?} is not lint-clean:\n{}", r.module, r.params, r.messages);
    }
}

#[test]
fn lint_reports_a_width_bug() {
    let dir = tempdir("lint");
    std::fs::write(dir.join("narrow.v"), "`default_nettype none\nmodule narrow(input wire [3:0] a, output wire b);\nassign b = a;\nendmodule\n").unwrap();
    let r = hdl::lint(&dir, "narrow", &[]).expect("verilator must be installed");
    assert!(!r.clean && r.messages.contains("WIDTH"), "{}", r.messages);
}

#[test]
fn the_synthesis_gate_rejects_a_latch() {
    let dir = tempdir("synth");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/latch_example.v"), dir.join("latch_example.v")).unwrap();
    let r = hdl::synth(&dir, "latch_example").expect("yosys must be installed (bash scripts/setup)");
    assert!(r.latches > 0, "latch not detected:\n{}", r.log);
    assert!(!r.passed());
}

#[test]
fn the_output_queue_synthesises_without_latches() {
    let r = hdl::synth(rtl(), "output_queue").expect("yosys must be installed (bash scripts/setup)");
    assert!(r.passed(), "{}", r.log);
    assert!(r.flip_flops > 0 && r.longest_path.is_some());
}

#[test]
fn the_completion_builder_and_register_space_synthesise_without_latches() {
    for m in ["completion_builder", "register_space"] {
        let r = hdl::synth(rtl(), m).expect("yosys must be installed (bash scripts/setup)");
        assert!(r.passed(), "{m}: {}", r.log);
        println!("{m}: {:?} cells, {} flip-flops, longest path {:?}", r.cells, r.flip_flops, r.longest_path);
    }
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
