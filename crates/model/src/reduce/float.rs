//! Pure-integer IEEE 754 binary64 arithmetic for the reduction engine: the FLT_SUM adder with the four
//! ARM rounding modes and flush-to-zero (002 (81), (88)), and the MIN/MAX/MINNUM/MAXNUM selections
//! (002 (84)-(86)). No host floating point is used: its rounding mode cannot be set from Rust, and the
//! RTL must match these functions bit for bit. See `docs/blocks/reduce_unit.md` §Floating point.

use super::opcode::Rounding;

/// The default NaN (quiet, sign 0, no payload) returned for every NaN result (002 (45)).
pub const DEFAULT_NAN: u64 = 0x7ff8_0000_0000_0000;
/// Fraction bits of a binary64.
pub const FRAC_BITS: u32 = 52;
/// Biased exponent of infinities and NaNs.
pub const EXP_MAX: u64 = 0x7ff;
const FRAC_MASK: u64 = (1 << FRAC_BITS) - 1;
const SIGN: u64 = 1 << 63;
const QUIET: u64 = 1 << (FRAC_BITS - 1);
/// Guard, round and sticky bits below the 53-bit significand in the adder: enough for a correctly
/// rounded sum, since a cancellation of more than one bit only happens when the alignment shift is <= 1.
const GRS_BITS: u32 = 3;
/// Largest finite magnitude.
pub const MAX_FINITE: u64 = 0x7fef_ffff_ffff_ffff;
/// Infinite magnitude.
pub const INF: u64 = 0x7ff0_0000_0000_0000;

/// Exception flags of one operation; mapped to result codes by [`crate::reduce::Rc`] priority.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FpFlags {
    /// The result was rounded, overflowed, or was flushed to zero.
    pub inexact: bool,
    /// The rounded result exceeded the largest finite value.
    pub overflow: bool,
    /// A signalling NaN operand, or +Inf added to -Inf.
    pub invalid: bool,
}

fn exp_field(x: u64) -> u64 {
    (x >> FRAC_BITS) & EXP_MAX
}

/// True if `x` is a NaN.
pub fn is_nan(x: u64) -> bool {
    exp_field(x) == EXP_MAX && x & FRAC_MASK != 0
}

/// True if `x` is a signalling NaN (quiet bit, fraction bit 51, clear).
pub fn is_snan(x: u64) -> bool {
    is_nan(x) && x & QUIET == 0
}

/// True if `x` is ±Inf.
pub fn is_inf(x: u64) -> bool {
    x & !SIGN == INF
}

/// Shifts right by `d`, ORing every bit shifted out into bit 0 (the sticky bit).
fn shift_right_sticky(x: u64, d: u64) -> u64 {
    if d == 0 {
        x
    } else if d >= 64 {
        u64::from(x != 0)
    } else {
        (x >> d) | u64::from(x << (64 - d) != 0)
    }
}

/// `a + b` in binary64 with rounding mode `rounding`; with `ftz`, a subnormal result becomes a zero of
/// the same sign and raises `inexact` (002 (81)). Subnormal operands are used as they are (no DAZ).
/// Any NaN operand gives [`DEFAULT_NAN`].
pub fn f64_add(a: u64, b: u64, rounding: Rounding, ftz: bool) -> (u64, FpFlags) {
    let mut flags = FpFlags::default();
    if is_nan(a) || is_nan(b) {
        flags.invalid = is_snan(a) || is_snan(b);
        return (DEFAULT_NAN, flags);
    }
    if is_inf(a) {
        if is_inf(b) && (a ^ b) & SIGN != 0 {
            flags.invalid = true;
            return (DEFAULT_NAN, flags);
        }
        return (a, flags);
    }
    if is_inf(b) {
        return (b, flags);
    }

    // Finite operands: significand with the hidden bit, exponent with subnormals at 1.
    let unpack = |x: u64| {
        let e = exp_field(x);
        let m = (x & FRAC_MASK) | if e != 0 { 1 << FRAC_BITS } else { 0 };
        (x >> 63 != 0, e.max(1), m)
    };
    let (mut sa, mut ea, mut ma) = unpack(a);
    let (mut sb, mut eb, mut mb) = unpack(b);
    if (eb, mb) > (ea, ma) {
        core::mem::swap(&mut sa, &mut sb);
        core::mem::swap(&mut ea, &mut eb);
        core::mem::swap(&mut ma, &mut mb);
    }
    let wa = ma << GRS_BITS;
    let wb = shift_right_sticky(mb << GRS_BITS, ea - eb);
    let mut sig = if sa == sb { wa + wb } else { wa - wb };
    if sig == 0 {
        // Exact zero: x + (-x) is +0 except when rounding toward -inf; (±0) + (±0) keeps a common sign.
        let neg = if sa == sb { sa } else { rounding == Rounding::TowardNegative };
        return (if neg { SIGN } else { 0 }, flags);
    }
    let sign = sa;
    let mut e = ea;
    let top = FRAC_BITS + GRS_BITS; // position of the hidden bit in `sig`
    if sig >> (top + 1) != 0 {
        sig = shift_right_sticky(sig, 1);
        e += 1;
    } else {
        // Normalise left, but not below the subnormal exponent.
        let lz = u64::from(sig.leading_zeros()) - (63 - u64::from(top));
        let sh = lz.min(e - 1);
        sig <<= sh;
        e -= sh;
    }
    if ftz && sig >> top == 0 {
        // Subnormal result (exact: a sum this small has no bits below 2^-1074).
        flags.inexact = true;
        return (if sign { SIGN } else { 0 }, flags);
    }
    let grs = sig & ((1 << GRS_BITS) - 1);
    let half = 1 << (GRS_BITS - 1);
    let mut m = sig >> GRS_BITS;
    let up = match rounding {
        Rounding::NearestEven => grs > half || (grs == half && m & 1 != 0),
        Rounding::TowardPositive => grs != 0 && !sign,
        Rounding::TowardNegative => grs != 0 && sign,
        Rounding::TowardZero => false,
    };
    flags.inexact = grs != 0;
    m += u64::from(up);
    if m >> (FRAC_BITS + 1) != 0 {
        m >>= 1;
        e += 1;
    }
    if e >= EXP_MAX {
        flags.overflow = true;
        flags.inexact = true;
        let to_inf = match rounding {
            Rounding::NearestEven => true,
            Rounding::TowardPositive => !sign,
            Rounding::TowardNegative => sign,
            Rounding::TowardZero => false,
        };
        let mag = if to_inf { INF } else { MAX_FINITE };
        return (mag | if sign { SIGN } else { 0 }, flags);
    }
    let biased = if m >> FRAC_BITS != 0 { e } else { 0 };
    (if sign { SIGN } else { 0 } | biased << FRAC_BITS | (m & FRAC_MASK), flags)
}

/// Maps a non-NaN binary64 to an unsigned key with the same order, -0 below +0.
pub fn order_key(x: u64) -> u64 {
    if x & SIGN != 0 {
        !x
    } else {
        x | SIGN
    }
}

/// FLT_MIN (`max == false`) / FLT_MAX (`max == true`), 002 (84): two numbers give the smaller/larger
/// (-0 < +0); any NaN gives [`DEFAULT_NAN`], in both R_TF_RED_CFG_MODE modes. Returns `(result, invalid)`,
/// `invalid` when an operand is a signalling NaN.
pub fn f64_min_max(a: u64, b: u64, max: bool) -> (u64, bool) {
    let invalid = is_snan(a) || is_snan(b);
    if is_nan(a) || is_nan(b) {
        return (DEFAULT_NAN, invalid);
    }
    (select(a, b, max), invalid)
}

fn select(a: u64, b: u64, max: bool) -> u64 {
    let b_wins = if max { order_key(b) > order_key(a) } else { order_key(b) < order_key(a) };
    if b_wins {
        b
    } else {
        a
    }
}

/// Outcome of a MINNUM/MAXNUM step, with which operand supplied the result (for MINMAXNUMLOC indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The result is operand a.
    A,
    /// The result is operand b.
    B,
    /// Both are equal (bitwise, or both NaN): the lower index wins.
    Tie,
}

/// The value half of a FLT_MINMAXLOC step (002 (42), (84)): FLT_MIN (`max == false`) / FLT_MAX of `a`
/// and `b`, and which operand the index comes from. Any NaN gives [`DEFAULT_NAN`] and wins over a
/// number; two NaNs are equal (both become the default NaN, whatever their class or sign) and so are
/// two bitwise-equal numbers ([`Pick::Tie`]: the lower index wins). -0 orders below +0. Returns
/// `(result, pick, invalid)`, `invalid` when an operand is a signalling NaN; the same in both
/// R_TF_RED_CFG_MODE modes, as FLT_MIN/FLT_MAX.
pub fn f64_min_max_loc(a: u64, b: u64, max: bool) -> (u64, Pick, bool) {
    let invalid = is_snan(a) || is_snan(b);
    let pick = match (is_nan(a), is_nan(b)) {
        (true, true) => Pick::Tie,
        (true, false) => Pick::A,
        (false, true) => Pick::B,
        (false, false) if a == b => Pick::Tie,
        (false, false) if select(a, b, max) == b => Pick::B,
        (false, false) => Pick::A,
    };
    let (r, _) = f64_min_max(a, b, max);
    (r, pick, invalid)
}

/// FLT_MINNUM / FLT_MAXNUM, 002 (85)-(86). Numbers win over quiet NaNs; two NaNs give
/// [`DEFAULT_NAN`]. A signalling NaN against a number gives the number in associative mode and
/// [`DEFAULT_NAN`] in IEEE mode (`ieee == true`). Returns `(result, pick, invalid)`.
pub fn f64_min_max_num(a: u64, b: u64, max: bool, ieee: bool) -> (u64, Pick, bool) {
    let invalid = is_snan(a) || is_snan(b);
    match (is_nan(a), is_nan(b)) {
        (false, false) => {
            if a == b {
                (a, Pick::Tie, invalid)
            } else if select(a, b, max) == b {
                (b, Pick::B, invalid)
            } else {
                (a, Pick::A, invalid)
            }
        }
        (true, true) => (DEFAULT_NAN, Pick::Tie, invalid),
        (true, false) => {
            if ieee && is_snan(a) {
                (DEFAULT_NAN, Pick::A, invalid)
            } else {
                (b, Pick::B, invalid)
            }
        }
        (false, true) => {
            if ieee && is_snan(b) {
                (DEFAULT_NAN, Pick::B, invalid)
            } else {
                (a, Pick::A, invalid)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Rounding::*;

    #[test]
    fn simple_sums() {
        let one = 0x3ff0_0000_0000_0000;
        assert_eq!(f64_add(one, one, NearestEven, false).0, 0x4000_0000_0000_0000);
        assert_eq!(f64_add(one, one | SIGN, NearestEven, false).0, 0);
        assert_eq!(f64_add(one, one | SIGN, TowardNegative, false).0, SIGN);
        // Smallest subnormal + itself, flushed.
        assert_eq!(f64_add(1, 1, NearestEven, true), (0, FpFlags { inexact: true, ..FpFlags::default() }));
        assert_eq!(f64_add(1, 1, NearestEven, false).0, 2);
        let (r, f) = f64_add(MAX_FINITE, MAX_FINITE, TowardZero, false);
        assert_eq!(r, MAX_FINITE);
        assert!(f.overflow && f.inexact);
    }
}
