//! The one copy of the truth tables of the seeds and libfabric, written out literally (issue 22). It is
//! included as a module by the scoreboards' `verif/sources.rs` and by the model's integration tests'
//! `crates/model/tests/support/sources.rs` (`#[path]`), so both read the same table. Nothing here may
//! name the model (no `inswitch_model` item): the point of these tables is that they are not the
//! model's decoders, priority function or enums.
//!
//! Sources (libfabric read at commit af8ddbe92f03, 2026-08-21, unless said otherwise):
//! - opcodes: `prov/cxi/src/cxip_coll.c` lines 395-420 (`COLL_OPCODE_*`; LOG_AND/OR/XOR 0x04-0x06 kept
//!   there under `#if 0`, lines 400-404); FLT_MIN 0x20, FLT_MAX 0x21, FLT_MINMAXLOC 0x22 from the same
//!   file before commit 4874800c4 (2022-11-29, at 4cd22d05c lines 319-321);
//! - FLT_SUM rounding and FTZ: `cxip_coll.c` lines 541-562 (`flt_op_to_opcode`: FE_TONEAREST -> RND0,
//!   FE_UPWARD -> RND1, FE_DOWNWARD -> RND2, FE_TOWARDZERO -> RND3; `_MM_GET_FLUSH_ZERO_MODE()` -> the FTZ
//!   variants 0x2c-0x2f); seed 002 (81), (88): four ARM rounding modes and FTZ in three bits;
//! - result codes: `prov/cxi/include/cxip.h` lines 2987-3001 (`enum cxip_coll_rc`); priority: seed 002
//!   (97) "Result codes are defined in priority order. If a reduction encounters more than one exception
//!   condition, the largest is retained. For example, flt_invalid is the highest priority FLT_SUM result
//!   code", and `cxip_coll.c` line 1379 (`SET_RED_RC`: keep the numerically larger code);
//! - FTZ: 002 (81), (88): a denormal result becomes 0 with its sign, `flt_inexact` raised;
//! - NaN results: 002 (45), (84): the default quiet NaN, sign 0; sNaN operands: 002 (86) flt_invalid;
//! - timers: 002 (80): timeouts in units of 1024 clock cycles, 24-bit values; docs/blocks/cpu.md §Timers for the
//!   count rule.

/// A FLT_SUM rounding mode, as named by libfabric's `fegetround()` cases.
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

/// What an opcode means (libfabric's names).
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

/// The operation of a 6-bit opcode, `None` if the sources define none.
pub fn op(raw: u8) -> Option<Op> {
    OPCODES.iter().find(|(v, _, _)| *v == raw & 0x3f).map(|&(_, _, o)| o)
}

/// The eight FLT_SUM opcodes with their rounding mode and FTZ: the `Op::FltSum` rows of [`OPCODES`]
/// (selected, not written a second time).
pub const FLT_SUM: [(u8, Fe, bool); 8] = flt_sum_rows();

const fn flt_sum_rows() -> [(u8, Fe, bool); 8] {
    let mut rows = [(0, Fe::ToNearest, false); 8];
    let (mut i, mut n) = (0, 0);
    while i < OPCODES.len() {
        if let (raw, _, Op::FltSum(fe, ftz)) = OPCODES[i] {
            rows[n] = (raw, fe, ftz);
            n += 1;
        }
        i += 1;
    }
    assert!(n == rows.len(), "eight FLT_SUM opcodes");
    rows
}

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

/// Names for the rows of [`RESULT_CODES`] the engine raises or carries.
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

/// The codes the engine itself raises or carries in a frame (FIG. 13's codes, libfabric's hardware
/// codes 0-8), lowest priority first. 9-11 are libfabric's software-side codes, never in a frame.
pub const ENGINE_CODES_BY_PRIORITY: [u8; 8] = [0, 1, 3, 4, 5, 6, 7, 8];

// The list above is in the order of `RC_PRIORITY` (checked when this file is compiled).
const _: () = {
    let mut i = 1;
    while i < ENGINE_CODES_BY_PRIORITY.len() {
        let (lo, hi) = (ENGINE_CODES_BY_PRIORITY[i - 1], ENGINE_CODES_BY_PRIORITY[i]);
        assert!(RC_PRIORITY[lo as usize] < RC_PRIORITY[hi as usize]);
        i += 1;
    }
};

/// The code of higher priority ([`RC_PRIORITY`]); `x` on a tie.
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
