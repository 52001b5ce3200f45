//! A large, mostly clear table RAM stored in pages allocated on the first write of a non-clear value
//! (issue 23, docs/performance.md §Session 18). The interposer's multicast table has 8,192 entries at
//! the seeds' size, and an engine in a fabric arms a handful of them: stored flat, every engine
//! carried 16 KB that `PacketEngine::advance_idle`'s quiescence check cloned twice and compared. Only
//! the storage changes: every read answers what a flat table would, and clearing keeps the pages it
//! has (a reset makes no heap allocation, tests/zero_alloc.rs).

use std::fmt;

/// A table of `len` entries of `T`, all `T::default()` until written, in pages of `PAGE` entries.
#[derive(Clone)]
pub struct PagedTable<T: Copy + Default + PartialEq, const PAGE: usize> {
    len: usize,
    pages: Vec<Option<Box<[T; PAGE]>>>,
}

/// A table of no entries (no allocation; what `std::mem::take` leaves).
impl<T: Copy + Default + PartialEq, const PAGE: usize> Default for PagedTable<T, PAGE> {
    fn default() -> Self {
        PagedTable { len: 0, pages: Vec::new() }
    }
}

impl<T: Copy + Default + PartialEq, const PAGE: usize> PagedTable<T, PAGE> {
    /// `len` clear entries (no page allocated).
    pub fn new(len: usize) -> Self {
        PagedTable { len, pages: (0..len.div_ceil(PAGE)).map(|_| None).collect() }
    }

    /// Entries in the table.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entry `i` (panics past the end, as a slice would).
    #[inline]
    pub fn get(&self, i: usize) -> T {
        assert!(i < self.len, "paged table index {i} past {}", self.len);
        self.pages[i / PAGE].as_ref().map_or_else(T::default, |p| p[i % PAGE])
    }

    /// Writes entry `i`; a clear value written to a page never written stays unallocated.
    #[inline]
    pub fn set(&mut self, i: usize, v: T) {
        assert!(i < self.len, "paged table index {i} past {}", self.len);
        let slot = &mut self.pages[i / PAGE];
        match slot {
            Some(p) => p[i % PAGE] = v,
            None if v == T::default() => {}
            None => {
                let mut p = Box::new([T::default(); PAGE]);
                p[i % PAGE] = v;
                *slot = Some(p);
            }
        }
    }

    /// Every entry clear; the pages are kept (no allocation when they are written again).
    pub fn clear(&mut self) {
        for p in self.pages.iter_mut().flatten() {
            p.fill(T::default());
        }
    }

    /// Pages allocated (a measure of the storage, not of the contents).
    pub fn pages_allocated(&self) -> usize {
        self.pages.iter().filter(|p| p.is_some()).count()
    }
}

/// Equal contents: an unallocated page equals an allocated one that is all clear.
impl<T: Copy + Default + PartialEq, const PAGE: usize> PartialEq for PagedTable<T, PAGE> {
    fn eq(&self, other: &Self) -> bool {
        let clear = |p: &[T; PAGE]| p.iter().all(|&x| x == T::default());
        self.len == other.len
            && self.pages.iter().zip(&other.pages).all(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => a == b,
                (Some(p), None) | (None, Some(p)) => clear(p),
                (None, None) => true,
            })
    }
}

/// The entries that are not clear, as `index: value`.
impl<T: Copy + Default + PartialEq + fmt::Debug, const PAGE: usize> fmt::Debug for PagedTable<T, PAGE> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = (0..self.len).map(|i| (i, self.get(i))).filter(|&(_, v)| v != T::default());
        f.debug_struct("PagedTable").field("len", &self.len).field("set", &set.collect::<Vec<_>>()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::PagedTable;

    #[test]
    fn reads_as_a_flat_table_and_compares_by_contents() {
        // A fixed pseudo-random sequence of writes, clears and reads against a flat vector.
        let mut t = PagedTable::<u16, 8>::new(50);
        let mut flat = vec![0u16; 50];
        let mut x = 0x9e37_79b9_u32;
        for step in 0..5_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let i = (x % 50) as usize;
            // Every fourth write is a clear value, so pages hold zeros and some are never allocated.
            let v = if x >> 30 == 0 { 0 } else { (x >> 8) as u16 };
            if step % 997 == 0 {
                t.clear();
                flat.fill(0);
            } else {
                t.set(i, v);
                flat[i] = v;
            }
            assert_eq!((0..50).map(|k| t.get(k)).collect::<Vec<_>>(), flat);
        }
        // Same contents, different storage: equal; one entry apart: not.
        let mut a = PagedTable::<u16, 8>::new(50);
        let b = PagedTable::<u16, 8>::new(50);
        a.set(17, 3);
        assert_ne!(a, b);
        a.set(17, 0);
        assert_eq!(a.pages_allocated(), 1);
        assert_eq!(b.pages_allocated(), 0);
        assert_eq!(a, b);
        assert_eq!(b, a);
        // A clear value into an unallocated page allocates nothing.
        let mut c = PagedTable::<u16, 8>::new(50);
        c.set(40, 0);
        assert_eq!(c.pages_allocated(), 0);
        c.set(49, 1);
        assert_eq!((c.get(49), c.pages_allocated()), (1, 1));
    }

    #[test]
    #[should_panic(expected = "past")]
    fn an_index_past_the_end_panics_as_a_slice_would() {
        PagedTable::<u16, 8>::new(50).get(50);
    }
}
