//! Random operand pairs for co-simulating `rtl/reduce_unit.v` against [`crate::reduce_unit::ReduceUnit`],
//! weighted towards special values (zeros, subnormals, binade edges, ±Inf, NaNs, repsum edge cases),
//! every opcode (defined and undefined), mismatches and incoming result codes. Takes its randomness from
//! a caller's `next_u64` so the model crate needs no RNG dependency; the same seed gives the same stream.

use super::float::DEFAULT_NAN;
use super::repsum::{M_NAN, M_NEG_INF, M_POS_INF};
use crate::reduce_unit::ReduceUnitIn;
use super::{Contribution, Mode, Opcode, Rc, LANES};

/// Binary64 values worth hitting often.
pub const SPECIAL_F64: [u64; 16] = [
    0,
    1,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x3ca0_0000_0000_0000,
    0x3fef_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000,
    0x3ff0_0000_0000_0001,
    0x4340_0000_0000_0000,
    0x7c90_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    DEFAULT_NAN,
    0x7ff8_0000_0000_0001,
    0x7ff0_0000_0000_0001,
    0x7ff7_ffff_ffff_ffff,
];

fn pick(next: &mut impl FnMut() -> u64, n: u64) -> u64 {
    next() % n
}

fn float_value(next: &mut impl FnMut() -> u64, other: Option<u64>) -> u64 {
    let sign = next() & (1 << 63);
    match pick(next, 8) {
        0 | 1 => SPECIAL_F64[pick(next, SPECIAL_F64.len() as u64) as usize] | sign,
        2 => next() & 0x800f_ffff_ffff_ffff,
        3 | 4 => match other {
            // Near the other operand: cancellation, carries, rounding ties.
            Some(o) => {
                let e = ((o >> 52) & 0x7ff) as i64 + (pick(next, 7) as i64 - 3);
                sign | (e.clamp(0, 0x7fe) as u64) << 52 | (next() & ((1 << 52) - 1))
            }
            None => next(),
        },
        5 => match other {
            Some(o) => o ^ (1 << 63) ^ pick(next, 4),
            None => next(),
        },
        _ => next(),
    }
}

fn int_value(next: &mut impl FnMut() -> u64) -> u64 {
    match pick(next, 6) {
        0 => [0, 1, u64::MAX, i64::MAX as u64, i64::MIN as u64, 2][pick(next, 6) as usize],
        1 => pick(next, 4),
        _ => next(),
    }
}

fn repsum_operand(next: &mut impl FnMut() -> u64) -> ([u64; LANES], i8, u8) {
    let m = match pick(next, 8) {
        0 => [M_NAN, M_POS_INF, M_NEG_INF, -128, 124, 0][pick(next, 6) as usize],
        1..=3 => (pick(next, 9) as i8) - 4,
        _ => next() as i8,
    };
    let mut t = [0u64; LANES];
    for v in t.iter_mut() {
        *v = match pick(next, 6) {
            0 => 0,
            1 => [i64::MAX as u64, i64::MIN as u64, u64::MAX, 1 << 62][pick(next, 4) as usize],
            2 => next() & ((1 << 40) - 1),
            _ => next(),
        };
    }
    (t, m, (next() & 3) as u8)
}

/// One random operand pair (a valid cycle).
pub fn random_pair(next: &mut impl FnMut() -> u64) -> ReduceUnitIn {
    let op = match pick(next, 32) {
        0 => Opcode::from_raw((next() & 0x3f) as u8), // any 6-bit value, mostly undefined
        k => Opcode::DEFINED[(k as usize) % Opcode::DEFINED.len()],
    };
    let mode = Mode::from_bit(next() & 1 != 0);
    let mut a = Contribution::new(op, [0; LANES]);
    let mut b = a;
    for c in [&mut a, &mut b] {
        c.sfa = next() as u32;
        c.rt_rc = match pick(next, 8) {
            0 => Rc::from_raw(next() as u8),
            1 => Rc::INT_OVERFLOW,
            _ => Rc::SUCCESS,
        };
    }
    match op {
        Opcode::FltRepsum => {
            for c in [&mut a, &mut b] {
                let (t, m, oid) = repsum_operand(next);
                c.rt_data = t;
                c.rt_repsum_m = m;
                c.rt_repsum_oflow_id = oid;
            }
            if pick(next, 4) == 0 {
                b.rt_repsum_m = a.rt_repsum_m.wrapping_add(pick(next, 6) as i8 - 2);
            }
        }
        Opcode::IntMinMaxLoc | Opcode::FltMinMaxLoc | Opcode::FltMinMaxNumLoc => {
            for i in [0, 2] {
                if op == Opcode::IntMinMaxLoc {
                    a.rt_data[i] = int_value(next);
                    b.rt_data[i] = if pick(next, 3) == 0 { a.rt_data[i] } else { int_value(next) };
                } else {
                    a.rt_data[i] = float_value(next, None);
                    b.rt_data[i] = if pick(next, 3) == 0 { a.rt_data[i] } else { float_value(next, Some(a.rt_data[i])) };
                }
                a.rt_data[i + 1] = pick(next, 8);
                b.rt_data[i + 1] = pick(next, 8);
            }
        }
        Opcode::FltMin | Opcode::FltMax | Opcode::FltMinNum | Opcode::FltMaxNum | Opcode::FltSum { .. } => {
            for i in 0..LANES {
                a.rt_data[i] = float_value(next, None);
                b.rt_data[i] = float_value(next, Some(a.rt_data[i]));
            }
        }
        _ => {
            for i in 0..LANES {
                a.rt_data[i] = int_value(next);
                b.rt_data[i] = int_value(next);
            }
        }
    }
    // Random repsum fields on every operator: they must pass through unchanged.
    if op != Opcode::FltRepsum {
        a.rt_repsum_m = next() as i8;
        a.rt_repsum_oflow_id = (next() & 3) as u8;
        b.rt_repsum_m = next() as i8;
        b.rt_repsum_oflow_id = (next() & 3) as u8;
    }
    if pick(next, 64) == 0 {
        b.rt_op = (next() & 0x3f) as u8; // opcode mismatch
    }
    ReduceUnitIn::pair(mode, &a, &b)
}

/// One cycle of stimulus: mostly pairs, with idle gaps (random data, `in_valid` 0) and rare resets.
pub fn random_cycle(next: &mut impl FnMut() -> u64) -> ReduceUnitIn {
    let mut inp = random_pair(next);
    match pick(next, 100) {
        0 => inp.rst = true,
        1..=10 => inp.in_valid = false,
        _ => {}
    }
    inp
}
