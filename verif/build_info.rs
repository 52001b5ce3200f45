//! What a report must name to be reproducible elsewhere: the source revision and the Verilator version
//! the models were built with (issue 13 point 6). Every failure report, JUnit file and JSON summary
//! carries both.

use std::process::Command;
use std::sync::OnceLock;

/// The Verilator that build.rs verilated the linked models with (`verilator --version`).
pub fn verilator_version() -> &'static str {
    option_env!("INSWITCH_VERILATOR_VERSION").unwrap_or("unknown (build.rs did not record it)")
}

/// The source revision: `git describe --always --dirty --abbrev=12` of the checkout this binary was
/// built from, asked once at run time (a build-time value would go stale with every commit that does not
/// rebuild the crate); "unknown" outside a git checkout.
pub fn git_revision() -> &'static str {
    static REV: OnceLock<String> = OnceLock::new();
    REV.get_or_init(|| {
        Command::new("git")
            .args(["-C", env!("CARGO_MANIFEST_DIR"), "describe", "--always", "--dirty", "--abbrev=12"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown (not a git checkout)".to_string())
    })
}
