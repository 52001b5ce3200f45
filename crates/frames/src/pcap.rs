//! pcap reading and writing (`pcap-file` crate) for `inswitch decode` and for tests that dump frames.
//!
//! | frames | LINKTYPE | value |
//! |---|---|---|
//! | Soft Portals | `LINKTYPE_ETHERNET` | 1 |
//! | non-flit TLP (prefixes + header + payload + digest, no framing, no LCRC) | `LINKTYPE_USER0` | 147 |
//! | flit-mode TLP | `LINKTYPE_USER1` | 148 |
//! | Portals reduction frame (84 bytes) | `LINKTYPE_USER2` | 149 |
//! | DLLP with CRC (6 bytes) | `LINKTYPE_USER3` | 150 |
//! | collective message (TLP payload alone) | `LINKTYPE_USER4` | 151 |
//!
//! (Wireshark can be told to dissect a `USERn` link type with a Lua dissector; the mapping above is
//! this project's and documented in docs/frames.md §8.)

use std::io::{Read, Write};
use std::time::Duration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::DataLink;

use crate::decode::FrameKind;
use crate::error::{Error, Result};

/// `LINKTYPE_ETHERNET`.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// `LINKTYPE_USER0`: non-flit TLPs.
pub const LINKTYPE_TLP: u32 = 147;
/// `LINKTYPE_USER1`: flit-mode TLPs.
pub const LINKTYPE_FLIT_TLP: u32 = 148;
/// `LINKTYPE_USER2`: Portals reduction frames.
pub const LINKTYPE_PORTALS: u32 = 149;
/// `LINKTYPE_USER3`: DLLPs.
pub const LINKTYPE_DLLP: u32 = 150;
/// `LINKTYPE_USER4`: collective messages.
pub const LINKTYPE_COLLECTIVE: u32 = 151;
/// Snap length written in headers (a 4 KiB TLP payload plus headers fits).
pub const SNAPLEN: u32 = 65535;

/// The link type frames of `kind` are written with.
pub fn linktype_for(kind: FrameKind) -> u32 {
    match kind {
        FrameKind::SoftPortals => LINKTYPE_ETHERNET,
        FrameKind::Tlp => LINKTYPE_TLP,
        FrameKind::FlitTlp => LINKTYPE_FLIT_TLP,
        FrameKind::Portals => LINKTYPE_PORTALS,
        FrameKind::Dllp => LINKTYPE_DLLP,
        FrameKind::Collective => LINKTYPE_COLLECTIVE,
    }
}

/// The frame kind of a link type, if it is one of ours.
pub fn kind_for_linktype(linktype: u32) -> Option<FrameKind> {
    Some(match linktype {
        LINKTYPE_ETHERNET => FrameKind::SoftPortals,
        LINKTYPE_TLP => FrameKind::Tlp,
        LINKTYPE_FLIT_TLP => FrameKind::FlitTlp,
        LINKTYPE_PORTALS => FrameKind::Portals,
        LINKTYPE_DLLP => FrameKind::Dllp,
        LINKTYPE_COLLECTIVE => FrameKind::Collective,
        _ => return None,
    })
}

/// One captured frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Capture timestamp (the co-simulation writes cycle time here).
    pub timestamp: Duration,
    /// Frame bytes.
    pub data: Vec<u8>,
}

/// The content of a pcap file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// Link type from the file header.
    pub linktype: u32,
    /// Records in file order.
    pub records: Vec<Record>,
}

impl Capture {
    /// The frame kind of this capture's link type.
    pub fn kind(&self) -> Option<FrameKind> {
        kind_for_linktype(self.linktype)
    }
}

fn pcap_err(e: impl core::fmt::Display) -> Error {
    Error::Pcap { message: e.to_string() }
}

/// Writes `records` as a pcap file of the link type for `kind`.
pub fn write_pcap<W: Write>(w: W, kind: FrameKind, records: &[Record]) -> Result<W> {
    let header = PcapHeader { datalink: DataLink::from(linktype_for(kind)), snaplen: SNAPLEN, ..PcapHeader::default() };
    let mut writer = PcapWriter::with_header(w, header).map_err(pcap_err)?;
    for r in records {
        let len = u32::try_from(r.data.len()).map_err(pcap_err)?;
        let p = PcapPacket::new(r.timestamp, len, r.data.as_slice()).map_err(pcap_err)?;
        writer.write_packet(&p).map_err(pcap_err)?;
    }
    writer.flush().map_err(pcap_err)?;
    Ok(writer.into_inner())
}

/// Reads a whole pcap file.
pub fn read_pcap<R: Read>(r: R) -> Result<Capture> {
    let mut reader = PcapReader::new(r).map_err(pcap_err)?;
    let linktype = u32::from(reader.header().datalink);
    let mut records = Vec::new();
    while let Some(p) = reader.next_packet() {
        let p = p.map_err(pcap_err)?;
        records.push(Record { timestamp: p.timestamp(), data: p.data().to_vec() });
    }
    Ok(Capture { linktype, records })
}
