//! Co-simulation of the register space: stimulus, independent scoreboard, target.
//!
//! Stimulus (seeded, in phases): one access almost every cycle or sparse, reads and writes to every
//! register of the map (docs/blocks/register_space.md) and to unmapped offsets, random byte enables, requester IDs
//! that are mostly the master and sometimes not, the lock bit and MASTER_ID rewritten during traffic,
//! route and multicast entries committed, counters cleared; `stat_event` pulses from sparse to every bit
//! every cycle; backpressure on the response; random PBV read indices; resets in the middle of traffic.
//!
//! Scoreboard (independent of the cycle model: a table of documented register fields, not the model's
//! decoder): every accepted access gets exactly one response, in order, with the documented status;
//! reads return the last authorized write merged under its byte enables and cut to the register's
//! field (ENGINE_ID the strap, FAILURE the CPU's status inputs packed as docs/blocks/register_space.md says); every
//! `cfg_*` port equals its register; every committing write gives exactly one table-write
//! pulse with the entry's values; each counter equals the events since its last clear; the PBV read port
//! returns the table entry. CPU bridge: after every reset the ten documented copies (TIMEOUT0..MODE with
//! the ENGINE_ID strap), then one CPU write per authorized write to a forwarded register (two for a PBV
//! / PBV_FLAGS DW with both entries' bytes enabled), in order, within two cycles, with the CPU word
//! built from the documented fields (docs/blocks/cpu.md §Ports); and every 4096 cycles the image those writes built
//! in a shadow of the CPU's registers equals the register table. The CPU window's static entries are
//! reached through STATIC_INDEX, one per requester (four slots, a fifth requester takes the oldest,
//! round robin): the scoreboard keeps the requesters' indexes and its own table of the entries, so a
//! STATIC_KEY / STATIC_WAIT access is mapped, read and forwarded as the entry the requester's index names
//! (unmapped when it names none); entries read 0 after a reset. The multicast entries likewise, through
//! MCAST_INDEX (its own slots): MCAST_KEY / MCAST_WAIT / MCAST_PORTS of the requester's tree, and every
//! MCAST_KEY write one multicast-table pulse naming that tree with the entry's values.

use std::collections::{BTreeMap, VecDeque};

use inswitch_model::register_space::{self, status, RegisterSpace, RegisterSpaceIn, RegisterSpaceOut};
use rand::RngExt;

use crate::checker::{self, Bench, Monitor, Outcome, RunConfig, RunError, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, Gaps, Phases, Resets, StimRng};
use crate::verilated::VerilatedDut;
use crate::HarnessError;

/// The Verilated register space.
pub type RegisterSpaceRtl = VerilatedDut<RegisterSpaceIn, RegisterSpaceOut>;


/// One documented register: byte offset, writable bits, reset value.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The bits a write changes.
    pub mask: u32,
    /// The value after reset.
    pub reset: u32,
}

/// The documented register map (docs/blocks/register_space.md): offset -> field. Written out from the document,
/// not from the model's decoder.
pub fn register_table() -> BTreeMap<u32, Field> {
    let mut t = BTreeMap::new();
    let f = |mask, reset| Field { mask, reset };
    for k in 0..64 {
        t.insert(4 * k, f(u32::MAX, 0));
    }
    t.insert(0x100, f(0, register_space::ID_VALUE));
    t.insert(0x104, f(0x1, 0));
    t.insert(0x108, f(0xFFFF, 0));
    t.insert(0x10C, f(0xFFFF, 0x88B5));
    t.insert(0x110, f(0xFFFF, 0xC011));
    t.insert(0x114, f(0xF, 0xF));
    t.insert(0x118, f(0xFF, 0));
    t.insert(0x11C, f(0x1, 0));
    t.insert(0x120, f(0xFF_FFFF, 0x400));
    t.insert(0x124, f(0xFF_FFFF, 0xC00));
    for (k, v) in [1, 0x10, 0x100, 0x1000].into_iter().enumerate() {
        t.insert(0x130 + 4 * k as u32, f(0xFF_FFFF, v));
    }
    for (k, v) in [4, 64, 1024].into_iter().enumerate() {
        t.insert(0x140 + 4 * k as u32, f(0xF_FFFF, v));
    }
    for k in 0..4 {
        t.insert(0x150 + 4 * k, f(0x8000_FFFF, 0));
    }
    // CPU window (docs/blocks/register_space.md §CPU window). ENGINE_ID reads the strap (handled by the monitor).
    t.insert(0x160, f(0, 0));
    t.insert(0x164, f(u32::MAX, 0));
    t.insert(0x168, f(0xF, 3));
    // FAILURE reads the CPU's status inputs (handled by the monitor), read-only.
    t.insert(0x16C, f(0, 0));
    for k in 0..64 {
        t.insert(0x500 + 4 * k, f(0x0003_0003, 0));
    }
    // STATIC_INDEX; STATIC_KEY and STATIC_WAIT are entry STATIC_INDEX's (the monitor's `statics`).
    t.insert(STATIC_INDEX, f(0xFFF, 0));
    // MCAST_INDEX; MCAST_KEY, MCAST_WAIT and MCAST_PORTS are tree MCAST_INDEX's (the monitor's `mcasts`).
    t.insert(MCAST_INDEX, f(0x1FFF, 0));
    for k in 0..16 {
        t.insert(0x200 + 8 * k, f(u32::MAX, 0));
        t.insert(0x204 + 8 * k, f(0x8000_00FF, 0));
    }
    t
}

/// Counters at 0x400 + 4i.
const COUNTERS: u32 = 34;
/// CPU static entries the window reaches: the Verilated model's `CPU_STATIC_ENTRIES` (verif/model_table.rs;
/// the RTL default is 4096, small here so that resets' clearing sweeps are short and the stimulus meets
/// entries it wrote).
pub const CPU_STATIC: usize = 16;
/// STATIC_INDEX, STATIC_KEY, STATIC_WAIT (docs/blocks/register_space.md §Map).
const STATIC_INDEX: u32 = 0x600;
const STATIC_KEY: u32 = 0x604;
const STATIC_WAIT: u32 = 0x608;
/// Requesters holding a STATIC_INDEX at once (docs/blocks/register_space.md §Static entries).
const STATIC_INDEX_SLOTS: usize = 32;
/// MCAST_INDEX, MCAST_KEY, MCAST_WAIT, MCAST_PORTS (docs/blocks/register_space.md §Map).
const MCAST_INDEX: u32 = 0x300;
const MCAST_KEY: u32 = 0x304;
const MCAST_WAIT: u32 = 0x308;
const MCAST_PORTS: u32 = 0x30C;
/// Requesters holding an MCAST_INDEX at once (docs/blocks/register_space.md §Multicast entries).
const MCAST_INDEX_SLOTS: usize = 32;
/// The bits a write changes: MCAST_KEY's valid (its tree bits read the index), MCAST_WAIT, MCAST_PORTS.
const MCAST_KEY_FIELD: u32 = 0x8000_0000;
const MCAST_WAIT_FIELD: u32 = 0xF_FFFF;
const MCAST_PORTS_FIELD: u32 = 0xFFFF;
/// Multicast entries of the RTL's default (the seed's 8192 trees, 002 (60)): a model without the
/// parameter has them.
const MCAST_DEFAULT: usize = 8192;
/// The bits STATIC_KEY and STATIC_WAIT keep (docs/blocks/register_space.md §Map).
const STATIC_KEY_FIELD: u32 = 0x8031_1FFF;
const STATIC_WAIT_FIELD: u32 = 0x800F_FFFF;
/// Most cycles a forwarded CPU write may wait (its own cycle, then a pending second entry).
const CPU_WRITE_DEADLINE: u64 = 2;
/// Cycles between two full comparisons of the CPU image with the register table.
const IMAGE_CHECK_PERIOD: u64 = 4096;

/// The seeded stimulus of the register space.
pub struct RegisterSpaceStimulus {
    r: StimRng,
    phases: Phases,
    last: RegisterSpaceIn,
    idle: Gaps,
    stall: Gaps,
    resets: Resets,
    offsets: Vec<u32>,
    /// Requester IDs in use; index 0 is usually the master.
    sources: [u16; 4],
    event_density: f64,
    /// ENGINE_ID strap, changed only while in reset.
    engine_id: u16,
    /// The CPU's FAILURE status inputs: (valid, family, context, count).
    fail: (bool, bool, u16, u8),
    /// The Verilated model's `MCAST_ENTRIES` (the trees MCAST_INDEX is drawn from).
    mcast_entries: u32,
}

impl RegisterSpaceStimulus {
    /// A stimulus for `seed`, for a register space of `MCAST_ENTRIES` = `mcast_entries`.
    pub fn new(seed: u64, mcast_entries: usize) -> Self {
        let mut r = stimulus::rng(seed, 0);
        let phases = Phases::new(&mut r);
        let mut offsets: Vec<u32> = register_table().keys().copied().collect();
        offsets.extend((0..COUNTERS).map(|k| 0x400 + 4 * k));
        RegisterSpaceStimulus {
            r,
            phases,
            last: RegisterSpaceIn::default(),
            idle: Gaps::default(),
            stall: Gaps::default(),
            resets: Resets::new(),
            offsets,
            sources: [0x0001, 0x0000, 0x0010, 0x0020],
            event_density: 0.01,
            engine_id: 0x0720,
            fail: (false, false, 0, 0),
            mcast_entries: mcast_entries as u32,
        }
    }

    /// An MCAST_INDEX value: mostly a tree at either end of the table (so that entries are written
    /// again and read back), sometimes just past it, sometimes anything (bits above 12 are ignored).
    fn tree(&mut self) -> u32 {
        let (r, m) = (&mut self.r, self.mcast_entries);
        match r.random_range(0..10) {
            0..=3 => r.random_range(0..m.min(17)),
            4..=7 => m - 1 - r.random_range(0..m.min(3)),
            8 => m,
            _ => r.random(),
        }
    }

    fn access(&mut self) -> RegisterSpaceIn {
        let r = &mut self.r;
        let addr: u32 = match r.random_range(0..20) {
            0 => r.random_range(0..0x1000),                         // anywhere, often unmapped
            1 => 0x104,                                             // CTRL: lock / unlock
            2 => 0x108,                                             // MASTER_ID
            3 => 0x400 + 4 * r.random_range(0..COUNTERS + 2),       // counters (and two past them)
            6 | 7 => 0x500 + 4 * r.random_range(0..64) - if r.random_bool(0.5) { 0x500 } else { 0 }, // PBV / flags
            8 | 11 => [STATIC_INDEX, STATIC_KEY, STATIC_WAIT, STATIC_WAIT + 4][r.random_range(0..4)], // static window (and one past)
            9 => 0x11C + 0x4C * r.random_range(0..2),               // RED_CFG_MODE / RETRY_LIMIT
            10 => 0x16C,                                            // FAILURE (read-only)
            4 => 0x204 + 8 * r.random_range(0..16),                 // route commits
            5 | 12 | 13 => [MCAST_INDEX, MCAST_KEY, MCAST_WAIT, MCAST_PORTS, MCAST_PORTS + 4][r.random_range(0..5)], // multicast window (and one past)
            _ => self.offsets[r.random_range(0..self.offsets.len())],
        };
        let write = r.random_bool(0.6);
        let be = match r.random_range(0..6) {
            0 => r.random_range(0..16),
            1 => 0x3,
            2 => 0xC,
            _ => 0xF,
        };
        let mut wdata: u32 = r.random();
        if addr == 0x108 {
            // MASTER_ID mostly names one of the requesters, so the lock is exercised both ways.
            wdata = u32::from(self.sources[r.random_range(0..self.sources.len())]);
        } else if addr == 0x104 && r.random_bool(0.5) {
            wdata = 0;
        } else if addr == STATIC_INDEX && r.random_bool(0.9) {
            // Mostly an entry of the table (or just past it), else anything (beyond: KEY / WAIT unmapped).
            wdata = r.random_range(0..CPU_STATIC as u32 + 1) | if r.random_bool(0.2) { r.random::<u32>() & !0xFFF } else { 0 };
        } else if addr == MCAST_INDEX && r.random_bool(0.9) {
            wdata = self.tree();
        }
        let r = &mut self.r;
        let mut src = if r.random_bool(0.7) { self.sources[0] } else { self.sources[r.random_range(0..4)] };
        if ((STATIC_INDEX..=STATIC_WAIT).contains(&addr) || (MCAST_INDEX..=MCAST_PORTS).contains(&addr)) && r.random_bool(0.1) {
            // More requesters than STATIC_INDEX (MCAST_INDEX) has slots: the round robin takes the oldest slot.
            src = 0x0030 + r.random_range(0..40);
        }
        RegisterSpaceIn {
            s_reg_valid: true,
            s_reg_write: write,
            s_reg_addr: (addr as u16) | (r.random::<u16>() & 0xF000 & if r.random_bool(0.1) { 0xFFFF } else { 0 }),
            s_reg_be: be,
            s_reg_wdata: wdata,
            s_reg_src: src,
            s_reg_tag: r.random::<u16>() & 0x3FF,
            ..Default::default()
        }
    }
}

impl Stimulus<RegisterSpaceIn, RegisterSpaceOut> for RegisterSpaceStimulus {
    fn next(&mut self, previous: &RegisterSpaceOut) -> RegisterSpaceIn {
        let taken = self.last.s_reg_valid && previous.s_reg_ready;
        if self.phases.tick(&mut self.r) {
            self.event_density = [0.0, 0.001, 0.05, 0.5, 1.0][self.r.random_range(0..5)];
            if self.r.random_bool(0.3) {
                self.sources.swap(0, self.r.random_range(1..4));
            }
        }
        let prof = self.phases.profile;
        let stall = self.stall.gap(&mut self.r, prof.stall, prof.persist);
        let mut i = if self.last.s_reg_valid && !taken {
            self.last
        } else if self.idle.gap(&mut self.r, prof.idle, prof.persist) {
            RegisterSpaceIn::default()
        } else {
            self.access()
        };
        i.m_reg_rsp_ready = !stall;
        i.pbv_rd_index = self.r.random_range(0..128);
        i.stat_event = 0;
        for k in 0..32 {
            if self.event_density > 0.0 && self.r.random_bool(self.event_density) {
                i.stat_event |= 1 << k;
            }
        }
        i.rst = false;
        if self.resets.tick(&mut self.r) {
            i.rst = true;
            i.s_reg_valid = false;
            if self.r.random_bool(0.5) {
                self.engine_id = self.r.random();
            }
        }
        i.cfg_engine_id = self.engine_id;
        // The CPU's FAILURE status: held for a while, then a new failure (as the CPU's register moves).
        if self.r.random_bool(0.01) {
            self.fail = (self.r.random_bool(0.9), self.r.random(), self.r.random(), self.r.random());
        }
        (i.cpu_fail_valid, i.cpu_fail_family, i.cpu_fail_ctx, i.cpu_fail_count) = self.fail;
        self.last = i;
        i
    }
}

/// Counters of [`RegisterSpaceMonitor`], by name.
pub mod counter {
    /// Accesses accepted.
    pub const ACCESSES: &str = "accesses";
    /// Authorized writes done.
    pub const WRITES_OK: &str = "writes_ok";
    /// Writes rejected (locked, not the master).
    pub const REJECTED: &str = "writes_rejected";
    /// Unmapped or read-only accesses.
    pub const UNMAPPED: &str = "unmapped";
    /// Reads.
    pub const READS: &str = "reads";
    /// Route-table commits.
    pub const ROUTE_COMMITS: &str = "route_commits";
    /// Multicast-table commits.
    pub const MCAST_COMMITS: &str = "mcast_commits";
    /// Counter clears.
    pub const COUNTER_CLEARS: &str = "counter_clears";
    /// Cycles a response was stalled.
    pub const STALLED: &str = "response_stalled_cycles";
    /// Resets.
    pub const RESETS: &str = "resets";
    /// Cycles with the lock set.
    pub const LOCKED_CYCLES: &str = "locked_cycles";
    /// CPU configuration writes checked.
    pub const CPU_WRITES: &str = "cpu_writes";
    /// CPU writes of a PBV entry (device ID or flags).
    pub const CPU_PBV_WRITES: &str = "cpu_pbv_writes";
    /// Accesses that gave two CPU writes (both PBV entries of a DW).
    pub const CPU_DOUBLE_WRITES: &str = "cpu_double_writes";
    /// CPU writes of a static entry.
    pub const CPU_STATIC_WRITES: &str = "cpu_static_writes";
    /// Full comparisons of the CPU image with the register table.
    pub const CPU_IMAGE_CHECKS: &str = "cpu_image_checks";
    /// Reads of FAILURE while the CPU's status shows a failure (valid set).
    pub const FAILURE_READS: &str = "failure_reads";
    /// Writes of STATIC_INDEX (each loads an entry from the RAM).
    pub const STATIC_INDEX_WRITES: &str = "static_index_writes";
    /// STATIC_KEY / STATIC_WAIT reads of an entry that holds a nonzero word.
    pub const STATIC_READS_NONZERO: &str = "static_reads_nonzero";
    /// STATIC_KEY / STATIC_WAIT accesses while STATIC_INDEX names no entry (unmapped).
    pub const STATIC_BEYOND: &str = "static_beyond_table";
    /// Writes of MCAST_INDEX (each loads an entry from the RAM).
    pub const MCAST_INDEX_WRITES: &str = "mcast_index_writes";
    /// MCAST_KEY / MCAST_WAIT / MCAST_PORTS reads of an entry that was written (valid, wait or ports
    /// nonzero).
    pub const MCAST_READS_WRITTEN: &str = "mcast_reads_written";
    /// MCAST_KEY / MCAST_WAIT / MCAST_PORTS accesses while MCAST_INDEX names no entry (unmapped).
    pub const MCAST_BEYOND: &str = "mcast_beyond_table";
    /// Commits of a tree at or above 16 (beyond the old 16-slot window).
    pub const MCAST_COMMITS_HIGH: &str = "mcast_commits_high_tree";
}

const COUNTER_NAMES: [&str; 24] = [
    counter::CPU_WRITES,
    counter::CPU_PBV_WRITES,
    counter::CPU_DOUBLE_WRITES,
    counter::CPU_STATIC_WRITES,
    counter::CPU_IMAGE_CHECKS,
    counter::ACCESSES,
    counter::WRITES_OK,
    counter::REJECTED,
    counter::UNMAPPED,
    counter::READS,
    counter::ROUTE_COMMITS,
    counter::MCAST_COMMITS,
    counter::COUNTER_CLEARS,
    counter::STALLED,
    counter::RESETS,
    counter::LOCKED_CYCLES,
    counter::FAILURE_READS,
    counter::STATIC_INDEX_WRITES,
    counter::STATIC_READS_NONZERO,
    counter::STATIC_BEYOND,
    counter::MCAST_INDEX_WRITES,
    counter::MCAST_READS_WRITTEN,
    counter::MCAST_BEYOND,
    counter::MCAST_COMMITS_HIGH,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Response {
    write: bool,
    status: u8,
    rdata: u32,
    src: u16,
    tag: u16,
    addr: u16,
    be: u8,
}

/// Independent transaction-level scoreboard of the register space.
pub struct RegisterSpaceMonitor {
    table: BTreeMap<u32, Field>,
    values: BTreeMap<u32, u32>,
    counters: [u32; COUNTERS as usize],
    expected: VecDeque<Response>,
    /// The response currently shown was already compared.
    shown: bool,
    route_pulse: Option<(u8, bool, u16, u16, u8)>,
    mcast_pulse: Option<(bool, u16, u32, u16)>,
    armed: bool,
    log: TransactionLog,
    counts: [u64; 24],
    /// The static entries as written through the window: entry -> (word 0, word 1); absent = 0.
    statics: BTreeMap<u32, (u32, u32)>,
    /// STATIC_INDEX per requester: (requester, index) slots and the slot a new requester takes.
    index_slots: [Option<(u16, u32)>; STATIC_INDEX_SLOTS],
    next_slot: usize,
    /// The multicast entries as written through the window: tree -> (valid, wait, ports); absent = 0.
    mcasts: BTreeMap<u32, (bool, u32, u32)>,
    /// MCAST_INDEX per requester, as `index_slots`.
    mcast_slots: [Option<(u16, u32)>; MCAST_INDEX_SLOTS],
    next_mcast_slot: usize,
    /// `MCAST_ENTRIES`.
    mcast_entries: usize,
    /// CPU writes due: (address, data, cycle it was due from).
    cpu_expected: VecDeque<(u16, u32, u64)>,
    /// The CPU registers as the observed writes left them (word address -> value).
    cpu_image: BTreeMap<u16, u32>,
    engine_id: u16,
}

impl Default for RegisterSpaceMonitor {
    fn default() -> Self {
        Self::new()
    }
}

impl RegisterSpaceMonitor {
    /// A scoreboard in the reset state, for the default `MCAST_ENTRIES`.
    pub fn new() -> Self {
        Self::with_mcast(MCAST_DEFAULT)
    }

    /// A scoreboard in the reset state for a register space of `mcast_entries` multicast entries.
    pub fn with_mcast(mcast_entries: usize) -> Self {
        let table = register_table();
        let values = table.iter().map(|(&k, f)| (k, f.reset)).collect();
        RegisterSpaceMonitor {
            table,
            values,
            counters: [0; COUNTERS as usize],
            expected: VecDeque::new(),
            shown: false,
            route_pulse: None,
            mcast_pulse: None,
            armed: false,
            log: TransactionLog::default(),
            counts: [0; 24],
            statics: BTreeMap::new(),
            index_slots: [None; STATIC_INDEX_SLOTS],
            next_slot: 0,
            mcasts: BTreeMap::new(),
            mcast_slots: [None; MCAST_INDEX_SLOTS],
            next_mcast_slot: 0,
            mcast_entries,
            cpu_expected: VecDeque::new(),
            cpu_image: BTreeMap::new(),
            engine_id: 0,
        }
    }

    /// The CPU word the documented registers give for CPU address `a` (docs/blocks/cpu.md §Ports), or `None` for
    /// an address the bridge does not write.
    fn cpu_word(&self, a: u16) -> Option<u32> {
        let a32 = u32::from(a);
        Some(match a {
            0x000..=0x07F => {
                let dev = self.v(4 * (a32 / 2)) >> (16 * (a32 % 2)) & 0xFFFF;
                let flags = self.v(0x500 + 4 * (a32 / 2)) >> (16 * (a32 % 2));
                (flags & 1) << 31 | (flags >> 1 & 1) << 16 | dev
            }
            0x080..=0x083 => self.v(0x130 + 4 * (a32 - 0x080)),
            0x084..=0x086 => self.v(0x140 + 4 * (a32 - 0x084)),
            0x087 => u32::from(self.engine_id),
            0x088 => self.v(0x164),
            0x089 => (self.v(0x11C) & 1) | (self.v(0x168) & 0xF) << 8,
            _ if (0x100..0x100 + 2 * CPU_STATIC as u16).contains(&a) => {
                let (k, w) = self.statics.get(&((a32 - 0x100) / 2)).copied().unwrap_or_default();
                if a32 % 2 == 0 { k } else { w }
            }
            _ => return None,
        })
    }

    /// CPU addresses a write to register `off` with byte enables `be` configures, in order.
    /// Requester `src`'s STATIC_INDEX, if it holds one.
    fn index_of(&self, src: u16) -> Option<u32> {
        self.index_slots.iter().flatten().find(|(r, _)| *r == src).map(|&(_, s)| s)
    }

    fn forwarded(&self, off: u32, be: u8, src: u16) -> Vec<u16> {
        if be & 0xF == 0 {
            return vec![];
        }
        let pbv = |k: u32| {
            let mut v = vec![];
            if be & 0x3 != 0 {
                v.push((2 * k) as u16);
            }
            if be & 0xC != 0 {
                v.push((2 * k + 1) as u16);
            }
            v
        };
        match off {
            0x000..=0x0FC => pbv(off / 4),
            0x500..=0x5FC => pbv((off - 0x500) / 4),
            0x130..=0x13C => vec![(0x080 + (off - 0x130) / 4) as u16],
            0x140..=0x148 => vec![(0x084 + (off - 0x140) / 4) as u16],
            0x164 => vec![0x088],
            0x11C | 0x168 => vec![0x089],
            STATIC_KEY => vec![(0x100 + 2 * self.index_of(src).unwrap_or(0)) as u16],
            STATIC_WAIT => vec![(0x100 + 2 * self.index_of(src).unwrap_or(0) + 1) as u16],
            _ => vec![],
        }
    }

    fn check_cpu_write(&mut self, cycle: u64, o: &RegisterSpaceOut) -> Result<(), String> {
        if o.cpu_cfg_wr_en {
            let got = (o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data);
            let (a, d, _) = self.cpu_expected.pop_front().ok_or_else(|| format!("a CPU write {got:x?} that no register write asked for"))?;
            if got != (a, d) {
                return Err(format!("CPU write {got:x?}, expected {:x?}", (a, d)));
            }
            self.cpu_image.insert(a, d);
            self.bump(counter::CPU_WRITES);
            if a < 0x080 {
                self.bump(counter::CPU_PBV_WRITES);
            } else if a >= 0x100 {
                self.bump(counter::CPU_STATIC_WRITES);
            }
        }
        if let Some(&(a, _, due)) = self.cpu_expected.front() {
            if cycle > due + CPU_WRITE_DEADLINE {
                return Err(format!("the CPU write to {a:#05x} due from cycle {due} did not come"));
            }
        }
        if self.cpu_expected.is_empty() && cycle % IMAGE_CHECK_PERIOD == 0 {
            self.bump(counter::CPU_IMAGE_CHECKS);
            let addrs = (0u16..0x08A).chain(0x100..0x100 + 2 * CPU_STATIC as u16);
            for a in addrs {
                let want = self.cpu_word(a).unwrap_or(0);
                // A register never written since reset holds the CPU's reset value, which the copy
                // overwrote (TIMEOUT..MODE) or which is 0 and equal to the table's reset value.
                let have = self.cpu_image.get(&a).copied().unwrap_or(0);
                if have != want {
                    return Err(format!("CPU register {a:#05x} holds {have:#010x} after the writes, the register map says {want:#010x}"));
                }
            }
        }
        Ok(())
    }

    fn bump(&mut self, name: &'static str) {
        let i = COUNTER_NAMES.iter().position(|&n| n == name).unwrap_or(0);
        self.counts[i] += 1;
    }

    fn v(&self, off: u32) -> u32 {
        self.values.get(&off).copied().unwrap_or(0)
    }

    fn check_cfg(&self, o: &RegisterSpaceOut) -> Result<(), String> {
        let vni = (0..4).fold(0u64, |a, k| a | u64::from(self.v(0x150 + 4 * k) & 0xFFFF) << (16 * k));
        let vni_valid = (0..4).fold(0u8, |a, k| a | ((self.v(0x150 + 4 * k) >> 31) as u8) << k);
        let want: [(&str, u64, u64); 20] = [
            ("cfg_lock", u64::from(o.cfg_lock), u64::from(self.v(0x104) & 1)),
            ("cfg_master_id", o.cfg_master_id.into(), self.v(0x108).into()),
            ("cfg_ethertype", o.cfg_ethertype.into(), self.v(0x10C).into()),
            ("cfg_vendor_id", o.cfg_vendor_id.into(), self.v(0x110).into()),
            ("cfg_validation", o.cfg_validation.into(), self.v(0x114).into()),
            ("cfg_error_reporting", o.cfg_error_reporting.into(), self.v(0x118).into()),
            ("cfg_red_mode", u64::from(o.cfg_red_mode), self.v(0x11C).into()),
            ("cfg_sub_timeout", o.cfg_sub_timeout.into(), self.v(0x120).into()),
            ("cfg_master_timeout", o.cfg_master_timeout.into(), self.v(0x124).into()),
            ("cfg_red_timeout0", o.cfg_red_timeout0.into(), self.v(0x130).into()),
            ("cfg_red_timeout1", o.cfg_red_timeout1.into(), self.v(0x134).into()),
            ("cfg_red_timeout2", o.cfg_red_timeout2.into(), self.v(0x138).into()),
            ("cfg_red_timeout3", o.cfg_red_timeout3.into(), self.v(0x13C).into()),
            ("cfg_red_threshold0", o.cfg_red_threshold0.into(), self.v(0x140).into()),
            ("cfg_red_threshold1", o.cfg_red_threshold1.into(), self.v(0x144).into()),
            ("cfg_red_threshold2", o.cfg_red_threshold2.into(), self.v(0x148).into()),
            ("cfg_vni_valid", o.cfg_vni_valid.into(), vni_valid.into()),
            ("cfg_vni", o.cfg_vni, vni),
            ("cfg_route_wr_en", u64::from(o.cfg_route_wr_en), u64::from(self.route_pulse.is_some())),
            ("cfg_mcast_wr_en", u64::from(o.cfg_mcast_wr_en), u64::from(self.mcast_pulse.is_some())),
        ];
        for (name, got, exp) in want {
            if got != exp {
                return Err(format!("{name} is {got:#x}, the register holds {exp:#x}"));
            }
        }
        if let Some(p) = self.route_pulse {
            let got = (o.cfg_route_wr_index, o.cfg_route_wr_valid, o.cfg_route_wr_dest_id, o.cfg_route_wr_dest_mask, o.cfg_route_wr_port);
            if got != p {
                return Err(format!("route-table write {got:x?}, expected {p:x?}"));
            }
        }
        if let Some(p) = self.mcast_pulse {
            let got = (o.cfg_mcast_wr_valid, o.cfg_mcast_wr_tree, o.cfg_mcast_wr_wait_count, o.cfg_mcast_wr_ports);
            if got != p {
                return Err(format!("multicast-table write {got:x?}, expected {p:x?}"));
            }
        }
        Ok(())
    }
}

impl Monitor<RegisterSpaceIn, RegisterSpaceOut> for RegisterSpaceMonitor {
    fn observe(&mut self, cycle: u64, i: &RegisterSpaceIn, o: &RegisterSpaceOut) -> Result<(), String> {
        if self.armed {
            // Outputs first: they show the state left by the cycles before.
            self.check_cfg(o)?;
            let k = usize::from(i.pbv_rd_index & 0x7F);
            let pair = self.v(4 * (k as u32 / 2));
            let dev = if k % 2 == 0 { pair as u16 } else { (pair >> 16) as u16 };
            if o.pbv_rd_dev_id != dev {
                return Err(format!("PBV entry {k} reads {:#06x}, the table holds {dev:#06x}", o.pbv_rd_dev_id));
            }
            if o.m_reg_rsp_valid && !self.shown {
                let got = Response { write: o.m_reg_rsp_write, status: o.m_reg_rsp_status, rdata: o.m_reg_rsp_rdata, src: o.m_reg_rsp_src, tag: o.m_reg_rsp_tag, addr: o.m_reg_rsp_addr, be: o.m_reg_rsp_be };
                let exp = self.expected.pop_front().ok_or_else(|| format!("a response {got:x?} to no access"))?;
                if got != exp {
                    return Err(format!("response {got:x?}, expected {exp:x?}"));
                }
                self.shown = true;
            }
            if o.m_reg_rsp_valid && !i.m_reg_rsp_ready {
                self.bump(counter::STALLED);
            }
            if o.m_reg_rsp_valid && i.m_reg_rsp_ready {
                self.shown = false;
            }
            if !o.m_reg_rsp_valid && !self.expected.is_empty() {
                return Err(format!("an access got no response ({} outstanding)", self.expected.len()));
            }
            self.check_cpu_write(cycle, o)?;
            // Counter reads are checked through the responses; here the documented totals.
        }
        self.route_pulse = None;
        self.mcast_pulse = None;
        if self.v(0x104) & 1 != 0 {
            self.bump(counter::LOCKED_CYCLES);
        }

        // Inputs: this cycle's access takes effect at the edge.
        let mut inc = [0u32; COUNTERS as usize];
        for k in 0..32 {
            inc[2 + k] = i.stat_event >> k & 1;
        }
        let mut clear = None;
        if i.s_reg_valid && o.s_reg_ready && !i.rst {
            self.bump(counter::ACCESSES);
            let off = u32::from(i.s_reg_addr) & 0xFFC;
            let counter = (0x400..0x400 + 4 * COUNTERS).contains(&off).then(|| ((off - 0x400) / 4) as usize);
            // STATIC_KEY / STATIC_WAIT: entry STATIC_INDEX's word, while the index names an entry.
            let own = self.index_of(i.s_reg_src);
            let index = own.unwrap_or(0);
            let in_table = own.is_some_and(|s| (s as usize) < CPU_STATIC);
            // MCAST_KEY / MCAST_WAIT / MCAST_PORTS: tree MCAST_INDEX's, while the index names an entry.
            let mown = self.mcast_slots.iter().flatten().find(|(r, _)| *r == i.s_reg_src).map(|&(_, t)| t);
            let tree = mown.unwrap_or(0);
            let m_in_table = mown.is_some_and(|t| (t as usize) < self.mcast_entries);
            let mentry = self.mcasts.get(&tree).copied().unwrap_or_default();
            let field = match off {
                STATIC_KEY | STATIC_WAIT if in_table => Some(Field { mask: if off == STATIC_KEY { STATIC_KEY_FIELD } else { STATIC_WAIT_FIELD }, reset: 0 }),
                STATIC_KEY | STATIC_WAIT => {
                    self.bump(counter::STATIC_BEYOND);
                    None
                }
                MCAST_KEY | MCAST_WAIT | MCAST_PORTS if m_in_table => {
                    Some(Field { mask: [MCAST_KEY_FIELD, MCAST_WAIT_FIELD, MCAST_PORTS_FIELD][((off - MCAST_KEY) / 4) as usize], reset: 0 })
                }
                MCAST_KEY | MCAST_WAIT | MCAST_PORTS => {
                    self.bump(counter::MCAST_BEYOND);
                    None
                }
                _ => self.table.get(&off).copied(),
            };
            let entry = self.statics.get(&index).copied().unwrap_or_default();
            let locked = self.v(0x104) & 1 != 0;
            let authorized = !locked || u32::from(i.s_reg_src) == self.v(0x108);
            let mapped = field.is_some() || counter.is_some();
            let mut resp = Response {
                write: i.s_reg_write,
                status: status::OK,
                rdata: 0,
                src: i.s_reg_src,
                tag: i.s_reg_tag & 0x3FF,
                addr: i.s_reg_addr,
                be: i.s_reg_be & 0xF,
            };
            let old = match (field, counter) {
                (Some(_), _) if off == 0x160 => u32::from(i.cfg_engine_id),
                // docs/blocks/register_space.md: FAILURE = {valid[31], family[24], count[23:16], context[15:0]}.
                (Some(_), _) if off == 0x16C => {
                    u32::from(i.cpu_fail_valid) << 31 | u32::from(i.cpu_fail_family) << 24 | u32::from(i.cpu_fail_count) << 16 | u32::from(i.cpu_fail_ctx)
                }
                (Some(_), _) if off == STATIC_INDEX => index,
                (Some(_), _) if off == STATIC_KEY => entry.0,
                (Some(_), _) if off == STATIC_WAIT => entry.1,
                (Some(_), _) if off == MCAST_INDEX => tree,
                // MCAST_KEY: [31] valid, [12:0] the tree (docs/blocks/register_space.md §Map).
                (Some(_), _) if off == MCAST_KEY => u32::from(mentry.0) << 31 | tree,
                (Some(_), _) if off == MCAST_WAIT => mentry.1,
                (Some(_), _) if off == MCAST_PORTS => mentry.2,
                (Some(_), _) => self.v(off),
                (None, Some(c)) => self.counters[c],
                _ => 0,
            };
            if !mapped {
                resp.status = status::UNMAPPED;
            } else if !i.s_reg_write {
                resp.rdata = old;
                self.bump(counter::READS);
                if (off == STATIC_KEY || off == STATIC_WAIT) && old != 0 {
                    self.bump(counter::STATIC_READS_NONZERO);
                }
                if (MCAST_KEY..=MCAST_PORTS).contains(&off) && mentry != (false, 0, 0) {
                    self.bump(counter::MCAST_READS_WRITTEN);
                }
                if off == 0x16C && i.cpu_fail_valid {
                    self.bump(counter::FAILURE_READS);
                }
            } else if !authorized {
                resp.status = status::REJECTED;
            } else if field.is_some_and(|f| f.mask == 0) {
                resp.status = status::UNMAPPED;
            } else {
                self.bump(counter::WRITES_OK);
                let be: u32 = (0..4).filter(|b| i.s_reg_be >> b & 1 != 0).map(|b| 0xFFu32 << (8 * b)).sum();
                if let Some(c) = counter {
                    if be != 0 {
                        clear = Some(c);
                        self.bump(counter::COUNTER_CLEARS);
                    }
                } else if let Some(f) = field {
                    let new = (old & !(be & f.mask)) | (i.s_reg_wdata & be & f.mask);
                    match off {
                        STATIC_KEY => {
                            self.statics.insert(index, (new, entry.1));
                        }
                        STATIC_WAIT => {
                            self.statics.insert(index, (entry.0, new));
                        }
                        // Any byte enabled: the requester's slot, or the next one, round robin.
                        STATIC_INDEX if be != 0 => {
                            let j = self.index_slots.iter().position(|x| x.is_some_and(|(r, _)| r == i.s_reg_src)).unwrap_or_else(|| {
                                let j = self.next_slot;
                                self.next_slot = (j + 1) % STATIC_INDEX_SLOTS;
                                j
                            });
                            self.index_slots[j] = Some((i.s_reg_src, new));
                        }
                        STATIC_INDEX => {}
                        MCAST_KEY => {
                            self.mcasts.insert(tree, (new >> 31 != 0, mentry.1, mentry.2));
                        }
                        MCAST_WAIT => {
                            self.mcasts.insert(tree, (mentry.0, new, mentry.2));
                        }
                        MCAST_PORTS => {
                            self.mcasts.insert(tree, (mentry.0, mentry.1, new));
                        }
                        MCAST_INDEX if be != 0 => {
                            let j = self.mcast_slots.iter().position(|x| x.is_some_and(|(r, _)| r == i.s_reg_src)).unwrap_or_else(|| {
                                let j = self.next_mcast_slot;
                                self.next_mcast_slot = (j + 1) % MCAST_INDEX_SLOTS;
                                j
                            });
                            self.mcast_slots[j] = Some((i.s_reg_src, new));
                            self.bump(counter::MCAST_INDEX_WRITES);
                        }
                        MCAST_INDEX => {}
                        _ => {
                            self.values.insert(off, new);
                        }
                    }
                    if off == STATIC_INDEX && be != 0 {
                        self.bump(counter::STATIC_INDEX_WRITES);
                    }
                    let fwd = self.forwarded(off, i.s_reg_be, i.s_reg_src);
                    if fwd.len() == 2 {
                        self.bump(counter::CPU_DOUBLE_WRITES);
                    }
                    for a in fwd {
                        let d = self.cpu_word(a).ok_or_else(|| format!("no CPU word at {a:#x}"))?;
                        self.cpu_expected.push_back((a, d, cycle + 1));
                    }
                    if be != 0 && (0x204..0x280).contains(&off) && off % 8 == 4 {
                        let key = self.v(off - 4);
                        self.route_pulse = Some((((off - 0x200) / 8) as u8, new >> 31 != 0, key as u16, (key >> 16) as u16, (new & 0xF) as u8));
                        self.bump(counter::ROUTE_COMMITS);
                    }
                    if be != 0 && off == MCAST_KEY {
                        // The commit names the requester's tree, with the entry's values.
                        self.mcast_pulse = Some((new >> 31 != 0, tree as u16, mentry.1, mentry.2 as u16));
                        self.bump(counter::MCAST_COMMITS);
                        if tree >= 16 {
                            self.bump(counter::MCAST_COMMITS_HIGH);
                        }
                    }
                }
            }
            match resp.status {
                status::REJECTED => {
                    inc[0] += 1;
                    self.bump(counter::REJECTED);
                }
                status::UNMAPPED => {
                    inc[1] += 1;
                    self.bump(counter::UNMAPPED);
                }
                _ => {}
            }
            self.log.push(cycle, format!(
                "{} {off:#05x} be {:x} data {:#010x} from {:#06x}: status {} rdata {:#010x}",
                if i.s_reg_write { "write" } else { "read" }, i.s_reg_be, i.s_reg_wdata, i.s_reg_src, resp.status, resp.rdata
            ));
            self.expected.push_back(resp);
        }
        for (k, c) in self.counters.iter_mut().enumerate() {
            *c = if clear == Some(k) { inc[k] } else { c.wrapping_add(inc[k]) };
        }
        if i.rst {
            self.bump(counter::RESETS);
            let armed = true;
            let log = std::mem::take(&mut self.log);
            let counts = self.counts;
            *self = RegisterSpaceMonitor::with_mcast(self.mcast_entries);
            self.armed = armed;
            self.log = log;
            self.counts = counts;
            self.engine_id = i.cfg_engine_id;
            // The post-reset copy: TIMEOUT0..MODE, one per cycle from the cycle after the reset ends.
            for (n, a) in (0x080u16..0x08A).enumerate() {
                let d = self.cpu_word(a).unwrap_or(0);
                self.cpu_expected.push_back((a, d, cycle + 1 + n as u64));
            }
            self.log.push(cycle, "reset".to_string());
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        COUNTER_NAMES.iter().copied().zip(self.counts).collect()
    }
}

/// Builds a fresh lockstep bench for the Verilated register space and `seed`.
pub fn bench(model: &str, seed: u64) -> Result<Bench<RegisterSpace, RegisterSpaceRtl, RegisterSpaceStimulus, RegisterSpaceMonitor>, HarnessError> {
    let rtl = RegisterSpaceRtl::new(model)?;
    // The scoreboard's table is CPU_STATIC entries long: the Verilated model must be built so.
    let info = crate::verilated::model_info(model)?;
    let n = crate::targets::model_params(model)?.get("CPU_STATIC_ENTRIES").and_then(|v| usize::try_from(v).ok()).unwrap_or(0);
    let bad = |detail: String| HarnessError::Params { model: info.name, detail };
    if n != CPU_STATIC {
        return Err(bad(format!("CPU_STATIC_ENTRIES {n}, the scoreboard's table has {CPU_STATIC}")));
    }
    let m = crate::targets::model_params(model)?.get("MCAST_ENTRIES").and_then(|v| usize::try_from(v).ok()).unwrap_or(MCAST_DEFAULT);
    let dut = RegisterSpace::power_on_sized(n, m).map_err(|e| bad(e.to_string()))?;
    Ok(Bench::new(dut, rtl, RegisterSpaceStimulus::new(seed, m), RegisterSpaceMonitor::with_mcast(m)))
}

/// Runs the register-space target.
pub fn run(model: &str, cfg: &RunConfig, progress: &mut dyn FnMut(u64)) -> Result<Outcome, RunError> {
    let reproduce = |seed: u64, cycles: u64| format!("cargo run --release -- cosim --block register_space --seed {seed} --cycles {cycles}");
    checker::run_target(model, &reproduce, &|seed| bench(model, seed), cfg, progress)
}
