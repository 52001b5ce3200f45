//! The reduction codes, written once: opcodes (`rt_op`), result codes (`rt_rc`), the FLT_SUM rounding
//! modes and the repsum `m` specials as [`code_table!`](crate::code_table)s, which the model's types take
//! their values from and [`super::verilog_header`] writes into `rtl/reduce_codes.vh` (included by
//! `rtl/reduce_unit.v`, `rtl/reduce_repsum.v`, `rtl/reduce_fadd.v` and `rtl/reduce_fminmax.v`). The values
//! are libfabric's (`COLL_OPCODE_*`, `enum cxip_coll_rc`) and must stay exactly as they are. A leaf module:
//! the types use it, it uses none of them.

use crate::code_table;

code_table! {
    /// Reduction opcodes (`rt_op`, 002 (42)-(48), (81)-(88); libfabric `COLL_OPCODE_*`; FLT_MIN, FLT_MAX and
    /// FLT_MINMAXLOC are libfabric's first CXI collectives'). FLT_SUM is the eight values
    /// [`FLT_SUM_BASE`]` | ftz << 2 | rounding`, not listed here.
    pub mod op: "OP", 6 bits {
        BARRIER = 0x00, "Null reduction: the data is always 0.";
        BIT_AND = 0x01, "Bitwise AND.";
        BIT_OR = 0x02, "Bitwise OR.";
        BIT_XOR = 0x03, "Bitwise XOR.";
        LOG_AND = 0x04, "Logical AND.";
        LOG_OR = 0x05, "Logical OR.";
        LOG_XOR = 0x06, "Logical XOR.";
        INT_MIN = 0x10, "Signed minimum.";
        INT_MAX = 0x11, "Signed maximum.";
        INT_MINMAXLOC = 0x12, "Signed MINLOC (lanes 0, 1) and MAXLOC (lanes 2, 3).";
        INT_SUM = 0x14, "Signed sum.";
        FLT_MIN = 0x20, "binary64 minimum, any NaN wins.";
        FLT_MAX = 0x21, "binary64 maximum, any NaN wins.";
        FLT_MINMAXLOC = 0x22, "FLT_MIN and FLT_MAX with index.";
        FLT_MINNUM = 0x24, "binary64 minimum, numbers win over quiet NaNs.";
        FLT_MAXNUM = 0x25, "binary64 maximum, numbers win over quiet NaNs.";
        FLT_MINMAXNUMLOC = 0x26, "MINNUM and MAXNUM with index.";
        FLT_REPSUM = 0x30, "Reproducible sum.";
    }
}

code_table! {
    /// Result codes (`rt_rc`, 002 (96)-(97); libfabric `enum cxip_coll_rc`): a larger value has a higher
    /// priority. 2 and 12-15 are undefined.
    pub mod rc: "RC", 4 bits {
        SUCCESS = 0, "No exception.";
        FLT_INEXACT = 1, "A FLT_SUM result was rounded or flushed to zero.";
        FLT_OVERFLOW = 3, "A FLT_SUM result overflowed.";
        FLT_INVALID = 4, "A signalling NaN operand, or infinities of opposite sign added.";
        REP_INEXACT = 5, "A REPSUM combine dropped a non-zero part.";
        INT_OVERFLOW = 6, "Integer overflow (INT_SUM, or a significant REPSUM part).";
        CONTR_OVERFLOW = 7, "Too many contributions (the reduction context's).";
        OP_MISMATCH = 8, "Two contributions had different opcodes.";
        TX_FAILURE = 9, "libfabric: transmit failure.";
        RDMA_FAILURE = 10, "libfabric: RDMA failure.";
        RDMA_DATA_FAILURE = 11, "libfabric: RDMA data failure.";
    }
}

code_table! {
    /// FLT_SUM rounding modes: opcode bits 1:0 (002 (88), FIG. 9; libfabric maps `fegetround()` to
    /// RND0..RND3 in this order), the `rounding` input of `rtl/reduce_fadd.v`.
    pub mod rnd: "RND", 2 bits {
        NEAREST = 0, "RND0: to nearest, ties to even.";
        UP = 1, "RND1: toward +infinity.";
        DOWN = 2, "RND2: toward -infinity.";
        ZERO = 3, "RND3: toward zero.";
    }
}

code_table! {
    /// Special `rt_repsum_m` values (002 (89)-(92)); every smaller `m` is a bin index.
    pub mod repsum_m: "M", 8 bits {
        NEG_INF = 125, "-Inf.";
        POS_INF = 126, "+Inf.";
        NAN = 127, "NaN.";
    }
}

/// Opcode value of FLT_SUM_NOFTZ_RND0; the eight FLT_SUM variants are this plus `ftz << 2 | rounding`
/// (the RTL's `OP_FLT_SUM_PREFIX` is its bits 5:3).
pub const FLT_SUM_BASE: u8 = 0x28;
