//! The normalized collective message: what the input checker hands the collective processing unit (CPU)
//! and what the CPU hands the frame builder, whichever wire family the frame came in or goes out on.
//!
//! Specification: `docs/blocks/collective_message.md`. In RTL the message is one beat of a valid/ready
//! stream whose signals are `s_msg_<field>` / `m_msg_<field>`; the field names below are those suffixes.
//! Field widths are the `*_WIDTH` constants; values wider than their field are truncated at a port.
//!
//! The field list is written once, in [`msg_fields!`](crate::msg_fields): [`CollectiveMsg`] (the message
//! as the blocks reason about it), [`MsgPort`] (the same fields as they sit on the ports), the
//! conversions between them, and the `s_msg_*` / `m_msg_*` ports of every block struct declared with
//! [`ports!`](crate::ports) (a field of type `MsgPort`) are all generated from it. The RTL's
//! `rtl/collective_msg.vh` is generated from it too ([`verilog_header`]); `tests/collective_msg_vh.rs`
//! fails when the checked-in file differs.

use crate::port_value::Wide;

/// Width of `kind`.
pub const KIND_WIDTH: u32 = 4;
/// Width of a context key: a 12-bit CC_ID (000 \[0168\]) or {reduction id 3, multicast tree 13} (002 (61)).
pub const CTX_WIDTH: u32 = 16;
/// Width of a participant index P_ID (000 \[0168\]); [`NO_PARTICIPANT`] is "none".
pub const PID_WIDTH: u32 = 16;
/// Width of a count: p_count or rt_count (002 (60): 20-bit wait count).
pub const COUNT_WIDTH: u32 = 20;
/// Width of a sequence or result number (002 (61)).
pub const SEQNO_WIDTH: u32 = 10;
/// Width of a transaction ID (001).
pub const TID_WIDTH: u32 = 2;
/// Width of a participant bit vector (000 \[0094\], \[0155\]).
pub const PBV_WIDTH: u32 = 128;
/// Operands per message (002 (46)).
pub const LANES: usize = 4;
/// Width of one operand (002 (46): 64-bit rt_data elements).
pub const OPERAND_WIDTH: u32 = 64;
/// Width of a Portals reduction opcode rt_op (002 (52)).
pub const OP_WIDTH: u32 = 6;
/// Width of a result code rt_rc (002 (52)).
pub const RC_WIDTH: u32 = 4;
/// Width of `code`: the frames crate's control command, completion kind or failure reason.
pub const CODE_WIDTH: u32 = 4;
/// Width of rt_repsum_oflow_id (002 (52)).
pub const OFLOW_ID_WIDTH: u32 = 2;

/// P_ID meaning "no participant" (the frames crate's `collective::NO_PARTICIPANT`).
pub const NO_PARTICIPANT: u16 = 0xffff;

/// Message kinds. 1-8 are the TLP collective message kinds of the frames crate (`collective::Kind`);
/// [`Kind::ARM`] is a Portals frame with rt_arm set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kind(pub u8);

/// The kinds, written once. A row `NAME = value, RTL;` gives the constant `Kind::NAME`, a row of
/// [`Kind::TABLE`] and the RTL localparam `K_<RTL>` that `` `COLLECTIVE_MSG_KINDS `` declares in
/// `rtl/collective_msg.vh` ([`verilog_header`]); the frames crate's `collective::Kind` takes its values
/// from the constants. The RTL name is the Rust one except INIT and CONTRIB, the names of `rtl/cpu.v`'s
/// case arms.
macro_rules! kinds {
    ($( $(#[$doc:meta])* $name:ident = $v:literal, $rtl:ident; )*) => {
        impl Kind {
            $( $(#[$doc])* pub const $name: Kind = Kind($v); )*
            /// Every kind as `(RTL name, kind)` (the RTL localparam is `K_<RTL name>`), in value order.
            pub const TABLE: &'static [(&'static str, Kind)] = &[$((stringify!($rtl), Kind($v))),*];
        }
    };
}

kinds! {
    /// No message (never sent; a stream beat with this kind is malformed).
    NONE = 0, NONE;
    /// Configuration (000 FIG. 4); steered to the register space, not to the CPU.
    CONFIGURATION = 1, CONFIGURATION;
    /// Initialization: CC_ID + PBV (000 FIG. 5, \[0141\]).
    INITIALIZATION = 2, INIT;
    /// Control: start, pause, restart, stop, reset (000 FIG. 6, \[0168\]).
    CONTROL = 3, CONTROL;
    /// A contribution or a partial result upward (TLP contribution, Portals data frame), with `count`.
    CONTRIBUTION = 4, CONTRIB;
    /// Aggregated (partial) response upward (000 \[0109\]).
    RESPONSE = 5, RESPONSE;
    /// Completion / result downward: barrier met, barrier satisfied, final result (000 \[0111\]).
    COMPLETION = 6, COMPLETION;
    /// Retry request (000 \[0098\], \[0117\]).
    RETRY = 7, RETRY;
    /// Failure report (000 \[0098\]).
    FAILURE = 8, FAILURE;
    /// Portals arm / result frame going down the tree (002 (37)-(40)).
    ARM = 9, ARM;
    /// An encapsulated original multicast TLP (000 FIG. 4, \[0156\]): a descriptor, the original memory
    /// write's header and payload. Wire-only, as CONFIGURATION: the checker applies an encapsulated
    /// configuration as register writes (docs/frames.md §4); never a stream message.
    ENCAPSULATED = 10, ENCAP;
}

/// Wire family a message came in on or goes out on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Family {
    /// PCIe TLP collective message (seed 000).
    #[default]
    Tlp,
    /// Portals reduction frame, native or Soft Portals (seed 002).
    Portals,
}

/// The message's fields, written once: every other list of them is generated from this one.
///
/// Calls `$cb! { $($args)* [ rows ] }`, one row a field:
/// `#[doc] name: message type => port type = RTL width`. The message type is the field's type in
/// [`CollectiveMsg`], the port type the Rust type of the RTL port `s_msg_<name>` / `m_msg_<name>` in
/// [`MsgPort`] (a [`Signal`](crate::Signal)), the width the port's width in bits. The order is the
/// order of the ports and of the packed bus `` `COLLECTIVE_MSG_BUS `` (first field = least significant
/// bits). To add a field, add a row here, then follow the checklist in `docs/blocks/collective_message.md`.
#[macro_export]
macro_rules! msg_fields {
    ($cb:path { $($args:tt)* }) => {
        $cb! { $($args)* [
            /// Message kind.
            kind: $crate::message::Kind => u8 = $crate::message::KIND_WIDTH,
            /// Wire family (port: 1 = Portals).
            family: $crate::message::Family => bool = 1,
            /// Ingress port (in) or egress port hint (out; the output queue's route table decides).
            port: u8 => u8 = u8::BITS,
            /// Context key: CC_ID (TLP) or {reduction id, tree} = DFA bits 20-18, 15-3 (Portals).
            ctx: u16 => u16 = $crate::message::CTX_WIDTH,
            /// Source: Requester ID (TLP, 16 bits) or SFA (Portals, 32 bits).
            src: u32 => u32 = u32::BITS,
            /// Destination: device ID (TLP) or DFA (Portals).
            dst: u32 => u32 = u32::BITS,
            /// Participant index P_ID, or [`NO_PARTICIPANT`](crate::message::NO_PARTICIPANT).
            pid: u16 => u16 = $crate::message::PID_WIDTH,
            /// Endpoint identifier DMU_ID (000 \[0141\], \[0168\]).
            dmu_id: u16 => u16 = u16::BITS,
            /// p_count (TLP) or rt_count (Portals), 20 bits.
            count: u32 => u32 = $crate::message::COUNT_WIDTH,
            /// Kind-dependent code: control command, completion kind or failure reason (frames crate enums).
            code: u8 => u8 = $crate::message::CODE_WIDTH,
            /// Posted (no response expected) rather than non-posted (000 \[0097\]).
            posted: bool => bool = 1,
            /// Partial result marked as an error (000 \[0242\]).
            error: bool => bool = 1,
            /// Transaction ID, 2 bits (001).
            tid: u8 => u8 = $crate::message::TID_WIDTH,
            /// VNI (002 (52)).
            vni: u16 => u16 = u16::BITS,
            /// Cookie (002 (52)).
            cookie: u32 => u32 = u32::BITS,
            /// rt_seqno, 10 bits.
            seqno: u16 => u16 = $crate::message::SEQNO_WIDTH,
            /// rt_resno, 10 bits.
            resno: u16 => u16 = $crate::message::SEQNO_WIDTH,
            /// Retry bit of the reduction header.
            retry: bool => bool = 1,
            /// rt_op, 6 bits.
            op: u8 => u8 = $crate::message::OP_WIDTH,
            /// rt_rc, 4 bits.
            rc: u8 => u8 = $crate::message::RC_WIDTH,
            /// rt_repsum_m (FLT_REPSUM), two's complement.
            repsum_m: i8 => u8 = u8::BITS,
            /// rt_repsum_oflow_id, 2 bits.
            repsum_oflow_id: u8 => u8 = $crate::message::OFLOW_ID_WIDTH,
            /// rt_data: four 64-bit operands (port: lane 0 in bits 63:0).
            data: [u64; $crate::message::LANES] => $crate::Wide =
                $crate::message::LANES as u32 * $crate::message::OPERAND_WIDTH,
            /// Participant bit vector (INITIALIZATION), bit i = PBV entry i.
            pbv: u128 => $crate::Wide = $crate::message::PBV_WIDTH,
        ] }
    };
}

/// How a message field's value sits on its port (identity where the types agree).
trait PortForm<P> {
    fn to_port(&self) -> P;
    fn from_port(p: &P) -> Self;
}

impl<T: Copy> PortForm<T> for T {
    fn to_port(&self) -> T {
        *self
    }
    fn from_port(p: &T) -> T {
        *p
    }
}

impl PortForm<u8> for Kind {
    fn to_port(&self) -> u8 {
        self.0
    }
    fn from_port(p: &u8) -> Kind {
        Kind(*p)
    }
}

impl PortForm<bool> for Family {
    fn to_port(&self) -> bool {
        *self == Family::Portals
    }
    fn from_port(p: &bool) -> Family {
        if *p { Family::Portals } else { Family::Tlp }
    }
}

impl PortForm<u8> for i8 {
    fn to_port(&self) -> u8 {
        *self as u8
    }
    fn from_port(p: &u8) -> i8 {
        *p as i8
    }
}

impl PortForm<Wide> for [u64; LANES] {
    fn to_port(&self) -> Wide {
        let mut w = Wide::ZERO;
        w.0[..LANES].copy_from_slice(self);
        w
    }
    fn from_port(p: &Wide) -> [u64; LANES] {
        core::array::from_fn(|i| p.0[i])
    }
}

impl PortForm<Wide> for u128 {
    fn to_port(&self) -> Wide {
        let mut w = Wide::ZERO;
        w.0[0] = *self as u64;
        w.0[1] = (*self >> 64) as u64;
        w
    }
    fn from_port(p: &Wide) -> u128 {
        u128::from(p.0[0]) | u128::from(p.0[1]) << 64
    }
}

/// A port value cut to an RTL width, as a wire narrower than the Rust type would cut it.
trait Truncate {
    fn truncated_to(self, bits: u32) -> Self;
}

impl Truncate for bool {
    fn truncated_to(self, bits: u32) -> bool {
        self && bits > 0
    }
}

macro_rules! impl_truncate_uint {
    ($($t:ty),*) => {$(
        impl Truncate for $t {
            fn truncated_to(self, bits: u32) -> $t {
                if bits >= <$t>::BITS { self } else { self & ((1 << bits) - 1) }
            }
        }
    )*};
}
impl_truncate_uint!(u8, u16, u32);

impl Truncate for Wide {
    fn truncated_to(self, bits: u32) -> Wide {
        self.truncated(bits as usize)
    }
}

macro_rules! declare_message {
    ([ $( $(#[$doc:meta])* $f:ident : $mt:ty => $pt:ty = $w:expr ),* $(,)? ]) => {
        /// One normalized collective message.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct CollectiveMsg {
            $( $(#[$doc])* pub $f: $mt, )*
        }

        /// One collective message as it sits on the `s_msg_*` / `m_msg_*` ports (and in a register slice):
        /// the fields of [`CollectiveMsg`] in their port types. A block struct declared with
        /// [`ports!`](crate::ports) that has a field `<prefix>: MsgPort` has one RTL port
        /// `<prefix>_<field>` per field here.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct MsgPort {
            $( $(#[$doc])* pub $f: $pt, )*
        }

        impl MsgPort {
            /// The fields in port order, each with its RTL width in bits.
            pub const FIELDS: &'static [(&'static str, u32)] = &[$((stringify!($f), $w)),*];

            /// The message these ports carry (not cut to the port widths: see [`MsgPort::truncated`]).
            pub fn msg(&self) -> CollectiveMsg {
                CollectiveMsg { $( $f: PortForm::from_port(&self.$f), )* }
            }

            /// Every field cut to its RTL width, as the RTL's ports would cut it.
            pub fn truncated(self) -> MsgPort {
                MsgPort { $( $f: Truncate::truncated_to(self.$f, $w), )* }
            }
        }

        impl From<&CollectiveMsg> for MsgPort {
            fn from(m: &CollectiveMsg) -> MsgPort {
                MsgPort { $( $f: PortForm::to_port(&m.$f), )* }
            }
        }
    };
}
msg_fields!(declare_message {});

/// Bits in one message: the sum of the field widths (the width of `` `COLLECTIVE_MSG_BUS ``).
pub const MSG_WIDTH: u32 = {
    let mut sum = 0;
    let mut i = 0;
    while i < MsgPort::FIELDS.len() {
        sum += MsgPort::FIELDS[i].1;
        i += 1;
    }
    sum
};

impl CollectiveMsg {
    /// The message with every field cut to its width, as it would be after crossing a port.
    pub fn masked(self) -> CollectiveMsg {
        MsgPort::from(&self).truncated().msg()
    }
}

impl From<&MsgPort> for CollectiveMsg {
    fn from(p: &MsgPort) -> CollectiveMsg {
        p.msg()
    }
}

/// The RTL's copy of the field list: the text of `rtl/collective_msg.vh`, generated from
/// [`msg_fields!`](crate::msg_fields) (`inswitch msg-header > rtl/collective_msg.vh` writes it).
///
/// Its macros, for a signal prefix `p` (`s_msg`, `m_msg`, or a net name in a top):
/// - `` `COLLECTIVE_MSG_<FIELD>_WIDTH ``, `` `COLLECTIVE_MSG_<FIELD>_LSB `` (offset in the packed bus),
///   `` `COLLECTIVE_MSG_WIDTH `` ([`MSG_WIDTH`]);
/// - `` `COLLECTIVE_MSG_SINK_PORTS(p) `` / `` `COLLECTIVE_MSG_SOURCE_PORTS(p) ``: the port declarations of
///   a message input (valid in, ready out, fields in) or output, without a trailing comma;
/// - `` `COLLECTIVE_MSG_WIRES(p) ``: nets `p_valid`, `p_ready` and one per field;
/// - `` `COLLECTIVE_MSG_CONNECT(port, net) ``: the instance connections `.port_x(net_x)`;
/// - `` `COLLECTIVE_MSG_BUS(p) ``: the fields as one concatenation, first field in the low bits (usable
///   on either side of an assignment).
/// - `` `COLLECTIVE_MSG_KINDS ``: the localparams `K_<NAME>` of [`Kind::TABLE`], written inside a module
///   body (the header's include guard keeps it out of module scope).
pub fn verilog_header() -> String {
    use core::fmt::Write;
    const PREFIX: &str = "COLLECTIVE_MSG";
    let fields = MsgPort::FIELDS;
    let upper = |f: &str| f.to_ascii_uppercase();
    let range = |f: &str, w: u32| if w == 1 { String::new() } else { format!("[`{PREFIX}_{}_WIDTH-1:0]", upper(f)) };
    let col = fields.iter().map(|&(f, w)| range(f, w).len()).max().unwrap_or(0);
    let mut s = String::new();
    let mut line = |t: String| {
        s.push_str(&t);
        s.push('\n');
    };
    line("// The normalized collective message's signals (docs/blocks/collective_message.md).".into());
    line("// GENERATED from the field list in crates/model/src/message.rs (msg_fields!): do not edit; run".into());
    line("// `cargo run --release -- msg-header > rtl/collective_msg.vh` (tests/collective_msg_vh.rs checks it).".into());
    line(String::new());
    line(format!("`ifndef {PREFIX}_VH"));
    line(format!("`define {PREFIX}_VH"));
    line(String::new());
    line("// Field widths and offsets in the packed bus (first field = least significant bits)".into());
    let mut lsb = 0;
    for &(f, w) in fields {
        line(format!("`define {PREFIX}_{}_WIDTH {w}", upper(f)));
        line(format!("`define {PREFIX}_{}_LSB {lsb}", upper(f)));
        lsb += w;
    }
    line(format!("`define {PREFIX}_WIDTH {lsb}"));
    // Writing to a String cannot fail: the `fmt::Result`s below are ignored.
    let ports = |dir_valid: &str, dir_ready: &str, dir_fields: &str| {
        let mut t = format!("    {dir_valid} wire {:col$} p``_valid, \\\n", "");
        let _ = write!(t, "    {dir_ready} wire {:col$} p``_ready", "");
        for &(f, w) in fields {
            let _ = write!(t, ", \\\n    {dir_fields} wire {:col$} p``_{f}", range(f, w));
        }
        t
    };
    line(String::new());
    line("// Port declarations of a message input (sink) / output (source) with prefix p, no trailing comma".into());
    line(format!("`define {PREFIX}_SINK_PORTS(p) \\\n{}", ports("input ", "output", "input ")));
    line(format!("`define {PREFIX}_SOURCE_PORTS(p) \\\n{}", ports("output", "input ", "output")));
    line(String::new());
    line("// Nets p_valid, p_ready and one per field".into());
    let mut t = format!("`define {PREFIX}_WIRES(p) \\\n    wire {:col$} p``_valid, p``_ready;", "");
    for &(f, w) in fields {
        let _ = write!(t, " \\\n    wire {:col$} p``_{f};", range(f, w));
    }
    line(t);
    line(String::new());
    line("// Instance connections: ports port_* to nets net_*".into());
    let mut t = format!("`define {PREFIX}_CONNECT(port, net) \\\n    .port``_valid(net``_valid), .port``_ready(net``_ready)");
    for &(f, _) in fields {
        let _ = write!(t, ", \\\n    .port``_{f}(net``_{f})");
    }
    line(t);
    line(String::new());
    line(format!("// The fields as one `{PREFIX}_WIDTH-bit concatenation, first field in the low bits"));
    let bus: Vec<String> = fields.iter().rev().map(|&(f, _)| format!("p``_{f}")).collect();
    line(format!("`define {PREFIX}_BUS(p) {{{}}}", bus.join(", ")));
    line(String::new());
    line("// The message kinds (Kind in crates/model/src/message.rs) as localparams K_<NAME>: write".into());
    line("// `COLLECTIVE_MSG_KINDS inside a module body. A block need not test every kind, hence UNUSEDPARAM off.".into());
    let mut t = format!("`define {PREFIX}_KINDS \\\n    /* verilator lint_off UNUSEDPARAM */");
    for &(name, Kind(v)) in Kind::TABLE {
        let _ = write!(t, " \\\n    localparam [{}:0] K_{name} = {KIND_WIDTH}'d{v};", KIND_WIDTH - 1);
    }
    line(format!("{t} \\\n    /* verilator lint_on UNUSEDPARAM */"));
    line(String::new());
    line("`endif".into());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field set to all ones in its message type.
    fn all_ones() -> CollectiveMsg {
        CollectiveMsg {
            kind: Kind(0xff),
            family: Family::Portals,
            port: 0xff,
            ctx: 0xffff,
            src: u32::MAX,
            dst: u32::MAX,
            pid: 0xffff,
            dmu_id: 0xffff,
            count: u32::MAX,
            code: 0xff,
            posted: true,
            error: true,
            tid: 0xff,
            vni: 0xffff,
            cookie: u32::MAX,
            seqno: 0xffff,
            resno: 0xffff,
            retry: true,
            op: 0xff,
            rc: 0xff,
            repsum_m: -1,
            repsum_oflow_id: 0xff,
            data: [u64::MAX; LANES],
            pbv: u128::MAX,
        }
    }

    #[test]
    fn masking_cuts_each_field_to_its_documented_width() {
        // docs/blocks/collective_message.md, field table.
        let m = all_ones().masked();
        assert_eq!(m.kind, Kind(0xf));
        assert_eq!(m.count, 0xf_ffff);
        assert_eq!((m.code, m.tid, m.op, m.rc, m.repsum_oflow_id), (0xf, 0x3, 0x3f, 0xf, 0x3));
        assert_eq!((m.seqno, m.resno), (0x3ff, 0x3ff));
        // Fields as wide as their type are untouched.
        assert_eq!((m.ctx, m.src, m.repsum_m, m.pbv), (0xffff, u32::MAX, -1, u128::MAX));
        assert_eq!(m.data, [u64::MAX; LANES]);
    }

    #[test]
    fn a_message_survives_its_ports() {
        let mut m = all_ones().masked();
        m.data = [1, 2, 3, 0x8000_0000_0000_0004];
        m.pbv = 1 << 127 | 5;
        m.repsum_m = -3;
        let p = MsgPort::from(&m);
        assert_eq!(p.data.0[..LANES], m.data);
        assert_eq!(p.data.0[LANES..], [0; 4]);
        assert_eq!((p.pbv.0[0], p.pbv.0[1]), (5, 1 << 63));
        assert_eq!((p.kind, p.family, p.repsum_m), (0xf, true, 0xfd));
        assert_eq!(p.msg(), m);
        assert_eq!(CollectiveMsg::default(), MsgPort::default().msg());
    }

    #[test]
    fn every_kind_is_a_localparam_of_the_header_at_its_value() {
        let text = verilog_header();
        for (i, &(name, Kind(v))) in Kind::TABLE.iter().enumerate() {
            assert!(u32::from(v) < 1 << KIND_WIDTH, "{name}");
            assert_eq!(v as usize, i, "{name}: the table is in value order, without gaps");
            let decl = format!("localparam [{}:0] K_{name} = {KIND_WIDTH}'d{v};", KIND_WIDTH - 1);
            assert!(text.contains(&decl), "no `{decl}`");
        }
        assert_eq!(Kind::TABLE[2], ("INIT", Kind::INITIALIZATION));
        assert_eq!(Kind::TABLE[9], ("ARM", Kind::ARM));
    }
}
