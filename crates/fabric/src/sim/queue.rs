//! The event queue: a radix heap keyed by time (picoseconds), first in first out among events of the
//! same time, which is the order the B-tree it replaces kept (by (time, order of scheduling)).
//!
//! Why: at 64,512 end nodes the queue holds an event per end node, and the B-tree's insert walked
//! nodes out of the caches (docs/performance.md §Session 19). Here a push appends to one of 65
//! buckets (by the highest bit in which its time differs from the last popped time) and a pop takes
//! the front of bucket 0 (the events at the last popped time), refilling it from the first non-empty
//! bucket when it is empty: each event moves down at most 64 times, in sequential scans.
//!
//! Why the order is exact: a bucket is only refilled while it is empty (every bucket below the one
//! being spread is empty), so each bucket holds one spread (in the order of its source) followed by
//! pushes (scheduled later than anything queued before them); by induction every bucket, and so
//! bucket 0, is in order of scheduling. An event scheduled earlier than the last popped time (nothing
//! in the fabric does, but nothing forbids it) goes to a B-tree of late events, popped first.

use std::collections::{BTreeMap, VecDeque};

use crate::topology::Ps;

/// Buckets: 0 for the last popped time, then one per bit of a `Ps` in which a time differs from it.
const BUCKETS: usize = Ps::BITS as usize + 1;

/// A queue of `V` by time, FIFO within a time; each entry carries its order of scheduling (`u64`,
/// increasing), which the caller uses as part of the entry's identity.
pub(super) struct EventQueue<V> {
    /// The last popped time: every entry in `buckets` is at or after it.
    last: Ps,
    /// Bucket 0: entries at `last`, in order; bucket `b` > 0: entries whose time differs from `last`
    /// first in bit `b - 1`.
    zero: VecDeque<(Ps, u64, V)>,
    buckets: Vec<Vec<(Ps, u64, V)>>,
    /// Bit `b` set: `buckets[b]` is not empty.
    occupied: u128,
    /// Entries scheduled before `last`, by (time, order).
    late: BTreeMap<(Ps, u64), V>,
    len: usize,
    /// The latest entry (time, order, value), while the queue is not empty.
    max: Option<(Ps, u64, V)>,
}

impl<V: Copy> EventQueue<V> {
    pub(super) fn new() -> Self {
        EventQueue { last: 0, zero: VecDeque::new(), buckets: (0..BUCKETS).map(|_| Vec::new()).collect(), occupied: 0, late: BTreeMap::new(), len: 0, max: None }
    }

    fn bucket(&self, t: Ps) -> usize {
        (Ps::BITS - (t ^ self.last).leading_zeros()) as usize
    }

    /// Queues `v` at `t` with order `order` (larger than every order queued before).
    pub(super) fn push(&mut self, t: Ps, order: u64, v: V) {
        self.len += 1;
        if self.max.is_none_or(|(mt, mo, _)| (t, order) > (mt, mo)) {
            self.max = Some((t, order, v));
        }
        if t < self.last {
            self.late.insert((t, order), v);
            return;
        }
        match self.bucket(t) {
            0 => self.zero.push_back((t, order, v)),
            b => {
                self.buckets[b].push((t, order, v));
                self.occupied |= 1 << b;
            }
        }
    }

    /// Moves the earliest time's entries into bucket 0 if it is empty (spreading the first non-empty
    /// bucket below its minimum).
    fn refill(&mut self) {
        if !self.zero.is_empty() || self.occupied == 0 {
            return;
        }
        let b = self.occupied.trailing_zeros() as usize;
        let mut spread = std::mem::take(&mut self.buckets[b]);
        self.occupied &= !(1 << b);
        self.last = spread.iter().map(|e| e.0).min().expect("an occupied bucket has entries");
        for e in spread.drain(..) {
            match self.bucket(e.0) {
                0 => self.zero.push_back(e),
                k => {
                    self.buckets[k].push(e);
                    self.occupied |= 1 << k;
                }
            }
        }
        // Keep the emptied bucket's allocation for its next entries.
        self.buckets[b] = spread;
    }

    /// The first entry (time, order, value).
    pub(super) fn first(&mut self) -> Option<(Ps, u64, V)> {
        if let Some((&(t, o), &v)) = self.late.first_key_value() {
            return Some((t, o, v));
        }
        self.refill();
        self.zero.front().copied()
    }

    /// Takes the first entry.
    pub(super) fn pop(&mut self) -> Option<(Ps, u64, V)> {
        let e = match self.late.pop_first() {
            Some(((t, o), v)) => Some((t, o, v)),
            None => {
                self.refill();
                self.zero.pop_front()
            }
        };
        if e.is_some() {
            self.len -= 1;
            // The latest entry leaves only as the last one (orders are distinct).
            if self.len == 0 {
                self.max = None;
            }
        }
        e
    }

    /// The latest entry (time, order, value).
    pub(super) fn last(&self) -> Option<(Ps, u64, V)> {
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::EventQueue;
    use std::collections::BTreeMap;

    /// Against the B-tree by (time, order) it replaced: random pushes (near, far, equal and late times)
    /// interleaved with pops, first and last compared at every step.
    #[test]
    fn pops_in_the_b_trees_order() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut q, mut b) = (EventQueue::new(), BTreeMap::new());
        let (mut order, mut now) = (0u64, 0u64);
        for _ in 0..200_000 {
            let r = rnd();
            if r % 5 < 3 {
                let t = match r >> 8 & 7 {
                    0 => now,
                    1 => now.saturating_sub(r >> 20 & 0xFF),
                    2 => now + (r >> 20 & 0xFFFF_FFFF),
                    _ => now + (r >> 20 & 0x3FFF),
                };
                order += 1;
                q.push(t, order, r as u32);
                b.insert((t, order), r as u32);
            } else {
                let want = b.pop_first().map(|((t, o), v)| (t, o, v));
                assert_eq!(q.first(), want);
                assert_eq!(q.pop(), want);
                if let Some((t, _, _)) = want {
                    now = t;
                }
            }
            assert_eq!(q.last(), b.last_key_value().map(|(&(t, o), &v)| (t, o, v)));
        }
        while let Some(((t, o), v)) = b.pop_first() {
            assert_eq!(q.pop(), Some((t, o, v)));
        }
        assert_eq!(q.pop(), None);
    }
}
