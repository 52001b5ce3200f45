// inswitch packet engine: completion builder (seed 000 [0097], claim 14, [0113]; PCIe Base Specification
// §2.2.9, §2.3.1.1).
//
// PCIe completions for the engine's non-posted requests: the register space's responses to memory reads
// of its window, and the non-posted requests the input checker dropped (Unsupported Request). Ports,
// layout and timing: docs/blocks/completion_builder.md. Rust model: crates/model/src/completion_builder.rs.
//
//  s_rsp (register-space responses)     s_ur (dropped non-posted requests)
//     |  priority: s_rsp, then s_ur; a response to a write (posted MWr) is taken and gives nothing
//  [ build the frame and its LCRC in the cycle a request is taken ]
//     |
//  m_axis: one beat per completion, tuser = Requester ID
//
// Frame (data-link form, docs/frames.md §1, §7):
//  byte 0-1   {4'b0, seq[11:0]}
//  byte 2-5   DW0: Fmt (010 CplD / 000 Cpl) Type (01010, 01011 locked) | T9 TC T8 Attr2 0 0 | 0 0 Attr[1:0] 00 00 | Length (1 / 0)
//  byte 6-9   DW1: Completer ID = cfg_engine_id | Status[2:0] BCM=0 Byte Count[11:0]
//  byte 10-13 DW2: Requester ID | Tag[7:0] | 0 Lower Address[6:0]
//  byte 14-17 read data, little-endian (CplD only)
//  then       LCRC, little-endian
//
// Latency: a request taken at edge k is on m_axis from cycle k+1. Throughput: one completion per cycle
// while m_axis_tready is high.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module completion_builder #
(
    // Width of the frame data bus in bits (256 or 512: a completion, at most 22 bytes, is one beat)
    parameter DATA_WIDTH = 256,
    // Width of tkeep: one bit per data byte
    parameter KEEP_WIDTH = DATA_WIDTH / 8
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Register-space responses (status 0 ok, 1 rejected, 2 unmapped)
     */
    input  wire                   s_rsp_valid,
    output wire                   s_rsp_ready,
    input  wire                   s_rsp_write,
    input  wire [1:0]             s_rsp_status,
    input  wire [31:0]            s_rsp_rdata,
    input  wire [15:0]            s_rsp_src,
    input  wire [9:0]             s_rsp_tag,
    input  wire [15:0]            s_rsp_addr,
    input  wire [3:0]             s_rsp_be,

    /*
     * Non-posted requests the input checker dropped (Unsupported Request)
     */
    input  wire                   s_ur_valid,
    output wire                   s_ur_ready,
    input  wire [15:0]            s_ur_src,
    input  wire [9:0]             s_ur_tag,
    input  wire [2:0]             s_ur_tc,
    input  wire [2:0]             s_ur_attr,
    input  wire                   s_ur_mem_read,
    input  wire                   s_ur_locked,
    input  wire [9:0]             s_ur_length,
    input  wire [3:0]             s_ur_first_be,
    input  wire [3:0]             s_ur_last_be,
    input  wire [6:0]             s_ur_addr,

    /*
     * Completion frames (to the output queue); tuser = Requester ID
     */
    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [15:0]            m_axis_tuser,

    /*
     * Configuration: the engine's device ID, the Completer ID
     */
    input  wire [15:0]            cfg_engine_id,

    /*
     * Events: bit 0 CplD built, 1 Unsupported Request, 2 Completer Abort, 3 posted write (no completion)
     */
    output wire [3:0]             stat_event
);

// Response status STATUS_*, Completion Status CPL_*, Type TYPE_*, event bits EV_* (EV_COUNT), frame sizes
// HEADER_END, CPL_FRAME_BYTES and CPLD_FRAME_BYTES, the CRC's rows CRC32_ROWS, generated from
// crates/model/src/completion_builder.rs
`include "completion_builder_codes.vh"

generate
    if (KEEP_WIDTH * 8 != DATA_WIDTH || !(DATA_WIDTH == 256 || DATA_WIDTH == 512)) begin : g_bad_width
        completion_builder_bad_parameter_DATA_WIDTH_must_be_256_or_512 u_err();
    end
    // The port's width is written out (the port list precedes the include); it must be the generated count.
    if (EV_COUNT != 4) begin : g_bad_events
        completion_builder_stat_event_width_must_be_EV_COUNT u_err();
    end
endgenerate

// Offset of the first enabled byte (Table 2-41: 0000 and xxx1 give 0).
function [1:0] first_be_offset;
    input [3:0] be;
    begin
        casez (be)
            4'b???1: first_be_offset = 2'd0;
            4'b??10: first_be_offset = 2'd1;
            4'b?100: first_be_offset = 2'd2;
            4'b1000: first_be_offset = 2'd3;
            default: first_be_offset = 2'd0;
        endcase
    end
endfunction

// Disabled bytes after the last enabled one of the last DW.
function [1:0] last_be_gap;
    input [3:0] be;
    begin
        casez (be)
            4'b1???: last_be_gap = 2'd0;
            4'b01??: last_be_gap = 2'd1;
            4'b001?: last_be_gap = 2'd2;
            default: last_be_gap = 2'd3;
        endcase
    end
endfunction

// Bytes from the first to the last enabled byte of a 1-DW request (Table 2-40; 0000 counts 1).
function [2:0] single_dw_count;
    input [3:0] be;
    begin
        casez (be)
            4'b1??1: single_dw_count = 3'd4;
            4'b01?1: single_dw_count = 3'd3;
            4'b1?10: single_dw_count = 3'd3;
            4'b0011: single_dw_count = 3'd2;
            4'b0110: single_dw_count = 3'd2;
            4'b1100: single_dw_count = 3'd2;
            default: single_dw_count = 3'd1;
        endcase
    end
endfunction

/*
 * Registers
 */
reg                   valid_reg, valid_next;
reg [DATA_WIDTH-1:0]  tdata_reg, tdata_next;
reg [KEEP_WIDTH-1:0]  tkeep_reg, tkeep_next;
reg [15:0]            tuser_reg, tuser_next;
reg [11:0]            seq_reg, seq_next;
reg [3:0]             stat_event_reg, stat_event_next;

wire free = !rst && (!valid_reg || m_axis_tready);
assign s_rsp_ready = free;
// Register responses first: they keep the register space (and the checker behind it) moving.
assign s_ur_ready = free && !s_rsp_valid;

assign m_axis_tdata = tdata_reg;
assign m_axis_tkeep = tkeep_reg;
assign m_axis_tvalid = valid_reg;
assign m_axis_tlast = valid_reg;
assign m_axis_tuser = tuser_reg;
assign stat_event = stat_event_reg;

wire take_rsp = s_rsp_valid && s_rsp_ready;
wire take_ur = s_ur_valid && s_ur_ready;

// Only the low 7 address bits reach a completion (Lower Address); bits 1:0 are PH / the byte lane.
/* verilator lint_off UNUSEDSIGNAL */
wire unused_addr = &{1'b0, s_rsp_addr[15:7], s_rsp_addr[1:0], s_ur_addr[1:0]};
/* verilator lint_on UNUSEDSIGNAL */

/*
 * The request taken this cycle, normalized (a register response is a 1-DW memory read)
 */
reg        posted;
reg [2:0]  status;
reg [31:0] data;
reg [15:0] requester_id;
reg [9:0]  tag;
reg [2:0]  tc;
reg [2:0]  attr;
reg        mem_read;
reg        locked;
reg [3:0]  first_be;
reg [3:0]  last_be;
reg [4:0]  addr_dw;

always @* begin
    if (s_rsp_valid) begin
        posted = s_rsp_write;
        status = s_rsp_status == STATUS_OK ? CPL_SC : s_rsp_status == STATUS_UNMAPPED ? CPL_UR : CPL_CA;
        data = s_rsp_rdata;
        requester_id = s_rsp_src;
        tag = s_rsp_tag;
        tc = 3'd0;
        attr = 3'd0;
        mem_read = 1'b1;
        locked = 1'b0;
        first_be = s_rsp_be;
        last_be = 4'd0;
        addr_dw = s_rsp_addr[6:2];
    end else begin
        posted = 1'b0;
        status = CPL_UR;
        data = 32'd0;
        requester_id = s_ur_src;
        tag = s_ur_tag;
        tc = s_ur_tc;
        attr = s_ur_attr;
        mem_read = s_ur_mem_read;
        locked = s_ur_locked;
        first_be = s_ur_first_be;
        last_be = s_ur_last_be;
        addr_dw = s_ur_addr[6:2];
    end
end

wire with_data = status == CPL_SC;

// Byte Count (§2.3.1.1; 4 for every request but a memory read). 4 x 1024 DW wraps to 0 = 4096.
// A multi-DW count, 4 length - trim (trim = first_be_offset + last_be_gap, 0-6), only comes from s_ur (a
// register response is 1 DW). It is written without adder cells (issue 19): the subtraction was two
// carry chains in series ahead of the LCRC's XOR trees, the deepest stage (session 21). 4 length - trim is
// {length - ceil(trim / 4), -trim mod 4}; length - 1 and length - 2 are borrow ripples of the input alone,
// chosen by ceil(trim / 4), all as gates the LUT mapper folds.
wire [1:0] ur_first_offset = first_be_offset(s_ur_first_be);
wire [1:0] ur_last_gap = last_be_gap(s_ur_last_be);
wire [2:0] ur_trim = {(ur_first_offset[1] & ur_last_gap[1]) | (ur_first_offset[0] & ur_last_gap[0] & (ur_first_offset[1] ^ ur_last_gap[1])),
                      ur_first_offset[1] ^ ur_last_gap[1] ^ (ur_first_offset[0] & ur_last_gap[0]),
                      ur_first_offset[0] ^ ur_last_gap[0]};
// ceil(trim / 4): 0 for 0, 1 for 1-4, 2 for 5-6.
wire ur_trim_over_4 = ur_trim[2] && ur_trim[1:0] != 2'd0;
wire ur_trim_some = ur_trim != 3'd0;

// n - 1 modulo 2^10, as a borrow ripple.
function [9:0] dw_dec;
    input [9:0] n;
    integer i;
    reg borrow;
    begin
        borrow = 1'b1;
        for (i = 0; i < 10; i = i + 1) begin
            dw_dec[i] = n[i] ^ borrow;
            borrow = borrow & !n[i];
        end
    end
endfunction

wire [9:0] ur_length_less_1 = dw_dec(s_ur_length);
wire [9:0] ur_length_less_2 = dw_dec(ur_length_less_1);
wire [9:0] ur_length_dw = ur_trim_over_4 ? ur_length_less_2 : ur_trim_some ? ur_length_less_1 : s_ur_length;
wire [11:0] multi_dw_count = {ur_length_dw, ur_trim[1] ^ ur_trim[0], ur_trim[0]};
wire [11:0] byte_count = !mem_read ? 12'd4 :
                         last_be == 4'd0 ? {9'd0, single_dw_count(first_be)} : multi_dw_count;
wire [6:0]  lower_address = mem_read ? {addr_dw, first_be_offset(first_be)} : 7'd0;

/*
 * Frame bytes and LCRC
 */
// The LCRC of the header alone (a completion without data) and of the header and data, each a whole
// frame at a time through generated XOR rows (CRC32_ROWS: output bit g is the XOR of row g over the bytes
// and the initial value; the row of W bits is the top W bits of the widest), not a byte-serial chain
// (issue 19: LUT depth).
localparam CPL_CRC_BITS = 8 * HEADER_END;
localparam CPLD_CRC_BITS = 8 * (HEADER_END + 4);
reg [8*CPLD_FRAME_BYTES-1:0] frame;
wire [31:0] crc_cpl;
wire [31:0] crc_cpld;
wire [31:0] crc = with_data ? crc_cpld : crc_cpl;

genvar g;
generate
    for (g = 0; g < 32; g = g + 1) begin : g_crc
        localparam [CPL_CRC_BITS-1:0] ROW_CPL = CRC32_ROWS[g*CRC32_ROW_BITS + CRC32_ROW_BITS - CPL_CRC_BITS +: CPL_CRC_BITS];
        localparam [CPLD_CRC_BITS-1:0] ROW_CPLD = CRC32_ROWS[g*CRC32_ROW_BITS + CRC32_ROW_BITS - CPLD_CRC_BITS +: CPLD_CRC_BITS];
        assign crc_cpl[g] = ^(ROW_CPL & frame[CPL_CRC_BITS-1:0]) ^ ^ROW_CPL[31:0];
        assign crc_cpld[g] = ^(ROW_CPLD & frame[CPLD_CRC_BITS-1:0]) ^ ^ROW_CPLD[31:0];
    end
endgenerate

// The frame's bytes before the LCRC (frame_crc adds it).
always @* begin
    frame = {8*CPLD_FRAME_BYTES{1'b0}};
    frame[8*0 +: 8] = {4'd0, seq_reg[11:8]};
    frame[8*1 +: 8] = seq_reg[7:0];
    frame[8*2 +: 8] = {with_data ? 3'b010 : 3'b000, locked ? TYPE_CPL_LK : TYPE_CPL};
    frame[8*3 +: 8] = {tag[9], tc, tag[8], attr[2], 2'b00};
    frame[8*4 +: 8] = {2'b00, attr[1:0], 4'd0};
    frame[8*5 +: 8] = {7'd0, with_data};
    frame[8*6 +: 8] = cfg_engine_id[15:8];
    frame[8*7 +: 8] = cfg_engine_id[7:0];
    frame[8*8 +: 8] = {status, 1'b0, byte_count[11:8]};
    frame[8*9 +: 8] = byte_count[7:0];
    frame[8*10 +: 8] = requester_id[15:8];
    frame[8*11 +: 8] = requester_id[7:0];
    frame[8*12 +: 8] = tag[7:0];
    frame[8*13 +: 8] = {1'b0, lower_address};
    frame[8*14 +: 32] = data;
end

reg [8*CPLD_FRAME_BYTES-1:0] frame_crc;

always @* begin
    frame_crc = frame;
    if (with_data) begin
        frame_crc[8*(HEADER_END + 4) +: 32] = ~crc;
    end else begin
        frame_crc[8*HEADER_END +: 32] = ~crc;
    end
end

always @* begin
    valid_next = valid_reg && !m_axis_tready;
    tdata_next = tdata_reg;
    tkeep_next = tkeep_reg;
    tuser_next = tuser_reg;
    seq_next = seq_reg;
    stat_event_next = 4'd0;

    if (take_rsp || take_ur) begin
        if (posted) begin
            stat_event_next[EV_POSTED] = 1'b1;
        end else if (status == CPL_SC) begin
            stat_event_next[EV_CPLD] = 1'b1;
        end else if (status == CPL_UR) begin
            stat_event_next[EV_UR] = 1'b1;
        end else begin
            stat_event_next[EV_CA] = 1'b1;
        end
        if (!posted) begin
            valid_next = 1'b1;
            tdata_next = {{(DATA_WIDTH - 8*CPLD_FRAME_BYTES){1'b0}}, frame_crc};
            tkeep_next = with_data ? {{(KEEP_WIDTH - CPLD_FRAME_BYTES){1'b0}}, {CPLD_FRAME_BYTES{1'b1}}}
                                   : {{(KEEP_WIDTH - CPL_FRAME_BYTES){1'b0}}, {CPL_FRAME_BYTES{1'b1}}};
            tuser_next = requester_id;
            seq_next = seq_reg + 12'd1;
        end
    end
end

always @(posedge clk) begin
    valid_reg <= valid_next;
    tdata_reg <= tdata_next;
    tkeep_reg <= tkeep_next;
    tuser_reg <= tuser_next;
    seq_reg <= seq_next;
    stat_event_reg <= stat_event_next;

    if (rst) begin
        valid_reg <= 1'b0;
        tdata_reg <= {DATA_WIDTH{1'b0}};
        tkeep_reg <= {KEEP_WIDTH{1'b0}};
        tuser_reg <= 16'd0;
        seq_reg <= 12'd0;
        stat_event_reg <= 4'd0;
    end
end

endmodule

`resetall
