//! Issue 22 for the reduction unit: checks that do not trust the model's reading of the seeds.
//! - the scoreboard's own FLT_SUM reference (`inswitch::sources::flt_sum`, host IEEE arithmetic) agrees
//!   with Berkeley SoftFloat on every rounding mode and FTZ;
//! - the directed checks of `crates/model/tests/support/sources.rs` (literal tables: every FLT_SUM
//!   rounding mode, every ordered pair of result codes on the integer, FLT_SUM, FLT_MINMAX and REPSUM
//!   paths) run against the Verilated RTL, not only the model;
//! - meta-tests: the scoreboard objects to each kind of deviation it claims to catch, planted in a model
//!   that stands in for both sides (so lockstep equality cannot), independent of traffic timing; among
//!   them the model built on a copy of its tables with the FLT_SUM rounding modes or two result-code
//!   priorities swapped.

#[path = "../crates/model/tests/support/sources.rs"]
mod literal;

use inswitch::blocks::reduce_unit::{ReduceUnitMonitor, ReduceUnitRtl, ReduceUnitStimulus};
use inswitch::mutation::{scoreboard_complaint, AsRtl, Mutant};
use inswitch::sources::{self, Fe};
use inswitch_model::reduce_unit::{ReduceUnit, ReduceUnitIn, ReduceUnitOut, LATENCY};
use inswitch_model::reduce::{Contribution, Mode, Rc, Tables};
use inswitch_model::Block;
use softfloat_wrapper::{ExceptionFlags, Float, RoundingMode, F64};

// ---- The scoreboard's FLT_SUM reference against SoftFloat ----

fn softfloat(a: u64, b: u64, fe: Fe, ftz: bool) -> (u64, u8) {
    let mode = match fe {
        Fe::ToNearest => RoundingMode::TiesToEven,
        Fe::Upward => RoundingMode::TowardPositive,
        Fe::Downward => RoundingMode::TowardNegative,
        Fe::TowardZero => RoundingMode::TowardZero,
    };
    ExceptionFlags::default().set();
    let mut r = F64::from_bits(a).add(F64::from_bits(b), mode).to_bits();
    let mut f = ExceptionFlags::default();
    f.get();
    let mut inexact = f.is_inexact();
    if ftz && (r >> 52) & 0x7ff == 0 && r & ((1 << 52) - 1) != 0 {
        r &= 1 << 63;
        inexact = true;
    }
    let code = if f.is_invalid() {
        4
    } else if f.is_overflow() {
        3
    } else if inexact {
        1
    } else {
        0
    };
    (r, code)
}

fn specials() -> Vec<u64> {
    let pos = [
        0u64,
        1,
        2,
        0x0008_0000_0000_0000,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x0010_0000_0000_0001,
        0x001f_ffff_ffff_ffff,
        0x3ca0_0000_0000_0000,
        0x3ca0_0000_0000_0001,
        0x3c90_0000_0000_0000,
        0x3fef_ffff_ffff_ffff,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x4340_0000_0000_0000,
        0x7c90_0000_0000_0000,
        0x7c9f_ffff_ffff_ffff,
        0x7ca0_0000_0000_0000,
        0x7fe0_0000_0000_0000,
        0x7fef_ffff_ffff_fffe,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff8_0000_0000_0001,
        0x7ff0_0000_0000_0001,
    ];
    pos.iter().flat_map(|&v| [v, v | 1 << 63]).collect()
}

const MODES: [(Fe, bool); 8] = [
    (Fe::ToNearest, false),
    (Fe::Upward, false),
    (Fe::Downward, false),
    (Fe::TowardZero, false),
    (Fe::ToNearest, true),
    (Fe::Upward, true),
    (Fe::Downward, true),
    (Fe::TowardZero, true),
];

#[test]
fn the_scoreboards_flt_sum_reference_agrees_with_softfloat() {
    let s = specials();
    let mut n = 0u64;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (fe, ftz) in MODES {
        for &a in &s {
            for &b in &s {
                assert_eq!(sources::flt_sum(a, b, fe, ftz), softfloat(a, b, fe, ftz), "{fe:?} ftz {ftz}: {a:#x} + {b:#x}");
                n += 1;
            }
        }
        for _ in 0..200_000 {
            let a = rnd();
            // Near exponents (cancellation, carries) half the time.
            let b = if a & 1 == 0 { rnd() } else { (a ^ (1 << 63)) ^ (rnd() & 0x000f_ffff_ffff_ffff) };
            assert_eq!(sources::flt_sum(a, b, fe, ftz), softfloat(a, b, fe, ftz), "{fe:?} ftz {ftz}: {a:#x} + {b:#x}");
            n += 1;
        }
    }
    eprintln!("{n} FLT_SUM vectors: the scoreboard's reference matches SoftFloat");
}

// ---- Directed checks on the literal tables, against the RTL ----

/// One pairwise combine through the Verilated reduction unit.
fn rtl_combine(rtl: &mut ReduceUnitRtl, a: &Contribution, b: &Contribution) -> Contribution {
    let mut out = rtl.step(&ReduceUnitIn::pair(Mode::Associative, a, b));
    for _ in 0..LATENCY {
        out = rtl.step(&ReduceUnitIn::default());
        if out.out_valid {
            break;
        }
    }
    assert!(out.out_valid, "no result {LATENCY} cycles after the pair");
    Contribution {
        rt_op: out.out_rt_op,
        rt_data: core::array::from_fn(|i| out.out_rt_data.0[i]),
        rt_rc: Rc(out.out_rt_rc),
        rt_repsum_m: out.out_rt_repsum_m as i8,
        rt_repsum_oflow_id: out.out_rt_repsum_oflow_id,
        sfa: 0,
    }
}

#[test]
fn the_rtl_rounds_every_flt_sum_opcode_as_the_sources_say() {
    let rtl = std::cell::RefCell::new(ReduceUnitRtl::new("reduce_unit").expect("the reduce_unit model is built"));
    literal::flt_sum_directed(&|a, b| rtl_combine(&mut rtl.borrow_mut(), a, b)).unwrap();
}

#[test]
fn the_rtl_keeps_the_higher_priority_code_for_every_ordered_pair_on_every_path() {
    let rtl = std::cell::RefCell::new(ReduceUnitRtl::new("reduce_unit").expect("the reduce_unit model is built"));
    let n = literal::result_code_pairs(&|a, b| rtl_combine(&mut rtl.borrow_mut(), a, b)).unwrap();
    assert!(n >= 4 * 64, "{n}");
}

// ---- Meta-tests of the scoreboard ----

type Unit = Mutant<ReduceUnit, fn(&ReduceUnitIn, &mut ReduceUnitOut)>;

/// The scoreboard's complaint about a reduction unit built by `unit` on both sides.
fn complaint(name: &str, unit: fn() -> Unit) -> String {
    let make = |seed: u64| Ok(inswitch::checker::Bench::new(unit(), AsRtl(unit()), ReduceUnitStimulus::new(seed), ReduceUnitMonitor::new()));
    let msg = scoreboard_complaint(name, &make, 7, 200_000).unwrap();
    eprintln!("{name}: {msg}");
    msg
}

fn with_tables(t: Tables) -> ReduceUnit {
    ReduceUnit::with_tables(t)
}

fn identity(_: &ReduceUnitIn, _: &mut ReduceUnitOut) {}

#[test]
fn the_scoreboard_accepts_the_seed_tables() {
    let make = |seed: u64| {
        let u = || Mutant { inner: with_tables(Tables::SEED), f: identity as fn(&ReduceUnitIn, &mut ReduceUnitOut) };
        Ok(inswitch::checker::Bench::new(u(), AsRtl(u()), ReduceUnitStimulus::new(seed), ReduceUnitMonitor::new()))
    };
    let e = scoreboard_complaint("seed_tables", &make, 7, 200_000).expect_err("the seed's tables must pass");
    assert!(e.contains("accepted 200000 cycles"), "{e}");
}

#[test]
fn the_scoreboard_rejects_swapped_flt_sum_rounding_opcodes() {
    let msg = complaint("swapped_rounding", || {
        let mut t = Tables::SEED;
        t.flt_sum_rounding.swap(1, 2);
        Mutant { inner: with_tables(t), f: identity }
    });
    assert!(msg.contains("FltSum"), "{msg}");
}

#[test]
fn the_scoreboard_rejects_a_swapped_result_code_priority() {
    let msg = complaint("swapped_priority", || {
        let mut t = Tables::SEED;
        t.rc_priority.swap(4, 6); // FLT_INVALID and INT_OVERFLOW
        Mutant { inner: with_tables(t), f: identity }
    });
    assert!(msg.contains("rt_rc") || msg.contains("rt_data"), "{msg}");
}

/// Each kind of deviation the scoreboard's module comment claims to catch, planted on every result of
/// its kind (by content, not by cycle).
#[test]
fn the_scoreboard_rejects_each_kind_of_wrong_output() {
    fn op_is(o: &ReduceUnitOut, ops: &[u8]) -> bool {
        o.out_valid && ops.contains(&o.out_rt_op) && o.out_rt_rc != 8
    }
    type F = fn(&ReduceUnitIn, &mut ReduceUnitOut);
    let cases: [(&str, F, &str); 11] = [
        ("rt_op", |_, o| if o.out_valid { o.out_rt_op ^= 1 }, "out_rt_op"),
        ("mismatch_report", |_, o| if o.out_valid && o.out_rt_rc == 8 { o.out_rt_data.0[0] ^= 1 << 40 }, "ismatch"),
        ("barrier", |_, o| if op_is(o, &[0x00]) { o.out_rt_data.0[2] = 1 }, "rt_data"),
        ("bitwise", |_, o| if op_is(o, &[0x01, 0x02, 0x03]) { o.out_rt_data.0[1] ^= 1 << 9 }, "rt_data"),
        ("int_sum", |_, o| if op_is(o, &[0x14]) { o.out_rt_data.0[3] ^= 1 }, "rt_data"),
        ("minmaxloc_index", |_, o| if op_is(o, &[0x12]) { o.out_rt_data.0[1] ^= 1 }, "rt_data"),
        ("flt_min_max", |_, o| if op_is(o, &[0x20, 0x21]) { o.out_rt_data.0[0] ^= 1 }, "rt_data"),
        ("flt_sum_one_ulp", |_, o| if op_is(o, &[0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f]) { o.out_rt_data.0[2] ^= 1 }, "rt_data"),
        ("flt_sum_lost_inexact", |_, o| if op_is(o, &[0x29]) && o.out_rt_rc == 1 { o.out_rt_rc = 0 }, "rt_rc"),
        ("int_overflow_not_raised", |_, o| if op_is(o, &[0x14]) && o.out_rt_rc == 6 { o.out_rt_rc = 0 }, "rt_rc"),
        ("snan_not_invalid", |_, o| if op_is(o, &[0x24, 0x25]) && o.out_rt_rc == 4 { o.out_rt_rc = 0 }, "rt_rc"),
    ];
    for (name, f, want) in cases {
        let make = |seed: u64| {
            let u = || Mutant { inner: ReduceUnit::new(), f };
            Ok(inswitch::checker::Bench::new(u(), AsRtl(u()), ReduceUnitStimulus::new(seed), ReduceUnitMonitor::new()))
        };
        let msg = scoreboard_complaint(name, &make, 7, 200_000).unwrap();
        eprintln!("{name}: {msg}");
        // Case-insensitive: "opcode mismatch report" and "carries OP_MISMATCH" are both the mismatch check.
        assert!(msg.to_lowercase().contains(&want.to_lowercase()), "{name}: {msg}");
    }
    // Output protocol: a result one cycle late, and garbage on the outputs while out_valid is 0.
    struct Late(ReduceUnit, ReduceUnitOut);
    impl Block for Late {
        type In = ReduceUnitIn;
        type Out = ReduceUnitOut;
        fn step(&mut self, i: &ReduceUnitIn) -> ReduceUnitOut {
            let o = self.0.step(i);
            std::mem::replace(&mut self.1, o)
        }
    }
    let make = |seed: u64| {
        let u = || Late(ReduceUnit::new(), ReduceUnitOut::default());
        Ok(inswitch::checker::Bench::new(u(), AsRtl(u()), ReduceUnitStimulus::new(seed), ReduceUnitMonitor::new()))
    };
    let msg = scoreboard_complaint("late", &make, 7, 200_000).unwrap();
    assert!(msg.contains("edges ago"), "{msg}");
    let make = |seed: u64| {
        let u = || Mutant { inner: ReduceUnit::new(), f: (|_, o| if !o.out_valid { o.out_rt_rc = 1 }) as fn(&ReduceUnitIn, &mut ReduceUnitOut) };
        Ok(inswitch::checker::Bench::new(u(), AsRtl(u()), ReduceUnitStimulus::new(seed), ReduceUnitMonitor::new()))
    };
    let msg = scoreboard_complaint("idle_outputs", &make, 7, 200_000).unwrap();
    assert!(msg.contains("not all 0"), "{msg}");
}
