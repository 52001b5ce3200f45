//! [`OutOfLine`]: a block's table kept on the heap rather than inline in the block, so that the registers
//! a block reads every cycle fit fewer cache lines. A fabric steps its 1,024 engines in turn, and each
//! step's first loads of an engine's state missed the caches (docs/performance.md §Session 19, the
//! engine's hot state). Unlike a `Box`, it can be emptied without an allocation ([`OutOfLine::take`]), so a
//! reset that rebuilds its block reuses the storage (a reset makes no heap allocation: issue 23,
//! tests/zero_alloc.rs).
use std::ops::{Deref, DerefMut};

/// A value on the heap. Empty only between [`OutOfLine::take`] and [`OutOfLine::refill`] (a reset).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OutOfLine<T>(Option<Box<T>>);

impl<T> OutOfLine<T> {
    /// `v` on the heap.
    pub fn new(v: T) -> Self {
        OutOfLine(Some(Box::new(v)))
    }

    /// Moves the storage out, leaving this one empty (no allocation).
    pub fn take(&mut self) -> Self {
        OutOfLine(self.0.take())
    }

    /// This storage holding `v` (an allocation only if it was empty).
    pub fn refill(mut self, v: T) -> Self {
        match &mut self.0 {
            Some(b) => **b = v,
            None => self.0 = Some(Box::new(v)),
        }
        self
    }
}

impl<T> Deref for OutOfLine<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.0.as_deref().expect("an OutOfLine is empty only inside a reset")
    }
}

impl<T> DerefMut for OutOfLine<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.0.as_deref_mut().expect("an OutOfLine is empty only inside a reset")
    }
}

#[cfg(test)]
mod tests {
    use super::OutOfLine;

    #[test]
    fn take_empties_and_refill_reuses_the_storage() {
        let mut a = OutOfLine::new([1u32; 8]);
        let p: *const [u32; 8] = &*a;
        let b = a.take().refill([2; 8]);
        assert_eq!(*b, [2; 8]);
        assert!(std::ptr::eq(p, &*b), "refill must reuse the taken storage");
        assert!(a.0.is_none());
        assert_eq!(a.refill([3; 8]), OutOfLine::new([3; 8]));
    }
}
