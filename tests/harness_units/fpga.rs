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

#[test]
fn memory_libmap_lines_name_the_module_and_the_memory() {
    let log = "mapping memory $paramod$ab12\\cpu.st_reg via $__XILINX_BLOCKRAM_TDP_\nusing FF mapping for memory cpu.d_reg\n";
    assert_eq!(ram_mappings(log), vec![("cpu".to_string(), "st_reg".to_string(), "$__XILINX_BLOCKRAM_TDP_".to_string())]);
}
