//! Reduction opcodes (`rt_op`, 6 bits): seed 002 (42)-(48), (81)-(88); values as in the libfabric CXI
//! provider (`prov/cxi/src/cxip_coll.c`, `COLL_OPCODE_*`), from the table in [`super::codes`] (the RTL's too). See `docs/blocks/reduce_unit.md` §Operator table.

use core::fmt;

use super::codes::{op, rnd};

/// Width of the `rt_op` field in the reduction header (002 (61)).
pub const OPCODE_BITS: u32 = 6;

/// FLT_SUM rounding mode: the low two bits of the FLT_SUM opcodes, ARM order (002 (88), FIG. 9), which is
/// also the order in which libfabric maps `fegetround()` to RND0..RND3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// RND0: round to nearest, ties to even.
    NearestEven = rnd::NEAREST as isize,
    /// RND1: round toward +infinity.
    TowardPositive = rnd::UP as isize,
    /// RND2: round toward -infinity.
    TowardNegative = rnd::DOWN as isize,
    /// RND3: round toward zero.
    TowardZero = rnd::ZERO as isize,
}

impl Rounding {
    /// All four modes in RND0..RND3 order.
    pub const ALL: [Rounding; 4] =
        [Rounding::NearestEven, Rounding::TowardPositive, Rounding::TowardNegative, Rounding::TowardZero];

    /// The mode from its two-bit field.
    pub fn from_bits(bits: u8) -> Rounding {
        FLT_SUM_ROUNDING[usize::from(bits & 3)]
    }

    /// The two-bit field of the mode in `table` (a copy of [`FLT_SUM_ROUNDING`]).
    pub fn bits_in(self, table: &[Rounding; 4]) -> u8 {
        table.iter().position(|&r| r == self).unwrap_or(0) as u8
    }
}

/// FLT_SUM opcode bits 1:0 -> rounding mode (002 (88), FIG. 9; libfabric `flt_op_to_opcode`:
/// FE_TONEAREST -> RND0, FE_UPWARD -> RND1, FE_DOWNWARD -> RND2, FE_TOWARDZERO -> RND3). Data, so a test
/// can perturb a copy (`Tables`, `combine_with`) and see its checks fail.
pub const FLT_SUM_ROUNDING: [Rounding; 4] =
    [Rounding::NearestEven, Rounding::TowardPositive, Rounding::TowardNegative, Rounding::TowardZero];

/// A reduction opcode. Undefined 6-bit values are kept as [`Opcode::Unknown`] so they round trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// 0x00: null reduction; the data returned is always 0 (002 (34), (82)).
    Barrier,
    /// 0x01: bitwise AND of four 64-bit lanes.
    BitAnd,
    /// 0x02: bitwise OR.
    BitOr,
    /// 0x03: bitwise XOR.
    BitXor,
    /// 0x04: logical AND (result 0 or 1 per lane).
    LogAnd,
    /// 0x05: logical OR.
    LogOr,
    /// 0x06: logical XOR.
    LogXor,
    /// 0x10: signed 64-bit minimum.
    IntMin,
    /// 0x11: signed 64-bit maximum.
    IntMax,
    /// 0x12: signed 64-bit MINLOC (lanes 0,1) and MAXLOC (lanes 2,3); one per endpoint (002 (83)).
    IntMinMaxLoc,
    /// 0x14: signed 64-bit sum, wrapping, `int_overflow` on signed overflow.
    IntSum,
    /// 0x20: IEEE double minimum, any NaN wins (002 (84)). libfabric's first CXI collectives (2020)
    /// defined it; today's table no longer lists it (`docs/blocks/reduce_unit.md`).
    FltMin,
    /// 0x21: IEEE double maximum, any NaN wins (002 (84)); as [`Opcode::FltMin`] in libfabric.
    FltMax,
    /// 0x22: FLT_MIN with index (lanes 0,1) and FLT_MAX with index (lanes 2,3): MINMAXLOC "on integer or
    /// floating point values" (002 (42)), the NaN rules of FLT_MIN/FLT_MAX (84), the lower index on ties
    /// (44), (83). One per endpoint (46). libfabric's first CXI collectives defined it, as FltMin.
    FltMinMaxLoc,
    /// 0x24: IEEE double minimum, numbers win over quiet NaNs (002 (85)).
    FltMinNum,
    /// 0x25: IEEE double maximum, numbers win over quiet NaNs (002 (85)).
    FltMaxNum,
    /// 0x26: MINNUM with index (lanes 0,1) and MAXNUM with index (lanes 2,3) (002 (87)).
    FltMinMaxNumLoc,
    /// 0x28-0x2f: IEEE double sum with a rounding mode and flush-to-zero (002 (88)).
    FltSum {
        /// Rounding mode, opcode bits 1:0.
        rounding: Rounding,
        /// Flush subnormal results to zero, opcode bit 2.
        ftz: bool,
    },
    /// 0x30: reproducible sum of one repsum operand per endpoint (002 (89)-(92)).
    FltRepsum,
    /// Any other 6-bit value.
    Unknown(u8),
}

pub use super::codes::FLT_SUM_BASE;

impl Opcode {
    /// Every defined opcode, in numeric order.
    pub const DEFINED: [Opcode; 26] = {
        use Rounding::*;
        [
            Opcode::Barrier,
            Opcode::BitAnd,
            Opcode::BitOr,
            Opcode::BitXor,
            Opcode::LogAnd,
            Opcode::LogOr,
            Opcode::LogXor,
            Opcode::IntMin,
            Opcode::IntMax,
            Opcode::IntMinMaxLoc,
            Opcode::IntSum,
            Opcode::FltMin,
            Opcode::FltMax,
            Opcode::FltMinMaxLoc,
            Opcode::FltMinNum,
            Opcode::FltMaxNum,
            Opcode::FltMinMaxNumLoc,
            Opcode::FltSum { rounding: NearestEven, ftz: false },
            Opcode::FltSum { rounding: TowardPositive, ftz: false },
            Opcode::FltSum { rounding: TowardNegative, ftz: false },
            Opcode::FltSum { rounding: TowardZero, ftz: false },
            Opcode::FltSum { rounding: NearestEven, ftz: true },
            Opcode::FltSum { rounding: TowardPositive, ftz: true },
            Opcode::FltSum { rounding: TowardNegative, ftz: true },
            Opcode::FltSum { rounding: TowardZero, ftz: true },
            Opcode::FltRepsum,
        ]
    };

    /// Decodes a raw `rt_op` value (bits above [`OPCODE_BITS`] are ignored, as by the RTL port).
    pub fn from_raw(raw: u8) -> Opcode {
        let raw = raw & ((1 << OPCODE_BITS) - 1);
        match raw {
            op::BARRIER => Opcode::Barrier,
            op::BIT_AND => Opcode::BitAnd,
            op::BIT_OR => Opcode::BitOr,
            op::BIT_XOR => Opcode::BitXor,
            op::LOG_AND => Opcode::LogAnd,
            op::LOG_OR => Opcode::LogOr,
            op::LOG_XOR => Opcode::LogXor,
            op::INT_MIN => Opcode::IntMin,
            op::INT_MAX => Opcode::IntMax,
            op::INT_MINMAXLOC => Opcode::IntMinMaxLoc,
            op::INT_SUM => Opcode::IntSum,
            op::FLT_MIN => Opcode::FltMin,
            op::FLT_MAX => Opcode::FltMax,
            op::FLT_MINMAXLOC => Opcode::FltMinMaxLoc,
            op::FLT_MINNUM => Opcode::FltMinNum,
            op::FLT_MAXNUM => Opcode::FltMaxNum,
            op::FLT_MINMAXNUMLOC => Opcode::FltMinMaxNumLoc,
            0x28..=0x2f => Opcode::FltSum {
                rounding: Rounding::from_bits(raw),
                ftz: raw & 4 != 0,
            },
            op::FLT_REPSUM => Opcode::FltRepsum,
            other => Opcode::Unknown(other),
        }
    }

    /// The raw `rt_op` value.
    pub fn raw(self) -> u8 {
        match self {
            Opcode::Barrier => op::BARRIER,
            Opcode::BitAnd => op::BIT_AND,
            Opcode::BitOr => op::BIT_OR,
            Opcode::BitXor => op::BIT_XOR,
            Opcode::LogAnd => op::LOG_AND,
            Opcode::LogOr => op::LOG_OR,
            Opcode::LogXor => op::LOG_XOR,
            Opcode::IntMin => op::INT_MIN,
            Opcode::IntMax => op::INT_MAX,
            Opcode::IntMinMaxLoc => op::INT_MINMAXLOC,
            Opcode::IntSum => op::INT_SUM,
            Opcode::FltMin => op::FLT_MIN,
            Opcode::FltMax => op::FLT_MAX,
            Opcode::FltMinMaxLoc => op::FLT_MINMAXLOC,
            Opcode::FltMinNum => op::FLT_MINNUM,
            Opcode::FltMaxNum => op::FLT_MAXNUM,
            Opcode::FltMinMaxNumLoc => op::FLT_MINMAXNUMLOC,
            Opcode::FltSum { rounding, ftz } => FLT_SUM_BASE | (u8::from(ftz) << 2) | rounding.bits_in(&FLT_SUM_ROUNDING),
            Opcode::FltRepsum => op::FLT_REPSUM,
            Opcode::Unknown(raw) => raw,
        }
    }

    /// The name used in docs, the CLI and libfabric (`COLL_OPCODE_<name>`); `None` for unknown values.
    pub fn name(self) -> Option<&'static str> {
        const SUM_NAMES: [&str; 8] = [
            "FLT_SUM_NOFTZ_RND0",
            "FLT_SUM_NOFTZ_RND1",
            "FLT_SUM_NOFTZ_RND2",
            "FLT_SUM_NOFTZ_RND3",
            "FLT_SUM_FTZ_RND0",
            "FLT_SUM_FTZ_RND1",
            "FLT_SUM_FTZ_RND2",
            "FLT_SUM_FTZ_RND3",
        ];
        Some(match self {
            Opcode::FltSum { .. } => SUM_NAMES[usize::from(self.raw() - FLT_SUM_BASE)],
            Opcode::Unknown(_) => return None,
            _ => op::name(self.raw()),
        })
    }

    /// Parses a name (case-insensitive, optional `COLL_OPCODE_` prefix; `FLT_SUM` alone is
    /// FLT_SUM_NOFTZ_RND0) or a number (`0x28`, `40`).
    pub fn parse(s: &str) -> Result<Opcode, ParseOpcodeError> {
        let t = s.trim();
        let num = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            u8::from_str_radix(hex, 16).ok()
        } else {
            t.parse::<u8>().ok()
        };
        if let Some(v) = num {
            if v < 1 << OPCODE_BITS {
                return Ok(Opcode::from_raw(v));
            }
            return Err(ParseOpcodeError { input: s.to_string() });
        }
        let up = t.to_ascii_uppercase();
        let up = up.strip_prefix("COLL_OPCODE_").unwrap_or(&up);
        if up == "FLT_SUM" {
            return Ok(Opcode::FltSum { rounding: Rounding::NearestEven, ftz: false });
        }
        Opcode::DEFINED
            .iter()
            .copied()
            .find(|op| op.name() == Some(up))
            .ok_or_else(|| ParseOpcodeError { input: s.to_string() })
    }

    /// True for the operators that carry one operand per endpoint instead of four lanes (002 (46), (81)).
    pub fn is_one_per_endpoint(self) -> bool {
        matches!(self, Opcode::IntMinMaxLoc | Opcode::FltMinMaxLoc | Opcode::FltMinMaxNumLoc | Opcode::FltRepsum)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "UNKNOWN(0x{:02x})", self.raw()),
        }
    }
}

/// An opcode name or number that [`Opcode::parse`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown reduction opcode {input:?} (expected a name such as FLT_SUM_FTZ_RND2 or a 6-bit number)")]
pub struct ParseOpcodeError {
    /// The text that did not parse.
    pub input: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_raw_value_round_trips() {
        for raw in 0..64u8 {
            assert_eq!(Opcode::from_raw(raw).raw(), raw);
        }
        for op in Opcode::DEFINED {
            assert_eq!(Opcode::parse(op.name().unwrap()), Ok(op));
            assert_eq!(Opcode::parse(&format!("{:#x}", op.raw())), Ok(op));
        }
        assert_eq!(Opcode::from_raw(0x2e), Opcode::FltSum { rounding: Rounding::TowardNegative, ftz: true });
        assert!(Opcode::parse("flt_sum_frob").is_err());
        assert_eq!(Opcode::from_raw(0x3f).to_string(), "UNKNOWN(0x3f)");
    }
}
