// inswitch packet engine: data-path interposer (seed 000 [0092]; 002 (39)).
//
// Sits between a port's receive path and its virtual-link (VL) queue. Receive frames addressed to the
// engine are extracted to the input checker; all others pass to the VL queue untouched and in order;
// frames from the output queue are injected between receive frames. Flow control in VL-queue beat slots:
// extracted beats' credits go straight back to the link partner, the VL queue's returns refill the
// injection reserve (INJ_CREDITS) first. Interface, decision bytes, credits and timing:
// docs/blocks/interposer.md. Rust model: crates/model/src/interposer.rs.
//
//  s_axis_rx --+-- first beat: addressed to the engine? (fixed header bytes, multicast table) --+
//              |                                                                                |
//              +--> [ ext output register ] --> m_axis_ext (tuser = {family, port})             |
//              +--> [ VL output register ]  --> m_axis_vl  <-- s_axis_inj (between rx frames,  |
//                                                              one credit per beat)             |
//  vl_credit_return --> refill injection credits first --> link_credit_return (+1 per extracted beat)
//
// Latency: one cycle on every path (a beat taken at edge k is offered from cycle k+1); credits returned
// for a beat or a VL return at edge k show on link_credit_return in cycle k+1. Throughput: one beat per
// cycle on each output.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module interposer #
(
    // Width of the frame data bus in bits (the decision needs bytes 0-25 in the first beat)
    parameter DATA_WIDTH = 256,
    // Width of tkeep: one bit per data byte
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // Multicast-table entries (a copy of the register space's table)
    parameter MCAST_ENTRIES = 16,
    // Width of a multicast-table index
    parameter MCAST_INDEX_WIDTH = 4,
    // Width of a credit count
    parameter CREDIT_WIDTH = 8,
    // VL-queue beat slots reserved for injection (the link partner is advertised the rest)
    parameter INJ_CREDITS = 8
)
(
    input  wire                         clk,
    input  wire                         rst,

    /*
     * Receive path from the port
     */
    input  wire [DATA_WIDTH-1:0]        s_axis_rx_tdata,
    input  wire [KEEP_WIDTH-1:0]        s_axis_rx_tkeep,
    input  wire                         s_axis_rx_tvalid,
    output wire                         s_axis_rx_tready,
    input  wire                         s_axis_rx_tlast,

    /*
     * To the VL queue
     */
    output wire [DATA_WIDTH-1:0]        m_axis_vl_tdata,
    output wire [KEEP_WIDTH-1:0]        m_axis_vl_tkeep,
    output wire                         m_axis_vl_tvalid,
    input  wire                         m_axis_vl_tready,
    output wire                         m_axis_vl_tlast,

    /*
     * Extracted frames to the input checker; tuser = {family, port}
     */
    output wire [DATA_WIDTH-1:0]        m_axis_ext_tdata,
    output wire [KEEP_WIDTH-1:0]        m_axis_ext_tkeep,
    output wire                         m_axis_ext_tvalid,
    input  wire                         m_axis_ext_tready,
    output wire                         m_axis_ext_tlast,
    output wire [8:0]                   m_axis_ext_tuser,

    /*
     * Frames to inject (from the output queue, already routed to this port)
     */
    input  wire [DATA_WIDTH-1:0]        s_axis_inj_tdata,
    input  wire [KEEP_WIDTH-1:0]        s_axis_inj_tkeep,
    input  wire                         s_axis_inj_tvalid,
    output wire                         s_axis_inj_tready,
    input  wire                         s_axis_inj_tlast,

    /*
     * Credits (one = one VL-queue beat slot)
     */
    input  wire [CREDIT_WIDTH-1:0]      vl_credit_return,
    output wire [CREDIT_WIDTH-1:0]      link_credit_return,
    output wire [CREDIT_WIDTH-1:0]      stat_inj_credits,

    /*
     * Configuration
     */
    input  wire                         cfg_family,
    input  wire [7:0]                   cfg_port,
    input  wire [15:0]                  cfg_engine_id,
    input  wire [15:0]                  cfg_ethertype,
    input  wire                         cfg_mcast_wr_en,
    input  wire [MCAST_INDEX_WIDTH-1:0] cfg_mcast_wr_index,
    input  wire                         cfg_mcast_wr_valid,
    input  wire [12:0]                  cfg_mcast_wr_tree,
    input  wire [19:0]                  cfg_mcast_wr_wait_count,

    /*
     * Events: bit 0 frame extracted, 1 frame passed, 2 frame injected
     */
    output wire [2:0]                   stat_event
);

// Event bits EV_* (EV_COUNT), generated from crates/model/src/interposer.rs
`include "interposer_codes.vh"

// Local: who holds the egress stream (the model's private Owner; a state encoding, shared with nothing).
localparam [1:0] OWNER_NONE = 2'd0;
localparam [1:0] OWNER_RX = 2'd1;
localparam [1:0] OWNER_INJ = 2'd2;
localparam [CREDIT_WIDTH-1:0] INJ_RESERVE = INJ_CREDITS[CREDIT_WIDTH-1:0];

generate
    // The port's width is written out (the port list precedes the include); it must be the generated count.
    if (EV_COUNT != 3) begin : g_bad_events
        interposer_stat_event_width_must_be_EV_COUNT u_err();
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH || DATA_WIDTH < 208) begin : g_bad_width
        interposer_bad_parameter_DATA_WIDTH_must_hold_26_bytes u_err();
    end
    if (MCAST_ENTRIES < 1 || MCAST_ENTRIES > (1 << MCAST_INDEX_WIDTH)) begin : g_bad_mcast
        interposer_bad_parameter_MCAST_ENTRIES u_err();
    end
    if (INJ_CREDITS < 1 || INJ_CREDITS >= (1 << CREDIT_WIDTH)) begin : g_bad_credits
        interposer_bad_parameter_INJ_CREDITS u_err();
    end
endgenerate

/*
 * Multicast table: {valid, tree, wait count != 0}
 */
reg        mcast_valid_reg [0:MCAST_ENTRIES-1];
reg [12:0] mcast_tree_reg [0:MCAST_ENTRIES-1];
reg        mcast_armed_reg [0:MCAST_ENTRIES-1];

/*
 * Decision on a first receive beat (docs/blocks/interposer.md §Decision)
 */
`define RB(i) s_axis_rx_tdata[8*(i) +: 8]
// Whole header fields are declared; the decision uses only some of their bits.
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]  t0 = `RB(2);
wire [2:0]  fmt = t0[7:5];
wire [4:0]  typ = t0[4:0];
wire [31:0] addr_hi = fmt[0] ? {`RB(10), `RB(11), `RB(12), `RB(13)} : 32'd0;
wire [31:0] addr_lo = fmt[0] ? {`RB(14), `RB(15), `RB(16), `RB(17)} : {`RB(10), `RB(11), `RB(12), `RB(13)};
wire [15:0] dfa_low = {`RB(16), `RB(17)};
/* verilator lint_on UNUSEDSIGNAL */
wire tlp_mem_hit = typ == 5'd0 && !fmt[2] && addr_hi == 32'd0 && addr_lo[31:16] == cfg_engine_id && addr_lo[15:12] == 4'hC;
wire tlp_msg_hit = typ == 5'b10010 && fmt[0] && {`RB(10), `RB(11)} == cfg_engine_id;
wire [12:0] dfa_tree = dfa_low[15:3];
reg tree_armed;
integer i;
always @* begin
    tree_armed = 1'b0;
    for (i = 0; i < MCAST_ENTRIES; i = i + 1) begin
        if (mcast_valid_reg[i] && mcast_armed_reg[i] && mcast_tree_reg[i] == dfa_tree) begin
            tree_armed = 1'b1;
        end
    end
end
wire portals_mcast = s_axis_rx_tdata[8*25];
wire portals_hit = {`RB(12), `RB(13)} == cfg_ethertype && portals_mcast && tree_armed;
wire for_engine = cfg_family ? portals_hit : (tlp_mem_hit || (typ != 5'd0 && tlp_msg_hit));
`undef RB

/*
 * State
 */
reg                    rx_in_frame_reg, rx_in_frame_next;
reg                    rx_ext_reg, rx_ext_next;
reg                    inj_in_frame_reg, inj_in_frame_next;
reg [1:0]              owner_reg, owner_next;
reg                    last_inj_reg, last_inj_next;
reg [CREDIT_WIDTH-1:0] inj_credits_reg, inj_credits_next;
reg [CREDIT_WIDTH-1:0] link_return_reg, link_return_next;
reg [2:0]              stat_event_reg, stat_event_next;

reg [DATA_WIDTH-1:0] vl_tdata_reg, vl_tdata_next;
reg [KEEP_WIDTH-1:0] vl_tkeep_reg, vl_tkeep_next;
reg                  vl_tvalid_reg, vl_tvalid_next;
reg                  vl_tlast_reg, vl_tlast_next;
reg [DATA_WIDTH-1:0] ext_tdata_reg, ext_tdata_next;
reg [KEEP_WIDTH-1:0] ext_tkeep_reg, ext_tkeep_next;
reg                  ext_tvalid_reg, ext_tvalid_next;
reg                  ext_tlast_reg, ext_tlast_next;
reg [8:0]            ext_tuser_reg, ext_tuser_next;

assign m_axis_vl_tdata = vl_tdata_reg;
assign m_axis_vl_tkeep = vl_tkeep_reg;
assign m_axis_vl_tvalid = vl_tvalid_reg;
assign m_axis_vl_tlast = vl_tlast_reg;
assign m_axis_ext_tdata = ext_tdata_reg;
assign m_axis_ext_tkeep = ext_tkeep_reg;
assign m_axis_ext_tvalid = ext_tvalid_reg;
assign m_axis_ext_tlast = ext_tlast_reg;
assign m_axis_ext_tuser = ext_tuser_reg;
assign link_credit_return = link_return_reg;
assign stat_inj_credits = inj_credits_reg;
assign stat_event = stat_event_reg;

wire vl_free = !vl_tvalid_reg || m_axis_vl_tready;
wire ext_free = !ext_tvalid_reg || m_axis_ext_tready;
wire rx_first = !rx_in_frame_reg;
wire inj_first = !inj_in_frame_reg;
wire credit = inj_credits_reg != {CREDIT_WIDTH{1'b0}};
// A receive frame start competes only when it can be taken (both of its possible outputs free: it is
// classified on this beat). Otherwise a receive start blocked by a full extraction path would keep the
// turn from the injection path, and the engine's own output, which drains that extraction path, would
// never be injected: a deadlock through the CPU (found by the fabric simulator).
wire rx_req = s_axis_rx_tvalid && rx_first && owner_reg == OWNER_NONE && vl_free && ext_free;
wire inj_req = s_axis_inj_tvalid && inj_first && owner_reg == OWNER_NONE && credit;
// Round robin between frame starts on the VL path.
wire inj_wins = inj_req && (!rx_req || !last_inj_reg);

assign s_axis_rx_tready = !rst && (rx_first ? (owner_reg == OWNER_NONE && !inj_wins && vl_free && ext_free) :
                                   rx_ext_reg ? ext_free : vl_free);
assign s_axis_inj_tready = !rst && vl_free && credit && (owner_reg == OWNER_INJ || (inj_first && inj_wins));

wire rx_beat = s_axis_rx_tvalid && s_axis_rx_tready;
wire inj_beat = s_axis_inj_tvalid && s_axis_inj_tready;
wire rx_to_ext = rx_first ? for_engine : rx_ext_reg;

// Credits: the VL queue's returns refill the injection reserve first, the rest go to the partner.
wire [CREDIT_WIDTH-1:0] avail = inj_credits_reg - {{(CREDIT_WIDTH-1){1'b0}}, inj_beat};
wire [CREDIT_WIDTH-1:0] room = INJ_RESERVE - avail;
wire [CREDIT_WIDTH-1:0] take = vl_credit_return < room ? vl_credit_return : room;

always @* begin
    rx_in_frame_next = rx_in_frame_reg;
    rx_ext_next = rx_ext_reg;
    inj_in_frame_next = inj_in_frame_reg;
    owner_next = owner_reg;
    last_inj_next = last_inj_reg;
    stat_event_next = 3'd0;

    vl_tdata_next = vl_tdata_reg;
    vl_tkeep_next = vl_tkeep_reg;
    vl_tvalid_next = vl_tvalid_reg && !m_axis_vl_tready;
    vl_tlast_next = vl_tlast_reg;
    ext_tdata_next = ext_tdata_reg;
    ext_tkeep_next = ext_tkeep_reg;
    ext_tvalid_next = ext_tvalid_reg && !m_axis_ext_tready;
    ext_tlast_next = ext_tlast_reg;
    ext_tuser_next = ext_tuser_reg;

    if (rx_beat) begin
        if (rx_first) begin
            rx_ext_next = for_engine;
            stat_event_next[for_engine ? EV_EXTRACTED : EV_PASSED] = 1'b1;
            if (!for_engine && !s_axis_rx_tlast) begin
                owner_next = OWNER_RX;
            end
            last_inj_next = 1'b0;
        end
        if (rx_to_ext) begin
            ext_tdata_next = s_axis_rx_tdata;
            ext_tkeep_next = s_axis_rx_tkeep;
            ext_tvalid_next = 1'b1;
            ext_tlast_next = s_axis_rx_tlast;
            ext_tuser_next = {cfg_family, cfg_port};
        end else begin
            vl_tdata_next = s_axis_rx_tdata;
            vl_tkeep_next = s_axis_rx_tkeep;
            vl_tvalid_next = 1'b1;
            vl_tlast_next = s_axis_rx_tlast;
            if (s_axis_rx_tlast && owner_reg == OWNER_RX) begin
                owner_next = OWNER_NONE;
            end
        end
        rx_in_frame_next = !s_axis_rx_tlast;
    end
    if (inj_beat) begin
        if (inj_first) begin
            stat_event_next[EV_INJECTED] = 1'b1;
            last_inj_next = 1'b1;
            owner_next = OWNER_INJ;
        end
        vl_tdata_next = s_axis_inj_tdata;
        vl_tkeep_next = s_axis_inj_tkeep;
        vl_tvalid_next = 1'b1;
        vl_tlast_next = s_axis_inj_tlast;
        if (s_axis_inj_tlast) begin
            owner_next = OWNER_NONE;
        end
        inj_in_frame_next = !s_axis_inj_tlast;
    end

    inj_credits_next = avail + take;
    link_return_next = vl_credit_return - take + {{(CREDIT_WIDTH-1){1'b0}}, rx_beat && rx_to_ext};
end

always @(posedge clk) begin
    rx_in_frame_reg <= rx_in_frame_next;
    rx_ext_reg <= rx_ext_next;
    inj_in_frame_reg <= inj_in_frame_next;
    owner_reg <= owner_next;
    last_inj_reg <= last_inj_next;
    inj_credits_reg <= inj_credits_next;
    link_return_reg <= link_return_next;
    stat_event_reg <= stat_event_next;
    vl_tdata_reg <= vl_tdata_next;
    vl_tkeep_reg <= vl_tkeep_next;
    vl_tvalid_reg <= vl_tvalid_next;
    vl_tlast_reg <= vl_tlast_next;
    ext_tdata_reg <= ext_tdata_next;
    ext_tkeep_reg <= ext_tkeep_next;
    ext_tvalid_reg <= ext_tvalid_next;
    ext_tlast_reg <= ext_tlast_next;
    ext_tuser_reg <= ext_tuser_next;

    if (cfg_mcast_wr_en && {{(32-MCAST_INDEX_WIDTH){1'b0}}, cfg_mcast_wr_index} < MCAST_ENTRIES) begin
        mcast_valid_reg[cfg_mcast_wr_index] <= cfg_mcast_wr_valid;
        mcast_tree_reg[cfg_mcast_wr_index] <= cfg_mcast_wr_tree;
        mcast_armed_reg[cfg_mcast_wr_index] <= cfg_mcast_wr_wait_count != 20'd0;
    end

    if (rst) begin
        rx_in_frame_reg <= 1'b0;
        rx_ext_reg <= 1'b0;
        inj_in_frame_reg <= 1'b0;
        owner_reg <= OWNER_NONE;
        last_inj_reg <= 1'b0;
        inj_credits_reg <= INJ_RESERVE;
        link_return_reg <= {CREDIT_WIDTH{1'b0}};
        stat_event_reg <= 3'd0;
        vl_tdata_reg <= {DATA_WIDTH{1'b0}};
        vl_tkeep_reg <= {KEEP_WIDTH{1'b0}};
        vl_tvalid_reg <= 1'b0;
        vl_tlast_reg <= 1'b0;
        ext_tdata_reg <= {DATA_WIDTH{1'b0}};
        ext_tkeep_reg <= {KEEP_WIDTH{1'b0}};
        ext_tvalid_reg <= 1'b0;
        ext_tlast_reg <= 1'b0;
        ext_tuser_reg <= 9'd0;
        for (i = 0; i < MCAST_ENTRIES; i = i + 1) begin
            mcast_valid_reg[i] <= 1'b0;
            mcast_tree_reg[i] <= 13'd0;
            mcast_armed_reg[i] <= 1'b0;
        end
    end
end

endmodule

`resetall
