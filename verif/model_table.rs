// The Verilated models: every (RTL top, parameter set) that build.rs verilates and links, and that
// `inswitch cosim` runs as a target (verif/targets.rs). Shared by build.rs (`include!`) and the harness
// (`crate::model_table`), so the table is written once. Blocks, their parameters' RTL names and defaults
// are in the block registry (crates/model/src/registry); a parameter not named here keeps its RTL default.

/// One Verilated model: an RTL top at one parameter set.
pub struct ModelSpec {
    /// Unique name; the C++ prefix is `V<name>` and the cosim target has the same name.
    pub name: &'static str,
    /// RTL top module (`rtl/<top>.v`), which is also the registered block's name.
    pub top: &'static str,
    /// Parameter overrides (`-G<name>=<value>`); parameters not named keep their RTL defaults.
    pub params: &'static [(&'static str, &'static str)],
}

/// Every model the harness can drive, in the order `inswitch cosim --block all` runs them. The output
/// queue is built at its default 256-bit data width and at 64 bits, so that the width parameter is
/// exercised in both the RTL and the model.
pub const MODELS: &[ModelSpec] = &[
    ModelSpec { name: "output_queue_w256", top: "output_queue", params: &[("DATA_WIDTH", "256")] },
    ModelSpec { name: "output_queue_w64", top: "output_queue", params: &[("DATA_WIDTH", "64")] },
    // The register slice of the packet-engine top (docs/blocks/axis_register.md) at a payload width that is
    // not a multiple of 32 (verif/blocks/axis_register.rs COSIM_WIDTH).
    ModelSpec { name: "axis_register", top: "axis_register", params: &[("WIDTH", "300")] },
    // The reduction unit has no parameters (docs/blocks/reduce_unit.md §Parameters).
    ModelSpec { name: "reduce_unit", top: "reduce_unit", params: &[] },
    // Issue 6: the data-path blocks at their defaults (docs/blocks/*.md).
    // The register space with a 16-entry CPU window (of the default 4096): resets' clearing sweeps stay
    // short and the stimulus meets the entries it wrote (verif/blocks/register_space.rs CPU_STATIC).
    // Its multicast table at 16 entries (of the default 8192, one per tree): the stimulus meets the trees it
    // wrote, and a reset's sweep stays short.
    ModelSpec { name: "register_space", top: "register_space", params: &[("CPU_STATIC_ENTRIES", "16"), ("MCAST_ENTRIES", "16")] },
    // The multicast table at the seed's size, 8192 trees in RAM (docs/blocks/register_space.md §Multicast
    // entries); the CPU window stays at the scoreboard's 16 (the full static window runs in packet_engine_full).
    ModelSpec { name: "register_space_full", top: "register_space", params: &[("CPU_STATIC_ENTRIES", "16")] },
    ModelSpec { name: "input_checker_w256", top: "input_checker", params: &[("DATA_WIDTH", "256")] },
    ModelSpec { name: "input_checker_w64", top: "input_checker", params: &[("DATA_WIDTH", "64")] },
    // The interposer with a 16-entry multicast table (fast, and trees share indexes: the tag is exercised),
    // and at the seed's size, 8192 entries, one per tree (docs/blocks/interposer.md §Multicast table).
    ModelSpec { name: "interposer", top: "interposer", params: &[("MCAST_ENTRIES", "16")] },
    ModelSpec { name: "interposer_full", top: "interposer", params: &[] },
    ModelSpec { name: "frame_builder_w256", top: "frame_builder", params: &[("DATA_WIDTH", "256")] },
    ModelSpec { name: "frame_builder_w64", top: "frame_builder", params: &[("DATA_WIDTH", "64")] },
    // Issue 6 point 4: completions for register reads and dropped non-posted requests.
    ModelSpec { name: "completion_builder", top: "completion_builder", params: &[("DATA_WIDTH", "256")] },
    // The collective processing unit with its timer tick scaled from 1024 to 16 cycles (docs/blocks/cpu.md
    // §Timers) and a small static table (16 of the default 4096 entries: the random messages' keys meet
    // the configured entries' tags, docs/blocks/cpu.md §Static table).
    ModelSpec { name: "cpu", top: "cpu", params: &[("STATIC_ENTRIES", "16"), ("TICK_CYCLES", "16")] },
    // The CPU at its largest tables (4096 static entries, one per CC_ID, the default; 16 tree slots, the
    // bound: 128 descriptors), whose data is in RAM (docs/blocks/cpu.md §Where the tables live).
    ModelSpec { name: "cpu_full", top: "cpu", params: &[("STATIC_ENTRIES", "4096"), ("DESCRIPTORS", "16"), ("TICK_CYCLES", "16")] },
    // The packet-engine top (docs/blocks/packet_engine.md) with a small CPU (5 static entries, 3 tree slots,
    // 16-cycle tick) and a 16-entry multicast table (a reset's clearing sweep lasts 16 cycles, not 8192) so
    // that the whole engine simulates at a usable speed.
    ModelSpec {
        name: "packet_engine",
        top: "packet_engine",
        params: &[("STATIC_ENTRIES", "5"), ("DESCRIPTORS", "3"), ("TICK_CYCLES", "16"), ("MCAST_ENTRIES", "16")],
    },
    // The top at the seed's static-table size (4096 entries, one per CC_ID, the default; issue 19): its
    // register space reaches every entry through STATIC_INDEX and the CPU's table is in RAM. The timer
    // tick and the multicast table stay small, as above.
    ModelSpec {
        name: "packet_engine_full",
        top: "packet_engine",
        params: &[("STATIC_ENTRIES", "4096"), ("TICK_CYCLES", "16"), ("MCAST_ENTRIES", "16")],
    },
];

/// A model verilated from a copy of `rtl/<top>.v` with one text replaced: a planted bug that the
/// differential fuzzer must find and the seeded regression misses (docs/verification.md §Differential
/// fuzzing). Linked like the others, never a cosim target. The build fails if `find` is gone from the RTL,
/// so the copy cannot drift from the real module.
pub struct PlantedModel {
    /// The model (its name is the Verilated model's).
    pub model: ModelSpec,
    /// Text of the real RTL to replace (exactly once).
    pub find: &'static str,
    /// The planted text.
    pub replace: &'static str,
}

/// The planted models. The one here: an off-by-one in the input checker's Soft Portals check "rt_count 0
/// going up", `count <= 1` for `count == 0`, which also drops a contribution of count 1.
pub const PLANTED_MODELS: &[PlantedModel] = &[PlantedModel {
    model: ModelSpec { name: "input_checker_planted", top: "input_checker", params: &[("DATA_WIDTH", "256")] },
    find: "(p_count == 20'd0 && !p_arm)",
    replace: "(p_count <= 20'd1 && !p_arm)",
}];

/// The models the differential fuzz targets drive (`fuzz/fuzz_targets/cosim_*.rs`): the ones build.rs
/// compiles with clang++ and SanitizerCoverage in an `rtl-sancov` build (`scripts/fuzz --rtl-coverage`),
/// so that libFuzzer counts their RTL edges. The suite checks this list against the targets
/// (tests/fuzz_targets.rs).
pub const FUZZED_MODELS: &[&str] =
    &["input_checker_w256", "input_checker_w64", "input_checker_planted", "interposer", "cpu", "packet_engine", "reduce_unit"];
