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
 * Pipeline: five register stages (s1_* .. s5_*); the result is combinational from the fifth. Each
 * stage is kept within 8 six-input LUT levels (issue 19, docs/performance.md §Reduction unit pipelined):
 *   stage 1 (from a, b):  classify; the magnitude compare (in pieces) into swap; the alignment distance
 *   stage 2 (from s1_*):  swap, align the smaller significand (G, R, S bits: steps of 16, 4, 1), sticky
 *   stage 3 (from s2_*):  add or subtract; the normalisation stopper
 *   stage 4 (from s3_*):  leading zeros by groups of 8; shift left by the whole groups
 *   stage 5 (from s4_*):  shift left by the rest; round (RND0..3); the exponent and its overflow
 *   result  (from s5_*):  flush to zero, overflow, pack                   -> result, flags
 * result is valid 5 rising edges after a, b are sampled; the caller registers it. Stage 1 is short
 * (5.5 LUT levels measured) because the caller's operands arrive through its own logic (the CPU's
 * descriptor RAM).
 */
module reduce_fadd #
(
    // 0: a new pair may come every cycle (reduce_unit); stage 1 registers the operands and every stage
    // its rounding mode. 1 (reduce_shared, issue 19: the CPU's flip-flops): the caller holds two pairs
    // (a, b and a_upper, b_upper), rounding and ftz from the first sample to the result, and `upper` says
    // which pair stage 1 samples; stage 1 registers that choice (s1_upper), stage 2 reads the pair again
    // from the held ports and stage 3 x's fraction (by s2_upper, s2_swap), so no stage keeps a copy of
    // the operands, of x's fraction or of the rounding mode (session 22: 140 flip-flops fewer; session
    // 23: 52 fewer, 4 more). The lane select is here, not in the caller, so that synthesis maps it with
    // the stage it feeds (session 23: a select in the caller's module is a LUT level that the adder's
    // own mapping does not see, and ABC fills each module's stages up to its deepest).
    parameter HELD_OPERANDS = 0
)
(
    input  wire        clk,

    /*
     * Operands (sampled every cycle)
     */
    // HELD_OPERANDS = 1: the lower pair; stage 1 reads it unless `upper`, stage 2 again (held)
    input  wire [63:0] a,
    input  wire [63:0] b,
    input  wire [1:0]  rounding,      // RND0..3: nearest-even, toward +inf, toward -inf, toward zero
    input  wire        ftz,           // flush subnormal results to zero
    // HELD_OPERANDS = 1: the upper pair, and which pair stage 1 samples (1: the upper); both pairs held
    // by the caller until the result. HELD_OPERANDS = 0: unused (tie to 0).
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [63:0] a_upper,
    input  wire [63:0] b_upper,
    input  wire        upper,
    /* verilator lint_on UNUSEDSIGNAL */

    /*
     * Result of the operands sampled 5 edges ago
     */
    output reg  [63:0] result,
    output reg         flag_inexact,
    output reg         flag_overflow,
    output reg         flag_invalid
);

// Rounding modes RND_*, DEFAULT_NAN, MAX_FINITE, INF, generated from crates/model/src/reduce/codes.rs and
// crates/model/src/reduce/float.rs
`include "reduce_codes.vh"

// The datapath registers are not reset: stage k's registers hold what entered k edges before, and the
// caller keeps its own valid bits (the unit ignores the result of an idle cycle).

// ---------------------------------------------------------------------------------------------
// Stage 1: classify; compares and exponent differences, each short (no carry chain over 26 bits), and
// one LUT after them (swap, the distance)
// ---------------------------------------------------------------------------------------------
// The pair stage 1 samples (HELD_OPERANDS = 1: the one `upper` chooses; its signs are read in stage 2).
/* verilator lint_off UNUSEDSIGNAL */
wire [63:0] a_in = (HELD_OPERANDS != 0 && upper) ? a_upper : a;
wire [63:0] b_in = (HELD_OPERANDS != 0 && upper) ? b_upper : b;
/* verilator lint_on UNUSEDSIGNAL */
wire [10:0] ea = a_in[62:52];
wire [10:0] eb = b_in[62:52];
wire        a_enz = ea != 11'd0;
wire        b_enz = eb != 11'd0;
wire        a_nan = (ea == 11'h7ff) && (a_in[51:0] != 52'd0);
wire        b_nan = (eb == 11'h7ff) && (b_in[51:0] != 52'd0);
wire        a_inf = (a_in[62:0] == INF);
wire        b_inf = (b_in[62:0] == INF);

// The magnitude compare b > a in pieces: exponent, upper and lower significand.
wire        e_gtb = eb > ea;
wire        e_eq = eb == ea;
wire        mhi_gtb = b_in[51:26] > a_in[51:26];
wire        mhi_eq = b_in[51:26] == a_in[51:26];
wire        mlo_gtb = b_in[25:0] > a_in[25:0];

// A subnormal's exponent counts as 1. The alignment distance is the larger exponent minus the smaller,
// less 1 when only the smaller is subnormal: both raw differences and both less 1 are computed side by
// side and one is chosen; the exponents alone decide which (equal exponents: 0 either way).
wire [11:0] d_ab0 = {1'b0, ea} - {1'b0, eb};
wire [11:0] d_ab1 = {1'b0, ea} + {1'b1, ~eb};
wire [11:0] d_ba0 = {1'b0, eb} - {1'b0, ea};
wire [11:0] d_ba1 = {1'b0, eb} + {1'b1, ~ea};
// Chosen by AND-OR, not by a ?: of the adders: synthesis merges adders under a multiplexer into one
// adder with multiplexed operands, which would put the compare in front of a carry chain.
wire        pick_ba1 = e_gtb && b_enz && !a_enz;
wire        pick_ba0 = e_gtb && !(b_enz && !a_enz);
wire        pick_ab1 = !e_gtb && a_enz && !b_enz;
wire        pick_ab0 = !e_gtb && !(a_enz && !b_enz);
wire [11:0] align_dist = ({12{pick_ba1}} & d_ba1) | ({12{pick_ba0}} & d_ba0)
                       | ({12{pick_ab1}} & d_ab1) | ({12{pick_ab0}} & d_ab0);
// x is the larger magnitude (a on equal magnitudes).
wire        swap = e_gtb || (e_eq && (mhi_gtb || (mhi_eq && mlo_gtb)));

wire [63:0] s1_a, s1_b;                  // the operands stage 1 sampled (a register, or the held pair)
reg        s1_a_enz = 1'b0, s1_b_enz = 1'b0;
reg        s1_a_nan = 1'b0, s1_b_nan = 1'b0;
reg        s1_a_inf = 1'b0, s1_b_inf = 1'b0;
reg        s1_swap = 1'b0;
reg [11:0] s1_dist = 12'd0;

// The rounding mode as stage 3 (s2_rounding) and stage 5 (s4_*) read it: the stages' registers, or the
// held ports.
wire [1:0] s2_rounding, s4_rounding;
wire       s4_ftz;

generate
if (HELD_OPERANDS) begin : g_held
    // Stage 1's lane choice (the select that reads it is stage 2's own LUT).
    reg s1_upper = 1'b0;
    always @(posedge clk) s1_upper <= upper;
    assign s1_a = s1_upper ? a_upper : a;
    assign s1_b = s1_upper ? b_upper : b;
    assign s2_rounding = rounding;
    assign s4_rounding = rounding;
    assign s4_ftz = ftz;
end else begin : g_sampled
    reg [63:0] s1_a_reg = 64'd0, s1_b_reg = 64'd0;
    reg [1:0]  s1_rounding = 2'd0, s2_rounding_reg = 2'd0, s3_rounding = 2'd0, s4_rounding_reg = 2'd0;
    reg        s1_ftz = 1'b0, s2_ftz = 1'b0, s3_ftz = 1'b0, s4_ftz_reg = 1'b0;
    always @(posedge clk) begin
        s1_a_reg <= a_in;
        s1_b_reg <= b_in;
        s1_rounding <= rounding;
        s2_rounding_reg <= s1_rounding;
        s3_rounding <= s2_rounding_reg;
        s4_rounding_reg <= s3_rounding;
        s1_ftz <= ftz;
        s2_ftz <= s1_ftz;
        s3_ftz <= s2_ftz;
        s4_ftz_reg <= s3_ftz;
    end
    assign s1_a = s1_a_reg;
    assign s1_b = s1_b_reg;
    assign s2_rounding = s2_rounding_reg;
    assign s4_rounding = s4_rounding_reg;
    assign s4_ftz = s4_ftz_reg;
end
endgenerate

// ---------------------------------------------------------------------------------------------
// Stage 2: swap, align, sticky; the special cases
// ---------------------------------------------------------------------------------------------
wire [10:0] ea_adj = {s1_a[62:53], s1_a[52] || !s1_a_enz};
wire [10:0] eb_adj = {s1_b[62:53], s1_b[52] || !s1_b_enz};
wire [52:0] ma = {s1_a_enz, s1_a[51:0]};
wire [52:0] mb = {s1_b_enz, s1_b[51:0]};
wire        align_big = s1_dist[11:6] != 6'd0;
wire [2:0]  dist_hi = s1_dist[5:3];     // the sticky bit's byte and bit
wire [2:0]  dist_lo = s1_dist[2:0];
wire [52:0] my = s1_swap ? ma : mb;
wire [55:0] wy_full = {my, 3'b000};
// The right shift by the distance in three steps of a choice of 4 (16-, 4- and 1-bit steps), each bit of
// each step an AND-OR of its four candidates under the decoded select: one six-input LUT per bit and
// step. (Session 24: written as a case of shifted slices, two steps of 8, Yosys made the choice a shifter
// of 2-to-1 steps, which ABC mapped as a chain of LUT3s, 8 or 9 levels deep behind the lane and order
// selects; now 6-7, and ~90 LUTs fewer per adder.) wy_pad: the word with zeros above it, so that every
// candidate index exists.
wire [3:0]   dec_16 = 4'b0001 << s1_dist[5:4];
wire [3:0]   dec_4 = 4'b0001 << s1_dist[3:2];
wire [3:0]   dec_1 = 4'b0001 << s1_dist[1:0];
wire [103:0] wy_pad = {48'd0, wy_full};
wire [55:0]  wy_16, wy_4, wy_1;
wire [67:0]  wy_16_pad = {12'd0, wy_16};
wire [58:0]  wy_4_pad = {3'd0, wy_4};
genvar gi;
generate
for (gi = 0; gi < 56; gi = gi + 1) begin : g_shift
    assign wy_16[gi] = (dec_16[0] && wy_pad[gi]) || (dec_16[1] && wy_pad[gi + 16])
                    || (dec_16[2] && wy_pad[gi + 32]) || (dec_16[3] && wy_pad[gi + 48]);
    assign wy_4[gi] = (dec_4[0] && wy_16_pad[gi]) || (dec_4[1] && wy_16_pad[gi + 4])
                   || (dec_4[2] && wy_16_pad[gi + 8]) || (dec_4[3] && wy_16_pad[gi + 12]);
    assign wy_1[gi] = (dec_1[0] && wy_4_pad[gi]) || (dec_1[1] && wy_4_pad[gi + 1])
                   || (dec_1[2] && wy_4_pad[gi + 2]) || (dec_1[3] && wy_4_pad[gi + 3]);
end
endgenerate
// A distance of 64 or more leaves nothing (56..63 does in the steps themselves).
wire [55:0]  wy_shifted = align_big ? 56'd0 : wy_1;
// The sticky bit: a bit the shift drops is set. Per operand (chosen by swap afterwards), by bytes of
// {m, 000}: the whole bytes below byte dist_hi, and that byte's bits below dist_lo; every bit when the
// distance is 64 or more. (A mask and one OR over 56 bits mapped 10 LUT levels deep.)
wire [55:0] wa = {ma, 3'b000};
wire [55:0] wb = {mb, 3'b000};
reg  [6:0]  byte_nz_a, byte_nz_b, below_hi;
reg  [7:0]  part_a, part_b, below_lo;
integer     q;
always @* begin
    for (q = 0; q < 7; q = q + 1) begin
        byte_nz_a[q] = wa[8*q +: 8] != 8'd0;
        byte_nz_b[q] = wb[8*q +: 8] != 8'd0;
        below_hi[q] = q < dist_hi;
    end
    for (q = 0; q < 8; q = q + 1) begin
        below_lo[q] = q < dist_lo;
    end
    part_a = 8'd0;
    part_b = 8'd0;
    case (dist_hi)
        3'd0: begin part_a = wa[7:0];   part_b = wb[7:0];   end
        3'd1: begin part_a = wa[15:8];  part_b = wb[15:8];  end
        3'd2: begin part_a = wa[23:16]; part_b = wb[23:16]; end
        3'd3: begin part_a = wa[31:24]; part_b = wb[31:24]; end
        3'd4: begin part_a = wa[39:32]; part_b = wb[39:32]; end
        3'd5: begin part_a = wa[47:40]; part_b = wb[47:40]; end
        3'd6: begin part_a = wa[55:48]; part_b = wb[55:48]; end
        default: ;
    endcase
end
wire        sticky_a = align_big ? (byte_nz_a != 7'd0)
                                 : ((byte_nz_a & below_hi) != 7'd0 || (part_a & below_lo) != 8'd0);
wire        sticky_b = align_big ? (byte_nz_b != 7'd0)
                                 : ((byte_nz_b & below_hi) != 7'd0 || (part_b & below_lo) != 8'd0);

reg        s2_special = 1'b0;
reg        s2_special_nan = 1'b0;       // the default NaN; else the infinity of sign s2_special_sign
reg        s2_special_sign = 1'b0;
reg        s2_special_invalid = 1'b0;
reg        s2_sign = 1'b0;
reg        s2_sub = 1'b0;
reg [10:0] s2_exp = 11'd0;
reg [55:0] s2_wy = 56'd0;
reg        s2_sticky = 1'b0;

// x's significand as stage 3 reads it, {hidden bit, fraction, G R S = 000}: a register, or (HELD_OPERANDS
// = 1, session 23: 52 flip-flops fewer) the held pair's fraction, chosen by stage 2's registers of the
// lane and the order beside the hidden bit; the choice is one LUT (four fractions, two selects) inside
// this module, in front of the adder's carry chain.
wire [55:0] s2_wx;
generate
if (HELD_OPERANDS) begin : g_held_x
    reg s2_upper = 1'b0, s2_swap = 1'b0, s2_x_enz = 1'b0;
    always @(posedge clk) begin
        s2_upper <= g_held.s1_upper;
        s2_swap <= s1_swap;
        s2_x_enz <= s1_swap ? s1_b_enz : s1_a_enz;
    end
    wire [51:0] x_frac = s2_upper ? (s2_swap ? b_upper[51:0] : a_upper[51:0])
                                  : (s2_swap ? b[51:0] : a[51:0]);
    assign s2_wx = {s2_x_enz, x_frac, 3'b000};
end else begin : g_sampled_x
    reg [55:0] s2_wx_reg = 56'd0;
    always @(posedge clk) s2_wx_reg <= {s1_swap ? mb : ma, 3'b000};
    assign s2_wx = s2_wx_reg;
end
endgenerate

// ---------------------------------------------------------------------------------------------
// Stage 3: add or subtract; the normalisation stopper
// ---------------------------------------------------------------------------------------------
// The sticky bit is ORed into the addend's bit 0 here (one LUT with the adder's own), not in stage 2.
wire [56:0] addend = {1'b0, s2_wy[55:1], s2_wy[0] || s2_sticky};
// One adder: x + (y ^ sub) + sub (two adders and a multiplexer would add a LUT level after the chain).
wire [56:0] sum = {1'b0, s2_wx} + (addend ^ {57{s2_sub}}) + {56'd0, s2_sub};
// Normalising left must not go below the subnormal exponent (1): a leading-zero count of the 57-bit
// sum stopped at exp (a one planted at bit 56 - exp) is min(lz, exp), the shift of the original
// min(lz56, exp - 1) plus the carry bit's place (sum[56]).
wire [56:0] stopper = (s2_exp <= 11'd56) ? (57'd1 << (6'd56 - s2_exp[5:0])) : 57'd0;

reg        s3_special = 1'b0, s3_special_nan = 1'b0, s3_special_sign = 1'b0, s3_special_invalid = 1'b0;
reg        s3_sign = 1'b0;
reg        s3_zero_sign = 1'b0;
reg [10:0] s3_exp = 11'd0;
reg [56:0] s3_sum = 57'd0;
reg [56:0] s3_lzv = 57'd0;               // sum | stopper: what the leading zeros are counted on

// ---------------------------------------------------------------------------------------------
// Stage 4: leading zeros of s3_lzv in groups of 8 bits; shift by the whole groups
// ---------------------------------------------------------------------------------------------
// Counted on sum | stopper (s3_lzv), padded with ones to 64 bits (8 groups), so that the last group is
// never empty.
wire [63:0] lzv = {s3_lzv, 7'h7f};
reg  [7:0]  grp_nz;
reg  [23:0] grp_lz;                      // group k's leading zeros in bits 3k+2:3k
reg  [2:0]  lz_hi;
reg  [2:0]  lz_lo;
reg  [7:0]  grp;
integer     k;
integer     t;

always @* begin
    for (k = 0; k < 8; k = k + 1) begin
        grp = lzv[63 - 8*k -: 8];
        grp_nz[k] = grp != 8'd0;
        grp_lz[3*k +: 3] = 3'd7;
        for (t = 0; t < 8; t = t + 1) begin
            // The highest set bit wins: scan upwards.
            if (grp[t]) grp_lz[3*k +: 3] = 3'd7 - t[2:0];
        end
    end
    // The first group (from the top) holding a one; group 7 always does.
    lz_hi = 3'd7;
    for (k = 6; k >= 0; k = k - 1) begin
        if (grp_nz[k]) lz_hi = k[2:0];
    end
    lz_lo = grp_lz[3*lz_hi +: 3];
end

reg        s4_special = 1'b0, s4_special_nan = 1'b0, s4_special_sign = 1'b0, s4_special_invalid = 1'b0;
reg        s4_sign = 1'b0;
reg        s4_zero = 1'b0;
reg        s4_zero_sign = 1'b0;
reg [11:0] s4_exp_p1 = 12'd0;            // exp + 1 and exp + 2: stage 5 subtracts the shift from them
reg [11:0] s4_exp_p2 = 12'd0;
reg [56:0] s4_coarse = 57'd0;            // sum << 8 * lz_hi
reg [2:0]  s4_lz_hi = 3'd0;
reg [2:0]  s4_lz_lo = 3'd0;

// ---------------------------------------------------------------------------------------------
// Stage 5: shift by the rest, round; the exponent and its overflow
// ---------------------------------------------------------------------------------------------
wire [56:0] sig57 = s4_coarse << s4_lz_lo;
// sum[56] set (no shift): the bit shifted out on the right joins the sticky bit. Else bit 0 is 0.
wire [55:0] sig = {sig57[56:2], sig57[1] || sig57[0]};
wire [2:0]  grs = sig[2:0];
reg         round_up;
reg         to_inf;
always @* begin
    case (s4_rounding)
        RND_NEAREST: round_up = (grs > 3'd4) || (grs == 3'd4 && sig[3]);
        RND_UP:      round_up = (grs != 3'd0) && !s4_sign;
        RND_DOWN:    round_up = (grs != 3'd0) && s4_sign;
        default:     round_up = 1'b0;
    endcase
    case (s4_rounding)
        RND_NEAREST: to_inf = 1'b1;
        RND_UP:      to_inf = !s4_sign;
        RND_DOWN:    to_inf = s4_sign;
        default:     to_inf = 1'b0;
    endcase
end
// The rounding increment as logic, not an adder: a carry chain here would follow the shift and the
// rounding decision, and synthesis maps the logic in front of a chain without counting the chain's delay.
// Bit i flips when the increment is on and every bit below it is 1.
reg  [53:0] mant;
reg         carry;
integer     m;
always @* begin
    carry = round_up;
    for (m = 0; m < 53; m = m + 1) begin
        mant[m] = sig[3 + m] ^ carry;
        carry = carry && sig[3 + m];
    end
    mant[53] = carry;
end
// The shift is lz = 8 * lz_hi + lz_lo; exp_n = exp - shift of the original (exp + 1 - lz), and the
// exponent after a rounding carry (one more).
wire [11:0] exp_n = s4_exp_p1 - {6'd0, s4_lz_hi, s4_lz_lo};
wire [11:0] exp_n1 = s4_exp_p2 - {6'd0, s4_lz_hi, s4_lz_lo};

reg        s5_special = 1'b0, s5_special_nan = 1'b0, s5_special_sign = 1'b0, s5_special_invalid = 1'b0;
reg        s5_sign = 1'b0;
reg        s5_zero = 1'b0;
reg        s5_zero_sign = 1'b0;
reg        s5_flush = 1'b0;              // FTZ and a subnormal result
reg        s5_inexact = 1'b0;
reg        s5_to_inf = 1'b0;
reg [53:0] s5_mant = 54'd0;
reg [10:0] s5_exp_n = 11'd0;
reg [10:0] s5_exp_n1 = 11'd0;
reg        s5_ovf0 = 1'b0;               // exp_n >= 0x7ff (no rounding carry)
reg        s5_ovf1 = 1'b0;               // exp_n + 1 >= 0x7ff (rounding carry)

// ---------------------------------------------------------------------------------------------
// Result: flush, overflow, pack
// ---------------------------------------------------------------------------------------------
// A rounding carry (mant[53]) leaves mant = 2^53: the fraction bits are 0 either way, and the exponent
// is exp_n + 1. Without it, mant[52] clear is a subnormal (exponent field 0).
wire       overflow = s5_mant[53] ? s5_ovf1 : s5_ovf0;
wire [10:0] exp_field = s5_mant[53] ? s5_exp_n1 : (s5_mant[52] ? s5_exp_n : 11'd0);

always @* begin
    result = 64'd0;
    flag_inexact = 1'b0;
    flag_overflow = 1'b0;
    flag_invalid = 1'b0;
    if (s5_special) begin
        result = s5_special_nan ? DEFAULT_NAN : {s5_special_sign, INF};
        flag_invalid = s5_special_invalid;
    end else if (s5_zero) begin
        result = {s5_zero_sign, 63'd0};
    end else if (s5_flush) begin
        // Subnormal result, flushed (002 (81)).
        result = {s5_sign, 63'd0};
        flag_inexact = 1'b1;
    end else if (overflow) begin
        result = {s5_sign, s5_to_inf ? INF : MAX_FINITE};
        flag_overflow = 1'b1;
        flag_inexact = 1'b1;
    end else begin
        result = {s5_sign, exp_field, s5_mant[51:0]};
        flag_inexact = s5_inexact;
    end
end

always @(posedge clk) begin
    // Stage 1
    s1_a_enz <= a_enz;
    s1_b_enz <= b_enz;
    s1_a_nan <= a_nan;
    s1_b_nan <= b_nan;
    s1_a_inf <= a_inf;
    s1_b_inf <= b_inf;
    s1_swap <= swap;
    s1_dist <= align_dist;

    // Stage 2. Special cases: a NaN gives the default NaN; +Inf with -Inf too (invalid); else an
    // infinite operand is the result; a signalling NaN is invalid.
    s2_special <= s1_a_nan || s1_b_nan || s1_a_inf || s1_b_inf;
    s2_special_nan <= s1_a_nan || s1_b_nan || (s1_a_inf && s1_b_inf && (s1_a[63] != s1_b[63]));
    s2_special_sign <= s1_a_inf ? s1_a[63] : s1_b[63];
    s2_special_invalid <= (s1_a_nan && !s1_a[51]) || (s1_b_nan && !s1_b[51])
                        || (!s1_a_nan && !s1_b_nan && s1_a_inf && s1_b_inf && (s1_a[63] != s1_b[63]));
    s2_sign <= s1_swap ? s1_b[63] : s1_a[63];
    s2_sub <= s1_a[63] ^ s1_b[63];
    s2_exp <= s1_swap ? eb_adj : ea_adj;
    s2_wy <= wy_shifted;
    s2_sticky <= s1_swap ? sticky_a : sticky_b;

    // Stage 3
    s3_special <= s2_special;
    s3_special_nan <= s2_special_nan;
    s3_special_sign <= s2_special_sign;
    s3_special_invalid <= s2_special_invalid;
    s3_sign <= s2_sign;
    // x + (-x) is +0 except toward -inf; equal signs keep the common sign.
    s3_zero_sign <= s2_sub ? (s2_rounding == RND_DOWN) : s2_sign;
    s3_exp <= s2_exp;
    s3_sum <= sum;
    s3_lzv <= sum | stopper;

    // Stage 4
    s4_special <= s3_special;
    s4_special_nan <= s3_special_nan;
    s4_special_sign <= s3_special_sign;
    s4_special_invalid <= s3_special_invalid;
    s4_sign <= s3_sign;
    s4_zero <= s3_sum == 57'd0;
    s4_zero_sign <= s3_zero_sign;
    s4_exp_p1 <= {1'b0, s3_exp} + 12'd1;
    s4_exp_p2 <= {1'b0, s3_exp} + 12'd2;
    s4_coarse <= s3_sum << {lz_hi, 3'b000};
    s4_lz_hi <= lz_hi;
    s4_lz_lo <= lz_lo;

    // Stage 5
    s5_special <= s4_special;
    s5_special_nan <= s4_special_nan;
    s5_special_sign <= s4_special_sign;
    s5_special_invalid <= s4_special_invalid;
    s5_sign <= s4_sign;
    s5_zero <= s4_zero;
    s5_zero_sign <= s4_zero_sign;
    s5_flush <= s4_ftz && !sig[55];
    s5_inexact <= grs != 3'd0;
    s5_to_inf <= to_inf;
    s5_mant <= mant;
    s5_exp_n <= exp_n[10:0];
    s5_exp_n1 <= exp_n1[10:0];
    // >= 0x7ff on 12 bits: bit 11 set, or the low 11 all ones (a compare would be a carry chain).
    s5_ovf0 <= exp_n[11] || (exp_n[10:0] == 11'h7ff);
    s5_ovf1 <= exp_n1[11] || (exp_n1[10:0] == 11'h7ff);
end

endmodule

`resetall
