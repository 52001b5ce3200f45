//! `verif/hdl.rs`.

use std::path::Path;

use inswitch::hdl::*;

#[test]
fn synth_log_parsing_finds_latches_and_paths() {
    let log = "Latch inferred for signal `\\m.\\q' from process `\\m.$proc'\n\
               Number of cells: 5\n     $_DFF_P_  1\n     $_DFFSR_PNN_  1\n     $_DLATCH_P_  1\n     $_SR_NN_  1\n     $_AND_ 1\n\
               Longest topological path in m (length=2):\n";
    let r = parse_synth("m", true, log.to_string());
    assert_eq!(r.cells, Some(5));
    assert_eq!(r.flip_flops, 2, "$_DFFSR_ is a flip-flop with set/reset, not a latch");
    assert_eq!(r.latches, 3, "a D latch, an SR latch and one 'Latch inferred' line");
    assert_eq!(r.longest_path, Some(2));
    assert!(!r.passed());
}

#[test]
fn the_yosys_cpu_summary_reads_the_end_of_a_log() {
    let log = "...\nEnd of script. Logfile hash: a782e5ea85, CPU: user 8.43s system 0.13s, MEM: 77.52 MB peak\n\
               Yosys 0.23 (git sha1 7ce5011c24b)\nTime spent: 20% 23x opt_expr (1 sec), 18% 21x opt_clean (1 sec), ...\n";
    assert_eq!(
        yosys_cpu_summary(log).as_deref(),
        Some("user 8.43 s, system 0.13 s; 20% 23x opt_expr (1 sec), 18% 21x opt_clean (1 sec)")
    );
    assert_eq!(yosys_cpu_summary("ERROR: no such file\n"), None);
}

#[test]
fn a_hierarchical_stat_gives_each_modules_own_cells_and_instances() {
    let stat = "=== $paramod\\leaf\\W=s32'00000000000000000000000000000100 ===\n\n   Number of wires: 7\n   Number of cells:                 10\n     $_DFF_P_                        4\n     $_XOR_                          6\n\n\
                === mid ===\n\n   Number of cells:                  3\n     $paramod\\leaf\\W=s32'00000000000000000000000000000100      2\n     $_DLATCH_P_ 1\n\n\
                === design hierarchy ===\n\n   mid 1\n   Number of cells:                 21\n     $_DFF_P_  8\n";
    let m = parse_hier_stat(stat);
    assert_eq!(m.len(), 2, "the design-hierarchy summary is not a module: {m:?}");
    assert_eq!((m[0].own_cells, m[0].own_flip_flops, m[0].own_latches), (10, 4, 0));
    assert!(m[0].children.is_empty());
    assert_eq!((m[1].own_cells, m[1].own_flip_flops, m[1].own_latches), (1, 0, 1), "an instance is not an own cell");
    assert_eq!(m[1].children, vec![(m[0].name.clone(), 2)]);
    assert_eq!(display_name(&m[0].name), "leaf W=4");
    assert_eq!(display_name("$paramod$0a1b2c\\cpu"), "cpu");
    assert_eq!(display_name("\\top"), "top");
}

#[test]
fn par_map_returns_every_result_at_its_index_whatever_the_order() {
    let order = [3, 0, 4, 1, 2];
    for jobs in [1, 2, 8] {
        assert_eq!(par_map(&order, jobs, |i| i * 10), vec![0, 10, 20, 30, 40], "{jobs} jobs");
    }
    assert!(par_map(&[], 2, |i| i).is_empty());
}

#[test]
fn synthesis_starts_with_the_top_whose_cost_covers_its_blocks() {
    let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl");
    let names = modules(&rtl).unwrap();
    let cost = synth_cost(&rtl, &names).unwrap();
    let of = |m: &str| cost[names.iter().position(|n| n == m).unwrap()];
    let lines = |m: &str| std::fs::read_to_string(rtl.join(format!("{m}.v"))).unwrap().lines().count();
    assert_eq!(of("axis_register"), lines("axis_register"), "a leaf costs its own lines");
    assert!(of("packet_engine") >= lines("packet_engine") + of("cpu") + of("input_checker"));
    assert_eq!(cost.iter().max(), Some(&of("packet_engine")), "the top is scheduled first");
}
