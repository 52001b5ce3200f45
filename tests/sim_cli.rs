//! `inswitch sim`: the Table 1 summary, JSON, scenario files, pcap and plot outputs.

use std::process::Command;

fn inswitch(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_inswitch")).args(args).output().expect("run inswitch");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn sim_prints_table_1_against_the_seed_and_json() {
    let (code, out, err) = inswitch(&["sim", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("frames per ISL from the master's switch"), "{out}");
    assert!(out.contains("2046") && out.contains("67518") && out.contains("4158"), "{out}");
    assert!(out.contains("result 524799 (expected 524799, ok)"), "{out}");
    assert!(out.contains("n/a: plan: engine of s0 needs 1023 PBV entries"), "{out}");
    let (code, out, err) = inswitch(&["sim", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(v["table1_serialization"][1]["command_to_all_ps"], 126_000);
    assert_eq!(v["table1_serialization"][0]["frames_per_isl_from_master"][1], 32);
    assert_eq!(v["two_masters"][2]["max_frames_per_isl"], 16);
    assert_eq!(v["two_masters"][6]["results_ok"], true, "realistic two-master run");
}

#[test]
fn sim_runs_a_scenario_file_with_a_topology_file_and_writes_pcap_and_plot() {
    let dir = std::env::temp_dir().join(format!("inswitch-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let topo = dir.join("tiny.topo");
    std::fs::write(&topo, "switch a id=0x0000\nswitch b id=0x0010\nendpoint src a id=0x0001\nendpoint n1 a id=0x0002\nendpoint n2 b id=0x0011\nendpoint n3 b id=0x0012\nlink a b delay_ns=10\n").unwrap();
    let scen = dir.join("s.json");
    std::fs::write(&scen, format!("{{\"topology\": \"file:{}\", \"real_frames\": true}}", topo.display())).unwrap();
    let pcap = dir.join("s.pcap");
    let (code, out, err) = inswitch(&["sim", "--quiet", "--scenario", scen.to_str().unwrap(), "--pcap", pcap.to_str().unwrap(), "--pcap-links", "all"]);
    assert_eq!(code, 0, "{err}");
    // Values are end-node index + 1: n1, n2, n3 give 2 + 3 + 4.
    assert!(out.contains("(3 participants)") && out.contains("result 9 (expected 9, ok)"), "{out}");
    let (code, out, err) = inswitch(&["decode", "--pcap", pcap.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().count() > 10, "{out}");
    let svg = dir.join("l.svg");
    let (code, _, err) = inswitch(&["sim", "--quiet", "--scenario", "two-masters", "--plot", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.contains("<svg") && s.contains("Distributed (Realistic)") && s.contains("Monolithic (Serialization)"));
    // The same plot as PNG: a PNG of the plot's size, not all one colour (curves and text were drawn).
    let png = dir.join("l.png");
    let (code, out, err) = inswitch(&["sim", "--quiet", "--scenario", "two-masters", "--plot", png.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("plot: ") && out.contains("l.png"), "{out}");
    let mut reader = png::Decoder::new(std::fs::File::open(&png).unwrap()).read_info().expect("a PNG");
    let (w, h) = (reader.info().width, reader.info().height);
    assert_eq!((w, h), inswitch_fabric::plot::PLOT_SIZE);
    let mut px = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut px).expect("PNG data");
    let px = &px[..frame.buffer_size()];
    let colours: std::collections::HashSet<&[u8]> = px.chunks(frame.color_type.samples()).collect();
    assert!(colours.len() > 16, "{} colours: antialiased curves and text", colours.len());
    // Any other extension is refused, naming the formats.
    let (code, _, err) = inswitch(&["sim", "--quiet", "--scenario", "two-masters", "--plot", dir.join("l.jpg").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains(".svg or .png"), "{err}");
    let (code, _, err) = inswitch(&["sim", "--scenario", "no-such-scenario"]);
    assert_eq!(code, 2);
    assert!(err.contains("neither a built-in name"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sim_fig7_and_jobs_are_placed_by_the_manager() {
    let (code, out, err) = inswitch(&["sim", "--quiet", "--scenario", "fig7"]);
    assert_eq!(code, 0, "{err}");
    // Every node but the source 735: values (end-node index + 1) 2..=9.
    assert!(out.contains("Managed Realistic fig7 (8 participants)") && out.contains("result 44 (expected 44, ok)"), "{out}");
    let (code, out, err) = inswitch(&["sim", "--json", "--scenario", "jobs"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    let fig7 = &v["jobs"][0]["jobs"];
    // [0180]-[0182]: CC_IDs 0-2 on master 720; sums of values over all nine nodes, the six of 720 and
    // 725, all but 725's third node (value 6).
    for (k, sum) in [45, 21, 39].into_iter().enumerate() {
        assert_eq!(fig7[k]["cc_id"], k as u64);
        assert_eq!(fig7[k]["master"], "720");
        assert_eq!(fig7[k]["expected_value"], sum);
        assert_eq!(fig7[k]["ok"], true);
    }
    assert_eq!(v["jobs"][1]["jobs"].as_array().unwrap().len(), 4);
    assert!(v["jobs"][1]["jobs"].as_array().unwrap().iter().all(|j| j["ok"] == true), "{out}");
}

#[test]
fn sim_fig3_runs_contexts_n_and_m_with_their_own_masters() {
    let (code, out, err) = inswitch(&["sim", "--json", "--scenario", "fig3"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    let ctxs = v["fig3"]["contexts"].as_array().expect("contexts");
    // [0148]: N mastered in 306, M in 330; values are end-node index + 1 (318, 326 = 2, 3; 340-352 = 5-8).
    for (c, (name, master, sum)) in ctxs.iter().zip([("N", "306", 5), ("M", "330", 26)]) {
        assert_eq!((c["spec"]["name"].as_str(), c["spec"]["master"].as_str()), (Some(name), Some(master)));
        assert_eq!((c["source_result"].as_u64(), c["ok"].as_bool()), (Some(sum), Some(true)), "{c}");
    }
    let (code, out, err) = inswitch(&["sim", "--quiet", "--scenario", "fig3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("context N (CC_ID 0): source 316, master engine in 306") && out.contains("306->330 1, 330->306 1"), "{out}");
}

#[test]
fn sim_help_lists_the_registered_scenarios_and_refuses_others() {
    let (code, out, err) = inswitch(&["sim", "--help"]);
    assert_eq!(code, 0, "{err}");
    for b in &inswitch_fabric::builtin::BUILTINS {
        assert!(out.contains(&format!("{}:", b.name)) && out.contains(b.about), "--help lacks {}: {out}", b.name);
    }
    let (code, _, err) = inswitch(&["sim", "--scenario", "table2"]);
    assert_eq!(code, 2);
    assert!(err.contains("neither a built-in name (table1, two-masters, fig7, fig3, jobs, portals, scaling)"), "{err}");
}

#[test]
fn sim_scaling_takes_a_fabric_size() {
    // 2 switches x 63 end nodes: one realistic hierarchical all-reduce, its result checked.
    let (code, out, err) = inswitch(&["sim", "--quiet", "--scenario", "scaling", "--end-nodes", "126", "--per-switch", "63"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Hierarchical Realistic fbfly2x63") && out.contains(", ok)"), "{out}");
    // A size that is no whole number of switches, or more than 16-bit device IDs allow: usage errors.
    let (code, _, err) = inswitch(&["sim", "--quiet", "--scenario", "scaling", "--end-nodes", "100", "--per-switch", "63"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a whole number of switches of 63"), "{err}");
    let (code, _, err) = inswitch(&["sim", "--quiet", "--scenario", "scaling", "--end-nodes", "64575", "--per-switch", "63"]);
    assert_eq!(code, 2, "{err}");
    // The size belongs to the scaling scenario.
    let (code, _, err) = inswitch(&["sim", "--quiet", "--scenario", "table1", "--end-nodes", "64"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--end-nodes sizes the scaling scenario only"), "{err}");
}
