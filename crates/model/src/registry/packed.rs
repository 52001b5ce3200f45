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
    P::fill_ports(&mut Unpack::new(bits, &slots(widths)[..]))
}

/// Where one port sits in a packed vector: bits `[32 * word + shift + width - 1 : 32 * word + shift]`.
/// Computed once per model ([`slots`]), or at compile time for a layout compiled in ([`fixed_slots`]), so
/// a cycle does no offset arithmetic per port.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    /// The low `width` bits (for ports of 64 bits or less).
    mask: u64,
    word: u32,
    /// 0..32.
    shift: u32,
    width: u32,
}

impl Slot {
    /// The port of `width` bits at bit `off`.
    const fn at(off: usize, width: u32) -> Slot {
        Slot { word: (off / 32) as u32, shift: (off % 32) as u32, width, mask: if width >= 64 { u64::MAX } else { (1u64 << width) - 1 } }
    }
}

/// The slots of ports of widths `widths`, packed in order from bit 0.
pub(super) fn slots(widths: &[u32]) -> Vec<Slot> {
    let mut off = 0usize;
    widths
        .iter()
        .map(|&width| {
            let s = Slot::at(off, width);
            off += width as usize;
            s
        })
        .collect()
}

/// [`slots`] at compile time, for a layout compiled in (`registry/layout.rs`).
pub(super) const fn fixed_slots<const N: usize>(widths: [u32; N]) -> [Slot; N] {
    let mut out = [Slot::at(0, 0); N];
    let (mut k, mut off) = (0, 0usize);
    while k < N {
        out[k] = Slot::at(off, widths[k]);
        off += widths[k] as usize;
        k += 1;
    }
    out
}

/// 32-bit words of the packed vector of ports of widths `widths` (a `const fn` for the compiled layouts).
pub(super) const fn packed_words(widths: &[u32]) -> usize {
    let (mut k, mut bits) = (0, 0usize);
    while k < widths.len() {
        bits += widths[k] as usize;
        k += 1;
    }
    bits.div_ceil(32)
}

/// Where the packer finds each port's slot: a run-time table (`&[Slot]`, one per model), or a table
/// compiled in, whose entries, read at indices that are constants once `fill_ports`/`visit_ports` are
/// inlined, fold into the code as constant shifts and masks.
pub(super) trait SlotTable: Copy {
    /// The slot of port `index`.
    fn slot(self, index: usize) -> Slot;
}

impl SlotTable for &[Slot] {
    #[inline(always)]
    fn slot(self, index: usize) -> Slot {
        self[index]
    }
}

// A port's value is read (and written) per Rust type of the port, the type's width known at compile time:
// a `bool` is one bit of one word, a port held in `u8`..`u32` (at most 32 bits from a shift under 32)
// lies within two words, one in `u64` or a `Wide` bus of 64 bits or less within three. Each reads its
// words as one fixed-size window with one bounds check, so that the common case is straight-line code.

/// Words `at..at + N` of `bits`; words past its end read as 0 (the ports lie within the buffer, checked
/// once per call; the window may still reach past it, unless the caller's buffer is wider than the ports,
/// as the generated SystemVerilog's vectors are).
#[inline(always)]
fn window<const N: usize>(bits: &[u32], at: usize) -> [u32; N] {
    match bits.get(at..at + N).and_then(|w| <[u32; N]>::try_from(w).ok()) {
        Some(w) => w,
        None => window_tail(bits, at),
    }
}

#[cold]
#[inline(never)]
fn window_tail<const N: usize>(bits: &[u32], at: usize) -> [u32; N] {
    let mut w = [0u32; N];
    for (k, d) in w.iter_mut().enumerate() {
        *d = bits.get(at + k).copied().unwrap_or(0);
    }
    w
}

/// ORs `v` into words `at..at + N` of `bits`; the words of `v` past its end are dropped (they are 0: the
/// ports lie within the buffer).
#[inline(always)]
fn or_window<const N: usize>(bits: &mut [u32], at: usize, v: [u32; N]) {
    match bits.get_mut(at..at + N) {
        Some(w) => {
            for (d, x) in w.iter_mut().zip(v) {
                *d |= x;
            }
        }
        None => or_tail(bits, at, v),
    }
}

#[cold]
#[inline(never)]
fn or_tail<const N: usize>(bits: &mut [u32], at: usize, v: [u32; N]) {
    for (k, x) in v.into_iter().enumerate() {
        if let Some(d) = bits.get_mut(at + k) {
            *d |= x;
        }
    }
}

/// Words `at..at + 4` of `bits` as two 64-bit halves (words past its end read as 0): the window of a port
/// of 64 bits or less at any shift, read straight into registers (a `[u32; 3]` went through the stack).
#[inline(always)]
fn window_u64s(bits: &[u32], at: usize) -> (u64, u64) {
    match bits.get(at..at + 4) {
        Some(&[a, b, c, d]) => (u64::from(a) | u64::from(b) << 32, u64::from(c) | u64::from(d) << 32),
        _ => {
            let [a, b, c, d] = window_tail::<4>(bits, at);
            (u64::from(a) | u64::from(b) << 32, u64::from(c) | u64::from(d) << 32)
        }
    }
}

/// ORs `lo` into words `at..at + 2` of `bits` and the low word of `hi` into word `at + 2` (the words of a
/// port of 64 bits or less at any shift); words past its end are dropped (they are 0: the ports lie within
/// the buffer).
#[inline(always)]
fn or_u64s(bits: &mut [u32], at: usize, lo: u64, hi: u32) {
    match bits.get_mut(at..at + 3) {
        Some([a, b, c]) => {
            *a |= lo as u32;
            *b |= (lo >> 32) as u32;
            *c |= hi;
        }
        _ => or_tail(bits, at, [lo as u32, (lo >> 32) as u32, hi]),
    }
}

/// Fills an `In` struct from a packed vector (monomorphised per port type: no dynamic dispatch per port).
pub(super) struct Unpack<'a, T: SlotTable> {
    bits: &'a [u32],
    slots: T,
}

impl<'a, T: SlotTable> Unpack<'a, T> {
    #[inline(always)]
    pub(super) fn new(bits: &'a [u32], slots: T) -> Self {
        Unpack { bits, slots }
    }
}

impl<T: SlotTable> Unpack<'_, T> {
    /// The value of a port of 64 bits or less.
    #[inline(always)]
    fn low_u64(&self, s: Slot) -> u64 {
        // The third word's part is shifted in two steps so that a shift of 0 drops it without a branch.
        let (lo, hi) = window_u64s(self.bits, s.word as usize);
        (lo >> s.shift | (hi << 1) << (63 - s.shift)) & s.mask
    }
}

impl<T: SlotTable> PortFiller for Unpack<'_, T> {
    // A bus held in a `Wide` (512 bits) but 64 bits wide or less gets its low 64 bits set in place, not a
    // 64-byte value built and copied: its bits above 64 are 0 in every value the caller's `In` struct
    // holds, since every write to the port (this, `port_from_words`, the default) is cut to its width.
    #[inline(always)]
    fn fill_in_place<S: Signal>(&mut self, index: usize, dst: &mut S) {
        let s = self.slots.slot(index);
        if S::BITS > 64 && s.width <= 64 {
            dst.set_low_u64(self.low_u64(s));
        } else {
            *dst = self.fill(index);
        }
    }

    // Inlined into each block's `fill_ports`, so that a port's read is straight-line code there (a call
    // per port cost as much as the read). The `S::BITS` tests are resolved at compile time.
    #[inline(always)]
    fn fill<S: Signal>(&mut self, index: usize) -> S {
        let s = self.slots.slot(index);
        let at = s.word as usize;
        if S::BITS == 1 {
            // `from_low_u64` keeps the type's one bit.
            let [a] = window::<1>(self.bits, at);
            return S::from_low_u64(u64::from(a >> s.shift));
        }
        if S::BITS <= 32 {
            let [a, b] = window::<2>(self.bits, at);
            return S::from_low_u64((u64::from(a) | u64::from(b) << 32) >> s.shift & s.mask);
        }
        if S::BITS <= 64 || s.width <= 64 {
            return S::from_low_u64(self.low_u64(s));
        }
        let mut w = [0u32; MAX_PORT_WORDS];
        read_bits(self.bits, 32 * at + s.shift as usize, s.width as usize, &mut w);
        S::from_words(&w[..s.width.div_ceil(32) as usize])
    }
}

/// Zeroes `bits`: the first eight words by two fixed-size stores, since a `memset` call for the few words of
/// a typical block (the generated SV passes 2 to 32) cost more than the packing of a port.
#[inline(always)]
pub(super) fn zero_words(bits: &mut [u32]) {
    let rest = match bits.split_first_chunk_mut::<8>() {
        Some((head, rest)) => {
            *head = [0; 8];
            rest
        }
        None => bits,
    };
    if !rest.is_empty() {
        rest.fill(0);
    }
}

/// ORs an `Out` struct into a packed vector (zeroed beforehand).
pub(super) struct Pack<'a, T: SlotTable> {
    bits: &'a mut [u32],
    slots: T,
}

impl<'a, T: SlotTable> Pack<'a, T> {
    /// Zeroes `bits`, then packs into it.
    #[inline(always)]
    pub(super) fn new(bits: &'a mut [u32], slots: T) -> Self {
        zero_words(bits);
        Pack { bits, slots }
    }

    /// Packs into `bits`, already zero.
    #[inline(always)]
    pub(super) fn onto_zeroed(bits: &'a mut [u32], slots: T) -> Self {
        Pack { bits, slots }
    }
}

impl<T: SlotTable> PortVisitor for Pack<'_, T> {
    #[inline(always)]
    fn visit<S: Signal>(&mut self, index: usize, value: &S) {
        let s = self.slots.slot(index);
        let at = s.word as usize;
        if S::BITS == 1 {
            or_window::<1>(self.bits, at, [(value.low_u64() as u32) << s.shift]);
            return;
        }
        if S::BITS <= 32 {
            let v = (value.low_u64() & s.mask) << s.shift;
            or_window::<2>(self.bits, at, [v as u32, (v >> 32) as u32]);
            return;
        }
        if S::BITS <= 64 || s.width <= 64 {
            let v = value.low_u64() & s.mask;
            let (lo, hi) = (v << s.shift, (v >> 1) >> (63 - s.shift));
            or_u64s(self.bits, at, lo, hi as u32);
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
            or_window::<2>(self.bits, at + k, [x as u32, (x >> 32) as u32]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::Wide;

    crate::ports! {
        /// One port of each kind the packer reads per Rust type.
        pub struct Mixed {
            /// One bit.
            pub a: bool,
            /// Held in a `u8`, narrower than it.
            pub b: u8,
            /// A bus of 64 bits or less.
            pub c: Wide,
            /// Held in a `u16`, narrower than it.
            pub d: u16,
            /// Held in a `u64`, narrower than it.
            pub e: u64,
            /// One bit.
            pub f: bool,
            /// A bus wider than 64 bits.
            pub g: Wide,
            /// Held in a `u32`, at its full width.
            pub h: u32,
        }
    }

    #[test]
    fn every_port_type_unpacks_and_packs_at_every_offset() {
        // Each port kind read and written straight from the packed words (`fill`, `visit`) must agree with
        // the word-by-word `read_bits`/`write_bits`, keep only the port's width, ignore the bits of its
        // neighbours and of the words past the ports, and write nothing past the ports.
        let base = [1u32, 3, 64, 11, 40, 1, 100, 32];
        let mut x = 0x2545_f491u32;
        // Filled in place over the previous offset's values, as the registry's `In` struct is every cycle.
        let mut held = Mixed::default();
        for lead in 0..40u32 {
            // A leading port of `lead` bits shifts every other port to a new offset.
            let widths: Vec<u32> = std::iter::once(lead.max(1)).chain(base).collect();
            let all = slots(&widths);
            let bits: usize = widths.iter().map(|&w| w as usize).sum();
            let words = bits.div_ceil(32);
            for pad in [0usize, 3] {
                // Random bits everywhere, the words past the ports included.
                let src: Vec<u32> = (0..words + pad)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        x
                    })
                    .collect();
                let got = Mixed::fill_ports(&mut Unpack::new(&src, &all[1..]));
                let mut want = Mixed::default();
                let mut off = lead.max(1) as usize;
                for (k, &w) in base.iter().enumerate() {
                    let mut v = [0u32; MAX_PORT_WORDS];
                    read_bits(&src, off, w as usize, &mut v);
                    want.port_from_words(k, &v);
                    off += w as usize;
                }
                assert_eq!(got, want, "lead {lead} pad {pad}");
                held.fill_ports_in_place(&mut Unpack::new(&src, &all[1..]));
                assert_eq!(held, want, "in place: lead {lead} pad {pad}");
                // Packed back (over ones) into exactly the words of the ports: the ports' bits as read,
                // the leading port's bits 0.
                let mut back = vec![u32::MAX; words + pad];
                got.visit_ports(&mut Pack::new(&mut back, &all[1..]));
                let mut expect = vec![0u32; words + pad];
                let mut off = lead.max(1) as usize;
                for (k, &w) in base.iter().enumerate() {
                    let mut v = [0u32; MAX_PORT_WORDS];
                    got.port_to_words(k, &mut v);
                    write_bits(&mut expect, off, w as usize, &v);
                    off += w as usize;
                }
                assert_eq!(back, expect, "lead {lead} pad {pad}");
            }
        }
    }

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
