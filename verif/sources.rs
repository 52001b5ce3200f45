//! An independent FLT_SUM reference built on host IEEE arithmetic for the scoreboards, on the literal
//! truth tables of the seeds and libfabric (issue 22). The tables themselves are `verif/literal_tables.rs`,
//! the one copy shared with the model's integration tests (`crates/model/tests/support/sources.rs`
//! includes the same file). Nothing here calls the model's decoders, priority function or enums: a
//! scoreboard that computes its expectation from these tables can object when the model and the RTL
//! share a wrong reading of the seed.

#[path = "literal_tables.rs"]
mod literal_tables;
pub use literal_tables::*;

const SIGN: u64 = 1 << 63;
const FRAC: u64 = (1 << 52) - 1;
const EXP: u64 = 0x7ff << 52;
const MAX_FINITE: u64 = 0x7fef_ffff_ffff_ffff;
const INF: u64 = 0x7ff0_0000_0000_0000;

/// True for a NaN.
pub fn is_nan(v: u64) -> bool {
    v & EXP == EXP && v & FRAC != 0
}

/// True for a signalling NaN (quiet bit 51 clear).
pub fn is_snan(v: u64) -> bool {
    is_nan(v) && v & (1 << 51) == 0
}

/// The next value toward +infinity of a finite value (`-0` counts as `+0`).
fn next_up(v: u64) -> u64 {
    if v & !SIGN == 0 {
        1
    } else if v & SIGN == 0 {
        v + 1
    } else {
        v - 1
    }
}

/// The next value toward -infinity of a finite value.
fn next_down(v: u64) -> u64 {
    next_up(v ^ SIGN) ^ SIGN
}

/// Rounds the exact value `s + err` (`s` the host's round-to-nearest sum, `err` its exact error) in
/// mode `fe`. The result of a directed step may be an infinity (the caller reports the overflow).
fn directed(s: f64, err: f64, fe: Fe) -> u64 {
    let b = s.to_bits();
    if err == 0.0 {
        return b;
    }
    match fe {
        Fe::ToNearest => b,
        Fe::Upward if err > 0.0 => next_up(b),
        Fe::Downward if err < 0.0 => next_down(b),
        Fe::TowardZero if (err > 0.0) != (s > 0.0) => {
            if s > 0.0 {
                next_down(b)
            } else {
                next_up(b)
            }
        }
        _ => b,
    }
}

/// Host round-to-nearest sum with its exact error (Knuth's TwoSum; exact for finite `x + y` that does
/// not overflow).
fn two_sum(x: f64, y: f64) -> (f64, f64) {
    let s = x + y;
    let bb = s - x;
    let err = (x - (s - bb)) + (y - bb);
    (s, err)
}

/// FLT_SUM of two binary64 values in mode `fe` with FTZ, as IEEE 754 and 002 (45), (81), (86), (88)
/// define it, from the host's round-to-nearest addition and an exact error term: the result and its
/// result code (flt_invalid > flt_overflow > flt_inexact, 002 (97)).
pub fn flt_sum(a: u64, b: u64, fe: Fe, ftz: bool) -> (u64, u8) {
    if is_nan(a) || is_nan(b) {
        let code = if is_snan(a) || is_snan(b) { rc::FLT_INVALID } else { rc::SUCCESS };
        return (DEFAULT_NAN, code);
    }
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    if x.is_infinite() || y.is_infinite() {
        if x.is_infinite() && y.is_infinite() && (a ^ b) & SIGN != 0 {
            return (DEFAULT_NAN, rc::FLT_INVALID);
        }
        return (if x.is_infinite() { a } else { b }, rc::SUCCESS);
    }
    let (s, err) = two_sum(x, y);
    let negative = s < 0.0;
    let rounded = if s.is_finite() {
        let r = directed(s, err, fe);
        (r & !SIGN != INF).then_some(r)
    } else {
        // The host's nearest sum overflowed: round the halves (exact: both operands are large here), and
        // the sum overflows in mode `fe` iff the rounded half reaches 2^1023.
        let (h, e) = two_sum(x / 2.0, y / 2.0);
        let r = f64::from_bits(directed(h, e, fe));
        (r.abs() < 2f64.powi(1023)).then(|| (r * 2.0).to_bits())
    };
    let Some(mut r) = rounded else {
        // Overflow: IEEE 754 §7.4 results by mode and sign.
        let to_inf = match fe {
            Fe::ToNearest => true,
            Fe::Upward => !negative,
            Fe::Downward => negative,
            Fe::TowardZero => false,
        };
        let mag = if to_inf { INF } else { MAX_FINITE };
        return (mag | if negative { SIGN } else { 0 }, rc::FLT_OVERFLOW);
    };
    // An exact zero sum is -0 toward -infinity unless both operands are +0 (IEEE 754 §6.3); the host's
    // nearest sum has the right sign in the other modes.
    if s == 0.0 && fe == Fe::Downward && !(a == 0 && b == 0) {
        r = SIGN;
    }
    let mut inexact = !s.is_finite() || err != 0.0;
    if ftz && r & EXP == 0 && r & FRAC != 0 {
        r &= SIGN;
        inexact = true;
    }
    (r, if inexact { rc::FLT_INEXACT } else { rc::SUCCESS })
}

/// The literal tables in the form the model's arithmetic takes them
/// (`inswitch_model::reduce::combine_with`): a scoreboard that folds contributions with the model's
/// arithmetic (checked on its own against SoftFloat and libfabric's rules) still decodes the FLT_SUM
/// rounding modes and merges result codes by the sources, not by the model's tables.
pub fn tables_for_the_arithmetic() -> inswitch_model::reduce::Tables {
    use inswitch_model::reduce::Rounding;
    let mut rounding = [Rounding::NearestEven; 4];
    for (raw, fe, _) in FLT_SUM {
        rounding[usize::from(raw & 3)] = match fe {
            Fe::ToNearest => Rounding::NearestEven,
            Fe::Upward => Rounding::TowardPositive,
            Fe::Downward => Rounding::TowardNegative,
            Fe::TowardZero => Rounding::TowardZero,
        };
    }
    inswitch_model::reduce::Tables { flt_sum_rounding: rounding, rc_priority: RC_PRIORITY }
}
