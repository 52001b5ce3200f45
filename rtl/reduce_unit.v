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
 * Throughput: one operand pair per cycle, no backpressure. Latency: 3 rising edges (LATENCY):
 *
 *   edge k   samples in_valid, cfg_mode, a_*, b_*   -> p1_* (all operators but FLT_SUM; fadd stage A)
 *   edge k+1                                        -> p2_* (fadd stage B)
 *   edge k+2                                        -> out_* (fadd stage C, rt_rc merge)
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

// ---------------------------------------------------------------------------------------------
// Stage 1: every operator except FLT_SUM (combinational from the inputs)
// ---------------------------------------------------------------------------------------------
// Floating-point selections, one per lane; lanes 0 and 2 also serve MINMAXLOC and MINMAXNUMLOC.
wire        fsel_max = (a_rt_op == OP_FLT_MAX) || (a_rt_op == OP_FLT_MAXNUM);
wire        fsel_num = (a_rt_op == OP_FLT_MINNUM) || (a_rt_op == OP_FLT_MAXNUM)
                    || (a_rt_op == OP_FLT_MINMAXNUMLOC);
wire [255:0] fsel_result;
// Only lanes 0 and 2 (FLT_MINMAXLOC / MINMAXNUMLOC values) use which operand was picked.
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0]   fsel_pick_a;
wire [3:0]   fsel_pick_b;
/* verilator lint_on UNUSEDSIGNAL */
wire [3:0]   fsel_invalid;

genvar g;
generate
    for (g = 0; g < LANES; g = g + 1) begin : fsel_lane
        // FLT_MINMAXLOC / MINMAXNUMLOC: lane 0 is a minimum, lane 2 a maximum.
        wire lane_max = (a_rt_op == OP_FLT_MINMAXNUMLOC || a_rt_op == OP_FLT_MINMAXLOC) ? (g == 2) : fsel_max;
        reduce_fminmax fminmax_inst (
            .a(a_rt_data[64*g +: 64]),
            .b(b_rt_data[64*g +: 64]),
            .max(lane_max),
            .num(fsel_num),
            .ieee(cfg_mode),
            .result(fsel_result[64*g +: 64]),
            .pick_a(fsel_pick_a[g]),
            .pick_b(fsel_pick_b[g]),
            .invalid(fsel_invalid[g])
        );
    end
endgenerate

wire [255:0] rep_data;
wire [7:0]   rep_m;
wire [1:0]   rep_oflow_id;
wire [3:0]   rep_rc;

reduce_repsum repsum_inst (
    .a_data(a_rt_data),
    .a_m(a_rt_repsum_m),
    .a_oflow_id(a_rt_repsum_oflow_id),
    .a_rc(a_rt_rc),
    .b_data(b_rt_data),
    .b_m(b_rt_repsum_m),
    .b_oflow_id(b_rt_repsum_oflow_id),
    .b_rc(b_rt_rc),
    .data(rep_data),
    .m(rep_m),
    .oflow_id(rep_oflow_id),
    .rc(rep_rc)
);

reg         p1_fsum_next;
reg  [5:0]  p1_op_next;
reg  [255:0] p1_data_next;
reg  [3:0]  p1_rc_next;
reg  [7:0]  p1_m_next;
reg  [1:0]  p1_oflow_id_next;

reg  [63:0] x, y, s;
reg  [3:0]  raised;
integer     i;
integer     j;

always @* begin
    p1_fsum_next = 1'b0;
    p1_op_next = a_rt_op;
    p1_data_next = a_rt_data;
    p1_rc_next = rc_max(a_rt_rc, b_rt_rc);
    p1_m_next = a_rt_repsum_m;
    p1_oflow_id_next = a_rt_repsum_oflow_id;
    raised = RC_SUCCESS;
    i = 0;
    x = 64'd0;
    y = 64'd0;
    s = 64'd0;

    if (a_rt_rc == RC_OP_MISMATCH) begin
        // An earlier mismatch report survives the rest of the reduction.
        p1_rc_next = a_rt_rc;
    end else if (b_rt_rc == RC_OP_MISMATCH) begin
        p1_op_next = b_rt_op;
        p1_data_next = b_rt_data;
        p1_rc_next = b_rt_rc;
        p1_m_next = b_rt_repsum_m;
        p1_oflow_id_next = b_rt_repsum_oflow_id;
    end else if (a_rt_op != b_rt_op) begin
        // 002 (96): no reduction; report both source fabric addresses.
        p1_data_next[63:0] = {b_sfa, a_sfa};
        p1_rc_next = RC_OP_MISMATCH;
    end else begin
        for (i = 0; i < LANES; i = i + 1) begin
            x = a_rt_data[64*i +: 64];
            y = b_rt_data[64*i +: 64];
            s = x + y;
            case (a_rt_op)
                OP_BARRIER:   p1_data_next[64*i +: 64] = 64'd0;
                OP_BIT_AND:   p1_data_next[64*i +: 64] = x & y;
                OP_BIT_OR:    p1_data_next[64*i +: 64] = x | y;
                OP_BIT_XOR:   p1_data_next[64*i +: 64] = x ^ y;
                OP_LOG_AND:   p1_data_next[64*i +: 64] = {63'd0, (x != 64'd0) && (y != 64'd0)};
                OP_LOG_OR:    p1_data_next[64*i +: 64] = {63'd0, (x != 64'd0) || (y != 64'd0)};
                OP_LOG_XOR:   p1_data_next[64*i +: 64] = {63'd0, (x != 64'd0) != (y != 64'd0)};
                OP_INT_MIN:   p1_data_next[64*i +: 64] = ($signed(y) < $signed(x)) ? y : x;
                OP_INT_MAX:   p1_data_next[64*i +: 64] = ($signed(y) > $signed(x)) ? y : x;
                OP_INT_SUM: begin
                    p1_data_next[64*i +: 64] = s;
                    if (x[63] == y[63] && s[63] != x[63]) raised = RC_INT_OVERFLOW;
                end
                OP_FLT_MIN, OP_FLT_MAX, OP_FLT_MINNUM, OP_FLT_MAXNUM: begin
                    p1_data_next[64*i +: 64] = fsel_result[64*i +: 64];
                    if (fsel_invalid[i]) raised = RC_FLT_INVALID;
                end
                default: ;
            endcase
        end
        case (a_rt_op)
            OP_INT_MINMAXLOC: begin
                // Lexicographic (value, index); the lower index wins a tie (002 (44), (83)).
                if ($signed(b_rt_data[63:0]) < $signed(a_rt_data[63:0])
                    || (b_rt_data[63:0] == a_rt_data[63:0] && b_rt_data[127:64] < a_rt_data[127:64])) begin
                    p1_data_next[127:0] = b_rt_data[127:0];
                end
                if ($signed(b_rt_data[191:128]) > $signed(a_rt_data[191:128])
                    || (b_rt_data[191:128] == a_rt_data[191:128] && b_rt_data[255:192] < a_rt_data[255:192])) begin
                    p1_data_next[255:128] = b_rt_data[255:128];
                end
            end
            OP_FLT_MINMAXLOC, OP_FLT_MINMAXNUMLOC: begin
                // Index of the picked operand; equal values (or two NaNs for FLT_MINMAXLOC): the lower.
                p1_data_next[63:0] = fsel_result[63:0];
                p1_data_next[127:64] = fsel_pick_a[0] ? a_rt_data[127:64] :
                                       fsel_pick_b[0] ? b_rt_data[127:64] :
                                       (b_rt_data[127:64] < a_rt_data[127:64]) ? b_rt_data[127:64] : a_rt_data[127:64];
                p1_data_next[191:128] = fsel_result[191:128];
                p1_data_next[255:192] = fsel_pick_a[2] ? a_rt_data[255:192] :
                                        fsel_pick_b[2] ? b_rt_data[255:192] :
                                        (b_rt_data[255:192] < a_rt_data[255:192]) ? b_rt_data[255:192] : a_rt_data[255:192];
                if (fsel_invalid[0] || fsel_invalid[2]) raised = RC_FLT_INVALID;
            end
            OP_FLT_REPSUM: begin
                p1_data_next = rep_data;
                p1_m_next = rep_m;
                p1_oflow_id_next = rep_oflow_id;
                p1_rc_next = rep_rc;
            end
            default: ;
        endcase
        p1_rc_next = rc_max(p1_rc_next, raised);
        // FLT_SUM results come from the adders in stage 3.
        p1_fsum_next = (a_rt_op[5:3] == OP_FLT_SUM_PREFIX);
    end
end

// FLT_SUM adders, one per lane; rounding = opcode bits 1:0, FTZ = opcode bit 2.
wire [255:0] fadd_result;
wire [3:0]   fadd_inexact;
wire [3:0]   fadd_overflow;
wire [3:0]   fadd_invalid;

generate
    for (g = 0; g < LANES; g = g + 1) begin : fadd_lane
        reduce_fadd fadd_inst (
            .clk(clk),
            .rst(rst),
            .a(a_rt_data[64*g +: 64]),
            .b(b_rt_data[64*g +: 64]),
            .rounding(a_rt_op[1:0]),
            .ftz(a_rt_op[2]),
            .result(fadd_result[64*g +: 64]),
            .flag_inexact(fadd_inexact[g]),
            .flag_overflow(fadd_overflow[g]),
            .flag_invalid(fadd_invalid[g])
        );
    end
endgenerate

reg         p1_valid_reg = 1'b0;
reg         p1_fsum_reg = 1'b0;
reg  [5:0]  p1_op_reg = 6'd0;
reg  [255:0] p1_data_reg = 256'd0;
reg  [3:0]  p1_rc_reg = 4'd0;
reg  [7:0]  p1_m_reg = 8'd0;
reg  [1:0]  p1_oflow_id_reg = 2'd0;

reg         p2_valid_reg = 1'b0;
reg         p2_fsum_reg = 1'b0;
reg  [5:0]  p2_op_reg = 6'd0;
reg  [255:0] p2_data_reg = 256'd0;
reg  [3:0]  p2_rc_reg = 4'd0;
reg  [7:0]  p2_m_reg = 8'd0;
reg  [1:0]  p2_oflow_id_reg = 2'd0;

// ---------------------------------------------------------------------------------------------
// Stage 3: pick the FLT_SUM result, merge its flags into rt_rc, zero idle outputs
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
    for (j = 0; j < LANES; j = j + 1) begin
        if (fadd_invalid[j]) fsum_rc = rc_max(fsum_rc, RC_FLT_INVALID);
        else if (fadd_overflow[j]) fsum_rc = rc_max(fsum_rc, RC_FLT_OVERFLOW);
        else if (fadd_inexact[j]) fsum_rc = rc_max(fsum_rc, RC_FLT_INEXACT);
    end

    out_valid_next = p2_valid_reg;
    out_rt_op_next = 6'd0;
    out_rt_data_next = 256'd0;
    out_rt_rc_next = 4'd0;
    out_rt_repsum_m_next = 8'd0;
    out_rt_repsum_oflow_id_next = 2'd0;
    if (p2_valid_reg) begin
        out_rt_op_next = p2_op_reg;
        out_rt_data_next = p2_fsum_reg ? fadd_result : p2_data_reg;
        out_rt_rc_next = p2_fsum_reg ? rc_max(p2_rc_reg, fsum_rc) : p2_rc_reg;
        out_rt_repsum_m_next = p2_m_reg;
        out_rt_repsum_oflow_id_next = p2_oflow_id_reg;
    end
end

always @(posedge clk) begin
    p1_valid_reg <= in_valid;
    p1_fsum_reg <= p1_fsum_next;
    p1_op_reg <= p1_op_next;
    p1_data_reg <= p1_data_next;
    p1_rc_reg <= p1_rc_next;
    p1_m_reg <= p1_m_next;
    p1_oflow_id_reg <= p1_oflow_id_next;

    p2_valid_reg <= p1_valid_reg;
    p2_fsum_reg <= p1_fsum_reg;
    p2_op_reg <= p1_op_reg;
    p2_data_reg <= p1_data_reg;
    p2_rc_reg <= p1_rc_reg;
    p2_m_reg <= p1_m_reg;
    p2_oflow_id_reg <= p1_oflow_id_reg;

    out_valid_reg <= out_valid_next;
    out_rt_op_reg <= out_rt_op_next;
    out_rt_data_reg <= out_rt_data_next;
    out_rt_rc_reg <= out_rt_rc_next;
    out_rt_repsum_m_reg <= out_rt_repsum_m_next;
    out_rt_repsum_oflow_id_reg <= out_rt_repsum_oflow_id_next;

    if (rst) begin
        p1_valid_reg <= 1'b0;
        p2_valid_reg <= 1'b0;
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
