//! Register space of the packet engine (seed 000 \[0154\]-\[0158\], \[0174\]-\[0178\]; 002 (60)-(61), (86)).
//!
//! Cycle model of `rtl/register_space.v`; the register table, the interface and
//! timing `docs/blocks/register_space.md`. The engine's registers sit in a 4 KiB window at 0xC000 of its
//! switch's 32-bit address space (\[0175\]: writes to `0x0010_C0yy` program switch 0x0010's PBV table), so
//! a register is addressed here by its 12-bit byte offset in that window.
//!
//! One register access per cycle arrives on `s_reg_*` (from the input checker, which turns 1-DW memory
//! reads and writes into accesses); each gets one response on `m_reg_rsp_*` one cycle later. Only the
//! configured master may write once the `CTRL.lock` bit is set; other writers are rejected and counted.
//! Everything else this block holds drives other blocks: configuration values on `cfg_*` ports, the
//! output queue's route-table write port, the interposer's multicast-table write port (the multicast
//! entries are one per tree, in RAM behind MCAST_INDEX, as the CPU's static entries are behind
//! STATIC_INDEX), and a PBV read port for the collective processing unit. Event counters count one-cycle pulses on `stat_event`.
//!
//! CPU configuration bridge (docs/blocks/register_space.md §CPU window): the registers the CPU keeps a copy of (PBV
//! table and flags, reduction timeouts and thresholds, ENGINE_SFA, RED_CFG_MODE, RETRY_LIMIT, the static
//! context entries) are forwarded, on every authorized write, as CPU register writes on `cpu_cfg_wr_*`
//! (`docs/blocks/cpu.md` §Ports); after a reset the block first copies its reset values and the ENGINE_ID strap.

use crate::out_of_line::OutOfLine;
use crate::ports;
use crate::signal::Block;

pub mod codes;
mod map;
// The map's items are the block's public paths (`register_space::offset`, `register_space::decode`, ...).
pub use map::*;

/// A parameter the register space does not support.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegsParamError {
    /// `CPU_STATIC_ENTRIES` must be 1-4096.
    #[error("register space: CPU_STATIC_ENTRIES {0} is not 1-4096")]
    CpuStaticEntries(usize),
    /// `MCAST_ENTRIES` must be 1-8192.
    #[error("register space: MCAST_ENTRIES {0} is not 1-8192")]
    McastEntries(usize),
}

/// One multicast entry as the RTL's `mcast_mem` holds it (docs/blocks/register_space.md §Multicast entries):
/// MCAST_KEY's valid bit, MCAST_WAIT, MCAST_PORTS. Its tree is its index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct McastEntry {
    /// MCAST_KEY bit 31.
    pub valid: bool,
    /// MCAST_WAIT\[19:0\].
    pub wait: u32,
    /// MCAST_PORTS\[15:0\].
    pub ports: u16,
}

/// Entries in a page of the multicast entries' storage (`crate::paged_table`, as the interposer's table):
/// 512 bytes, so an engine in a fabric, which arms a few trees, carries a page or two of its 64 KB table.
const MCAST_PAGE: usize = 64;
/// The multicast entries' storage.
type McastTable = crate::paged_table::PagedTable<McastEntry, MCAST_PAGE>;

/// Width masks of the value registers.
const MASK16: u32 = 0xFFFF;
const MASK8: u32 = 0xFF;
const MASK24: u32 = 0xFF_FFFF;
const MASK20: u32 = 0xF_FFFF;
/// MCAST_KEY's valid bit, the only bit of it a write changes.
const MCAST_VALID: u32 = 1 << 31;

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
        /// Entry valid.
        pub cfg_mcast_wr_valid: bool,
        /// Tree (DFA bits 15-3): the committing requester's MCAST_INDEX.
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

/// The register space's tables that only a register access reads or writes (the route table, PBV_FLAGS,
/// the STATIC_INDEX and MCAST_INDEX slots): kept out of line, so that the registers every cycle reads
/// (the configuration outputs, the pipeline's state) fit a few cache lines. A fabric steps 1,024 engines
/// in turn, and each step's first loads of an engine's state missed the caches (docs/performance.md
/// §Session 19, the engine's hot state).
#[derive(Clone, Debug, PartialEq)]
struct Tables {
    route_key: [RouteKey; ROUTE_ENTRIES],
    route_action: [RouteAction; ROUTE_ENTRIES],
    pbv_flags: [PbvFlags; PBV_ENTRIES / 2],
    /// STATIC_INDEX per requester: (requester ID, entry), `STATIC_INDEX_SLOTS` slots, `None` = free. The
    /// RTL's data registers of a slot hold its entry (loaded from the RAM after an index write, written
    /// with the RAM); they always equal the RAM's entry, so the model reads the RAM.
    static_index: [Option<(u16, u32)>; STATIC_INDEX_SLOTS],
    /// MCAST_INDEX per requester, as `static_index` (the RTL's slot data registers equal `mcast_mem`'s
    /// entry, so the model reads the RAM).
    mcast_index: [Option<(u16, u32)>; MCAST_INDEX_SLOTS],
}

impl Tables {
    const RESET: Tables = Tables {
        route_key: [RouteKey::new(); ROUTE_ENTRIES],
        route_action: [RouteAction::new(); ROUTE_ENTRIES],
        pbv_flags: [PbvFlags::new(); PBV_ENTRIES / 2],
        static_index: [None; STATIC_INDEX_SLOTS],
        mcast_index: [None; MCAST_INDEX_SLOTS],
    };
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
    /// The tables only a register access reads or writes, out of line ([`Tables`]).
    t: OutOfLine<Tables>,
    counters: [u32; INTERNAL_COUNTERS + STAT_EVENTS],
    engine_sfa: u32,
    retry_limit: u32,
    /// The RAM copy of the CPU's static entries, word 0 (the RTL's `static_key_mem`), `CPU_STATIC_ENTRIES` long.
    static_key: Vec<CpuStaticKey>,
    /// Word 1 (`static_wait_mem`).
    static_wait: Vec<u32>,
    /// The slot the next requester without one takes (round robin).
    static_next: usize,
    /// An index write's RAM read is under way: no access is taken this cycle.
    static_load: bool,
    /// The multicast entries (the RTL's `mcast_mem`), `MCAST_ENTRIES` long, indexed by the tree.
    mcast: McastTable,
    /// The MCAST_INDEX slot the next requester without one takes (round robin).
    mcast_next: usize,
    /// An MCAST_INDEX write's RAM read is under way: no access is taken this cycle.
    mcast_load: bool,
    /// Next entry of the post-reset clearing sweep of the RAMs (static entries and multicast entries
    /// together; `None`: no sweep).
    sweep: Option<usize>,
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
    /// A register space in its reset state (the clearing sweep and the post-reset copy to come), with
    /// the default `CPU_STATIC_ENTRIES`.
    pub fn new() -> Self {
        Self::reset_state(CPU_STATIC_ENTRIES, MCAST_ENTRIES)
    }

    /// A register space whose CPU window reaches `n` static entries (the RTL parameter
    /// `CPU_STATIC_ENTRIES`, 1-4096), with the default `MCAST_ENTRIES`, in its reset state.
    pub fn with_static_entries(n: usize) -> Result<Self, RegsParamError> {
        Self::with_sizes(n, MCAST_ENTRIES)
    }

    /// A register space with `n` static entries (`CPU_STATIC_ENTRIES`, 1-4096) and `m` multicast entries
    /// (`MCAST_ENTRIES`, 1-8192), in its reset state.
    pub fn with_sizes(n: usize, m: usize) -> Result<Self, RegsParamError> {
        Self::check_sizes(n, m)?;
        Ok(Self::reset_state(n, m))
    }

    /// A register space whose CPU window reaches `n` static entries (the RTL parameter
    /// `CPU_STATIC_ENTRIES`, 1-4096), with the default `MCAST_ENTRIES`, at power-on (before the first
    /// reset, as the Verilated RTL starts).
    pub fn power_on_with(n: usize) -> Result<Self, RegsParamError> {
        Self::power_on_sized(n, MCAST_ENTRIES)
    }

    /// A register space with `n` static entries and `m` multicast entries (as [`Self::with_sizes`]) at
    /// power-on.
    pub fn power_on_sized(n: usize, m: usize) -> Result<Self, RegsParamError> {
        Self::check_sizes(n, m)?;
        Ok(Self::power_on_state(n, m))
    }

    /// Cycles left of the post-reset clearing sweep of the RAMs (0: none).
    pub fn sweep_remaining(&self) -> usize {
        self.sweep.map_or(0, |j| self.sweep_len() - j)
    }

    /// Length of the clearing sweep: one entry of each RAM a cycle, the longer table's entries.
    fn sweep_len(&self) -> usize {
        self.static_entries().max(self.mcast_entries())
    }

    /// `MCAST_ENTRIES`.
    pub fn mcast_entries(&self) -> usize {
        self.mcast.len()
    }

    /// The multicast entry of `tree` (docs/blocks/register_space.md §Multicast entries), `None` past the table.
    pub fn mcast_entry(&self, tree: u16) -> Option<McastEntry> {
        let t = usize::from(tree);
        (t < self.mcast.len()).then(|| self.mcast.get(t))
    }

    /// `n` idle cycles of the clearing sweep in closed form (what `n` steps with no access do to it; the
    /// rest of an idle register space does not change: `PacketEngine::advance_idle` checks that).
    pub fn advance_sweep(&mut self, n: u64) {
        if let Some(j) = self.sweep {
            let left = (self.sweep_len() - j) as u64;
            self.sweep = (n < left).then(|| j + n as usize);
        }
    }

    fn check_sizes(n: usize, m: usize) -> Result<(), RegsParamError> {
        if !(1..=MAX_CPU_STATIC_ENTRIES).contains(&n) {
            return Err(RegsParamError::CpuStaticEntries(n));
        }
        if !(1..=MAX_MCAST_ENTRIES).contains(&m) {
            return Err(RegsParamError::McastEntries(m));
        }
        Ok(())
    }

    /// `CPU_STATIC_ENTRIES`.
    pub fn static_entries(&self) -> usize {
        self.static_key.len()
    }

    /// Cycles after a reset before the first access can be taken: the longer of the post-reset copy
    /// to the CPU and the clearing sweep of the RAMs (docs/blocks/register_space.md §Timing).
    pub fn reset_cycles(&self) -> usize {
        self.sweep_len().max(usize::from(SYNC_WRITES))
    }

    fn reset_state(cpu_static: usize, mcast: usize) -> Self {
        Self::reset_with(
            vec![CpuStaticKey::new(); cpu_static],
            vec![0; cpu_static],
            McastTable::new(mcast),
            OutOfLine::new(Tables::RESET),
        )
    }

    /// The reset state in the storage of `static_key`, `static_wait`, `mcast` (taken as they are: the
    /// caller clears them) and `t` (reset here), so that a reset allocates nothing.
    fn reset_with(static_key: Vec<CpuStaticKey>, static_wait: Vec<u32>, mcast: McastTable, t: OutOfLine<Tables>) -> Self {
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
            t: t.refill(Tables::RESET),
            counters: [0; INTERNAL_COUNTERS + STAT_EVENTS],
            engine_sfa: 0,
            retry_limit: reset::RETRY_LIMIT,
            static_key,
            static_wait,
            static_next: 0,
            static_load: false,
            mcast,
            mcast_next: 0,
            mcast_load: false,
            sweep: Some(0),
            cpu_pending: None,
            sync: Some(0),
            out: RegisterSpaceOut::default(),
        }
    }

    /// The state before the first reset: every register 0, as the Verilated RTL starts
    /// (`--x-initial fast`); the co-simulation starts the model here so that cycle 0 compares equal.
    pub fn power_on() -> Self {
        Self::power_on_state(CPU_STATIC_ENTRIES, MCAST_ENTRIES)
    }

    fn power_on_state(cpu_static: usize, mcast: usize) -> Self {
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
            sweep: None,
            ..Self::reset_state(cpu_static, mcast)
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
        let f = self.t.pbv_flags[i / 2];
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
    fn cpu_forward(&self, reg: Reg, be: u8, src: u16) -> [Option<(u16, u32)>; 2] {
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
            Reg::StaticKey => one(cpu_addr::STATIC + 2 * self.index_of(src) as u16, self.read_as(Reg::StaticKey, src)),
            Reg::StaticWait => one(cpu_addr::STATIC + 2 * self.index_of(src) as u16 + 1, self.read_as(Reg::StaticWait, src)),
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
    /// strap, FAILURE the CPU's status inputs, the static window the requester's own index).
    pub fn read_at(&self, reg: Reg, i: &RegisterSpaceIn) -> u32 {
        match reg {
            Reg::Failure => failure_word(i.cpu_fail_valid, i.cpu_fail_family, i.cpu_fail_ctx, i.cpu_fail_count),
            Reg::StaticIndex | Reg::StaticKey | Reg::StaticWait => self.read_as(reg, i.s_reg_src),
            Reg::McastIndex | Reg::McastKey | Reg::McastWait | Reg::McastPorts => self.read_as(reg, i.s_reg_src),
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
            Reg::Route(i, 0) => self.t.route_key[i].into(),
            Reg::Route(i, _) => self.t.route_action[i].into(),
            Reg::Counter(i) => self.counters[i],
            Reg::EngineId | Reg::Failure => 0,
            Reg::EngineSfa => self.engine_sfa,
            Reg::RetryLimit => self.retry_limit,
            Reg::PbvFlags(k) => self.t.pbv_flags[k].into(),
            // The static window as requester 0 sees it (see `read_as`).
            Reg::StaticIndex | Reg::StaticKey | Reg::StaticWait => self.read_as(reg, 0),
            Reg::McastIndex | Reg::McastKey | Reg::McastWait | Reg::McastPorts => self.read_as(reg, 0),
        }
    }

    /// What a read of `reg` by requester `src` returns (the static window is per requester).
    pub fn read_as(&self, reg: Reg, src: u16) -> u32 {
        match reg {
            Reg::StaticIndex => self.index_of(src),
            Reg::StaticKey => self.static_entry(src).map_or(0, |s| self.static_key[s].into()),
            Reg::StaticWait => self.static_entry(src).map_or(0, |s| self.static_wait[s]),
            Reg::McastIndex => self.mcast_index_of(src),
            Reg::McastKey => self.mcast_slot_entry(src).map_or(0, |t| McastKey::new().with_valid(self.mcast.get(t).valid).with_tree(t as u16).into()),
            Reg::McastWait => self.mcast_slot_entry(src).map_or(0, |t| McastWait::new().with_wait_count(self.mcast.get(t).wait).into()),
            Reg::McastPorts => self.mcast_slot_entry(src).map_or(0, |t| McastPorts::new().with_ports(self.mcast.get(t).ports).into()),
            _ => self.read(reg),
        }
    }

    /// Requester `src`'s slot of MCAST_INDEX, if it has one.
    fn mcast_slot_of(&self, src: u16) -> Option<usize> {
        self.t.mcast_index.iter().position(|x| x.is_some_and(|(r, _)| r == src))
    }

    /// Requester `src`'s MCAST_INDEX (0 without a slot).
    fn mcast_index_of(&self, src: u16) -> u32 {
        self.mcast_slot_of(src).and_then(|j| self.t.mcast_index[j]).map_or(0, |(_, t)| t)
    }

    /// The multicast entry requester `src`'s MCAST_INDEX names, if it has one and the table has that
    /// entry (else MCAST_KEY / MCAST_WAIT / MCAST_PORTS are unmapped for it).
    fn mcast_slot_entry(&self, src: u16) -> Option<usize> {
        let t = self.mcast_slot_of(src).and_then(|j| self.t.mcast_index[j])?.1 as usize;
        (t < self.mcast_entries()).then_some(t)
    }

    /// Requester `src`'s slot of STATIC_INDEX, if it has one.
    fn slot_of(&self, src: u16) -> Option<usize> {
        self.t.static_index.iter().position(|x| x.is_some_and(|(r, _)| r == src))
    }

    /// Requester `src`'s STATIC_INDEX (0 without a slot).
    fn index_of(&self, src: u16) -> u32 {
        self.slot_of(src).and_then(|j| self.t.static_index[j]).map_or(0, |(_, s)| s)
    }

    /// The static entry requester `src`'s STATIC_INDEX names, if it has one and the table has that entry
    /// (else STATIC_KEY / STATIC_WAIT are unmapped for it).
    fn static_entry(&self, src: u16) -> Option<usize> {
        let s = self.slot_of(src).and_then(|j| self.t.static_index[j])?.1 as usize;
        (s < self.static_entries()).then_some(s)
    }

    /// The word the CPU holds for its static entry `s` (word 0, word 1) as written through this window.
    pub fn static_words(&self, s: usize) -> (u32, u32) {
        (self.static_key[s].into(), self.static_wait[s])
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
    /// `stat_event` is the cycle's event input: a counter cleared by the write takes its event bit.
    fn write(&mut self, reg: Reg, data: u32, m: u32, stat_event: u32, src: u16) -> bool {
        let merge = |old: u32, field: u32| (old & !(m & field)) | (data & m & field);
        match reg {
            Reg::Pbv(k) => self.pbv[k] = merge(self.pbv[k], u32::MAX),
            Reg::Id | Reg::EngineId | Reg::Failure => return false,
            Reg::EngineSfa => self.engine_sfa = merge(self.engine_sfa, u32::MAX),
            Reg::RetryLimit => self.retry_limit = merge(self.retry_limit, 0xF),
            Reg::PbvFlags(k) => self.t.pbv_flags[k] = PbvFlags::from(merge(self.t.pbv_flags[k].into(), 0x0003_0003)),
            // An index write loads the entry from the RAM: the next cycle takes no access.
            // (Any byte enabled) the requester's slot, or the round robin's next one, takes the index.
            Reg::StaticIndex => {
                if m != 0 {
                    let index = merge(self.index_of(src), STATIC_INDEX_MASK);
                    let j = self.slot_of(src).unwrap_or_else(|| {
                        let j = self.static_next;
                        self.static_next = (j + 1) % STATIC_INDEX_SLOTS;
                        j
                    });
                    self.t.static_index[j] = Some((src, index));
                    self.static_load = true;
                }
            }
            Reg::StaticKey | Reg::StaticWait => {
                let Some(s) = self.static_entry(src) else { return false };
                if reg == Reg::StaticKey {
                    self.static_key[s] = CpuStaticKey::from(merge(self.static_key[s].into(), CPU_STATIC_KEY_MASK));
                } else {
                    self.static_wait[s] = merge(self.static_wait[s], CPU_STATIC_WORD1_MASK);
                }
            }
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
            Reg::Route(i, 0) => self.t.route_key[i] = RouteKey::from(merge(self.t.route_key[i].into(), u32::MAX)),
            Reg::Route(i, _) => {
                self.t.route_action[i] = RouteAction::from(merge(self.t.route_action[i].into(), 0x8000_00FF));
                if m != 0 {
                    let (k, a) = (self.t.route_key[i], self.t.route_action[i]);
                    self.out.cfg_route_wr_en = true;
                    self.out.cfg_route_wr_index = i as u8;
                    self.out.cfg_route_wr_valid = a.valid();
                    self.out.cfg_route_wr_dest_id = k.dest_id();
                    self.out.cfg_route_wr_dest_mask = k.dest_mask();
                    self.out.cfg_route_wr_port = a.port() & PORT_MASK;
                }
            }
            // As STATIC_INDEX, with the multicast slots.
            Reg::McastIndex => {
                if m != 0 {
                    let index = merge(self.mcast_index_of(src), MCAST_INDEX_MASK);
                    let j = self.mcast_slot_of(src).unwrap_or_else(|| {
                        let j = self.mcast_next;
                        self.mcast_next = (j + 1) % MCAST_INDEX_SLOTS;
                        j
                    });
                    self.t.mcast_index[j] = Some((src, index));
                    self.mcast_load = true;
                }
            }
            Reg::McastKey | Reg::McastWait | Reg::McastPorts => {
                let Some(t) = self.mcast_slot_entry(src) else { return false };
                let mut e = self.mcast.get(t);
                match reg {
                    Reg::McastWait => e.wait = merge(e.wait, MASK20),
                    Reg::McastPorts => e.ports = merge(u32::from(e.ports), MASK16) as u16,
                    // The tree bits are the index: only valid is written.
                    _ => e.valid = merge(u32::from(e.valid) << 31, MCAST_VALID) != 0,
                }
                self.mcast.set(t, e);
                // Writing MCAST_KEY (any byte enabled) commits the entry to the interposer, whose table is
                // indexed by the tree too (docs/blocks/interposer.md §Multicast table).
                if reg == Reg::McastKey && m != 0 {
                    self.out.cfg_mcast_wr_en = true;
                    self.out.cfg_mcast_wr_valid = e.valid;
                    self.out.cfg_mcast_wr_tree = t as u16;
                    self.out.cfg_mcast_wr_wait_count = e.wait;
                    self.out.cfg_mcast_wr_ports = e.ports;
                }
            }
            // Writing a counter clears it; an event in the same cycle is still counted.
            Reg::Counter(i) => {
                if m != 0 {
                    // The internal counters' increments are rejected and unmapped accesses, never an OK
                    // write's cycle.
                    self.counters[i] = i.checked_sub(INTERNAL_COUNTERS).map_or(0, |k| stat_event >> k & 1);
                    return true;
                }
            }
        }
        true
    }
}

/// The bits of `stat_event` that have a counter (bit k counts into counter 2 + k).
const STAT_EVENT_MASK: u32 = if STAT_EVENTS >= 32 { u32::MAX } else { (1 << STAT_EVENTS) - 1 };
const _: () = assert!(STAT_EVENTS <= 32, "stat_event is a u32");

/// Egress port bits kept (the output queue's default PORT_WIDTH = 4).
pub const PORT_MASK: u8 = 0xF;

impl Block for RegisterSpace {
    type In = RegisterSpaceIn;
    type Out = RegisterSpaceOut;

    // Inlined into the top's step, as the other blocks' steps are (store-forwarding stalls on its input
    // struct, issue 23).
    #[inline(always)]
    fn step(&mut self, i: &RegisterSpaceIn) -> RegisterSpaceOut {
        let s_reg_ready = (!self.out.m_reg_rsp_valid || i.m_reg_rsp_ready)
            && self.sync.is_none()
            && self.cpu_pending.is_none()
            && !self.static_load
            && !self.mcast_load
            && self.sweep.is_none();
        let mut out = self.cfg_outputs();
        out.s_reg_ready = s_reg_ready;
        out.pbv_rd_dev_id = self.pbv(usize::from(i.pbv_rd_index) % PBV_ENTRIES);

        // Rising edge. Counters: only those with an increment are visited (a cycle without an event or
        // a failed access visits none; adding 0 to all 34 every cycle was most of this step, issue 23).
        let stat_event = i.stat_event & STAT_EVENT_MASK;
        // Increment of the internal counters (0 rejected writes, 1 unmapped accesses).
        let mut internal = [0u32; INTERNAL_COUNTERS];
        self.out.m_reg_rsp_valid &= !i.m_reg_rsp_ready;
        self.out.cfg_route_wr_en = false;
        self.out.cfg_mcast_wr_en = false;
        self.out.cpu_cfg_wr_en = false;
        let mut cpu_write = None;
        // The load of an index write ends; the sweep clears one entry a cycle (the model cleared the
        // whole RAM copy at the reset: nothing reads it before the sweep ends).
        self.static_load = false;
        self.mcast_load = false;
        if let Some(j) = self.sweep {
            self.sweep = (j + 1 < self.sweep_len()).then_some(j + 1);
        }
        if let Some(k) = self.sync {
            cpu_write = Some((cpu_addr::TIMEOUT + k, self.sync_word(k, i.cfg_engine_id)));
            self.sync = (k + 1 < SYNC_WRITES).then_some(k + 1);
        } else if let Some(w) = self.cpu_pending.take() {
            cpu_write = Some(w);
        }
        let mut cleared = None;
        if i.s_reg_valid && s_reg_ready {
            // STATIC_KEY / STATIC_WAIT are mapped while STATIC_INDEX names an entry of the table, the
            // multicast entry's registers while MCAST_INDEX does.
            let reg = decode(i.s_reg_addr).filter(|&r| match r {
                Reg::StaticKey | Reg::StaticWait => self.static_entry(i.s_reg_src).is_some(),
                Reg::McastKey | Reg::McastWait | Reg::McastPorts => self.mcast_slot_entry(i.s_reg_src).is_some(),
                _ => true,
            });
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
                status::REJECTED => internal[0] += 1,
                status::UNMAPPED => internal[1] += 1,
                _ => {}
            }
            if st == status::OK && i.s_reg_write {
                let r = reg.expect("OK writes are mapped");
                self.write(r, i.s_reg_wdata, be_mask(i.s_reg_be), stat_event, i.s_reg_src);
                let [first, second] = self.cpu_forward(r, i.s_reg_be, i.s_reg_src);
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
        for (k, &n) in internal.iter().enumerate() {
            if n != 0 && cleared != Some(k) {
                self.counters[k] = self.counters[k].wrapping_add(n);
            }
        }
        let mut bits = stat_event;
        while bits != 0 {
            let k = INTERNAL_COUNTERS + bits.trailing_zeros() as usize;
            if cleared != Some(k) {
                self.counters[k] = self.counters[k].wrapping_add(1);
            }
            bits &= bits - 1;
        }
        if i.rst {
            let n = self.static_entries();
            // The RAM copies are reused (their clearing is the sweep's), not reallocated: a reset of a
            // 4096-entry table costs no allocation.
            let (mut key, mut wait) = (std::mem::take(&mut self.static_key), std::mem::take(&mut self.static_wait));
            let mut mcast = std::mem::take(&mut self.mcast);
            key.fill(CpuStaticKey::new());
            wait.fill(0);
            mcast.clear();
            *self = Self::reset_with(key, wait, mcast, self.t.take());
            debug_assert_eq!(self.static_entries(), n);
        }
        out
    }
}

#[cfg(test)]
mod tests;
