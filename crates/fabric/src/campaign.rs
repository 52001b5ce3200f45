//! The fault campaign (issue 7): many small jobs, back to back and overlapping on the same end nodes
//! and engines, each running reductions on its own context under random faults; every reduction is
//! classified by what its root (the source node) received, and the engines' state is checked after
//! every period and after the teardown. `docs/fabric.md` §Faults, `tests/faults.rs`.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use rand::RngExt;

use crate::faults::{FaultConfig, FaultCounts, FaultInjector, FaultKind};
use crate::setup::{ContextPlan, EngineContext, Member, Plan, Role};
use crate::sim::portals::{self, Leaf, Root};
use crate::sim::{Fabric, SimConfig, ENGINE_CLOCK_PS};
use crate::topology::{Ps, Topology};
use crate::wire::LinkFrame;
use inswitch_frames::portals::ReductionFrame;
use inswitch_model::cpu::context::CtxState;
use inswitch_model::cpu::event;
use inswitch_model::packet_engine::EngineParams;

mod portals_trees;
pub use portals_trees::{ctx_tree, portals_ctx, portals_plan, stale_arming, PortalsCtx, PORTALS_MAGIC, PORTALS_VNI};

/// INT_SUM (`docs/blocks/reduce_unit.md`).
pub const INT_SUM: u8 = 0x14;
/// Register-space counter of the input checker's LCRC drops (`docs/blocks/register_space.md` §Counters: 2 + k,
/// k = `input_checker::event::LCRC`).
pub const LCRC_COUNTER: usize = 2 + inswitch_model::input_checker::event::LCRC as usize;

/// A campaign.
#[derive(Clone, Debug)]
pub struct CampaignSpec {
    /// Seed of the faults and of every random choice.
    pub seed: u64,
    /// The fabric.
    pub topology: Topology,
    /// Contexts configured (the pool jobs are drawn from; each job is one context).
    pub contexts: usize,
    /// Jobs running at once.
    pub slots: usize,
    /// Reductions to run in all.
    pub reductions: usize,
    /// Reductions per job (inclusive range).
    pub per_job: (usize, usize),
    /// Participants per job (inclusive range).
    pub job_size: (usize, usize),
    /// Random faults.
    pub faults: FaultConfig,
    /// Probability, per period, that one engine's descriptors are filled for one to three periods.
    pub exhaust: f64,
    /// Time between the reductions of a job (each one starts with its INITIALIZATIONs), ps.
    pub period_ps: Ps,
    /// CPU tick, cycles (`TICK_CYCLES`).
    pub tick_cycles: u32,
    /// CPU timeouts, ticks (all four; the master's is twice this, `docs/blocks/cpu.md` §Timers).
    pub timeout_ticks: u32,
    /// Descriptors per engine.
    pub descriptors: usize,
    /// End nodes: compute time before answering a command, ps.
    pub compute_ps: Ps,
    /// End nodes resend an unanswered contribution after this long, this many times.
    pub end_retry: Option<(Ps, u8)>,
    /// Soft Portals trees (seed 002) in the pool besides the `contexts` TLP contexts
    /// ([`portals_plan`]); each reduction of one is one round its root end node arms.
    pub portals_jobs: usize,
    /// Share of the TLP contexts run **posted** (0.0 to 1.0, spread evenly over the pool, [`is_posted`]):
    /// their INITIALIZATIONs are posted, so a subservient has no retry timer (000 \[0098\]: posted
    /// is best effort). The others are stored and reinitialized non-posted.
    pub posted_share: f64,
    /// Non-posted contexts' sources send their START non-posted and resend it after this long, this
    /// many times, until the master acknowledges it ([`Fabric::start_acked`]; `None`: a posted START).
    pub start_retry: Option<(Ps, u8)>,
    /// Non-posted contexts' sources resend an unacknowledged INITIALIZATION after this long, this many
    /// times, and send the START when the last is acknowledged ([`Fabric::reinitialize_acked`]; `None`:
    /// sent once, the START at its time).
    pub init_retry: Option<(Ps, u8)>,
    /// After the master's acknowledgement of the START, the source resends it after this long, this many
    /// times, until the result reaches it ([`Fabric::start_watched`]; `None`: not after the
    /// acknowledgement). Needs [`CampaignSpec::start_retry`].
    pub start_watch: Option<(Ps, u8)>,
    /// A participant whose result is late asks its engine for the kept result with a RETRY every `.0`
    /// ps, at most `.1` times ([`Fabric::participant_watch`], issue 20; `None`: never).
    pub participant_watch: Option<(Ps, u8)>,
    /// Share of the Soft Portals trees that run on twin trees (002 (70)-(72), [`portals_twin_plan`]),
    /// spread as [`is_posted`] spreads posted contexts.
    pub portals_twin_share: f64,
    /// The Portals roots' arm retry ([`crate::sim::portals::Root::rearm`]; `None`: none).
    pub portals_rearm: Option<(Ps, u8)>,
    /// The Portals roots' round restart ([`crate::sim::portals::Root::restart`]; `None`: none). A round
    /// then takes two seqnos of its tree's counter (its own and its restart's, drawn when it restarts).
    pub portals_restart: Option<Ps>,
    /// Rounds a Soft Portals job starts at once in a period, each under the tree's next reduction id
    /// (DFA bits 20-18, 002 (60)-(61); 1 to [`portals::REDUCTIONS_PER_TREE`]): consecutive rounds of a
    /// tree take the ids in turn, as libfabric's CXI provider gives each collective the next
    /// `next_red_id` of its multicast object (`cxip_coll.c`, `_cxip_coll_inject`), so up to 8 run at
    /// once on one tree. 1: one round per period (each still under the next id).
    pub portals_in_flight: usize,
    /// Admission by the manager (003: a tree avoids "switches whose reduction capacity is exhausted"):
    /// while an exhaustion episode's fillers (another tenant's contexts, which the manager admitted)
    /// hold an engine's descriptors, a round that would need a new descriptor there waits a period
    /// instead of running without one ([`CampaignReport::deferred`]); a TLP job that took its
    /// descriptors before the episode keeps running. `false`: rounds run regardless (the fault
    /// campaign, which asserts the pass-up paths).
    pub admission: bool,
}

/// Whether TLP context `k` of the pool runs posted, for a share `share` of posted contexts: the
/// contexts where `floor((k + 1) * share)` steps up, spread evenly and drawing no random number (the
/// rest of the campaign's draws stay those of a campaign without posted contexts).
pub fn is_posted(k: usize, share: f64) -> bool {
    ((k + 1) as f64 * share).floor() > (k as f64 * share).floor()
}

/// How a reduction ended, as its root saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// A result with every contribution counted, no error mark, and the right value.
    Success,
    /// A result marked as an error or counting fewer contributions than the participants.
    Incomplete,
    /// No result; FAILURE messages reached the root.
    Failure,
    /// No result; contributions passed up by an engine without a descriptor reached the root.
    PassedUp,
    /// Nothing reached the root: its own timeout (the period) ends the reduction.
    RootTimeout,
    /// A result claiming every contribution with no error mark whose value is not the reduction
    /// of the contributions (must never happen).
    WrongSuccess,
    /// A result counting more contributions than there are participants (must never happen).
    Overcount,
}

/// One reduction.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// CC_ID.
    pub cc_id: u16,
    /// When its INITIALIZATIONs left, ps.
    pub at: Ps,
    /// Participants.
    pub participants: usize,
    /// The reduction of every participant's value (INT_SUM, lane 0), computed here.
    pub expected: u64,
    /// Best result the root got: (contributions counted, error mark, lane 0).
    pub result: Option<(u16, bool, u64)>,
    /// How it ended.
    pub outcome: Outcome,
    /// For one that did not succeed: a fault hit one of its frames, or an engine found no descriptor
    /// for it (`ACTIVATE_NO_DESC`), during its period.
    pub explained: bool,
    /// The master received a CONTRIBUTION passed up by a subservient engine (a late or duplicate one
    /// arriving after the subservient's partial result went up, `docs/blocks/cpu.md` §Messages PASS_UP). It keeps
    /// the P_ID of the subservient's PBV table, which the master reads in its own table: the known
    /// hazard behind a wrong result (`docs/fabric.md` §Faults, findings).
    pub passed_up_to_master: bool,
    /// A Soft Portals round (then `cc_id` is the tree, `participants` the leaves, and the result
    /// the root end node's: its count, no error mark, lane 0).
    pub portals: bool,
    /// A TLP reduction of a posted context ([`CampaignSpec::posted_share`]).
    pub posted: bool,
    /// For a Success: time from its INITIALIZATIONs (TLP) or its period's start (Portals; the arm
    /// leaves 300 ns later in both) to the root's complete result, ps.
    pub latency: Option<Ps>,
    /// For one that did not succeed: the faults on its frames in its period, in time order, labelled
    /// by [`crate::explain`] (`drop COMPLETION/2 master->src`, `exhaustion`, `no descriptor`).
    pub causes: Vec<String>,
    /// The faults behind [`Reduction::causes`] (the ones on its frames and the exhaustion episodes, in
    /// the same order; a Soft Portals round's are on frames of its own reduction id and seqnos,
    /// [`crate::faults::PortalsMark::of_round`]).
    pub faults: Vec<crate::faults::Fault>,
    /// A Success whose complete result carries a later TID than the reduction's: its first round's result
    /// was lost on its way to the root and a START resent after it ([`CampaignSpec::start_watch`]) ran
    /// the round again on the same values (the engine keeps no result to resend, `docs/fabric.md`
    /// §Goodput).
    pub second_round: bool,
    /// A Soft Portals round run on twin trees ([`PortalsCtx::twin`]).
    pub twin: bool,
    /// A Soft Portals round's reduction id (DFA bits 20-18, [`CampaignSpec::portals_in_flight`]); `None`
    /// for a TLP reduction.
    pub rid: Option<u8>,
    /// TLP: every participant end node got the round's result in its period (a COMPLETION code 2 / 3
    /// counting every participant, no error mark, lane 0 the expected value: [`delivered_to_all`]);
    /// `None` for a Soft Portals round (its leaves get no result here).
    pub all_delivered: Option<bool>,
}

/// What the campaign measured.
#[derive(Clone, Debug, Default)]
pub struct CampaignReport {
    /// Every reduction.
    pub reductions: Vec<Reduction>,
    /// Outcomes counted.
    pub outcomes: BTreeMap<String, usize>,
    /// Faults injected, by kind.
    pub faults: FaultCounts,
    /// CPU events summed over the engines, by name (the ones that matter here).
    pub events: BTreeMap<&'static str, u64>,
    /// Descriptors not Idle (or expired) at the end of a period: a round left open.
    pub stuck: Vec<String>,
    /// The same for a posted context's descriptor: a posted subservient has no retry timer, so a lost
    /// RESPONSE (or a missed INITIALIZATION, a TID behind its master) leaves its round open until the
    /// job's STOP (counted, not a failure of the engine: posted is best effort, 000 \[0098\]).
    pub open_posted: Vec<String>,
    /// Descriptors still allocated after the teardown (STOP of every context, fillers reset).
    pub leaked: Vec<String>,
    /// Corrupted frames that reached an engine, and the engines' LCRC drop counters summed.
    pub corrupt_to_engines: u64,
    /// Sum of the engines' LCRC drop counters.
    pub lcrc_counted: u64,
    /// Corrupted frames the engines' interposers passed (not for the engine any more).
    pub corrupt_passed: u64,
    /// Corrupted frames end nodes dropped.
    pub end_node_lcrc_drops: u64,
    /// Contributions resent by end nodes.
    pub end_node_retries: u64,
    /// STARTs resent by sources.
    pub start_retries: u64,
    /// INITIALIZATIONs resent by sources ([`CampaignSpec::init_retry`]).
    pub init_retries: u64,
    /// STARTs resent by sources after the acknowledgement, waiting for the result
    /// ([`CampaignSpec::start_watch`]).
    pub start_watch_retries: u64,
    /// RETRY requests sources sent for a result not in after the acknowledgement
    /// ([`crate::sim::Stats::result_retries`]; the masters' answers with the result are their CPU event
    /// `RETRY_RESULT` in [`CampaignReport::events`]).
    pub result_retries: u64,
    /// RETRYs participants sent for a late result, and contributions they resent on NothingToResend
    /// ([`crate::sim::Stats::participant_retries`], [`crate::sim::Stats::participant_resends`]).
    pub participant_retries: (u64, u64),
    /// The Soft Portals forwarding and end-node counters (stale frames the roots dropped, late
    /// contributions).
    pub portals: crate::sim::portals::PortalsStats,
    /// Soft Portals rounds whose start arm an engine of their tree (or twin) would drop as not newer
    /// (`STALE_ARM`, 002 (71)) when their period began: it still held an arming under the round's seqno
    /// or a newer one (the previous round's result arm, [`Fabric::portals_next_seqno`]), and the round
    /// would run on that arming and its timer ([`stale_arming`]).
    pub portals_stale_starts: usize,
    /// Soft Portals rounds that waited a period because the tree's next reduction id was still open at
    /// its root end node ([`CampaignSpec::portals_in_flight`]; libfabric's `-FI_EAGAIN`).
    pub portals_id_busy: usize,
    /// Rounds [`CampaignSpec::admission`] held back a period (a job counted once per period it waited):
    /// (TLP, Soft Portals).
    pub deferred: (usize, usize),
    /// Engine cycles stepped.
    pub engine_steps: u64,
    /// Simulated time, ps.
    pub sim_ps: Ps,
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// The fault log, printed on failure.
    pub fault_log: String,
}

impl CampaignReport {
    /// Reductions that did not succeed with no fault or exhaustion to explain it.
    pub fn unexplained(&self) -> Vec<&Reduction> {
        self.reductions.iter().filter(|r| !r.explained).collect()
    }

    /// Reductions with `o`.
    pub fn count(&self, o: Outcome) -> usize {
        self.reductions.iter().filter(|r| r.outcome == o).count()
    }

    /// A summary (seed, numbers), one item a line.
    pub fn summary(&self, seed: u64) -> String {
        format!(
            "seed {seed:#x}: {} reductions {:?}\nfaults {:?}\nevents {:?}\nstuck {} (posted open {}) leaked {} corrupt->engines {} LCRC counted {} passed {} end-node LCRC drops {} end-node retries {}\nportals {:?}\nengine steps {} sim {:.3} ms wall {:.1} s",
            self.reductions.len(),
            self.outcomes,
            self.faults,
            self.events,
            self.stuck.len(),
            self.open_posted.len(),
            self.leaked.len(),
            self.corrupt_to_engines,
            self.lcrc_counted,
            self.corrupt_passed,
            self.end_node_lcrc_drops,
            self.end_node_retries,
            self.portals,
            self.engine_steps,
            self.sim_ps as f64 / 1e9,
            self.wall_s
        )
    }
}

/// A distributed plan of one job: the master in the source's switch serves the other engines with
/// participants (PBV entries marked "switch", first) and its own switch's participants; each other
/// engine serves its switch's participants (as `setup::plan`, on a subset of the end nodes).
pub fn job_plan(t: &Topology, cc_id: u16, operation: u8, source: usize, participants: &[usize]) -> ContextPlan {
    let master = t.endpoints[source].switch;
    let mut subs: Vec<usize> = participants.iter().map(|&e| t.endpoints[e].switch).filter(|&s| s != master).collect();
    subs.sort_unstable();
    subs.dedup();
    let local = |s: usize| participants.iter().filter(move |&&e| t.endpoints[e].switch == s).map(|&e| Member { id: t.endpoints[e].id, switch: false });
    let mut members: Vec<Member> = subs.iter().map(|&s| Member { id: t.switches[s].engine_id, switch: true }).collect();
    members.extend(local(master));
    let mut engines = vec![EngineContext { switch: master, role: Role::Master, members }];
    engines.extend(subs.iter().map(|&s| EngineContext { switch: s, role: Role::Subservient, members: local(s).collect() }));
    ContextPlan { cc_id, operation, accumulator: 0, source, participants: participants.to_vec(), engines }
}

/// First multicast tree of the campaign's Portals trees (apart from the TLP CC_IDs in the logs); a
/// multiple of [`CAMPAIGN_STATIC_ENTRIES`], so that tree `PORTALS_TREE_BASE + j` has static entry `j`.
pub const PORTALS_TREE_BASE: u16 = 0x100;
/// Static entries of the campaign's engines: TLP contexts at entries 1..=contexts (their CC_IDs), the
/// Portals trees after them, the exhaustion fillers at the top.
pub const CAMPAIGN_STATIC_ENTRIES: usize = 64;
/// Trees (primaries and twins) a switch carries before the campaign places no further twin through it:
/// the register space's 16 multicast slots until session 24. Its entries are one per tree since
/// (docs/blocks/register_space.md §Multicast entries), so this is the campaign's choice, kept so that the
/// twin-tree share of the measured campaigns (docs/fabric.md §Goodput) stays the one measured; raising it
/// places a twin for more trees and needs the campaigns re-run.
pub const TWIN_TREES_PER_SWITCH: usize = 16;


/// Sets the CPU timeouts of every engine (`TIMEOUT[0..3]`, `docs/blocks/cpu.md` §Ports) to `ticks`: register
/// writes into RED_TIMEOUT[0..3] from end node 0, which the register space forwards to the CPU
/// (`docs/blocks/register_space.md` §CPU window). The fabric is first run until quiet, so that the bring-up's
/// timeouts (sent from another node, on another path) are in before these. Run the fabric before
/// relying on them.
pub fn set_timeouts(f: &mut Fabric, ticks: u32) {
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let now = f.now();
    for s in 0..f.topo.switches.len() {
        for k in 0..inswitch_model::cpu::context::TIMEOUTS as u16 {
            f.write_register(0, now, s, inswitch_model::register_space::offset::RED_TIMEOUT as u16 + 4 * k, ticks);
        }
    }
}

/// Every engine of `contexts` stores them non-posted, before any fault is injected: each context's
/// INITIALIZATIONs again, non-posted ([`Fabric::reinitialize`], with the source's TID + 1), the
/// fabric run until quiet.
///
/// Why: the configuration's INITIALIZATIONs are posted (the manager does not wait for them,
/// [`crate::manager::plan`]), and an engine runs a reduction from the last INITIALIZATION it
/// received. One that misses a reduction's INITIALIZATION (a fault) would run it posted and a TID
/// behind its master (the START activates it from what it stored). Posted, a subservient's
/// RESPONSE has no retry timer (`docs/blocks/cpu.md` §Timers): if that RESPONSE is lost, nothing closes the
/// round, since the master's COMPLETION carries the new TID, one ahead of the engine's, and is
/// dropped (`BAD_TID`, `docs/blocks/cpu.md` §Messages). Non-posted, the retry timer resends the RESPONSE, the
/// master answers it "already completed" (`OLD_TID`) and the engine exits (001's lost-Exit
/// recovery), or its retries run out (`RETRY_EXHAUSTED`): the round ends either way.
pub fn store_non_posted(f: &mut Fabric, contexts: &[ContextPlan]) {
    let at = f.now() + STORE_LEAD_PS;
    for c in contexts {
        f.reinitialize(c.cc_id, at, true);
    }
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
}

/// How long after a reduction's INITIALIZATIONs its source sends the START (at the earliest), ps.
pub const START_LEAD_PS: Ps = 300_000;

/// How long after the fabric's present time [`store_non_posted`] sends its INITIALIZATIONs, ps
/// (as the campaign's first STOP: any time after the present will do).
const STORE_LEAD_PS: Ps = 1_000_000;

/// Whether every participant end node in `ids` got the round's result among the deliveries
/// `from_log..to_log`: a COMPLETION code 2 / 3 of context `cc` counting every participant, no error mark,
/// lane 0 `expected` (the all-reduce delivered, not only the root's copy).
pub fn delivered_to_all(f: &Fabric, from_log: usize, to_log: usize, ids: &[u16], cc: u16, expected: u64) -> bool {
    let log = &f.log[from_log..to_log];
    ids.iter().all(|&id| {
        log.iter().any(|d| d.to == id && d.cc_id == cc && d.kind == 6 && matches!(d.code, 2 | 3) && usize::from(d.contributions) == ids.len() && !d.error && d.operands.first() == Some(&expected))
    })
}

/// How the root's deliveries for one reduction classify it.
pub fn classify(f: &Fabric, from_log: usize, to_log: usize, root: u16, cc: u16, n: usize, expected: u64) -> (Outcome, Option<(u16, bool, u64)>) {
    let mut result: Option<(u16, bool, u64)> = None;
    let (mut failure, mut passed, mut wrong, mut over) = (false, false, false, false);
    let mut success = false;
    for d in f.log[from_log..to_log].iter().filter(|d| d.to == root && d.cc_id == cc) {
        match (d.kind, d.code) {
            (6, 2 | 3) => {
                let v = d.operands.first().copied().unwrap_or(0);
                let r = (d.contributions, d.error, v);
                if usize::from(d.contributions) > n {
                    over = true;
                } else if usize::from(d.contributions) == n && !d.error {
                    if v == expected {
                        success = true;
                    } else {
                        wrong = true;
                    }
                }
                if result.is_none_or(|x| x.0 < r.0) {
                    result = Some(r);
                }
            }
            (8, _) => failure = true,
            (4 | 5, _) => passed = true,
            _ => {}
        }
    }
    let o = if wrong {
        Outcome::WrongSuccess
    } else if over {
        Outcome::Overcount
    } else if success {
        Outcome::Success
    } else if result.is_some() {
        Outcome::Incomplete
    } else if failure {
        Outcome::Failure
    } else if passed {
        Outcome::PassedUp
    } else {
        Outcome::RootTimeout
    };
    (o, result)
}

struct Slot {
    ctx: Option<usize>,
    left: usize,
    /// The period of the job's first round: a TLP job holds its descriptors from then until its STOP.
    since: Option<usize>,
}

/// Runs the campaign.
pub fn run(spec: &CampaignSpec) -> CampaignReport {
    let wall = Instant::now();
    let t = &spec.topology;
    let mut rng = FaultInjector::side_rng(spec.seed);
    let params = EngineParams { tick_cycles: spec.tick_cycles, descriptors: spec.descriptors, static_entries: CAMPAIGN_STATIC_ENTRIES, ..EngineParams::default() };
    let cfg = SimConfig { hop_latency_ps: 50_000, engine_params: params, ..SimConfig::default() };
    let mut f = Fabric::new(t.clone(), cfg).expect("fabric");
    // The trace prints the last frames' bytes after the run.
    f.keep_frame_bytes = std::env::var_os("INSWITCH_CAMPAIGN_TRACE").is_some();
    // The pool of contexts (jobs): random sources and participants, overlapping.
    let n_end = t.endpoints.len();
    let contexts: Vec<ContextPlan> = (0..spec.contexts)
        .map(|k| {
            let source = rng.random_range(0..n_end);
            let size = rng.random_range(spec.job_size.0..=spec.job_size.1).min(n_end - 1);
            let mut others: Vec<usize> = (0..n_end).filter(|&e| e != source).collect();
            for i in 0..size {
                let j = rng.random_range(i..others.len());
                others.swap(i, j);
            }
            others.truncate(size);
            others.sort_unstable();
            job_plan(t, 1 + k as u16, INT_SUM, source, &others)
        })
        .collect();
    crate::drive::configure(&mut f, &Plan { contexts: contexts.clone() }, 0, &|_| 0).expect("configure");
    set_timeouts(&mut f, spec.timeout_ticks);
    f.auto_respond(Some(spec.compute_ps));
    f.end_node_retry(spec.end_retry);
    f.participant_watch(spec.participant_watch);
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let posted: Vec<bool> = (0..contexts.len()).map(|k| is_posted(k, spec.posted_share)).collect();
    let non_posted: Vec<ContextPlan> = contexts.iter().zip(&posted).filter(|(_, &p)| !p).map(|(c, _)| c.clone()).collect();
    store_non_posted(&mut f, &non_posted);
    // Configuration activated the contexts: stop them all, so jobs take descriptors when they run.
    let t0 = f.now() + 1_000_000;
    for c in &contexts {
        f.control(c, 4, t0);
    }
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    // The Portals trees (seed 002), drawn as the TLP contexts are; static entries above the TLP
    // contexts' (`drive::builtin_plans` takes slots from 0); each tree's multicast entry is its own.
    let mut pportals: Vec<PortalsCtx> = Vec::new();
    // Trees per switch, for the twins' cap (`TWIN_TREES_PER_SWITCH`).
    let mut per_engine = vec![0usize; t.switches.len()];
    for k in 0..spec.portals_jobs {
        let source = rng.random_range(0..n_end);
        let size = rng.random_range(spec.job_size.0..=spec.job_size.1).min(n_end - 1);
        let mut leaves: Vec<usize> = (0..n_end).filter(|&e| e != source).collect();
        for i in 0..size {
            let j = rng.random_range(i..leaves.len());
            leaves.swap(i, j);
        }
        leaves.truncate(size);
        leaves.sort_unstable();
        // The CPU's static table is direct-mapped (docs/blocks/cpu.md §Static table): a tree's entry is
        // tree mod STATIC_ENTRIES, so the trees are numbered to land after the TLP contexts' entries
        // (CC_IDs 1..=contexts) and below the fillers' (the top `descriptors` entries).
        let tree = PORTALS_TREE_BASE + (spec.contexts + 1 + k) as u16;
        let entry = crate::manager::static_slot_of(tree, CAMPAIGN_STATIC_ENTRIES);
        let plan = portals_plan(&f, tree, source, &leaves, &|_| entry);
        let mut members: Vec<usize> = leaves.iter().chain([&source]).map(|&e| t.endpoints[e].switch).collect();
        members.sort_unstable();
        members.dedup();
        for s in members {
            per_engine[s] += 1;
        }
        let enc = plan.encode_with(&|s| t.switches[s.0 as usize].engine_id).expect("the Portals plan encodes");
        let now = f.now();
        crate::drive::apply_encoded(&mut f, &plan, &enc, source, now, &|_| INT_SUM, &|_| 0).expect("the Portals plan applies");
        pportals.push(PortalsCtx { tree, dfa: ReductionFrame::multicast_dfa(tree, 0).expect("a 13-bit tree"), source, leaves, next_rid: 0, twin: None });
    }
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    // Twin trees (002 (70)-(72), `crate::twin`): a share of the Portals jobs, spread as posted contexts
    // are, each where a free static entry is left and its switches hold fewer than `TWIN_TREES_PER_SWITCH`
    // trees (a tree's multicast entry is its own since session 24; the cap keeps the measured mix); after
    // every primary, so that the primaries' entries and the campaign's random draws are those of a
    // campaign without twins.
    let mut free_static = (0..CAMPAIGN_STATIC_ENTRIES - spec.descriptors).filter(|&e| !(1..=spec.contexts).contains(&e) && !pportals.iter().any(|p| usize::from(p.tree) % CAMPAIGN_STATIC_ENTRIES == e)).collect::<Vec<usize>>().into_iter();
    for k in 0..pportals.len() {
        if !is_posted(k, spec.portals_twin_share) {
            continue;
        }
        let sw = crate::twin::twin_switches(&f, pportals[k].source, &pportals[k].leaves);
        if sw.iter().any(|&s| per_engine[s] >= TWIN_TREES_PER_SWITCH) {
            continue;
        }
        let Some(entry) = free_static.next() else { break };
        let tree = crate::twin::TWIN_TREE_BASE + entry as u16;
        let plan = crate::twin::portals_twin_plan(&f, tree, PORTALS_VNI, pportals[k].source, &pportals[k].leaves, entry as u16);
        for &s in &sw {
            per_engine[s] += 1;
        }
        let source = pportals[k].source;
        let enc = plan.encode_with(&|s| t.switches[s.0 as usize].engine_id).expect("the twin plan encodes");
        let now = f.now();
        crate::drive::apply_encoded(&mut f, &plan, &enc, source, now, &|_| INT_SUM, &|_| 0).expect("the twin plan applies");
        pportals[k].twin = Some((tree, ReductionFrame::multicast_dfa(tree, 0).expect("a 13-bit tree")));
    }
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let n_tlp = contexts.len();
    let pool = n_tlp + pportals.len();
    // Jobs are taken in this order: the Portals trees spread evenly among the TLP contexts (index k
    // >= n_tlp is Portals tree k - n_tlp), so that short runs have both.
    let mut order: Vec<usize> = (0..pool).collect();
    order.sort_by_key(|&k| if k < n_tlp { (k * pportals.len(), 1) } else { ((k - n_tlp) * n_tlp, 0) });
    let mut inj = FaultInjector::new(spec.seed, spec.faults.clone());
    inj.enabled = true;
    f.inject(inj);
    f.cpu_log = Some(Vec::new());

    let mut report = CampaignReport::default();
    let mut slots: Vec<Slot> = (0..spec.slots).map(|_| Slot { ctx: None, left: 0, since: None }).collect();
    let mut next_ctx = 0usize;
    let mut fill: Option<(usize, usize, usize)> = None; // (switch, fillers, periods left)
    let mut pending: Vec<(usize, Ps, usize, u64, u8)> = Vec::new(); // (context, at, log start, expected, TID)
    let mut ppending: Vec<(usize, Ps, u8, u16, u64)> = Vec::new(); // (Portals context, at, reduction id, seqno, expected)
    let mut start = f.now() + 1_000_000;
    let in_use = |slots: &[Slot], k: usize| slots.iter().any(|s| s.ctx == Some(k));
    let mut done = 0usize;
    let mut period = 0usize;
    let mut fill_since = 0usize; // the period the present (or last) exhaustion episode began
    while done < spec.reductions {
        let filled_before = fill.map(|x| x.0);
        // Engine exhaustion: fill one engine's descriptors for a few periods.
        match fill {
            Some((s, n, 0)) => {
                let via = t.endpoints.iter().position(|e| e.switch == s).expect("an end node");
                f.release_descriptors(s, n, via, start);
                fill = None;
            }
            Some((s, n, left)) => fill = Some((s, n, left - 1)),
            None if rng.random::<f64>() < spec.exhaust => {
                let s = rng.random_range(0..t.switches.len());
                let via = t.endpoints.iter().position(|e| e.switch == s).expect("an end node");
                let n = spec.descriptors;
                f.fill_descriptors(s, n, via, start);
                fill = Some((s, n, rng.random_range(1..=3)));
                fill_since = period;
            }
            None => {}
        }
        for i in 0..slots.len() {
            if slots[i].left == 0 {
                if let Some(k) = slots[i].ctx.take().filter(|&k| k < n_tlp) {
                    f.control(&contexts[k], 4, start);
                }
                // The next context no other slot runs (a new job).
                for _ in 0..pool {
                    let k = order[next_ctx % pool];
                    next_ctx += 1;
                    if !in_use(&slots, k) {
                        slots[i].ctx = Some(k);
                        break;
                    }
                }
                slots[i].left = rng.random_range(spec.per_job.0..=spec.per_job.1);
                slots[i].since = None;
            }
        }
        // The engine the fillers hold, this period (also the period of their release: the release and
        // a new job's INITIALIZATIONs leave at the same time).
        let filled = if spec.admission { fill.map(|x| x.0).or(filled_before) } else { None };
        let log_start = f.log.len();
        for slot in &mut slots {
            let Some(k) = slot.ctx else { continue };
            if done >= spec.reductions {
                break;
            }
            if let Some(s) = filled {
                // Admission (`CampaignSpec::admission`): a round that needs a new descriptor on the
                // filled engine waits. A Portals round arms (takes a descriptor on) the root's switch,
                // every switch with leaves and its twin's engine; a TLP job takes its descriptors at its
                // first round and holds them until its STOP.
                let waits = if k >= n_tlp {
                    let p = &pportals[k - n_tlp];
                    let top = t.endpoints[p.source].switch;
                    s == top || p.leaves.iter().any(|&e| t.endpoints[e].switch == s) || (p.twin.is_some() && crate::twin::twin_engine(&f, top, &p.leaves) == Some(s))
                } else {
                    contexts[k].engines.iter().any(|e| e.switch == s) && slot.since.is_none_or(|p| p >= fill_since)
                };
                if waits {
                    if k >= n_tlp {
                        report.deferred.1 += 1;
                    } else {
                        report.deferred.0 += 1;
                    }
                    continue;
                }
            }
            slot.since.get_or_insert(period);
            if k >= n_tlp {
                // Portals rounds: `portals_in_flight` at once, each under the tree's next reduction id.
                for _ in 0..spec.portals_in_flight.clamp(1, portals::REDUCTIONS_PER_TREE) {
                    if done >= spec.reductions {
                        break;
                    }
                    let p = &mut pportals[k - n_tlp];
                    let rid = p.next_rid;
                    let dfa = portals::reduction_dfa(p.dfa, rid).expect("an id below REDUCTIONS_PER_TREE");
                    let twin_dfa = p.twin.map(|(_, d)| portals::reduction_dfa(d, rid).expect("an id below REDUCTIONS_PER_TREE"));
                    // An id whose last round is still open at the root (a late restart) is not taken:
                    // the round waits (libfabric's `-FI_EAGAIN` when `next_red_id` is in use).
                    if f.portals_open(p.source, dfa) {
                        report.portals_id_busy += 1;
                        break;
                    }
                    p.next_rid = (rid + 1) % portals::REDUCTIONS_PER_TREE as u8;
                    let (seqno, expected) = portals_round(&mut f, &mut rng, spec, &mut report, p, rid, dfa, twin_dfa, start);
                    ppending.push((k, start, rid, seqno, expected));
                    slot.left = slot.left.saturating_sub(1);
                    done += 1;
                }
                continue;
            }
            let c = &contexts[k];
            let mut expected = 0u64;
            for &p in &c.participants {
                let v = u64::from(rng.random::<u32>());
                expected = expected.wrapping_add(v);
                f.set_operands(p, c.cc_id, vec![v, 0, 0, 0]);
            }
            match spec.init_retry {
                Some((after, limit)) if !posted[k] => f.reinitialize_acked(c.cc_id, start, after, limit),
                _ => f.reinitialize(c.cc_id, start, !posted[k]),
            }
            match spec.start_retry {
                Some((after, limit)) if !posted[k] => f.start_watched(c, start + START_LEAD_PS, after, limit, spec.start_watch),
                _ => f.start(c, start + START_LEAD_PS),
            }
            pending.push((k, start, log_start, expected, f.source_tid(c.cc_id)));
            slot.left -= 1;
            done += 1;
        }
        let end = start + spec.period_ps;
        f.run_until_quiet(end - ENGINE_CLOCK_PS, &mut |_| {});
        let log_end = f.log.len();
        for (k, at, from, expected, tid) in pending.drain(..) {
            let c = &contexts[k];
            let root = t.endpoints[c.source].id;
            let (outcome, result) = classify(&f, from, log_end, root, c.cc_id, c.participants.len(), expected);
            let faults = &f.faults.as_ref().expect("injector").log;
            let explained = outcome == Outcome::Success
                || faults.iter().any(|x| x.at >= at && x.at < end && (x.cc_id() == Some(c.cc_id) || matches!(x.kind, FaultKind::Exhaust { .. })))
                || f.cpu_log.as_ref().expect("cpu log").iter().any(|&(t, _, e, cc)| t >= at && t < end && cc == c.cc_id && e == event::ACTIVATE_NO_DESC);
            if outcome == Outcome::WrongSuccess && std::env::var_os("INSWITCH_CAMPAIGN_TRACE").is_some() {
                eprintln!("WRONG cc {} at {at}: participants {:?} ids {:?}", c.cc_id, c.participants, c.participants.iter().map(|&p| t.endpoints[p].id).collect::<Vec<_>>());
                for e in &c.engines {
                    eprintln!("  engine {:#06x} {:?} members {:?}", t.switches[e.switch].engine_id, e.role, e.members.iter().map(|m| m.id).collect::<Vec<_>>());
                }
                for x in faults.iter().filter(|x| x.at + 2 * spec.period_ps >= at && x.cc_id() == Some(c.cc_id)) {
                    eprintln!("  fault {x}");
                }
                for d in f.log.iter().filter(|d| d.cc_id == c.cc_id && d.at + 2 * spec.period_ps >= at) {
                    eprintln!("  {d:?}");
                }
            }
            let master_id = t.switches[c.master()].engine_id;
            let subs: Vec<u16> = c.engines.iter().filter(|e| e.role == Role::Subservient).map(|e| t.switches[e.switch].engine_id).collect();
            let passed_up_to_master = f.log[from..log_end].iter().any(|d| d.to == master_id && d.cc_id == c.cc_id && d.kind == 4 && subs.contains(&d.from));
            let n = c.participants.len();
            let complete = (outcome == Outcome::Success).then(|| f.log[from..log_end].iter().find(|d| d.to == root && d.cc_id == c.cc_id && d.kind == 6 && matches!(d.code, 2 | 3) && usize::from(d.contributions) == n && !d.error)).flatten();
            let latency = complete.map(|d| d.at - at);
            let second_round = complete.is_some_and(|d| d.tid != tid);
            let ids: Vec<u16> = c.participants.iter().map(|&p| t.endpoints[p].id).collect();
            let all_delivered = delivered_to_all(&f, from, log_end, &ids, c.cc_id, expected);
            if outcome == Outcome::Success && !all_delivered && std::env::var_os("INSWITCH_DELIVERY_TRACE").is_some() {
                eprint!("UNDELIVERED cc {} at {at}\n{}", c.cc_id, crate::explain::tlp_round_trace(&f, c, from, log_end, at, end, expected));
            }
            let hit: Vec<crate::faults::Fault> = if outcome == Outcome::Success {
                Vec::new()
            } else {
                faults.iter().filter(|x| x.at >= at && x.at < end && (x.cc_id() == Some(c.cc_id) || matches!(x.kind, FaultKind::Exhaust { .. }))).cloned().collect()
            };
            let causes = if outcome == Outcome::Success {
                Vec::new()
            } else {
                let mut v: Vec<String> = hit.iter().map(|x| crate::explain::tlp_label(&f, c, x)).collect();
                if f.cpu_log.as_ref().expect("cpu log").iter().any(|&(t, _, e, cc)| t >= at && t < end && cc == c.cc_id && e == event::ACTIVATE_NO_DESC) {
                    v.push("no descriptor".into());
                }
                v
            };
            report.reductions.push(Reduction { cc_id: c.cc_id, at, participants: n, expected, result, outcome, explained, passed_up_to_master, portals: false, posted: posted[k], latency, causes, faults: hit, second_round, twin: false, rid: None, all_delivered: Some(all_delivered) });
        }
        for (k, at, rid, seqno, expected) in ppending.drain(..) {
            let p = &pportals[k - n_tlp];
            let n = p.leaves.len();
            let dfa = portals::reduction_dfa(p.dfa, rid).expect("an id below REDUCTIONS_PER_TREE");
            // The round's result, or its restart's (`CampaignSpec::portals_restart`: under the seqno the
            // root drew from the tree's counter when it restarted, `Portals::restart_of`).
            let restart_seqno = f.portals.restart_of(p.source, dfa, seqno);
            let r = f.portals.results(p.source, dfa).iter().rev().find(|r| r.seqno == seqno || Some(r.seqno) == restart_seqno).cloned();
            let second_round = r.as_ref().is_some_and(|x| x.seqno != seqno && x.count as usize == n && x.data[0] == expected);
            let latency = r.as_ref().filter(|x| x.count as usize == n && x.data[0] == expected).map(|x| x.at - at);
            let (outcome, result) = match r {
                None => (Outcome::RootTimeout, None),
                Some(x) => {
                    let c = x.count as usize;
                    let o = match c.cmp(&n) {
                        std::cmp::Ordering::Greater => Outcome::Overcount,
                        std::cmp::Ordering::Equal if x.data[0] == expected => Outcome::Success,
                        std::cmp::Ordering::Equal => Outcome::WrongSuccess,
                        std::cmp::Ordering::Less if c > 0 => Outcome::Incomplete,
                        std::cmp::Ordering::Less => Outcome::RootTimeout,
                    };
                    (o, Some((u16::try_from(x.count).unwrap_or(u16::MAX), false, x.data[0])))
                }
            };
            if matches!(outcome, Outcome::WrongSuccess | Outcome::Overcount) && std::env::var_os("INSWITCH_CAMPAIGN_TRACE").is_some() {
                eprint!("WRONG portals tree {} seqno {seqno} at {at}: expected {expected}, result {result:?}\n{}", p.tree, crate::explain::portals_round_trace(&f, p.source, &p.leaves, p.tree, dfa, at.saturating_sub(spec.period_ps), end));
            }
            let faults = &f.faults.as_ref().expect("injector").log;
            // The round's own frames only: its tree or twin, its reduction id and its seqnos (its own,
            // its restart's, and the result arms carrying them). The other rounds of the tree in the
            // period run under other ids (`CampaignSpec::portals_in_flight`); a fault on theirs does not
            // explain this one.
            let trees: Vec<u16> = std::iter::once(p.tree).chain(p.twin.map(|x| x.0)).collect();
            let seqnos: Vec<u16> = std::iter::once(seqno).chain(restart_seqno).collect();
            let ours = |x: &crate::faults::Fault| x.portals().is_some_and(|m| m.of_round(&trees, rid, &seqnos));
            let in_round = |x: &&crate::faults::Fault| x.at >= at && x.at < end && (ours(x) || matches!(x.kind, FaultKind::Exhaust { .. }));
            // An ARM of this round's id (either tree) that found no free descriptor in this period: read
            // once, and only for a round that did not succeed.
            let no_desc = outcome != Outcome::Success
                && f.cpu_log.as_ref().expect("cpu log").iter().any(|&(t, _, e, cc)| t >= at && t < end && trees.iter().any(|&tr| cc == portals_ctx(tr, rid)) && e == event::ARM_NO_DESC);
            let explained = outcome == Outcome::Success || faults.iter().any(|x| in_round(&x)) || no_desc;
            let hit: Vec<crate::faults::Fault> = if outcome == Outcome::Success { Vec::new() } else { faults.iter().filter(in_round).cloned().collect() };
            let causes = if outcome == Outcome::Success {
                Vec::new()
            } else {
                let twin = |x: &crate::faults::Fault| p.twin.is_some_and(|(tw, _)| x.portals().map(|m| m.tree) == Some(tw));
                let mut v: Vec<String> = hit.iter().map(|x| crate::explain::portals_label(&f, p.source, &p.leaves, x) + if twin(x) { " (twin)" } else { "" }).collect();
                if no_desc {
                    v.push("no descriptor".into());
                }
                v
            };
            report.reductions.push(Reduction { cc_id: p.tree, at, participants: n, expected, result, outcome, explained, passed_up_to_master: false, portals: true, posted: false, latency, causes, faults: hit, second_round, twin: p.twin.is_some(), rid: Some(rid), all_delivered: None });
        }
        let stuck_before = report.stuck.len();
        let mut open = Vec::new();
        check_rounds_closed(&f, end, &mut open);
        for line in open {
            let cc = line.split(" cc ").nth(1).and_then(|x| x.split(' ').next()).and_then(|x| x.parse::<u16>().ok());
            match cc {
                Some(cc) if cc >= 1 && usize::from(cc) <= contexts.len() && posted[usize::from(cc) - 1] => report.open_posted.push(line),
                _ => report.stuck.push(line),
            }
        }
        if report.stuck.len() > stuck_before && std::env::var_os("INSWITCH_CAMPAIGN_TRACE").is_some() {
            trace_stuck(&f, start.saturating_sub(spec.period_ps), end, &report.stuck[stuck_before..]);
        }
        // Only this period's CPU events are needed.
        // (Kept under INSWITCH_CAMPAIGN_TRACE: a wrong Portals round's trace shows the period before.)
        if let Some(l) = f.cpu_log.as_mut().filter(|_| std::env::var_os("INSWITCH_CAMPAIGN_TRACE").is_none()) {
            l.clear();
        }
        if std::env::var_os("INSWITCH_CAMPAIGN_TRACE").is_some() {
            eprintln!("period at {start} ps: done {done} frames {} log {} steps {} now {}", f.frames.len(), f.log.len(), f.stats.engine_steps, f.now());
        }
        start = end;
        period += 1;
    }
    // Teardown: every job's context stopped, fillers released; then nothing may hold a descriptor.
    for slot in &mut slots {
        if let Some(k) = slot.ctx.take().filter(|&k| k < n_tlp) {
            f.control(&contexts[k], 4, start);
        }
    }
    if let Some((s, n, _)) = fill {
        let via = t.endpoints.iter().position(|e| e.switch == s).expect("an end node");
        f.release_descriptors(s, n, via, start);
    }
    if std::env::var_os("INSWITCH_CAMPAIGN_TRACE").is_some() {
        let n0 = f.frames.len();
        f.run_until_quiet(f.now() + 100_000_000, &mut |_| {});
        eprintln!("teardown: {} frames in 100 us; now {}", f.frames.len() - n0, f.now());
        for fr in &f.frames[f.frames.len().saturating_sub(40)..] {
            eprintln!("  {} origin {:#x} len {} {:02x?}", LinkFrame::parse(&fr.bytes).summary(), fr.origin, fr.bytes.len(), &fr.bytes[..fr.bytes.len().min(40)]);
        }
        for s in 0..t.switches.len() {
            let cpu = f.engine(s).expect("cycle engine").cpu();
            for d in (0..cpu.descriptor_count()).map(|i| cpu.descriptor(i)).filter(|d| d.valid) {
                eprintln!("  engine {s} still holds {d:?}");
            }
        }
    }
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    for s in 0..t.switches.len() {
        let cpu = f.engine(s).expect("cycle engine").cpu();
        for i in 0..cpu.descriptor_count() {
            let d = cpu.descriptor(i);
            if d.valid {
                report.leaked.push(format!("engine {s} descriptor {i}: cc {} {:?}", d.key, d.state));
            }
        }
        report.lcrc_counted += u64::from(f.engine(s).expect("cycle engine").regs().counter(LCRC_COUNTER));
    }
    let inj = f.faults.as_ref().expect("injector");
    report.faults = inj.counts();
    report.fault_log = inj.report();
    for e in [
        event::ACCEPT,
        event::COMPLETE,
        event::ACTIVATE_NO_DESC,
        event::PASS_UP,
        event::DUPLICATE,
        event::OLD_TID,
        event::BAD_TID,
        event::UNKNOWN_PARTICIPANT,
        event::WRONG_SENDER,
        event::MALFORMED,
        event::TIMEOUT_PARTIAL,
        event::TIMEOUT_MASTER,
        event::RETRY,
        event::RETRY_EXHAUSTED,
        event::FAILURE_UP,
        event::COMPLETION_DOWN,
        event::DROP_UNKNOWN,
        event::ARM,
        event::REARM,
        event::STALE_ARM,
        event::ARM_NO_DESC,
        event::DROP_SEQNO,
        event::TIMEOUT_EMPTY,
        event::RETRY_RESULT,
        event::RETRY_NONE,
        event::RESPONSE_RESULT,
    ] {
        report.events.insert(event::name(e), f.cpu_event_total(e));
    }
    for r in &report.reductions {
        *report.outcomes.entry(format!("{:?}", r.outcome)).or_default() += 1;
    }
    report.corrupt_to_engines = f.stats.corrupt_to_engines;
    report.corrupt_passed = f.stats.corrupt_passed_by_engines;
    report.end_node_lcrc_drops = f.stats.end_node_lcrc_drops;
    report.end_node_retries = f.stats.end_node_retries;
    report.start_retries = f.stats.start_retries;
    report.init_retries = f.stats.init_retries;
    report.start_watch_retries = f.stats.start_watch_retries;
    report.result_retries = f.stats.result_retries;
    report.participant_retries = (f.stats.participant_retries, f.stats.participant_resends);
    report.engine_steps = f.stats.engine_steps;
    report.portals = f.portals.stats.clone();
    report.sim_ps = f.now();
    report.wall_s = wall.elapsed().as_secs_f64();
    report
}

/// `INSWITCH_CAMPAIGN_TRACE`: what led to rounds left open at `end`: every engine's CPU timeouts,
/// and per stuck descriptor's context the period's CPU events (the log holds only this period's), and
/// the faults and deliveries from `from` on.
fn trace_stuck(f: &Fabric, from: Ps, end: Ps, stuck: &[String]) {
    for s in 0..f.topo.switches.len() {
        if let Some(e) = f.engine(s) {
            eprintln!("engine {s}: TIMEOUT {:?} THRESHOLD {:?}", e.cpu().config().timeout, e.cpu().config().threshold);
        }
    }
    for line in stuck {
        eprintln!("STUCK {line}");
        let Some(cc) = line.split(" cc ").nth(1).and_then(|x| x.split(' ').next()).and_then(|x| x.parse::<u16>().ok()) else { continue };
        for &(t, s, e, _) in f.cpu_log.iter().flatten().filter(|x| x.3 == cc) {
            eprintln!("  {t} ps engine {s} {}", event::name(e));
        }
        for x in f.faults.iter().flat_map(|i| i.log.iter()).filter(|x| x.at >= from && x.cc_id() == Some(cc)) {
            eprintln!("  fault {x}");
        }
        for d in f.log.iter().filter(|d| d.cc_id == cc && d.at >= from && d.at <= end) {
            eprintln!("  {d:?}");
        }
    }
}

/// Starts one Soft Portals round of `p` under reduction `rid` (multicast address `dfa`, its twin's
/// `twin_dfa`) at `start`: fresh values at the leaves, the root end node arms the tree 300 ns into the
/// period. Returns its seqno and the expected sum.
#[allow(clippy::too_many_arguments)] // the campaign's state, passed as it is
fn portals_round(f: &mut Fabric, rng: &mut rand_chacha::ChaCha8Rng, spec: &CampaignSpec, report: &mut CampaignReport, p: &PortalsCtx, rid: u8, dfa: u32, twin_dfa: Option<u32>, start: Ps) -> (u16, u64) {
    // The round's own start arm under a seqno newer than every arm the id's root sent: its last round's
    // result arm armed the next seqno, and a round restarted late (its timer counted from the restart)
    // multicasts it just before this period; under that seqno this round's arm would be dropped
    // (`STALE_ARM`) and the engines would run the round on the result's arming and its timer
    // (docs/fabric.md §Goodput: the next round after a late result). It is the next draw of the tree's
    // seqno counter, shared by the tree's ids as libfabric's `mc_obj->seqno` (`sim::portals` module
    // doc); the tree's first round takes 0.
    let seqno = f.portals_next_seqno(p.source, dfa).unwrap_or(0);
    let mut expected = 0u64;
    // The values are this round's: its seqno and its restart's (a start arm under a newer seqno, which
    // the root draws when it restarts, `Leaf::seqnos`), not the seqno its result arm arms, which no
    // round answers.
    let seqnos = vec![seqno];
    if stale_arming(f, p.tree, rid, seqno) || p.twin.is_some_and(|(tw, _)| stale_arming(f, tw, rid, seqno)) {
        report.portals_stale_starts += 1;
    }
    // libfabric's cookie of the round: the tree's multicast id, the round's reduction id (on the twin
    // tree too: one collective, `cxip_coll_reduction`, on two paths).
    let cookie = portals::libfabric_cookie(p.tree, rid, PORTALS_MAGIC);
    for &e in &p.leaves {
        let v = u64::from(rng.random::<u32>());
        expected = expected.wrapping_add(v);
        let values = VecDeque::from([Some([v, 0, 0, 0])]);
        let leaf = Leaf { vni: PORTALS_VNI, cookie, op: INT_SUM, compute: spec.compute_ps, values, seqnos: seqnos.clone() };
        if let Some(d) = twin_dfa {
            f.portals_leaf(e, d, leaf.clone());
        }
        f.portals_leaf(e, dfa, leaf);
    }
    // The root's timer: longer than the engines' and the latest late contribution, within the period.
    let timeout = spec.period_ps * 2 / 3;
    let root = Root { vni: PORTALS_VNI, cookie, op: INT_SUM, first_seqno: seqno, expected: p.leaves.len() as u32, rounds: 1, timeout, own: VecDeque::new(), twins: twin_dfa.into_iter().collect(), await_all: false, rearm: spec.portals_rearm, restart: spec.portals_restart };
    f.portals_root(p.source, dfa, root);
    f.portals_start(p.source, dfa, start + 300_000);
    (seqno, expected)
}


/// Every allocated descriptor of every engine must be Idle, its timer not expired: a round that
/// did not complete was ended by a timeout (or a result from above) within the period.
pub fn check_rounds_closed(f: &Fabric, at: Ps, stuck: &mut Vec<String>) {
    for s in 0..f.topo.switches.len() {
        let Some(e) = f.engine(s) else { continue };
        let cpu = e.cpu();
        for i in 0..cpu.descriptor_count() {
            let d = cpu.descriptor(i);
            if d.valid && (d.state != CtxState::Idle || d.expired) {
                stuck.push(format!("{at} ps: engine {s} descriptor {i}: cc {} {:?} expired {} timer {}", d.key, d.state, d.expired, d.timer));
            }
        }
    }
}
