//! Cross coverage (issue 13 point 4): where one counter hides the space, a cross of several axes counts
//! every combination a run reached, says which combinations cannot happen by construction (each with
//! its reason), and lists the holes: combinations that can happen and did not.
//!
//! The bins of every cross are classified by literal definitions in the verification code (the opcode
//! and result-code tables of [`crate::sources`], the IEEE 754 binary64 encoding, the event tables of
//! `docs/blocks/cpu.md` and `docs/blocks/input_checker.md` written out in the blocks' monitors), never by the
//! model's decoders. A bin claimed unreachable that a run hits is reported too ([`Cross::excluded_hits`]):
//! the exclusion, not the run, is then wrong, and the tests fail on it.

use std::fmt::Write as _;

use serde_json::{json, Value};

/// One axis of a cross: its name and the names of its bins.
pub type Axis = (&'static str, &'static [&'static str]);

/// A cross of axes with a count per combination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cross {
    /// Name (crosses of the same name from several runs merge).
    pub name: &'static str,
    /// The axes, first is the slowest-varying in [`Cross::counts`].
    pub axes: Vec<Axis>,
    /// Hits per combination, row-major.
    pub counts: Vec<u64>,
    /// Per combination: `Some(reason)` when it is unreachable by construction.
    pub excluded: Vec<Option<&'static str>>,
}

/// Holes printed before "... and N more".
const HOLES_SHOWN: usize = 40;

impl Cross {
    /// A cross with no hit; `exclude` says, for a combination (one bin index per axis), why it cannot
    /// happen, or `None`.
    pub fn new(name: &'static str, axes: &[Axis], exclude: impl Fn(&[usize]) -> Option<&'static str>) -> Cross {
        let size: usize = axes.iter().map(|(_, b)| b.len()).product();
        let mut c = Cross { name, axes: axes.to_vec(), counts: vec![0; size], excluded: vec![None; size] };
        for flat in 0..size {
            let idx = c.unflatten(flat);
            c.excluded[flat] = exclude(&idx);
        }
        c
    }

    fn flatten(&self, idx: &[usize]) -> usize {
        debug_assert_eq!(idx.len(), self.axes.len());
        idx.iter().zip(&self.axes).fold(0, |acc, (&i, (_, bins))| acc * bins.len() + i.min(bins.len() - 1))
    }

    fn unflatten(&self, mut flat: usize) -> Vec<usize> {
        let mut idx = vec![0; self.axes.len()];
        for (k, (_, bins)) in self.axes.iter().enumerate().rev() {
            idx[k] = flat % bins.len();
            flat /= bins.len();
        }
        idx
    }

    /// Counts one hit of a combination (one bin index per axis).
    pub fn hit(&mut self, idx: &[usize]) {
        let f = self.flatten(idx);
        self.counts[f] += 1;
    }

    /// Hits of a combination.
    pub fn count(&self, idx: &[usize]) -> u64 {
        self.counts[self.flatten(idx)]
    }

    /// `name=bin` for each axis of a combination, joined by ` x `.
    pub fn label(&self, idx: &[usize]) -> String {
        idx.iter().zip(&self.axes).map(|(&i, (a, b))| format!("{a}={}", b[i])).collect::<Vec<_>>().join(" x ")
    }

    /// Combinations in total.
    pub fn bins(&self) -> usize {
        self.counts.len()
    }

    /// Combinations unreachable by construction.
    pub fn excluded_count(&self) -> usize {
        self.excluded.iter().filter(|e| e.is_some()).count()
    }

    /// Reachable combinations hit at least once.
    pub fn hit_count(&self) -> usize {
        self.counts.iter().zip(&self.excluded).filter(|(&c, e)| c > 0 && e.is_none()).count()
    }

    /// Reachable combinations never hit, where `keep` accepts them (e.g. one width only).
    pub fn holes_where(&self, keep: impl Fn(&[usize]) -> bool) -> Vec<Vec<usize>> {
        (0..self.bins())
            .filter(|&f| self.counts[f] == 0 && self.excluded[f].is_none())
            .map(|f| self.unflatten(f))
            .filter(|idx| keep(idx))
            .collect()
    }

    /// Reachable combinations never hit.
    pub fn holes(&self) -> Vec<Vec<usize>> {
        self.holes_where(|_| true)
    }

    /// Reachable combinations hit fewer than `min` times, where `keep` accepts them.
    pub fn below(&self, min: u64, keep: impl Fn(&[usize]) -> bool) -> Vec<(Vec<usize>, u64)> {
        (0..self.bins())
            .filter(|&f| self.counts[f] < min && self.excluded[f].is_none())
            .map(|f| (self.unflatten(f), self.counts[f]))
            .filter(|(idx, _)| keep(idx))
            .collect()
    }

    /// Combinations claimed unreachable that were hit: (combination, hits, the claim).
    pub fn excluded_hits(&self) -> Vec<(Vec<usize>, u64, &'static str)> {
        (0..self.bins()).filter_map(|f| self.excluded[f].filter(|_| self.counts[f] > 0).map(|r| (self.unflatten(f), self.counts[f], r))).collect()
    }

    /// Adds another run's hits (same name and axes; a different cross is ignored).
    pub fn merge(&mut self, other: &Cross) {
        if other.name == self.name && other.axes == self.axes {
            for (a, b) in self.counts.iter_mut().zip(&other.counts) {
                *a += b;
            }
        }
    }

    /// The crosses of many runs merged by name, in order of first appearance.
    pub fn merge_all<'a>(crosses: impl IntoIterator<Item = &'a Cross>) -> Vec<Cross> {
        let mut out: Vec<Cross> = Vec::new();
        for c in crosses {
            match out.iter_mut().find(|o| o.name == c.name && o.axes == c.axes) {
                Some(o) => o.merge(c),
                None => out.push(c.clone()),
            }
        }
        out
    }

    /// The bins as text: the summary line, the hit combinations, the exclusions by reason, the holes.
    pub fn report(&self, all_bins: bool) -> String {
        let mut s = String::new();
        let axes: Vec<String> = self.axes.iter().map(|(a, b)| format!("{a}({})", b.len())).collect();
        let holes = self.holes();
        let _ = writeln!(
            s,
            "cross {}: {}: {} bins, {} unreachable by construction, {} of {} reachable hit, {} holes",
            self.name,
            axes.join(" x "),
            self.bins(),
            self.excluded_count(),
            self.hit_count(),
            self.bins() - self.excluded_count(),
            holes.len()
        );
        if all_bins {
            for f in (0..self.bins()).filter(|&f| self.counts[f] > 0) {
                let _ = writeln!(s, "  {:>10}  {}", self.counts[f], self.label(&self.unflatten(f)));
            }
        }
        let mut reasons: Vec<(&str, usize)> = Vec::new();
        for r in self.excluded.iter().flatten() {
            match reasons.iter_mut().find(|(x, _)| x == r) {
                Some((_, n)) => *n += 1,
                None => reasons.push((r, 1)),
            }
        }
        for (r, n) in reasons {
            let _ = writeln!(s, "  unreachable: {n:>4} bins: {r}");
        }
        for (idx, n, r) in self.excluded_hits() {
            let _ = writeln!(s, "  EXCLUDED BUT HIT {n} times: {} (claimed: {r})", self.label(&idx));
        }
        for idx in holes.iter().take(HOLES_SHOWN) {
            let _ = writeln!(s, "  hole: {}", self.label(idx));
        }
        if holes.len() > HOLES_SHOWN {
            let _ = writeln!(s, "  ... and {} more holes", holes.len() - HOLES_SHOWN);
        }
        s
    }

    /// The cross as JSON: axes, totals, the hit bins with counts, the holes, the exclusions.
    pub fn to_json(&self) -> Value {
        let names = |idx: &[usize]| -> Vec<&str> { idx.iter().zip(&self.axes).map(|(&i, (_, b))| b[i]).collect() };
        let hit: Vec<Value> = (0..self.bins())
            .filter(|&f| self.counts[f] > 0)
            .map(|f| json!({"bin": names(&self.unflatten(f)), "count": self.counts[f]}))
            .collect();
        let holes: Vec<Value> = self.holes().iter().map(|idx| json!(names(idx))).collect();
        let excluded: Vec<Value> = (0..self.bins())
            .filter_map(|f| self.excluded[f].map(|r| json!({"bin": names(&self.unflatten(f)), "reason": r, "count": self.counts[f]})))
            .collect();
        json!({
            "name": self.name,
            "axes": self.axes.iter().map(|(a, b)| json!({"name": a, "bins": b})).collect::<Vec<_>>(),
            "bins": self.bins(),
            "unreachable": self.excluded_count(),
            "reachable_hit": self.hit_count(),
            "hit": hit,
            "holes": holes,
            "excluded": excluded,
        })
    }
}
