//! All of a block's inputs (or outputs) in one packed vector, so that a foreign caller (the C ABI, DPI-C)
//! crosses the interface once per cycle instead of once per port. Port `k` (in [`super::BlockSpec::ports`]
//! order, inputs and outputs counted apart) sits at bits `[off + width - 1 : off]`, `off` the sum of the
//! widths of the ports before it: the layout of the SystemVerilog concatenation `{last, ..., first}`.
//! Words are little-endian 32-bit (`words[0]` = bits 31:0), as everywhere in the registry.

use super::port::PortInfo;
use crate::signal::{PortFiller, PortVisitor, Ports, Signal, MAX_PORT_WORDS};

/// Bits of the packed vector of the inputs (`output` false) or the outputs of `ports`.
pub fn packed_bits(ports: &[PortInfo], output: bool) -> usize {
    ports.iter().filter(|p| p.output == output).map(|p| p.width as usize).sum()
}

/// Reads `width` bits at bit `off` of `src` into `dst` (the port's words, top word masked).
/// Panics unless `off + width <= 32 * src.len()` and `dst.len() >= width.div_ceil(32)`.
#[inline]
pub fn read_bits(src: &[u32], off: usize, width: usize, dst: &mut [u32]) {
    let n = width.div_ceil(32);
    let (base, sh) = (off / 32, off % 32);
    for (k, d) in dst[..n].iter_mut().enumerate() {
        let lo = src[base + k] >> sh;
        let hi = if sh != 0 { src.get(base + k + 1).map_or(0, |w| w << (32 - sh)) } else { 0 };
        *d = lo | hi;
    }
    if width % 32 != 0 {
        dst[n - 1] &= (1u32 << (width % 32)) - 1;
    }
}

/// Writes the `width` low bits of `src` into `dst` at bit `off`, the other bits of `dst` unchanged.
#[inline]
pub fn write_bits(dst: &mut [u32], off: usize, width: usize, src: &[u32]) {
    let (base, sh) = (off / 32, off % 32);
    for k in 0..width.div_ceil(32) {
        let bits = (width - 32 * k).min(32);
        let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
        let v = src[k] & mask;
        dst[base + k] = dst[base + k] & !(mask << sh) | v << sh;
        // The part of the word that spills into the next one.
        if sh != 0 && mask >> (32 - sh) != 0 {
            dst[base + k + 1] = dst[base + k + 1] & !(mask >> (32 - sh)) | v >> (32 - sh);
        }
    }
}

/// ORs the `width` low bits of `src` into `dst` at bit `off` (`dst` zeroed beforehand).
#[inline]
fn or_bits(dst: &mut [u32], off: usize, width: usize, src: &mut [u32]) {
    let n = width.div_ceil(32);
    if width % 32 != 0 {
        src[n - 1] &= (1u32 << (width % 32)) - 1;
    }
    let (base, sh) = (off / 32, off % 32);
    for (k, s) in src[..n].iter().enumerate() {
        dst[base + k] |= s << sh;
        if sh != 0 && *s >> (32 - sh) != 0 {
            dst[base + k + 1] |= s >> (32 - sh);
        }
    }
}

/// A block's typed `In` or `Out` struct from a packed vector of its ports of widths `widths` (for a
/// typed consumer of packed values, e.g. a scoreboard fed from a waveform).
pub fn unpack<P: Ports>(bits: &[u32], widths: &[u32]) -> P {
    P::fill_ports(&mut Unpack::new(bits, widths))
}

/// Fills an `In` struct from a packed vector (monomorphised per port type: no dynamic dispatch per port).
pub(super) struct Unpack<'a> {
    bits: &'a [u32],
    widths: &'a [u32],
    off: usize,
}

impl<'a> Unpack<'a> {
    pub(super) fn new(bits: &'a [u32], widths: &'a [u32]) -> Self {
        Unpack { bits, widths, off: 0 }
    }
}

/// Reads a field of at most 64 bits (the common case: no 16-word scratch buffer).
#[inline(always)]
fn read_u64(src: &[u32], off: usize, width: usize) -> u64 {
    let (base, sh) = (off / 32, off % 32);
    let word = |k: usize| u128::from(src.get(base + k).copied().unwrap_or(0));
    let v = ((word(0) | word(1) << 32 | word(2) << 64) >> sh) as u64;
    if width < 64 {
        v & ((1u64 << width) - 1)
    } else {
        v
    }
}

/// ORs a field of at most 64 bits into `dst` (zeroed beforehand).
#[inline(always)]
fn or_u64(dst: &mut [u32], off: usize, width: usize, v: u64) {
    let v = if width < 64 { v & ((1u64 << width) - 1) } else { v };
    let (base, sh) = (off / 32, off % 32);
    let x = u128::from(v) << sh;
    for k in 0..3 {
        let part = (x >> (32 * k)) as u32;
        if part != 0 {
            dst[base + k] |= part;
        }
    }
}

impl PortFiller for Unpack<'_> {
    #[inline]
    fn fill<S: Signal>(&mut self, index: usize) -> S {
        let width = self.widths[index] as usize;
        if S::BITS <= 64 {
            let v = read_u64(self.bits, self.off, width);
            self.off += width;
            return S::from_words(&[v as u32, (v >> 32) as u32]);
        }
        let mut w = [0u32; MAX_PORT_WORDS];
        read_bits(self.bits, self.off, width, &mut w);
        self.off += width;
        S::from_words(&w[..width.div_ceil(32)])
    }
}

/// Writes an `Out` struct into a packed vector.
pub(super) struct Pack<'a> {
    bits: &'a mut [u32],
    widths: &'a [u32],
    off: usize,
}

impl<'a> Pack<'a> {
    pub(super) fn new(bits: &'a mut [u32], widths: &'a [u32]) -> Self {
        Pack { bits, widths, off: 0 }
    }
}

impl PortVisitor for Pack<'_> {
    #[inline]
    fn visit<S: Signal>(&mut self, index: usize, value: &S) {
        let width = self.widths[index] as usize;
        if S::BITS <= 64 {
            let mut w = [0u32; 2];
            value.to_words(&mut w);
            or_u64(self.bits, self.off, width, u64::from(w[0]) | u64::from(w[1]) << 32);
            self.off += width;
            return;
        }
        let mut w = [0u32; MAX_PORT_WORDS];
        value.to_words(&mut w[..width.div_ceil(32)]);
        or_bits(self.bits, self.off, width, &mut w);
        self.off += width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip_at_every_alignment() {
        for off in [0usize, 1, 5, 31, 32, 33, 63] {
            for width in [1usize, 7, 32, 33, 64, 100] {
                let v: Vec<u32> = (0..width.div_ceil(32) as u32).map(|k| 0x9e37_79b9u32.wrapping_mul(k + 1)).collect();
                let mut src = v.clone();
                let mut packed = vec![0u32; (off + width).div_ceil(32)];
                or_bits(&mut packed, off, width, &mut src);
                let mut back = vec![0u32; v.len()];
                read_bits(&packed, off, width, &mut back);
                assert_eq!(back, src, "off {off} width {width}");
                // Nothing written outside the field.
                for bit in (0..off).chain(off + width..32 * packed.len()) {
                    assert_eq!(packed[bit / 32] >> (bit % 32) & 1, 0, "off {off} width {width} bit {bit}");
                }
                // Overwritten in place over all ones: the field takes the value, the rest stays 1.
                let mut ones = vec![u32::MAX; packed.len() + 1];
                write_bits(&mut ones, off, width, &v);
                let mut again = vec![0u32; v.len()];
                read_bits(&ones, off, width, &mut again);
                assert_eq!(again, src, "off {off} width {width}");
                for bit in (0..off).chain(off + width..32 * ones.len()) {
                    assert_eq!(ones[bit / 32] >> (bit % 32) & 1, 1, "off {off} width {width} bit {bit}");
                }
            }
        }
    }
}
