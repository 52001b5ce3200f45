//! `inswitch msg-header`: prints `rtl/collective_msg.vh`, the RTL's macros for the collective message's
//! signals, generated from the field list in crates/model/src/message.rs.

use std::process::ExitCode;

/// Runs the command.
pub fn run() -> ExitCode {
    print!("{}", inswitch_model::message::verilog_header());
    ExitCode::SUCCESS
}
