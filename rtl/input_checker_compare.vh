// inswitch input checker: stage C's sum and compare functions.
// Included inside module input_checker (rtl/input_checker.v), before stage C; kept in its own file so that
// no source file passes ~1,000 lines. The Rust model has no counterpart: these are mapping choices only.
// Stage C's sums and comparisons feed d_flags_reg through further logic. Written with `+`, `>` or `<`
// they map to carry chains, and ABC maps the logic after a chain as if its output were at hand from the
// start: the chain ends ABC's view, so it cannot balance the paths through it (the encapsulation's
// Length checks were 5 LUT levels after a 2-level adder; docs/performance.md, session 20). These
// functions say the same as logic ABC sees whole.
//
// a + b + e == c (modulo 2^16), no carry chain: a carry-save step makes a + b + e = x + y, and x + y == c
// holds iff every bit i of x ^ y ^ c is the carry that bit i - 1 would pass on were the sum c (the
// majority of x, y and ~c there; 0 into bit 0). Each bit's test reads bits i to i - 2 of the operands,
// then one AND: a constant depth, whatever the width.
function automatic sum_eq(input [15:0] a, input [15:0] b, input [15:0] e, input [15:0] c);
    reg [15:0] x, y;
    reg [14:0] m;
    begin
        x = a ^ b ^ e;
        y = {(a[14:0] & b[14:0]) | (a[14:0] & e[14:0]) | (b[14:0] & e[14:0]), 1'b0};
        m = (x[14:0] & y[14:0]) | (x[14:0] & ~c[14:0]) | (y[14:0] & ~c[14:0]);
        sum_eq = (x ^ y ^ c) == {m, 1'b0};
    end
endfunction
// a > v for a constant v: some bit of a set where v's is clear, the bits above equal.
function automatic gt_const(input [15:0] a, input [15:0] v);
    integer i;
    begin
        gt_const = 1'b0;
        for (i = 0; i < 16; i = i + 1) begin
            if (a[i] && !v[i] && (a >> (i + 1)) == (v >> (i + 1))) gt_const = 1'b1;
        end
    end
endfunction
// a + b > v for a constant v, the sum written out bit by bit (gates, not an adder cell; a ripple, so
// callers pass only the low bits that matter).
function automatic sum_gt_const(input [15:0] a, input [15:0] b, input [15:0] v);
    integer i;
    reg [16:0] sum;
    reg carry;
    begin
        carry = 1'b0;
        for (i = 0; i < 16; i = i + 1) begin
            sum[i] = a[i] ^ b[i] ^ carry;
            carry = (a[i] && b[i]) || (carry && (a[i] ^ b[i]));
        end
        sum[16] = carry;
        sum_gt_const = sum[16] || gt_const(sum[15:0], v);
    end
endfunction
