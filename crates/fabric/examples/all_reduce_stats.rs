//! One all-reduce of the fabric bench (`benches/fabric.rs`) at the end-node counts given on the command
//! line (default 1024), printing the simulator's counters: where the engine cycles go. For profiling
//! (`perf record`) and for docs/performance.md; the timing figures come from the criterion bench.

use inswitch_fabric::scenario::{run_collective, table1_spec, Mode, DEFAULT_HOP_LATENCY_PS};
use inswitch_fabric::setup::Arrangement;

/// End nodes per switch in the bench's flattened butterflies.
const PER_SWITCH: usize = 32;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    for endpoints in if sizes.is_empty() { vec![1024] } else { sizes } {
        let spec = table1_spec(endpoints / PER_SWITCH, PER_SWITCH, Arrangement::Hierarchical, Mode::Realistic, DEFAULT_HOP_LATENCY_PS);
        let (r, _) = run_collective(&spec, &mut |_| {});
        assert_eq!(r.result_value, r.expected_value, "all-reduce result");
        println!(
            "{endpoints} end nodes: engine steps {}, skipped {}, idle advances {}, frames {}, wall {:.3} s",
            r.engine_steps, r.engine_cycles_skipped, r.idle_advances, r.frames, r.wall_s
        );
    }
}
