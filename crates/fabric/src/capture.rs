//! `inswitch sim --pcap F.pcapng`: the frames a run carried on chosen links as a pcapng file with one
//! interface per (link, direction) named after the switch, port and direction, nanosecond timestamps of
//! simulated time (`if_tsresol` 9), and a comment per frame naming the device that emitted it.
//!
//! Ports are numbered as the manager numbers them (`TopologyMap::from_topology`): a switch's end nodes in
//! end-node order, then its inter-switch links in ISL order. A link that carries both framed TLPs and
//! Soft Portals frames (the Portals scenarios: register writes, then reductions) gets one interface per
//! link type, because a pcapng interface has one link type: `LINKTYPE_USER0` for TLPs (data-link
//! sequence number and LCRC stripped, docs/frames.md §8) and `LINKTYPE_ETHERNET` for Soft Portals (the
//! whole frame, FCS included).

use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;

use inswitch_frames::pcap::{write_pcapng, Interface, NgRecord, LINKTYPE_ETHERNET, LINKTYPE_TLP};

use crate::report::LinkFilter;
use crate::wire::is_soft_portals;
use crate::sim::{ChannelKind, Fabric};
use crate::topology::Device;
use crate::wire::{LCRC_LEN, SEQ_LEN};

/// Picoseconds per nanosecond (the fabric's clock is in ps, pcapng's resolution here is ns).
const PS_PER_NS: u64 = 1000;

/// Port numbers of every end node's and every ISL end's switch port (module doc).
struct Ports {
    endpoint: Vec<usize>,
    /// Per topology ISL: (port at `a`, port at `b`).
    isl: Vec<(usize, usize)>,
}

fn ports(f: &Fabric) -> Ports {
    let t = &f.topo;
    let mut next = vec![0usize; t.switches.len()];
    let mut take = |s: usize| {
        let p = next[s];
        next[s] += 1;
        p
    };
    let endpoint = t.endpoints.iter().map(|e| take(e.switch)).collect();
    let isl = t.isls.iter().map(|l| (take(l.a), take(l.b))).collect();
    Ports { endpoint, isl }
}

/// The interface name and description of channel `c` (switch, port, direction).
pub fn channel_name(f: &Fabric, c: usize) -> (String, String) {
    let p = ports(f);
    name_with(f, &p, c)
}

fn name_with(f: &Fabric, p: &Ports, c: usize) -> (String, String) {
    let t = &f.topo;
    let sw = |s: usize| t.switches[s].name.as_str();
    match f.channel(c).kind {
        ChannelKind::Up(e) => {
            let ep = &t.endpoints[e];
            let port = p.endpoint[e];
            (format!("{}.p{port} in", sw(ep.switch)), format!("switch {} port {port}, ingress from end node {}", sw(ep.switch), ep.name))
        }
        ChannelKind::Down(e) => {
            let ep = &t.endpoints[e];
            let port = p.endpoint[e];
            (format!("{}.p{port} out", sw(ep.switch)), format!("switch {} port {port}, egress to end node {}", sw(ep.switch), ep.name))
        }
        ChannelKind::Isl(i) => {
            // Directed ISL 2k is ISL k from a to b, 2k + 1 from b to a (`Routes::directed`).
            let l = &t.isls[i / 2];
            let (pa, pb) = p.isl[i / 2];
            let ((from, fp), (to, tp)) = if i % 2 == 0 { ((l.a, pa), (l.b, pb)) } else { ((l.b, pb), (l.a, pa)) };
            (
                format!("{}.p{fp} out", sw(from)),
                format!("switch {} port {fp}, egress on the inter-switch link to switch {} port {tp}", sw(from), sw(to)),
            )
        }
        ChannelKind::ToEngine(s) => (format!("{}.engine in", sw(s)), format!("switch {}, crossbar to its packet engine", sw(s))),
        ChannelKind::FromEngine(s) => (format!("{}.engine out", sw(s)), format!("switch {}, packet engine to the crossbar", sw(s))),
    }
}

/// Who emitted a frame, for its comment.
fn emitter(f: &Fabric, origin: u16) -> String {
    match f.routes.device.get(usize::from(origin)).copied().flatten() {
        Some(Device::Engine(s)) => format!("emitted by the packet engine of switch {} (ID {origin:#06x})", f.topo.switches[s].name),
        Some(Device::Endpoint(e)) => format!("sent by end node {} (ID {origin:#06x})", f.topo.endpoints[e].name),
        None => format!("sent by device {origin:#06x}"),
    }
}

/// Writes every captured frame on the channels `filter` picks as pcapng (module doc). Returns the frame
/// count and the interface count.
pub fn write_links_pcapng<W: Write>(w: W, f: &Fabric, filter: LinkFilter) -> Result<(usize, usize), inswitch_frames::error::Error> {
    let ports = ports(f);
    let mut interfaces: Vec<Interface> = Vec::new();
    let mut index: HashMap<(usize, u32), u32> = HashMap::new();
    let mut records = Vec::new();
    for c in &f.captured {
        if !filter.picks(f, f.channel(c.channel).kind) {
            continue;
        }
        let frame = &f.frames[c.frame as usize];
        let b = &frame.bytes;
        let (linktype, data) = if is_soft_portals(b) {
            (LINKTYPE_ETHERNET, b.clone())
        } else if b.len() >= SEQ_LEN + LCRC_LEN {
            (LINKTYPE_TLP, b[SEQ_LEN..b.len() - LCRC_LEN].to_vec())
        } else {
            continue;
        };
        let interface = *index.entry((c.channel, linktype)).or_insert_with(|| {
            let (name, description) = name_with(f, &ports, c.channel);
            let name = if linktype == LINKTYPE_ETHERNET { format!("{name} (soft portals)") } else { name };
            interfaces.push(Interface { name, description, linktype });
            (interfaces.len() - 1) as u32
        });
        records.push(NgRecord { interface, timestamp: Duration::from_nanos(c.start / PS_PER_NS), data, comment: Some(emitter(f, frame.origin)) });
    }
    // Captures are appended when a frame enters a channel, which is not always in time order across
    // channels; a stable sort keeps same-time frames in simulation order.
    records.sort_by_key(|r| r.timestamp);
    write_pcapng(w, &interfaces, &records)?;
    Ok((records.len(), interfaces.len()))
}
