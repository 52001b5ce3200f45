//! Unit tests of the harness library (`verif/`), one module per source file. They live in the suite
//! rather than in `#[cfg(test)]` modules so that `cargo test` does not compile the whole library a second
//! time in test mode (`[lib] test = false` in Cargo.toml; docs/performance.md §The test command's wall time).

mod stimulus;
mod hdl;
mod regress;
mod fpga;
mod cross;
mod coverage;
mod bench;
mod axis_register;
mod register_space;
mod completion_builder;
mod cpu_event_cross;
mod reduce_unit_flt_sum_cross;
