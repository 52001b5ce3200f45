//! A collective message (docs/frames.md §4) carried by a VDM or a mailbox write: checks C1-C6 and the
//! normalized message, or a configuration message's register writes (docs/blocks/input_checker.md
//! §Checks, §Configuration messages, §Encapsulated configuration).

use super::codes::event;
use super::config::{self, ConfigWrites};
use super::protocol::*;
use super::verdict::Verdict;
use crate::message::{CollectiveMsg, Family, Kind};

/// A collective message at `p` of `plen` bytes (docs/frames.md §4) to a normalized message.
#[allow(clippy::too_many_arguments)]
pub(super) fn collective(c: &[u8; CAPTURE_BYTES], p: usize, plen: usize, src: u16, dst: u32, dw3: Option<u32>, port: u8, tag: u16) -> Verdict {
    use event::*;
    if plen < 8 {
        return Verdict::Drop(COLL_MALFORMED);
    }
    let (version, kind) = (c[p] >> 4, c[p] & 0xF);
    let flags = c[p + 1];
    let cc_id = u16::from(c[p + 2] & 0xF) << 8 | u16::from(c[p + 3]);
    let encap = kind == Kind::ENCAPSULATED.0;
    if version != 1 || kind == 0 || (kind > 8 && !encap) {
        return Verdict::Drop(COLL_MALFORMED);
    }
    if flags & coll_flag::RESERVED != 0 || c[p + 2] >> 4 != 0 {
        return Verdict::Drop(RESERVED);
    }
    // An encapsulated configuration (kind 10): every check of the encapsulation and of the body it
    // carries is one drop, then the VDM's DW3, then the body's register writes as for kind 1. One naming
    // another engine in P_ID is not relayed (the CPU's path carries kind 1 only): the same drop.
    if encap {
        if !config::encap_ok(c, p, plen) || config::relayed(be16(c, p + 6), dst as u16) {
            return Verdict::Drop(COLL_CONFIG);
        }
        if dw3.is_some_and(|dw3| dw3 != VDM_PROTOCOL_ID << 24 | u32::from(kind) << 16 | u32::from(cc_id)) {
            return Verdict::Drop(VENDOR);
        }
        return Verdict::Config(ConfigWrites::new(c, config::encap_base(c, p), src, tag));
    }
    // C3: a configuration message's fixed part, then the limits the engine applies (§Configuration messages).
    let mut config_expected = 0;
    if kind == 1 {
        if plen < config::CONFIG_FIXED_BYTES {
            return Verdict::Drop(COLL_MALFORMED);
        }
        let (n, s, timeouts_fit) = config::config_counts(c, p);
        // A message for another engine (P_ID = its device ID) goes to the CPU to be relayed down the
        // tree (000 [0106], [0157]; §Configuration messages): its slots must fit the normalized
        // message's `data`.
        let too_many_to_relay = config::relayed(be16(c, p + 6), dst as u16) && n + s > config::CONFIG_RELAY_SLOTS;
        if n > config::CONFIG_MAX_ENTRIES || s > config::CONFIG_MAX_SUBSERVIENT || !timeouts_fit || too_many_to_relay {
            return Verdict::Drop(COLL_CONFIG);
        }
        config_expected = config::config_len(n, s);
    }
    let data_kind = (4..=6).contains(&kind);
    let expected = match kind {
        1 => config_expected,
        2 => 40,
        4..=6 => {
            if plen < 16 {
                return Verdict::Drop(COLL_MALFORMED);
            }
            let n = usize::from(be16(c, p + 12));
            if n > 4 {
                return Verdict::Drop(COLL_OPERANDS);
            }
            16 + 8 * n
        }
        _ => 16,
    };
    if plen != expected {
        return Verdict::Drop(COLL_MALFORMED);
    }
    if let Some(dw3) = dw3 {
        if dw3 != VDM_PROTOCOL_ID << 24 | u32::from(kind) << 16 | u32::from(cc_id) {
            return Verdict::Drop(VENDOR);
        }
    }
    if kind == 1 && !config::relayed(be16(c, p + 6), dst as u16) {
        return Verdict::Config(ConfigWrites::new(c, p, src, tag));
    }
    let mut m = CollectiveMsg {
        kind: Kind(kind),
        family: Family::Tlp,
        port,
        ctx: cc_id,
        src: u32::from(src),
        dst,
        pid: be16(c, p + 6),
        dmu_id: be16(c, p + 4),
        posted: flags & coll_flag::NP == 0,
        error: flags & coll_flag::EM != 0,
        tid: flags >> coll_flag::TID_SHIFT & coll_flag::TID_MASK,
        ..CollectiveMsg::default()
    };
    match kind {
        1 => {
            // A configuration message to relay (docs/blocks/input_checker.md §Configuration messages):
            // `ConfigFixed` (payload bytes 8-23) in `pbv`, the slots (bytes 24 to the end of the
            // payload, padding included; at most CONFIG_RELAY_SLOTS) in `data`, four per operand.
            m.pbv = u128::from(be64(c, p + 8)) << 64 | u128::from(be64(c, p + 16));
            for j in 0..(plen - config::CONFIG_FIXED_BYTES) / 2 {
                m.data[j / 4] |= u64::from(be16(c, p + config::CONFIG_FIXED_BYTES + 2 * j)) << (48 - 16 * (j % 4));
            }
        }
        2 => {
            m.count = u32::from(be16(c, p + 8));
            m.op = c[p + 10];
            m.data[0] = be64(c, p + 16);
            m.pbv = u128::from(be64(c, p + 24)) << 64 | u128::from(be64(c, p + 32));
        }
        3 => {
            m.code = c[p + 8];
            m.count = u32::from(be16(c, p + 10));
        }
        _ if data_kind => {
            m.op = c[p + 8];
            m.rc = c[p + 9];
            m.count = u32::from(be16(c, p + 10));
            m.code = c[p + 14];
            for k in 0..usize::from(be16(c, p + 12)) {
                m.data[k] = be64(c, p + 16 + 8 * k);
            }
        }
        _ => {
            m.code = c[p + 8];
            m.count = u32::from(c[p + 9]);
            m.data[0] = u64::from(be16(c, p + 10)) | u64::from(be16(c, p + 12)) << 16;
        }
    }
    Verdict::Msg(m.masked())
}
