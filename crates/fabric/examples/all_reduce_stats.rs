//! One all-reduce of the fabric bench (`benches/fabric.rs`) at the end-node counts given on the command
//! line (default 1024), printing the simulator's counters: where the engine cycles go. For profiling
//! (`perf record`) and for docs/performance.md; the timing figures come from the criterion bench.
//!
//! `--per-switch N` sets the end nodes per switch (default 32, Table 1's shape); 63 reaches the largest
//! fabric 16-bit device IDs allow, 1,024 switches x 63 end nodes = 64,512 (issue 23).

use inswitch_fabric::scenario::{run_collective, table1_spec, Mode, DEFAULT_HOP_LATENCY_PS};
use inswitch_fabric::setup::Arrangement;

/// End nodes per switch in the bench's flattened butterflies, unless `--per-switch` says otherwise.
const PER_SWITCH: usize = 32;

fn main() {
    let (mut per_switch, mut sizes) = (PER_SWITCH, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let number = |v: Option<String>| v.as_deref().and_then(|v| v.parse::<usize>().ok()).unwrap_or_else(|| panic!("usage: all_reduce_stats [--per-switch N] [END_NODES ...]"));
        if a == "--per-switch" {
            per_switch = number(args.next());
        } else {
            sizes.push(number(Some(a)));
        }
    }
    for endpoints in if sizes.is_empty() { vec![1024] } else { sizes } {
        let switches = endpoints / per_switch;
        let spec = table1_spec(switches, per_switch, Arrangement::Hierarchical, Mode::Realistic, DEFAULT_HOP_LATENCY_PS);
        let (r, _) = run_collective(&spec, &mut |_| {});
        assert_eq!(r.result_value, r.expected_value, "all-reduce result");
        println!(
            "{} end nodes ({switches} switches x {per_switch}): engine steps {}, skipped {}, idle advances {}, frames {}, wall {:.3} s, {:.2} us per end node",
            switches * per_switch,
            r.engine_steps,
            r.engine_cycles_skipped,
            r.idle_advances,
            r.frames,
            r.wall_s,
            r.wall_s * 1e6 / (switches * per_switch) as f64
        );
    }
}
