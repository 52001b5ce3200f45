// inswitch packet engine: frame builder (seed 000 [0097], [0144]; 002 (94)-(99)).
//
// The inverse of the input checker for the outgoing direction: a normalized collective message from the
// CPU becomes a wire frame for the output queue, with the destination device ID in tuser. Layouts and
// mapping: docs/blocks/frame_builder.md. Rust model: crates/model/src/frame_builder.rs.
//
//  s_msg (one message per beat)
//     |  build the frame bytes (CRC field zero) into a 128-byte buffer, PAD (by frame class) bytes late
//  [ frame buffer (shifting one beat per beat), frame class, beat index, running CRC ]
//     |  each beat: the CRC takes the beat whole (XOR rows); the CRC bytes are the finished CRC
//  m_axis (tuser = dst[15:0])
//
// TLP (kinds 1-8): | 0000 seq(12) | 72 00 00 len | engine ID | 00 7F | dst | vendor ID | CE kind CC_ID |
//                  collective message (40, 16, 48 or, configuration, 24 + 4i bytes) | LCRC (LE) |
// Soft Portals (kinds 4, 9): | dst MAC | src MAC | EtherType | reduction frame (84) | FCS (LE) |
//
// Latency: a message taken at edge k has its first beat offered from cycle k+1. Throughput: one beat per
// cycle; the next message is taken in the cycle the last beat of the previous frame is.

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "collective_msg.vh"

module frame_builder #
(
    // Width of the frame data bus in bits (64, 128, 256 or 512)
    parameter DATA_WIDTH = 256,
    // Width of tkeep: one bit per data byte
    parameter KEEP_WIDTH = DATA_WIDTH / 8
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Normalized collective messages from the CPU (docs/blocks/collective_message.md)
     */
    `COLLECTIVE_MSG_SINK_PORTS(s_msg),

    /*
     * Frames to the output queue; tuser = destination device ID
     */
    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [15:0]            m_axis_tuser,

    /*
     * Configuration
     */
    input  wire [15:0]            cfg_engine_id,
    input  wire [15:0]            cfg_vendor_id,
    input  wire [15:0]            cfg_ethertype,
    input  wire [47:0]            cfg_src_mac,
    input  wire [47:0]            cfg_dst_mac,

    /*
     * Events: bit 0 frame built, bit 1 message dropped (no frame for its kind)
     */
    output wire [1:0]             stat_event
);

// Event bits EV_* (EV_COUNT), BUFFER_BYTES, the CRC's rows CRC32_ROWS and initial values
// CRC32_INIT_BYTES_EARLY, generated from crates/model/src/frame_builder.rs
`include "frame_builder_codes.vh"

localparam BUFFER_BEATS = BUFFER_BYTES / KEEP_WIDTH;
localparam BEAT_INDEX_WIDTH = BUFFER_BEATS > 1 ? $clog2(BUFFER_BEATS) : 1;
// Message kinds K_* (docs/blocks/collective_message.md), generated from crates/model/src/message.rs
`COLLECTIVE_MSG_KINDS

generate
    if (KEEP_WIDTH * 8 != DATA_WIDTH || !(DATA_WIDTH == 64 || DATA_WIDTH == 128 || DATA_WIDTH == 256 || DATA_WIDTH == 512)) begin : g_bad_width
        frame_builder_bad_parameter_DATA_WIDTH_must_be_64_128_256_or_512 u_err();
    end
    // The port's width is written out (the port list precedes the include); it must be the generated count.
    if (EV_COUNT != 2) begin : g_bad_events
        frame_builder_stat_event_width_must_be_EV_COUNT u_err();
    end
endgenerate

/*
 * Frame bytes of the offered message (CRC field left zero)
 */
// The port hint and CC_ID bits 15:12 are not carried (a Portals context comes from its DFA), nor a
// Portals message's TID (the reduction frame has none: its seqno plays that part, 002 (53));
// a TLP's Requester ID is the engine's own ID (000 [0097]), not s_msg_src.
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]  unused_port = s_msg_port;
wire [3:0]  unused_ctx = s_msg_ctx[15:12];
/* verilator lint_on UNUSEDSIGNAL */

// Frame classes: one per frame length. The four fixed ones, then the configuration messages (FIG. 4) the
// CPU relays down the tree (docs/blocks/cpu.md §Messages), one class per payload length 24 + 4i
// (FC_CONFIG + i: i DW of 16-bit slots, i <= CONFIG_RELAY_SLOTS / 2; the classes above are unused).
localparam CLASS_W = 4;
localparam CLASSES = 1 << CLASS_W;
localparam [CLASS_W-1:0] FC_SHORT = 4'd0;    // control, retry, failure: 38 bytes
localparam [CLASS_W-1:0] FC_INIT = 4'd1;     // initialization: 62
localparam [CLASS_W-1:0] FC_DATA = 4'd2;     // contribution, response, completion: 70
localparam [CLASS_W-1:0] FC_PORTALS = 4'd3;  // Soft Portals: 102
localparam [CLASS_W-1:0] FC_CONFIG = 4'd4;   // configuration: 46 + 4i
localparam CRC_BYTES = 4;

// TLP payload (collective message) bytes of a class; the TLP frame adds 18 (sequence number and header).
function [7:0] class_plen(input [CLASS_W-1:0] c);
    begin
        case (c)
            FC_SHORT: class_plen = 8'd16;
            FC_INIT: class_plen = 8'd40;
            FC_DATA, FC_PORTALS: class_plen = 8'd48;
            default: class_plen = 8'd24 + {2'd0, c - FC_CONFIG, 2'b00};
        endcase
    end
endfunction

function [7:0] class_len(input [CLASS_W-1:0] c);
    begin
        class_len = c == FC_PORTALS ? 8'd102 : 8'd18 + class_plen(c) + CRC_BYTES[7:0];
    end
endfunction

// Zero bytes before a frame of class c so that its data (all but the CRC) ends on a beat boundary.
// Called only to set the per-class constants below (g_pad), at elaboration: its lines never run in simulation, so
// they are kept out of line coverage (verif/coverage-floors.txt) rather than counted as holes.
/* verilator coverage_off */
function integer class_pad(input [CLASS_W-1:0] c);
    begin
        class_pad = (KEEP_WIDTH - ({24'd0, class_len(c)} - CRC_BYTES) % KEEP_WIDTH) % KEEP_WIDTH;
    end
endfunction
/* verilator coverage_on */

// A relayed configuration message: n_devices and n_subservient from ConfigFixed (payload bytes 8-23 in
// pbv, big-endian: bytes 14-15 and 13); its slots, n + s, must fit data (CONFIG_RELAY_SLOTS), else it has
// no frame. Its class: FC_CONFIG + ceil((n + s) / 2).
wire [15:0] cfg_n_devices = s_msg_pbv[79:64];
wire [7:0]  cfg_n_sub = s_msg_pbv[87:80];
// No adder or comparator cells on this path (issue 19): an adder or a compare becomes a carry chain, which
// the LUT mapper cannot merge with the logic around it, and the sum fed the frame's class, its slot mask
// and whether it has a frame, ten LUT levels in all (session 21). n + s fits only when both are below
// 2^SLOT_SUM_W (CONFIG_RELAY_SLOTS < 2^SLOT_SUM_W), so the sum of their low SLOT_SUM_W bits decides; it is
// written as gates (a ripple of full adders), which the mapper folds into the functions of its bits.
localparam SLOT_SUM_W = $clog2(CONFIG_RELAY_SLOTS + 1);
// Width of the gate helpers' operands: the sum (SLOT_SUM_W + 1 bits) and the classes, with room to spare.
localparam GATE_W = 8;
function [GATE_W-1:0] gate_add(input [GATE_W-1:0] a, input [GATE_W-1:0] b);
    integer i;
    reg c;
    begin
        c = 1'b0;
        for (i = 0; i < GATE_W; i = i + 1) begin
            gate_add[i] = a[i] ^ b[i] ^ c;
            c = (a[i] & b[i]) | (c & (a[i] ^ b[i]));
        end
    end
endfunction
// a < b, from the most significant bit down, as gates.
function gate_less(input [GATE_W-1:0] a, input [GATE_W-1:0] b);
    integer i;
    reg eq;
    begin
        gate_less = 1'b0;
        eq = 1'b1;
        for (i = GATE_W - 1; i >= 0; i = i - 1) begin
            gate_less = gate_less | (eq & !a[i] & b[i]);
            eq = eq & !(a[i] ^ b[i]);
        end
    end
endfunction
wire [GATE_W-1:0] cfg_slots = gate_add({{(GATE_W-SLOT_SUM_W){1'b0}}, cfg_n_devices[SLOT_SUM_W-1:0]},
                                       {{(GATE_W-SLOT_SUM_W){1'b0}}, cfg_n_sub[SLOT_SUM_W-1:0]});
wire cfg_counts_small = cfg_n_devices[15:SLOT_SUM_W] == 0 && cfg_n_sub[7:SLOT_SUM_W] == 0;
// ceil(slots / 2), taken modulo the classes (a count that does not fit has no frame: its class is unused).
wire [GATE_W-1:0] cfg_half_up = gate_add(cfg_slots >> 1, {{(GATE_W-1){1'b0}}, cfg_slots[0]});
/* verilator lint_off UNUSEDSIGNAL */
wire [GATE_W-1:0] cfg_class_wide = gate_add(cfg_half_up, {{(GATE_W-CLASS_W){1'b0}}, FC_CONFIG});
/* verilator lint_on UNUSEDSIGNAL */
wire [CLASS_W-1:0] cfg_class = cfg_class_wide[CLASS_W-1:0];
wire cfg_fits = cfg_counts_small && !gate_less(CONFIG_RELAY_SLOTS[GATE_W-1:0], cfg_slots);
// slot_present[j]: slot j is one of the n + s (j < n + s), a thermometer code of the sum.
wire [CONFIG_RELAY_SLOTS-1:0] slot_present;
genvar gs;
generate
    for (gs = 0; gs < CONFIG_RELAY_SLOTS; gs = gs + 1) begin : g_slot
        localparam [GATE_W-1:0] J = gs;
        assign slot_present[gs] = gate_less(J, cfg_slots);
    end
endgenerate

wire is_init = s_msg_kind == K_INIT;
wire is_config = s_msg_kind == K_CONFIGURATION;
wire is_data = s_msg_kind == K_CONTRIB || s_msg_kind == K_RESPONSE || s_msg_kind == K_COMPLETION;
wire [CLASS_W-1:0] frame_class = s_msg_family ? FC_PORTALS : is_init ? FC_INIT : is_config ? cfg_class :
                                 is_data ? FC_DATA : FC_SHORT;
// The TLP payload length of the offered message (for a Portals frame, unused); the header carries it in
// DW (tlp_plen[7:2]). The frame's length is its class's, class_len. Read from a table of the classes'
// constants (g_pad, below), not computed from the class: the sum was a carry chain (issue 19).
wire [7:0] plen_rows [0:CLASSES-1];
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0] tlp_plen = plen_rows[frame_class];
/* verilator lint_on UNUSEDSIGNAL */

wire is_tlp_kind = is_init || s_msg_kind == K_CONTROL || is_data || s_msg_kind == K_RETRY || s_msg_kind == K_FAILURE ||
                   (is_config && cfg_fits);
wire is_portals_kind = s_msg_kind == K_CONTRIB || s_msg_kind == K_ARM;
wire supported = s_msg_family ? is_portals_kind : is_tlp_kind;
wire [63:0] red_w = {2'b00, s_msg_retry, s_msg_repsum_oflow_id, s_msg_repsum_m, s_msg_rc, s_msg_resno,
                     s_msg_count, s_msg_op, s_msg_kind == K_ARM, s_msg_seqno};

reg [11:0] seq_reg, seq_next;
reg [8*BUFFER_BYTES-1:0] build;

`define FB(i) build[8*(i) +: 8]

integer k;

always @* begin
    build = {8*BUFFER_BYTES{1'b0}};
    // The loop variable is assigned on every path, so no latch is inferred for it.
    k = 0;
    if (s_msg_family) begin
        for (k = 0; k < 6; k = k + 1) begin
            `FB(k) = cfg_dst_mac[8*(5-k) +: 8];
            `FB(6 + k) = cfg_src_mac[8*(5-k) +: 8];
        end
        {`FB(12), `FB(13)} = cfg_ethertype;
        {`FB(14), `FB(15), `FB(16), `FB(17)} = s_msg_dst;
        {`FB(18), `FB(19), `FB(20), `FB(21)} = s_msg_src;
        {`FB(22), `FB(23)} = s_msg_vni;
        `FB(25) = 8'h01;
        {`FB(54), `FB(55), `FB(56), `FB(57)} = s_msg_cookie;
        for (k = 0; k < 8; k = k + 1) begin
            `FB(58 + k) = red_w[8*(7-k) +: 8];
        end
        for (k = 0; k < 32; k = k + 1) begin
            // Operand k/8 big-endian: its byte k%8 is bits 63-8(k%8) of lane k/8.
            `FB(66 + k) = s_msg_data[64*(k/8) + 8*(7 - k%8) +: 8];
        end
    end else begin
        {`FB(0), `FB(1)} = {4'd0, seq_reg};
        `FB(2) = 8'h72;
        `FB(5) = {2'b00, tlp_plen[7:2]};
        {`FB(6), `FB(7)} = cfg_engine_id;
        `FB(9) = 8'h7F;
        {`FB(10), `FB(11)} = s_msg_dst[15:0];
        {`FB(12), `FB(13)} = cfg_vendor_id;
        {`FB(14), `FB(15), `FB(16), `FB(17)} = {8'hCE, 4'd0, s_msg_kind, 4'd0, s_msg_ctx[11:0]};
        `FB(18) = {4'd1, s_msg_kind};
        // Header byte 1 {NP, EM, RT, TID[1:0], rsvd[2:0]} (docs/frames.md §4): RT is not sent (the
        // normalized message's retry is Portals'), the TID is seed 001's transaction ID.
        `FB(19) = {!s_msg_posted, s_msg_error, 1'b0, s_msg_tid, 3'd0};
        {`FB(20), `FB(21)} = {4'd0, s_msg_ctx[11:0]};
        {`FB(22), `FB(23)} = s_msg_dmu_id;
        {`FB(24), `FB(25)} = s_msg_pid;
        case (s_msg_kind)
            K_CONFIGURATION: begin
                for (k = 0; k < 16; k = k + 1) begin
                    `FB(26 + k) = s_msg_pbv[8*(15-k) +: 8];
                end
                for (k = 0; k < 2*CONFIG_RELAY_SLOTS; k = k + 1) begin
                    // Slot k/2 is bits 63-16(k/2 % 4) of operand k/8, big-endian; the n + s slots only
                    // (the padding slot of an odd count stays zero, docs/frames.md §4).
                    if (slot_present[k/2]) `FB(42 + k) = s_msg_data[64*(k/8) + 8*(7 - k%8) +: 8];
                end
            end
            K_INIT: begin
                {`FB(26), `FB(27)} = s_msg_count[15:0];
                `FB(28) = {2'b00, s_msg_op};
                for (k = 0; k < 8; k = k + 1) begin
                    `FB(34 + k) = s_msg_data[8*(7-k) +: 8];
                end
                for (k = 0; k < 16; k = k + 1) begin
                    `FB(42 + k) = s_msg_pbv[8*(15-k) +: 8];
                end
            end
            K_CONTROL: begin
                `FB(26) = {4'd0, s_msg_code};
                {`FB(28), `FB(29)} = s_msg_count[15:0];
            end
            K_CONTRIB, K_RESPONSE, K_COMPLETION: begin
                `FB(26) = {2'b00, s_msg_op};
                `FB(27) = {4'd0, s_msg_rc};
                {`FB(28), `FB(29)} = s_msg_count[15:0];
                `FB(31) = 8'd4;
                `FB(32) = {4'd0, s_msg_code};
                for (k = 0; k < 32; k = k + 1) begin
                    `FB(34 + k) = s_msg_data[64*(k/8) + 8*(7 - k%8) +: 8];
                end
            end
            default: begin
                `FB(26) = {4'd0, s_msg_code};
                `FB(27) = s_msg_count[7:0];
                {`FB(28), `FB(29)} = s_msg_data[15:0];
                {`FB(30), `FB(31)} = s_msg_data[31:16];
            end
        endcase
    end
end

`undef FB

/*
 * Streaming with the CRC filled in on the fly
 */
// The CRC runs a whole beat at a time through generated XOR rows (CRC32_ROWS, as the input checker's), so
// the data it covers must end on a beat boundary: the frame is stored PAD bytes late (PAD zero bytes
// first; PAD = the bytes that round the data before the CRC up to whole beats, by frame length) and the
// register starts at CRC32_INIT_BYTES_EARLY[PAD], the value PAD zero bytes turn into 0xFFFF_FFFF. A beat
// of the frame is read back PAD bytes further on. The four frame lengths are the four classes FC_*.

// Per class, a constant: its pad and the CRC's initial value. The offered frame PAD bytes late (a constant
// shift per class; what falls off the top is the zero CRC field or beyond: the data ends at most at
// BUFFER_BYTES), and the beat's bytes PAD bytes into the stored frame, are each the one class's shift,
// chosen in a loop of ifs: a table of every class's shifted copy (as session 19 first wrote it) made the
// Verilated top compute all sixteen 1,024-bit copies at every evaluation, 0.76x the simulation speed
// (docs/performance.md §Session 20).
/* verilator lint_off UNUSEDSIGNAL */
wire [8*(BUFFER_BYTES+KEEP_WIDTH)-1:0] frame_ext;
/* verilator lint_on UNUSEDSIGNAL */
wire [7:0]  pad_rows [0:CLASSES-1];
wire [31:0] init_crc_rows [0:CLASSES-1];
genvar gp;
generate
    for (gp = 0; gp < CLASSES; gp = gp + 1) begin : g_pad
        localparam [CLASS_W-1:0] C = gp;
        localparam integer PAD = class_pad(C);
        assign pad_rows[gp] = PAD[7:0];
        assign plen_rows[gp] = class_plen(C);
        assign init_crc_rows[gp] = CRC32_INIT_BYTES_EARLY[32*PAD +: 32];
    end
endgenerate

reg [8*BUFFER_BYTES-1:0] build_padded;
reg [DATA_WIDTH-1:0]     beat_bytes;
reg [CLASS_W-1:0]        class_reg, class_next;

integer pc;

// Per class a constant shift, chosen in a loop of ifs (the classes exclude each other, so the mapper
// makes it one 16-way select on the class's four bits). Not a case: Verilator computes every case item's
// wide shift ahead of the case (a temporary per item, as a table of all sixteen shifted copies would,
// docs/performance.md §Session 20), where an if's shift stays inside its branch.
always @* begin
    build_padded = {8*BUFFER_BYTES{1'b0}};
    for (pc = 0; pc < CLASSES; pc = pc + 1) begin
        if (frame_class == pc[CLASS_W-1:0]) build_padded = build << (8 * pad_rows[pc]);
    end
end

always @* begin
    beat_bytes = {DATA_WIDTH{1'b0}};
    for (pc = 0; pc < CLASSES; pc = pc + 1) begin
        if (class_reg == pc[CLASS_W-1:0]) beat_bytes = frame_ext[8 * pad_rows[pc] +: DATA_WIDTH];
    end
end


// frame_reg shifts one beat down per beat sent, so the CRC's beat is always its lowest DATA_WIDTH bits.
reg [8*BUFFER_BYTES-1:0]   frame_reg, frame_next;
reg [BEAT_INDEX_WIDTH-1:0] beat_reg, beat_next;
reg                        busy_reg, busy_next;
reg [15:0]                 dest_reg, dest_next;
reg [31:0]                 crc_reg, crc_next;
reg [1:0]                  stat_event_reg, stat_event_next;
// Where the current beat's bytes lie relative to the CRC field, registered with the beat index:
// data_mask_reg[k] byte k is before the CRC; crc_mask_reg[j*KEEP_WIDTH + k] byte k is CRC byte j.
// data_mask_reg[0]: the beat holds data, so the CRC takes it (after the data, the CRC register holds).
reg [KEEP_WIDTH-1:0]           data_mask_reg, data_mask_next;
reg [CRC_BYTES*KEEP_WIDTH-1:0] crc_mask_reg, crc_mask_next;

// Everything that depends on the frame's length is a constant of its class and beat index, read from
// tables indexed by {class, beat} (one LUT level: no length arithmetic in any path, issue 19): the beat's
// tkeep, whether it is the last, and its masks.
function [KEEP_WIDTH-1:0] keep_of(input [CLASS_W-1:0] c, input integer b);
    integer i;
    begin
        for (i = 0; i < KEEP_WIDTH; i = i + 1) keep_of[i] = b * KEEP_WIDTH + i < {24'd0, class_len(c)};
    end
endfunction

function [KEEP_WIDTH-1:0] data_mask_of(input [CLASS_W-1:0] c, input integer b);
    integer i;
    begin
        for (i = 0; i < KEEP_WIDTH; i = i + 1) data_mask_of[i] = b * KEEP_WIDTH + i < {24'd0, class_len(c)} - CRC_BYTES;
    end
endfunction

function [CRC_BYTES*KEEP_WIDTH-1:0] crc_mask_of(input [CLASS_W-1:0] c, input integer b);
    integer i, n;
    begin
        for (n = 0; n < CRC_BYTES; n = n + 1) begin
            for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
                crc_mask_of[n*KEEP_WIDTH + i] = b * KEEP_WIDTH + i == {24'd0, class_len(c)} - CRC_BYTES + n;
            end
        end
    end
endfunction

localparam TABLE_ROWS = CLASSES * BUFFER_BEATS;
wire [KEEP_WIDTH-1:0]           keep_rows [0:TABLE_ROWS-1];
wire [KEEP_WIDTH-1:0]           data_mask_rows [0:TABLE_ROWS-1];
wire [CRC_BYTES*KEEP_WIDTH-1:0] crc_mask_rows [0:TABLE_ROWS-1];
wire [TABLE_ROWS-1:0]           last_rows;

genvar gc, gb;
generate
    for (gc = 0; gc < CLASSES; gc = gc + 1) begin : g_class
        localparam [CLASS_W-1:0] C = gc;
        for (gb = 0; gb < BUFFER_BEATS; gb = gb + 1) begin : g_beat
            assign keep_rows[gc*BUFFER_BEATS + gb] = keep_of(C, gb);
            assign data_mask_rows[gc*BUFFER_BEATS + gb] = data_mask_of(C, gb);
            assign crc_mask_rows[gc*BUFFER_BEATS + gb] = crc_mask_of(C, gb);
            assign last_rows[gc*BUFFER_BEATS + gb] = (gb + 1) * KEEP_WIDTH >= class_len(C);
        end
    end
endgenerate

wire last = last_rows[{class_reg, beat_reg}];

// The stored frame with zero bytes above it, so every class reads a whole beat (beat_bytes, above; the
// pads' range leaves bytes at both ends unread).
assign frame_ext = {{8*KEEP_WIDTH{1'b0}}, frame_reg};

// The CRC of the lowest beat of frame_reg: bit g is the XOR of row g over the beat and the register.
wire [31:0] init_crc = init_crc_rows[class_reg];

wire [31:0] crc_state = beat_reg == {BEAT_INDEX_WIDTH{1'b0}} ? init_crc : crc_reg;
wire [31:0] crc_of_beat;

genvar g;
generate
    for (g = 0; g < 32; g = g + 1) begin : g_crc
        localparam [DATA_WIDTH-1:0] ROW = CRC32_ROWS[g*CRC32_ROW_BITS + CRC32_ROW_BITS - DATA_WIDTH +: DATA_WIDTH];
        assign crc_of_beat[g] = ^(ROW & frame_reg[DATA_WIDTH-1:0]) ^ ^(ROW[31:0] & crc_state);
    end
endgenerate

wire [31:0] beat_crc = data_mask_reg[0] ? crc_of_beat : crc_reg;

reg [DATA_WIDTH-1:0] beat_data;
integer j;

always @* begin
    beat_data = {DATA_WIDTH{1'b0}};
    for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
        if (data_mask_reg[k]) begin
            beat_data[8*k +: 8] = beat_bytes[8*k +: 8];
        end
        for (j = 0; j < CRC_BYTES; j = j + 1) begin
            if (crc_mask_reg[j*KEEP_WIDTH + k]) begin
                beat_data[8*k +: 8] = ~beat_crc[8*j +: 8];
            end
        end
    end
end

assign m_axis_tdata = busy_reg ? beat_data : {DATA_WIDTH{1'b0}};
assign m_axis_tkeep = busy_reg ? keep_rows[{class_reg, beat_reg}] : {KEEP_WIDTH{1'b0}};
assign m_axis_tvalid = busy_reg;
assign m_axis_tlast = busy_reg && last;
assign m_axis_tuser = dest_reg;
assign stat_event = stat_event_reg;
assign s_msg_ready = !rst && (!busy_reg || (m_axis_tready && last));
// A message taken. The frame buffer, class and masks load on it whether or not the message has a frame:
// they are read only while busy_reg, which an unsupported message leaves low, so whether it is supported
// (the deepest signal of the offered message) stays off their paths.
wire take = s_msg_valid && s_msg_ready;

// The masks of the beat beat_next of a frame of class class_next: the offered frame's first beat when a
// message is taken, else the current frame's beat after this one's advance. Two table reads side by side
// and one select (issue 19: the offered class is the deepest signal here, so it reads a table of its own
// rather than going through class_next and beat_next first).
wire [BEAT_INDEX_WIDTH-1:0] beat_advanced = beat_reg + {{(BEAT_INDEX_WIDTH-1){1'b0}}, busy_reg && m_axis_tready};
always @* begin
    if (take) begin
        data_mask_next = data_mask_rows[{frame_class, {BEAT_INDEX_WIDTH{1'b0}}}];
        crc_mask_next = crc_mask_rows[{frame_class, {BEAT_INDEX_WIDTH{1'b0}}}];
    end else begin
        data_mask_next = data_mask_rows[{class_reg, beat_advanced}];
        crc_mask_next = crc_mask_rows[{class_reg, beat_advanced}];
    end
end

always @* begin
    frame_next = frame_reg;
    class_next = class_reg;
    beat_next = beat_reg;
    busy_next = busy_reg;
    dest_next = dest_reg;
    crc_next = crc_reg;
    seq_next = seq_reg;
    stat_event_next = 2'd0;

    if (busy_reg && m_axis_tready) begin
        beat_next = beat_reg + 1'b1;
        frame_next = frame_reg >> DATA_WIDTH;
        crc_next = beat_crc;
        if (last) begin
            busy_next = 1'b0;
        end
    end
    if (take) begin
        frame_next = build_padded;
        class_next = frame_class;
        beat_next = {BEAT_INDEX_WIDTH{1'b0}};
        if (supported) begin
            busy_next = 1'b1;
            dest_next = s_msg_dst[15:0];
            if (!s_msg_family) begin
                seq_next = seq_reg + 1'b1;
            end
            stat_event_next[EV_BUILT] = 1'b1;
        end else begin
            stat_event_next[EV_DROPPED] = 1'b1;
        end
    end
end

always @(posedge clk) begin
    frame_reg <= frame_next;
    class_reg <= class_next;
    beat_reg <= beat_next;
    busy_reg <= busy_next;
    dest_reg <= dest_next;
    crc_reg <= crc_next;
    seq_reg <= seq_next;
    stat_event_reg <= stat_event_next;
    data_mask_reg <= data_mask_next;
    crc_mask_reg <= crc_mask_next;

    if (rst) begin
        frame_reg <= {8*BUFFER_BYTES{1'b0}};
        class_reg <= FC_SHORT;
        beat_reg <= {BEAT_INDEX_WIDTH{1'b0}};
        busy_reg <= 1'b0;
        dest_reg <= 16'd0;
        crc_reg <= 32'd0;
        seq_reg <= 12'd0;
        stat_event_reg <= 2'd0;
        data_mask_reg <= {KEEP_WIDTH{1'b0}};
        crc_mask_reg <= {CRC_BYTES*KEEP_WIDTH{1'b0}};
    end
end

endmodule

`resetall
