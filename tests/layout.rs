//! The repository's test layout: every crate's integration tests are one binary each (`tests/suite.rs`,
//! `autotests = false`), so a test file that no suite declares would never be compiled or run. This
//! checks, for the root and every crate, that each `tests/*.rs` is a `mod` of its suite (or a test
//! target of its own in the manifest).

use std::path::Path;

/// Test files that are their own `[[test]]` target (the counting allocator must not see other tests).
const OWN_TARGETS: [&str; 1] = ["zero_alloc"];

#[test]
fn every_test_file_is_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for dir in ["tests", "crates/fabric/tests", "crates/frames/tests", "crates/model/tests", "crates/dpi/tests"] {
        let dir = root.join(dir);
        let suite = std::fs::read_to_string(dir.join("suite.rs")).unwrap_or_else(|e| panic!("{}/suite.rs: {e}", dir.display()));
        let declared: Vec<&str> =
            suite.lines().filter_map(|l| l.trim().strip_prefix("mod ").and_then(|r| r.strip_suffix(';'))).collect();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".rs") else { continue };
            if stem == "suite" || OWN_TARGETS.contains(&stem) {
                continue;
            }
            assert!(declared.contains(&stem), "{}/{name} is not a `mod` of {}/suite.rs: it is never compiled", dir.display(), dir.display());
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} test files found: the walk is wrong");
}
