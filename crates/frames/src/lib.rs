//! Frame codecs of the inswitch packet engine (issue 3; the byte-level specification is `docs/frames.md`).
//!
//! Two wire families (seed digest §1, §3):
//!
//! * PCIe: [`tlp`] (non-flit, PCIe 1.x-5.x), [`flit`] (PCIe 6 flit mode), [`dllp`], and the collective
//!   messages the packet engines exchange inside TLPs ([`collective`]);
//! * Portals: the 84-byte reduction frame with its 12-byte reduction header, bit-compatible with the
//!   public libfabric CXI provider ([`portals`]), and Soft Portals over Ethernet ([`ethernet`]).
//!
//! Every layout is declared once with deku (the specification); parsers check lengths before deku
//! runs, so no input can panic, and every failure is a typed [`Error`] naming layer, field, offset
//! and lengths. Each format follows the smoltcp two-layer style where it pays off: an owned `Repr`
//! with `parse` / `buffer_len` / `emit`, plus zero-copy views ([`view`]) for the hot paths.
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

/// Declares a code enum whose unknown values are kept (`Unknown(raw)`) so they round-trip.
/// (Same idea as smoltcp's `enum_with_unknown!`.)
macro_rules! enum_with_unknown {
    (
        $(#[$m:meta])*
        pub enum $name:ident($ty:ty) {
            $( $(#[$vm:meta])* $var:ident = $val:expr ),+ $(,)?
        }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vm])* $var, )+
            /// A code this crate does not name; kept as is so it survives a round trip.
            Unknown($ty),
        }
        impl From<$ty> for $name {
            fn from(v: $ty) -> Self {
                match v {
                    $( x if x == $val => $name::$var, )+
                    other => $name::Unknown(other),
                }
            }
        }
        impl From<$name> for $ty {
            fn from(v: $name) -> $ty {
                match v {
                    $( $name::$var => $val, )+
                    $name::Unknown(o) => o,
                }
            }
        }
        impl $name {
            /// The code's name in snake case (`"int_sum"`), `"unknown"` for a code this crate does not
            /// name: the name `decode --json` and the text view print.
            pub fn name(&self) -> String {
                match self {
                    $( $name::$var => $crate::util::snake_case(stringify!($var)), )+
                    $name::Unknown(_) => "unknown".into(),
                }
            }
        }
        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match self {
                    $name::Unknown(v) => write!(f, "Unknown({:#x})", v),
                    other => core::fmt::Debug::fmt(other, f),
                }
            }
        }
    };
}

pub mod error;
pub use error::{Error, Layer, Result};

pub mod field;
pub mod crc;
pub mod tlp;
pub mod flit;
pub mod dllp;
pub mod portals;
pub mod ethernet;
pub mod collective;
pub mod encapsulated;
pub mod frame;
pub mod decode;
pub mod json;
pub mod pcap;
pub mod view;

pub(crate) mod util;
