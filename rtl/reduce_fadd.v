/*

Copyright (c) 2026 The inswitch authors
SPDX-License-Identifier: Apache-2.0

*/

// Language: Verilog 2005

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * IEEE 754 binary64 adder of the reduction unit (FLT_SUM, seed 002 (81), (88)); bit-exact with
 * crates/model/src/reduce/float.rs `f64_add` (see docs/blocks/reduce_unit.md §Timing).
 *
 * Pipeline: two register stages; the result is combinational from the second.
 *   stage A (from a, b):  classify, swap by magnitude, align the smaller significand (G, R, S bits)
 *   stage B (from s1_*):  add or subtract, normalise
 *   stage C (from s2_*):  round (RND0..3), flush to zero, overflow, pack   -> result, flags
 * result is valid two rising edges after a, b are sampled; the caller registers it.
 */
module reduce_fadd
(
    input  wire        clk,
    input  wire        rst,

    /*
     * Operands (sampled every cycle)
     */
    input  wire [63:0] a,
    input  wire [63:0] b,
    input  wire [1:0]  rounding,      // RND0..3: nearest-even, toward +inf, toward -inf, toward zero
    input  wire        ftz,           // flush subnormal results to zero

    /*
     * Result of the operands sampled two edges ago
     */
    output reg  [63:0] result,
    output reg         flag_inexact,
    output reg         flag_overflow,
    output reg         flag_invalid
);

// Rounding modes RND_*, DEFAULT_NAN, MAX_FINITE, INF, generated from crates/model/src/reduce/codes.rs and
// crates/model/src/reduce/float.rs
`include "reduce_codes.vh"

// ---------------------------------------------------------------------------------------------
// Stage A
// ---------------------------------------------------------------------------------------------
wire a_nan  = (a[62:52] == 11'h7ff) && (a[51:0] != 52'd0);
wire b_nan  = (b[62:52] == 11'h7ff) && (b[51:0] != 52'd0);
wire a_snan = a_nan && !a[51];
wire b_snan = b_nan && !b[51];
wire a_inf  = (a[62:0] == INF);
wire b_inf  = (b[62:0] == INF);

reg        s1_special_next;
reg [63:0] s1_special_result_next;
reg        s1_special_invalid_next;
reg        s1_sign_next;
reg        s1_sub_next;
reg [10:0] s1_exp_next;
reg [55:0] s1_wx_next;
reg [55:0] s1_wy_next;

reg        swap;
reg [10:0] ex, ey;
reg [52:0] mx, my;
reg [10:0] align_dist;
reg [55:0] wy_full;

always @* begin
    s1_special_next = 1'b1;
    s1_special_result_next = DEFAULT_NAN;
    s1_special_invalid_next = a_snan || b_snan;
    if (a_nan || b_nan) begin
        s1_special_result_next = DEFAULT_NAN;
    end else if (a_inf) begin
        if (b_inf && (a[63] != b[63])) begin
            s1_special_result_next = DEFAULT_NAN;
            s1_special_invalid_next = 1'b1;
        end else begin
            s1_special_result_next = a;
        end
    end else if (b_inf) begin
        s1_special_result_next = b;
    end else begin
        s1_special_next = 1'b0;
    end

    // Finite path: the larger magnitude becomes x (a on equal magnitudes).
    swap = b[62:0] > a[62:0];
    ex = swap ? b[62:52] : a[62:52];
    ey = swap ? a[62:52] : b[62:52];
    mx = {(ex != 11'd0), swap ? b[51:0] : a[51:0]};
    my = {(ey != 11'd0), swap ? a[51:0] : b[51:0]};
    if (ex == 11'd0) ex = 11'd1;
    if (ey == 11'd0) ey = 11'd1;
    align_dist = ex - ey;
    wy_full = {my, 3'b000};
    // Shift right by dist, ORing the shifted-out bits into bit 0 (sticky).
    if (align_dist >= 11'd56) begin
        s1_wy_next = {55'd0, |wy_full};
    end else begin
        s1_wy_next = (wy_full >> align_dist)
                   | {55'd0, |(wy_full & ((56'd1 << align_dist) - 56'd1))};
    end
    s1_wx_next = {mx, 3'b000};
    s1_exp_next = ex;
    s1_sign_next = swap ? b[63] : a[63];
    s1_sub_next = a[63] ^ b[63];
end

reg        s1_special_reg = 1'b0;
reg [63:0] s1_special_result_reg = 64'd0;
reg        s1_special_invalid_reg = 1'b0;
reg        s1_sign_reg = 1'b0;
reg        s1_sub_reg = 1'b0;
reg [10:0] s1_exp_reg = 11'd0;
reg [55:0] s1_wx_reg = 56'd0;
reg [55:0] s1_wy_reg = 56'd0;
reg [1:0]  s1_rounding_reg = 2'd0;
reg        s1_ftz_reg = 1'b0;

// ---------------------------------------------------------------------------------------------
// Stage B
// ---------------------------------------------------------------------------------------------
reg        s2_zero_next;
reg        s2_zero_sign_next;
reg [55:0] s2_sig_next;
reg [11:0] s2_exp_next;

reg [56:0] sum;
reg [5:0]  lz;
reg [63:0] lz_v0;
reg [31:0] lz_v1;
reg [15:0] lz_v2;
reg [7:0]  lz_v3;
// Bit 0 of the last nibble never decides the count (the padding keeps the input non-zero).
/* verilator lint_off UNUSEDSIGNAL */
reg [3:0]  lz_v4;
/* verilator lint_on UNUSEDSIGNAL */
reg        lz_v5;
reg [11:0] shift;

always @* begin
    if (s1_sub_reg) begin
        sum = {1'b0, s1_wx_reg} - {1'b0, s1_wy_reg};
    end else begin
        sum = {1'b0, s1_wx_reg} + {1'b0, s1_wy_reg};
    end
    s2_zero_next = (sum == 57'd0);
    // x + (-x) is +0 except toward -inf; equal signs keep the common sign.
    s2_zero_sign_next = s1_sub_reg ? (s1_rounding_reg == RND_DOWN) : s1_sign_reg;

    // Leading zeros of sum[55:0] by halving (6 levels of compare and select instead of a 56-deep
    // chain); the ones padded below bound the count at 56 (sum == 0 is handled as an exact zero).
    lz_v0 = {sum[55:0], 8'hff};
    lz[5] = (lz_v0[63:32] == 32'd0);
    lz_v1 = lz[5] ? lz_v0[31:0] : lz_v0[63:32];
    lz[4] = (lz_v1[31:16] == 16'd0);
    lz_v2 = lz[4] ? lz_v1[15:0] : lz_v1[31:16];
    lz[3] = (lz_v2[15:8] == 8'd0);
    lz_v3 = lz[3] ? lz_v2[7:0] : lz_v2[15:8];
    lz[2] = (lz_v3[7:4] == 4'd0);
    lz_v4 = lz[2] ? lz_v3[3:0] : lz_v3[7:4];
    lz[1] = (lz_v4[3:2] == 2'd0);
    lz_v5 = lz[1] ? lz_v4[1] : lz_v4[3];
    lz[0] = !lz_v5;

    if (sum[56]) begin
        s2_sig_next = sum[56:1] | {55'd0, sum[0]};
        s2_exp_next = {1'b0, s1_exp_reg} + 12'd1;
        shift = 12'd0;
    end else begin
        // Normalise left, but not below the subnormal exponent (1).
        shift = ({6'd0, lz} < ({1'b0, s1_exp_reg} - 12'd1)) ? {6'd0, lz} : ({1'b0, s1_exp_reg} - 12'd1);
        s2_sig_next = sum[55:0] << shift;
        s2_exp_next = {1'b0, s1_exp_reg} - shift;
    end
end

reg        s2_special_reg = 1'b0;
reg [63:0] s2_special_result_reg = 64'd0;
reg        s2_special_invalid_reg = 1'b0;
reg        s2_sign_reg = 1'b0;
reg        s2_zero_reg = 1'b0;
reg        s2_zero_sign_reg = 1'b0;
reg [55:0] s2_sig_reg = 56'd0;
reg [11:0] s2_exp_reg = 12'd0;
reg [1:0]  s2_rounding_reg = 2'd0;
reg        s2_ftz_reg = 1'b0;

// ---------------------------------------------------------------------------------------------
// Stage C
// ---------------------------------------------------------------------------------------------
reg [2:0]  grs;
reg        round_up;
reg [53:0] mant;
reg [11:0] exp_r;
reg        to_inf;

always @* begin
    result = 64'd0;
    flag_inexact = 1'b0;
    flag_overflow = 1'b0;
    flag_invalid = 1'b0;
    grs = s2_sig_reg[2:0];
    case (s2_rounding_reg)
        RND_NEAREST: round_up = (grs > 3'd4) || (grs == 3'd4 && s2_sig_reg[3]);
        RND_UP:      round_up = (grs != 3'd0) && !s2_sign_reg;
        RND_DOWN:    round_up = (grs != 3'd0) && s2_sign_reg;
        RND_ZERO:    round_up = 1'b0;
        default:     round_up = 1'b0;
    endcase
    mant = {1'b0, s2_sig_reg[55:3]} + {53'd0, round_up};
    exp_r = s2_exp_reg;
    if (mant[53]) begin
        mant = mant >> 1;
        exp_r = exp_r + 12'd1;
    end
    case (s2_rounding_reg)
        RND_NEAREST: to_inf = 1'b1;
        RND_UP:      to_inf = !s2_sign_reg;
        RND_DOWN:    to_inf = s2_sign_reg;
        default:     to_inf = 1'b0;
    endcase

    if (s2_special_reg) begin
        result = s2_special_result_reg;
        flag_invalid = s2_special_invalid_reg;
    end else if (s2_zero_reg) begin
        result = {s2_zero_sign_reg, 63'd0};
    end else if (s2_ftz_reg && !s2_sig_reg[55]) begin
        // Subnormal result, flushed (002 (81)).
        result = {s2_sign_reg, 63'd0};
        flag_inexact = 1'b1;
    end else if (exp_r >= 12'h7ff) begin
        result = {s2_sign_reg, to_inf ? INF : MAX_FINITE};
        flag_overflow = 1'b1;
        flag_inexact = 1'b1;
    end else begin
        result = {s2_sign_reg, (mant[52] ? exp_r[10:0] : 11'd0), mant[51:0]};
        flag_inexact = (grs != 3'd0);
    end
end

always @(posedge clk) begin
    s1_special_reg <= s1_special_next;
    s1_special_result_reg <= s1_special_result_next;
    s1_special_invalid_reg <= s1_special_invalid_next;
    s1_sign_reg <= s1_sign_next;
    s1_sub_reg <= s1_sub_next;
    s1_exp_reg <= s1_exp_next;
    s1_wx_reg <= s1_wx_next;
    s1_wy_reg <= s1_wy_next;
    s1_rounding_reg <= rounding;
    s1_ftz_reg <= ftz;

    s2_special_reg <= s1_special_reg;
    s2_special_result_reg <= s1_special_result_reg;
    s2_special_invalid_reg <= s1_special_invalid_reg;
    s2_sign_reg <= s1_sign_reg;
    s2_zero_reg <= s2_zero_next;
    s2_zero_sign_reg <= s2_zero_sign_next;
    s2_sig_reg <= s2_sig_next;
    s2_exp_reg <= s2_exp_next;
    s2_rounding_reg <= s1_rounding_reg;
    s2_ftz_reg <= s1_ftz_reg;

    // Datapath registers are cleared too, so the result is defined every cycle after reset.
    if (rst) begin
        s1_special_reg <= 1'b0;
        s1_special_result_reg <= 64'd0;
        s1_special_invalid_reg <= 1'b0;
        s1_sign_reg <= 1'b0;
        s1_sub_reg <= 1'b0;
        s1_exp_reg <= 11'd0;
        s1_wx_reg <= 56'd0;
        s1_wy_reg <= 56'd0;
        s1_rounding_reg <= 2'd0;
        s1_ftz_reg <= 1'b0;
        s2_special_reg <= 1'b0;
        s2_special_result_reg <= 64'd0;
        s2_special_invalid_reg <= 1'b0;
        s2_sign_reg <= 1'b0;
        s2_zero_reg <= 1'b0;
        s2_zero_sign_reg <= 1'b0;
        s2_sig_reg <= 56'd0;
        s2_exp_reg <= 12'd0;
        s2_rounding_reg <= 2'd0;
        s2_ftz_reg <= 1'b0;
    end
end

endmodule

`resetall
