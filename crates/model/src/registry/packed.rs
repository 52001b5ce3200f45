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

/// A block's typed `In` or `Out` struct from a packed vector of its ports of widths `widths` (for a
/// typed consumer of packed values, e.g. a scoreboard fed from a waveform).
pub fn unpack<P: Ports>(bits: &[u32], widths: &[u32]) -> P {
    P::fill_ports(&mut Unpack::new(bits, &slots(widths)))
}

/// Where one port sits in a packed vector: bits `[32 * word + shift + width - 1 : 32 * word + shift]`.
/// Computed once per model ([`slots`]), so a cycle does no offset arithmetic per port.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    word: usize,
    shift: u32,
    width: u32,
    /// The low `width` bits (for ports of 64 bits or less).
    mask: u64,
}

/// The slots of ports of widths `widths`, packed in order from bit 0.
pub(super) fn slots(widths: &[u32]) -> Vec<Slot> {
    let mut off = 0usize;
    widths
        .iter()
        .map(|&width| {
            let s = Slot { word: off / 32, shift: (off % 32) as u32, width, mask: if width >= 64 { u64::MAX } else { (1u64 << width) - 1 } };
            off += width as usize;
            s
        })
        .collect()
}

/// Fills an `In` struct from a packed vector (monomorphised per port type: no dynamic dispatch per port).
pub(super) struct Unpack<'a> {
    bits: &'a [u32],
    slots: &'a [Slot],
}

impl<'a> Unpack<'a> {
    pub(super) fn new(bits: &'a [u32], slots: &'a [Slot]) -> Self {
        Unpack { bits, slots }
    }
}

impl PortFiller for Unpack<'_> {
    // Inlined into each block's `fill_ports`, so that a port's read is straight-line code there (a call
    // per port cost as much as the read).
    #[inline(always)]
    fn fill<S: Signal>(&mut self, index: usize) -> S {
        let s = self.slots[index];
        if s.width <= 64 {
            // The 96 bits from word `s.word` (words past the vector read as 0), shifted down; the third
            // word's part is shifted in two steps so that a shift of 0 drops it without a branch.
            let word = |k: usize| u64::from(self.bits.get(s.word + k).copied().unwrap_or(0));
            let v = ((word(0) | word(1) << 32) >> s.shift | (word(2) << 1) << (63 - s.shift)) & s.mask;
            return S::from_words(&[v as u32, (v >> 32) as u32]);
        }
        let mut w = [0u32; MAX_PORT_WORDS];
        read_bits(self.bits, 32 * s.word + s.shift as usize, s.width as usize, &mut w);
        S::from_words(&w[..s.width.div_ceil(32) as usize])
    }
}

/// ORs an `Out` struct into a packed vector (zeroed beforehand).
pub(super) struct Pack<'a> {
    bits: &'a mut [u32],
    slots: &'a [Slot],
}

impl<'a> Pack<'a> {
    /// Zeroes `bits`, then packs into it.
    pub(super) fn new(bits: &'a mut [u32], slots: &'a [Slot]) -> Self {
        for w in bits.iter_mut() {
            *w = 0;
        }
        Pack { bits, slots }
    }

    #[inline(always)]
    fn or(&mut self, k: usize, v: u32) {
        if let Some(d) = self.bits.get_mut(k) {
            *d |= v;
        }
    }
}

impl PortVisitor for Pack<'_> {
    #[inline(always)]
    fn visit<S: Signal>(&mut self, index: usize, value: &S) {
        let s = self.slots[index];
        if s.width <= 64 {
            let mut w = [0u32; 2];
            value.to_words(&mut w);
            let v = (u64::from(w[0]) | u64::from(w[1]) << 32) & s.mask;
            let (lo, hi) = (v << s.shift, (v >> 1) >> (63 - s.shift));
            self.or(s.word, lo as u32);
            self.or(s.word + 1, (lo >> 32) as u32);
            self.or(s.word + 2, hi as u32);
            return;
        }
        let n = s.width.div_ceil(32) as usize;
        let mut w = [0u32; MAX_PORT_WORDS];
        value.to_words(&mut w[..n]);
        if s.width % 32 != 0 {
            w[n - 1] &= (1u32 << (s.width % 32)) - 1;
        }
        for (k, v) in w[..n].iter().enumerate() {
            let x = u64::from(*v) << s.shift;
            self.or(s.word + k, x as u32);
            self.or(s.word + k + 1, (x >> 32) as u32);
        }
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
                if width % 32 != 0 {
                    *src.last_mut().unwrap() &= (1u32 << (width % 32)) - 1;
                }
                let mut packed = vec![0u32; (off + width).div_ceil(32)];
                write_bits(&mut packed, off, width, &v);
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
