//! Concurrent reductions on one Soft Portals tree through the fabric (issue 15 item 9; seed 002 (35),
//! (60)-(61): "bits 20-18 of the same multicast address can then be used to distinguish up to 8
//! reductions being performed concurrently on the same tree"; `docs/fabric.md` §Portals, Concurrent
//! reductions). FIG. 7 as in `tests/portals.rs`: the manager places one Portals job (root end node 735,
//! 8 leaves, wait counts 720 8, 725 3, 730 3), and the root end node starts 8 reductions on its tree at
//! once, one per reduction id, with the same VNI: the DFA's bits 20-18 tell them apart, and each id's
//! frames carry libfabric's cookie of the tree and that id (`PortalsJob::cookie`: `mcast_id`, `red_id`).
//! The root draws every id's seqnos from one counter per tree, as libfabric's CXI root does
//! (`mc_obj->seqno`), so no two ids' arms share a seqno. The oracles are plain folds in the test over the operands it gives the leaves.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use inswitch_fabric::campaign::{self, Outcome};
use inswitch_fabric::faults::FaultConfig;
use inswitch_fabric::goodput::{self, Recovery};
use inswitch_fabric::drive;
use inswitch_fabric::manager::{Family, JobSpec, NodeId};
use inswitch_fabric::sim::portals::{self, ConcurrencyError, Leaf, PortalsJob, Reduction, Root, RoundResult, REDUCTIONS_PER_TREE};
use inswitch_fabric::sim::{Fabric, SimConfig};
use inswitch_fabric::topology::{LinkSpec, Ps, Topology};
use inswitch_model::cpu::{event, seqno_newer, REDUCTIONS};
use inswitch_model::packet_engine::EngineParams;

const QUIET: Ps = Ps::MAX / 4;
const US: Ps = 1_000_000;
const NS: Ps = 1_000;
/// 735, the root end node (the job's source).
const ROOT: usize = 0;
const S720: usize = 0;
const S725: usize = 1;
const S730: usize = 2;
const VNI: u16 = 0x42;
/// The magic of the cookies: libfabric's `MAGIC` (`cxip_coll.c`); each id's rounds carry libfabric's
/// cookie of the tree and the id under it (`PortalsJob::cookie`), as the campaign's rounds do.
const MAGIC: u16 = campaign::PORTALS_MAGIC;
const INT_SUM: u8 = 0x14;
const INT_MIN: u8 = 0x10;
const INT_MAX: u8 = 0x11;
/// Each id's operation: different operations on one tree at once, cycling.
const OPS: [u8; 3] = [INT_SUM, INT_MIN, INT_MAX];
/// Engine timeouts in ticks of 16 cycles: about 4 us. With 8 reductions at once each engine handles 8
/// arms and 8 times the contributions of one, and at the 64 ticks (about 2 us) of `tests/portals.rs` 720's
/// descriptor of the last id times out before 725's and 730's partial results of it arrive
/// ([`eight_concurrent_reductions_with_short_timeouts_reduce_higher_up_and_give_the_same_results`]).
const ENGINE_TIMEOUT_TICKS: u32 = 128;
/// `tests/portals.rs`'s engine timeouts (about 2 us).
const SHORT_TIMEOUT_TICKS: u32 = 64;
const ROOT_TIMEOUT: Ps = 10 * US;
const COMPUTE: Ps = US;
/// The first seqno of the tree's counter at the root: id 0's first round; the others draw the next ones
/// (1022 → 0 crosses the reserved 1023).
const FIRST_SEQNO: u16 = 1022;
const ROUNDS: u32 = 3;
/// Engine timeouts of the campaign test below, ticks of 16 cycles.
const CAMPAIGN_TIMEOUT_TICKS: u32 = 64;
/// Bits of the engines' Portals ctx key that hold the tree (DFA bits 15-3); the reduction id is above.
const CTX_TREE_BITS: u32 = 13;

/// FIG. 7 with a Portals job over every end node, placed by the manager and applied through the engines'
/// ports, engine timeouts `ticks`; no end node joined yet.
fn fig7_with(ticks: u32) -> (Fabric, PortalsJob) {
    let t = Topology::fig7(LinkSpec::default());
    let cfg = SimConfig { hop_latency_ps: 100_000, engine_params: EngineParams { tick_cycles: 16, ..EngineParams::default() }, ..SimConfig::default() };
    let mut f = Fabric::new(t.clone(), cfg).unwrap();
    f.bring_up(ROOT, 0);
    let mut m = drive::manager_for(&t).unwrap();
    let spec = JobSpec { family: Family::Portals, op: INT_SUM, vni: VNI, ..JobSpec::new((0..9).map(NodeId).collect(), NodeId(ROOT as u32)) };
    let job = drive::place_portals(&mut f, &mut m, spec, 0).unwrap();
    campaign::set_timeouts(&mut f, ticks);
    f.run_until_quiet(QUIET, &mut |_| {});
    assert_eq!(job.leaves, vec![1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(job.switches, vec![S720, S725, S730]);
    (f, job)
}

fn fig7() -> (Fabric, PortalsJob) {
    fig7_with(ENGINE_TIMEOUT_TICKS)
}

/// Leaf `e`'s operands for round `r` of reduction `rid`: four signed lanes, different for every id,
/// round and leaf.
fn operand(rid: u8, r: u32, e: usize) -> [u64; 4] {
    let (k, r, e) = (i64::from(rid), i64::from(r), e as i64);
    [(1_000_000 * k + 1000 * r + 7 * e - 20) as u64, (-(e << 40) + (k << 20) + r) as u64, (r * r - 3 * e * (k + 1)) as u64, (e * 0x0123_4567_89ab + 31 * k - r) as u64]
}

fn op_of(rid: u8) -> u8 {
    OPS[usize::from(rid) % OPS.len()]
}

/// The reduction `op` of the leaves' operands of round `r` of `rid`, folded here.
fn fold(rid: u8, r: u32, leaves: &[usize]) -> [u64; 4] {
    let op = op_of(rid);
    let lanes = |e: usize| operand(rid, r, e).map(|x| x as i64);
    let acc = leaves.iter().skip(1).fold(lanes(leaves[0]), |a, &e| {
        let v = lanes(e);
        std::array::from_fn(|k| match op {
            INT_SUM => a[k].wrapping_add(v[k]),
            INT_MIN => a[k].min(v[k]),
            _ => a[k].max(v[k]),
        })
    });
    acc.map(|x| x as u64)
}

/// Reduction `rid` of the job: `ROUNDS` rounds, the tree's counter from `FIRST_SEQNO`, every leaf with its
/// operands.
fn reduction(job: &PortalsJob, rid: u8) -> Reduction {
    let op = op_of(rid);
    let cookie = job.cookie(rid, MAGIC);
    let root = Root { vni: VNI, cookie, op, first_seqno: FIRST_SEQNO, expected: 8, rounds: ROUNDS, timeout: ROOT_TIMEOUT, own: VecDeque::new(), twins: Vec::new(), await_all: false, rearm: None, restart: None };
    let leaves = job.leaves.iter().map(|&e| (e, Leaf { vni: VNI, cookie, op, compute: COMPUTE, values: (0..ROUNDS).map(|r| Some(operand(rid, r, e))).collect(), seqnos: Vec::new() })).collect();
    Reduction { rid, root, leaves }
}

fn all_ids() -> Vec<u8> {
    (0..REDUCTIONS_PER_TREE as u8).collect()
}

fn events(f: &Fabric, s: usize, ev: u8) -> u64 {
    f.cpu_events(s).unwrap()[usize::from(ev)]
}

/// Every id's rounds at the root: its folds, complete, count 8, one fully reduced frame each (the
/// engines reduced every id: nothing passed up); every leaf got every result of its id as the next arm,
/// under the seqno of the id's next round; id `k`'s first round is the counter's `k`-th draw.
fn assert_every_result(f: &Fabric, job: &PortalsJob, dfas: &[u32]) {
    assert_results(f, job, dfas, true);
}

/// [`assert_every_result`], the root's one frame per round only if `reduced`; returns the frames the
/// root folded, per id and round.
fn assert_results(f: &Fabric, job: &PortalsJob, dfas: &[u32], reduced: bool) -> Vec<Vec<u32>> {
    let mut frames = Vec::new();
    for (rid, &dfa) in all_ids().into_iter().zip(dfas) {
        let res: &[RoundResult] = f.portals.results(ROOT, dfa);
        assert_eq!(res.len(), ROUNDS as usize, "id {rid}: {res:?}");
        let first = (0..rid).fold(FIRST_SEQNO, |s, _| portals::next_seqno(s));
        assert_eq!(res[0].seqno, first, "id {rid}: the started ids' {rid}-th draw");
        for (r, x) in res.iter().enumerate() {
            assert_eq!(x.data, fold(rid, r as u32, &job.leaves), "id {rid} round {r}");
            assert_eq!((x.count, x.complete, x.rc), (8, true, 0), "id {rid} round {r}");
            assert!(!reduced || x.frames == 1, "id {rid} round {r}: one fully reduced frame, {x:?}");
        }
        frames.push(res.iter().map(|x| x.frames).collect());
        for &e in &job.leaves {
            let arms = f.portals.arms_at(e, dfa);
            assert_eq!(arms.len(), ROUNDS as usize + 1, "id {rid} leaf {e}");
            assert_eq!(arms[0], (first, first, 0, [0; 4]), "id {rid} leaf {e}: the start arm");
            for r in 0..ROUNDS as usize {
                let want = fold(rid, r as u32, &job.leaves);
                assert_eq!((arms[r + 1].1, arms[r + 1].2, arms[r + 1].3), (res[r].seqno, 8, want), "id {rid} leaf {e}: its result of round {r}");
                assert!(seqno_newer(arms[r + 1].0, res[r].seqno), "id {rid} leaf {e}: the result arm's seqno is newer, {arms:?}");
                if let Some(next) = res.get(r + 1) {
                    assert_eq!(arms[r + 1].0, next.seqno, "id {rid} leaf {e}: the result arm armed round {}", r + 1);
                }
            }
        }
    }
    frames
}

/// 8 concurrent all-reduces on one tree, each with its own id (DFA bits 20-18), operands and operation,
/// all with the same VNI, each with libfabric's cookie of its id: each id's results are its own folds at the root
/// and at every leaf, each engine armed and completed every id's every round, nothing passed up,
/// nothing dropped.
#[test]
fn eight_concurrent_all_reduces_on_one_tree_each_give_their_own_result() {
    let (mut f, job) = fig7();
    let at = f.now() + US;
    let dfas = f.portals_concurrent(&job, all_ids().into_iter().map(|k| reduction(&job, k)).collect(), at).unwrap();
    let distinct: BTreeSet<u32> = dfas.iter().copied().collect();
    assert_eq!(distinct.len(), REDUCTIONS_PER_TREE, "{dfas:x?}");
    for (k, &dfa) in dfas.iter().enumerate() {
        assert_eq!((dfa >> 18, (dfa >> 3) & 0x1FFF), (k as u32, u32::from(job.tree)), "id {k} in DFA bits 20-18, the tree in 15-3");
    }
    f.run_until_quiet(QUIET, &mut |_| {});
    assert_every_result(&f, &job, &dfas);
    // Every frame an end node received, arms from the engines included, carries libfabric's cookie of
    // the tree and its own id.
    for d in f.portals.log.iter().filter(|d| dfas.contains(&d.frame.dfa)) {
        let c = inswitch_frames::portals::Cookie(d.frame.header.cookie);
        assert_eq!((c.mcast_id(), c.red_id(), c.magic()), (job.tree, d.frame.reduction_id(), MAGIC), "frame to {}", d.to);
    }
    let ids = REDUCTIONS_PER_TREE as u64;
    for s in [S720, S725, S730] {
        assert_eq!(events(&f, s, event::ARM), ids * (u64::from(ROUNDS) + 1), "switch {s}: every id's every arm");
        assert_eq!(events(&f, s, event::COMPLETE), ids * u64::from(ROUNDS), "switch {s}");
        for ev in [event::ARM_NO_DESC, event::PASS_UP, event::DROP_SEQNO, event::DROP_COOKIE, event::DROP_VNI] {
            assert_eq!(events(&f, s, ev), 0, "switch {s}, event {ev}");
        }
    }
    assert_eq!(f.portals.stats, Default::default());
}

/// libfabric's CXI root draws every reduction id's seqnos from one counter per tree (`prov/cxi/src/
/// cxip_coll.c`, `_progress_root`: `reduction->seqno = mc_obj->seqno; INCMOD(mc_obj->seqno,
/// CXIP_COLL_MOD_SEQNO)` at each retry and at each result's re-arm). The 8 concurrent ids' arms (their
/// start arms, then each round's result arm) reach a leaf as one sequence: 32 draws, 1022, 0, 1, ..., 30,
/// strictly increasing across the ids in the order the root sent them. Fails with a counter per id (the
/// fabric's roots before session 23): every id's start arm under 1022.
#[test]
fn every_ids_arms_on_one_tree_draw_their_seqnos_from_one_counter() {
    let (mut f, job) = fig7();
    let at = f.now() + US;
    let dfas = f.portals_concurrent(&job, all_ids().into_iter().map(|k| reduction(&job, k)).collect(), at).unwrap();
    f.run_until_quiet(QUIET, &mut |_| {});
    let draws = REDUCTIONS_PER_TREE * (ROUNDS as usize + 1);
    let want: Vec<u16> = std::iter::successors(Some(FIRST_SEQNO), |&s| Some(portals::next_seqno(s))).take(draws).collect();
    assert_eq!(want[..3], [1022, 0, 1]);
    for &e in &job.leaves {
        // The arms of every id of the tree, in the order they reached the leaf (one path from the root).
        let mut arms: Vec<(Ps, u16, u8)> = f.portals.log.iter().filter(|d| d.to == e && d.frame.header.arm && dfas.contains(&d.frame.dfa)).map(|d| (d.at, d.frame.header.seqno, d.frame.reduction_id())).collect();
        arms.sort_by_key(|a| a.0);
        let seqnos: Vec<u16> = arms.iter().map(|a| a.1).collect();
        assert_eq!(seqnos, want, "leaf {e}: {arms:?}");
        let ids: BTreeSet<u8> = arms.iter().map(|a| a.2).collect();
        assert_eq!(ids.len(), REDUCTIONS_PER_TREE, "leaf {e}");
    }
    assert_eq!(f.portals_next_seqno(ROOT, dfas[3]), Some(portals::next_seqno(*want.last().expect("draws"))), "the counter is the tree's, whichever id asks");
    assert_every_result(&f, &job, &dfas);
}

/// A tree has 8 reduction ids, 3 bits of the DFA: a ninth concurrent reduction is refused, whether as a
/// ninth id, as a ninth reduction in one call, as an id given twice, or as an id whose round is still
/// open; the refusals change nothing and the 8 reductions complete as without them.
#[test]
fn a_ninth_concurrent_reduction_on_one_tree_is_refused() {
    let (mut f, job) = fig7();
    assert_eq!(job.reduction(0), Ok(job.dfa));
    assert_eq!(job.reduction(REDUCTIONS_PER_TREE as u8), Err(ConcurrencyError::ReductionId(8)), "id 8 does not fit DFA bits 20-18");
    let at = f.now() + US;
    let nine: Vec<Reduction> = (0..=REDUCTIONS_PER_TREE as u8).map(|k| reduction(&job, k % REDUCTIONS_PER_TREE as u8)).collect();
    assert_eq!(f.portals_concurrent(&job, nine, at).unwrap_err(), ConcurrencyError::TooMany(9));
    let twice = vec![reduction(&job, 2), reduction(&job, 2)];
    assert_eq!(f.portals_concurrent(&job, twice, at).unwrap_err(), ConcurrencyError::Duplicate(2));
    let mut eighth = reduction(&job, 0);
    eighth.rid = REDUCTIONS_PER_TREE as u8;
    assert_eq!(f.portals_concurrent(&job, vec![eighth], at).unwrap_err(), ConcurrencyError::ReductionId(8));
    f.run_until_quiet(QUIET, &mut |_| {});
    assert_eq!(events(&f, S720, event::ARM), 0, "a refused call sends nothing");

    let dfas = f.portals_concurrent(&job, all_ids().into_iter().map(|k| reduction(&job, k)).collect(), at).unwrap();
    // The 8 are running: every id of the tree is taken, so a ninth reduction has no id to run under.
    f.run_until_quiet(at + US / 2, &mut |_| {});
    for rid in all_ids() {
        assert_eq!(f.portals_concurrent(&job, vec![reduction(&job, rid)], f.now()).unwrap_err(), ConcurrencyError::Busy(rid, ROOT), "id {rid}");
    }
    f.run_until_quiet(QUIET, &mut |_| {});
    assert_every_result(&f, &job, &dfas);
    // Once an id's rounds are over, it can run again.
    let again = f.portals_concurrent(&job, vec![reduction(&job, 5)], f.now() + US).unwrap();
    assert_eq!(again, vec![dfas[5]]);
    f.run_until_quiet(QUIET, &mut |_| {});
    let res = f.portals.results(ROOT, dfas[5]);
    assert_eq!(res.len(), ROUNDS as usize);
    for (r, x) in res.iter().enumerate() {
        assert_eq!((x.data, x.count, x.complete), (fold(5, r as u32, &job.leaves), 8, true), "id 5 again, round {r}");
    }
}

/// The live descriptors of `tree` in engine `s`, grouped by tree slot: (slot, the reduction ids held).
fn held(f: &Fabric, s: usize, tree: u16) -> Vec<(usize, BTreeSet<u16>)> {
    let cpu = f.engine(s).unwrap().cpu();
    let mut slots: Vec<(usize, BTreeSet<u16>)> = Vec::new();
    for i in 0..cpu.descriptor_count() {
        let d = cpu.descriptor(i);
        if d.valid && d.portals && d.key & ((1 << CTX_TREE_BITS) - 1) == tree {
            let slot = i / REDUCTIONS;
            match slots.iter_mut().find(|x| x.0 == slot) {
                Some(x) => drop(x.1.insert(d.key >> CTX_TREE_BITS)),
                None => slots.push((slot, BTreeSet::from([d.key >> CTX_TREE_BITS]))),
            }
        }
    }
    slots
}

/// The engines hold the 8 reductions at once in one tree slot: sampled every 50 ns through the rounds,
/// each of 720, 725 and 730 has, at some instant, 8 live descriptors of the tree, ids 0-7, all in one
/// slot (each at its index slot x 8 + id), and never the tree in two slots; the results are as without
/// the sampling.
#[test]
fn the_engines_hold_eight_reductions_of_the_tree_in_one_slot_at_once() {
    let (mut f, job) = fig7();
    let at = f.now() + US;
    let dfas = f.portals_concurrent(&job, all_ids().into_iter().map(|k| reduction(&job, k)).collect(), at).unwrap();
    let mut most = [0usize; 3];
    let mut t = at;
    // Three rounds take well under 20 us (arm to result about 2 us each).
    while t < at + 20 * US {
        t += 50 * NS;
        f.run_until_quiet(t, &mut |_| {});
        for s in [S720, S725, S730] {
            let slots = held(&f, s, job.tree);
            assert!(slots.len() <= 1, "switch {s}: the tree in one slot only, {slots:?}");
            if let Some((slot, ids)) = slots.first() {
                most[s] = most[s].max(ids.len());
                if ids.len() == REDUCTIONS_PER_TREE {
                    assert_eq!(*ids, (0..REDUCTIONS as u16).collect(), "switch {s} slot {slot}");
                }
            }
        }
    }
    assert_eq!(most, [REDUCTIONS_PER_TREE; 3], "each engine held the tree's 8 reductions at once");
    f.run_until_quiet(QUIET, &mut |_| {});
    assert_every_result(&f, &job, &dfas);
}


/// 002 (61): "when multiple reductions are performed concurrently ... more of the reduction operations
/// may be performed higher in the tree". With `tests/portals.rs`'s 64-tick engine timeouts, 720's engine
/// handles the 8 ids' arms and contributions one after another and its descriptor of a late id times out
/// before 725's and 730's partial results of it arrive: it sends its partial result up
/// (`TIMEOUT_PARTIAL`), the late partial results pass up (`PASS_UP`) and the root folds them (more than
/// one frame that round). Every id's every result is still its fold, complete, count 8.
#[test]
fn eight_concurrent_reductions_with_short_timeouts_reduce_higher_up_and_give_the_same_results() {
    let (mut f, job) = fig7_with(SHORT_TIMEOUT_TICKS);
    let at = f.now() + US;
    let dfas = f.portals_concurrent(&job, all_ids().into_iter().map(|k| reduction(&job, k)).collect(), at).unwrap();
    f.run_until_quiet(QUIET, &mut |_| {});
    let frames = assert_results(&f, &job, &dfas, false);
    let unreduced = frames.iter().flatten().filter(|&&n| n > 1).count();
    assert!(unreduced >= 1, "some round reduced at the root, {frames:?}");
    assert!(events(&f, S720, event::TIMEOUT_PARTIAL) >= 1 && events(&f, S720, event::PASS_UP) >= 1);
    assert_eq!(f.portals.stats, Default::default());
}

/// The fault campaign's Soft Portals jobs run 8 rounds of one tree at once, each under its own reduction
/// id (`CampaignSpec::portals_in_flight`, libfabric's round-robin `next_red_id`), without faults: every
/// reduction succeeds, every period's rounds of a tree have 8 distinct ids and each tree's rounds take
/// the ids in turn (0, 1, ..., 7, 0, ...), twin trees too; the engines end with nothing held. With every
/// round under id 0 (the campaign's behaviour before, one multicast address per tree) the 8 roots of a
/// tree share one address and one root state, and the test fails.
#[test]
fn the_campaigns_portals_jobs_run_eight_rounds_of_a_tree_at_once_under_distinct_ids() {
    const REDUCTIONS: usize = 480;
    let mut s = goodput::spec(3, REDUCTIONS, FaultConfig::default(), 0.0, Recovery::Campaign);
    (s.descriptors, s.slots, s.portals_in_flight, s.portals_twin_share) = (goodput::RECOVERY_DESCRIPTORS, 6, REDUCTIONS_PER_TREE, 0.5);
    // Engine timeouts of 64 ticks (2 us) instead of the campaign's 16: an engine takes one contribution
    // per 11 cycles, and 8 rounds of up to 8 leaves at once keep it busy longer than 16 ticks (512 ns),
    // so a TLP context sharing it timed out (13 of 480 reductions Incomplete, every Portals round right).
    s.timeout_ticks = CAMPAIGN_TIMEOUT_TICKS;
    let r = campaign::run(&s);
    println!("{}", r.summary(s.seed));
    for x in r.reductions.iter().filter(|x| x.outcome != Outcome::Success) {
        println!("not a success: cc {} at {} portals {} twin {} rid {:?} {:?} {:?} {:?}", x.cc_id, x.at, x.portals, x.twin, x.rid, x.outcome, x.result, x.causes);
    }
    assert_eq!(r.count(Outcome::Success), REDUCTIONS, "{}", r.summary(s.seed));
    assert!(r.stuck.is_empty() && r.leaked.is_empty(), "{:?} {:?}", r.stuck, r.leaked);
    assert_eq!(r.portals_id_busy, 0);
    let portals: Vec<_> = r.reductions.iter().filter(|x| x.portals).collect();
    // Rounds of one tree started in one period: (tree, period start) -> ids.
    let mut at_once: BTreeMap<(u16, u64), Vec<u8>> = BTreeMap::new();
    let mut per_tree: BTreeMap<u16, Vec<u8>> = BTreeMap::new();
    for x in &portals {
        let rid = x.rid.expect("a Portals round has a reduction id");
        at_once.entry((x.cc_id, x.at)).or_default().push(rid);
        per_tree.entry(x.cc_id).or_default().push(rid);
    }
    let full = at_once.values().filter(|ids| ids.len() == REDUCTIONS_PER_TREE).count();
    assert!(full >= 10, "periods with 8 rounds of one tree at once: {full} of {}", at_once.len());
    for (k, ids) in &at_once {
        assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len(), "tree {:#x} at {} ps: an id twice {ids:?}", k.0, k.1);
    }
    for (tree, ids) in &per_tree {
        let turn: Vec<u8> = (0..ids.len()).map(|i| (i % REDUCTIONS_PER_TREE) as u8).collect();
        assert_eq!(ids, &turn, "tree {tree:#x}: the ids in turn");
    }
    let twins = portals.iter().filter(|x| x.twin && x.rid != Some(0)).count();
    assert!(twins > 50, "twin-tree rounds under ids 1-7: {twins}");
    println!("{} Portals rounds ({twins} on twin trees under ids 1-7), {} periods of a tree, {full} with 8 at once", portals.len(), at_once.len());
}

/// `inswitch sim --scenario portals` issues its six rounds as libfabric issues consecutive collectives on
/// one tree, each under the tree's next reduction id: rounds 0, 2, 4 under id 0 and 1, 3, 5 under id 1,
/// two DFAs differing in bits 20-18 only, the two ids' rounds in flight at once (each id's round is armed
/// before the other id's round of the same turn completes), every result the plain sum with every leaf
/// counted. Before, the six rounds ran one after another under id 0.
/// Item 2 of issue 15's item 9 (seed-fidelity §What is left): each reduction's frames carry libfabric's
/// cookie (`cxip_coll.c`, `cxip_coll_send_red_pkt`: `cookie.mcast_id = mc_obj->mcast_addr`,
/// `cookie.red_id = reduction->red_id`): in the portals scenario every Soft Portals frame an end node
/// received, arms from the engines and results included, names its tree in cookie bits 12-0 and its
/// reduction id (DFA bits 20-18) in bits 15-13, under the scenario's magic. Before, every id's frames
/// carried one cookie per tree (0x0C0E_0001: mcast_id 1, red_id 0): the test fails on it (run on that
/// code: `(1, 0, 3086)` where `(tree, 0, 3086)` was expected).
#[test]
fn each_reductions_frames_carry_libfabrics_cookie_with_its_tree_and_reduction_id() {
    use inswitch_frames::portals::Cookie;
    let (run, f) = inswitch_fabric::scenario::run_portals_captured(100 * NS, false, &mut |_| {});
    assert!(run.ok(), "{}", run.text());
    let f = f.expect("the fabric");
    let mut ids = BTreeSet::new();
    for d in f.portals.log.iter().filter(|d| run.dfas.contains(&d.frame.dfa)) {
        let c = Cookie(d.frame.header.cookie);
        assert_eq!((c.mcast_id(), c.red_id(), c.magic()), (d.frame.tree(), d.frame.reduction_id(), 0x0C0E), "frame to {} seqno {}", d.to, d.frame.header.seqno);
        ids.insert(c.red_id());
    }
    assert_eq!(ids.into_iter().collect::<Vec<_>>(), vec![0, 1]);
}

#[test]
fn the_portals_scenario_runs_two_reductions_of_its_tree_at_once_under_distinct_ids() {
    let run = inswitch_fabric::scenario::run_portals(100 * NS, &mut |_| {});
    println!("{}", run.text());
    assert!(run.ok(), "{}", run.text());
    assert_eq!(run.dfas.len(), 2);
    assert_eq!(run.dfas[0] ^ run.dfas[1], 1 << inswitch_frames::portals::dfa::REDUCTION_ID_SHIFT, "{:#x?}", run.dfas);
    let ids: Vec<u8> = run.rounds.iter().map(|r| r.rid).collect();
    assert_eq!(ids, vec![0, 1, 0, 1, 0, 1]);
    for turn in run.rounds.chunks(2) {
        let end = |r: &inswitch_fabric::scenario::PortalsRound| r.armed_at_ps + r.arm_to_result_ps;
        assert!(turn[0].armed_at_ps < end(&turn[1]) && turn[1].armed_at_ps < end(&turn[0]), "ids 0 and 1 in flight at once: {turn:?}");
    }
    // One seqno counter for the tree (libfabric's `mc_obj->seqno`): the two ids' rounds never share a
    // seqno, and the first two are the counter's first two draws.
    let seqnos: BTreeSet<u16> = run.rounds.iter().map(|r| r.seqno).collect();
    assert_eq!(seqnos.len(), run.rounds.len(), "{:?}", run.rounds);
    assert_eq!((run.rounds[0].seqno, run.rounds[1].seqno), (1021, 1022), "{:?}", run.rounds);
    assert!(run.rounds.iter().all(|r| r.ok && r.count == 8 && r.result == r.expected));
}
