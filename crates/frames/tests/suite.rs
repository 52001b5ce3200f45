//! The frames crate's integration tests, compiled as one test binary (`cargo test --release -p inswitch-frames`;
//! one file: `cargo test --release -p inswitch-frames --test suite <file>::`): one compile and link of the
//! crate and its dependencies instead of one per file (the test command's compile time). Each file below is
//! a module; the root suite's `every_test_file_is_compiled` checks that none is left out.

mod crc_oracle;
mod decode_pcap_view;
mod json_schema;
mod oracles;
mod reduction_header_bits;
mod roundtrip;
mod vectors;
