//! The reduction arithmetic of the collective processing unit: every operator of seed 002 (42)-(48),
//! (81)-(97), bit-exact, as a pure function ([`combine`]) and as the cycle-level model of the pipelined
//! RTL unit `rtl/reduce_unit.v` ([`crate::reduce_unit::ReduceUnit`]). Specification: `docs/blocks/reduce_unit.md`.
//!
//! [`combine`] is the golden reference: the RTL must match it bit for bit, and it is itself checked
//! against Berkeley SoftFloat (FLT_SUM) and libfabric's documented rules (the rest) in
//! `crates/model/tests/reduce_*.rs`.

pub mod batch;
pub mod codes;
pub mod float;
pub mod opcode;
pub mod rc;
pub mod repsum;
pub mod stimulus;

pub use opcode::{Opcode, Rounding};
pub use rc::Rc;
pub use repsum::Repsum;

/// 64-bit operands per frame (002 (46)).
pub const LANES: usize = 4;

/// The R_TF_RED_CFG_MODE register (002 (86)): how FLT_MINNUM/MAXNUM/MINMAXNUMLOC treat a signalling
/// NaN against a number. On the RTL port `cfg_mode`, 0 = associative (reset value, recommended), 1 = IEEE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The number wins over a signalling NaN, so the reduction does not depend on its order.
    #[default]
    Associative,
    /// A signalling NaN operand gives a quiet NaN (the result depends on the reduction order).
    Ieee,
}

impl Mode {
    /// From the `cfg_mode` bit.
    pub fn from_bit(ieee: bool) -> Mode {
        if ieee {
            Mode::Ieee
        } else {
            Mode::Associative
        }
    }

    /// The `cfg_mode` bit.
    pub fn bit(self) -> bool {
        self == Mode::Ieee
    }
}

/// One contribution or partial result as the reduction unit sees it: the reduction-header fields it
/// uses (`rt_op`, `rt_rc`, `rt_repsum_m`, `rt_repsum_oflow_id`), the four operands `rt_data`, and the
/// source fabric address of the frame (reported on an opcode mismatch, 002 (96)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Contribution {
    /// `rt_op`, raw 6-bit value (see [`Opcode::from_raw`]).
    pub rt_op: u8,
    /// `rt_data[0..4]`.
    pub rt_data: [u64; LANES],
    /// `rt_rc`.
    pub rt_rc: Rc,
    /// `rt_repsum_m` (FLT_REPSUM only; carried unchanged by the other operators).
    pub rt_repsum_m: i8,
    /// `rt_repsum_oflow_id` (FLT_REPSUM only), 2 bits.
    pub rt_repsum_oflow_id: u8,
    /// Source fabric address of the frame, 32 bits.
    pub sfa: u32,
}

impl Contribution {
    /// A contribution of `op` with data `rt_data` and every other field zero.
    pub fn new(op: Opcode, rt_data: [u64; LANES]) -> Contribution {
        Contribution { rt_op: op.raw(), rt_data, ..Contribution::default() }
    }

    /// The opcode.
    pub fn op(&self) -> Opcode {
        Opcode::from_raw(self.rt_op)
    }

    /// The FLT_REPSUM view of the data.
    pub fn repsum(&self) -> Repsum {
        Repsum {
            t: self.rt_data.map(|v| v as i64),
            m: self.rt_repsum_m,
            oflow_id: self.rt_repsum_oflow_id & ((1 << repsum::OFLOW_ID_BITS) - 1),
        }
    }
}

/// `rt_data[0]` of an opcode mismatch: the source fabric address of `a` in bits 31:0, of `b` in 63:32.
pub fn mismatch_report(a_sfa: u32, b_sfa: u32) -> u64 {
    u64::from(a_sfa) | u64::from(b_sfa) << 32
}

/// Combines two contributions, `a` (the accumulated one) and `b` (the new one), as one pairwise step of
/// the reduction engine. The result takes `rt_op` and `sfa` from `a`; its `rt_rc` is the highest of the
/// two inputs' codes and of what this step raised (002 (97)), except for FLT_REPSUM's dropped overflow.
///
/// - If either input already carries `OP_MISMATCH`, that input is the result (the first mismatch report
///   survives the rest of the reduction; `a` wins if both do).
/// - If the opcodes differ: no reduction; `rt_data[0]` = [`mismatch_report`]`(a.sfa, b.sfa)`, lanes 1-3
///   and the repsum fields are `a`'s, `rt_rc` = `OP_MISMATCH` (002 (96)).
/// - An unknown opcode (the same in both) returns `a`'s data with the merged code.
/// - Otherwise the operator of `docs/blocks/reduce_unit.md` §Operator table.
pub fn combine(mode: Mode, a: &Contribution, b: &Contribution) -> Contribution {
    combine_with(&Tables::SEED, mode, a, b)
}

/// The truth tables [`combine`] reads, as data: the seed's (`Tables::SEED`) in the product; a test can
/// build [`combine_with`] or [`crate::reduce_unit::ReduceUnit::with_tables`] on a perturbed copy and check that its
/// independent checks object (docs/verification.md §Independent checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tables {
    /// FLT_SUM opcode bits 1:0 -> rounding mode ([`opcode::FLT_SUM_ROUNDING`]).
    pub flt_sum_rounding: [Rounding; 4],
    /// Result-code priority, indexed by code ([`rc::PRIORITY`]).
    pub rc_priority: [u8; 16],
}

impl Tables {
    /// The tables of the seeds and libfabric.
    pub const SEED: Tables = Tables { flt_sum_rounding: opcode::FLT_SUM_ROUNDING, rc_priority: rc::PRIORITY };
}

impl Default for Tables {
    fn default() -> Tables {
        Tables::SEED
    }
}

/// [`combine`] reading the truth tables `t`.
pub fn combine_with(t: &Tables, mode: Mode, a: &Contribution, b: &Contribution) -> Contribution {
    let prio = &t.rc_priority;
    if a.rt_rc == Rc::OP_MISMATCH {
        return *a;
    }
    if b.rt_rc == Rc::OP_MISMATCH {
        return *b;
    }
    let op_bits = (1u8 << opcode::OPCODE_BITS) - 1;
    let mut out = Contribution {
        rt_op: a.rt_op & op_bits,
        rt_data: a.rt_data,
        rt_rc: a.rt_rc.merge_by(prio, b.rt_rc),
        rt_repsum_m: a.rt_repsum_m,
        rt_repsum_oflow_id: a.rt_repsum_oflow_id & 3,
        sfa: a.sfa,
    };
    if (a.rt_op ^ b.rt_op) & op_bits != 0 {
        out.rt_data[0] = mismatch_report(a.sfa, b.sfa);
        out.rt_rc = Rc::OP_MISMATCH;
        return out;
    }
    let (x, y) = (&a.rt_data, &b.rt_data);
    let lanes = |f: &dyn Fn(u64, u64) -> u64| -> [u64; LANES] { core::array::from_fn(|i| f(x[i], y[i])) };
    let mut raised = Rc::SUCCESS;
    match a.op() {
        Opcode::Barrier => out.rt_data = [0; LANES],
        Opcode::BitAnd => out.rt_data = lanes(&|p, q| p & q),
        Opcode::BitOr => out.rt_data = lanes(&|p, q| p | q),
        Opcode::BitXor => out.rt_data = lanes(&|p, q| p ^ q),
        Opcode::LogAnd => out.rt_data = lanes(&|p, q| u64::from(p != 0 && q != 0)),
        Opcode::LogOr => out.rt_data = lanes(&|p, q| u64::from(p != 0 || q != 0)),
        Opcode::LogXor => out.rt_data = lanes(&|p, q| u64::from((p != 0) != (q != 0))),
        Opcode::IntMin => out.rt_data = lanes(&|p, q| (p as i64).min(q as i64) as u64),
        Opcode::IntMax => out.rt_data = lanes(&|p, q| (p as i64).max(q as i64) as u64),
        Opcode::IntSum => {
            for i in 0..LANES {
                let (s, ovf) = (x[i] as i64).overflowing_add(y[i] as i64);
                out.rt_data[i] = s as u64;
                if ovf {
                    raised = Rc::INT_OVERFLOW;
                }
            }
        }
        Opcode::IntMinMaxLoc => {
            // Lexicographic (value, index): the lower index wins a tie (002 (44), (83)).
            let key_min = |v: u64, i: u64| ((v as i64), i);
            let key_max = |v: u64, i: u64| (-(i128::from(v as i64)), i);
            if key_min(y[0], y[1]) < key_min(x[0], x[1]) {
                out.rt_data[0] = y[0];
                out.rt_data[1] = y[1];
            }
            if key_max(y[2], y[3]) < key_max(x[2], x[3]) {
                out.rt_data[2] = y[2];
                out.rt_data[3] = y[3];
            }
        }
        Opcode::FltMin | Opcode::FltMax => {
            let max = a.op() == Opcode::FltMax;
            for i in 0..LANES {
                let (r, invalid) = float::f64_min_max(x[i], y[i], max);
                out.rt_data[i] = r;
                if invalid {
                    raised = Rc::FLT_INVALID;
                }
            }
        }
        Opcode::FltMinNum | Opcode::FltMaxNum => {
            let max = a.op() == Opcode::FltMaxNum;
            for i in 0..LANES {
                let (r, _, invalid) = float::f64_min_max_num(x[i], y[i], max, mode == Mode::Ieee);
                out.rt_data[i] = r;
                if invalid {
                    raised = Rc::FLT_INVALID;
                }
            }
        }
        Opcode::FltMinMaxNumLoc => {
            let ieee = mode == Mode::Ieee;
            if float_min_max_loc(x, y, &mut out.rt_data, |p, q, max| float::f64_min_max_num(p, q, max, ieee)) {
                raised = Rc::FLT_INVALID;
            }
        }
        Opcode::FltMinMaxLoc => {
            if float_min_max_loc(x, y, &mut out.rt_data, float::f64_min_max_loc) {
                raised = Rc::FLT_INVALID;
            }
        }
        Opcode::FltSum { ftz, .. } => {
            let rounding = t.flt_sum_rounding[usize::from(a.rt_op & 3)];
            for i in 0..LANES {
                let (r, f) = float::f64_add(x[i], y[i], rounding, ftz);
                out.rt_data[i] = r;
                let rc = if f.invalid {
                    Rc::FLT_INVALID
                } else if f.overflow {
                    Rc::FLT_OVERFLOW
                } else if f.inexact {
                    Rc::FLT_INEXACT
                } else {
                    Rc::SUCCESS
                };
                raised = raised.merge_by(prio, rc);
            }
        }
        Opcode::FltRepsum => {
            let (r, rc) = repsum::combine_with(prio, &a.repsum(), a.rt_rc, &b.repsum(), b.rt_rc);
            out.rt_data = r.t.map(|v| v as u64);
            out.rt_repsum_m = r.m;
            out.rt_repsum_oflow_id = r.oflow_id;
            out.rt_rc = rc;
        }
        Opcode::Unknown(_) => {}
    }
    out.rt_rc = out.rt_rc.merge_by(prio, raised);
    out
}

/// Reduces a sequence of contributions left to right with [`combine`]; `None` for an empty slice.
pub fn reduce_all(mode: Mode, items: &[Contribution]) -> Option<Contribution> {
    let (first, rest) = items.split_first()?;
    Some(rest.iter().fold(*first, |acc, c| combine(mode, &acc, c)))
}

/// The float MINMAXLOC pair layout (002 (42), (44)): (minimum, its index) in lanes 0-1 and (maximum, its
/// index) in lanes 2-3. `pick` chooses between two values and says which operand it took (a tie takes
/// the lower index); returns whether any comparison raised invalid.
fn float_min_max_loc(
    x: &[u64; LANES],
    y: &[u64; LANES],
    out: &mut [u64; LANES],
    pick: impl Fn(u64, u64, bool) -> (u64, float::Pick, bool),
) -> bool {
    let mut invalid = false;
    for (k, max) in [(0usize, false), (2usize, true)] {
        let (r, which, inv) = pick(x[k], y[k], max);
        out[k] = r;
        out[k + 1] = match which {
            float::Pick::A => x[k + 1],
            float::Pick::B => y[k + 1],
            float::Pick::Tie => x[k + 1].min(y[k + 1]),
        };
        invalid |= inv;
    }
    invalid
}

/// The text of `rtl/reduce_codes.vh`, to be included inside the reduction modules.
pub fn verilog_header() -> String {
    let mut h = crate::codes::Header::new(&[
        "// The reduction codes (docs/blocks/reduce_unit.md), included inside modules reduce_unit, reduce_repsum,",
        "// reduce_fadd and reduce_fminmax. Values as libfabric's COLL_OPCODE_* and enum cxip_coll_rc.",
        "// GENERATED from crates/model/src/reduce/codes.rs and crates/model/src/reduce/float.rs: do not edit; run",
        "// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model reduce_codes` (the same test checks it).",
        "// Each module uses a part of the tables, hence UNUSEDPARAM off.",
        "",
        "// verilator lint_off UNUSEDPARAM",
    ]);
    let prefix = u64::from(codes::FLT_SUM_BASE >> 3);
    h.section(
        "Opcodes (rt_op); FLT_SUM is 6'b101_fRR (0x28-0x2f), f = FTZ, RR = rounding mode",
        &(codes::op::localparams() + &crate::codes::localparams("OP", 3, [("FLT_SUM_PREFIX", prefix)])),
    );
    h.section("Result codes (rt_rc), larger = higher priority", &codes::rc::localparams());
    h.section("FLT_SUM rounding modes (opcode bits 1:0)", &codes::rnd::localparams());
    h.section("Special repsum m values", &codes::repsum_m::localparams());
    let consts = crate::codes::hex("DEFAULT_NAN", 64, float::DEFAULT_NAN)
        + &crate::codes::hex("MAX_FINITE", 63, float::MAX_FINITE)
        + &crate::codes::hex("INF", 63, float::INF);
    h.section("binary64: the default NaN; the largest finite and the infinite magnitude (sign dropped)", &consts);
    h.line("// verilator lint_on UNUSEDPARAM");
    h.text()
}

#[cfg(test)]
mod codes_tests {
    use super::codes::{op, rc, rnd};
    use super::*;

    #[test]
    fn reduce_codes_vh_is_current() {
        crate::codes::check_generated("reduce_codes.vh", &verilog_header(), "reduce_codes");
    }

    /// The tables and the model's types agree: the table holds every opcode but FLT_SUM's, every named
    /// result code is in its table, and the rounding modes are the FLT_SUM table's order.
    #[test]
    fn reduce_codes_follow_the_types() {
        for &(name, v) in op::TABLE {
            let o = Opcode::from_raw(v);
            assert!(!matches!(o, Opcode::Unknown(_) | Opcode::FltSum { .. }), "{name}");
            assert_eq!(o.raw(), v);
        }
        assert_eq!(op::TABLE.len(), Opcode::DEFINED.len() - 8);
        for &(name, v) in rc::TABLE {
            assert_eq!(Rc(v).name(), Some(name));
        }
        for (bits, mode) in [rnd::NEAREST, rnd::UP, rnd::DOWN, rnd::ZERO].into_iter().zip(Rounding::ALL) {
            assert_eq!(Rounding::from_bits(bits), mode);
        }
    }
}
