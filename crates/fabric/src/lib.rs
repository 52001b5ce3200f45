//! Fabric simulator and collective manager (issue 7). Nothing is built here yet.
pub mod manager;
