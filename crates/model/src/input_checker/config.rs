//! FIG. 4 configuration messages (seed 000 \[0154\]-\[0158\]) as register writes: the checker turns an
//! accepted kind-1 collective message into the register writes it stands for, one at a time on its
//! register path (`m_reg_*`), so the register space stays the single source of the PBV table and
//! forwards it to the CPU as it does for the \[0175\] writes (docs/blocks/input_checker.md §Configuration
//! messages). Layout of the message: docs/frames.md §4 (`ConfigFixed`, then `n_devices` device IDs, PBV
//! entry i → device ID (\[0155\], \[0157\]), then `n_subservient` subservient engine IDs).

use super::protocol::{RegAccess, CAPTURE_BYTES, TLP_OFFSET};
use crate::register_space::offset;

/// Bytes of the message before the first device ID: the 8-byte common header and `ConfigFixed`.
pub const CONFIG_FIXED_BYTES: usize = 24;
/// The most PBV entries a configuration message may name (000 \[0157\]: "up to 128 PBVs"; the PBV
/// table's size). More: the message is dropped (`coll_config`).
pub const CONFIG_MAX_ENTRIES: usize = 128;
/// Width of the timeout registers the message's two 32-bit timeouts are written to (SUB_TIMEOUT,
/// MASTER_TIMEOUT): a timeout with a bit set above them is dropped (`coll_config`).
pub const CONFIG_TIMEOUT_BITS: u32 = 24;
/// The most subservient engine IDs a configuration message applied here may carry (more: `coll_config`).
/// The seed bounds only the PBV entries (000 \[0157\]); each subservient ID is compared with every
/// entry's device ID in parallel (the entry's PBV_FLAGS switch bit), so they are held in flip-flops,
/// 16 of them: a switch engine's children in the tree, one per port group (docs/blocks/input_checker.md
/// §Configuration messages).
pub const CONFIG_MAX_SUBSERVIENT: usize = 16;
/// 16-bit slots (device IDs, then subservient IDs) of the largest message applied here.
pub const CONFIG_STORE_SLOTS: usize = CONFIG_MAX_ENTRIES + CONFIG_MAX_SUBSERVIENT;
/// Bytes of the longest configuration frame the checker reads (any longer frame is `too_long`): the
/// sequence number, a 4-DW carrier header, the message with [`CONFIG_STORE_SLOTS`] slots, ECRC and LCRC.
/// The frame's bytes are kept up to here (the capture's 128, the rest in the RTL's slot store) so that
/// the write sequencer reads every slot after the verdict.
pub const CONFIG_FRAME_BYTES: usize = TLP_OFFSET + 16 + config_len(CONFIG_MAX_ENTRIES, CONFIG_MAX_SUBSERVIENT) + 4 + 4;
/// The most slots (device IDs and subservient IDs) a configuration message for another engine may carry:
/// the checker hands it to the CPU to be relayed down the tree (000 \[0106\], \[0157\]) in the normalized
/// message, `ConfigFixed` in `pbv` and the slots in `data` (256 bits, 16 slots). More: `coll_config`.
pub const CONFIG_RELAY_SLOTS: usize = 16;

/// Whether a configuration message with P_ID `pid` received by engine `engine_id` is for another engine
/// (relayed by the CPU), not applied here: its P_ID names an engine (not 0xFFFF) and not this one.
pub fn relayed(pid: u16, engine_id: u16) -> bool {
    pid != crate::message::NO_PARTICIPANT && pid != engine_id
}

/// Writes after the PBV entries' (ERROR_REPORTING, SUB_TIMEOUT, MASTER_TIMEOUT).
pub const CONFIG_FIXED_WRITES: usize = 3;
/// PBV_FLAGS bits of one entry (its 16-bit half of the DW): valid, switch (docs/blocks/register_space.md).
pub const PBV_FLAG_VALID: u32 = 0x1;
/// The entry is a participant switch (its device ID is one of the message's subservient engines).
pub const PBV_FLAG_SWITCH: u32 = 0x2;

/// Bytes of the encapsulation descriptor of a kind-10 message (000 FIG. 4, \[0156\]'s "encapsulated
/// payload descriptors"), after the common header: payload type, {operation bit, 7 reserved bits},
/// version, a reserved byte (docs/frames.md §4, Encapsulated).
pub const ENCAP_DESCRIPTOR_BYTES: usize = 4;
/// Encapsulated payload type: a FIG. 4 configuration body (`ConfigFixed` and the slots, without the
/// common header).
pub const ENCAP_TYPE_CONFIGURATION: u8 = 1;
/// Encapsulated payload type: one \[0175\] register write, the original header a 1-DW memory write into
/// the register window of the engine P_ID names (000 \[0175\]: "the master packet engine may write to
/// register locations"; docs/frames.md §4). Any type other than these two is dropped (`coll_config`).
pub const ENCAP_TYPE_REGISTER_WRITE: u8 = 2;
/// Length in DW of a register write's original payload: the register path takes 1-DW accesses only
/// (T14, `reg_access`).
pub const ENCAP_REGISTER_WRITE_DW: usize = 1;
/// Descriptor byte 1: the operation bit (bit 7) set = apply (write the encapsulated configuration), the
/// other bits reserved. Only "apply" is defined; a clear bit or a reserved bit set is dropped.
pub const ENCAP_OP_APPLY: u8 = 0x80;
/// Encapsulation version the engine knows.
pub const ENCAP_VERSION: u8 = 1;
/// Descriptor byte 3, the original header's form (000 \[0156\]: FIG. 4's header fields are a PCIe 6
/// flit-mode TLP's, Type, TC, OHC, TS, ...; a non-flit original is the other form): 0 = a non-flit
/// memory write (Fmt 010 / 011, Type 00000). Any value other than the two forms is dropped.
pub const ENCAP_FORM_NON_FLIT: u8 = 0;
/// Descriptor byte 3 = 1: a flit-mode memory write, MWr32 / MWr64 (Type 0x40 / 0x60: the same byte 0,
/// Fmt bit and Length bits as the non-flit form), with no OHC, no trailer, EP 0 (docs/frames.md §2).
pub const ENCAP_FORM_FLIT: u8 = 1;
/// Flit-mode header byte 1 bits OHC\[4:0\] (OHC words would move the body: not taken).
pub const ENCAP_FLIT_OHC: u8 = 0x1F;
/// Flit-mode header byte 2 bits TS\[2:0\] (a trailer: the encapsulation carries none).
pub const ENCAP_FLIT_TS: u8 = 0xE0;
/// Flit-mode header byte 6 bit 7: EP (poisoned).
pub const ENCAP_FLIT_EP: u8 = 0x80;
/// Byte 0 of the encapsulated original header: a memory write, Fmt 010 (3 DW) or 011 (4 DW), Type 00000;
/// [`ENCAP_FMT_4DW`] is the bit that tells them apart.
pub const ENCAP_MWR: u8 = 0x40;
/// The Fmt bit of a 4-DW header in byte 0.
pub const ENCAP_FMT_4DW: u8 = 0x20;
/// Byte 2 bits TD (a digest, which the encapsulation does not carry) and EP (poisoned): both must be clear.
pub const ENCAP_TD_EP: u8 = 0xC0;

/// Where the encapsulated configuration body of a kind-10 message at `p` starts, less 8: the base a
/// kind-1 message with the same body would have, so that [`config_counts`] and [`ConfigWrites::new`] read
/// it unchanged. The encapsulated header is 3 or 4 DW by its Fmt.
pub fn encap_base(c: &[u8; CAPTURE_BYTES], p: usize) -> usize {
    let h = if c[p + 8 + ENCAP_DESCRIPTOR_BYTES] & ENCAP_FMT_4DW != 0 { 16 } else { 12 };
    p + ENCAP_DESCRIPTOR_BYTES + h
}

/// Whether a kind-10 message at `p` of `plen` bytes is an encapsulated configuration the engine applies
/// (docs/blocks/input_checker.md §Encapsulated configuration): descriptor (type configuration, apply,
/// version known, a header form known), header a memory write in that form (3 or 4 DW; non-flit: no
/// digest, not poisoned; flit mode: no OHC, no trailer, not poisoned) whose Length
/// is the configuration body's DWs, the message exactly descriptor + header + body, and the body's
/// limits those of a kind-1 message. Every failure is the one drop `coll_config`.
pub fn encap_ok(c: &[u8; CAPTURE_BYTES], p: usize, plen: usize) -> bool {
    let (d, i) = (p + 8, p + 8 + ENCAP_DESCRIPTOR_BYTES);
    let h = if c[i] & ENCAP_FMT_4DW != 0 { 16 } else { 12 };
    let (n, s, timeouts_fit) = config_counts(c, encap_base(c, p));
    // Bytes of the configuration body (the kind-1 payload less its 8-byte common header).
    let body = config_len(n.min(CONFIG_MAX_ENTRIES), s) - 8;
    // Byte 0 (MWr, the 4-DW bit) and the Length bits are the same in both forms (flit mode's MWr32 /
    // MWr64 keep the non-flit Fmt in Type bits 7-5).
    let length = usize::from(c[i + 2] & 3) << 8 | usize::from(c[i + 3]);
    let header_ok = match c[d + 3] {
        ENCAP_FORM_NON_FLIT => c[i + 2] & ENCAP_TD_EP == 0,
        ENCAP_FORM_FLIT => c[i + 1] & ENCAP_FLIT_OHC == 0 && c[i + 2] & ENCAP_FLIT_TS == 0 && c[i + 6] & ENCAP_FLIT_EP == 0,
        _ => false,
    };
    c[d] == ENCAP_TYPE_CONFIGURATION
        && c[d + 1] == ENCAP_OP_APPLY
        && c[d + 2] == ENCAP_VERSION
        && c[i] & !ENCAP_FMT_4DW == ENCAP_MWR
        && header_ok
        && 4 * length == body
        && plen == 8 + ENCAP_DESCRIPTOR_BYTES + h + body
        && n <= CONFIG_MAX_ENTRIES
        && s <= CONFIG_MAX_SUBSERVIENT
        && timeouts_fit
}

/// The register write of a kind-10 message at `p` of `plen` bytes whose payload type is register write
/// (docs/blocks/input_checker.md §Encapsulated register write), for engine `engine_id`: (offset, byte
/// enables, data) when the engine applies it, else `None` (`coll_config`). The descriptor and the header
/// form as for a configuration ([`encap_ok`]); the original header a memory write of Length 1 (non-flit:
/// Last DW BE 0) whose address is a register of this engine's window (address bits 63:32 zero, 31:16 the
/// engine's device ID, 15:12 the window, 11:0 DW aligned below the mailbox); the message exactly
/// descriptor + header + 1 DW. `relay`: the message names another engine; relaying a register write is
/// not built (the CPU has no path for it), so it is `coll_config` too.
pub fn encap_register_write(c: &[u8; CAPTURE_BYTES], p: usize, plen: usize, engine_id: u16, relay: bool) -> Option<(u16, u8, u32)> {
    let (d, i) = (p + 8, p + 8 + ENCAP_DESCRIPTOR_BYTES);
    let four = c[i] & ENCAP_FMT_4DW != 0;
    let h = if four { 16 } else { 12 };
    let length = usize::from(c[i + 2] & 3) << 8 | usize::from(c[i + 3]);
    let (flit, header_ok) = match c[d + 3] {
        ENCAP_FORM_NON_FLIT => (false, c[i + 2] & ENCAP_TD_EP == 0 && c[i + 7] >> 4 == 0),
        ENCAP_FORM_FLIT => (true, c[i + 1] & ENCAP_FLIT_OHC == 0 && c[i + 2] & ENCAP_FLIT_TS == 0 && c[i + 6] & ENCAP_FLIT_EP == 0),
        _ => (false, false),
    };
    let hi_zero = !four || c[i + 8..i + 12] == [0; 4];
    let addr = be32(c, i + h - 4);
    let window = super::protocol::window_of(u64::from(addr))
        .filter(|&(engine, off)| hi_zero && engine == engine_id && off < super::protocol::MAILBOX_OFFSET && off & 3 == 0);
    let in_window = window.is_some();
    let off = window.map_or(0, |(_, off)| off);
    let ok = c[d] == ENCAP_TYPE_REGISTER_WRITE
        && c[d + 1] == ENCAP_OP_APPLY
        && c[d + 2] == ENCAP_VERSION
        && c[i] & !ENCAP_FMT_4DW == ENCAP_MWR
        && header_ok
        && length == ENCAP_REGISTER_WRITE_DW
        && plen == 8 + ENCAP_DESCRIPTOR_BYTES + h + 4 * ENCAP_REGISTER_WRITE_DW
        && in_window
        && !relay;
    // A flit-mode header has no byte-enable field without OHC-A: all four bytes.
    let be = if flit { 0xF } else { c[i + 7] & 0xF };
    ok.then(|| (off as u16, be, u32::from_le_bytes([c[i + h], c[i + h + 1], c[i + h + 2], c[i + h + 3]])))
}

/// An accepted configuration message, as the checker's stage D holds it while its writes drain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigWrites {
    /// Requester ID of the message (the writes' source: the register space's lock applies to each).
    pub src: u16,
    /// Its 10-bit tag.
    pub tag: u16,
    /// `n_devices` (≤ the slots when accepted).
    pub n: u8,
    /// `n_subservient`.
    pub s: u8,
    /// Offset in the (flit-aligned) capture of slot 0, the message's byte 24 (or the body's, kind 10).
    pub slot0: usize,
    /// The message's 16-bit slots from byte 24 on: device IDs `0..n`, subservient IDs `n..n+s`, then
    /// whatever the frame store holds.
    pub words: [u16; CONFIG_STORE_SLOTS],
    /// Error-reporting configuration (ConfigFixed byte 12).
    pub error_reporting: u8,
    /// Subservient timeout (bytes 16-19).
    pub sub_timeout: u32,
    /// Master timeout (bytes 20-23).
    pub master_timeout: u32,
}

fn be16(c: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([c[o], c[o + 1]])
}
fn be32(c: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([c[o], c[o + 1], c[o + 2], c[o + 3]])
}

/// What the fixed part of a configuration message at `p` says, for the checks: (`n_devices`,
/// `n_subservient`, the timeouts fit their registers).
pub fn config_counts(c: &[u8; CAPTURE_BYTES], p: usize) -> (usize, usize, bool) {
    let fits = |v: u32| v >> CONFIG_TIMEOUT_BITS == 0;
    (usize::from(be16(c, p + 14)), usize::from(c[p + 13]), fits(be32(c, p + 16)) && fits(be32(c, p + 20)))
}

/// Payload bytes of a configuration message naming `n` devices and `s` subservient engines: the fixed
/// part and the slots, padded to a DW (docs/frames.md §4).
pub const fn config_len(n: usize, s: usize) -> usize {
    (CONFIG_FIXED_BYTES + 2 * (n + s)).next_multiple_of(4)
}

impl ConfigWrites {
    /// The message at payload offset `p` of the capture (its checks passed).
    pub fn new(c: &[u8; CAPTURE_BYTES], p: usize, src: u16, tag: u16) -> ConfigWrites {
        let mut words = [0u16; CONFIG_STORE_SLOTS];
        for (j, w) in words.iter_mut().enumerate() {
            // Slots past the capture read 0 here; the checker reads them from its frame store
            // ([`Self::with_store`]).
            let o = p + CONFIG_FIXED_BYTES + 2 * j;
            *w = if o + 1 < CAPTURE_BYTES { be16(c, o) } else { 0 };
        }
        ConfigWrites {
            src,
            tag,
            slot0: p + CONFIG_FIXED_BYTES,
            n: c[p + 15],
            s: c[p + 13],
            words,
            error_reporting: c[p + 12],
            sub_timeout: be32(c, p + 16),
            master_timeout: be32(c, p + 20),
        }
    }

    /// The slots read from the whole frame as received (`frame(o)`: byte o of the frame, its capture and
    /// beyond; `flit`: a flit-mode frame, whose capture was read moved up by [`TLP_OFFSET`]): what the
    /// RTL's write sequencer reads from its slot store after the verdict.
    pub fn with_store(mut self, frame: impl Fn(usize) -> u8, flit: bool) -> ConfigWrites {
        let raw0 = self.slot0 - if flit { TLP_OFFSET } else { 0 };
        for (j, w) in self.words.iter_mut().enumerate() {
            let o = raw0 + 2 * j;
            *w = if o + 1 < CONFIG_FRAME_BYTES { u16::from_be_bytes([frame(o), frame(o + 1)]) } else { 0 };
        }
        self
    }

    /// Cycles the write sequencer spends before the first write: one per subservient ID, read from the
    /// slot store into the flip-flops the switch test compares with.
    pub fn preload(&self) -> usize {
        usize::from(self.s)
    }

    /// Number of writes: two per PBV entry (the entry, its flags) and [`CONFIG_FIXED_WRITES`].
    pub fn count(&self) -> usize {
        2 * usize::from(self.n) + CONFIG_FIXED_WRITES
    }

    /// Whether PBV entry `i` is a switch: its device ID is one of the subservient engines' IDs.
    pub fn switch(&self, i: usize) -> bool {
        let (n, s) = (usize::from(self.n), usize::from(self.s));
        (n..(n + s).min(CONFIG_STORE_SLOTS)).any(|j| self.words[j] == self.words[i])
    }

    /// Write `k` (< [`Self::count`]), in order: for each entry i, a 2-byte write of its device ID into the
    /// PBV table (\[0175\]'s form) then a 2-byte write of its PBV_FLAGS (valid, switch); then
    /// ERROR_REPORTING, SUB_TIMEOUT, MASTER_TIMEOUT.
    pub fn write(&self, k: usize) -> RegAccess {
        let w = |addr: u32, be: u8, wdata: u32| RegAccess { write: true, addr: addr as u16, be, wdata, src: self.src, tag: self.tag };
        let n2 = 2 * usize::from(self.n);
        if k < n2 {
            let i = k / 2;
            let (dw, hi) = (4 * (i / 2) as u32, i % 2 == 1);
            let be = if hi { 0xC } else { 0x3 };
            let shift = if hi { 16 } else { 0 };
            if k % 2 == 0 {
                w(offset::PBV + dw, be, u32::from(self.words[i]) << shift)
            } else {
                let flags = PBV_FLAG_VALID | if self.switch(i) { PBV_FLAG_SWITCH } else { 0 };
                w(offset::PBV_FLAGS + dw, be, flags << shift)
            }
        } else {
            match k - n2 {
                0 => w(offset::ERROR_REPORTING, 0x1, u32::from(self.error_reporting)),
                1 => w(offset::SUB_TIMEOUT, 0xF, self.sub_timeout),
                _ => w(offset::MASTER_TIMEOUT, 0xF, self.master_timeout),
            }
        }
    }
}
