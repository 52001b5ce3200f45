//! Co-simulation of the reduction unit (`rtl/reduce_unit.v` vs `inswitch_model::reduce_unit::ReduceUnit`):
//! stimulus, independent scoreboard, target.
//!
//! Stimulus: `inswitch_model::reduce::stimulus::random_cycle` from the run's seeded generator: an operand
//! pair almost every cycle (every opcode, defined and undefined, both R_TF_RED_CFG_MODE values, values
//! weighted towards zeros, subnormals, binade edges, ±Inf, qNaN/sNaN and repsum edge cases, incoming
//! result codes, opcode mismatches), with idle cycles and resets in the middle of traffic.
//!
//! Scoreboard (independent of the cycle model): `out_valid` follows `in_valid` exactly
//! [`LATENCY`] edges later unless a reset intervened, and every `out_*` is 0 when `out_valid` is 0; for
//! each result, the fields that have a one-line statement are checked from the inputs it came from:
//! `rt_op`, the opcode-mismatch report, BARRIER, the bitwise and logical operators, INT_SUM/MIN/MAX,
//! INT_MINMAXLOC, FLT_MIN/FLT_MAX and FLT_MINMAXLOC (host IEEE total order), FLT_SUM (every rounding mode and FTZ, from
//! host IEEE arithmetic with an exact error term, `crate::sources::flt_sum`), REPSUM when no part is
//! aligned away or overflows, and `rt_rc` of every result (the inputs' codes and the raised one, merged
//! by the priority of 002 (97)). Opcodes, rounding modes and priorities come from the literal tables of
//! `crate::sources` (seeds and libfabric, lines cited there), never from the model's decoders.
//! MINNUM/MAXNUM data and the rest of REPSUM are checked against SoftFloat and libfabric's rules in
//! `crates/model/tests/reduce_*.rs`.

use std::collections::VecDeque;

use inswitch_model::reduce::stimulus::random_cycle;
use inswitch_model::reduce_unit::{wide_to_lanes, ReduceUnit, ReduceUnitIn, ReduceUnitOut, LATENCY};
use rand::Rng;

use crate::sources::{self, rc, Op};
use crate::checker::{self, Bench, Monitor, Outcome, RunConfig, RunError, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated reduction unit.
pub type ReduceUnitRtl = VerilatedDut<ReduceUnitIn, ReduceUnitOut>;

/// Cycles of reset at the start of every run.
const RESET_CYCLES: u64 = 4;

/// The seeded stimulus of the reduction unit.
pub struct ReduceUnitStimulus {
    r: StimRng,
    cycle: u64,
}

impl ReduceUnitStimulus {
    /// A stimulus for `seed`.
    pub fn new(seed: u64) -> Self {
        ReduceUnitStimulus { r: stimulus::rng(seed, 0), cycle: 0 }
    }
}

impl Stimulus<ReduceUnitIn, ReduceUnitOut> for ReduceUnitStimulus {
    fn next(&mut self, _previous: &ReduceUnitOut) -> ReduceUnitIn {
        let r = &mut self.r;
        let mut i = random_cycle(&mut || r.next_u64());
        if self.cycle < RESET_CYCLES {
            i.rst = true;
        }
        self.cycle += 1;
        i
    }
}

/// Counters of [`ReduceUnitMonitor`], by name.
pub mod counter {
    /// Operand pairs accepted (in_valid without rst).
    pub const PAIRS_IN: &str = "pairs_in";
    /// Results out.
    pub const RESULTS_OUT: &str = "results_out";
    /// FLT_SUM results.
    pub const FLT_SUM: &str = "flt_sum";
    /// FLT_REPSUM results.
    pub const REPSUM: &str = "flt_repsum";
    /// INT_MINMAXLOC / FLT_MINMAXLOC / FLT_MINMAXNUMLOC results.
    pub const MINMAXLOC: &str = "minmaxloc";
    /// FLT_MIN/MAX/MINNUM/MAXNUM results.
    pub const FLT_MINMAX: &str = "flt_minmax";
    /// Integer, bitwise, logical and BARRIER results.
    pub const INTEGER: &str = "integer";
    /// Results with an undefined opcode.
    pub const UNKNOWN_OP: &str = "unknown_opcode";
    /// Opcode-mismatch results.
    pub const MISMATCH: &str = "op_mismatch";
    /// Results whose rt_rc is FLT_INVALID.
    pub const FLT_INVALID: &str = "rc_flt_invalid";
    /// Results whose rt_rc is FLT_OVERFLOW.
    pub const FLT_OVERFLOW: &str = "rc_flt_overflow";
    /// Results whose rt_rc is FLT_INEXACT.
    pub const FLT_INEXACT: &str = "rc_flt_inexact";
    /// Results whose rt_rc is REP_INEXACT.
    pub const REP_INEXACT: &str = "rc_rep_inexact";
    /// Results whose rt_rc is INT_OVERFLOW.
    pub const INT_OVERFLOW: &str = "rc_int_overflow";
    /// Resets.
    pub const RESETS: &str = "resets";
}

const COUNTERS: [&str; 15] = [
    counter::PAIRS_IN,
    counter::RESULTS_OUT,
    counter::FLT_SUM,
    counter::REPSUM,
    counter::MINMAXLOC,
    counter::FLT_MINMAX,
    counter::INTEGER,
    counter::UNKNOWN_OP,
    counter::MISMATCH,
    counter::FLT_INVALID,
    counter::FLT_OVERFLOW,
    counter::FLT_INEXACT,
    counter::REP_INEXACT,
    counter::INT_OVERFLOW,
    counter::RESETS,
];

/// Cross coverage of FLT_SUM, per lane (issue 13 point 4): rounding x FTZ (the opcode, decoded by the
/// literal table [`sources::OPCODES`]) x the class of each operand x the code the lane raises
/// ([`sources::flt_sum`], IEEE 754 and 002 (86), (97)).
pub mod flt_sum_cross {
    use crate::cross::{Axis, Cross};
    use crate::sources::{self, rc, Fe};

    /// Name of the cross.
    pub const NAME: &str = "flt_sum";
    /// Rounding modes, in [`Fe`] order (libfabric's `fegetround()` cases, RND0..RND3).
    pub const ROUNDING: &[&str] = &["to_nearest", "upward", "downward", "toward_zero"];
    /// Flush to zero.
    pub const FTZ: &[&str] = &["off", "on"];
    /// Operand classes of a binary64 value ([`class`]).
    pub const CLASSES: &[&str] = &["zero", "subnormal", "normal", "inf", "qnan", "snan"];
    /// The codes a FLT_SUM lane can raise (`cxip.h` lines 2988-2996).
    pub const CODES: &[&str] = &["success", "flt_inexact", "flt_overflow", "flt_invalid"];
    /// The axes.
    pub const AXES: [Axis; 5] = [("rounding", ROUNDING), ("ftz", FTZ), ("a", CLASSES), ("b", CLASSES), ("rc", CODES)];

    /// Indexes into [`CLASSES`].
    pub const ZERO: usize = 0;
    /// See [`ZERO`].
    pub const SUB: usize = 1;
    /// See [`ZERO`].
    pub const NORMAL: usize = 2;
    /// See [`ZERO`].
    pub const INF: usize = 3;
    /// See [`ZERO`].
    pub const QNAN: usize = 4;
    /// See [`ZERO`].
    pub const SNAN: usize = 5;
    /// Indexes into [`CODES`].
    pub const SUCCESS: usize = 0;
    /// See [`SUCCESS`].
    pub const INEXACT: usize = 1;
    /// See [`SUCCESS`].
    pub const OVERFLOW: usize = 2;
    /// See [`SUCCESS`].
    pub const INVALID: usize = 3;

    /// The class of a binary64 value by its encoding (IEEE 754 §3.4: exponent field all zeros or all
    /// ones, fraction zero or not, the quiet bit 51).
    pub fn class(v: u64) -> usize {
        const EXP: u64 = 0x7ff << 52;
        const FRAC: u64 = (1 << 52) - 1;
        const QUIET: u64 = 1 << 51;
        match (v & EXP, v & FRAC) {
            (0, 0) => ZERO,
            (0, _) => SUB,
            (EXP, 0) => INF,
            (EXP, f) if f & QUIET != 0 => QNAN,
            (EXP, _) => SNAN,
            _ => NORMAL,
        }
    }

    /// The bin of a result code, `None` for a code FLT_SUM never raises.
    pub fn code(c: u8) -> Option<usize> {
        match c {
            rc::SUCCESS => Some(SUCCESS),
            rc::FLT_INEXACT => Some(INEXACT),
            rc::FLT_OVERFLOW => Some(OVERFLOW),
            rc::FLT_INVALID => Some(INVALID),
            _ => None,
        }
    }

    /// The bin of a rounding mode.
    pub fn rounding(fe: Fe) -> usize {
        match fe {
            Fe::ToNearest => 0,
            Fe::Upward => 1,
            Fe::Downward => 2,
            Fe::TowardZero => 3,
        }
    }

    /// Why a combination cannot happen (IEEE 754 addition and 002 (86)), or `None`.
    pub fn unreachable(idx: &[usize]) -> Option<&'static str> {
        let (fe, ftz, x, y, c) = (idx[0], idx[1] == 1, idx[2].min(idx[3]), idx[2].max(idx[3]), idx[4]);
        let upward_or_downward = fe == 1 || fe == 2;
        if y == SNAN {
            return (c != INVALID).then_some("an sNaN operand always raises flt_invalid (002 (86))");
        }
        if y == QNAN {
            return (c != SUCCESS).then_some("a quiet NaN operand (no sNaN) gives the default NaN and raises nothing (002 (45))");
        }
        if y == INF {
            if x == INF {
                return matches!(c, INEXACT | OVERFLOW).then_some("inf + inf is exact: inf, or invalid for opposite signs");
            }
            return (c != SUCCESS).then_some("inf + a finite value is that inf, exactly");
        }
        if c == INVALID {
            return Some("two finite operands never raise flt_invalid");
        }
        match (x, y) {
            (ZERO, ZERO) | (ZERO, NORMAL) => (c != SUCCESS).then_some("a sum with a zero operand is the other operand, exactly"),
            (ZERO, SUB) if !ftz => (c != SUCCESS).then_some("zero + subnormal is that subnormal, exactly"),
            (ZERO, SUB) => (c != INEXACT).then_some("zero + subnormal is a subnormal result, which FTZ flushes: always inexact"),
            (SUB, SUB) if !ftz => (c != SUCCESS).then_some("a sum of two subnormals is exact (no FTZ)"),
            (SUB, SUB) => (c == OVERFLOW).then_some("a sum of two subnormals is at most 2^-1021: no overflow"),
            (SUB, NORMAL) if !upward_or_downward => {
                (c == OVERFLOW).then_some("normal + subnormal rounds to at most the largest finite value when rounding to nearest or toward zero")
            }
            _ => None,
        }
    }

    /// An empty FLT_SUM cross.
    pub fn new() -> Cross {
        Cross::new(NAME, &AXES, unreachable)
    }

    /// Counts the four lanes of a FLT_SUM pair in mode `fe` with FTZ `ftz`.
    pub fn observe(cross: &mut Cross, a: &[u64; 4], b: &[u64; 4], fe: Fe, ftz: bool) {
        for k in 0..4 {
            let (_, raised) = sources::flt_sum(a[k], b[k], fe, ftz);
            if let Some(c) = code(raised) {
                cross.hit(&[rounding(fe), usize::from(ftz), class(a[k]), class(b[k]), c]);
            }
        }
    }
}

/// Independent scoreboard of the reduction unit.
pub struct ReduceUnitMonitor {
    /// The last LATENCY cycles' inputs, newest last.
    history: VecDeque<ReduceUnitIn>,
    log: TransactionLog,
    counts: [u64; COUNTERS.len()],
    flt_sum: crate::cross::Cross,
}

impl Default for ReduceUnitMonitor {
    fn default() -> Self {
        ReduceUnitMonitor { history: VecDeque::new(), log: TransactionLog::default(), counts: [0; COUNTERS.len()], flt_sum: flt_sum_cross::new() }
    }
}

impl ReduceUnitMonitor {
    /// A fresh scoreboard.
    pub fn new() -> Self {
        ReduceUnitMonitor::default()
    }

    fn bump(&mut self, name: &'static str) {
        let i = COUNTERS.iter().position(|&n| n == name).unwrap_or(0);
        self.counts[i] += 1;
    }

    /// Checks a valid result against the inputs it came from. Every expectation comes from the literal
    /// tables of [`crate::sources`] (opcode -> operation, rounding and FTZ; result-code priority), never
    /// from the model's decoders.
    fn check_result(&mut self, i: &ReduceUnitIn, o: &ReduceUnitOut) -> Result<(), String> {
        let (a_rc, b_rc) = (i.a_rt_rc & 0xf, i.b_rt_rc & 0xf);
        let (a_op, b_op) = (i.a_rt_op & 0x3f, i.b_rt_op & 0x3f);
        let mismatch = rc::OP_MISMATCH;
        let want_op = if a_rc != mismatch && b_rc == mismatch { b_op } else { a_op };
        if o.out_rt_op != want_op {
            return Err(format!("out_rt_op {:#04x}, expected {want_op:#04x}", o.out_rt_op));
        }
        let a = wide_to_lanes(&i.a_rt_data);
        let b = wide_to_lanes(&i.b_rt_data);
        let d = wide_to_lanes(&o.out_rt_data);
        if a_rc == mismatch || b_rc == mismatch {
            // The input that carries OP_MISMATCH is the result (a's first), so the first report
            // survives the rest of the reduction (docs/blocks/reduce_unit.md, 002 (96)).
            self.bump(counter::MISMATCH);
            let (src, src_m) = if a_rc == mismatch { (a, i.a_rt_repsum_m) } else { (b, i.b_rt_repsum_m) };
            if d != src || o.out_rt_rc != mismatch || o.out_rt_repsum_m != src_m {
                return Err(format!("an input carries OP_MISMATCH: expected that input ({src:x?}, rc 8) as the result, got {d:x?} rc {}", o.out_rt_rc));
            }
            return Ok(());
        }
        if a_op != b_op {
            self.bump(counter::MISMATCH);
            let report = u64::from(i.a_sfa) | u64::from(i.b_sfa) << 32;
            if o.out_rt_rc != mismatch || d[0] != report || d[1..] != a[1..] {
                return Err(format!(
                    "opcode mismatch {a_op:#04x} vs {b_op:#04x}: expected rc 8 and rt_data[0] {report:#018x}, got rc {} and {:#018x}",
                    o.out_rt_rc, d[0]
                ));
            }
            return Ok(());
        }
        let lanes = |f: &dyn Fn(u64, u64) -> u64| -> [u64; 4] { core::array::from_fn(|k| f(a[k], b[k])) };
        let op = sources::op(a_op);
        // Codes raised by the arithmetic itself, merged below with the inputs' by priority (002 (97)).
        let mut raised = rc::SUCCESS;
        let snan_in = |ks: &[usize]| ks.iter().any(|&k| sources::is_snan(a[k]) || sources::is_snan(b[k]));
        let expect = match op {
            Some(Op::Barrier) => Some([0; 4]),
            Some(Op::BitAnd) => Some(lanes(&|x, y| x & y)),
            Some(Op::BitOr) => Some(lanes(&|x, y| x | y)),
            Some(Op::BitXor) => Some(lanes(&|x, y| x ^ y)),
            Some(Op::LogAnd) => Some(lanes(&|x, y| u64::from(x != 0 && y != 0))),
            Some(Op::LogOr) => Some(lanes(&|x, y| u64::from(x != 0 || y != 0))),
            Some(Op::LogXor) => Some(lanes(&|x, y| u64::from((x != 0) ^ (y != 0)))),
            Some(Op::IntSum) => {
                if (0..4).any(|k| (a[k] as i64).checked_add(b[k] as i64).is_none()) {
                    raised = rc::INT_OVERFLOW;
                }
                Some(lanes(&|x, y| x.wrapping_add(y)))
            }
            Some(Op::IntMin) => Some(lanes(&|x, y| (x as i64).min(y as i64) as u64)),
            Some(Op::IntMax) => Some(lanes(&|x, y| (x as i64).max(y as i64) as u64)),
            Some(Op::IntMinMaxLoc) => {
                let min = if (b[0] as i64, b[1]) < (a[0] as i64, a[1]) { [b[0], b[1]] } else { [a[0], a[1]] };
                let max = if (b[2] as i64, std::cmp::Reverse(b[3])) > (a[2] as i64, std::cmp::Reverse(a[3])) {
                    [b[2], b[3]]
                } else {
                    [a[2], a[3]]
                };
                Some([min[0], min[1], max[0], max[1]])
            }
            // Host IEEE total order (-0 < +0) for numbers; any NaN gives the default NaN (002 (84)); an
            // sNaN operand raises flt_invalid (002 (86)).
            Some(o @ (Op::FltMin | Op::FltMax)) => {
                let max = o == Op::FltMax;
                if snan_in(&[0, 1, 2, 3]) {
                    raised = rc::FLT_INVALID;
                }
                Some(lanes(&|x, y| {
                    let (fx, fy) = (f64::from_bits(x), f64::from_bits(y));
                    if fx.is_nan() || fy.is_nan() {
                        sources::DEFAULT_NAN
                    } else if (fy.total_cmp(&fx) == std::cmp::Ordering::Greater) == max && x != y {
                        y
                    } else {
                        x
                    }
                }))
            }
            // Data by SoftFloat-checked rules in crates/model/tests; the result code here: flt_invalid
            // on an sNaN operand in either mode (002 (86)).
            Some(Op::FltMinNum | Op::FltMaxNum) => {
                if snan_in(&[0, 1, 2, 3]) {
                    raised = rc::FLT_INVALID;
                }
                None
            }
            Some(Op::FltMinMaxNumLoc) => {
                if snan_in(&[0, 2]) {
                    raised = rc::FLT_INVALID;
                }
                None
            }
            Some(Op::FltSum(fe, ftz)) => {
                flt_sum_cross::observe(&mut self.flt_sum, &a, &b, fe, ftz);
                let mut r = [0u64; 4];
                for k in 0..4 {
                    let (v, code) = sources::flt_sum(a[k], b[k], fe, ftz);
                    r[k] = v;
                    raised = sources::higher(raised, code);
                }
                Some(r)
            }
            // REPSUM with equal, ordinary M, no part overflowing and no incoming INT_OVERFLOW: the
            // parts add (nothing is aligned away, 002 (91)), the codes merge (002 (97)).
            Some(Op::FltRepsum) => {
                let plain = i.a_rt_repsum_m == i.b_rt_repsum_m
                    && (i.a_rt_repsum_m as i8) < REPSUM_M_SPECIAL
                    && a_rc != rc::INT_OVERFLOW
                    && b_rc != rc::INT_OVERFLOW
                    && (0..4).all(|k| (a[k] as i64).checked_add(b[k] as i64).is_some());
                if !plain {
                    self.bump(counter::REPSUM);
                    return Ok(());
                }
                if o.out_rt_repsum_m != i.a_rt_repsum_m {
                    return Err(format!("FLT_REPSUM: rt_repsum_m {}, expected {}", o.out_rt_repsum_m, i.a_rt_repsum_m));
                }
                Some(lanes(&|x, y| x.wrapping_add(y)))
            }
            // FLT_MINMAXLOC (002 (42), (84), (44)): lanes 0,1 a FLT_MIN with its index, 2,3 a FLT_MAX. Any
            // NaN wins and gives the default NaN; two NaNs, or two equal bit patterns, keep the lower index;
            // an sNaN value raises flt_invalid (002 (86)).
            Some(Op::FltMinMaxLoc) => {
                if snan_in(&[0, 2]) {
                    raised = rc::FLT_INVALID;
                }
                let half = |x: u64, xi: u64, y: u64, yi: u64, max: bool| -> [u64; 2] {
                    let (fx, fy) = (f64::from_bits(x), f64::from_bits(y));
                    match (fx.is_nan(), fy.is_nan()) {
                        (true, true) => [sources::DEFAULT_NAN, xi.min(yi)],
                        (true, false) => [sources::DEFAULT_NAN, xi],
                        (false, true) => [sources::DEFAULT_NAN, yi],
                        _ if x == y => [x, xi.min(yi)],
                        _ if (fy.total_cmp(&fx) == std::cmp::Ordering::Greater) == max => [y, yi],
                        _ => [x, xi],
                    }
                };
                let (lo, hi) = (half(a[0], a[1], b[0], b[1], false), half(a[2], a[3], b[2], b[3], true));
                Some([lo[0], lo[1], hi[0], hi[1]])
            }
            // An undefined opcode (the same on both sides) returns a's data (docs/blocks/reduce_unit.md).
            None => Some(a),
        };
        match op {
            Some(Op::FltSum(..)) => self.bump(counter::FLT_SUM),
            Some(Op::FltRepsum) => self.bump(counter::REPSUM),
            Some(Op::IntMinMaxLoc | Op::FltMinMaxLoc | Op::FltMinMaxNumLoc) => self.bump(counter::MINMAXLOC),
            Some(Op::FltMin | Op::FltMax | Op::FltMinNum | Op::FltMaxNum) => self.bump(counter::FLT_MINMAX),
            None => self.bump(counter::UNKNOWN_OP),
            _ => self.bump(counter::INTEGER),
        }
        if let Some(e) = expect {
            if d != e {
                return Err(format!("opcode {a_op:#04x} ({op:?}): rt_data {d:x?}, expected {e:x?}"));
            }
        }
        let want_rc = sources::higher(sources::higher(a_rc, b_rc), raised);
        if o.out_rt_rc != want_rc {
            return Err(format!(
                "opcode {a_op:#04x} ({op:?}): rt_rc {}, expected {want_rc} (inputs {a_rc} and {b_rc}, raised {raised}: the highest by 002 (97))",
                o.out_rt_rc
            ));
        }
        match o.out_rt_rc {
            rc::FLT_INVALID => self.bump(counter::FLT_INVALID),
            rc::FLT_OVERFLOW => self.bump(counter::FLT_OVERFLOW),
            rc::FLT_INEXACT => self.bump(counter::FLT_INEXACT),
            rc::REP_INEXACT => self.bump(counter::REP_INEXACT),
            rc::INT_OVERFLOW => self.bump(counter::INT_OVERFLOW),
            _ => {}
        }
        Ok(())
    }
}

/// First special `rt_repsum_m` (-Inf 125, +Inf 126, NaN 127: libfabric `cxip_repsum.c`).
const REPSUM_M_SPECIAL: i8 = 125;

impl Monitor<ReduceUnitIn, ReduceUnitOut> for ReduceUnitMonitor {
    fn observe(&mut self, cycle: u64, i: &ReduceUnitIn, o: &ReduceUnitOut) -> Result<(), String> {
        // The pair that entered LATENCY edges ago, if no reset cleared it since.
        let source = if self.history.len() == LATENCY && !self.history.iter().any(|h| h.rst) {
            self.history.front().filter(|h| h.in_valid).copied()
        } else {
            None
        };
        match (source, o.out_valid) {
            (Some(src), true) => {
                self.bump(counter::RESULTS_OUT);
                self.check_result(&src, o)?;
                self.log.push(cycle, format!("result op {:#04x} rc {} data {:?}", o.out_rt_op, o.out_rt_rc, o.out_rt_data));
            }
            (None, false) => {
                if *o != ReduceUnitOut::default() {
                    return Err(format!("out_valid is 0 but the outputs are not all 0: {o:?}"));
                }
            }
            (Some(_), false) => return Err(format!("a pair entered {LATENCY} edges ago but out_valid is 0")),
            (None, true) => return Err(format!("out_valid is 1 but no pair entered {LATENCY} edges ago (or a reset cleared it)")),
        }
        if i.rst {
            self.bump(counter::RESETS);
            self.log.push(cycle, "reset".to_string());
        } else if i.in_valid {
            self.bump(counter::PAIRS_IN);
        }
        self.history.push_back(*i);
        if self.history.len() > LATENCY {
            self.history.pop_front();
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        COUNTERS.iter().copied().zip(self.counts).collect()
    }

    fn cross(&self) -> Vec<crate::cross::Cross> {
        vec![self.flt_sum.clone()]
    }
}

/// Builds a fresh lockstep bench for the Verilated model `model` (a reduction unit) and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<ReduceUnit, ReduceUnitRtl, ReduceUnitStimulus, ReduceUnitMonitor>, HarnessError> {
    Ok(Bench::new(ReduceUnit::new(), ReduceUnitRtl::new(model)?, ReduceUnitStimulus::new(seed), ReduceUnitMonitor::new()))
}

/// Runs the reduction-unit target `model` (`reduce_unit`).
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let reproduce = |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block reduce_unit --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
