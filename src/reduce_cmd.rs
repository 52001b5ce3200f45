//! `inswitch reduce`: combines two contributions with a reduction operator, bit-exactly as the engine
//! does (`inswitch_model::reduce::batch`, docs/blocks/reduce_unit.md); or answers JSON lines on stdin (`--batch`).

use std::process::ExitCode;

use inswitch_model::reduce::batch;

/// R_TF_RED_CFG_MODE (docs/blocks/reduce_unit.md).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
#[value(rename_all = "lower")]
pub enum Mode {
    /// Associative.
    #[value(alias = "associative", alias = "0")]
    Assoc,
    /// IEEE 754 order.
    #[value(alias = "1")]
    Ieee,
}

impl Mode {
    /// The mode's name in a batch request (`batch::parse_mode`).
    fn name(self) -> &'static str {
        match self {
            Mode::Assoc => "assoc",
            Mode::Ieee => "ieee",
        }
    }
}

/// Arguments of `inswitch reduce`.
#[derive(clap::Args)]
pub struct Args {
    /// Operator name (any case), e.g. int_sum, flt_sum_noftz_rnd0, flt_sum_ftz_rnd3, flt_minnum, flt_repsum,
    /// int_minmaxloc, barrier, or a 6-bit opcode number. Table: docs/blocks/reduce_unit.md.
    #[arg(long, required_unless_present = "batch")]
    op: Option<String>,
    /// R_TF_RED_CFG_MODE: `assoc` (associative) or `ieee`.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Mode::Assoc)]
    mode: Mode,
    /// Read JSON lines {"op":..., "a":[...], "b":[...], "mode":...} on stdin, write one result per line.
    #[arg(long)]
    batch: bool,
    /// Operands: the first half are contribution a's lanes, the second half b's (1 to 4 each); integers
    /// (decimal or 0x hex) or, for float operators, decimal floats.
    #[arg(allow_hyphen_values = true)]
    operands: Vec<String>,
}

/// Runs the command.
pub fn run(a: &Args) -> ExitCode {
    if a.batch {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        return match batch::run_batch(stdin.lock(), std::io::BufWriter::new(stdout.lock())) {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("reduce --batch: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let Some(op) = a.op.as_deref() else {
        eprintln!("reduce: give --op or --batch");
        return ExitCode::FAILURE;
    };
    let args: Vec<&str> = a.operands.iter().map(String::as_str).collect();
    match batch::run_args(op, a.mode.name(), &args) {
        Ok(v) => {
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string()));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("reduce: {e}");
            ExitCode::FAILURE
        }
    }
}
