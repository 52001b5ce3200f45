//! Why the manager refuses (the error of every manager operation).

/// Why the manager refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ManagerError {
    /// The topology is inconsistent (duplicate device ID or name, unknown switch).
    #[error("topology: {0}")]
    Topology(String),
    /// The topology file does not parse.
    #[error("topology file: {0}")]
    Parse(String),
    /// A job without participants.
    #[error("the job has no participants")]
    EmptyJob,
    /// A node id not in the map.
    #[error("no end node {0}")]
    UnknownNode(u32),
    /// A switch id not in the map.
    #[error("no switch {0}")]
    UnknownSwitch(u32),
    /// A participant's attachment link or switch is down.
    #[error("participant {0} is cut off (its link or switch is down)")]
    NodeUnreachable(String),
    /// A switch the tree needs is down.
    #[error("switch {0} is down")]
    SwitchDown(String),
    /// A switch the tree needs has no free context, descriptor or multicast entry.
    #[error("switch {0} has no free context, descriptor or multicast entry")]
    Exhausted(String),
    /// No root reaches every participant over up links and switches with free contexts.
    #[error("no root reaches every participant")]
    Unreachable,
    /// An engine's PBV table has no room for the tree's participants.
    #[error("switch {0}: PBV table full")]
    PbvFull(String),
    /// No context key is free on every engine of the tree.
    #[error("no context key free on every engine of the tree")]
    NoKey,
    /// A job id not placed.
    #[error("no job {0}")]
    UnknownJob(u32),
    /// A Portals job whose target is not its source: a Soft Portals result lands at the tree's root
    /// end node, the source (002 (32), (37)); place the job from the target instead.
    #[error("a Portals job's target must be its source (the tree's root end node)")]
    PortalsTarget,
}
