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
    // P_ID names the engine a configuration is for: 0xFFFF or this engine, applied here; another, to the
    // CPU to be relayed down the tree (000 [0106], [0157]; §Configuration messages), its slots in the
    // normalized message's `data` (at most CONFIG_RELAY_SLOTS).
    let relay = config::relayed(be16(c, p + 6), dst as u16);
    // An encapsulated configuration (kind 10): every check of the encapsulation and of the body it
    // carries is one drop, then the VDM's DW3, then the body's register writes as for kind 1, or, for
    // another engine, the kind-1 message the body stands for, to be relayed like one (the encapsulation
    // is the master's: what goes down the tree is the FIG. 4 configuration it carries).
    // An encapsulated register write (payload type 2): one register write to this engine, as a memory
    // write to its window would be, `src` and `tag` the carrier's (docs §Encapsulated register write).
    if encap && c[p + 8] == config::ENCAP_TYPE_REGISTER_WRITE {
        let Some((addr, be, wdata)) = config::encap_register_write(c, p, plen, dst as u16, relay) else {
            return Verdict::Drop(COLL_CONFIG);
        };
        if dw3.is_some_and(|dw3| dw3 != VDM_PROTOCOL_ID << 24 | u32::from(kind) << 16 | u32::from(cc_id)) {
            return Verdict::Drop(VENDOR);
        }
        return Verdict::Reg(RegAccess { write: true, addr, be, wdata, src, tag });
    }
    if encap {
        let base = config::encap_base(c, p);
        let (n, s, _) = config::config_counts(c, base);
        if !config::encap_ok(c, p, plen) || (relay && n + s > config::CONFIG_RELAY_SLOTS) {
            return Verdict::Drop(COLL_CONFIG);
        }
        if dw3.is_some_and(|dw3| dw3 != VDM_PROTOCOL_ID << 24 | u32::from(kind) << 16 | u32::from(cc_id)) {
            return Verdict::Drop(VENDOR);
        }
        if !relay {
            return Verdict::Config(ConfigWrites::new(c, base, src, tag));
        }
        let mut m = header_msg(c, p, Kind::CONFIGURATION, src, dst, port);
        relay_fields(&mut m, c, base, config::config_len(n, s));
        return Verdict::Msg(m.masked());
    }
    // C3: a configuration message's fixed part, then the limits the engine applies (§Configuration messages).
    let mut config_expected = 0;
    if kind == 1 {
        if plen < config::CONFIG_FIXED_BYTES {
            return Verdict::Drop(COLL_MALFORMED);
        }
        let (n, s, timeouts_fit) = config::config_counts(c, p);
        let too_many_to_relay = relay && n + s > config::CONFIG_RELAY_SLOTS;
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
    if kind == 1 && !relay {
        return Verdict::Config(ConfigWrites::new(c, p, src, tag));
    }
    let mut m = header_msg(c, p, Kind(kind), src, dst, port);
    match kind {
        1 => relay_fields(&mut m, c, p, plen),
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

/// The normalized message of kind `kind` with the common header's fields of the message at `p`.
fn header_msg(c: &[u8; CAPTURE_BYTES], p: usize, kind: Kind, src: u16, dst: u32, port: u8) -> CollectiveMsg {
    let flags = c[p + 1];
    CollectiveMsg {
        kind,
        family: Family::Tlp,
        port,
        ctx: u16::from(c[p + 2] & 0xF) << 8 | u16::from(c[p + 3]),
        src: u32::from(src),
        dst,
        pid: be16(c, p + 6),
        dmu_id: be16(c, p + 4),
        posted: flags & coll_flag::NP == 0,
        error: flags & coll_flag::EM != 0,
        tid: flags >> coll_flag::TID_SHIFT & coll_flag::TID_MASK,
        ..CollectiveMsg::default()
    }
}

/// A configuration message to relay (docs/blocks/input_checker.md §Configuration messages), the kind-1
/// payload at `q` of `qlen` bytes (a kind-10 body at [`config::encap_base`]): `ConfigFixed` (payload
/// bytes 8-23) in `pbv`, the slots (bytes 24 to the end of the payload, padding included; at most
/// CONFIG_RELAY_SLOTS) in `data`, four per operand, the first in the high bits.
fn relay_fields(m: &mut CollectiveMsg, c: &[u8; CAPTURE_BYTES], q: usize, qlen: usize) {
    m.pbv = u128::from(be64(c, q + 8)) << 64 | u128::from(be64(c, q + 16));
    for j in 0..(qlen - config::CONFIG_FIXED_BYTES) / 2 {
        m.data[j / 4] |= u64::from(be16(c, q + config::CONFIG_FIXED_BYTES + 2 * j)) << (48 - 16 * (j % 4));
    }
}
