//! A frame of any kind this crate decodes: the codec choice ([`FrameKind`]), the decoded value
//! ([`Decoded`]) and the dispatch ([`decode`]). Below both renderers ([`crate::decode`]'s text view and
//! [`crate::json`]), which re-use it; `crate::decode` re-exports these names (their public path).

use core::str::FromStr;

use crate::collective::CollectiveMessage;
use crate::dllp::Dllp;
use crate::ethernet::SoftPortals;
use crate::error::{Error, Layer, Result};
use crate::flit::FlitTlp;
use crate::portals::ReductionFrame;
use crate::tlp::Tlp;

/// Which codec to decode with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// Non-flit TLP.
    Tlp,
    /// Flit-mode TLP.
    FlitTlp,
    /// DLLP with CRC.
    Dllp,
    /// 84-byte Portals reduction frame.
    Portals,
    /// Soft Portals (Ethernet).
    SoftPortals,
    /// Collective message (the TLP payload alone).
    Collective,
}

/// Names accepted by [`FrameKind::from_str`], in [`FrameKind`] order.
pub const FRAME_KIND_NAMES: [&str; 6] = ["tlp", "flit", "dllp", "portals", "soft-portals", "collective"];

impl FromStr for FrameKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<FrameKind> {
        Ok(match s {
            "tlp" => FrameKind::Tlp,
            "flit" => FrameKind::FlitTlp,
            "dllp" => FrameKind::Dllp,
            "portals" => FrameKind::Portals,
            "soft-portals" => FrameKind::SoftPortals,
            "collective" => FrameKind::Collective,
            _ => return Err(Error::Syntax { layer: Layer::Hex, offset: 0, reason: "unknown frame kind (tlp, flit, dllp, portals, soft-portals, collective)" }),
        })
    }
}

/// A decoded frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// Non-flit TLP.
    Tlp(Tlp),
    /// Flit-mode TLP.
    FlitTlp(FlitTlp),
    /// DLLP.
    Dllp(Dllp),
    /// Portals reduction frame.
    Portals(ReductionFrame),
    /// Soft Portals.
    SoftPortals(SoftPortals),
    /// Collective message.
    Collective(CollectiveMessage),
}

/// Parses `bytes` as `kind`.
pub fn decode(kind: FrameKind, bytes: &[u8]) -> Result<Decoded> {
    Ok(match kind {
        FrameKind::Tlp => Decoded::Tlp(Tlp::parse(bytes)?),
        FrameKind::FlitTlp => Decoded::FlitTlp(FlitTlp::parse(bytes)?),
        FrameKind::Dllp => Decoded::Dllp(Dllp::parse(bytes)?),
        FrameKind::Portals => Decoded::Portals(ReductionFrame::parse(bytes)?),
        FrameKind::SoftPortals => Decoded::SoftPortals(SoftPortals::parse(bytes)?),
        FrameKind::Collective => Decoded::Collective(CollectiveMessage::parse(bytes)?),
    })
}
