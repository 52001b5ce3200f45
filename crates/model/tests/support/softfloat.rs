//! The FLT_SUM oracle: Berkeley SoftFloat 3e (`softfloat-wrapper`, `riscv` specialisation: default NaN
//! 0x7FF8000000000000), the rounding mode taken from the literal opcode table of `sources.rs`
//! (libfabric `cxip_coll.c` lines 541-562), never from the model's `Rounding`.

#![allow(dead_code)]

use std::sync::Mutex;

use softfloat_wrapper::{ExceptionFlags, Float, RoundingMode, F64};

use super::sources::{Fe, FLT_INEXACT, FLT_INVALID, FLT_OVERFLOW, SUCCESS};

/// SoftFloat keeps its flags in a global: one oracle call at a time.
static SOFTFLOAT: Mutex<()> = Mutex::new(());

fn sf_mode(fe: Fe) -> RoundingMode {
    match fe {
        Fe::ToNearest => RoundingMode::TiesToEven,
        Fe::Upward => RoundingMode::TowardPositive,
        Fe::Downward => RoundingMode::TowardNegative,
        Fe::TowardZero => RoundingMode::TowardZero,
    }
}

/// IEEE flags of one addition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub inexact: bool,
    pub overflow: bool,
    pub invalid: bool,
}

impl Flags {
    /// The lane's result code: flt_invalid is the highest FLT_SUM code (002 (97)), then overflow,
    /// then inexact (libfabric `cxip.h` values 4, 3, 1).
    pub fn code(self) -> u8 {
        if self.invalid {
            FLT_INVALID
        } else if self.overflow {
            FLT_OVERFLOW
        } else if self.inexact {
            FLT_INEXACT
        } else {
            SUCCESS
        }
    }
}

/// SoftFloat's sum of `a` and `b` in mode `fe`, with FTZ applied as 002 (81) defines it: a subnormal
/// result becomes a zero of the same sign and raises inexact.
pub fn add(a: u64, b: u64, fe: Fe, ftz: bool) -> (u64, Flags) {
    let _g = SOFTFLOAT.lock().unwrap_or_else(|e| e.into_inner());
    ExceptionFlags::default().set();
    let mut res = F64::from_bits(a).add(F64::from_bits(b), sf_mode(fe)).to_bits();
    let mut f = ExceptionFlags::default();
    f.get();
    let mut flags = Flags { inexact: f.is_inexact(), overflow: f.is_overflow(), invalid: f.is_invalid() };
    if ftz && (res >> 52) & 0x7ff == 0 && res & ((1 << 52) - 1) != 0 {
        res &= 1 << 63;
        flags.inexact = true;
    }
    (res, flags)
}
