//! The field tables of the non-flit TLP layouts (the diagrams in [`super`]), most significant bit
//! first, each counted from the first bit of its own structure: the one place each layout's bit
//! positions are written for [`crate::view::TlpView`]'s getters and `to_repr`. The deku declarations
//! in [`super`] stay the parser; its tests check each of them against its table on random bytes.
//!
//! Where a structure sits in a TLP: DW0 at byte 0, the request DW1 / completion / message header at
//! [`AFTER_DW0`], a request's address (or a configuration request's DW2) at [`AFTER_REQUEST_DW1`].

use crate::field::layout_len;

/// DW0, common to every TLP header.
pub mod dw0_fields {
    use crate::field::Field;
    /// Fmt\[2:0\].
    pub const FMT: Field = Field::new("fmt", 0, 3);
    /// Type\[4:0\].
    pub const TYPE: Field = Field::new("type", FMT.end(), 5);
    /// T9.
    pub const T9: Field = Field::new("t9", TYPE.end(), 1);
    /// TC.
    pub const TC: Field = Field::new("tc", T9.end(), 3);
    /// T8.
    pub const T8: Field = Field::new("t8", TC.end(), 1);
    /// Attr\[2\].
    pub const ATTR2: Field = Field::new("attr2", T8.end(), 1);
    /// LN.
    pub const LN: Field = Field::new("ln", ATTR2.end(), 1);
    /// TH.
    pub const TH: Field = Field::new("th", LN.end(), 1);
    /// TD.
    pub const TD: Field = Field::new("td", TH.end(), 1);
    /// EP.
    pub const EP: Field = Field::new("ep", TD.end(), 1);
    /// Attr\[1:0\].
    pub const ATTR: Field = Field::new("attr", EP.end(), 2);
    /// AT.
    pub const AT: Field = Field::new("at", ATTR.end(), 2);
    /// Length\[9:0\].
    pub const LENGTH: Field = Field::new("length", AT.end(), 10);
    /// Every field, in wire order.
    pub const ALL: [Field; 13] = [FMT, TYPE, T9, TC, T8, ATTR2, LN, TH, TD, EP, ATTR, AT, LENGTH];
}

/// A TLP prefix (one DW in front of the header).
pub mod prefix_fields {
    use crate::field::Field;
    /// Fmt (always `FMT_PREFIX`).
    pub const FMT: Field = Field::new("fmt", 0, 3);
    /// Type\[4\]: End-End (1) or Local (0).
    pub const END_TO_END: Field = Field::new("end_to_end", FMT.end(), 1);
    /// Type\[3:0\].
    pub const SUBTYPE: Field = Field::new("subtype", END_TO_END.end(), 4);
    /// Bytes 1-3.
    pub const CONTENT: Field = Field::new("content", SUBTYPE.end(), 24);
    /// Every field, in wire order.
    pub const ALL: [Field; 4] = [FMT, END_TO_END, SUBTYPE, CONTENT];
}

/// DW1 of memory, IO, configuration and AtomicOp requests.
pub mod request_fields {
    use crate::field::Field;
    /// Requester ID.
    pub const REQUESTER_ID: Field = Field::new("requester_id", 0, 16);
    /// Tag\[7:0\].
    pub const TAG: Field = Field::new("tag", REQUESTER_ID.end(), 8);
    /// Last DW byte enables.
    pub const LAST_BE: Field = Field::new("last_be", TAG.end(), 4);
    /// First DW byte enables.
    pub const FIRST_BE: Field = Field::new("first_be", LAST_BE.end(), 4);
    /// Every field, in wire order.
    pub const ALL: [Field; 4] = [REQUESTER_ID, TAG, LAST_BE, FIRST_BE];
}

/// The 32-bit address DW (3DW memory, IO and AtomicOp requests).
pub mod address32_fields {
    use crate::field::Field;
    /// Address\[31:2\].
    pub const ADDRESS_DW: Field = Field::new("address_dw", 0, 30);
    /// Processing hint.
    pub const PH: Field = Field::new("ph", ADDRESS_DW.end(), 2);
    /// Every field, in wire order.
    pub const ALL: [Field; 2] = [ADDRESS_DW, PH];
}

/// The 64-bit address (4DW memory and AtomicOp requests).
pub mod address64_fields {
    use crate::field::Field;
    /// Address\[63:2\].
    pub const ADDRESS_DW: Field = Field::new("address_dw", 0, 62);
    /// Processing hint.
    pub const PH: Field = Field::new("ph", ADDRESS_DW.end(), 2);
    /// Every field, in wire order.
    pub const ALL: [Field; 2] = [ADDRESS_DW, PH];
}

/// DW2 of configuration requests.
pub mod config_fields {
    use crate::field::Field;
    /// Target bus.
    pub const BUS: Field = Field::new("bus", 0, 8);
    /// Target device.
    pub const DEVICE: Field = Field::new("device", BUS.end(), 5);
    /// Target function.
    pub const FUNCTION: Field = Field::new("function", DEVICE.end(), 3);
    /// Reserved.
    pub const RESERVED_HI: Field = Field::new("reserved_hi", FUNCTION.end(), 4);
    /// Extended register number.
    pub const EXT_REGISTER: Field = Field::new("ext_register", RESERVED_HI.end(), 4);
    /// Register number.
    pub const REGISTER: Field = Field::new("register", EXT_REGISTER.end(), 6);
    /// Reserved.
    pub const RESERVED_LO: Field = Field::new("reserved_lo", REGISTER.end(), 2);
    /// Every field, in wire order.
    pub const ALL: [Field; 7] = [BUS, DEVICE, FUNCTION, RESERVED_HI, EXT_REGISTER, REGISTER, RESERVED_LO];
}

/// DW1-DW2 of completions.
pub mod completion_fields {
    use crate::field::Field;
    /// Completer ID.
    pub const COMPLETER_ID: Field = Field::new("completer_id", 0, 16);
    /// Completion status.
    pub const STATUS: Field = Field::new("status", COMPLETER_ID.end(), 3);
    /// Byte count modified.
    pub const BCM: Field = Field::new("bcm", STATUS.end(), 1);
    /// Byte count (0 means 4096).
    pub const BYTE_COUNT: Field = Field::new("byte_count", BCM.end(), 12);
    /// Requester ID.
    pub const REQUESTER_ID: Field = Field::new("requester_id", BYTE_COUNT.end(), 16);
    /// Tag\[7:0\].
    pub const TAG: Field = Field::new("tag", REQUESTER_ID.end(), 8);
    /// Reserved.
    pub const RESERVED: Field = Field::new("reserved", TAG.end(), 1);
    /// Lower address\[6:0\].
    pub const LOWER_ADDRESS: Field = Field::new("lower_address", RESERVED.end(), 7);
    /// Every field, in wire order.
    pub const ALL: [Field; 8] = [COMPLETER_ID, STATUS, BCM, BYTE_COUNT, REQUESTER_ID, TAG, RESERVED, LOWER_ADDRESS];
}

/// DW1-DW3 of messages.
pub mod message_fields {
    use crate::field::Field;
    /// Requester ID.
    pub const REQUESTER_ID: Field = Field::new("requester_id", 0, 16);
    /// Tag\[7:0\].
    pub const TAG: Field = Field::new("tag", REQUESTER_ID.end(), 8);
    /// Message code.
    pub const MESSAGE_CODE: Field = Field::new("message_code", TAG.end(), 8);
    /// DW2 (routing dependent: Address\[63:32\], or target ID and vendor ID).
    pub const DW2: Field = Field::new("dw2", MESSAGE_CODE.end(), 32);
    /// DW3 (routing dependent).
    pub const DW3: Field = Field::new("dw3", DW2.end(), 32);
    /// Every field, in wire order.
    pub const ALL: [Field; 5] = [REQUESTER_ID, TAG, MESSAGE_CODE, DW2, DW3];
}

/// DW2 of an ID-routed or vendor-defined message.
pub mod message_id_fields {
    use crate::field::Field;
    /// Target / destination ID.
    pub const TARGET_ID: Field = Field::new("target_id", 0, 16);
    /// Vendor ID (vendor-defined messages).
    pub const VENDOR_ID: Field = Field::new("vendor_id", TARGET_ID.end(), 16);
    /// Every field, in wire order.
    pub const ALL: [Field; 2] = [TARGET_ID, VENDOR_ID];
}

/// Length of DW0.
pub const DW0_LEN: usize = layout_len(&dw0_fields::ALL);
/// Length of a prefix.
pub const PREFIX_LEN: usize = layout_len(&prefix_fields::ALL);
/// Length of a request's DW1.
pub const REQUEST_DW1_LEN: usize = layout_len(&request_fields::ALL);
/// Length of a 32-bit address.
pub const ADDRESS32_LEN: usize = layout_len(&address32_fields::ALL);
/// Length of a 64-bit address.
pub const ADDRESS64_LEN: usize = layout_len(&address64_fields::ALL);
/// Length of a configuration request's DW2.
pub const CONFIG_DW2_LEN: usize = layout_len(&config_fields::ALL);
/// Length of a completion's DW1-DW2.
pub const COMPLETION_LEN: usize = layout_len(&completion_fields::ALL);
/// Length of a message's DW1-DW3.
pub const MESSAGE_LEN: usize = layout_len(&message_fields::ALL);
/// Length of a message's DW2 split as IDs.
pub const MESSAGE_ID_LEN: usize = layout_len(&message_id_fields::ALL);

/// Byte offset of what follows DW0 (request DW1, completion header, message header).
pub const AFTER_DW0: usize = DW0_LEN;
/// Byte offset of a request's address or configuration DW2.
pub const AFTER_REQUEST_DW1: usize = AFTER_DW0 + REQUEST_DW1_LEN;
