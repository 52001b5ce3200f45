//! Port values shared by the block models and the co-simulation harness.
//!
//! Verilator stores a port of width `w` as `u8` (w <= 8), `u16` (w <= 16), `u32` (w <= 32), `u64`
//! (w <= 64) or `VlWide<N>` (32-bit words, word 0 = bits 31:0). The harness moves every port through the
//! same little-endian 32-bit word form, which is what [`Signal`] converts to and from.
//!
//! A leaf module: the collective message ([`crate::message`]) is built from these values and the port
//! lists ([`crate::signal`]) from both.

use core::fmt;

/// Largest port width, in bits, that a [`Wide`] value holds (a 512-bit AXI-stream data bus).
pub const WIDE_MAX_BITS: usize = 512;
/// 32-bit words in the largest port; the size of the scratch buffer the harness passes to [`Signal`].
pub const MAX_PORT_WORDS: usize = WIDE_MAX_BITS / 32;

/// A value that can sit on an RTL port.
pub trait Signal: Copy + Default + PartialEq + fmt::Debug {
    /// How many bits the type holds: an RTL port bound to it may be at most this wide.
    const BITS: usize;
    /// Writes the value as little-endian 32-bit words (`words[0]` = bits 31:0). Bits above the value's
    /// width are written as zero; `words` may be shorter than the value (the port is narrower).
    fn to_words(&self, words: &mut [u32]);
    /// Reads the value back from little-endian 32-bit words; missing words read as zero.
    fn from_words(words: &[u32]) -> Self;
    /// The value's low 64 bits: [`Signal::to_words`]'s first two words without a word buffer (the packed
    /// C ABI cycle reads every port of 64 bits or less so, `registry/packed.rs`).
    #[inline(always)]
    fn low_u64(&self) -> u64 {
        let mut w = [0u32; 2];
        self.to_words(&mut w);
        u64::from(w[0]) | u64::from(w[1]) << 32
    }
    /// [`Signal::from_words`] of a value of 64 bits or less, without a word buffer.
    #[inline(always)]
    fn from_low_u64(v: u64) -> Self {
        Self::from_words(&[v as u32, (v >> 32) as u32])
    }
    /// Sets the value's low 64 bits to `v` (cut to the type, as [`Signal::from_low_u64`]) and keeps its
    /// bits above 64: for a type wider than 64 bits, one store instead of a whole value built and copied.
    #[inline(always)]
    fn set_low_u64(&mut self, v: u64) {
        *self = Self::from_low_u64(v);
    }
}

impl Signal for bool {
    const BITS: usize = 1;
    fn to_words(&self, words: &mut [u32]) {
        words[0] = u32::from(*self);
    }
    fn from_words(words: &[u32]) -> Self {
        words[0] & 1 != 0
    }
    #[inline(always)]
    fn low_u64(&self) -> u64 {
        u64::from(*self)
    }
    #[inline(always)]
    fn from_low_u64(v: u64) -> Self {
        v & 1 != 0
    }
}

macro_rules! impl_signal_uint {
    ($($t:ty),*) => {$(
        impl Signal for $t {
            const BITS: usize = <$t>::BITS as usize;
            fn to_words(&self, words: &mut [u32]) {
                let v = u64::from(*self);
                for (i, w) in words.iter_mut().enumerate() {
                    *w = if i < 2 { (v >> (32 * i)) as u32 } else { 0 };
                }
            }
            fn from_words(words: &[u32]) -> Self {
                let lo = u64::from(words.first().copied().unwrap_or(0));
                let hi = u64::from(words.get(1).copied().unwrap_or(0));
                // Truncation is the port semantics: a port narrower than the type keeps its low bits.
                (lo | (hi << 32)) as $t
            }
            #[inline(always)]
            fn low_u64(&self) -> u64 {
                u64::from(*self)
            }
            #[inline(always)]
            fn from_low_u64(v: u64) -> Self {
                v as $t
            }
        }
    )*};
}
impl_signal_uint!(u8, u16, u32, u64);

/// A wide bit vector (up to [`WIDE_MAX_BITS`] bits), little-endian in 64-bit limbs: the AXI-stream data
/// bus. Its width is a block parameter, so the value itself does not carry one; unused high bits are 0.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Wide(pub [u64; WIDE_MAX_BITS / 64]);

impl Wide {
    /// All-zero value.
    pub const ZERO: Wide = Wide([0; WIDE_MAX_BITS / 64]);

    /// Byte `i` (little-endian: byte 0 = bits 7:0, the first byte on the wire of an AXI-stream beat).
    pub fn byte(&self, i: usize) -> u8 {
        (self.0[i / 8] >> (8 * (i % 8))) as u8
    }

    /// Sets byte `i`.
    pub fn set_byte(&mut self, i: usize, v: u8) {
        let sh = 8 * (i % 8);
        self.0[i / 8] = (self.0[i / 8] & !(0xff << sh)) | (u64::from(v) << sh);
    }

    /// Keeps only the low `bits` bits.
    #[inline]
    pub fn truncated(mut self, bits: usize) -> Wide {
        for (i, limb) in self.0.iter_mut().enumerate() {
            let lo = i * 64;
            if lo >= bits {
                *limb = 0;
            } else if bits - lo < 64 {
                *limb &= (1u64 << (bits - lo)) - 1;
            }
        }
        self
    }
}

impl fmt::Debug for Wide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0x")?;
        let top = self.0.iter().rposition(|&l| l != 0).unwrap_or(0);
        write!(f, "{:x}", self.0[top])?;
        for limb in self.0[..top].iter().rev() {
            write!(f, "_{limb:016x}")?;
        }
        Ok(())
    }
}

impl Signal for Wide {
    const BITS: usize = WIDE_MAX_BITS;
    #[inline]
    fn to_words(&self, words: &mut [u32]) {
        for (i, w) in words.iter_mut().enumerate() {
            *w = self.0.get(i / 2).map_or(0, |l| (l >> (32 * (i % 2))) as u32);
        }
    }
    #[inline]
    fn from_words(words: &[u32]) -> Self {
        let mut v = Wide::ZERO;
        for (i, w) in words.iter().enumerate().take(MAX_PORT_WORDS) {
            v.0[i / 2] |= u64::from(*w) << (32 * (i % 2));
        }
        v
    }
    #[inline(always)]
    fn low_u64(&self) -> u64 {
        self.0[0]
    }
    #[inline(always)]
    fn from_low_u64(v: u64) -> Self {
        let mut w = Wide::ZERO;
        w.0[0] = v;
        w
    }
    #[inline(always)]
    fn set_low_u64(&mut self, v: u64) {
        self.0[0] = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_words_round_trip_and_byte_order() {
        let mut v = Wide::ZERO;
        for i in 0..64 {
            v.set_byte(i, i as u8 + 1);
        }
        let mut words = [0u32; MAX_PORT_WORDS];
        v.to_words(&mut words);
        assert_eq!(words[0], 0x0403_0201);
        assert_eq!(words[15], 0x403f_3e3d);
        assert_eq!(Wide::from_words(&words), v);
        assert_eq!(v.byte(9), 10);
        let t = v.truncated(72);
        assert_eq!(t.0[1], 0x09);
        assert_eq!(t.0[2], 0);
    }

    #[test]
    fn low_u64_agrees_with_the_word_form() {
        // The packed C ABI cycle's shortcut (`low_u64`, `from_low_u64`) must be `to_words`/`from_words`.
        fn check<S: Signal>(v: u64) {
            let s = S::from_words(&[v as u32, (v >> 32) as u32]);
            assert_eq!(S::from_low_u64(v), s, "{v:#x}");
            let mut w = [0u32; 2];
            s.to_words(&mut w);
            assert_eq!(s.low_u64(), u64::from(w[0]) | u64::from(w[1]) << 32, "{v:#x}");
        }
        for v in [0, 1, 2, 0xff, 0x1ff, 0xffff_ffff, 0x1_0000_0001, 0x8000_0000_0000_0000, u64::MAX] {
            check::<bool>(v);
            check::<u8>(v);
            check::<u16>(v);
            check::<u32>(v);
            check::<u64>(v);
            check::<Wide>(v);
        }
    }

    #[test]
    fn set_low_u64_keeps_the_bits_above_64() {
        // The packed cycle's in-place write of a bus of 64 bits or less (`registry/packed.rs`): a `Wide`
        // keeps its limbs above the first, the narrower types are `from_low_u64`.
        let mut w = Wide::ZERO;
        w.0[1] = 7;
        w.0[7] = 9;
        w.set_low_u64(0x1234_5678_9abc_def0);
        assert_eq!(w.0[0], 0x1234_5678_9abc_def0);
        assert_eq!((w.0[1], w.0[7]), (7, 9));
        let mut b = 0xffu8;
        b.set_low_u64(0x1_02);
        assert_eq!(b, 2);
        let mut t = false;
        t.set_low_u64(3);
        assert!(t);
    }

    #[test]
    fn narrow_ports_truncate_like_verilator() {
        let mut w = [0u32; 2];
        0x1_2345_6789u64.to_words(&mut w);
        assert_eq!(w, [0x2345_6789, 1]);
        assert_eq!(u16::from_words(&w), 0x6789);
        assert!(bool::from_words(&[3]));
    }
}
