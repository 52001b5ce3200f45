// inswitch packet engine: register slice for one valid/ready stream (issue 6, docs/blocks/axis_register.md).
//
// Cuts every combinational path through a stream boundary between two blocks of the packet-engine top:
// m_axis_tvalid/m_axis_tdata and s_axis_tready all come straight from flip-flops, so neither the upstream
// valid/data nor the downstream ready reaches the other side in the same cycle. The payload is one flat
// vector (the top packs tdata/tkeep/tlast/tuser or a message's fields into it). Rust model:
// crates/model/src/axis_register.rs.
//
//  s_axis --+------------------> [ output register ] --> m_axis
//           |                        ^
//           +--> [ skid register ] --+   (holds the beat taken while the output register was stalled)
//
// s_axis_tready = skid register empty. A beat is taken at edge k when s_axis_tvalid && s_axis_tready and
// is on m_axis from cycle k+1. Throughput: one beat per cycle while m_axis_tready is high: the output
// register reloads every cycle and the skid register stays empty. When m_axis_tready drops with the output
// register full, the beat the upstream block offers in that cycle was already promised by the registered
// ready, so it is parked in the skid register and s_axis_tready goes low from the next cycle; once the
// output register empties, the skid beat moves there and s_axis_tready is high again from the next cycle.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axis_register #
(
    // Width of the payload in bits, at least 1 (everything that travels with one valid/ready handshake)
    parameter WIDTH = 8
)
(
    input  wire             clk,
    input  wire             rst,

    /*
     * From the upstream block
     */
    input  wire [WIDTH-1:0] s_axis_tdata,
    input  wire             s_axis_tvalid,
    output wire             s_axis_tready,

    /*
     * To the downstream block
     */
    output wire [WIDTH-1:0] m_axis_tdata,
    output wire             m_axis_tvalid,
    input  wire             m_axis_tready
);

// A bad parameter set fails at elaboration: the instance names a module that does not exist.
generate
    if (WIDTH < 1) begin : g_bad_width
        axis_register_bad_parameter_WIDTH_must_be_at_least_1 u_err();
    end
endgenerate

reg [WIDTH-1:0] out_data_reg, out_data_next;
reg             out_valid_reg, out_valid_next;
reg [WIDTH-1:0] skid_data_reg, skid_data_next;
reg             skid_valid_reg, skid_valid_next;

// Ready is promised one cycle ahead: an empty skid register can always take the beat offered now.
assign s_axis_tready = !skid_valid_reg;
assign m_axis_tdata = out_data_reg;
assign m_axis_tvalid = out_valid_reg;

wire in_take = s_axis_tvalid && !skid_valid_reg;
// The output register may load when it is empty or its beat leaves at this edge.
wire out_free = !out_valid_reg || m_axis_tready;

always @* begin
    out_data_next = out_data_reg;
    out_valid_next = out_valid_reg;
    skid_data_next = skid_data_reg;
    skid_valid_next = skid_valid_reg;

    if (out_free) begin
        // The parked beat is older than anything on s_axis (which is not taken while one is parked).
        if (skid_valid_reg) begin
            out_data_next = skid_data_reg;
            out_valid_next = 1'b1;
            skid_valid_next = 1'b0;
        end else begin
            // Data loads only with a beat, so an idle stream keeps its last beat on m_axis_tdata.
            if (in_take) begin
                out_data_next = s_axis_tdata;
            end
            out_valid_next = in_take;
        end
    end else if (in_take) begin
        skid_data_next = s_axis_tdata;
        skid_valid_next = 1'b1;
    end
end

always @(posedge clk) begin
    out_data_reg <= out_data_next;
    out_valid_reg <= out_valid_next;
    skid_data_reg <= skid_data_next;
    skid_valid_reg <= skid_valid_next;

    // Only the valid flags are reset: the data registers are don't-care while their flag is low.
    if (rst) begin
        out_valid_reg <= 1'b0;
        skid_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
