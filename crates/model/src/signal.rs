//! Port values and port lists shared by the block models and the co-simulation harness.
//!
//! Verilator stores a port of width `w` as `u8` (w <= 8), `u16` (w <= 16), `u32` (w <= 32), `u64`
//! (w <= 64) or `VlWide<N>` (32-bit words, word 0 = bits 31:0). The harness moves every port through the
//! same little-endian 32-bit word form, which is what [`Signal`] converts to and from.

use core::fmt;

/// Largest port width, in bits, that a [`Wide`] value holds (a 512-bit AXI-stream data bus).
pub const WIDE_MAX_BITS: usize = 512;
/// 32-bit words in the largest port; the size of the scratch buffer the harness passes to [`Signal`].
pub const MAX_PORT_WORDS: usize = WIDE_MAX_BITS / 32;

/// A value that can sit on an RTL port.
pub trait Signal: Copy + Default + PartialEq + fmt::Debug {
    /// How many bits the type holds: an RTL port bound to it may be at most this wide.
    const BITS: usize;
    /// Writes the value as little-endian 32-bit words (`words[0]` = bits 31:0). Bits above the value's
    /// width are written as zero; `words` may be shorter than the value (the port is narrower).
    fn to_words(&self, words: &mut [u32]);
    /// Reads the value back from little-endian 32-bit words; missing words read as zero.
    fn from_words(words: &[u32]) -> Self;
}

impl Signal for bool {
    const BITS: usize = 1;
    fn to_words(&self, words: &mut [u32]) {
        words[0] = u32::from(*self);
    }
    fn from_words(words: &[u32]) -> Self {
        words[0] & 1 != 0
    }
}

macro_rules! impl_signal_uint {
    ($($t:ty),*) => {$(
        impl Signal for $t {
            const BITS: usize = <$t>::BITS as usize;
            fn to_words(&self, words: &mut [u32]) {
                let v = u64::from(*self);
                for (i, w) in words.iter_mut().enumerate() {
                    *w = if i < 2 { (v >> (32 * i)) as u32 } else { 0 };
                }
            }
            fn from_words(words: &[u32]) -> Self {
                let lo = u64::from(words.first().copied().unwrap_or(0));
                let hi = u64::from(words.get(1).copied().unwrap_or(0));
                // Truncation is the port semantics: a port narrower than the type keeps its low bits.
                (lo | (hi << 32)) as $t
            }
        }
    )*};
}
impl_signal_uint!(u8, u16, u32, u64);

/// A wide bit vector (up to [`WIDE_MAX_BITS`] bits), little-endian in 64-bit limbs: the AXI-stream data
/// bus. Its width is a block parameter, so the value itself does not carry one; unused high bits are 0.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Wide(pub [u64; WIDE_MAX_BITS / 64]);

impl Wide {
    /// All-zero value.
    pub const ZERO: Wide = Wide([0; WIDE_MAX_BITS / 64]);

    /// Byte `i` (little-endian: byte 0 = bits 7:0, the first byte on the wire of an AXI-stream beat).
    pub fn byte(&self, i: usize) -> u8 {
        (self.0[i / 8] >> (8 * (i % 8))) as u8
    }

    /// Sets byte `i`.
    pub fn set_byte(&mut self, i: usize, v: u8) {
        let sh = 8 * (i % 8);
        self.0[i / 8] = (self.0[i / 8] & !(0xff << sh)) | (u64::from(v) << sh);
    }

    /// Keeps only the low `bits` bits.
    pub fn truncated(mut self, bits: usize) -> Wide {
        for (i, limb) in self.0.iter_mut().enumerate() {
            let lo = i * 64;
            if lo >= bits {
                *limb = 0;
            } else if bits - lo < 64 {
                *limb &= (1u64 << (bits - lo)) - 1;
            }
        }
        self
    }
}

impl fmt::Debug for Wide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0x")?;
        let top = self.0.iter().rposition(|&l| l != 0).unwrap_or(0);
        write!(f, "{:x}", self.0[top])?;
        for limb in self.0[..top].iter().rev() {
            write!(f, "_{limb:016x}")?;
        }
        Ok(())
    }
}

impl Signal for Wide {
    const BITS: usize = WIDE_MAX_BITS;
    fn to_words(&self, words: &mut [u32]) {
        for (i, w) in words.iter_mut().enumerate() {
            *w = self.0.get(i / 2).map_or(0, |l| (l >> (32 * (i % 2))) as u32);
        }
    }
    fn from_words(words: &[u32]) -> Self {
        let mut v = Wide::ZERO;
        for (i, w) in words.iter().enumerate().take(MAX_PORT_WORDS) {
            v.0[i / 2] |= u64::from(*w) << (32 * (i % 2));
        }
        v
    }
}

/// Receives every port of a [`Ports`] value in turn (monomorphised, so a harness pays no dynamic
/// dispatch per port per cycle).
pub trait PortVisitor {
    /// Port `index` (in [`Ports::NAMES`] order) has `value`.
    fn visit<S: Signal>(&mut self, index: usize, value: &S);
}

/// Supplies every port of a [`Ports`] value in turn.
pub trait PortFiller {
    /// The value of port `index` (in [`Ports::NAMES`] order).
    fn fill<S: Signal>(&mut self, index: usize) -> S;
}

/// A list of ports: the `In` or `Out` struct of a block. Implemented by [`ports!`](crate::ports).
pub trait Ports: Copy + Default + PartialEq + fmt::Debug {
    /// The RTL port names, in field order.
    const NAMES: &'static [&'static str];
    /// The capacity in bits of each port's Rust type, in field order.
    const WIDTHS: &'static [usize];
    /// Hands every port to `v`, in field order.
    fn visit_ports<V: PortVisitor>(&self, v: &mut V);
    /// Builds a value port by port from `f`, in field order.
    fn fill_ports<F: PortFiller>(f: &mut F) -> Self;
    /// Writes port `index` (in [`Ports::NAMES`] order) as little-endian 32-bit words.
    fn port_to_words(&self, index: usize, words: &mut [u32]);
    /// Sets port `index` from little-endian 32-bit words.
    fn port_from_words(&mut self, index: usize, words: &[u32]);
    /// Index of the first port whose value differs from `other`'s, if any.
    fn first_difference(&self, other: &Self) -> Option<usize>;
}

/// Declares a block's `In` or `Out` struct: one public field per RTL port, named exactly as the port.
///
/// A field of type `MsgPort` (written so, [`crate::message::MsgPort`]) named `<prefix>` stands for one
/// port `<prefix>_<field>` per field of the collective message ([`msg_fields!`](crate::msg_fields)):
/// `pub s_msg: MsgPort` is `s_msg_kind`, `s_msg_family`, ... in [`Ports::NAMES`], in the message's field
/// order, so the harness binds, compares and reports them by their RTL names.
///
/// ```
/// inswitch_model::ports! {
///     /// Example inputs.
///     pub struct ExampleIn {
///         /// Synchronous active-high reset.
///         pub rst: bool,
///         /// Data in.
///         pub s_axis_tdata: inswitch_model::Wide,
///         /// A message in.
///         pub s_msg: MsgPort,
///     }
/// }
/// use inswitch_model::Ports;
/// assert_eq!(&ExampleIn::NAMES[..4], &["rst", "s_axis_tdata", "s_msg_kind", "s_msg_family"]);
/// assert_eq!(ExampleIn::NAMES.last(), Some(&"s_msg_pbv"));
/// ```
#[macro_export]
macro_rules! ports {
    ($(#[$meta:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $crate::ports! { @munch [$(#[$meta])* $name] [] [] $($body)* }
    };
    // A message group: its rows come from `msg_fields!`, which calls back `@group`.
    (@munch $head:tt [$($fields:tt)*] [$($leaves:tt)*]
        $(#[$fmeta:meta])* pub $field:ident : MsgPort $(, $($rest:tt)*)?) => {
        $crate::msg_fields! { $crate::ports {
            @group $head [$($fields)* $(#[$fmeta])* pub $field: $crate::message::MsgPort,] [$($leaves)*]
            $field [$($($rest)*)?]
        } }
    };
    (@group $head:tt [$($fields:tt)*] [$($leaves:tt)*] $field:ident [$($rest:tt)*]
        [ $( $(#[$doc:meta])* $sub:ident : $mt:ty => $pt:ty = $w:expr ),* $(,)? ]) => {
        $crate::ports! { @munch $head [$($fields)*]
            [$($leaves)* $( (concat!(stringify!($field), "_", stringify!($sub)), $pt, $field . $sub) )*]
            $($rest)* }
    };
    // One port.
    (@munch $head:tt [$($fields:tt)*] [$($leaves:tt)*]
        $(#[$fmeta:meta])* pub $field:ident : $ty:ty $(, $($rest:tt)*)?) => {
        $crate::ports! { @munch $head [$($fields)* $(#[$fmeta])* pub $field: $ty,]
            [$($leaves)* (stringify!($field), $ty, $field)] $($($rest)*)? }
    };
    // Every field read: `leaves` holds each RTL port's (name, type, path from `self`).
    (@munch [$(#[$meta:meta])* $name:ident] [$($fields:tt)*] [$( ($pname:expr, $pty:ty, $($path:tt)+) )*]) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name { $($fields)* }

        impl $crate::signal::Ports for $name {
            const NAMES: &'static [&'static str] = &[$($pname),*];
            const WIDTHS: &'static [usize] = &[$(<$pty as $crate::signal::Signal>::BITS),*];
            #[allow(unused_assignments)]
            #[inline]
            fn visit_ports<V: $crate::signal::PortVisitor>(&self, v: &mut V) {
                let mut i = 0usize;
                $( v.visit(i, &self.$($path)+); i += 1; )*
            }
            #[allow(unused_assignments)]
            #[inline]
            fn fill_ports<F: $crate::signal::PortFiller>(f: &mut F) -> Self {
                let mut s = $name::default();
                let mut i = 0usize;
                $( s.$($path)+ = f.fill(i); i += 1; )*
                s
            }
            #[allow(unused_assignments)]
            fn port_to_words(&self, index: usize, words: &mut [u32]) {
                let mut i = 0usize;
                $( if i == index { return $crate::signal::Signal::to_words(&self.$($path)+, words); } i += 1; )*
                panic!("{}: no port with index {index}", stringify!($name));
            }
            #[allow(unused_assignments)]
            fn port_from_words(&mut self, index: usize, words: &[u32]) {
                let mut i = 0usize;
                $( if i == index { self.$($path)+ = $crate::signal::Signal::from_words(words); return; } i += 1; )*
                panic!("{}: no port with index {index}", stringify!($name));
            }
            #[allow(unused_assignments)]
            fn first_difference(&self, other: &Self) -> Option<usize> {
                let mut i = 0usize;
                $( if self.$($path)+ != other.$($path)+ { return Some(i); } i += 1; )*
                None
            }
        }
    };
}

/// A clocked block model.
pub trait Block {
    /// Input ports.
    type In: Ports;
    /// Output ports.
    type Out: Ports;
    /// One rising clock edge: returns the outputs seen just before the edge, then updates the registers.
    fn step(&mut self, inputs: &Self::In) -> Self::Out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_words_round_trip_and_byte_order() {
        let mut v = Wide::ZERO;
        for i in 0..64 {
            v.set_byte(i, i as u8 + 1);
        }
        let mut words = [0u32; MAX_PORT_WORDS];
        v.to_words(&mut words);
        assert_eq!(words[0], 0x0403_0201);
        assert_eq!(words[15], 0x403f_3e3d);
        assert_eq!(Wide::from_words(&words), v);
        assert_eq!(v.byte(9), 10);
        let t = v.truncated(72);
        assert_eq!(t.0[1], 0x09);
        assert_eq!(t.0[2], 0);
    }

    #[test]
    fn narrow_ports_truncate_like_verilator() {
        let mut w = [0u32; 2];
        0x1_2345_6789u64.to_words(&mut w);
        assert_eq!(w, [0x2345_6789, 1]);
        assert_eq!(u16::from_words(&w), 0x6789);
        assert!(bool::from_words(&[3]));
    }
}
