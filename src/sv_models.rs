//! `inswitch sv-models`: writes the generated SystemVerilog models and checkers of every registered block
//! (crates/dpi/src/sv.rs; the checked-in copy is crates/dpi/sv/, docs/golden-model.md).

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `inswitch sv-models`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory to write `inswitch_dpi_pkg.sv`, `inswitch_<block>_model.sv` and `inswitch_<block>_check.sv`.
    #[arg(long, default_value = "crates/dpi/sv")]
    out: PathBuf,
}

/// Runs the command.
pub fn run(a: &Args) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("error: cannot create {}: {e}", a.out.display());
        return ExitCode::FAILURE;
    }
    let files = inswitch_dpi::sv::files();
    for (name, text) in &files {
        let path = a.out.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    println!("wrote {} files to {}", files.len(), a.out.display());
    ExitCode::SUCCESS
}
