//! Fabric simulator of the inswitch packet engine (issue 7): whole fabrics of switches whose engines are
//! the cycle-level [`inswitch_model::packet_engine::PacketEngine`] (the model the cosim checks against the RTL),
//! end nodes, links and crossbars in a discrete-event simulation; the seed's Table 1 and the two-master
//! case reproduced by [`scenario`]. Architecture and formats: `docs/fabric.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod builtin;
pub mod campaign;
pub mod capture;
pub mod drive;
pub mod explain;
pub mod faults;
pub mod goodput;
pub mod plot;
pub mod report;
pub mod scenario;
pub mod setup;
pub mod sim;
pub mod topology;
pub mod twin;
pub mod wire;
// The collective manager: its documentation is the module's own (inner) doc, so that its links resolve
// in the module (an outer doc here would make rustdoc resolve them at the crate root).
pub mod manager;
