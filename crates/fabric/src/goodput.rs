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
    /// "received" (always, in the fabric).
    PerPacket,
}

/// End-node contribution retry interval under [`Recovery::PerPacket`], ps.
pub const END_RETRY_PS: Ps = 1_000_000;
/// Source START retry interval under [`Recovery::PerPacket`] (longer than a START's round trip to the
/// master and its acknowledgement back, ~0.2 us here), ps.
pub const START_RETRY_PS: Ps = 500_000;
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
    };
    if recovery == Recovery::PerPacket {
        s.end_retry = Some((END_RETRY_PS, 3));
        s.timeout_ticks = RECOVERY_TIMEOUT_TICKS;
        s.period_ps = RECOVERY_PERIOD_PS;
        s.start_retry = Some((START_RETRY_PS, 3));
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
    /// Soft Portals rounds.
    pub portals: ClassStats,
    /// Contributions end nodes resent (their retry timer).
    pub end_node_retries: u64,
    /// STARTs sources resent (not acknowledged in time).
    pub start_retries: u64,
    /// RESPONSEs subservient engines resent on their retry timer (`RETRY`).
    pub engine_retries: u64,
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
            portals: ClassStats::of(rs.iter().filter(|x| x.portals)),
            end_node_retries: r.end_node_retries,
            start_retries: r.start_retries,
            engine_retries: r.events.get("RETRY").copied().unwrap_or(0),
            stuck: r.stuck.len(),
            stuck_first: r.stuck.iter().take(5).cloned().collect(),
            open_posted: r.open_posted.len(),
            leaked: r.leaked.len(),
            unexplained: r.unexplained().len(),
            bound_ps: 0,
            wall_s: r.wall_s,
        }
    }

    /// The classes with their names.
    pub fn classes(&self) -> [(&'static str, &ClassStats); 3] {
        [("TLP non-posted", &self.tlp_non_posted), ("TLP posted", &self.tlp_posted), ("Soft Portals", &self.portals)]
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
///   §Timers), plus one tick of the prescaler's phase.
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
    fault_free_max + late + end + start + Ps::from(RETRY_LIMIT_RESET) * sub_timeout + tick
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

fn us(ps: Ps) -> f64 {
    ps as f64 / 1e6
}

/// The sweep as a Markdown table: per drop rate and class, the reductions, success rate, outcomes, and
/// time to complete against the fault-free run's median; then the retries and the state checks.
pub fn table(base: &GoodputRow, rows: &[GoodputRow]) -> String {
    let mut s = String::from("| drop | class | reductions | success | incomplete | failure | passed up | root timeout | wrong | median us | p99 us | max us | median / fault-free |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for row in std::iter::once(base).chain(rows) {
        for ((name, c), (_, b)) in row.classes().into_iter().zip(base.classes()) {
            let vs = if b.median_ps > 0 && c.median_ps > 0 { format!("{:.2}", c.median_ps as f64 / b.median_ps as f64) } else { "-".into() };
            s += &format!(
                "| {:.1} % | {name} | {} | {:.2} % ({}) | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {vs} |\n",
                row.drop * 100.0,
                c.n,
                c.rate() * 100.0,
                c.success,
                c.incomplete,
                c.failure,
                c.passed_up,
                c.root_timeout,
                c.wrong,
                us(c.median_ps),
                us(c.p99_ps),
                us(c.max_ps)
            );
        }
    }
    s += "\n| drop | end-node retries | START retries | engine RETRY | stuck | posted open | leaked | unexplained | success bound us | wall s |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for row in std::iter::once(base).chain(rows) {
        s += &format!(
            "| {:.1} % | {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.1} |\n",
            row.drop * 100.0,
            row.end_node_retries,
            row.start_retries,
            row.engine_retries,
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
