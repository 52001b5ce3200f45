/*

Copyright (c) 2026 The inswitch authors
SPDX-License-Identifier: Apache-2.0

*/

// Language: Verilog 2005

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Binary64 minimum / maximum selection of the reduction unit (combinational); bit-exact with
 * crates/model/src/reduce/float.rs `f64_min_max` (num = 0) and `f64_min_max_num` (num = 1).
 *
 * num = 0, FLT_MIN/FLT_MAX (002 (84)): any NaN gives the default NaN.
 * num = 1, FLT_MINNUM/FLT_MAXNUM (002 (85)-(86)): numbers win over quiet NaNs; two NaNs give the
 * default NaN; a signalling NaN against a number gives the number (ieee = 0, associative mode) or the
 * default NaN (ieee = 1). -0 orders below +0. invalid: an operand is a signalling NaN.
 * pick_a / pick_b: which operand the result came from (both 0: equal, the lower index wins). With
 * num = 0 they serve FLT_MINMAXLOC (f64_min_max_loc): a NaN wins over a number, two NaNs are equal,
 * two bitwise-equal numbers are equal.
 */
module reduce_fminmax
(
    input  wire [63:0] a,
    input  wire [63:0] b,
    input  wire        max,      // 1: maximum, 0: minimum
    input  wire        num,      // 1: MINNUM/MAXNUM rules, 0: MIN/MAX rules
    input  wire        ieee,     // R_TF_RED_CFG_MODE: 1 = IEEE mode, 0 = associative mode

    output reg  [63:0] result,
    output reg         pick_a,
    output reg         pick_b,
    output wire        invalid
);

// DEFAULT_NAN, generated from crates/model/src/reduce/float.rs
`include "reduce_codes.vh"

wire a_nan  = (a[62:52] == 11'h7ff) && (a[51:0] != 52'd0);
wire b_nan  = (b[62:52] == 11'h7ff) && (b[51:0] != 52'd0);
wire a_snan = a_nan && !a[51];
wire b_snan = b_nan && !b[51];

// Order-preserving keys: negative values inverted, positive values with the sign bit set.
wire [63:0] key_a = a[63] ? ~a : {1'b1, a[62:0]};
wire [63:0] key_b = b[63] ? ~b : {1'b1, b[62:0]};
wire        b_wins = max ? (key_b > key_a) : (key_b < key_a);

assign invalid = a_snan || b_snan;

always @* begin
    result = a;
    pick_a = 1'b0;
    pick_b = 1'b0;
    if (!num) begin
        if (a_nan || b_nan) begin
            result = DEFAULT_NAN;
            pick_a = a_nan && !b_nan;
            pick_b = b_nan && !a_nan;
        end else if (a == b) begin
            result = a;
        end else if (b_wins) begin
            result = b;
            pick_b = 1'b1;
        end else begin
            pick_a = 1'b1;
        end
    end else if (!a_nan && !b_nan) begin
        if (a == b) begin
            result = a;
        end else if (b_wins) begin
            result = b;
            pick_b = 1'b1;
        end else begin
            pick_a = 1'b1;
        end
    end else if (a_nan && b_nan) begin
        result = DEFAULT_NAN;
    end else if (a_nan) begin
        if (ieee && a_snan) begin
            result = DEFAULT_NAN;
            pick_a = 1'b1;
        end else begin
            result = b;
            pick_b = 1'b1;
        end
    end else begin
        if (ieee && b_snan) begin
            result = DEFAULT_NAN;
            pick_b = 1'b1;
        end else begin
            pick_a = 1'b1;
        end
    end
end

endmodule

`resetall
