// inswitch packet engine: collective processing unit (seed 000 [0093], [0141]-[0144]; seed 001; seed 002
// (24)-(80)).
//
// Many concurrent collective contexts over the normalized collective messages of both wire families:
// a static context table (configuration, and the information an INITIALIZATION stores), a pool of
// descriptors (the dynamic state an ARM or an activation creates), the PBV table, four timeouts, the
// ratcheted state machine Idle -> Filling -> Full -> Exiting of seed 001 per descriptor, and the
// reduction unit (rtl/reduce_unit.v) for the arithmetic.
// Specification: docs/blocks/cpu.md. Rust model: crates/model/src/cpu/ (the same registers, same names).
//
//  s_msg --> [msg_reg] --LOOKUP--> [lk_*] --EXEC--> tables, stat, emission set-up
//                                               \--ISSUE--> reduce_unit --REDUCE--> accumulator --CHECK
//  tmpl_reg + em_mask_reg / em_one_reg --EMIT--> [out_reg] --> m_msg
//
// One message or one timer expiry at a time (sequencer seq_reg, docs/blocks/cpu.md §Timing). Inside a cycle the
// writers of a register have a fixed priority: timer ticks, then the sequencer, then configuration.
//
// Packed records (offsets in rtl/collective_msg.vh and rtl/cpu_codes.vh): a message is MSG_W bits, a
// descriptor D_W, a static entry S_W.
//
// The sequencer's states are sectioned by `// ==== NAME` banners, in the order of the model's files under
// crates/model/src/cpu/ (lookup, execute, check, emit, finish, expire), with the same names.

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "collective_msg.vh"

module cpu #
(
    // Static context-table entries (docs/blocks/cpu.md §Context model), 1 to 64
    parameter STATIC_ENTRIES = 16,
    // Descriptors: concurrently live contexts (002 (35): eight active trees per engine), 1 to 16
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
    input  wire [11:0]  cfg_wr_addr,
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
localparam DIDX_W = DESCRIPTORS > 1 ? $clog2(DESCRIPTORS) : 1;
localparam TICK_W = $clog2(TICK_CYCLES);
localparam PBV_ENTRIES = 128;
localparam integer TICK_LAST_INT = TICK_CYCLES - 1;
localparam [TICK_W-1:0] TICK_LAST = TICK_LAST_INT[TICK_W-1:0];

generate
    if (STATIC_ENTRIES < 1 || STATIC_ENTRIES > 64) begin : g_bad_static
        cpu_bad_parameter_STATIC_ENTRIES_must_be_1_to_64 u_err();
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
 * RECORD CONSTRUCTORS (model: crates/model/src/cpu/records.rs).
 */
function [MSG_W-1:0] msg_pack(
    input [3:0] kind, input family, input [7:0] port, input [15:0] ctx, input [31:0] src, input [31:0] dst,
    input [15:0] pid, input [15:0] dmu, input [19:0] count, input [3:0] code, input posted, input error,
    input [1:0] tid, input [15:0] vni, input [31:0] cookie, input [9:0] seqno, input [9:0] resno,
    input retry, input [5:0] op, input [3:0] rc, input [7:0] rsm, input [1:0] oflow, input [255:0] data,
    input [127:0] pbv);
    begin
        msg_pack = {pbv, data, oflow, rsm, rc, op, retry, resno, seqno, cookie, vni, tid, error, posted, code,
                    count, dmu, pid, dst, src, ctx, port, family, kind};
    end
endfunction

// A fresh descriptor: state Idle, nothing counted, timer loaded.
function [D_W-1:0] desc_new(
    input portals, input [15:0] key, input [5:0] sidx, input [1:0] role, input [127:0] pbv,
    input [19:0] pcount, input [19:0] waitc, input accv, input [5:0] acc_op, input [255:0] acc_data,
    input [31:0] acc_sfa, input [15:0] vni, input [31:0] cookie, input [9:0] seqno, input [31:0] dst,
    input [7:0] port, input posted, input [24:0] load);
    begin
        desc_new = {1'b0, 4'd0, 1'b0, load, load, posted, port, dst, seqno, cookie, vni, acc_sfa, 2'd0, 8'd0,
                    4'd0, acc_data, acc_op, accv, waitc, 20'd0, pcount, pbv, 1'b0, 1'b0, CS_IDLE, role, sidx,
                    key, portals, 1'b1};
    end
endfunction

// Timer load for wait count w (002 (54)), doubled for a master (000 [0154]).
function [24:0] load_for(input [19:0] w, input [1:0] role, input [23:0] t0, input [23:0] t1,
                         input [23:0] t2, input [23:0] t3, input [19:0] h0, input [19:0] h1, input [19:0] h2);
    reg [23:0] t;
    begin
        if (w > h2) t = t3;
        else if (w > h1) t = t2;
        else if (w > h0) t = t1;
        else t = t0;
        load_for = role == ROLE_MASTER ? {t, 1'b0} : {1'b0, t};
    end
endfunction

// Index of the lowest set bit of v (0 if none): the lowest bit isolated, then OR-encoded.
function [6:0] lowest_index(input [127:0] v);
    reg [127:0] low;
    integer i;
    begin
        low = v & (~v + 128'd1);
        lowest_index = 7'd0;
        for (i = 0; i < 128; i = i + 1) begin
            lowest_index = lowest_index | ({7{low[i]}} & i[6:0]);
        end
    end
endfunction

function [9:0] next_seqno(input [9:0] s);
    begin
        // (s + 1) mod 1023: libfabric never uses 1023 (docs/blocks/cpu.md §Messages)
        next_seqno = s >= 10'd1022 ? s - 10'd1022 : s + 10'd1;
    end
endfunction

// Serial-number comparison of sequence numbers modulo 1023 (1023 reserved): new is newer than old when
// its forward distance is 1 to 511 (docs/blocks/cpu.md §Messages; model cpu::seqno_newer). Both are below 1023 here.
function seqno_newer(input [9:0] new_s, input [9:0] old_s);
    reg [10:0] fwd;
    begin
        fwd = (new_s >= old_s) ? {1'b0, new_s} - {1'b0, old_s} : {1'b0, new_s} + 11'd1023 - {1'b0, old_s};
        seqno_newer = (fwd != 11'd0) && (fwd <= 11'd511);
    end
endfunction

function [19:0] sat_add(input [19:0] a, input [19:0] b);
    reg [20:0] s;
    begin
        s = {1'b0, a} + {1'b0, b};
        sat_add = s[20] ? COUNT_MAX : s[19:0];
    end
endfunction

function timer_runs(input [D_W-1:0] d);
    begin
        if (!d[D_VALID] || d[D_EXPIRED] || d[D_PAUSED]) timer_runs = 1'b0;
        else if (d[D_PORTALS]) timer_runs = d[D_STATE +: 2] == CS_IDLE || d[D_STATE +: 2] == CS_FILLING;
        else timer_runs = d[D_STATE +: 2] == CS_FILLING ||
                          (d[D_STATE +: 2] == CS_FULL && d[D_ROLE +: 2] != ROLE_MASTER && !d[D_POSTED]);
    end
endfunction

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
reg [MSG_W-1:0]    tmpl_reg, tmpl_next;
reg [127:0]        em_mask_reg, em_mask_next;
reg                em_one_reg, em_one_next;
reg                em_ack_reg, em_ack_next;     // the single message is `acknowledged`, not tmpl_reg
reg                em_keep_pid_reg, em_keep_pid_next; // copies keep tmpl's P_ID (a relayed INITIALIZATION)
reg [2:0]          fin_reg, fin_next;
reg [1:0]          rat_target_reg, rat_target_next;
reg [MSG_W-1:0]    out_reg, out_next;
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

// Engine registers and PBV table
reg [23:0]         timeout_reg [0:3];
reg [23:0]         timeout_next [0:3];
reg [19:0]         threshold_reg [0:2];
reg [19:0]         threshold_next [0:2];
reg [15:0]         engine_id_reg, engine_id_next;
reg [31:0]         engine_sfa_reg, engine_sfa_next;
reg                ieee_reg, ieee_next;
reg [3:0]          retry_limit_reg, retry_limit_next;
reg [127:0]        pbv_valid_reg, pbv_valid_next;
reg [127:0]        pbv_switch_reg, pbv_switch_next;
// Device ID of PBV entry i in bits 16i+15:16i
reg [16*PBV_ENTRIES-1:0] pbv_dev_reg, pbv_dev_next;

// Context tables
reg [S_W-1:0]      st_reg [0:STATIC_ENTRIES-1];
reg [S_W-1:0]      st_next [0:STATIC_ENTRIES-1];
reg [D_W-1:0]      d_reg [0:DESCRIPTORS-1];
reg [D_W-1:0]      d_next [0:DESCRIPTORS-1];

/*
 * Outputs.
 */
wire any_expired;
wire [DIDX_W-1:0] first_expired;

assign s_msg_ready = seq_reg == SEQ_IDLE && !any_expired && !rst;
assign m_msg_valid = out_valid_reg;
assign `COLLECTIVE_MSG_BUS(m_msg) = out_reg;
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
wire         m_init_tlp = !msg_reg[M_FAMILY] && m_kind == K_INIT;
wire [15:0]  p_who = m_init_tlp ? m_pid : m_src[15:0];
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

wire [S_W-1:0] sx = st_reg[lk_s_idx_reg];                  // static entry of the message
wire [D_W-1:0] dx = d_reg[lk_d_idx_reg];                   // its live descriptor
wire [D_W-1:0] dcur = d_reg[cur_reg];                      // the descriptor being worked on
wire [S_W-1:0] scur = st_reg[dcur[D_SIDX +: SIDX_W]];      // and its static entry
/* verilator lint_on UNUSEDSIGNAL */

wire [1:0]   s_role = sx[S_ROLE +: 2];
wire         s_stored = sx[S_STORED];
wire [127:0] s_pbv = sx[S_PBV +: 128];
wire [19:0]  s_pcount = sx[S_PCOUNT +: 20];
wire [1:0]   s_tid = sx[S_TID +: 2];
wire [15:0]  s_upstream = sx[S_UPSTREAM +: 16];
wire [1:0]   tid_behind = s_tid - m_tid;
wire [11:0]  tlp_key = m_ctx[11:0];
wire [5:0]   s_idx6 = {{(6-SIDX_W){1'b0}}, lk_s_idx_reg};

wire [24:0] load_stored = load_for(s_pcount, s_role, timeout_reg[0], timeout_reg[1], timeout_reg[2],
                                   timeout_reg[3], threshold_reg[0], threshold_reg[1], threshold_reg[2]);
wire [24:0] load_msg = load_for(m_count, s_role, timeout_reg[0], timeout_reg[1], timeout_reg[2],
                                timeout_reg[3], threshold_reg[0], threshold_reg[1], threshold_reg[2]);
wire [24:0] load_arm = load_for(sx[S_WAIT +: 20], s_role, timeout_reg[0], timeout_reg[1], timeout_reg[2],
                                timeout_reg[3], threshold_reg[0], threshold_reg[1], threshold_reg[2]);

// TLP activation from the message (INITIALIZATION) or from the stored information (START, RESTART),
// 000 [0141]; Portals arming, 002 (39), (54).
wire [D_W-1:0] act_msg = desc_new(1'b0, {4'd0, tlp_key}, s_idx6, s_role, m_pbv, m_count, 20'd0, 1'b1, m_op,
                                  m_data, {16'd0, engine_id_reg}, 16'd0, 32'd0, 10'd0, 32'd0, 8'd0,
                                  m_posted, load_msg);
wire [D_W-1:0] act_st = desc_new(1'b0, {4'd0, tlp_key}, s_idx6, s_role, s_pbv, s_pcount, 20'd0, 1'b1,
                                 sx[S_OP +: 6], sx[S_DATA +: 256], {16'd0, engine_id_reg}, 16'd0, 32'd0,
                                 10'd0, 32'd0, 8'd0, sx[S_POSTED], load_stored);
wire [D_W-1:0] arm_vec = desc_new(1'b1, m_ctx, s_idx6, s_role, 128'd0, 20'd0, sx[S_WAIT +: 20], 1'b0, 6'd0,
                                  256'd0, 32'd0, m_vni, m_cookie, m_seqno, m_dst, m_port, 1'b0, load_arm);

// Replies to the sender of the message. (Record-typed inputs are read only in part.)
/* verilator lint_off UNUSEDSIGNAL */
function [MSG_W-1:0] failure_reply(input [MSG_W-1:0] m, input [15:0] engine_id, input [3:0] why);
    begin
        failure_reply = msg_pack(K_FAILURE, 1'b0, 8'd0, m[M_CTX +: 16], {16'd0, engine_id}, m[M_SRC +: 32],
                                 m[M_PID +: 16], m[M_DMU +: 16], 20'd0, why, 1'b1, 1'b0, m[M_TID +: 2], 16'd0,
                                 32'd0, 10'd0, 10'd0, 1'b0, m[M_OP +: 6], 4'd0, 8'd0, 2'd0,
                                 {192'd0, 48'd0, m[M_SRC +: 16]}, 128'd0);
    end
endfunction

wire [MSG_W-1:0] already_completed = msg_pack(K_COMPLETION, 1'b0, 8'd0, m_ctx, {16'd0, engine_id_reg}, m_src,
                                              m_pid, m_dmu, 20'd0, CODE_ALREADY_COMPLETED, 1'b1, 1'b0, m_tid,
                                              16'd0, 32'd0, 10'd0, 10'd0, 1'b0, m_op, 4'd0, 8'd0, 2'd0,
                                              256'd0, 128'd0);
// Acknowledgement of a non-posted INITIALIZATION / CONTROL (000 [0097], claim 14; docs/blocks/cpu.md §Messages).
wire [MSG_W-1:0] acknowledged = msg_pack(K_COMPLETION, 1'b0, 8'd0, m_ctx, {16'd0, engine_id_reg}, m_src,
                                         m_pid, m_dmu, 20'd0, CODE_ACKNOWLEDGED, 1'b1, 1'b0, m_tid,
                                         16'd0, 32'd0, 10'd0, 10'd0, 1'b0, m_op, 4'd0, 8'd0, 2'd0,
                                         256'd0, 128'd0);
wire [MSG_W-1:0] tlp_up = {m_rewritten[MSG_W-1:M_DST+32], 16'd0, s_upstream, m_rewritten[M_DST-1:0]};
// A CONTROL copy replicated down carries the context's TID, not the sender's: an end node learns the
// round's TID from its START and sends it back in its CONTRIBUTION (001).
wire [MSG_W-1:0] control_copy = {m_rewritten[MSG_W-1:M_TID+2], s_tid, m_rewritten[M_TID-1:0]};

// Messages about the current descriptor: Portals partial result up (002 (56), (57)) or master result
// down (002 (37)); TLP RESPONSE up (000 [0109]) or COMPLETION (000 [0111]); retries exhausted.
function [MSG_W-1:0] portals_msg(input [D_W-1:0] d, input result, input [3:0] rc, input [31:0] sfa);
    begin
        portals_msg = msg_pack(result ? K_ARM : K_CONTRIB, 1'b1, result ? 8'd0 : d[D_PORT +: 8], d[D_KEY +: 16],
                               sfa, d[D_DST +: 32], NO_PARTICIPANT, 16'd0, d[D_COUNT +: 20], 4'd0, 1'b1, 1'b0,
                               2'd0, d[D_VNI +: 16], d[D_COOKIE +: 32],
                               result ? next_seqno(d[D_SEQNO +: 10]) : d[D_SEQNO +: 10], d[D_SEQNO +: 10], 1'b0,
                               d[D_ACC_OP +: 6], rc, d[D_ACC_RSM +: 8], d[D_ACC_OFLOW +: 2],
                               d[D_ACC_DATA +: 256], 128'd0);
    end
endfunction

function [MSG_W-1:0] tlp_msg(input [D_W-1:0] d, input [S_W-1:0] s, input [15:0] engine_id, input completion,
                             input error, input retry);
    reg [3:0] code;
    begin
        if (completion) code = d[D_ACC_OP +: 6] == 6'd0 ? CODE_BARRIER_SATISFIED : CODE_RESULT;
        else code = d[D_ACC_OP +: 6] == 6'd0 ? CODE_BARRIER_MET : CODE_NONE;
        tlp_msg = msg_pack(completion ? K_COMPLETION : K_RESPONSE, 1'b0, 8'd0, d[D_KEY +: 16], {16'd0, engine_id},
                           {16'd0, s[S_UPSTREAM +: 16]}, NO_PARTICIPANT, s[S_DMU +: 16], d[D_COUNT +: 20], code,
                           completion ? 1'b1 : d[D_POSTED], error, s[S_TID +: 2], 16'd0, 32'd0, 10'd0, 10'd0,
                           retry, d[D_ACC_OP +: 6], d[D_ACC_RC +: 4], d[D_ACC_RSM +: 8], d[D_ACC_OFLOW +: 2],
                           d[D_ACC_DATA +: 256], 128'd0);
    end
endfunction

/* verilator lint_on UNUSEDSIGNAL */

wire [MSG_W-1:0] retry_failure = msg_pack(K_FAILURE, 1'b0, 8'd0, dcur[D_KEY +: 16], {16'd0, engine_id_reg},
                                          {16'd0, scur[S_UPSTREAM +: 16]}, NO_PARTICIPANT, scur[S_DMU +: 16],
                                          {16'd0, dcur[D_ATTEMPTS +: 4]}, WHY_TIMEOUT, 1'b1, 1'b1,
                                          scur[S_TID +: 2], 16'd0, 32'd0, 10'd0, 10'd0, 1'b0, 6'd0, 4'd0, 8'd0,
                                          2'd0, {192'd0, 64'hffff}, 128'd0);

/*
 * The reduction unit: one operand pair in state ISSUE (accumulator, contribution).
 */
wire         ru_out_valid;
wire [5:0]   ru_out_rt_op;
wire [255:0] ru_out_rt_data;
wire [3:0]   ru_out_rt_rc;
wire [7:0]   ru_out_rt_repsum_m;
wire [1:0]   ru_out_rt_repsum_oflow_id;

reduce_unit u_reduce (
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

// One tick of a descriptor's timer (docs/blocks/cpu.md §Timers).
function [D_W-1:0] ticked(input [D_W-1:0] d, input tick);
    begin
        ticked = d;
        if (tick && timer_runs(d)) begin
            if (d[D_TIMER +: 25] <= 25'd1) begin
                ticked[D_TIMER +: 25] = 25'd0;
                ticked[D_EXPIRED] = 1'b1;
            end else begin
                ticked[D_TIMER +: 25] = d[D_TIMER +: 25] - 25'd1;
            end
        end
    end
endfunction

wire tick = tick_cnt_reg == TICK_LAST;
// The descriptor the sequencer works on: the message's in EXEC, else the current one; with its tick.
wire [DIDX_W-1:0] sel_idx = seq_reg == SEQ_EXEC ? lk_d_idx_reg : cur_reg;
wire [D_W-1:0] dsel = ticked(d_reg[sel_idx], tick);

// Every message and value the sequencer may load, as wires: the sequencer only selects among them
// (no function calls inside the always block, which keeps synthesis fast).
wire [MSG_W-1:0] s_msg_packed = `COLLECTIVE_MSG_BUS(s_msg);
wire [MSG_W-1:0] t_unknown_participant = failure_reply(msg_reg, engine_id_reg, WHY_UNKNOWN_PARTICIPANT);
wire [MSG_W-1:0] t_malformed = failure_reply(msg_reg, engine_id_reg, WHY_MALFORMED);
wire [MSG_W-1:0] t_duplicate = failure_reply(msg_reg, engine_id_reg, WHY_DUPLICATE);
wire [MSG_W-1:0] t_count_underflow = failure_reply(msg_reg, engine_id_reg, WHY_COUNT_UNDERFLOW);
wire [19:0] dx_count_plus = sat_add(dx[D_COUNT +: 20], m_count);
// At completion a Portals result with more contributions than the wait count carries CONTR_OVERFLOW.
wire [3:0] chk_rc = dcur[D_PORTALS] && dcur[D_COUNT +: 20] > dcur[D_WAIT +: 20] && dcur[D_ACC_RC +: 4] < RC_CONTR_OVERFLOW
                    ? RC_CONTR_OVERFLOW : dcur[D_ACC_RC +: 4];
wire [MSG_W-1:0] t_portals_result = portals_msg(dcur, 1'b1, chk_rc, engine_sfa_reg);
wire [MSG_W-1:0] t_portals_partial = portals_msg(dcur, 1'b0, chk_rc, engine_sfa_reg);
wire [MSG_W-1:0] t_portals_timeout = portals_msg(dcur, 1'b0, dcur[D_ACC_RC +: 4], engine_sfa_reg);
wire [MSG_W-1:0] t_tlp_completion = tlp_msg(dcur, scur, engine_id_reg, 1'b1, 1'b0, 1'b0);
wire [MSG_W-1:0] t_tlp_completion_error = tlp_msg(dcur, scur, engine_id_reg, 1'b1, 1'b1, 1'b0);
wire [MSG_W-1:0] t_tlp_response = tlp_msg(dcur, scur, engine_id_reg, 1'b0, 1'b0, 1'b0);
wire [MSG_W-1:0] t_tlp_response_error = tlp_msg(dcur, scur, engine_id_reg, 1'b0, 1'b1, 1'b0);
wire [MSG_W-1:0] t_tlp_response_retry = tlp_msg(dcur, scur, engine_id_reg, 1'b0, dcur[D_SENT_ERROR], 1'b1);
// A RETRY request from the parent: the RESPONSE of the message's descriptor, resent (000 [0117]).
wire [MSG_W-1:0] t_retry_resend = tlp_msg(dx, sx, engine_id_reg, 1'b0, dx[D_SENT_ERROR], 1'b1);
wire [MSG_W-1:0] t_nothing_to_resend = failure_reply(msg_reg, engine_id_reg, WHY_NOTHING_TO_RESEND);
wire [9:0] dcur_next_seqno = next_seqno(dcur[D_SEQNO +: 10]);

// Every descriptor with its timer tick.
wire [D_W-1:0] d_ticked [0:DESCRIPTORS-1];
genvar g;
generate
    for (g = 0; g < DESCRIPTORS; g = g + 1) begin : g_tick
        assign d_ticked[g] = ticked(d_reg[g], tick);
    end
endgenerate

/*
 * Combinational logic.
 */
integer k;
reg [DIDX_W-1:0] du_idx;
reg [D_W-1:0] du;
reg [SIDX_W-1:0] su_idx;
reg [S_W-1:0] su;
reg cfg_st_we;
reg [5:0] ev;
reg out_free;
reg complete;
reg [SIDX_W-1:0] cfg_sidx;
reg [31:0] cfg_off;

// Associative matches as bit vectors (bit k: entry k matches); the lowest index wins, found by
// isolating the lowest set bit and encoding it (no 128-deep priority chains).
integer j;
reg [127:0] st_match, d_match, d_free, d_expired, p_match;
wire [12:0] skey = m_portals ? m_ctx[12:0] : {1'b0, m_ctx[11:0]};
wire [15:0] dkey = m_portals ? m_ctx : {4'd0, m_ctx[11:0]};

always @* begin
    st_match = 128'd0;
    d_match = 128'd0;
    d_free = 128'd0;
    d_expired = 128'd0;
    p_match = 128'd0;
    for (j = 0; j < STATIC_ENTRIES; j = j + 1) begin
        st_match[j] = st_reg[j][S_VALID] && st_reg[j][S_PORTALS] == m_portals && st_reg[j][S_KEY +: 13] == skey;
    end
    for (j = 0; j < DESCRIPTORS; j = j + 1) begin
        d_match[j] = d_reg[j][D_VALID] && d_reg[j][D_PORTALS] == m_portals && d_reg[j][D_KEY +: 16] == dkey;
        d_free[j] = !d_reg[j][D_VALID];
        d_expired[j] = d_reg[j][D_VALID] && d_reg[j][D_EXPIRED];
    end
    for (j = 0; j < PBV_ENTRIES; j = j + 1) begin
        p_match[j] = pbv_valid_reg[j] && pbv_dev_reg[16*j +: 16] == p_who;
    end
end

/* verilator lint_off UNUSEDSIGNAL */
wire [6:0] st_first = lowest_index(st_match);
wire [6:0] d_first = lowest_index(d_match);
wire [6:0] free_first = lowest_index(d_free);
wire [6:0] expired_first = lowest_index(d_expired);
/* verilator lint_on UNUSEDSIGNAL */
wire [6:0] p_first = lowest_index(p_match);
wire [6:0] em_b = lowest_index(em_mask_reg);
assign any_expired = |d_expired;
assign first_expired = expired_first[DIDX_W-1:0];

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
    lk_p_sender_next = lk_p_sender_reg;
    cur_next = cur_reg;
    tmpl_next = tmpl_reg;
    em_mask_next = em_mask_reg;
    em_one_next = em_one_reg;
    em_ack_next = em_ack_reg;
    em_keep_pid_next = em_keep_pid_reg;
    fin_next = fin_reg;
    rat_target_next = rat_target_reg;
    out_next = out_reg;
    engine_id_next = engine_id_reg;
    engine_sfa_next = engine_sfa_reg;
    ieee_next = ieee_reg;
    retry_limit_next = retry_limit_reg;
    pbv_valid_next = pbv_valid_reg;
    pbv_switch_next = pbv_switch_reg;
    for (k = 0; k < 4; k = k + 1) timeout_next[k] = timeout_reg[k];
    for (k = 0; k < 3; k = k + 1) threshold_next[k] = threshold_reg[k];
    pbv_dev_next = pbv_dev_reg;
    // The one descriptor and the one static entry the sequencer may write this cycle.
    du_idx = sel_idx;
    du = dsel;
    su_idx = lk_s_idx_reg;
    su = sx;
    ev = 6'd0;
    complete = 1'b0;
    cfg_off = {20'd0, cfg_wr_addr} - 32'h100;

    tick_cnt_next = tick ? {TICK_W{1'b0}} : tick_cnt_reg + 1'b1;

    // Output register and event pulse.
    out_free = !out_valid_reg || m_msg_ready;
    out_valid_next = out_valid_reg && !m_msg_ready;
    stat_valid_next = 1'b0;
    stat_event_next = 6'd0;
    stat_family_next = 1'b0;
    stat_ctx_next = 16'd0;
    fail_mark = 1'b0;

    case (seq_reg)
        // ==== IDLE (model: the sequencer's start in `Cpu::step`, crates/model/src/cpu/mod.rs) ====
        SEQ_IDLE: begin
            if (any_expired) begin
                cur_next = first_expired;
                seq_next = SEQ_EXPIRE;
            end else if (s_msg_valid) begin
                msg_next = s_msg_packed;
                seq_next = SEQ_LOOKUP;
            end
        end
        // ==== LOOKUP (model: crates/model/src/cpu/lookup.rs `Cpu::lookup`) ====
        SEQ_LOOKUP: begin
            // Associative matches; the lowest index wins.
            lk_s_hit_next = |st_match;
            lk_s_idx_next = st_first[SIDX_W-1:0];
            lk_d_hit_next = |d_match;
            lk_d_idx_next = d_first[DIDX_W-1:0];
            lk_f_hit_next = |d_free;
            lk_f_idx_next = free_first[DIDX_W-1:0];
            // The participant: P_ID if given ([0169]), else a reverse lookup of the requester.
            if (m_pid != NO_PARTICIPANT && !m_init_tlp) begin
                lk_p_hit_next = m_pid < 16'd128;
                lk_p_idx_next = m_pid < 16'd128 ? m_pid[6:0] : 7'd0;
                // A P_ID is trusted only for the device its entry holds (docs/blocks/cpu.md §Messages, WRONG_SENDER).
                lk_p_sender_next = m_pid < 16'd128 && p_match[m_pid[6:0]];
            end else begin
                lk_p_hit_next = |p_match;
                lk_p_idx_next = p_first;
                lk_p_sender_next = |p_match;
            end
            seq_next = SEQ_EXEC;
        end
        // ==== EXECUTE (model: crates/model/src/cpu/execute.rs `Cpu::exec`) ====
        SEQ_EXEC: begin
            // docs/blocks/cpu.md §Messages. Default: done, back to IDLE.
            seq_next = SEQ_IDLE;
            if (!m_portals) begin
                case (m_kind)
                    K_INIT: begin
                        if (!lk_s_hit_reg) begin
                            ev = EV_DROP_UNKNOWN;
                        end else if (m_pid != NO_PARTICIPANT && m_pid != engine_id_reg) begin
                            // For an engine below (000 [0106]-[0107], [0157]; docs/blocks/cpu.md §Messages): relayed
                            // to the target if it is a switch participant of the stored context, else to
                            // every switch participant; acknowledged if non-posted. Nothing stored here.
                            if (!s_stored) begin
                                ev = EV_DROP_UNKNOWN;
                            end else begin
                                tmpl_next = m_rewritten;
                                em_mask_next = (lk_p_hit_reg && pbv_switch_reg[lk_p_idx_reg] && s_pbv[lk_p_idx_reg])
                                    ? (128'd1 << lk_p_idx_reg) : (s_pbv & pbv_switch_reg);
                                em_keep_pid_next = 1'b1;
                                em_one_next = !m_posted;
                                em_ack_next = !m_posted;
                                fin_next = FIN_NONE;
                                seq_next = SEQ_EMIT;
                                ev = EV_INIT_RELAY;
                            end
                        end else begin
                            su[S_STORED] = 1'b1;
                            su[S_PBV +: 128] = m_pbv;
                            su[S_PCOUNT +: 20] = m_count;
                            su[S_OP +: 6] = m_op;
                            su[S_DATA +: 256] = m_data;
                            su[S_DMU +: 16] = m_dmu;
                            su[S_UPSTREAM +: 16] = m_src[15:0];
                            su[S_POSTED] = m_posted;
                            su[S_TID +: 2] = m_tid;
                            if (!m_posted) begin
                                // Non-posted: acknowledged to the sender (000 [0097], claim 14).
                                em_mask_next = 128'd0;
                                em_one_next = 1'b1;
                                em_ack_next = 1'b1;
                                fin_next = FIN_NONE;
                                seq_next = SEQ_EMIT;
                            end
                            if (lk_d_hit_reg) begin
                                du = act_msg;
                                ev = EV_INIT;
                            end else if (lk_f_hit_reg) begin
                                begin du_idx = lk_f_idx_reg; du = act_msg; end
                                ev = EV_INIT;
                            end else begin
                                ev = EV_ACTIVATE_NO_DESC;
                            end
                        end
                    end
                    K_CONTROL: begin
                        if (!lk_s_hit_reg) begin
                            ev = EV_DROP_UNKNOWN;
                        end else if (m_code < CMD_START || m_code > CMD_RESET) begin
                            ev = EV_CTRL_BAD;
                        end else begin
                            su[S_UPSTREAM +: 16] = m_src[15:0];
                            case (m_code)
                                CMD_START: begin
                                    if (lk_d_hit_reg) begin
                                        if (dx[D_PAUSED]) begin
                                            du[D_PAUSED] = 1'b0;
                                            ev = EV_CTRL_START;
                                        end else begin
                                            ev = EV_CTRL_NOOP;
                                        end
                                    end else if (!s_stored) begin
                                        ev = EV_CTRL_NOOP;
                                    end else if (lk_f_hit_reg) begin
                                        begin du_idx = lk_f_idx_reg; du = act_st; end
                                        ev = EV_CTRL_START;
                                    end else begin
                                        ev = EV_ACTIVATE_NO_DESC;
                                    end
                                end
                                CMD_PAUSE: begin
                                    if (lk_d_hit_reg) begin
                                        du[D_PAUSED] = 1'b1;
                                        ev = EV_CTRL_PAUSE;
                                    end else begin
                                        ev = EV_CTRL_NOOP;
                                    end
                                end
                                CMD_RESTART: begin
                                    if (!s_stored) begin
                                        ev = EV_CTRL_NOOP;
                                    end else if (lk_d_hit_reg) begin
                                        du = act_st;
                                        ev = EV_CTRL_RESTART;
                                    end else if (lk_f_hit_reg) begin
                                        begin du_idx = lk_f_idx_reg; du = act_st; end
                                        ev = EV_CTRL_RESTART;
                                    end else begin
                                        ev = EV_ACTIVATE_NO_DESC;
                                    end
                                end
                                CMD_STOP: begin
                                    if (lk_d_hit_reg) begin
                                        du[D_VALID] = 1'b0;
                                        ev = EV_CTRL_STOP;
                                    end else begin
                                        ev = EV_CTRL_NOOP;
                                    end
                                end
                                default: begin // CMD_RESET
                                    if (lk_d_hit_reg) du[D_VALID] = 1'b0;
                                    su[S_STORED] = 1'b0;
                                    su[S_TID +: 2] = 2'd0;
                                    ev = EV_CTRL_RESET;
                                end
                            endcase
                            // Replicated to every participant of the stored PBV ([0172]), with the
                            // context's TID; then, if non-posted, acknowledged to the sender (000 [0097],
                            // claim 14; the acknowledgement keeps m_tid).
                            if (s_stored || !m_posted) begin
                                tmpl_next = control_copy;
                                em_mask_next = s_stored ? s_pbv : 128'd0;
                                em_one_next = !m_posted;
                                em_ack_next = !m_posted;
                                fin_next = FIN_NONE;
                                seq_next = SEQ_EMIT;
                            end
                        end
                    end
                    K_CONTRIB, K_RESPONSE: begin
                        if (!lk_s_hit_reg || (!s_stored && !lk_d_hit_reg)) begin
                            ev = EV_DROP_UNKNOWN;
                        end else if (!lk_d_hit_reg) begin
                            tmpl_next = tlp_up;
                            ev = EV_PASS_UP;
                        end else if (m_tid != s_tid) begin
                            if (tid_behind == 2'd1) begin
                                tmpl_next = already_completed;
                                ev = EV_OLD_TID;
                            end else begin
                                ev = EV_BAD_TID;
                            end
                        end else if (dx[D_PAUSED]) begin
                            ev = EV_PAUSED_DROP;
                        end else if (dx[D_STATE + 1]) begin
                            // Full or Exiting: a late frame goes up (002 (62)).
                            tmpl_next = tlp_up;
                            ev = EV_PASS_UP;
                        end else if (!lk_p_hit_reg || !s_pbv[lk_p_idx_reg]) begin
                            tmpl_next = t_unknown_participant;
                            ev = EV_UNKNOWN_PARTICIPANT;
                        end else if (!lk_p_sender_reg) begin
                            // The P_ID names another device's entry (a child's pass-up, a spoofer):
                            // dropped, not answered.
                            ev = EV_WRONG_SENDER;
                        end else if ((m_kind == K_RESPONSE) != pbv_switch_reg[lk_p_idx_reg]) begin
                            tmpl_next = t_malformed;
                            ev = EV_MALFORMED;
                        end else if (!dx[D_PBV + {25'd0, lk_p_idx_reg}]) begin
                            tmpl_next = t_duplicate;
                            ev = EV_DUPLICATE;
                        end else if (dx[D_PCOUNT +: 20] == 20'd0) begin
                            tmpl_next = t_count_underflow;
                            ev = EV_COUNT_UNDERFLOW;
                        end else begin
                            // 000 [0143]: clear the bit, decrement p_count, add the count; combine next.
                            du[D_PBV + {25'd0, lk_p_idx_reg}] = 1'b0;
                            du[D_PCOUNT +: 20] = dx[D_PCOUNT +: 20] - 20'd1;
                            du[D_COUNT +: 20] = dx_count_plus;
                            cur_next = lk_d_idx_reg;
                            seq_next = SEQ_ISSUE;
                            ev = EV_ACCEPT;
                        end
                        // Every outcome but a drop or a combine sends the one message set up above.
                        if (ev == EV_PASS_UP || ev == EV_OLD_TID || ev == EV_UNKNOWN_PARTICIPANT ||
                            ev == EV_MALFORMED || ev == EV_DUPLICATE || ev == EV_COUNT_UNDERFLOW) begin
                            em_mask_next = 128'd0;
                            em_one_next = 1'b1;
                            fin_next = FIN_NONE;
                            seq_next = SEQ_EMIT;
                        end
                    end
                    K_COMPLETION: begin
                        if (!lk_s_hit_reg || !lk_d_hit_reg) begin
                            ev = EV_DROP_UNKNOWN;
                        end else if (dx[D_ROLE +: 2] == ROLE_MASTER || m_code == CODE_ACKNOWLEDGED) begin
                            // An acknowledgement (a child's answer to a relayed non-posted command)
                            // is not the parent's result (docs/blocks/cpu.md §Messages).
                            ev = EV_BAD_KIND;
                        end else if (m_tid != s_tid) begin
                            ev = EV_BAD_TID;
                        end else begin
                            tmpl_next = m_rewritten;
                            em_mask_next = s_pbv;
                            em_one_next = 1'b0;
                            fin_next = FIN_NEXT_ROUND;
                            rat_target_next = CS_EXITING;
                            cur_next = lk_d_idx_reg;
                            seq_next = SEQ_RATCHET;
                            ev = EV_COMPLETION_DOWN;
                        end
                    end
                    K_FAILURE: begin
                        if (!lk_s_hit_reg || !s_stored) begin
                            ev = EV_DROP_UNKNOWN;
                        end else begin
                            tmpl_next = tlp_up;
                            if (lk_d_hit_reg) begin
                                // The Failure flag (001), carried by the FAILURE forwarded up (EM bit).
                                du[D_FAILURE] = 1'b1;
                                fail_mark = 1'b1;
                                tmpl_next[M_ERROR] = 1'b1;
                            end
                            em_mask_next = 128'd0;
                            em_one_next = 1'b1;
                            fin_next = FIN_NONE;
                            seq_next = SEQ_EMIT;
                            ev = EV_FAILURE_UP;
                        end
                    end
                    K_RETRY: begin
                        // A per-packet retry request (000 [0098], [0117]): the one message kept for a
                        // context is the RESPONSE a subservient holds in Full until its parent answers.
                        if (!lk_s_hit_reg || (!s_stored && !lk_d_hit_reg)) begin
                            ev = EV_DROP_UNKNOWN;
                        end else begin
                            if (lk_d_hit_reg && dx[D_ROLE +: 2] != ROLE_MASTER && dx[D_STATE +: 2] == CS_FULL &&
                                m_src[15:0] == s_upstream) begin
                                tmpl_next = t_retry_resend;
                                ev = EV_RETRY_RESEND;
                            end else begin
                                tmpl_next = t_nothing_to_resend;
                                ev = EV_RETRY_NONE;
                            end
                            em_mask_next = 128'd0;
                            em_one_next = 1'b1;
                            fin_next = FIN_NONE;
                            seq_next = SEQ_EMIT;
                        end
                    end
                    default: begin
                        ev = EV_BAD_KIND;
                    end
                endcase
            end else begin
                case (m_kind)
                    K_ARM: begin
                        if (!lk_s_hit_reg) begin
                            ev = EV_DROP_UNKNOWN;
                        end else if (m_seqno == SEQNO_RESERVED) begin
                            ev = EV_BAD_SEQNO_ARM;
                        end else if (lk_d_hit_reg) begin
                            // 002 (71): only a newer seqno clears the state; a duplicated or old arm
                            // is dropped and counted.
                            if (seqno_newer(m_seqno, dx[D_SEQNO +: 10])) begin
                                du = arm_vec;
                                ev = EV_REARM;
                            end else begin
                                ev = EV_STALE_ARM;
                            end
                        end else if (lk_f_hit_reg) begin
                            begin du_idx = lk_f_idx_reg; du = arm_vec; end
                            ev = EV_ARM;
                        end else begin
                            ev = EV_ARM_NO_DESC;
                        end
                    end
                    K_CONTRIB: begin
                        if (!lk_d_hit_reg) begin
                            // No descriptor: the frame goes on up as it came (002 (59), (75)).
                            tmpl_next = msg_reg;
                            em_mask_next = 128'd0;
                            em_one_next = 1'b1;
                            fin_next = FIN_NONE;
                            seq_next = SEQ_EMIT;
                            ev = EV_PASS_UP;
                        end else if (m_vni != dx[D_VNI +: 16]) begin
                            ev = EV_DROP_VNI;
                        end else if (m_cookie != dx[D_COOKIE +: 32]) begin
                            ev = EV_DROP_COOKIE;
                        end else if (m_seqno != dx[D_SEQNO +: 10]) begin
                            ev = EV_DROP_SEQNO;
                        end else begin
                            du[D_COUNT +: 20] = dx_count_plus;
                            cur_next = lk_d_idx_reg;
                            if (dx[D_ACCV]) begin
                                seq_next = SEQ_ISSUE;
                            end else begin
                                du[D_ACC_OP +: 6] = m_op;
                                du[D_ACC_DATA +: 256] = m_data;
                                du[D_ACC_RC +: 4] = m_rc;
                                du[D_ACC_RSM +: 8] = m_rsm;
                                du[D_ACC_OFLOW +: 2] = m_oflow;
                                du[D_ACC_SFA +: 32] = m_src;
                                du[D_ACCV] = 1'b1;
                                if (dx[D_STATE +: 2] == CS_IDLE) du[D_STATE +: 2] = CS_FILLING;
                                seq_next = SEQ_CHECK;
                            end
                            ev = EV_ACCEPT;
                        end
                    end
                    default: begin
                        ev = EV_BAD_KIND;
                    end
                endcase
            end
            stat_valid_next = 1'b1;
            stat_event_next = ev;
            stat_family_next = m_portals;
            stat_ctx_next = m_ctx;
        end
        // ==== ISSUE, REDUCE (model: `Cpu::step`, crates/model/src/cpu/mod.rs) ====
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
        // ==== CHECK (model: crates/model/src/cpu/check.rs `Cpu::check`) ====
        SEQ_CHECK: begin
            // Completion (000 [0144]; 002 (56)).
            complete = dcur[D_PORTALS] ? dcur[D_COUNT +: 20] >= dcur[D_WAIT +: 20]
                                       : dcur[D_PBV +: 128] == 128'd0 && dcur[D_PCOUNT +: 20] == 20'd0;
            seq_next = SEQ_IDLE;
            if (complete) begin
                stat_valid_next = 1'b1;
                stat_event_next = EV_COMPLETE;
                stat_family_next = dcur[D_PORTALS];
                stat_ctx_next = dcur[D_KEY +: 16];
                du[D_STATE +: 2] = dcur[D_STATE +: 2] + 2'd1;
                du[D_ACC_RC +: 4] = chk_rc;
                em_mask_next = 128'd0;
                em_one_next = 1'b1;
                seq_next = SEQ_RATCHET;
                if (dcur[D_PORTALS]) begin
                    rat_target_next = CS_EXITING;
                    if (dcur[D_ROLE +: 2] == ROLE_MASTER) begin
                        tmpl_next = t_portals_result;
                        fin_next = FIN_REARM;
                    end else begin
                        tmpl_next = t_portals_partial;
                        fin_next = FIN_FREE;
                    end
                end else if (dcur[D_ROLE +: 2] == ROLE_MASTER) begin
                    tmpl_next = t_tlp_completion;
                    em_mask_next = scur[S_PBV +: 128];
                    rat_target_next = CS_EXITING;
                    fin_next = FIN_NEXT_ROUND;
                end else begin
                    tmpl_next = t_tlp_response;
                    du[D_ATTEMPTS +: 4] = 4'd0;
                    du[D_SENT_ERROR] = 1'b0;
                    rat_target_next = CS_FULL;
                    fin_next = FIN_WAIT;
                end
            end
        end
        // ==== RATCHET (model: `Cpu::step`, crates/model/src/cpu/mod.rs) ====
        SEQ_RATCHET: begin
            // One state step per cycle (001).
            if (dcur[D_STATE +: 2] != rat_target_reg) begin
                du[D_STATE +: 2] = dcur[D_STATE +: 2] + 2'd1;
            end else begin
                seq_next = SEQ_EMIT;
            end
        end
        // ==== EMIT (model: crates/model/src/cpu/emit.rs `Cpu::emit`) ====
        SEQ_EMIT: begin
            if (em_mask_reg != 128'd0) begin
                if (!pbv_valid_reg[em_b]) begin
                    em_mask_next[em_b] = 1'b0;
                end else if (out_free) begin
                    out_next = tmpl_reg;
                    out_next[M_DST +: 32] = {16'd0, pbv_dev_reg[16*em_b +: 16]};
                    out_next[M_PID +: 16] = em_keep_pid_reg ? tmpl_reg[M_PID +: 16] : {9'd0, em_b};
                    out_valid_next = 1'b1;
                    em_mask_next[em_b] = 1'b0;
                end
            end else if (em_one_reg) begin
                if (out_free) begin
                    out_next = em_ack_reg ? acknowledged : tmpl_reg;
                    out_valid_next = 1'b1;
                    em_one_next = 1'b0;
                    em_ack_next = 1'b0;
                end
            end else begin
                em_keep_pid_next = 1'b0;
                seq_next = SEQ_FINISH;
            end
        end
        // ==== FINISH (model: crates/model/src/cpu/finish.rs `Cpu::finish`) ====
        SEQ_FINISH: begin
            seq_next = SEQ_IDLE;
            case (fin_reg)
                FIN_FREE: begin
                    du[D_STATE +: 2] = CS_IDLE;
                    du[D_VALID] = 1'b0;
                end
                FIN_REARM: begin
                    // The master re-arms itself for the next round (002 (37)).
                    du[D_STATE +: 2] = CS_IDLE;
                    du[D_SEQNO +: 10] = dcur_next_seqno;
                    du[D_COUNT +: 20] = 20'd0;
                    du[D_ACCV] = 1'b0;
                    du[D_ACC_OP +: 6] = 6'd0;
                    du[D_ACC_DATA +: 256] = 256'd0;
                    du[D_ACC_RC +: 4] = 4'd0;
                    du[D_ACC_RSM +: 8] = 8'd0;
                    du[D_ACC_OFLOW +: 2] = 2'd0;
                    du[D_ACC_SFA +: 32] = 32'd0;
                    du[D_TIMER +: 25] = dcur[D_LOAD +: 25];
                    du[D_EXPIRED] = 1'b0;
                end
                FIN_WAIT: begin
                    du[D_TIMER +: 25] = dcur[D_LOAD +: 25];
                    du[D_EXPIRED] = 1'b0;
                end
                FIN_NEXT_ROUND: begin
                    // Exiting -> Idle: TID + 1 (001), tracking store re-loaded (000 [0141]).
                    su_idx = dcur[D_SIDX +: SIDX_W];
                    su = scur;
                    su[S_TID +: 2] = scur[S_TID +: 2] + 2'd1;
                    du[D_STATE +: 2] = CS_IDLE;
                    du[D_PBV +: 128] = scur[S_PBV +: 128];
                    du[D_PCOUNT +: 20] = scur[S_PCOUNT +: 20];
                    du[D_COUNT +: 20] = 20'd0;
                    du[D_ACCV] = 1'b1;
                    du[D_ACC_OP +: 6] = scur[S_OP +: 6];
                    du[D_ACC_DATA +: 256] = scur[S_DATA +: 256];
                    du[D_ACC_RC +: 4] = 4'd0;
                    du[D_ACC_RSM +: 8] = 8'd0;
                    du[D_ACC_OFLOW +: 2] = 2'd0;
                    du[D_ACC_SFA +: 32] = {16'd0, engine_id_reg};
                    du[D_ATTEMPTS +: 4] = 4'd0;
                    du[D_SENT_ERROR] = 1'b0;
                    du[D_TIMER +: 25] = dcur[D_LOAD +: 25];
                    du[D_EXPIRED] = 1'b0;
                end
                default: begin
                end
            endcase
        end
        // ==== EXPIRE (model: crates/model/src/cpu/expire.rs `Cpu::expire`) ====
        SEQ_EXPIRE: begin
            // docs/blocks/cpu.md §Timers.
            du[D_EXPIRED] = 1'b0;
            em_mask_next = 128'd0;
            em_one_next = 1'b1;
            seq_next = SEQ_RATCHET;
            if (dcur[D_PORTALS]) begin
                rat_target_next = CS_EXITING;
                fin_next = FIN_FREE;
                em_one_next = dcur[D_ACCV];
                tmpl_next = t_portals_timeout;
                ev = dcur[D_ACCV] ? EV_TIMEOUT_PARTIAL : EV_TIMEOUT_EMPTY;
            end else if (dcur[D_STATE +: 2] == CS_FILLING && dcur[D_ROLE +: 2] != ROLE_MASTER) begin
                du[D_SENT_ERROR] = 1'b1;
                du[D_ATTEMPTS +: 4] = 4'd0;
                tmpl_next = t_tlp_response_error;
                rat_target_next = CS_FULL;
                fin_next = FIN_WAIT;
                ev = EV_TIMEOUT_PARTIAL;
            end else if (dcur[D_STATE +: 2] == CS_FILLING) begin
                du[D_FAILURE] = 1'b1;
                fail_mark = 1'b1;
                tmpl_next = t_tlp_completion_error;
                em_mask_next = scur[S_PBV +: 128];
                rat_target_next = CS_EXITING;
                fin_next = FIN_NEXT_ROUND;
                ev = EV_TIMEOUT_MASTER;
            end else if (dcur[D_STATE +: 2] == CS_FULL && dcur[D_ROLE +: 2] != ROLE_MASTER &&
                         dcur[D_ATTEMPTS +: 4] < retry_limit_reg) begin
                // Per-packet retry (000 [0117]).
                du[D_ATTEMPTS +: 4] = dcur[D_ATTEMPTS +: 4] + 4'd1;
                tmpl_next = t_tlp_response_retry;
                rat_target_next = CS_FULL;
                fin_next = FIN_WAIT;
                ev = EV_RETRY;
            end else if (dcur[D_STATE +: 2] == CS_FULL && dcur[D_ROLE +: 2] != ROLE_MASTER) begin
                du[D_FAILURE] = 1'b1;
                fail_mark = 1'b1;
                tmpl_next = retry_failure;
                rat_target_next = CS_EXITING;
                fin_next = FIN_NEXT_ROUND;
                ev = EV_RETRY_EXHAUSTED;
            end else begin
                em_one_next = 1'b0;
                seq_next = SEQ_IDLE;
                ev = EV_TIMEOUT_EMPTY;
            end
            stat_valid_next = 1'b1;
            stat_event_next = ev;
            stat_family_next = dcur[D_PORTALS];
            stat_ctx_next = dcur[D_KEY +: 16];
        end
        default: begin
            seq_next = SEQ_IDLE;
        end
    endcase

    // Register writes (docs/blocks/cpu.md §Ports) come last: they win over the sequencer.
    if (cfg_wr_en) begin
        if (cfg_wr_addr < 12'h080) begin
            pbv_valid_next[cfg_wr_addr[6:0]] = cfg_wr_data[31];
            pbv_switch_next[cfg_wr_addr[6:0]] = cfg_wr_data[16];
            pbv_dev_next[16*cfg_wr_addr[6:0] +: 16] = cfg_wr_data[15:0];
        end else if (cfg_wr_addr < 12'h084) begin
            timeout_next[cfg_wr_addr[1:0]] = cfg_wr_data[23:0];
        end else if (cfg_wr_addr < 12'h087) begin
            threshold_next[cfg_wr_addr[1:0]] = cfg_wr_data[19:0];
        end else if (cfg_wr_addr == 12'h087) begin
            engine_id_next = cfg_wr_data[15:0];
        end else if (cfg_wr_addr == 12'h088) begin
            engine_sfa_next = cfg_wr_data;
        end else if (cfg_wr_addr == 12'h089) begin
            ieee_next = cfg_wr_data[0];
            retry_limit_next = cfg_wr_data[11:8];
        end
    end

    // Every descriptor takes its timer tick, except the one the sequencer wrote (docs/blocks/cpu.md §Timers).
    for (k = 0; k < DESCRIPTORS; k = k + 1) begin
        d_next[k] = k[DIDX_W-1:0] == du_idx ? du : d_ticked[k];
    end
    // Static entries: the sequencer's write, then a configuration write on top.
    cfg_st_we = cfg_wr_en && cfg_wr_addr >= 12'h100 && cfg_off < 2 * STATIC_ENTRIES;
    cfg_sidx = cfg_off[SIDX_W:1];
    for (k = 0; k < STATIC_ENTRIES; k = k + 1) begin
        st_next[k] = k[SIDX_W-1:0] == su_idx ? su : st_reg[k];
        if (cfg_st_we && cfg_sidx == k[SIDX_W-1:0]) begin
            if (!cfg_wr_addr[0]) begin
                st_next[k][S_VALID] = cfg_wr_data[31];
                st_next[k][S_PORTALS] = cfg_wr_data[16];
                st_next[k][S_ROLE +: 2] = cfg_wr_data[21:20];
                st_next[k][S_KEY +: 13] = cfg_wr_data[12:0];
                st_next[k][S_STORED] = 1'b0;
                st_next[k][S_TID +: 2] = 2'd0;
            end else begin
                st_next[k][S_WAIT +: 20] = cfg_wr_data[19:0];
            end
        end
    end
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
    lk_p_sender_reg <= lk_p_sender_next;
    cur_reg <= cur_next;
    tmpl_reg <= tmpl_next;
    em_mask_reg <= em_mask_next;
    em_one_reg <= em_one_next;
    em_ack_reg <= em_ack_next;
    em_keep_pid_reg <= em_keep_pid_next;
    fin_reg <= fin_next;
    rat_target_reg <= rat_target_next;
    out_reg <= out_next;
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
    pbv_dev_reg <= pbv_dev_next;
    for (k = 0; k < STATIC_ENTRIES; k = k + 1) st_reg[k] <= st_next[k];
    for (k = 0; k < DESCRIPTORS; k = k + 1) d_reg[k] <= d_next[k];
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
        lk_p_sender_reg <= 1'b0;
        cur_reg <= {DIDX_W{1'b0}};
        tmpl_reg <= {MSG_W{1'b0}};
        em_mask_reg <= 128'd0;
        em_one_reg <= 1'b0;
        em_ack_reg <= 1'b0;
        em_keep_pid_reg <= 1'b0;
        fin_reg <= FIN_NONE;
        rat_target_reg <= CS_IDLE;
        out_reg <= {MSG_W{1'b0}};
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
        pbv_dev_reg <= {16*PBV_ENTRIES{1'b0}};
        for (k = 0; k < STATIC_ENTRIES; k = k + 1) st_reg[k] <= {S_W{1'b0}};
        for (k = 0; k < DESCRIPTORS; k = k + 1) d_reg[k] <= {D_W{1'b0}};
    end
end

endmodule

`resetall
