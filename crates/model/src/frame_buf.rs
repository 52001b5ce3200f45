//! A frame assembled in a fixed-size buffer on the stack: the builders' step paths use it instead of a
//! `Vec<u8>`, so that a cycle which builds a frame makes no heap allocation (issue 23,
//! `tests/zero_alloc.rs`). It has the few `Vec` methods the builders write with, and reads as a slice.

use core::ops::Deref;

/// Up to `N` bytes, filled from the front.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Default for FrameBuf<N> {
    fn default() -> Self {
        FrameBuf { bytes: [0; N], len: 0 }
    }
}

impl<const N: usize> FrameBuf<N> {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one byte. Panics past `N` bytes: the builders size `N` to their largest frame, so that is
    /// a model bug, not an input.
    pub fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }

    /// Appends `s`. Panics past `N` bytes, as [`FrameBuf::push`].
    pub fn extend_from_slice(&mut self, s: &[u8]) {
        self.bytes[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
    }
}

impl<const N: usize> Deref for FrameBuf<N> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::FrameBuf;

    #[test]
    fn reads_back_what_was_written() {
        let mut f = FrameBuf::<8>::new();
        f.push(1);
        f.extend_from_slice(&[2, 3, 4]);
        assert_eq!(&*f, &[1, 2, 3, 4]);
        assert_eq!(f.len(), 4);
        assert_eq!(f.to_vec(), vec![1, 2, 3, 4]);
    }

    #[test]
    #[should_panic]
    fn refuses_to_overflow() {
        let mut f = FrameBuf::<2>::new();
        f.extend_from_slice(&[1, 2, 3]);
    }
}
