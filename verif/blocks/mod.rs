//! One module per block under co-simulation: its stimulus, its independent scoreboard, its targets.

pub mod axis_register;
pub mod cpu;
pub mod output_queue;
pub mod reduce_unit;
pub mod register_space;
pub mod input_checker;
pub mod interposer;
pub mod frame_builder;
pub mod completion_builder;
pub mod packet_engine;
