//! Meta-tests of the scoreboards (issue 22 §4): a Rust model with one planted deviation stands in for
//! both the model and the RTL, so the lockstep comparison sees no difference and only the block's
//! independent scoreboard can object. [`scoreboard_complaint`] runs such a bench and returns what the
//! scoreboard said.

use std::path::Path;

use inswitch_model::Block;

use crate::checker::{self, Bench, Failure, Monitor, Rtl, RunConfig, RunError, Stimulus};
use crate::HarnessError;

/// A Rust block standing in for the RTL (no waveform, no port widths).
pub struct AsRtl<B>(pub B);

impl<B: Block> Block for AsRtl<B> {
    type In = B::In;
    type Out = B::Out;
    fn step(&mut self, i: &B::In) -> B::Out {
        self.0.step(i)
    }
}

impl<B: Block> Rtl for AsRtl<B> {
    fn start_waveform(&mut self, _: &Path) -> Result<(), HarnessError> {
        Ok(())
    }
    fn stop_waveform(&mut self) {}
    fn port_width(&self, _: &str) -> Option<u32> {
        None
    }
}

/// A block whose outputs pass through `f` (the planted deviation), given the inputs of the cycle.
pub struct Mutant<B: Block, F> {
    /// The correct block.
    pub inner: B,
    /// Rewrites the outputs of one cycle.
    pub f: F,
}

impl<B: Block, F: FnMut(&B::In, &mut B::Out)> Block for Mutant<B, F> {
    type In = B::In;
    type Out = B::Out;
    fn step(&mut self, i: &B::In) -> B::Out {
        let mut o = self.inner.step(i);
        (self.f)(i, &mut o);
        o
    }
}

/// Builds a bench for a seed whose "RTL" is the model type itself.
pub type MakeBench<'a, M, S, Mon> = &'a dyn Fn(u64) -> Result<Bench<M, AsRtl<M>, S, Mon>, HarnessError>;

/// Runs `cycles` cycles of seed `seed` on the bench `make` builds, expecting the scoreboard to object;
/// returns its message. `Err` if the run passed or failed some other way (a lockstep mismatch means the
/// two sides were not the same mutant).
pub fn scoreboard_complaint<M, S, Mon>(
    name: &str,
    make: MakeBench<'_, M, S, Mon>,
    seed: u64,
    cycles: u64,
) -> Result<String, String>
where
    M: Block,
    S: Stimulus<M::In, M::Out>,
    Mon: Monitor<M::In, M::Out>,
{
    let dir = std::env::temp_dir().join(format!("inswitch-mutation-{name}"));
    let cfg = RunConfig { seed, cycles, wave_dir: dir };
    let reproduce = |seed: u64, cycles: u64| format!("mutation test {name}: seed {seed}, {cycles} cycles");
    match checker::run_target(name, &reproduce, make, &cfg, &mut |_| {}) {
        Ok(o) => Err(format!("{name}: the scoreboard accepted {} cycles of the planted deviation", o.cycles)),
        Err(RunError::Failed(report)) => match report.failure {
            Failure::Scoreboard { message, .. } => Ok(message),
            f => Err(format!("{name}: expected a scoreboard failure, got {f:?}")),
        },
        Err(e) => Err(format!("{name}: {e}")),
    }
}
