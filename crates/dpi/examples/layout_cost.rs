//! Instruction-count harness for docs/performance.md (§The C ABI cycle, session 13): the registry's
//! one-call cycle (`DynBlock::cycle_packed`, what `inswitch_model_cycle` calls) from Rust, with the packed
//! layout compiled in for this parameter set (`packed`, what `inswitch_model_new` gives) or read from the
//! run-time slot table (`table`, what a parameter set without a compiled layout gets). The same loop as
//! `cycle_cost.rs`'s `cabi` (the caller's packing included) without the C entry point; kept apart from it
//! so that its loops compile as they did before.
//!
//! `cargo build --release -p inswitch-dpi --example layout_cost`, then
//! `valgrind --tool=cachegrind --cache-sim=no target/release/examples/layout_cost <packed|table> <cycles>`
//! for `<cycles>` 0 and 100000, the difference divided by the cycles.

use inswitch_model::registry;

#[path = "../../../benches/common/packed_drive.rs"]
mod packed_drive;
use packed_drive::{check_layout, drive, initial_inputs, set_cycle, WORDS};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("packed", String::as_str);
    let cycles: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let spec = registry::block("output_queue").expect("block");
    let params = spec.params_from_str("DATA_WIDTH=64").expect("params");
    let mut m = match what {
        "packed" => spec.instantiate(&params),
        "table" => spec.instantiate_with_runtime_layout(&params),
        _ => panic!("usage: layout_cost <packed|table> <cycles>"),
    }
    .expect("model");
    assert_eq!(m.compiled_layout(), what == "packed");
    check_layout(m.ports());
    let (mut v, mut ins) = (initial_inputs(), [0u32; WORDS]);
    let mut outs = [0u32; WORDS];
    for n in 0..cycles {
        set_cycle(&mut v, n);
        drive(&mut ins, &v);
        m.cycle_packed(&ins, &mut outs).expect("cycle");
        std::hint::black_box(&mut ins);
        std::hint::black_box(&outs);
    }
}
