//! Instruction-count harness for docs/performance.md (§The C ABI cycle): the loops of the criterion
//! bench `golden_output_queue` (`benches/golden.rs`) as a plain program, so that cachegrind or callgrind
//! counts their instructions (stable on a loaded machine, unlike criterion's times).
//!
//! `cargo build --release -p inswitch-dpi --example cycle_cost`, then
//! `valgrind --tool=cachegrind --cache-sim=no target/release/examples/cycle_cost <typed|cabi|drive> <cycles>`
//! for each variant and for `<cycles>` 0 (start-up), the difference divided by the cycles.
//! - `typed`: `OutputQueue::step` with the `In` struct updated in place (the Rust caller's path);
//! - `cabi`: the caller's packing of the same inputs (`drive`) and `inswitch_model_cycle`;
//! - `drive`: the caller's packing alone.

use inswitch_model::output_queue::{OutputQueue, OutputQueueIn, OutputQueueParams};
use inswitch_model::{registry, Block};

#[path = "../../../benches/common/packed_drive.rs"]
mod packed_drive;
use packed_drive::{drive, packed_inputs};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("typed", String::as_str);
    let cycles: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    match what {
        "typed" => {
            let mut m = OutputQueue::new(OutputQueueParams { data_width: 64, ..Default::default() }).expect("model");
            let mut i = OutputQueueIn { m_axis_tready: true, s_axis_tkeep: 0xff, ..Default::default() };
            for n in 0..cycles {
                i.s_axis_tvalid = n % 3 != 0;
                i.s_axis_tlast = n % 7 == 0;
                i.s_axis_tdata.0[0] = n;
                std::hint::black_box(m.step(std::hint::black_box(&i)));
            }
        }
        "cabi" | "drive" => {
            let m = unsafe { inswitch_dpi::inswitch_model_new(c"output_queue".as_ptr(), c"DATA_WIDTH=64".as_ptr()) };
            assert!(!m.is_null());
            let spec = registry::block("output_queue").expect("block");
            let (mut ins, offsets) = packed_inputs(&spec.ports(&spec.params_from_str("DATA_WIDTH=64").expect("params")));
            // The width the generated SV passes for this block (`inswitch_model_cycle_256`).
            let mut outs = [0u32; 8];
            ins.resize(8, 0);
            for n in 0..cycles {
                drive(&mut ins, &offsets, n);
                if what == "cabi" {
                    let st = unsafe { inswitch_dpi::inswitch_model_cycle(m, ins.as_ptr(), 8, outs.as_mut_ptr(), 8) };
                    assert_eq!(st, 0);
                }
                std::hint::black_box(&mut ins);
                std::hint::black_box(&outs);
            }
            unsafe { inswitch_dpi::inswitch_model_free(m) };
        }
        _ => panic!("usage: cycle_cost <typed|cabi|drive> <cycles>"),
    }
}
