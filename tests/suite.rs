//! The root crate's integration tests, compiled as one test binary (`cargo test --release --test suite`):
//! one link of the library and its Verilated models instead of one per file, which was most of the
//! test command's compile time. Each file below is a module; run one with a filter, e.g.
//! `cargo test --release --test suite cosim_cpu::`. (`zero_alloc` stays its own binary: its counting
//! global allocator must not see other tests.)

mod common;

mod capture_cli;
mod check_wave;
mod cli;
mod collective_msg_vh;
mod cosim_axis_register;
mod cosim_completion_builder;
mod cosim_cpu;
mod cosim_frame_builder;
mod cosim_input_checker;
mod cosim_interposer;
mod cosim_output_queue;
mod cosim_packet_engine;
mod cosim_reduce_unit;
mod cosim_register_space;
mod cosim_regress;
mod cosim_shrink;
mod datapath_loopback;
mod engine_advance_idle;
mod harness_units;
mod fuzz_planted;
mod fuzz_targets;
mod independent_cpu_tables;
mod independent_cpu_timers;
mod independent_reduce_unit;
mod independent_scoreboards;
mod layout;
mod reduce_shared;
mod registry;
mod rtl_quality;
mod sim_cli;
mod sv_benches;
mod vectors;
mod wireshark;
