/*

Copyright (c) 2026 The inswitch authors
SPDX-License-Identifier: Apache-2.0

*/

// Language: Verilog 2005

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Reduction unit, lane-shared (the CPU's; issue 19, the CPU's flip-flops): the same combine as
 * rtl/reduce_unit.v (bit-exact with crates/model/src/reduce/mod.rs `combine`), the same ports and the
 * same latency (LATENCY = 6 rising edges from in_valid to out_valid: crates/model/src/reduce_unit.rs
 * `ReduceUnit` is its cycle model), but one combine at a time: its four 64-bit lanes go one a cycle
 * through ONE integer / selection datapath (FLT_REPSUM's aligned bins included) and two binary64 adders
 * (lanes 0 and 2 through one, 1 and 3 through the other), instead of four of each. Specification: docs/blocks/reduce_unit.md §The CPU's
 * lane-shared unit.
 *
 * Contract (what the CPU does: it issues in state ISSUE and waits in REDUCE, its operands being the
 * descriptor RAM's word and the message register, neither written before the result):
 *   - a_*, b_* and cfg_mode are held from the in_valid cycle until the out_valid cycle (the lanes and
 *     FLT_REPSUM's codes are read from the ports in the cycles after in_valid; since session 22
 *     stage 3 reads its lane's operands there, and the adders keep no copy of theirs, issue 19);
 *   - in_valid while a combine is in flight (the 5 cycles after an accepted one) is ignored.
 * cfg_mode is taken at in_valid.
 *
 * Schedule, edge k samples in_valid (ph = the phase register, 0 when idle):
 *   edges k..k+3     lane j = 0..3 into the lane register p1_* (the pair's case, op, codes at k)
 *   edges k+1..k+4   lane j's compares and its sum's overflow (p2_*); its FP selection's register;
 *                    INT_SUM's and FLT_REPSUM's lane sum into res_data (session 23: no register of its own)
 *   edges k+2..k+5   lane j's result into res_data, every other operator's and FLT_REPSUM's 0 for a special
 *                    m (MINMAXLOC index lanes use the value lane's flags, held one cycle); rc accumulated
 *   edges k, k+1     the adders take lanes 0/1, then 2/3; results after k+4 and k+5
 *   edges k, k+1     FLT_REPSUM: its order and distance (k), its codes but the bins' overflows (k+1)
 *   edge  k+5        res_* complete (FLT_SUM: lanes 0/1 from the adders; FLT_REPSUM: rc, oflow_id
 *                    with the bins' overflows); out_valid. FLT_SUM's lanes 2/3 and flags come from the adders' output registers.
 * While out_valid is 0 every out_* port is 0. rst (synchronous, active high) ends a combine in flight.
 */
module reduce_shared
(
    input  wire                 clk,
    input  wire                 rst,

    /*
     * Operand pair (held until out_valid)
     */
    input  wire                 in_valid,
    input  wire                 cfg_mode,            // R_TF_RED_CFG_MODE: 0 associative, 1 IEEE
    input  wire [5:0]           a_rt_op,
    input  wire [255:0]         a_rt_data,
    input  wire [3:0]           a_rt_rc,
    input  wire [7:0]           a_rt_repsum_m,
    input  wire [1:0]           a_rt_repsum_oflow_id,
    input  wire [31:0]          a_sfa,
    input  wire [5:0]           b_rt_op,
    input  wire [255:0]         b_rt_data,
    input  wire [3:0]           b_rt_rc,
    input  wire [7:0]           b_rt_repsum_m,
    input  wire [1:0]           b_rt_repsum_oflow_id,
    input  wire [31:0]          b_sfa,

    /*
     * Result
     */
    output wire                 out_valid,
    output wire [5:0]           out_rt_op,
    output wire [255:0]         out_rt_data,
    output wire [3:0]           out_rt_rc,
    output wire [7:0]           out_rt_repsum_m,
    output wire [1:0]           out_rt_repsum_oflow_id
);

// Opcodes OP_*, result codes RC_* (larger = higher priority), generated from
// crates/model/src/reduce/codes.rs (libfabric's COLL_OPCODE_* and enum cxip_coll_rc).
`include "reduce_codes.vh"

function [3:0] rc_max(input [3:0] p, input [3:0] q);
    rc_max = (p > q) ? p : q;
endfunction

// Lane `sel` of a 256-bit operand: a plain 4:1 select (an indexed part-select `d[64*sel +: 64]` maps
// through Yosys' shift logic, an adder chain deep; LUT depth, issue 19).
function [63:0] lane_of(input [255:0] d, input [1:0] sel);
    case (sel)
        2'd0: lane_of = d[0 +: 64];
        2'd1: lane_of = d[64 +: 64];
        2'd2: lane_of = d[128 +: 64];
        default: lane_of = d[192 +: 64];
    endcase
endfunction

// An adder's flags as a result code (the worst of invalid, overflow, inexact).
function [3:0] fadd_rc(input inv, input ovf, input inx);
    fadd_rc = inv ? RC_FLT_INVALID : ovf ? RC_FLT_OVERFLOW : inx ? RC_FLT_INEXACT : RC_SUCCESS;
endfunction

// What the combine does with the pair (case_reg): combine it, or pass an operand on (002 (96)).
localparam [1:0] CASE_COMBINE = 2'd0;
localparam [1:0] CASE_A_MISMATCH = 2'd1;    // a carries a mismatch report: a survives the reduction
localparam [1:0] CASE_B_MISMATCH = 2'd2;    // b carries one: b survives
localparam [1:0] CASE_OP_MISMATCH = 2'd3;   // the opcodes differ: a, with both source addresses

// Phases of a combine (ph): 1..5 after the edge that accepted it, 0 idle. The last lane enters at
// PH_LAST_LANE; the adders take lanes 2/3, and FLT_REPSUM's codes are taken, at PH_UPPER_ADD; the
// result is complete at the end of PH_DONE.
localparam [2:0] PH_IDLE = 3'd0;
localparam [2:0] PH_UPPER_ADD = 3'd1;
localparam [2:0] PH_LAST_LANE = 3'd3;
localparam [2:0] PH_DONE = 3'd5;

reg  [2:0]   ph = PH_IDLE;
wire         start = in_valid && ph == PH_IDLE;
// The lane entering p1 this cycle (lane 0 at start, then 1..3 at phases 1..3).
wire         lane_in = start || (ph != PH_IDLE && ph <= PH_LAST_LANE);
wire [1:0]   lane_sel = ph[1:0];

// ---------------------------------------------------------------------------------------------
// The pair, taken at start: its case, op and codes (as rtl/reduce_unit.v's stage 1)
// ---------------------------------------------------------------------------------------------
reg          mode_reg = 1'b0;
reg  [1:0]   case_reg = CASE_COMBINE;
reg  [5:0]   op_reg = 6'd0;               // the result's rt_op (b's when b survives)
reg  [3:0]   rc_ab_reg = 4'd0;            // rc_max(a_rt_rc, b_rt_rc)
reg  [7:0]   m_reg = 8'd0;                // the surviving operand's repsum_m and oflow_id
reg  [1:0]   oflow_reg = 2'd0;
reg          fsum_reg = 1'b0;             // a FLT_SUM combine: the result comes from the adders
reg          repsum_reg = 1'b0;           // a FLT_REPSUM combine: its lanes are aligned, its codes apart

// Stage 3's select, decoded when a combine starts with the pass-on cases folded in (LUT depth, issue 19:
// stage 3 reads a few flags, not op_reg and case_reg). A lane's result is a 2-input function of its
// operands' bits (truth table, index {a, b}) unless overridden (the sum, NaN, the mismatch report).
localparam [3:0] TT_ZERO = 4'b0000;
localparam [3:0] TT_AND = 4'b1000;
localparam [3:0] TT_OR = 4'b1110;
localparam [3:0] TT_XOR = 4'b0110;
localparam [3:0] TT_A = 4'b1100;
localparam [3:0] TT_B = 4'b1010;
reg  [3:0]   k_tt = TT_A;                 // the truth table of a fixed operator (and pass-on cases)
reg          k_pick = 1'b0;               // a selecting operator (MIN/MAX/MINMAXLOC): a or b per lane
reg          k_imin = 1'b0, k_imax = 1'b0, k_iloc = 1'b0, k_fsel = 1'b0, k_floc = 1'b0;
reg          k_log = 1'b0;                // LOG_*: bit 0 = k_log_tt over (a != 0, b != 0)
reg  [3:0]   k_log_tt = TT_ZERO;
reg          k_isum = 1'b0;               // INT_SUM: the sum, its overflow raised
reg          k_opmis = 1'b0;              // CASE_OP_MISMATCH: lane 0 is the mismatch report

reg  [1:0]   case_next;

always @* begin
    if (a_rt_rc == RC_OP_MISMATCH) case_next = CASE_A_MISMATCH;
    else if (b_rt_rc == RC_OP_MISMATCH) case_next = CASE_B_MISMATCH;
    else if (a_rt_op != b_rt_op) case_next = CASE_OP_MISMATCH;
    else case_next = CASE_COMBINE;
end

wire         rep_next = case_next == CASE_COMBINE && a_rt_op == OP_FLT_REPSUM;

always @(posedge clk) begin
    if (start) begin
        mode_reg <= cfg_mode;
        case_reg <= case_next;
        op_reg <= (case_next == CASE_B_MISMATCH) ? b_rt_op : a_rt_op;
        rc_ab_reg <= rc_max(a_rt_rc, b_rt_rc);
        m_reg <= (case_next == CASE_B_MISMATCH) ? b_rt_repsum_m : a_rt_repsum_m;
        oflow_reg <= (case_next == CASE_B_MISMATCH) ? b_rt_repsum_oflow_id : a_rt_repsum_oflow_id;
        fsum_reg <= case_next == CASE_COMBINE && a_rt_op[5:3] == OP_FLT_SUM_PREFIX;
        repsum_reg <= rep_next;
        k_tt <= (case_next == CASE_B_MISMATCH) ? TT_B : TT_A;
        k_pick <= 1'b0;
        k_imin <= 1'b0;
        k_imax <= 1'b0;
        k_iloc <= 1'b0;
        k_fsel <= 1'b0;
        k_floc <= 1'b0;
        k_log <= 1'b0;
        k_log_tt <= TT_ZERO;
        k_isum <= 1'b0;
        k_opmis <= case_next == CASE_OP_MISMATCH;
        if (case_next == CASE_COMBINE) begin
            case (a_rt_op)
                OP_BARRIER, OP_FLT_REPSUM: k_tt <= TT_ZERO;   // FLT_REPSUM: the sum overrides
                OP_BIT_AND: k_tt <= TT_AND;
                OP_BIT_OR: k_tt <= TT_OR;
                OP_BIT_XOR: k_tt <= TT_XOR;
                OP_LOG_AND: begin k_tt <= TT_ZERO; k_log <= 1'b1; k_log_tt <= TT_AND; end
                OP_LOG_OR: begin k_tt <= TT_ZERO; k_log <= 1'b1; k_log_tt <= TT_OR; end
                OP_LOG_XOR: begin k_tt <= TT_ZERO; k_log <= 1'b1; k_log_tt <= TT_XOR; end
                OP_INT_MIN: begin k_pick <= 1'b1; k_imin <= 1'b1; end
                OP_INT_MAX: begin k_pick <= 1'b1; k_imax <= 1'b1; end
                OP_INT_MINMAXLOC: begin k_pick <= 1'b1; k_iloc <= 1'b1; end
                OP_INT_SUM: k_isum <= 1'b1;
                OP_FLT_MIN, OP_FLT_MAX, OP_FLT_MINNUM, OP_FLT_MAXNUM: begin k_pick <= 1'b1; k_fsel <= 1'b1; end
                OP_FLT_MINMAXLOC, OP_FLT_MINMAXNUMLOC: begin k_pick <= 1'b1; k_floc <= 1'b1; end
                default: ;                                  // FLT_SUM (the adders overwrite), others: a
            endcase
        end
    end
end

// ---------------------------------------------------------------------------------------------
// Stage 1 (p1_*): one lane of each operand
// ---------------------------------------------------------------------------------------------
reg          p1_valid = 1'b0;
reg  [1:0]   p1_lane = 2'd0;
reg  [63:0]  p1_a = 64'd0, p1_b = 64'd0;

// FLT_REPSUM through the same lane: x (the operand of the larger m) in p1_a, y's bin j + d aligned to
// x's bin j (0 past y's last bin) in p1_b (as rtl/reduce_repsum.v's stage 1); the order and distance
// from the ports at start, from rs_swap / rs_d after.
reg          rs_swap = 1'b0;              // b's m is the larger: x = b
reg  [8:0]   rs_d = 9'd0;                 // m_x - m_y (0..255)
wire         rep_lane = start ? rep_next : repsum_reg;
wire         swap_c = $signed(b_rt_repsum_m) > $signed(a_rt_repsum_m);
// Both differences beside the compare; the one of the larger m is chosen.
wire [8:0]   d_ab = {a_rt_repsum_m[7], a_rt_repsum_m} - {b_rt_repsum_m[7], b_rt_repsum_m};
wire [8:0]   d_ba = {b_rt_repsum_m[7], b_rt_repsum_m} - {a_rt_repsum_m[7], a_rt_repsum_m};
// Lane 0 at start: x's lane 0 and y's bin d (0 when d > 3), both orders side by side, the compare
// choosing at the end (LUT depth, issue 19: the compare is not in front of the bin select).
wire [63:0]  x0 = swap_c ? b_rt_data[0 +: 64] : a_rt_data[0 +: 64];
wire [63:0]  y0_ab = (d_ab[8:2] == 7'd0) ? lane_of(b_rt_data, d_ab[1:0]) : 64'd0;   // x = a, y = b
wire [63:0]  y0_ba = (d_ba[8:2] == 7'd0) ? lane_of(a_rt_data, d_ba[1:0]) : 64'd0;   // x = b, y = a
// Lanes 1..3 (phases 1..3) from rs_swap and rs_d.
wire [255:0] x_data = rs_swap ? b_rt_data : a_rt_data;
wire [255:0] y_data = rs_swap ? a_rt_data : b_rt_data;
wire [2:0]   y_idx = {1'b0, lane_sel} + {1'b0, rs_d[1:0]};
wire         y_in = rs_d[8:2] == 7'd0 && !y_idx[2];
wire [63:0]  x_lane = start ? x0 : lane_of(x_data, lane_sel);
wire [63:0]  y_lane = start ? (swap_c ? y0_ba : y0_ab) : y_in ? lane_of(y_data, y_idx[1:0]) : 64'd0;

always @(posedge clk) begin
    p1_valid <= lane_in;
    p1_lane <= lane_sel;
    p1_a <= rep_lane ? x_lane : lane_of(a_rt_data, lane_sel);
    p1_b <= rep_lane ? y_lane : lane_of(b_rt_data, lane_sel);
    if (start) begin
        rs_swap <= swap_c;
        rs_d <= swap_c ? d_ba : d_ab;
    end
    if (rst) p1_valid <= 1'b0;
end

// FLT_REPSUM's codes, at the end of phase 1 from the held ports (rtl/reduce_repsum.v's stages 2 and 3 but
// the bins' overflows, which the lanes add at the end): x's code, y's as adjusted, y's dropped bins
// (REP_INEXACT), the specials (NaN > +Inf > -Inf > numbers; +Inf with -Inf is NaN and invalid).
wire [7:0]   rx_m = rs_swap ? b_rt_repsum_m : a_rt_repsum_m;
wire [7:0]   ry_m = rs_swap ? a_rt_repsum_m : b_rt_repsum_m;
wire [1:0]   rx_oflow = rs_swap ? b_rt_repsum_oflow_id : a_rt_repsum_oflow_id;
wire [1:0]   ry_oflow = rs_swap ? a_rt_repsum_oflow_id : b_rt_repsum_oflow_id;
wire [3:0]   rx_rc = rs_swap ? b_rt_rc : a_rt_rc;
wire [3:0]   ry_rc = rs_swap ? a_rt_rc : b_rt_rc;
wire         r_clash = rx_m == M_POS_INF && ry_m == M_NEG_INF;
reg          r_dropped;
reg  [3:0]   r_rc;
reg          r_ov_valid;
reg  [1:0]   r_ov;
integer      bi;

always @* begin
    r_dropped = 1'b0;
    for (bi = 0; bi < 4; bi = bi + 1) begin
        // y's bin bi is dropped when bi < d.
        if ({23'd0, rs_d} > bi && y_data[64*bi +: 64] != 64'd0) r_dropped = 1'b1;
    end
    r_rc = rx_rc;
    r_ov_valid = rx_rc == RC_INT_OVERFLOW;
    r_ov = rx_oflow;
    if (ry_rc == RC_INT_OVERFLOW) begin
        if ({7'd0, ry_oflow} >= rs_d) begin
            // y's overflowed bin is kept: it is bin y_oflow - d of x.
            r_rc = rc_max(r_rc, RC_INT_OVERFLOW);
            if (!r_ov_valid || ry_oflow - rs_d[1:0] > r_ov) r_ov = ry_oflow - rs_d[1:0];
            r_ov_valid = 1'b1;
        end else begin
            r_rc = rc_max(r_rc, RC_REP_INEXACT);
        end
    end else begin
        r_rc = rc_max(r_rc, ry_rc);
    end
    if (r_dropped) r_rc = rc_max(r_rc, RC_REP_INEXACT);
end

reg  [3:0]   rs_rc = 4'd0;                // the code but the bins' overflows
reg          rs_ov_valid = 1'b0;
reg  [1:0]   rs_ov = 2'd0;
reg          rs_special = 1'b0;           // x's m is -Inf, +Inf or NaN: the bins are 0
reg  [3:0]   rs_special_rc = 4'd0;
reg  [7:0]   rs_m = 8'd0;

always @(posedge clk) begin
    if (ph == PH_UPPER_ADD) begin
        rs_rc <= r_rc;
        rs_ov_valid <= r_ov_valid;
        rs_ov <= r_ov;
        rs_special <= $signed(rx_m) >= $signed(M_NEG_INF);
        rs_special_rc <= r_clash ? rc_max(rc_max(rx_rc, ry_rc), RC_FLT_INVALID) : rc_max(rx_rc, ry_rc);
        rs_m <= ($signed(rx_m) >= $signed(M_NEG_INF) && r_clash) ? M_NAN : rx_m;
    end
end

// FLT_SUM adders: lanes 0 and 1 at start, lanes 2 and 3 one edge later (the operands are held);
// rounding = opcode bits 1:0, FTZ = opcode bit 2. Each result 5 edges after its operands.
// upper_reg = (ph == PH_UPPER_ADD), a register: the adders' stage 1 is deep from their ports.
// HELD_OPERANDS (issue 19, session 22): the adders keep no copy of their operands or of the opcode's
// rounding bits; each gets both of its lanes from the held ports and chooses them itself (stage 1 by
// upper_reg, stage 2 by its own register of it: session 23, the select in this module was a LUT level in
// front of the adder's stage 2 that the adder's mapping did not count), the rounding mode and FTZ from
// the held a_rt_op.
reg          upper_reg = 1'b0;
wire [63:0]  fadd_lo_result, fadd_hi_result;
wire         fadd_lo_inexact, fadd_lo_overflow, fadd_lo_invalid;
wire         fadd_hi_inexact, fadd_hi_overflow, fadd_hi_invalid;

reduce_fadd #(.HELD_OPERANDS(1)) fadd_lo (  // lanes 0, then 2
    .clk(clk),
    .a(a_rt_data[0 +: 64]),
    .b(b_rt_data[0 +: 64]),
    .rounding(a_rt_op[1:0]),
    .ftz(a_rt_op[2]),
    .a_upper(a_rt_data[128 +: 64]),
    .b_upper(b_rt_data[128 +: 64]),
    .upper(upper_reg),
    .result(fadd_lo_result),
    .flag_inexact(fadd_lo_inexact),
    .flag_overflow(fadd_lo_overflow),
    .flag_invalid(fadd_lo_invalid)
);

reduce_fadd #(.HELD_OPERANDS(1)) fadd_hi (  // lanes 1, then 3
    .clk(clk),
    .a(a_rt_data[64 +: 64]),
    .b(b_rt_data[64 +: 64]),
    .rounding(a_rt_op[1:0]),
    .ftz(a_rt_op[2]),
    .a_upper(a_rt_data[192 +: 64]),
    .b_upper(b_rt_data[192 +: 64]),
    .upper(upper_reg),
    .result(fadd_hi_result),
    .flag_inexact(fadd_hi_inexact),
    .flag_overflow(fadd_hi_overflow),
    .flag_invalid(fadd_hi_invalid)
);

// ---------------------------------------------------------------------------------------------
// Stage 2 (p2_*): the lane's sum and compares; its floating-point selection's first stage
// ---------------------------------------------------------------------------------------------
wire         fsel_max = (op_reg == OP_FLT_MAX) || (op_reg == OP_FLT_MAXNUM);
wire         fsel_num = (op_reg == OP_FLT_MINNUM) || (op_reg == OP_FLT_MAXNUM)
                     || (op_reg == OP_FLT_MINMAXNUMLOC);
wire         fsel_loc = (op_reg == OP_FLT_MINMAXNUMLOC) || (op_reg == OP_FLT_MINMAXLOC);
wire         fsel_nan, fsel_pick_a, fsel_pick_b, fsel_invalid;   // beside p2_*

// FLT_MINMAXLOC / MINMAXNUMLOC: lane 0 is a minimum, lane 2 a maximum.
reduce_fminmax fminmax_inst (
    .clk(clk),
    .a(p1_a),
    .b(p1_b),
    .max(fsel_loc ? (p1_lane == 2'd2) : fsel_max),
    .num(fsel_num),
    .ieee(mode_reg),
    .nan(fsel_nan),
    .pick_a(fsel_pick_a),
    .pick_b(fsel_pick_b),
    .invalid(fsel_invalid)
);

reg          p2_valid = 1'b0;
reg  [1:0]   p2_lane = 2'd0;
// The lane's operands in stage 3, read from the held ports again, not registered (issue 19, session 22:
// 128 flip-flops). Stage 3 reads them for every operator but FLT_SUM (the adders' results) and
// FLT_REPSUM (its aligned bins: only their sum, or 0, is written), and those are the ports' lane
// p2_lane as p1 took it.
wire [63:0]  p2_a = lane_of(a_rt_data, p2_lane);
wire [63:0]  p2_b = lane_of(b_rt_data, p2_lane);
reg          p2_sum_ovf = 1'b0;           // its signed overflow
reg          p2_b_lt = 1'b0;              // $signed(y) < $signed(x)
reg          p2_b_gt = 1'b0;              // $signed(y) > $signed(x)
reg          p2_eq = 1'b0;                // x == y
reg          p2_b_ult = 1'b0;             // y < x, unsigned
reg          p2_a_nz = 1'b0, p2_b_nz = 1'b0;

// x + y: INT_SUM's and FLT_REPSUM's lane result, written into res_data by this stage (no register of its
// own: session 23, 64 flip-flops); only its overflow goes on to stage 3.
wire [63:0]  s1 = p1_a + p1_b;

always @(posedge clk) begin
    p2_valid <= p1_valid;
    p2_lane <= p1_lane;
    p2_sum_ovf <= p1_a[63] == p1_b[63] && s1[63] != p1_a[63];
    p2_b_lt <= $signed(p1_b) < $signed(p1_a);
    p2_b_gt <= $signed(p1_b) > $signed(p1_a);
    p2_eq <= p1_a == p1_b;
    p2_b_ult <= p1_b < p1_a;
    p2_a_nz <= p1_a != 64'd0;
    p2_b_nz <= p1_b != 64'd0;
    if (rst) p2_valid <= 1'b0;
end

// ---------------------------------------------------------------------------------------------
// Stage 3: the lane's result into res_data; every operator but FLT_SUM and FLT_REPSUM
// ---------------------------------------------------------------------------------------------
// A value lane's (0, 2) flags, for its index lane (1, 3) one cycle later (MINMAXLOC).
reg          hold_lt = 1'b0, hold_gt = 1'b0, hold_eq = 1'b0, hold_pick_a = 1'b0, hold_pick_b = 1'b0;

reg  [63:0]  lane_res;
reg  [3:0]   lane_raised;
wire         value_lane = !p2_lane[0];    // lanes 0, 2: MINMAXLOC's values; 1, 3: their indices
// The lane's value from the floating-point selection (NaN, a or b).
wire         fsel_lane = k_fsel || (k_floc && value_lane);
// A selecting operator's choice of b. INT_MINMAXLOC: lexicographic (value, index), the lower index
// winning a tie (002 (44), (83)); the value lane alone: equal values are equal whichever is picked.
// FLT_MINMAXLOC's index: of the picked operand; equal values (or two NaNs for FLT_MINMAXLOC): the lower.
wire         iloc_b = value_lane ? (p2_lane[1] ? p2_b_gt : p2_b_lt)
                                 : ((p2_lane[1] ? hold_gt : hold_lt) || (hold_eq && p2_b_ult));
wire         floc_idx_b = !hold_pick_a && (hold_pick_b || p2_b_ult);
wire         pick_b = (k_imin && p2_b_lt) || (k_imax && p2_b_gt) || (k_iloc && iloc_b)
                   || (fsel_lane && fsel_pick_b) || (k_floc && !value_lane && floc_idx_b);
wire         use_nan = fsel_lane && fsel_nan;
wire [3:0]   tt = k_pick ? (pick_b ? TT_B : TT_A) : k_tt;
// Bits of DEFAULT_NAN that are 1 take all-ones when it is chosen, the others all-zeros; bit 0 (a 0 in
// DEFAULT_NAN) is LOG_*'s result.
wire [3:0]   tt_one = use_nan ? 4'b1111 : tt;
wire [3:0]   tt_zero = use_nan ? 4'b0000 : tt;
wire         log_res = k_log_tt[{p2_a_nz, p2_b_nz}];
wire [3:0]   tt_bit0 = k_log ? {4{log_res}} : tt_zero;
// The lane's sum, written by stage 2 (INT_SUM, FLT_REPSUM); stage 3 writes every other result, and
// FLT_REPSUM's 0 over it when x's m is special (rs_special, known from PH_UPPER_ADD on).
wire         sum_op = k_isum || repsum_reg;
wire         lane_from_sum = k_isum || (repsum_reg && !rs_special);
wire         use_sfa = k_opmis && p2_lane == 2'd0;
integer      li;

always @* begin
    for (li = 0; li < 64; li = li + 1) begin
        if (li == 0) lane_res[li] = tt_bit0[{p2_a[li], p2_b[li]}];
        else if (DEFAULT_NAN[li]) lane_res[li] = tt_one[{p2_a[li], p2_b[li]}];
        else lane_res[li] = tt_zero[{p2_a[li], p2_b[li]}];
    end
    if (use_sfa) lane_res = {b_sfa, a_sfa};
    lane_raised = RC_SUCCESS;
    if (k_isum && p2_sum_ovf) lane_raised = RC_INT_OVERFLOW;
    if (fsel_lane && fsel_invalid) lane_raised = RC_FLT_INVALID;
end

reg  [255:0] res_data = 256'd0;
reg  [3:0]   raised_reg = RC_SUCCESS;     // the lanes' raised codes so far
reg  [3:0]   res_rc = 4'd0;
reg  [7:0]   res_m = 8'd0;
reg  [1:0]   res_oflow_id = 2'd0;
reg  [3:0]   fsum_lo_rc = RC_SUCCESS;     // FLT_SUM lanes 0 and 1's flags (the adders' first results)
reg          out_valid_reg = 1'b0;
reg          rs_bin_ovf = 1'b0;           // FLT_REPSUM: a bin's sum overflowed; the highest such bin
reg  [1:0]   rs_bin_ovf_lane = 2'd0;

// FLT_REPSUM's result code and oflow_id, with the last lane's overflow (in stage 3 at PH_DONE).
wire         rep_ovf = rs_bin_ovf || (p2_valid && p2_sum_ovf);
wire [1:0]   rep_ovf_lane = (p2_valid && p2_sum_ovf) ? p2_lane : rs_bin_ovf_lane;
wire [3:0]   rep_rc = rs_special ? rs_special_rc : rep_ovf ? rc_max(rs_rc, RC_INT_OVERFLOW) : rs_rc;
wire [1:0]   rep_ov = (rep_ovf && (!rs_ov_valid || rep_ovf_lane > rs_ov)) ? rep_ovf_lane : rs_ov;

wire [3:0]   raised_all = rc_max(raised_reg, lane_raised);
integer      wj;

always @(posedge clk) begin
    if (start) rs_bin_ovf <= 1'b0;
    if (p2_valid && p2_sum_ovf) begin
        rs_bin_ovf <= 1'b1;
        rs_bin_ovf_lane <= p2_lane;
    end
    // Each lane's write by a constant index (an indexed part-select write is Yosys' shift logic): the
    // sum from stage 2 (lane p1_lane), any other result from stage 3 (lane p2_lane, the lane before).
    for (wj = 0; wj < 4; wj = wj + 1) begin
        if (p1_valid && sum_op && p1_lane == wj[1:0]) res_data[64*wj +: 64] <= s1;
        if (p2_valid && !lane_from_sum && p2_lane == wj[1:0]) res_data[64*wj +: 64] <= lane_res;
    end
    if (p2_valid) begin
        raised_reg <= (p2_lane == 2'd0) ? lane_raised : raised_all;
    end
    if (value_lane) begin
        hold_lt <= p2_b_lt;
        hold_gt <= p2_b_gt;
        hold_eq <= p2_eq;
        hold_pick_a <= fsel_pick_a;
        hold_pick_b <= fsel_pick_b;
    end
    out_valid_reg <= 1'b0;
    if (ph == PH_DONE) begin
        out_valid_reg <= 1'b1;
        // Every pass-on case reports a mismatch (a's or b's report, or a new one).
        res_rc <= (case_reg == CASE_COMBINE) ? rc_max(rc_ab_reg, raised_all) : RC_OP_MISMATCH;
        res_m <= m_reg;
        res_oflow_id <= oflow_reg;
        if (fsum_reg) res_data[127:0] <= {fadd_hi_result, fadd_lo_result};
        fsum_lo_rc <= rc_max(fadd_rc(fadd_lo_invalid, fadd_lo_overflow, fadd_lo_inexact),
                             fadd_rc(fadd_hi_invalid, fadd_hi_overflow, fadd_hi_inexact));
        if (repsum_reg) begin
            res_rc <= rep_rc;
            res_m <= rs_m;
            res_oflow_id <= (!rs_special && rep_rc == RC_INT_OVERFLOW) ? rep_ov : 2'd0;
        end
    end
    upper_reg <= start;
    if (start) ph <= ph + 3'd1;
    else if (ph == PH_DONE) ph <= PH_IDLE;
    else if (ph != PH_IDLE) ph <= ph + 3'd1;
    if (rst) begin
        ph <= PH_IDLE;
        upper_reg <= 1'b0;
        out_valid_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// Out: FLT_SUM's upper lanes and flags from the adders' output registers; idle outputs are 0
// ---------------------------------------------------------------------------------------------
wire [3:0]   fsum_rc = rc_max(fsum_lo_rc, rc_max(fadd_rc(fadd_lo_invalid, fadd_lo_overflow, fadd_lo_inexact),
                                                 fadd_rc(fadd_hi_invalid, fadd_hi_overflow, fadd_hi_inexact)));
wire         fsum_out = out_valid_reg && fsum_reg;

assign out_valid = out_valid_reg;
assign out_rt_op = out_valid_reg ? op_reg : 6'd0;
assign out_rt_data = !out_valid_reg ? 256'd0
                   : fsum_out ? {fadd_hi_result, fadd_lo_result, res_data[127:0]} : res_data;
assign out_rt_rc = !out_valid_reg ? 4'd0 : fsum_out ? rc_max(res_rc, fsum_rc) : res_rc;
assign out_rt_repsum_m = out_valid_reg ? res_m : 8'd0;
assign out_rt_repsum_oflow_id = out_valid_reg ? res_oflow_id : 2'd0;

endmodule

`resetall
