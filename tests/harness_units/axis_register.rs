//! `verif/blocks/axis_register.rs`.

use inswitch::checker::{RunConfig, RunError};
use inswitch::HarnessError;

#[test]
fn a_bench_that_cannot_be_built_is_a_setup_error_not_a_failure() {
    let cfg = RunConfig { seed: 7, cycles: 100, wave_dir: std::env::temp_dir().join("inswitch-setup-error") };
    match inswitch::blocks::axis_register::run("no_such_model", &cfg, &mut |_| {}) {
        Err(RunError::Setup { error: HarnessError::UnknownModel { name, .. }, seed: 7, .. }) => assert_eq!(name, "no_such_model"),
        other => panic!("expected a setup error naming the model, got {other:?}"),
    }
}
