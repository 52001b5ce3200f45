//! The built-in scenarios: the names `inswitch sim --scenario` knows, each with a one-line description
//! and the runs it makes ([`BUILTINS`]); the command line and `docs/fabric.md` §Built-in scenarios read
//! this one list. A run returns its report (text and JSON), whether its results were right, and what
//! `--pcap` can capture; options that only the command line knows (the progress display, output
//! format, where the pcap goes) stay there.

use crate::report;
use crate::scenario::{self as sc, Mode, RunSpec, ScenarioFile};
use crate::setup::Arrangement;
use crate::sim::Fabric;
use crate::topology::{LinkSpec, Ps, Topology, GEN6_X2_BYTES_PER_S};

/// What every built-in run is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Crossbar latency per switch hop in realistic mode, ns.
    pub hop_latency_ns: f64,
    /// Skip idle engine cycles (same results, faster).
    pub skip_idle: bool,
    /// The caller will capture frames (`--pcap`): scenarios that build their own fabric keep its frames.
    pub capture: bool,
    /// The caller runs the scaling runs for a plot ([`scaling_for_plot`]): the `scaling` scenario then
    /// adds nothing of its own.
    pub plot: bool,
    /// The `scaling` scenario runs one all-reduce at this size instead of its serialization-only series.
    pub size: Option<FabricSize>,
}

/// A fabric size for the `scaling` scenario: a flattened butterfly of `end_nodes / per_switch`
/// switches with `per_switch` end nodes each, the hierarchical plan, realistic mode (cycle engines),
/// the result checked at every end node. 63 per switch reaches 1,024 x 63 = 64,512, every 16-bit
/// device ID (`docs/performance.md` §Fabric to 64,512 end nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FabricSize {
    /// End nodes in all: a multiple of `per_switch`.
    pub end_nodes: usize,
    /// End nodes per switch.
    pub per_switch: usize,
}

impl FabricSize {
    /// The all-reduce at this size, or why the size cannot be built.
    pub fn spec(self, hop_latency_ps: Ps) -> Result<RunSpec, String> {
        let FabricSize { end_nodes, per_switch } = self;
        if per_switch == 0 || end_nodes % per_switch != 0 {
            return Err(format!("{end_nodes} end nodes are not a whole number of switches of {per_switch}"));
        }
        let link = LinkSpec { bytes_per_s: GEN6_X2_BYTES_PER_S, delay_ps: 0 };
        let topology = Topology::flattened_butterfly(end_nodes / per_switch, per_switch, link).map_err(|e| format!("{end_nodes} end nodes, {per_switch} per switch: {e}"))?;
        // As Table 1's runs (`scenario::table1_spec`), on this shape and with the hierarchical plan.
        let (arrangement, mode) = (Arrangement::Hierarchical, Mode::Realistic);
        Ok(RunSpec { topology_name: topology.name.clone(), topology, arrangement, mode, hop_latency_ps, source: 0, master: 0, skip_idle: true, capture: false, real_frames: false })
    }
}

impl Options {
    /// The crossbar latency per hop, ps.
    pub fn hop_latency_ps(&self) -> Ps {
        (self.hop_latency_ns * 1000.0).round() as Ps
    }
}

/// Which frames `--pcap` can write after a run.
#[derive(Default)]
pub enum Capture {
    /// None: the scenario has no run to capture.
    #[default]
    Nothing,
    /// A fabric the scenario ran with every frame kept.
    Fabric(Box<Fabric>),
    /// A collective run to do again with capture on (its master's ISLs are the `master` links).
    Rerun(Box<RunSpec>),
}

/// The report of a built-in run.
#[derive(Default)]
pub struct Outcome {
    /// The text report.
    pub text: String,
    /// The JSON report: (key, value) in order.
    pub json: Vec<(&'static str, serde_json::Value)>,
    /// Why a result was wrong (`None`: every result checked is right).
    pub failure: Option<&'static str>,
    /// What `--pcap` captures.
    pub capture: Capture,
}

impl Outcome {
    fn add(&mut self, key: &'static str, value: &impl serde::Serialize) {
        self.json.push((key, serde_json::to_value(value).expect("a serializable result")));
    }
}

/// A progress callback: the phase being run and the simulated time it reached, ps.
pub type Progress<'a> = &'a mut dyn FnMut(&str, Ps);

/// A built-in scenario.
pub struct Builtin {
    /// Its name on the command line.
    pub name: &'static str,
    /// One line saying what it runs.
    pub about: &'static str,
    /// Runs it. `Err` is a scenario that cannot be built (a usage error, not a wrong result).
    pub run: fn(&Options, Progress) -> Result<Outcome, String>,
}

/// The scenario `inswitch sim` runs when none is named.
pub const DEFAULT: &str = "table1";

/// Every built-in scenario, in the order the command line lists them.
pub static BUILTINS: [Builtin; 7] = [
    Builtin {
        name: "table1",
        about: "Seed 000's Table 1 (32 x 32 flattened butterfly, monolithic vs distributed engines), serialization-only and realistic, then the two-master case",
        run: table1,
    },
    Builtin { name: "two-masters", about: "The two-master case of [0150]-[0153]: 2 and 16 contexts on one and two masters, both modes", run: two_masters },
    Builtin { name: "fig7", about: "One all-reduce on FIG. 7's fabric, placed by the collective manager, real frames", run: fig7 },
    Builtin { name: "fig3", about: "FIG. 3's two contexts with different masters ([0148]), then mastered by one engine ([0153])", run: fig3 },
    Builtin { name: "jobs", about: "Several jobs placed by the manager at once, on FIG. 7 and an 8 x 8 flattened butterfly", run: jobs },
    Builtin { name: "portals", about: "A Soft Portals reduction tree (seed 002) placed by the manager, rounds through the cycle engines", run: portals },
    Builtin { name: "scaling", about: "Latency vs end nodes: flattened butterflies of 2 to 32 x 32 end nodes, serialization-only; with --end-nodes, one realistic all-reduce at that size", run: scaling },
];

/// The built-in scenario called `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// The built-in names, comma-separated (for messages).
pub fn names() -> String {
    BUILTINS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
}

/// The switch counts of the scaling runs (flattened butterflies of `n` x 32 end nodes).
pub const SCALING_SWITCHES: [usize; 5] = [2, 4, 8, 16, 32];

/// The runs of a latency-vs-end-nodes plot: [`SCALING_SWITCHES`] in both modes.
pub fn scaling_for_plot(o: &Options, progress: Progress) -> Vec<sc::RunResult> {
    let mut runs = sc::scaling(Mode::Serialization, &SCALING_SWITCHES, 0, &mut |ps| progress("scaling, serialization only", ps));
    runs.extend(sc::scaling(Mode::Realistic, &SCALING_SWITCHES, o.hop_latency_ps(), &mut |ps| progress("scaling, realistic", ps)));
    runs
}

/// The (contexts, masters) cases of \[0150\]-\[0153\]: 2 and 16 contexts on one and two masters.
pub const TWO_MASTER_CASES: [(usize, usize); 4] = [(2, 1), (2, 2), (16, 1), (16, 2)];

/// Every [`TWO_MASTER_CASES`] case, serialization-only then realistic.
pub fn two_masters_all(hop_latency_ps: Ps) -> Vec<sc::TwoMasterResult> {
    let mut v = Vec::new();
    for mode in [Mode::Serialization, Mode::Realistic] {
        for (c, m) in TWO_MASTER_CASES {
            v.push(sc::two_masters_in(c, m, mode, hop_latency_ps));
        }
    }
    v
}

/// The arrangements Table 1 compares.
const ARRANGEMENTS: [Arrangement; 2] = [Arrangement::Monolithic, Arrangement::Distributed];

/// Table 1: 32 x 32 serialization-only (the seed's arithmetic) and realistic; realistic 4 x 32, the
/// largest flattened butterfly whose monolithic engine fits the CPU's 128-entry PBV; the two-master
/// case. `--pcap` captures the realistic distributed 32 x 32 run.
fn table1(o: &Options, progress: Progress) -> Result<Outcome, String> {
    let hop = o.hop_latency_ps();
    let mut out = Outcome::default();
    let ser = sc::table1(Mode::Serialization, 0, &mut |ps| progress("Table 1, serialization only", ps));
    let mut real_specs = ARRANGEMENTS.map(|a| sc::table1_spec(32, 32, a, Mode::Realistic, hop));
    for s in &mut real_specs {
        s.skip_idle = o.skip_idle;
    }
    let real = real_specs.clone().map(|s| sc::run_collective(&s, &mut |ps| progress("Table 1, realistic", ps)).0);
    let small = ARRANGEMENTS.map(|a| {
        let mut s = sc::table1_spec(4, 32, a, Mode::Realistic, hop);
        s.skip_idle = o.skip_idle;
        sc::run_collective(&s, &mut |ps| progress("4 x 32, realistic", ps)).0
    });
    let two = two_masters_all(hop);
    out.text += &report::table1_text(&ser, Some(&real), hop);
    out.text += "\nrealistic, where the monolithic engine fits its 128-entry PBV (4 x 32 end nodes):\n";
    for r in &small {
        out.text += &report::run_line(r);
    }
    out.add("realistic_4x32", &small);
    out.text += &report::two_masters_text(&two);
    out.add("table1_serialization", &ser);
    out.add("table1_realistic", &real);
    out.add("two_masters", &two);
    let [_, distributed] = real_specs;
    out.capture = Capture::Rerun(Box::new(distributed));
    Ok(out)
}

/// \[0150\]-\[0153\]; `--pcap` captures one of the eight runs: \[0153\]'s case, 16 contexts on two
/// masters, with the cycle engines (realistic mode), whose frames are real.
fn two_masters(o: &Options, _progress: Progress) -> Result<Outcome, String> {
    let hop = o.hop_latency_ps();
    let mut out = Outcome::default();
    let two = two_masters_all(hop);
    out.text += &report::two_masters_text(&two);
    out.add("two_masters", &two);
    if o.capture {
        if let Some(f) = sc::two_masters_captured(16, 2, Mode::Realistic, hop, true).1 {
            out.capture = Capture::Fabric(Box::new(f));
        }
    }
    Ok(out)
}

/// FIG. 7 as a scenario file would say it: the manager places the job, real frame lengths.
fn fig7(o: &Options, progress: Progress) -> Result<Outcome, String> {
    let file = ScenarioFile { topology: "fig7".into(), arrangement: Arrangement::Managed, mode: Mode::Realistic, hop_latency_ns: Some(o.hop_latency_ns), real_frames: true, source: 0, master: None };
    run_file(&file, "fig7", o, progress)
}

/// A scenario file's run (one all-reduce), named `label` in the progress display; `--pcap` captures it
/// again.
pub fn run_file(file: &ScenarioFile, label: &str, o: &Options, progress: Progress) -> Result<Outcome, String> {
    let mut spec = file.spec()?;
    spec.skip_idle = o.skip_idle;
    let mut out = Outcome::default();
    let r = sc::run_collective(&spec, &mut |ps| progress(label, ps)).0;
    out.text += &report::run_line(&r);
    out.add("run", &r);
    out.capture = Capture::Rerun(Box::new(spec));
    Ok(out)
}

/// \[0148\]: N and M with their own masters; \[0153\]: M mastered by N's engine as well.
fn fig3(o: &Options, progress: Progress) -> Result<Outcome, String> {
    let hop = o.hop_latency_ps();
    let mut out = Outcome::default();
    let (r, fabric) = sc::run_fig3(hop, &mut |ps| progress("fig3", ps));
    let (one, _) = sc::run_fig3_contexts(&sc::FIG3_CONTEXTS_ONE_MASTER, hop, &mut |ps| progress("fig3, one master", ps));
    out.text += &r.text();
    out.text += "\n[0153]: context M mastered by collective engine 312 (switch 306) as well\n";
    out.text += &one.text();
    out.add("fig3", &r);
    out.add("fig3_one_master", &one);
    if !r.ok() || !one.ok() {
        out.failure = Some("a FIG. 3 context's result is wrong");
    }
    if let Some(f) = fabric {
        out.capture = Capture::Fabric(Box::new(f));
    }
    Ok(out)
}

/// The built-in jobs ([`sc::builtin_jobs`]); `--pcap` captures the first topology's jobs (FIG. 7).
fn jobs(o: &Options, progress: Progress) -> Result<Outcome, String> {
    let hop = o.hop_latency_ps();
    let mut out = Outcome::default();
    let mut all = Vec::new();
    let mut failed = false;
    for (topology, jobs) in sc::builtin_jobs() {
        let first = matches!(out.capture, Capture::Nothing);
        let (r, fabric) = sc::run_jobs_captured(&topology, &jobs, hop, o.capture && first, &mut |ps| progress("jobs", ps));
        if let (true, Some(f)) = (first, fabric) {
            out.capture = Capture::Fabric(Box::new(f));
        }
        failed |= r.error.is_some() || r.jobs.iter().any(|j| !j.ok);
        out.text += &report::jobs_text(&r);
        all.push(r);
    }
    out.add("jobs", &all);
    if failed {
        out.failure = Some("a job's result is wrong");
    }
    Ok(out)
}

/// The Soft Portals tree ([`sc::run_portals_captured`]).
fn portals(o: &Options, progress: Progress) -> Result<Outcome, String> {
    let mut out = Outcome::default();
    let (r, fabric) = sc::run_portals_captured(o.hop_latency_ps(), o.capture, &mut |ps| progress("portals", ps));
    out.text += &r.text();
    out.add("portals", &r);
    if !r.ok() {
        out.failure = Some("a Portals round is wrong");
    }
    if let Some(f) = fabric {
        out.capture = Capture::Fabric(Box::new(f));
    }
    Ok(out)
}

/// Latency vs end nodes, serialization-only ([`SCALING_SWITCHES`]); with a plot, the plot's runs
/// ([`scaling_for_plot`]) are the scenario. `--pcap` captures the smallest realistic distributed run.
fn scaling(o: &Options, progress: Progress) -> Result<Outcome, String> {
    let mut out = Outcome::default();
    if let Some(size) = o.size {
        let mut spec = size.spec(o.hop_latency_ps())?;
        spec.skip_idle = o.skip_idle;
        let (r, _) = sc::run_collective(&spec, &mut |ps| progress("scaling", ps));
        out.text += &report::run_line(&r);
        if r.error.is_some() || r.result_value != r.expected_value {
            out.failure = Some("the all-reduce result is wrong at an end node");
        }
        out.add("scaling", &[&r]);
        out.capture = Capture::Rerun(Box::new(spec));
        return Ok(out);
    }
    if !o.plot {
        let runs = sc::scaling(Mode::Serialization, &SCALING_SWITCHES, 0, &mut |ps| progress("scaling", ps));
        for r in &runs {
            out.text += &report::run_line(r);
        }
        out.add("scaling", &runs);
    }
    out.capture = Capture::Rerun(Box::new(sc::table1_spec(2, 32, Arrangement::Distributed, Mode::Realistic, o.hop_latency_ps())));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_the_default_is_one() {
        let mut names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BUILTINS.len());
        assert!(find(DEFAULT).is_some());
        assert!(find("no-such-scenario").is_none());
    }

    #[test]
    fn scaling_at_a_size_runs_one_checked_all_reduce_and_refuses_a_shape_that_does_not_fit() {
        let mut o = Options { hop_latency_ns: 100.0, skip_idle: true, capture: false, plot: false, size: Some(FabricSize { end_nodes: 189, per_switch: 63 }) };
        let out = scaling(&o, &mut |_, _| {}).expect("3 x 63 fits");
        assert_eq!(out.failure, None, "{}", out.text);
        assert!(out.text.contains("Hierarchical Realistic fbfly3x63") && out.text.contains(", ok)"), "{}", out.text);
        o.size = Some(FabricSize { end_nodes: 100, per_switch: 63 });
        assert!(scaling(&o, &mut |_, _| {}).is_err_and(|e| e.contains("not a whole number of switches")));
        // 1,025 x 63 needs more than 16-bit device IDs.
        o.size = Some(FabricSize { end_nodes: 1025 * 63, per_switch: 63 });
        assert!(scaling(&o, &mut |_, _| {}).is_err());
    }

    #[test]
    fn docs_list_every_builtin() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/fabric.md")).expect("docs/fabric.md");
        for b in &BUILTINS {
            assert!(doc.contains(&format!("| `{}` | {} |", b.name, b.about)), "docs/fabric.md §Built-in scenarios lacks the row of {}", b.name);
        }
    }
}
