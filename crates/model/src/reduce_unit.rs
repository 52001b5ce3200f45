//! Cycle-level model of `rtl/reduce_unit.v`, the pipelined reduction unit: one operand pair accepted
//! every cycle (no backpressure), result [`LATENCY`] rising edges later. See `docs/blocks/reduce_unit.md` §Timing.
//!
//! ```text
//!  edge k:   in_valid=1, a_*, b_*, cfg_mode sampled   (operand register; FLT_SUM: classify, compare)
//!  edge k+1:                                          (sums, compares; FLT_SUM: swap, align)
//!  edge k+2:                                          (operators chosen; FLT_SUM: add)
//!  edge k+3:                                          (REPSUM joins; FLT_SUM: leading zeros)
//!  edge k+4:                                          (FLT_SUM: normalise, round)
//!  edge k+5: out_* registered                         (FLT_SUM: pack, merge rt_rc)
//!  step k+6 returns out_valid=1 with combine(a, b)
//! ```
//! When `out_valid` is 0 every `out_*` port is 0; `rst` clears the whole pipeline.

use crate::reduce::{combine_with, Contribution, Mode, Rc, Tables, LANES};
use crate::signal::{Block, Wide};

/// Rising edges from sampling an operand pair to the result on the `out_*` registers: `step` number
/// `k + LATENCY` returns the result of the inputs of step `k`.
/// Six since issue 19's pipelining (session 15; three before): every stage within 8 LUT levels.
pub const LATENCY: usize = 6;
/// Width of the `*_rt_data` ports: four 64-bit lanes, lane i in bits 64i+63:64i.
pub const DATA_BITS: usize = 64 * LANES;

crate::ports! {
    /// Inputs of `reduce_unit`.
    pub struct ReduceUnitIn {
        /// Synchronous active-high reset.
        pub rst: bool,
        /// An operand pair is present this cycle.
        pub in_valid: bool,
        /// R_TF_RED_CFG_MODE: 0 = associative, 1 = IEEE (002 (86)).
        pub cfg_mode: bool,
        /// Operand a (the accumulated partial result): `rt_op`, 6 bits.
        pub a_rt_op: u8,
        /// Operand a: `rt_data[0..4]`, 256 bits.
        pub a_rt_data: Wide,
        /// Operand a: `rt_rc`, 4 bits.
        pub a_rt_rc: u8,
        /// Operand a: `rt_repsum_m`, 8 bits two's complement.
        pub a_rt_repsum_m: u8,
        /// Operand a: `rt_repsum_oflow_id`, 2 bits.
        pub a_rt_repsum_oflow_id: u8,
        /// Operand a: source fabric address, 32 bits.
        pub a_sfa: u32,
        /// Operand b (the new contribution): `rt_op`.
        pub b_rt_op: u8,
        /// Operand b: `rt_data`.
        pub b_rt_data: Wide,
        /// Operand b: `rt_rc`.
        pub b_rt_rc: u8,
        /// Operand b: `rt_repsum_m`.
        pub b_rt_repsum_m: u8,
        /// Operand b: `rt_repsum_oflow_id`.
        pub b_rt_repsum_oflow_id: u8,
        /// Operand b: source fabric address.
        pub b_sfa: u32,
    }
}

crate::ports! {
    /// Outputs of `reduce_unit`.
    pub struct ReduceUnitOut {
        /// A result is present.
        pub out_valid: bool,
        /// Result `rt_op` (operand a's).
        pub out_rt_op: u8,
        /// Result `rt_data`.
        pub out_rt_data: Wide,
        /// Result `rt_rc`.
        pub out_rt_rc: u8,
        /// Result `rt_repsum_m`.
        pub out_rt_repsum_m: u8,
        /// Result `rt_repsum_oflow_id`.
        pub out_rt_repsum_oflow_id: u8,
    }
}

/// Packs four lanes into a 256-bit port value.
pub fn lanes_to_wide(data: &[u64; LANES]) -> Wide {
    let mut w = Wide::ZERO;
    w.0[..LANES].copy_from_slice(data);
    w
}

/// Unpacks a 256-bit port value into four lanes.
pub fn wide_to_lanes(w: &Wide) -> [u64; LANES] {
    core::array::from_fn(|i| w.0[i])
}

impl ReduceUnitIn {
    /// The two contributions on the input ports, truncated to the port widths.
    pub fn contributions(&self) -> (Contribution, Contribution) {
        let side = |op: u8, data: &Wide, rc: u8, m: u8, oid: u8, sfa: u32| Contribution {
            rt_op: op & 0x3f,
            rt_data: wide_to_lanes(data),
            rt_rc: Rc::from_raw(rc),
            rt_repsum_m: m as i8,
            rt_repsum_oflow_id: oid & 3,
            sfa,
        };
        (
            side(self.a_rt_op, &self.a_rt_data, self.a_rt_rc, self.a_rt_repsum_m, self.a_rt_repsum_oflow_id, self.a_sfa),
            side(self.b_rt_op, &self.b_rt_data, self.b_rt_rc, self.b_rt_repsum_m, self.b_rt_repsum_oflow_id, self.b_sfa),
        )
    }

    /// Inputs presenting `a` and `b` with mode `mode`.
    pub fn pair(mode: Mode, a: &Contribution, b: &Contribution) -> ReduceUnitIn {
        ReduceUnitIn {
            rst: false,
            in_valid: true,
            cfg_mode: mode.bit(),
            a_rt_op: a.rt_op,
            a_rt_data: lanes_to_wide(&a.rt_data),
            a_rt_rc: a.rt_rc.0,
            a_rt_repsum_m: a.rt_repsum_m as u8,
            a_rt_repsum_oflow_id: a.rt_repsum_oflow_id,
            a_sfa: a.sfa,
            b_rt_op: b.rt_op,
            b_rt_data: lanes_to_wide(&b.rt_data),
            b_rt_rc: b.rt_rc.0,
            b_rt_repsum_m: b.rt_repsum_m as u8,
            b_rt_repsum_oflow_id: b.rt_repsum_oflow_id,
            b_sfa: b.sfa,
        }
    }
}

impl ReduceUnitOut {
    /// The output of a valid result.
    pub fn from_result(r: &Contribution) -> ReduceUnitOut {
        ReduceUnitOut {
            out_valid: true,
            out_rt_op: r.rt_op,
            out_rt_data: lanes_to_wide(&r.rt_data),
            out_rt_rc: r.rt_rc.0,
            out_rt_repsum_m: r.rt_repsum_m as u8,
            out_rt_repsum_oflow_id: r.rt_repsum_oflow_id,
        }
    }
}

/// The pipelined reduction unit. Registers: one output value per pipeline stage (stage `LATENCY - 1`
/// is the `out_*` register); an empty stage holds the all-zero output.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReduceUnit {
    stages: [ReduceUnitOut; LATENCY],
    /// The truth tables of the arithmetic ([`Tables::SEED`] but in mutation tests).
    tables: Tables,
}

impl ReduceUnit {
    /// A unit just out of reset.
    pub fn new() -> ReduceUnit {
        ReduceUnit::default()
    }

    /// A unit reading the truth tables `tables` instead of the seed's: for tests that plant a wrong
    /// reading of the seed and check that the independent checks object.
    pub fn with_tables(tables: Tables) -> ReduceUnit {
        ReduceUnit { tables, ..ReduceUnit::default() }
    }

    /// The truth tables this unit reads.
    pub fn tables(&self) -> Tables {
        self.tables
    }
}

impl Block for ReduceUnit {
    type In = ReduceUnitIn;
    type Out = ReduceUnitOut;

    fn step(&mut self, inputs: &ReduceUnitIn) -> ReduceUnitOut {
        // Idle (no operand pair, every stage empty, i.e. all-zero): the shift would move zeros into
        // zeros. Checked first because the CPU steps its unit every cycle and it is idle in almost all
        // of them (the shift of six 80-byte stages was 3% of the top's model time, issue 23).
        if !inputs.in_valid && !inputs.rst && self.stages.iter().all(|s| !s.out_valid) {
            return ReduceUnitOut::default();
        }
        let out = self.stages[LATENCY - 1];
        if inputs.rst {
            self.stages = Default::default();
            return out;
        }
        let first = if inputs.in_valid {
            let (a, b) = inputs.contributions();
            ReduceUnitOut::from_result(&combine_with(&self.tables, Mode::from_bit(inputs.cfg_mode), &a, &b))
        } else {
            ReduceUnitOut::default()
        };
        // A shift by fixed-size moves: `rotate_right` went through a generic memmove loop, 6% of the
        // top's model time (issue 23, docs/performance.md §Profile).
        for k in (1..LATENCY).rev() {
            self.stages[k] = self.stages[k - 1];
        }
        self.stages[0] = first;
        out
    }
}
