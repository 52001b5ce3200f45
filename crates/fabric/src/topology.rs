//! Fabric topologies: switches (each with one packet engine on an internal crossbar port), end nodes
//! attached to one switch each, and inter-switch links (ISLs). Built-in shapes (the seed's FIG. 7, the
//! 1-D flattened butterfly of Table 1, a two-level fat tree) and a small text format (`docs/fabric.md`
//! §Topology files).
//!
//! Routing is by 16-bit device ID, as PCIe ID routing and the engine's output queue do (000 \[0144\]):
//! a switch delivers a frame for its own engine or one of its end nodes locally and sends anything else
//! on the ISL of a shortest path to the destination's switch (breadth-first, lowest link index on ties),
//! over the links and switches that work ([`Routes::recompute`] after a failure).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Picoseconds, the simulator's time unit.
pub type Ps = u64;

/// PCIe Gen 6 is 64 GT/s per lane; two lanes carry 128 Gb/s = 16 GB/s (Table 1's "2x lanes of PCIe Gen 6
/// per port"; the table's 2 ns per 32-byte frame and 66 ns per 1056-byte frame are this rate). FLIT
/// and encoding overheads are ignored, as the table ignores them.
pub const GEN6_X2_BYTES_PER_S: u64 = 16_000_000_000;

/// One inter-switch link or end-node link: bandwidth and propagation delay (the same both ways).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkSpec {
    /// Bytes per second.
    pub bytes_per_s: u64,
    /// Propagation delay, ps.
    pub delay_ps: Ps,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec { bytes_per_s: GEN6_X2_BYTES_PER_S, delay_ps: 0 }
    }
}

impl LinkSpec {
    /// Time to serialize `bytes` on this link (rounded up to a picosecond).
    pub fn serialize_ps(&self, bytes: u32) -> Ps {
        (u128::from(bytes) * 1_000_000_000_000u128).div_ceil(u128::from(self.bytes_per_s)) as Ps
    }
}

/// A switch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Switch {
    /// Name (for reports and topology files).
    pub name: String,
    /// Device ID of the switch's packet engine (the engine is addressable, \[0089\], \[0113\]; Tables 2-4 give
    /// the switch's own ID, which this project gives to its engine).
    pub engine_id: u16,
}

/// An end node (source or participant).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// Name.
    pub name: String,
    /// Device ID.
    pub id: u16,
    /// Index of the switch it is attached to.
    pub switch: usize,
    /// Its link to the switch.
    pub link: LinkSpec,
}

/// An inter-switch link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isl {
    /// Switch index at one end.
    pub a: usize,
    /// Switch index at the other end.
    pub b: usize,
    /// Bandwidth and delay.
    pub link: LinkSpec,
}

/// A topology's inter-switch links, shared by its clones: read as a `Vec<Isl>`; a write copies them
/// first if another clone still shares them. Why: a flattened butterfly of 1,024 switches has 523,776
/// ISLs (17 MB), and the scenario's topology and the simulator's were two copies of them, the second
/// made for every run (docs/performance.md §Session 19).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Isls(Arc<Vec<Isl>>);

impl Deref for Isls {
    type Target = Vec<Isl>;
    fn deref(&self) -> &Vec<Isl> {
        &self.0
    }
}

impl DerefMut for Isls {
    fn deref_mut(&mut self) -> &mut Vec<Isl> {
        Arc::make_mut(&mut self.0)
    }
}

impl From<Vec<Isl>> for Isls {
    fn from(v: Vec<Isl>) -> Isls {
        Isls(Arc::new(v))
    }
}

impl FromIterator<Isl> for Isls {
    fn from_iter<I: IntoIterator<Item = Isl>>(it: I) -> Isls {
        Isls(Arc::new(it.into_iter().collect()))
    }
}

impl<'a> IntoIterator for &'a Isls {
    type Item = &'a Isl;
    type IntoIter = std::slice::Iter<'a, Isl>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// A whole fabric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Name (for reports).
    pub name: String,
    /// Switches.
    pub switches: Vec<Switch>,
    /// End nodes.
    pub endpoints: Vec<Endpoint>,
    /// Inter-switch links (shared by the topology's clones).
    pub isls: Isls,
    /// The internal port between the crossbar and the engine (the engine sits on a data-plane port,
    /// \[0091\], so it runs at port speed by default).
    pub engine_port: LinkSpec,
}

/// Where a device ID lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// The engine of switch `n`.
    Engine(usize),
    /// End node `n`.
    Endpoint(usize),
}

/// A topology that cannot be built or parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TopologyError {
    /// Two devices share an ID.
    #[error("device ID {id:#06x} is used twice ({first} and {second})")]
    DuplicateId {
        /// The ID.
        id: u16,
        /// First user.
        first: String,
        /// Second user.
        second: String,
    },
    /// A switch cannot reach another.
    #[error("switch {from} cannot reach switch {to}: the fabric is not connected")]
    Disconnected {
        /// From.
        from: String,
        /// To.
        to: String,
    },
    /// A line of a topology file is wrong.
    #[error("topology file line {line}: {detail}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        detail: String,
    },
    /// The shape parameters make no fabric.
    #[error("topology: {0}")]
    Shape(String),
}

/// Device IDs per switch in the generated shapes: the engine at `s * stride`, end node `k` at
/// `s * stride + 1 + k` (FIG. 7 uses a stride of 0x10: switch 725 is 0x0010, its nodes 0x0011-0x0013).
pub fn id_stride(endpoints_per_switch: usize) -> usize {
    (endpoints_per_switch + 1).next_power_of_two().max(0x10)
}

/// FIG. 3's boards (seed 000 \[0132\]-\[0133\]): per board, its switches with their end nodes, by the
/// figure's reference numerals.
const FIG3_BOARDS: [[(&str, [&str; 2]); 2]; 2] = [[("306", ["316", "318"]), ("308", ["326", "328"])], [("330", ["340", "342"]), ("332", ["350", "352"])]];
/// FIG. 3 device IDs `0xb0s0`: the board in the top hex digit ...
pub const FIG3_BOARD_SHIFT: u16 = 12;
/// ... and the switch within the board in the third, as Tables 2-4 number FIG. 7's switches (0x0010).
const FIG3_SWITCH_SHIFT: u16 = 4;

impl Topology {
    fn with_switches(name: &str, n: usize, per_switch: usize, link: LinkSpec) -> Result<Topology, TopologyError> {
        let stride = id_stride(per_switch);
        if n == 0 || n * stride > 0x1_0000 {
            return Err(TopologyError::Shape(format!("{n} switches x {per_switch} end nodes do not fit 16-bit device IDs")));
        }
        let mut t = Topology { name: name.into(), switches: vec![], endpoints: vec![], isls: Isls::default(), engine_port: LinkSpec::default() };
        for s in 0..n {
            let base = (s * stride) as u16;
            t.switches.push(Switch { name: format!("s{s}"), engine_id: base });
            for k in 0..per_switch {
                t.endpoints.push(Endpoint { name: format!("s{s}.e{k}"), id: base + 1 + k as u16, switch: s, link });
            }
        }
        Ok(t)
    }

    /// Seed 000 FIG. 7 (\[0174\]-\[0178\], Tables 2-4): switches 720, 725, 730 (0x0000, 0x0010, 0x0020), three
    /// end nodes each (0x0001-0x0003: source node 735, node 1, node 2; 0x0011-0x0013; 0x0021-0x0023);
    /// switch 720 linked to both others (the two-level hierarchy with 720 the master switch). Names are
    /// the figure's: switches `720`, `725`, `730` (boards 705, 710, 715), end nodes `735` (the source),
    /// `705.node1`, `705.node2`, `710.node0`-`710.node2`, `715.node0`-`715.node2`. The manager's map of it
    /// is derived from this one (`TopologyMap::fig7`).
    pub fn fig7(link: LinkSpec) -> Topology {
        let mut t = Topology::with_switches("fig7", 3, 3, link).expect("fits");
        for (s, (name, board)) in [("720", "705"), ("725", "710"), ("730", "715")].iter().enumerate() {
            t.switches[s].name = name.to_string();
            for k in 0..3 {
                t.endpoints[3 * s + k].name = format!("{board}.node{k}");
            }
        }
        t.endpoints[0].name = "735".into();
        t.isls = vec![Isl { a: 0, b: 1, link }, Isl { a: 0, b: 2, link }].into();
        t
    }

    /// Seed 000 FIG. 3 (\[0131\]-\[0133\], \[0149\]): local board 302 with master switch 306 (source node 316,
    /// local node 318) and local switch 308 (local nodes 326, 328); remote board 304 with remote switch 330
    /// (remote node 340, local node 342) and remote switch 332 (remote nodes 350, 352). Names are the
    /// figure's numerals (switches `306`, `308`, `330`, `332`; end nodes `316` .. `352`), in that order
    /// (switch `i` and end node `i` in the order listed). The seed gives FIG. 3 no device IDs; this
    /// project numbers it as Tables 2-4 number FIG. 7, one hex digit for the board: switch `s` of board `b`
    /// is `0xb0s0`, its end node `k` is `0xb0s0 + 1 + k` (306 0x0000, 316 0x0001, 318 0x0002; 308 0x0010;
    /// 330 0x1000; 332 0x1010, 352 0x1012; `docs/fabric.md` §FIG. 3). ISLs as \[0149\]: every switch of one
    /// board linked to every switch of the other, and the two switches of a board to each other (a 1-D
    /// flattened butterfly of the four): 306-308, 330-332, 306-330, 306-332, 308-330, 308-332.
    pub fn fig3(link: LinkSpec) -> Topology {
        let mut t = Topology { name: "fig3".into(), switches: vec![], endpoints: vec![], isls: Isls::default(), engine_port: LinkSpec::default() };
        for (board, switches) in FIG3_BOARDS.iter().enumerate() {
            for (s, (name, nodes)) in switches.iter().enumerate() {
                let engine_id = (board as u16) << FIG3_BOARD_SHIFT | (s as u16) << FIG3_SWITCH_SHIFT;
                let switch = t.switches.len();
                t.switches.push(Switch { name: name.to_string(), engine_id });
                for (k, node) in nodes.iter().enumerate() {
                    t.endpoints.push(Endpoint { name: node.to_string(), id: engine_id + 1 + k as u16, switch, link });
                }
            }
        }
        // Switch indices: 306 = 0, 308 = 1 (board 302), 330 = 2, 332 = 3 (board 304).
        t.isls = [(0, 1), (2, 3), (0, 2), (0, 3), (1, 2), (1, 3)].into_iter().map(|(a, b)| Isl { a, b, link }).collect();
        t
    }

    /// Index of the switch named `name`.
    pub fn switch_named(&self, name: &str) -> Option<usize> {
        self.switches.iter().position(|s| s.name == name)
    }

    /// The first ISL between switches `a` and `b` (either direction), if any.
    pub fn isl_between(&self, a: usize, b: usize) -> Option<usize> {
        self.isls.iter().position(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
    }

    /// Index of the end node named `name`.
    pub fn endpoint_named(&self, name: &str) -> Option<usize> {
        self.endpoints.iter().position(|e| e.name == name)
    }

    /// 1-D flattened butterfly: `switches` switches, every pair joined by one ISL, `per_switch` end nodes
    /// each (Table 1: 32 x 32, PCIe Gen 6 x2 everywhere).
    pub fn flattened_butterfly(switches: usize, per_switch: usize, link: LinkSpec) -> Result<Topology, TopologyError> {
        let mut t = Topology::with_switches(&format!("fbfly{switches}x{per_switch}"), switches, per_switch, link)?;
        // Reserved at once: 1,024 switches take 523,776 ISLs, which growing by doubling would copy.
        let mut isls = Vec::with_capacity(switches * switches.saturating_sub(1) / 2);
        for a in 0..switches {
            for b in a + 1..switches {
                isls.push(Isl { a, b, link });
            }
        }
        t.isls = isls.into();
        Ok(t)
    }

    /// Two-level fat tree (leaf-spine) of radix `k`: `k` leaf switches with `k/2` end nodes and `k/2`
    /// uplinks each, one to each of `k/2` spine switches (which have no end nodes).
    pub fn fat_tree(k: usize, link: LinkSpec) -> Result<Topology, TopologyError> {
        if k < 2 || k % 2 != 0 {
            return Err(TopologyError::Shape(format!("fat tree radix {k} must be even and at least 2")));
        }
        let mut t = Topology::leaf_spine(k, k / 2, k / 2, link)?;
        t.name = format!("fattree{k}");
        Ok(t)
    }

    /// Two-level leaf-spine fabric: `leaves` leaf switches (`leaf<l>`) with `hosts` end nodes each
    /// (`leaf<l>.h<h>`), `spines` spine switches (`spine<s>`, no end nodes), every leaf linked to every
    /// spine (leaf-major order, so a leaf's uplink to spine `s` is its `s`-th ISL).
    pub fn leaf_spine(leaves: usize, spines: usize, hosts: usize, link: LinkSpec) -> Result<Topology, TopologyError> {
        if leaves == 0 {
            return Err(TopologyError::Shape("a leaf-spine fabric needs a leaf".into()));
        }
        let mut t = Topology::with_switches(&format!("leafspine{leaves}x{spines}x{hosts}"), leaves + spines, hosts, link)?;
        // Spines carry no end nodes: drop the ones with_switches gave them.
        t.endpoints.retain(|e| e.switch < leaves);
        for l in 0..leaves {
            t.switches[l].name = format!("leaf{l}");
            for h in 0..hosts {
                t.endpoints[l * hosts + h].name = format!("leaf{l}.h{h}");
            }
        }
        for s in leaves..leaves + spines {
            t.switches[s].name = format!("spine{}", s - leaves);
        }
        for l in 0..leaves {
            for s in leaves..leaves + spines {
                t.isls.push(Isl { a: l, b: s, link });
            }
        }
        Ok(t)
    }

    /// Parses the text format of `docs/fabric.md` §Topology files.
    pub fn parse(text: &str) -> Result<Topology, TopologyError> {
        let mut t = Topology { name: "file".into(), switches: vec![], endpoints: vec![], isls: Isls::default(), engine_port: LinkSpec::default() };
        let mut default_link = LinkSpec::default();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let err = |detail: String| TopologyError::Parse { line, detail };
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let words: Vec<&str> = body.split_whitespace().collect();
            let (pos, kv): (Vec<&str>, Vec<&str>) = words[1..].iter().partition(|w| !w.contains('='));
            let mut opts = HashMap::new();
            for w in kv {
                let (k, v) = w.split_once('=').expect("partitioned on '='");
                opts.insert(k, v);
            }
            let num = |k: &str| -> Result<Option<f64>, TopologyError> {
                opts.get(k).map(|v| v.parse::<f64>().map_err(|_| err(format!("{k}={v} is not a number")))).transpose()
            };
            let id = |k: &str| -> Result<Option<u16>, TopologyError> {
                opts.get(k)
                    .map(|v| {
                        let r = if let Some(h) = v.strip_prefix("0x") { u16::from_str_radix(h, 16) } else { v.parse() };
                        r.map_err(|_| err(format!("{k}={v} is not a 16-bit device ID")))
                    })
                    .transpose()
            };
            let link_of = |base: LinkSpec| -> Result<LinkSpec, TopologyError> {
                let mut l = base;
                if let Some(g) = num("gbytes_per_s")? {
                    l.bytes_per_s = (g * 1e9) as u64;
                }
                if let Some(d) = num("delay_ns")? {
                    l.delay_ps = (d * 1000.0).round() as Ps;
                }
                Ok(l)
            };
            let name_at = |i: usize, what: &str| -> Result<String, TopologyError> {
                pos.get(i).map(|s| s.to_string()).ok_or_else(|| err(format!("{} needs a {what}", words[0])))
            };
            match words[0] {
                "name" => t.name = name_at(0, "name")?,
                "default" => default_link = link_of(default_link)?,
                "engine_port" => t.engine_port = link_of(t.engine_port)?,
                "switch" => {
                    let name = name_at(0, "name")?;
                    let engine_id = id("id")?.ok_or_else(|| err("switch needs id=<device ID of its engine>".into()))?;
                    if by_name.insert(name.clone(), t.switches.len()).is_some() {
                        return Err(err(format!("switch {name} declared twice")));
                    }
                    t.switches.push(Switch { name, engine_id });
                }
                "endpoint" => {
                    let name = name_at(0, "name")?;
                    let sw = name_at(1, "switch name")?;
                    let switch = *by_name.get(&sw).ok_or_else(|| err(format!("unknown switch {sw}")))?;
                    let dev = id("id")?.ok_or_else(|| err("endpoint needs id=<device ID>".into()))?;
                    t.endpoints.push(Endpoint { name, id: dev, switch, link: link_of(default_link)? });
                }
                "link" => {
                    let (a, b) = (name_at(0, "switch name")?, name_at(1, "second switch name")?);
                    let a = *by_name.get(&a).ok_or_else(|| err(format!("unknown switch {a}")))?;
                    let b = *by_name.get(&b).ok_or_else(|| err(format!("unknown switch {b}")))?;
                    if a == b {
                        return Err(err("a link joins two different switches".into()));
                    }
                    t.isls.push(Isl { a, b, link: link_of(default_link)? });
                }
                other => return Err(err(format!("unknown keyword {other} (name, default, engine_port, switch, endpoint, link)"))),
            }
        }
        if t.switches.is_empty() {
            return Err(TopologyError::Parse { line: 0, detail: "no switch".into() });
        }
        Ok(t)
    }

    /// Number of end nodes per switch.
    pub fn endpoints_of(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        self.endpoints.iter().enumerate().filter(move |(_, e)| e.switch == s).map(|(i, _)| i)
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} switches, {} end nodes, {} ISLs)", self.name, self.switches.len(), self.endpoints.len(), self.isls.len())
    }
}

/// Routing tables of a topology: device-ID lookup and, per switch, the ISL towards every other switch,
/// over the **live** fabric: ISLs and switches can be marked failed ([`Routes::set_isl_up`],
/// [`Routes::set_switch_up`]), and [`Routes::recompute`] finds fewest-hop routes around them (the same
/// shortest paths as a fault-free fabric where those still exist). A destination the live fabric cannot
/// reach has no next hop ([`Routes::next_hop`] is `None`): the simulator drops and counts the frame.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Device ID → device (dense, 65536 entries).
    pub device: Vec<Option<Device>>,
    /// `next_isl[s * n + t]`: index into the directed ISL list of the first hop from switch `s` to `t`
    /// (`NO_ROUTE`: unreachable). Empty while `mesh` computes the routes.
    next_isl: Vec<u32>,
    n: usize,
    /// The ISLs join every pair of switches once, in the order [`Topology::flattened_butterfly`] lists
    /// them (pair `(a, b)`, `a < b`, at [`mesh_index`]): a 1-D flattened butterfly.
    canonical_mesh: bool,
    /// `canonical_mesh` and every ISL and switch up: the first hop to any switch is the direct ISL, whose
    /// index is arithmetic, so no `n x n` table is built (1,024 switches: 1 M entries and a search per
    /// destination, a cost that grew with the square of the switches, issue 23).
    mesh: bool,
    /// Per topology ISL, its switches `(a, b)`; empty in a canonical mesh, where they follow from the
    /// ISL's index ([`mesh_pair`]). Directed ISL `2i` is ISL `i` from `a` to `b`, `2i + 1` from `b` to `a`
    /// ([`Routes::directed`]): the directed list is not stored (1,024 switches: a million entries of 32
    /// bytes, memory that grew with the square of the switches, issue 23).
    ends: Vec<(u32, u32)>,
    /// Per topology ISL, its link; one entry when every ISL has the same (a generated shape).
    links: Vec<LinkSpec>,
    /// Per topology ISL: it works.
    isl_up: Vec<bool>,
    /// Per switch: it works (a failed switch forwards nothing and is no one's transit).
    switch_up: Vec<bool>,
}

/// `next_isl` entry of an unreachable destination.
const NO_ROUTE: u32 = u32::MAX;

/// Index of the ISL joining switches `a < b` among the `n` switches of a 1-D flattened butterfly
/// ([`Topology::flattened_butterfly`]: `(0, 1), (0, 2), .., (0, n-1), (1, 2), ..`): the pairs of every
/// first switch below `a`, then `b`'s place after `a`.
fn mesh_index(n: usize, a: usize, b: usize) -> usize {
    a * (n - 1) - a * a.saturating_sub(1) / 2 + (b - a - 1)
}

/// The switches `(a, b)`, `a < b`, of ISL `k` of a 1-D flattened butterfly of `n` switches: the inverse
/// of [`mesh_index`] (`a` is the last first switch whose pairs start at or before `k`).
fn mesh_pair(n: usize, k: usize) -> (usize, usize) {
    let first = |a: usize| mesh_index(n, a, a + 1);
    // Binary search over the first switches 0..n-1 (their first indices grow with `a`).
    let (mut lo, mut hi) = (0, n - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if first(mid) <= k {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, lo + 1 + (k - first(lo)))
}

impl Routes {
    /// Builds the tables with every ISL and switch up; fails on duplicate IDs or a disconnected fabric.
    pub fn new(t: &Topology) -> Result<Routes, TopologyError> {
        let mut device: Vec<Option<Device>> = vec![None; 0x1_0000];
        // The names only for the error: a copy of every device's name was 64 K allocations at 64,512
        // end nodes (issue 23).
        let name_of = |d: Device| match d {
            Device::Engine(i) => t.switches[i].name.clone(),
            Device::Endpoint(i) => t.endpoints[i].name.clone(),
        };
        let mut put = |id: u16, d: Device| -> Result<(), TopologyError> {
            if let Some(first) = device[usize::from(id)].replace(d) {
                return Err(TopologyError::DuplicateId { id, first: name_of(first), second: name_of(d) });
            }
            Ok(())
        };
        for (i, s) in t.switches.iter().enumerate() {
            put(s.engine_id, Device::Engine(i))?;
        }
        for (i, e) in t.endpoints.iter().enumerate() {
            put(e.id, Device::Endpoint(i))?;
        }
        let n = t.switches.len();
        let canonical_mesh = t.isls.len() == n * n.saturating_sub(1) / 2 && (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).zip(&t.isls).all(|((a, b), l)| (l.a, l.b) == (a, b));
        let ends = if canonical_mesh { Vec::new() } else { t.isls.iter().map(|l| (l.a as u32, l.b as u32)).collect() };
        let links = match t.isls.first() {
            Some(l0) if t.isls.iter().all(|l| l.link == l0.link) => vec![l0.link],
            _ => t.isls.iter().map(|l| l.link).collect(),
        };
        let isl_up = vec![true; t.isls.len()];
        let mut r = Routes { device, next_isl: Vec::new(), n, canonical_mesh, mesh: false, ends, links, isl_up, switch_up: vec![true; n] };
        r.recompute();
        // A full mesh with everything up is connected.
        for dst in (0..n).filter(|_| !r.mesh) {
            if let Some(u) = (0..n).find(|&u| u != dst && r.next_isl[u * n + dst] == NO_ROUTE) {
                return Err(TopologyError::Disconnected { from: t.switches[u].name.clone(), to: t.switches[dst].name.clone() });
            }
        }
        Ok(r)
    }

    /// Recomputes every route over the live ISLs and switches: fewest hops, the lowest-index direct ISL
    /// to a neighbour, otherwise the first hop of a breadth-first search from the destination (lowest
    /// link index on ties). Pairs the live fabric does not join get no route.
    pub fn recompute(&mut self) {
        let n = self.n;
        // Every pair has its one direct ISL, up: that is the route (what the search below finds).
        self.mesh = self.canonical_mesh && self.isl_up.iter().all(|&u| u) && self.switch_up.iter().all(|&u| u);
        if self.mesh {
            self.next_isl = Vec::new();
            return;
        }
        let live = |k: usize, r: &Routes| {
            let (a, b, _) = r.directed(k);
            r.isl_up[k / 2] && r.switch_up[a] && r.switch_up[b]
        };
        let mut adj: Vec<Vec<(usize, u32)>> = vec![vec![]; n];
        for (k, d) in self.directed_iter().enumerate() {
            if live(k, self) {
                adj[d.0].push((d.1, k as u32));
            }
        }
        // Neighbours first: the direct ISL (the lowest-index live one) is a shortest path. Destinations
        // that every switch neighbours (a 1-D flattened butterfly) need no search.
        let mut next_isl = vec![NO_ROUTE; n * n];
        for (k, d) in self.directed_iter().enumerate() {
            if live(k, self) && next_isl[d.0 * n + d.1] == NO_ROUTE {
                next_isl[d.0 * n + d.1] = k as u32;
            }
        }
        // For every other destination: BFS backwards gives each switch's first hop towards it.
        for dst in (0..n).filter(|&d| self.switch_up[d]) {
            if (0..n).all(|u| u == dst || !self.switch_up[u] || next_isl[u * n + dst] != NO_ROUTE) {
                continue;
            }
            let mut seen = vec![false; n];
            seen[dst] = true;
            let mut q = VecDeque::from([dst]);
            while let Some(v) = q.pop_front() {
                for &(u, vu) in &adj[v] {
                    if !seen[u] {
                        seen[u] = true;
                        // The ISL u → v is the reverse of v → u (directed ISLs come in pairs 2i, 2i+1);
                        // a neighbour of dst keeps its direct link.
                        if v != dst {
                            next_isl[u * n + dst] = vu ^ 1;
                        }
                        q.push_back(u);
                    }
                }
            }
        }
        self.next_isl = next_isl;
    }

    /// The directed ISL of the first hop from switch `s` to switch `t` (`s != t`) over the live fabric;
    /// `None` if `t` cannot be reached from `s`.
    pub fn next_hop(&self, s: usize, t: usize) -> Option<usize> {
        if self.mesh {
            return self.direct(s, t);
        }
        let k = *self.next_isl.get(s * self.n + t)?;
        (k != NO_ROUTE).then_some(k as usize)
    }

    /// The first hop from switch `s` to switch `t` as [`Routes::next_hop`], with the switch it leads to
    /// (in a full mesh with everything up, `t` itself: no [`Routes::directed`] lookup per frame).
    pub fn next_hop_to(&self, s: usize, t: usize) -> Option<(usize, usize)> {
        if self.mesh {
            return self.direct(s, t).map(|i| (i, t));
        }
        self.next_hop(s, t).map(|i| (i, self.directed(i).1))
    }

    /// In a canonical mesh ([`Routes::recompute`]), the directed ISL from switch `s` to switch `t`.
    fn direct(&self, s: usize, t: usize) -> Option<usize> {
        (s != t && s < self.n && t < self.n).then(|| 2 * mesh_index(self.n, s.min(t), s.max(t)) + usize::from(s > t))
    }

    /// The directed ISLs out of switch `s` and into it, each in index order.
    pub fn isls_at(&self, s: usize) -> (Vec<usize>, Vec<usize>) {
        if self.canonical_mesh {
            // Directed ISL indices grow with the other switch's index (pairs (t, s) before (s, t)).
            let others = || (0..self.n).filter(move |&t| t != s);
            return (others().filter_map(|t| self.direct(s, t)).collect(), others().filter_map(|t| self.direct(t, s)).collect());
        }
        let ends = |pick: fn(&(usize, usize, LinkSpec)) -> usize| self.directed_iter().enumerate().filter(|(_, d)| pick(d) == s).map(|(i, _)| i).collect();
        (ends(|d| d.0), ends(|d| d.1))
    }

    /// Directed ISLs: two per topology ISL.
    pub fn directed_count(&self) -> usize {
        2 * self.isl_up.len()
    }

    /// Directed ISL `i`: `(from switch, to switch, link)`; ISL `k` of the topology is `2k` (a→b) and
    /// `2k+1` (b→a). Panics if there is no directed ISL `i`, as an index would.
    pub fn directed(&self, i: usize) -> (usize, usize, LinkSpec) {
        assert!(i < self.directed_count(), "directed ISL {i} of {}", self.directed_count());
        let k = i / 2;
        let (a, b) = if self.canonical_mesh { mesh_pair(self.n, k) } else { (self.ends[k].0 as usize, self.ends[k].1 as usize) };
        let link = self.links[if self.links.len() == 1 { 0 } else { k }];
        if i % 2 == 0 {
            (a, b, link)
        } else {
            (b, a, link)
        }
    }

    /// Every directed ISL in index order ([`Routes::directed`]).
    pub fn directed_iter(&self) -> impl Iterator<Item = (usize, usize, LinkSpec)> + '_ {
        (0..self.directed_count()).map(|i| self.directed(i))
    }

    /// Marks topology ISL `i` (both directions) up or down; call [`Self::recompute`] to route around it.
    pub fn set_isl_up(&mut self, i: usize, up: bool) {
        if let Some(x) = self.isl_up.get_mut(i) {
            *x = up;
        }
    }

    /// Marks switch `s` up or down; call [`Self::recompute`] to route around it.
    pub fn set_switch_up(&mut self, s: usize, up: bool) {
        if let Some(x) = self.switch_up.get_mut(s) {
            *x = up;
        }
    }

    /// Whether switch `s` works.
    pub fn switch_up(&self, s: usize) -> bool {
        self.switch_up.get(s).copied().unwrap_or(false)
    }

    /// Whether topology ISL `i` works (it and both its switches).
    pub fn isl_up(&self, i: usize) -> bool {
        self.isl_up.get(i).copied().unwrap_or(false) && {
            let (a, b, _) = self.directed(2 * i);
            self.switch_up(a) && self.switch_up(b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig7_has_the_device_ids_of_tables_2_to_4() {
        let t = Topology::fig7(LinkSpec::default());
        let ids: Vec<u16> = t.switches.iter().map(|s| s.engine_id).collect();
        assert_eq!(ids, [0x0000, 0x0010, 0x0020]);
        let ids: Vec<u16> = t.endpoints.iter().map(|e| e.id).collect();
        assert_eq!(ids, [0x0001, 0x0002, 0x0003, 0x0011, 0x0012, 0x0013, 0x0021, 0x0022, 0x0023]);
        let r = Routes::new(&t).unwrap();
        assert_eq!(r.device[0x22], Some(Device::Endpoint(7)));
        // 725 → 730 goes through 720.
        assert_eq!(r.directed(r.next_hop(1, 2).unwrap()).1, 0);
    }

    #[test]
    fn the_largest_flattened_butterfly_uses_every_16_bit_device_id() {
        // Issue 23: 1,024 switches x 63 end nodes = 64,512 end nodes, the largest fabric 16-bit device IDs
        // allow with one engine per switch (64 IDs per switch, 0x0000-0xFFFF all used, none twice).
        let t = Topology::flattened_butterfly(1024, 63, LinkSpec::default()).unwrap();
        assert_eq!(t.endpoints.len(), 64_512);
        let mut seen = vec![false; 0x1_0000];
        for id in t.switches.iter().map(|s| s.engine_id).chain(t.endpoints.iter().map(|e| e.id)) {
            assert!(!std::mem::replace(&mut seen[usize::from(id)], true), "{id:#06x} twice");
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!((t.switches[1023].engine_id, t.endpoints[64_511].id), (0xFFC0, 0xFFFF));
        // One more end node per switch, or one more switch, does not fit.
        assert!(Topology::flattened_butterfly(1024, 64, LinkSpec::default()).is_err());
        assert!(Topology::flattened_butterfly(1025, 63, LinkSpec::default()).is_err());
    }

    /// The routes a 1-D flattened butterfly computes in closed form are those of the table the search
    /// builds (a fat tree's ISLs beside it force the table), with and without a failed ISL; so are each
    /// switch's ISLs.
    #[test]
    fn flattened_butterfly_routes_in_closed_form_as_the_table_would() {
        let n = 7;
        let t = Topology::flattened_butterfly(n, 2, LinkSpec::default()).unwrap();
        let mut r = Routes::new(&t).unwrap();
        assert!(r.mesh && r.next_isl.is_empty());
        let scan = |r: &Routes, s: usize, t: usize| r.directed_iter().position(|d| (d.0, d.1) == (s, t));
        for s in 0..n {
            for d in 0..n {
                assert_eq!(r.next_hop(s, d), if s == d { None } else { scan(&r, s, d) }, "{s} -> {d}");
                assert_eq!(r.next_hop_to(s, d), r.next_hop(s, d).map(|i| (i, r.directed(i).1)), "{s} -> {d}");
            }
            let ends = |pick: fn(&(usize, usize, LinkSpec)) -> usize| r.directed_iter().enumerate().filter(|(_, x)| pick(x) == s).map(|(i, _)| i).collect::<Vec<_>>();
            assert_eq!(r.isls_at(s), (ends(|x| x.0), ends(|x| x.1)), "ISLs of {s}");
        }
        assert_eq!((r.next_hop(0, n), r.next_hop(n, 0)), (None, None));
        // ISL 0 joins switches 0 and 1: the table routes around it, through switch 2 (lowest index).
        let closed: Vec<_> = (0..n * n).map(|k| r.next_hop(k / n, k % n)).collect();
        r.set_isl_up(0, false);
        r.recompute();
        assert!(!r.mesh);
        assert_eq!(r.directed(r.next_hop(0, 1).unwrap()).1, 2);
        assert_eq!(r.next_hop_to(0, 1).map(|h| h.1), Some(2), "through switch 2");
        let table: Vec<_> = (0..n * n).map(|k| r.next_hop(k / n, k % n)).collect();
        assert_eq!(closed.iter().zip(&table).filter(|(a, b)| a != b).count(), 2, "only 0 -> 1 and 1 -> 0 change");
        r.set_isl_up(0, true);
        r.recompute();
        assert!(r.mesh);
        assert_eq!((0..n * n).map(|k| r.next_hop(k / n, k % n)).collect::<Vec<_>>(), closed);
        // The same pairs in another order are no canonical mesh: the table routes them, the same way.
        let mut shuffled = t.clone();
        shuffled.isls.reverse();
        let r2 = Routes::new(&shuffled).unwrap();
        assert!(!r2.mesh);
        for s in 0..n {
            for d in (0..n).filter(|&d| d != s) {
                assert_eq!(r2.directed(r2.next_hop(s, d).unwrap()).1, d, "{s} -> {d} direct");
            }
        }
    }

    /// The directed ISLs [`Routes::directed`] derives (from the index in a canonical mesh, from the
    /// stored ends otherwise, one link or one per ISL) are the topology's ISLs, both ways, in order.
    #[test]
    fn directed_isls_are_the_topologys_both_ways_without_a_stored_list() {
        let explicit = |t: &Topology| t.isls.iter().flat_map(|l| [(l.a, l.b, l.link), (l.b, l.a, l.link)]).collect::<Vec<_>>();
        let slow = LinkSpec { bytes_per_s: 1_000, delay_ps: 7 };
        let mut shapes: Vec<Topology> = [1, 2, 3, 4, 7, 16, 63, 64, 65].iter().map(|&n| Topology::flattened_butterfly(n, 1, LinkSpec::default()).unwrap()).collect();
        let mut mixed = Topology::flattened_butterfly(5, 1, LinkSpec::default()).unwrap();
        mixed.isls[3].link = slow;
        shapes.extend([mixed, Topology::fat_tree(4, slow).unwrap(), Topology::fig7(slow), Topology::fig3(LinkSpec::default())]);
        for t in &shapes {
            let r = Routes::new(t).unwrap();
            assert_eq!(r.directed_iter().collect::<Vec<_>>(), explicit(t), "{t}");
            assert_eq!(r.directed_count(), 2 * t.isls.len());
        }
        // The largest mesh: every ISL's pair from its index, no list.
        let t = Topology::flattened_butterfly(1024, 1, LinkSpec::default()).unwrap();
        let r = Routes::new(&t).unwrap();
        assert!(r.ends.is_empty() && r.links.len() == 1);
        assert!(t.isls.iter().enumerate().all(|(k, l)| r.directed(2 * k) == (l.a, l.b, l.link) && r.directed(2 * k + 1) == (l.b, l.a, l.link)));
    }

    #[test]
    fn fig3_has_two_boards_with_the_figures_numerals_and_every_switch_one_hop_from_every_other() {
        let t = Topology::fig3(LinkSpec::default());
        let names: Vec<&str> = t.switches.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["306", "308", "330", "332"]);
        let ids: Vec<u16> = t.switches.iter().map(|s| s.engine_id).collect();
        assert_eq!(ids, [0x0000, 0x0010, 0x1000, 0x1010]);
        let nodes: Vec<(&str, u16, usize)> = t.endpoints.iter().map(|e| (e.name.as_str(), e.id, e.switch)).collect();
        assert_eq!(
            nodes,
            [("316", 0x0001, 0), ("318", 0x0002, 0), ("326", 0x0011, 1), ("328", 0x0012, 1), ("340", 0x1001, 2), ("342", 0x1002, 2), ("350", 0x1011, 3), ("352", 0x1012, 3)]
        );
        let r = Routes::new(&t).unwrap();
        assert_eq!(r.device[0x1012], Some(Device::Endpoint(7)));
        assert_eq!(r.device[0x1000], Some(Device::Engine(2)));
        // [0149]: a flattened butterfly, so every switch reaches every other on their own ISL.
        for a in 0..4 {
            for b in (0..4).filter(|&b| b != a) {
                assert_eq!(r.directed(r.next_hop(a, b).unwrap()), (a, b, LinkSpec::default()), "{a} -> {b}");
            }
        }
        assert_eq!((t.switch_named("330"), t.endpoint_named("328"), t.switch_named("310")), (Some(2), Some(3), None));
    }

    #[test]
    fn serialization_times_of_table_1() {
        let l = LinkSpec::default();
        assert_eq!(l.serialize_ps(32), 2_000, "[0099]: 32 bytes take about 2 ns");
        assert_eq!(l.serialize_ps(1056), 66_000, "[0099]: a 1 KiB-payload frame takes about 66 ns");
    }

    #[test]
    fn a_topology_file_round_trips_the_fig7_shape_and_rejects_mistakes() {
        let text = "name tiny\ndefault gbytes_per_s=16 delay_ns=5\nswitch a id=0x0000\nswitch b id=0x0010 # comment\n\
                    endpoint src a id=0x0001\nendpoint n b id=0x0011\nlink a b delay_ns=20\n";
        let t = Topology::parse(text).unwrap();
        assert_eq!(t.switches.len(), 2);
        assert_eq!(t.endpoints[1].link.delay_ps, 5_000);
        assert_eq!(t.isls[0].link.delay_ps, 20_000);
        Routes::new(&t).unwrap();
        assert!(matches!(Topology::parse("switch a id=0x0\nlink a b"), Err(TopologyError::Parse { line: 2, .. })));
        let dup = Topology::parse("switch a id=1\nendpoint e a id=1").unwrap();
        assert!(matches!(Routes::new(&dup), Err(TopologyError::DuplicateId { id: 1, .. })));
        let split = Topology::parse("switch a id=0\nswitch b id=16").unwrap();
        assert!(matches!(Routes::new(&split), Err(TopologyError::Disconnected { .. })));
    }

    #[test]
    fn fat_tree_routes_leaf_to_leaf_through_a_spine() {
        let t = Topology::fat_tree(4, LinkSpec::default()).unwrap();
        assert_eq!(t.switches.len(), 6);
        assert_eq!(t.endpoints.len(), 8);
        let r = Routes::new(&t).unwrap();
        let first = r.directed(r.next_hop(0, 1).unwrap()).1;
        assert!(first >= 4, "leaf 0 to leaf 1 goes up to a spine");
    }

    #[test]
    fn routes_go_around_a_failed_link_or_switch_and_report_the_unreachable() {
        let mut r = Routes::new(&Topology::fat_tree(4, LinkSpec::default()).unwrap()).unwrap();
        // Leaves 0-3, spines 4 and 5; ISL 2l + k joins leaf l and spine 4 + k. Leaf 0 to leaf 1 goes
        // through spine 4 (the lowest link index on ties).
        let via = |r: &Routes, a: usize, b: usize| r.next_hop(a, b).map(|k| r.directed(k).1);
        assert_eq!(via(&r, 0, 1), Some(4));
        // Leaf 0's uplink to spine 4 fails: through spine 5; back up: through spine 4 again.
        r.set_isl_up(0, false);
        r.recompute();
        assert_eq!(via(&r, 0, 1), Some(5));
        assert_eq!(via(&r, 1, 0), Some(5), "both directions avoid it");
        assert_eq!(via(&r, 2, 1), Some(4), "other pairs keep their routes");
        r.set_isl_up(0, true);
        r.recompute();
        assert_eq!(via(&r, 0, 1), Some(4));
        // Spine 4 fails: everyone through spine 5; nothing reaches spine 4.
        r.set_switch_up(4, false);
        r.recompute();
        assert!((0..4).all(|a| (0..4).all(|b| a == b || via(&r, a, b) == Some(5))));
        assert_eq!(r.next_hop(0, 4), None);
        assert!(!r.isl_up(0) && r.isl_up(1));
        // Spine 5 too: the leaves are cut apart, no route and no panic.
        r.set_switch_up(5, false);
        r.recompute();
        assert_eq!(r.next_hop(0, 1), None);
    }
}
