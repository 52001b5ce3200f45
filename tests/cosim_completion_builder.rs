//! Lockstep co-simulation of the completion builder (Rust model vs Verilated RTL), every completion
//! decoded with the frames crate; a sample cross-checked with cocotbext-pcie; the documented timing.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use inswitch::blocks::completion_builder::{self, counter, Sample};
use inswitch::checker::{self, RunConfig};
use inswitch_model::completion_builder::{CompletionBuilder, CompletionBuilderIn, CompletionBuilderParams};
use inswitch_model::Block;

/// The bar: at least 10^6 cycles with 0 mismatches.
const CYCLES: u64 = 1_000_000;

#[test]
fn completion_builder_matches_rtl_for_a_million_cycles() {
    let cfg = RunConfig { seed: 0x5eed_c91d, cycles: CYCLES, wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-out") };
    let outcome = completion_builder::run("completion_builder", &cfg, &mut |_| {}).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(outcome.cycles, CYCLES);
    for (name, min) in [
        (counter::CPLD, 20_000),
        (counter::UR_REGISTER, 10_000),
        (counter::UR_DROPPED, 20_000),
        (counter::UR_LOCKED, 2_000),
        (counter::UR_MULTI_DW, 5_000),
        (counter::CA, 10_000),
        (counter::POSTED, 20_000),
        (counter::BOTH_OFFERED, 10_000),
        (counter::STALLED, 10_000),
        (counter::RESETS, 5),
    ] {
        assert!(outcome.counter(name) >= min, "coverage hole: {name} = {} < {min}", outcome.counter(name));
    }
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// cocotbext-pcie (in `.venv`, `scripts/setup`) unpacks a sample of the completions and builds the
/// completion for each request its own way (`Tlp.create_completion_for_tlp` on the request, Byte Count
/// from `get_be_byte_count`); `scripts/oracles/cpl_oracle.py` compares every field and the packed bytes.
#[test]
fn a_sample_of_completions_matches_cocotbext_pcie() {
    let py = repo_root().join(".venv/bin/python");
    assert!(py.exists(), "Python oracle venv missing at {}: run `bash scripts/setup`", py.display());
    let checker::Bench { mut model, mut rtl, mut stimulus, monitor: mut mon } =
        completion_builder::bench("completion_builder", 0x5eed_0c0c).unwrap_or_else(|e| panic!("{e}"));
    checker::lockstep(&mut model, &mut rtl, &mut stimulus, &mut mon, 100_000, None, &mut |_| {}).unwrap_or_else(|f| panic!("{f:?}"));
    let samples: &[Sample] = mon.samples();
    assert_eq!(samples.len(), completion_builder::ORACLE_SAMPLES);
    let mut input = String::new();
    for smp in samples {
        let e = &smp.expected;
        input.push_str(&format!(
            "{{\"hex\":\"{}\",\"status\":{},\"data\":{},\"requester_id\":{},\"tag\":{},\"tc\":{},\"attr\":{},\"mem_read\":{},\"locked\":{},\"length\":{},\"first_be\":{},\"last_be\":{},\"addr\":{},\"completer_id\":{}}}\n",
            smp.tlp.iter().map(|b| format!("{b:02x}")).collect::<String>(),
            e.status.unwrap_or(0), e.data, e.requester_id, e.tag, e.tc, e.attr, e.mem_read, e.locked, e.length_dw, e.first_be, e.last_be, e.addr, e.completer_id
        ));
    }
    let mut child = Command::new(&py)
        .arg(repo_root().join("scripts/oracles/cpl_oracle.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the oracle");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write to the oracle");
    let out = child.wait_with_output().expect("oracle output");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "oracle failed: {}\n{text}", String::from_utf8_lossy(&out.stderr));
    let mut checked = 0;
    for line in text.lines() {
        assert!(!line.contains("\"errors\": [\""), "cocotbext-pcie disagrees: {line}");
        checked += 1;
    }
    assert_eq!(checked, samples.len(), "one verdict per completion");
}

fn idle() -> CompletionBuilderIn {
    CompletionBuilderIn { m_axis_tready: true, cfg_engine_id: 0x0010, ..Default::default() }
}

/// The timing table of docs/blocks/completion_builder.md: a request taken at edge k is on m_axis from
/// cycle k+1; back-to-back requests give one completion per cycle; a stalled output holds both streams.
#[test]
fn latency_and_throughput_are_as_documented() {
    let mut c = CompletionBuilder::new(CompletionBuilderParams::default()).expect("default parameters");
    c.step(&CompletionBuilderIn { rst: true, ..idle() });
    let read = |tag: u16| CompletionBuilderIn { s_rsp_valid: true, s_rsp_tag: tag, s_rsp_be: 0xF, ..idle() };
    let mut tags = Vec::new();
    for k in 0..10u16 {
        let o = c.step(&read(k));
        assert!(o.s_rsp_ready, "one request per cycle");
        if o.m_axis_tvalid {
            tags.push((k, o.m_axis_tdata.byte(12)));
        }
    }
    // Request k (tag k; byte 12 of the frame is Tag[7:0]) is on the output in cycle k+1.
    assert_eq!(tags, (1..10).map(|k| (k, (k - 1) as u8)).collect::<Vec<_>>());
    let o = c.step(&CompletionBuilderIn { m_axis_tready: false, s_ur_valid: true, ..read(10) });
    assert!(o.m_axis_tvalid && !o.s_rsp_ready && !o.s_ur_ready, "a stalled completion holds both streams");
    let o = c.step(&CompletionBuilderIn { s_ur_valid: true, ..read(10) });
    assert!(o.s_rsp_ready && !o.s_ur_ready, "register responses first");
}

/// The scoreboard, run on the model alone with one output altered as if model and RTL agreed on it,
/// rejects a wrong Byte Count, a wrong LCRC, a lost completion and a wrong tuser.
#[test]
fn the_scoreboard_rejects_wrong_completions() {
    use inswitch::blocks::completion_builder::CompletionBuilderMonitor;
    use inswitch::checker::Monitor;
    type Corrupt = fn(&mut inswitch_model::completion_builder::CompletionBuilderOut);
    let cases: [(&str, Corrupt); 4] = [
        ("byte count", |o| o.m_axis_tdata.set_byte(9, o.m_axis_tdata.byte(9) ^ 0x01)),
        ("LCRC", |o| o.m_axis_tdata.set_byte(17, o.m_axis_tdata.byte(17) ^ 0x80)),
        ("lost completion", |o| o.m_axis_tvalid = false),
        ("tuser", |o| o.m_axis_tuser ^= 0x0100),
    ];
    for (what, corrupt) in cases {
        let mut c = CompletionBuilder::new(CompletionBuilderParams::default()).expect("default parameters");
        let mut mon = CompletionBuilderMonitor::new();
        let rst = CompletionBuilderIn { rst: true, ..idle() };
        let o = c.step(&rst);
        mon.observe(0, &rst, &o).expect("reset");
        let read = CompletionBuilderIn { s_rsp_valid: true, s_rsp_src: 0x0001, s_rsp_tag: 0x155, s_rsp_be: 0x6, s_rsp_addr: 0x104, s_rsp_rdata: 0xDEAD_BEEF, ..idle() };
        let o = c.step(&read);
        mon.observe(1, &read, &o).expect("the read is taken");
        let mut o = c.step(&idle());
        corrupt(&mut o);
        let r = mon.observe(2, &idle(), &o);
        assert!(r.is_err(), "{what}: the scoreboard accepted it");
    }
}
