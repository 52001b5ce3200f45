//! The output queue's inputs as a simulator packs them for the C ABI (port order, word 0 = bits 31:0):
//! shared by the criterion bench `benches/golden.rs` and the instruction-count harness
//! `crates/dpi/examples/cycle_cost.rs`, so both measure the same packing.

use inswitch_model::registry;

/// The packed input vector and the bit offsets of (valid, last, data, keep, ready) in it.
pub fn packed_inputs(ports: &[registry::PortInfo]) -> (Vec<u32>, [usize; 5]) {
    let mut offsets = [0usize; 5];
    let mut off = 0;
    for p in ports.iter().filter(|p| !p.output) {
        let slot = ["s_axis_tvalid", "s_axis_tlast", "s_axis_tdata", "s_axis_tkeep", "m_axis_tready"].iter().position(|n| *n == p.name);
        if let Some(i) = slot {
            offsets[i] = off;
        }
        off += p.width as usize;
    }
    (vec![0u32; off.div_ceil(32)], offsets)
}

/// Cycle `n`'s inputs, as `typed_step` drives them (the other inputs 0), packed as a simulator's
/// concatenation would pack them.
pub fn drive(ins: &mut [u32], o: &[usize; 5], n: u64) {
    ins.fill(0);
    let fields = [(o[0], u64::from(n % 3 != 0)), (o[1], u64::from(n % 7 == 0)), (o[2], n), (o[3], 0xff), (o[4], 1)];
    for (off, v) in fields {
        let x = u128::from(v) << (off % 32);
        for k in 0..3 {
            if let Some(w) = ins.get_mut(off / 32 + k) {
                *w |= (x >> (32 * k)) as u32;
            }
        }
    }
}
