//! Reduction result codes (`rt_rc`, 4 bits): seed 002 (96)-(97), FIG. 13; values and priority as
//! libfabric's `enum cxip_coll_rc` (`prov/cxi/include/cxip.h`). A larger value has a higher priority;
//! one code is kept per frame (shared by the four lanes) and a combine keeps the largest it meets.

use core::fmt;

use super::codes::rc as codes;

/// Width of the `rt_rc` field.
pub const RC_BITS: u32 = 4;

/// The priority of each 4-bit code, indexed by the code: a merge keeps the code with the larger entry.
/// 002 (97): "Result codes are defined in priority order ... the largest is retained"; libfabric keeps
/// the numerically larger code (`SET_RED_RC`, `prov/cxi/src/cxip_coll.c`), so the priority of a code
/// is its value. Data, so a test can perturb a copy (`Tables`, `combine_with`) and see its checks fail.
pub const PRIORITY: [u8; 1 << RC_BITS] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// A result code. Kept as its raw 4-bit value so undefined codes (2, 12-15) round trip and still order
/// by priority.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rc(pub u8);

impl Rc {
    /// No exception.
    pub const SUCCESS: Rc = Rc(codes::SUCCESS);
    /// A FLT_SUM result was rounded, or flushed to zero (002 (81)).
    pub const FLT_INEXACT: Rc = Rc(codes::FLT_INEXACT);
    /// A FLT_SUM result overflowed to infinity (or to the largest finite value, by rounding mode); also
    /// raised when a ±Inf is converted to a repsum operand.
    pub const FLT_OVERFLOW: Rc = Rc(codes::FLT_OVERFLOW);
    /// A signalling NaN operand, or infinities of opposite sign added (002 (86), (97)).
    pub const FLT_INVALID: Rc = Rc(codes::FLT_INVALID);
    /// A REPSUM combine dropped a non-zero part (002 (91)).
    pub const REP_INEXACT: Rc = Rc(codes::REP_INEXACT);
    /// Integer overflow: INT_SUM wrapped, or a significant REPSUM part overflowed (002 (92)).
    pub const INT_OVERFLOW: Rc = Rc(codes::INT_OVERFLOW);
    /// Too many contributions (raised by the reduction context, not by the arithmetic).
    pub const CONTR_OVERFLOW: Rc = Rc(codes::CONTR_OVERFLOW);
    /// Two contributions had different opcodes; `rt_data[0]` holds their source fabric addresses (96).
    pub const OP_MISMATCH: Rc = Rc(codes::OP_MISMATCH);

    /// The code as it sits in the 4-bit field.
    pub fn from_raw(raw: u8) -> Rc {
        Rc(raw & ((1 << RC_BITS) - 1))
    }

    /// Keeps the higher-priority of two codes (002 (97)).
    #[must_use]
    pub fn merge(self, other: Rc) -> Rc {
        self.merge_by(&PRIORITY, other)
    }

    /// Keeps the code of higher priority in `priority` (a copy of [`PRIORITY`]); `self` on a tie.
    #[must_use]
    pub fn merge_by(self, priority: &[u8; 1 << RC_BITS], other: Rc) -> Rc {
        let p = |c: Rc| priority[usize::from(c.0 & 0xf)];
        if p(other) > p(self) {
            other
        } else {
            self
        }
    }

    /// libfabric's name, without the `CXIP_COLL_RC_` prefix.
    pub fn name(self) -> Option<&'static str> {
        match codes::name(self.0) {
            "NONE" => None,
            name => Some(name),
        }
    }
}

impl fmt::Display for Rc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "RC_{}", self.0),
        }
    }
}
