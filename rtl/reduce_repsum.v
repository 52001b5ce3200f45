/*

Copyright (c) 2026 The inswitch authors
SPDX-License-Identifier: Apache-2.0

*/

// Language: Verilog 2005

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * FLT_REPSUM combine of the reduction unit (002 (89)-(92)); bit-exact with
 * crates/model/src/reduce/repsum.rs `combine`.
 *
 * Operand: four signed 64-bit bins t[0..3] (rt_data, t[0] in bits 63:0), bin index m (rt_repsum_m,
 * signed; 125 = -Inf, 126 = +Inf, 127 = NaN), rt_repsum_oflow_id, rt_rc. The operand x with the larger
 * m keeps its bins; the other, y, is aligned by d = m_x - m_y bins; y's bins below that are dropped
 * (REP_INEXACT if one is non-zero); a bin's signed overflow raises INT_OVERFLOW with the largest such
 * bin as oflow_id; y's INT_OVERFLOW survives as oflow_id - d, or becomes REP_INEXACT when its bin is
 * dropped. rc is the highest of x's code, y's (as adjusted) and those raised.
 *
 * Timing: three register stages, each within 8 LUT levels (issue 19); the outputs are the third
 * stage's registers and hold the combine of the operands sampled three rising edges before.
 *   stage 1: order by m, the distance d, align y's bins         -> r1_*
 *   stage 2: the four bin sums; what is dropped                 -> r2_*
 *   stage 3: overflows, rc, oflow_id, the specials             -> data, m, oflow_id, rc
 * The operands should come from registers (the reduction unit's operand register): stage 1 uses the
 * whole depth from them.
 */
module reduce_repsum
(
    input  wire         clk,

    input  wire [255:0] a_data,
    input  wire [7:0]   a_m,
    input  wire [1:0]   a_oflow_id,
    input  wire [3:0]   a_rc,
    input  wire [255:0] b_data,
    input  wire [7:0]   b_m,
    input  wire [1:0]   b_oflow_id,
    input  wire [3:0]   b_rc,

    output reg  [255:0] data = 256'd0,
    output reg  [7:0]   m = 8'd0,
    output reg  [1:0]   oflow_id = 2'd0,
    output reg  [3:0]   rc = 4'd0
);

// Special m values M_*, result codes RC_*, generated from crates/model/src/reduce/codes.rs
`include "reduce_codes.vh"

// Local: bins per operand (the unit's lanes).
localparam BINS = 4;

function [3:0] rc_max(input [3:0] p, input [3:0] q);
    rc_max = (p > q) ? p : q;
endfunction

// ---------------------------------------------------------------------------------------------
// Stage 1: order by m, the distance, align
// ---------------------------------------------------------------------------------------------
wire          swap = $signed(b_m) > $signed(a_m);
// Both differences beside the compare; the one of the larger m is chosen (0..255).
wire [8:0]    d_ab = {a_m[7], a_m} - {b_m[7], b_m};
wire [8:0]    d_ba = {b_m[7], b_m} - {a_m[7], a_m};
wire [8:0]    d = swap ? d_ba : d_ab;
wire [255:0]  y_data = swap ? a_data : b_data;
// Non-zero bins of each operand, chosen by swap (so that the compare and the OR-trees run side by side).
reg  [BINS-1:0] a_nz, b_nz;
reg  [BINS-1:0] y_in;                    // bin i of x has a bin of y added to it (i + d < BINS)
reg  [255:0]  yt;                        // y's bins aligned to x's: bin i + d in place i
integer       i;

always @* begin
    for (i = 0; i < BINS; i = i + 1) begin
        a_nz[i] = a_data[64*i +: 64] != 64'd0;
        b_nz[i] = b_data[64*i +: 64] != 64'd0;
    end
    // i + d < BINS, written out (BINS = 4) so that no carry chain follows the choice of d.
    y_in[0] = d[8:2] == 7'd0;
    y_in[1] = d[8:2] == 7'd0 && d[1:0] != 2'd3;
    y_in[2] = d[8:1] == 8'd0;
    y_in[3] = d == 9'd0;
    // A choice of four by d, as constants (a computed bin index would be an adder).
    yt = 256'd0;
    case (d)
        9'd0: yt = y_data;
        9'd1: yt = {64'd0, y_data[255:64]};
        9'd2: yt = {128'd0, y_data[255:128]};
        9'd3: yt = {192'd0, y_data[255:192]};
        default: ;
    endcase
end

reg [255:0]    r1_x = 256'd0;
reg [255:0]    r1_yt = 256'd0;
reg [BINS-1:0] r1_y_in = {BINS{1'b0}};
reg [BINS-1:0] r1_y_nz = {BINS{1'b0}};
reg [8:0]      r1_d = 9'd0;
reg [7:0]      r1_x_m = 8'd0, r1_y_m = 8'd0;
reg [1:0]      r1_x_oflow = 2'd0, r1_y_oflow = 2'd0;
reg [3:0]      r1_x_rc = 4'd0, r1_y_rc = 4'd0;

// ---------------------------------------------------------------------------------------------
// Stage 2: the sums; y's dropped bins and its carried overflow
// ---------------------------------------------------------------------------------------------
reg  [255:0]   s;
reg            dropped_nz;
always @* begin
    dropped_nz = 1'b0;
    for (i = 0; i < BINS; i = i + 1) begin
        s[64*i +: 64] = r1_x[64*i +: 64] + r1_yt[64*i +: 64];
        // y's bin i is dropped when i < d.
        if ({23'd0, r1_d} > i && r1_y_nz[i]) dropped_nz = 1'b1;
    end
end

reg [255:0]    r2_s = 256'd0;
reg [BINS-1:0] r2_x_sign = {BINS{1'b0}};  // the addends' signs, for the overflow in stage 3
reg [BINS-1:0] r2_y_sign = {BINS{1'b0}};
reg [BINS-1:0] r2_y_in = {BINS{1'b0}};
reg            r2_dropped = 1'b0;
reg            r2_y_oflow_kept = 1'b0;   // y's overflowed bin is kept: it is bin y_oflow - d of x
reg [1:0]      r2_y_oflow_adj = 2'd0;
reg            r2_special = 1'b0;        // x's m is -Inf, +Inf or NaN
reg            r2_inf_clash = 1'b0;      // +Inf with -Inf
reg [7:0]      r2_x_m = 8'd0;
reg [1:0]      r2_x_oflow = 2'd0;
reg [3:0]      r2_x_rc = 4'd0, r2_y_rc = 4'd0;

// ---------------------------------------------------------------------------------------------
// Stage 3: the overflows, rc and oflow_id
// ---------------------------------------------------------------------------------------------
reg            oflow_valid;
reg  [1:0]     oflow;
reg  [3:0]     rc_next;

always @* begin
    rc_next = r2_x_rc;
    oflow_valid = (r2_x_rc == RC_INT_OVERFLOW);
    oflow = r2_x_oflow;
    if (r2_y_rc == RC_INT_OVERFLOW) begin
        if (r2_y_oflow_kept) begin
            rc_next = rc_max(rc_next, RC_INT_OVERFLOW);
            if (!oflow_valid || r2_y_oflow_adj > oflow) oflow = r2_y_oflow_adj;
            oflow_valid = 1'b1;
        end else begin
            rc_next = rc_max(rc_next, RC_REP_INEXACT);
        end
    end else begin
        rc_next = rc_max(rc_next, r2_y_rc);
    end
    if (r2_dropped) rc_next = rc_max(rc_next, RC_REP_INEXACT);
    for (i = 0; i < BINS; i = i + 1) begin
        // A signed overflow: both addends of one sign, the sum of the other.
        if (r2_y_in[i] && r2_x_sign[i] == r2_y_sign[i] && r2_s[64*i + 63] != r2_x_sign[i]) begin
            rc_next = rc_max(rc_next, RC_INT_OVERFLOW);
            oflow = (!oflow_valid || i[1:0] > oflow) ? i[1:0] : oflow;
            oflow_valid = 1'b1;
        end
    end
    if (r2_special) begin
        // NaN > +Inf > -Inf > numbers; +Inf with -Inf is NaN and invalid.
        rc_next = rc_max(r2_x_rc, r2_y_rc);
        if (r2_inf_clash) rc_next = rc_max(rc_next, RC_FLT_INVALID);
    end
end

always @(posedge clk) begin
    r1_x <= swap ? b_data : a_data;
    r1_yt <= yt;
    r1_y_in <= y_in;
    r1_y_nz <= swap ? a_nz : b_nz;
    r1_d <= d;
    r1_x_m <= swap ? b_m : a_m;
    r1_y_m <= swap ? a_m : b_m;
    r1_x_oflow <= swap ? b_oflow_id : a_oflow_id;
    r1_y_oflow <= swap ? a_oflow_id : b_oflow_id;
    r1_x_rc <= swap ? b_rc : a_rc;
    r1_y_rc <= swap ? a_rc : b_rc;

    r2_s <= s;
    for (i = 0; i < BINS; i = i + 1) begin
        r2_x_sign[i] <= r1_x[64*i + 63];
        r2_y_sign[i] <= r1_yt[64*i + 63];
    end
    r2_y_in <= r1_y_in;
    r2_dropped <= dropped_nz;
    r2_y_oflow_kept <= {7'd0, r1_y_oflow} >= r1_d;
    r2_y_oflow_adj <= r1_y_oflow - r1_d[1:0];
    r2_special <= $signed(r1_x_m) >= $signed(M_NEG_INF);
    r2_inf_clash <= r1_x_m == M_POS_INF && r1_y_m == M_NEG_INF;
    r2_x_m <= r1_x_m;
    r2_x_oflow <= r1_x_oflow;
    r2_x_rc <= r1_x_rc;
    r2_y_rc <= r1_y_rc;

    data <= r2_special ? 256'd0 : r2_s;
    m <= (r2_special && r2_inf_clash) ? M_NAN : r2_x_m;
    oflow_id <= (!r2_special && rc_next == RC_INT_OVERFLOW) ? oflow : 2'd0;
    rc <= rc_next;
end

endmodule

`resetall
