//! The register map of the register space: the window's sizes, the registers' byte offsets
//! ([`offset`]), field layouts and reset values (docs/blocks/register_space.md), and the decode of a byte offset to a
//! register ([`decode`]). No state: the block ([`super::RegisterSpace`]) holds the registers.

use modular_bitfield::prelude::*;

use crate::code_table;

/// Bytes in the engine's register window (offsets 0x000-0xFFF).
pub const WINDOW_BYTES: u32 = 0x1000;
/// Base of the register window in a switch's address space (\[0175\]).
pub const ENGINE_BASE: u32 = 0xC000;
/// PBV entries (000 \[0157\]: up to 128).
pub const PBV_ENTRIES: usize = 128;
/// Route-table entries, as the output queue's default `ROUTE_ENTRIES`.
pub const ROUTE_ENTRIES: usize = 16;
/// Multicast entries (the RTL parameter `MCAST_ENTRIES`, default): one per tree, the seed's 8192 (002 (60):
/// 13-bit trees), reached through MCAST_INDEX (docs/blocks/register_space.md §Multicast entries).
pub const MCAST_ENTRIES: usize = crate::interposer::MCAST_ENTRIES_SEED;
/// Largest `MCAST_ENTRIES`: one entry per 13-bit tree.
pub const MAX_MCAST_ENTRIES: usize = crate::interposer::MCAST_ENTRIES_SEED;
/// The bits of `MCAST_INDEX` (12:0): a tree (DFA bits 15-3, 002 (60)).
pub const MCAST_INDEX_MASK: u32 = (MAX_MCAST_ENTRIES - 1) as u32;
/// Requesters that hold an MCAST_INDEX at once, for the reason and with the round robin of
/// [`STATIC_INDEX_SLOTS`] (a job's source writes its trees' entries while another's does).
pub const MCAST_INDEX_SLOTS: usize = 32;
/// Allowed-VNI entries of a port (002 (52), (99)).
pub const VNI_ENTRIES: usize = 4;
/// Reduction timeouts (002 (61): four configurable 24-bit timeouts).
pub const RED_TIMEOUTS: usize = 4;
/// Wait-count thresholds that choose among the reduction timeouts (002 (61)).
pub const RED_THRESHOLDS: usize = 3;
/// External event counters (`stat_event` bits).
pub const STAT_EVENTS: usize = 32;
/// Counters held by the register space itself, before the external ones.
pub const INTERNAL_COUNTERS: usize = 2;
/// Value of the read-only ID register: "C0E" engine magic, map version 1.
pub const ID_VALUE: u32 = 0x1C0E_0001;
/// Static context entries the CPU window reaches (the RTL parameter `CPU_STATIC_ENTRIES`): the CPU's
/// default `STATIC_ENTRIES`, one per 12-bit CC_ID (000 \[0169\]).
pub const CPU_STATIC_ENTRIES: usize = crate::cpu::config::MAX_STATIC_ENTRIES;
/// Largest `CPU_STATIC_ENTRIES`: the CPU's largest static table (4096; `STATIC_INDEX` has 12 bits).
pub const MAX_CPU_STATIC_ENTRIES: usize = crate::cpu::config::MAX_STATIC_ENTRIES;
/// The bits of `STATIC_INDEX` (11:0): an entry number of the CPU's largest static table.
pub const STATIC_INDEX_MASK: u32 = (MAX_CPU_STATIC_ENTRIES - 1) as u32;
/// Requesters that hold a STATIC_INDEX at once (each its own, so that configuration streams of different
/// sources interleaving at the engine reach their own entries; a further requester's index write takes
/// the slot allocated longest ago, round robin): 32, the end nodes of the largest fabric the fault
/// campaign configures at once (every source writing its contexts' entries at the same instant).
/// docs/blocks/register_space.md §Static entries.
pub const STATIC_INDEX_SLOTS: usize = 32;
/// CPU writes of the post-reset copy: CPU registers TIMEOUT0 (0x080) to MODE (0x089).
pub const SYNC_WRITES: u16 = 10;

pub mod cpu_addr {
    //! CPU register word addresses the bridge writes (docs/blocks/cpu.md §Ports): the CPU's own map
    //! ([`crate::cpu::config`]), which the bridge writes into.
    /// PBV-table entry i at `PBV + i`.
    pub use crate::cpu::config::PBV_TABLE as PBV;
    pub use crate::cpu::config::{ENGINE_ID, ENGINE_SFA, MODE, STATIC, THRESHOLD, TIMEOUT};
}

code_table! {
    /// Byte offsets of the registers (docs/blocks/register_space.md); the RTL's `DW_<NAME>` are these / 4.
    pub mod offset: "OFFSET", 12 bits as u32 {
        PBV = 0x000, "PBV table: 64 DWs, DW k = {entry 2k+1, entry 2k} (16-bit device IDs).";
        ID = 0x100, "Read-only identification.";
        CTRL = 0x104, "Control: bit 0 lock (only `MASTER_ID` may write once set).";
        MASTER_ID = 0x108, "Device ID of the configuring source / master engine.";
        ETHERTYPE = 0x10C, "Soft Portals EtherType of this engine's ports.";
        VENDOR_ID = 0x110, "Vendor ID of collective vendor-defined messages.";
        VALIDATION = 0x114, "Protocol-validation enables of the input checker.";
        ERROR_REPORTING = 0x118, "Error-reporting configuration (for the CPU).";
        RED_CFG_MODE = 0x11C, "R_TF_RED_CFG_MODE: bit 0 = 1 associative, 0 IEEE (002 (86)).";
        SUB_TIMEOUT = 0x120, "Subservient watchdog timeout, units of 1024 clocks (000 \\[0154\\]).";
        MASTER_TIMEOUT = 0x124, "Master watchdog timeout, units of 1024 clocks (000 \\[0154\\]).";
        RED_TIMEOUT = 0x130, "Four reduction timeouts, units of 1024 clocks (002 (61)).";
        RED_THRESHOLD = 0x140, "Three wait-count thresholds (002 (61)).";
        VNI_ALLOWED = 0x150, "Four allowed VNIs: bit 31 valid, bits 15:0 VNI.";
        ROUTE = 0x200, "Route table: 16 entries x 8 bytes; DW0 key, DW1 action (writing DW1 commits the entry).";
        MCAST_INDEX = 0x300, "Multicast entry window: the tree (12:0) whose entry MCAST_KEY, MCAST_WAIT and MCAST_PORTS reach; writing it loads the entry from the RAM.";
        MCAST_KEY = 0x304, "Multicast entry MCAST_INDEX: bit 31 valid, 12:0 the tree (read-only); writing it commits the entry to the interposer.";
        MCAST_WAIT = 0x308, "Multicast entry MCAST_INDEX: wait count (19:0).";
        MCAST_PORTS = 0x30C, "Multicast entry MCAST_INDEX: ports of the tree's downward frames (15:0).";
        COUNTERS = 0x400, "Counters: 0 rejected writes, 1 unmapped accesses, 2.. `stat_event` bits. Writing clears.";
        ENGINE_ID = 0x160, "The engine's device ID (read-only: the `cfg_engine_id` strap), copied to the CPU after reset.";
        ENGINE_SFA = 0x164, "The engine's own fabric address (Portals SFA of its frames).";
        RETRY_LIMIT = 0x168, "Retransmissions of a RESPONSE before a FAILURE (000 \\[0117\\]), bits 3:0.";
        FAILURE = 0x16C, "FAILURE status (read-only): the CPU's FAILURE status register (001's Failure flag, `docs/blocks/cpu.md` §Ports): bits 15:0 context, 23:16 count, 24 family, 31 valid.";
        PBV_FLAGS = 0x500, "PBV flags: 64 DWs; DW k = {entry 2k+1: bit 17 switch, bit 16 valid; entry 2k: bit 1 switch, 0 valid}.";
        STATIC_INDEX = 0x600, "CPU static entry window: the entry (11:0) that STATIC_KEY and STATIC_WAIT reach; writing it loads the entry from the RAM.";
        STATIC_KEY = 0x604, "CPU static entry STATIC_INDEX, word 0: key/family/role/valid (writing it makes a context at the CPU).";
        STATIC_WAIT = 0x608, "CPU static entry STATIC_INDEX, word 1: wait count, bit 31 one target.";
    }
}

code_table! {
    /// Response status (`m_reg_rsp_status`; the completion builder's `s_rsp_status`).
    pub mod status: "STATUS", 2 bits {
        OK = 0, "Done.";
        REJECTED = 1, "A write from someone other than the master while locked: ignored and counted.";
        UNMAPPED = 2, "No register there, or a write to a read-only register: ignored and counted.";
    }
}

/// CTRL register.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ctrl {
    /// Only `MASTER_ID` may write configuration (000 \[0113\]: the source node configures the engines).
    pub lock: bool,
    #[skip]
    __: B31,
}

/// VALIDATION register: which checks the input checker applies (1 = check).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Validation {
    /// TLP LCRC.
    pub lcrc: bool,
    /// TLP ECRC (when the TLP carries a digest).
    pub ecrc: bool,
    /// Soft Portals FCS.
    pub fcs: bool,
    /// Portals VNI against VNI_ALLOWED.
    pub vni: bool,
    #[skip]
    __: B28,
}

/// A PBV-table DW: two 16-bit device IDs (000 \[0155\], \[0157\]).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PbvPair {
    /// Device ID of the even entry (byte offset 0 of the DW).
    pub even: B16,
    /// Device ID of the odd entry.
    pub odd: B16,
}

/// Route-table DW0 (the output queue's match key).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteKey {
    /// Destination device ID the entry matches ...
    pub dest_id: B16,
    /// ... on these bits (0: a default route).
    pub dest_mask: B16,
}

/// Route-table DW1 (writing it commits the entry to the output queue).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteAction {
    /// Egress port (the low `PORT_WIDTH` bits are kept).
    pub port: B8,
    #[skip]
    __: B23,
    /// Entry takes part in lookups.
    pub valid: bool,
}

/// MCAST_KEY (writing it commits the entry to the interposer).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct McastKey {
    /// Multicast tree: DFA bits 15-3 (002 (60)); read-only, the entry's MCAST_INDEX.
    pub tree: B13,
    #[skip]
    __: B18,
    /// Entry in use.
    pub valid: bool,
}

/// MCAST_WAIT.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct McastWait {
    /// Wait count: children whose contributions this engine combines (002 (39), (61)); 0 = not armed
    /// here, the interposer lets the tree's frames pass.
    pub wait_count: B20,
    #[skip]
    __: B12,
}

/// MCAST_PORTS.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct McastPorts {
    /// Ports the tree's downward frames leave on (one bit per port).
    pub ports: B16,
    #[skip]
    __: B16,
}

/// A PBV_FLAGS DW: the CPU's flags of two PBV entries, laid out like the PBV table's DW (000 \[0096\]:
/// participant switches and participant end devices are told apart).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PbvFlags {
    /// Entry 2k takes part (the CPU skips invalid entries).
    pub even_valid: bool,
    /// Entry 2k is a participant switch (an engine below this one), else an end device.
    pub even_switch: bool,
    #[skip]
    __: B14,
    /// Entry 2k+1 takes part.
    pub odd_valid: bool,
    /// Entry 2k+1 is a participant switch.
    pub odd_switch: bool,
    #[skip]
    __: B14,
}

/// CPU static entry DW0 (the CPU's static word 0, docs/blocks/cpu.md §Context model and §Ports).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuStaticKey {
    /// TLP: CC_ID; Portals: multicast tree (DFA bits 15-3).
    pub key: B13,
    #[skip]
    __: B3,
    /// 0 TLP (000), 1 Portals (002).
    pub family: bool,
    #[skip]
    __: B3,
    /// 0 SUBSERVIENT, 1 MASTER.
    pub role: B2,
    #[skip]
    __: B9,
    /// Entry in use.
    pub valid: bool,
}

/// The bits of a CPU static entry's DW0 that exist (every [`CpuStaticKey`] field; a unit test checks it):
/// a write keeps only these.
pub const CPU_STATIC_KEY_MASK: u32 = 0x8031_1FFF;
/// The bits a CPU static entry's word 1 (STATIC\[s\].WAIT) keeps: \[19:0\] wait count, \[31\] one target
/// (`cpu::config::ONE_TARGET_BIT`).
pub const CPU_STATIC_WORD1_MASK: u32 = 0xF_FFFF | 1 << crate::cpu::config::ONE_TARGET_BIT;

/// VNI_ALLOWED entry.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VniAllowed {
    /// The VNI.
    pub vni: B16,
    #[skip]
    __: B15,
    /// Entry in use.
    pub valid: bool,
}

/// Reset values (docs/blocks/register_space.md).
pub mod reset {
    /// Soft Portals EtherType (frames crate default, IEEE local experimental).
    pub const ETHERTYPE: u32 = 0x88B5;
    /// Collective vendor ID (frames crate default).
    pub const VENDOR_ID: u32 = 0xC011;
    /// Every check on.
    pub const VALIDATION: u32 = 0xF;
    /// Subservient timeout: 1024 x 1024 clocks (about 1.2 ms at 850 MHz).
    pub const SUB_TIMEOUT: u32 = 0x400;
    /// Master timeout: three times the subservient one (000 \[0154\]).
    pub const MASTER_TIMEOUT: u32 = 0xC00;
    /// Reduction timeouts 0-3.
    pub const RED_TIMEOUT: [u32; crate::register_space::map::RED_TIMEOUTS] = [0x1, 0x10, 0x100, 0x1000];
    /// Wait-count thresholds 0-2.
    pub const RED_THRESHOLD: [u32; crate::register_space::map::RED_THRESHOLDS] = [4, 64, 1024];
    /// Retry limit: the CPU's own reset value (one constant, so the two cannot disagree).
    pub const RETRY_LIMIT: u32 = crate::cpu::config::RETRY_LIMIT_RESET as u32;
}

/// Where a DW offset lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reg {
    /// PBV DW k.
    Pbv(usize),
    /// ID (read-only).
    Id,
    /// CTRL.
    Ctrl,
    /// MASTER_ID.
    MasterId,
    /// ETHERTYPE.
    Ethertype,
    /// VENDOR_ID.
    VendorId,
    /// VALIDATION.
    Validation,
    /// ERROR_REPORTING.
    ErrorReporting,
    /// RED_CFG_MODE.
    RedCfgMode,
    /// SUB_TIMEOUT.
    SubTimeout,
    /// MASTER_TIMEOUT.
    MasterTimeout,
    /// RED_TIMEOUT i.
    RedTimeout(usize),
    /// RED_THRESHOLD i.
    RedThreshold(usize),
    /// VNI_ALLOWED i.
    VniAllowed(usize),
    /// Route entry, DW (0 key, 1 action).
    Route(usize, usize),
    /// MCAST_INDEX: the tree whose entry MCAST_KEY, MCAST_WAIT and MCAST_PORTS reach.
    McastIndex,
    /// MCAST_KEY of entry MCAST_INDEX (mapped while MCAST_INDEX < `MCAST_ENTRIES`).
    McastKey,
    /// MCAST_WAIT of entry MCAST_INDEX (mapped as MCAST_KEY).
    McastWait,
    /// MCAST_PORTS of entry MCAST_INDEX (mapped as MCAST_KEY).
    McastPorts,
    /// Counter i.
    Counter(usize),
    /// ENGINE_ID (read-only strap).
    EngineId,
    /// ENGINE_SFA.
    EngineSfa,
    /// RETRY_LIMIT.
    RetryLimit,
    /// PBV_FLAGS DW k.
    PbvFlags(usize),
    /// FAILURE (read-only: the CPU's FAILURE status register).
    Failure,
    /// STATIC_INDEX: the CPU static entry STATIC_KEY and STATIC_WAIT reach.
    StaticIndex,
    /// STATIC_KEY: word 0 of CPU static entry STATIC_INDEX (mapped while STATIC_INDEX < `CPU_STATIC_ENTRIES`).
    StaticKey,
    /// STATIC_WAIT: word 1 of CPU static entry STATIC_INDEX (mapped as STATIC_KEY).
    StaticWait,
}

/// Decodes a byte offset (bits 1:0 ignored); `None` = unmapped. STATIC_KEY and STATIC_WAIT (MCAST_KEY,
/// MCAST_WAIT, MCAST_PORTS) decode here whatever STATIC_INDEX (MCAST_INDEX) holds; the block answers them
/// UNMAPPED while it names no entry of its table.
pub fn decode(addr: u16) -> Option<Reg> {
    let a = u32::from(addr) & (WINDOW_BYTES - 1) & !3;
    let idx = |base: u32, n: usize, stride: u32| -> Option<usize> {
        (a >= base && a < base + n as u32 * stride).then(|| ((a - base) / stride) as usize)
    };
    use offset as o;
    Some(match a {
        _ if a < o::ID => Reg::Pbv((a / 4) as usize),
        o::ID => Reg::Id,
        o::CTRL => Reg::Ctrl,
        o::MASTER_ID => Reg::MasterId,
        o::ETHERTYPE => Reg::Ethertype,
        o::VENDOR_ID => Reg::VendorId,
        o::VALIDATION => Reg::Validation,
        o::ERROR_REPORTING => Reg::ErrorReporting,
        o::RED_CFG_MODE => Reg::RedCfgMode,
        o::SUB_TIMEOUT => Reg::SubTimeout,
        o::MASTER_TIMEOUT => Reg::MasterTimeout,
        o::ENGINE_ID => Reg::EngineId,
        o::ENGINE_SFA => Reg::EngineSfa,
        o::RETRY_LIMIT => Reg::RetryLimit,
        o::FAILURE => Reg::Failure,
        o::STATIC_INDEX => Reg::StaticIndex,
        o::STATIC_KEY => Reg::StaticKey,
        o::STATIC_WAIT => Reg::StaticWait,
        o::MCAST_INDEX => Reg::McastIndex,
        o::MCAST_KEY => Reg::McastKey,
        o::MCAST_WAIT => Reg::McastWait,
        o::MCAST_PORTS => Reg::McastPorts,
        _ => {
            if let Some(i) = idx(o::RED_TIMEOUT, RED_TIMEOUTS, 4) {
                Reg::RedTimeout(i)
            } else if let Some(i) = idx(o::RED_THRESHOLD, RED_THRESHOLDS, 4) {
                Reg::RedThreshold(i)
            } else if let Some(i) = idx(o::VNI_ALLOWED, VNI_ENTRIES, 4) {
                Reg::VniAllowed(i)
            } else if let Some(i) = idx(o::ROUTE, ROUTE_ENTRIES, 8) {
                Reg::Route(i, ((a >> 2) & 1) as usize)
            } else if let Some(i) = idx(o::COUNTERS, INTERNAL_COUNTERS + STAT_EVENTS, 4) {
                Reg::Counter(i)
            } else if let Some(i) = idx(o::PBV_FLAGS, PBV_ENTRIES / 2, 4) {
                Reg::PbvFlags(i)
            } else {
                return None;
            }
        }
    })
}

/// The FAILURE register's word (docs/blocks/register_space.md): \[31\] valid, \[24\] family, \[23:16\] count,
/// \[15:0\] context.
pub fn failure_word(valid: bool, family: bool, ctx: u16, count: u8) -> u32 {
    u32::from(valid) << 31 | u32::from(family) << 24 | u32::from(count) << 16 | u32::from(ctx)
}

/// The byte-enable mask of a DW access.
pub fn be_mask(be: u8) -> u32 {
    (0..4).filter(|i| be >> i & 1 != 0).fold(0, |m, i| m | 0xFF << (8 * i))
}

/// The register writes that configure CPU static entry `entry` with words `key` (STATIC_KEY, the CPU's
/// static word 0) and `wait` (STATIC_WAIT, word 1), in the documented program order: STATIC_INDEX,
/// STATIC_WAIT, then STATIC_KEY (writing the key makes the context at the CPU). (offset, value) pairs,
/// full-DW writes (docs/blocks/register_space.md §CPU window).
pub fn static_entry_writes(entry: u16, key: u32, wait: u32) -> [(u32, u32); 3] {
    [(offset::STATIC_INDEX, u32::from(entry) & STATIC_INDEX_MASK), (offset::STATIC_WAIT, wait), (offset::STATIC_KEY, key)]
}

/// The register writes that configure the multicast entry of `tree` (docs/blocks/register_space.md
/// §Multicast entries), in the documented program order: MCAST_INDEX, MCAST_WAIT, MCAST_PORTS, then
/// MCAST_KEY (writing it commits the entry to the interposer; `valid` false clears the tree there).
/// (offset, value) pairs, full-DW writes.
pub fn mcast_entry_writes(tree: u16, valid: bool, wait: u32, ports: u16) -> [(u32, u32); 4] {
    [
        (offset::MCAST_INDEX, u32::from(tree) & MCAST_INDEX_MASK),
        (offset::MCAST_WAIT, wait & 0xF_FFFF),
        (offset::MCAST_PORTS, u32::from(ports)),
        (offset::MCAST_KEY, u32::from(valid) << 31),
    ]
}
