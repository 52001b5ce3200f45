//! FLT_REPSUM, the reproducible sum (002 (47)-(48), (89)-(92); 004 for the 2^24 operand bound), and its
//! software side: splitting a double into a repsum operand and converting a result back.
//!
//! A repsum operand is four signed 64-bit bins `t[0..4]` (`rt_data[0..4]`, `t[0]` least significant) and
//! a signed 8-bit bin index `m` (`rt_repsum_m`): value = sum of `t[i] * 2^(W * (m - 3 + i))`. Software
//! puts at most `W` significant bits in each bin, so the `64 - W` spare bits absorb carries: with
//! `W = 40` 2^23 operands always add without overflow (004 says 2^24: true except in the worst
//! case). Bins never carry into each other, so a sum is the same for every order and tree shape (only
//! the result code may differ, see
//! `docs/blocks/reduce_unit.md` §FLT_REPSUM). Encoding of bins and special `m` values as libfabric's
//! `prov/cxi/src/cxip_repsum.c`.

use super::rc::Rc;

/// Significant bits per bin chosen by software (002 (89)); not visible to the hardware.
pub const W: u32 = 40;
/// Bins per operand.
pub const BINS: usize = 4;
/// `rt_repsum_m` of -Inf.
pub const M_NEG_INF: i8 = super::codes::repsum_m::NEG_INF as i8;
/// `rt_repsum_m` of +Inf.
pub const M_POS_INF: i8 = super::codes::repsum_m::POS_INF as i8;
/// `rt_repsum_m` of NaN.
pub const M_NAN: i8 = super::codes::repsum_m::NAN as i8;
/// Width of `rt_repsum_oflow_id`: the bin (0-3) of the most significant overflowed part.
pub const OFLOW_ID_BITS: u32 = 2;
/// First special `m` value; every `m` below it is a bin index.
pub const M_SPECIAL_MIN: i8 = M_NEG_INF;

/// A repsum operand or partial result: the data of a FLT_REPSUM contribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Repsum {
    /// The four bins, `t[0]` = `rt_data[0]` least significant.
    pub t: [i64; BINS],
    /// `rt_repsum_m`: index of the bin held in `t[3]`, or [`M_NEG_INF`], [`M_POS_INF`], [`M_NAN`].
    pub m: i8,
    /// `rt_repsum_oflow_id`: meaningful when the result code is [`Rc::INT_OVERFLOW`].
    pub oflow_id: u8,
}

/// The bin index holding unbiased exponent `e`: floor(e / W).
fn bin(e: i32) -> i32 {
    e.div_euclid(W as i32)
}

/// Splits binary64 `bits` into a repsum operand (the software side, as libfabric's `cxip_dbl_to_rep`).
/// Returns the result code software puts in the frame: [`Rc::FLT_INVALID`] for a signalling NaN,
/// [`Rc::FLT_OVERFLOW`] for ±Inf (libfabric raises int_overflow there; we keep int_overflow for "the
/// result is not valid", 002 (92), and a ±Inf sum is valid). Zeros and subnormals use the bin of the
/// smallest normal exponent; the sign of zero is not kept.
pub fn from_f64_bits(bits: u64) -> (Repsum, Rc) {
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let neg = bits >> 63 != 0;
    if exp == 0x7ff {
        if frac != 0 {
            let rc = if frac & (1 << 51) == 0 { Rc::FLT_INVALID } else { Rc::SUCCESS };
            return (Repsum { t: [0; BINS], m: M_NAN, oflow_id: 0 }, rc);
        }
        let m = if neg { M_NEG_INF } else { M_POS_INF };
        return (Repsum { t: [0; BINS], m, oflow_id: 0 }, Rc::FLT_OVERFLOW);
    }
    let (e, mant) = if exp == 0 { (1 - 1023, frac) } else { (exp - 1023, frac | 1 << 52) };
    let m = bin(e);
    let w = e - m * W as i32; // position of the leading bit inside bin m, 0..W-1
    // Place the 53-bit significand so its bit 52 lands at bit w of bin m; bins m-2 and m-1 take the
    // rest; bin m-3 (t[0]) is always zero, as 53 bits never span more than three 40-bit bins.
    let v = u128::from(mant) << (w + 28); // bits 0.. of v are bit W of the 4-bin register
    let mask = (1u128 << W) - 1;
    let mut t = [0i64; BINS];
    for (i, slot) in t.iter_mut().enumerate().skip(1) {
        let part = ((v >> (W as usize * (i - 1))) & mask) as i64;
        *slot = if neg { -part } else { part };
    }
    (Repsum { t, m: m as i8, oflow_id: 0 }, Rc::SUCCESS)
}

/// Converts a repsum result to binary64, correctly rounded to nearest-even (libfabric adds the bins
/// with `scalbn` in double arithmetic, which can round twice). NaN, ±Inf for the special `m` values.
pub fn to_f64_bits(r: &Repsum) -> u64 {
    match r.m {
        M_NAN => return super::float::DEFAULT_NAN,
        M_POS_INF => return 0x7ff0_0000_0000_0000,
        M_NEG_INF => return 0xfff0_0000_0000_0000,
        _ => {}
    }
    // Exact two's-complement sum of the bins in a 256-bit integer (4 x 64-bit limbs, little-endian).
    let mut acc = [0u64; 4];
    for (i, &t) in r.t.iter().enumerate() {
        let sh = W as usize * i;
        let ext = if t < 0 { u64::MAX } else { 0 };
        let mut limbs = [t as u64, ext, ext, ext];
        // Shift left by sh (< 128).
        let (lw, lb) = (sh / 64, sh % 64);
        let mut shifted = [0u64; 4];
        for k in (0..4).rev() {
            if k >= lw {
                let lo = limbs[k - lw];
                let below = if lb != 0 && k > lw { limbs[k - lw - 1] >> (64 - lb) } else { 0 };
                shifted[k] = (lo << lb) | below;
            }
        }
        limbs = shifted;
        let mut carry = 0u128;
        for k in 0..4 {
            let s = u128::from(acc[k]) + u128::from(limbs[k]) + carry;
            acc[k] = s as u64;
            carry = s >> 64;
        }
    }
    let neg = acc[3] >> 63 != 0;
    if neg {
        // Negate: invert and add one.
        let mut carry = 1u128;
        for limb in acc.iter_mut() {
            let s = u128::from(!*limb) + carry;
            *limb = s as u64;
            carry = s >> 64;
        }
    }
    let sign = if neg { 1u64 << 63 } else { 0 };
    let bits = 256 - acc.iter().rev().position(|&l| l != 0).map_or(256, |p| 64 * p + acc[3 - p].leading_zeros() as usize);
    if bits == 0 {
        return 0;
    }
    let scale = W as i64 * (i64::from(r.m) - 3); // exponent of bit 0 of acc
    let lead = bits as i64 - 1 + scale; // unbiased exponent of the leading bit
    // Keep bits down to weight 2^lsb: 53 bits for a normal, fewer for a subnormal (lsb >= -1074).
    let lsb = (lead - 52).max(-1074);
    let drop = lsb - scale; // bits of acc below the result's LSB
    let bit = |i: i64| -> u64 {
        if !(0..256).contains(&i) {
            0
        } else {
            (acc[i as usize / 64] >> (i % 64)) & 1
        }
    };
    let mut mant: u64 = 0;
    for i in (drop.max(0)..bits as i64).rev() {
        mant = (mant << 1) | bit(i);
    }
    if drop < 0 {
        mant <<= -drop;
    }
    let (round, sticky) = if drop > 0 {
        let r = bit(drop - 1);
        let s = (0..drop - 1).any(|i| bit(i) != 0);
        (r != 0, s)
    } else {
        (false, false)
    };
    if round && (sticky || mant & 1 != 0) {
        mant += 1;
    }
    let mut e = lsb + 52; // exponent the hidden bit would have
    if mant >> 53 != 0 {
        mant >>= 1;
        e += 1;
    }
    if e > 1023 {
        return sign | 0x7ff0_0000_0000_0000;
    }
    let biased = if mant >> 52 != 0 { (e + 1023) as u64 } else { 0 };
    sign | biased << 52 | (mant & ((1 << 52) - 1))
}

/// True if `m` is one of the special values (NaN, ±Inf).
pub fn is_special(m: i8) -> bool {
    m >= M_SPECIAL_MIN
}

/// The engine's REPSUM combine (002 (91)-(92)): returns the sum and the result code, merged with both
/// operands' codes. The operand with the larger `m` keeps its bins; the other's bins are aligned to it
/// and the ones below the larger `m`'s lowest bin are dropped (`REP_INEXACT` if one was non-zero).
/// Bins add with wrap-around; a signed overflow in bin `i` raises `INT_OVERFLOW` with `oflow_id = i`
/// (the largest such bin is kept). An operand's `INT_OVERFLOW` whose overflowed bin is dropped by the
/// alignment becomes `REP_INEXACT` (the overflowed part is no longer significant, 002 (92)).
/// NaN > +Inf > -Inf > numbers by `m`; +Inf with -Inf gives NaN and `FLT_INVALID`; special results have
/// zero bins and `oflow_id` 0.
pub fn combine(a: &Repsum, a_rc: Rc, b: &Repsum, b_rc: Rc) -> (Repsum, Rc) {
    combine_with(&super::rc::PRIORITY, a, a_rc, b, b_rc)
}

/// [`combine`] with the result-code priority table `prio` (a copy of [`super::rc::PRIORITY`]).
pub fn combine_with(prio: &[u8; 16], a: &Repsum, a_rc: Rc, b: &Repsum, b_rc: Rc) -> (Repsum, Rc) {
    let (x, x_rc, y, y_rc) = if b.m > a.m { (b, b_rc, a, a_rc) } else { (a, a_rc, b, b_rc) };
    if is_special(x.m) {
        let mut m = x.m;
        let mut rc = a_rc.merge_by(prio, b_rc);
        if x.m == M_POS_INF && y.m == M_NEG_INF {
            m = M_NAN;
            rc = rc.merge_by(prio, Rc::FLT_INVALID);
        }
        return (Repsum { t: [0; BINS], m, oflow_id: 0 }, rc);
    }
    let d = (i32::from(x.m) - i32::from(y.m)) as usize; // 0..=252
    let mut rc = x_rc;
    let mut oflow: Option<u8> = (x_rc == Rc::INT_OVERFLOW).then_some(x.oflow_id);
    if y_rc == Rc::INT_OVERFLOW {
        if usize::from(y.oflow_id) >= d {
            rc = rc.merge_by(prio, Rc::INT_OVERFLOW);
            let id = y.oflow_id - d as u8;
            oflow = Some(oflow.map_or(id, |o| o.max(id)));
        } else {
            rc = rc.merge_by(prio, Rc::REP_INEXACT);
        }
    } else {
        rc = rc.merge_by(prio, y_rc);
    }
    if y.t.iter().take(d.min(BINS)).any(|&v| v != 0) {
        rc = rc.merge_by(prio, Rc::REP_INEXACT);
    }
    let mut t = x.t;
    for (i, slot) in t.iter_mut().enumerate() {
        if let Some(&yv) = y.t.get(i + d) {
            let (s, ovf) = slot.overflowing_add(yv);
            *slot = s;
            if ovf {
                rc = rc.merge_by(prio, Rc::INT_OVERFLOW);
                oflow = Some(oflow.map_or(i as u8, |o| o.max(i as u8)));
            }
        }
    }
    let oflow_id = if rc == Rc::INT_OVERFLOW { oflow.unwrap_or(0) } else { 0 };
    (Repsum { t, m: x.m, oflow_id }, rc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_join_round_trip() {
        for &bits in &[
            0x3ff0_0000_0000_0000u64,
            0xc009_21fb_5444_2d18,
            1,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
            0x3ca0_0000_0000_0001,
        ] {
            let (r, rc) = from_f64_bits(bits);
            assert_eq!(rc, Rc::SUCCESS);
            assert_eq!(r.t[0], 0);
            assert_eq!(to_f64_bits(&r), bits, "{bits:#x} -> {r:?}");
        }
        assert_eq!(from_f64_bits(0x7ff0_0000_0000_0001).1, Rc::FLT_INVALID);
        assert_eq!(from_f64_bits(0).0.m, -26);
        assert_eq!(from_f64_bits(0x7fef_ffff_ffff_ffff).0.m, 25);
    }
}
