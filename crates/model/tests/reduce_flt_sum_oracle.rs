//! FLT_SUM against Berkeley SoftFloat 3e (`softfloat-wrapper`, `riscv` specialisation: default NaN
//! 0x7FF8000000000000): every FLT_SUM opcode (rounding mode x FTZ from the literal table of
//! `support/sources.rs`, never the model's `Rounding`), every result code, on exhaustive pairs of special values and
//! on random pairs (10^6 per variant, about 1 s in either profile since the workspace builds tests
//! optimised; override with REDUCE_ORACLE_PAIRS). FTZ is applied to SoftFloat's result as 002 (81)
//! defines it: a subnormal result becomes a zero of the same sign and raises inexact.

use inswitch_model::reduce::{combine, Contribution, Mode, Rc};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use crate::support::softfloat::{self, Flags};
use crate::support::sources::{higher, Fe, FLT_SUM, SUCCESS};

// The rounding mode and FTZ of each opcode come from the literal table `support::sources::FLT_SUM`
// (libfabric `cxip_coll.c` lines 541-562, 002 (88)); the model is driven by the raw opcode number only,
// so a model that decodes an opcode to the wrong mode disagrees with SoftFloat.

fn variants() -> impl Iterator<Item = (u8, Fe, bool)> {
    FLT_SUM.into_iter()
}

/// Special classes: zeros, subnormals, normal extremes, infinities, NaNs, and values whose sums round
/// across a binade or overflow.
fn specials() -> Vec<u64> {
    let pos = [
        0u64,                  // +0
        1,                     // smallest subnormal
        2,
        0x0008_0000_0000_0000, // mid subnormal
        0x000f_ffff_ffff_ffff, // largest subnormal
        0x0010_0000_0000_0000, // smallest normal
        0x0010_0000_0000_0001,
        0x001f_ffff_ffff_ffff, // top of the first normal binade
        0x0020_0000_0000_0000,
        0x3ca0_0000_0000_0000, // 2^-53: half an ulp of 1.0
        0x3ca0_0000_0000_0001,
        0x3c90_0000_0000_0000, // 2^-54
        0x3fef_ffff_ffff_ffff, // 1 - 2^-53
        0x3ff0_0000_0000_0000, // 1.0
        0x3ff0_0000_0000_0001, // 1 + ulp
        0x3fff_ffff_ffff_ffff, // 2 - ulp
        0x4340_0000_0000_0000, // 2^53
        0x433f_ffff_ffff_ffff, // 2^53 - 1
        0x7c90_0000_0000_0000, // half an ulp of the largest finite
        0x7ca0_0000_0000_0000, // an ulp of the largest finite
        0x7fe0_0000_0000_0000, // largest binade start
        0x7fef_ffff_ffff_fffe,
        0x7fef_ffff_ffff_ffff, // largest finite
        0x7ff0_0000_0000_0000, // +Inf
        0x7ff8_0000_0000_0000, // default qNaN
        0x7ff8_0000_0000_0001, // qNaN with payload
        0x7ff0_0000_0000_0001, // sNaN
        0x7ff7_ffff_ffff_ffff, // sNaN, full payload
    ];
    pos.iter().flat_map(|&v| [v, v | 1 << 63]).collect()
}

/// The model's FLT_SUM of one pair (lane 0; lanes 1-3 add zeros, exactly) through the raw opcode.
fn model(op: u8, a: u64, b: u64) -> (u64, u8) {
    let x = Contribution { rt_op: op, rt_data: [a, 0, 0, 0], ..Contribution::default() };
    let y = Contribution { rt_op: op, rt_data: [b, 0, 0, 0], ..Contribution::default() };
    let r = combine(Mode::Associative, &x, &y);
    (r.rt_data[0], r.rt_rc.0)
}

fn check(a: u64, b: u64, op: u8, fe: Fe, ftz: bool) {
    let got = model(op, a, b);
    let (v, f): (u64, Flags) = softfloat::add(a, b, fe, ftz);
    let want = (v, f.code());
    assert_eq!(
        got, want,
        "FLT_SUM opcode {op:#04x} ({fe:?} ftz={ftz}): {a:#018x} + {b:#018x}: model {:#018x} rc {}, SoftFloat {:#018x} {f:?}",
        got.0, got.1, want.0
    );
}

#[test]
fn flt_sum_special_classes_exhaustive() {
    let s = specials();
    let mut n = 0u64;
    for (op, fe, ftz) in variants() {
        for &a in &s {
            for &b in &s {
                check(a, b, op, fe, ftz);
                n += 1;
            }
        }
    }
    eprintln!("FLT_SUM special classes: {n} vectors ({} per variant) match SoftFloat", n / 8);
}

/// Random operands weighted towards the interesting cases: near exponents (cancellation, carries),
/// extreme exponents, negations, tiny and huge values, and plain random bits.
fn operand_pair(rng: &mut ChaCha8Rng, specials: &[u64]) -> (u64, u64) {
    let any = |rng: &mut ChaCha8Rng| rng.random::<u64>();
    let near = |rng: &mut ChaCha8Rng, x: u64| {
        let sign = if rng.random::<bool>() { 1u64 << 63 } else { 0 };
        let e = ((x >> 52) & 0x7ff) as i64 + rng.random_range(-3i64..=3);
        let e = e.clamp(0, 0x7fe) as u64;
        sign | e << 52 | (rng.random::<u64>() & ((1 << 52) - 1))
    };
    let a = match rng.random_range(0..10) {
        0 => specials[rng.random_range(0..specials.len())],
        1 => rng.random::<u64>() & 0x800f_ffff_ffff_ffff, // subnormal or zero
        2 => (rng.random::<u64>() & 0x800f_ffff_ffff_ffff) | 0x7fe0_0000_0000_0000, // top binade
        _ => any(rng),
    };
    let b = match rng.random_range(0..10) {
        0 => specials[rng.random_range(0..specials.len())],
        1..=3 => near(rng, a),
        4 => a ^ (1 << 63) ^ rng.random_range(0..4u64), // near-cancellation
        5 => {
            // a shifted by up to 64 binades: sticky and rounding boundaries
            let e = ((a >> 52) & 0x7ff) as i64 - rng.random_range(0..64i64);
            (rng.random::<u64>() & 0x800f_ffff_ffff_ffff) | (e.clamp(0, 0x7fe) as u64) << 52
        }
        _ => any(rng),
    };
    (a, b)
}

#[test]
fn flt_sum_random_pairs_every_variant() {
    let pairs: u64 = std::env::var("REDUCE_ORACLE_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let s = specials();
    for (vi, (op, fe, ftz)) in variants().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0000 + vi as u64);
        for _ in 0..pairs {
            let (a, b) = operand_pair(&mut rng, &s);
            check(a, b, op, fe, ftz);
        }
    }
    eprintln!("FLT_SUM random: {pairs} pairs per variant x 8 variants match SoftFloat");
}

/// The frame-level FLT_SUM: four lanes, one result code = the highest flag over the lanes.
#[test]
fn flt_sum_frame_rc_is_highest_lane_flag() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let s = specials();
    for (op, fe, ftz) in variants() {
        for _ in 0..20_000 {
            let mut a = Contribution { rt_op: op, ..Contribution::default() };
            let mut b = Contribution { rt_op: op, ..Contribution::default() };
            let mut want_rc = SUCCESS;
            let mut want = [0u64; 4];
            for (i, w) in want.iter_mut().enumerate() {
                let (x, y) = operand_pair(&mut rng, &s);
                a.rt_data[i] = x;
                b.rt_data[i] = y;
                let (v, f) = softfloat::add(x, y, fe, ftz);
                *w = v;
                want_rc = higher(want_rc, f.code());
            }
            let out = combine(Mode::Associative, &a, &b);
            assert_eq!(out.rt_data, want);
            assert_eq!(out.rt_rc, Rc(want_rc));
        }
    }
}
