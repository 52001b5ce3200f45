//! Directed flows through the fabric, configured by the collective manager.

use inswitch_fabric::scenario::{run_collective, Mode, RunSpec};
use inswitch_fabric::setup::Arrangement;
use inswitch_fabric::topology::{LinkSpec, Topology};

#[test]
fn fig7_all_reduce_placed_by_the_manager() {
    let topology = Topology::fig7(LinkSpec::default());
    let spec = RunSpec { topology_name: "fig7".into(), topology, arrangement: Arrangement::Managed, mode: Mode::Realistic, hop_latency_ps: 100_000, source: 0, master: 0, skip_idle: true, capture: true, real_frames: true };
    let (r, _f) = run_collective(&spec, &mut |_| {});
    eprintln!("{r:?}");
    assert_eq!(r.error, None);
    assert!(r.command_exactly_once && r.result_exactly_once);
    assert_eq!(r.result_value, Some((2..=9).sum()));
}
