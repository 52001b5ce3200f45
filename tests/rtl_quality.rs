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

/// The FPGA mapping gate (`inswitch synth --target xilinx`, issue 19 item 3) on fixtures: a RAM-shaped
/// array maps to one block RAM and passes the table check, a searched table with a reset loop stays in
/// flip-flops and fails it, a registered 64-bit adder is as deep as the carry-chain rule says, and a
/// chain of 32 dependent muxes is deeper than the 8-level goal (and fails the command); the
/// top's figures are its blocks' sums and its depth its deepest block's.
#[test]
fn the_fpga_gate_reports_rams_flip_flop_tables_and_lut_depth() {
    use inswitch::fpga::{self, Placement, TableSpec};
    let dir = tempdir("fpga");
    let write = |m: &str, body: &str| std::fs::write(dir.join(format!("{m}.v")), body).unwrap();
    // Synchronous write, registered read, no reset of the array: inferable block RAM (docs/toolchain).
    write("ram_table", "module ram_table (input wire clk, input wire we, input wire [7:0] wa, input wire [7:0] ra,\n\
                        input wire [35:0] wd, output reg [35:0] rd);\n\
                        reg [35:0] mem [0:255];\n\
                        always @(posedge clk) begin\n if (we) mem[wa] <= wd;\n rd <= mem[ra];\nend\nendmodule\n");
    // Every entry compared at once and reset by a loop: flip-flops (what the RTL's tables do today).
    write("ff_table", "module ff_table (input wire clk, input wire rst, input wire we, input wire [2:0] wa,\n\
                       input wire [15:0] key, input wire [15:0] wd, output reg hit);\n\
                       reg [15:0] tab [0:7];\ninteger i;\n\
                       always @(posedge clk) begin\n\
                       if (rst) begin\n for (i = 0; i < 8; i = i + 1) tab[i] <= 16'd0;\n end else if (we) tab[wa] <= wd;\n\
                       hit <= 1'b0;\n for (i = 0; i < 8; i = i + 1) if (tab[i] == key) hit <= 1'b1;\nend\nendmodule\n");
    write("adder", "module adder (input wire clk, input wire [63:0] a, input wire [63:0] b, output reg [63:0] s);\n\
                    reg [63:0] a_reg, b_reg;\n\
                    always @(posedge clk) begin\n a_reg <= a;\n b_reg <= b;\n s <= a_reg + b_reg;\nend\nendmodule\n");
    // 32 dependent steps, each a rotate or an xor chosen by its own select bit: no LUT can take more
    // than about two steps, so the stage is far deeper than 8 levels.
    write("deep", "module deep (input wire clk, input wire [31:0] sel, input wire [255:0] k, input wire [7:0] d,\n\
                   output reg [7:0] q);\n\
                   reg [31:0] sel_reg;\nreg [255:0] k_reg;\nreg [7:0] d_reg;\nreg [7:0] y;\ninteger i;\n\
                   always @* begin\n y = d_reg;\n\
                   for (i = 0; i < 32; i = i + 1) y = sel_reg[i] ? (y ^ k_reg[8*i +: 8]) + 8'd1 : {y[0], y[7:1]};\nend\n\
                   always @(posedge clk) begin\n sel_reg <= sel;\n k_reg <= k;\n d_reg <= d;\n q <= y;\nend\nendmodule\n");
    write("top", "module top (input wire clk, input wire rst, input wire we, input wire [7:0] wa, input wire [7:0] ra,\n\
                  input wire [35:0] wd, output wire [35:0] rd, output wire hit, output wire [63:0] s, output wire [7:0] q);\n\
                  ram_table r (.clk(clk), .we(we), .wa(wa), .ra(ra), .wd(wd), .rd(rd));\n\
                  ff_table f (.clk(clk), .rst(rst), .we(we), .wa(wa[2:0]), .key(wd[15:0]), .wd(wd[15:0]), .hit(hit));\n\
                  adder a (.clk(clk), .a({2{wd[31:0]}}), .b({wd[35:0], wd[27:0]}), .s(s));\n\
                  deep d (.clk(clk), .sel(wd[31:0]), .k({8{wd[31:0]}}), .d(wa), .q(q));\nendmodule\n");
    let spec = |m: &str, n: &str| TableSpec { module: m.into(), name: n.into(), what: String::new() };
    let tables = [spec("ram_table", "mem"), spec("ff_table", "tab")];
    let kept = dir.join("kept");
    let runs = fpga::synth_xilinx_all(&dir, "xc7", None, Some(&kept), &tables).expect("yosys must be installed (bash scripts/setup)");
    assert_eq!(runs.len(), 1, "one root, one synth_xilinx run");
    let run = &runs[0];
    assert!(run.ok, "synth_xilinx failed:\n{}", run.log);
    let names: Vec<&str> = run.rows.iter().map(|r| r.module.as_str()).collect();
    assert_eq!(names, ["adder", "deep", "ff_table", "ram_table", "top"]);
    let row = |m: &str| run.rows.iter().find(|r| r.module == m).unwrap();

    let ram = row("ram_table");
    assert_eq!((ram.ramb18, ram.ramb36, ram.flip_flops, ram.luts), (1, 0, 0, 0), "256 x 36 is one RAMB18: {ram:?}");
    let ff = row("ff_table");
    assert_eq!(ff.flip_flops, 8 * 16 + 1, "the table's 128 bits and the hit register: {ff:?}");
    assert_eq!(ff.ramb18 + ff.ramb36 + ff.lutram, 0);
    let placement = |m: &str| run.tables.iter().find(|t| t.spec.module == m).map(|t| t.placement.clone());
    assert!(matches!(placement("ram_table"), Some(Placement::Ram(k)) if k.contains("BLOCKRAM")), "{:?}", run.tables);
    assert_eq!(placement("ff_table"), Some(Placement::FlipFlops(128)));
    assert!(run.tables.iter().find(|t| t.spec.module == "ram_table").unwrap().passed());
    assert!(!run.tables.iter().find(|t| t.spec.module == "ff_table").unwrap().passed());

    // FF -> LUT (propagate) -> 16 CARRY4: 1 level, 1 where the chain is entered, 15 quarter levels along
    // it: 4 + 4 + 15 = 23 quarters, 6 levels.
    let add = row("adder");
    assert_eq!((add.carry, add.flip_flops), (16, 192), "{add:?}");
    assert_eq!((add.depth_units, add.lut_depth()), (23, 6), "{add:?}");
    assert_eq!(row("ram_table").lut_depth(), 0, "the RAM's ports are registered or primary: no logic");
    let deep = row("deep");
    assert!(deep.lut_depth() > fpga::LUT_DEPTH_GOAL, "{deep:?}");
    assert!(deep.depth_end.starts_with("q"), "the deep stage ends at q: {}", deep.depth_end);
    assert!(row("ff_table").lut_depth() <= fpga::LUT_DEPTH_GOAL, "{:?}", row("ff_table"));

    let top = row("top");
    let sum = |f: fn(&fpga::FpgaRow) -> u64| ["adder", "deep", "ff_table", "ram_table"].iter().map(|m| f(row(m))).sum::<u64>();
    assert_eq!(top.luts, sum(|r| r.luts));
    assert_eq!(top.flip_flops, sum(|r| r.flip_flops));
    assert_eq!(top.ramb18, 1);
    assert_eq!(top.depth_units, deep.depth_units, "the top's deepest stage is the deep block's");
    assert!(top.depth_end.contains("d.") || top.depth_end.contains("q"), "{}", top.depth_end);

    // The command's checks, from the kept netlist (no second synthesis): PASS/FAIL printed on every row;
    // the LUT-depth bound always sets the exit status, the table check only with --require-ram.
    let cli = |extra: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_inswitch"))
            .args(["synth", "--target", "xilinx", "--from"])
            .arg(&kept)
            .args(extra)
            .output()
            .expect("run inswitch");
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (code, out) = cli(&[]);
    assert_eq!(code, Some(1), "the deep fixture is over the bound of 8 levels:\n{out}");
    assert!(out.lines().any(|l| l.starts_with("deep ") && l.contains("FAIL")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("adder ") && l.contains("PASS")), "{out}");
    // The fixtures hold none of the RTL's tables: each is a FAIL row, not a silent skip.
    assert!(out.lines().any(|l| l.starts_with("interposer ") && l.contains("mcast_mem") && l.ends_with("FAIL")), "{out}");
    let at_deep = deep.lut_depth().to_string();
    assert_eq!(cli(&["--max-lut-depth", &at_deep]).0, Some(0), "at its own depth it passes, the tables not required");
    assert_eq!(cli(&["--max-lut-depth", &at_deep, "--require-ram"]).0, Some(1), "ff_table is in flip-flops");
    assert_eq!(cli(&["--max-lut-depth", "8"]).0, Some(1), "the deep fixture is over 8 levels");
}
