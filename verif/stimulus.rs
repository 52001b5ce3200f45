//! Seeded stimulus building blocks shared by every block's generator.
//!
//! Everything random comes from one [`ChaCha8Rng`] seeded from the run's seed, so a seed reproduces a run
//! exactly. Traffic is shaped in *phases*: every few thousand cycles the generator draws a new profile
//! (how often sources idle, how often sinks stall, how long frames are), so one long run visits bursts,
//! trickles, long stalls and full-rate streaming, like verilog-pcie's idle and backpressure inserters.
//!
//! For the differential fuzzers (fuzz/, docs/verification.md §Differential fuzzing) the same generators
//! can draw their decisions from a fuzzer's input instead: [`with_choices`] makes every generator built
//! inside it read one byte of the input per draw (a *choice sequence*, as Hypothesis shrinks), so that
//! the fuzzer steers exactly the transactions the seeded stimulus would draw (frames, defects, gaps,
//! stalls, resets, configuration writes) while coverage guides it.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::rc::Rc;

use inswitch_model::Wide;
use rand::{RngExt, SeedableRng, TryRng};
use rand_chacha::ChaCha8Rng;

/// The generator every stimulus draws from: a seeded ChaCha8, or a fuzzer's choice sequence in front of
/// it ([`with_choices`]).
#[derive(Clone, Debug)]
pub struct StimRng {
    seeded: ChaCha8Rng,
    choices: Option<Rc<RefCell<Choices>>>,
}

/// A generator for `seed`, decorrelated per stream so two streams of one run differ. Inside
/// [`with_choices`], the generator draws from the installed choice sequence first.
pub fn rng(seed: u64, stream: u64) -> StimRng {
    let mut seeded = ChaCha8Rng::seed_from_u64(seed);
    seeded.set_stream(stream);
    StimRng { seeded, choices: CHOICES.with(|c| c.borrow().clone()) }
}

impl StimRng {
    /// Whether a fuzzer's choice sequence steers this generator (it was built inside [`with_choices`]).
    pub fn is_steered(&self) -> bool {
        self.choices.is_some()
    }
}

/// A fuzzer's input read as a choice sequence: one byte per draw of any generator built inside
/// [`with_choices`], in draw order. Byte 0x00 makes the draw 0 (the smallest value of a range, a
/// `random_bool` that comes out true: the rare branch), 0xFF makes it all ones, any other byte sets the
/// draw's top 8 bits (which pick the branch of a range or a probability) and the seeded generator fills
/// the low bits. Once the input is used up, draws come from the seeded generator alone.
#[derive(Debug, Default)]
pub struct Choices {
    bytes: Vec<u8>,
    next: usize,
}

impl Choices {
    /// Bytes of the input read so far.
    pub fn consumed(&self) -> usize {
        self.next
    }
    /// Whether every byte was read.
    pub fn exhausted(&self) -> bool {
        self.next >= self.bytes.len()
    }
    fn take(&mut self) -> Option<u8> {
        let b = self.bytes.get(self.next).copied();
        self.next += usize::from(b.is_some());
        b
    }
}

thread_local! {
    static CHOICES: RefCell<Option<Rc<RefCell<Choices>>>> = const { RefCell::new(None) };
}

/// Runs `build` (which builds a bench) with `bytes` installed as the choice sequence of every
/// generator it makes; those generators keep drawing from it after `build` returns. Returns what
/// `build` returned and a handle on the sequence (to see how much of it was used).
pub fn with_choices<T>(bytes: &[u8], build: impl FnOnce() -> T) -> (T, Rc<RefCell<Choices>>) {
    let c = Rc::new(RefCell::new(Choices { bytes: bytes.to_vec(), next: 0 }));
    let before = CHOICES.with(|slot| slot.replace(Some(c.clone())));
    let t = build();
    CHOICES.with(|slot| *slot.borrow_mut() = before);
    (t, c)
}

impl StimRng {
    fn choice(&mut self) -> Option<u8> {
        self.choices.as_ref().and_then(|c| c.borrow_mut().take())
    }
}

impl TryRng for StimRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(match self.choice() {
            None => rand::Rng::next_u32(&mut self.seeded),
            Some(0) => 0,
            Some(u8::MAX) => u32::MAX,
            Some(b) => u32::from(b) << 24 | rand::Rng::next_u32(&mut self.seeded) >> 8,
        })
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(match self.choice() {
            None => rand::Rng::next_u64(&mut self.seeded),
            Some(0) => 0,
            Some(u8::MAX) => u64::MAX,
            Some(b) => u64::from(b) << 56 | rand::Rng::next_u64(&mut self.seeded) >> 8,
        })
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        // Seeded runs draw exactly what the plain ChaCha8 draws (recorded seeds keep reproducing).
        if self.choices.is_none() {
            rand::Rng::fill_bytes(&mut self.seeded, dst);
            return Ok(());
        }
        for chunk in dst.chunks_mut(8) {
            let w = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
        Ok(())
    }
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

/// Cycles of reset at the start of a run ([`Resets`]).
pub const RESET_CYCLES: u64 = 4;
/// Probability per cycle of a reset pulse starting in the middle of traffic (a fault) ([`Resets`]).
pub const RESET_PROBABILITY: f64 = 2e-5;
/// The longest reset pulse in the middle of traffic, in cycles.
pub const RESET_PULSE_MAX: u64 = 3;

/// The `rst` input of a stimulus that resets in the middle of traffic: high for [`RESET_CYCLES`] at the
/// start, then for 1 to [`RESET_PULSE_MAX`] cycles from any cycle with probability [`RESET_PROBABILITY`].
#[derive(Clone, Debug)]
pub struct Resets {
    left: u64,
}

impl Resets {
    /// Starts with the run's first reset.
    pub fn new() -> Resets {
        Resets { left: RESET_CYCLES }
    }

    /// Whether `rst` is high this cycle (outside a pulse, draws whether one starts).
    pub fn tick(&mut self, r: &mut StimRng) -> bool {
        if self.left == 0 && r.random_bool(RESET_PROBABILITY) {
            self.left = r.random_range(1..=RESET_PULSE_MAX);
        }
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }
}

impl Default for Resets {
    fn default() -> Self {
        Resets::new()
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

/// `bytes` as AXI-stream beats of `kw` bytes, each (tdata, tkeep, tlast): the bytes past the frame's end
/// are random and outside tkeep. With probability `hole` per beat before the last, one byte of that
/// beat's tkeep is cleared (a malformed beat; no draw at all when `hole` is 0).
pub fn frame_beats(bytes: &[u8], kw: usize, hole: f64, r: &mut StimRng) -> VecDeque<(Wide, u64, bool)> {
    let n = bytes.len().max(1);
    let nb = n.div_ceil(kw);
    (0..nb)
        .map(|b| {
            let mut d = Wide::ZERO;
            let chunk = bytes.get(b * kw..((b + 1) * kw).min(bytes.len())).unwrap_or(&[]);
            for k in 0..kw {
                d.set_byte(k, chunk.get(k).copied().unwrap_or_else(|| r.random()));
            }
            let len = chunk.len().max(1);
            let mut keep = if len >= 64 { u64::MAX } else { (1u64 << len) - 1 };
            if hole > 0.0 && b + 1 < nb && r.random_bool(hole) {
                keep &= !(1 << r.random_range(0..kw));
            }
            (d, keep, b + 1 == nb)
        })
        .collect()
}
