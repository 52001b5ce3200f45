//! Register space of the packet engine (seed 000 \[0154\]-\[0158\], \[0174\]-\[0178\]; 002 (60)-(61), (86)).
//!
//! Cycle model of `rtl/register_space.v`; the register table is `docs/blocks/register_space.md`, the interface and
//! timing `docs/blocks/register_space.md`. The engine's registers sit in a 4 KiB window at 0xC000 of its
//! switch's 32-bit address space (\[0175\]: writes to `0x0010_C0yy` program switch 0x0010's PBV table), so
//! a register is addressed here by its 12-bit byte offset in that window.
//!
//! One register access per cycle arrives on `s_reg_*` (from the input checker, which turns 1-DW memory
//! reads and writes into accesses); each gets one response on `m_reg_rsp_*` one cycle later. Only the
//! configured master may write once the `CTRL.lock` bit is set; other writers are rejected and counted.
//! Everything else this block holds drives other blocks: configuration values on `cfg_*` ports, the
//! output queue's route-table write port, the interposer's multicast-table write port, and a PBV read
//! port for the collective processing unit. Event counters count one-cycle pulses on `stat_event`.
//!
//! CPU configuration bridge (docs/blocks/register_space.md §CPU window): the registers the CPU keeps a copy of (PBV
//! table and flags, reduction timeouts and thresholds, ENGINE_SFA, RED_CFG_MODE, RETRY_LIMIT, the static
//! context entries) are forwarded, on every authorized write, as CPU register writes on `cpu_cfg_wr_*`
//! (`docs/blocks/cpu.md` §Ports); after a reset the block first copies its reset values and the ENGINE_ID strap.

use modular_bitfield::prelude::*;

use crate::ports;
use crate::signal::Block;

/// Bytes in the engine's register window (offsets 0x000-0xFFF).
pub const WINDOW_BYTES: u32 = 0x1000;
/// Base of the register window in a switch's address space (\[0175\]).
pub const ENGINE_BASE: u32 = 0xC000;
/// PBV entries (000 \[0157\]: up to 128).
pub const PBV_ENTRIES: usize = 128;
/// Route-table entries, as the output queue's default `ROUTE_ENTRIES`.
pub const ROUTE_ENTRIES: usize = 16;
/// Multicast-table entries held by the engine (a window onto the switch's 8K-tree table, 002 (60)).
pub const MCAST_ENTRIES: usize = 16;
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
/// Static context entries of the CPU window (the RTL parameter `CPU_STATIC_ENTRIES`; the CPU's default
/// `STATIC_ENTRIES`).
pub const CPU_STATIC_ENTRIES: usize = 16;
/// Largest `CPU_STATIC_ENTRIES` (the CPU's largest `STATIC_ENTRIES`).
pub const MAX_CPU_STATIC_ENTRIES: usize = 64;
/// CPU writes of the post-reset copy: CPU registers TIMEOUT0 (0x080) to MODE (0x089).
pub const SYNC_WRITES: u16 = 10;

/// CPU register word addresses the bridge writes (docs/blocks/cpu.md §Ports).
pub mod cpu_addr {
    /// PBV-table entry i at `PBV + i`.
    pub const PBV: u16 = 0x000;
    /// TIMEOUT\[k\] at `TIMEOUT + k`.
    pub const TIMEOUT: u16 = 0x080;
    /// THRESHOLD\[k\] at `THRESHOLD + k`.
    pub const THRESHOLD: u16 = 0x084;
    /// ENGINE_ID.
    pub const ENGINE_ID: u16 = 0x087;
    /// ENGINE_SFA.
    pub const ENGINE_SFA: u16 = 0x088;
    /// MODE: \[0\] R_TF_RED_CFG_MODE, \[11:8\] retry limit.
    pub const MODE: u16 = 0x089;
    /// Static entry s word w at `STATIC + 2s + w`.
    pub const STATIC: u16 = 0x100;
}

/// Byte offsets of the registers (docs/blocks/register_space.md).
pub mod offset {
    /// PBV table: 64 DWs, DW k = {entry 2k+1, entry 2k} (16-bit device IDs).
    pub const PBV: u32 = 0x000;
    /// Read-only identification.
    pub const ID: u32 = 0x100;
    /// Control: bit 0 lock (only `MASTER_ID` may write once set).
    pub const CTRL: u32 = 0x104;
    /// Device ID of the configuring source / master engine.
    pub const MASTER_ID: u32 = 0x108;
    /// Soft Portals EtherType of this engine's ports.
    pub const ETHERTYPE: u32 = 0x10C;
    /// Vendor ID of collective vendor-defined messages.
    pub const VENDOR_ID: u32 = 0x110;
    /// Protocol-validation enables of the input checker.
    pub const VALIDATION: u32 = 0x114;
    /// Error-reporting configuration (for the CPU).
    pub const ERROR_REPORTING: u32 = 0x118;
    /// R_TF_RED_CFG_MODE: bit 0 = 1 associative, 0 IEEE (002 (86)).
    pub const RED_CFG_MODE: u32 = 0x11C;
    /// Subservient watchdog timeout, units of 1024 clocks (000 \[0154\]).
    pub const SUB_TIMEOUT: u32 = 0x120;
    /// Master watchdog timeout, units of 1024 clocks (000 \[0154\]).
    pub const MASTER_TIMEOUT: u32 = 0x124;
    /// Four reduction timeouts, units of 1024 clocks (002 (61)).
    pub const RED_TIMEOUT: u32 = 0x130;
    /// Three wait-count thresholds (002 (61)).
    pub const RED_THRESHOLD: u32 = 0x140;
    /// Four allowed VNIs: bit 31 valid, bits 15:0 VNI.
    pub const VNI_ALLOWED: u32 = 0x150;
    /// Route table: 16 entries x 8 bytes; DW0 key, DW1 action (writing DW1 commits the entry).
    pub const ROUTE: u32 = 0x200;
    /// Multicast table: 16 entries x 16 bytes; DW0 key (writing DW0 commits), DW1 wait count, DW2 ports.
    pub const MCAST: u32 = 0x300;
    /// Counters: 0 rejected writes, 1 unmapped accesses, 2.. `stat_event` bits. Writing clears.
    pub const COUNTERS: u32 = 0x400;
    /// The engine's device ID (read-only: the `cfg_engine_id` strap), copied to the CPU after reset.
    pub const ENGINE_ID: u32 = 0x160;
    /// The engine's own fabric address (Portals SFA of its frames).
    pub const ENGINE_SFA: u32 = 0x164;
    /// Retransmissions of a RESPONSE before a FAILURE (000 \[0117\]), bits 3:0.
    pub const RETRY_LIMIT: u32 = 0x168;
    /// FAILURE status (read-only): the CPU's FAILURE status register (001's Failure flag, `docs/blocks/cpu.md`
    /// §State machine): bits 15:0 context, 23:16 count, 24 family, 31 valid.
    pub const FAILURE: u32 = 0x16C;
    /// PBV flags: 64 DWs; DW k = {entry 2k+1: bit 17 switch, bit 16 valid; entry 2k: bit 1 switch, 0 valid}.
    pub const PBV_FLAGS: u32 = 0x500;
    /// CPU static context entries: 8 bytes each; DW0 key/family/role/valid, DW1 wait count.
    pub const CPU_STATIC: u32 = 0x600;
}

/// Response status (`m_reg_rsp_status`).
pub mod status {
    /// Done.
    pub const OK: u8 = 0;
    /// A write from someone other than the master while locked: ignored and counted.
    pub const REJECTED: u8 = 1;
    /// No register there, or a write to a read-only register: ignored and counted.
    pub const UNMAPPED: u8 = 2;
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

/// Multicast-table DW0 (writing it commits the entry to the interposer).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct McastKey {
    /// Multicast tree: DFA bits 15-3 (002 (60)).
    pub tree: B13,
    #[skip]
    __: B18,
    /// Entry in use.
    pub valid: bool,
}

/// Multicast-table DW1.
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

/// Multicast-table DW2.
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

/// CPU static entry DW0 (the CPU's static word 0, docs/blocks/cpu.md §Context model and §5).
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

/// A parameter the register space does not support.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegsParamError {
    /// `CPU_STATIC_ENTRIES` must be 1-64.
    #[error("register space: CPU_STATIC_ENTRIES {0} is not 1-64")]
    CpuStaticEntries(usize),
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
    pub const RED_TIMEOUT: [u32; super::RED_TIMEOUTS] = [0x1, 0x10, 0x100, 0x1000];
    /// Wait-count thresholds 0-2.
    pub const RED_THRESHOLD: [u32; super::RED_THRESHOLDS] = [4, 64, 1024];
    /// Retry limit (the CPU's reset value).
    pub const RETRY_LIMIT: u32 = 3;
}

/// Width masks of the value registers.
const MASK16: u32 = 0xFFFF;
const MASK8: u32 = 0xFF;
const MASK24: u32 = 0xFF_FFFF;
const MASK20: u32 = 0xF_FFFF;

ports! {
    /// Inputs of `rtl/register_space.v` (clk aside).
    pub struct RegisterSpaceIn {
        /// Synchronous, active-high reset: every register to its reset value, counters to 0.
        pub rst: bool,
        /// A register access is offered.
        pub s_reg_valid: bool,
        /// Write (1) or read (0).
        pub s_reg_write: bool,
        /// Byte offset in the 4 KiB window (bits 1:0 ignored: DW accesses).
        pub s_reg_addr: u16,
        /// Byte enables of the DW (bit 0 = bits 7:0, the lowest address).
        pub s_reg_be: u8,
        /// Write data (little-endian: the PCIe payload byte at the lowest address is bits 7:0).
        pub s_reg_wdata: u32,
        /// Requester ID of the access (checked against MASTER_ID for writes).
        pub s_reg_src: u16,
        /// Tag, returned with the response (for a completion).
        pub s_reg_tag: u16,
        /// The engine's device ID (strap): the ENGINE_ID register, copied to the CPU after reset.
        pub cfg_engine_id: u16,
        /// The consumer takes the response.
        pub m_reg_rsp_ready: bool,
        /// PBV entry to read on `pbv_rd_dev_id`.
        pub pbv_rd_index: u8,
        /// One-cycle event pulses; bit i increments counter 2 + i.
        pub stat_event: u32,
        /// The CPU's FAILURE status register (its `fail_valid`): a Failure flag was set since reset.
        pub cpu_fail_valid: bool,
        /// Family of the last failure (0 TLP, 1 Portals).
        pub cpu_fail_family: bool,
        /// Context of the last failure.
        pub cpu_fail_ctx: u16,
        /// Failures since reset, saturating at 255.
        pub cpu_fail_count: u8,
    }
}

ports! {
    /// Outputs of `rtl/register_space.v`.
    pub struct RegisterSpaceOut {
        /// An access offered on s_reg is taken (the response register is free).
        pub s_reg_ready: bool,
        /// A response is offered.
        pub m_reg_rsp_valid: bool,
        /// The response is to a write.
        pub m_reg_rsp_write: bool,
        /// `status::OK`, `REJECTED` or `UNMAPPED`.
        pub m_reg_rsp_status: u8,
        /// Read data (0 for writes and failed reads).
        pub m_reg_rsp_rdata: u32,
        /// Requester ID of the access.
        pub m_reg_rsp_src: u16,
        /// Tag of the access.
        pub m_reg_rsp_tag: u16,
        /// Byte offset of the access (for the completion's Lower Address).
        pub m_reg_rsp_addr: u16,
        /// Byte enables of the access (for the completion's Byte Count and Lower Address).
        pub m_reg_rsp_be: u8,
        /// CTRL.lock.
        pub cfg_lock: bool,
        /// MASTER_ID.
        pub cfg_master_id: u16,
        /// ETHERTYPE.
        pub cfg_ethertype: u16,
        /// VENDOR_ID.
        pub cfg_vendor_id: u16,
        /// VALIDATION\[3:0\].
        pub cfg_validation: u8,
        /// ERROR_REPORTING\[7:0\].
        pub cfg_error_reporting: u8,
        /// R_TF_RED_CFG_MODE bit 0.
        pub cfg_red_mode: bool,
        /// SUB_TIMEOUT\[23:0\].
        pub cfg_sub_timeout: u32,
        /// MASTER_TIMEOUT\[23:0\].
        pub cfg_master_timeout: u32,
        /// RED_TIMEOUT0\[23:0\].
        pub cfg_red_timeout0: u32,
        /// RED_TIMEOUT1\[23:0\].
        pub cfg_red_timeout1: u32,
        /// RED_TIMEOUT2\[23:0\].
        pub cfg_red_timeout2: u32,
        /// RED_TIMEOUT3\[23:0\].
        pub cfg_red_timeout3: u32,
        /// RED_THRESHOLD0\[19:0\].
        pub cfg_red_threshold0: u32,
        /// RED_THRESHOLD1\[19:0\].
        pub cfg_red_threshold1: u32,
        /// RED_THRESHOLD2\[19:0\].
        pub cfg_red_threshold2: u32,
        /// VNI_ALLOWED valid bits, bit i = entry i.
        pub cfg_vni_valid: u8,
        /// VNI_ALLOWED VNIs, entry i in bits 16i+15:16i.
        pub cfg_vni: u64,
        /// Route-table write pulse (to the output queue's cfg_route_wr_* port).
        pub cfg_route_wr_en: bool,
        /// Entry written.
        pub cfg_route_wr_index: u8,
        /// Entry valid.
        pub cfg_route_wr_valid: bool,
        /// Entry device ID.
        pub cfg_route_wr_dest_id: u16,
        /// Entry mask.
        pub cfg_route_wr_dest_mask: u16,
        /// Entry egress port.
        pub cfg_route_wr_port: u8,
        /// Multicast-table write pulse (to the interposer).
        pub cfg_mcast_wr_en: bool,
        /// Entry written.
        pub cfg_mcast_wr_index: u8,
        /// Entry valid.
        pub cfg_mcast_wr_valid: bool,
        /// Tree (DFA bits 15-3).
        pub cfg_mcast_wr_tree: u16,
        /// Wait count.
        pub cfg_mcast_wr_wait_count: u32,
        /// Port mask.
        pub cfg_mcast_wr_ports: u16,
        /// Device ID of PBV entry `pbv_rd_index` (combinational read).
        pub pbv_rd_dev_id: u16,
        /// CPU configuration write (to the CPU's `cfg_wr_en`).
        pub cpu_cfg_wr_en: bool,
        /// CPU register word address.
        pub cpu_cfg_wr_addr: u16,
        /// CPU register value.
        pub cpu_cfg_wr_data: u32,
    }
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
    /// Multicast entry, DW (0 key, 1 wait, 2 ports).
    Mcast(usize, usize),
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
    /// CPU static entry, DW (0 key, 1 wait count).
    CpuStatic(usize, usize),
}

/// Decodes a byte offset (bits 1:0 ignored); `None` = unmapped.
pub fn decode(addr: u16) -> Option<Reg> {
    decode_with(addr, CPU_STATIC_ENTRIES)
}

/// [`decode`] for a register space with `cpu_static` CPU static entries (`CPU_STATIC_ENTRIES`).
pub fn decode_with(addr: u16, cpu_static: usize) -> Option<Reg> {
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
        _ => {
            if let Some(i) = idx(o::RED_TIMEOUT, RED_TIMEOUTS, 4) {
                Reg::RedTimeout(i)
            } else if let Some(i) = idx(o::RED_THRESHOLD, RED_THRESHOLDS, 4) {
                Reg::RedThreshold(i)
            } else if let Some(i) = idx(o::VNI_ALLOWED, VNI_ENTRIES, 4) {
                Reg::VniAllowed(i)
            } else if let Some(i) = idx(o::ROUTE, ROUTE_ENTRIES, 8) {
                Reg::Route(i, ((a >> 2) & 1) as usize)
            } else if let Some(i) = idx(o::MCAST, MCAST_ENTRIES, 16) {
                let w = ((a >> 2) & 3) as usize;
                if w == 3 {
                    return None;
                }
                Reg::Mcast(i, w)
            } else if let Some(i) = idx(o::COUNTERS, INTERNAL_COUNTERS + STAT_EVENTS, 4) {
                Reg::Counter(i)
            } else if let Some(i) = idx(o::PBV_FLAGS, PBV_ENTRIES / 2, 4) {
                Reg::PbvFlags(i)
            } else if let Some(i) = idx(o::CPU_STATIC, cpu_static.min(MAX_CPU_STATIC_ENTRIES), 8) {
                Reg::CpuStatic(i, ((a >> 2) & 1) as usize)
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

/// The register space's registers.
#[derive(Clone, Debug, PartialEq)]
pub struct RegisterSpace {
    pbv: [u32; PBV_ENTRIES / 2],
    ctrl: Ctrl,
    master_id: u32,
    ethertype: u32,
    vendor_id: u32,
    validation: Validation,
    error_reporting: u32,
    red_cfg_mode: u32,
    sub_timeout: u32,
    master_timeout: u32,
    red_timeout: [u32; RED_TIMEOUTS],
    red_threshold: [u32; RED_THRESHOLDS],
    vni_allowed: [VniAllowed; VNI_ENTRIES],
    route_key: [RouteKey; ROUTE_ENTRIES],
    route_action: [RouteAction; ROUTE_ENTRIES],
    mcast_key: [McastKey; MCAST_ENTRIES],
    mcast_wait: [McastWait; MCAST_ENTRIES],
    mcast_ports: [McastPorts; MCAST_ENTRIES],
    counters: [u32; INTERNAL_COUNTERS + STAT_EVENTS],
    engine_sfa: u32,
    retry_limit: u32,
    pbv_flags: [PbvFlags; PBV_ENTRIES / 2],
    static_key: [CpuStaticKey; MAX_CPU_STATIC_ENTRIES],
    static_wait: [u32; MAX_CPU_STATIC_ENTRIES],
    /// `CPU_STATIC_ENTRIES`: entries of the static window in use.
    cpu_static: usize,
    /// Second CPU write of a two-entry PBV / PBV_FLAGS access: (address, data).
    cpu_pending: Option<(u16, u32)>,
    /// Next step of the post-reset copy to the CPU.
    sync: Option<u16>,
    /// Registered outputs: the response, the table-write pulses and the CPU write.
    out: RegisterSpaceOut,
}

impl Default for RegisterSpace {
    fn default() -> Self {
        Self::new()
    }
}

impl RegisterSpace {
    /// A register space in its reset state, with the default `CPU_STATIC_ENTRIES`.
    pub fn new() -> Self {
        Self::reset_state(CPU_STATIC_ENTRIES)
    }

    /// A register space whose CPU window has `n` static entries (the RTL parameter
    /// `CPU_STATIC_ENTRIES`, 1-64), at power-on (before the first reset, as the Verilated RTL starts).
    pub fn power_on_with(n: usize) -> Result<Self, RegsParamError> {
        if !(1..=MAX_CPU_STATIC_ENTRIES).contains(&n) {
            return Err(RegsParamError::CpuStaticEntries(n));
        }
        Ok(RegisterSpace { cpu_static: n, ..Self::power_on() })
    }

    fn reset_state(cpu_static: usize) -> Self {
        RegisterSpace {
            pbv: [0; PBV_ENTRIES / 2],
            ctrl: Ctrl::new(),
            master_id: 0,
            ethertype: reset::ETHERTYPE,
            vendor_id: reset::VENDOR_ID,
            validation: Validation::from(reset::VALIDATION),
            error_reporting: 0,
            red_cfg_mode: 0,
            sub_timeout: reset::SUB_TIMEOUT,
            master_timeout: reset::MASTER_TIMEOUT,
            red_timeout: reset::RED_TIMEOUT,
            red_threshold: reset::RED_THRESHOLD,
            vni_allowed: [VniAllowed::new(); VNI_ENTRIES],
            route_key: [RouteKey::new(); ROUTE_ENTRIES],
            route_action: [RouteAction::new(); ROUTE_ENTRIES],
            mcast_key: [McastKey::new(); MCAST_ENTRIES],
            mcast_wait: [McastWait::new(); MCAST_ENTRIES],
            mcast_ports: [McastPorts::new(); MCAST_ENTRIES],
            counters: [0; INTERNAL_COUNTERS + STAT_EVENTS],
            engine_sfa: 0,
            retry_limit: reset::RETRY_LIMIT,
            pbv_flags: [PbvFlags::new(); PBV_ENTRIES / 2],
            static_key: [CpuStaticKey::new(); MAX_CPU_STATIC_ENTRIES],
            static_wait: [0; MAX_CPU_STATIC_ENTRIES],
            cpu_static,
            cpu_pending: None,
            sync: Some(0),
            out: RegisterSpaceOut::default(),
        }
    }

    /// The state before the first reset: every register 0, as the Verilated RTL starts
    /// (`--x-initial fast`); the co-simulation starts the model here so that cycle 0 compares equal.
    pub fn power_on() -> Self {
        RegisterSpace {
            ethertype: 0,
            vendor_id: 0,
            validation: Validation::new(),
            sub_timeout: 0,
            master_timeout: 0,
            red_timeout: [0; RED_TIMEOUTS],
            red_threshold: [0; RED_THRESHOLDS],
            retry_limit: 0,
            sync: None,
            ..Self::new()
        }
    }

    /// Device ID of PBV entry `i`.
    pub fn pbv(&self, i: usize) -> u16 {
        let p = PbvPair::from(self.pbv[i / 2]);
        if i % 2 == 0 { p.even() } else { p.odd() }
    }

    /// Counter `i` (0 rejected writes, 1 unmapped accesses, 2 + k event k).
    pub fn counter(&self, i: usize) -> u32 {
        self.counters[i]
    }

    /// The CPU's PBV-table word of entry `i` (docs/blocks/cpu.md §Ports: \[31\] valid, \[16\] switch, \[15:0\] device ID).
    pub fn cpu_pbv_word(&self, i: usize) -> u32 {
        let f = self.pbv_flags[i / 2];
        let (valid, switch) = if i % 2 == 0 { (f.even_valid(), f.even_switch()) } else { (f.odd_valid(), f.odd_switch()) };
        u32::from(valid) << 31 | u32::from(switch) << 16 | u32::from(self.pbv(i))
    }

    /// The CPU's MODE word: [0] R_TF_RED_CFG_MODE, [11:8] retry limit.
    fn cpu_mode_word(&self) -> u32 {
        (self.red_cfg_mode & 1) | (self.retry_limit & 0xF) << 8
    }

    /// Value of step `k` of the post-reset copy (CPU register `0x080 + k`).
    fn sync_word(&self, k: u16, engine_id: u16) -> u32 {
        match k {
            0..=3 => self.red_timeout[usize::from(k)],
            4..=6 => self.red_threshold[usize::from(k - 4)],
            7 => u32::from(engine_id),
            8 => self.engine_sfa,
            _ => self.cpu_mode_word(),
        }
    }

    /// The CPU writes an authorized write to `reg` with byte enables `be` forwards (after the write is
    /// applied): none, one, or two (a PBV / PBV_FLAGS DW with bytes of both entries enabled).
    fn cpu_forward(&self, reg: Reg, be: u8) -> [Option<(u16, u32)>; 2] {
        if be & 0xF == 0 {
            return [None, None];
        }
        let one = |a: u16, d: u32| [Some((a, d)), None];
        match reg {
            Reg::Pbv(k) | Reg::PbvFlags(k) => {
                let even = (be & 0x3 != 0).then(|| (cpu_addr::PBV + 2 * k as u16, self.cpu_pbv_word(2 * k)));
                let odd = (be & 0xC != 0).then(|| (cpu_addr::PBV + 2 * k as u16 + 1, self.cpu_pbv_word(2 * k + 1)));
                if even.is_some() { [even, odd] } else { [odd, None] }
            }
            Reg::RedTimeout(i) => one(cpu_addr::TIMEOUT + i as u16, self.red_timeout[i]),
            Reg::RedThreshold(i) => one(cpu_addr::THRESHOLD + i as u16, self.red_threshold[i]),
            Reg::EngineSfa => one(cpu_addr::ENGINE_SFA, self.engine_sfa),
            Reg::RedCfgMode | Reg::RetryLimit => one(cpu_addr::MODE, self.cpu_mode_word()),
            Reg::CpuStatic(s, 0) => one(cpu_addr::STATIC + 2 * s as u16, self.static_key[s].into()),
            Reg::CpuStatic(s, _) => one(cpu_addr::STATIC + 2 * s as u16 + 1, self.static_wait[s]),
            _ => [None, None],
        }
    }

    /// What a read of `reg` returns (`engine_id`: the strap, for ENGINE_ID; FAILURE reads 0 here, see
    /// [`Self::read_at`]).
    pub fn read_with(&self, reg: Reg, engine_id: u16) -> u32 {
        match reg {
            Reg::EngineId => u32::from(engine_id),
            _ => self.read(reg),
        }
    }

    /// What a read of `reg` returns with the inputs `i` of the cycle it is taken (ENGINE_ID reads the
    /// strap, FAILURE the CPU's status inputs).
    pub fn read_at(&self, reg: Reg, i: &RegisterSpaceIn) -> u32 {
        match reg {
            Reg::Failure => failure_word(i.cpu_fail_valid, i.cpu_fail_family, i.cpu_fail_ctx, i.cpu_fail_count),
            _ => self.read_with(reg, i.cfg_engine_id),
        }
    }

    /// What a read of `reg` returns (ENGINE_ID and FAILURE read 0 here: they are inputs, see [`Self::read_at`]).
    pub fn read(&self, reg: Reg) -> u32 {
        match reg {
            Reg::Pbv(k) => self.pbv[k],
            Reg::Id => ID_VALUE,
            Reg::Ctrl => self.ctrl.into(),
            Reg::MasterId => self.master_id,
            Reg::Ethertype => self.ethertype,
            Reg::VendorId => self.vendor_id,
            Reg::Validation => self.validation.into(),
            Reg::ErrorReporting => self.error_reporting,
            Reg::RedCfgMode => self.red_cfg_mode,
            Reg::SubTimeout => self.sub_timeout,
            Reg::MasterTimeout => self.master_timeout,
            Reg::RedTimeout(i) => self.red_timeout[i],
            Reg::RedThreshold(i) => self.red_threshold[i],
            Reg::VniAllowed(i) => self.vni_allowed[i].into(),
            Reg::Route(i, 0) => self.route_key[i].into(),
            Reg::Route(i, _) => self.route_action[i].into(),
            Reg::Mcast(i, 0) => self.mcast_key[i].into(),
            Reg::Mcast(i, 1) => self.mcast_wait[i].into(),
            Reg::Mcast(i, _) => self.mcast_ports[i].into(),
            Reg::Counter(i) => self.counters[i],
            Reg::EngineId | Reg::Failure => 0,
            Reg::EngineSfa => self.engine_sfa,
            Reg::RetryLimit => self.retry_limit,
            Reg::PbvFlags(k) => self.pbv_flags[k].into(),
            Reg::CpuStatic(s, 0) => self.static_key[s].into(),
            Reg::CpuStatic(s, _) => self.static_wait[s],
        }
    }

    fn cfg_outputs(&self) -> RegisterSpaceOut {
        let mut o = self.out;
        o.cfg_lock = self.ctrl.lock();
        o.cfg_master_id = self.master_id as u16;
        o.cfg_ethertype = self.ethertype as u16;
        o.cfg_vendor_id = self.vendor_id as u16;
        o.cfg_validation = (u32::from(self.validation) & 0xF) as u8;
        o.cfg_error_reporting = self.error_reporting as u8;
        o.cfg_red_mode = self.red_cfg_mode & 1 != 0;
        o.cfg_sub_timeout = self.sub_timeout;
        o.cfg_master_timeout = self.master_timeout;
        [o.cfg_red_timeout0, o.cfg_red_timeout1, o.cfg_red_timeout2, o.cfg_red_timeout3] = self.red_timeout;
        [o.cfg_red_threshold0, o.cfg_red_threshold1, o.cfg_red_threshold2] = self.red_threshold;
        o.cfg_vni_valid = 0;
        o.cfg_vni = 0;
        for (i, v) in self.vni_allowed.iter().enumerate() {
            o.cfg_vni_valid |= u8::from(v.valid()) << i;
            o.cfg_vni |= u64::from(v.vni()) << (16 * i);
        }
        o
    }

    /// Applies an authorized write of `data` under byte mask `m` to `reg`; returns false if read-only.
    fn write(&mut self, reg: Reg, data: u32, m: u32, inc: &[u32]) -> bool {
        let merge = |old: u32, field: u32| (old & !(m & field)) | (data & m & field);
        match reg {
            Reg::Pbv(k) => self.pbv[k] = merge(self.pbv[k], u32::MAX),
            Reg::Id | Reg::EngineId | Reg::Failure => return false,
            Reg::EngineSfa => self.engine_sfa = merge(self.engine_sfa, u32::MAX),
            Reg::RetryLimit => self.retry_limit = merge(self.retry_limit, 0xF),
            Reg::PbvFlags(k) => self.pbv_flags[k] = PbvFlags::from(merge(self.pbv_flags[k].into(), 0x0003_0003)),
            Reg::CpuStatic(s, 0) => self.static_key[s] = CpuStaticKey::from(merge(self.static_key[s].into(), 0x8031_1FFF)),
            Reg::CpuStatic(s, _) => self.static_wait[s] = merge(self.static_wait[s], MASK20),
            Reg::Ctrl => self.ctrl = Ctrl::from(merge(self.ctrl.into(), 1)),
            Reg::MasterId => self.master_id = merge(self.master_id, MASK16),
            Reg::Ethertype => self.ethertype = merge(self.ethertype, MASK16),
            Reg::VendorId => self.vendor_id = merge(self.vendor_id, MASK16),
            Reg::Validation => self.validation = Validation::from(merge(self.validation.into(), 0xF)),
            Reg::ErrorReporting => self.error_reporting = merge(self.error_reporting, MASK8),
            Reg::RedCfgMode => self.red_cfg_mode = merge(self.red_cfg_mode, 1),
            Reg::SubTimeout => self.sub_timeout = merge(self.sub_timeout, MASK24),
            Reg::MasterTimeout => self.master_timeout = merge(self.master_timeout, MASK24),
            Reg::RedTimeout(i) => self.red_timeout[i] = merge(self.red_timeout[i], MASK24),
            Reg::RedThreshold(i) => self.red_threshold[i] = merge(self.red_threshold[i], MASK20),
            Reg::VniAllowed(i) => self.vni_allowed[i] = VniAllowed::from(merge(self.vni_allowed[i].into(), 0x8000_FFFF)),
            Reg::Route(i, 0) => self.route_key[i] = RouteKey::from(merge(self.route_key[i].into(), u32::MAX)),
            Reg::Route(i, _) => {
                self.route_action[i] = RouteAction::from(merge(self.route_action[i].into(), 0x8000_00FF));
                if m != 0 {
                    let (k, a) = (self.route_key[i], self.route_action[i]);
                    self.out.cfg_route_wr_en = true;
                    self.out.cfg_route_wr_index = i as u8;
                    self.out.cfg_route_wr_valid = a.valid();
                    self.out.cfg_route_wr_dest_id = k.dest_id();
                    self.out.cfg_route_wr_dest_mask = k.dest_mask();
                    self.out.cfg_route_wr_port = a.port() & PORT_MASK;
                }
            }
            Reg::Mcast(i, 0) => {
                self.mcast_key[i] = McastKey::from(merge(self.mcast_key[i].into(), 0x8000_1FFF));
                if m != 0 {
                    let k = self.mcast_key[i];
                    self.out.cfg_mcast_wr_en = true;
                    self.out.cfg_mcast_wr_index = i as u8;
                    self.out.cfg_mcast_wr_valid = k.valid();
                    self.out.cfg_mcast_wr_tree = k.tree();
                    self.out.cfg_mcast_wr_wait_count = self.mcast_wait[i].wait_count();
                    self.out.cfg_mcast_wr_ports = self.mcast_ports[i].ports();
                }
            }
            Reg::Mcast(i, 1) => self.mcast_wait[i] = McastWait::from(merge(self.mcast_wait[i].into(), MASK20)),
            Reg::Mcast(i, _) => self.mcast_ports[i] = McastPorts::from(merge(self.mcast_ports[i].into(), MASK16)),
            // Writing a counter clears it; an event in the same cycle is still counted.
            Reg::Counter(i) => {
                if m != 0 {
                    self.counters[i] = inc[i];
                    return true;
                }
            }
        }
        true
    }
}

/// Egress port bits kept (the output queue's default PORT_WIDTH = 4).
pub const PORT_MASK: u8 = 0xF;

impl Block for RegisterSpace {
    type In = RegisterSpaceIn;
    type Out = RegisterSpaceOut;

    fn step(&mut self, i: &RegisterSpaceIn) -> RegisterSpaceOut {
        let s_reg_ready = (!self.out.m_reg_rsp_valid || i.m_reg_rsp_ready) && self.sync.is_none() && self.cpu_pending.is_none();
        let mut out = self.cfg_outputs();
        out.s_reg_ready = s_reg_ready;
        out.pbv_rd_dev_id = self.pbv(usize::from(i.pbv_rd_index) % PBV_ENTRIES);

        // Rising edge.
        let mut inc = [0u32; INTERNAL_COUNTERS + STAT_EVENTS];
        for (k, c) in inc[INTERNAL_COUNTERS..].iter_mut().enumerate() {
            *c = i.stat_event >> k & 1;
        }
        self.out.m_reg_rsp_valid &= !i.m_reg_rsp_ready;
        self.out.cfg_route_wr_en = false;
        self.out.cfg_mcast_wr_en = false;
        self.out.cpu_cfg_wr_en = false;
        let mut cpu_write = None;
        if let Some(k) = self.sync {
            cpu_write = Some((cpu_addr::TIMEOUT + k, self.sync_word(k, i.cfg_engine_id)));
            self.sync = (k + 1 < SYNC_WRITES).then_some(k + 1);
        } else if let Some(w) = self.cpu_pending.take() {
            cpu_write = Some(w);
        }
        let mut cleared = None;
        if i.s_reg_valid && s_reg_ready {
            let reg = decode_with(i.s_reg_addr, self.cpu_static);
            let authorized = !self.ctrl.lock() || u32::from(i.s_reg_src) == self.master_id;
            let (st, rdata) = match (reg, i.s_reg_write) {
                (None, _) => (status::UNMAPPED, 0),
                (Some(r), false) => (status::OK, self.read_at(r, i)),
                (Some(_), true) if !authorized => (status::REJECTED, 0),
                (Some(Reg::Id | Reg::EngineId | Reg::Failure), true) => (status::UNMAPPED, 0),
                (Some(r), true) => {
                    if let Reg::Counter(c) = r {
                        if i.s_reg_be & 0xF != 0 {
                            cleared = Some(c);
                        }
                    }
                    (status::OK, 0)
                }
            };
            match st {
                status::REJECTED => inc[0] += 1,
                status::UNMAPPED => inc[1] += 1,
                _ => {}
            }
            if st == status::OK && i.s_reg_write {
                let r = reg.expect("OK writes are mapped");
                self.write(r, i.s_reg_wdata, be_mask(i.s_reg_be), &inc);
                let [first, second] = self.cpu_forward(r, i.s_reg_be);
                cpu_write = first;
                self.cpu_pending = second;
            }
            self.out.m_reg_rsp_valid = true;
            self.out.m_reg_rsp_write = i.s_reg_write;
            self.out.m_reg_rsp_status = st;
            self.out.m_reg_rsp_rdata = rdata;
            self.out.m_reg_rsp_src = i.s_reg_src;
            self.out.m_reg_rsp_tag = i.s_reg_tag & 0x3FF;
            self.out.m_reg_rsp_addr = i.s_reg_addr;
            self.out.m_reg_rsp_be = i.s_reg_be & 0xF;
        }
        if let Some((a, d)) = cpu_write {
            self.out.cpu_cfg_wr_en = true;
            self.out.cpu_cfg_wr_addr = a;
            self.out.cpu_cfg_wr_data = d;
        }
        for (k, c) in self.counters.iter_mut().enumerate() {
            if cleared != Some(k) {
                *c = c.wrapping_add(inc[k]);
            }
        }
        if i.rst {
            *self = Self::reset_state(self.cpu_static);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(write: bool, addr: u32, be: u8, data: u32, src: u16) -> RegisterSpaceIn {
        RegisterSpaceIn {
            s_reg_valid: true,
            s_reg_write: write,
            s_reg_addr: addr as u16,
            s_reg_be: be,
            s_reg_wdata: data,
            s_reg_src: src,
            m_reg_rsp_ready: true,
            ..Default::default()
        }
    }
    fn idle() -> RegisterSpaceIn {
        RegisterSpaceIn { m_reg_rsp_ready: true, ..Default::default() }
    }
    /// Out of reset, with the post-reset copy to the CPU done.
    fn synced() -> RegisterSpace {
        let mut r = RegisterSpace::new();
        for _ in 0..SYNC_WRITES {
            r.step(&idle());
        }
        r
    }

    #[test]
    fn bitfield_layouts_are_the_documented_ones() {
        assert_eq!(u32::from(RouteAction::new().with_valid(true).with_port(3)), 0x8000_0003);
        assert_eq!(u32::from(McastKey::new().with_valid(true).with_tree(0x1fff)), 0x8000_1fff);
        assert_eq!(u32::from(PbvPair::new().with_even(0x10).with_odd(0x20)), 0x0020_0010);
        assert_eq!(u32::from(VniAllowed::new().with_valid(true).with_vni(7)), 0x8000_0007);
        assert_eq!(u32::from(Validation::new().with_fcs(true)), 4);
    }

    #[test]
    fn read_after_write_and_one_cycle_response() {
        let mut r = synced();
        let o = r.step(&access(true, offset::MASTER_ID, 0xF, 0xABCD_0042, 7));
        assert!(o.s_reg_ready && !o.m_reg_rsp_valid);
        let o = r.step(&access(false, offset::MASTER_ID, 0xF, 0, 7));
        assert!(o.m_reg_rsp_valid && o.m_reg_rsp_write && o.m_reg_rsp_status == status::OK);
        assert_eq!(o.cfg_master_id, 0x42);
        let o = r.step(&idle());
        assert_eq!((o.m_reg_rsp_write, o.m_reg_rsp_rdata), (false, 0x42));
    }

    #[test]
    fn locked_writes_from_others_are_rejected_and_counted() {
        let mut r = synced();
        r.step(&access(true, offset::MASTER_ID, 0xF, 0x0001, 1));
        r.step(&access(true, offset::CTRL, 0xF, 1, 1));
        r.step(&access(true, offset::ETHERTYPE, 0xF, 0x1234, 2));
        let o = r.step(&access(true, offset::ETHERTYPE, 0x1, 0x0055, 1));
        assert_eq!(o.m_reg_rsp_status, status::REJECTED);
        let o = r.step(&idle());
        assert_eq!(o.m_reg_rsp_status, status::OK);
        assert_eq!(o.cfg_ethertype, 0x8855, "byte enable 0001 writes bits 7:0 only");
        assert_eq!(r.counter(0), 1);
    }

    #[test]
    fn route_commit_pulses_the_output_queue_port() {
        let mut r = synced();
        r.step(&access(true, offset::ROUTE + 8 * 3, 0xF, 0xFFF0_0010, 0));
        let o = r.step(&access(true, offset::ROUTE + 8 * 3 + 4, 0xF, 0x8000_0005, 0));
        assert!(!o.cfg_route_wr_en);
        let o = r.step(&idle());
        assert!(o.cfg_route_wr_en && o.cfg_route_wr_valid);
        assert_eq!((o.cfg_route_wr_index, o.cfg_route_wr_dest_id, o.cfg_route_wr_dest_mask, o.cfg_route_wr_port), (3, 0x10, 0xfff0, 5));
        assert!(!r.step(&idle()).cfg_route_wr_en);
    }

    #[test]
    fn unmapped_and_read_only_are_counted() {
        let mut r = synced();
        r.step(&access(false, 0xFFC, 0xF, 0, 0));
        r.step(&access(true, offset::ID, 0xF, 0, 0));
        let o = r.step(&access(false, offset::COUNTERS + 4, 0xF, 0, 0));
        assert_eq!(o.m_reg_rsp_status, status::UNMAPPED);
        assert_eq!(r.step(&idle()).m_reg_rsp_rdata, 2);
    }

    #[test]
    fn failure_reads_the_cpu_status_and_is_read_only() {
        // docs/blocks/register_space.md FAILURE (0x16C): {valid[31], family[24], count[23:16], context[15:0]}, the
        // CPU's FAILURE status register (001's Failure flag) as its fail_* outputs show it.
        let mut r = synced();
        let failing = |i: RegisterSpaceIn| RegisterSpaceIn { cpu_fail_valid: true, cpu_fail_family: true, cpu_fail_ctx: 0x0345, cpu_fail_count: 2, ..i };
        r.step(&failing(access(false, offset::FAILURE, 0xF, 0, 1)));
        let o = r.step(&failing(idle()));
        assert_eq!((o.m_reg_rsp_status, o.m_reg_rsp_rdata), (status::OK, 0x8102_0345));
        r.step(&failing(access(true, offset::FAILURE, 0xF, 0, 1)));
        let o = r.step(&idle());
        assert_eq!(o.m_reg_rsp_status, status::UNMAPPED, "read-only");
        assert_eq!(r.counter(1), 1);
        r.step(&access(false, offset::FAILURE, 0xF, 0, 1));
        assert_eq!(r.step(&idle()).m_reg_rsp_rdata, 0, "no failure: reads 0");
    }

    #[test]
    fn decode_covers_the_map() {
        assert_eq!(decode(0x0C2), Some(Reg::Pbv(0x30)));
        assert_eq!(decode(0x204), Some(Reg::Route(0, 1)));
        assert_eq!(decode(0x3F4), Some(Reg::Mcast(15, 1)));
        assert_eq!(decode(0x3FC), None);
        assert_eq!(decode(0x400 + 4 * 33), Some(Reg::Counter(33)));
        assert_eq!(decode(0x400 + 4 * 34), None);
        assert_eq!(decode(0x12C), None);
        assert_eq!(decode(0x16C), Some(Reg::Failure));
        assert_eq!(decode(0x170), None);
    }
}

#[cfg(test)]
mod bridge_tests {
    use super::*;

    fn idle(engine_id: u16) -> RegisterSpaceIn {
        RegisterSpaceIn { m_reg_rsp_ready: true, cfg_engine_id: engine_id, ..Default::default() }
    }

    #[test]
    fn after_reset_the_cpu_gets_the_reset_values_then_accesses_are_taken() {
        let mut r = RegisterSpace::new();
        let mut writes = Vec::new();
        for _ in 0..SYNC_WRITES + 2 {
            let o = r.step(&idle(0x0720));
            if o.cpu_cfg_wr_en {
                writes.push((o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data));
            }
            assert_eq!(o.s_reg_ready, writes.len() == usize::from(SYNC_WRITES));
        }
        assert_eq!(writes, vec![
            (0x080, 1), (0x081, 0x10), (0x082, 0x100), (0x083, 0x1000),
            (0x084, 4), (0x085, 64), (0x086, 1024),
            (0x087, 0x0720), (0x088, 0), (0x089, 0x300),
        ]);
    }

    #[test]
    fn a_pbv_dw_write_configures_both_cpu_entries_on_consecutive_cycles() {
        let mut r = RegisterSpace::new();
        for _ in 0..SYNC_WRITES {
            r.step(&idle(1));
        }
        let w = |off: u32, be: u8, data: u32| RegisterSpaceIn {
            s_reg_valid: true, s_reg_write: true, s_reg_addr: off as u16, s_reg_be: be, s_reg_wdata: data,
            m_reg_rsp_ready: true, ..Default::default()
        };
        // Flags: entry 4 valid switch, entry 5 valid end device.
        let o = r.step(&w(offset::PBV_FLAGS + 8, 0xF, 0x0001_0003));
        assert!(o.s_reg_ready);
        let o = r.step(&idle(1));
        assert!(o.cpu_cfg_wr_en && o.cpu_cfg_wr_addr == 4 && o.cpu_cfg_wr_data == 0x8001_0000);
        assert!(!o.s_reg_ready, "the second entry's write holds the next access");
        let o = r.step(&idle(1));
        assert_eq!((o.cpu_cfg_wr_en, o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (true, 5, 0x8000_0000));
        assert!(o.s_reg_ready);
        r.step(&w(offset::PBV + 8, 0xF, 0x0022_0011));
        let o = r.step(&idle(1));
        assert_eq!((o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (4, 0x8001_0011));
        let o = r.step(&idle(1));
        assert_eq!((o.cpu_cfg_wr_en, o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (true, 5, 0x8000_0022));
        // A 2-byte write (seed 000 [0175]) configures one entry.
        r.step(&w(offset::PBV + 8, 0xC, 0x0033_0000));
        let o = r.step(&idle(1));
        assert_eq!((o.cpu_cfg_wr_en, o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data), (true, 5, 0x8000_0033));
        assert!(!r.step(&idle(1)).cpu_cfg_wr_en);
    }
}
