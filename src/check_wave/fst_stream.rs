//! Streams an FST dump through the check: `fst-reader` (the reader under `wellen`) hands the value
//! changes of the requested signals over in time order, block by block, so nothing of the dump is kept
//! beyond the current time step. A reading thread decodes the changes into words while the calling
//! thread steps the model, which puts the second core to work on large dumps.
//!
//! A port's `wellen::SignalRef` (from the hierarchy `wellen` read) is the FST handle's index: wellen's
//! FST loader numbers signals by handle, which `tests/check_wave.rs` holds to by checking the same run
//! dumped as VCD (loaded by wellen) and as FST (streamed) to the same result, mismatches included.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use fst_reader::{FstFilter, FstReader, FstSignalHandle, FstSignalValue};

use super::cycles::{Cycles, Flow};

/// Changes per batch handed from the reading thread to the checking thread: large enough that the
/// channel costs nothing per change, small enough that a batch stays in cache.
const BATCH: usize = 1 << 13;
/// Batches in flight: the reader runs this far ahead at most (bounded memory on any dump).
const IN_FLIGHT: usize = 4;

/// One change: time, slot (a port's index, or the clock's: one past the last port), known (no X/Z
/// bits), and where its words start in the batch's data.
#[derive(Clone, Copy)]
struct Change {
    time: u64,
    slot: u32,
    known: bool,
    at: u32,
}

#[derive(Default)]
struct Batch {
    changes: Vec<Change>,
    data: Vec<u32>,
}

/// Decodes an FST value (one ASCII character per bit, MSB first) into little-endian words; false if any
/// bit is not 0 or 1 (X, Z, and the nine-value states).
fn decode(chars: &[u8], out: &mut [u32]) -> bool {
    /// The low bit of every byte.
    const LOW: u64 = 0x0101_0101_0101_0101;
    /// Eight '0' characters; a '1' differs only in the low bit.
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    /// Gathers the low bits of the eight bytes into the top byte, byte k's bit at bit 56 + k: the
    /// products' bit positions 8j + 7k + 7 are distinct, so no carry disturbs that byte.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    out.fill(0);
    let bits = chars.len().min(32 * out.len());
    let mut rest = &chars[chars.len() - bits..];
    let mut k = 0;
    // Eight characters at a time from the least significant end: the last character is bit 0, so the
    // big-endian load puts bit i's character in byte i.
    while rest.len() >= 8 {
        let (head, tail) = rest.split_at(rest.len() - 8);
        let x = u64::from_be_bytes(tail.try_into().expect("eight bytes"));
        if x & !LOW != ZEROS {
            return false;
        }
        let byte = ((x & LOW).wrapping_mul(GATHER) >> 56) as u32;
        out[k / 32] |= byte << (k % 32);
        k += 8;
        rest = head;
    }
    for c in rest.iter().rev() {
        match c {
            b'0' => {}
            b'1' => out[k / 32] |= 1 << (k % 32),
            _ => return false,
        }
        k += 1;
    }
    true
}

/// The reading thread: every change of `signals` (ports, then the clock), in batches, then `Ok(())`;
/// or the reason the file cannot be read. Stops sending once the receiver is gone.
fn read(path: &Path, signals: &[wellen::SignalRef], widths: &[u32], tx: &SyncSender<Batch>) -> Result<(), String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let mut reader = FstReader::open(BufReader::new(file)).map_err(|e| e.to_string())?;
    // Slots of each handle (two ports may be one dumped signal).
    let mut slots: Vec<Vec<u32>> = Vec::new();
    for (slot, s) in signals.iter().enumerate() {
        let h = s.index();
        if slots.len() <= h {
            slots.resize(h + 1, Vec::new());
        }
        slots[h].push(slot as u32);
    }
    let handles: Vec<FstSignalHandle> = signals.iter().map(|s| FstSignalHandle::from_index(s.index())).collect();
    let words: Vec<usize> = widths.iter().map(|w| (*w as usize).div_ceil(32)).collect();
    let mut batch = Batch::default();
    let mut gone = false;
    reader
        .read_signals(&FstFilter::filter_signals(handles), |time, handle, value| {
            let FstSignalValue::String(chars) = value else { return };
            if gone {
                return;
            }
            for &slot in slots.get(handle.get_index()).map_or(&[][..], Vec::as_slice) {
                let n = words[slot as usize];
                let at = batch.data.len();
                batch.data.resize(at + n, 0);
                let known = decode(chars, &mut batch.data[at..]);
                batch.changes.push(Change { time, slot, known, at: at as u32 });
            }
            if batch.changes.len() >= BATCH && tx.send(std::mem::take(&mut batch)).is_err() {
                gone = true;
            }
        })
        .map_err(|e| e.to_string())?;
    if !gone {
        let _ = tx.send(batch);
    }
    Ok(())
}

/// The reading thread's name: its panics (fst-reader asserts on some malformed files) are reported
/// as an unreadable dump, not printed.
const READER: &str = "check-wave-fst-reader";

/// Streams `path` (an FST; `signals`: the ports in the model's order, then the clock) through `cycles`.
/// A dump that turns out unreadable part way is an error even if the check stopped earlier.
pub(super) fn run(path: &Path, signals: &[wellen::SignalRef], cycles: &mut Cycles) -> Result<(), String> {
    let mut widths: Vec<u32> = cycles.ports().iter().map(|p| p.width).collect();
    widths.push(1);
    let (tx, rx) = sync_channel(IN_FLIGHT);
    let default_hook = std::sync::Arc::new(std::panic::take_hook());
    let hook = default_hook.clone();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some(READER) {
            hook(info);
        }
    }));
    let (read, checked) = std::thread::scope(|s| {
        let reader = std::thread::Builder::new().name(READER.into()).spawn_scoped(s, move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(path, signals, &widths, &tx)));
            r.unwrap_or_else(|_| Err("not a readable FST file".into()))
        });
        let checked = consume(rx, cycles);
        let read = match reader {
            Ok(handle) => handle.join().unwrap_or_else(|_| Err("the reading thread failed".into())),
            Err(e) => Err(format!("cannot start a reading thread: {e}")),
        };
        (read, checked)
    });
    // Back to the default hook for the rest of the process.
    let _ = std::panic::take_hook();
    if let Ok(h) = std::sync::Arc::try_unwrap(default_hook) {
        std::panic::set_hook(h);
    }
    read.map_err(|e| cycles.unreadable(e))?;
    checked
}

/// The changes of one time step, copied out of their batch: (slot, known, start of its words) and the
/// words.
#[derive(Default)]
struct Step {
    changes: Vec<(u32, bool, usize)>,
    data: Vec<u32>,
}

/// The checking side: applies the changes time step by time step, and at a time step where the clock
/// goes from 0 to 1 runs the edge on the values from before that step.
fn consume(rx: Receiver<Batch>, cycles: &mut Cycles) -> Result<(), String> {
    let mut step = Step::default();
    let mut now: Option<u64> = None;
    // The clock's value before the current time step (None: none yet, or X/Z).
    let mut clk: Option<u32> = None;
    for batch in rx {
        for (k, c) in batch.changes.iter().enumerate() {
            if now != Some(c.time) {
                if let Some(t) = now {
                    if let Flow::Stop = end_of_step(t, &mut step, &mut clk, cycles)? {
                        return Ok(());
                    }
                }
                now = Some(c.time);
            }
            let end = batch.changes.get(k + 1).map_or(batch.data.len(), |d| d.at as usize);
            step.changes.push((c.slot, c.known, step.data.len()));
            step.data.extend_from_slice(&batch.data[c.at as usize..end]);
        }
    }
    if let Some(t) = now {
        end_of_step(t, &mut step, &mut clk, cycles)?;
    }
    Ok(())
}

/// The end of time step `time`: if the clock rose in it, the edge (on the values from before the
/// step); then the step's changes are applied.
fn end_of_step(time: u64, step: &mut Step, clk: &mut Option<u32>, cycles: &mut Cycles) -> Result<Flow, String> {
    let clock = cycles.ports().len() as u32;
    if let Some(after) = step.changes.iter().rev().find(|c| c.0 == clock).map(|c| c.1.then_some(step.data[c.2] & 1)) {
        let rising = *clk == Some(0) && after == Some(1);
        *clk = after;
        if rising {
            if let Flow::Stop = cycles.edge(time)? {
                return Ok(Flow::Stop);
            }
        }
    }
    for &(slot, known, at) in &step.changes {
        if slot != clock {
            let n = cycles.ports()[slot as usize].words();
            cycles.set(slot as usize, known.then(|| &step.data[at..at + n]));
        }
    }
    step.changes.clear();
    step.data.clear();
    Ok(Flow::Go)
}

#[cfg(test)]
mod tests {
    use super::decode;

    /// Bit i of `w` as the character FST writes.
    fn chars(w: &[u32], width: usize) -> Vec<u8> {
        (0..width).rev().map(|i| if w[i / 32] >> (i % 32) & 1 == 1 { b'1' } else { b'0' }).collect()
    }

    #[test]
    fn decode_reads_every_width_and_rejects_x_and_z_anywhere() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for width in [1usize, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 256, 293] {
            let n = width.div_ceil(32);
            for _ in 0..20 {
                let mut w = vec![0u32; n];
                for (k, x) in w.iter_mut().enumerate() {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let valid = (width - 32 * k).min(32);
                    *x = (seed as u32) & if valid == 32 { u32::MAX } else { (1 << valid) - 1 };
                }
                let c = chars(&w, width);
                let mut out = vec![0xFFFF_FFFFu32; n];
                assert!(decode(&c, &mut out), "width {width}");
                assert_eq!(out, w, "width {width}: {}", String::from_utf8_lossy(&c));
                for bad in [b'x', b'z', b'X', b'Z', b'u', b'-', b'0' ^ 0x40] {
                    let mut c = c.clone();
                    c[(seed as usize) % width] = bad;
                    assert!(!decode(&c, &mut out), "width {width}: {} decoded", String::from_utf8_lossy(&c));
                }
            }
        }
    }
}
