//! `inswitch cosim` for CI (issue 13): JUnit XML read back by an independent XML parser, shards that
//! are disjoint and complete, parallel jobs that give the serial results, seeds files, exit statuses.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use inswitch::targets::TARGETS;

fn inswitch(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_inswitch")).args(args).output().expect("run inswitch");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn tmp(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-regress");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// (target, seed) of every run of a `--json` summary.
fn runs(summary: &serde_json::Value) -> Vec<(String, u64)> {
    summary["runs"].as_array().expect("runs").iter().map(|r| (r["target"].as_str().unwrap().to_string(), r["seed"].as_u64().unwrap())).collect()
}

/// The done-when command: valid JUnit with one testcase per target x seed.
#[test]
fn junit_has_a_testcase_per_target_and_seed() {
    let file = tmp("all.xml");
    let f = file.to_str().unwrap();
    let (code, out, err) = inswitch(&["cosim", "--block", "all", "--seeds", "2", "--cycles", "20000", "--jobs", "2", "--keep-going", "--junit", f, "--quiet"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("seeds used: 1 2"), "{out}");
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("invalid XML: {e}\n{text}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("tests"), Some(&*(TARGETS.len() * 2).to_string()));
    assert_eq!(root.attribute("failures"), Some("0"));
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), TARGETS.len(), "one testsuite per target");
    let mut cases = BTreeSet::new();
    for s in &suites {
        assert_eq!(s.tag_name().name(), "testsuite");
        let props: Vec<(&str, &str)> = s
            .children()
            .find(|n| n.has_tag_name("properties"))
            .expect("properties")
            .children()
            .filter(|n| n.has_tag_name("property"))
            .map(|p| (p.attribute("name").unwrap(), p.attribute("value").unwrap()))
            .collect();
        let prop = |k: &str| props.iter().find(|(n, _)| *n == k).map(|(_, v)| *v).unwrap_or_else(|| panic!("no property {k}"));
        assert!(prop("verilator_version").starts_with("Verilator 5"), "{props:?}");
        assert!(!prop("git_revision").is_empty() && !prop("git_revision").starts_with("unknown"), "{props:?}");
        assert_eq!(prop("seeds"), "1 2");
        for c in s.children().filter(|n| n.has_tag_name("testcase")) {
            let class = c.attribute("classname").expect("classname");
            assert_eq!(Some(class), s.attribute("name"), "classname = target = suite");
            let name = c.attribute("name").expect("name");
            let seed: u64 = name.strip_prefix("seed ").expect("name carries the seed").parse().unwrap();
            c.attribute("time").expect("time").parse::<f64>().expect("time is a number");
            assert!(!c.children().any(|n| n.has_tag_name("failure") || n.has_tag_name("error")));
            assert!(cases.insert((class.to_string(), seed)), "duplicate testcase {class} {name}");
        }
    }
    let expected: BTreeSet<(String, u64)> = TARGETS.iter().flat_map(|t| [1, 2].map(|s| (t.name.to_string(), s))).collect();
    assert_eq!(cases, expected);
}

/// `--shard 1/2` and `2/2` run disjoint sets whose union is the unsharded run, and `--jobs 2` gives the
/// same results (every counter) as `--jobs 1`: the parallel models share nothing.
#[test]
fn shards_are_disjoint_and_complete_and_jobs_do_not_change_results() {
    let base = ["cosim", "--block", "output_queue", "--seeds", "5", "--cycles", "3000", "--json"];
    let with = |extra: &[&str]| {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (code, out, err) = inswitch(&args);
        assert_eq!(code, 0, "{err}");
        json(&out)
    };
    let whole = with(&["--jobs", "1"]);
    let one = with(&["--shard", "1/2", "--jobs", "2"]);
    let two = with(&["--shard", "2/2", "--jobs", "2"]);
    let (w, a, b) = (runs(&whole), runs(&one), runs(&two));
    assert_eq!(w.len(), 10);
    let (sa, sb): (BTreeSet<_>, BTreeSet<_>) = (a.iter().cloned().collect(), b.iter().cloned().collect());
    assert!(sa.is_disjoint(&sb), "{a:?} / {b:?}");
    let union: BTreeSet<_> = sa.union(&sb).cloned().collect();
    assert_eq!(union, w.iter().cloned().collect::<BTreeSet<_>>());
    assert_eq!(one["shard"], "1/2");
    // Same counters for the same target x seed whatever the thread count.
    let parallel = with(&["--jobs", "2"]);
    assert_eq!(whole["runs"].as_array().unwrap().len(), parallel["runs"].as_array().unwrap().len());
    for (x, y) in whole["runs"].as_array().unwrap().iter().zip(parallel["runs"].as_array().unwrap()) {
        assert_eq!((&x["target"], &x["seed"], &x["counters"]), (&y["target"], &y["seed"], &y["counters"]));
    }
    assert_eq!(whole["exit_code"], 0);
    assert!(whole["verilator_version"].as_str().unwrap().starts_with("Verilator 5"));
}

#[test]
fn seeds_file_is_read_and_the_seeds_are_printed() {
    let file = tmp("seeds.txt");
    std::fs::write(&file, "# nightly seeds\n0x5eed_0006\n17 # found a bug once\n").unwrap();
    let (code, out, err) = inswitch(&["cosim", "--block", "axis_register", "--seeds-file", file.to_str().unwrap(), "--cycles", "2000", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("seeds used: {} 17", 0x5eed_0006u64)), "{out}");
    assert!(out.contains("1 targets x 2 seeds, 0 mismatches"), "{out}");
}

#[test]
fn soak_runs_fresh_seeds_until_the_budget() {
    let (code, out, err) = inswitch(&["cosim", "--block", "axis_register", "--time-budget", "1", "--cycles", "2000", "--seed", "1000", "--json"]);
    assert_eq!(code, 0, "{err}");
    let s = json(&out);
    let r = runs(&s);
    assert!(r.len() >= 2, "a one-second soak of 2,000-cycle runs runs several: {r:?}");
    let seeds: Vec<u64> = r.iter().map(|(_, s)| *s).collect();
    assert_eq!(seeds, (1000..1000 + r.len() as u64).collect::<Vec<_>>(), "fresh seeds upwards");
    assert!(s["seconds"].as_f64().unwrap() < 30.0);
}

/// Exit status 2 for usage errors, before anything runs.
#[test]
fn usage_errors_exit_2() {
    for args in [
        &["cosim", "--shard", "3/2"][..],
        &["cosim", "--shard", "x"],
        &["cosim", "--jobs", "0", "--cycles", "10"],
        &["cosim", "--seeds-file", "/nonexistent/seeds"],
        &["cosim", "--time-budget", "-1"],
        &["cosim", "--block", "no_such_block"],
    ] {
        let (code, out, err) = inswitch(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(!err.is_empty(), "{args:?} says why");
    }
}

/// `inswitch coverage` needs the coverage build; the default build says so and exits 2 (a coverage
/// build writes lcov with the module's line coverage instead).
#[test]
fn coverage_needs_the_coverage_build() {
    let out = tmp("coverage");
    let (code, stdout, err) = inswitch(&["coverage", "--block", "output_queue_w64", "--seeds", "1", "--cycles", "50000", "--out", out.to_str().unwrap()]);
    if inswitch::verilated::COVERAGE_BUILD {
        assert_eq!(code, 0, "{stdout}{err}");
        let info = std::fs::read_to_string(out.join("coverage.info")).expect("lcov written");
        assert!(info.contains("SF:") && info.contains("output_queue.v"), "{info}");
        assert!(stdout.lines().any(|l| l.starts_with("output_queue ") && l.contains('%')), "{stdout}");
    } else {
        assert_eq!(code, 2, "{stdout}{err}");
        assert!(err.contains("--features coverage"), "{err}");
    }
}

/// The pool starts the slow jobs first (a long job started last leaves one worker alone at the end) but
/// reports in list order.
#[test]
fn the_pool_takes_the_slowest_targets_first_and_reports_in_list_order() {
    use inswitch::regress::{jobs, run, PoolConfig, Source};
    use std::sync::Mutex;
    let pick = |name: &str| TARGETS.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no target {name}"));
    let list = jobs(&[pick("axis_register"), pick("output_queue_w64"), pick("output_queue_w256"), pick("packet_engine")], &[1, 2]);
    let wave_dir = tmp("pool-order");
    let cfg = PoolConfig { threads: 1, keep_going: true, cycles: 200, wave_dir, coverage_dir: None, shrink: false };
    let started = Mutex::new(Vec::new());
    let results = run(&Source::Fixed(list.clone()), &cfg, &|_| {}, &|r| started.lock().unwrap().push((r.target, r.seed)));
    let taken = started.into_inner().unwrap();
    let expect_taken = [("packet_engine", 1), ("packet_engine", 2), ("output_queue_w256", 1), ("output_queue_w256", 2), ("output_queue_w64", 1), ("output_queue_w64", 2), ("axis_register", 1), ("axis_register", 2)];
    assert_eq!(taken, expect_taken);
    let reported: Vec<(&str, u64)> = results.iter().map(|r| (r.target, r.seed)).collect();
    let listed: Vec<(&str, u64)> = list.iter().map(|j| (j.target.name, j.seed)).collect();
    assert_eq!(reported, listed);
    assert!(results.iter().all(|r| r.status() == "passed"));
}
