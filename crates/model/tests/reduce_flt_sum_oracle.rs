//! FLT_SUM against Berkeley SoftFloat 3e (`softfloat-wrapper`, `riscv` specialisation: default NaN
//! 0x7FF8000000000000): every rounding mode x FTZ, every flag, on exhaustive pairs of special values and
//! on random pairs (10^6 per variant, about 1 s in either profile since the workspace builds tests
//! optimised; override with REDUCE_ORACLE_PAIRS). FTZ is applied to SoftFloat's result as 002 (81)
//! defines it: a subnormal result becomes a zero of the same sign and raises inexact.

use std::sync::Mutex;

use inswitch_model::reduce::float::{f64_add, FpFlags};
use inswitch_model::reduce::{combine, Contribution, Mode, Opcode, Rc, Rounding};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use softfloat_wrapper::{ExceptionFlags, Float, RoundingMode, F64};

/// SoftFloat keeps its flags in a global: one oracle call at a time.
static SOFTFLOAT: Mutex<()> = Mutex::new(());

fn sf_mode(r: Rounding) -> RoundingMode {
    match r {
        Rounding::NearestEven => RoundingMode::TiesToEven,
        Rounding::TowardPositive => RoundingMode::TowardPositive,
        Rounding::TowardNegative => RoundingMode::TowardNegative,
        Rounding::TowardZero => RoundingMode::TowardZero,
    }
}

fn oracle(a: u64, b: u64, r: Rounding, ftz: bool) -> (u64, FpFlags) {
    let _g = SOFTFLOAT.lock().unwrap();
    ExceptionFlags::default().set();
    let res = F64::from_bits(a).add(F64::from_bits(b), sf_mode(r)).to_bits();
    let mut f = ExceptionFlags::default();
    f.get();
    let mut flags = FpFlags { inexact: f.is_inexact(), overflow: f.is_overflow(), invalid: f.is_invalid() };
    let mut res = res;
    if ftz && (res >> 52) & 0x7ff == 0 && res & ((1 << 52) - 1) != 0 {
        res &= 1 << 63;
        flags.inexact = true;
    }
    (res, flags)
}

fn variants() -> impl Iterator<Item = (Rounding, bool)> {
    [false, true].into_iter().flat_map(|ftz| Rounding::ALL.into_iter().map(move |r| (r, ftz)))
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

fn check(a: u64, b: u64, r: Rounding, ftz: bool) {
    let got = f64_add(a, b, r, ftz);
    let want = oracle(a, b, r, ftz);
    assert_eq!(
        got, want,
        "FLT_SUM {r:?} ftz={ftz}: {a:#018x} + {b:#018x}: model {:#018x} {:?}, SoftFloat {:#018x} {:?}",
        got.0, got.1, want.0, want.1
    );
}

#[test]
fn flt_sum_special_classes_exhaustive() {
    let s = specials();
    let mut n = 0u64;
    for (r, ftz) in variants() {
        for &a in &s {
            for &b in &s {
                check(a, b, r, ftz);
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
    for (vi, (r, ftz)) in variants().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0000 + vi as u64);
        for _ in 0..pairs {
            let (a, b) = operand_pair(&mut rng, &s);
            check(a, b, r, ftz);
        }
    }
    eprintln!("FLT_SUM random: {pairs} pairs per variant x 8 variants match SoftFloat");
}

/// The frame-level FLT_SUM: four lanes, one result code = the highest flag over the lanes.
#[test]
fn flt_sum_frame_rc_is_highest_lane_flag() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let s = specials();
    for (r, ftz) in variants() {
        let op = Opcode::FltSum { rounding: r, ftz };
        for _ in 0..20_000 {
            let mut a = Contribution::new(op, [0; 4]);
            let mut b = Contribution::new(op, [0; 4]);
            let mut want_rc = Rc::SUCCESS;
            let mut want = [0u64; 4];
            for (i, w) in want.iter_mut().enumerate() {
                let (x, y) = operand_pair(&mut rng, &s);
                a.rt_data[i] = x;
                b.rt_data[i] = y;
                let (v, f) = oracle(x, y, r, ftz);
                *w = v;
                let rc = if f.invalid {
                    Rc::FLT_INVALID
                } else if f.overflow {
                    Rc::FLT_OVERFLOW
                } else if f.inexact {
                    Rc::FLT_INEXACT
                } else {
                    Rc::SUCCESS
                };
                want_rc = want_rc.merge(rc);
            }
            let out = combine(Mode::Associative, &a, &b);
            assert_eq!(out.rt_data, want);
            assert_eq!(out.rt_rc, want_rc);
        }
    }
}
