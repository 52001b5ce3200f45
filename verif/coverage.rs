//! RTL code coverage (issue 13 point 3): the per-model `.dat` files a coverage build writes are merged
//! with `verilator_coverage`, turned into lcov (`coverage.info`) and HTML (genhtml), and read back per
//! RTL module (one module per `rtl/<module>.v`) for the figures and the floors `scripts/test` asserts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Line coverage of one RTL source file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileCoverage {
    /// Lines with a coverage point.
    pub found: u64,
    /// Of those, lines whose points were all hit at least once (lcov `LH`).
    pub hit: u64,
    /// Lines with a point never hit, ascending.
    pub uncovered: Vec<u64>,
}

impl FileCoverage {
    /// Percentage of lines hit (100 for a file with no point).
    pub fn percent(&self) -> f64 {
        if self.found == 0 { 100.0 } else { 100.0 * self.hit as f64 / self.found as f64 }
    }
}

/// Reads an lcov tracefile: per module (the source file's stem), its `DA` lines. A line listed several
/// times (several points, or several records of one file) counts as hit when any of its counts is
/// non-zero, as genhtml shows it.
pub fn parse_lcov(text: &str) -> BTreeMap<String, FileCoverage> {
    let mut lines: BTreeMap<String, BTreeMap<u64, u64>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for l in text.lines() {
        if let Some(sf) = l.strip_prefix("SF:") {
            let stem = Path::new(sf.trim()).file_stem().map_or(sf.to_string(), |s| s.to_string_lossy().into_owned());
            current = Some(stem);
        } else if let (Some(da), Some(file)) = (l.strip_prefix("DA:"), &current) {
            let mut it = da.split(',');
            let (Some(line), Some(count)) = (it.next().and_then(|x| x.trim().parse().ok()), it.next().and_then(|x| x.trim().parse::<u64>().ok())) else {
                continue;
            };
            let e = lines.entry(file.clone()).or_default().entry(line).or_insert(0);
            *e = (*e).max(count);
        } else if l.starts_with("end_of_record") {
            current = None;
        }
    }
    lines
        .into_iter()
        .map(|(file, by_line)| {
            let uncovered: Vec<u64> = by_line.iter().filter(|(_, &c)| c == 0).map(|(&l, _)| l).collect();
            let found = by_line.len() as u64;
            (file, FileCoverage { found, hit: found - uncovered.len() as u64, uncovered })
        })
        .collect()
}

/// Floors: `module percent` per line, `#` comments.
pub fn parse_floors(text: &str) -> Result<Vec<(String, f64)>, String> {
    let mut v = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut it = line.split_whitespace();
        let (Some(m), Some(p), None) = (it.next(), it.next(), it.next()) else {
            return Err(format!("line {}: {line:?} is not `module percent`", n + 1));
        };
        let p: f64 = p.trim_end_matches('%').parse().map_err(|_| format!("line {}: {p:?} is not a percentage", n + 1))?;
        v.push((m.to_string(), p));
    }
    Ok(v)
}

/// The floors a measured coverage breaks: (module, floor, measured or `None` when the module has no
/// coverage at all).
pub fn check_floors(cov: &BTreeMap<String, FileCoverage>, floors: &[(String, f64)]) -> Vec<(String, f64, Option<f64>)> {
    floors
        .iter()
        .filter_map(|(m, floor)| match cov.get(m) {
            Some(c) if c.percent() + 1e-9 >= *floor => None,
            Some(c) => Some((m.clone(), *floor, Some(c.percent()))),
            None => Some((m.clone(), *floor, None)),
        })
        .collect()
}

/// Runs a tool; a missing tool or a failure is an error naming the command and `bash scripts/setup`.
fn tool(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let o = cmd.output().map_err(|e| format!("{shown}: {e} (run `bash scripts/setup`)"))?;
    if !o.status.success() {
        return Err(format!("{shown} failed:\n{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)));
    }
    Ok(())
}

/// Merges every `.dat` in `dat_dir` into `out/merged.dat` and `out/coverage.info` (lcov), annotates the
/// sources into `out/annotated/` (`%000000` marks a line never hit), and, when `html`, renders
/// `out/html/` with genhtml. Returns the lcov tracefile's path.
pub fn merge(dat_dir: &Path, out: &Path, html: bool) -> Result<PathBuf, String> {
    let mut dats: Vec<PathBuf> = std::fs::read_dir(dat_dir)
        .map_err(|e| format!("{}: {e}", dat_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dat"))
        .collect();
    dats.sort();
    if dats.is_empty() {
        return Err(format!("no coverage data in {}: was the binary built with `--features coverage`?", dat_dir.display()));
    }
    let merged = out.join("merged.dat");
    let info = out.join("coverage.info");
    tool(Command::new("verilator_coverage").arg("--write").arg(&merged).args(&dats))?;
    tool(Command::new("verilator_coverage").arg("--write-info").arg(&info).arg(&merged))?;
    tool(Command::new("verilator_coverage").arg("--annotate").arg(out.join("annotated")).arg(&merged))?;
    if html {
        tool(Command::new("genhtml").arg("--quiet").arg("--output-directory").arg(out.join("html")).arg(&info))?;
    }
    Ok(info)
}
