//! `verif/fpga.rs`.

use inswitch::fpga::*;
use serde_json::Value;

/// A hand-written mapped netlist: FF -> LUT6 -> MUXF7 -> CARRY4 (S) -> CARRY4 (CI) -> FF, and a
/// LUT RAM whose write data is a path end.
#[test]
fn the_depth_walk_counts_luts_carry_steps_and_wide_muxes_as_documented() {
    let cell = |kind: &str, conns: &[(&str, &str, u64)]| {
        let dirs: serde_json::Map<String, Value> = conns.iter().map(|(p, d, _)| (p.to_string(), Value::from(*d))).collect();
        let c: serde_json::Map<String, Value> = conns.iter().map(|(p, _, b)| (p.to_string(), serde_json::json!([b]))).collect();
        serde_json::json!({"type": kind, "port_directions": dirs, "connections": c})
    };
    let json = serde_json::json!({"modules": {"m": {
        "attributes": {}, "ports": {"clk": {"direction": "input", "bits": [1]}, "o": {"direction": "output", "bits": [9]}},
        "netnames": {"a_reg": {"hide_name": 0, "bits": [2]}, "s_reg": {"hide_name": 0, "bits": [8]}},
        "cells": {
            "ff_a": cell("FDRE", &[("C", "input", 1), ("D", "input", 9), ("Q", "output", 2)]),
            "lut": cell("LUT6", &[("I0", "input", 2), ("O", "output", 3)]),
            "lut2": cell("LUT6", &[("I0", "input", 2), ("O", "output", 4)]),
            "mux": cell("MUXF7", &[("I0", "input", 3), ("I1", "input", 4), ("O", "output", 5)]),
            "c0": cell("CARRY4", &[("S", "input", 5), ("CO", "output", 6)]),
            "c1": cell("CARRY4", &[("CI", "input", 6), ("O", "output", 7)]),
            "ff_s": cell("FDRE", &[("C", "input", 1), ("D", "input", 7), ("Q", "output", 8)]),
            "ram": cell("RAM64X1D", &[("A0", "input", 8), ("D", "input", 7), ("SPO", "output", 9)]),
        }
    }}});
    let d = Design::from_json(&json);
    let (units, end) = d.flatten("m").depth();
    // LUT 4 + MUXF7 0 + carry entry 4 + one carry step 1 = 9 quarters; the RAM's D ends the same path.
    assert_eq!(units, 9, "{end}");
    assert_eq!(end, "s_reg (FDRE D)", "the first path end found at the deepest arrival");
    let row = d.totals("m", 0);
    assert_eq!((row.luts, row.flip_flops, row.carry, row.muxf, row.lutram), (2, 2, 2, 1, 1));
    assert_eq!(FpgaRow { depth_units: units, ..row }.lut_depth(), 3, "9 quarters round up to 3 levels");
}

/// A RAM64M read at a register's address (ADDRA, one level) and written at an address three LUTs deep
/// (ADDRD): its read data DOA depends on ADDRA only, so the stage from DOA's reader ends at 2 levels, and
/// the write address ends a stage of its own (3 levels). Counted as one cell (before session 21), the read
/// took the write address's arrival: 3 + 1 + 1 = 5 levels.
#[test]
fn a_lut_ram_read_port_does_not_take_its_write_address_depth() {
    let cell = |kind: &str, conns: &[(&str, &str, u64)]| {
        let dirs: serde_json::Map<String, Value> = conns.iter().map(|(p, d, _)| (p.to_string(), Value::from(*d))).collect();
        let c: serde_json::Map<String, Value> = conns.iter().map(|(p, _, b)| (p.to_string(), serde_json::json!([b]))).collect();
        serde_json::json!({"type": kind, "port_directions": dirs, "connections": c})
    };
    let json = serde_json::json!({"modules": {"m": {
        "attributes": {}, "ports": {"clk": {"direction": "input", "bits": [1]}},
        "netnames": {"q_reg": {"hide_name": 0, "bits": [9]}},
        "cells": {
            "ff_a": cell("FDRE", &[("C", "input", 1), ("D", "input", 2), ("Q", "output", 2)]),
            "l0": cell("LUT6", &[("I0", "input", 2), ("O", "output", 3)]),
            "l1": cell("LUT6", &[("I0", "input", 3), ("O", "output", 4)]),
            "l2": cell("LUT6", &[("I0", "input", 4), ("O", "output", 5)]),
            "ram": cell("RAM64M", &[("ADDRA", "input", 2), ("ADDRD", "input", 5), ("DIA", "input", 2), ("WCLK", "input", 1),
                                   ("DOA", "output", 7)]),
            "l3": cell("LUT6", &[("I0", "input", 7), ("O", "output", 8)]),
            "ff_q": cell("FDRE", &[("C", "input", 1), ("D", "input", 8), ("Q", "output", 9)]),
        }
    }}});
    let d = Design::from_json(&json);
    let (units, end) = d.flatten("m").depth();
    assert_eq!(units, 12, "the write address's stage (3 LUTs) is the deepest: {end}");
    assert_eq!(end, "ram (RAM64M write ADDRD)", "the write address ends its stage at the RAM");
    // Without the write address's LUTs the read path alone: ADDRA (1) + LUT (1) = 2 levels.
    let mut shallow = json.clone();
    shallow["modules"]["m"]["cells"]["ram"]["connections"]["ADDRD"] = serde_json::json!([2]);
    let (units, end) = Design::from_json(&shallow).flatten("m").depth();
    assert_eq!((units, end.as_str()), (8, "q_reg (FDRE D)"));
}

#[test]
fn memory_libmap_lines_name_the_module_and_the_memory() {
    let log = "mapping memory $paramod$ab12\\cpu.st_reg via $__XILINX_BLOCKRAM_TDP_\nusing FF mapping for memory cpu.d_reg\n";
    assert_eq!(ram_mappings(log), vec![("cpu".to_string(), "st_reg".to_string(), "$__XILINX_BLOCKRAM_TDP_".to_string())]);
}

/// The CPU's device-ID RAMs are declared in a generate block: Yosys names them with the scope, and the
/// table check must still find them under the name `RTL_TABLES` gives (it reported them "not found").
#[test]
fn a_memory_inside_a_generate_block_is_found_by_its_own_name() {
    let log = "mapping memory $paramod$ab12\\cpu.g_pbv_dev[3].pbv_dev_mem via $__XILINX_LUTRAM_SP_\n";
    assert_eq!(ram_mappings(log), vec![("cpu".to_string(), "pbv_dev_mem".to_string(), "$__XILINX_LUTRAM_SP_".to_string())]);
}

/// A mapped netlist of one module `m`: a flip-flop, `luts` LUT6 in series, a flip-flop.
fn lut_chain(luts: u64) -> Value {
    let mut cells = serde_json::Map::new();
    let dirs = |ports: &[(&str, &str)]| ports.iter().map(|(p, d)| (p.to_string(), Value::from(*d))).collect::<serde_json::Map<_, _>>();
    cells.insert("ff_in".into(), serde_json::json!({"type": "FDRE", "port_directions": dirs(&[("C", "input"), ("D", "input"), ("Q", "output")]),
        "connections": {"C": [1], "D": [2], "Q": [10]}}));
    for i in 0..luts {
        cells.insert(format!("lut{i}"), serde_json::json!({"type": "LUT6", "port_directions": dirs(&[("I0", "input"), ("O", "output")]),
            "connections": {"I0": [10 + i], "O": [11 + i]}}));
    }
    cells.insert("ff_out".into(), serde_json::json!({"type": "FDRE", "port_directions": dirs(&[("C", "input"), ("D", "input"), ("Q", "output")]),
        "connections": {"C": [1], "D": [10 + luts], "Q": [3]}}));
    serde_json::json!({"modules": {"m": {"attributes": {},
        "ports": {"clk": {"direction": "input", "bits": [1]}, "d": {"direction": "input", "bits": [2]}, "q": {"direction": "output", "bits": [3]}},
        "netnames": {"q_reg": {"hide_name": 0, "bits": [3]}}, "cells": cells}}})
}

/// The gate's LUT-depth bound on planted results (no Yosys): 9 levels fail the goal of 8, 8 pass; a
/// listed exception bounds its module at its entry (a module measured below its entry passes, marked as a
/// stale entry); `--max-lut-depth` replaces every bound. Then the command itself, from a kept netlist:
/// it prints the row and exits 1 over the bound, 0 within it.
#[test]
fn the_lut_depth_bound_fails_a_planted_over_deep_module() {
    let row = |luts: u64| {
        let run = report("m", Some(&lut_chain(luts).to_string()), String::new(), &[]);
        assert!(run.ok);
        run.rows.into_iter().find(|r| r.module == "m").unwrap()
    };
    let (nine, eight) = (row(9), row(8));
    assert_eq!((nine.lut_depth(), eight.lut_depth()), (9, 8));
    assert_eq!(LUT_DEPTH_GOAL, 8);
    let verdict = |r: &FpgaRow, ex: &[(&str, u64, &str)], bound: Option<u64>| check_depth(r, ex, bound).verdict;
    assert_eq!(verdict(&nine, &[], None), DepthVerdict::TooDeep);
    assert_eq!(verdict(&eight, &[], None), DepthVerdict::Pass);
    assert_eq!(verdict(&nine, &[("m", 9, "planted")], None), DepthVerdict::Pass);
    assert_eq!(verdict(&row(10), &[("m", 9, "planted")], None), DepthVerdict::TooDeep);
    assert_eq!(verdict(&eight, &[("m", 9, "planted")], None), DepthVerdict::StaleException, "an entry above the measured depth is marked");
    assert!(!check_depth(&eight, &[("m", 9, "planted")], None).failed() && check_depth(&row(10), &[("m", 9, "planted")], None).failed());
    assert_eq!(verdict(&nine, &[("other", 12, "planted")], None), DepthVerdict::TooDeep, "an exception names its module only");
    assert_eq!(verdict(&nine, &[("m", 9, "planted")], Some(8)), DepthVerdict::TooDeep, "--max-lut-depth ignores the exceptions");
    assert_eq!(verdict(&nine, &[], Some(9)), DepthVerdict::Pass);
    // Every listed exception is over the goal (else it is not an exception) and names a module of rtl/.
    for (m, d, why) in LUT_DEPTH_EXCEPTIONS {
        assert!(*d > LUT_DEPTH_GOAL && !why.is_empty(), "{m}");
        assert!(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl").join(format!("{m}.v")).exists(), "{m}");
    }

    let cli = |luts: u64| {
        let dir = std::env::temp_dir().join(format!("inswitch-planted-depth-{}-{luts}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("m.json"), lut_chain(luts).to_string()).unwrap();
        std::fs::write(dir.join("m.log"), "").unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_inswitch")).args(["synth", "--target", "xilinx", "--from"]).arg(&dir).output().expect("run inswitch");
        let _ = std::fs::remove_dir_all(&dir);
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (code, out) = cli(9);
    assert_eq!(code, Some(1), "over the bound:\n{out}");
    assert!(out.lines().any(|l| l.starts_with("m ") && l.contains(" 9 ") && l.contains("FAIL")), "{out}");
    let (code, out) = cli(8);
    assert_eq!(code, Some(0), "within the bound:\n{out}");
    assert!(out.lines().any(|l| l.starts_with("m ") && l.contains("PASS")), "{out}");
}
