// inswitch packet engine: collective processing unit (seed 000 [0093], [0141]-[0144]; seed 001; seed 002
// (24)-(80)).
//
// Many concurrent collective contexts over the normalized collective messages of both wire families:
// a static context table (configuration, and the information an INITIALIZATION stores), a pool of
// descriptors (the dynamic state an ARM or an activation creates), the PBV table, four timeouts, the
// ratcheted state machine Idle -> Filling -> Full -> Exiting of seed 001 per descriptor, and the
// reduction unit for the arithmetic (rtl/reduce_shared.v: rtl/reduce_unit.v's combine and latency, its
// lanes through one shared datapath; it reads its operands, held, in the cycles after ISSUE).
// Specification: docs/blocks/cpu.md. Rust model: crates/model/src/cpu/ (the same registers, same names).
//
//  s_msg --> [msg_reg] --LOOKUP--> [lk_*] --COMPARE--> [cmp_*] --EXEC--> tables, stat, emission set-up
//                                                                \--ISSUE--> reduce_shared --REDUCE--> accumulator --CHECK
//  msg_reg (the template, from EXEC, CHECK or EXPIRE) + em_mask_reg / em_one_reg --EMIT--> [out_*_reg]
//  msg_reg + out_*_reg (a copy's DST and P_ID) --> m_msg
//
// One message or one timer expiry at a time (sequencer seq_reg, docs/blocks/cpu.md §Timing). Inside a cycle the
// writers of a register have a fixed priority: timer ticks, then the sequencer, then configuration.
//
// Packed records (offsets in rtl/collective_msg.vh and rtl/cpu_codes.vh): a message is MSG_W bits, a
// descriptor D_W, a static entry S_W. Their constructors and the helper functions are in
// rtl/cpu_records.vh (model: crates/model/src/cpu/records.rs).
//
// Read side by side with the model (crates/model/src/cpu/): after the registers, one section per
// sequencer step under a `// ==== NAME` banner that names the model's file and method, in the order of
// mod.rs: LOOKUP, EXECUTE, CHECK, EMIT, FINISH, EXPIRE. Each step is an `always @*` block that computes
// its outcome (`<step>_*` signals, the step's values for the registers it writes) from registers and
// inputs; the SEQUENCER section (`Cpu::step`) commits the outcome of the state seq_reg is in, and keeps
// the states of a few lines (IDLE, COMPARE, ISSUE, REDUCE, RATCHET) inline, as `step` does. A step is a process
// of its own rather than a task called from one process, so that `@*` sees every signal a step reads
// in any simulator, event-driven ones included.

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "collective_msg.vh"

module cpu #
(
    // Static context-table entries (docs/blocks/cpu.md §Static table), 1 to 4096: direct-mapped, context
    // key k in entry k mod STATIC_ENTRIES (4096: one per CC_ID, 000 [0169])
    parameter STATIC_ENTRIES = 4096,
    // Tree slots, 1 to 16: the trees live at once (002 (35): eight active trees per engine), each with
    // REDUCTIONS (8) descriptors, one per reduction id (002 (61)): DESCRIPTORS * 8 descriptors
    parameter DESCRIPTORS = 8,
    // Clock cycles per timer tick (002 (80): 1024; smaller values scale timeouts down for simulation);
    // a power of two, at least 2
    parameter TICK_CYCLES = 1024
)
(
    input  wire         clk,
    input  wire         rst,

    /*
     * Normalized collective messages in (docs/blocks/collective_message.md)
     */
    `COLLECTIVE_MSG_SINK_PORTS(s_msg),

    /*
     * Normalized collective messages out (to the frame builder)
     */
    `COLLECTIVE_MSG_SOURCE_PORTS(m_msg),

    /*
     * Register writes (docs/blocks/cpu.md §Ports)
     */
    input  wire         cfg_wr_en,
    input  wire [13:0]  cfg_wr_addr,
    input  wire [31:0]  cfg_wr_data,

    /*
     * Events: one per sequencer decision
     */
    output wire         stat_valid,
    output wire [5:0]   stat_event,
    output wire         stat_family,
    output wire [15:0]  stat_ctx,

    /*
     * FAILURE status register (docs/blocks/cpu.md §Ports): set with the event that sets a descriptor's Failure
     * flag (001): the event's family and context, and the count of such events since reset (saturating)
     */
    output wire         fail_valid,
    output wire         fail_family,
    output wire [15:0]  fail_ctx,
    output wire [7:0]   fail_count
);

localparam SIDX_W = STATIC_ENTRIES > 1 ? $clog2(STATIC_ENTRIES) : 1;
localparam TICK_W = $clog2(TICK_CYCLES);
localparam PBV_ENTRIES = 128;
localparam integer TICK_LAST_INT = TICK_CYCLES - 1;
localparam [TICK_W-1:0] TICK_LAST = TICK_LAST_INT[TICK_W-1:0];

generate
    if (STATIC_ENTRIES < 1 || STATIC_ENTRIES > 4096) begin : g_bad_static
        cpu_bad_parameter_STATIC_ENTRIES_must_be_1_to_4096 u_err();
    end
    if (DESCRIPTORS < 1 || DESCRIPTORS > 16) begin : g_bad_desc
        cpu_bad_parameter_DESCRIPTORS_must_be_1_to_16 u_err();
    end
    if (TICK_CYCLES < 2 || (1 << TICK_W) != TICK_CYCLES) begin : g_bad_tick
        cpu_bad_parameter_TICK_CYCLES_must_be_a_power_of_two u_err();
    end
endgenerate

/*
 * Message record (LSB first): `COLLECTIVE_MSG_BUS of rtl/collective_msg.vh, the fields of
 * docs/blocks/collective_message.md.
 */
localparam M_KIND = `COLLECTIVE_MSG_KIND_LSB, M_FAMILY = `COLLECTIVE_MSG_FAMILY_LSB,
           M_PORT = `COLLECTIVE_MSG_PORT_LSB, M_CTX = `COLLECTIVE_MSG_CTX_LSB, M_SRC = `COLLECTIVE_MSG_SRC_LSB,
           M_DST = `COLLECTIVE_MSG_DST_LSB, M_PID = `COLLECTIVE_MSG_PID_LSB, M_DMU = `COLLECTIVE_MSG_DMU_ID_LSB,
           M_COUNT = `COLLECTIVE_MSG_COUNT_LSB, M_CODE = `COLLECTIVE_MSG_CODE_LSB,
           M_POSTED = `COLLECTIVE_MSG_POSTED_LSB, M_TID = `COLLECTIVE_MSG_TID_LSB, M_VNI = `COLLECTIVE_MSG_VNI_LSB,
           M_COOKIE = `COLLECTIVE_MSG_COOKIE_LSB, M_SEQNO = `COLLECTIVE_MSG_SEQNO_LSB, M_OP = `COLLECTIVE_MSG_OP_LSB,
           M_RC = `COLLECTIVE_MSG_RC_LSB, M_RSM = `COLLECTIVE_MSG_REPSUM_M_LSB,
           M_OFLOW = `COLLECTIVE_MSG_REPSUM_OFLOW_ID_LSB, M_DATA = `COLLECTIVE_MSG_DATA_LSB,
           M_PBV = `COLLECTIVE_MSG_PBV_LSB, M_ERROR = `COLLECTIVE_MSG_ERROR_LSB, MSG_W = `COLLECTIVE_MSG_WIDTH;

/*
 * Codes and packed records: the command, completion, failure-reason, event, sequencer and
 * end-of-emission codes (CMD_*, CODE_*, WHY_*, EV_*, SEQ_*, FIN_*) and the field offsets of the
 * descriptor record (D_*, D_W bits: the dynamic state of a live context) and of the static-entry record
 * (S_*, S_W bits: configuration, and what an INITIALIZATION stores), docs/blocks/cpu.md §Context model. Generated from the
 * tables in crates/model/src/cpu/codes.rs.
 */
`include "cpu_codes.vh"

// The descriptors (docs/blocks/cpu.md §Descriptors): ND of them, descriptor slot * REDUCTIONS + rid for
// the tree in slot `slot` and its reduction id `rid` (REDUCTIONS a power of two).
localparam integer ND = DESCRIPTORS * REDUCTIONS;
localparam integer DIDX_W = $clog2(ND);
localparam integer RID_W = $clog2(REDUCTIONS);
localparam integer SLOT_W = DESCRIPTORS > 1 ? $clog2(DESCRIPTORS) : 1;
// The timer scan (§Timer scan below) visits SCAN_LANES descriptors a cycle, so that a whole pass (SCAN_WORDS
// cycles) fits between two ticks: the smallest power of two with ND / SCAN_LANES <= TICK_CYCLES.
function integer scan_lanes(input integer n, input integer t);
    integer i;
    begin
        scan_lanes = 1;
        for (i = 0; i < 8; i = i + 1) begin
            if ((n + scan_lanes - 1) / scan_lanes > t) scan_lanes = scan_lanes * 2;
        end
    end
endfunction
localparam integer SCAN_LANES = scan_lanes(ND, TICK_CYCLES);
localparam integer LANE_B = $clog2(SCAN_LANES);
localparam integer SCAN_WORDS = (ND + SCAN_LANES - 1) / SCAN_LANES;
localparam integer SWORD_W = SCAN_WORDS > 1 ? $clog2(SCAN_WORDS) : 1;
// A descriptor's slot, its scan lane and its word in the lane's RAM (the shifted index's top bits unused).
/* verilator lint_off UNUSEDSIGNAL */
function automatic [SLOT_W-1:0] slot_of(input [DIDX_W-1:0] i);
    reg [DIDX_W:0] r;
    begin
        r = {1'b0, i} >> RID_W;
        slot_of = r[SLOT_W-1:0];
    end
endfunction
function automatic integer lane_of(input [DIDX_W-1:0] i);
    lane_of = {{(32-DIDX_W){1'b0}}, i} % SCAN_LANES;
endfunction
function automatic [SWORD_W-1:0] word_of(input [DIDX_W-1:0] i);
    reg [DIDX_W:0] r;
    begin
        r = {1'b0, i} >> LANE_B;
        word_of = r[SWORD_W-1:0];
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */

generate
    if ((1 << RID_W) != REDUCTIONS || REDUCTIONS > 8) begin : g_bad_reductions
        cpu_reductions_must_be_a_power_of_two_up_to_8 u_err();
    end
endgenerate

// A static entry in two RAMs (§Static table below): the configured fields S_VALID..S_ONE_TARGET
// (ST_CFG_W bits: word 0's below S_WAIT, word 1's from it) and the stored context S_STORED..S_TID
// (ST_CTX_W bits), each a contiguous run of the generated record.
localparam integer ST_CFG_W = S_STORED, ST_CTX_W = S_W - S_STORED;
generate
    if (S_VALID != 0 || S_PORTALS != 1 || S_KEY != 2 || S_ROLE != S_KEY + 13 || S_WAIT != S_ROLE + 2
            || S_ONE_TARGET != S_WAIT + 20 || S_STORED != S_ONE_TARGET + 1 || S_PBV != S_STORED + 1
            || S_PCOUNT != S_PBV + 128 || S_OP != S_PCOUNT + 20 || S_DATA != S_OP + 6 || S_DMU != S_DATA + 256
            || S_UPSTREAM != S_DMU + 16 || S_POSTED != S_UPSTREAM + 16 || S_TID != S_POSTED + 1
            || S_W != S_TID + 2) begin : g_bad_layout
        cpu_static_entry_layout_must_keep_the_stored_context_contiguous u_err();
    end
endgenerate

// Message kinds (docs/blocks/collective_message.md)
`COLLECTIVE_MSG_KINDS
// Roles
localparam [1:0] ROLE_MASTER = 2'd1;
// Collective state machine (001)
localparam [1:0] CS_IDLE = 2'd0, CS_FILLING = 2'd1, CS_FULL = 2'd2, CS_EXITING = 2'd3;
localparam [3:0] RC_CONTR_OVERFLOW = 4'd7;
localparam [15:0] NO_PARTICIPANT = 16'hffff;
localparam [9:0] SEQNO_RESERVED = 10'd1023;
localparam [19:0] COUNT_MAX = 20'hfffff;
// Reset values of the engine registers (crates/model/src/cpu/config.rs)
localparam [23:0] TIMEOUT_RESET = 24'd1024;
localparam [19:0] THRESHOLD_RESET = 20'hfffff;
localparam [3:0] RETRY_LIMIT_RESET = 4'd3;

/*
 * Record constructors and helper functions (model: crates/model/src/cpu/records.rs): functions of their
 * arguments only, included after the localparams they use.
 */
`include "cpu_records.vh"

/*
 * Registers.
 */
reg [3:0]          seq_reg, seq_next;
reg [MSG_W-1:0]    msg_reg, msg_next;
reg                lk_s_hit_reg, lk_s_hit_next;
reg [SIDX_W-1:0]   lk_s_idx_reg, lk_s_idx_next;
reg                lk_d_hit_reg, lk_d_hit_next;
reg [DIDX_W-1:0]   lk_d_idx_reg, lk_d_idx_next;
reg                lk_f_hit_reg, lk_f_hit_next;
reg [DIDX_W-1:0]   lk_f_idx_reg, lk_f_idx_next;
reg                lk_p_hit_reg, lk_p_hit_next;
reg [6:0]          lk_p_idx_reg, lk_p_idx_next;
reg                lk_p_sender_reg, lk_p_sender_next; // the requester is entry lk_p_idx's device
reg [DIDX_W-1:0]   cur_reg, cur_next;
// The outgoing message's template is written into msg_reg (the model's `msg` too) by EXEC, CHECK and EXPIRE:
// no state reads the latched message after the step that sets a template (ISSUE and REDUCE read it
// as the contribution, on paths that set none), so one 626-bit register serves both. What EMIT's
// acknowledgement needs of the latched message and the template may have replaced (its requester and
// TID) EXEC keeps in ack_src_reg and ack_tid_reg.
reg [31:0]         ack_src_reg, ack_src_next;
reg [1:0]          ack_tid_reg, ack_tid_next;
reg [127:0]        em_mask_reg, em_mask_next;
reg                em_one_reg, em_one_next;
reg                em_ack_reg, em_ack_next;     // the single message is `acknowledged`, not the template
reg                em_keep_pid_reg, em_keep_pid_next; // copies keep the template's P_ID (a relayed INITIALIZATION)
reg                em_one_target_reg, em_one_target_next; // copies of a one-target master: ROUND_DONE, no result (003 [0052], [0060])
reg [2:0]          fin_reg, fin_next;
reg [1:0]          rat_target_reg, rat_target_next;
// The output register (docs/blocks/cpu.md §Timing "Output register"): m_msg is msg_reg as EMIT left it
// (the template, or the acknowledgement EMIT writes there), a PBV copy's DST and P_ID (and a one-target
// master's ROUND_DONE) applied on the way out. msg_reg does not change while m_msg_valid is high: the
// sequencer leaves IDLE (a message or an expiry, the only ways to a new template) only once the output
// register is empty, and EMIT writes msg_reg and out_*_reg only when the register is free.
reg                out_copy_reg, out_copy_next;       // m_msg is a PBV copy of msg_reg, else msg_reg as is
reg [15:0]         out_dst_reg, out_dst_next;         // the copy's device ID (its DST)
reg                out_keep_pid_reg, out_keep_pid_next; // the copy keeps msg_reg's P_ID (a relayed INITIALIZATION)
reg [6:0]          out_pid_reg, out_pid_next;         // else its P_ID: the PBV bit
reg                out_round_done_reg, out_round_done_next; // the copy is a one-target master's ROUND_DONE
reg                out_valid_reg, out_valid_next;
reg                stat_valid_reg, stat_valid_next;
reg [5:0]          stat_event_reg, stat_event_next;
reg                stat_family_reg, stat_family_next;
reg [15:0]         stat_ctx_reg, stat_ctx_next;
reg                fail_mark;                   // this decision sets a Failure flag
reg                fail_valid_reg;
reg                fail_family_reg;
reg [15:0]         fail_ctx_reg;
reg [7:0]          fail_count_reg;
reg [TICK_W-1:0]   tick_cnt_reg, tick_cnt_next;
reg                tick_reg;        // tick_cnt_reg == TICK_LAST, registered a cycle ahead (cpu_descriptors.vh)

// Engine registers and PBV table
reg [23:0]         timeout_reg [0:3];
reg [23:0]         timeout_next [0:3];
reg [19:0]         threshold_reg [0:2];
reg [19:0]         threshold_next [0:2];
reg [15:0]         engine_id_reg, engine_id_next;
reg [31:0]         engine_sfa_reg, engine_sfa_next;
reg                ieee_reg, ieee_next;
reg [3:0]          retry_limit_reg, retry_limit_next;
// PBV table (docs/blocks/cpu.md §PBV table): the valid and switch bits in flip-flops (EMIT, the relay set
// and the participant checks read them as vectors), the device IDs in the RAM pbv_dev_mem below.
reg [127:0]        pbv_valid_reg, pbv_valid_next;
reg [127:0]        pbv_switch_reg, pbv_switch_next;

// Context tables (docs/blocks/cpu.md §Context model, "Where the tables live"). The static table is in
// the RAMs st_cfg_mem and st_ctx_mem below (direct-mapped: no search). The descriptors are in the RAM
// d_mem below, indexed by (tree slot, reduction id); what is read every cycle is one bit per descriptor
// (valid, expired, due) and one tree tag per slot, in flip-flops (§Descriptors below).
reg [ND-1:0]       d_valid_reg, d_valid_next;
reg [ND-1:0]       d_exp_reg, d_exp_next;
reg [ND-1:0]       d_due_reg, d_due_next;
reg [13:0]         slot_tag_reg [0:DESCRIPTORS-1];   // {family, tree}: the tree of the slot's live descriptors
reg [24:0]         now_reg;                          // ticks since reset, modulo 2^25 (§Timer scan)
reg [24:0]         now1_reg, now2_reg;               // now_reg + 1, now_reg + 2 (no adder after the tick)

// The PBV table's device IDs in RAM: PBV_WORDS words of PBV_SCAN_ENTRIES IDs (entry i in word
// i / PBV_SCAN_ENTRIES, bits 16 (i mod PBV_SCAN_ENTRIES) + 15 : 16 (i mod PBV_SCAN_ENTRIES)), one RAM per
// 16-bit slot so that a configuration write is a plain word write. One read address for every slot
// (pbv_raddr_reg, registered: the word the next state reads, below): state SCAN compares a whole word
// per cycle (the reverse lookup), LOOKUP reads the word of the message's P_ID, EMIT the word of its
// next PBV bit. The RAM is not reset: an entry's device ID is read only while its valid bit (a
// flip-flop, cleared by reset) is set, and a write sets both.
localparam integer PBV_WORDS = PBV_ENTRIES / PBV_SCAN_ENTRIES;
localparam integer PBV_SLOT_W = $clog2(PBV_SCAN_ENTRIES);
localparam integer PBV_WADDR_W = 7 - PBV_SLOT_W;
generate
    if (PBV_SCAN_ENTRIES < 2 || PBV_SCAN_ENTRIES > 64 || (1 << PBV_SLOT_W) != PBV_SCAN_ENTRIES) begin : g_bad_scan
        cpu_pbv_scan_entries_must_be_a_power_of_two_from_2_to_64 u_err();
    end
endgenerate
reg [PBV_WADDR_W-1:0]          pbv_raddr_reg;
wire [16*PBV_SCAN_ENTRIES-1:0] pbv_dev_rd;
// The reverse lookup in two steps a cycle apart (§SCAN): a cycle of SCAN compares one word and registers
// which of its slots match (scan_vec_reg) and the word (scan_word_reg); the next cycle (the next SCAN,
// or LOOKUP after the last word) picks the lowest of them. So no cycle holds a RAM read, 32 compares and
// a priority encoder in series (docs/performance.md §CPU SCAN and input checker stage D).
reg [PBV_SCAN_ENTRIES-1:0]     scan_vec_reg, scan_vec_next;
reg [PBV_WADDR_W-1:0]          scan_word_reg, scan_word_next;

/*
 * Outputs.
 */
wire any_expired;
wire [DIDX_W-1:0] first_expired;

assign s_msg_ready = seq_reg == SEQ_IDLE && !out_valid_reg && !any_expired && !rst && !sweep_reg;
assign m_msg_valid = out_valid_reg;
// The output message (0 while m_msg_valid is low: msg_reg is then the sequencer's).
reg [MSG_W-1:0] out_msg;
always @* begin
    out_msg = {MSG_W{1'b0}};
    if (out_valid_reg) begin
        out_msg = msg_reg;
        if (out_copy_reg) begin
            out_msg[M_DST +: 32] = {16'd0, out_dst_reg};
            if (!out_keep_pid_reg) out_msg[M_PID +: 16] = {9'd0, out_pid_reg};
            // Reduce to one target (003 [0052], [0060]): the participants learn the round is over, not
            // its result (model: Cpu::without_result).
            if (out_round_done_reg) begin
                out_msg[M_CODE +: 4] = CODE_ROUND_DONE;
                out_msg[M_DATA +: 256] = 256'd0;
                out_msg[M_RC +: 4] = 4'd0;
                out_msg[M_RSM +: 8] = 8'd0;
                out_msg[M_OFLOW +: 2] = 2'd0;
            end
        end
    end
end
assign `COLLECTIVE_MSG_BUS(m_msg) = out_msg;
assign stat_valid = stat_valid_reg;
assign stat_event = stat_event_reg;
assign stat_family = stat_family_reg;
assign stat_ctx = stat_ctx_reg;
assign fail_valid = fail_valid_reg;
assign fail_family = fail_family_reg;
assign fail_ctx = fail_ctx_reg;
assign fail_count = fail_count_reg;

/*
 * Fields of the latched message and of the entries it matched.
 */
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0]   m_kind = msg_reg[M_KIND +: 4];
wire         m_portals = msg_reg[M_FAMILY];
wire [7:0]   m_port = msg_reg[M_PORT +: 8];
wire [15:0]  m_ctx = msg_reg[M_CTX +: 16];
wire [31:0]  m_src = msg_reg[M_SRC +: 32];
wire [31:0]  m_dst = msg_reg[M_DST +: 32];
wire [15:0]  m_pid = msg_reg[M_PID +: 16];
// A TLP INITIALIZATION's P_ID is the device ID of the engine it is for (docs/blocks/cpu.md §Messages): the PBV-table
// reverse lookup matches it instead of the requester.
// A configuration message (FIG. 4) reaches the CPU only when it names another engine: the same.
wire         m_init_tlp = !msg_reg[M_FAMILY] && (m_kind == K_INIT || m_kind == K_CONFIGURATION);
wire [15:0]  p_who = m_init_tlp ? m_pid : m_src[15:0];
// An INITIALIZATION or configuration message for an engine below: relayed (docs/blocks/cpu.md §Messages).
wire         m_for_below = m_pid != NO_PARTICIPANT && m_pid != engine_id_reg;
wire [15:0]  m_dmu = msg_reg[M_DMU +: 16];
wire [19:0]  m_count = msg_reg[M_COUNT +: 20];
wire [3:0]   m_code = msg_reg[M_CODE +: 4];
wire         m_posted = msg_reg[M_POSTED];
wire [1:0]   m_tid = msg_reg[M_TID +: 2];
wire [15:0]  m_vni = msg_reg[M_VNI +: 16];
wire [31:0]  m_cookie = msg_reg[M_COOKIE +: 32];
wire [9:0]   m_seqno = msg_reg[M_SEQNO +: 10];
wire [5:0]   m_op = msg_reg[M_OP +: 6];
wire [3:0]   m_rc = msg_reg[M_RC +: 4];
wire [7:0]   m_rsm = msg_reg[M_RSM +: 8];
wire [1:0]   m_oflow = msg_reg[M_OFLOW +: 2];
wire [255:0] m_data = msg_reg[M_DATA +: 256];
wire [127:0] m_pbv = msg_reg[M_PBV +: 128];

// The message with the engine as requester (000 [0097]).
wire [MSG_W-1:0] m_rewritten = {msg_reg[MSG_W-1:M_SRC+32], 16'd0, engine_id_reg, msg_reg[M_SRC-1:0]};

// The static table (docs/blocks/cpu.md §Static table), direct-mapped: context key k (TLP CC_ID, Portals
// tree) has entry k mod STATIC_ENTRIES (st_index), which holds the key and family as its tag. Two RAMs
// with one synchronous read port each, both read at st_raddr_reg (registered: the entry the next state
// reads, so the port reads it in the cycle it is used; a read of the entry written at the same edge sees
// the new value):
//   st_cfg_mem: S_VALID..S_ONE_TARGET, written by the configuration port only;
//   st_ctx_mem: S_STORED..S_TID, the stored context, written by the sequencer only (EXEC, and FINISH's
//   next round), whole words: the entry it read, changed.
// No flip-flop per entry (docs/blocks/cpu.md §Where the tables live, "Reset" and "Two writers"):
//   - a reset starts a clearing sweep (sweep_reg, sweep_idx_reg): STATIC_ENTRIES cycles, one entry a
//     cycle, that write 0 to both RAMs (each through its one write port: the sequencer is held, s_msg_ready
//     low, and a configuration write of a static entry is ignored while the sweep runs);
//   - word 0 of a configuration write makes a new context (stored and tid read 0) through a stamp bit per
//     RAM: st_cfg_mem's top bit (c, written by the configuration) and st_ctx_mem's (q, written by the
//     sequencer); the entry is new while c != q. A word-0 write sets c to the inverse of q, read from
//     st_q_mem (a copy of the q bits with a combinational read port at the configuration's address); the
//     sequencer's write of an entry sets q to the c it read (no longer new), or keeps q if a word-0 write
//     of the same entry comes at the same edge (the configuration wins, as in the model).
reg [ST_CFG_W:0]         st_cfg_mem [0:STATIC_ENTRIES-1];
reg [ST_CTX_W:0]         st_ctx_mem [0:STATIC_ENTRIES-1];
reg                      st_q_mem [0:STATIC_ENTRIES-1];
reg [SIDX_W-1:0]         st_raddr_reg;
reg                      sweep_reg;
reg [SIDX_W-1:0]         sweep_idx_reg;
wire [ST_CFG_W:0]        st_cfg_rd = st_cfg_mem[st_raddr_reg];
wire [ST_CTX_W:0]        st_ctx_rd = st_ctx_mem[st_raddr_reg];
wire                     st_new = st_cfg_rd[ST_CFG_W] ^ st_ctx_rd[ST_CTX_W];
reg [S_W-1:0]            st_ent;     // the entry at st_raddr_reg, as the model's table holds it
always @* begin
    st_ent = {st_ctx_rd[ST_CTX_W-1:0], st_cfg_rd[ST_CFG_W-1:0]};
    if (st_new) begin
        st_ent[S_STORED] = 1'b0;
        st_ent[S_TID +: 2] = 2'd0;
    end
end

// The static entry of context key `key` (13 bits: a Portals tree, or a TLP CC_ID with bit 12 clear):
// key mod STATIC_ENTRIES, a bit slice when STATIC_ENTRIES is a power of two.
localparam        ST_POW2 = (STATIC_ENTRIES & (STATIC_ENTRIES - 1)) == 0;
localparam [12:0] ST_N = STATIC_ENTRIES[12:0];
localparam [12:0] ST_MASK = ST_N - 13'd1;
function automatic [SIDX_W-1:0] st_index(input [12:0] key);
    reg [12:0] r;
    begin
        r = ST_POW2 ? (key & ST_MASK) : (key % ST_N);
        st_index = r[SIDX_W-1:0];
    end
endfunction

// The descriptors in RAM (docs/blocks/cpu.md §Descriptors), one word of D_W bits each, read the same way:
// in EXEC the message's descriptor (lk_d_idx_reg), in every other state the current one (cur_reg), which
// is also the descriptor the sequencer writes back. The word's D_VALID bit is unused (d_valid_reg) and its
// D_EXPIRED bit is the timer's form `dl` (d_exp_reg holds expired): 1 while the timer runs, its D_TIMER
// field then the tick count now_reg reaches at its expiry (a deadline), else the timer itself.
reg [D_W-1:0]            d_mem [0:ND-1];
reg [DIDX_W-1:0]         d_raddr_reg;
reg [ND-1:0]             d_ok_reg;        // written since reset (an unwritten descriptor reads 0)
wire [D_W-1:0]           d_rd = d_mem[d_raddr_reg];
// The read word's timer (§Timer scan): rd_dl, stored as a deadline (it ran when written); rd_run, still
// running (the word's other fields are as written, and only a tick's expiry stops a timer unwritten);
// rd_t, the deadline or the stopped timer's ticks.
reg                      rd_ok_reg;       // d_ok_reg[d_raddr_reg], a cycle ahead (cpu_descriptors.vh)
wire                     rd_dl = rd_ok_reg && d_rd[D_EXPIRED];
wire                     rd_run = rd_dl && !d_exp_reg[d_raddr_reg];
wire [24:0]              rd_t = d_rd[D_TIMER +: 25];
reg [D_W-1:0]            d_word;          // the descriptor as the model holds it, before this cycle's tick
always @* begin
    d_word = {D_W{1'b0}};
    if (rd_ok_reg) begin
        d_word = d_rd;
        d_word[D_VALID] = d_valid_reg[d_raddr_reg];
        d_word[D_EXPIRED] = d_exp_reg[d_raddr_reg];
        // A running timer's deadline, back to the ticks it has left (0 once a tick expired it).
        if (d_rd[D_EXPIRED]) d_word[D_TIMER +: 25] = d_exp_reg[d_raddr_reg] ? 25'd0 : rd_t - now_reg;
    end
end

wire [D_W-1:0] dx = d_word;      // its live descriptor (EXEC)
wire [D_W-1:0] dcur = d_word;    // the descriptor being worked on
// The static entry of the message (LOOKUP, EXEC) and the one of the descriptor being worked on (every
// other state): both are the RAMs' read port, which reads the entry the state needs (st_raddr, below).
wire [S_W-1:0] sx = st_ent;
wire [S_W-1:0] scur = st_ent;
/* verilator lint_on UNUSEDSIGNAL */

wire [1:0]   s_role = sx[S_ROLE +: 2];
wire         s_stored = sx[S_STORED];
wire [127:0] s_pbv = sx[S_PBV +: 128];
wire [19:0]  s_pcount = sx[S_PCOUNT +: 20];
wire [1:0]   s_tid = sx[S_TID +: 2];
wire [15:0]  s_upstream = sx[S_UPSTREAM +: 16];
wire [1:0]   tid_behind = s_tid - m_tid;
wire [11:0]  tlp_key = m_ctx[11:0];
reg [11:0]   s_idx12;                      // lk_s_idx_reg, as the descriptor's D_SIDX field
always @* begin
    s_idx12 = 12'd0;
    s_idx12[SIDX_W-1:0] = lk_s_idx_reg;
end

/*
 * Timer ticks (docs/blocks/cpu.md §Timers; model: the tick loop of `Cpu::step`).
 */
wire tick = tick_reg;
// The tick count after this cycle's tick, and the next tick's (a deadline equal to it is due).
wire [24:0] now_next = tick ? now1_reg : now_reg;
wire [24:0] now_next_1 = tick ? now2_reg : now1_reg;
// The descriptor the sequencer works on: the message's in COMPARE and EXEC, else the current one; with
// its tick. (The RAM's read address, d_raddr_reg, is sel_idx in every cycle.)
wire [DIDX_W-1:0] sel_idx = (seq_reg == SEQ_COMPARE || seq_reg == SEQ_EXEC) ? lk_d_idx_reg : cur_reg;
// The tick (the model's tick loop in `Cpu::step`) without timer arithmetic in series: a running timer
// expires at this tick exactly when its due bit is set (its deadline is now_reg + 1: the due bits are
// exact at every tick, §Timer scan), and has rd_t - now_next ticks left after it (0 when it expires). A
// timer not running (rd_run low: not timer_runs) takes no tick.
wire           rd_tick_exp = tick && rd_run && d_due_reg[d_raddr_reg];
reg [D_W-1:0]  dsel;
always @* begin
    dsel = d_word;
    if (rd_run) begin
        dsel[D_TIMER +: 25] = rd_t - now_next;
        dsel[D_EXPIRED] = rd_tick_exp;
    end
end
genvar g;

// The one descriptor and the one static entry the sequencer writes this cycle (each step's outcome
// starts from dsel, its descriptor with the tick, and from sx). The sequencer writes the stored context
// of a static entry only (st_ctx_mem): su's configured fields are not read.
reg [DIDX_W-1:0] du_idx;
reg [D_W-1:0]    du;
reg              du_tld;          // du's timer is a load (EXEC's fresh descriptor, FINISH), not dsel's
reg [SIDX_W-1:0] su_idx;
/* verilator lint_off UNUSEDSIGNAL */
reg [S_W-1:0]    su;
/* verilator lint_on UNUSEDSIGNAL */

// ==== LOOKUP (model: crates/model/src/cpu/lookup.rs `Cpu::lookup`) ====
`include "cpu_lookup.vh"

// ==== EXECUTE (model: crates/model/src/cpu/execute.rs `Cpu::exec`) ====
`include "cpu_execute.vh"

// ==== CHECK (model: crates/model/src/cpu/check.rs `Cpu::check`) ====
`include "cpu_check.vh"

// ==== EMIT (model: crates/model/src/cpu/emit.rs `Cpu::emit`) ====
`include "cpu_emit.vh"

// ==== FINISH (model: crates/model/src/cpu/finish.rs `Cpu::finish`) ====
`include "cpu_finish.vh"

// ==== EXPIRE (model: crates/model/src/cpu/expire.rs `Cpu::expire`) ====
`include "cpu_expire.vh"

// ==== SEQUENCER (model: `Cpu::step`, crates/model/src/cpu/mod.rs) ====

/*
 * The reduction unit: one operand pair in state ISSUE (accumulator, contribution), held through REDUCE
 * (the descriptor RAM's word at cur_reg and msg_reg are not written before the result), as
 * reduce_shared's contract asks.
 */
wire         ru_out_valid;
wire [5:0]   ru_out_rt_op;
wire [255:0] ru_out_rt_data;
wire [3:0]   ru_out_rt_rc;
wire [7:0]   ru_out_rt_repsum_m;
wire [1:0]   ru_out_rt_repsum_oflow_id;

reduce_shared u_reduce (
    .clk(clk),
    .rst(rst),
    .in_valid(seq_reg == SEQ_ISSUE),
    .cfg_mode(ieee_reg),
    .a_rt_op(dcur[D_ACC_OP +: 6]),
    .a_rt_data(dcur[D_ACC_DATA +: 256]),
    .a_rt_rc(dcur[D_ACC_RC +: 4]),
    .a_rt_repsum_m(dcur[D_ACC_RSM +: 8]),
    .a_rt_repsum_oflow_id(dcur[D_ACC_OFLOW +: 2]),
    .a_sfa(dcur[D_ACC_SFA +: 32]),
    .b_rt_op(m_op),
    .b_rt_data(m_data),
    .b_rt_rc(m_rc),
    .b_rt_repsum_m(m_rsm),
    .b_rt_repsum_oflow_id(m_oflow),
    .b_sfa(m_src),
    .out_valid(ru_out_valid),
    .out_rt_op(ru_out_rt_op),
    .out_rt_data(ru_out_rt_data),
    .out_rt_rc(ru_out_rt_rc),
    .out_rt_repsum_m(ru_out_rt_repsum_m),
    .out_rt_repsum_oflow_id(ru_out_rt_repsum_oflow_id)
);

wire [MSG_W-1:0] s_msg_packed = `COLLECTIVE_MSG_BUS(s_msg);

always @* begin
    seq_next = seq_reg;
    msg_next = msg_reg;
    lk_s_hit_next = lk_s_hit_reg;
    lk_s_idx_next = lk_s_idx_reg;
    lk_d_hit_next = lk_d_hit_reg;
    lk_d_idx_next = lk_d_idx_reg;
    lk_f_hit_next = lk_f_hit_reg;
    lk_f_idx_next = lk_f_idx_reg;
    lk_p_hit_next = lk_p_hit_reg;
    lk_p_idx_next = lk_p_idx_reg;
    scan_vec_next = scan_vec_reg;
    scan_word_next = scan_word_reg;
    lk_p_sender_next = lk_p_sender_reg;
    cur_next = cur_reg;
    ack_src_next = ack_src_reg;
    ack_tid_next = ack_tid_reg;
    em_mask_next = em_mask_reg;
    em_one_next = em_one_reg;
    em_ack_next = em_ack_reg;
    em_keep_pid_next = em_keep_pid_reg;
    em_one_target_next = em_one_target_reg;
    fin_next = fin_reg;
    rat_target_next = rat_target_reg;
    out_copy_next = out_copy_reg;
    out_dst_next = out_dst_reg;
    out_keep_pid_next = out_keep_pid_reg;
    out_pid_next = out_pid_reg;
    out_round_done_next = out_round_done_reg;
    out_valid_next = out_valid_reg && !m_msg_ready;
    du_idx = sel_idx;
    du = dsel;
    du_tld = 1'b0;
    su_idx = lk_s_idx_reg;
    su = sx;
    stat_valid_next = 1'b0;
    stat_event_next = 6'd0;
    stat_family_next = 1'b0;
    stat_ctx_next = 16'd0;
    fail_mark = 1'b0;

    // Each state commits its step's outcome; the writers of a register have a fixed priority inside
    // the cycle: timer ticks (dsel), then this, then configuration (below).
    case (seq_reg)
        // ==== IDLE (model: the sequencer's start in `Cpu::step`)
        SEQ_IDLE: begin
            // Nothing starts while the output register holds a message: it is read from msg_reg.
            if (out_valid_reg) begin
                seq_next = SEQ_IDLE;
            end else if (any_expired) begin
                cur_next = first_expired;
                seq_next = SEQ_EXPIRE;
            end else if (s_msg_valid && !sweep_reg) begin
                msg_next = s_msg_packed;
                if (needs_scan(s_msg_packed[M_FAMILY], s_msg_packed[M_KIND +: 4], s_msg_packed[M_PID +: 16])) begin
                    lk_p_hit_next = 1'b0;
                    lk_p_idx_next = 7'd0;
                    scan_vec_next = {PBV_SCAN_ENTRIES{1'b0}};
                    seq_next = SEQ_SCAN;
                end else begin
                    seq_next = SEQ_LOOKUP;
                end
            end
        end
        // ==== SCAN (lookup.rs `Cpu::scan`): one word of the device-ID RAM per cycle, the first hit kept.
        // The word's matches are registered here and resolved in the next cycle (the previous word's
        // now; the last word's in LOOKUP), which keeps the model's cycles and result.
        SEQ_SCAN: begin
            scan_vec_next = scan_match;
            scan_word_next = pbv_raddr_reg;
            lk_p_hit_next = scan_hit;
            lk_p_idx_next = scan_idx;
            if (scan_last) seq_next = SEQ_LOOKUP;
        end
        // ==== LOOKUP (lookup.rs)
        SEQ_LOOKUP: begin
            lk_s_hit_next = lookup_s_hit;
            lk_s_idx_next = lookup_s_idx;
            lk_d_hit_next = lookup_d_hit;
            lk_d_idx_next = lookup_d_idx;
            lk_f_hit_next = lookup_f_hit;
            lk_f_idx_next = lookup_f_idx;
            lk_p_hit_next = lookup_p_hit;
            lk_p_idx_next = lookup_p_idx;
            lk_p_sender_next = lookup_p_sender;
            seq_next = SEQ_COMPARE;
        end
        // ==== COMPARE: the message's descriptor read, its compares registered (cmp_*_reg, cpu_execute.vh)
        SEQ_COMPARE: begin
            seq_next = SEQ_EXEC;
        end
        // ==== EXECUTE (execute.rs)
        SEQ_EXEC: begin
            seq_next = exec_seq;
            cur_next = exec_cur;
            msg_next = exec_tmpl;
            ack_src_next = m_src;
            ack_tid_next = m_tid;
            em_mask_next = exec_em_mask;
            em_one_next = exec_em_one;
            em_ack_next = exec_em_ack;
            em_keep_pid_next = exec_em_keep_pid;
            fin_next = exec_fin;
            rat_target_next = exec_rat_target;
            du_idx = exec_du_idx;
            du = exec_du;
            du_tld = exec_tld;
            su = exec_su;
            fail_mark = exec_fail;
            stat_valid_next = 1'b1;
            stat_event_next = exec_ev;
            stat_family_next = m_portals;
            stat_ctx_next = m_ctx;
        end
        // ==== ISSUE, REDUCE
        SEQ_ISSUE: begin
            seq_next = SEQ_REDUCE;
        end
        SEQ_REDUCE: begin
            if (ru_out_valid) begin
                du[D_ACC_OP +: 6] = ru_out_rt_op;
                du[D_ACC_DATA +: 256] = ru_out_rt_data;
                du[D_ACC_RC +: 4] = ru_out_rt_rc;
                du[D_ACC_RSM +: 8] = ru_out_rt_repsum_m;
                du[D_ACC_OFLOW +: 2] = ru_out_rt_repsum_oflow_id;
                if (dcur[D_STATE +: 2] == CS_IDLE) du[D_STATE +: 2] = CS_FILLING;
                seq_next = SEQ_CHECK;
            end
        end
        // ==== CHECK (check.rs)
        SEQ_CHECK: begin
            seq_next = check_seq;
            du = check_du;
            msg_next = check_tmpl;
            em_mask_next = check_em_mask;
            em_one_next = check_em_one;
            em_one_target_next = check_em_one_target;
            fin_next = check_fin;
            rat_target_next = check_rat_target;
            if (check_complete) begin
                stat_valid_next = 1'b1;
                stat_event_next = EV_COMPLETE;
                stat_family_next = dcur[D_PORTALS];
                stat_ctx_next = dcur[D_KEY +: 16];
            end
        end
        // ==== RATCHET
        SEQ_RATCHET: begin
            // One state step per cycle (001).
            if (dcur[D_STATE +: 2] != rat_target_reg) begin
                du[D_STATE +: 2] = dcur[D_STATE +: 2] + 2'd1;
            end else begin
                seq_next = SEQ_EMIT;
            end
        end
        // ==== EMIT (emit.rs)
        SEQ_EMIT: begin
            seq_next = emit_seq;
            if (emit_send) begin
                out_valid_next = 1'b1;
                out_copy_next = emit_copy;
                out_dst_next = emit_dst;
                out_keep_pid_next = em_keep_pid_reg;
                out_pid_next = em_b;
                out_round_done_next = em_one_target_reg;
                if (!emit_copy && em_ack_reg) msg_next = acknowledged;
            end
            em_mask_next = emit_em_mask;
            em_one_next = emit_em_one;
            em_ack_next = emit_em_ack;
            em_keep_pid_next = emit_em_keep_pid;
            em_one_target_next = emit_em_one_target;
        end
        // ==== FINISH (finish.rs)
        SEQ_FINISH: begin
            seq_next = SEQ_IDLE;
            du = finish_du;
            du_tld = finish_tld;
            su_idx = finish_su_idx;
            su = finish_su;
        end
        // ==== EXPIRE (expire.rs)
        SEQ_EXPIRE: begin
            seq_next = expire_seq;
            du = expire_du;
            msg_next = expire_tmpl;
            em_mask_next = expire_em_mask;
            em_one_next = expire_em_one;
            em_one_target_next = expire_em_one_target;
            fin_next = expire_fin;
            rat_target_next = expire_rat_target;
            fail_mark = expire_fail;
            stat_valid_next = 1'b1;
            stat_event_next = expire_ev;
            stat_family_next = dcur[D_PORTALS];
            stat_ctx_next = dcur[D_KEY +: 16];
        end
        default: begin
            seq_next = SEQ_IDLE;
        end
    endcase
end

/*
 * Register writes (docs/blocks/cpu.md §Ports; model: `Cpu::config_write`, crates/model/src/cpu/config.rs).
 */
integer k;
wire [PBV_ENTRIES-1:0] cfg_pbv_sel;
generate
    for (g = 0; g < PBV_ENTRIES; g = g + 1) begin : g_cfg_pbv
        assign cfg_pbv_sel[g] = cfg_wr_en && cfg_wr_addr < CFG_TIMEOUT && cfg_wr_addr[6:0] == g[6:0];
    end
endgenerate

always @* begin
    engine_id_next = engine_id_reg;
    engine_sfa_next = engine_sfa_reg;
    ieee_next = ieee_reg;
    retry_limit_next = retry_limit_reg;
    pbv_valid_next = pbv_valid_reg;
    pbv_switch_next = pbv_switch_reg;
    for (k = 0; k < 4; k = k + 1) timeout_next[k] = timeout_reg[k];
    for (k = 0; k < 3; k = k + 1) threshold_next[k] = threshold_reg[k];

    // A PBV-table entry's bits by one compare per entry with its constant index (cfg_pbv_sel): an index
    // `x[cfg_wr_addr[6:0]] = ...` is a shifter chain in Yosys, the CPU's deepest stage after session 22's
    // COMPARE (docs/performance.md §FPGA mapping, session 22).
    for (k = 0; k < PBV_ENTRIES; k = k + 1) begin
        if (cfg_pbv_sel[k]) begin
            pbv_valid_next[k] = cfg_wr_data[31];
            pbv_switch_next[k] = cfg_wr_data[16];
        end
    end
    if (cfg_wr_en) begin
        if (cfg_wr_addr < CFG_TIMEOUT) begin
            // The PBV table's entry: above.
        end else if (cfg_wr_addr < CFG_THRESHOLD) begin
            timeout_next[cfg_wr_addr[1:0]] = cfg_wr_data[23:0];
        end else if (cfg_wr_addr < CFG_ENGINE_ID) begin
            threshold_next[cfg_wr_addr[1:0]] = cfg_wr_data[19:0];
        end else if (cfg_wr_addr == CFG_ENGINE_ID) begin
            engine_id_next = cfg_wr_data[15:0];
        end else if (cfg_wr_addr == CFG_ENGINE_SFA) begin
            engine_sfa_next = cfg_wr_data;
        end else if (cfg_wr_addr == CFG_MODE) begin
            ieee_next = cfg_wr_data[0];
            retry_limit_next = cfg_wr_data[11:8];
        end
    end
end

always @* begin
    tick_cnt_next = tick ? {TICK_W{1'b0}} : tick_cnt_reg + 1'b1;
end

// ==== STATIC TABLE STORAGE: its write ports and the clearing sweep ====
`include "cpu_static.vh"

// ==== DESCRIPTOR STORAGE AND TIMER SCAN (EXEC's load level reads the static table's write port) ====
`include "cpu_descriptors.vh"

/*
 * The PBV table's device-ID RAM (declared with the registers): written by the configuration port (a PBV-table
 * entry's word), read at pbv_raddr_reg, the word the next state reads: the next one in SCAN (the first
 * when SCAN starts), the P_ID's before LOOKUP, else the word of the next PBV bit EMIT sends to.
 */
wire                   cfg_pbv_we = cfg_wr_en && !rst && cfg_wr_addr < CFG_TIMEOUT;
/* verilator lint_off UNUSEDSIGNAL */
wire [15:0]            msg_in_pid = msg_in[M_PID +: 16];
/* verilator lint_on UNUSEDSIGNAL */
// The word of the next PBV bit: the lowest word of the next mask with a bit set (0 if none), from one OR
// per word and a PBV_WORDS-bit priority, not from the bit's 7-bit index (a second 128-bit lowest-bit
// search after the emission's own: that pair was the CPU's longest path, 162 cells, docs/performance.md
// §CPU SCAN and input checker stage D). The mask of EXEC and EMIT, else the held one: CHECK and EXPIRE
// go on to RATCHET or IDLE, which read no device ID, and RATCHET sets the address from the held mask
// before EMIT (their masks left this path, docs/performance.md §FPGA mapping, session 23).
wire [127:0]           em_mask_rd = seq_reg == SEQ_EXEC ? exec_em_mask : seq_reg == SEQ_EMIT ? emit_em_mask : em_mask_reg;
reg [PBV_WADDR_W-1:0]  em_next_word;
integer                w;
always @* begin
    em_next_word = {PBV_WADDR_W{1'b0}};
    for (w = PBV_WORDS - 1; w >= 0; w = w - 1) begin
        if (|em_mask_rd[PBV_SCAN_ENTRIES*w +: PBV_SCAN_ENTRIES]) em_next_word = w[PBV_WADDR_W-1:0];
    end
end
wire [PBV_WADDR_W-1:0] pbv_raddr = next_scan ? (seq_reg == SEQ_SCAN ? pbv_raddr_reg + 1'b1 : {PBV_WADDR_W{1'b0}})
                                 : next_lookup ? msg_in_pid[PBV_SLOT_W +: PBV_WADDR_W]
                                 : em_next_word;

generate
    for (g = 0; g < PBV_SCAN_ENTRIES; g = g + 1) begin : g_pbv_dev
        reg [15:0] pbv_dev_mem [0:PBV_WORDS-1];
        always @(posedge clk) begin
            if (cfg_pbv_we && cfg_wr_addr[PBV_SLOT_W-1:0] == g[PBV_SLOT_W-1:0]) begin
                pbv_dev_mem[cfg_wr_addr[6:PBV_SLOT_W]] <= cfg_wr_data[15:0];
            end
        end
        assign pbv_dev_rd[16*g +: 16] = pbv_dev_mem[pbv_raddr_reg];
    end
endgenerate

always @(posedge clk) begin
    pbv_raddr_reg <= pbv_raddr;
end

always @(posedge clk) begin
    seq_reg <= seq_next;
    msg_reg <= msg_next;
    lk_s_hit_reg <= lk_s_hit_next;
    lk_s_idx_reg <= lk_s_idx_next;
    lk_d_hit_reg <= lk_d_hit_next;
    lk_d_idx_reg <= lk_d_idx_next;
    lk_f_hit_reg <= lk_f_hit_next;
    lk_f_idx_reg <= lk_f_idx_next;
    lk_p_hit_reg <= lk_p_hit_next;
    lk_p_idx_reg <= lk_p_idx_next;
    scan_vec_reg <= scan_vec_next;
    scan_word_reg <= scan_word_next;
    lk_p_sender_reg <= lk_p_sender_next;
    cur_reg <= cur_next;
    ack_src_reg <= ack_src_next;
    ack_tid_reg <= ack_tid_next;
    em_mask_reg <= em_mask_next;
    em_one_reg <= em_one_next;
    em_ack_reg <= em_ack_next;
    em_keep_pid_reg <= em_keep_pid_next;
    em_one_target_reg <= em_one_target_next;
    fin_reg <= fin_next;
    rat_target_reg <= rat_target_next;
    out_copy_reg <= out_copy_next;
    out_dst_reg <= out_dst_next;
    out_keep_pid_reg <= out_keep_pid_next;
    out_pid_reg <= out_pid_next;
    out_round_done_reg <= out_round_done_next;
    out_valid_reg <= out_valid_next;
    stat_valid_reg <= stat_valid_next;
    stat_event_reg <= stat_event_next;
    stat_family_reg <= stat_family_next;
    stat_ctx_reg <= stat_ctx_next;
    tick_cnt_reg <= tick_cnt_next;
    engine_id_reg <= engine_id_next;
    engine_sfa_reg <= engine_sfa_next;
    ieee_reg <= ieee_next;
    retry_limit_reg <= retry_limit_next;
    pbv_valid_reg <= pbv_valid_next;
    pbv_switch_reg <= pbv_switch_next;
    for (k = 0; k < 4; k = k + 1) timeout_reg[k] <= timeout_next[k];
    for (k = 0; k < 3; k = k + 1) threshold_reg[k] <= threshold_next[k];
    if (fail_mark) begin
        // FAILURE status register: the event that set a Failure flag (its family and context).
        fail_valid_reg <= 1'b1;
        fail_family_reg <= stat_family_next;
        fail_ctx_reg <= stat_ctx_next;
        fail_count_reg <= (fail_count_reg == 8'hff) ? 8'hff : fail_count_reg + 8'd1;
    end

    if (rst) begin
        // Everything is reset, data included, so model and RTL agree on every bit afterwards.
        seq_reg <= SEQ_IDLE;
        msg_reg <= {MSG_W{1'b0}};
        lk_s_hit_reg <= 1'b0;
        lk_s_idx_reg <= {SIDX_W{1'b0}};
        lk_d_hit_reg <= 1'b0;
        lk_d_idx_reg <= {DIDX_W{1'b0}};
        lk_f_hit_reg <= 1'b0;
        lk_f_idx_reg <= {DIDX_W{1'b0}};
        lk_p_hit_reg <= 1'b0;
        lk_p_idx_reg <= 7'd0;
        scan_vec_reg <= {PBV_SCAN_ENTRIES{1'b0}};
        scan_word_reg <= {PBV_WADDR_W{1'b0}};
        lk_p_sender_reg <= 1'b0;
        cur_reg <= {DIDX_W{1'b0}};
        ack_src_reg <= 32'd0;
        ack_tid_reg <= 2'd0;
        em_mask_reg <= 128'd0;
        em_one_reg <= 1'b0;
        em_ack_reg <= 1'b0;
        em_keep_pid_reg <= 1'b0;
        em_one_target_reg <= 1'b0;
        fin_reg <= FIN_NONE;
        rat_target_reg <= CS_IDLE;
        out_copy_reg <= 1'b0;
        out_dst_reg <= 16'd0;
        out_keep_pid_reg <= 1'b0;
        out_pid_reg <= 7'd0;
        out_round_done_reg <= 1'b0;
        out_valid_reg <= 1'b0;
        stat_valid_reg <= 1'b0;
        stat_event_reg <= 6'd0;
        stat_family_reg <= 1'b0;
        stat_ctx_reg <= 16'd0;
        fail_valid_reg <= 1'b0;
        fail_family_reg <= 1'b0;
        fail_ctx_reg <= 16'd0;
        fail_count_reg <= 8'd0;
        tick_cnt_reg <= {TICK_W{1'b0}};
        engine_id_reg <= 16'd0;
        engine_sfa_reg <= 32'd0;
        ieee_reg <= 1'b0;
        retry_limit_reg <= RETRY_LIMIT_RESET;
        pbv_valid_reg <= 128'd0;
        pbv_switch_reg <= 128'd0;
        for (k = 0; k < 4; k = k + 1) timeout_reg[k] <= TIMEOUT_RESET;
        for (k = 0; k < 3; k = k + 1) threshold_reg[k] <= THRESHOLD_RESET;
    end
end

endmodule

`resetall
