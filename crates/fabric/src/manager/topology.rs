//! The manager's topology map (seed 003 \[0063\]: "a topology map, which defines the interconnection
//! topology"): switches with their packet engine's capacity and usage, end nodes, links with their state
//! and the load the already-placed jobs put on them. `docs/manager.md` §2.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::error::ManagerError;
use crate::topology::{LinkSpec, Topology};

/// 16-bit device ID (requester / completer ID; 000 \[0174\]-\[0178\]).
pub type DeviceId = u16;

/// Index of a switch in the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SwitchId(pub u32);

/// Index of an end node (endpoint device) in the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// Index of a link in the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub u32);

/// One end of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vertex {
    /// A switch (its packet engine is the collective engine, 000 \[0091\]).
    Switch(SwitchId),
    /// An end node.
    Node(NodeId),
}

/// What one switch's packet engine can hold (`docs/blocks/cpu.md` §Context model, `docs/blocks/register_space.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EngineCapacity {
    /// Static context entries (`STATIC_ENTRIES`; [`DEFAULT_CONTEXTS`] unless set): one per tree through this engine.
    pub contexts: usize,
    /// Descriptors (`DESCRIPTORS`, default 8; 002 (35): eight active reduction trees per engine): one
    /// per tree, as the manager's plans activate every context they configure.
    pub descriptors: usize,
    /// Multicast entries of the register space (`MCAST_ENTRIES`, 8192: one per tree, so a Portals tree's
    /// key must be below it).
    pub mcast_entries: usize,
    /// PBV-table entries (128, 000 \[0155\]); shared by all the engine's contexts.
    pub pbv_entries: usize,
}

/// Static entries the manager assumes an engine has unless told ([`TopologyMap::set_capacity`]): 16, the
/// fabric simulator's engines' (`SimConfig::default`, `crate::sim::SIM_STATIC_ENTRIES`), small so that a
/// simulated fabric of hundreds of engines stays light. The RTL's and the model's default is 4096 (one per
/// CC_ID, 000 \[0169\]), every entry reached through the register space's STATIC_INDEX, so slots up to 4095
/// encode (`plan::EncodeError::SlotOutOfRange` beyond).
pub const DEFAULT_CONTEXTS: usize = 16;
/// Default `DESCRIPTORS` of the CPU (`docs/blocks/cpu.md` §Ports; 002 (35)).
pub const DEFAULT_DESCRIPTORS: usize = 8;

impl Default for EngineCapacity {
    fn default() -> Self {
        EngineCapacity {
            contexts: DEFAULT_CONTEXTS,
            descriptors: DEFAULT_DESCRIPTORS,
            mcast_entries: inswitch_model::register_space::MCAST_ENTRIES,
            pbv_entries: inswitch_model::register_space::PBV_ENTRIES,
        }
    }
}

/// What the placed jobs use of one engine. Kept by the [`super::Manager`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EngineUsage {
    /// Static entries in use.
    pub contexts: usize,
    /// Descriptors in use.
    pub descriptors: usize,
    /// Multicast entries in use.
    pub mcast_entries: usize,
    /// PBV-table entries in use.
    pub pbv_entries: usize,
    /// Trees whose master engine this is (000 \[0150\]-\[0153\]: a master processes every frame of its
    /// context, so masters are spread).
    pub masters: usize,
}

/// A switch and its packet engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Switch {
    /// Name (from the seed or the file).
    pub name: String,
    /// Device ID; the engine's registers are at `device_id << 16 | 0xC000` (\[0175\]).
    pub device_id: DeviceId,
    /// The switch works.
    pub up: bool,
    /// Engine capacity.
    pub capacity: EngineCapacity,
    /// Engine usage by placed jobs.
    pub used: EngineUsage,
}

impl Switch {
    /// A new tree can get a context here: a free static entry and a free descriptor (003 \[0048\]:
    /// switches whose reduction capacity is exhausted are not used).
    pub fn has_free_context(&self) -> bool {
        self.up && self.used.contexts < self.capacity.contexts && self.used.descriptors < self.capacity.descriptors
    }

    /// Static entries not used by placed trees.
    pub fn free_contexts(&self) -> usize {
        self.capacity.contexts.saturating_sub(self.used.contexts)
    }

    /// Descriptors not used by placed trees.
    pub fn free_descriptors(&self) -> usize {
        self.capacity.descriptors.saturating_sub(self.used.descriptors)
    }
}

/// An end node: one endpoint device attached to one switch port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndNode {
    /// Name.
    pub name: String,
    /// Device ID.
    pub device_id: DeviceId,
    /// The switch it is attached to.
    pub switch: SwitchId,
    /// Its attachment link.
    pub link: LinkId,
    /// Compute node (host) it belongs to: endpoints of one host on one switch pre-reduce into one
    /// node-level result (003 \[0055\]). `None`: a host of its own.
    pub host: Option<u32>,
}

/// Load placed jobs put on a link (003 \[0048\]: "current utilization of specific network links by
/// different communicators").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LinkLoad {
    /// Trees using the link.
    pub jobs: u32,
    /// Bytes per round of those trees (each job's estimate).
    pub bytes: u64,
}

/// A link between two vertices' ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// One end and its port.
    pub a: (Vertex, u8),
    /// The other end and its port.
    pub b: (Vertex, u8),
    /// The link works.
    pub up: bool,
    /// Bandwidth, Gb/s.
    pub bandwidth_gbps: u32,
    /// One-way latency, ns.
    pub latency_ns: u32,
    /// Load of placed jobs.
    pub load: LinkLoad,
}

impl Link {
    /// The other end of the link seen from `v`, with its port, and `v`'s own port.
    pub fn other(&self, v: Vertex) -> Option<(Vertex, u8, u8)> {
        if self.a.0 == v {
            Some((self.b.0, self.b.1, self.a.1))
        } else if self.b.0 == v {
            Some((self.a.0, self.a.1, self.b.1))
        } else {
            None
        }
    }

    /// `v`'s port on this link.
    pub fn port_of(&self, v: Vertex) -> Option<u8> {
        self.other(v).map(|(_, _, p)| p)
    }
}

/// Default link: 2 lanes of PCIe Gen 6 (Table 1, \[0099\]): 64 GT/s x 2 = 128 Gb/s raw.
pub const DEFAULT_BANDWIDTH_GBPS: u32 = 128;
/// Default one-way link latency, ns (a placeholder: the seeds give none).
pub const DEFAULT_LATENCY_NS: u32 = 100;

/// The topology map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopologyMap {
    switches: Vec<Switch>,
    nodes: Vec<EndNode>,
    links: Vec<Link>,
    /// Per switch: links to other switches (up or down) and the switch at the other end.
    adjacency: Vec<Vec<(LinkId, SwitchId)>>,
    by_device: HashMap<DeviceId, Vertex>,
    by_name: HashMap<String, Vertex>,
}

impl TopologyMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a switch with the default engine capacity.
    pub fn add_switch(&mut self, name: &str, device_id: DeviceId) -> Result<SwitchId, ManagerError> {
        self.add_switch_with(name, device_id, EngineCapacity::default())
    }

    /// Adds a switch.
    pub fn add_switch_with(&mut self, name: &str, device_id: DeviceId, capacity: EngineCapacity) -> Result<SwitchId, ManagerError> {
        let id = SwitchId(self.switches.len() as u32);
        self.claim(name, device_id, Vertex::Switch(id))?;
        self.switches.push(Switch { name: name.to_string(), device_id, up: true, capacity, used: EngineUsage::default() });
        self.adjacency.push(Vec::new());
        Ok(id)
    }

    /// Adds an end node attached to `switch` at `port`, with its attachment link.
    pub fn add_node(&mut self, name: &str, device_id: DeviceId, switch: SwitchId, port: u8, host: Option<u32>) -> Result<NodeId, ManagerError> {
        self.check_switch(switch)?;
        let id = NodeId(self.nodes.len() as u32);
        self.claim(name, device_id, Vertex::Node(id))?;
        let link = LinkId(self.links.len() as u32);
        self.links.push(Link {
            a: (Vertex::Switch(switch), port),
            b: (Vertex::Node(id), 0),
            up: true,
            bandwidth_gbps: DEFAULT_BANDWIDTH_GBPS,
            latency_ns: DEFAULT_LATENCY_NS,
            load: LinkLoad::default(),
        });
        self.nodes.push(EndNode { name: name.to_string(), device_id, switch, link, host });
        Ok(id)
    }

    /// Adds an inter-switch link.
    pub fn add_link(&mut self, a: SwitchId, a_port: u8, b: SwitchId, b_port: u8) -> Result<LinkId, ManagerError> {
        self.add_link_with(a, a_port, b, b_port, DEFAULT_BANDWIDTH_GBPS, DEFAULT_LATENCY_NS)
    }

    /// Adds an inter-switch link with its bandwidth and latency.
    pub fn add_link_with(&mut self, a: SwitchId, a_port: u8, b: SwitchId, b_port: u8, bandwidth_gbps: u32, latency_ns: u32) -> Result<LinkId, ManagerError> {
        self.check_switch(a)?;
        self.check_switch(b)?;
        if a == b {
            return Err(ManagerError::Topology(format!("link from switch {} to itself", self.switches[a.0 as usize].name)));
        }
        let id = LinkId(self.links.len() as u32);
        self.links.push(Link {
            a: (Vertex::Switch(a), a_port),
            b: (Vertex::Switch(b), b_port),
            up: true,
            bandwidth_gbps: bandwidth_gbps.max(1),
            latency_ns,
            load: LinkLoad::default(),
        });
        self.adjacency[a.0 as usize].push((id, b));
        self.adjacency[b.0 as usize].push((id, a));
        Ok(id)
    }

    fn claim(&mut self, name: &str, device_id: DeviceId, v: Vertex) -> Result<(), ManagerError> {
        if self.by_device.contains_key(&device_id) {
            return Err(ManagerError::Topology(format!("device ID {device_id:#06x} used twice ({name})")));
        }
        if self.by_name.contains_key(name) {
            return Err(ManagerError::Topology(format!("name {name:?} used twice")));
        }
        self.by_device.insert(device_id, v);
        self.by_name.insert(name.to_string(), v);
        Ok(())
    }

    fn check_switch(&self, s: SwitchId) -> Result<(), ManagerError> {
        if (s.0 as usize) < self.switches.len() {
            Ok(())
        } else {
            Err(ManagerError::Topology(format!("no switch {}", s.0)))
        }
    }

    /// Switches.
    pub fn switches(&self) -> &[Switch] {
        &self.switches
    }

    /// End nodes.
    pub fn nodes(&self) -> &[EndNode] {
        &self.nodes
    }

    /// Links (attachment links of end nodes included).
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Switch ids.
    pub fn switch_ids(&self) -> impl Iterator<Item = SwitchId> + '_ {
        (0..self.switches.len() as u32).map(SwitchId)
    }

    /// Node ids.
    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// A switch. Panics on an id not from this map.
    pub fn switch(&self, s: SwitchId) -> &Switch {
        &self.switches[s.0 as usize]
    }

    pub(crate) fn switch_mut(&mut self, s: SwitchId) -> &mut Switch {
        &mut self.switches[s.0 as usize]
    }

    /// An end node. Panics on an id not from this map.
    pub fn node(&self, n: NodeId) -> &EndNode {
        &self.nodes[n.0 as usize]
    }

    /// A link. Panics on an id not from this map.
    pub fn link(&self, l: LinkId) -> &Link {
        &self.links[l.0 as usize]
    }

    pub(crate) fn link_mut(&mut self, l: LinkId) -> &mut Link {
        &mut self.links[l.0 as usize]
    }

    /// Inter-switch links of `s` (up or down) with the switch at the other end.
    pub fn neighbours(&self, s: SwitchId) -> &[(LinkId, SwitchId)] {
        &self.adjacency[s.0 as usize]
    }

    /// The vertex with this device ID.
    pub fn by_device(&self, d: DeviceId) -> Option<Vertex> {
        self.by_device.get(&d).copied()
    }

    /// The vertex with this name.
    pub fn by_name(&self, name: &str) -> Option<Vertex> {
        self.by_name.get(name).copied()
    }

    /// The switch with this name.
    pub fn switch_named(&self, name: &str) -> Option<SwitchId> {
        match self.by_name(name)? {
            Vertex::Switch(s) => Some(s),
            Vertex::Node(_) => None,
        }
    }

    /// The end node with this name.
    pub fn node_named(&self, name: &str) -> Option<NodeId> {
        match self.by_name(name)? {
            Vertex::Node(n) => Some(n),
            Vertex::Switch(_) => None,
        }
    }

    /// End nodes attached to `s`, in node order.
    pub fn nodes_of(&self, s: SwitchId) -> impl Iterator<Item = NodeId> + '_ {
        self.node_ids().filter(move |&n| self.node(n).switch == s)
    }

    /// An up inter-switch link between `a` and `b` (the lowest id).
    pub fn link_between(&self, a: SwitchId, b: SwitchId) -> Option<LinkId> {
        self.neighbours(a).iter().filter(|&&(l, o)| o == b && self.link(l).up).map(|&(l, _)| l).min()
    }

    /// An inter-switch link can carry a tree: it and both its switches are up.
    pub fn usable(&self, l: LinkId) -> bool {
        let k = self.link(l);
        k.up && [k.a.0, k.b.0].iter().all(|v| match v {
            Vertex::Switch(s) => self.switch(*s).up,
            Vertex::Node(_) => true,
        })
    }

    /// `v`'s port on link `l`.
    pub fn port(&self, l: LinkId, v: Vertex) -> Option<u8> {
        self.link(l).port_of(v)
    }

    /// Sets a link's state. Use [`super::Manager::link_down`] to also re-place the trees on it.
    pub fn set_link_up(&mut self, l: LinkId, up: bool) {
        self.link_mut(l).up = up;
    }

    /// Sets a switch's state. Use [`super::Manager::switch_down`] to also re-place the trees on it.
    pub fn set_switch_up(&mut self, s: SwitchId, up: bool) {
        self.switch_mut(s).up = up;
    }

    /// Sets the engine capacity of a switch.
    pub fn set_capacity(&mut self, s: SwitchId, c: EngineCapacity) {
        self.switch_mut(s).capacity = c;
    }

    // ---------------------------------------------------------------------------------------------
    // The seed's examples and the standard topologies.

    /// The map of a simulator topology ([`crate::topology::Topology`], the one description of a fabric
    /// that both the simulator and the manager use): the same switches, end nodes and device IDs in the
    /// same order (switch `i` is `SwitchId(i)`, end node `i` is `NodeId(i)`), every switch with the
    /// default engine capacity. Ports (the topology has none): a switch's end nodes on ports `0..k` in
    /// end-node order, then its ISLs in ISL order. Bandwidth in Gb/s and latency in ns from each link's
    /// [`crate::topology::LinkSpec`].
    pub fn from_topology(t: &Topology) -> Result<TopologyMap, ManagerError> {
        let mut m = TopologyMap::new();
        let mut next_port = vec![0usize; t.switches.len()];
        let mut port = |s: usize, what: &str| -> Result<u8, ManagerError> {
            let p = next_port[s];
            next_port[s] += 1;
            u8::try_from(p).map_err(|_| ManagerError::Topology(format!("switch {} has more than 256 ports ({what})", t.switches[s].name)))
        };
        let gbps = |l: &LinkSpec| u32::try_from(l.bytes_per_s * 8 / 1_000_000_000).unwrap_or(u32::MAX);
        let ns = |l: &LinkSpec| u32::try_from(l.delay_ps / 1000).unwrap_or(u32::MAX);
        for s in &t.switches {
            m.add_switch(&s.name, s.engine_id)?;
        }
        for e in &t.endpoints {
            let p = port(e.switch, &e.name)?;
            let n = m.add_node(&e.name, e.id, SwitchId(e.switch as u32), p, None)?;
            let l = m.node(n).link;
            let link = m.link_mut(l);
            (link.bandwidth_gbps, link.latency_ns) = (gbps(&e.link).max(1), ns(&e.link));
        }
        for l in &t.isls {
            let (pa, pb) = (port(l.a, "ISL")?, port(l.b, "ISL")?);
            m.add_link_with(SwitchId(l.a as u32), pa, SwitchId(l.b as u32), pb, gbps(&l.link), ns(&l.link))?;
        }
        Ok(m)
    }

    /// The simulator topology of this map (the inverse of [`Self::from_topology`] for what the simulator
    /// models): the same switches, end nodes and inter-switch links in the same order (`SwitchId(i)` is
    /// switch `i`, `NodeId(i)` end node `i`, the `k`-th inter-switch link ISL `k`), each link's
    /// bandwidth (Gb/s → bytes/s) and latency (ns → ps). What only the manager uses is dropped: ports,
    /// hosts, engine capacities, usage and loads, and up/down state (the simulator fails links and
    /// switches with `Fabric::fail_isl` / `switch_down`). `docs/fabric.md` §Topology files.
    pub fn to_topology(&self, name: &str) -> Topology {
        let spec = |bw: u32, ns: u32| LinkSpec { bytes_per_s: u64::from(bw) * 1_000_000_000 / 8, delay_ps: u64::from(ns) * 1000 };
        let switch_of = |v: Vertex| match v {
            Vertex::Switch(s) => Some(s.0 as usize),
            Vertex::Node(_) => None,
        };
        crate::topology::Topology {
            name: name.to_string(),
            switches: self.switches.iter().map(|s| crate::topology::Switch { name: s.name.clone(), engine_id: s.device_id }).collect(),
            endpoints: self
                .nodes
                .iter()
                .map(|n| {
                    let l = self.link(n.link);
                    crate::topology::Endpoint { name: n.name.clone(), id: n.device_id, switch: n.switch.0 as usize, link: spec(l.bandwidth_gbps, l.latency_ns) }
                })
                .collect(),
            isls: self
                .links
                .iter()
                .filter_map(|l| Some(crate::topology::Isl { a: switch_of(l.a.0)?, b: switch_of(l.b.0)?, link: spec(l.bandwidth_gbps, l.latency_ns) }))
                .collect(),
            engine_port: LinkSpec::default(),
        }
    }

    /// Seed 000 FIG. 7 (\[0173\]-\[0178\], Tables 2-4), derived from [`Topology::fig7`]: switch 720 (board
    /// 705, device 0x0000) with source node 735 (0x0001) and nodes 1, 2 (0x0002, 0x0003); switch 725
    /// (board 710, 0x0010) and switch 730 (board 715, 0x0020) with nodes 0-2 (0x0011-0x0013,
    /// 0x0021-0x0023). 720 is linked to 725 and to 730; 730 reaches 725 through 720 (\[0209\]). Ports
    /// (figure missing, this project's choice, [`Self::from_topology`]): nodes on ports 0-2 in table
    /// order, 720's port 3 to 725 and port 4 to 730, the other switches' port 3 to 720.
    pub fn fig7() -> TopologyMap {
        Self::from_topology(&Topology::fig7(LinkSpec::default())).unwrap_or_else(|e| unreachable!("FIG. 7 map: {e}"))
    }

    /// Seed 000 FIG. 3 (\[0131\]-\[0133\], \[0149\]), derived from [`Topology::fig3`]: boards 302 (switches
    /// 306, 308) and 304 (switches 330, 332), two end nodes per switch, every pair of switches linked,
    /// device IDs `0xb0s0` (`docs/fabric.md` §FIG. 3). Ports ([`Self::from_topology`]): end nodes on
    /// ports 0-1, then the ISLs in the order 306-308, 330-332, 306-330, 306-332, 308-330, 308-332.
    pub fn fig3() -> TopologyMap {
        Self::from_topology(&Topology::fig3(LinkSpec::default())).unwrap_or_else(|e| unreachable!("FIG. 3 map: {e}"))
    }

    /// A one-dimensional flattened butterfly (000 \[0099\]-\[0103\], \[0149\], Table 1), derived from
    /// [`Topology::flattened_butterfly`]: `switches` switches `s<i>`, every pair linked once, `endpoints`
    /// end nodes `s<i>.e<k>` per switch, device IDs as [`crate::topology::id_stride`] gives them
    /// (switch `i` at `i * stride`, its end node `k` at `i * stride + 1 + k`). End nodes on ports
    /// `0..endpoints`, the link to switch `t` on port `endpoints + t - (t > s)`.
    pub fn flattened_butterfly(switches: usize, endpoints: usize) -> Result<TopologyMap, ManagerError> {
        let t = Topology::flattened_butterfly(switches, endpoints, LinkSpec::default()).map_err(|e| ManagerError::Topology(e.to_string()))?;
        Self::from_topology(&t)
    }

    /// Table 1's fabric: 32 switches x 32 endpoints.
    pub fn flattened_butterfly_32x32() -> TopologyMap {
        Self::flattened_butterfly(32, 32).unwrap_or_else(|e| unreachable!("32x32 fits: {e}"))
    }

    /// A two-level fat tree, derived from [`Topology::leaf_spine`]: `leaves` leaf switches, each linked
    /// to every one of `spines` spine switches, `hosts` end nodes per leaf. Leaf ports: end nodes
    /// `0..hosts`, spine `s` on `hosts + s`; spine ports: leaf `l` on `l`.
    pub fn fat_tree(leaves: usize, spines: usize, hosts: usize) -> Result<TopologyMap, ManagerError> {
        let t = Topology::leaf_spine(leaves, spines, hosts, LinkSpec::default()).map_err(|e| ManagerError::Topology(e.to_string()))?;
        Self::from_topology(&t)
    }

    // ---------------------------------------------------------------------------------------------
    // File format (docs/manager.md §4).

    /// Parses the JSON topology file format.
    pub fn from_json(text: &str) -> Result<TopologyMap, ManagerError> {
        let f: TopologyFile = serde_json::from_str(text).map_err(|e| ManagerError::Parse(e.to_string()))?;
        let mut t = TopologyMap::new();
        for s in &f.switches {
            let mut cap = EngineCapacity::default();
            if let Some(c) = s.contexts {
                cap.contexts = c;
            }
            if let Some(d) = s.descriptors {
                cap.descriptors = d;
            }
            let id = t.add_switch_with(&s.name, s.device_id.0, cap)?;
            if s.up == Some(false) {
                t.set_switch_up(id, false);
            }
        }
        let sw = |t: &TopologyMap, name: &str| t.switch_named(name).ok_or_else(|| ManagerError::Parse(format!("no switch named {name:?}")));
        for n in &f.nodes {
            let s = sw(&t, &n.switch)?;
            let id = t.add_node(&n.name, n.device_id.0, s, n.port, n.host)?;
            let l = t.node(id).link;
            let link = t.link_mut(l);
            link.bandwidth_gbps = n.bandwidth_gbps.unwrap_or(DEFAULT_BANDWIDTH_GBPS).max(1);
            link.latency_ns = n.latency_ns.unwrap_or(DEFAULT_LATENCY_NS);
        }
        for l in &f.links {
            let a = sw(&t, &l.a)?;
            let b = sw(&t, &l.b)?;
            let id = t.add_link_with(a, l.a_port, b, l.b_port, l.bandwidth_gbps.unwrap_or(DEFAULT_BANDWIDTH_GBPS), l.latency_ns.unwrap_or(DEFAULT_LATENCY_NS))?;
            if l.up == Some(false) {
                t.set_link_up(id, false);
            }
        }
        Ok(t)
    }

    /// Writes the map in the JSON file format (loads and usage are not written).
    pub fn to_json(&self) -> String {
        let name = |v: Vertex| match v {
            Vertex::Switch(s) => self.switch(s).name.clone(),
            Vertex::Node(n) => self.node(n).name.clone(),
        };
        let f = TopologyFile {
            switches: self
                .switches
                .iter()
                .map(|s| SwitchRecord {
                    name: s.name.clone(),
                    device_id: HexId(s.device_id),
                    contexts: Some(s.capacity.contexts),
                    descriptors: Some(s.capacity.descriptors),
                    up: (!s.up).then_some(false),
                })
                .collect(),
            nodes: self
                .nodes
                .iter()
                .map(|n| NodeRecord {
                    name: n.name.clone(),
                    device_id: HexId(n.device_id),
                    switch: self.switch(n.switch).name.clone(),
                    port: self.link(n.link).a.1,
                    host: n.host,
                    bandwidth_gbps: Some(self.link(n.link).bandwidth_gbps),
                    latency_ns: Some(self.link(n.link).latency_ns),
                })
                .collect(),
            links: self
                .links
                .iter()
                .filter(|l| matches!(l.b.0, Vertex::Switch(_)))
                .map(|l| LinkRecord {
                    a: name(l.a.0),
                    a_port: l.a.1,
                    b: name(l.b.0),
                    b_port: l.b.1,
                    bandwidth_gbps: Some(l.bandwidth_gbps),
                    latency_ns: Some(l.latency_ns),
                    up: (!l.up).then_some(false),
                })
                .collect(),
        };
        serde_json::to_string_pretty(&f).unwrap_or_else(|e| unreachable!("plain records serialize: {e}"))
    }
}

/// A device ID in the file: a number or a string `"0x0010"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HexId(DeviceId);

impl Serialize for HexId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:#06x}", self.0))
    }
}

impl<'de> Deserialize<'de> for HexId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Num(u16),
            Str(String),
        }
        match Repr::deserialize(d)? {
            Repr::Num(n) => Ok(HexId(n)),
            Repr::Str(s) => {
                let t = s.trim();
                let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => u16::from_str_radix(&h.replace('_', ""), 16),
                    None => t.parse::<u16>(),
                };
                v.map(HexId).map_err(|e| serde::de::Error::custom(format!("device ID {s:?}: {e}")))
            }
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TopologyFile {
    switches: Vec<SwitchRecord>,
    #[serde(default)]
    nodes: Vec<NodeRecord>,
    #[serde(default)]
    links: Vec<LinkRecord>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SwitchRecord {
    name: String,
    device_id: HexId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    contexts: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    descriptors: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    up: Option<bool>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeRecord {
    name: String,
    device_id: HexId,
    switch: String,
    port: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    host: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bandwidth_gbps: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    latency_ns: Option<u32>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkRecord {
    a: String,
    a_port: u8,
    b: String,
    b_port: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bandwidth_gbps: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    latency_ns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    up: Option<bool>,
}
