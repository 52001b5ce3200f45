//! `inswitch sim --pcap F.pcapng` for scenarios beyond one collective run, and `inswitch decode` on a
//! capture: each frame headed by its interface (the link) and its simulated time, in text and JSON.

use std::process::Command;

fn inswitch(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_inswitch")).args(args).output().expect("run inswitch");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn portals_fig3_and_two_masters_capture_and_decode_shows_link_and_time() {
    let d = std::env::temp_dir().join(format!("inswitch-capture-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    for scenario in ["portals", "fig3", "two-masters"] {
        let cap = d.join(format!("{scenario}.pcapng"));
        let (code, out, err) = inswitch(&["sim", "--quiet", "--scenario", scenario, "--pcap", cap.to_str().unwrap()]);
        assert_eq!(code, 0, "{scenario}: {err}\n{out}");
        assert!(out.contains("pcapng:") && out.contains("interfaces)"), "{out}");
        let (code, out, err) = inswitch(&["decode", "--pcap", cap.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let heads: Vec<&str> = out.lines().filter(|l| l.starts_with("Frame ")).collect();
        assert!(heads.len() > 10, "{out}");
        assert!(heads.iter().all(|h| h.contains(" on ") && h.contains(" at ") && (h.ends_with("ns)") || h.contains(" ns (") || h.contains(" us ("))), "{heads:?}");
        let (code, out, err) = inswitch(&["decode", "--pcap", cap.to_str().unwrap(), "--json"]);
        assert_eq!(code, 0, "{err}");
        let frames: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let times: Vec<u64> = frames.iter().map(|f| f["time_ns"].as_u64().expect("time_ns")).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]) && times.last() > times.first(), "{times:?}");
        let links: std::collections::BTreeSet<&str> = frames.iter().map(|f| f["interface"].as_str().expect("interface")).collect();
        assert!(links.len() >= 2, "{links:?}");
        if scenario == "portals" {
            assert!(frames.iter().any(|f| f["kind"] == "soft_portals" && f["soft_portals"]["portals"]["header"]["cookie"]["magic"] == 0x0c0e), "no Soft Portals frame with the 16-bit magic");
            assert!(frames.iter().any(|f| f["kind"] == "tlp"));
        }
    }
    // The classic pcap still works, with times.
    let cap = d.join("fig7.pcap");
    let (code, _, err) = inswitch(&["sim", "--quiet", "--scenario", "fig7", "--pcap", cap.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = inswitch(&["decode", "--pcap", cap.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Frame 0: on interface 0 at "), "{out}");
}
