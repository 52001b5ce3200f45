//! Shared by the model's integration tests: the literal truth tables and the SoftFloat oracle.
pub mod softfloat;
pub mod sources;
