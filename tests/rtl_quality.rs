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

/// The gate synthesises each root once and reports every module under it at the root's parameters: a
/// leaf at two parameter sets gets two rows, a parent's figures are its subtree's, its longest path is
/// taken flattened (through its instances), and nothing is synthesised twice.
#[test]
fn the_synthesis_gate_reports_every_module_under_the_top_from_one_run() {
    let dir = tempdir("synth-tree");
    let write = |m: &str, body: &str| std::fs::write(dir.join(format!("{m}.v")), body).unwrap();
    write("leaf", "module leaf #(parameter W = 4) (input clk, input [W-1:0] d, output reg [W-1:0] q);\n\
                   always @(posedge clk) q <= d + 1'b1;\nendmodule\n");
    // Two leaves in series with no register between them: a path the unflattened `ltp` cannot see.
    write("mid", "module mid (input clk, input [3:0] d, output [3:0] q);\n\
                  wire [3:0] t;\n\
                  leaf #(.W(4)) u0 (.clk(clk), .d(d), .q(t));\n\
                  leaf #(.W(4)) u1 (.clk(clk), .d(t), .q(q));\nendmodule\n");
    write("top", "module top (input clk, input [7:0] d, output [7:0] q, output [3:0] r);\n\
                  leaf #(.W(8)) u (.clk(clk), .d(d), .q(q));\n\
                  mid m (.clk(clk), .d(d[3:0]), .q(r));\nendmodule\n");
    let rows = hdl::synth_all(&dir, 2).expect("yosys must be installed (bash scripts/setup)");
    let names: Vec<&str> = rows.iter().map(|r| r.module.as_str()).collect();
    assert_eq!(names, ["leaf W=4", "leaf W=8", "mid", "top"]);
    let row = |m: &str| rows.iter().find(|r| r.module == m).unwrap();
    for r in &rows {
        assert!(r.passed(), "{}: {}", r.module, r.log);
        assert!(r.longest_path.is_some(), "{}: no longest path", r.module);
    }
    assert_eq!(row("leaf W=4").flip_flops, 4);
    assert_eq!(row("mid").flip_flops, 8, "two W=4 instances");
    assert_eq!(row("top").flip_flops, 16, "8 + the mid's 8");
    assert_eq!(row("mid").cells, Some(2 * row("leaf W=4").cells.unwrap()));
    assert_eq!(row("top").cells, Some(row("leaf W=8").cells.unwrap() + row("mid").cells.unwrap()));
    assert!(row("leaf W=8").longest_path > row("leaf W=4").longest_path, "a wider incrementer is deeper");
    assert_eq!(row("top").longest_path, row("leaf W=8").longest_path, "the top's path is its deepest leaf's");
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
