//! The fabric crate's integration tests, compiled as one test binary (`cargo test --release -p inswitch-fabric`;
//! one file: `cargo test --release -p inswitch-fabric --test suite <file>::`): one compile and link of the
//! crate and its dependencies instead of one per file (the test command's compile time). Each file below is
//! a module; the root suite's `every_test_file_is_compiled` checks that none is left out.

mod common;

mod concurrent;
mod engines;
mod faults;
mod fig3;
mod flows;
mod manager;
mod manager_prop;
mod portals;
mod reroute;
mod roots;
mod security;
mod table1;
