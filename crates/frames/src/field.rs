//! Field tables: one table of (name, bit offset, width) per frame layout, the single source the
//! zero-copy views read and the layout's lengths are derived from (issue 17 point 6).
//!
//! Bit offsets count from the most significant bit of byte 0 (network order, the order of the
//! diagrams in docs/frames.md and of deku's bit reader), so a table reads like the diagram left to
//! right. [`layout_len`] checks at compile time that a table covers every bit exactly once, in order.

/// One field of a layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The field's name (as in docs/frames.md and the JSON keys where they exist).
    pub name: &'static str,
    /// Offset of the field's most significant bit, in bits from the first bit of byte 0.
    pub offset: usize,
    /// Width in bits.
    pub width: u32,
}

/// Bits in a byte.
const BYTE_BITS: usize = 8;

impl Field {
    /// A field `width` bits wide at bit `offset`.
    pub const fn new(name: &'static str, offset: usize, width: u32) -> Field {
        Field { name, offset, width }
    }
    /// The bit after the field.
    pub const fn end(&self) -> usize {
        self.offset + self.width as usize
    }
    /// The same field in a layout embedded `bytes` bytes into an outer one.
    pub const fn at_byte(self, bytes: usize) -> Field {
        Field { name: self.name, offset: self.offset + bytes * BYTE_BITS, width: self.width }
    }
    /// Byte offset of a byte-aligned field.
    pub const fn byte_offset(&self) -> usize {
        self.offset / BYTE_BITS
    }
    /// Bit position of the field's least significant bit counted from the least significant bit of a
    /// `total_bits`-bit object (libfabric's numbering of the reduction header).
    pub const fn lsb(&self, total_bits: usize) -> usize {
        total_bits - self.end()
    }
    /// All-ones value of the field's width.
    pub const fn mask(&self) -> u64 {
        if self.width >= u64::BITS { u64::MAX } else { (1u64 << self.width) - 1 }
    }
    /// Reads the field (at most 64 bits wide) from `buf`; bytes past the end of `buf` read as zero
    /// (views check lengths once, in `new_checked`).
    #[inline]
    pub fn get(&self, buf: &[u8]) -> u64 {
        let first = self.offset / BYTE_BITS;
        let last = (self.end() - 1) / BYTE_BITS;
        let tail = (last + 1) * BYTE_BITS - self.end();
        // With the table's constants inlined, the span and shifts fold away: a field within eight
        // bytes is read as one u64 (the views' hot path); only an unaligned 64-bit field needs u128.
        let acc = match buf.get(first..=last) {
            Some(bytes) if bytes.len() <= u64::BITS as usize / BYTE_BITS => {
                let word = bytes.iter().fold(0u64, |acc, &b| acc << BYTE_BITS | u64::from(b));
                u128::from(word >> tail)
            }
            Some(bytes) => bytes.iter().fold(0u128, |acc, &b| acc << BYTE_BITS | u128::from(b)) >> tail,
            None => (first..=last).fold(0u128, |acc, i| acc << BYTE_BITS | u128::from(buf.get(i).copied().unwrap_or(0))) >> tail,
        };
        acc as u64 & self.mask()
    }
    /// Writes the low `width` bits of `value` into the field; bytes past the end of `buf` are skipped.
    pub fn set(&self, buf: &mut [u8], value: u64) {
        let first = self.offset / BYTE_BITS;
        let last = (self.end() - 1) / BYTE_BITS;
        let tail = (last + 1) * BYTE_BITS - self.end();
        let mask = u128::from(self.mask()) << tail;
        let bits = (u128::from(value) << tail) & mask;
        for i in first..=last {
            let shift = (last - i) * BYTE_BITS;
            if let Some(b) = buf.get_mut(i) {
                let m = (mask >> shift) as u8;
                *b = (*b & !m) | ((bits >> shift) as u8 & m);
            }
        }
    }
}

/// Length in bytes of a layout whose `fields` cover every bit once, in order, ending on a byte
/// boundary; a table that does not is a compile error where the length is a `const`.
pub const fn layout_len(fields: &[Field]) -> usize {
    let mut bit = 0;
    let mut rest = fields;
    while let [f, tail @ ..] = rest {
        assert!(f.offset == bit, "field table has a gap or an overlap");
        bit = f.end();
        rest = tail;
    }
    assert!(bit % BYTE_BITS == 0, "field table does not end on a byte boundary");
    bit / BYTE_BITS
}

/// The check every table gets: deku (the parser) and the table (the views) agree on every bit.
#[cfg(test)]
pub(crate) mod deku_check {
    use super::{layout_len, Field};
    use deku::{DekuContainerRead, DekuContainerWrite};

    /// A field value as the tables read it.
    pub(crate) fn u(v: impl Into<u64>) -> u64 {
        v.into()
    }

    // The byte source tests/roundtrip.rs uses too (a test file, not part of the crate's API). `include!`
    // rather than `#[path]`: a path from this inline module would start in src/field/deku_check/.
    mod xorshift {
        include!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/common/xorshift.rs"));
    }

    /// Random buffers of `len` bytes (xorshift, fixed seed).
    pub(crate) fn random_buffers(len: usize) -> impl Iterator<Item = Vec<u8>> {
        let mut bytes = xorshift::xorshift_bytes(0x2545_f491_4f6c_dd1d);
        (0..4000).map(move |_| bytes.by_ref().take(len).collect())
    }

    /// On random bytes: the table covers exactly deku's `len` bytes, its getters read the values deku
    /// reads (`values` lists them in table order), and setting them through the table rebuilds the
    /// bytes, as deku's writer does.
    pub(crate) fn check<T>(table: &[Field], len: usize, values: impl Fn(&T) -> Vec<u64>)
    where
        T: for<'a> DekuContainerRead<'a> + DekuContainerWrite,
    {
        assert_eq!(layout_len(table), len);
        for b in random_buffers(len) {
            let (_, parsed) = T::from_bytes((&b[..], 0)).expect("deku parses any bytes of this layout");
            let v = values(&parsed);
            assert_eq!(v.len(), table.len());
            let mut built = vec![0u8; len];
            for (f, v) in table.iter().zip(v) {
                assert_eq!(f.get(&b), v, "{} of {b:02x?}", f.name);
                f.set(&mut built, v);
            }
            assert_eq!(built, b);
            assert_eq!(parsed.to_bytes().expect("deku writes"), b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_and_set_read_network_bit_order() {
        // 0b101 at bits 3..6 of byte 0, a 12-bit field straddling bytes 0-1.
        let f = Field::new("f", 3, 3);
        let mut b = [0u8; 2];
        f.set(&mut b, 0b101);
        assert_eq!(b, [0b0001_0100, 0]);
        assert_eq!(f.get(&b), 0b101);
        let g = Field::new("g", 4, 12);
        g.set(&mut b, 0xabc);
        assert_eq!(b, [0b0001_1010, 0xbc]);
        assert_eq!(g.get(&b), 0xabc);
        assert_eq!(f.get(&b), 0b110);
        let w = Field::new("w", 4, 64);
        let mut c = [0u8; 9];
        w.set(&mut c, 0x0123_4567_89ab_cdef);
        assert_eq!(w.get(&c), 0x0123_4567_89ab_cdef);
        assert_eq!(c, [0x00, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0]);
    }

    #[test]
    fn layout_len_counts_contiguous_fields() {
        assert_eq!(layout_len(&[Field::new("a", 0, 3), Field::new("b", 3, 13)]), 2);
    }
}
