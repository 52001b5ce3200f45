//! Goodput (issue 20): the fault campaign ([`crate::campaign`]) run over several drop rates, each
//! reduction's outcome at its root summed per class (TLP non-posted, TLP posted, Soft Portals) into a
//! success rate, with the retries the run sent and the time a successful reduction took (median, p99)
//! against the fault-free run. `docs/fabric.md` §Goodput; `inswitch goodput` prints the table and
//! writes the plot ([`crate::plot::goodput_vs_drop`]).

use crate::campaign::{self, CampaignReport, CampaignSpec, Outcome, Reduction};
use crate::faults::{kinds, FaultConfig};
use crate::topology::{LinkSpec, Ps, Topology};

/// The drop rates of the sweep (issue 20: 0.1 %, 0.5 %, 1 %, 2 %, 5 %).
pub const DROP_RATES: [f64; 5] = [0.001, 0.005, 0.01, 2.0 / 100.0, 0.05];

/// Share of the TLP contexts the sweep runs posted (one in four), so that both kinds are measured.
pub const POSTED_SHARE: f64 = 0.25;

/// Share of the Soft Portals jobs the sweep runs on twin trees under [`Recovery::PerPacket`] (half, as
/// far as `campaign::TWIN_TREES_PER_SWITCH` allows, `campaign::run`), so that both are measured.
pub const TWIN_SHARE: f64 = 0.5;

/// The other faults of the sweep, as in the fault campaign (`tests/faults.rs`
/// `fault_campaign_10000_reductions`): 0.5 % duplicate, 0.5 % corruption, 1 % late contributions of
/// 0.3-3 us; engines' descriptors filled now and then ([`EXHAUST`]).
pub fn faults(drop: f64) -> FaultConfig {
    FaultConfig {
        drop,
        duplicate: 0.005,
        corrupt: 0.005,
        late: 0.01,
        late_ps: (300_000, 3_000_000),
        kinds: kinds::DATA_PATH | kinds::INITIALIZATION | kinds::PORTALS,
        ..FaultConfig::default()
    }
}

/// Probability per period that one engine's descriptors are filled (as the fault campaign).
pub const EXHAUST: f64 = 0.1;

/// How the end nodes, sources and engines recover (issue 20 item 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Recovery {
    /// As the fault campaign (`tests/faults.rs`): 16-tick engine timeouts (512 ns, a master's 1.02
    /// us), end nodes resend a contribution twice every 1.5 us (later than the engines give up), a
    /// posted START, 12 us periods.
    Campaign,
    /// Timeouts ordered so the lower level retries first (000 \[0154\]): end nodes resend every
    /// [`END_RETRY_PS`] up to 3 times, all before their subservient's timeout [`RECOVERY_TIMEOUT_TICKS`]
    /// (4 us, longer than the longest late contribution, 002 (64)); the master's is twice that (8 us);
    /// the root's is the period [`RECOVERY_PERIOD_PS`]. Sources send the START non-posted and resend it
    /// every [`START_RETRY_PS`] until acknowledged (3 times); an end node reads DuplicateContribution as
    /// "received" (always, in the fabric). Since session 15 also: sources resend unacknowledged
    /// INITIALIZATIONs ([`INIT_RETRY_PS`]) and send the START after the last acknowledgement, and resend
    /// the START after its acknowledgement until the result comes ([`START_WATCH_PS`]); half the Soft
    /// Portals jobs run on twin trees ([`TWIN_SHARE`]) and roots re-arm short trees
    /// ([`PORTALS_REARM_PS`]); engines have [`RECOVERY_DESCRIPTORS`] descriptors. Since session 16 the
    /// manager's admission ([`CampaignSpec::admission`]) holds back a round that would need a descriptor
    /// on an engine an exhaustion episode fills.
    PerPacket,
}

/// End-node contribution retry interval under [`Recovery::PerPacket`], ps.
pub const END_RETRY_PS: Ps = 1_000_000;
/// Source START retry interval under [`Recovery::PerPacket`] (longer than a START's round trip to the
/// master and its acknowledgement back, ~0.2 us here), ps.
pub const START_RETRY_PS: Ps = 500_000;
/// Source INITIALIZATION retry interval under [`Recovery::PerPacket`] (longer than an
/// INITIALIZATION's round trip to the farthest engine and its acknowledgement back), ps.
pub const INIT_RETRY_PS: Ps = 1_000_000;
/// After the master's acknowledgement, the source resends its START this long after it, and as often
/// again, until the result comes ([`crate::sim::Fabric::start_watched`]): longer than a fault-free round
/// (1.4 us from the INITIALIZATIONs) so that a healthy round sees none, and the resends' copies still
/// reach a participant whose first copy was lost before its subservient's timeout (4 us), ps. With 8
/// Soft Portals rounds of a tree in flight the engines' receive queues make fault-free rounds up to 2.7
/// us long, and 247 of them see a RETRY (`docs/fabric.md` §Goodput: several rounds of a tree at once).
pub const START_WATCH_PS: Ps = 1_500_000;
/// Descriptors per engine under [`Recovery::PerPacket`] (the fault campaign's 6, plus room for the
/// twin trees' engines).
pub const RECOVERY_DESCRIPTORS: usize = 8;
/// A Portals root arms a round's short trees again this long after the arm, and as often again
/// ([`crate::sim::portals::Root::rearm`]): longer than a fault-free round (1.1 us), and a leaf that
/// missed the arm still answers before its engine's timeout (4 us), ps.
pub const PORTALS_REARM_PS: Ps = 1_500_000;
/// A Portals root whose trees are all short this long after the arm runs the round again under the next
/// seqno ([`crate::sim::portals::Root::restart`], session 16): after the arm retries (2 x 1.5 us), the
/// engines' timeout (4 us) and the latest late contribution (3 us) folded as a passed-up frame, ps.
pub const PORTALS_RESTART_PS: Ps = 7_000_000;
/// Arm retries of [`PORTALS_REARM_PS`].
pub const PORTALS_REARM_LIMIT: u8 = 2;
/// Resends of [`START_WATCH_PS`].
pub const START_WATCH_LIMIT: u8 = 2;
/// RETRYs a participant sends for a late result, [`START_WATCH_PS`] apart (issue 20,
/// [`crate::sim::Fabric::participant_watch`]): 12 x 1.5 us = 18 us covers a round that completes as late
/// as a subservient's RESPONSE retries allow within the period ([`RECOVERY_PERIOD_PS`]).
pub const PARTICIPANT_WATCH_LIMIT: u8 = 12;
/// Rounds of a Soft Portals tree in flight at once under [`Recovery::Campaign`], each under its own
/// reduction id ([`CampaignSpec::portals_in_flight`]; [`Recovery::PerPacket`] runs all 8 of 002 (61)).
/// Not 8: at the campaign's 16-tick engine timeouts (512 ns) the engines take the contributions of 8
/// rounds of a tree slower than a TLP context sharing them waits, and fault-free TLP rounds timed out
/// with no fault to explain them (default seed, 10^4 reductions: 39 at 8, 10 at 6, 0 at 4 at seeds
/// 0x5eed_fa17 / 1 / 2 / 3; `docs/fabric.md` §Goodput: several rounds of a tree at once).
pub const CAMPAIGN_PORTALS_IN_FLIGHT: usize = 4;
/// Engine timeouts under [`Recovery::PerPacket`], ticks of 16 cycles of 2 ns: 4 us.
pub const RECOVERY_TIMEOUT_TICKS: u32 = 125;
/// Period (the root's timeout) under [`Recovery::PerPacket`], ps: every round must have ended by then,
/// and a subservient may time out (4 us) as late as ~8 us into it (its first contribution late by 3 us
/// and retried), then resend its RESPONSE 3 times and give up a timeout after the last (16 us more).
pub const RECOVERY_PERIOD_PS: Ps = 28_000_000;

/// The campaign of one point of the sweep: the fault campaign's fabric and jobs (4 x 4 flattened
/// butterfly, 40 TLP contexts and 12 Soft Portals trees, 6 jobs at once, 6 descriptors per engine) with
/// `faults`, `exhaust`, a share [`POSTED_SHARE`] of posted TLP contexts, and the timers of `recovery`.
pub fn spec(seed: u64, reductions: usize, faults: FaultConfig, exhaust: f64, recovery: Recovery) -> CampaignSpec {
    let mut s = CampaignSpec {
        seed,
        topology: Topology::flattened_butterfly(4, 4, LinkSpec::default()).expect("a 4 x 4 butterfly"),
        contexts: 40,
        slots: 6,
        reductions,
        per_job: (5, 40),
        job_size: (3, 8),
        faults,
        exhaust,
        period_ps: 12_000_000,
        tick_cycles: 16,
        timeout_ticks: 16,
        descriptors: 6,
        compute_ps: 100_000,
        end_retry: Some((1_500_000, 2)),
        portals_jobs: 12,
        posted_share: POSTED_SHARE,
        start_retry: None,
        init_retry: None,
        start_watch: None,
        participant_watch: None,
        portals_twin_share: 0.0,
        portals_rearm: None,
        portals_restart: None,
        portals_in_flight: CAMPAIGN_PORTALS_IN_FLIGHT,
        admission: false,
    };
    if recovery == Recovery::PerPacket {
        s.end_retry = Some((END_RETRY_PS, 3));
        s.timeout_ticks = RECOVERY_TIMEOUT_TICKS;
        s.period_ps = RECOVERY_PERIOD_PS;
        s.start_retry = Some((START_RETRY_PS, 3));
        s.init_retry = Some((INIT_RETRY_PS, 3));
        s.start_watch = Some((START_WATCH_PS, START_WATCH_LIMIT));
        s.participant_watch = Some((START_WATCH_PS, PARTICIPANT_WATCH_LIMIT));
        s.portals_twin_share = TWIN_SHARE;
        s.portals_rearm = Some((PORTALS_REARM_PS, PORTALS_REARM_LIMIT));
        // A twin tree takes a descriptor on one more engine while it is armed: with 6 per engine, two
        // fault-free TLP rounds found none (`ACTIVATE_NO_DESC`, their contributions passed up).
        s.descriptors = RECOVERY_DESCRIPTORS;
        // An exhaustion episode is another tenant's contexts filling an engine: the manager, which
        // admitted them, holds back a round that would need a descriptor there (session 16).
        s.admission = true;
        s.portals_restart = Some(PORTALS_RESTART_PS);
        s.portals_in_flight = crate::sim::portals::REDUCTIONS_PER_TREE;
    }
    s
}

/// The reductions of one class, by outcome, and the time the successful ones took.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ClassStats {
    /// Reductions.
    pub n: usize,
    /// Complete and right at the root.
    pub success: usize,
    /// A result counting fewer or marked as an error.
    pub incomplete: usize,
    /// FAILUREs only.
    pub failure: usize,
    /// Contributions passed up only.
    pub passed_up: usize,
    /// Nothing reached the root.
    pub root_timeout: usize,
    /// Wrong or over-counted results (must be 0).
    pub wrong: usize,
    /// Successes from a second round (the first round's result lost, [`Reduction::second_round`]).
    pub second_round: usize,
    /// Successes whose result reached every participant end node too ([`Reduction::all_delivered`];
    /// TLP only, 0 for Soft Portals).
    pub delivered: usize,
    /// Median time to complete of the successful ones, ps (0: none).
    pub median_ps: Ps,
    /// 99th percentile (nearest rank), ps.
    pub p99_ps: Ps,
    /// The longest, ps.
    pub max_ps: Ps,
}

impl ClassStats {
    /// Counts `rs`.
    pub fn of<'a>(rs: impl Iterator<Item = &'a Reduction>) -> ClassStats {
        let mut c = ClassStats::default();
        let mut times = Vec::new();
        for r in rs {
            c.n += 1;
            match r.outcome {
                Outcome::Success => c.success += 1,
                Outcome::Incomplete => c.incomplete += 1,
                Outcome::Failure => c.failure += 1,
                Outcome::PassedUp => c.passed_up += 1,
                Outcome::RootTimeout => c.root_timeout += 1,
                Outcome::WrongSuccess | Outcome::Overcount => c.wrong += 1,
            }
            times.extend(r.latency);
            c.second_round += usize::from(r.second_round);
            c.delivered += usize::from(r.outcome == Outcome::Success && r.all_delivered == Some(true));
        }
        times.sort_unstable();
        c.median_ps = percentile(&times, 50);
        c.p99_ps = percentile(&times, 99);
        c.max_ps = times.last().copied().unwrap_or(0);
        c
    }

    /// Success rate, 0.0 to 1.0 (1.0 for an empty class).
    pub fn rate(&self) -> f64 {
        if self.n == 0 {
            1.0
        } else {
            self.success as f64 / self.n as f64
        }
    }

    /// Share of the reductions whose result reached the root and every participant, 0.0 to 1.0 (1.0
    /// for an empty class; TLP only).
    pub fn delivered_rate(&self) -> f64 {
        if self.n == 0 {
            1.0
        } else {
            self.delivered as f64 / self.n as f64
        }
    }

    /// The outcomes summed (equals `n`).
    pub fn outcomes(&self) -> usize {
        self.success + self.incomplete + self.failure + self.passed_up + self.root_timeout + self.wrong
    }
}

/// The nearest-rank `p`-th percentile of sorted `v` (0 if empty).
pub fn percentile(v: &[Ps], p: usize) -> Ps {
    if v.is_empty() {
        return 0;
    }
    let rank = (p * v.len()).div_ceil(100).max(1);
    v[rank - 1]
}

/// One point of the sweep.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct GoodputRow {
    /// Drop rate per frame per link.
    pub drop: f64,
    /// Seed.
    pub seed: u64,
    /// TLP reductions of non-posted contexts.
    pub tlp_non_posted: ClassStats,
    /// TLP reductions of posted contexts.
    pub tlp_posted: ClassStats,
    /// Soft Portals rounds on one tree.
    pub portals: ClassStats,
    /// Soft Portals rounds on twin trees (002 (70)-(72), [`crate::twin`]).
    pub portals_twin: ClassStats,
    /// Contributions end nodes resent (their retry timer).
    pub end_node_retries: u64,
    /// STARTs sources resent (not acknowledged in time).
    pub start_retries: u64,
    /// INITIALIZATIONs sources resent (not acknowledged in time).
    pub init_retries: u64,
    /// STARTs sources resent after the acknowledgement, the result not in yet.
    pub start_watch_retries: u64,
    /// RETRYs sources sent for a missing result ([`CampaignReport::result_retries`]), and the results
    /// engines resent on a RETRY (CPU event `RETRY_RESULT`).
    pub result_retries: (u64, u64),
    /// RETRYs participants sent for a late result, and contributions they resent on NothingToResend
    /// ([`CampaignReport::participant_retries`]).
    pub participant_retries: (u64, u64),
    /// RESPONSEs subservient engines resent on their retry timer (`RETRY`).
    pub engine_retries: u64,
    /// Rounds the manager's admission held back a period while an engine of theirs was filled
    /// ([`CampaignReport::deferred`]): TLP, Soft Portals.
    pub deferred: (usize, usize),
    /// Soft Portals rounds whose start arm met an engine still armed under its seqno or a newer one
    /// ([`CampaignReport::portals_stale_starts`]).
    pub portals_stale_starts: usize,
    /// Rounds left open at a period's end (non-posted and Portals; must be 0).
    pub stuck: usize,
    /// The first rounds left open (engine, descriptor, context, state), for the report.
    pub stuck_first: Vec<String>,
    /// Posted rounds left open until their job's STOP.
    pub open_posted: usize,
    /// Descriptors held after the teardown (must be 0).
    pub leaked: usize,
    /// Reductions without a success and without a fault or exhaustion to explain them (must be 0).
    pub unexplained: usize,
    /// The bound on a success's time to complete ([`success_bound`]; 0 for the fault-free row), ps.
    pub bound_ps: Ps,
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// Per class, the failed reductions by first cause ([`crate::explain::first_cause`]): (cause,
    /// reductions, of them with that fault alone), most frequent first.
    pub causes: Vec<(String, Vec<(String, usize, usize)>)>,
    /// Per class: (class, failed reductions, of them those for which an engine found no descriptor in
    /// their period, `no descriptor` among their causes: `ACTIVATE_NO_DESC` / `ARM_NO_DESC`).
    pub no_descriptor: Vec<(String, usize, usize)>,
}

/// The failed reductions of `rs` by first cause: (cause, reductions, with that fault alone), most
/// frequent first.
pub fn causes<'a>(rs: impl Iterator<Item = &'a Reduction>) -> Vec<(String, usize, usize)> {
    let mut m: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for r in rs.filter(|r| r.outcome != Outcome::Success) {
        let e = m.entry(crate::explain::first_cause(&r.causes).to_string()).or_default();
        e.0 += 1;
        e.1 += usize::from(crate::explain::single(&r.causes));
    }
    let mut v: Vec<(String, usize, usize)> = m.into_iter().map(|(k, (n, one))| (k, n, one)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

impl GoodputRow {
    /// The row of a campaign run at drop rate `drop`.
    pub fn of(drop: f64, seed: u64, r: &CampaignReport) -> GoodputRow {
        let rs = &r.reductions;
        GoodputRow {
            drop,
            seed,
            tlp_non_posted: ClassStats::of(rs.iter().filter(|x| !x.portals && !x.posted)),
            tlp_posted: ClassStats::of(rs.iter().filter(|x| !x.portals && x.posted)),
            portals: ClassStats::of(rs.iter().filter(|x| x.portals && !x.twin)),
            portals_twin: ClassStats::of(rs.iter().filter(|x| x.portals && x.twin)),
            end_node_retries: r.end_node_retries,
            start_retries: r.start_retries,
            init_retries: r.init_retries,
            start_watch_retries: r.start_watch_retries,
            result_retries: (r.result_retries, r.events.get("RETRY_RESULT").copied().unwrap_or(0)),
            participant_retries: r.participant_retries,
            engine_retries: r.events.get("RETRY").copied().unwrap_or(0),
            deferred: r.deferred,
            portals_stale_starts: r.portals_stale_starts,
            stuck: r.stuck.len(),
            stuck_first: r.stuck.iter().take(5).cloned().collect(),
            open_posted: r.open_posted.len(),
            leaked: r.leaked.len(),
            unexplained: r.unexplained().len(),
            bound_ps: 0,
            wall_s: r.wall_s,
            no_descriptor: [
                ("TLP non-posted", rs.iter().filter(|x| !x.portals && !x.posted).collect::<Vec<_>>()),
                ("TLP posted", rs.iter().filter(|x| !x.portals && x.posted).collect()),
                ("Soft Portals", rs.iter().filter(|x| x.portals && !x.twin).collect()),
                ("Soft Portals twin trees", rs.iter().filter(|x| x.portals && x.twin).collect()),
            ]
            .into_iter()
            .map(|(name, v)| {
                let failed: Vec<&&Reduction> = v.iter().filter(|x| x.outcome != Outcome::Success).collect();
                (name.to_string(), failed.len(), failed.iter().filter(|x| x.causes.iter().any(|c| c == "no descriptor")).count())
            })
            .collect(),
            causes: vec![
                ("TLP non-posted".into(), causes(rs.iter().filter(|x| !x.portals && !x.posted))),
                ("TLP posted".into(), causes(rs.iter().filter(|x| !x.portals && x.posted))),
                ("Soft Portals".into(), causes(rs.iter().filter(|x| x.portals && !x.twin))),
                ("Soft Portals twin trees".into(), causes(rs.iter().filter(|x| x.portals && x.twin))),
            ],
        }
    }

    /// The classes with their names.
    pub fn classes(&self) -> [(&'static str, &ClassStats); 4] {
        [("TLP non-posted", &self.tlp_non_posted), ("TLP posted", &self.tlp_posted), ("Soft Portals", &self.portals), ("Soft Portals twin trees", &self.portals_twin)]
    }
}

/// The bound no successful reduction may exceed (issue 20 item 3), from the campaign's timers: the
/// slowest fault-free success (`fault_free_max`: the 300 ns lead, the paths, the compute time), plus
/// the most the faults and the retries may add to a result that still counts every contribution with no
/// error mark:
/// - the longest late contribution (`faults.late_ps.1`);
/// - every end-node retry of a contribution (`end_retry`: attempts x interval: the one counted may be
///   the last), and every START retry of the source (`start_retry`);
/// - every RESPONSE retry of a subservient (`RETRY_LIMIT_RESET` x its retry timer, which reloads at each
///   resend and expires within `timeout_ticks` ticks of `tick_cycles` engine cycles, `docs/blocks/cpu.md`
///   §Timers), plus one tick of the prescaler's phase;
/// - every INITIALIZATION retry the START waits for (`init_retry`), and every START resend after the
///   acknowledgement (`start_watch`) followed by a whole fault-free round (the first round's result lost,
///   the resend runs a second, [`Reduction::second_round`]).
///
/// Not in it: a master's timeout (2x), which ends a round *without* success (its result is marked as
/// an error).
pub fn success_bound(spec: &CampaignSpec, fault_free_max: Ps) -> Ps {
    use inswitch_model::cpu::config::RETRY_LIMIT_RESET;
    let tick = Ps::from(spec.tick_cycles) * crate::sim::ENGINE_CLOCK_PS;
    let sub_timeout = Ps::from(spec.timeout_ticks) * tick;
    let late = if spec.faults.late > 0.0 { spec.faults.late_ps.1 } else { 0 };
    let end = spec.end_retry.map_or(0, |(after, n)| after * Ps::from(n));
    let start = spec.start_retry.map_or(0, |(after, n)| after * Ps::from(n));
    let init = spec.init_retry.map_or(0, |(after, n)| after * Ps::from(n));
    // A START resent after the acknowledgement may run a second round (the first's result lost): the
    // last resend, then a round again.
    let watch = spec.start_watch.map_or(0, |(after, n)| after * Ps::from(n) + fault_free_max);
    let tlp = fault_free_max + late + end + start + init + watch + Ps::from(RETRY_LIMIT_RESET) * sub_timeout + tick;
    // A Portals round restarted (`portals_restart`): the restart, then a round with its arm retries,
    // late contributions and engines' timeouts.
    let rearm = spec.portals_rearm.map_or(0, |(after, n)| after * Ps::from(n));
    let portals = spec.portals_restart.map_or(0, |r| r + fault_free_max + rearm + late + sub_timeout + tick);
    tlp.max(portals)
}

/// Runs the campaign of [`spec`] at the fault-free point (drop 0, no other fault, no exhaustion: the
/// reference times) and at every rate of `drops` (other faults as the fault campaign's), `reductions`
/// each. `progress` is called after each point.
pub fn sweep(seed: u64, reductions: usize, drops: &[f64], recovery: Recovery, progress: &mut dyn FnMut(&GoodputRow)) -> (GoodputRow, Vec<GoodputRow>) {
    let clean = spec(seed, reductions, FaultConfig::default(), 0.0, recovery);
    let base = GoodputRow::of(0.0, seed, &campaign::run(&clean));
    progress(&base);
    let fault_free_max = base.classes().iter().map(|(_, c)| c.max_ps).max().unwrap_or(0);
    let rows = drops
        .iter()
        .map(|&d| {
            let s = spec(seed, reductions, faults(d), EXHAUST, recovery);
            let mut row = GoodputRow::of(d, seed, &campaign::run(&s));
            row.bound_ps = success_bound(&s, fault_free_max);
            progress(&row);
            row
        })
        .collect();
    (base, rows)
}

/// The diagnosis (`inswitch goodput --explain`): per drop rate and class, the failed reductions by
/// first cause, the `top` most frequent, as a Markdown table (cause, failed rounds, share of the
/// class's failures, rounds where it was the only fault).
pub fn explain_table(rows: &[GoodputRow], top: usize) -> String {
    let mut s = String::from("| drop | class | first cause | failed rounds | share of the failures | that fault alone |\n|---|---|---|---|---|---|\n");
    for row in rows {
        for (class, v) in &row.causes {
            let total: usize = v.iter().map(|x| x.1).sum();
            for (cause, n, one) in v.iter().take(top) {
                s += &format!("| {:.1} % | {class} | {cause} | {n} | {:.0} % | {one} |\n", row.drop * 100.0, 100.0 * *n as f64 / total.max(1) as f64);
            }
        }
    }
    s += "\n| drop | class | failed rounds | of them, an engine found no descriptor for the context in its period |\n|---|---|---|---|\n";
    for row in rows {
        for (class, failed, nd) in &row.no_descriptor {
            s += &format!("| {:.1} % | {class} | {failed} | {nd} |\n", row.drop * 100.0);
        }
    }
    s
}

fn us(ps: Ps) -> f64 {
    ps as f64 / 1e6
}

/// The sweep as a Markdown table: per drop rate and class, the reductions, success rate, outcomes, and
/// time to complete against the fault-free run's median; then the retries and the state checks.
pub fn table(base: &GoodputRow, rows: &[GoodputRow]) -> String {
    let mut s = String::from("| drop | class | reductions | success | every participant | incomplete | failure | passed up | root timeout | wrong | second round | median us | p99 us | max us | median / fault-free |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for row in std::iter::once(base).chain(rows) {
        for ((name, c), (_, b)) in row.classes().into_iter().zip(base.classes()) {
            let vs = if b.median_ps > 0 && c.median_ps > 0 { format!("{:.2}", c.median_ps as f64 / b.median_ps as f64) } else { "-".into() };
            let every = if name.starts_with("TLP") { format!("{:.2} % ({})", c.delivered_rate() * 100.0, c.delivered) } else { "-".into() };
            s += &format!(
                "| {:.1} % | {name} | {} | {:.2} % ({}) | {every} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {vs} |\n",
                row.drop * 100.0,
                c.n,
                c.rate() * 100.0,
                c.success,
                c.incomplete,
                c.failure,
                c.passed_up,
                c.root_timeout,
                c.wrong,
                c.second_round,
                us(c.median_ps),
                us(c.p99_ps),
                us(c.max_ps)
            );
        }
    }
    s += "\n| drop | end-node retries | INIT retries | START retries | START watch retries | result RETRY / resent | participant RETRY / contribution resent | engine RETRY | deferred TLP / Portals | Portals start arm stale | stuck | posted open | leaked | unexplained | success bound us | wall s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for row in std::iter::once(base).chain(rows) {
        s += &format!(
            "| {:.1} % | {} | {} | {} | {} | {} / {} | {} / {} | {} | {} / {} | {} | {} | {} | {} | {} | {:.2} | {:.1} |\n",
            row.drop * 100.0,
            row.end_node_retries,
            row.init_retries,
            row.start_retries,
            row.start_watch_retries,
            row.result_retries.0,
            row.result_retries.1,
            row.participant_retries.0,
            row.participant_retries.1,
            row.engine_retries,
            row.deferred.0,
            row.deferred.1,
            row.portals_stale_starts,
            row.stuck,
            row.open_posted,
            row.leaked,
            row.unexplained,
            us(row.bound_ps),
            row.wall_s
        );
    }
    s
}
