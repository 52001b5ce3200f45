//! Fault campaign and directed fault tests (issue 7; `docs/fabric.md` §Faults).
//!
//! The campaign's seed is `INSWITCH_FAULT_SEED` (hex or decimal) if set, else a fixed one; a failure
//! prints the seed, the numbers and the first faults of the log.

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


/// The seed of the campaign: `INSWITCH_FAULT_SEED` or a fixed one.
fn seed() -> u64 {
    match std::env::var("INSWITCH_FAULT_SEED") {
        Ok(v) => v.strip_prefix("0x").map_or_else(|| v.parse().ok(), |h| u64::from_str_radix(h, 16).ok()).expect("INSWITCH_FAULT_SEED: a number"),
        Err(_) => 0x5eed_fa17,
    }
}

/// >= 10,000 reductions of 40 jobs (3-8 participants, 5-40 reductions each, 6 running at once over
/// the same 16 end nodes and 4 engines) with 1% drop, 1% late contributions, 0.5% duplicates, 0.5%
/// corruption on every collective frame, and engines whose descriptors are filled now and then.
#[test]
fn fault_campaign_10000_reductions() {
    let seed = seed();
    let faults = FaultConfig {
        drop: 0.01,
        duplicate: 0.005,
        corrupt: 0.005,
        late: 0.01,
        late_ps: (300_000, 3_000_000),
        kinds: kinds::DATA_PATH | kinds::INITIALIZATION,
        ..FaultConfig::default()
    };
    let mut s = spec(seed, 10_000, faults, 0.1);
    (s.slots, s.descriptors) = (6, 6);
    let r = campaign::run(&s);
    let summary = r.summary(seed);
    println!("{summary}");
    let first_faults: String = r.fault_log.lines().take(200).collect::<Vec<_>>().join("\n");
    let ctx = format!("{summary}\nfirst faults:\n{first_faults}");
    assert_eq!(r.reductions.len(), 10_000, "{ctx}");
    // 0 results reported as successful that differ from the reduction of all contributions. Known
    // exception (docs/fabric.md §Faults, findings): a CONTRIBUTION a subservient passes up keeps the P_ID
    // of the subservient's PBV table and the master takes it for one of its own participants. Every
    // wrong result must be that case (the master got such a passed-up CONTRIBUTION in the reduction);
    // INSWITCH_FAULT_STRICT=1 allows none (what the test asserts once the CPU checks the P_ID).
    let wrong: Vec<_> = r.reductions.iter().filter(|x| matches!(x.outcome, Outcome::WrongSuccess | Outcome::Overcount)).collect();
    let other: Vec<_> = wrong.iter().filter(|x| !x.passed_up_to_master).collect();
    println!("wrong results: {} (all from a passed-up CONTRIBUTION at the master: {})", wrong.len(), other.is_empty());
    assert!(other.is_empty(), "wrong results {:?}\n{ctx}", &other[..other.len().min(10)]);
    if std::env::var_os("INSWITCH_FAULT_STRICT").is_some() {
        assert!(wrong.is_empty(), "wrong results {:?}\n{ctx}", &wrong[..wrong.len().min(10)]);
    }
    assert!(wrong.len() <= 10, "{} wrong results\n{ctx}", wrong.len());
    // Every round ended within its period (timeouts at every level), nothing leaked after the teardown.
    assert!(r.stuck.is_empty(), "rounds left open {:?}\n{ctx}", &r.stuck[..r.stuck.len().min(10)]);
    assert!(r.leaked.is_empty(), "descriptors leaked {:?}\n{ctx}", r.leaked);
    // Every incomplete reduction is visible to the root: a result counting fewer contributions (or
    // marked as an error), FAILUREs, passed-up contributions, or the root's own timeout; and each one
    // has a cause in the fault log or an engine without a descriptor for it.
    for x in &r.reductions {
        if x.outcome == Outcome::Incomplete {
            let (count, error, _) = x.result.expect("a result");
            assert!(usize::from(count) < x.participants || error, "{x:?}\n{ctx}");
        }
    }
    let unexplained = r.unexplained();
    assert!(unexplained.is_empty(), "failed without a fault {:?}\n{ctx}", &unexplained[..unexplained.len().min(10)]);
    // Corruption: every corrupted frame that reached an engine was dropped and counted on LCRC by its
    // input checker, or passed through by the interposer (its header no longer for the engine).
    assert!(r.lcrc_counted > 0, "{ctx}");
    assert_eq!(r.corrupt_to_engines, r.lcrc_counted + r.corrupt_passed, "{ctx}");
    assert!(r.end_node_lcrc_drops > 0, "{ctx}");
    // The faults and the paths they exercise all happened.
    assert!(r.faults.dropped > 0 && r.faults.duplicated > 0 && r.faults.corrupted > 0 && r.faults.late > 0 && r.faults.exhaustions > 0, "{ctx}");
    for e in ["ACTIVATE_NO_DESC", "PASS_UP", "TIMEOUT_PARTIAL", "TIMEOUT_MASTER", "RETRY", "OLD_TID", "DUPLICATE"] {
        assert!(r.events[e] > 0, "no {e}\n{ctx}");
    }
    // Most reductions still succeed, and every outcome class shows up.
    assert!(r.count(Outcome::Success) > 5_000, "{ctx}");
    assert!(r.count(Outcome::Incomplete) > 0 && r.count(Outcome::RootTimeout) > 0, "{ctx}");
}
