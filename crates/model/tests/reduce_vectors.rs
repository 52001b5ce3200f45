//! Stimulus for `rtl/reduce_unit.v` from `reduce::stimulus`, run through the cycle model. With
//! `REDUCE_VECTORS_OUT=<file>` (and optionally `REDUCE_VECTORS_N`, `REDUCE_VECTORS_SEED`) it also writes
//! one line per cycle, inputs then the model's outputs, as hex fields:
//!
//! `rst in_valid cfg_mode a_rt_op a_rt_data a_rt_rc a_rt_repsum_m a_rt_repsum_oflow_id a_sfa
//!  b_rt_op b_rt_data b_rt_rc b_rt_repsum_m b_rt_repsum_oflow_id b_sfa
//!  out_valid out_rt_op out_rt_data out_rt_rc out_rt_repsum_m out_rt_repsum_oflow_id`
//!
//! for replaying against the RTL in any simulator ($fscanf "%h") before the Verilator harness
//! (`verif/`) takes over.

use std::collections::HashSet;
use std::io::Write;

use inswitch_model::reduce::stimulus::random_cycle;
use inswitch_model::reduce_unit::ReduceUnit;
use inswitch_model::{Block, Wide};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn hex256(w: &Wide) -> String {
    format!("{:016x}{:016x}{:016x}{:016x}", w.0[3], w.0[2], w.0[1], w.0[0])
}

#[test]
fn stimulus_covers_every_opcode_and_writes_vectors_on_request() {
    let path = std::env::var("REDUCE_VECTORS_OUT").ok();
    let n: usize = std::env::var("REDUCE_VECTORS_N").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let seed: u64 = std::env::var("REDUCE_VECTORS_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut next = || rng.next_u64();
    let mut unit = ReduceUnit::new();
    let mut file = path.map(|p| std::io::BufWriter::new(std::fs::File::create(p).unwrap()));
    let mut ops = HashSet::new();
    let mut valid_out = 0usize;
    for _ in 0..n {
        let i = random_cycle(&mut next);
        let o = unit.step(&i);
        ops.insert(i.a_rt_op);
        valid_out += usize::from(o.out_valid);
        if let Some(f) = file.as_mut() {
            writeln!(
                f,
                "{:x} {:x} {:x} {:x} {} {:x} {:x} {:x} {:x} {:x} {} {:x} {:x} {:x} {:x} {:x} {:x} {} {:x} {:x} {:x}",
                u8::from(i.rst), u8::from(i.in_valid), u8::from(i.cfg_mode),
                i.a_rt_op, hex256(&i.a_rt_data), i.a_rt_rc, i.a_rt_repsum_m, i.a_rt_repsum_oflow_id, i.a_sfa,
                i.b_rt_op, hex256(&i.b_rt_data), i.b_rt_rc, i.b_rt_repsum_m, i.b_rt_repsum_oflow_id, i.b_sfa,
                u8::from(o.out_valid), o.out_rt_op, hex256(&o.out_rt_data), o.out_rt_rc, o.out_rt_repsum_m,
                o.out_rt_repsum_oflow_id,
            )
            .unwrap();
        }
    }
    assert!(valid_out > n / 2);
    for op in inswitch_model::reduce::Opcode::DEFINED {
        assert!(n < 5_000 || ops.contains(&op.raw()), "{op} never generated");
    }
}
