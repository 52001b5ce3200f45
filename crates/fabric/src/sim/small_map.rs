//! A map from a 16-bit key to a value kept as an inline list: an end node holds one context per
//! collective it takes part in (one or two at a time), and a heap hash table per end node was, at
//! 64,512 end nodes, a heap table per node out of the caches on every message (docs/performance.md
//! §Session 18). The first entry is kept inline, further ones in a list scanned linearly.

/// A small map keyed by a `u16` (the fabric's CC_ID): the first entry inline (in the end node's own
/// state, no heap line to miss), any more in a list.
#[derive(Clone, Debug)]
pub(super) struct SmallMap<V> {
    one: Option<(u16, V)>,
    more: Vec<(u16, V)>,
}

/// An empty map (no allocation until a second key is inserted).
impl<V> Default for SmallMap<V> {
    fn default() -> Self {
        SmallMap { one: None, more: Vec::new() }
    }
}

impl<V> SmallMap<V> {
    /// The value of `k`.
    pub(super) fn get(&self, k: &u16) -> Option<&V> {
        match &self.one {
            Some((x, v)) if x == k => Some(v),
            _ => self.more.iter().find(|(x, _)| x == k).map(|(_, v)| v),
        }
    }

    /// The value of `k`, mutable.
    pub(super) fn get_mut(&mut self, k: &u16) -> Option<&mut V> {
        match &mut self.one {
            Some((x, v)) if x == k => Some(v),
            _ => self.more.iter_mut().find(|(x, _)| x == k).map(|(_, v)| v),
        }
    }

    /// Sets `k` to `v`, returning the value it replaces (as `HashMap::insert`).
    pub(super) fn insert(&mut self, k: u16, v: V) -> Option<V> {
        if let Some(old) = self.get_mut(&k) {
            return Some(std::mem::replace(old, v));
        }
        if self.one.is_none() {
            self.one = Some((k, v));
        } else {
            self.more.push((k, v));
        }
        None
    }

    /// Removes `k`, returning its value.
    pub(super) fn remove(&mut self, k: &u16) -> Option<V> {
        if self.one.as_ref().is_some_and(|(x, _)| x == k) {
            return self.one.take().map(|(_, v)| v);
        }
        let i = self.more.iter().position(|(x, _)| x == k)?;
        Some(self.more.swap_remove(i).1)
    }
}

#[cfg(test)]
mod tests {
    use super::SmallMap;

    #[test]
    fn behaves_as_a_hash_map() {
        let mut m = SmallMap::default();
        let mut h = std::collections::HashMap::new();
        // A fixed pseudo-random sequence of operations on a few keys, both maps answering alike.
        let mut x = 0x2545_f491_u32;
        for _ in 0..2_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let k = (x % 7) as u16;
            match (x >> 8) % 3 {
                0 => assert_eq!(m.insert(k, x), h.insert(k, x)),
                1 => assert_eq!(m.remove(&k), h.remove(&k)),
                _ => {
                    if let Some(v) = m.get_mut(&k) {
                        *v += 1;
                    }
                    if let Some(v) = h.get_mut(&k) {
                        *v += 1;
                    }
                }
            }
            for k in 0..7 {
                assert_eq!(m.get(&k), h.get(&k));
            }
        }
    }
}
