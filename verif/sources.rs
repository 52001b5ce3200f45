//! Truth tables of the seeds and libfabric written out literally for the scoreboards, and an
//! independent FLT_SUM reference built on host IEEE arithmetic (issue 22). Nothing here calls the
//! model's decoders, priority function or enums: a scoreboard that computes its expectation from these
//! tables can object when the model and the RTL share a wrong reading of the seed.
//!
//! Sources (libfabric read at commit af8ddbe92f03, 2026-08-21, unless said otherwise):
//! - opcodes: `prov/cxi/src/cxip_coll.c` lines 395-420 (`COLL_OPCODE_*`; LOG_* 0x04-0x06 under
//!   `#if 0`, lines 400-404); FLT_MIN 0x20, FLT_MAX 0x21, FLT_MINMAXLOC 0x22 from the same file before
//!   commit 4874800c4 (at 4cd22d05c, lines 319-321);
//! - FLT_SUM rounding and FTZ: `cxip_coll.c` lines 541-562 (`flt_op_to_opcode`: FE_TONEAREST -> RND0,
//!   FE_UPWARD -> RND1, FE_DOWNWARD -> RND2, FE_TOWARDZERO -> RND3; flush-to-zero -> the FTZ opcodes);
//!   seed 002 (81), (88);
//! - result codes: `prov/cxi/include/cxip.h` lines 2987-3001; priority: 002 (97) ("defined in priority
//!   order ... the largest is retained") and `cxip_coll.c` line 1379 (`SET_RED_RC` keeps the larger);
//! - NaN results: 002 (45), (84): the default quiet NaN, sign 0; sNaN operands: 002 (86) flt_invalid;
//! - timers: 002 (80): timeouts in units of 1024 clock cycles; docs/cpu.md §4 for the count rule.

/// A FLT_SUM rounding mode, named as libfabric's `fegetround()` cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fe {
    /// FE_TONEAREST (ties to even).
    ToNearest,
    /// FE_UPWARD.
    Upward,
    /// FE_DOWNWARD.
    Downward,
    /// FE_TOWARDZERO.
    TowardZero,
}

/// What an opcode means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// BARRIER: data 0 (002 (82)).
    Barrier,
    /// Bitwise AND.
    BitAnd,
    /// Bitwise OR.
    BitOr,
    /// Bitwise XOR.
    BitXor,
    /// Logical AND.
    LogAnd,
    /// Logical OR.
    LogOr,
    /// Logical XOR.
    LogXor,
    /// Signed minimum.
    IntMin,
    /// Signed maximum.
    IntMax,
    /// Signed MINLOC / MAXLOC.
    IntMinMaxLoc,
    /// Signed sum.
    IntSum,
    /// IEEE minimum, any NaN wins.
    FltMin,
    /// IEEE maximum, any NaN wins.
    FltMax,
    /// IEEE MINLOC / MAXLOC.
    FltMinMaxLoc,
    /// IEEE minimum, numbers win over quiet NaNs.
    FltMinNum,
    /// IEEE maximum, numbers win over quiet NaNs.
    FltMaxNum,
    /// MINNUM / MAXNUM with index.
    FltMinMaxNumLoc,
    /// IEEE sum with a rounding mode and flush-to-zero.
    FltSum(Fe, bool),
    /// Reproducible sum.
    FltRepsum,
}

/// Opcode number -> operation (lines in the module comment).
pub const OPCODES: [(u8, Op); 26] = [
    (0x00, Op::Barrier),
    (0x01, Op::BitAnd),
    (0x02, Op::BitOr),
    (0x03, Op::BitXor),
    (0x04, Op::LogAnd),
    (0x05, Op::LogOr),
    (0x06, Op::LogXor),
    (0x10, Op::IntMin),
    (0x11, Op::IntMax),
    (0x12, Op::IntMinMaxLoc),
    (0x14, Op::IntSum),
    (0x20, Op::FltMin),
    (0x21, Op::FltMax),
    (0x22, Op::FltMinMaxLoc),
    (0x24, Op::FltMinNum),
    (0x25, Op::FltMaxNum),
    (0x26, Op::FltMinMaxNumLoc),
    (0x28, Op::FltSum(Fe::ToNearest, false)),
    (0x29, Op::FltSum(Fe::Upward, false)),
    (0x2a, Op::FltSum(Fe::Downward, false)),
    (0x2b, Op::FltSum(Fe::TowardZero, false)),
    (0x2c, Op::FltSum(Fe::ToNearest, true)),
    (0x2d, Op::FltSum(Fe::Upward, true)),
    (0x2e, Op::FltSum(Fe::Downward, true)),
    (0x2f, Op::FltSum(Fe::TowardZero, true)),
    (0x30, Op::FltRepsum),
];

/// The operation of a 6-bit opcode, `None` if the sources define none.
pub fn op(raw: u8) -> Option<Op> {
    OPCODES.iter().find(|(v, _)| *v == raw & 0x3f).map(|&(_, o)| o)
}

/// Result codes (`cxip.h` lines 2988-2996).
pub mod rc {
    /// No exception.
    pub const SUCCESS: u8 = 0;
    /// Result rounded.
    pub const FLT_INEXACT: u8 = 1;
    /// Result too large.
    pub const FLT_OVERFLOW: u8 = 3;
    /// Signalling NaN operand, or infinities of opposite sign added.
    pub const FLT_INVALID: u8 = 4;
    /// Reproducible sum rounded.
    pub const REP_INEXACT: u8 = 5;
    /// Integer overflow.
    pub const INT_OVERFLOW: u8 = 6;
    /// Too many contributions.
    pub const CONTR_OVERFLOW: u8 = 7;
    /// Conflicting opcodes.
    pub const OP_MISMATCH: u8 = 8;
}

/// Priority of each 4-bit result code: `SET_RED_RC` keeps the numerically larger code, and 002 (97)
/// defines the codes in priority order, so a code's priority is its value.
pub const RC_PRIORITY: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// The code of higher priority.
pub fn higher(x: u8, y: u8) -> u8 {
    if RC_PRIORITY[usize::from(y & 0xf)] > RC_PRIORITY[usize::from(x & 0xf)] {
        y
    } else {
        x
    }
}

/// Clock cycles per timer tick in the hardware (002 (80)); simulation builds scale it by a parameter.
pub const TICK_CYCLES_HW: u32 = 1024;
/// Width of the configurable timeouts, in ticks (002 (80): "24-bit values").
pub const TIMEOUT_BITS: u32 = 24;

/// The default quiet NaN, sign 0 (002 (45)).
pub const DEFAULT_NAN: u64 = 0x7ff8_0000_0000_0000;
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

/// The literal tables above in the form the model's arithmetic takes them
/// (`inswitch_model::reduce::combine_with`): a scoreboard that folds contributions with the model's
/// arithmetic (checked on its own against SoftFloat and libfabric's rules) still decodes the FLT_SUM
/// rounding modes and merges result codes by the sources, not by the model's tables.
pub fn tables_for_the_arithmetic() -> inswitch_model::reduce::Tables {
    use inswitch_model::reduce::Rounding;
    let mut rounding = [Rounding::NearestEven; 4];
    for (raw, o) in OPCODES {
        if let Op::FltSum(fe, _) = o {
            rounding[usize::from(raw & 3)] = match fe {
                Fe::ToNearest => Rounding::NearestEven,
                Fe::Upward => Rounding::TowardPositive,
                Fe::Downward => Rounding::TowardNegative,
                Fe::TowardZero => Rounding::TowardZero,
            };
        }
    }
    inswitch_model::reduce::Tables { flt_sum_rounding: rounding, rc_priority: RC_PRIORITY }
}
