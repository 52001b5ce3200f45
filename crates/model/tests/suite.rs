//! The model crate's integration tests, compiled as one test binary (`cargo test --release -p inswitch-model`;
//! one file: `cargo test --release -p inswitch-model --test suite <file>::`): one compile and link of the
//! crate and its dependencies instead of one per file (the test command's compile time). Each file below is
//! a module; the root suite's `every_test_file_is_compiled` checks that none is left out.

mod support;

mod reduce_flt_sum_oracle;
mod reduce_rules;
mod reduce_unit;
mod reduce_vectors;
mod truth_tables;
