//! Scenario files (JSON, `docs/fabric.md` §Scenario files) and topologies named on the command line.

use super::collective::{Mode, RunSpec, DEFAULT_HOP_LATENCY_PS};
use crate::drive;
use crate::setup::Arrangement;
use crate::topology::{LinkSpec, Ps, Topology};

/// A topology named on the command line or in a scenario file: `fig3`, `fig7`, `fbfly:<switches>x<end nodes>`,
/// `fattree:<radix>`, or `file:<path>` (either topology file format, `docs/fabric.md` §Topology files:
/// the line format or the manager's JSON, [`drive::load_topology`]). Built-in links are PCIe Gen 6 x2.
pub fn topology_from(spec: &str) -> Result<Topology, String> {
    let link = LinkSpec::default();
    let bad = || format!("topology {spec:?}: expected fig3, fig7, fbfly:<switches>x<end nodes>, fattree:<radix> or file:<path>");
    match spec {
        "fig3" => return Ok(Topology::fig3(link)),
        "fig7" => return Ok(Topology::fig7(link)),
        _ => {}
    }
    let (kind, arg) = spec.split_once(':').ok_or_else(bad)?;
    match kind {
        "fbfly" => {
            let (a, b) = arg.split_once('x').ok_or_else(bad)?;
            let (a, b) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
            Topology::flattened_butterfly(a, b, link).map_err(|e| e.to_string())
        }
        "fattree" => Topology::fat_tree(arg.parse().map_err(|_| bad())?, link).map_err(|e| e.to_string()),
        "file" => {
            let text = std::fs::read_to_string(arg).map_err(|e| format!("{arg}: {e}"))?;
            drive::load_topology(&text).map(|(t, _)| t).map_err(|e| format!("{arg}: {e}"))
        }
        _ => Err(bad()),
    }
}

/// A scenario file (JSON, `docs/fabric.md` §Scenario files): one all-reduce on any topology.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Topology (see [`topology_from`]).
    pub topology: String,
    /// `monolithic` or `distributed` (default).
    #[serde(default = "distributed")]
    pub arrangement: Arrangement,
    /// `serialization` or `realistic` (default).
    #[serde(default = "realistic")]
    pub mode: Mode,
    /// Crossbar latency per hop, ns (realistic mode; default 100).
    pub hop_latency_ns: Option<f64>,
    /// Serialize real frame lengths instead of Table 1's sizes (realistic mode).
    #[serde(default)]
    pub real_frames: bool,
    /// Source end node (index in the topology's end-node list; default 0).
    #[serde(default)]
    pub source: usize,
    /// Master switch (default: the source's switch).
    pub master: Option<usize>,
}

fn distributed() -> Arrangement {
    Arrangement::Distributed
}

fn realistic() -> Mode {
    Mode::Realistic
}

impl ScenarioFile {
    /// The run it describes.
    pub fn spec(&self) -> Result<RunSpec, String> {
        let topology = topology_from(&self.topology)?;
        let src = topology.endpoints.get(self.source).ok_or_else(|| format!("source end node {} does not exist", self.source))?;
        let master = self.master.unwrap_or(src.switch);
        if master >= topology.switches.len() {
            return Err(format!("master switch {master} does not exist"));
        }
        Ok(RunSpec {
            topology_name: topology.name.clone(),
            topology,
            arrangement: self.arrangement,
            mode: self.mode,
            hop_latency_ps: self.hop_latency_ns.map_or(DEFAULT_HOP_LATENCY_PS, |n| (n * 1000.0).round() as Ps),
            source: self.source,
            master,
            skip_idle: true,
            capture: false,
            real_frames: self.real_frames,
        })
    }
}
