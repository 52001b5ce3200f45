//! The non-FLT_SUM operators against the rules of seed 002 (81)-(97) and libfabric's software reduction
//! (`cxip_coll.c` `_reduce`, `swpnan2`; `cxip_repsum.c`), and the order-independence properties:
//! REPSUM bit-identical for every order and tree shape; MINMAXLOC, MIN/MAX, bitwise and INT_SUM
//! order-independent; FLT_SUM not.

use inswitch_model::reduce::repsum::{self, Repsum, M_NAN, M_NEG_INF, M_POS_INF};
use inswitch_model::reduce::{combine, reduce_all, Contribution, Mode, Rc};
use proptest::prelude::*;

use crate::support::sources::{Fe, Op, DEFAULT_NAN, OPCODES};
// Expected result codes by the literal numbers of `cxip.h` (`support::sources`), not the model's `Rc::*`.
use crate::support::sources::rc;

const ONE: u64 = 0x3ff0_0000_0000_0000;
const TWO: u64 = 0x4000_0000_0000_0000;
const NEG_ONE: u64 = 0xbff0_0000_0000_0000;
const QNAN: u64 = 0x7ff8_0000_0000_0001;
const SNAN: u64 = 0xfff0_0000_0000_0001;
const INF: u64 = 0x7ff0_0000_0000_0000;
const NEG_ZERO: u64 = 1 << 63;

/// The opcode number of `op` in the literal table of the sources (`support::sources::OPCODES`, never
/// the model's `Opcode`).
fn raw(op: Op) -> u8 {
    OPCODES.iter().find(|r| r.2 == op).expect("an operation of the sources").0
}

/// libfabric's name of `op`.
fn name(op: Op) -> &'static str {
    OPCODES.iter().find(|r| r.2 == op).expect("an operation of the sources").1
}

fn c(op: Op, d: [u64; 4]) -> Contribution {
    Contribution { rt_op: raw(op), rt_data: d, ..Contribution::default() }
}

fn both(op: Op, mode: Mode, a: [u64; 4], b: [u64; 4]) -> (Contribution, Contribution) {
    let x = combine(mode, &c(op, a), &c(op, b));
    let y = combine(mode, &c(op, b), &c(op, a));
    (x, y)
}

#[test]
fn barrier_returns_zero() {
    let r = combine(Mode::Associative, &c(Op::Barrier, [1, 2, 3, 4]), &c(Op::Barrier, [5; 4]));
    assert_eq!(r.rt_data, [0; 4]);
    assert_eq!(r.rt_rc, Rc(rc::SUCCESS));
}

#[test]
fn integer_and_logical_operators() {
    let m = Mode::Associative;
    let a = [0xf0f0, 0, u64::MAX, 5];
    let b = [0xff00, 7, 1, 0];
    assert_eq!(combine(m, &c(Op::BitAnd, a), &c(Op::BitAnd, b)).rt_data, [0xf000, 0, 1, 0]);
    assert_eq!(combine(m, &c(Op::BitOr, a), &c(Op::BitOr, b)).rt_data, [0xfff0, 7, u64::MAX, 5]);
    assert_eq!(combine(m, &c(Op::BitXor, a), &c(Op::BitXor, b)).rt_data, [0x0ff0, 7, !1, 5]);
    assert_eq!(combine(m, &c(Op::LogAnd, a), &c(Op::LogAnd, b)).rt_data, [1, 0, 1, 0]);
    assert_eq!(combine(m, &c(Op::LogOr, a), &c(Op::LogOr, b)).rt_data, [1, 1, 1, 1]);
    assert_eq!(combine(m, &c(Op::LogXor, a), &c(Op::LogXor, b)).rt_data, [0, 1, 0, 1]);
    let neg = (-3i64) as u64;
    assert_eq!(combine(m, &c(Op::IntMin, [neg, 4, 0, 0]), &c(Op::IntMin, [2, 9, 0, 0])).rt_data[..2], [neg, 4]);
    assert_eq!(combine(m, &c(Op::IntMax, [neg, 4, 0, 0]), &c(Op::IntMax, [2, 9, 0, 0])).rt_data[..2], [2, 9]);
}

#[test]
fn int_sum_wraps_and_raises_int_overflow() {
    let m = Mode::Associative;
    let r = combine(m, &c(Op::IntSum, [i64::MAX as u64, 1, 0, 0]), &c(Op::IntSum, [1, (-2i64) as u64, 0, 0]));
    assert_eq!(r.rt_data, [i64::MIN as u64, u64::MAX, 0, 0]);
    assert_eq!(r.rt_rc, Rc(rc::INT_OVERFLOW));
    let r = combine(m, &c(Op::IntSum, [5, 0, 0, 0]), &c(Op::IntSum, [(-7i64) as u64, 0, 0, 0]));
    assert_eq!((r.rt_data[0] as i64, r.rt_rc), (-2, Rc(rc::SUCCESS)));
}

#[test]
fn minmaxloc_lower_index_wins_ties() {
    let m = Mode::Associative;
    let op = Op::IntMinMaxLoc;
    let (x, y) = both(op, m, [5, 9, 7, 9], [5, 3, 7, 4]);
    assert_eq!(x.rt_data, [5, 3, 7, 4]);
    assert_eq!(y.rt_data, x.rt_data);
    let (x, _) = both(op, m, [(-1i64) as u64, 8, 1, 8], [2, 1, (-5i64) as u64, 1]);
    assert_eq!(x.rt_data, [(-1i64) as u64, 8, 1, 8]);
    // Floating point: numbers win over quiet NaNs; equal values keep the lower index.
    let op = Op::FltMinMaxNumLoc;
    let (x, y) = both(op, m, [ONE, 6, ONE, 6], [ONE, 2, TWO, 9]);
    assert_eq!(x.rt_data, [ONE, 2, TWO, 9]);
    assert_eq!(y.rt_data, x.rt_data);
    let (x, y) = both(op, m, [QNAN, 1, QNAN, 1], [TWO, 5, NEG_ONE, 5]);
    assert_eq!((x.rt_data, x.rt_rc), ([TWO, 5, NEG_ONE, 5], Rc(rc::SUCCESS)));
    assert_eq!(y.rt_data, x.rt_data);
    let (x, _) = both(op, m, [QNAN, 4, QNAN, 4], [QNAN, 2, QNAN, 9]);
    assert_eq!(x.rt_data, [DEFAULT_NAN, 2, DEFAULT_NAN, 4]);
    // sNaN: associative mode takes the number; IEEE mode gives the quiet NaN; both raise flt_invalid.
    let (x, _) = both(op, Mode::Associative, [SNAN, 1, SNAN, 1], [TWO, 5, TWO, 5]);
    assert_eq!((x.rt_data, x.rt_rc), ([TWO, 5, TWO, 5], Rc(rc::FLT_INVALID)));
    let (x, _) = both(op, Mode::Ieee, [SNAN, 1, ONE, 1], [TWO, 5, TWO, 5]);
    assert_eq!((x.rt_data, x.rt_rc), ([DEFAULT_NAN, 1, TWO, 5], Rc(rc::FLT_INVALID)));
}

/// FLT_MINMAXLOC (0x22, libfabric's first CXI collectives' `COLL_OPCODE_FLT_MINMAXLOC`): MINMAXLOC "on
/// integer or floating point values" (002 (42)) with the NaN rules of FLT_MIN/FLT_MAX (84) and the
/// lower index on ties (44), (83). The truth table is written here, with the raw opcode, not the
/// model's decoder: (a value, a index, b value, b index) -> (MINLOC value, index, MAXLOC value, index,
/// flt_invalid).
#[test]
fn flt_minmaxloc_truth_table() {
    const FLT_MINMAXLOC: u8 = 0x22;
    const NAN: u64 = 0x7ff8_0000_0000_0000; // the default NaN of 002 (45), written out
    const NEG_QNAN: u64 = 0xfff8_0000_0000_0005;
    const POS_SNAN: u64 = 0x7ff0_0000_0000_0002;
    #[rustfmt::skip]
    let table: [(u64, u64, u64, u64, [u64; 4], bool); 14] = [
        // numbers: smaller / larger wins, whichever side
        (ONE, 7, TWO, 3,            [ONE, 7, TWO, 3], false),
        (TWO, 3, ONE, 7,            [ONE, 7, TWO, 3], false),
        (NEG_ONE, 9, ONE, 1,        [NEG_ONE, 9, ONE, 1], false),
        // equal values: the lower index, on both sides (MPI MINLOC/MAXLOC)
        (ONE, 8, ONE, 2,            [ONE, 2, ONE, 2], false),
        (ONE, 2, ONE, 8,            [ONE, 2, ONE, 2], false),
        // -0 orders below +0 (not a tie)
        (0, 1, NEG_ZERO, 5,         [NEG_ZERO, 5, 0, 1], false),
        // infinities are numbers
        (INF, 4, INF | NEG_ZERO, 6, [INF | NEG_ZERO, 6, INF, 4], false),
        // any NaN wins and gives the default NaN with the NaN's index
        (QNAN, 6, ONE, 1,           [NAN, 6, NAN, 6], false),
        (ONE, 1, NEG_QNAN, 6,       [NAN, 6, NAN, 6], false),
        (SNAN, 6, TWO, 1,           [NAN, 6, NAN, 6], true),
        (INF, 1, POS_SNAN, 3,       [NAN, 3, NAN, 3], true),
        // two NaNs are equal (both give the default NaN): the lower index, sNaN or not
        (QNAN, 9, SNAN, 4,          [NAN, 4, NAN, 4], true),
        (SNAN, 2, QNAN, 4,          [NAN, 2, NAN, 2], true),
        (NEG_QNAN, 3, QNAN, 3,      [NAN, 3, NAN, 3], false),
    ];
    for mode in [Mode::Associative, Mode::Ieee] {
        for (row, &(a, ai, b, bi, want, invalid)) in table.iter().enumerate() {
            let x = Contribution { rt_op: FLT_MINMAXLOC, rt_data: [a, ai, a, ai], ..Contribution::default() };
            let y = Contribution { rt_op: FLT_MINMAXLOC, rt_data: [b, bi, b, bi], ..Contribution::default() };
            let r = combine(mode, &x, &y);
            assert_eq!(r.rt_data, want, "row {row} {mode:?}");
            assert_eq!(r.rt_rc.0, if invalid { 4 } else { 0 }, "row {row} {mode:?}: flt_invalid is rc 4");
            assert_eq!(r.rt_op, FLT_MINMAXLOC);
        }
    }
    // The two halves are independent: MINLOC from lanes 0,1, MAXLOC from lanes 2,3.
    let x = Contribution { rt_op: FLT_MINMAXLOC, rt_data: [ONE, 1, NEG_ONE, 1], ..Contribution::default() };
    let y = Contribution { rt_op: FLT_MINMAXLOC, rt_data: [TWO, 2, QNAN, 2], ..Contribution::default() };
    assert_eq!(combine(Mode::Associative, &x, &y).rt_data, [ONE, 1, NAN, 2]);
}

#[test]
fn flt_min_max_any_nan_wins_and_is_default_nan() {
    for mode in [Mode::Associative, Mode::Ieee] {
        let (x, y) = both(Op::FltMin, mode, [ONE, QNAN, SNAN, NEG_ZERO], [TWO, ONE, QNAN, 0]);
        assert_eq!(x.rt_data, [ONE, DEFAULT_NAN, DEFAULT_NAN, NEG_ZERO]);
        assert_eq!(x.rt_rc, Rc(rc::FLT_INVALID));
        assert_eq!(y.rt_data, x.rt_data);
        let (x, _) = both(Op::FltMax, mode, [ONE, QNAN, INF, NEG_ZERO], [TWO, ONE, 5, 0]);
        assert_eq!(x.rt_data, [TWO, DEFAULT_NAN, INF, 0]);
        assert_eq!(x.rt_rc, Rc(rc::SUCCESS));
    }
}

#[test]
fn flt_minnum_maxnum_nan_rules() {
    // Numbers win over quiet NaNs; two NaNs give the default NaN.
    let (x, _) = both(Op::FltMinNum, Mode::Associative, [QNAN, QNAN, ONE, SNAN], [TWO, QNAN, NEG_ONE, ONE]);
    assert_eq!(x.rt_data, [TWO, DEFAULT_NAN, NEG_ONE, ONE]);
    assert_eq!(x.rt_rc, Rc(rc::FLT_INVALID));
    let (x, _) = both(Op::FltMaxNum, Mode::Ieee, [QNAN, SNAN, ONE, 0], [TWO, ONE, NEG_ONE, NEG_ZERO]);
    assert_eq!(x.rt_data, [TWO, DEFAULT_NAN, ONE, 0]);
    assert_eq!(x.rt_rc, Rc(rc::FLT_INVALID));
}

#[test]
fn opcode_mismatch_reports_both_source_fabric_addresses() {
    let mut a = c(Op::IntSum, [1, 2, 3, 4]);
    a.sfa = 0x0001_2345;
    let mut b = c(Op::IntMin, [9; 4]);
    b.sfa = 0x000a_bcde;
    let r = combine(Mode::Associative, &a, &b);
    assert_eq!(r.rt_rc, Rc(rc::OP_MISMATCH));
    assert_eq!(r.rt_data, [0x000a_bcde_0001_2345, 2, 3, 4]);
    // The first report survives later combines, whichever side it is on.
    let later = c(Op::IntSum, [100; 4]);
    assert_eq!(combine(Mode::Associative, &r, &later), r);
    assert_eq!(combine(Mode::Associative, &later, &r), r);
}

#[test]
fn result_codes_keep_the_highest() {
    let mut a = c(Op::FltSum(Fe::ToNearest, false), [ONE, 0, 0, 0]);
    a.rt_rc = Rc(rc::FLT_INEXACT);
    let mut b = a;
    b.rt_rc = Rc(rc::CONTR_OVERFLOW);
    b.rt_data = [SNAN, 0, 0, 0];
    let r = combine(Mode::Associative, &a, &b);
    assert_eq!(r.rt_rc, Rc(rc::CONTR_OVERFLOW));
    assert_eq!(r.rt_data[0], DEFAULT_NAN);
}

fn rep(bits: u64) -> Contribution {
    let (r, rc) = repsum::from_f64_bits(bits);
    Contribution {
        rt_op: raw(Op::FltRepsum),
        rt_data: r.t.map(|v| v as u64),
        rt_rc: rc,
        rt_repsum_m: r.m,
        ..Contribution::default()
    }
}

fn rep_value(c: &Contribution) -> f64 {
    f64::from_bits(repsum::to_f64_bits(&c.repsum()))
}

#[test]
fn repsum_specials_and_dropping() {
    let m = Mode::Associative;
    let r = combine(m, &rep(1.5f64.to_bits()), &rep(2.25f64.to_bits()));
    assert_eq!((rep_value(&r), r.rt_rc), (3.75, Rc(rc::SUCCESS)));
    // 2^80 and 1.0: bins three apart or more are dropped -> REP_INEXACT.
    let r = combine(m, &rep(2f64.powi(200).to_bits()), &rep(1.0f64.to_bits()));
    assert_eq!((rep_value(&r), r.rt_rc), (2f64.powi(200), Rc(rc::REP_INEXACT)));
    let r = combine(m, &rep(INF), &rep(ONE));
    assert_eq!((r.rt_repsum_m, r.rt_rc), (M_POS_INF, Rc(rc::FLT_OVERFLOW)));
    let r = combine(m, &rep(INF), &rep(INF | 1 << 63));
    assert_eq!((r.rt_repsum_m, r.rt_rc), (M_NAN, Rc(rc::FLT_INVALID)));
    assert!(rep_value(&r).is_nan());
    let r = combine(m, &rep(INF | 1 << 63), &rep(ONE));
    assert_eq!(r.rt_repsum_m, M_NEG_INF);
    let r = combine(m, &rep(SNAN), &rep(INF));
    assert_eq!((r.rt_repsum_m, r.rt_rc), (M_NAN, Rc(rc::FLT_INVALID)));
}

#[test]
fn repsum_overflow_id_and_its_dropping() {
    let m = Mode::Associative;
    let big = |bin3: i64, m_: i8| Contribution {
        rt_op: raw(Op::FltRepsum),
        rt_data: [0, 0, 1, bin3 as u64],
        rt_repsum_m: m_,
        ..Contribution::default()
    };
    // Bin 3 overflows: INT_OVERFLOW, oflow_id 3.
    let r = combine(m, &big(i64::MAX, 0), &big(1, 0));
    assert_eq!((r.rt_rc, r.rt_repsum_oflow_id), (Rc(rc::INT_OVERFLOW), 3));
    // Against an operand 2 bins up the overflowed bin survives as bin 1.
    let r2 = combine(m, &r, &big(0, 2));
    assert_eq!((r2.rt_rc, r2.rt_repsum_oflow_id, r2.rt_repsum_m), (Rc(rc::INT_OVERFLOW), 1, 2));
    // Against one 4 bins up it is dropped: (M + oflow_id) < M' (002 (92)); the drop is inexact.
    let r4 = combine(m, &big(0, 4), &r);
    assert_eq!((r4.rt_rc, r4.rt_repsum_oflow_id, r4.rt_repsum_m), (Rc(rc::REP_INEXACT), 0, 4));
}

#[test]
fn flt_sum_is_not_associative() {
    let op = Op::FltSum(Fe::ToNearest, false);
    let e16 = 1e16f64.to_bits();
    let items = [c(op, [e16, 0, 0, 0]), c(op, [ONE, 0, 0, 0]), c(op, [ONE, 0, 0, 0])];
    let left = reduce_all(Mode::Associative, &items).unwrap();
    let right = combine(Mode::Associative, &items[0], &combine(Mode::Associative, &items[1], &items[2]));
    assert_ne!(left.rt_data[0], right.rt_data[0], "(1e16 + 1) + 1 != 1e16 + (1 + 1) in binary64");
}

/// Doubles for REPSUM properties: mostly finite with a spread of exponents, some specials.
fn double_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        8 => (any::<bool>(), 900u64..1150, any::<u64>()).prop_map(|(s, e, f)| u64::from(s) << 63 | e << 52 | (f & ((1 << 52) - 1))),
        2 => any::<u64>().prop_filter("finite", |v| (v >> 52) & 0x7ff != 0x7ff),
        1 => prop::sample::select(vec![0u64, NEG_ZERO, 1, 0x000f_ffff_ffff_ffff, INF, INF | NEG_ZERO, QNAN, SNAN]),
    ]
}

/// Combines `items` (in the given order) along a random binary tree described by `splits`.
fn tree_combine(mode: Mode, items: &[Contribution], splits: &mut impl Iterator<Item = usize>) -> Contribution {
    if items.len() == 1 {
        return items[0];
    }
    let k = 1 + splits.next().unwrap_or(0) % (items.len() - 1);
    let l = tree_combine(mode, &items[..k], splits);
    let r = tree_combine(mode, &items[k..], splits);
    combine(mode, &l, &r)
}

fn shuffled<T: Clone>(v: &[T], perm_seed: &[usize]) -> Vec<T> {
    let mut out = v.to_vec();
    for (i, s) in perm_seed.iter().enumerate().take(out.len()) {
        let j = i + s % (out.len() - i);
        out.swap(i, j);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2048,
        max_global_rejects: 1 << 16,
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn repsum_is_bit_identical_for_every_order_and_tree(
        xs in prop::collection::vec(double_strategy(), 1..40),
        perm in prop::collection::vec(any::<usize>(), 40),
        splits_a in prop::collection::vec(any::<usize>(), 40),
        splits_b in prop::collection::vec(any::<usize>(), 40),
    ) {
        let items: Vec<Contribution> = xs.iter().map(|&x| rep(x)).collect();
        let seq = reduce_all(Mode::Associative, &items).unwrap();
        let other = shuffled(&items, &perm);
        let t1 = tree_combine(Mode::Associative, &other, &mut splits_a.into_iter());
        let t2 = tree_combine(Mode::Associative, &items, &mut splits_b.into_iter());
        for t in [t1, t2] {
            prop_assert_eq!(t.rt_data, seq.rt_data);
            prop_assert_eq!(t.rt_repsum_m, seq.rt_repsum_m);
            prop_assert_eq!(repsum::to_f64_bits(&t.repsum()), repsum::to_f64_bits(&seq.repsum()));
        }
    }

    #[test]
    fn repsum_of_two_is_the_correctly_rounded_sum_when_nothing_is_dropped(
        (a, b) in (any::<bool>(), 1u64..2046, any::<u64>(), any::<bool>(), -60i64..60, any::<u64>()).prop_map(
            |(sa, ea, fa, sb, de, fb)| {
                let eb = (ea as i64 + de).clamp(0, 2046) as u64;
                let mk = |s: bool, e: u64, f: u64| u64::from(s) << 63 | e << 52 | (f & ((1 << 52) - 1));
                (mk(sa, ea, fa), mk(sb, eb, fb))
            }),
    ) {
        let r = combine(Mode::Associative, &rep(a), &rep(b));
        let (fa, fb) = (f64::from_bits(a), f64::from_bits(b));
        prop_assume!(fa.is_finite() && fb.is_finite() && r.rt_rc < Rc(rc::REP_INEXACT));
        let want = fa + fb; // host RNE: the default mode of Rust; fine in a test oracle
        prop_assume!(want != 0.0);
        prop_assert_eq!(repsum::to_f64_bits(&r.repsum()), want.to_bits());
    }

    #[test]
    fn repsum_split_join_round_trips(a in double_strategy()) {
        let (r, _) = repsum::from_f64_bits(a);
        let back = repsum::to_f64_bits(&r);
        let f = f64::from_bits(a);
        if f.is_nan() {
            prop_assert_eq!(back, DEFAULT_NAN);
        } else if f == 0.0 {
            prop_assert_eq!(back, 0);
        } else {
            prop_assert_eq!(back, a);
        }
    }

    #[test]
    fn selection_and_bitwise_operators_are_order_independent(
        lanes in prop::collection::vec((any::<u64>(), 0u64..8, double_strategy(), double_strategy()), 1..24),
        perm in prop::collection::vec(any::<usize>(), 24),
        splits in prop::collection::vec(any::<usize>(), 24),
    ) {
        let ops = [
            Op::BitAnd, Op::BitOr, Op::BitXor, Op::LogAnd, Op::LogOr, Op::LogXor,
            Op::IntMin, Op::IntMax, Op::IntSum, Op::IntMinMaxLoc,
            Op::FltMin, Op::FltMax, Op::FltMinNum, Op::FltMaxNum, Op::FltMinMaxNumLoc,
            Op::Barrier, Op::FltMinMaxLoc,
        ];
        for op in ops {
            let items: Vec<Contribution> = lanes.iter().map(|&(i, idx, f, g)| {
                let d = match op {
                    Op::IntMinMaxLoc => [i & 0xff, idx, i & 0xff, idx],
                    Op::FltMinMaxNumLoc | Op::FltMinMaxLoc => [f, idx, g, idx],
                    o if name(o).starts_with("FLT") => [f, g, f ^ 1, g],
                    _ => [i, i.rotate_left(7), idx, !i],
                };
                let mut c = c(op, d);
                c.rt_rc = Rc(rc::SUCCESS);
                c
            }).collect();
            let seq = reduce_all(Mode::Associative, &items).unwrap();
            let t = tree_combine(Mode::Associative, &shuffled(&items, &perm), &mut splits.clone().into_iter());
            prop_assert_eq!(t.rt_data, seq.rt_data, "{}", name(op));
            // INT_SUM's data wraps identically in any order, but whether an intermediate sum overflowed
            // (INT_OVERFLOW) depends on the order, as in libfabric.
            if op != Op::IntSum {
                prop_assert_eq!(t.rt_rc, seq.rt_rc, "{}", name(op));
            }
        }
    }

    #[test]
    fn minmaxloc_matches_mpi_minloc_maxloc(vals in prop::collection::vec((-4i64..4, 0u64..100), 1..20)) {
        let items: Vec<Contribution> = vals.iter().map(|&(v, i)| c(Op::IntMinMaxLoc, [v as u64, i, v as u64, i])).collect();
        let r = reduce_all(Mode::Associative, &items).unwrap();
        let min = vals.iter().map(|v| v.0).min().unwrap();
        let max = vals.iter().map(|v| v.0).max().unwrap();
        let min_idx = vals.iter().filter(|v| v.0 == min).map(|v| v.1).min().unwrap();
        let max_idx = vals.iter().filter(|v| v.0 == max).map(|v| v.1).min().unwrap();
        prop_assert_eq!(r.rt_data, [min as u64, min_idx, max as u64, max_idx]);
    }
}

#[test]
fn repsum_reference_example() {
    // 0.1 summed 10 times: the reproducible sum is the correctly rounded exact sum of the ten doubles.
    let items: Vec<Contribution> = (0..10).map(|_| rep(0.1f64.to_bits())).collect();
    let r = reduce_all(Mode::Associative, &items).unwrap();
    assert_eq!(rep_value(&r), 1.0000000000000000);
    let _ = Repsum::default();
}

/// The operand bound (002 (89), 004): each bin holds at most W = 40 significant bits, so 2^23
/// worst-case operands (every bin all ones, same sign) sum without overflow; 2^24 of them can overflow
/// the signed 64-bit bin. Doubling a partial result is the same as combining 2^k equal operands.
#[test]
fn repsum_operand_bound_is_two_to_the_23_worst_case() {
    // Significand all ones, exponent placing the leading bit at the top of its bin (w = 39).
    let e = 39 + 40 * 2; // unbiased exponent 119: bin 2, offset 39
    let v = ((e + 1023) as u64) << 52 | ((1u64 << 52) - 1);
    let mut r = rep(v);
    assert_eq!(r.rt_data[3], (1u64 << 40) - 1, "top bin full: 40 significant bits");
    for _ in 0..23 {
        r = combine(Mode::Associative, &r, &r);
    }
    assert_eq!(r.rt_rc, Rc(rc::SUCCESS));
    assert_eq!(rep_value(&r), f64::from_bits(v) * 2f64.powi(23));
    let over = combine(Mode::Associative, &r, &r);
    assert_eq!((over.rt_rc, over.rt_repsum_oflow_id), (Rc(rc::INT_OVERFLOW), 3));
}
