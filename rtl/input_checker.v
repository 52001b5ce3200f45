// inswitch packet engine: input checker and steering (seed 000 [0092], [0140]; 002 (94)-(99)).
//
// Validates the frames the interposer extracted and steers each to exactly one place: a register access
// (m_reg, to the register space), a normalized collective message (m_msg, to the CPU), or a drop with
// one reason pulse on stat_event. Checks, priority and field mapping: docs/blocks/input_checker.md.
// Rust model: crates/model/src/input_checker.rs.
//
//  s_axis (tuser = {family, port} on the first beat)
//     |  running CRC-32 over the frame (LCRC / FCS residue), ECRC over the TLP's header..digest,
//     |  tkeep rules, byte count, first CAPTURE_BYTES bytes captured
//  [ on the last beat: classify the capture (combinational) ]
//     |                     |                       |
//  m_reg (1-DW MRd/MWr   m_msg (collective        stat_event (one pulse per frame:
//  below 0x800)          message, both families)  accept_reg / accept_msg / drop reason)
//
// TLP frame:      | rsvd(4) seq(12) | TLP header (3/4 DW) | payload | ECRC (if TD) | LCRC (LE) |
// Soft Portals:   | dst MAC | src MAC | EtherType | Portals reduction frame (84) | FCS (LE) |
//
// Latency: the verdict of a frame whose last beat is taken at edge k is on m_reg / m_msg / stat_event
// from cycle k+1. Throughput: one beat per cycle while m_reg and m_msg are free (s_axis_tready =
// both output registers free, independent of the data).

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "collective_msg.vh"

module input_checker #
(
    // Width of the frame data bus in bits (64, 128, 256, 512 or 1024: a divisor of the capture)
    parameter DATA_WIDTH = 256,
    // Width of tkeep: one bit per data byte
    parameter KEEP_WIDTH = DATA_WIDTH / 8
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Extracted frames (from the interposer); tuser = {family (1 Portals), port[7:0]}
     */
    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire [8:0]             s_axis_tuser,

    /*
     * Register accesses (to the register space)
     */
    output wire                   m_reg_valid,
    input  wire                   m_reg_ready,
    output wire                   m_reg_write,
    output wire [15:0]            m_reg_addr,
    output wire [3:0]             m_reg_be,
    output wire [31:0]            m_reg_wdata,
    output wire [15:0]            m_reg_src,
    output wire [9:0]             m_reg_tag,

    /*
     * Dropped non-posted requests needing an Unsupported Request completion (to the completion builder)
     */
    output wire                   m_ur_valid,
    input  wire                   m_ur_ready,
    output wire [15:0]            m_ur_src,
    output wire [9:0]             m_ur_tag,
    output wire [2:0]             m_ur_tc,
    output wire [2:0]             m_ur_attr,
    output wire                   m_ur_mem_read,
    output wire                   m_ur_locked,
    output wire [9:0]             m_ur_length,
    output wire [3:0]             m_ur_first_be,
    output wire [3:0]             m_ur_last_be,
    output wire [6:0]             m_ur_addr,

    /*
     * Normalized collective messages (to the CPU; docs/blocks/collective_message.md)
     */
    `COLLECTIVE_MSG_SOURCE_PORTS(m_msg),

    /*
     * Configuration (engine device ID strap; the rest from the register space)
     */
    input  wire [15:0]            cfg_engine_id,
    input  wire [15:0]            cfg_ethertype,
    input  wire [15:0]            cfg_vendor_id,
    input  wire [3:0]             cfg_validation,
    input  wire [3:0]             cfg_vni_valid,
    input  wire [63:0]            cfg_vni,

    /*
     * Outcome pulses, one per frame (bit numbers: docs/blocks/input_checker.md)
     */
    output wire [20:0]            stat_event
);

localparam CAPTURE_BEATS = CAPTURE_BYTES / KEEP_WIDTH;
localparam BEAT_SHIFT = $clog2(KEEP_WIDTH);
localparam [15:0] POS_MAX = 16'hFFFF;
localparam [31:0] CRC32_POLY = 32'hEDB8_8320;
// Message kinds K_* (docs/blocks/collective_message.md), generated from crates/model/src/message.rs
`COLLECTIVE_MSG_KINDS

// Event bits EV_*, validation bits VALIDATION_*, sizes and protocol constants, generated from
// crates/model/src/input_checker/codes.rs
`include "input_checker_codes.vh"

generate
    if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 8 || KEEP_WIDTH > CAPTURE_BYTES ||
            (1 << BEAT_SHIFT) != KEEP_WIDTH) begin : g_bad_width
        input_checker_bad_parameter_DATA_WIDTH_must_be_64_to_1024_and_a_power_of_two u_err();
    end
    // The port's width is written out (the port list precedes the include); it must be the generated count.
    if (EV_COUNT != 21) begin : g_bad_events
        input_checker_stat_event_width_must_be_EV_COUNT u_err();
    end
endgenerate

function [31:0] crc32_byte;
    input [31:0] crc;
    input [7:0] data;
    integer b;
    begin
        crc32_byte = crc ^ {24'd0, data};
        for (b = 0; b < 8; b = b + 1) begin
            crc32_byte = (crc32_byte >> 1) ^ (CRC32_POLY & {32{crc32_byte[0]}});
        end
    end
endfunction

/*
 * Stream side: capture, CRCs, tkeep rules, byte count
 */
reg [8*CAPTURE_BYTES-1:0] cap_reg, cap_next;
reg        in_frame_reg, in_frame_next;
reg [15:0] pos_reg, pos_next;
reg [31:0] crc_reg, crc_next;
reg [31:0] ecrc_reg, ecrc_next;
reg [15:0] ecrc_end_reg, ecrc_end_next;
reg        tkeep_bad_reg, tkeep_bad_next;
reg        portals_reg, portals_next;
reg [7:0]  port_reg, port_next;

wire reg_free = !m_reg_valid || m_reg_ready;
wire msg_free = !m_msg_valid || m_msg_ready;
wire ur_free = !m_ur_valid || m_ur_ready;
assign s_axis_tready = !rst && reg_free && msg_free && ur_free;
wire beat = s_axis_tvalid && s_axis_tready;
wire first = !in_frame_reg;
wire [15:0] pos = first ? 16'd0 : pos_reg;

// ECRC range of a frame, from its first beat: TLP bytes 0..header+payload+digest (docs §Frames).
// Header bytes are declared whole; not every bit of them is a field used here.
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0] fb0 = s_axis_tdata[8*2 +: 8];
wire [7:0] fb2 = s_axis_tdata[8*4 +: 8];
wire [7:0] fb3 = s_axis_tdata[8*5 +: 8];
/* verilator lint_on UNUSEDSIGNAL */
wire [9:0] first_length = {fb2[1:0], fb3};
wire [12:0] first_len_dw = first_length == 10'd0 ? 13'd1024 : {3'd0, first_length};
wire [15:0] first_ecrc_end = 16'd2 + (fb0[5] ? 16'd16 : 16'd12) + (fb0[6] ? {1'b0, first_len_dw, 2'b00} : 16'd0) + 16'd4;
wire [15:0] ecrc_end = first ? first_ecrc_end : ecrc_end_reg;

wire [KEEP_WIDTH-1:0] keep_all = {KEEP_WIDTH{1'b1}};
wire keep_bad_beat = s_axis_tlast ? (s_axis_tkeep == {KEEP_WIDTH{1'b0}} ||
                                     (s_axis_tkeep & (s_axis_tkeep + 1'b1)) != {KEEP_WIDTH{1'b0}})
                                  : s_axis_tkeep != keep_all;

reg [15:0] keep_count;
reg [16:0] at;
reg [7:0]  ebyte;
localparam [16:0] KEEP_BYTES = KEEP_WIDTH[16:0];
wire [16:0] pos_sum = {1'b0, pos} + KEEP_BYTES;

integer k;

always @* begin
    cap_next = cap_reg;
    in_frame_next = in_frame_reg;
    pos_next = pos_reg;
    crc_next = crc_reg;
    ecrc_next = ecrc_reg;
    ecrc_end_next = ecrc_end_reg;
    tkeep_bad_next = tkeep_bad_reg;
    portals_next = portals_reg;
    port_next = port_reg;
    keep_count = 16'd0;
    at = 17'd0;
    ebyte = 8'd0;
    // Assigned on every path so that synthesis infers no latch for the loop variable.
    k = 0;

    if (beat) begin
        if (first) begin
            portals_next = s_axis_tuser[8];
            port_next = s_axis_tuser[7:0];
            ecrc_end_next = first_ecrc_end;
        end
        crc_next = first ? 32'hFFFF_FFFF : crc_reg;
        ecrc_next = first ? 32'hFFFF_FFFF : ecrc_reg;
        for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
            at = {1'b0, pos} + {1'b0, k[15:0]};
            if (s_axis_tkeep[k]) begin
                keep_count = keep_count + 16'd1;
                crc_next = crc32_byte(crc_next, s_axis_tdata[8*k +: 8]);
                if (at >= 17'd2 && at < {1'b0, ecrc_end}) begin
                    ebyte = s_axis_tdata[8*k +: 8];
                    if (at == 17'd2) begin
                        ebyte = ebyte | 8'h01;
                    end
                    if (at == 17'd4) begin
                        ebyte = ebyte | 8'h40;
                    end
                    ecrc_next = crc32_byte(ecrc_next, ebyte);
                end
            end
        end
        for (k = 0; k < CAPTURE_BEATS; k = k + 1) begin
            if ({16'd0, pos} >> BEAT_SHIFT == k) begin
                cap_next[k*DATA_WIDTH +: DATA_WIDTH] = s_axis_tdata;
            end
        end
        tkeep_bad_next = (!first && tkeep_bad_reg) || keep_bad_beat;
        pos_next = pos_sum > {1'b0, POS_MAX} ? POS_MAX : pos_sum[15:0];
        in_frame_next = !s_axis_tlast;
    end
end

wire [16:0] bytes_sum = {1'b0, pos} + {1'b0, keep_count};
wire [15:0] frame_bytes = bytes_sum > {1'b0, POS_MAX} ? POS_MAX : bytes_sum[15:0];
wire frame_end = beat && s_axis_tlast;

/*
 * Classification of the captured frame (checks in priority order, docs/blocks/input_checker.md)
 */
// Byte i of the capture including this beat.
`define CB(i) cap_next[8*(i) +: 8]

// TLP fields.
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0] t0 = `CB(2);
wire [7:0] t1 = `CB(3);
wire [7:0] t2 = `CB(4);
wire [7:0] t3 = `CB(5);
/* verilator lint_on UNUSEDSIGNAL */
wire [2:0] fmt = t0[7:5];
wire [4:0] typ = t0[4:0];
wire four = fmt[0];
wire has_data = fmt[1];
wire is_mem = typ == 5'b00000 && !fmt[2];
wire is_vdm = typ == 5'b10010 && fmt == 3'b011;
wire is_msg_type = typ[4:3] == 2'b10;
wire known_type = typ == 5'h01 || typ == 5'h02 || typ == 5'h04 || typ == 5'h05 ||
                  (typ >= 5'h0A && typ <= 5'h0E) || typ == 5'h1B ||
                  (is_msg_type && four && typ[2:0] < 3'd6);
wire td = t2[7];
wire ep = t2[6];
wire [9:0] length = {t2[1:0], t3};
wire [12:0] len_dw = length == 10'd0 ? 13'd1024 : {3'd0, length};
wire [15:0] plen = has_data ? {1'b0, len_dw, 2'b00} : 16'd0;
wire [15:0] tlp_expected = 16'd2 + (four ? 16'd16 : 16'd12) + plen + (td ? 16'd4 : 16'd0) + 16'd4;
wire [31:0] addr_hi = four ? {`CB(10), `CB(11), `CB(12), `CB(13)} : 32'd0;
wire [31:0] addr_lo_raw = four ? {`CB(14), `CB(15), `CB(16), `CB(17)} : {`CB(10), `CB(11), `CB(12), `CB(13)};
wire [15:0] requester = {`CB(6), `CB(7)};
wire [9:0]  tag = {t1[7], t1[3], `CB(8)};
wire [7:0]  be_byte = `CB(9);
wire [15:0] target_id = {`CB(10), `CB(11)};
wire [15:0] vendor_id = {`CB(12), `CB(13)};
wire [31:0] vdm_dw3 = {`CB(14), `CB(15), `CB(16), `CB(17)};
wire [11:0] win_off = {addr_lo_raw[11:2], 2'b00};
wire in_window = addr_hi == 32'd0 && addr_lo_raw[31:16] == cfg_engine_id && addr_lo_raw[15:12] == 4'hC;
// Non-posted requests (valid Fmt/Type pairs only): MRd, MRdLk; IORd/Wr, CfgRd/Wr 0/1; AtomicOps, DMWr.
wire is_non_posted = ((typ == 5'h00 || typ == 5'h01) && fmt[2:1] == 2'b00) ||
                     ((typ == 5'h02 || typ == 5'h04 || typ == 5'h05) && (fmt == 3'b000 || fmt == 3'b010)) ||
                     (((typ >= 5'h0C && typ <= 5'h0E) || typ == 5'h1B) && fmt[2:1] == 2'b01);

// The payload (collective message or register data) starts after the header: 14 (3 DW) or 18 (4 DW).
wire [7:0] pl [0:39];
genvar g;
generate
    for (g = 0; g < 40; g = g + 1) begin : g_payload
        assign pl[g] = four ? `CB(18 + g) : `CB(14 + g);
    end
endgenerate
wire [31:0] reg_wdata = {pl[3], pl[2], pl[1], pl[0]};
wire [3:0]  coll_version = pl[0][7:4];
wire [3:0]  coll_kind = pl[0][3:0];
// Collective header byte 1 (docs/frames.md §4). RT is not carried (the normalized message's retry is
// Portals'); TID is seed 001's 2-bit transaction ID; a set reserved bit drops the message (RESERVED).
//    7    6    5    4    3    2    1    0
//  +----+----+----+---------+--------------+
//  | NP | EM | RT |TID[1:0] |   reserved   |
//  +----+----+----+---------+--------------+
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]  coll_flags = pl[1];
/* verilator lint_on UNUSEDSIGNAL */
wire [11:0] coll_cc_id = {pl[2][3:0], pl[3]};
wire [15:0] coll_n = {pl[12], pl[13]};
wire coll_data_kind = coll_kind >= K_CONTRIB && coll_kind <= K_COMPLETION;
wire [15:0] coll_expected = coll_kind == K_INIT ? 16'd40 : coll_data_kind ? 16'd16 + {coll_n[12:0], 3'b000} : 16'd16;

// Portals fields (Soft Portals: the reduction frame at byte 14).
wire [31:0] p_dfa = {`CB(14), `CB(15), `CB(16), `CB(17)};
wire [31:0] p_sfa = {`CB(18), `CB(19), `CB(20), `CB(21)};
wire [15:0] p_vni = {`CB(22), `CB(23)};
wire [31:0] p_cookie = {`CB(54), `CB(55), `CB(56), `CB(57)};
wire [63:0] p_w = {`CB(58), `CB(59), `CB(60), `CB(61), `CB(62), `CB(63), `CB(64), `CB(65)};
wire [15:0] p_ethertype = {`CB(12), `CB(13)};
wire [5:0]  p_op = p_w[16:11];
wire [3:0]  p_rc = p_w[50:47];
wire [19:0] p_count = p_w[36:17];
wire p_arm = p_w[10];
wire p_op_defined = p_op <= 6'h03 || (p_op >= 6'h10 && p_op <= 6'h12) || p_op == 6'h14 ||
                    (p_op >= 6'h20 && p_op <= 6'h22) || (p_op >= 6'h24 && p_op <= 6'h26) ||
                    (p_op >= 6'h28 && p_op <= 6'h30);
wire p_rc_defined = p_rc <= 4'd8 && p_rc != 4'd2;
wire p_vni_allowed = (cfg_vni_valid[0] && cfg_vni[15:0] == p_vni) || (cfg_vni_valid[1] && cfg_vni[31:16] == p_vni) ||
                     (cfg_vni_valid[2] && cfg_vni[47:32] == p_vni) || (cfg_vni_valid[3] && cfg_vni[63:48] == p_vni);

function [63:0] be64_at;
    input [8*CAPTURE_BYTES-1:0] cap;
    input integer o;
    integer b;
    begin
        be64_at = 64'd0;
        for (b = 0; b < 8; b = b + 1) begin
            be64_at = {be64_at[55:0], cap[8*(o+b) +: 8]};
        end
    end
endfunction

reg [4:0]  ev;
reg        done;
reg        to_reg;
reg        to_msg;

reg [3:0]   mk;
reg         mfam;
reg [15:0]  mctx;
reg [31:0]  msrc;
reg [31:0]  mdst;
reg [15:0]  mpid;
reg [15:0]  mdmu;
reg [19:0]  mcount;
reg [3:0]   mcode;
reg         mposted;
reg         merror;
reg [1:0]   mtid;
reg [15:0]  mvni;
reg [31:0]  mcookie;
reg [9:0]   mseqno;
reg [9:0]   mresno;
reg         mretry;
reg [5:0]   mop;
reg [3:0]   mrc;
reg [7:0]   mrepsum_m;
reg [1:0]   moflow;
reg [255:0] mdata;
reg [127:0] mpbv;

always @* begin
    ev = EV_TKEEP;
    done = 1'b0;
    to_reg = 1'b0;
    to_msg = 1'b0;
    mk = K_NONE;
    mfam = 1'b0;
    mctx = 16'd0;
    msrc = 32'd0;
    mdst = 32'd0;
    mpid = 16'd0;
    mdmu = 16'd0;
    mcount = 20'd0;
    mcode = 4'd0;
    mposted = 1'b0;
    merror = 1'b0;
    mtid = 2'd0;
    mvni = 16'd0;
    mcookie = 32'd0;
    mseqno = 10'd0;
    mresno = 10'd0;
    mretry = 1'b0;
    mop = 6'd0;
    mrc = 4'd0;
    mrepsum_m = 8'd0;
    moflow = 2'd0;
    mdata = 256'd0;
    mpbv = 128'd0;

    if (tkeep_bad_next) begin
        ev = EV_TKEEP; done = 1'b1;
    end
    if (!done && crc_next != CRC32_RESIDUE && (portals_next ? cfg_validation[VALIDATION_FCS] : cfg_validation[VALIDATION_LCRC])) begin
        ev = portals_next ? EV_FCS : EV_LCRC; done = 1'b1;
    end
    if (!done && frame_bytes > CAPTURE_BYTES) begin
        ev = EV_TOO_LONG; done = 1'b1;
    end
    if (portals_next) begin
        /*
         * Soft Portals
         */
        if (!done && frame_bytes != SOFT_PORTALS_BYTES) begin
            ev = EV_LENGTH; done = 1'b1;
        end
        if (!done && p_ethertype != cfg_ethertype) begin
            ev = EV_ETHERTYPE; done = 1'b1;
        end
        if (!done && p_w[63:62] != 2'd0) begin
            ev = EV_RESERVED; done = 1'b1;
        end
        if (!done && (!p_op_defined || !p_rc_defined || (p_count == 20'd0 && !p_arm))) begin
            ev = EV_PORTALS_HEADER; done = 1'b1;
        end
        if (!done && cfg_validation[VALIDATION_VNI] && !p_vni_allowed) begin
            ev = EV_VNI; done = 1'b1;
        end
        if (!done) begin
            ev = EV_ACCEPT_MSG; done = 1'b1; to_msg = 1'b1;
            mk = p_arm ? K_ARM : K_CONTRIB;
            mfam = 1'b1;
            mctx = {p_dfa[20:18], p_dfa[15:3]};
            msrc = p_sfa;
            mdst = p_dfa;
            mpid = 16'hFFFF;
            mcount = p_count;
            mposted = 1'b1;
            mvni = p_vni;
            mcookie = p_cookie;
            mseqno = p_w[9:0];
            mresno = p_w[46:37];
            mretry = p_w[61];
            mop = p_op;
            mrc = p_rc;
            mrepsum_m = p_w[58:51];
            moflow = p_w[60:59];
            mdata = {be64_at(cap_next, 90), be64_at(cap_next, 82), be64_at(cap_next, 74), be64_at(cap_next, 66)};
        end
    end else begin
        /*
         * TLP
         */
        if (!done && frame_bytes < TLP_MIN_BYTES) begin
            ev = EV_LENGTH; done = 1'b1;
        end
        if (!done && fmt == 3'b100) begin
            ev = EV_TLP_UNSUPPORTED; done = 1'b1;
        end
        if (!done && fmt > 3'b100) begin
            ev = EV_TLP_MALFORMED; done = 1'b1;
        end
        if (!done && !is_mem && !is_vdm) begin
            ev = known_type ? EV_TLP_UNSUPPORTED : EV_TLP_MALFORMED; done = 1'b1;
        end
        if (!done && t1[0]) begin
            ev = EV_TLP_UNSUPPORTED; done = 1'b1;
        end
        if (!done && frame_bytes != tlp_expected) begin
            ev = EV_LENGTH; done = 1'b1;
        end
        if (!done && ep) begin
            ev = EV_POISONED; done = 1'b1;
        end
        if (!done && td && cfg_validation[VALIDATION_ECRC] && ecrc_next != CRC32_RESIDUE) begin
            ev = EV_ECRC; done = 1'b1;
        end
        if (!done && (`CB(0) >> 4 != 8'd0 || (is_mem && addr_lo_raw[1:0] != 2'd0))) begin
            ev = EV_RESERVED; done = 1'b1;
        end
        if (is_mem) begin
            if (!done && !in_window) begin
                ev = EV_NOT_FOR_ENGINE; done = 1'b1;
            end
            if (!done && win_off < MAILBOX_OFFSET) begin
                if (len_dw != 13'd1) begin
                    ev = EV_REG_ACCESS; done = 1'b1;
                end else if (be_byte[7:4] != 4'd0) begin
                    ev = EV_TLP_MALFORMED; done = 1'b1;
                end else begin
                    ev = EV_ACCEPT_REG; done = 1'b1; to_reg = 1'b1;
                end
            end
            if (!done && !has_data) begin
                ev = EV_REG_ACCESS; done = 1'b1;
            end
        end else begin
            if (!done && `CB(9) != VDM_TYPE1_CODE) begin
                ev = EV_TLP_UNSUPPORTED; done = 1'b1;
            end
            if (!done && target_id != cfg_engine_id) begin
                ev = EV_NOT_FOR_ENGINE; done = 1'b1;
            end
            if (!done && vendor_id != cfg_vendor_id) begin
                ev = EV_VENDOR; done = 1'b1;
            end
        end
        // Collective message (mailbox memory write or vendor-defined message).
        if (!done && plen < 16'd8) begin
            ev = EV_COLL_MALFORMED; done = 1'b1;
        end
        if (!done && (coll_version != 4'd1 || coll_kind == K_NONE || coll_kind > K_FAILURE)) begin
            ev = EV_COLL_MALFORMED; done = 1'b1;
        end
        if (!done && (coll_flags[2:0] != 3'd0 || pl[2][7:4] != 4'd0)) begin
            ev = EV_RESERVED; done = 1'b1;
        end
        if (!done && coll_kind == K_CONFIGURATION) begin
            ev = EV_COLL_CONFIG; done = 1'b1;
        end
        if (!done && coll_data_kind && plen < 16'd16) begin
            ev = EV_COLL_MALFORMED; done = 1'b1;
        end
        if (!done && coll_data_kind && coll_n > 16'd4) begin
            ev = EV_COLL_OPERANDS; done = 1'b1;
        end
        if (!done && plen != coll_expected) begin
            ev = EV_COLL_MALFORMED; done = 1'b1;
        end
        if (!done && is_vdm && vdm_dw3 != {VDM_PROTOCOL_ID, 4'd0, coll_kind, 4'd0, coll_cc_id}) begin
            ev = EV_VENDOR; done = 1'b1;
        end
        if (!done) begin
            ev = EV_ACCEPT_MSG; done = 1'b1; to_msg = 1'b1;
            mk = coll_kind;
            mctx = {4'd0, coll_cc_id};
            msrc = {16'd0, requester};
            mdst = {16'd0, cfg_engine_id};
            mpid = {pl[6], pl[7]};
            mdmu = {pl[4], pl[5]};
            mposted = !coll_flags[7];
            merror = coll_flags[6];
            mtid = coll_flags[4:3];
            case (coll_kind)
                K_INIT: begin
                    mcount = {4'd0, pl[8], pl[9]};
                    mop = pl[10][5:0];
                    mdata[63:0] = {pl[16], pl[17], pl[18], pl[19], pl[20], pl[21], pl[22], pl[23]};
                    mpbv = {pl[24], pl[25], pl[26], pl[27], pl[28], pl[29], pl[30], pl[31],
                            pl[32], pl[33], pl[34], pl[35], pl[36], pl[37], pl[38], pl[39]};
                end
                K_CONTROL: begin
                    mcode = pl[8][3:0];
                    mcount = {4'd0, pl[10], pl[11]};
                end
                K_CONTRIB, K_RESPONSE, K_COMPLETION: begin
                    mop = pl[8][5:0];
                    mrc = pl[9][3:0];
                    mcount = {4'd0, pl[10], pl[11]};
                    mcode = pl[14][3:0];
                    if (coll_n > 16'd0) mdata[63:0] = {pl[16], pl[17], pl[18], pl[19], pl[20], pl[21], pl[22], pl[23]};
                    if (coll_n > 16'd1) mdata[127:64] = {pl[24], pl[25], pl[26], pl[27], pl[28], pl[29], pl[30], pl[31]};
                    if (coll_n > 16'd2) mdata[191:128] = {pl[32], pl[33], pl[34], pl[35], pl[36], pl[37], pl[38], pl[39]};
                    if (coll_n > 16'd3) mdata[255:192] = four ? be64_at(cap_next, 18 + 40) : be64_at(cap_next, 14 + 40);
                end
                default: begin
                    mcode = pl[8][3:0];
                    mcount = {12'd0, pl[9]};
                    mdata[31:0] = {pl[12], pl[13], pl[10], pl[11]};
                end
            endcase
        end
    end
end

`undef CB

/*
 * Output registers
 */
reg         reg_valid_reg, reg_valid_next;
reg         reg_write_reg, reg_write_next;
reg [15:0]  reg_addr_reg, reg_addr_next;
reg [3:0]   reg_be_reg, reg_be_next;
reg [31:0]  reg_wdata_reg, reg_wdata_next;
reg [15:0]  reg_src_reg, reg_src_next;
reg [9:0]   reg_tag_reg, reg_tag_next;
reg         ur_valid_reg, ur_valid_next;
reg [15:0]  ur_src_reg, ur_src_next;
reg [9:0]   ur_tag_reg, ur_tag_next;
reg [2:0]   ur_tc_reg, ur_tc_next;
reg [2:0]   ur_attr_reg, ur_attr_next;
reg         ur_mem_read_reg, ur_mem_read_next;
reg         ur_locked_reg, ur_locked_next;
reg [9:0]   ur_length_reg, ur_length_next;
reg [3:0]   ur_first_be_reg, ur_first_be_next;
reg [3:0]   ur_last_be_reg, ur_last_be_next;
reg [6:0]   ur_addr_reg, ur_addr_next;

reg         msg_valid_reg, msg_valid_next;
// The message held for m_msg, packed as `COLLECTIVE_MSG_BUS (rtl/collective_msg.vh).
reg [`COLLECTIVE_MSG_WIDTH-1:0] msg_reg, msg_next;

reg [EV_COUNT-1:0] stat_event_reg, stat_event_next;

assign m_reg_valid = reg_valid_reg;
assign m_reg_write = reg_write_reg;
assign m_reg_addr = reg_addr_reg;
assign m_reg_be = reg_be_reg;
assign m_reg_wdata = reg_wdata_reg;
assign m_reg_src = reg_src_reg;
assign m_reg_tag = reg_tag_reg;
assign m_ur_valid = ur_valid_reg;
assign m_ur_src = ur_src_reg;
assign m_ur_tag = ur_tag_reg;
assign m_ur_tc = ur_tc_reg;
assign m_ur_attr = ur_attr_reg;
assign m_ur_mem_read = ur_mem_read_reg;
assign m_ur_locked = ur_locked_reg;
assign m_ur_length = ur_length_reg;
assign m_ur_first_be = ur_first_be_reg;
assign m_ur_last_be = ur_last_be_reg;
assign m_ur_addr = ur_addr_reg;

// A whole, non-posted TLP request dropped for one of these reasons gets an Unsupported Request
// (docs/blocks/input_checker.md §Unsupported Requests).
wire ur_reason = ev == EV_TLP_UNSUPPORTED || ev == EV_POISONED || ev == EV_RESERVED ||
                 ev == EV_NOT_FOR_ENGINE || ev == EV_REG_ACCESS;
wire needs_ur = !portals_next && ur_reason && is_non_posted && frame_bytes == tlp_expected;

assign m_msg_valid = msg_valid_reg;
assign `COLLECTIVE_MSG_BUS(m_msg) = msg_reg;

assign stat_event = stat_event_reg;

always @* begin
    reg_valid_next = reg_valid_reg && !m_reg_ready;
    reg_write_next = reg_write_reg;
    reg_addr_next = reg_addr_reg;
    reg_be_next = reg_be_reg;
    reg_wdata_next = reg_wdata_reg;
    reg_src_next = reg_src_reg;
    reg_tag_next = reg_tag_reg;

    ur_valid_next = ur_valid_reg && !m_ur_ready;
    ur_src_next = ur_src_reg;
    ur_tag_next = ur_tag_reg;
    ur_tc_next = ur_tc_reg;
    ur_attr_next = ur_attr_reg;
    ur_mem_read_next = ur_mem_read_reg;
    ur_locked_next = ur_locked_reg;
    ur_length_next = ur_length_reg;
    ur_first_be_next = ur_first_be_reg;
    ur_last_be_next = ur_last_be_reg;
    ur_addr_next = ur_addr_reg;

    msg_valid_next = msg_valid_reg && !m_msg_ready;
    msg_next = msg_reg;

    stat_event_next = {EV_COUNT{1'b0}};

    if (frame_end) begin
        stat_event_next[ev] = 1'b1;
        if (to_reg) begin
            reg_valid_next = 1'b1;
            reg_write_next = has_data;
            reg_addr_next = {4'd0, win_off};
            reg_be_next = be_byte[3:0];
            reg_wdata_next = has_data ? reg_wdata : 32'd0;
            reg_src_next = requester;
            reg_tag_next = tag;
        end
        if (needs_ur) begin
            ur_valid_next = 1'b1;
            ur_src_next = requester;
            ur_tag_next = tag;
            ur_tc_next = t1[6:4];
            ur_attr_next = {t1[2], t2[5:4]};
            ur_mem_read_next = typ[4:1] == 4'd0;
            ur_locked_next = typ == 5'h01;
            ur_length_next = length;
            ur_first_be_next = be_byte[3:0];
            ur_last_be_next = be_byte[7:4];
            ur_addr_next = addr_lo_raw[6:0];
        end
        if (to_msg) begin
            msg_valid_next = 1'b1;
            // `COLLECTIVE_MSG_BUS order: the last field (pbv) in the high bits, kind in the low bits
            msg_next = {mpbv, mdata, moflow, mrepsum_m, mrc, mop, mretry, mresno, mseqno, mcookie, mvni, mtid,
                        merror, mposted, mcode, mcount, mdmu, mpid, mdst, msrc, mctx, port_next, mfam, mk};
        end
    end
end

always @(posedge clk) begin
    cap_reg <= cap_next;
    in_frame_reg <= in_frame_next;
    pos_reg <= pos_next;
    crc_reg <= crc_next;
    ecrc_reg <= ecrc_next;
    ecrc_end_reg <= ecrc_end_next;
    tkeep_bad_reg <= tkeep_bad_next;
    portals_reg <= portals_next;
    port_reg <= port_next;

    reg_valid_reg <= reg_valid_next;
    reg_write_reg <= reg_write_next;
    reg_addr_reg <= reg_addr_next;
    reg_be_reg <= reg_be_next;
    reg_wdata_reg <= reg_wdata_next;
    reg_src_reg <= reg_src_next;
    reg_tag_reg <= reg_tag_next;
    ur_valid_reg <= ur_valid_next;
    ur_src_reg <= ur_src_next;
    ur_tag_reg <= ur_tag_next;
    ur_tc_reg <= ur_tc_next;
    ur_attr_reg <= ur_attr_next;
    ur_mem_read_reg <= ur_mem_read_next;
    ur_locked_reg <= ur_locked_next;
    ur_length_reg <= ur_length_next;
    ur_first_be_reg <= ur_first_be_next;
    ur_last_be_reg <= ur_last_be_next;
    ur_addr_reg <= ur_addr_next;

    msg_valid_reg <= msg_valid_next;
    msg_reg <= msg_next;

    stat_event_reg <= stat_event_next;

    if (rst) begin
        in_frame_reg <= 1'b0;
        pos_reg <= 16'd0;
        crc_reg <= 32'd0;
        ecrc_reg <= 32'd0;
        ecrc_end_reg <= 16'd0;
        tkeep_bad_reg <= 1'b0;
        portals_reg <= 1'b0;
        port_reg <= 8'd0;
        reg_valid_reg <= 1'b0;
        reg_write_reg <= 1'b0;
        reg_addr_reg <= 16'd0;
        reg_be_reg <= 4'd0;
        reg_wdata_reg <= 32'd0;
        reg_src_reg <= 16'd0;
        reg_tag_reg <= 10'd0;
        ur_valid_reg <= 1'b0;
        ur_src_reg <= 16'd0;
        ur_tag_reg <= 10'd0;
        ur_tc_reg <= 3'd0;
        ur_attr_reg <= 3'd0;
        ur_mem_read_reg <= 1'b0;
        ur_locked_reg <= 1'b0;
        ur_length_reg <= 10'd0;
        ur_first_be_reg <= 4'd0;
        ur_last_be_reg <= 4'd0;
        ur_addr_reg <= 7'd0;
        msg_valid_reg <= 1'b0;
        msg_reg <= {`COLLECTIVE_MSG_WIDTH{1'b0}};
        stat_event_reg <= {EV_COUNT{1'b0}};
    end
end

endmodule

`resetall
