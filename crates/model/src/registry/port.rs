//! A port as the registry's users see it (name, direction, RTL width), below both the registry and its
//! packed vectors (`packed.rs`) so that neither imports the other.

/// One port of a block at a parameter set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    /// RTL name.
    pub name: &'static str,
    /// Output of the block (else input).
    pub output: bool,
    /// RTL width in bits.
    pub width: u32,
}

impl PortInfo {
    /// 32-bit words the value takes.
    pub fn words(&self) -> usize {
        (self.width as usize).div_ceil(32)
    }
}
