//! The differential fuzz targets against the list of models an RTL-coverage fuzz build instruments
//! (`inswitch::model_table::FUZZED_MODELS`, build.rs `rtl-sancov`, `scripts/fuzz --rtl-coverage`): a
//! target whose model is not in the list would silently fuzz uninstrumented RTL, and a stale entry would
//! make every RTL-coverage build compile a model no target runs. (That the instrumented build really
//! exposes RTL counters to libFuzzer is checked at run time by `scripts/fuzz --smoke`.)

use std::collections::BTreeSet;
use std::path::Path;

use inswitch::model_table::{FUZZED_MODELS, MODELS, PLANTED_MODELS};

/// The model each `fuzz/fuzz_targets/cosim_*.rs` builds its bench on (the string in `bench("<model>"`).
fn fuzzed_models() -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    let mut models = BTreeSet::new();
    let mut targets = 0;
    for e in std::fs::read_dir(&dir).expect("read fuzz/fuzz_targets").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("cosim_") && name.ends_with(".rs")) {
            continue;
        }
        targets += 1;
        let src = std::fs::read_to_string(e.path()).expect("read a fuzz target");
        let found: Vec<&str> = src.split("bench(\"").skip(1).filter_map(|rest| rest.split('"').next()).collect();
        assert_eq!(found.len(), 1, "{name}: expected one `bench(\"<model>\"`, found {found:?}");
        models.insert(found[0].to_string());
    }
    assert!(targets >= 7, "only {targets} differential fuzz targets found in {}", dir.display());
    models
}

#[test]
fn every_differential_fuzz_target_runs_an_instrumented_model() {
    let listed: BTreeSet<String> = FUZZED_MODELS.iter().map(|m| m.to_string()).collect();
    assert_eq!(fuzzed_models(), listed, "fuzz targets' models vs model_table::FUZZED_MODELS");
}

#[test]
fn every_instrumented_model_is_a_verilated_model() {
    for m in FUZZED_MODELS {
        let known = MODELS.iter().any(|s| s.name == *m) || PLANTED_MODELS.iter().any(|p| p.model.name == *m);
        assert!(known, "FUZZED_MODELS names `{m}`, which is not in MODELS or PLANTED_MODELS");
    }
}
