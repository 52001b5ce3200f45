//! Port lists shared by the block models and the co-simulation harness: [`Ports`], declared with
//! [`ports!`](crate::ports), and [`Block`]. The values on one port ([`Signal`], [`Wide`]) live in
//! [`port_value`](crate::port_value), below the collective message that a port list may hold (`MsgPort`),
//! and are re-exported here.

use core::fmt;

pub use crate::port_value::{Signal, Wide, MAX_PORT_WORDS, WIDE_MAX_BITS};

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
    /// Sets every port of `self` from `f`, in field order: [`Ports::fill_ports`] written in place, so that
    /// a caller holding the struct (the registry's packed cycle) builds no temporary copy of it.
    fn fill_ports_in_place<F: PortFiller>(&mut self, f: &mut F);
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
            // Always inlined: the visitor's or filler's state then lives in registers of the caller's
            // frame instead of behind a pointer (the packed C ABI cycle spent a quarter of its time on it).
            #[inline(always)]
            fn visit_ports<V: $crate::signal::PortVisitor>(&self, v: &mut V) {
                let mut i = 0usize;
                $( v.visit(i, &self.$($path)+); i += 1; )*
            }
            #[allow(unused_assignments)]
            #[inline(always)]
            fn fill_ports<F: $crate::signal::PortFiller>(f: &mut F) -> Self {
                let mut s = $name::default();
                let mut i = 0usize;
                $( s.$($path)+ = f.fill(i); i += 1; )*
                s
            }
            #[allow(unused_assignments)]
            #[inline(always)]
            fn fill_ports_in_place<F: $crate::signal::PortFiller>(&mut self, f: &mut F) {
                let mut i = 0usize;
                $( self.$($path)+ = f.fill(i); i += 1; )*
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
    use crate::message::MsgPort;

    ports! {
        /// A block's inputs with one message group between two single ports, as a block declares them.
        pub struct GroupIn {
            /// Before the group.
            pub s_msg_valid: bool,
            /// The group.
            pub s_msg: MsgPort,
            /// After the group.
            pub m_msg_ready: bool,
        }
    }

    ports! {
        /// A block's outputs with a message group.
        pub struct GroupOut {
            /// Before the group.
            pub m_msg_valid: bool,
            /// The group.
            pub m_msg: MsgPort,
        }
    }

    #[test]
    fn a_message_group_is_one_named_port_per_field() {
        let names = GroupIn::NAMES;
        let at = names.iter().position(|&n| n == "s_msg_kind").expect("s_msg_kind");
        assert_eq!(names[at - 1], "s_msg_valid");
        for (k, &(f, _)) in MsgPort::FIELDS.iter().enumerate() {
            assert_eq!(names[at + k], format!("s_msg_{f}"));
        }
        assert_eq!(names[at + MsgPort::FIELDS.len()], "m_msg_ready");
        assert_eq!(GroupIn::WIDTHS[names.iter().position(|&n| n == "s_msg_data").unwrap()], WIDE_MAX_BITS);
        // Ports are reached by index through the group, both ways.
        let tid = GroupOut::NAMES.iter().position(|&n| n == "m_msg_tid").expect("m_msg_tid");
        let mut o = GroupOut::default();
        o.port_from_words(tid, &[2]);
        assert_eq!(o.m_msg.tid, 2);
        assert_eq!(o.first_difference(&GroupOut::default()), Some(tid));
        let mut w = [0u32; 1];
        o.port_to_words(tid, &mut w);
        assert_eq!(w, [2]);
    }
}
