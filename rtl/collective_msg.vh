// The normalized collective message's signals (docs/blocks/collective_message.md).
// GENERATED from the field list in crates/model/src/message.rs (msg_fields!): do not edit; run
// `cargo run --release -- msg-header > rtl/collective_msg.vh` (tests/collective_msg_vh.rs checks it).

`ifndef COLLECTIVE_MSG_VH
`define COLLECTIVE_MSG_VH

// Field widths and offsets in the packed bus (first field = least significant bits)
`define COLLECTIVE_MSG_KIND_WIDTH 4
`define COLLECTIVE_MSG_KIND_LSB 0
`define COLLECTIVE_MSG_FAMILY_WIDTH 1
`define COLLECTIVE_MSG_FAMILY_LSB 4
`define COLLECTIVE_MSG_PORT_WIDTH 8
`define COLLECTIVE_MSG_PORT_LSB 5
`define COLLECTIVE_MSG_CTX_WIDTH 16
`define COLLECTIVE_MSG_CTX_LSB 13
`define COLLECTIVE_MSG_SRC_WIDTH 32
`define COLLECTIVE_MSG_SRC_LSB 29
`define COLLECTIVE_MSG_DST_WIDTH 32
`define COLLECTIVE_MSG_DST_LSB 61
`define COLLECTIVE_MSG_PID_WIDTH 16
`define COLLECTIVE_MSG_PID_LSB 93
`define COLLECTIVE_MSG_DMU_ID_WIDTH 16
`define COLLECTIVE_MSG_DMU_ID_LSB 109
`define COLLECTIVE_MSG_COUNT_WIDTH 20
`define COLLECTIVE_MSG_COUNT_LSB 125
`define COLLECTIVE_MSG_CODE_WIDTH 4
`define COLLECTIVE_MSG_CODE_LSB 145
`define COLLECTIVE_MSG_POSTED_WIDTH 1
`define COLLECTIVE_MSG_POSTED_LSB 149
`define COLLECTIVE_MSG_ERROR_WIDTH 1
`define COLLECTIVE_MSG_ERROR_LSB 150
`define COLLECTIVE_MSG_TID_WIDTH 2
`define COLLECTIVE_MSG_TID_LSB 151
`define COLLECTIVE_MSG_VNI_WIDTH 16
`define COLLECTIVE_MSG_VNI_LSB 153
`define COLLECTIVE_MSG_COOKIE_WIDTH 32
`define COLLECTIVE_MSG_COOKIE_LSB 169
`define COLLECTIVE_MSG_SEQNO_WIDTH 10
`define COLLECTIVE_MSG_SEQNO_LSB 201
`define COLLECTIVE_MSG_RESNO_WIDTH 10
`define COLLECTIVE_MSG_RESNO_LSB 211
`define COLLECTIVE_MSG_RETRY_WIDTH 1
`define COLLECTIVE_MSG_RETRY_LSB 221
`define COLLECTIVE_MSG_OP_WIDTH 6
`define COLLECTIVE_MSG_OP_LSB 222
`define COLLECTIVE_MSG_RC_WIDTH 4
`define COLLECTIVE_MSG_RC_LSB 228
`define COLLECTIVE_MSG_REPSUM_M_WIDTH 8
`define COLLECTIVE_MSG_REPSUM_M_LSB 232
`define COLLECTIVE_MSG_REPSUM_OFLOW_ID_WIDTH 2
`define COLLECTIVE_MSG_REPSUM_OFLOW_ID_LSB 240
`define COLLECTIVE_MSG_DATA_WIDTH 256
`define COLLECTIVE_MSG_DATA_LSB 242
`define COLLECTIVE_MSG_PBV_WIDTH 128
`define COLLECTIVE_MSG_PBV_LSB 498
`define COLLECTIVE_MSG_WIDTH 626

// Port declarations of a message input (sink) / output (source) with prefix p, no trailing comma
`define COLLECTIVE_MSG_SINK_PORTS(p) \
    input  wire                                             p``_valid, \
    output wire                                             p``_ready, \
    input  wire [`COLLECTIVE_MSG_KIND_WIDTH-1:0]            p``_kind, \
    input  wire                                             p``_family, \
    input  wire [`COLLECTIVE_MSG_PORT_WIDTH-1:0]            p``_port, \
    input  wire [`COLLECTIVE_MSG_CTX_WIDTH-1:0]             p``_ctx, \
    input  wire [`COLLECTIVE_MSG_SRC_WIDTH-1:0]             p``_src, \
    input  wire [`COLLECTIVE_MSG_DST_WIDTH-1:0]             p``_dst, \
    input  wire [`COLLECTIVE_MSG_PID_WIDTH-1:0]             p``_pid, \
    input  wire [`COLLECTIVE_MSG_DMU_ID_WIDTH-1:0]          p``_dmu_id, \
    input  wire [`COLLECTIVE_MSG_COUNT_WIDTH-1:0]           p``_count, \
    input  wire [`COLLECTIVE_MSG_CODE_WIDTH-1:0]            p``_code, \
    input  wire                                             p``_posted, \
    input  wire                                             p``_error, \
    input  wire [`COLLECTIVE_MSG_TID_WIDTH-1:0]             p``_tid, \
    input  wire [`COLLECTIVE_MSG_VNI_WIDTH-1:0]             p``_vni, \
    input  wire [`COLLECTIVE_MSG_COOKIE_WIDTH-1:0]          p``_cookie, \
    input  wire [`COLLECTIVE_MSG_SEQNO_WIDTH-1:0]           p``_seqno, \
    input  wire [`COLLECTIVE_MSG_RESNO_WIDTH-1:0]           p``_resno, \
    input  wire                                             p``_retry, \
    input  wire [`COLLECTIVE_MSG_OP_WIDTH-1:0]              p``_op, \
    input  wire [`COLLECTIVE_MSG_RC_WIDTH-1:0]              p``_rc, \
    input  wire [`COLLECTIVE_MSG_REPSUM_M_WIDTH-1:0]        p``_repsum_m, \
    input  wire [`COLLECTIVE_MSG_REPSUM_OFLOW_ID_WIDTH-1:0] p``_repsum_oflow_id, \
    input  wire [`COLLECTIVE_MSG_DATA_WIDTH-1:0]            p``_data, \
    input  wire [`COLLECTIVE_MSG_PBV_WIDTH-1:0]             p``_pbv
`define COLLECTIVE_MSG_SOURCE_PORTS(p) \
    output wire                                             p``_valid, \
    input  wire                                             p``_ready, \
    output wire [`COLLECTIVE_MSG_KIND_WIDTH-1:0]            p``_kind, \
    output wire                                             p``_family, \
    output wire [`COLLECTIVE_MSG_PORT_WIDTH-1:0]            p``_port, \
    output wire [`COLLECTIVE_MSG_CTX_WIDTH-1:0]             p``_ctx, \
    output wire [`COLLECTIVE_MSG_SRC_WIDTH-1:0]             p``_src, \
    output wire [`COLLECTIVE_MSG_DST_WIDTH-1:0]             p``_dst, \
    output wire [`COLLECTIVE_MSG_PID_WIDTH-1:0]             p``_pid, \
    output wire [`COLLECTIVE_MSG_DMU_ID_WIDTH-1:0]          p``_dmu_id, \
    output wire [`COLLECTIVE_MSG_COUNT_WIDTH-1:0]           p``_count, \
    output wire [`COLLECTIVE_MSG_CODE_WIDTH-1:0]            p``_code, \
    output wire                                             p``_posted, \
    output wire                                             p``_error, \
    output wire [`COLLECTIVE_MSG_TID_WIDTH-1:0]             p``_tid, \
    output wire [`COLLECTIVE_MSG_VNI_WIDTH-1:0]             p``_vni, \
    output wire [`COLLECTIVE_MSG_COOKIE_WIDTH-1:0]          p``_cookie, \
    output wire [`COLLECTIVE_MSG_SEQNO_WIDTH-1:0]           p``_seqno, \
    output wire [`COLLECTIVE_MSG_RESNO_WIDTH-1:0]           p``_resno, \
    output wire                                             p``_retry, \
    output wire [`COLLECTIVE_MSG_OP_WIDTH-1:0]              p``_op, \
    output wire [`COLLECTIVE_MSG_RC_WIDTH-1:0]              p``_rc, \
    output wire [`COLLECTIVE_MSG_REPSUM_M_WIDTH-1:0]        p``_repsum_m, \
    output wire [`COLLECTIVE_MSG_REPSUM_OFLOW_ID_WIDTH-1:0] p``_repsum_oflow_id, \
    output wire [`COLLECTIVE_MSG_DATA_WIDTH-1:0]            p``_data, \
    output wire [`COLLECTIVE_MSG_PBV_WIDTH-1:0]             p``_pbv

// Nets p_valid, p_ready and one per field
`define COLLECTIVE_MSG_WIRES(p) \
    wire                                             p``_valid, p``_ready; \
    wire [`COLLECTIVE_MSG_KIND_WIDTH-1:0]            p``_kind; \
    wire                                             p``_family; \
    wire [`COLLECTIVE_MSG_PORT_WIDTH-1:0]            p``_port; \
    wire [`COLLECTIVE_MSG_CTX_WIDTH-1:0]             p``_ctx; \
    wire [`COLLECTIVE_MSG_SRC_WIDTH-1:0]             p``_src; \
    wire [`COLLECTIVE_MSG_DST_WIDTH-1:0]             p``_dst; \
    wire [`COLLECTIVE_MSG_PID_WIDTH-1:0]             p``_pid; \
    wire [`COLLECTIVE_MSG_DMU_ID_WIDTH-1:0]          p``_dmu_id; \
    wire [`COLLECTIVE_MSG_COUNT_WIDTH-1:0]           p``_count; \
    wire [`COLLECTIVE_MSG_CODE_WIDTH-1:0]            p``_code; \
    wire                                             p``_posted; \
    wire                                             p``_error; \
    wire [`COLLECTIVE_MSG_TID_WIDTH-1:0]             p``_tid; \
    wire [`COLLECTIVE_MSG_VNI_WIDTH-1:0]             p``_vni; \
    wire [`COLLECTIVE_MSG_COOKIE_WIDTH-1:0]          p``_cookie; \
    wire [`COLLECTIVE_MSG_SEQNO_WIDTH-1:0]           p``_seqno; \
    wire [`COLLECTIVE_MSG_RESNO_WIDTH-1:0]           p``_resno; \
    wire                                             p``_retry; \
    wire [`COLLECTIVE_MSG_OP_WIDTH-1:0]              p``_op; \
    wire [`COLLECTIVE_MSG_RC_WIDTH-1:0]              p``_rc; \
    wire [`COLLECTIVE_MSG_REPSUM_M_WIDTH-1:0]        p``_repsum_m; \
    wire [`COLLECTIVE_MSG_REPSUM_OFLOW_ID_WIDTH-1:0] p``_repsum_oflow_id; \
    wire [`COLLECTIVE_MSG_DATA_WIDTH-1:0]            p``_data; \
    wire [`COLLECTIVE_MSG_PBV_WIDTH-1:0]             p``_pbv;

// Instance connections: ports port_* to nets net_*
`define COLLECTIVE_MSG_CONNECT(port, net) \
    .port``_valid(net``_valid), .port``_ready(net``_ready), \
    .port``_kind(net``_kind), \
    .port``_family(net``_family), \
    .port``_port(net``_port), \
    .port``_ctx(net``_ctx), \
    .port``_src(net``_src), \
    .port``_dst(net``_dst), \
    .port``_pid(net``_pid), \
    .port``_dmu_id(net``_dmu_id), \
    .port``_count(net``_count), \
    .port``_code(net``_code), \
    .port``_posted(net``_posted), \
    .port``_error(net``_error), \
    .port``_tid(net``_tid), \
    .port``_vni(net``_vni), \
    .port``_cookie(net``_cookie), \
    .port``_seqno(net``_seqno), \
    .port``_resno(net``_resno), \
    .port``_retry(net``_retry), \
    .port``_op(net``_op), \
    .port``_rc(net``_rc), \
    .port``_repsum_m(net``_repsum_m), \
    .port``_repsum_oflow_id(net``_repsum_oflow_id), \
    .port``_data(net``_data), \
    .port``_pbv(net``_pbv)

// The fields as one `COLLECTIVE_MSG_WIDTH-bit concatenation, first field in the low bits
`define COLLECTIVE_MSG_BUS(p) {p``_pbv, p``_data, p``_repsum_oflow_id, p``_repsum_m, p``_rc, p``_op, p``_retry, p``_resno, p``_seqno, p``_cookie, p``_vni, p``_tid, p``_error, p``_posted, p``_code, p``_count, p``_dmu_id, p``_pid, p``_dst, p``_src, p``_ctx, p``_port, p``_family, p``_kind}

// The message kinds (Kind in crates/model/src/message.rs) as localparams K_<NAME>: write
// `COLLECTIVE_MSG_KINDS inside a module body. A block need not test every kind, hence UNUSEDPARAM off.
`define COLLECTIVE_MSG_KINDS \
    /* verilator lint_off UNUSEDPARAM */ \
    localparam [3:0] K_NONE = 4'd0; \
    localparam [3:0] K_CONFIGURATION = 4'd1; \
    localparam [3:0] K_INIT = 4'd2; \
    localparam [3:0] K_CONTROL = 4'd3; \
    localparam [3:0] K_CONTRIB = 4'd4; \
    localparam [3:0] K_RESPONSE = 4'd5; \
    localparam [3:0] K_COMPLETION = 4'd6; \
    localparam [3:0] K_RETRY = 4'd7; \
    localparam [3:0] K_FAILURE = 4'd8; \
    localparam [3:0] K_ARM = 4'd9; \
    localparam [3:0] K_ENCAP = 4'd10; \
    /* verilator lint_on UNUSEDPARAM */

`endif
