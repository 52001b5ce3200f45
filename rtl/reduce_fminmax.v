/*

Copyright (c) 2026 The inswitch authors
SPDX-License-Identifier: Apache-2.0

*/

// Language: Verilog 2005

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Binary64 minimum / maximum selection of the reduction unit; bit-exact with
 * crates/model/src/reduce/float.rs `f64_min_max` (num = 0) and `f64_min_max_num` (num = 1).
 *
 * num = 0, FLT_MIN/FLT_MAX (002 (84)): any NaN gives the default NaN.
 * num = 1, FLT_MINNUM/FLT_MAXNUM (002 (85)-(86)): numbers win over quiet NaNs; two NaNs give the
 * default NaN; a signalling NaN against a number gives the number (ieee = 0, associative mode) or the
 * default NaN (ieee = 1). -0 orders below +0. invalid: an operand is a signalling NaN.
 *
 * The module gives the decision, not the value: the result is the default NaN when nan is 1, else b
 * when pick_b is 1, else a (the caller holds a and b). pick_a / pick_b: which operand the result came
 * from (both 0: equal, the lower index wins). With num = 0 they serve FLT_MINMAXLOC (f64_min_max_loc): a
 * NaN wins over a number, two NaNs are equal, two bitwise-equal numbers are equal.
 *
 * Timing: one register stage (the classification and the compares, at most 6 LUT levels from a, b);
 * the outputs are combinational from it and describe the operands sampled one rising edge before.
 */
module reduce_fminmax
(
    input  wire        clk,

    input  wire [63:0] a,
    input  wire [63:0] b,
    input  wire        max,      // 1: maximum, 0: minimum
    input  wire        num,      // 1: MINNUM/MAXNUM rules, 0: MIN/MAX rules
    input  wire        ieee,     // R_TF_RED_CFG_MODE: 1 = IEEE mode, 0 = associative mode

    output reg         nan,
    output reg         pick_a,
    output reg         pick_b,
    output wire        invalid
);

wire a_nan  = (a[62:52] == 11'h7ff) && (a[51:0] != 52'd0);
wire b_nan  = (b[62:52] == 11'h7ff) && (b[51:0] != 52'd0);
// Order-preserving keys: negative values inverted, positive values with the sign bit set.
wire [63:0] key_a = a[63] ? ~a : {1'b1, a[62:0]};
wire [63:0] key_b = b[63] ? ~b : {1'b1, b[62:0]};

reg  q_a_nan = 1'b0, q_b_nan = 1'b0, q_a_snan = 1'b0, q_b_snan = 1'b0;
reg  q_eq = 1'b0, q_b_gt = 1'b0, q_b_lt = 1'b0;
reg  q_max = 1'b0, q_num = 1'b0, q_ieee = 1'b0;

always @(posedge clk) begin
    q_a_nan <= a_nan;
    q_b_nan <= b_nan;
    q_a_snan <= a_nan && !a[51];
    q_b_snan <= b_nan && !b[51];
    q_eq <= a == b;
    q_b_gt <= key_b > key_a;
    q_b_lt <= key_b < key_a;
    q_max <= max;
    q_num <= num;
    q_ieee <= ieee;
end

wire b_wins = q_max ? q_b_gt : q_b_lt;
assign invalid = q_a_snan || q_b_snan;

always @* begin
    nan = 1'b0;
    pick_a = 1'b0;
    pick_b = 1'b0;
    if (!q_num) begin
        if (q_a_nan || q_b_nan) begin
            nan = 1'b1;
            pick_a = q_a_nan && !q_b_nan;
            pick_b = q_b_nan && !q_a_nan;
        end else if (q_eq) begin
            // equal: a, no pick
        end else if (b_wins) begin
            pick_b = 1'b1;
        end else begin
            pick_a = 1'b1;
        end
    end else if (!q_a_nan && !q_b_nan) begin
        if (q_eq) begin
            // equal: a, no pick
        end else if (b_wins) begin
            pick_b = 1'b1;
        end else begin
            pick_a = 1'b1;
        end
    end else if (q_a_nan && q_b_nan) begin
        nan = 1'b1;
    end else if (q_a_nan) begin
        if (q_ieee && q_a_snan) begin
            nan = 1'b1;
            pick_a = 1'b1;
        end else begin
            pick_b = 1'b1;
        end
    end else begin
        if (q_ieee && q_b_snan) begin
            nan = 1'b1;
            pick_b = 1'b1;
        end else begin
            pick_a = 1'b1;
        end
    end
end

endmodule

`resetall
