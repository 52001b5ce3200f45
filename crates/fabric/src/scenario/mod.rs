//! Scenarios: the runs `inswitch sim` knows by name (Table 1 of seed 000 in both modes, the two-master
//! case of \[0150\]-\[0153\], FIG. 7, FIG. 3's two contexts with different masters of \[0148\]) and the JSON
//! scenario file (`docs/fabric.md` §Scenario files).
//!
//! Every collective run goes through the same phases on one [`crate::sim::Fabric`]: configuration (engines through
//! their ports, as [`crate::drive::configure`]), the command (CONTROL START from the source to the master,
//! replicated down), the responses (every participant answers at the same instant, as Table 1 assumes),
//! and the result distributed back down. Metrics come from the delivery log.
//!
//! Layout: [`collective`] (one run and what it measures), [`tables`] (Table 1, the two-master case,
//! scaling), [`file`](mod@file) (scenario files, named topologies), [`jobs`], [`portals`], [`fig3`]. The names
//! `inswitch sim` knows are registered in `crate::builtin`.

pub mod collective;
pub mod fig3;
pub mod file;
pub mod jobs;
pub mod portals;
pub mod tables;

pub use collective::*;
pub use fig3::*;
pub use file::*;
pub use jobs::*;
pub use portals::*;
pub use tables::*;
