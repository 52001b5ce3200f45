//! The block registry (crates/model/src/registry) against the Verilated RTL: for every linked model,
//! the registry's port table at the model's parameters is exactly Verilator's (names, directions,
//! widths), and every registered block has a cosim bench and every cosim target a registered block.

use inswitch::model_table::MODELS;
use inswitch::targets::{model_params, COSIM, TARGETS};
use inswitch::verilated::rtl_port_list;
use inswitch_model::registry;

#[test]
fn registry_port_tables_match_verilator_for_every_linked_model() {
    for m in MODELS {
        let spec = registry::block(m.top).unwrap();
        let params = model_params(m.name).unwrap();
        let mut want: Vec<(String, u32, bool)> = spec.rtl_ports(&params).into_iter().map(|p| (p.name.to_string(), p.width, p.output)).collect();
        let mut have = rtl_port_list(m.name).unwrap();
        want.sort();
        have.sort();
        assert_eq!(want, have, "model {} ({})", m.name, params);
        // The model's ports are the RTL's without clk.
        assert_eq!(spec.ports(&params).len() + 1, have.len(), "model {}", m.name);
    }
}

#[test]
fn every_block_has_a_cosim_bench_and_every_target_a_block() {
    for b in registry::blocks() {
        assert!(COSIM.iter().any(|(n, _)| *n == b.name), "block {} has no cosim bench", b.name);
        assert!(TARGETS.iter().any(|t| t.block == b.name), "block {} has no cosim target", b.name);
    }
    for t in TARGETS.iter() {
        registry::block(t.block).unwrap();
    }
    assert_eq!(TARGETS.iter().find(|t| t.name == "output_queue_w64").unwrap().width, Some(64));
    assert_eq!(TARGETS.iter().find(|t| t.name == "cpu").unwrap().width, None);
}
