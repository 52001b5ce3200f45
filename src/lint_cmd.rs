//! `inswitch lint`: every RTL module through `verilator --lint-only -Wall` (`inswitch::hdl::lint_all`).

use std::path::PathBuf;
use std::process::ExitCode;

use inswitch::hdl;

/// Arguments of `inswitch lint`.
#[derive(clap::Args)]
pub struct Args {
    /// RTL directory.
    #[arg(long, default_value = "rtl")]
    rtl: PathBuf,
}

/// Runs the command: exit status 1 on any warning.
pub fn run(a: &Args) -> ExitCode {
    let rtl = &a.rtl;
    let results = match hdl::lint_all(rtl) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lint: cannot run verilator on {}: {e} (run `bash scripts/setup`)", rtl.display());
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for r in &results {
        let params = if r.params.is_empty() { "defaults".to_string() } else { r.params.join(" ") };
        if r.clean {
            println!("lint ok    {:<24} {params}", r.module);
        } else {
            failed = true;
            println!("lint FAIL  {:<24} {params}\n{}", r.module, r.messages);
        }
    }
    if results.is_empty() {
        eprintln!("lint: no modules in {}", rtl.display());
        return ExitCode::FAILURE;
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
