//! `inswitch sim --pcap FILE`: writes the frames a run carried on the chosen links. `FILE.pcap` is a
//! classic pcap of the framed TLPs (one link type, microsecond timestamps); any other name (`.pcapng`)
//! is pcapng with one interface per link and direction, nanosecond simulated time and a comment per frame
//! naming its emitter (`inswitch_fabric::capture`, docs/frames.md §8).

use std::path::Path;

use inswitch_fabric::capture::write_links_pcapng;
use inswitch_fabric::report::{write_links_pcap, LinkFilter};
use inswitch_fabric::sim::Fabric;

/// Whether `path` asks for classic pcap (by its extension).
pub fn is_classic_pcap(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pcap"))
}

/// Writes the capture of `fabric` on `filter`'s links to `path`; returns the report line.
pub fn write(path: &Path, fabric: &Fabric, filter: LinkFilter, links: &str) -> Result<String, String> {
    let file = std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| e.to_string())?);
    if is_classic_pcap(path) {
        let n = write_links_pcap(file, fabric, filter).map_err(|e| e.to_string())?;
        Ok(format!("pcap: {} ({n} frames on {links} links; classic pcap holds the framed TLPs only, .pcapng holds every frame)\n", path.display()))
    } else {
        let (n, interfaces) = write_links_pcapng(file, fabric, filter).map_err(|e| e.to_string())?;
        Ok(format!("pcapng: {} ({n} frames on {links} links, {interfaces} interfaces)\n", path.display()))
    }
}
