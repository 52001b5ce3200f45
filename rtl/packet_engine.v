// Packet engine top for one port (docs/blocks/packet_engine.md): interposer -> input checker ->
// {register space, CPU}; CPU -> frame builder -> output queue -> interposer injection; register
// responses and the checker's Unsupported Requests -> completion builder -> output queue. Wiring, the
// frame arbiter in front of the output queue (frame builder / completion builder, one whole frame at a
// time, round robin per frame), the output-queue egress demultiplexer (tdest == this port: injection; any
// other tdest: m_axis_egress), and a register slice (axis_register) on every stream between two blocks, so that no valid/data or ready
// path runs combinationally from one block into another (issue 6: the top's longest path stays that of
// its worst block, and the model evaluates each block once per cycle). The event vector counted by the
// register space is registered for the same reason. The register space configures the CPU (its
// cpu_cfg_wr_*; the top port cpu_cfg_wr_* is a lower-priority back door).

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "collective_msg.vh"

module packet_engine #
(
    // Width of the frame data bus in bits
    parameter DATA_WIDTH = 256,
    // Width of tkeep: one bit per data byte
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // CPU static context-table entries (direct-mapped by the context key; 4096 = one per 12-bit CC_ID,
    // 000 [0169]), also the register space's CPU window (STATIC_INDEX reaches each)
    parameter STATIC_ENTRIES = 4096,
    // CPU descriptors
    parameter DESCRIPTORS = 8,
    // CPU clock cycles per timer tick
    parameter TICK_CYCLES = 1024,
    // Output-queue beat FIFO depth
    parameter FIFO_DEPTH = 32,
    // VL-queue beat slots reserved for injection
    parameter INJ_CREDITS = 8,
    // Entries of the interposer's multicast table (a RAM indexed by the tree; 8192 = one per tree,
    // 002 (61))
    parameter MCAST_ENTRIES = 8192
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Receive path from the port
     */
    input  wire [DATA_WIDTH-1:0]  s_axis_rx_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_rx_tkeep,
    input  wire                   s_axis_rx_tvalid,
    output wire                   s_axis_rx_tready,
    input  wire                   s_axis_rx_tlast,

    /*
     * To the VL queue (passed-through and injected frames)
     */
    output wire [DATA_WIDTH-1:0]  m_axis_vl_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_vl_tkeep,
    output wire                   m_axis_vl_tvalid,
    input  wire                   m_axis_vl_tready,
    output wire                   m_axis_vl_tlast,

    /*
     * Engine frames routed to another port (tdest != cfg_port)
     */
    output wire [DATA_WIDTH-1:0]  m_axis_egress_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_egress_tkeep,
    output wire                   m_axis_egress_tvalid,
    input  wire                   m_axis_egress_tready,
    output wire                   m_axis_egress_tlast,
    output wire [3:0]             m_axis_egress_tdest,

    /*
     * Register-access responses: a status tap (valid for one cycle when the response slice in front of the
     * completion builder takes the response; m_reg_rsp_ready is ignored, kept for compatibility)
     */
    output wire                   m_reg_rsp_valid,
    input  wire                   m_reg_rsp_ready,
    output wire                   m_reg_rsp_write,
    output wire [1:0]             m_reg_rsp_status,
    output wire [31:0]            m_reg_rsp_rdata,
    output wire [15:0]            m_reg_rsp_src,
    output wire [9:0]             m_reg_rsp_tag,

    /*
     * Credits (one = one VL-queue beat slot)
     */
    input  wire [7:0]             vl_credit_return,
    output wire [7:0]             link_credit_return,
    output wire [7:0]             stat_inj_credits,

    /*
     * Straps
     */
    input  wire                   cfg_family,
    // The port's link runs in PCIe 6 flit mode (negotiated per link at training): its TLPs come without
    // sequence number or LCRC; the interposer decides them at byte 0 and marks them for the checker
    // (tuser[9], docs/blocks/interposer.md §Flit-mode links). Ignored on a Soft Portals port.
    input  wire                   cfg_flit,
    input  wire [7:0]             cfg_port,
    input  wire [15:0]            cfg_engine_id,
    input  wire [47:0]            cfg_src_mac,
    input  wire [47:0]            cfg_dst_mac,

    /*
     * CPU configuration back door (docs/blocks/cpu.md section 5): the register space's CPU window writes the
     * CPU; a write here is taken in cycles the register space does not write (else it is lost)
     */
    input  wire                   cpu_cfg_wr_en,
    input  wire [13:0]            cpu_cfg_wr_addr,
    input  wire [31:0]            cpu_cfg_wr_data,

    /*
     * PBV table read port of the register space
     */
    input  wire [6:0]             pbv_rd_index,
    output wire [15:0]            pbv_rd_dev_id,

    /*
     * Status
     */
    output wire                   cpu_stat_valid,
    output wire [5:0]             cpu_stat_event,
    output wire                   cpu_stat_family,
    output wire [15:0]            cpu_stat_ctx,
    // CPU FAILURE status register (docs/blocks/cpu.md §Ports): the 001 Failure flag made visible
    output wire                   cpu_fail_valid,
    output wire                   cpu_fail_family,
    output wire [15:0]            cpu_fail_ctx,
    output wire [7:0]             cpu_fail_count,
    output wire [31:0]            stat_event
);

// Payload widths of the slices: the sum of the fields each stream carries.
// interposer m_axis_ext_tuser = {flit, family, port} (docs/blocks/interposer.md), the checker's s_axis_tuser
localparam EXT_TUSER_WIDTH = 10;
// output_queue m_axis_tdest (its PORT_WIDTH default) and frame_builder m_axis_tuser (destination ID)
localparam OQ_TDEST_WIDTH = 4;
localparam FB_TUSER_WIDTH = 16;
localparam EXT_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1 + EXT_TUSER_WIDTH;
localparam FB_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1 + FB_TUSER_WIDTH;
localparam OQ_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1 + OQ_TDEST_WIDTH;
// register request {write, addr[16], be[4], wdata[32], src[16], tag[10]} (docs/blocks/register_space.md)
localparam REG_WIDTH = 1 + 16 + 4 + 32 + 16 + 10;
// register response {write, status[2], rdata[32], src[16], tag[10], addr[16], be[4]}
// (docs/blocks/register_space.md, docs/blocks/completion_builder.md)
localparam RSP_WIDTH = 1 + 2 + 32 + 16 + 10 + 16 + 4;
// Unsupported Request {src[16], tag[10], tc[3], attr[3], mem_read, locked, length[10], first_be[4],
// last_be[4], addr[7]} (docs/blocks/input_checker.md)
localparam UR_WIDTH = 16 + 10 + 3 + 3 + 1 + 1 + 10 + 4 + 4 + 7;
// completion builder m_axis_tuser (destination ID, as the frame builder's)
localparam CB_TUSER_WIDTH = FB_TUSER_WIDTH;
localparam CB_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1 + CB_TUSER_WIDTH;
// collective message (docs/blocks/collective_message.md, rtl/collective_msg.vh)
localparam MSG_WIDTH = `COLLECTIVE_MSG_WIDTH;
// stat_event: each block's event bits <BLOCK>_EVENTS and EVENT_WIDTH in all, generated from the blocks'
// event tables (crates/model/src/packet_engine.rs STAT_EVENT_FIELDS)
`include "packet_engine_codes.vh"

generate
    // The stat_event port and the register space's STAT_EVENTS are written out as 32 (the port list precedes
    // the include): the generated width must be that.
    if (EVENT_WIDTH != 32) begin : g_bad_events
        packet_engine_stat_event_width_must_be_EVENT_WIDTH u_err();
    end
endgenerate

// interposer -> slice -> checker
wire [DATA_WIDTH-1:0] ext_tdata, ext_s_tdata;
wire [KEEP_WIDTH-1:0] ext_tkeep, ext_s_tkeep;
wire ext_tvalid, ext_tready, ext_tlast, ext_s_tvalid, ext_s_tready, ext_s_tlast;
wire [EXT_TUSER_WIDTH-1:0] ext_tuser, ext_s_tuser;

// output queue -> slice -> demux -> interposer
wire [DATA_WIDTH-1:0] oq_tdata, oq_s_tdata;
wire [KEEP_WIDTH-1:0] oq_tkeep, oq_s_tkeep;
wire oq_tvalid, oq_tready, oq_tlast, oq_s_tvalid, oq_s_tready, oq_s_tlast;
wire [OQ_TDEST_WIDTH-1:0] oq_tdest, oq_s_tdest;
wire inj_tready;
wire oq_local = oq_s_tdest == cfg_port[OQ_TDEST_WIDTH-1:0];

// checker -> slice -> register space (reg_*: checker side, rq_*: register-space side)
wire reg_valid, reg_ready, reg_write, rq_valid, rq_ready, rq_write;
wire [15:0] reg_addr, reg_src, rq_addr, rq_src;
wire [3:0] reg_be, rq_be;
wire [31:0] reg_wdata, rq_wdata;
wire [9:0] reg_tag, rq_tag;

// register-space configuration
/* verilator lint_off UNUSEDSIGNAL */
wire cfg_lock, cfg_red_mode;
wire [15:0] cfg_master_id, cfg_mcast_wr_ports;
wire [7:0] cfg_error_reporting;
wire [23:0] cfg_sub_timeout, cfg_master_timeout, cfg_red_timeout0, cfg_red_timeout1, cfg_red_timeout2, cfg_red_timeout3;
wire [19:0] cfg_red_threshold0, cfg_red_threshold1, cfg_red_threshold2;
// The tap does not backpressure.
wire unused_rsp_ready = m_reg_rsp_ready;
/* verilator lint_on UNUSEDSIGNAL */
// register space -> CPU configuration bridge, muxed with the back door
wire rs_cpu_cfg_wr_en;
wire [13:0] rs_cpu_cfg_wr_addr;
wire [31:0] rs_cpu_cfg_wr_data;
wire cpu_wr_en = rs_cpu_cfg_wr_en || cpu_cfg_wr_en;
wire [13:0] cpu_wr_addr = rs_cpu_cfg_wr_en ? rs_cpu_cfg_wr_addr : cpu_cfg_wr_addr;
wire [31:0] cpu_wr_data = rs_cpu_cfg_wr_en ? rs_cpu_cfg_wr_data : cpu_cfg_wr_data;
// register space -> slice -> completion builder (rs_rsp_*: register-space side, rsp_s_*: builder side)
wire rs_rsp_valid, rs_rsp_ready, rsp_s_valid, rsp_s_ready, rsp_s_write;
wire [1:0] rsp_s_status;
wire [31:0] rsp_s_rdata;
wire [15:0] rs_rsp_addr, rsp_s_src, rsp_s_addr;
wire [9:0] rsp_s_tag;
wire [3:0] rs_rsp_be, rsp_s_be;
// checker -> slice -> completion builder (ck_ur_*: checker side, ur_s_*: builder side)
wire ck_ur_valid, ck_ur_ready, ck_ur_mem_read, ck_ur_locked;
wire ur_s_valid, ur_s_ready, ur_s_mem_read, ur_s_locked;
wire [15:0] ck_ur_src, ur_s_src;
wire [9:0] ck_ur_tag, ck_ur_length, ur_s_tag, ur_s_length;
wire [2:0] ck_ur_tc, ck_ur_attr, ur_s_tc, ur_s_attr;
wire [3:0] ck_ur_first_be, ck_ur_last_be, ur_s_first_be, ur_s_last_be;
wire [6:0] ck_ur_addr, ur_s_addr;
wire [15:0] cfg_ethertype, cfg_vendor_id;
wire [3:0] cfg_validation, cfg_vni_valid;
wire [63:0] cfg_vni;
wire route_wr_en, route_wr_valid;
wire [3:0] route_wr_index, route_wr_port;
wire [15:0] route_wr_dest_id, route_wr_dest_mask;
wire mcast_wr_en, mcast_wr_valid;
wire [12:0] mcast_wr_tree;
wire [19:0] mcast_wr_wait_count;

// checker -> slice -> CPU (c_msg_*: checker side, cs_msg_*: CPU side) and CPU -> slice -> builder
// (b_msg_*: CPU side, bs_msg_*: builder side) messages
`COLLECTIVE_MSG_WIRES(c_msg)
`COLLECTIVE_MSG_WIRES(cs_msg)
`COLLECTIVE_MSG_WIRES(b_msg)
`COLLECTIVE_MSG_WIRES(bs_msg)

// builder -> slice -> output queue
wire [DATA_WIDTH-1:0] fb_tdata, fb_s_tdata;
wire [KEEP_WIDTH-1:0] fb_tkeep, fb_s_tkeep;
wire fb_tvalid, fb_tready, fb_tlast, fb_s_tvalid, fb_s_tready, fb_s_tlast;
wire [FB_TUSER_WIDTH-1:0] fb_tuser, fb_s_tuser;

// completion builder -> slice -> arbiter
wire [DATA_WIDTH-1:0] cb_tdata, cb_s_tdata;
wire [KEEP_WIDTH-1:0] cb_tkeep, cb_s_tkeep;
wire cb_tvalid, cb_tready, cb_tlast, cb_s_tvalid, cb_s_tready, cb_s_tlast;
wire [CB_TUSER_WIDTH-1:0] cb_tuser, cb_s_tuser;
wire [CB_EVENTS-1:0] cb_event;

wire [CHK_EVENTS-1:0] chk_event;
wire [IP_EVENTS-1:0] ip_event;
wire [FB_EVENTS-1:0] fb_event;
wire oq_miss;

// counters 2 + k of the register space: docs/blocks/register_space.md, docs/blocks/packet_engine.md
assign stat_event = {cb_event, cpu_stat_valid, fb_event, oq_miss, ip_event, chk_event};

// The register space counts the events one cycle late, so that none of its inputs comes combinationally
// from another block: its cfg_* outputs feed four blocks, and with every input registered the top has no
// path from a block through the register space into another (the model evaluates it first, once).
reg [EVENT_WIDTH-1:0] stat_event_reg;

always @(posedge clk) begin
    stat_event_reg <= rst ? {EVENT_WIDTH{1'b0}} : stat_event[EVENT_WIDTH-1:0];
end

wire [31:0] rs_stat_event = stat_event_reg;

// Register-response tap: one cycle per response, when the response slice takes it.
assign m_reg_rsp_valid = rs_rsp_valid && rs_rsp_ready;

/*
 * Frame arbiter between the builder slices and the output queue: frame builder and completion builder,
 * one whole frame at a time; when both offer a frame, the one not granted last (round robin per frame).
 * Its select is a function of registers only (the two slices' valids and its own state), so the output
 * queue's inputs stay functions of registers; the queue's ready reaches only the slices' ready inputs.
 */
reg arb_busy_reg, arb_busy_next;
reg arb_sel_reg, arb_sel_next;
reg arb_last_reg, arb_last_next;

// Selected input: 1 = completion builder.
wire arb_sel = arb_busy_reg ? arb_sel_reg : (fb_s_tvalid && cb_s_tvalid) ? !arb_last_reg : cb_s_tvalid;
wire [DATA_WIDTH-1:0] q_tdata = arb_sel ? cb_s_tdata : fb_s_tdata;
wire [KEEP_WIDTH-1:0] q_tkeep = arb_sel ? cb_s_tkeep : fb_s_tkeep;
wire q_tvalid = arb_sel ? cb_s_tvalid : fb_s_tvalid;
wire q_tlast = arb_sel ? cb_s_tlast : fb_s_tlast;
wire [FB_TUSER_WIDTH-1:0] q_tuser = arb_sel ? cb_s_tuser : fb_s_tuser;
wire q_tready;
assign fb_s_tready = !arb_sel && q_tready;
assign cb_s_tready = arb_sel && q_tready;

always @* begin
    arb_busy_next = arb_busy_reg;
    arb_sel_next = arb_sel_reg;
    arb_last_next = arb_last_reg;
    if (q_tvalid && q_tready) begin
        arb_busy_next = !q_tlast;
        arb_sel_next = arb_sel;
        if (q_tlast) begin
            arb_last_next = arb_sel;
        end
    end
end

always @(posedge clk) begin
    arb_busy_reg <= arb_busy_next;
    arb_sel_reg <= arb_sel_next;
    arb_last_reg <= arb_last_next;
    if (rst) begin
        arb_busy_reg <= 1'b0;
        arb_sel_reg <= 1'b0;
        arb_last_reg <= 1'b0;
    end
end

// Egress demultiplexer after the output-queue slice: its registered tdest picks the consumer, so a frame
// never splits (the slice passes a frame's beats in order with the tdest the queue held for the frame).
assign m_axis_egress_tdata = oq_s_tdata;
assign m_axis_egress_tkeep = oq_s_tkeep;
assign m_axis_egress_tvalid = oq_s_tvalid && !oq_local;
assign m_axis_egress_tlast = oq_s_tlast;
assign m_axis_egress_tdest = oq_s_tdest;
assign oq_s_tready = oq_local ? inj_tready : m_axis_egress_tready;

axis_register #(.WIDTH(EXT_WIDTH))
ext_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({ext_tdata, ext_tkeep, ext_tlast, ext_tuser}),
    .s_axis_tvalid(ext_tvalid),
    .s_axis_tready(ext_tready),
    .m_axis_tdata({ext_s_tdata, ext_s_tkeep, ext_s_tlast, ext_s_tuser}),
    .m_axis_tvalid(ext_s_tvalid),
    .m_axis_tready(ext_s_tready)
);

axis_register #(.WIDTH(REG_WIDTH))
reg_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({reg_write, reg_addr, reg_be, reg_wdata, reg_src, reg_tag}),
    .s_axis_tvalid(reg_valid),
    .s_axis_tready(reg_ready),
    .m_axis_tdata({rq_write, rq_addr, rq_be, rq_wdata, rq_src, rq_tag}),
    .m_axis_tvalid(rq_valid),
    .m_axis_tready(rq_ready)
);

axis_register #(.WIDTH(MSG_WIDTH))
cpu_msg_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(`COLLECTIVE_MSG_BUS(c_msg)),
    .s_axis_tvalid(c_msg_valid),
    .s_axis_tready(c_msg_ready),
    .m_axis_tdata(`COLLECTIVE_MSG_BUS(cs_msg)),
    .m_axis_tvalid(cs_msg_valid),
    .m_axis_tready(cs_msg_ready)
);

axis_register #(.WIDTH(MSG_WIDTH))
builder_msg_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(`COLLECTIVE_MSG_BUS(b_msg)),
    .s_axis_tvalid(b_msg_valid),
    .s_axis_tready(b_msg_ready),
    .m_axis_tdata(`COLLECTIVE_MSG_BUS(bs_msg)),
    .m_axis_tvalid(bs_msg_valid),
    .m_axis_tready(bs_msg_ready)
);

axis_register #(.WIDTH(FB_WIDTH))
fb_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({fb_tdata, fb_tkeep, fb_tlast, fb_tuser}),
    .s_axis_tvalid(fb_tvalid),
    .s_axis_tready(fb_tready),
    .m_axis_tdata({fb_s_tdata, fb_s_tkeep, fb_s_tlast, fb_s_tuser}),
    .m_axis_tvalid(fb_s_tvalid),
    .m_axis_tready(fb_s_tready)
);

axis_register #(.WIDTH(RSP_WIDTH))
rsp_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({m_reg_rsp_write, m_reg_rsp_status, m_reg_rsp_rdata, m_reg_rsp_src, m_reg_rsp_tag, rs_rsp_addr, rs_rsp_be}),
    .s_axis_tvalid(rs_rsp_valid),
    .s_axis_tready(rs_rsp_ready),
    .m_axis_tdata({rsp_s_write, rsp_s_status, rsp_s_rdata, rsp_s_src, rsp_s_tag, rsp_s_addr, rsp_s_be}),
    .m_axis_tvalid(rsp_s_valid),
    .m_axis_tready(rsp_s_ready)
);

axis_register #(.WIDTH(UR_WIDTH))
ur_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({ck_ur_src, ck_ur_tag, ck_ur_tc, ck_ur_attr, ck_ur_mem_read, ck_ur_locked, ck_ur_length,
                   ck_ur_first_be, ck_ur_last_be, ck_ur_addr}),
    .s_axis_tvalid(ck_ur_valid),
    .s_axis_tready(ck_ur_ready),
    .m_axis_tdata({ur_s_src, ur_s_tag, ur_s_tc, ur_s_attr, ur_s_mem_read, ur_s_locked, ur_s_length,
                   ur_s_first_be, ur_s_last_be, ur_s_addr}),
    .m_axis_tvalid(ur_s_valid),
    .m_axis_tready(ur_s_ready)
);

axis_register #(.WIDTH(CB_WIDTH))
cb_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({cb_tdata, cb_tkeep, cb_tlast, cb_tuser}),
    .s_axis_tvalid(cb_tvalid),
    .s_axis_tready(cb_tready),
    .m_axis_tdata({cb_s_tdata, cb_s_tkeep, cb_s_tlast, cb_s_tuser}),
    .m_axis_tvalid(cb_s_tvalid),
    .m_axis_tready(cb_s_tready)
);

axis_register #(.WIDTH(OQ_WIDTH))
oq_slice_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({oq_tdata, oq_tkeep, oq_tlast, oq_tdest}),
    .s_axis_tvalid(oq_tvalid),
    .s_axis_tready(oq_tready),
    .m_axis_tdata({oq_s_tdata, oq_s_tkeep, oq_s_tlast, oq_s_tdest}),
    .m_axis_tvalid(oq_s_tvalid),
    .m_axis_tready(oq_s_tready)
);

interposer #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .MCAST_ENTRIES(MCAST_ENTRIES),
    .INJ_CREDITS(INJ_CREDITS)
)
interposer_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_rx_tdata(s_axis_rx_tdata),
    .s_axis_rx_tkeep(s_axis_rx_tkeep),
    .s_axis_rx_tvalid(s_axis_rx_tvalid),
    .s_axis_rx_tready(s_axis_rx_tready),
    .s_axis_rx_tlast(s_axis_rx_tlast),
    .m_axis_vl_tdata(m_axis_vl_tdata),
    .m_axis_vl_tkeep(m_axis_vl_tkeep),
    .m_axis_vl_tvalid(m_axis_vl_tvalid),
    .m_axis_vl_tready(m_axis_vl_tready),
    .m_axis_vl_tlast(m_axis_vl_tlast),
    .m_axis_ext_tdata(ext_tdata),
    .m_axis_ext_tkeep(ext_tkeep),
    .m_axis_ext_tvalid(ext_tvalid),
    .m_axis_ext_tready(ext_tready),
    .m_axis_ext_tlast(ext_tlast),
    .m_axis_ext_tuser(ext_tuser),
    .s_axis_inj_tdata(oq_s_tdata),
    .s_axis_inj_tkeep(oq_s_tkeep),
    .s_axis_inj_tvalid(oq_s_tvalid && oq_local),
    .s_axis_inj_tready(inj_tready),
    .s_axis_inj_tlast(oq_s_tlast),
    .vl_credit_return(vl_credit_return),
    .link_credit_return(link_credit_return),
    .stat_inj_credits(stat_inj_credits),
    .cfg_family(cfg_family),
    .cfg_flit(cfg_flit),
    .cfg_port(cfg_port),
    .cfg_engine_id(cfg_engine_id),
    .cfg_ethertype(cfg_ethertype),
    .cfg_mcast_wr_en(mcast_wr_en),
    .cfg_mcast_wr_valid(mcast_wr_valid),
    .cfg_mcast_wr_tree(mcast_wr_tree),
    .cfg_mcast_wr_wait_count(mcast_wr_wait_count),
    .stat_event(ip_event)
);

input_checker #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
input_checker_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(ext_s_tdata),
    .s_axis_tkeep(ext_s_tkeep),
    .s_axis_tvalid(ext_s_tvalid),
    .s_axis_tready(ext_s_tready),
    .s_axis_tlast(ext_s_tlast),
    // {flit, family, port}: tuser[9] marks a flit-mode link's TLP (docs/blocks/input_checker.md §Flit-mode TLPs)
    .s_axis_tuser(ext_s_tuser),
    .m_reg_valid(reg_valid),
    .m_reg_ready(reg_ready),
    .m_reg_write(reg_write),
    .m_reg_addr(reg_addr),
    .m_reg_be(reg_be),
    .m_reg_wdata(reg_wdata),
    .m_reg_src(reg_src),
    .m_reg_tag(reg_tag),
    .m_ur_valid(ck_ur_valid),
    .m_ur_ready(ck_ur_ready),
    .m_ur_src(ck_ur_src),
    .m_ur_tag(ck_ur_tag),
    .m_ur_tc(ck_ur_tc),
    .m_ur_attr(ck_ur_attr),
    .m_ur_mem_read(ck_ur_mem_read),
    .m_ur_locked(ck_ur_locked),
    .m_ur_length(ck_ur_length),
    .m_ur_first_be(ck_ur_first_be),
    .m_ur_last_be(ck_ur_last_be),
    .m_ur_addr(ck_ur_addr),
    `COLLECTIVE_MSG_CONNECT(m_msg, c_msg),
    .cfg_engine_id(cfg_engine_id),
    .cfg_ethertype(cfg_ethertype),
    .cfg_vendor_id(cfg_vendor_id),
    .cfg_validation(cfg_validation),
    .cfg_vni_valid(cfg_vni_valid),
    .cfg_vni(cfg_vni),
    .stat_event(chk_event)
);

// Its multicast entries are the interposer's trees, one per tree (docs/blocks/register_space.md §Multicast entries).
register_space #(
    .MCAST_ENTRIES(MCAST_ENTRIES),
    .CPU_STATIC_ENTRIES(STATIC_ENTRIES)
)
register_space_inst (
    .clk(clk),
    .rst(rst),
    .s_reg_valid(rq_valid),
    .s_reg_ready(rq_ready),
    .s_reg_write(rq_write),
    .s_reg_addr(rq_addr),
    .s_reg_be(rq_be),
    .s_reg_wdata(rq_wdata),
    .s_reg_src(rq_src),
    .s_reg_tag(rq_tag),
    .cfg_engine_id(cfg_engine_id),
    .cpu_fail_valid(cpu_fail_valid),
    .cpu_fail_family(cpu_fail_family),
    .cpu_fail_ctx(cpu_fail_ctx),
    .cpu_fail_count(cpu_fail_count),
    .m_reg_rsp_valid(rs_rsp_valid),
    .m_reg_rsp_ready(rs_rsp_ready),
    .m_reg_rsp_write(m_reg_rsp_write),
    .m_reg_rsp_status(m_reg_rsp_status),
    .m_reg_rsp_rdata(m_reg_rsp_rdata),
    .m_reg_rsp_src(m_reg_rsp_src),
    .m_reg_rsp_tag(m_reg_rsp_tag),
    .m_reg_rsp_addr(rs_rsp_addr),
    .m_reg_rsp_be(rs_rsp_be),
    .cfg_lock(cfg_lock),
    .cfg_master_id(cfg_master_id),
    .cfg_ethertype(cfg_ethertype),
    .cfg_vendor_id(cfg_vendor_id),
    .cfg_validation(cfg_validation),
    .cfg_error_reporting(cfg_error_reporting),
    .cfg_red_mode(cfg_red_mode),
    .cfg_sub_timeout(cfg_sub_timeout),
    .cfg_master_timeout(cfg_master_timeout),
    .cfg_red_timeout0(cfg_red_timeout0),
    .cfg_red_timeout1(cfg_red_timeout1),
    .cfg_red_timeout2(cfg_red_timeout2),
    .cfg_red_timeout3(cfg_red_timeout3),
    .cfg_red_threshold0(cfg_red_threshold0),
    .cfg_red_threshold1(cfg_red_threshold1),
    .cfg_red_threshold2(cfg_red_threshold2),
    .cfg_vni_valid(cfg_vni_valid),
    .cfg_vni(cfg_vni),
    .cfg_route_wr_en(route_wr_en),
    .cfg_route_wr_index(route_wr_index),
    .cfg_route_wr_valid(route_wr_valid),
    .cfg_route_wr_dest_id(route_wr_dest_id),
    .cfg_route_wr_dest_mask(route_wr_dest_mask),
    .cfg_route_wr_port(route_wr_port),
    .cfg_mcast_wr_en(mcast_wr_en),
    .cfg_mcast_wr_valid(mcast_wr_valid),
    .cfg_mcast_wr_tree(mcast_wr_tree),
    .cfg_mcast_wr_wait_count(mcast_wr_wait_count),
    .cfg_mcast_wr_ports(cfg_mcast_wr_ports),
    .pbv_rd_index(pbv_rd_index),
    .pbv_rd_dev_id(pbv_rd_dev_id),
    .cpu_cfg_wr_en(rs_cpu_cfg_wr_en),
    .cpu_cfg_wr_addr(rs_cpu_cfg_wr_addr),
    .cpu_cfg_wr_data(rs_cpu_cfg_wr_data),
    .stat_event(rs_stat_event)
);

cpu #(
    .STATIC_ENTRIES(STATIC_ENTRIES),
    .DESCRIPTORS(DESCRIPTORS),
    .TICK_CYCLES(TICK_CYCLES)
)
cpu_inst (
    .clk(clk),
    .rst(rst),
    `COLLECTIVE_MSG_CONNECT(s_msg, cs_msg),
    `COLLECTIVE_MSG_CONNECT(m_msg, b_msg),
    .cfg_wr_en(cpu_wr_en),
    .cfg_wr_addr(cpu_wr_addr),
    .cfg_wr_data(cpu_wr_data),
    .stat_valid(cpu_stat_valid),
    .stat_event(cpu_stat_event),
    .stat_family(cpu_stat_family),
    .stat_ctx(cpu_stat_ctx),
    .fail_valid(cpu_fail_valid),
    .fail_family(cpu_fail_family),
    .fail_ctx(cpu_fail_ctx),
    .fail_count(cpu_fail_count)
);

frame_builder #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
frame_builder_inst (
    .clk(clk),
    .rst(rst),
    `COLLECTIVE_MSG_CONNECT(s_msg, bs_msg),
    .m_axis_tdata(fb_tdata),
    .m_axis_tkeep(fb_tkeep),
    .m_axis_tvalid(fb_tvalid),
    .m_axis_tready(fb_tready),
    .m_axis_tlast(fb_tlast),
    .m_axis_tuser(fb_tuser),
    .cfg_engine_id(cfg_engine_id),
    .cfg_vendor_id(cfg_vendor_id),
    .cfg_ethertype(cfg_ethertype),
    .cfg_src_mac(cfg_src_mac),
    .cfg_dst_mac(cfg_dst_mac),
    .stat_event(fb_event)
);

completion_builder #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
completion_builder_inst (
    .clk(clk),
    .rst(rst),
    .s_rsp_valid(rsp_s_valid),
    .s_rsp_ready(rsp_s_ready),
    .s_rsp_write(rsp_s_write),
    .s_rsp_status(rsp_s_status),
    .s_rsp_rdata(rsp_s_rdata),
    .s_rsp_src(rsp_s_src),
    .s_rsp_tag(rsp_s_tag),
    .s_rsp_addr(rsp_s_addr),
    .s_rsp_be(rsp_s_be),
    .s_ur_valid(ur_s_valid),
    .s_ur_ready(ur_s_ready),
    .s_ur_src(ur_s_src),
    .s_ur_tag(ur_s_tag),
    .s_ur_tc(ur_s_tc),
    .s_ur_attr(ur_s_attr),
    .s_ur_mem_read(ur_s_mem_read),
    .s_ur_locked(ur_s_locked),
    .s_ur_length(ur_s_length),
    .s_ur_first_be(ur_s_first_be),
    .s_ur_last_be(ur_s_last_be),
    .s_ur_addr(ur_s_addr),
    .m_axis_tdata(cb_tdata),
    .m_axis_tkeep(cb_tkeep),
    .m_axis_tvalid(cb_tvalid),
    .m_axis_tready(cb_tready),
    .m_axis_tlast(cb_tlast),
    .m_axis_tuser(cb_tuser),
    .cfg_engine_id(cfg_engine_id),
    .stat_event(cb_event)
);

output_queue #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .FIFO_DEPTH(FIFO_DEPTH)
)
output_queue_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(q_tdata),
    .s_axis_tkeep(q_tkeep),
    .s_axis_tvalid(q_tvalid),
    .s_axis_tready(q_tready),
    .s_axis_tlast(q_tlast),
    .s_axis_tuser(q_tuser),
    .m_axis_tdata(oq_tdata),
    .m_axis_tkeep(oq_tkeep),
    .m_axis_tvalid(oq_tvalid),
    .m_axis_tready(oq_tready),
    .m_axis_tlast(oq_tlast),
    .m_axis_tdest(oq_tdest),
    .cfg_route_wr_en(route_wr_en),
    .cfg_route_wr_index(route_wr_index),
    .cfg_route_wr_valid(route_wr_valid),
    .cfg_route_wr_dest_id(route_wr_dest_id),
    .cfg_route_wr_dest_mask(route_wr_dest_mask),
    .cfg_route_wr_port(route_wr_port),
    .stat_route_miss(oq_miss)
);

endmodule

`resetall
