/*

Copyright (c) 2026 The inswitch authors
SPDX-License-Identifier: Apache-2.0

*/

// Language: Verilog 2005

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * FLT_REPSUM combine of the reduction unit (combinational, 002 (89)-(92)); bit-exact with
 * crates/model/src/reduce/repsum.rs `combine`.
 *
 * Operand: four signed 64-bit bins t[0..3] (rt_data, t[0] in bits 63:0), bin index m (rt_repsum_m,
 * signed; 125 = -Inf, 126 = +Inf, 127 = NaN), rt_repsum_oflow_id, rt_rc. The operand x with the larger
 * m keeps its bins; the other, y, is aligned by d = m_x - m_y bins; y's bins below that are dropped
 * (REP_INEXACT if one is non-zero); a bin's signed overflow raises INT_OVERFLOW with the largest such
 * bin as oflow_id; y's INT_OVERFLOW survives as oflow_id - d, or becomes REP_INEXACT when its bin is
 * dropped. rc is the highest of x's code, y's (as adjusted) and those raised.
 */
module reduce_repsum
(
    input  wire [255:0] a_data,
    input  wire [7:0]   a_m,
    input  wire [1:0]   a_oflow_id,
    input  wire [3:0]   a_rc,
    input  wire [255:0] b_data,
    input  wire [7:0]   b_m,
    input  wire [1:0]   b_oflow_id,
    input  wire [3:0]   b_rc,

    output reg  [255:0] data,
    output reg  [7:0]   m,
    output reg  [1:0]   oflow_id,
    output reg  [3:0]   rc
);

// Special m values M_*, result codes RC_*, generated from crates/model/src/reduce/codes.rs
`include "reduce_codes.vh"

wire          swap = $signed(b_m) > $signed(a_m);
wire [255:0]  x_data = swap ? b_data : a_data;
wire [7:0]    x_m = swap ? b_m : a_m;
wire [1:0]    x_oflow_id = swap ? b_oflow_id : a_oflow_id;
wire [3:0]    x_rc = swap ? b_rc : a_rc;
wire [255:0]  y_data = swap ? a_data : b_data;
wire [7:0]    y_m = swap ? a_m : b_m;
wire [1:0]    y_oflow_id = swap ? a_oflow_id : b_oflow_id;
wire [3:0]    y_rc = swap ? a_rc : b_rc;
// x_m >= y_m, so the difference of the sign-extended values is 0..255.
wire [8:0]    d = {x_m[7], x_m} - {y_m[7], y_m};
wire [31:0]   d_int = {23'd0, d};

reg        oflow_valid;
reg [1:0]  oflow;
reg [63:0] xt, yt, s;
integer    i;

function [3:0] rc_max(input [3:0] p, input [3:0] q);
    rc_max = (p > q) ? p : q;
endfunction

always @* begin
    data = 256'd0;
    m = x_m;
    oflow_id = 2'd0;
    rc = rc_max(a_rc, b_rc);
    oflow_valid = 1'b0;
    oflow = 2'd0;
    xt = 64'd0;
    yt = 64'd0;
    s = 64'd0;
    i = 0;
    if ($signed(x_m) >= $signed(M_NEG_INF)) begin
        // NaN > +Inf > -Inf > numbers; +Inf with -Inf is NaN and invalid.
        if (x_m == M_POS_INF && y_m == M_NEG_INF) begin
            m = M_NAN;
            rc = rc_max(rc, RC_FLT_INVALID);
        end
    end else begin
        rc = x_rc;
        oflow_valid = (x_rc == RC_INT_OVERFLOW);
        oflow = x_oflow_id;
        if (y_rc == RC_INT_OVERFLOW) begin
            if ({7'd0, y_oflow_id} >= d) begin
                rc = rc_max(rc, RC_INT_OVERFLOW);
                if (!oflow_valid || (y_oflow_id - d[1:0]) > oflow) oflow = y_oflow_id - d[1:0];
                oflow_valid = 1'b1;
            end else begin
                rc = rc_max(rc, RC_REP_INEXACT);
            end
        end else begin
            rc = rc_max(rc, y_rc);
        end
        for (i = 0; i < 4; i = i + 1) begin
            // y's bin i is dropped when i < d.
            if (i < d_int && y_data[64*i +: 64] != 64'd0) rc = rc_max(rc, RC_REP_INEXACT);
        end
        for (i = 0; i < 4; i = i + 1) begin
            xt = x_data[64*i +: 64];
            yt = 64'd0;
            if (i + d_int < 4) yt = y_data[64*(i + d_int) +: 64];
            s = xt + yt;
            data[64*i +: 64] = s;
            if (i + d_int < 4 && xt[63] == yt[63] && s[63] != xt[63]) begin
                rc = rc_max(rc, RC_INT_OVERFLOW);
                oflow = (!oflow_valid || i[1:0] > oflow) ? i[1:0] : oflow;
                oflow_valid = 1'b1;
            end
        end
        oflow_id = (rc == RC_INT_OVERFLOW) ? oflow : 2'd0;
    end
end

endmodule

`resetall
