//! Typed errors of every codec in this crate.
//!
//! A verification engineer reads these at 2 a.m.: each variant says which [`Layer`] failed, which field,
//! at which byte offset (relative to the start of the buffer handed to the parser), and the lengths
//! involved. Parsing untrusted bytes never panics; it returns one of these.

use core::fmt;

/// The protocol layer an error was found in.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Non-flit (PCIe 1.x-5.x) TLP prefix.
    TlpPrefix,
    /// Non-flit (PCIe 1.x-5.x) TLP header, payload or digest.
    Tlp,
    /// PCIe 6 flit-mode TLP (header base, OHC, payload, trailer).
    FlitTlp,
    /// Data link layer packet.
    Dllp,
    /// Collective message carried in a TLP (docs/frames.md §4).
    Collective,
    /// 84-byte Portals reduction frame.
    Portals,
    /// 12-byte reduction header inside the Portals frame.
    ReductionHeader,
    /// Ethernet II header / FCS.
    Ethernet,
    /// Soft Portals (Ethernet + Portals + FCS).
    SoftPortals,
    /// Hex text given to the decoder.
    Hex,
    /// pcap file reading or writing.
    Pcap,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Layer::TlpPrefix => "TLP prefix",
            Layer::Tlp => "TLP",
            Layer::FlitTlp => "flit-mode TLP",
            Layer::Dllp => "DLLP",
            Layer::Collective => "collective message",
            Layer::Portals => "Portals frame",
            Layer::ReductionHeader => "reduction header",
            Layer::Ethernet => "Ethernet",
            Layer::SoftPortals => "Soft Portals",
            Layer::Hex => "hex input",
            Layer::Pcap => "pcap",
        };
        f.write_str(s)
    }
}

/// Every failure of a parse or an emit.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The buffer ends inside `field`, which starts at `offset` and needs the buffer to be at least
    /// `needed` bytes long.
    #[error("{layer}: truncated in field `{field}` at offset {offset}: need {needed} bytes, have {actual}")]
    Truncated { layer: Layer, field: &'static str, offset: usize, needed: usize, actual: usize },
    /// The frame ended at `expected` bytes but the buffer holds `actual`.
    #[error("{layer}: {} trailing bytes: frame is {expected} bytes, buffer is {actual}", actual - expected)]
    TrailingBytes { layer: Layer, expected: usize, actual: usize },
    /// A field holds a value the format forbids.
    #[error("{layer}: field `{field}` at offset {offset} has invalid value {value:#x}: {reason}")]
    InvalidField { layer: Layer, field: &'static str, offset: usize, value: u64, reason: &'static str },
    /// On emit: a field's value does not fit in its width.
    #[error("{layer}: field `{field}` value {value:#x} does not fit in {bits} bits")]
    FieldOverflow { layer: Layer, field: &'static str, value: u64, bits: u32 },
    /// On emit (or a cross-field check on parse): two lengths that must agree do not.
    #[error("{layer}: length of `{field}` is {actual} bytes, the header says {expected}")]
    LengthMismatch { layer: Layer, field: &'static str, expected: usize, actual: usize },
    /// On emit: the output buffer is too small.
    #[error("{layer}: output buffer too small: need {needed} bytes, have {actual}")]
    BufferTooSmall { layer: Layer, needed: usize, actual: usize },
    /// The repr is internally inconsistent (for example a completion body with a memory Type code).
    #[error("{layer}: inconsistent repr: {reason}")]
    Inconsistent { layer: Layer, reason: &'static str },
    /// A checksum did not match (only reported by the explicit `check_*` functions).
    #[error("{layer}: {field} mismatch: computed {computed:#010x}, received {received:#010x}")]
    Checksum { layer: Layer, field: &'static str, computed: u32, received: u32 },
    /// deku reported an error that the length checks above did not anticipate (a bug in this crate if it
    /// happens on parse; on emit it usually means a field overflowed its declared bit width).
    #[error("{layer}: deku codec error in `{context}`: {message}")]
    Deku { layer: Layer, context: &'static str, message: String },
    /// Text input (hex) is malformed.
    #[error("{layer}: {reason} at character {offset}")]
    Syntax { layer: Layer, offset: usize, reason: &'static str },
    /// pcap reading / writing failed.
    #[error("pcap: {message}")]
    Pcap { message: String },
}

/// Result alias of this crate.
pub type Result<T> = core::result::Result<T, Error>;

/// Fails with [`Error::Truncated`] unless `buf` holds `offset + len` bytes.
#[inline]
pub(crate) fn need(layer: Layer, field: &'static str, buf: &[u8], offset: usize, len: usize) -> Result<()> {
    let needed = offset.saturating_add(len);
    if buf.len() < needed {
        Err(Error::Truncated { layer, field, offset, needed, actual: buf.len() })
    } else {
        Ok(())
    }
}

/// Maps a deku error into [`Error::Deku`].
pub(crate) fn deku_err(layer: Layer, context: &'static str) -> impl FnOnce(deku::DekuError) -> Error {
    move |e| Error::Deku { layer, context, message: e.to_string() }
}

/// Fails with [`Error::FieldOverflow`] unless `value < 2^bits`.
#[inline]
pub(crate) fn fits(layer: Layer, field: &'static str, value: u64, bits: u32) -> Result<()> {
    if bits < 64 && value >> bits != 0 {
        Err(Error::FieldOverflow { layer, field, value, bits })
    } else {
        Ok(())
    }
}
