//! Fabric simulator of the inswitch packet engine (issue 7): whole fabrics of switches whose engines are
//! the cycle-level [`inswitch_model::engine::PacketEngine`] (the model the cosim checks against the RTL),
//! end nodes, links and crossbars in a discrete-event simulation; the seed's Table 1 and the two-master
//! case reproduced by [`scenario`]. Architecture and formats: `docs/fabric.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod drive;
pub mod faults;
pub mod plot;
pub mod report;
pub mod scenario;
pub mod setup;
pub mod sim;
pub mod topology;
pub mod wire;
/// The collective manager (seeds 003, 001, 000): trees from the topology map, configuration plans.
/// It drives the simulator through [`drive`] (`docs/fabric.md` §The manager drives the fabric).
pub mod manager;
