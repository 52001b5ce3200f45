//! The repository's test layout: every crate's integration tests are one binary each (`tests/suite.rs`,
//! `autotests = false`), so a test file that no suite declares would never be compiled or run. This
//! checks, for the root and every crate, that each `tests/*.rs` is a `mod` of its suite (or a test
//! target of its own in the manifest). It also holds the house rules of the source tree that a reviewer
//! would otherwise have to recount: no module of any crate imports itself through a circle, and no
//! source file is over [`MAX_LINES`] lines.

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// The source roots whose module graphs must be free of circles: every crate's `src`, the root's library
/// (`verif/`) and binary (`src/`), and the fuzz crate.
const SOURCE_ROOTS: [&str; 8] =
    ["verif", "src", "crates/dpi/src", "crates/fabric/src", "crates/frames/src", "crates/model/src", "crates/python/src", "fuzz/src"];

/// The longest a source file may be (issue 17: a file over this is doing too much).
const MAX_LINES: usize = 1_200;

/// Extensions of the files [`MAX_LINES`] applies to: Rust, Verilog and its headers, Python, shell.
const SOURCE_EXTENSIONS: [&str; 5] = ["rs", "v", "vh", "py", "sh"];

/// `scripts/modgraph.py` on the source root `dir`: whether it passed, and its output.
fn modgraph(dir: &Path) -> (bool, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("scripts/modgraph.py"))
        .arg(dir)
        .output()
        .unwrap_or_else(|e| panic!("python3 scripts/modgraph.py could not run ({e}): `bash scripts/setup` installs python3"));
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_module_graph_sees_a_circle_through_a_nested_use_tree() {
    let (ok, text, _) = modgraph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/modgraph_circle"));
    assert!(!ok && text.lines().any(|l| l == "CYCLE: a b"), "the fixture's circle a <-> b was not reported:\n{text}");
}

#[test]
fn no_module_imports_itself_through_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in SOURCE_ROOTS {
        let (ok, text, stderr) = modgraph(&root.join(dir));
        let circles: Vec<&str> = text.lines().filter(|l| l.starts_with("CYCLE:")).collect();
        assert!(ok && circles.is_empty(), "{dir}: import circles (scripts/modgraph.py {dir}):\n{}\n{stderr}", circles.join("\n"));
        assert!(text.lines().any(|l| l.contains(" -> ")), "{dir}: modgraph found no module: the path is wrong");
    }
}

#[test]
fn no_source_file_is_over_the_line_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["verif", "src", "crates", "rtl", "tests", "benches", "fuzz/src", "fuzz/fuzz_targets", "scripts", "tools", "build.rs"] {
        collect(&root.join(dir), &mut files);
    }
    assert!(files.len() > 200, "only {} source files found: the walk is wrong", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).map(|t| t.lines().count()).unwrap_or(0);
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.strip_prefix(root).unwrap_or(f).display()))
        })
        .collect();
    assert!(long.is_empty(), "source files over {MAX_LINES} lines: {long:?}");
}

/// Every source file under `path` (a file or a directory), build outputs and virtual environments skipped.
fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        if path.extension().and_then(|e| e.to_str()).is_some_and(|e| SOURCE_EXTENSIONS.contains(&e)) {
            out.push(path.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        if matches!(name.to_str(), Some("target" | ".venv" | "node_modules" | "__pycache__")) {
            continue;
        }
        collect(&e.path(), out);
    }
}

/// The harness library is built with `test = false` (Cargo.toml): a unit test written inside `verif/`
/// would never run. Its unit tests live in `tests/harness_units/`.
#[test]
fn the_harness_library_holds_no_unit_test_that_would_never_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("verif"), &mut files);
    assert!(files.len() > 30, "only {} files under verif/: the walk is wrong", files.len());
    let holding: Vec<String> = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("#[test]") || t.contains("#[cfg(test)]")))
        .map(|f| f.strip_prefix(root).unwrap_or(f).display().to_string())
        .collect();
    assert!(holding.is_empty(), "unit tests under verif/ never run (`[lib] test = false`): move them to tests/harness_units/: {holding:?}");
}
