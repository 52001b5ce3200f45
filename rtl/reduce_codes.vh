// The reduction codes (docs/blocks/reduce_unit.md), included inside modules reduce_unit, reduce_repsum,
// reduce_fadd and reduce_fminmax. Values as libfabric's COLL_OPCODE_* and enum cxip_coll_rc.
// GENERATED from crates/model/src/reduce/codes.rs and crates/model/src/reduce/float.rs: do not edit; run
// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model reduce_codes` (the same test checks it).
// Each module uses a part of the tables, hence UNUSEDPARAM off.

// verilator lint_off UNUSEDPARAM
// Opcodes (rt_op); FLT_SUM is 6'b101_fRR (0x28-0x2f), f = FTZ, RR = rounding mode
localparam [5:0] OP_BARRIER = 6'd0;
localparam [5:0] OP_BIT_AND = 6'd1;
localparam [5:0] OP_BIT_OR = 6'd2;
localparam [5:0] OP_BIT_XOR = 6'd3;
localparam [5:0] OP_LOG_AND = 6'd4;
localparam [5:0] OP_LOG_OR = 6'd5;
localparam [5:0] OP_LOG_XOR = 6'd6;
localparam [5:0] OP_INT_MIN = 6'd16;
localparam [5:0] OP_INT_MAX = 6'd17;
localparam [5:0] OP_INT_MINMAXLOC = 6'd18;
localparam [5:0] OP_INT_SUM = 6'd20;
localparam [5:0] OP_FLT_MIN = 6'd32;
localparam [5:0] OP_FLT_MAX = 6'd33;
localparam [5:0] OP_FLT_MINMAXLOC = 6'd34;
localparam [5:0] OP_FLT_MINNUM = 6'd36;
localparam [5:0] OP_FLT_MAXNUM = 6'd37;
localparam [5:0] OP_FLT_MINMAXNUMLOC = 6'd38;
localparam [5:0] OP_FLT_REPSUM = 6'd48;
localparam [2:0] OP_FLT_SUM_PREFIX = 3'd5;
// Result codes (rt_rc), larger = higher priority
localparam [3:0] RC_SUCCESS = 4'd0;
localparam [3:0] RC_FLT_INEXACT = 4'd1;
localparam [3:0] RC_FLT_OVERFLOW = 4'd3;
localparam [3:0] RC_FLT_INVALID = 4'd4;
localparam [3:0] RC_REP_INEXACT = 4'd5;
localparam [3:0] RC_INT_OVERFLOW = 4'd6;
localparam [3:0] RC_CONTR_OVERFLOW = 4'd7;
localparam [3:0] RC_OP_MISMATCH = 4'd8;
localparam [3:0] RC_TX_FAILURE = 4'd9;
localparam [3:0] RC_RDMA_FAILURE = 4'd10;
localparam [3:0] RC_RDMA_DATA_FAILURE = 4'd11;
// FLT_SUM rounding modes (opcode bits 1:0)
localparam [1:0] RND_NEAREST = 2'd0;
localparam [1:0] RND_UP = 2'd1;
localparam [1:0] RND_DOWN = 2'd2;
localparam [1:0] RND_ZERO = 2'd3;
// Special repsum m values
localparam [7:0] M_NEG_INF = 8'd125;
localparam [7:0] M_POS_INF = 8'd126;
localparam [7:0] M_NAN = 8'd127;
// binary64: the default NaN; the largest finite and the infinite magnitude (sign dropped)
localparam [63:0] DEFAULT_NAN = 64'h7FF8000000000000;
localparam [62:0] MAX_FINITE = 63'h7FEFFFFFFFFFFFFF;
localparam [62:0] INF = 63'h7FF0000000000000;
// verilator lint_on UNUSEDPARAM
