//! Truth tables of the reduction engine written out literally from the sources, and the directed checks
//! built on them. Nothing here reads the model's decoders, priority function or enums (`Opcode`,
//! `Rounding`, `Rc::merge`, `PRIORITY`, `FLT_SUM_ROUNDING`): the checks take the device under test as a
//! function from two contributions to the result, so a test can hand them the model or a copy of the
//! model built on perturbed tables (`combine_with`) and see them fail.
//!
//! Sources (libfabric read at commit af8ddbe92f03, 2026-08-21, unless said otherwise):
//! - opcodes: `prov/cxi/src/cxip_coll.c` lines 395-420 (`COLL_OPCODE_*`; LOG_AND/OR/XOR 0x04-0x06 kept
//!   there under `#if 0`, lines 400-404); FLT_MIN 0x20, FLT_MAX 0x21, FLT_MINMAXLOC 0x22 from the same
//!   file before commit 4874800c4 (2022-11-29, at 4cd22d05c lines 319-321);
//! - FLT_SUM rounding: `cxip_coll.c` lines 541-562 (`flt_op_to_opcode`: FE_TONEAREST -> RND0,
//!   FE_UPWARD -> RND1, FE_DOWNWARD -> RND2, FE_TOWARDZERO -> RND3; `_MM_GET_FLUSH_ZERO_MODE()` -> FTZ
//!   variants 0x2c-0x2f); seed 002 (81), (88): four ARM rounding modes and FTZ in three bits;
//! - result codes: `prov/cxi/include/cxip.h` lines 2987-3001 (`enum cxip_coll_rc`); priority: seed 002
//!   (97) "Result codes are defined in priority order. If a reduction encounters more than one exception
//!   condition, the largest is retained. For example, flt_invalid is the highest priority FLT_SUM result
//!   code", and `cxip_coll.c` line 1379 (`SET_RED_RC`: keep the numerically larger code);
//! - FTZ: 002 (81), (88): a denormal result becomes 0 with its sign, `flt_inexact` raised;
//! - NaN: 002 (45), (84): the default quiet NaN with sign 0.

#![allow(dead_code)]

use inswitch_model::reduce::Contribution;

/// A FLT_SUM rounding mode, as named by libfabric's `fegetround()` cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fe {
    ToNearest,
    Upward,
    Downward,
    TowardZero,
}

/// What an opcode means (libfabric's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Barrier,
    BitAnd,
    BitOr,
    BitXor,
    LogAnd,
    LogOr,
    LogXor,
    IntMin,
    IntMax,
    IntMinMaxLoc,
    IntSum,
    FltMin,
    FltMax,
    FltMinMaxLoc,
    FltMinNum,
    FltMaxNum,
    FltMinMaxNumLoc,
    /// Rounding mode and flush-to-zero.
    FltSum(Fe, bool),
    FltRepsum,
}

/// Opcode number -> libfabric name -> operation (see the module comment for the lines).
pub const OPCODES: [(u8, &str, Op); 26] = [
    (0x00, "BARRIER", Op::Barrier),
    (0x01, "BIT_AND", Op::BitAnd),
    (0x02, "BIT_OR", Op::BitOr),
    (0x03, "BIT_XOR", Op::BitXor),
    (0x04, "LOG_AND", Op::LogAnd),
    (0x05, "LOG_OR", Op::LogOr),
    (0x06, "LOG_XOR", Op::LogXor),
    (0x10, "INT_MIN", Op::IntMin),
    (0x11, "INT_MAX", Op::IntMax),
    (0x12, "INT_MINMAXLOC", Op::IntMinMaxLoc),
    (0x14, "INT_SUM", Op::IntSum),
    (0x20, "FLT_MIN", Op::FltMin),
    (0x21, "FLT_MAX", Op::FltMax),
    (0x22, "FLT_MINMAXLOC", Op::FltMinMaxLoc),
    (0x24, "FLT_MINNUM", Op::FltMinNum),
    (0x25, "FLT_MAXNUM", Op::FltMaxNum),
    (0x26, "FLT_MINMAXNUMLOC", Op::FltMinMaxNumLoc),
    (0x28, "FLT_SUM_NOFTZ_RND0", Op::FltSum(Fe::ToNearest, false)),
    (0x29, "FLT_SUM_NOFTZ_RND1", Op::FltSum(Fe::Upward, false)),
    (0x2a, "FLT_SUM_NOFTZ_RND2", Op::FltSum(Fe::Downward, false)),
    (0x2b, "FLT_SUM_NOFTZ_RND3", Op::FltSum(Fe::TowardZero, false)),
    (0x2c, "FLT_SUM_FTZ_RND0", Op::FltSum(Fe::ToNearest, true)),
    (0x2d, "FLT_SUM_FTZ_RND1", Op::FltSum(Fe::Upward, true)),
    (0x2e, "FLT_SUM_FTZ_RND2", Op::FltSum(Fe::Downward, true)),
    (0x2f, "FLT_SUM_FTZ_RND3", Op::FltSum(Fe::TowardZero, true)),
    (0x30, "FLT_REPSUM", Op::FltRepsum),
];

/// The eight FLT_SUM opcodes with their rounding mode and FTZ (the `Op::FltSum` rows of [`OPCODES`]).
pub const FLT_SUM: [(u8, Fe, bool); 8] = [
    (0x28, Fe::ToNearest, false),
    (0x29, Fe::Upward, false),
    (0x2a, Fe::Downward, false),
    (0x2b, Fe::TowardZero, false),
    (0x2c, Fe::ToNearest, true),
    (0x2d, Fe::Upward, true),
    (0x2e, Fe::Downward, true),
    (0x2f, Fe::TowardZero, true),
];

/// Result code number -> libfabric name (`cxip.h` lines 2988-2998). 2 is not defined.
pub const RESULT_CODES: [(u8, &str); 11] = [
    (0, "SUCCESS"),
    (1, "FLT_INEXACT"),
    (3, "FLT_OVERFLOW"),
    (4, "FLT_INVALID"),
    (5, "REP_INEXACT"),
    (6, "INT_OVERFLOW"),
    (7, "CONTR_OVERFLOW"),
    (8, "OP_MISMATCH"),
    (9, "TX_FAILURE"),
    (10, "RDMA_FAILURE"),
    (11, "RDMA_DATA_FAILURE"),
];

/// The codes the engine itself raises or carries in a frame (FIG. 13's codes, libfabric's hardware
/// codes 0-8), lowest priority first: 002 (97) "defined in priority order ... the largest is retained".
/// 9-11 are libfabric's software-side codes, never in a reduction frame.
pub const ENGINE_CODES_BY_PRIORITY: [u8; 8] = [0, 1, 3, 4, 5, 6, 7, 8];

pub const SUCCESS: u8 = 0;
pub const FLT_INEXACT: u8 = 1;
pub const FLT_OVERFLOW: u8 = 3;
pub const FLT_INVALID: u8 = 4;
pub const REP_INEXACT: u8 = 5;
pub const INT_OVERFLOW: u8 = 6;
pub const CONTR_OVERFLOW: u8 = 7;
pub const OP_MISMATCH: u8 = 8;

/// The higher-priority of two engine codes, by position in [`ENGINE_CODES_BY_PRIORITY`].
pub fn higher(x: u8, y: u8) -> u8 {
    let rank = |c: u8| ENGINE_CODES_BY_PRIORITY.iter().position(|&k| k == c).expect("an engine code");
    if rank(y) > rank(x) {
        y
    } else {
        x
    }
}

/// The default quiet NaN (002 (45)).
pub const DEFAULT_NAN: u64 = 0x7ff8_0000_0000_0000;

/// The device under test: one pairwise combine, accumulated `a` with new `b`.
pub type Dut<'a> = &'a dyn Fn(&Contribution, &Contribution) -> Contribution;

fn contribution(op: u8, data: [u64; 4], rc: u8) -> Contribution {
    Contribution { rt_op: op, rt_data: data, rt_rc: inswitch_model::reduce::Rc(rc), ..Contribution::default() }
}

const ONE: u64 = 0x3ff0_0000_0000_0000;
const NEG_ONE: u64 = 0xbff0_0000_0000_0000;
/// 2^-60: far below half an ulp of 1.0, so 1 ± 2^-60 is inexact and each mode rounds it its own way.
const TINY: u64 = 0x3c30_0000_0000_0000;
const NEG_TINY: u64 = 0xbc30_0000_0000_0000;
const SMALLEST_NORMAL: u64 = 0x0010_0000_0000_0000;
const NEG_SMALLEST_SUBNORMAL: u64 = 0x8000_0000_0000_0001;
const LARGEST_SUBNORMAL: u64 = 0x000f_ffff_ffff_ffff;
const SNAN: u64 = 0x7ff0_0000_0000_0001;
const MAX_FINITE: u64 = 0x7fef_ffff_ffff_ffff;

/// Directed FLT_SUM vectors per rounding mode and FTZ, results worked out by hand from IEEE 754 (no
/// oracle, no model): lane 0 = 1 + 2^-60, lane 1 = -1 - 2^-60, lane 2 = 1 - 2^-60, lane 3 = smallest
/// normal - smallest subnormal (exact, the largest subnormal; FTZ flushes it to +0 and raises inexact).
pub fn flt_sum_directed(dut: Dut) -> Result<(), String> {
    for (op, fe, ftz) in FLT_SUM {
        let a = contribution(op, [ONE, NEG_ONE, ONE, SMALLEST_NORMAL], SUCCESS);
        let b = contribution(op, [TINY, NEG_TINY, NEG_TINY, NEG_SMALLEST_SUBNORMAL], SUCCESS);
        let (l0, l1, l2) = match fe {
            Fe::ToNearest => (ONE, NEG_ONE, ONE),
            Fe::Upward => (ONE + 1, NEG_ONE, ONE),
            Fe::Downward => (ONE, NEG_ONE + 1, 0x3fef_ffff_ffff_ffff),
            Fe::TowardZero => (ONE, NEG_ONE, 0x3fef_ffff_ffff_ffff),
        };
        let l3 = if ftz { 0 } else { LARGEST_SUBNORMAL };
        let want = [l0, l1, l2, l3];
        let got = dut(&a, &b);
        if got.rt_data != want || got.rt_rc.0 != FLT_INEXACT {
            return Err(format!(
                "opcode {op:#04x} ({fe:?}, ftz {ftz}): rt_data {:x?} rc {}, the sources give {want:x?} rc {FLT_INEXACT}",
                got.rt_data, got.rt_rc.0
            ));
        }
    }
    Ok(())
}

/// The operands of each path for which a combine raises nothing: (opcode, a data, b data).
fn benign(path: Path) -> (u8, [u64; 4], [u64; 4]) {
    match path {
        Path::Integer => (0x14, [1, 2, 3, 4], [5, 6, 7, 8]),
        Path::FltSum => (0x28, [ONE; 4], [ONE; 4]),
        Path::FltMinMax => (0x24, [ONE, NEG_ONE, 0, ONE], [NEG_ONE, ONE, ONE, 0]),
        Path::Repsum => (0x30, [1, 2, 3, 4], [5, 6, 7, 8]),
    }
}

/// The reduction paths of issue 22 §3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    Integer,
    FltSum,
    FltMinMax,
    Repsum,
}

pub const PATHS: [Path; 4] = [Path::Integer, Path::FltSum, Path::FltMinMax, Path::Repsum];

/// Operands (a, b, opcode) on `path` whose combine raises exactly `code` itself (from arithmetic, not
/// from the inputs' codes); `None` if the path cannot raise it.
/// Operands that raise a code: (opcode, a data, b data, a repsum M, b repsum M).
type Raising = (u8, [u64; 4], [u64; 4], i8, i8);

fn raising(path: Path, code: u8) -> Option<Raising> {
    let (op, a, b) = benign(path);
    Some(match (path, code) {
        (_, SUCCESS) => (op, a, b, 0, 0),
        (Path::Integer, INT_OVERFLOW) => (op, [i64::MAX as u64, 0, 0, 0], [1, 0, 0, 0], 0, 0),
        (Path::FltSum, FLT_INEXACT) => (op, [ONE, 0, 0, 0], [TINY, 0, 0, 0], 0, 0),
        (Path::FltSum, FLT_OVERFLOW) => (op, [MAX_FINITE, 0, 0, 0], [MAX_FINITE, 0, 0, 0], 0, 0),
        (Path::FltSum, FLT_INVALID) => (op, [SNAN, 0, 0, 0], [ONE, 0, 0, 0], 0, 0),
        (Path::FltMinMax, FLT_INVALID) => (op, [SNAN, 0, 0, 0], [ONE, 0, 0, 0], 0, 0),
        // REPSUM (002 (91)-(92)): a's larger M drops b's non-zero lowest part; a part overflows; +Inf
        // (M = 126) with -Inf (M = 125) is invalid (libfabric cxip_repsum.c's special M values).
        (Path::Repsum, REP_INEXACT) => (op, [0, 0, 0, 1], [1, 0, 0, 0], 1, 0),
        (Path::Repsum, INT_OVERFLOW) => (op, [0, 0, 0, i64::MAX as u64], [0, 0, 0, 1], 0, 0),
        (Path::Repsum, FLT_INVALID) => (op, [0; 4], [0; 4], 126, 125),
        _ => return None,
    })
}

/// Issue 22 §3: for every ordered pair of engine result codes, on every path: (1) `a` carries the first
/// and `b` the second, nothing raised; (2) an input carries the first and the arithmetic raises the
/// second, with the input on either side; (3) FLT_SUM: two lanes raise the two codes. The result code
/// must be the higher-priority one of 002 (97).
pub fn result_code_pairs(dut: Dut) -> Result<usize, String> {
    let mut checked = 0;
    for path in PATHS {
        let (op, da, db) = benign(path);
        for x in ENGINE_CODES_BY_PRIORITY {
            for y in ENGINE_CODES_BY_PRIORITY {
                let got = dut(&contribution(op, da, x), &contribution(op, db, y)).rt_rc.0;
                let want = higher(x, y);
                if got != want {
                    return Err(format!("{path:?} (opcode {op:#04x}): a.rt_rc {x} with b.rt_rc {y} gave {got}, 002 (97) keeps {want}"));
                }
                checked += 1;
                let Some((op, ra, rb, ma, mb)) = raising(path, y) else { continue };
                for side in [0, 1] {
                    let mut a = contribution(op, ra, if side == 0 { x } else { SUCCESS });
                    let mut b = contribution(op, rb, if side == 1 { x } else { SUCCESS });
                    a.rt_repsum_m = ma;
                    b.rt_repsum_m = mb;
                    // An incoming INT_OVERFLOW names its most significant part (3), which no
                    // alignment here drops (002 (92)).
                    a.rt_repsum_oflow_id = 3;
                    b.rt_repsum_oflow_id = 3;
                    let got = dut(&a, &b).rt_rc.0;
                    let want = higher(x, y);
                    if got != want {
                        return Err(format!(
                            "{path:?} (opcode {op:#04x}): input code {x} on side {} with {y} raised by the arithmetic gave {got}, 002 (97) keeps {want}",
                            ["a", "b"][side]
                        ));
                    }
                    checked += 1;
                }
            }
        }
    }
    // FLT_SUM lanes: one code per frame, shared by the four lanes (002 (97)).
    for x in [SUCCESS, FLT_INEXACT, FLT_OVERFLOW, FLT_INVALID] {
        for y in [SUCCESS, FLT_INEXACT, FLT_OVERFLOW, FLT_INVALID] {
            let (_, xa, xb, _, _) = raising(Path::FltSum, x).expect("FLT_SUM raises it");
            let (_, ya, yb, _, _) = raising(Path::FltSum, y).expect("FLT_SUM raises it");
            let a = contribution(0x28, [xa[0], ya[0], 0, 0], SUCCESS);
            let b = contribution(0x28, [xb[0], yb[0], 0, 0], SUCCESS);
            let got = dut(&a, &b).rt_rc.0;
            if got != higher(x, y) {
                return Err(format!("FLT_SUM lane 0 raising {x} and lane 1 raising {y} gave {got}, 002 (97) keeps {}", higher(x, y)));
            }
            checked += 1;
        }
    }
    Ok(checked)
}
