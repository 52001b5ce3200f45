//! Cycle-level, bit-exact Rust models of the inswitch packet-engine blocks.
//!
//! Every block is a [`Block`]: a pure function of its registers and its inputs, advanced one rising clock
//! edge per [`Block::step`]. Its `In`/`Out` structs are declared with [`ports!`] and their field names are
//! the RTL port names, so the co-simulation harness (`verif/`) can drive a Verilated RTL module and the
//! model from the same values and compare every output on every cycle.
//!
//! Timing convention (the same for every block, see `docs/architecture.md` §Clock and reset):
//! `step(inputs)` returns the outputs as they are *just before* the rising edge at which `inputs` are
//! sampled, i.e. a function of the registers and (for combinational paths) of `inputs`; then the edge
//! happens and the registers take their next values.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod axis_register;
pub mod codes;
pub mod completion_builder;
pub mod cpu;
pub mod crc32;
pub mod frame_buf;
pub mod frame_builder;
pub mod input_checker;
pub mod interposer;
pub mod message;
pub mod out_of_line;
pub mod output_queue;
pub mod paged_table;
pub mod packet_engine;
pub mod port_value;
pub mod reduce;
pub mod reduce_unit;
pub mod register_space;
pub mod registry;
pub mod signal;

pub use port_value::{Signal, Wide};
pub use signal::{Block, Ports};
