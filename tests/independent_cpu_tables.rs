//! Issue 22: the CPU scoreboard folds results with the model's arithmetic on the sources' tables
//! (`inswitch::sources::tables_for_the_arithmetic`), so a CPU whose reduction unit reads a wrong copy of
//! the tables (FLT_SUM rounding opcodes swapped, two result-code priorities swapped) is rejected even when
//! the model and the "RTL" agree on it: a third check of those mistakes, besides the directed tests and
//! the reduction unit's scoreboard.

use inswitch::blocks::cpu::{self, CpuMonitor, CpuStimulus};
use inswitch::mutation::{scoreboard_complaint, AsRtl};
use inswitch_model::cpu::Cpu;
use inswitch_model::reduce::Tables;

fn complaint(t: Tables, name: &str) -> Result<String, String> {
    let p = cpu::params_of("cpu").unwrap();
    let make = |seed: u64| {
        Ok(inswitch::checker::Bench::new(Cpu::with_reduce_tables(p, t).unwrap(), AsRtl(Cpu::with_reduce_tables(p, t).unwrap()), CpuStimulus::new(p, seed), CpuMonitor::new(p)))
    };
    scoreboard_complaint(name, &make, 11, 400_000)
}

#[test]
fn the_cpu_scoreboard_accepts_the_seed_tables() {
    let e = complaint(Tables::SEED, "cpu_seed_tables").expect_err("the seed's tables must pass");
    assert!(e.contains("accepted 400000 cycles"), "{e}");
}

#[test]
fn the_cpu_scoreboard_rejects_swapped_flt_sum_rounding_opcodes() {
    let mut t = Tables::SEED;
    t.flt_sum_rounding.swap(1, 2);
    let msg = complaint(t, "cpu_swapped_rounding").unwrap();
    eprintln!("{msg}");
    assert!(msg.contains("the reference expects"), "{msg}");
}

#[test]
fn the_cpu_scoreboard_rejects_a_swapped_result_code_priority() {
    let mut t = Tables::SEED;
    t.rc_priority.swap(7, 8); // CONTR_OVERFLOW and OP_MISMATCH: merged by the CPU itself
    let msg = complaint(t, "cpu_swapped_priority").unwrap();
    eprintln!("{msg}");
    assert!(msg.contains("the reference expects"), "{msg}");
}
