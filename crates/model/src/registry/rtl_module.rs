//! An RTL module's parameters and ports as the generator read them: the types of the generated table
//! (`rtl_table.rs`) and of the registry that reads it, in a module of their own so that neither imports the
//! other's parent.

/// An RTL module as the generator read it (`rtl_table.rs`).
#[derive(Debug)]
pub struct RtlModule {
    /// Module name.
    pub name: &'static str,
    /// Parameters in declaration order.
    pub params: &'static [RtlParam],
    /// Ports in declaration order.
    pub ports: &'static [RtlPort],
}

/// An RTL parameter.
#[derive(Debug)]
pub struct RtlParam {
    /// Name.
    pub name: &'static str,
    /// Default, as written in the RTL (may refer to earlier parameters).
    pub default: &'static str,
}

/// An RTL port.
#[derive(Debug)]
pub struct RtlPort {
    /// Name.
    pub name: &'static str,
    /// Output (else input).
    pub output: bool,
    /// Range MSB expression (`"0"` for a one-bit port).
    pub msb: &'static str,
    /// Range LSB expression.
    pub lsb: &'static str,
}
