//! Fault campaign and directed fault tests (issue 7; `docs/fabric.md` §Faults).

use inswitch_fabric::faults::campaign::{self, CampaignSpec, Outcome};
use inswitch_fabric::faults::{kinds, FaultConfig};
use inswitch_fabric::topology::{LinkSpec, Topology};

fn spec(seed: u64, reductions: usize, faults: FaultConfig, exhaust: f64) -> CampaignSpec {
    CampaignSpec {
        seed,
        topology: Topology::flattened_butterfly(4, 4, LinkSpec::default()).unwrap(),
        contexts: 40,
        slots: 8,
        reductions,
        per_job: (5, 40),
        job_size: (3, 8),
        faults,
        exhaust,
        period_ps: 12_000_000,
        tick_cycles: 16,
        timeout_ticks: 16,
        descriptors: 4,
        compute_ps: 100_000,
        end_retry: Some((1_500_000, 2)),
    }
}

#[test]
fn without_faults_every_reduction_succeeds() {
    let mut s = spec(1, 400, FaultConfig::default(), 0.0);
    (s.descriptors, s.slots) = (8, 6);
    let r = campaign::run(&s);
    println!("{}", r.summary(s.seed));
    assert_eq!(r.count(Outcome::Success), 400, "{}", r.summary(s.seed));
    assert!(r.stuck.is_empty(), "{:?}", &r.stuck[..r.stuck.len().min(10)]);
    assert!(r.leaked.is_empty(), "{:?}", r.leaked);
}

#[test]
fn explore() {
    let faults = FaultConfig { drop: 0.01, duplicate: 0.01, corrupt: 0.005, late: 0.01, late_ps: (300_000, 3_000_000), kinds: kinds::DATA_PATH | kinds::INITIALIZATION, ..FaultConfig::default() };
    let s = spec(7, 2000, faults, 0.05);
    let r = campaign::run(&s);
    println!("{}", r.summary(s.seed));
    println!("stuck {:?}", &r.stuck[..r.stuck.len().min(10)]);
    println!("leaked {:?}", r.leaked);
    for x in r.reductions.iter().filter(|x| matches!(x.outcome, Outcome::WrongSuccess | Outcome::Overcount)).take(5) {
        println!("{x:?}");
    }
}

#[test]
fn tiny() {
    let mut s = spec(1, 16, FaultConfig::default(), 0.0);
    s.slots = 2;
    let r = campaign::run(&s);
    println!("{}", r.summary(s.seed));
}
