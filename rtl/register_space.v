// inswitch packet engine: register space (seed 000 [0154]-[0158], [0174]-[0178]; 002 (60)-(61), (86)).
//
// The engine's configuration registers, in a 4 KiB window at 0xC000 of its switch's address space
// ([0175]). Register table, interface and timing: docs/blocks/register_space.md.
// Rust model: crates/model/src/register_space/ (map.rs: offsets, layouts, decode).
//
//  s_reg (one DW access per beat: write/read, byte offset, byte enables, data, requester ID, tag)
//     |  decode; writes need CTRL.lock == 0 or s_reg_src == MASTER_ID
//  [ registers, PBV table, route shadows, static and multicast entries (RAM), counters ]
//     |                  |                          |
//  m_reg_rsp          cfg_* values,             pbv_rd_dev_id (combinational read)
//  (1 cycle later)    cfg_route_wr_* / cfg_mcast_wr_* pulses (1 cycle after the committing write)
//
// Offsets (bytes; DW k of the PBV table holds entries 2k (bits 15:0) and 2k+1 (bits 31:16)):
//   0x000-0x0FF PBV   0x100 ID (RO)   0x104 CTRL   0x108 MASTER_ID   0x10C ETHERTYPE   0x110 VENDOR_ID
//   0x114 VALIDATION  0x118 ERROR_REPORTING   0x11C RED_CFG_MODE   0x120 SUB_TIMEOUT   0x124 MASTER_TIMEOUT
//   0x130-0x13C RED_TIMEOUT0-3   0x140-0x148 RED_THRESHOLD0-2   0x150-0x15C VNI_ALLOWED0-3
//   0x200 + 8i route entry i {DW0 key, DW1 action: writing DW1 commits}
//   0x300 MCAST_INDEX t (12:0), 0x304 MCAST_KEY {31 valid, 12:0 t (RO)}: writing it commits the entry,
//   0x308 MCAST_WAIT, 0x30C MCAST_PORTS: the multicast entry of tree t, mapped while t < MCAST_ENTRIES, in
//   RAM (mcast_mem), reached as the static entries are (per requester, MCAST_INDEX_SLOTS slots; included
//   from register_space_mcast.vh)
//   0x400 + 4i counter i (0 rejected writes, 1 unmapped accesses, 2 + k stat_event[k]); writing clears
//   CPU window: 0x160 ENGINE_ID (RO, the strap)   0x164 ENGINE_SFA   0x168 RETRY_LIMIT
//   0x16C FAILURE (RO: the CPU's FAILURE status inputs cpu_fail_*, {valid, 6'd0, family, count, ctx})
//   0x500 + 4k PBV_FLAGS DW k {entry 2k: bit 0 valid, 1 switch; entry 2k+1: bit 16 valid, 17 switch}
//   0x600 STATIC_INDEX s (11:0), 0x604 STATIC_KEY / 0x608 STATIC_WAIT: CPU static entry s {word 0 key/family/role/valid,
//   word 1 wait count + [31] one target}, mapped while s < CPU_STATIC_ENTRIES. STATIC_INDEX is per requester
//   (STATIC_INDEX_SLOTS slots, round robin), so interleaved configuration streams reach their own entries.
//   The entries are kept in RAM (static_key_mem, static_wait_mem: one write, one synchronous read port); an
//   index write reads entry s into its slot's data registers (s_reg_ready low for that one cycle), a KEY/WAIT
//   write updates the RAM and every slot holding entry s. After a reset a sweep of CPU_STATIC_ENTRIES cycles
//   clears the RAM (s_reg_ready low meanwhile), and the multicast entries' RAM beside it (the longer table's
//   entries).
//
// CPU configuration bridge (docs/blocks/register_space.md §CPU window): every authorized write to a register the CPU
// holds a copy of (PBV table and flags, RED_TIMEOUT, RED_THRESHOLD, ENGINE_SFA, RED_CFG_MODE, RETRY_LIMIT,
// static entries) is forwarded as one CPU register write (docs/blocks/cpu.md §Ports) on cpu_cfg_wr_* in the next
// cycle; a PBV or PBV_FLAGS write enabling bytes of both entries gives two writes on consecutive cycles
// (s_reg_ready low for one cycle). After every reset the block first copies its reset values and the
// ENGINE_ID strap to the CPU's TIMEOUT..MODE registers (SYNC_WRITES writes, one per cycle, s_reg_ready
// low meanwhile), so the CPU never holds a value the register map does not show.
//
// Latency: an access taken at edge k has its response, its new cfg_* values and its table-write pulse
// on the outputs from cycle k+1. Throughput: one access per cycle with m_reg_rsp_ready high.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module register_space #
(
    // Route-table entries (the output queue's ROUTE_ENTRIES)
    parameter ROUTE_ENTRIES = 16,
    // Width of a route-table index (the output queue's ROUTE_INDEX_WIDTH)
    parameter ROUTE_INDEX_WIDTH = 4,
    // Width of an egress port number (the output queue's PORT_WIDTH)
    parameter PORT_WIDTH = 4,
    // Multicast entries, one per tree (the interposer's MCAST_ENTRIES; the seed's 8192, 002 (60)): the
    // trees MCAST_INDEX reaches
    parameter MCAST_ENTRIES = 8192,
    // External event counters (stat_event bits)
    parameter STAT_EVENTS = 32,
    // Static entries of the CPU (its STATIC_ENTRIES, docs/blocks/cpu.md §Ports): the entries STATIC_INDEX reaches
    parameter CPU_STATIC_ENTRIES = 4096
)
(
    input  wire                         clk,
    input  wire                         rst,

    /*
     * Register accesses (from the input checker)
     */
    input  wire                         s_reg_valid,
    output wire                         s_reg_ready,
    input  wire                         s_reg_write,
    input  wire [15:0]                  s_reg_addr,
    input  wire [3:0]                   s_reg_be,
    input  wire [31:0]                  s_reg_wdata,
    input  wire [15:0]                  s_reg_src,
    input  wire [9:0]                   s_reg_tag,

    /*
     * Engine device ID (strap): read-only ENGINE_ID register, copied to the CPU after reset
     */
    input  wire [15:0]                  cfg_engine_id,

    /*
     * The CPU's FAILURE status register (001's Failure flag): read-only FAILURE register
     */
    input  wire                         cpu_fail_valid,
    input  wire                         cpu_fail_family,
    input  wire [15:0]                  cpu_fail_ctx,
    input  wire [7:0]                   cpu_fail_count,

    /*
     * Responses (status 0 ok, 1 rejected, 2 unmapped)
     */
    output wire                         m_reg_rsp_valid,
    input  wire                         m_reg_rsp_ready,
    output wire                         m_reg_rsp_write,
    output wire [1:0]                   m_reg_rsp_status,
    output wire [31:0]                  m_reg_rsp_rdata,
    output wire [15:0]                  m_reg_rsp_src,
    output wire [9:0]                   m_reg_rsp_tag,
    output wire [15:0]                  m_reg_rsp_addr,
    output wire [3:0]                   m_reg_rsp_be,

    /*
     * Configuration values
     */
    output wire                         cfg_lock,
    output wire [15:0]                  cfg_master_id,
    output wire [15:0]                  cfg_ethertype,
    output wire [15:0]                  cfg_vendor_id,
    output wire [3:0]                   cfg_validation,
    output wire [7:0]                   cfg_error_reporting,
    output wire                         cfg_red_mode,
    output wire [23:0]                  cfg_sub_timeout,
    output wire [23:0]                  cfg_master_timeout,
    output wire [23:0]                  cfg_red_timeout0,
    output wire [23:0]                  cfg_red_timeout1,
    output wire [23:0]                  cfg_red_timeout2,
    output wire [23:0]                  cfg_red_timeout3,
    output wire [19:0]                  cfg_red_threshold0,
    output wire [19:0]                  cfg_red_threshold1,
    output wire [19:0]                  cfg_red_threshold2,
    output wire [3:0]                   cfg_vni_valid,
    output wire [63:0]                  cfg_vni,

    /*
     * Route-table write port (to the output queue)
     */
    output wire                         cfg_route_wr_en,
    output wire [ROUTE_INDEX_WIDTH-1:0] cfg_route_wr_index,
    output wire                         cfg_route_wr_valid,
    output wire [15:0]                  cfg_route_wr_dest_id,
    output wire [15:0]                  cfg_route_wr_dest_mask,
    output wire [PORT_WIDTH-1:0]        cfg_route_wr_port,

    /*
     * Multicast-table write port (to the interposer)
     */
    output wire                         cfg_mcast_wr_en,
    output wire                         cfg_mcast_wr_valid,
    output wire [12:0]                  cfg_mcast_wr_tree,
    output wire [19:0]                  cfg_mcast_wr_wait_count,
    output wire [15:0]                  cfg_mcast_wr_ports,

    /*
     * PBV table read port (to the collective processing unit)
     */
    input  wire [6:0]                   pbv_rd_index,
    output wire [15:0]                  pbv_rd_dev_id,

    /*
     * CPU configuration write port (to the CPU's cfg_wr_*, docs/blocks/cpu.md §Ports)
     */
    output wire                         cpu_cfg_wr_en,
    output wire [13:0]                  cpu_cfg_wr_addr,
    output wire [31:0]                  cpu_cfg_wr_data,

    /*
     * Event pulses counted by counters 2 + k
     */
    input  wire [STAT_EVENTS-1:0]       stat_event
);

// The register map: status codes STATUS_*, register offsets DW_* (DW index = byte offset / 4), table sizes,
// ID_VALUE and the reset values RESET_*, the CPU register addresses CPU_* the bridge writes and SYNC_WRITES
// (the post-reset copy: CPU registers TIMEOUT0 .. MODE, in address order), generated from
// crates/model/src/register_space/map.rs
`include "register_space_codes.vh"

localparam COUNTERS = INTERNAL_COUNTERS + STAT_EVENTS;
// DWs of each table in the window (a route entry is 2 DWs, a counter 1).
localparam [9:0] ROUTE_DWS = 2 * ROUTE_ENTRIES;
localparam [9:0] COUNTER_DWS = COUNTERS;
localparam [9:0] TIMEOUT_DWS = RED_TIMEOUTS;
localparam [9:0] THRESHOLD_DWS = RED_THRESHOLDS;
localparam [9:0] VNI_DWS = VNI_ENTRIES;
localparam [9:0] PBV_FLAGS_DWS = PBV_DWS;
// RAM address of a static entry; the entry count as a STATIC_INDEX_BITS+1-bit number (the range check).
localparam STATIC_ADDR_WIDTH = CPU_STATIC_ENTRIES > 1 ? $clog2(CPU_STATIC_ENTRIES) : 1;
localparam integer STATIC_COUNT_INT = CPU_STATIC_ENTRIES;
localparam [STATIC_INDEX_BITS:0] STATIC_COUNT = STATIC_COUNT_INT[STATIC_INDEX_BITS:0];
// A static entry in RAM: word 0 packed to its fields {valid, role[1:0], family, key[12:0]}, word 1
// {one target, wait count[19:0]}.
localparam STATIC_KEY_BITS = 17;
localparam STATIC_WAIT_BITS = 21;
// A multicast entry in RAM: {valid, wait count[19:0], ports[15:0]} (its tree is its address).
localparam MCAST_WORD_BITS = 37;
localparam MCAST_ADDR_WIDTH = MCAST_ENTRIES > 1 ? $clog2(MCAST_ENTRIES) : 1;
localparam integer MCAST_COUNT_INT = MCAST_ENTRIES;
localparam [MCAST_INDEX_BITS:0] MCAST_COUNT = MCAST_COUNT_INT[MCAST_INDEX_BITS:0];
// The post-reset sweep clears both RAMs, one entry of each a cycle, as long as the longer table.
localparam SWEEP_ENTRIES = CPU_STATIC_ENTRIES > MCAST_ENTRIES ? CPU_STATIC_ENTRIES : MCAST_ENTRIES;
localparam SWEEP_WIDTH = SWEEP_ENTRIES > 1 ? $clog2(SWEEP_ENTRIES) : 1;
localparam integer SWEEP_LAST_INT = SWEEP_ENTRIES - 1;
localparam [SWEEP_WIDTH-1:0] SWEEP_LAST = SWEEP_LAST_INT[SWEEP_WIDTH-1:0];
localparam [SWEEP_WIDTH:0] SWEEP_STATIC = STATIC_COUNT_INT[SWEEP_WIDTH:0];
localparam [SWEEP_WIDTH:0] SWEEP_MCAST = MCAST_COUNT_INT[SWEEP_WIDTH:0];

generate
    if (ROUTE_ENTRIES < 1 || ROUTE_ENTRIES > 32 || ROUTE_ENTRIES > (1 << ROUTE_INDEX_WIDTH)) begin : g_bad_routes
        register_space_bad_parameter_ROUTE_ENTRIES u_err();
    end
    if (MCAST_ENTRIES < 1 || MCAST_ENTRIES > (1 << MCAST_INDEX_BITS)) begin : g_bad_mcast
        register_space_bad_parameter_MCAST_ENTRIES u_err();
    end
    if (PORT_WIDTH < 1 || PORT_WIDTH > 8) begin : g_bad_port
        register_space_bad_parameter_PORT_WIDTH u_err();
    end
    if (STAT_EVENTS < 1 || STAT_EVENTS > 62) begin : g_bad_events
        register_space_bad_parameter_STAT_EVENTS u_err();
    end
    if (CPU_STATIC_ENTRIES < 1 || CPU_STATIC_ENTRIES > (1 << STATIC_INDEX_BITS)) begin : g_bad_static
        register_space_bad_parameter_CPU_STATIC_ENTRIES u_err();
    end
    // The static entries' CPU addresses are built as {CPU_STATIC / 2 + s, word}.
    if (CPU_STATIC[0] != 1'b0) begin : g_bad_cpu_static
        register_space_bad_map_CPU_STATIC_odd u_err();
    end
endgenerate

/*
 * Registers
 */
// The PBV table and its flags, in LUT RAM (docs/blocks/register_space.md §PBV table in RAM): word k is
// {PBV_FLAGS DW k [3:0], PBV DW k [31:0]}. One write port, two asynchronous read ports (the access's DW,
// also the write address, and pbv_rd_index), no reset: a reset clears pbv_written_reg, and a word not
// written since reads 0, its reset value. (Flip-flops with a reset were 2,304 bits and two 64:1 muxes.)
localparam PBV_WORD_BITS = 36;
reg [PBV_WORD_BITS-1:0] pbv_mem [0:PBV_DWS-1];
reg [PBV_DWS-1:0]       pbv_written_reg;
reg        lock_reg;
reg [15:0] master_id_reg;
reg [15:0] ethertype_reg;
reg [15:0] vendor_id_reg;
reg [3:0]  validation_reg;
reg [7:0]  error_reporting_reg;
reg        red_cfg_mode_reg;
reg [23:0] sub_timeout_reg;
reg [23:0] master_timeout_reg;
reg [23:0] red_timeout_reg [0:RED_TIMEOUTS-1];
reg [19:0] red_threshold_reg [0:RED_THRESHOLDS-1];
reg        vni_valid_reg [0:VNI_ENTRIES-1];
reg [15:0] vni_reg [0:VNI_ENTRIES-1];
reg [31:0] route_key_reg [0:ROUTE_ENTRIES-1];
reg        route_valid_reg [0:ROUTE_ENTRIES-1];
reg [7:0]  route_port_reg [0:ROUTE_ENTRIES-1];
reg [31:0] counter_reg [0:COUNTERS-1];
reg [31:0] engine_sfa_reg;
reg [3:0]  retry_limit_reg;
// The CPU static entries, in RAM (no reset: the sweep clears them). One write port (the sweep, else a
// STATIC_KEY / STATIC_WAIT write at STATIC_INDEX), one synchronous read port (an index write).
reg [STATIC_KEY_BITS-1:0]  static_key_mem [0:CPU_STATIC_ENTRIES-1];
reg [STATIC_WAIT_BITS-1:0] static_wait_mem [0:CPU_STATIC_ENTRIES-1];
reg [STATIC_KEY_BITS-1:0]  static_key_q;
reg [STATIC_WAIT_BITS-1:0] static_wait_q;
// STATIC_INDEX per requester: slot j holds a requester ID, its index and the data registers, the entry as
// the RAM holds it (loaded in the cycle after the index write, static_load_reg, into slot
// static_load_slot_reg, and written with the RAM). static_next_reg: the slot a new requester takes.
localparam SLOT_WIDTH = STATIC_INDEX_SLOTS > 1 ? $clog2(STATIC_INDEX_SLOTS) : 1;
reg                         slot_valid_reg [0:STATIC_INDEX_SLOTS-1];
reg [15:0]                  slot_src_reg [0:STATIC_INDEX_SLOTS-1];
reg [STATIC_INDEX_BITS-1:0] slot_index_reg [0:STATIC_INDEX_SLOTS-1];
reg [STATIC_KEY_BITS-1:0]   slot_key_reg [0:STATIC_INDEX_SLOTS-1];
reg [STATIC_WAIT_BITS-1:0]  slot_wait_reg [0:STATIC_INDEX_SLOTS-1];
reg [SLOT_WIDTH-1:0]        static_next_reg;
reg [STATIC_INDEX_SLOTS-1:0] static_load_slot_reg;
// The slot's index names an entry of the table (index < CPU_STATIC_ENTRIES), kept with the index so that
// an access's decode needs no compare after the slot lookup (issue 19: LUT depth).
reg                         slot_in_table_reg [0:STATIC_INDEX_SLOTS-1];
reg                         static_load_reg;
// The multicast entries, in RAM (no reset: the sweep clears them), and MCAST_INDEX per requester, as the
// static entries and STATIC_INDEX above (docs/blocks/register_space.md §Multicast entries).
reg [MCAST_WORD_BITS-1:0]   mcast_mem [0:MCAST_ENTRIES-1];
reg [MCAST_WORD_BITS-1:0]   mcast_q;
localparam MSLOT_WIDTH = MCAST_INDEX_SLOTS > 1 ? $clog2(MCAST_INDEX_SLOTS) : 1;
reg                         mslot_valid_reg [0:MCAST_INDEX_SLOTS-1];
reg [15:0]                  mslot_src_reg [0:MCAST_INDEX_SLOTS-1];
reg [MCAST_INDEX_BITS-1:0]  mslot_index_reg [0:MCAST_INDEX_SLOTS-1];
reg                         mslot_in_table_reg [0:MCAST_INDEX_SLOTS-1];
reg [MCAST_WORD_BITS-1:0]   mslot_word_reg [0:MCAST_INDEX_SLOTS-1];
reg [MSLOT_WIDTH-1:0]       mcast_next_reg;
reg [MCAST_INDEX_SLOTS-1:0] mcast_load_slot_reg;
reg                         mcast_load_reg;
// Post-reset clearing sweep of the RAMs.
reg                        sweep_reg;
reg [SWEEP_WIDTH-1:0]      sweep_index_reg;

reg        cpu_wr_en_reg, cpu_wr_en_next;
reg [13:0] cpu_wr_addr_reg, cpu_wr_addr_next;
reg [31:0] cpu_wr_data_reg, cpu_wr_data_next;
// Second write of a two-entry PBV / PBV_FLAGS access.
reg        cpu_pend_reg, cpu_pend_next;
reg [13:0] cpu_pend_addr_reg, cpu_pend_addr_next;
reg [31:0] cpu_pend_data_reg, cpu_pend_data_next;
// Post-reset copy to the CPU.
reg        sync_reg, sync_next;
reg [3:0]  sync_index_reg, sync_index_next;

reg        rsp_valid_reg, rsp_valid_next;
reg        rsp_write_reg, rsp_write_next;
reg [1:0]  rsp_status_reg, rsp_status_next;
reg [31:0] rsp_rdata_reg, rsp_rdata_next;
reg [15:0] rsp_src_reg, rsp_src_next;
reg [9:0]  rsp_tag_reg, rsp_tag_next;
reg [15:0] rsp_addr_reg, rsp_addr_next;
reg [3:0]  rsp_be_reg, rsp_be_next;

reg                         route_wr_en_reg, route_wr_en_next;
reg [ROUTE_INDEX_WIDTH-1:0] route_wr_index_reg, route_wr_index_next;
reg                         route_wr_valid_reg, route_wr_valid_next;
reg [31:0]                  route_wr_key_reg, route_wr_key_next;
reg [PORT_WIDTH-1:0]        route_wr_port_reg, route_wr_port_next;
reg                         mcast_wr_en_reg, mcast_wr_en_next;
reg                         mcast_wr_valid_reg, mcast_wr_valid_next;
reg [12:0]                  mcast_wr_tree_reg, mcast_wr_tree_next;
reg [19:0]                  mcast_wr_wait_reg, mcast_wr_wait_next;
reg [15:0]                  mcast_wr_ports_reg, mcast_wr_ports_next;

// No access while the CPU bridge has a write to finish (post-reset copy, second PBV entry), while an
// index write's RAM read is under way, or while the sweep clears the RAMs.
assign s_reg_ready = (!rsp_valid_reg || m_reg_rsp_ready) && !sync_reg && !cpu_pend_reg && !static_load_reg && !mcast_load_reg &&
                     !sweep_reg;

assign m_reg_rsp_valid = rsp_valid_reg;
assign m_reg_rsp_write = rsp_write_reg;
assign m_reg_rsp_status = rsp_status_reg;
assign m_reg_rsp_rdata = rsp_rdata_reg;
assign m_reg_rsp_src = rsp_src_reg;
assign m_reg_rsp_tag = rsp_tag_reg;
assign m_reg_rsp_addr = rsp_addr_reg;
assign m_reg_rsp_be = rsp_be_reg;

assign cpu_cfg_wr_en = cpu_wr_en_reg;
assign cpu_cfg_wr_addr = cpu_wr_addr_reg;
assign cpu_cfg_wr_data = cpu_wr_data_reg;

assign cfg_lock = lock_reg;
assign cfg_master_id = master_id_reg;
assign cfg_ethertype = ethertype_reg;
assign cfg_vendor_id = vendor_id_reg;
assign cfg_validation = validation_reg;
assign cfg_error_reporting = error_reporting_reg;
assign cfg_red_mode = red_cfg_mode_reg;
assign cfg_sub_timeout = sub_timeout_reg;
assign cfg_master_timeout = master_timeout_reg;
assign cfg_red_timeout0 = red_timeout_reg[0];
assign cfg_red_timeout1 = red_timeout_reg[1];
assign cfg_red_timeout2 = red_timeout_reg[2];
assign cfg_red_timeout3 = red_timeout_reg[3];
assign cfg_red_threshold0 = red_threshold_reg[0];
assign cfg_red_threshold1 = red_threshold_reg[1];
assign cfg_red_threshold2 = red_threshold_reg[2];
assign cfg_vni_valid = {vni_valid_reg[3], vni_valid_reg[2], vni_valid_reg[1], vni_valid_reg[0]};
assign cfg_vni = {vni_reg[3], vni_reg[2], vni_reg[1], vni_reg[0]};

assign cfg_route_wr_en = route_wr_en_reg;
assign cfg_route_wr_index = route_wr_index_reg;
assign cfg_route_wr_valid = route_wr_valid_reg;
assign cfg_route_wr_dest_id = route_wr_key_reg[15:0];
assign cfg_route_wr_dest_mask = route_wr_key_reg[31:16];
assign cfg_route_wr_port = route_wr_port_reg;
assign cfg_mcast_wr_en = mcast_wr_en_reg;
assign cfg_mcast_wr_valid = mcast_wr_valid_reg;
assign cfg_mcast_wr_tree = mcast_wr_tree_reg;
assign cfg_mcast_wr_wait_count = mcast_wr_wait_reg;
assign cfg_mcast_wr_ports = mcast_wr_ports_reg;

/* verilator lint_off UNUSEDSIGNAL */
wire [PBV_WORD_BITS-1:0] pbv_rd_word = pbv_written_reg[pbv_rd_index[6:1]] ? pbv_mem[pbv_rd_index[6:1]] : {PBV_WORD_BITS{1'b0}};
/* verilator lint_on UNUSEDSIGNAL */
assign pbv_rd_dev_id = pbv_rd_index[0] ? pbv_rd_word[31:16] : pbv_rd_word[15:0];

/*
 * Decode of the access offered this cycle
 */
wire        take = s_reg_valid && s_reg_ready;
wire [9:0]  dw = s_reg_addr[11:2];
wire [31:0] be_mask = {{8{s_reg_be[3]}}, {8{s_reg_be[2]}}, {8{s_reg_be[1]}}, {8{s_reg_be[0]}}};
wire        be_any = s_reg_be != 4'd0;
wire        authorized = !lock_reg || s_reg_src == master_id_reg;
// The PBV word of the access's DW (PBV DW k and PBV_FLAGS DW k share it: dw[5:0] = k for both).
wire [PBV_WORD_BITS-1:0] pbv_cur = pbv_written_reg[dw[5:0]] ? pbv_mem[dw[5:0]] : {PBV_WORD_BITS{1'b0}};
wire [3:0] flags_cur = pbv_cur[35:32];

// Index of a table entry from a DW offset (sized to the largest table; the range checks below do not
// use them, so only the bits that index a table are read).
/* verilator lint_off UNUSEDSIGNAL */
wire [9:0] rel_timeout = dw - DW_RED_TIMEOUT;
wire [9:0] rel_threshold = dw - DW_RED_THRESHOLD;
wire [9:0] rel_vni = dw - DW_VNI_ALLOWED;
wire [9:0] rel_route = dw - DW_ROUTE;
wire [9:0] rel_counter = dw - DW_COUNTERS;
/* verilator lint_on UNUSEDSIGNAL */

// dw in [base, base + dws): two compares with constants, not a subtract in series with a compare, so the
// access status (and the counters it increments) is a few LUT levels from the address (issue 19).
function in_range(input [9:0] a, input [9:0] base, input [9:0] dws);
    begin
        in_range = a >= base && {1'b0, a} < {1'b0, base} + {1'b0, dws};
    end
endfunction

wire is_pbv = dw < DW_ID;
wire is_timeout = in_range(dw, DW_RED_TIMEOUT, TIMEOUT_DWS);
wire is_threshold = in_range(dw, DW_RED_THRESHOLD, THRESHOLD_DWS);
wire is_vni = in_range(dw, DW_VNI_ALLOWED, VNI_DWS);
wire is_route = in_range(dw, DW_ROUTE, ROUTE_DWS);
wire is_counter = in_range(dw, DW_COUNTERS, COUNTER_DWS);
wire is_flags = in_range(dw, DW_PBV_FLAGS, PBV_FLAGS_DWS);
// The requester's slot of STATIC_INDEX, one-hot (a requester holds at most one slot: a slot is given only
// to a requester that has none), and what it holds, as AND-OR of the slots: no priority encoder and no
// multiplexer after the 32 compares (issue 19: this lookup was most of the block's 12 LUT levels).
reg [STATIC_INDEX_SLOTS-1:0] slot_match;
reg [STATIC_INDEX_BITS-1:0]  static_index_cur;
reg [STATIC_KEY_BITS-1:0]    static_key_cur;
reg [STATIC_WAIT_BITS-1:0]   static_wait_cur;
reg                          static_in_table;
// CPU word address of word 0 of the requester's entry over 2 (CPU_STATIC + 2s = 2 (CPU_STATIC / 2 + s)): the
// sum per slot, beside the compares, rather than after the lookup.
reg [12:0]                   static_cpu_half_cur;
integer j;
always @* begin
    static_index_cur = {STATIC_INDEX_BITS{1'b0}};
    static_key_cur = {STATIC_KEY_BITS{1'b0}};
    static_wait_cur = {STATIC_WAIT_BITS{1'b0}};
    static_in_table = 1'b0;
    static_cpu_half_cur = 13'd0;
    for (j = 0; j < STATIC_INDEX_SLOTS; j = j + 1) begin
        slot_match[j] = slot_valid_reg[j] && slot_src_reg[j] == s_reg_src;
        static_index_cur = static_index_cur | ({STATIC_INDEX_BITS{slot_match[j]}} & slot_index_reg[j]);
        static_key_cur = static_key_cur | ({STATIC_KEY_BITS{slot_match[j]}} & slot_key_reg[j]);
        static_wait_cur = static_wait_cur | ({STATIC_WAIT_BITS{slot_match[j]}} & slot_wait_reg[j]);
        // STATIC_KEY / STATIC_WAIT are mapped while the requester's STATIC_INDEX names an entry of the table.
        static_in_table = static_in_table | (slot_match[j] && slot_in_table_reg[j]);
        static_cpu_half_cur = static_cpu_half_cur |
                              ({13{slot_match[j]}} & (CPU_STATIC[13:1] + {{(13-STATIC_INDEX_BITS){1'b0}}, slot_index_reg[j]}));
    end
end
wire slot_hit = |slot_match;
// The slot an index write takes: the requester's, else the round robin's next one.
wire [STATIC_INDEX_SLOTS-1:0] slot_next = {{(STATIC_INDEX_SLOTS-1){1'b0}}, 1'b1} << static_next_reg;
wire [STATIC_INDEX_SLOTS-1:0] slot_take = slot_hit ? slot_match : slot_next;
wire is_sindex = dw == DW_STATIC_INDEX;
wire is_skey = dw == DW_STATIC_KEY && static_in_table;
wire is_swait = dw == DW_STATIC_WAIT && static_in_table;
wire is_static = is_skey || is_swait;
// The requester's slot of MCAST_INDEX and what it holds, as for STATIC_INDEX.
reg [MCAST_INDEX_SLOTS-1:0] mslot_match;
reg [MCAST_INDEX_BITS-1:0]  mcast_index_cur;
reg [MCAST_WORD_BITS-1:0]   mcast_word_cur;
reg                         mcast_in_table;
always @* begin
    mcast_index_cur = {MCAST_INDEX_BITS{1'b0}};
    mcast_word_cur = {MCAST_WORD_BITS{1'b0}};
    mcast_in_table = 1'b0;
    for (j = 0; j < MCAST_INDEX_SLOTS; j = j + 1) begin
        mslot_match[j] = mslot_valid_reg[j] && mslot_src_reg[j] == s_reg_src;
        mcast_index_cur = mcast_index_cur | ({MCAST_INDEX_BITS{mslot_match[j]}} & mslot_index_reg[j]);
        mcast_word_cur = mcast_word_cur | ({MCAST_WORD_BITS{mslot_match[j]}} & mslot_word_reg[j]);
        mcast_in_table = mcast_in_table | (mslot_match[j] && mslot_in_table_reg[j]);
    end
end
wire mslot_hit = |mslot_match;
wire [MCAST_INDEX_SLOTS-1:0] mslot_next = {{(MCAST_INDEX_SLOTS-1){1'b0}}, 1'b1} << mcast_next_reg;
wire [MCAST_INDEX_SLOTS-1:0] mslot_take = mslot_hit ? mslot_match : mslot_next;
wire is_mindex = dw == DW_MCAST_INDEX;
wire is_mkey = dw == DW_MCAST_KEY && mcast_in_table;
wire is_mwait = dw == DW_MCAST_WAIT && mcast_in_table;
wire is_mports = dw == DW_MCAST_PORTS && mcast_in_table;
wire is_mentry = is_mkey || is_mwait || is_mports;
wire is_single = dw == DW_ID || (dw >= DW_CTRL && dw <= DW_MASTER_TIMEOUT) ||
                 (dw >= DW_ENGINE_ID && dw <= DW_FAILURE);
wire mapped = is_pbv || is_single || is_timeout || is_threshold || is_vni || is_route || is_counter ||
              is_flags || is_sindex || is_static || is_mindex || is_mentry;
wire read_only = dw == DW_ID || dw == DW_ENGINE_ID || dw == DW_FAILURE;
// Word 0 of the data registers as the register reads: the packed fields at their bit positions.
wire [31:0] static_key_word = {static_key_cur[16], 9'd0, static_key_cur[15:14], 3'd0, static_key_cur[13], 3'd0, static_key_cur[12:0]};

wire [ROUTE_INDEX_WIDTH-1:0] route_i = rel_route[ROUTE_INDEX_WIDTH:1];

// Offsets are 12-bit byte offsets of DW registers: the window base and the byte lane are not decoded.
/* verilator lint_off UNUSEDSIGNAL */
wire unused_addr = &{1'b0, s_reg_addr[15:12], s_reg_addr[1:0]};
/* verilator lint_on UNUSEDSIGNAL */

reg [31:0] read_data;

integer i;

always @* begin
    read_data = 32'd0;
    if (is_pbv) begin
        read_data = pbv_cur[31:0];
    end else if (is_timeout) begin
        read_data = {8'd0, red_timeout_reg[rel_timeout[1:0]]};
    end else if (is_threshold) begin
        read_data = {12'd0, red_threshold_reg[rel_threshold[1:0]]};
    end else if (is_vni) begin
        read_data = {vni_valid_reg[rel_vni[1:0]], 15'd0, vni_reg[rel_vni[1:0]]};
    end else if (is_route) begin
        read_data = rel_route[0] ? {route_valid_reg[route_i], 23'd0, route_port_reg[route_i]} : route_key_reg[route_i];
    end else if (is_mindex) begin
        read_data = {{(32-MCAST_INDEX_BITS){1'b0}}, mcast_index_cur};
    end else if (is_mkey) begin
        read_data = {mcast_word_cur[36], {(31-MCAST_INDEX_BITS){1'b0}}, mcast_index_cur};
    end else if (is_mwait) begin
        read_data = {12'd0, mcast_word_cur[35:16]};
    end else if (is_mports) begin
        read_data = {16'd0, mcast_word_cur[15:0]};
    end else if (is_counter) begin
        read_data = counter_reg[rel_counter[5:0]];
    end else if (is_flags) begin
        read_data = {14'd0, flags_cur[3:2], 14'd0, flags_cur[1:0]};
    end else if (is_sindex) begin
        read_data = {{(32-STATIC_INDEX_BITS){1'b0}}, static_index_cur};
    end else if (is_skey) begin
        read_data = static_key_word;
    end else if (is_swait) begin
        read_data = {static_wait_cur[20], 11'd0, static_wait_cur[19:0]};
    end else begin
        case (dw)
            DW_ID: read_data = ID_VALUE;
            DW_CTRL: read_data = {31'd0, lock_reg};
            DW_MASTER_ID: read_data = {16'd0, master_id_reg};
            DW_ETHERTYPE: read_data = {16'd0, ethertype_reg};
            DW_VENDOR_ID: read_data = {16'd0, vendor_id_reg};
            DW_VALIDATION: read_data = {28'd0, validation_reg};
            DW_ERROR_REPORTING: read_data = {24'd0, error_reporting_reg};
            DW_RED_CFG_MODE: read_data = {31'd0, red_cfg_mode_reg};
            DW_SUB_TIMEOUT: read_data = {8'd0, sub_timeout_reg};
            DW_MASTER_TIMEOUT: read_data = {8'd0, master_timeout_reg};
            DW_ENGINE_ID: read_data = {16'd0, cfg_engine_id};
            DW_ENGINE_SFA: read_data = engine_sfa_reg;
            DW_RETRY_LIMIT: read_data = {28'd0, retry_limit_reg};
            DW_FAILURE: read_data = {cpu_fail_valid, 6'd0, cpu_fail_family, cpu_fail_count, cpu_fail_ctx};
            default: read_data = 32'd0;
        endcase
    end
end

wire [1:0] access_status = !mapped ? STATUS_UNMAPPED :
                           !s_reg_write ? STATUS_OK :
                           !authorized ? STATUS_REJECTED :
                           read_only ? STATUS_UNMAPPED : STATUS_OK;
// An authorized write to a writable register.
wire do_write = take && s_reg_write && access_status == STATUS_OK;

// The written value: the register as read, with the enabled bytes replaced. Each register keeps its
// own field bits of it (bits outside a field read as zero, so they stay zero).
wire [31:0] wr_value = (read_data & ~be_mask) | (s_reg_wdata & be_mask);

/*
 * CPU configuration bridge: the CPU's copy of a written register (docs/blocks/register_space.md §CPU window)
 */
// Fields of the PBV table and flags as they will be after this write.
wire [31:0] pbv_new = is_pbv ? wr_value : pbv_cur[31:0];
wire [3:0] flags_new = is_flags ? {wr_value[17:16], wr_value[1:0]} : flags_cur;
// CPU PBV-table word: [31] valid, [16] switch, [15:0] device ID.
wire [31:0] cpu_pbv_even = {flags_new[0], 14'd0, flags_new[1], pbv_new[15:0]};
wire [31:0] cpu_pbv_odd = {flags_new[2], 14'd0, flags_new[3], pbv_new[31:16]};
wire [31:0] mode_word = {20'd0, (dw == DW_RETRY_LIMIT) ? wr_value[3:0] : retry_limit_reg, 7'd0,
                         (dw == DW_RED_CFG_MODE) ? wr_value[0] : red_cfg_mode_reg};
wire pbv_half_even = s_reg_be[1:0] != 2'd0;
wire pbv_half_odd = s_reg_be[3:2] != 2'd0;

reg        fwd_en;
reg [13:0] fwd_addr;
reg [31:0] fwd_data;

always @* begin
    fwd_en = 1'b1;
    fwd_addr = 14'd0;
    fwd_data = wr_value;
    if ((is_pbv || is_flags) && pbv_half_even) begin
        fwd_addr = CPU_PBV + {7'd0, dw[5:0], 1'b0};
        fwd_data = cpu_pbv_even;
    end else if (is_pbv || is_flags) begin
        fwd_addr = CPU_PBV + {7'd0, dw[5:0], 1'b1};
        fwd_data = cpu_pbv_odd;
    end else if (is_timeout) begin
        fwd_addr = CPU_TIMEOUT + {12'd0, rel_timeout[1:0]};
        fwd_data = {8'd0, wr_value[23:0]};
    end else if (is_threshold) begin
        fwd_addr = CPU_THRESHOLD + {12'd0, rel_threshold[1:0]};
        fwd_data = {12'd0, wr_value[19:0]};
    end else if (dw == DW_ENGINE_SFA) begin
        fwd_addr = CPU_ENGINE_SFA;
    end else if (dw == DW_RED_CFG_MODE || dw == DW_RETRY_LIMIT) begin
        fwd_addr = CPU_MODE;
        fwd_data = mode_word;
    end else if (is_static) begin
        fwd_addr = {static_cpu_half_cur, is_swait};
        fwd_data = is_swait ? (wr_value & CPU_STATIC_WORD1_MASK) : (wr_value & CPU_STATIC_KEY_MASK);
    end else begin
        fwd_en = 1'b0;
    end
end

// Value of post-reset copy step i: CPU register 0x080 + i.
reg [31:0] sync_data;

always @* begin
    case (sync_index_reg)
        4'd0, 4'd1, 4'd2, 4'd3: sync_data = {8'd0, red_timeout_reg[sync_index_reg[1:0]]};
        4'd4, 4'd5, 4'd6: sync_data = {12'd0, red_threshold_reg[sync_index_reg[1:0]]};
        4'd7: sync_data = {16'd0, cfg_engine_id};
        4'd8: sync_data = engine_sfa_reg;
        default: sync_data = {20'd0, retry_limit_reg, 7'd0, red_cfg_mode_reg};
    endcase
end

/*
 * Responses and table-write pulses
 */
always @* begin
    rsp_valid_next = rsp_valid_reg && !m_reg_rsp_ready;
    rsp_write_next = rsp_write_reg;
    rsp_status_next = rsp_status_reg;
    rsp_rdata_next = rsp_rdata_reg;
    rsp_src_next = rsp_src_reg;
    rsp_tag_next = rsp_tag_reg;
    rsp_addr_next = rsp_addr_reg;
    rsp_be_next = rsp_be_reg;

    cpu_wr_en_next = 1'b0;
    cpu_wr_addr_next = cpu_wr_addr_reg;
    cpu_wr_data_next = cpu_wr_data_reg;
    cpu_pend_next = cpu_pend_reg;
    cpu_pend_addr_next = cpu_pend_addr_reg;
    cpu_pend_data_next = cpu_pend_data_reg;
    sync_next = sync_reg;
    sync_index_next = sync_index_reg;

    route_wr_en_next = 1'b0;
    route_wr_index_next = route_wr_index_reg;
    route_wr_valid_next = route_wr_valid_reg;
    route_wr_key_next = route_wr_key_reg;
    route_wr_port_next = route_wr_port_reg;
    mcast_wr_en_next = 1'b0;
    mcast_wr_valid_next = mcast_wr_valid_reg;
    mcast_wr_tree_next = mcast_wr_tree_reg;
    mcast_wr_wait_next = mcast_wr_wait_reg;
    mcast_wr_ports_next = mcast_wr_ports_reg;

    if (take) begin
        rsp_valid_next = 1'b1;
        rsp_write_next = s_reg_write;
        rsp_status_next = access_status;
        rsp_rdata_next = (!s_reg_write && mapped) ? read_data : 32'd0;
        rsp_src_next = s_reg_src;
        rsp_tag_next = s_reg_tag;
        rsp_addr_next = s_reg_addr;
        rsp_be_next = s_reg_be;
    end

    // At most one CPU write per cycle; no access is taken while sync_reg or cpu_pend_reg is set.
    if (sync_reg) begin
        cpu_wr_en_next = 1'b1;
        cpu_wr_addr_next = CPU_TIMEOUT + {10'd0, sync_index_reg};
        cpu_wr_data_next = sync_data;
        sync_index_next = sync_index_reg + 4'd1;
        sync_next = sync_index_reg != SYNC_WRITES - 4'd1;
    end else if (cpu_pend_reg) begin
        cpu_wr_en_next = 1'b1;
        cpu_wr_addr_next = cpu_pend_addr_reg;
        cpu_wr_data_next = cpu_pend_data_reg;
        cpu_pend_next = 1'b0;
    end else if (do_write && be_any && fwd_en) begin
        cpu_wr_en_next = 1'b1;
        cpu_wr_addr_next = fwd_addr;
        cpu_wr_data_next = fwd_data;
        if ((is_pbv || is_flags) && pbv_half_even && pbv_half_odd) begin
            cpu_pend_next = 1'b1;
            cpu_pend_addr_next = CPU_PBV + {7'd0, dw[5:0], 1'b1};
            cpu_pend_data_next = cpu_pbv_odd;
        end
    end

    if (do_write && be_any && is_route && rel_route[0]) begin
        route_wr_en_next = 1'b1;
        route_wr_index_next = route_i;
        route_wr_valid_next = wr_value[31];
        route_wr_key_next = route_key_reg[route_i];
        route_wr_port_next = wr_value[PORT_WIDTH-1:0];
    end
    // Writing MCAST_KEY commits the requester's entry to the interposer, whose table is indexed by the
    // tree too (docs/blocks/interposer.md §Multicast table): the pulse names the tree by the index.
    if (do_write && be_any && is_mkey) begin
        mcast_wr_en_next = 1'b1;
        mcast_wr_valid_next = wr_value[31];
        mcast_wr_tree_next = mcast_index_cur;
        mcast_wr_wait_next = mcast_word_cur[35:16];
        mcast_wr_ports_next = mcast_word_cur[15:0];
    end
end

/*
 * The PBV table's RAM: a PBV or PBV_FLAGS write writes the DW's whole word (the other half as it was)
 */
always @(posedge clk) begin
    if (do_write && (is_pbv || is_flags)) begin
        pbv_mem[dw[5:0]] <= {flags_new, pbv_new};
    end
end

/*
 * The static entries' RAM
 */
// An index write (any byte enabled) reads the new index's entry; the data registers take it next cycle.
wire [STATIC_INDEX_BITS-1:0] sindex_new = wr_value[STATIC_INDEX_BITS-1:0];
wire static_rd = do_write && be_any && is_sindex;
// Write port: the sweep writes 0 to one entry a cycle (while it is in this table), else a KEY / WAIT
// write its packed fields.
wire static_sweep = sweep_reg && {1'b0, sweep_index_reg} < SWEEP_STATIC;
wire static_key_we = static_sweep || (do_write && is_skey);
wire static_wait_we = static_sweep || (do_write && is_swait);
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0] skey_value = wr_value & CPU_STATIC_KEY_MASK;
wire [31:0] swait_value = wr_value & CPU_STATIC_WORD1_MASK;
/* verilator lint_on UNUSEDSIGNAL */
wire [STATIC_KEY_BITS-1:0] skey_packed = {skey_value[31], skey_value[21:20], skey_value[16], skey_value[12:0]};
wire [STATIC_WAIT_BITS-1:0] swait_packed = {swait_value[31], swait_value[19:0]};
wire [STATIC_ADDR_WIDTH-1:0] static_wr_addr = sweep_reg ? sweep_index_reg[STATIC_ADDR_WIDTH-1:0] : static_index_cur[STATIC_ADDR_WIDTH-1:0];

always @(posedge clk) begin
    if (static_key_we) begin
        static_key_mem[static_wr_addr] <= sweep_reg ? {STATIC_KEY_BITS{1'b0}} : skey_packed;
    end
    if (static_wait_we) begin
        static_wait_mem[static_wr_addr] <= sweep_reg ? {STATIC_WAIT_BITS{1'b0}} : swait_packed;
    end
    // An index beyond the table reads nothing (the data registers then hold a stale entry that no
    // access can reach: KEY / WAIT are unmapped).
    if (static_rd && {1'b0, sindex_new} < STATIC_COUNT) begin
        static_key_q <= static_key_mem[sindex_new[STATIC_ADDR_WIDTH-1:0]];
        static_wait_q <= static_wait_mem[sindex_new[STATIC_ADDR_WIDTH-1:0]];
    end
end

// The multicast entries' RAM and the MCAST_INDEX slots.
`include "register_space_mcast.vh"

// Counter increments this cycle: the register space's own two, then the external events.
wire [COUNTERS-1:0] counter_inc = {stat_event,
                                   take && access_status == STATUS_UNMAPPED,
                                   take && access_status == STATUS_REJECTED};

always @(posedge clk) begin
    rsp_valid_reg <= rsp_valid_next;
    rsp_write_reg <= rsp_write_next;
    rsp_status_reg <= rsp_status_next;
    rsp_rdata_reg <= rsp_rdata_next;
    rsp_src_reg <= rsp_src_next;
    rsp_tag_reg <= rsp_tag_next;
    rsp_addr_reg <= rsp_addr_next;
    rsp_be_reg <= rsp_be_next;
    cpu_wr_en_reg <= cpu_wr_en_next;
    cpu_wr_addr_reg <= cpu_wr_addr_next;
    cpu_wr_data_reg <= cpu_wr_data_next;
    cpu_pend_reg <= cpu_pend_next;
    cpu_pend_addr_reg <= cpu_pend_addr_next;
    cpu_pend_data_reg <= cpu_pend_data_next;
    sync_reg <= sync_next;
    sync_index_reg <= sync_index_next;
    static_load_reg <= static_rd;
    if (static_rd) begin
        // The requester's slot, or the next one (then the round robin moves on).
        for (i = 0; i < STATIC_INDEX_SLOTS; i = i + 1) begin
            if (slot_take[i]) begin
                slot_valid_reg[i] <= 1'b1;
                slot_src_reg[i] <= s_reg_src;
                slot_index_reg[i] <= sindex_new;
                slot_in_table_reg[i] <= {1'b0, sindex_new} < STATIC_COUNT;
            end
        end
        static_load_slot_reg <= slot_take;
        if (!slot_hit) begin
            static_next_reg <= static_next_reg + {{(SLOT_WIDTH-1){1'b0}}, 1'b1};
        end
    end
    if (static_load_reg) begin
        for (i = 0; i < STATIC_INDEX_SLOTS; i = i + 1) begin
            if (static_load_slot_reg[i]) begin
                slot_key_reg[i] <= static_key_q;
                slot_wait_reg[i] <= static_wait_q;
            end
        end
    end
    // A KEY / WAIT write reaches every slot that holds the entry (the RAM's copy in each).
    for (i = 0; i < STATIC_INDEX_SLOTS; i = i + 1) begin
        if (do_write && is_skey && slot_valid_reg[i] && slot_index_reg[i] == static_index_cur) begin
            slot_key_reg[i] <= skey_packed;
        end
        if (do_write && is_swait && slot_valid_reg[i] && slot_index_reg[i] == static_index_cur) begin
            slot_wait_reg[i] <= swait_packed;
        end
    end
    if (sweep_reg) begin
        sweep_index_reg <= sweep_index_reg + {{(SWEEP_WIDTH-1){1'b0}}, 1'b1};
        sweep_reg <= sweep_index_reg != SWEEP_LAST;
    end
    route_wr_en_reg <= route_wr_en_next;
    route_wr_index_reg <= route_wr_index_next;
    route_wr_valid_reg <= route_wr_valid_next;
    route_wr_key_reg <= route_wr_key_next;
    route_wr_port_reg <= route_wr_port_next;
    mcast_wr_en_reg <= mcast_wr_en_next;
    mcast_wr_valid_reg <= mcast_wr_valid_next;
    mcast_wr_tree_reg <= mcast_wr_tree_next;
    mcast_wr_wait_reg <= mcast_wr_wait_next;
    mcast_wr_ports_reg <= mcast_wr_ports_next;

    if (do_write) begin
        // A decoded set per word (a bit-select on the left-hand side with a variable index makes Yosys
        // build a shifter with a 32-bit subtraction in front: 14 LUT levels).
        for (i = 0; i < PBV_DWS; i = i + 1) begin
            if ((is_pbv || is_flags) && {26'd0, dw[5:0]} == i) begin
                pbv_written_reg[i] <= 1'b1;
            end
        end
        case (dw)
            DW_CTRL: lock_reg <= wr_value[0];
            DW_MASTER_ID: master_id_reg <= wr_value[15:0];
            DW_ETHERTYPE: ethertype_reg <= wr_value[15:0];
            DW_VENDOR_ID: vendor_id_reg <= wr_value[15:0];
            DW_VALIDATION: validation_reg <= wr_value[3:0];
            DW_ERROR_REPORTING: error_reporting_reg <= wr_value[7:0];
            DW_RED_CFG_MODE: red_cfg_mode_reg <= wr_value[0];
            DW_SUB_TIMEOUT: sub_timeout_reg <= wr_value[23:0];
            DW_MASTER_TIMEOUT: master_timeout_reg <= wr_value[23:0];
            DW_ENGINE_SFA: engine_sfa_reg <= wr_value;
            DW_RETRY_LIMIT: retry_limit_reg <= wr_value[3:0];
            default: ;
        endcase
        if (is_timeout) begin
            red_timeout_reg[rel_timeout[1:0]] <= wr_value[23:0];
        end
        if (is_threshold) begin
            red_threshold_reg[rel_threshold[1:0]] <= wr_value[19:0];
        end
        if (is_vni) begin
            vni_valid_reg[rel_vni[1:0]] <= wr_value[31];
            vni_reg[rel_vni[1:0]] <= wr_value[15:0];
        end
        if (is_route && !rel_route[0]) begin
            route_key_reg[route_i] <= wr_value;
        end
        if (is_route && rel_route[0]) begin
            route_valid_reg[route_i] <= wr_value[31];
            route_port_reg[route_i] <= wr_value[7:0];
        end
    end

    // Counters wrap; writing one clears it, an event in the same cycle still counts. The increment
    // is computed from the register alone and chosen by the event, which arrives late (issue 19).
    for (i = 0; i < COUNTERS; i = i + 1) begin
        if (do_write && be_any && is_counter && {26'd0, rel_counter[5:0]} == i) begin
            counter_reg[i] <= {31'd0, counter_inc[i]};
        end else if (counter_inc[i]) begin
            counter_reg[i] <= counter_reg[i] + 32'd1;
        end
    end

    if (rst) begin
        pbv_written_reg <= {PBV_DWS{1'b0}};
        lock_reg <= 1'b0;
        master_id_reg <= 16'd0;
        ethertype_reg <= RESET_ETHERTYPE;
        vendor_id_reg <= RESET_VENDOR_ID;
        validation_reg <= RESET_VALIDATION;
        error_reporting_reg <= 8'd0;
        red_cfg_mode_reg <= 1'b0;
        sub_timeout_reg <= RESET_SUB_TIMEOUT;
        master_timeout_reg <= RESET_MASTER_TIMEOUT;
        red_timeout_reg[0] <= RESET_RED_TIMEOUT0;
        red_timeout_reg[1] <= RESET_RED_TIMEOUT1;
        red_timeout_reg[2] <= RESET_RED_TIMEOUT2;
        red_timeout_reg[3] <= RESET_RED_TIMEOUT3;
        red_threshold_reg[0] <= RESET_RED_THRESHOLD0;
        red_threshold_reg[1] <= RESET_RED_THRESHOLD1;
        red_threshold_reg[2] <= RESET_RED_THRESHOLD2;
        for (i = 0; i < VNI_ENTRIES; i = i + 1) begin
            vni_valid_reg[i] <= 1'b0;
            vni_reg[i] <= 16'd0;
        end
        for (i = 0; i < ROUTE_ENTRIES; i = i + 1) begin
            route_key_reg[i] <= 32'd0;
            route_valid_reg[i] <= 1'b0;
            route_port_reg[i] <= 8'd0;
        end
        for (i = 0; i < COUNTERS; i = i + 1) begin
            counter_reg[i] <= 32'd0;
        end
        engine_sfa_reg <= 32'd0;
        retry_limit_reg <= RESET_RETRY_LIMIT;
        for (i = 0; i < STATIC_INDEX_SLOTS; i = i + 1) begin
            slot_valid_reg[i] <= 1'b0;
            slot_src_reg[i] <= 16'd0;
            slot_index_reg[i] <= {STATIC_INDEX_BITS{1'b0}};
            slot_in_table_reg[i] <= 1'b0;
            slot_key_reg[i] <= {STATIC_KEY_BITS{1'b0}};
            slot_wait_reg[i] <= {STATIC_WAIT_BITS{1'b0}};
        end
        static_next_reg <= {SLOT_WIDTH{1'b0}};
        static_load_slot_reg <= {STATIC_INDEX_SLOTS{1'b0}};
        static_load_reg <= 1'b0;
        sweep_reg <= 1'b1;
        sweep_index_reg <= {SWEEP_WIDTH{1'b0}};
        cpu_wr_en_reg <= 1'b0;
        cpu_wr_addr_reg <= 14'd0;
        cpu_wr_data_reg <= 32'd0;
        cpu_pend_reg <= 1'b0;
        cpu_pend_addr_reg <= 14'd0;
        cpu_pend_data_reg <= 32'd0;
        sync_reg <= 1'b1;
        sync_index_reg <= 4'd0;
        rsp_addr_reg <= 16'd0;
        rsp_be_reg <= 4'd0;
        rsp_valid_reg <= 1'b0;
        rsp_write_reg <= 1'b0;
        rsp_status_reg <= 2'd0;
        rsp_rdata_reg <= 32'd0;
        rsp_src_reg <= 16'd0;
        rsp_tag_reg <= 10'd0;
        route_wr_en_reg <= 1'b0;
        route_wr_index_reg <= {ROUTE_INDEX_WIDTH{1'b0}};
        route_wr_valid_reg <= 1'b0;
        route_wr_key_reg <= 32'd0;
        route_wr_port_reg <= {PORT_WIDTH{1'b0}};
        mcast_wr_en_reg <= 1'b0;
        mcast_wr_valid_reg <= 1'b0;
        mcast_wr_tree_reg <= 13'd0;
        mcast_wr_wait_reg <= 20'd0;
        mcast_wr_ports_reg <= 16'd0;
    end
end

endmodule

`resetall
