//! The output queue's inputs as a simulator packs them for the C ABI (port order, word 0 = bits 31:0):
//! shared by the criterion bench `benches/golden.rs` and the instruction-count harness
//! `crates/dpi/examples/cycle_cost.rs`, so both measure the same packing.
//!
//! What a real caller does: the generated SystemVerilog checker hands `inswitch_model_cycle_256` the
//! concatenation `{cfg_route_wr_port, ..., s_axis_tdata, rst}` of all thirteen inputs. Its layout is fixed
//! at elaboration, so Verilator compiles it to constant shifts and ORs of every input signal into the
//! words of a `VlWide`. [`drive`] does the same: every input (not only those that change) read from the
//! caller's state and shifted into place at offsets known at compile time ([`LAYOUT`], checked against the
//! registry by [`check_layout`]), into the 8 words of the checker's 256-bit vector.

use inswitch_model::registry;

/// (port, bit offset, width) of each input at `DATA_WIDTH=64`, in the registry's order: the offsets of the
/// SystemVerilog concatenation.
pub const LAYOUT: [(&str, usize, usize); 13] = [
    ("rst", 0, 1),
    ("s_axis_tdata", 1, 64),
    ("s_axis_tkeep", 65, 8),
    ("s_axis_tvalid", 73, 1),
    ("s_axis_tlast", 74, 1),
    ("s_axis_tuser", 75, 16),
    ("m_axis_tready", 91, 1),
    ("cfg_route_wr_en", 92, 1),
    ("cfg_route_wr_index", 93, 4),
    ("cfg_route_wr_valid", 97, 1),
    ("cfg_route_wr_dest_id", 98, 16),
    ("cfg_route_wr_dest_mask", 114, 16),
    ("cfg_route_wr_port", 130, 4),
];

/// Indices in [`LAYOUT`] (and in the caller's input values) of the inputs the benches drive.
pub const TDATA: usize = 1;
/// `s_axis_tkeep`.
pub const TKEEP: usize = 2;
/// `s_axis_tvalid`.
pub const TVALID: usize = 3;
/// `s_axis_tlast`.
pub const TLAST: usize = 4;
/// `m_axis_tready`.
pub const TREADY: usize = 6;

/// Words of the vector the generated checker passes for this block (`inswitch_model_cycle_256`).
pub const WORDS: usize = 8;

/// Panics unless [`LAYOUT`] is the registry's packed layout of the output queue's inputs at `ports`.
pub fn check_layout(ports: &[registry::PortInfo]) {
    let mut off = 0;
    let ins: Vec<_> = ports.iter().filter(|p| !p.output).collect();
    assert_eq!(ins.len(), LAYOUT.len(), "input count");
    for (p, (name, at, width)) in ins.iter().zip(LAYOUT) {
        assert_eq!((p.name, off, p.width as usize), (name, at, width), "the bench's layout is the registry's");
        off += p.width as usize;
    }
    assert!(off <= 32 * WORDS);
}

/// The caller's input values at the start: the values `typed_step` holds fixed (`tkeep` 0xff, `tready`
/// 1), every other input 0.
pub fn initial_inputs() -> [u64; 13] {
    let mut v = [0u64; 13];
    v[TKEEP] = 0xff;
    v[TREADY] = 1;
    v
}

/// Cycle `n`'s inputs as `typed_step` drives them (`tvalid`, `tlast`, `tdata`; the rest as held).
#[inline(always)]
pub fn set_cycle(v: &mut [u64; 13], n: u64) {
    v[TVALID] = u64::from(n % 3 != 0);
    v[TLAST] = u64::from(n % 7 == 0);
    v[TDATA] = n;
}

/// ORs `v` (at most `W` bits, as a simulator's signal is) into `ins` at bit `OFF`.
#[inline(always)]
fn put<const OFF: usize, const W: usize>(ins: &mut [u32; WORDS], v: u64) {
    let x = u128::from(v) << (OFF % 32);
    ins[OFF / 32] |= x as u32;
    if OFF % 32 + W > 32 {
        ins[OFF / 32 + 1] |= (x >> 32) as u32;
    }
    if OFF % 32 + W > 64 {
        ins[OFF / 32 + 2] |= (x >> 64) as u32;
    }
}

macro_rules! pack {
    ($ins:ident, $v:ident, $($k:literal)*) => {
        $( put::<{ LAYOUT[$k].1 }, { LAYOUT[$k].2 }>($ins, $v[$k]); )*
    };
}

/// Packs all thirteen inputs `v` into `ins`, as the checker's concatenation does. `v` goes through
/// `black_box` so that every input is read and packed every cycle, as a simulator reads each signal of the
/// concatenation (the inputs held constant are not folded or hoisted out of the caller's loop).
#[inline(always)]
pub fn drive(ins: &mut [u32; WORDS], v: &[u64; 13]) {
    let v = std::hint::black_box(v);
    *ins = [0; WORDS];
    pack!(ins, v, 0 1 2 3 4 5 6 7 8 9 10 11 12);
}
