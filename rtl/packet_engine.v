// Packet engine top for one port (docs/blocks/packet_engine.md): interposer -> input checker ->
// {register space, CPU}; CPU -> frame builder -> output queue -> interposer injection; register
// responses and the checker's Unsupported Requests -> completion builder -> output queue. Wiring plus
// the frame arbiter in front of the output queue (frame builder / completion builder, round robin per
// frame) and the output-queue egress demultiplexer (tdest == this port: injection; else m_axis_egress).
// The register space configures the CPU (cpu_cfg_wr of the register space; the top port cpu_cfg_wr_* is
// a lower-priority back door).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module packet_engine #
(
    // Width of the frame data bus in bits
    parameter DATA_WIDTH = 256,
    // Width of tkeep: one bit per data byte
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // CPU static context-table entries
    parameter STATIC_ENTRIES = 16,
    // CPU descriptors
    parameter DESCRIPTORS = 8,
    // CPU clock cycles per timer tick
    parameter TICK_CYCLES = 1024,
    // Output-queue beat FIFO depth
    parameter FIFO_DEPTH = 32,
    // VL-queue beat slots reserved for injection
    parameter INJ_CREDITS = 8
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
     * Register-access responses: a status tap (valid for one cycle when the completion builder takes the
     * response; m_reg_rsp_ready is ignored, kept for compatibility)
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
    input  wire [7:0]             cfg_port,
    input  wire [15:0]            cfg_engine_id,
    input  wire [47:0]            cfg_src_mac,
    input  wire [47:0]            cfg_dst_mac,

    /*
     * CPU configuration back door (docs/cpu.md section 5): the register space's CPU window writes the
     * CPU; a write here is taken in cycles the register space does not write (else it is lost)
     */
    input  wire                   cpu_cfg_wr_en,
    input  wire [11:0]            cpu_cfg_wr_addr,
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
    output wire [31:0]            stat_event
);

// interposer -> checker
wire [DATA_WIDTH-1:0] ext_tdata;
wire [KEEP_WIDTH-1:0] ext_tkeep;
wire ext_tvalid, ext_tready, ext_tlast;
wire [8:0] ext_tuser;

// output queue -> demux -> interposer
wire [DATA_WIDTH-1:0] oq_tdata;
wire [KEEP_WIDTH-1:0] oq_tkeep;
wire oq_tvalid, oq_tready, oq_tlast;
wire [3:0] oq_tdest;
wire inj_tready;
wire oq_local = oq_tdest == cfg_port[3:0];

// checker -> register space
wire reg_valid, reg_ready, reg_write;
wire [15:0] reg_addr, reg_src;
wire [3:0] reg_be;
wire [31:0] reg_wdata;
wire [9:0] reg_tag;

// register-space configuration
/* verilator lint_off UNUSEDSIGNAL */
wire cfg_lock, cfg_red_mode;
wire [15:0] cfg_master_id, cfg_mcast_wr_ports;
wire [7:0] cfg_error_reporting;
wire [23:0] cfg_sub_timeout, cfg_master_timeout, cfg_red_timeout0, cfg_red_timeout1, cfg_red_timeout2, cfg_red_timeout3;
wire [19:0] cfg_red_threshold0, cfg_red_threshold1, cfg_red_threshold2;
// Register-space -> CPU configuration bridge and completion fields (not wired yet: issue 6 points 3-4).
wire rs_cpu_cfg_wr_en;
wire [11:0] rs_cpu_cfg_wr_addr;
wire [31:0] rs_cpu_cfg_wr_data;
// The tap does not backpressure.
wire unused_rsp_ready = m_reg_rsp_ready;
/* verilator lint_on UNUSEDSIGNAL */
// register space -> completion builder
wire rs_rsp_valid, rs_rsp_ready;
wire [15:0] rs_rsp_addr;
wire [3:0] rs_rsp_be;
// checker -> completion builder (Unsupported Requests)
wire ck_ur_valid, ck_ur_ready, ck_ur_mem_read, ck_ur_locked;
wire [15:0] ck_ur_src;
wire [9:0] ck_ur_tag, ck_ur_length;
wire [2:0] ck_ur_tc, ck_ur_attr;
wire [3:0] ck_ur_first_be, ck_ur_last_be;
wire [6:0] ck_ur_addr;
wire [15:0] cfg_ethertype, cfg_vendor_id;
wire [3:0] cfg_validation, cfg_vni_valid;
wire [63:0] cfg_vni;
wire route_wr_en, route_wr_valid;
wire [3:0] route_wr_index, route_wr_port;
wire [15:0] route_wr_dest_id, route_wr_dest_mask;
wire mcast_wr_en, mcast_wr_valid;
wire [3:0] mcast_wr_index;
wire [12:0] mcast_wr_tree;
wire [19:0] mcast_wr_wait_count;

// checker -> CPU and CPU -> builder messages
wire c_valid, c_ready, b_valid, b_ready;
wire [3:0] c_kind, b_kind, c_code, b_code, c_rc, b_rc;
wire c_family, b_family, c_posted, b_posted, c_error, b_error, c_retry, b_retry;
wire [7:0] c_port, b_port, c_repsum_m, b_repsum_m;
wire [15:0] c_ctx, b_ctx, c_pid, b_pid, c_dmu_id, b_dmu_id, c_vni, b_vni;
wire [31:0] c_src, b_src, c_dst, b_dst, c_cookie, b_cookie;
wire [19:0] c_count, b_count;
wire [1:0] c_tid, b_tid, c_repsum_oflow_id, b_repsum_oflow_id;
wire [9:0] c_seqno, b_seqno, c_resno, b_resno;
wire [5:0] c_op, b_op;
wire [255:0] c_data, b_data;
wire [127:0] c_pbv, b_pbv;

// builder -> output queue
wire [DATA_WIDTH-1:0] fb_tdata;
wire [KEEP_WIDTH-1:0] fb_tkeep;
wire fb_tvalid, fb_tready, fb_tlast;
wire [15:0] fb_tuser;

wire [20:0] chk_event;
wire [2:0] ip_event;
wire [1:0] fb_event;
wire oq_miss;

// completion builder -> arbiter
wire [DATA_WIDTH-1:0] cb_tdata;
wire [KEEP_WIDTH-1:0] cb_tkeep;
wire cb_tvalid, cb_tready, cb_tlast;
wire [15:0] cb_tuser;
wire [3:0] cb_event;

// counters 2 + k of the register space: docs/registers.md, docs/blocks/packet_engine.md
assign stat_event = {cb_event, cpu_stat_valid, fb_event, oq_miss, ip_event, chk_event};

// Register-response tap: one cycle per response, when the completion builder takes it.
assign m_reg_rsp_valid = rs_rsp_valid && rs_rsp_ready;

// CPU configuration: the register space's bridge, else the back door.
wire cpu_wr_en = rs_cpu_cfg_wr_en || cpu_cfg_wr_en;
wire [11:0] cpu_wr_addr = rs_cpu_cfg_wr_en ? rs_cpu_cfg_wr_addr : cpu_cfg_wr_addr;
wire [31:0] cpu_wr_data = rs_cpu_cfg_wr_en ? rs_cpu_cfg_wr_data : cpu_cfg_wr_data;

/*
 * Frame arbiter: frame builder and completion builder into the output queue, one whole frame at a
 * time; when both offer a frame, the one not granted last (round robin per frame).
 */
reg arb_busy_reg, arb_busy_next;
reg arb_sel_reg, arb_sel_next;
reg arb_last_reg, arb_last_next;

// Selected input: 1 = completion builder.
wire arb_sel = arb_busy_reg ? arb_sel_reg : (fb_tvalid && cb_tvalid) ? !arb_last_reg : cb_tvalid;
wire [DATA_WIDTH-1:0] q_tdata = arb_sel ? cb_tdata : fb_tdata;
wire [KEEP_WIDTH-1:0] q_tkeep = arb_sel ? cb_tkeep : fb_tkeep;
wire q_tvalid = arb_sel ? cb_tvalid : fb_tvalid;
wire q_tlast = arb_sel ? cb_tlast : fb_tlast;
wire [15:0] q_tuser = arb_sel ? cb_tuser : fb_tuser;
wire q_tready;
assign fb_tready = !arb_sel && q_tready;
assign cb_tready = arb_sel && q_tready;

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

completion_builder #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
completion_builder_inst (
    .clk(clk),
    .rst(rst),
    .s_rsp_valid(rs_rsp_valid),
    .s_rsp_ready(rs_rsp_ready),
    .s_rsp_write(m_reg_rsp_write),
    .s_rsp_status(m_reg_rsp_status),
    .s_rsp_rdata(m_reg_rsp_rdata),
    .s_rsp_src(m_reg_rsp_src),
    .s_rsp_tag(m_reg_rsp_tag),
    .s_rsp_addr(rs_rsp_addr),
    .s_rsp_be(rs_rsp_be),
    .s_ur_valid(ck_ur_valid),
    .s_ur_ready(ck_ur_ready),
    .s_ur_src(ck_ur_src),
    .s_ur_tag(ck_ur_tag),
    .s_ur_tc(ck_ur_tc),
    .s_ur_attr(ck_ur_attr),
    .s_ur_mem_read(ck_ur_mem_read),
    .s_ur_locked(ck_ur_locked),
    .s_ur_length(ck_ur_length),
    .s_ur_first_be(ck_ur_first_be),
    .s_ur_last_be(ck_ur_last_be),
    .s_ur_addr(ck_ur_addr),
    .m_axis_tdata(cb_tdata),
    .m_axis_tkeep(cb_tkeep),
    .m_axis_tvalid(cb_tvalid),
    .m_axis_tready(cb_tready),
    .m_axis_tlast(cb_tlast),
    .m_axis_tuser(cb_tuser),
    .cfg_engine_id(cfg_engine_id),
    .stat_event(cb_event)
);

assign m_axis_egress_tdata = oq_tdata;
assign m_axis_egress_tkeep = oq_tkeep;
assign m_axis_egress_tvalid = oq_tvalid && !oq_local;
assign m_axis_egress_tlast = oq_tlast;
assign m_axis_egress_tdest = oq_tdest;
assign oq_tready = oq_local ? inj_tready : m_axis_egress_tready;

interposer #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
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
    .s_axis_inj_tdata(oq_tdata),
    .s_axis_inj_tkeep(oq_tkeep),
    .s_axis_inj_tvalid(oq_tvalid && oq_local),
    .s_axis_inj_tready(inj_tready),
    .s_axis_inj_tlast(oq_tlast),
    .vl_credit_return(vl_credit_return),
    .link_credit_return(link_credit_return),
    .stat_inj_credits(stat_inj_credits),
    .cfg_family(cfg_family),
    .cfg_port(cfg_port),
    .cfg_engine_id(cfg_engine_id),
    .cfg_ethertype(cfg_ethertype),
    .cfg_mcast_wr_en(mcast_wr_en),
    .cfg_mcast_wr_index(mcast_wr_index),
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
    .s_axis_tdata(ext_tdata),
    .s_axis_tkeep(ext_tkeep),
    .s_axis_tvalid(ext_tvalid),
    .s_axis_tready(ext_tready),
    .s_axis_tlast(ext_tlast),
    .s_axis_tuser(ext_tuser),
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
    .m_msg_valid(c_valid),
    .m_msg_ready(c_ready),
    .m_msg_kind(c_kind),
    .m_msg_family(c_family),
    .m_msg_port(c_port),
    .m_msg_ctx(c_ctx),
    .m_msg_src(c_src),
    .m_msg_dst(c_dst),
    .m_msg_pid(c_pid),
    .m_msg_dmu_id(c_dmu_id),
    .m_msg_count(c_count),
    .m_msg_code(c_code),
    .m_msg_posted(c_posted),
    .m_msg_error(c_error),
    .m_msg_tid(c_tid),
    .m_msg_vni(c_vni),
    .m_msg_cookie(c_cookie),
    .m_msg_seqno(c_seqno),
    .m_msg_resno(c_resno),
    .m_msg_retry(c_retry),
    .m_msg_op(c_op),
    .m_msg_rc(c_rc),
    .m_msg_repsum_m(c_repsum_m),
    .m_msg_repsum_oflow_id(c_repsum_oflow_id),
    .m_msg_data(c_data),
    .m_msg_pbv(c_pbv),
    .cfg_engine_id(cfg_engine_id),
    .cfg_ethertype(cfg_ethertype),
    .cfg_vendor_id(cfg_vendor_id),
    .cfg_validation(cfg_validation),
    .cfg_vni_valid(cfg_vni_valid),
    .cfg_vni(cfg_vni),
    .stat_event(chk_event)
);

register_space #(
    .CPU_STATIC_ENTRIES(STATIC_ENTRIES)
)
register_space_inst (
    .clk(clk),
    .rst(rst),
    .s_reg_valid(reg_valid),
    .s_reg_ready(reg_ready),
    .s_reg_write(reg_write),
    .s_reg_addr(reg_addr),
    .s_reg_be(reg_be),
    .s_reg_wdata(reg_wdata),
    .s_reg_src(reg_src),
    .s_reg_tag(reg_tag),
    .cfg_engine_id(cfg_engine_id),
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
    .cfg_mcast_wr_index(mcast_wr_index),
    .cfg_mcast_wr_valid(mcast_wr_valid),
    .cfg_mcast_wr_tree(mcast_wr_tree),
    .cfg_mcast_wr_wait_count(mcast_wr_wait_count),
    .cfg_mcast_wr_ports(cfg_mcast_wr_ports),
    .pbv_rd_index(pbv_rd_index),
    .pbv_rd_dev_id(pbv_rd_dev_id),
    .cpu_cfg_wr_en(rs_cpu_cfg_wr_en),
    .cpu_cfg_wr_addr(rs_cpu_cfg_wr_addr),
    .cpu_cfg_wr_data(rs_cpu_cfg_wr_data),
    .stat_event(stat_event)
);

cpu #(
    .STATIC_ENTRIES(STATIC_ENTRIES),
    .DESCRIPTORS(DESCRIPTORS),
    .TICK_CYCLES(TICK_CYCLES)
)
cpu_inst (
    .clk(clk),
    .rst(rst),
    .s_msg_valid(c_valid),
    .s_msg_ready(c_ready),
    .s_msg_kind(c_kind),
    .s_msg_family(c_family),
    .s_msg_port(c_port),
    .s_msg_ctx(c_ctx),
    .s_msg_src(c_src),
    .s_msg_dst(c_dst),
    .s_msg_pid(c_pid),
    .s_msg_dmu_id(c_dmu_id),
    .s_msg_count(c_count),
    .s_msg_code(c_code),
    .s_msg_posted(c_posted),
    .s_msg_error(c_error),
    .s_msg_tid(c_tid),
    .s_msg_vni(c_vni),
    .s_msg_cookie(c_cookie),
    .s_msg_seqno(c_seqno),
    .s_msg_resno(c_resno),
    .s_msg_retry(c_retry),
    .s_msg_op(c_op),
    .s_msg_rc(c_rc),
    .s_msg_repsum_m(c_repsum_m),
    .s_msg_repsum_oflow_id(c_repsum_oflow_id),
    .s_msg_data(c_data),
    .s_msg_pbv(c_pbv),
    .m_msg_valid(b_valid),
    .m_msg_ready(b_ready),
    .m_msg_kind(b_kind),
    .m_msg_family(b_family),
    .m_msg_port(b_port),
    .m_msg_ctx(b_ctx),
    .m_msg_src(b_src),
    .m_msg_dst(b_dst),
    .m_msg_pid(b_pid),
    .m_msg_dmu_id(b_dmu_id),
    .m_msg_count(b_count),
    .m_msg_code(b_code),
    .m_msg_posted(b_posted),
    .m_msg_error(b_error),
    .m_msg_tid(b_tid),
    .m_msg_vni(b_vni),
    .m_msg_cookie(b_cookie),
    .m_msg_seqno(b_seqno),
    .m_msg_resno(b_resno),
    .m_msg_retry(b_retry),
    .m_msg_op(b_op),
    .m_msg_rc(b_rc),
    .m_msg_repsum_m(b_repsum_m),
    .m_msg_repsum_oflow_id(b_repsum_oflow_id),
    .m_msg_data(b_data),
    .m_msg_pbv(b_pbv),
    .cfg_wr_en(cpu_wr_en),
    .cfg_wr_addr(cpu_wr_addr),
    .cfg_wr_data(cpu_wr_data),
    .stat_valid(cpu_stat_valid),
    .stat_event(cpu_stat_event),
    .stat_family(cpu_stat_family),
    .stat_ctx(cpu_stat_ctx)
);

frame_builder #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
frame_builder_inst (
    .clk(clk),
    .rst(rst),
    .s_msg_valid(b_valid),
    .s_msg_ready(b_ready),
    .s_msg_kind(b_kind),
    .s_msg_family(b_family),
    .s_msg_port(b_port),
    .s_msg_ctx(b_ctx),
    .s_msg_src(b_src),
    .s_msg_dst(b_dst),
    .s_msg_pid(b_pid),
    .s_msg_dmu_id(b_dmu_id),
    .s_msg_count(b_count),
    .s_msg_code(b_code),
    .s_msg_posted(b_posted),
    .s_msg_error(b_error),
    .s_msg_tid(b_tid),
    .s_msg_vni(b_vni),
    .s_msg_cookie(b_cookie),
    .s_msg_seqno(b_seqno),
    .s_msg_resno(b_resno),
    .s_msg_retry(b_retry),
    .s_msg_op(b_op),
    .s_msg_rc(b_rc),
    .s_msg_repsum_m(b_repsum_m),
    .s_msg_repsum_oflow_id(b_repsum_oflow_id),
    .s_msg_data(b_data),
    .s_msg_pbv(b_pbv),
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
