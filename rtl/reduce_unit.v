/*

Copyright (c) 2026 The inswitch authors
SPDX-License-Identifier: Apache-2.0

*/

// Language: Verilog 2005

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Reduction unit: combines two contributions (a = accumulated, b = new) with every operator of seed
 * 002 (42)-(48), (81)-(97). Bit-exact with crates/model/src/reduce/mod.rs `combine`; cycle model
 * crates/model/src/reduce_unit.rs `ReduceUnit`. Specification: docs/blocks/reduce_unit.md.
 *
 * Throughput: one operand pair per cycle, no backpressure. Latency: 6 rising edges (the model's
 * reduce_unit::LATENCY; 3 before session 15's pipelining): the pair sampled at edge k (into p1_*) is on
 * out_* after edge k+5, through p2_* .. p5_* beside the FLT_SUM adders' stages and FLT_REPSUM's
 * registers; the stage table is docs/blocks/reduce_unit.md §Timing.
 *
 * While out_valid is 0 every out_* port is 0. rst (synchronous, active high) clears the pipeline.
 *
 * rt_data lanes: lane i in bits 64*i+63:64*i (rt_data[0] in 63:0). MINMAXLOC: lane 0/1 = min value /
 * index, lane 2/3 = max value / index. Opcode mismatch: rt_data[0] = {b_sfa, a_sfa}.
 */
module reduce_unit
(
    input  wire                 clk,
    input  wire                 rst,

    /*
     * Operand pair
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

// Local: the unit's lane count (the model's reduce::LANES; the rt_data port is written as 4 x 64 bits).
localparam LANES = 4;

function [3:0] rc_max(input [3:0] p, input [3:0] q);
    rc_max = (p > q) ? p : q;
endfunction

// What a stage does with the pair (p1_case): combine it, or pass an operand on (002 (96)).
localparam [1:0] CASE_COMBINE = 2'd0;
localparam [1:0] CASE_A_MISMATCH = 2'd1;    // a carries a mismatch report: a survives the reduction
localparam [1:0] CASE_B_MISMATCH = 2'd2;    // b carries one: b survives
localparam [1:0] CASE_OP_MISMATCH = 2'd3;   // the opcodes differ: a, with both source addresses

genvar g;
integer i;

// ---------------------------------------------------------------------------------------------
// Stage 1 (p1_*): the operand register; the case of the pair. The operands arrive through the
// caller's logic (the CPU's descriptor RAM), so nothing deep is computed before this register; the
// binary64 adders' first stage, also short, runs beside it.
// ---------------------------------------------------------------------------------------------
reg          p1_valid = 1'b0;
reg          p1_mode = 1'b0;
reg  [1:0]   p1_case = CASE_COMBINE;
reg  [5:0]   p1_op = 6'd0;                // the result's rt_op (b's when b survives)
reg  [255:0] p1_a_data = 256'd0;
reg  [255:0] p1_b_data = 256'd0;
reg  [3:0]   p1_rc_ab = 4'd0;             // rc_max(a_rt_rc, b_rt_rc)
reg  [7:0]   p1_a_m = 8'd0, p1_b_m = 8'd0;
reg  [1:0]   p1_a_oflow_id = 2'd0, p1_b_oflow_id = 2'd0;
reg  [3:0]   p1_a_rc = 4'd0, p1_b_rc = 4'd0;
reg  [63:0]  p1_sfa = 64'd0;              // {b_sfa, a_sfa}: the mismatch report
reg          p1_fsum = 1'b0;              // a FLT_SUM combine: the result comes from the adders

always @(posedge clk) begin
    p1_valid <= in_valid;
    p1_mode <= cfg_mode;
    if (a_rt_rc == RC_OP_MISMATCH) p1_case <= CASE_A_MISMATCH;
    else if (b_rt_rc == RC_OP_MISMATCH) p1_case <= CASE_B_MISMATCH;
    else if (a_rt_op != b_rt_op) p1_case <= CASE_OP_MISMATCH;
    else p1_case <= CASE_COMBINE;
    p1_op <= (a_rt_rc != RC_OP_MISMATCH && b_rt_rc == RC_OP_MISMATCH) ? b_rt_op : a_rt_op;
    p1_a_data <= a_rt_data;
    p1_b_data <= b_rt_data;
    p1_rc_ab <= rc_max(a_rt_rc, b_rt_rc);
    p1_a_m <= a_rt_repsum_m;
    p1_b_m <= b_rt_repsum_m;
    p1_a_oflow_id <= a_rt_repsum_oflow_id;
    p1_b_oflow_id <= b_rt_repsum_oflow_id;
    p1_a_rc <= a_rt_rc;
    p1_b_rc <= b_rt_rc;
    p1_sfa <= {b_sfa, a_sfa};
    p1_fsum <= a_rt_rc != RC_OP_MISMATCH && b_rt_rc != RC_OP_MISMATCH && a_rt_op == b_rt_op
               && a_rt_op[5:3] == OP_FLT_SUM_PREFIX;
    if (rst) p1_valid <= 1'b0;
end

// FLT_SUM adders, one per lane, from the operands themselves (their first stage is short);
// rounding = opcode bits 1:0, FTZ = opcode bit 2. Result 5 edges after the operands, beside p5_*.
wire [255:0] fadd_result;
wire [3:0]   fadd_inexact;
wire [3:0]   fadd_overflow;
wire [3:0]   fadd_invalid;

generate
    for (g = 0; g < LANES; g = g + 1) begin : fadd_lane
        reduce_fadd fadd_inst (
            .clk(clk),
            .a(a_rt_data[64*g +: 64]),
            .b(b_rt_data[64*g +: 64]),
            .rounding(a_rt_op[1:0]),
            .ftz(a_rt_op[2]),
            .a_upper(64'd0),                // HELD_OPERANDS = 0: a new pair every cycle
            .b_upper(64'd0),
            .upper(1'b0),
            .result(fadd_result[64*g +: 64]),
            .flag_inexact(fadd_inexact[g]),
            .flag_overflow(fadd_overflow[g]),
            .flag_invalid(fadd_invalid[g])
        );
    end
endgenerate

// FLT_REPSUM, from the operand register; its outputs are registers loaded 3 edges later, beside p4_*.
wire [255:0] rep_data;
wire [7:0]   rep_m;
wire [1:0]   rep_oflow_id;
wire [3:0]   rep_rc;

reduce_repsum repsum_inst (
    .clk(clk),
    .a_data(p1_a_data),
    .a_m(p1_a_m),
    .a_oflow_id(p1_a_oflow_id),
    .a_rc(p1_a_rc),
    .b_data(p1_b_data),
    .b_m(p1_b_m),
    .b_oflow_id(p1_b_oflow_id),
    .b_rc(p1_b_rc),
    .data(rep_data),
    .m(rep_m),
    .oflow_id(rep_oflow_id),
    .rc(rep_rc)
);

// ---------------------------------------------------------------------------------------------
// Stage 2 (p2_*): the lanes' sums and compares; the floating-point selections' first stage
// ---------------------------------------------------------------------------------------------
// Floating-point selections, one per lane; lanes 0 and 2 also serve MINMAXLOC and MINMAXNUMLOC.
wire        fsel_max = (p1_op == OP_FLT_MAX) || (p1_op == OP_FLT_MAXNUM);
wire        fsel_num = (p1_op == OP_FLT_MINNUM) || (p1_op == OP_FLT_MAXNUM)
                    || (p1_op == OP_FLT_MINMAXNUMLOC);
wire        fsel_loc = (p1_op == OP_FLT_MINMAXNUMLOC) || (p1_op == OP_FLT_MINMAXLOC);
// Valid beside p2_* (one register stage inside).
wire [3:0]  fsel_nan;
// Only lanes 0 and 2 (FLT_MINMAXLOC / MINMAXNUMLOC values) use which operand was picked.
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0]  fsel_pick_a;
/* verilator lint_on UNUSEDSIGNAL */
wire [3:0]  fsel_pick_b;
wire [3:0]  fsel_invalid;

generate
    for (g = 0; g < LANES; g = g + 1) begin : fsel_lane
        // FLT_MINMAXLOC / MINMAXNUMLOC: lane 0 is a minimum, lane 2 a maximum.
        reduce_fminmax fminmax_inst (
            .clk(clk),
            .a(p1_a_data[64*g +: 64]),
            .b(p1_b_data[64*g +: 64]),
            .max(fsel_loc ? (g == 2) : fsel_max),
            .num(fsel_num),
            .ieee(p1_mode),
            .nan(fsel_nan[g]),
            .pick_a(fsel_pick_a[g]),
            .pick_b(fsel_pick_b[g]),
            .invalid(fsel_invalid[g])
        );
    end
endgenerate

reg          p2_valid = 1'b0;
reg  [1:0]   p2_case = CASE_COMBINE;
reg  [5:0]   p2_op = 6'd0;
reg  [255:0] p2_a_data = 256'd0;
reg  [255:0] p2_b_data = 256'd0;
reg  [255:0] p2_sum = 256'd0;             // x + y per lane
reg  [3:0]   p2_sum_ovf = 4'd0;           // its signed overflow
reg  [3:0]   p2_b_lt = 4'd0;              // $signed(y) < $signed(x)
reg  [3:0]   p2_b_gt = 4'd0;              // $signed(y) > $signed(x)
reg  [1:0]   p2_eq = 2'd0;                // x == y in lanes 0 and 2 (INT_MINMAXLOC's values)
reg  [1:0]   p2_b_ult = 2'd0;             // y < x, unsigned, in lanes 1 and 3 (the MINMAXLOC indices)
reg  [3:0]   p2_a_nz = 4'd0, p2_b_nz = 4'd0;
reg  [3:0]   p2_rc_ab = 4'd0;
reg  [7:0]   p2_m = 8'd0;
reg  [1:0]   p2_oflow_id = 2'd0;
reg  [63:0]  p2_sfa = 64'd0;
reg          p2_fsum = 1'b0;

reg  [255:0] lane_sum;
reg  [3:0]   lane_sum_ovf, lane_b_lt, lane_b_gt, lane_a_nz, lane_b_nz;
// Computed in every lane by the one loop; the equality serves lanes 0 and 2, the unsigned compare 1 and 3.
/* verilator lint_off UNUSEDSIGNAL */
reg  [3:0]   lane_eq, lane_b_ult;
/* verilator lint_on UNUSEDSIGNAL */
reg  [63:0]  x1, y1, s1;

always @* begin
    for (i = 0; i < LANES; i = i + 1) begin
        x1 = p1_a_data[64*i +: 64];
        y1 = p1_b_data[64*i +: 64];
        s1 = x1 + y1;
        lane_sum[64*i +: 64] = s1;
        lane_sum_ovf[i] = x1[63] == y1[63] && s1[63] != x1[63];
        lane_b_lt[i] = $signed(y1) < $signed(x1);
        lane_b_gt[i] = $signed(y1) > $signed(x1);
        lane_eq[i] = x1 == y1;
        lane_b_ult[i] = y1 < x1;
        lane_a_nz[i] = x1 != 64'd0;
        lane_b_nz[i] = y1 != 64'd0;
    end
end

always @(posedge clk) begin
    p2_sum <= lane_sum;
    p2_sum_ovf <= lane_sum_ovf;
    p2_b_lt <= lane_b_lt;
    p2_b_gt <= lane_b_gt;
    p2_eq <= {lane_eq[2], lane_eq[0]};
    p2_b_ult <= {lane_b_ult[3], lane_b_ult[1]};
    p2_a_nz <= lane_a_nz;
    p2_b_nz <= lane_b_nz;
    p2_valid <= p1_valid;
    p2_case <= p1_case;
    p2_op <= p1_op;
    p2_a_data <= p1_a_data;
    p2_b_data <= p1_b_data;
    p2_rc_ab <= p1_rc_ab;
    p2_m <= (p1_case == CASE_B_MISMATCH) ? p1_b_m : p1_a_m;
    p2_oflow_id <= (p1_case == CASE_B_MISMATCH) ? p1_b_oflow_id : p1_a_oflow_id;
    p2_sfa <= p1_sfa;
    p2_fsum <= p1_fsum;
    if (rst) p2_valid <= 1'b0;
end

// ---------------------------------------------------------------------------------------------
// Stage 3 (p3_*): every operator but FLT_SUM and FLT_REPSUM chosen; the pass-on cases
// ---------------------------------------------------------------------------------------------
reg  [255:0] p3_data_next;
reg  [3:0]   raised;
reg  [63:0]  fsel_value;
reg  [63:0]  x, y;
reg          loc_lo, loc_hi;

always @* begin
    p3_data_next = p2_a_data;
    raised = RC_SUCCESS;
    loc_lo = 1'b0;
    loc_hi = 1'b0;
    fsel_value = 64'd0;
    for (i = 0; i < LANES; i = i + 1) begin
        x = p2_a_data[64*i +: 64];
        y = p2_b_data[64*i +: 64];
        fsel_value = fsel_nan[i] ? DEFAULT_NAN : fsel_pick_b[i] ? y : x;
        case (p2_op)
            OP_BARRIER:   p3_data_next[64*i +: 64] = 64'd0;
            OP_BIT_AND:   p3_data_next[64*i +: 64] = x & y;
            OP_BIT_OR:    p3_data_next[64*i +: 64] = x | y;
            OP_BIT_XOR:   p3_data_next[64*i +: 64] = x ^ y;
            OP_LOG_AND:   p3_data_next[64*i +: 64] = {63'd0, p2_a_nz[i] && p2_b_nz[i]};
            OP_LOG_OR:    p3_data_next[64*i +: 64] = {63'd0, p2_a_nz[i] || p2_b_nz[i]};
            OP_LOG_XOR:   p3_data_next[64*i +: 64] = {63'd0, p2_a_nz[i] != p2_b_nz[i]};
            OP_INT_MIN:   p3_data_next[64*i +: 64] = p2_b_lt[i] ? y : x;
            OP_INT_MAX:   p3_data_next[64*i +: 64] = p2_b_gt[i] ? y : x;
            OP_INT_SUM: begin
                p3_data_next[64*i +: 64] = p2_sum[64*i +: 64];
                if (p2_sum_ovf[i]) raised = RC_INT_OVERFLOW;
            end
            OP_FLT_MIN, OP_FLT_MAX, OP_FLT_MINNUM, OP_FLT_MAXNUM: begin
                p3_data_next[64*i +: 64] = fsel_value;
                if (fsel_invalid[i]) raised = RC_FLT_INVALID;
            end
            OP_FLT_MINMAXLOC, OP_FLT_MINMAXNUMLOC: begin
                // Values in lanes 0 and 2; lanes 1 and 3 below.
                if (i == 0 || i == 2) begin
                    p3_data_next[64*i +: 64] = fsel_value;
                    if (fsel_invalid[i]) raised = RC_FLT_INVALID;
                end
            end
            default: ;
        endcase
    end
    case (p2_op)
        OP_INT_MINMAXLOC: begin
            // Lexicographic (value, index); the lower index wins a tie (002 (44), (83)).
            loc_lo = p2_b_lt[0] || (p2_eq[0] && p2_b_ult[0]);
            loc_hi = p2_b_gt[2] || (p2_eq[1] && p2_b_ult[1]);
            p3_data_next[127:0] = loc_lo ? p2_b_data[127:0] : p2_a_data[127:0];
            p3_data_next[255:128] = loc_hi ? p2_b_data[255:128] : p2_a_data[255:128];
        end
        OP_FLT_MINMAXLOC, OP_FLT_MINMAXNUMLOC: begin
            // Index of the picked operand; equal values (or two NaNs for FLT_MINMAXLOC): the lower.
            loc_lo = !fsel_pick_a[0] && (fsel_pick_b[0] || p2_b_ult[0]);
            loc_hi = !fsel_pick_a[2] && (fsel_pick_b[2] || p2_b_ult[1]);
            p3_data_next[127:64] = loc_lo ? p2_b_data[127:64] : p2_a_data[127:64];
            p3_data_next[255:192] = loc_hi ? p2_b_data[255:192] : p2_a_data[255:192];
        end
        default: ;
    endcase
    case (p2_case)
        CASE_A_MISMATCH:  p3_data_next = p2_a_data;
        CASE_B_MISMATCH:  p3_data_next = p2_b_data;
        CASE_OP_MISMATCH: p3_data_next = {p2_a_data[255:64], p2_sfa};
        default: ;
    endcase
end

reg          p3_valid = 1'b0;
reg  [5:0]   p3_op = 6'd0;
reg  [255:0] p3_data = 256'd0;
reg  [3:0]   p3_rc = 4'd0;
reg  [7:0]   p3_m = 8'd0;
reg  [1:0]   p3_oflow_id = 2'd0;
reg          p3_fsum = 1'b0;
reg          p3_repsum = 1'b0;            // a FLT_REPSUM combine: the result comes from repsum_inst

always @(posedge clk) begin
    p3_valid <= p2_valid;
    p3_op <= p2_op;
    p3_data <= p3_data_next;
    // Every pass-on case reports a mismatch (a's or b's report, or a new one).
    p3_rc <= (p2_case == CASE_COMBINE) ? rc_max(p2_rc_ab, raised) : RC_OP_MISMATCH;
    p3_m <= p2_m;
    p3_oflow_id <= p2_oflow_id;
    p3_fsum <= p2_fsum;
    p3_repsum <= p2_case == CASE_COMBINE && p2_op == OP_FLT_REPSUM;
    if (rst) p3_valid <= 1'b0;
end

// ---------------------------------------------------------------------------------------------
// Stage 4 (p4_*): held beside the repsum's last stage
// ---------------------------------------------------------------------------------------------
reg          p4_valid = 1'b0;
reg  [5:0]   p4_op = 6'd0;
reg  [255:0] p4_data = 256'd0;
reg  [3:0]   p4_rc = 4'd0;
reg  [7:0]   p4_m = 8'd0;
reg  [1:0]   p4_oflow_id = 2'd0;
reg          p4_fsum = 1'b0;
reg          p4_repsum = 1'b0;

always @(posedge clk) begin
    p4_valid <= p3_valid;
    p4_op <= p3_op;
    p4_data <= p3_data;
    p4_rc <= p3_rc;
    p4_m <= p3_m;
    p4_oflow_id <= p3_oflow_id;
    p4_fsum <= p3_fsum;
    p4_repsum <= p3_repsum;
    if (rst) p4_valid <= 1'b0;
end

// ---------------------------------------------------------------------------------------------
// Stage 5 (p5_*): FLT_REPSUM's result joins (its registers load beside p4_*)
// ---------------------------------------------------------------------------------------------
reg          p5_valid = 1'b0;
reg  [5:0]   p5_op = 6'd0;
reg  [255:0] p5_data = 256'd0;
reg  [3:0]   p5_rc = 4'd0;
reg  [7:0]   p5_m = 8'd0;
reg  [1:0]   p5_oflow_id = 2'd0;
reg          p5_fsum = 1'b0;

always @(posedge clk) begin
    p5_valid <= p4_valid;
    p5_op <= p4_op;
    p5_data <= p4_repsum ? rep_data : p4_data;
    p5_rc <= p4_repsum ? rep_rc : p4_rc;
    p5_m <= p4_repsum ? rep_m : p4_m;
    p5_oflow_id <= p4_repsum ? rep_oflow_id : p4_oflow_id;
    p5_fsum <= p4_fsum;
    if (rst) p5_valid <= 1'b0;
end

// ---------------------------------------------------------------------------------------------
// Stage 6 (out_*): pick the FLT_SUM result, merge its flags into rt_rc, zero idle outputs
// ---------------------------------------------------------------------------------------------
reg         out_valid_reg = 1'b0, out_valid_next;
reg  [5:0]  out_rt_op_reg = 6'd0, out_rt_op_next;
reg  [255:0] out_rt_data_reg = 256'd0, out_rt_data_next;
reg  [3:0]  out_rt_rc_reg = 4'd0, out_rt_rc_next;
reg  [7:0]  out_rt_repsum_m_reg = 8'd0, out_rt_repsum_m_next;
reg  [1:0]  out_rt_repsum_oflow_id_reg = 2'd0, out_rt_repsum_oflow_id_next;

reg  [3:0]  fsum_rc;

always @* begin
    fsum_rc = RC_SUCCESS;
    for (i = 0; i < LANES; i = i + 1) begin
        if (fadd_invalid[i]) fsum_rc = rc_max(fsum_rc, RC_FLT_INVALID);
        else if (fadd_overflow[i]) fsum_rc = rc_max(fsum_rc, RC_FLT_OVERFLOW);
        else if (fadd_inexact[i]) fsum_rc = rc_max(fsum_rc, RC_FLT_INEXACT);
    end

    out_valid_next = p5_valid;
    out_rt_op_next = 6'd0;
    out_rt_data_next = 256'd0;
    out_rt_rc_next = 4'd0;
    out_rt_repsum_m_next = 8'd0;
    out_rt_repsum_oflow_id_next = 2'd0;
    if (p5_valid) begin
        out_rt_op_next = p5_op;
        out_rt_data_next = p5_fsum ? fadd_result : p5_data;
        out_rt_rc_next = p5_fsum ? rc_max(p5_rc, fsum_rc) : p5_rc;
        out_rt_repsum_m_next = p5_m;
        out_rt_repsum_oflow_id_next = p5_oflow_id;
    end
end

always @(posedge clk) begin
    out_valid_reg <= out_valid_next;
    out_rt_op_reg <= out_rt_op_next;
    out_rt_data_reg <= out_rt_data_next;
    out_rt_rc_reg <= out_rt_rc_next;
    out_rt_repsum_m_reg <= out_rt_repsum_m_next;
    out_rt_repsum_oflow_id_reg <= out_rt_repsum_oflow_id_next;

    if (rst) begin
        out_valid_reg <= 1'b0;
        // Output registers are cleared too, so every output is defined from the first cycle.
        out_rt_op_reg <= 6'd0;
        out_rt_data_reg <= 256'd0;
        out_rt_rc_reg <= 4'd0;
        out_rt_repsum_m_reg <= 8'd0;
        out_rt_repsum_oflow_id_reg <= 2'd0;
    end
end

assign out_valid = out_valid_reg;
assign out_rt_op = out_rt_op_reg;
assign out_rt_data = out_rt_data_reg;
assign out_rt_rc = out_rt_rc_reg;
assign out_rt_repsum_m = out_rt_repsum_m_reg;
assign out_rt_repsum_oflow_id = out_rt_repsum_oflow_id_reg;

endmodule

`resetall
