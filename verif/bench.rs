//! The parts of a lockstep bench ([`Bench`]) and what they share: the RTL side ([`Rtl`]), the seeded
//! stimulus ([`Stimulus`]), the monitor with its scoreboard ([`Monitor`], [`TransactionLog`]), and port
//! values printed in hex ([`hex`]).
//!
//! This is the bottom of the harness: [`crate::checker`] (the lockstep run), [`crate::replay`],
//! [`crate::shrink`] and [`crate::wave_model`] all build on it and not on each other's types, so the
//! checker can use them without an import circle. `checker` re-exports these names, the paths the
//! blocks, tests and benches use.

use std::collections::VecDeque;
use std::path::Path;

use inswitch_model::{Block, Ports};

use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// Transactions kept for a failure report.
pub const RECENT_TRANSACTIONS: usize = 12;

/// The RTL side of a lockstep run: a [`Block`] that can also write waveforms.
pub trait Rtl: Block {
    /// Starts writing a waveform of every signal from the current cycle on.
    fn start_waveform(&mut self, path: &Path) -> Result<(), HarnessError>;
    /// Flushes and closes the waveform.
    fn stop_waveform(&mut self);
    /// Width in bits of a port, by name (to print values at their real width).
    fn port_width(&self, name: &str) -> Option<u32>;
}

impl<I: Ports, O: Ports> Rtl for VerilatedDut<I, O> {
    fn start_waveform(&mut self, path: &Path) -> Result<(), HarnessError> {
        VerilatedDut::start_waveform(self, path)
    }
    fn stop_waveform(&mut self) {
        VerilatedDut::stop_waveform(self)
    }
    fn port_width(&self, name: &str) -> Option<u32> {
        VerilatedDut::port_width(self, name)
    }
}

/// Produces the inputs of every cycle from a seed; sees the outputs of the cycle before (for handshakes).
pub trait Stimulus<I, O> {
    /// The inputs of the next cycle, given the outputs of the previous one (all-default on cycle 0).
    fn next(&mut self, previous: &O) -> I;
}

/// A line of the transaction log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transaction {
    /// Cycle it completed in.
    pub cycle: u64,
    /// What happened, in the block's terms.
    pub text: String,
}

/// Watches inputs and outputs: keeps counters and the recent transactions, and checks the block against
/// an independent transaction-level scoreboard.
pub trait Monitor<I, O> {
    /// Observes one cycle; an `Err` is a scoreboard failure.
    fn observe(&mut self, cycle: u64, inputs: &I, outputs: &O) -> Result<(), String>;
    /// The most recent transactions, oldest first.
    fn recent(&self) -> Vec<Transaction>;
    /// Named event counts (frames in/out, drops, resets ...), for the summary and coverage.
    fn counters(&self) -> Vec<(&'static str, u64)>;
    /// Cross coverage ([`crate::cross`]), for the monitors that keep some.
    fn cross(&self) -> Vec<crate::cross::Cross> {
        Vec::new()
    }
}

/// A bounded transaction log for monitors.
#[derive(Clone, Debug, Default)]
pub struct TransactionLog(VecDeque<Transaction>);

impl TransactionLog {
    /// Appends a transaction, forgetting the oldest beyond [`RECENT_TRANSACTIONS`].
    pub fn push(&mut self, cycle: u64, text: String) {
        if self.0.len() == RECENT_TRANSACTIONS {
            self.0.pop_front();
        }
        self.0.push_back(Transaction { cycle, text });
    }
    /// Oldest first.
    pub fn to_vec(&self) -> Vec<Transaction> {
        self.0.iter().cloned().collect()
    }
}

/// A fresh lockstep bench for one seed: what each block's `bench` function builds.
pub struct Bench<M, R, S, Mon> {
    /// The Rust model.
    pub model: M,
    /// The RTL (a Verilated model, or a model standing in for it).
    pub rtl: R,
    /// The seeded stimulus.
    pub stimulus: S,
    /// The monitor with the block's independent scoreboard.
    pub monitor: Mon,
}

impl<M, R, S, Mon> Bench<M, R, S, Mon> {
    /// Gathers the four parts.
    pub fn new(model: M, rtl: R, stimulus: S, monitor: Mon) -> Self {
        Bench { model, rtl, stimulus, monitor }
    }
}

/// Formats a port value as hex at the port's width (`0x` then groups of 16 digits).
pub fn hex(words: &[u32], width: u32) -> String {
    let digits = (width.max(1) as usize).div_ceil(4);
    let mut s = String::with_capacity(digits + digits / 16 + 2);
    for d in (0..digits).rev() {
        let nibble = (words.get(d / 8).copied().unwrap_or(0) >> (4 * (d % 8))) & 0xf;
        s.push(char::from_digit(nibble, 16).unwrap_or('?'));
        if d % 16 == 0 && d != 0 {
            s.push('_');
        }
    }
    format!("0x{s}")
}
