// inswitch packet engine: output queue (seed 000 [0092], [0144]).
//
// Queues frames from the processing blocks until they are injected into the data path, and looks up
// each frame's egress port in a programmable route table keyed by its destination device ID.
// Interface and timing: docs/blocks/output_queue.md. Rust model: crates/model/src/output_queue.rs.
//
//  s_axis (frames + destination device ID in tuser, sampled on the first beat)
//     |
//  [ beat FIFO, FIFO_DEPTH beats ]          s_axis_tready = !full && !rst
//     |  head beat (asynchronous read)
//  [ route lookup on the first beat of a frame: masked match, lowest index wins ]
//     |  hit: beat goes to the output register    miss: every beat of the frame is popped and dropped,
//     |                                                 stat_route_miss pulses once per frame
//  [ output register ] --> m_axis (frame + egress port in tdest)
//
// Latency: a beat accepted on s_axis at edge k is on m_axis from cycle k+2 (one FIFO stage, one output
// register). Throughput: one beat per cycle, with m_axis_tready high.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module output_queue #
(
    // Width of the frame data bus in bits (a multiple of 8; the Rust model allows up to 512)
    parameter DATA_WIDTH = 256,
    // Width of tkeep: one bit per data byte
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // Width of a destination device ID (PCIe Requester/Completer ID: bus, device, function)
    parameter DEST_ID_WIDTH = 16,
    // Width of an egress port number
    parameter PORT_WIDTH = 4,
    // Depth of the beat FIFO in beats (a power of two, at least 2)
    parameter FIFO_DEPTH = 32,
    // Number of route-table entries
    parameter ROUTE_ENTRIES = 16,
    // Width of a route-table index
    parameter ROUTE_INDEX_WIDTH = ROUTE_ENTRIES > 1 ? $clog2(ROUTE_ENTRIES) : 1
)
(
    input  wire                         clk,
    input  wire                         rst,

    /*
     * Frames from the processing blocks; s_axis_tuser = destination device ID (first beat)
     */
    input  wire [DATA_WIDTH-1:0]        s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]        s_axis_tkeep,
    input  wire                         s_axis_tvalid,
    output wire                         s_axis_tready,
    input  wire                         s_axis_tlast,
    input  wire [DEST_ID_WIDTH-1:0]     s_axis_tuser,

    /*
     * Frames towards the data path; m_axis_tdest = egress port
     */
    output wire [DATA_WIDTH-1:0]        m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]        m_axis_tkeep,
    output wire                         m_axis_tvalid,
    input  wire                         m_axis_tready,
    output wire                         m_axis_tlast,
    output wire [PORT_WIDTH-1:0]        m_axis_tdest,

    /*
     * Route-table programming: entry cfg_route_wr_index := {valid, dest_id, dest_mask, port}
     */
    input  wire                         cfg_route_wr_en,
    input  wire [ROUTE_INDEX_WIDTH-1:0] cfg_route_wr_index,
    input  wire                         cfg_route_wr_valid,
    input  wire [DEST_ID_WIDTH-1:0]     cfg_route_wr_dest_id,
    input  wire [DEST_ID_WIDTH-1:0]     cfg_route_wr_dest_mask,
    input  wire [PORT_WIDTH-1:0]        cfg_route_wr_port,

    /*
     * Status
     */
    output wire                         stat_route_miss
);

localparam FIFO_ADDR_WIDTH = FIFO_DEPTH > 1 ? $clog2(FIFO_DEPTH) : 1;

// Bad parameter sets fail at elaboration.
generate
    if (DATA_WIDTH % 8 != 0 || KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_width
        output_queue_bad_parameter_DATA_WIDTH_must_be_a_multiple_of_8 u_err();
    end
    if (FIFO_DEPTH < 2 || (1 << FIFO_ADDR_WIDTH) != FIFO_DEPTH) begin : g_bad_depth
        output_queue_bad_parameter_FIFO_DEPTH_must_be_a_power_of_two u_err();
    end
    if (ROUTE_ENTRIES < 1 || ROUTE_ENTRIES > (1 << ROUTE_INDEX_WIDTH)) begin : g_bad_routes
        output_queue_bad_parameter_ROUTE_ENTRIES_does_not_fit_ROUTE_INDEX_WIDTH u_err();
    end
endgenerate

/*
 * Beat FIFO. The pointers carry one extra bit so that full and empty differ.
 */
reg [DATA_WIDTH-1:0]    fifo_tdata_mem [0:FIFO_DEPTH-1];
reg [KEEP_WIDTH-1:0]    fifo_tkeep_mem [0:FIFO_DEPTH-1];
reg                     fifo_tlast_mem [0:FIFO_DEPTH-1];
reg [DEST_ID_WIDTH-1:0] fifo_tuser_mem [0:FIFO_DEPTH-1];

reg [FIFO_ADDR_WIDTH:0] wr_ptr_reg, wr_ptr_next;
reg [FIFO_ADDR_WIDTH:0] rd_ptr_reg, rd_ptr_next;

wire fifo_empty = wr_ptr_reg == rd_ptr_reg;
wire fifo_full  = wr_ptr_reg == (rd_ptr_reg ^ {1'b1, {FIFO_ADDR_WIDTH{1'b0}}});

// Nothing is accepted while in reset: the reset would discard it.
assign s_axis_tready = !fifo_full && !rst;
wire fifo_push = s_axis_tvalid && s_axis_tready;

wire [DATA_WIDTH-1:0]    head_tdata = fifo_tdata_mem[rd_ptr_reg[FIFO_ADDR_WIDTH-1:0]];
wire [KEEP_WIDTH-1:0]    head_tkeep = fifo_tkeep_mem[rd_ptr_reg[FIFO_ADDR_WIDTH-1:0]];
wire                     head_tlast = fifo_tlast_mem[rd_ptr_reg[FIFO_ADDR_WIDTH-1:0]];
wire [DEST_ID_WIDTH-1:0] head_tuser = fifo_tuser_mem[rd_ptr_reg[FIFO_ADDR_WIDTH-1:0]];

always @(posedge clk) begin
    if (fifo_push) begin
        fifo_tdata_mem[wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= s_axis_tdata;
        fifo_tkeep_mem[wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= s_axis_tkeep;
        fifo_tlast_mem[wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= s_axis_tlast;
        fifo_tuser_mem[wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= s_axis_tuser;
    end
end

/*
 * Route table: an entry matches when the destination agrees with dest_id on every bit set in dest_mask
 * (an all-zero mask is a default route). Writes take effect for lookups from the next cycle on.
 */
reg                     route_valid_reg     [0:ROUTE_ENTRIES-1];
reg [DEST_ID_WIDTH-1:0] route_dest_id_reg   [0:ROUTE_ENTRIES-1];
reg [DEST_ID_WIDTH-1:0] route_dest_mask_reg [0:ROUTE_ENTRIES-1];
reg [PORT_WIDTH-1:0]    route_port_reg      [0:ROUTE_ENTRIES-1];

reg                  route_hit;
reg [PORT_WIDTH-1:0] route_port;

integer i;

always @* begin
    route_hit = 1'b0;
    route_port = {PORT_WIDTH{1'b0}};
    // Highest index first, so the lowest matching index is the last assignment and wins.
    for (i = ROUTE_ENTRIES - 1; i >= 0; i = i - 1) begin
        if (route_valid_reg[i] && ((head_tuser ^ route_dest_id_reg[i]) & route_dest_mask_reg[i]) == 0) begin
            route_hit = 1'b1;
            route_port = route_port_reg[i];
        end
    end
end

always @(posedge clk) begin
    if (cfg_route_wr_en && {{(32-ROUTE_INDEX_WIDTH){1'b0}}, cfg_route_wr_index} < ROUTE_ENTRIES) begin
        route_valid_reg[cfg_route_wr_index] <= cfg_route_wr_valid;
        route_dest_id_reg[cfg_route_wr_index] <= cfg_route_wr_dest_id;
        route_dest_mask_reg[cfg_route_wr_index] <= cfg_route_wr_dest_mask;
        route_port_reg[cfg_route_wr_index] <= cfg_route_wr_port;
    end
    if (rst) begin
        for (i = 0; i < ROUTE_ENTRIES; i = i + 1) begin
            route_valid_reg[i] <= 1'b0;
        end
    end
end

/*
 * Output stage: one register in front of m_axis.
 */
reg [DATA_WIDTH-1:0] m_axis_tdata_reg, m_axis_tdata_next;
reg [KEEP_WIDTH-1:0] m_axis_tkeep_reg, m_axis_tkeep_next;
reg                  m_axis_tvalid_reg, m_axis_tvalid_next;
reg                  m_axis_tlast_reg, m_axis_tlast_next;
reg [PORT_WIDTH-1:0] m_axis_tdest_reg, m_axis_tdest_next;

// frame_start: the FIFO head is the first beat of a frame (the route is looked up on it).
reg                  frame_start_reg, frame_start_next;
// frame_drop / frame_port: the verdict of the current frame's lookup, applied to its later beats.
reg                  frame_drop_reg, frame_drop_next;
reg [PORT_WIDTH-1:0] frame_port_reg, frame_port_next;
reg                  stat_route_miss_reg, stat_route_miss_next;

assign m_axis_tdata = m_axis_tdata_reg;
assign m_axis_tkeep = m_axis_tkeep_reg;
assign m_axis_tvalid = m_axis_tvalid_reg;
assign m_axis_tlast = m_axis_tlast_reg;
assign m_axis_tdest = m_axis_tdest_reg;
assign stat_route_miss = stat_route_miss_reg;

wire beat_drop = frame_start_reg ? !route_hit : frame_drop_reg;
wire [PORT_WIDTH-1:0] beat_port = frame_start_reg ? route_port : frame_port_reg;
wire output_free = !m_axis_tvalid_reg || m_axis_tready;
wire fifo_pop = !fifo_empty && (beat_drop || output_free);

always @* begin
    wr_ptr_next = wr_ptr_reg;
    rd_ptr_next = rd_ptr_reg;

    m_axis_tdata_next = m_axis_tdata_reg;
    m_axis_tkeep_next = m_axis_tkeep_reg;
    m_axis_tvalid_next = m_axis_tvalid_reg && !m_axis_tready;
    m_axis_tlast_next = m_axis_tlast_reg;
    m_axis_tdest_next = m_axis_tdest_reg;

    frame_start_next = frame_start_reg;
    frame_drop_next = frame_drop_reg;
    frame_port_next = frame_port_reg;
    stat_route_miss_next = 1'b0;

    if (fifo_push) begin
        wr_ptr_next = wr_ptr_reg + 1'b1;
    end

    if (fifo_pop) begin
        rd_ptr_next = rd_ptr_reg + 1'b1;
        frame_start_next = head_tlast;
        if (frame_start_reg) begin
            frame_drop_next = !route_hit;
            frame_port_next = route_port;
            stat_route_miss_next = !route_hit;
        end
        if (!beat_drop) begin
            m_axis_tdata_next = head_tdata;
            m_axis_tkeep_next = head_tkeep;
            m_axis_tvalid_next = 1'b1;
            m_axis_tlast_next = head_tlast;
            m_axis_tdest_next = beat_port;
        end
    end
end

always @(posedge clk) begin
    wr_ptr_reg <= wr_ptr_next;
    rd_ptr_reg <= rd_ptr_next;
    m_axis_tdata_reg <= m_axis_tdata_next;
    m_axis_tkeep_reg <= m_axis_tkeep_next;
    m_axis_tvalid_reg <= m_axis_tvalid_next;
    m_axis_tlast_reg <= m_axis_tlast_next;
    m_axis_tdest_reg <= m_axis_tdest_next;
    frame_start_reg <= frame_start_next;
    frame_drop_reg <= frame_drop_next;
    frame_port_reg <= frame_port_next;
    stat_route_miss_reg <= stat_route_miss_next;

    if (rst) begin
        wr_ptr_reg <= {FIFO_ADDR_WIDTH+1{1'b0}};
        rd_ptr_reg <= {FIFO_ADDR_WIDTH+1{1'b0}};
        // The whole output is reset, data included, so that model and RTL agree on every output bit on
        // every cycle (not only while tvalid is high).
        m_axis_tdata_reg <= {DATA_WIDTH{1'b0}};
        m_axis_tkeep_reg <= {KEEP_WIDTH{1'b0}};
        m_axis_tvalid_reg <= 1'b0;
        m_axis_tlast_reg <= 1'b0;
        m_axis_tdest_reg <= {PORT_WIDTH{1'b0}};
        frame_start_reg <= 1'b1;
        frame_drop_reg <= 1'b0;
        frame_port_reg <= {PORT_WIDTH{1'b0}};
        stat_route_miss_reg <= 1'b0;
    end
end

endmodule

`resetall
