//! Seeded stimulus building blocks shared by every block's generator.
//!
//! Everything random comes from one [`ChaCha8Rng`] seeded from the run's seed, so a seed reproduces a run
//! exactly. Traffic is shaped in *phases*: every few thousand cycles the generator draws a new profile
//! (how often sources idle, how often sinks stall, how long frames are), so one long run visits bursts,
//! trickles, long stalls and full-rate streaming, like verilog-pcie's idle and backpressure inserters.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator every stimulus draws from.
pub type StimRng = ChaCha8Rng;

/// A generator for `seed`, decorrelated per stream so two streams of one run differ.
pub fn rng(seed: u64, stream: u64) -> StimRng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// Shortest and longest phase, in cycles.
pub const PHASE_CYCLES: (u64, u64) = (500, 20_000);

/// How a source or sink behaves during one phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    /// Probability that a source with something to send stays idle this cycle.
    pub idle: f64,
    /// Probability that a sink stalls (ready low) this cycle.
    pub stall: f64,
    /// Probability that an idle or stall, once started, continues the next cycle (makes long gaps).
    pub persist: f64,
}

impl Profile {
    /// Draws a profile: full rate, light, heavy or near-blocked, each about equally likely.
    pub fn draw(r: &mut StimRng) -> Profile {
        const LEVELS: [f64; 4] = [0.0, 0.1, 0.5, 0.9];
        Profile {
            idle: LEVELS[r.random_range(0..LEVELS.len())],
            stall: LEVELS[r.random_range(0..LEVELS.len())],
            persist: [0.0, 0.5, 0.95][r.random_range(0..3)],
        }
    }
}

/// A two-state (run / gap) process: `gap()` says whether this cycle is a gap, with gaps that persist.
#[derive(Clone, Debug, Default)]
pub struct Gaps {
    in_gap: bool,
}

impl Gaps {
    /// Whether this cycle is a gap, for gap probability `p` and persistence `persist`.
    pub fn gap(&mut self, r: &mut StimRng, p: f64, persist: f64) -> bool {
        self.in_gap = if self.in_gap { r.random_bool(persist.max(p)) } else { r.random_bool(p) };
        self.in_gap
    }
}

/// Phase bookkeeping: when the current profile ends.
#[derive(Clone, Debug)]
pub struct Phases {
    /// The current profile.
    pub profile: Profile,
    left: u64,
    /// Phases started so far.
    pub count: u64,
}

impl Phases {
    /// Starts with a drawn profile.
    pub fn new(r: &mut StimRng) -> Phases {
        let mut p = Phases { profile: Profile::draw(r), left: 0, count: 0 };
        p.left = r.random_range(PHASE_CYCLES.0..=PHASE_CYCLES.1);
        p
    }

    /// Advances one cycle; returns true when a new phase started (and `profile` changed).
    pub fn tick(&mut self, r: &mut StimRng) -> bool {
        if self.left == 0 {
            self.profile = Profile::draw(r);
            self.left = r.random_range(PHASE_CYCLES.0..=PHASE_CYCLES.1);
            self.count += 1;
            return true;
        }
        self.left -= 1;
        false
    }
}

/// A `tkeep` for a beat of `bytes` bytes: contiguous from byte 0 on the last beat (a well-formed frame
/// end), all ones otherwise; with probability `malformed`, any pattern (including none).
pub fn tkeep(r: &mut StimRng, bytes: usize, last: bool, malformed: f64) -> u64 {
    let all = if bytes >= 64 { u64::MAX } else { (1u64 << bytes) - 1 };
    if r.random_bool(malformed) {
        r.random::<u64>() & all
    } else if last {
        let n = r.random_range(1..=bytes);
        if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
    } else {
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_same_numbers() {
        let a: Vec<u64> = (0..4).map({ let mut r = rng(7, 1); move |_| r.random() }).collect();
        let b: Vec<u64> = (0..4).map({ let mut r = rng(7, 1); move |_| r.random() }).collect();
        let c: Vec<u64> = (0..4).map({ let mut r = rng(7, 2); move |_| r.random() }).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn tkeep_last_beats_are_contiguous() {
        let mut r = rng(1, 0);
        for _ in 0..1000 {
            let k = tkeep(&mut r, 32, true, 0.0);
            assert!(k != 0 && (k + 1) & k == 0, "{k:#x} is not contiguous from bit 0");
            assert_eq!(tkeep(&mut r, 32, false, 0.0), 0xffff_ffff);
        }
    }

    #[test]
    fn gaps_persist() {
        let mut r = rng(3, 0);
        let mut g = Gaps::default();
        let runs: Vec<bool> = (0..10_000).map(|_| g.gap(&mut r, 0.01, 0.99)).collect();
        let gaps = runs.iter().filter(|&&x| x).count();
        assert!(gaps > 1000, "persistent gaps should dominate: {gaps}");
    }
}
