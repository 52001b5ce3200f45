// The packet engine's stat_event layout (docs/blocks/packet_engine.md), included inside module
// packet_engine (rtl/packet_engine.v).
// GENERATED from crates/model/src/packet_engine.rs (STAT_EVENT_FIELDS, from the blocks' event tables): do
// not edit; run `INSWITCH_BLESS=1 cargo test --release -p inswitch-model packet_engine_codes` (the same
// test checks it). The one-bit events are plain wires, hence UNUSEDPARAM off.

// verilator lint_off UNUSEDPARAM
// Event bits of each block, packed from bit 0 in this order; EVENT_WIDTH in all
localparam CHK_EVENTS = 21;
localparam IP_EVENTS = 3;
localparam OQ_EVENTS = 1;
localparam FB_EVENTS = 2;
localparam CPU_EVENTS = 1;
localparam CB_EVENTS = 4;
localparam EVENT_WIDTH = 32;
// verilator lint_on UNUSEDPARAM
