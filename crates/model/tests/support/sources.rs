//! The directed checks built on the literal truth tables of the sources. The tables themselves are
//! `verif/literal_tables.rs` (the one copy, shared with the scoreboards' `verif/sources.rs`, included
//! here by path; its module comment cites the seed paragraphs and libfabric lines). Nothing here reads
//! the model's decoders, priority function or enums (`Opcode`, `Rounding`, `Rc::merge`, `PRIORITY`,
//! `FLT_SUM_ROUNDING`): the checks take the device under test as a function from two contributions to
//! the result, so a test can hand them the model or a copy of the model built on perturbed tables
//! (`combine_with`) and see them fail.

#![allow(dead_code)]

use inswitch_model::reduce::Contribution;

#[path = "../../../../verif/literal_tables.rs"]
mod literal_tables;
pub use literal_tables::rc::*;
pub use literal_tables::*;

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
