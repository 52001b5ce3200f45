//! pcap and pcapng reading and writing (`pcap-file` crate) for `inswitch decode`, `inswitch sim --pcap`
//! and tests that dump frames. pcapng ([`write_pcapng`]) carries one interface per simulated link, named,
//! with nanosecond timestamps (`if_tsresol` 9) and per-frame comments.
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

use crate::frame::FrameKind;
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

/// One interface of a pcapng capture (one simulated link, for `inswitch sim --pcap F.pcapng`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// `if_name` (Wireshark shows it as "on interface <name>").
    pub name: String,
    /// `if_description`.
    pub description: String,
    /// Link type of every frame on it.
    pub linktype: u32,
}

/// One frame of a pcapng capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NgRecord {
    /// Index into the interfaces.
    pub interface: u32,
    /// Timestamp (written with nanosecond resolution, `if_tsresol` 9).
    pub timestamp: Duration,
    /// Frame bytes.
    pub data: Vec<u8>,
    /// `opt_comment` of the packet block (e.g. which engine emitted it).
    pub comment: Option<String>,
}

/// `if_tsresol` exponent of every interface written here: 10^-9 s.
pub const TS_RESOLUTION_EXP: u8 = 9;

/// Writes a pcapng file: one interface description block per `interfaces` entry (name, description,
/// nanosecond `if_tsresol`), then one enhanced packet block per record (with its comment).
pub fn write_pcapng<W: Write>(w: W, interfaces: &[Interface], records: &[NgRecord]) -> Result<W> {
    use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
    use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption, InterfaceTsResolution};
    use pcap_file::pcapng::blocks::opt_common::CommonOption;
    use pcap_file::pcapng::PcapNgWriter;
    use std::borrow::Cow;
    let mut writer = PcapNgWriter::new(w).map_err(pcap_err)?;
    for i in interfaces {
        let idb = InterfaceDescriptionBlock {
            linktype: DataLink::from(i.linktype),
            snaplen: SNAPLEN,
            options: vec![
                InterfaceDescriptionOption::IfName(Cow::Borrowed(i.name.as_str())),
                InterfaceDescriptionOption::IfDescription(Cow::Borrowed(i.description.as_str())),
                InterfaceDescriptionOption::IfTsResol(InterfaceTsResolution::new(false, TS_RESOLUTION_EXP).map_err(pcap_err)?),
            ],
        };
        writer.write_pcapng_block(idb).map_err(pcap_err)?;
    }
    for r in records {
        if r.interface as usize >= interfaces.len() {
            return Err(Error::Pcap { message: format!("record on interface {} of {}", r.interface, interfaces.len()) });
        }
        let options = r.comment.as_deref().map(|c| vec![EnhancedPacketOption::Common(CommonOption::Comment(Cow::Borrowed(c)))]).unwrap_or_default();
        let epb = EnhancedPacketBlock {
            interface_id: r.interface,
            timestamp: r.timestamp,
            original_len: u32::try_from(r.data.len()).map_err(pcap_err)?,
            data: Cow::Borrowed(r.data.as_slice()),
            options,
        };
        writer.write_pcapng_block(epb).map_err(pcap_err)?;
    }
    Ok(writer.into_inner())
}

/// A frame read from a pcap or pcapng file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureFrame {
    /// Interface index (0 for classic pcap).
    pub interface: u32,
    /// Interface name (`if_name`; `None` for classic pcap or an unnamed interface).
    pub interface_name: Option<String>,
    /// Link type of its interface (or of the pcap file).
    pub linktype: u32,
    /// Timestamp.
    pub timestamp: Duration,
    /// Frame bytes.
    pub data: Vec<u8>,
    /// Packet comment (pcapng).
    pub comment: Option<String>,
}

/// The first four bytes of a pcapng file (section header block type).
const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

/// Reads a pcap or pcapng file (told apart by the first bytes) into its frames, each with its
/// interface, link type and timestamp.
pub fn read_capture<R: Read>(mut r: R) -> Result<Vec<CaptureFrame>> {
    use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketOption;
    use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
    use pcap_file::pcapng::blocks::opt_common::CommonOption;
    use pcap_file::pcapng::{Block, PcapNgReader};
    let mut bytes = Vec::new();
    r.read_to_end(&mut bytes).map_err(pcap_err)?;
    if !bytes.starts_with(&PCAPNG_MAGIC) {
        let cap = read_pcap(bytes.as_slice())?;
        return Ok(cap
            .records
            .into_iter()
            .map(|x| CaptureFrame { interface: 0, interface_name: None, linktype: cap.linktype, timestamp: x.timestamp, data: x.data, comment: None })
            .collect());
    }
    let mut reader = PcapNgReader::new(bytes.as_slice()).map_err(pcap_err)?;
    let mut out = Vec::new();
    while let Some(block) = reader.next_block() {
        let (block, state) = block.map_err(pcap_err)?;
        let (interface, timestamp, data, options) = match block {
            Block::EnhancedPacket(p) => (p.interface_id, p.timestamp, p.data.into_owned(), p.options),
            Block::SimplePacket(p) => (0, Duration::ZERO, p.data.into_owned(), Vec::new()),
            _ => continue,
        };
        let idb = state.interfaces().get(interface as usize).ok_or_else(|| Error::Pcap { message: format!("packet on undeclared interface {interface}") })?;
        let interface_name = idb.options.iter().find_map(|o| match o {
            InterfaceDescriptionOption::IfName(n) => Some(n.to_string()),
            _ => None,
        });
        let comment = options.iter().find_map(|o| match o {
            EnhancedPacketOption::Common(CommonOption::Comment(c)) => Some(c.to_string()),
            _ => None,
        });
        out.push(CaptureFrame { interface, interface_name, linktype: u32::from(idb.linktype), timestamp, data, comment });
    }
    Ok(out)
}
