//! What `inswitch sim` prints: the Table 1 comparison (seed vs ours, both modes), the two-master case,
//! and single runs; as text tables or one JSON document. Also the pcap of chosen links.

use std::io::Write;
use std::time::Duration;

use inswitch_frames::decode::FrameKind;
use inswitch_frames::pcap::{write_pcap, Record};

use crate::scenario::{JobsResult, Mode, RunResult, TwoMasterResult, SEED_TABLE1};
use crate::sim::{ChannelKind, Fabric};
use crate::wire::{LCRC_LEN, SEQ_LEN};

fn ns(ps: u64) -> String {
    let v = ps as f64 / 1000.0;
    if v >= 10_000.0 {
        format!("{:.2} us", v / 1000.0)
    } else {
        format!("{v:.1} ns")
    }
}

fn pct(ours: f64, seed: f64) -> String {
    format!("{:+.1}%", (ours - seed) / seed * 100.0)
}

/// One Table 1 row of a run.
type Row = fn(&RunResult) -> f64;

/// The Table 1 comparison: seed figures, serialization-only results, realistic results.
pub fn table1_text(ser: &[RunResult; 2], real: Option<&[RunResult; 2]>, hop_latency_ps: u64) -> String {
    let mut s = String::new();
    s += "Table 1 (seed 000 [0099]-[0103]): 32 switches x 32 end nodes, flattened butterfly, PCIe Gen 6 x2 (16 GB/s)\n";
    s += "serialization only = the table's assumptions: 32-byte command, 1056-byte responses, no switch or engine delay\n\n";
    s += &format!("{:<52} {:>12} {:>12} | {:>12} {:>8} {:>12} {:>8}\n", "", "seed mono", "seed dist", "ours mono", "", "ours dist", "");
    let rows: [(usize, Row); 3] = [
        (0, |r| r.frames_per_isl_from_master.1 as f64),
        (1, |r| r.command_to_all_ps as f64 / 1000.0),
        (2, |r| r.responses_from_all_ps as f64 / 1000.0),
    ];
    for (i, get) in rows {
        let (name, sm, sd) = SEED_TABLE1[i];
        let (om, od) = (get(&ser[0]), get(&ser[1]));
        s += &format!("{name:<52} {sm:>12} {sd:>12} | {om:>12} {:>8} {od:>12} {:>8}\n", pct(om, sm), pct(od, sd));
    }
    s += &format!(
        "{:<52} {:>12} {:>12} | {:>12} {:>8} {:>12}\n",
        "result to all endpoints (ns, not in the table)",
        "",
        "",
        ser[0].result_to_all_ps as f64 / 1000.0,
        "",
        ser[1].result_to_all_ps as f64 / 1000.0
    );
    s += &format!(
        "frames the master engine sent (command) / received (responses): monolithic {}/{}, distributed {}/{} \
         (seed: 1023 to/from end nodes; 31 to/from subservient engines, the master's own end nodes not counted); \
         per subservient engine sent: {} (seed: 32)\n",
        ser[0].master_sent_command, ser[0].master_received_responses, ser[1].master_sent_command, ser[1].master_received_responses, ser[1].subservient_sent_command
    );
    s += &format!(
        "every end node got the command / result exactly once: monolithic {}/{}, distributed {}/{}\n",
        ser[0].command_exactly_once, ser[0].result_exactly_once, ser[1].command_exactly_once, ser[1].result_exactly_once
    );
    if let Some(real) = real {
        s += &format!(
            "\nrealistic: the cycle-level engine in every switch, {} per switch hop, the table's frame sizes on the links\n",
            ns(hop_latency_ps)
        );
        for r in real {
            s += &run_line(r);
        }
    }
    s
}

/// One line per run.
pub fn run_line(r: &RunResult) -> String {
    let what = format!("{:?} {:?} {} ({} participants)", r.arrangement.unwrap_or(crate::setup::Arrangement::Distributed), r.mode.unwrap_or(Mode::Realistic), r.topology, r.participants);
    if let Some(e) = &r.error {
        return format!("  {what}: n/a: {e}\n");
    }
    let value = match (r.result_value, r.expected_value) {
        (Some(v), Some(x)) => format!(", result {v} (expected {x}{})", if v == x { ", ok" } else { ", WRONG" }),
        (None, Some(x)) => format!(", result differs between end nodes (expected {x})"),
        _ => String::new(),
    };
    format!(
        "  {what}: frames per ISL from the master's switch {}, command to all {}, responses from all {}, result to all {}{value}; exactly once {}/{}; {} frames, {} engine cycles stepped ({} skipped), {:.3} s\n",
        r.frames_per_isl_from_master.1,
        ns(r.command_to_all_ps),
        ns(r.responses_from_all_ps),
        ns(r.result_to_all_ps),
        r.command_exactly_once,
        r.result_exactly_once,
        r.frames,
        r.engine_steps,
        r.engine_cycles_skipped,
        r.wall_s
    )
}

/// Several manager-placed jobs at once: one line per job.
pub fn jobs_text(r: &JobsResult) -> String {
    let mut s = format!("{}: {} jobs placed by the collective manager, started at once\n", r.topology, r.jobs.len());
    if let Some(e) = &r.error {
        return s + &format!("  n/a: {e}\n");
    }
    for j in &r.jobs {
        s += &format!(
            "  CC_ID {}: master {}, {} engines, {} participants, all-reduce {}, result {} at every participant: {}\n",
            j.cc_id,
            j.master,
            j.engines,
            j.participants,
            ns(j.all_reduce_ps),
            j.expected_value,
            if j.ok { "ok" } else { "WRONG" }
        );
    }
    s
}

/// The two-master comparison.
pub fn two_masters_text(rs: &[TwoMasterResult]) -> String {
    let mut s = String::from("\nTwo masters ([0150]-[0153]): 32 x 32 flattened butterfly, PCIe Gen 7 (32 GB/s), 1056-byte frames (33 ns), contexts started at once\n");
    s += "(the seed counts frames per master link, so the engine port is not a bottleneck here; realistic = cycle engines, 16 descriptors)\n";
    s += &format!("{:<14} {:>9} {:>8} {:>22} {:>21} {:>10} {:>8} {:>16} {:>8}\n", "mode", "contexts", "masters", "frames per master ISL", "initial distribution", "seed", "", "all-reduce", "result");
    for r in rs {
        let result = match r.results_ok {
            Some(true) => "ok",
            Some(false) => "WRONG",
            None => "",
        };
        s += &format!(
            "{:<14} {:>9} {:>8} {:>22} {:>21} {:>10} {:>8} {:>16} {:>8}\n",
            format!("{:?}", r.mode.unwrap_or(Mode::Serialization)).to_lowercase(),
            r.contexts,
            r.masters,
            r.max_frames_per_isl,
            ns(r.distribution_ps),
            ns(r.seed_ps),
            // The seed's figure is link arithmetic: compared with the serialization-only run only.
            if r.mode == Some(Mode::Realistic) { String::new() } else { pct(r.distribution_ps as f64, r.seed_ps as f64) },
            ns(r.all_reduce_ps),
            result
        );
    }
    s
}

/// Which channels a pcap holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkFilter {
    /// The ISLs out of and into switch `n` (the master's).
    SwitchIsls(usize),
    /// Every ISL.
    Isls,
    /// Every engine port.
    Engines,
    /// Every channel.
    All,
}

impl LinkFilter {
    /// Whether channel kind `k` is selected.
    pub fn picks(&self, f: &Fabric, k: ChannelKind) -> bool {
        match (self, k) {
            (LinkFilter::All, _) => true,
            (LinkFilter::Isls, ChannelKind::Isl(_)) => true,
            (LinkFilter::Engines, ChannelKind::ToEngine(_) | ChannelKind::FromEngine(_)) => true,
            (LinkFilter::SwitchIsls(s), ChannelKind::Isl(i)) => {
                let d = f.routes.directed(i);
                d.0 == *s || d.1 == *s
            }
            _ => false,
        }
    }
}

/// Writes every captured frame on the selected channels as a pcap of non-flit TLPs (`LINKTYPE_USER0`,
/// docs/frames.md §8; the data-link sequence number and LCRC are stripped), timestamped with the time
/// its head entered the channel (microsecond resolution of classic pcap). Returns the frame count.
pub fn write_links_pcap<W: Write>(w: W, f: &Fabric, filter: LinkFilter) -> Result<usize, inswitch_frames::error::Error> {
    let mut records = Vec::new();
    for c in &f.captured {
        if !filter.picks(f, f.channel(c.channel).kind) {
            continue;
        }
        let b = &f.frames[c.frame as usize].bytes;
        // Soft Portals frames are Ethernet, not TLPs: only pcapng (`crate::capture`) holds both.
        if b.len() < SEQ_LEN + LCRC_LEN || crate::wire::is_soft_portals(b) {
            continue;
        }
        records.push(Record { timestamp: Duration::from_nanos(c.start / 1000), data: b[SEQ_LEN..b.len() - LCRC_LEN].to_vec() });
    }
    records.sort_by_key(|r| r.timestamp);
    write_pcap(w, FrameKind::Tlp, &records)?;
    Ok(records.len())
}
