//! The CPU's register map (`docs/blocks/cpu.md` §Ports): the PBV table, timeouts, thresholds, the engine's own
//! identity, the mode register and the static context table, written one 32-bit word at a time through
//! the `cfg_wr_*` port.

use crate::out_of_line::OutOfLine;
use super::context::{PbvEntry, PBV_ENTRIES, THRESHOLDS, TIMEOUTS, TIMEOUT_BITS};

/// Width of `cfg_wr_addr`.
pub const ADDR_BITS: u32 = 14;
/// PBV-table entry i is at `PBV_TABLE + i`: \[15:0\] device ID, \[16\] switch, \[31\] valid.
pub const PBV_TABLE: u16 = 0x000;
/// TIMEOUT\[k\] is at `TIMEOUT + k`: \[23:0\] ticks.
pub const TIMEOUT: u16 = 0x080;
/// THRESHOLD\[k\] is at `THRESHOLD + k`: \[19:0\].
pub const THRESHOLD: u16 = 0x084;
/// ENGINE_ID: \[15:0\] the engine's own device ID (requester ID, 000 \[0097\]).
pub const ENGINE_ID: u16 = 0x087;
/// ENGINE_SFA: the engine's own fabric address (Portals source).
pub const ENGINE_SFA: u16 = 0x088;
/// MODE: \[0\] R_TF_RED_CFG_MODE (002 (86)), \[11:8\] retry limit.
pub const MODE: u16 = 0x089;
/// Static entry s, word 0 at `STATIC + 2s`: \[12:0\] key, \[16\] family, \[21:20\] role, \[31\] valid.
/// Word 1 at `STATIC + 2s + 1`: \[19:0\] wait count, \[31\] one target ([`ONE_TARGET_BIT`]).
pub const STATIC: u16 = 0x100;
/// Bit of static-entry word 1 that selects reduce to one target (003 \[0052\], \[0060\]): the MASTER
/// sends the result to its `upstream` only (`docs/blocks/cpu.md` §Messages).
pub const ONE_TARGET_BIT: u32 = 31;
/// The word addresses above by name: the RTL's `CFG_<name>` (rtl/cpu_codes.vh) and the register space's
/// `CPU_<name>` (rtl/register_space_codes.vh) are written from this one table.
pub const ADDRESSES: [(&str, u16); 7] = [
    ("PBV", PBV_TABLE),
    ("TIMEOUT", TIMEOUT),
    ("THRESHOLD", THRESHOLD),
    ("ENGINE_ID", ENGINE_ID),
    ("ENGINE_SFA", ENGINE_SFA),
    ("MODE", MODE),
    ("STATIC", STATIC),
];
/// Largest number of static entries: one per 12-bit CC_ID (000 \[0169\]); the map's 14-bit addresses
/// reach static entry 4095 (`STATIC + 2 * 4095 + 1` = 0x20FF).
pub const MAX_STATIC_ENTRIES: usize = 1 << CC_ID_BITS;
/// Width of a TLP context key, the CC_ID (000 \[0168\]).
pub const CC_ID_BITS: u32 = 12;

/// The static entry of context key `key` (TLP: CC_ID ctx\[11:0\]; Portals: tree ctx\[12:0\]) in a table
/// of `entries`: the table is direct-mapped, entry `key mod entries` (`docs/blocks/cpu.md` §Static
/// table). Whoever configures a context writes it there; two contexts whose keys meet in one entry
/// cannot both be configured.
pub fn static_index(key: u16, entries: usize) -> usize {
    usize::from(key & STATIC_KEY_MASK) % entries.max(1)
}

/// The bits of a static-table key (13: a Portals tree; a TLP CC_ID uses the low 12).
pub const STATIC_KEY_MASK: u16 = (1 << super::context::STATIC_KEY_BITS) - 1;

/// Reset value of every TIMEOUT register (1024 ticks).
pub const TIMEOUT_RESET: u32 = 1024;
/// Reset value of every THRESHOLD register (all contexts use TIMEOUT\[0\]).
pub const THRESHOLD_RESET: u32 = 0xF_FFFF;
/// Reset value of the retry limit.
pub const RETRY_LIMIT_RESET: u8 = 3;

/// The engine registers and the PBV table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// PBV table. Out of line: a message's lookup or emission reads it, not every cycle, and the
    /// registers every cycle reads then fit fewer cache lines (a fabric steps 1,024 engines in turn;
    /// docs/performance.md §Session 19, the engine's hot state).
    pub pbv: OutOfLine<[PbvEntry; PBV_ENTRIES]>,
    /// TIMEOUT[0..4], ticks.
    pub timeout: [u32; TIMEOUTS],
    /// THRESHOLD[0..3].
    pub threshold: [u32; THRESHOLDS],
    /// Own device ID.
    pub engine_id: u16,
    /// Own fabric address.
    pub engine_sfa: u32,
    /// R_TF_RED_CFG_MODE: IEEE (true) or associative.
    pub ieee: bool,
    /// Retransmissions of a RESPONSE before a FAILURE (000 \[0117\]).
    pub retry_limit: u8,
}

impl Default for Config {
    /// The reset values.
    fn default() -> Self {
        Config::reset_in(OutOfLine::new(PBV_RESET))
    }
}

/// The PBV table after a reset.
const PBV_RESET: [PbvEntry; PBV_ENTRIES] = [PbvEntry { valid: false, switch: false, device_id: 0 }; PBV_ENTRIES];

impl Config {
    /// The reset values in the storage `pbv` (a reset allocates nothing).
    pub fn reset_in(pbv: OutOfLine<[PbvEntry; PBV_ENTRIES]>) -> Self {
        Config {
            pbv: pbv.refill(PBV_RESET),
            timeout: [TIMEOUT_RESET; TIMEOUTS],
            threshold: [THRESHOLD_RESET; THRESHOLDS],
            engine_id: 0,
            engine_sfa: 0,
            ieee: false,
            retry_limit: RETRY_LIMIT_RESET,
        }
    }

    /// The timeout selected by wait count `w` (002 (54)): the first threshold `w` does not exceed, from
    /// the top.
    pub fn timeout_for(&self, w: u32) -> u32 {
        let sel = if w > self.threshold[2] {
            3
        } else if w > self.threshold[1] {
            2
        } else if w > self.threshold[0] {
            1
        } else {
            0
        };
        self.timeout[sel]
    }

    /// Applies a write to an engine register or the PBV table; returns false if `addr` is not one.
    pub fn write(&mut self, addr: u16, data: u32) -> bool {
        let a = usize::from(addr);
        let timeout_mask = (1u32 << TIMEOUT_BITS) - 1;
        match addr {
            _ if a < PBV_ENTRIES => {
                self.pbv[a] = PbvEntry { valid: data >> 31 & 1 != 0, switch: data >> 16 & 1 != 0, device_id: data as u16 };
            }
            _ if (TIMEOUT..TIMEOUT + TIMEOUTS as u16).contains(&addr) => {
                self.timeout[usize::from(addr - TIMEOUT)] = data & timeout_mask;
            }
            _ if (THRESHOLD..THRESHOLD + THRESHOLDS as u16).contains(&addr) => {
                self.threshold[usize::from(addr - THRESHOLD)] = data & 0xF_FFFF;
            }
            ENGINE_ID => self.engine_id = data as u16,
            ENGINE_SFA => self.engine_sfa = data,
            MODE => {
                self.ieee = data & 1 != 0;
                self.retry_limit = (data >> 8 & 0xf) as u8;
            }
            _ => return false,
        }
        true
    }
}

/// Word 0 of a static entry.
pub fn static_word0(valid: bool, portals: bool, role: u8, key: u16) -> u32 {
    u32::from(valid) << 31 | u32::from(role & 3) << 20 | u32::from(portals) << 16 | u32::from(key & 0x1fff)
}

/// Word 1 of a static entry: the wait count and the one-target bit.
pub fn static_word1(wait: u32, one_target: bool) -> u32 {
    u32::from(one_target) << ONE_TARGET_BIT | wait & 0xF_FFFF
}

/// A PBV-table word.
pub fn pbv_word(valid: bool, switch: bool, device_id: u16) -> u32 {
    u32::from(valid) << 31 | u32::from(switch) << 16 | u32::from(device_id)
}

/// A MODE word.
pub fn mode_word(ieee: bool, retry_limit: u8) -> u32 {
    u32::from(ieee) | u32::from(retry_limit & 0xf) << 8
}
