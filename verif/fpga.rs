//! FPGA mapping gate (`inswitch synth --target xilinx`): Yosys `synth_xilinx` of each root (the
//! packet-engine top), then, from the mapped netlist (`write_json`), per module and for the top: LUTs,
//! flip-flops, block RAMs, LUT RAM, DSPs, the LUT depth per stage, and where each named RTL table went
//! (block/LUT RAM or flip-flops). Issue 19 item 3; docs/performance.md §FPGA mapping (synth_xilinx).
//!
//! Options of `synth_xilinx` and why: `-family xc7` by default (the family Yosys 0.23 maps most
//! completely: RAMB18E1/RAMB36E1, DSP48E1, CARRY4, six-input LUTs, the same LUT6 as UltraScale+, which
//! `--family xcup` selects); `-noiopad -noclkbuf` because every block is synthesised out of context (an
//! I/O buffer on each of the top's thousands of port bits would be counted as logic). No `-flatten`: the
//! hierarchy is kept so that every block is reported from the one run of the top, at the parameters the
//! top gives it (as the generic gate does, [`crate::hdl::synth_all`]).
//!
//! LUT depth: the longest path between path starts (flip-flops, block RAM and DSP outputs, the module's
//! inputs) and path ends (their inputs, the module's outputs), walked over the module's netlist
//! flattened here. Yosys' `ltp -noff` cannot do it: it knows only Yosys' internal flip-flop types, so the
//! mapped `FDRE` cells would be taken for logic and close loops. Each cell costs, in LUT levels:
//! a `LUT1`-`LUT6` 1; a `MUXF7`/`MUXF8`/`MUXF9` 0 (it joins two LUTs of the same slice into one wider
//! function, no routing hop: the LUT6+MUXF7 pair is one 7-input level); a carry chain 1 where it is
//! entered (from its `S`/`DI`/`CYINIT` inputs) plus 1/4 per further `CARRY4`/`CARRY8` along it (`CI`): a
//! 64-bit adder (16 `CARRY4`) counts 1 + 15/4 levels, about its delay in LUT levels on 7-series; a LUT
//! RAM or SRL read 1 (address to data, asynchronous); inverters and buffers 0. Depths are kept in
//! quarter levels and reported rounded up.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::hdl;

/// The gate's bound on a module's longest stage, in six-input LUT levels: issue 19's goal (250-300 MHz
/// ballpark). Every module not in [`LUT_DEPTH_EXCEPTIONS`] must be within it.
pub const LUT_DEPTH_GOAL: u64 = 8;

/// Modules still deeper than [`LUT_DEPTH_GOAL`]: (module, its measured depth, where and why). Such a module
/// is bounded by its listed depth, the deepest seen (ABC maps a module one level differently in another
/// root's run: the reduction unit is 27 alone, 26 inside the CPU); a run that measures it shallower passes
/// and says which entry to lower. Entries are only lowered or removed: the bounds only tighten.
/// docs/performance.md §LUT depth per block (session 14), §Reduction unit pipelined (session 15: the
/// reduction unit's four modules removed from this list).
pub const LUT_DEPTH_EXCEPTIONS: &[(&str, u64, &str)] = &[
    // Session 19 (2026-11-27): `inswitch synth --target xilinx --top cpu` with the lane-shared reduction
    // unit, 24 (the same depth session 18's run measured); a later run after the unit's depth fix ends at d_rd, also 24. 28 in session 15
    // (composed, through d_pay_rd and d_reg, which sessions 11-18 replaced), 36 in session 14.
    // docs/performance.md §The CPU's lane-shared reduction unit (session 19).
    // Session 21 (2026-11-27, branch s21-dpi): 16 (25 on main that day with the walk of the time, 22 with the
    // session's RTL alone): the descriptors' bits selected by index compares (`du_sel`, `scan_sel`), the
    // emission's next mask by a prefix OR (`em_below`), the read word's written-since-reset bit registered
    // (`rd_ok_reg`), and the walk taking a LUT RAM's read port from its own address ([`read_ports`]: the
    // descriptor RAM's write address had been counted on its read data). The deepest stage is the
    // sequencer's: the read descriptor's seqno, ARM's seqno_newer compare, the decision, the written
    // descriptor's state, timer_runs, the due bit. docs/performance.md §FPGA mapping, session 21.
    // The lead's run of the whole top (`--top packet_engine`, main 2eefd07: s21-dpi merged, 20:58-21:45 UTC)
    // measured the CPU at 17 as a root of its own in that run (the helper's run: 16) and the top at 17 at
    // the same end point: ABC's one-level difference between runs (above); the deepest seen is the bound.
    // Session 22 (2026-11-27, branch s22-seq): 14 (main e40e2e9 measured 15 in the same session's run): state
    // COMPARE registers EXEC's compares of the read descriptor a cycle before the decision (a cycle change:
    // every decision one cycle later), the PBV bit cleared through its 128-bit field (an index into the
    // whole record was an offset adder and a shifter ahead of every written bit), the configuration's PBV
    // bits by per-entry compares. The deepest stages (14) start at the descriptor RAM's read in CHECK and
    // EXPIRE: the step's template into msg_next, then st_raddr; its emission mask into pbv_raddr; and a
    // timer load (the static entry's thresholds, the deadline adder) into the written word.
    // docs/performance.md §FPGA mapping, session 22.
    // Session 23 (2026-11-28, branch s23-cpu): 13, no cycle changed: the static and PBV RAMs' read
    // addresses decoded from seq_reg and the kept message (msg_in), not from seq_next and msg_next; EXEC's
    // timer load chosen among deadlines summed a cycle ahead (tmo_dl_reg); CHECK's and EXPIRE's templates
    // written on every branch (msg_reg's enable off their decisions).
    // Left (12 in the walk): CHECK's, EXPIRE's and RATCHET's decisions on the read descriptor into the
    // written word and em_one_reg, the cut being their descriptor read a cycle ahead (a cycle change).
    // docs/performance.md §FPGA mapping, session 23.
    // Session 24 (2026-11-28, branch s24-cpu): 11, no cycle changed: CHECK's completion compares
    // registered in the cycle before CHECK (chk_complete_reg), EXEC's load level in COMPARE (x_level_reg,
    // a configuration write at the edge into EXEC taken as written; the recorded D_LOAD from it too), the
    // tick a flip-flop. Left (11): EXEC's decision from the message into du, timer_runs and the due bit;
    // EMIT's next-bit search into an emission register's enable.
    // docs/performance.md §FPGA mapping, session 24.
    ("cpu", 11, "the sequencer: EXEC's decisions into the written word (du, the due bit) and the emission registers"),
    // Session 20 (2026-11-27): `inswitch synth --target xilinx --top packet_engine` at main 6fbec71 (16:25-17:23
    // UTC): 24, the CPU's own path (38 in session 15, before the reduction unit's pipelining).
    // docs/performance.md §FPGA mapping (synth_xilinx), its session-20 paragraph.
    // Session 21: lowered with the cpu entry, then measured by the lead's run of the top at 2eefd07 (before
    // the frame and completion builders' depth fixes merged): 17, ending at cpu_inst.d_due_reg.
    // Session 22: lowered with the cpu entry (the top not re-run: it instantiates the CPU at the same
    // defaults, hierarchy kept; its other blocks measured 12 or less in session 20's run). The lead's run of
    // the top at 942c339a (session 22, 00:44-01:02 UTC) measured 14, ending at cpu_inst.d_mem (the written word).
    // Session 23: lowered with the cpu entry (the top not re-run, as in session 22). Session 24: the same.
    ("packet_engine", 11, "inside the CPU: its deepest stages (see the cpu entry)"),
    // Session 22 (branch s22-red): the adders read the pair the CPU holds (`reduce_fadd` HELD_OPERANDS = 1,
    // 1,900 -> 1,493 flip-flops) measured 8 in the helper's three runs of `--top reduce_shared` and 9 as a root
    // in the lead's run of the top at 942c339a, at fadd_hi.s2_wy: the held lane's 2-to-1 select
    // (`upper_held`) ahead of stage 2's swap and alignment shift. The deepest seen is the bound; cutting it
    // (the lane select into stage 1's register, a few flip-flops back) is open. docs/performance.md, session 22.
    // Session 23 (branch s23-red): the select is inside the adder (`a_upper`/`b_upper`/`upper`, `s1_upper`),
    // so ABC maps it with stage 2 (a select in the caller is a level the adder's own mapping does not
    // count). `--top reduce_shared` measures 8 (two xc7 runs at the built commit; a run of the top with the
    // select moved alone: 8), but `--family xcup` measures 9 at fadd_hi.addend (s2_wy). ABC maps stage 2's
    // swap and alignment shift as a chain of 2-to-1 LUT3s, 8 or 9 deep from run to run, so the bound stays 9.
    // docs/performance.md, session 23.
    // Session 24 (branch s24-red): removed. The alignment shift is written as three steps of a choice of 4
    // (AND-OR under decoded selects, no shifter for Yosys to build), so stage 2's s2_wy measures 6 (xc7) and
    // 7 (xcup) inside `--top reduce_shared`, 8 in every earlier run; the unit measures 8 in both families
    // (deepest `fadd_hi.s5_mant` / `s4_lz_lo`; the sticky bit `s2_sticky` is the stage-2 path at 8).
    // docs/performance.md, session 24.
];

/// Quarter levels per LUT level (the carry-chain step is one quarter).
const UNITS_PER_LEVEL: u64 = 4;
/// Cost of one further carry element along a chain, in quarter levels.
const CARRY_STEP_UNITS: u64 = 1;

/// A table of the RTL that issue 19 wants in RAM: (module, array or register name, what it holds).
pub const RTL_TABLES: &[(&str, &str, &str)] = &[
    ("cpu", "st_cfg_mem", "CPU static entries: configured fields (direct-mapped, key and family the tag)"),
    ("cpu", "st_ctx_mem", "CPU static entries: stored contexts, stored and tid"),
    ("cpu", "st_q_mem", "CPU static entries: the sequencer's stamp bits, read at the configuration's address"),
    ("cpu", "d_mem", "CPU descriptors (indexed by tree slot and reduction id): keys, states, deadlines, data"),
    ("cpu", "dl_mem", "CPU descriptors: the timer scan's copy of running flags and deadlines (one RAM per lane)"),
    ("cpu", "pbv_dev_mem", "CPU PBV table: device IDs (one RAM per 16-bit slot of a word)"),
    ("register_space", "pbv_mem", "register-space PBV table and its CPU flags (PBV_FLAGS)"),
    ("register_space", "static_key_mem", "register-space copy of the CPU static entries, word 0 (read back through STATIC_INDEX)"),
    ("register_space", "static_wait_mem", "register-space copy of the CPU static entries, word 1"),
    ("register_space", "mcast_mem", "register-space multicast entries, one per tree (read back through MCAST_INDEX)"),
    ("interposer", "mcast_mem", "interposer multicast table"),
    ("input_checker", "store_mem", "input checker slot store: each frame's beats up to CONFIG_FRAME_BYTES (configuration slots)"),
];

/// One named table to locate: the module that declares it and the register/array name.
#[derive(Debug, Clone)]
pub struct TableSpec {
    /// Module (source name, without parameters).
    pub module: String,
    /// Register or array name in that module.
    pub name: String,
    /// What it holds (for the report).
    pub what: String,
}

impl TableSpec {
    /// The RTL's tables ([`RTL_TABLES`]).
    pub fn rtl() -> Vec<TableSpec> {
        RTL_TABLES.iter().map(|(m, n, w)| TableSpec { module: m.to_string(), name: n.to_string(), what: w.to_string() }).collect()
    }
}

/// Where a table went.
#[derive(Debug, Clone, PartialEq)]
pub enum Placement {
    /// Mapped to RAM by `memory_libmap` (the Yosys mapping: block RAM or LUT RAM).
    Ram(String),
    /// Held in this many flip-flop bits.
    FlipFlops(u64),
    /// Neither a RAM mapping nor a flip-flop of that name: renamed or optimised away.
    NotFound,
}

/// A table's row of the report.
#[derive(Debug, Clone)]
pub struct TableRow {
    /// The table.
    pub spec: TableSpec,
    /// Where it went.
    pub placement: Placement,
}

impl TableRow {
    /// The table-in-RAM check.
    pub fn passed(&self) -> bool {
        matches!(self.placement, Placement::Ram(_))
    }
}

/// Mapped resources of one module (with everything under it) and its LUT depth.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FpgaRow {
    /// Module, with its parameters as [`hdl::display_name`] reads them.
    pub module: String,
    /// `LUT1`-`LUT6`.
    pub luts: u64,
    /// LUT RAM and shift-register LUTs (`RAM32M`, `RAM64X1D`, ..., `SRL16E`, `SRLC32E`).
    pub lutram: u64,
    /// Flip-flops (`FD*`).
    pub flip_flops: u64,
    /// Latches (`LD*`; must be 0).
    pub latches: u64,
    /// `RAMB18*`.
    pub ramb18: u64,
    /// `RAMB36*`.
    pub ramb36: u64,
    /// `URAM288` (UltraScale+ only).
    pub uram: u64,
    /// `DSP48*`.
    pub dsps: u64,
    /// `CARRY4`/`CARRY8`.
    pub carry: u64,
    /// `MUXF7`/`MUXF8`/`MUXF9`.
    pub muxf: u64,
    /// Longest stage in quarter LUT levels (see the module doc).
    pub depth_units: u64,
    /// Where that stage ends (a flip-flop's output net, a cell or an output port).
    pub depth_end: String,
}

impl FpgaRow {
    /// Longest stage in LUT levels, rounded up.
    pub fn lut_depth(&self) -> u64 {
        self.depth_units.div_ceil(UNITS_PER_LEVEL)
    }
}

/// The LUT-depth check of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthVerdict {
    /// Within its bound (the goal, or its exception's depth).
    Pass,
    /// Deeper than its bound.
    TooDeep,
    /// A listed exception measured shallower than its entry: passes; the entry may be lowered (or
    /// removed once within the goal).
    StaleException,
}

/// A row's LUT-depth check: its depth, its bound and whether the bound is an exception's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepthCheck {
    /// Measured depth (LUT levels).
    pub depth: u64,
    /// The bound it is checked against.
    pub bound: u64,
    /// The bound is the module's entry in the exception list.
    pub exception: bool,
    /// The outcome.
    pub verdict: DepthVerdict,
}

impl DepthCheck {
    /// The check failed (deeper than its bound).
    pub fn failed(&self) -> bool {
        self.verdict == DepthVerdict::TooDeep
    }
}

/// The LUT-depth check of `row`: against `bound` for every module when given (`--max-lut-depth`, no
/// exceptions), else against [`LUT_DEPTH_GOAL`] or the module's entry in `exceptions` (by source module
/// name, whatever its parameters).
pub fn check_depth(row: &FpgaRow, exceptions: &[(&str, u64, &str)], bound: Option<u64>) -> DepthCheck {
    let depth = row.lut_depth();
    let module = row.module.split_whitespace().next().unwrap_or_default();
    let listed = exceptions.iter().find(|(m, _, _)| *m == module).map(|&(_, d, _)| d);
    let (bound, exception) = match (bound, listed) {
        (Some(b), _) => (b, false),
        (None, Some(d)) => (d.max(LUT_DEPTH_GOAL), true),
        (None, None) => (LUT_DEPTH_GOAL, false),
    };
    let verdict = if depth > bound {
        DepthVerdict::TooDeep
    } else if exception && depth < bound {
        DepthVerdict::StaleException
    } else {
        DepthVerdict::Pass
    };
    DepthCheck { depth, bound, exception, verdict }
}

/// The result of one root's `synth_xilinx` run.
#[derive(Debug, Clone)]
pub struct FpgaRun {
    /// The root module.
    pub root: String,
    /// Yosys exited 0 and wrote a netlist.
    pub ok: bool,
    /// One row per module under the root (one per parameter set), sorted by name.
    pub rows: Vec<FpgaRow>,
    /// The tables of the specs found in this run's modules.
    pub tables: Vec<TableRow>,
    /// Yosys log.
    pub log: String,
}

/// Runs `synth_xilinx` on every root under `rtl_dir` (or only on `top`), one Yosys run per root, and
/// reports every module under it. `keep`: write `<root>.json` and `<root>.log` there (for `--from`).
pub fn synth_xilinx_all(rtl_dir: &Path, family: &str, top: Option<&str>, keep: Option<&Path>, tables: &[TableSpec]) -> std::io::Result<Vec<FpgaRun>> {
    let names = hdl::modules(rtl_dir)?;
    let roots: Vec<String> = match top {
        Some(t) if names.iter().any(|n| n == t) => vec![t.to_string()],
        Some(t) => return Err(std::io::Error::new(std::io::ErrorKind::NotFound, format!("no module {t} in {}", rtl_dir.display()))),
        None => {
            let (cost, children) = hdl::instantiation_graph(rtl_dir, &names)?;
            let mut r: Vec<usize> = (0..names.len()).filter(|i| !children.iter().any(|c| c.contains(i))).collect();
            r.sort_by_key(|&i| std::cmp::Reverse(cost[i]));
            r.into_iter().map(|i| names[i].clone()).collect()
        }
    };
    let reads: String = names.iter().map(|m| format!("read_verilog -sv {}; ", rtl_dir.join(format!("{m}.v")).display())).collect();
    let mut runs = Vec::new();
    for root in roots {
        let work = match keep {
            Some(k) => k.to_path_buf(),
            None => std::env::temp_dir().join(format!("inswitch-fpga-{}-{root}", std::process::id())),
        };
        std::fs::create_dir_all(&work)?;
        let json = work.join(format!("{root}.json"));
        let script = format!("{reads}synth_xilinx -family {family} -noiopad -noclkbuf -top {root}; write_json {}", json.display());
        let o = Command::new("yosys").arg("-p").arg(&script).output()?;
        let log = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        std::fs::write(work.join(format!("{root}.log")), &log)?;
        let netlist = if o.status.success() { std::fs::read_to_string(&json).ok() } else { None };
        if keep.is_none() {
            let _ = std::fs::remove_dir_all(&work);
        }
        runs.push(report(&root, netlist.as_deref(), log, tables));
    }
    Ok(runs)
}

/// Reports from netlists kept by an earlier `--keep DIR` run: every `DIR/<root>.json` with its log.
pub fn from_kept(dir: &Path, tables: &[TableSpec]) -> std::io::Result<Vec<FpgaRun>> {
    let mut jsons: Vec<PathBuf> = std::fs::read_dir(dir)?.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    jsons.sort();
    let mut runs = Vec::new();
    for j in jsons {
        let root = j.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let log = std::fs::read_to_string(j.with_extension("log")).unwrap_or_default();
        runs.push(report(&root, Some(&std::fs::read_to_string(&j)?), log, tables));
    }
    Ok(runs)
}

/// Builds a run's report from its netlist (Yosys JSON; `None` when synthesis failed) and log.
pub fn report(root: &str, netlist: Option<&str>, log: String, tables: &[TableSpec]) -> FpgaRun {
    let design = match netlist.map(serde_json::from_str::<Value>) {
        Some(Ok(v)) => Design::from_json(&v),
        _ => return FpgaRun { root: root.to_string(), ok: false, rows: Vec::new(), tables: Vec::new(), log },
    };
    let mut rows: Vec<FpgaRow> = design
        .modules
        .keys()
        .map(|name| {
            let mut row = design.totals(name, 0);
            row.module = hdl::display_name(name);
            let (units, end) = design.flatten(name).depth();
            (row.depth_units, row.depth_end) = (units, end);
            row
        })
        .collect();
    rows.sort_by(|a, b| a.module.cmp(&b.module));
    let ram_maps = ram_mappings(&log);
    let tables = tables
        .iter()
        .filter(|t| design.modules.keys().any(|m| base_name(m) == t.module))
        .map(|t| {
            let ff_bits: u64 = design.modules.iter().filter(|(m, _)| base_name(m) == t.module).map(|(_, m)| m.ff_bits_named(&t.name)).sum();
            let ram = ram_maps.iter().find(|(m, mem, _)| *m == t.module && *mem == t.name).map(|(_, _, k)| k.clone());
            let placement = match (ff_bits, ram) {
                (0, Some(kind)) => Placement::Ram(kind),
                (0, None) => Placement::NotFound,
                (n, _) => Placement::FlipFlops(n),
            };
            TableRow { spec: t.clone(), placement }
        })
        .collect();
    FpgaRun { root: root.to_string(), ok: true, rows, tables, log }
}

/// `memory_libmap`'s "mapping memory <module>.<memory> via <cell>" lines: (module, memory, cell). A
/// memory declared in a generate block is named with its scope (`g_pbv_dev[3].pbv_dev_mem`): module
/// names hold no dot, so the module ends at the first one, and the memory is reported by its leaf name,
/// the name `RTL_TABLES` gives.
pub fn ram_mappings(log: &str) -> Vec<(String, String, String)> {
    log.lines()
        .filter_map(|l| l.trim().strip_prefix("mapping memory "))
        .filter_map(|r| r.split_once(" via "))
        .filter_map(|(mm, kind)| mm.split_once('.').map(|(m, mem)| (base_name(m), leaf_name(mem.trim_start_matches('\\')).to_string(), kind.trim().to_string())))
        .collect()
}

/// A register's or memory's own name without its generate scopes and bit index:
/// `g_pbv_dev[3].pbv_dev_mem[7]` and `st_reg[12]` read `pbv_dev_mem` and `st_reg`.
fn leaf_name(hier: &str) -> &str {
    let leaf = hier.rsplit('.').next().unwrap_or(hier);
    leaf.split_once('[').map_or(leaf, |(base, _)| base)
}

/// A Yosys module name's source module: `$paramod$<hash>\cpu` and `$paramod\axis_register\WIDTH=..` read
/// `cpu` and `axis_register`.
fn base_name(yosys: &str) -> String {
    hdl::display_name(yosys).split_whitespace().next().unwrap_or_default().to_string()
}

/// A net bit: a number, or a constant (`None`).
type Bit = Option<u64>;

fn bits(v: &Value) -> Vec<Bit> {
    v.as_array().map(|a| a.iter().map(Value::as_u64).collect()).unwrap_or_default()
}

struct Cell {
    name: String,
    kind: String,
    /// (port, is an input, bits).
    conns: Vec<(String, bool, Vec<Bit>)>,
}

struct Module {
    cells: Vec<Cell>,
    /// (port, is an input, bits).
    ports: Vec<(String, bool, Vec<Bit>)>,
    /// Public net names and their bits.
    names: Vec<(String, Vec<Bit>)>,
}

impl Module {
    /// Flip-flop bits whose output net is `name` or `name[i]` (a table kept in registers).
    fn ff_bits_named(&self, name: &str) -> u64 {
        let named: std::collections::HashSet<u64> = self
            .names
            .iter()
            .filter(|(n, _)| leaf_name(n) == name)
            .flat_map(|(_, b)| b.iter().flatten().copied())
            .collect();
        self.cells
            .iter()
            .filter(|c| c.kind.starts_with("FD"))
            .filter(|c| c.conns.iter().any(|(p, input, b)| !input && p == "Q" && b.iter().flatten().any(|x| named.contains(x))))
            .count() as u64
    }
}

/// A `write_json` netlist of Yosys: its modules by name.
pub struct Design {
    modules: HashMap<String, Module>,
}

/// How a cell type is walked for the LUT depth.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    /// Path start and end (flip-flop, latch, block RAM, DSP).
    Sequential,
    /// Logic: each input port has a cost ([`input_cost`]).
    Logic,
}

fn class(kind: &str) -> Class {
    const SEQUENTIAL: &[&str] = &["FD", "LD", "RAMB", "URAM", "DSP48", "FIFO"];
    if SEQUENTIAL.iter().any(|p| kind.starts_with(p)) { Class::Sequential } else { Class::Logic }
}

/// Cost of a path through input `port` of a logic cell, in quarter levels; `None`: the input is a path
/// end (a LUT RAM's or SRL's write data and enable).
fn input_cost(kind: &str, port: &str) -> Option<u64> {
    let lutram = kind.starts_with("RAM") || kind.starts_with("SRL");
    if kind.starts_with("LUT") {
        Some(UNITS_PER_LEVEL)
    } else if kind.starts_with("MUXF") {
        Some(0)
    } else if kind.starts_with("CARRY") {
        Some(if port.starts_with("CI") { CARRY_STEP_UNITS } else { UNITS_PER_LEVEL })
    } else if lutram {
        let address = port.starts_with("ADDR") || port.starts_with("DPRA") || (port.starts_with('A') && port[1..].chars().all(|c| c.is_ascii_digit()));
        address.then_some(UNITS_PER_LEVEL)
    } else {
        Some(0)
    }
}

/// A module flattened for the depth walk: every bit renumbered globally.
pub struct Flat {
    cells: Vec<(String, String, Vec<(String, bool, Vec<u64>)>)>,
    outputs: Vec<u64>,
    names: HashMap<u64, String>,
}

impl Design {
    /// Reads Yosys' `write_json` netlist `v` (an empty design where it has no modules).
    pub fn from_json(v: &Value) -> Design {
        let mut modules = HashMap::new();
        let Some(ms) = v["modules"].as_object() else { return Design { modules } };
        for (name, m) in ms.iter().filter(|(_, m)| m["attributes"].get("blackbox").is_none()) {
            let dirs = |c: &Value, p: &str| c["port_directions"][p].as_str() != Some("output");
            let cells = m["cells"]
                .as_object()
                .map(|cs| {
                    cs.iter()
                        .map(|(cn, c)| Cell {
                            name: cn.clone(),
                            kind: c["type"].as_str().unwrap_or_default().trim_start_matches('\\').to_string(),
                            conns: c["connections"].as_object().map(|k| k.iter().map(|(p, b)| (p.clone(), dirs(c, p), bits(b))).collect()).unwrap_or_default(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            let ports = m["ports"]
                .as_object()
                .map(|ps| ps.iter().map(|(p, d)| (p.clone(), d["direction"].as_str() != Some("output"), bits(&d["bits"]))).collect())
                .unwrap_or_default();
            let names = m["netnames"]
                .as_object()
                .map(|ns| ns.iter().filter(|(_, n)| n["hide_name"].as_u64() != Some(1)).map(|(n, d)| (n.clone(), bits(&d["bits"]))).collect())
                .unwrap_or_default();
            modules.insert(name.clone(), Module { cells, ports, names });
        }
        Design { modules }
    }

    /// Resources of `name` and everything under it. The depth bound stops a malformed cycle.
    pub fn totals(&self, name: &str, depth: usize) -> FpgaRow {
        let mut r = FpgaRow::default();
        let Some(m) = self.modules.get(name) else { return r };
        for c in &m.cells {
            let k = c.kind.as_str();
            if self.modules.contains_key(k) {
                if depth <= self.modules.len() {
                    let t = self.totals(k, depth + 1);
                    r.luts += t.luts;
                    r.lutram += t.lutram;
                    r.flip_flops += t.flip_flops;
                    r.latches += t.latches;
                    r.ramb18 += t.ramb18;
                    r.ramb36 += t.ramb36;
                    r.uram += t.uram;
                    r.dsps += t.dsps;
                    r.carry += t.carry;
                    r.muxf += t.muxf;
                }
                continue;
            }
            let counter = if k.starts_with("LUT") {
                &mut r.luts
            } else if k.starts_with("RAMB18") {
                &mut r.ramb18
            } else if k.starts_with("RAMB36") {
                &mut r.ramb36
            } else if k.starts_with("URAM") {
                &mut r.uram
            } else if k.starts_with("RAM") || k.starts_with("SRL") {
                &mut r.lutram
            } else if k.starts_with("FD") {
                &mut r.flip_flops
            } else if k.starts_with("LD") {
                &mut r.latches
            } else if k.starts_with("DSP48") {
                &mut r.dsps
            } else if k.starts_with("CARRY") {
                &mut r.carry
            } else if k.starts_with("MUXF") {
                &mut r.muxf
            } else {
                continue;
            };
            *counter += 1;
        }
        r
    }

    /// `name` with every instance replaced by its module's cells.
    pub fn flatten(&self, name: &str) -> Flat {
        let mut f = Flat { cells: Vec::new(), outputs: Vec::new(), names: HashMap::new() };
        let mut next = 0u64;
        let mut map = HashMap::new();
        let Some(m) = self.modules.get(name) else { return f };
        // Inputs are path starts (no driver); outputs are path ends.
        for (_, input, b) in &m.ports {
            let g: Vec<u64> = b.iter().map(|x| global(&mut map, &mut next, *x)).collect();
            if !input {
                f.outputs.extend(g);
            }
        }
        self.flatten_into(name, &mut map, &mut next, "", &mut f, 0);
        f
    }

    fn flatten_into(&self, name: &str, map: &mut HashMap<u64, u64>, next: &mut u64, prefix: &str, f: &mut Flat, depth: usize) {
        let Some(m) = self.modules.get(name) else { return };
        for (n, b) in &m.names {
            for x in b.iter().flatten() {
                let g = global(map, next, Some(*x));
                f.names.entry(g).or_insert_with(|| format!("{prefix}{n}"));
            }
        }
        for c in &m.cells {
            let conns: Vec<(String, bool, Vec<u64>)> =
                c.conns.iter().map(|(p, i, b)| (p.clone(), *i, b.iter().map(|x| global(map, next, *x)).collect())).collect();
            match self.modules.get(c.kind.as_str()) {
                Some(child) if depth <= self.modules.len() => {
                    // The child's port bits take the global bits the instance connects them to.
                    let mut child_map = HashMap::new();
                    for (p, _, b) in &child.ports {
                        if let Some((_, _, g)) = conns.iter().find(|(cp, _, _)| cp == p) {
                            for (cb, gb) in b.iter().zip(g) {
                                if let Some(cb) = cb {
                                    child_map.entry(*cb).or_insert(*gb);
                                }
                            }
                        }
                    }
                    let inner = format!("{prefix}{}.", c.name.trim_start_matches('\\'));
                    self.flatten_into(&c.kind, &mut child_map, next, &inner, f, depth + 1);
                }
                _ => {
                    let name = format!("{prefix}{}", c.name);
                    for part in read_ports(&c.kind, conns) {
                        f.cells.push((name.clone(), c.kind.clone(), part));
                    }
                }
            }
        }
    }
}

/// A LUT RAM cell with several read ports as one cell per read port (its address in, its data out) and
/// one for its write inputs (path ends), so that the depth walk follows what the primitive computes: a
/// read port's output depends on its own address only. As one cell, a RAM64M's read data (DOA-DOC, read
/// at ADDRA-ADDRC) took the arrival of its write address (ADDRD, read only by the unused DOD): the CPU's
/// descriptor RAM then counted its write address's depth on every read path (docs/performance.md §FPGA
/// mapping, session 21). Any other cell is returned whole.
fn read_ports(kind: &str, conns: Vec<(String, bool, Vec<u64>)>) -> Vec<Vec<(String, bool, Vec<u64>)>> {
    if !(kind.starts_with("RAM") && !kind.starts_with("RAMB")) {
        return vec![conns];
    }
    // The read port a port belongs to: RAMxxM's DO<L>/ADDR<L>, RAMxxX1D's SPO/A<n> ("S") and DPO/DPRA<n> ("P").
    let port_of = |p: &str, input: bool| -> Option<String> {
        if input {
            if let Some(l) = p.strip_prefix("ADDR") {
                Some(l.to_string())
            } else if p.starts_with("DPRA") {
                Some("P".to_string())
            } else if p.starts_with('A') && p[1..].chars().all(|c| c.is_ascii_digit()) {
                Some("S".to_string())
            } else {
                None
            }
        } else if let Some(l) = p.strip_prefix("DO") {
            Some(l.to_string())
        } else {
            match p {
                "SPO" => Some("S".to_string()),
                "DPO" => Some("P".to_string()),
                _ => None,
            }
        }
    };
    let outputs: Vec<String> = conns.iter().filter(|(_, i, _)| !i).filter_map(|(p, _, _)| port_of(p, false)).collect();
    if outputs.is_empty() || conns.iter().any(|(p, i, _)| !i && port_of(p, false).is_none()) {
        return vec![conns];
    }
    // The write address: the last read port's (RAMxxM's ADDRD or ADDRH, RAMxxX1D's A<n>), also read there.
    let addresses: Vec<String> = conns.iter().filter(|(_, i, _)| *i).filter_map(|(p, _, _)| port_of(p, true)).collect();
    let write_port = if addresses.iter().any(|a| a == "S") { "S".to_string() } else { addresses.iter().max().cloned().unwrap_or_default() };
    let mut parts: Vec<Vec<(String, bool, Vec<u64>)>> = outputs.iter().map(|_| Vec::new()).collect();
    let mut writes = Vec::new();
    for (p, input, b) in conns {
        let port = port_of(&p, input);
        if input && port.as_deref() == Some(write_port.as_str()) {
            // Also a path end of the write (a name input_cost does not take for an address).
            writes.push((format!("write {p}"), true, b.clone()));
        }
        match port.and_then(|l| outputs.iter().position(|o| *o == l)) {
            Some(i) => parts[i].push((p, input, b)),
            // Write data, enable and clock: path ends.
            None => writes.push((p, input, b)),
        }
    }
    parts.push(writes);
    parts
}

/// The global number of local bit `x` (a fresh one for a constant or a bit not seen yet).
fn global(map: &mut HashMap<u64, u64>, next: &mut u64, x: Bit) -> u64 {
    let mut fresh = || {
        *next += 1;
        *next
    };
    match x {
        Some(x) => *map.entry(x).or_insert_with(fresh),
        None => fresh(),
    }
}

impl Flat {
    /// The longest stage (quarter levels) and where it ends.
    pub fn depth(&self) -> (u64, String) {
        let mut driver: HashMap<u64, usize> = HashMap::new();
        for (i, (_, kind, conns)) in self.cells.iter().enumerate() {
            if class(kind) == Class::Logic {
                for (_, _, b) in conns.iter().filter(|(_, input, _)| !input) {
                    for x in b {
                        driver.insert(*x, i);
                    }
                }
            }
        }
        // Arrival at each logic cell's outputs: an iterative depth-first walk (paths run to thousands
        // of cells); a combinational loop (none is expected after synthesis) counts as a path start.
        const UNSEEN: u64 = u64::MAX;
        const ON_STACK: u64 = u64::MAX - 1;
        let mut arrival = vec![UNSEEN; self.cells.len()];
        let bit_arrival = |arrival: &[u64], x: u64| driver.get(&x).map_or(0, |&d| if arrival[d] >= ON_STACK { 0 } else { arrival[d] });
        for start in 0..self.cells.len() {
            if arrival[start] != UNSEEN || class(&self.cells[start].1) != Class::Logic {
                continue;
            }
            let mut stack = vec![start];
            arrival[start] = ON_STACK;
            while let Some(&c) = stack.last() {
                let (_, kind, conns) = &self.cells[c];
                let pending = conns
                    .iter()
                    .filter(|(p, input, _)| *input && input_cost(kind, p).is_some())
                    .flat_map(|(_, _, b)| b.iter())
                    .filter_map(|x| driver.get(x))
                    .find(|&&d| arrival[d] == UNSEEN);
                if let Some(&d) = pending {
                    arrival[d] = ON_STACK;
                    stack.push(d);
                    continue;
                }
                arrival[c] = conns
                    .iter()
                    .filter(|(_, input, _)| *input)
                    .filter_map(|(p, _, b)| input_cost(kind, p).map(|w| b.iter().map(|&x| bit_arrival(&arrival, x) + w).max().unwrap_or(0)))
                    .max()
                    .unwrap_or(0);
                stack.pop();
            }
        }
        let mut best = (0, String::new());
        for (name, kind, conns) in &self.cells {
            for (p, _, b) in conns.iter().filter(|(p, input, _)| *input && (class(kind) == Class::Sequential || input_cost(kind, p).is_none())) {
                let units = b.iter().map(|&x| bit_arrival(&arrival, x)).max().unwrap_or(0);
                if units > best.0 {
                    let q = conns.iter().find(|(_, input, _)| !input).and_then(|(_, _, o)| o.first()).and_then(|x| self.names.get(x));
                    best = (units, format!("{} ({kind} {p})", q.unwrap_or(name)));
                }
            }
        }
        for &x in &self.outputs {
            let units = bit_arrival(&arrival, x);
            if units > best.0 {
                best = (units, format!("output {}", self.names.get(&x).map_or("?", |s| s.as_str())));
            }
        }
        best
    }
}
