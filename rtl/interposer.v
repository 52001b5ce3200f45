// inswitch packet engine: data-path interposer (seed 000 [0092]; 002 (39)).
//
// Sits between a port's receive path and its virtual-link (VL) queue. Receive frames addressed to the
// engine are extracted to the input checker; all others pass to the VL queue untouched and in order;
// frames from the output queue are injected between receive frames. A multicast arm the engine takes also
// passes on (002 (39)-(40)): its beats are kept as they are extracted and, once its last beat is out, sent
// to the VL queue before any other frame starts (docs/blocks/interposer.md §The multicast arm passes on).
// Flow control in VL-queue beat slots:
// extracted beats' credits go straight back to the link partner, the VL queue's returns refill the
// injection reserve (INJ_CREDITS) first. Interface, decision bytes, credits and timing:
// docs/blocks/interposer.md. Rust model: crates/model/src/interposer.rs.
//
//  s_axis_rx --+-- first beat: addressed to the engine? (fixed header bytes, multicast table) --+
//              |                                                                                |
//              +--> [ ext output register ] --> m_axis_ext (tuser = {flit, family, port})       |
//              +--> [ VL output register ]  --> m_axis_vl  <-- s_axis_inj (between rx frames,  |
//                                                              one credit per beat)             |
//  vl_credit_return --> refill injection credits first --> link_credit_return (+1 per extracted beat)
//
// The multicast table is a RAM indexed directly by the tree (DFA bits 15-3), read synchronously when a
// receive beat is taken: a receive beat waits one cycle in the receive stage register, where the decision
// is made with the table's answer, then moves to an output register. After reset the table is cleared by
// a sweep of MCAST_ENTRIES cycles during which no receive beat is taken (docs/blocks/interposer.md
// §Multicast table).
//
// Latency: a receive beat taken at edge k is offered from cycle k+2; an injected beat from cycle k+1;
// credits returned for a beat or a VL return at edge k show on link_credit_return in cycle k+1.
// Throughput: one beat per cycle on each output.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module interposer #
(
    // Width of the frame data bus in bits (the decision needs bytes 0-25 in the first beat)
    parameter DATA_WIDTH = 256,
    // Width of tkeep: one bit per data byte
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // Multicast-table entries, a power of two from 2 to 8192: the table is indexed by the low
    // MCAST_INDEX_WIDTH bits of the tree (DFA bits 15-3, 8K trees: 002 (60)-(61)); below 8192 the
    // entry keeps the tree's other bits as a tag
    parameter MCAST_ENTRIES = 8192,
    // Width of a multicast-table index
    parameter MCAST_INDEX_WIDTH = $clog2(MCAST_ENTRIES),
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
     * Extracted frames to the input checker; tuser = {flit, family, port}
     */
    output wire [DATA_WIDTH-1:0]        m_axis_ext_tdata,
    output wire [KEEP_WIDTH-1:0]        m_axis_ext_tkeep,
    output wire                         m_axis_ext_tvalid,
    input  wire                         m_axis_ext_tready,
    output wire                         m_axis_ext_tlast,
    output wire [9:0]                   m_axis_ext_tuser,

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
    // The link runs in PCIe 6 flit mode (a strap, as the family): TLPs without sequence number or LCRC
    input  wire                         cfg_flit,
    input  wire [15:0]                  cfg_engine_id,
    input  wire [15:0]                  cfg_ethertype,
    input  wire                         cfg_mcast_wr_en,
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
localparam [1:0] OWNER_COPY = 2'd3;
// The multicast arm's copy (002 (39)-(40); docs/blocks/interposer.md §The multicast arm passes on): the
// beats of a Soft Portals frame of at most ARM_COPY_BYTES (ARM_* from the generated include) are kept,
// and rt_arm is bit ARM_BIT of byte ARM_BYTE, in beat ARM_BEAT at byte ARM_OFFSET.
localparam integer COPY_BEATS = (ARM_COPY_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam integer ARM_BEAT = ARM_BYTE / KEEP_WIDTH;
localparam integer ARM_OFFSET = ARM_BYTE % KEEP_WIDTH;
// Counts the beats of a receive frame up to COPY_BEATS (saturating: a longer frame is never copied).
localparam COPY_COUNT_WIDTH = $clog2(COPY_BEATS + 1);
localparam COPY_ADDR_WIDTH = COPY_BEATS > 1 ? $clog2(COPY_BEATS) : 1;
localparam [COPY_COUNT_WIDTH-1:0] COPY_FULL = COPY_BEATS[COPY_COUNT_WIDTH-1:0];
localparam [COPY_COUNT_WIDTH-1:0] ARM_AT = ARM_BEAT[COPY_COUNT_WIDTH-1:0];
localparam [CREDIT_WIDTH-1:0] INJ_RESERVE = INJ_CREDITS[CREDIT_WIDTH-1:0];
// Tree: DFA bits 15-3 (002 (61))
localparam TREE_WIDTH = 13;
// A table entry: {tag = tree bits above the index, armed}
localparam ENTRY_WIDTH = TREE_WIDTH - MCAST_INDEX_WIDTH + 1;
localparam integer MCAST_LAST_ENTRY = MCAST_ENTRIES - 1;
localparam [MCAST_INDEX_WIDTH-1:0] MCAST_LAST = MCAST_LAST_ENTRY[MCAST_INDEX_WIDTH-1:0];

generate
    // The port's width is written out (the port list precedes the include); it must be the generated count.
    if (EV_COUNT != 3) begin : g_bad_events
        interposer_stat_event_width_must_be_EV_COUNT u_err();
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH || DATA_WIDTH < 208) begin : g_bad_width
        interposer_bad_parameter_DATA_WIDTH_must_hold_26_bytes u_err();
    end
    if (MCAST_INDEX_WIDTH < 1 || MCAST_INDEX_WIDTH > TREE_WIDTH || MCAST_ENTRIES != (1 << MCAST_INDEX_WIDTH)) begin : g_bad_mcast
        interposer_bad_parameter_MCAST_ENTRIES u_err();
    end
    if (INJ_CREDITS < 1 || INJ_CREDITS >= (1 << CREDIT_WIDTH)) begin : g_bad_credits
        interposer_bad_parameter_INJ_CREDITS u_err();
    end
endgenerate

/*
 * Decision (docs/blocks/interposer.md §Decision), in two steps. When a receive beat is taken, its header
 * is parsed against the straps and register-space values in force at that edge (as before the receive
 * stage existed: a strap change after the edge does not reach a beat already taken), and the multicast
 * table is read at its tree's index; the stage keeps the parse's results and the straps with the beat. In
 * the receive stage the table's answer is compared with the tree's tag and the first beat of a frame is
 * routed.
 */
`define RB(i) s_axis_rx_tdata[8*(i) +: 8]
// A TLP header byte at its non-flit position i (the TLP at byte 2, after the sequence number); on a
// flit-mode link the TLP starts at byte 0 (docs/blocks/interposer.md §Flit-mode links), so the byte is
// two lower. Only the Soft Portals fields are read with RB.
`define RT(i) (cfg_flit ? `RB((i) - 2) : `RB(i))
// Whole header fields are declared; the decision uses only some of their bits.
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]  t0 = `RT(2);
wire [2:0]  fmt = t0[7:5];
wire [4:0]  typ = t0[4:0];
wire [31:0] addr_hi = fmt[0] ? {`RT(10), `RT(11), `RT(12), `RT(13)} : 32'd0;
wire [31:0] addr_lo = fmt[0] ? {`RT(14), `RT(15), `RT(16), `RT(17)} : {`RT(10), `RT(11), `RT(12), `RT(13)};
wire [15:0] rx_dfa_low = {`RB(16), `RB(17)};
/* verilator lint_on UNUSEDSIGNAL */
wire tlp_mem_hit = typ == 5'd0 && !fmt[2] && addr_hi == 32'd0 && addr_lo[31:16] == cfg_engine_id && addr_lo[15:12] == 4'hC;
wire tlp_msg_hit = typ == 5'b10010 && fmt[0] && {`RT(10), `RT(11)} == cfg_engine_id;
// For the engine if a TLP port; if a Soft Portals port, for the engine when its tree is armed.
wire rx_tlp_hit = tlp_mem_hit || (typ != 5'd0 && tlp_msg_hit);
wire rx_portals_hit = {`RB(12), `RB(13)} == cfg_ethertype && s_axis_rx_tdata[8*25];
`undef RT
`undef RB
// Only the index bits of the incoming beat's tree address the read (the tag is compared a cycle later).
/* verilator lint_off UNUSEDSIGNAL */
wire [TREE_WIDTH-1:0] rx_tree = rx_dfa_low[15:3];
/* verilator lint_on UNUSEDSIGNAL */

/*
 * The receive stage: the beat, the parse's results and the straps sampled when it was taken
 */
reg [DATA_WIDTH-1:0] rxs_tdata_reg;
reg [KEEP_WIDTH-1:0] rxs_tkeep_reg;
reg                  rxs_tvalid_reg;
reg                  rxs_tlast_reg;
reg                  rxs_tlp_hit_reg;
reg                  rxs_portals_hit_reg;
reg                  rxs_family_reg;
reg                  rxs_flit_reg;
reg [7:0]            rxs_port_reg;

/*
 * Multicast table (docs/blocks/interposer.md §Multicast table): a RAM indexed by the tree's low
 * MCAST_INDEX_WIDTH bits, entry {tag, armed}; armed = valid && wait count != 0. Synchronous read when a
 * receive beat is taken (address from the beat on s_axis_rx); read-before-write; no reset of the array
 * (so that it maps to block RAM): a reset starts a sweep that writes 0 to every entry, one per cycle,
 * while s_axis_rx_tready is low and configuration writes are ignored.
 */
reg [ENTRY_WIDTH-1:0] mcast_mem [0:MCAST_ENTRIES-1];
reg [ENTRY_WIDTH-1:0] mcast_rd_reg;
reg                   clear_reg;
reg [MCAST_INDEX_WIDTH-1:0] clear_index_reg;
wire [TREE_WIDTH:0] rd_entry = {{(MCAST_INDEX_WIDTH){1'b0}}, mcast_rd_reg};
wire [TREE_WIDTH-1:0] wr_tag = cfg_mcast_wr_tree >> MCAST_INDEX_WIDTH;
// Only the tag bits of the staged beat's tree are compared (its index bits addressed the read).
/* verilator lint_off UNUSEDSIGNAL */
wire [15:0] rxs_dfa_low = {rxs_tdata_reg[8*16 +: 8], rxs_tdata_reg[8*17 +: 8]};
/* verilator lint_on UNUSEDSIGNAL */
wire [TREE_WIDTH-1:0] rxs_tag = rxs_dfa_low[15:3] >> MCAST_INDEX_WIDTH;
// The tag's top MCAST_INDEX_WIDTH bits are always 0 (not stored).
/* verilator lint_off UNUSEDSIGNAL */
wire [TREE_WIDTH:0] wr_entry = {wr_tag, cfg_mcast_wr_valid && cfg_mcast_wr_wait_count != 20'd0};
/* verilator lint_on UNUSEDSIGNAL */
wire tree_armed = rd_entry[0] && rd_entry[TREE_WIDTH:1] == rxs_tag;
wire for_engine = rxs_family_reg ? rxs_portals_hit_reg && tree_armed : rxs_tlp_hit_reg;

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
// The arm's copy: the receive frame in progress is a multicast frame of an armed tree (watch), its beats
// moved so far (saturating at COPY_FULL), rt_arm as seen; a copy waiting or going to m_axis_vl, the next
// beat to send and the index of its last.
reg                        watch_reg, watch_next;
reg [COPY_COUNT_WIDTH-1:0] rx_count_reg, rx_count_next;
reg                        arm_reg, arm_next;
reg                        copy_pending_reg, copy_pending_next;
reg [COPY_COUNT_WIDTH-1:0] copy_index_reg, copy_index_next;
reg [COPY_COUNT_WIDTH-1:0] copy_last_reg, copy_last_next;
reg [DATA_WIDTH-1:0]       copy_data_mem [0:COPY_BEATS-1];
reg [KEEP_WIDTH-1:0]       copy_keep_mem [0:COPY_BEATS-1];

reg [DATA_WIDTH-1:0] vl_tdata_reg, vl_tdata_next;
reg [KEEP_WIDTH-1:0] vl_tkeep_reg, vl_tkeep_next;
reg                  vl_tvalid_reg, vl_tvalid_next;
reg                  vl_tlast_reg, vl_tlast_next;
reg [DATA_WIDTH-1:0] ext_tdata_reg, ext_tdata_next;
reg [KEEP_WIDTH-1:0] ext_tkeep_reg, ext_tkeep_next;
reg                  ext_tvalid_reg, ext_tvalid_next;
reg                  ext_tlast_reg, ext_tlast_next;
reg [9:0]            ext_tuser_reg, ext_tuser_next;

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
// A pending copy goes before any new frame start (it keeps the receive frames' order on m_axis_vl).
wire rx_req = rxs_tvalid_reg && rx_first && owner_reg == OWNER_NONE && !copy_pending_reg && vl_free && ext_free;
wire inj_req = s_axis_inj_tvalid && inj_first && owner_reg == OWNER_NONE && !copy_pending_reg && credit;
// Round robin between frame starts on the VL path.
wire inj_wins = inj_req && (!rx_req || !last_inj_reg);

// The beat in the receive stage moves to its output.
wire rx_beat = !rst && rxs_tvalid_reg && (rx_first ? (owner_reg == OWNER_NONE && !copy_pending_reg && !inj_wins && vl_free && ext_free) :
                                          rx_ext_reg ? ext_free : vl_free);
// The receive stage takes a beat when it is empty or its beat moves on, except while the table is cleared.
assign s_axis_rx_tready = !rst && !clear_reg && (!rxs_tvalid_reg || rx_beat);
assign s_axis_inj_tready = !rst && vl_free && credit && (owner_reg == OWNER_INJ || (inj_first && inj_wins));

wire rx_take = s_axis_rx_tvalid && s_axis_rx_tready;
wire inj_beat = s_axis_inj_tvalid && s_axis_inj_tready;
wire rx_to_ext = rx_first ? for_engine : rx_ext_reg;
// The arm's copy: a watched beat is kept while it fits; rt_arm is read from beat ARM_BEAT; a copy is due
// when the frame ends within COPY_BEATS beats with rt_arm set. The copy moves one beat per cycle when the
// VL output is free and an injection credit is held (it occupies VL slots as an injected frame does).
wire watch = rx_first ? for_engine && rxs_family_reg : watch_reg;
// (0 on a first beat: the count restarts at every last beat and at reset)
wire [COPY_COUNT_WIDTH-1:0] rx_count = rx_count_reg;
wire arm_bit = rxs_tkeep_reg[ARM_OFFSET] && rxs_tdata_reg[8 * ARM_OFFSET + ARM_BIT];
wire arm_seen = rx_count == ARM_AT ? arm_bit : (!rx_first && arm_reg);
wire copy_go = !rst && copy_pending_reg && vl_free && credit && (owner_reg == OWNER_NONE || owner_reg == OWNER_COPY);
wire copy_last = copy_index_reg == copy_last_reg;
wire [COPY_ADDR_WIDTH-1:0] copy_addr = copy_index_reg[COPY_ADDR_WIDTH-1:0];
wire [COPY_ADDR_WIDTH-1:0] keep_addr = rx_count[COPY_ADDR_WIDTH-1:0];
wire keep_beat = rx_beat && rx_to_ext && watch && rx_count != COPY_FULL;

// Credits: the VL queue's returns refill the injection reserve first, the rest go to the partner. With s
// a credit spent this cycle (an injected or copied beat), avail = inj_credits - s, the reserve takes
// take = min(vl_credit_return, INJ_RESERVE - avail) and the partner gets the rest, plus one per extracted
// beat. Since 0 <= avail <= INJ_RESERVE (a credit is spent only when one is held; the reserve never
// exceeds INJ_RESERVE), with sum = avail + vl_credit_return: the reserve becomes min(sum, INJ_RESERVE) and
// the partner gets max(sum - INJ_RESERVE, 0). Both cases of s and of the returned beat are computed from
// the registers and vl_credit_return, and chosen at the end: s and the beat are known late (issue 19: LUT
// depth).
localparam [CREDIT_WIDTH-1:0] CREDIT_ONE = {{(CREDIT_WIDTH-1){1'b0}}, 1'b1};
localparam [CREDIT_WIDTH:0] RESERVE_WIDE = {1'b0, INJ_RESERVE};
wire spend = inj_beat || copy_go;
wire back = rx_beat && rx_to_ext;
wire [CREDIT_WIDTH-1:0] inj_less_one = inj_credits_reg - CREDIT_ONE;
wire [CREDIT_WIDTH:0] sum_keep = {1'b0, inj_credits_reg} + {1'b0, vl_credit_return};
wire [CREDIT_WIDTH:0] sum_spend = {1'b0, inj_less_one} + {1'b0, vl_credit_return};
wire over_keep = sum_keep > RESERVE_WIDE;
wire over_spend = sum_spend > RESERVE_WIDE;
// The partner's share when over the reserve, without and with the extracted beat's credit.
// (low bits: the share is at most vl_credit_return; with the beat it wraps as the count does)
wire [CREDIT_WIDTH-1:0] excess_keep = sum_keep[CREDIT_WIDTH-1:0] - INJ_RESERVE;
wire [CREDIT_WIDTH-1:0] excess_keep_back = sum_keep[CREDIT_WIDTH-1:0] - (INJ_RESERVE - CREDIT_ONE);
wire [CREDIT_WIDTH-1:0] excess_spend = sum_spend[CREDIT_WIDTH-1:0] - INJ_RESERVE;
wire [CREDIT_WIDTH-1:0] excess_spend_back = sum_spend[CREDIT_WIDTH-1:0] - (INJ_RESERVE - CREDIT_ONE);

always @* begin
    rx_in_frame_next = rx_in_frame_reg;
    rx_ext_next = rx_ext_reg;
    inj_in_frame_next = inj_in_frame_reg;
    owner_next = owner_reg;
    last_inj_next = last_inj_reg;
    stat_event_next = 3'd0;
    watch_next = watch_reg;
    rx_count_next = rx_count_reg;
    arm_next = arm_reg;
    copy_pending_next = copy_pending_reg;
    copy_index_next = copy_index_reg;
    copy_last_next = copy_last_reg;

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
            // Two constant selects, not one select by for_engine: Yosys builds a variable lvalue select
            // as a 32-bit shift whose carry chain would follow the table read (issue 19: LUT depth).
            if (for_engine) begin
                stat_event_next[EV_EXTRACTED] = 1'b1;
            end else begin
                stat_event_next[EV_PASSED] = 1'b1;
            end
            if (!for_engine && !rxs_tlast_reg) begin
                owner_next = OWNER_RX;
            end
            last_inj_next = 1'b0;
        end
        if (rx_to_ext) begin
            ext_tdata_next = rxs_tdata_reg;
            ext_tkeep_next = rxs_tkeep_reg;
            ext_tvalid_next = 1'b1;
            ext_tlast_next = rxs_tlast_reg;
            ext_tuser_next = {rxs_flit_reg, rxs_family_reg, rxs_port_reg};
        end else begin
            vl_tdata_next = rxs_tdata_reg;
            vl_tkeep_next = rxs_tkeep_reg;
            vl_tvalid_next = 1'b1;
            vl_tlast_next = rxs_tlast_reg;
            if (rxs_tlast_reg && owner_reg == OWNER_RX) begin
                owner_next = OWNER_NONE;
            end
        end
        rx_in_frame_next = !rxs_tlast_reg;
        watch_next = watch && !rxs_tlast_reg;
        arm_next = arm_seen;
        rx_count_next = rxs_tlast_reg ? {COPY_COUNT_WIDTH{1'b0}} :
                        rx_count == COPY_FULL ? rx_count : rx_count + {{(COPY_COUNT_WIDTH-1){1'b0}}, 1'b1};
        if (watch && rxs_tlast_reg && rx_count != COPY_FULL && arm_seen) begin
            copy_pending_next = 1'b1;
            copy_index_next = {COPY_COUNT_WIDTH{1'b0}};
            copy_last_next = rx_count;
        end
    end
    if (copy_go) begin
        if (copy_index_reg == {COPY_COUNT_WIDTH{1'b0}}) begin
            stat_event_next[EV_PASSED] = 1'b1;
        end
        owner_next = copy_last ? OWNER_NONE : OWNER_COPY;
        vl_tdata_next = copy_data_mem[copy_addr];
        vl_tkeep_next = copy_keep_mem[copy_addr];
        vl_tvalid_next = 1'b1;
        vl_tlast_next = copy_last;
        copy_index_next = copy_index_reg + {{(COPY_COUNT_WIDTH-1){1'b0}}, 1'b1};
        copy_pending_next = !copy_last;
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

    if (spend) begin
        inj_credits_next = over_spend ? INJ_RESERVE : sum_spend[CREDIT_WIDTH-1:0];
    end else begin
        inj_credits_next = over_keep ? INJ_RESERVE : sum_keep[CREDIT_WIDTH-1:0];
    end
    case ({spend, back})
        2'b00: link_return_next = over_keep ? excess_keep : {CREDIT_WIDTH{1'b0}};
        2'b01: link_return_next = over_keep ? excess_keep_back : CREDIT_ONE;
        2'b10: link_return_next = over_spend ? excess_spend : {CREDIT_WIDTH{1'b0}};
        default: link_return_next = over_spend ? excess_spend_back : CREDIT_ONE;
    endcase
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
    watch_reg <= watch_next;
    rx_count_reg <= rx_count_next;
    arm_reg <= arm_next;
    copy_pending_reg <= copy_pending_next;
    copy_index_reg <= copy_index_next;
    copy_last_reg <= copy_last_next;
    if (keep_beat) begin
        copy_data_mem[keep_addr] <= rxs_tdata_reg;
        copy_keep_mem[keep_addr] <= rxs_tkeep_reg;
    end
    vl_tdata_reg <= vl_tdata_next;
    vl_tkeep_reg <= vl_tkeep_next;
    vl_tvalid_reg <= vl_tvalid_next;
    vl_tlast_reg <= vl_tlast_next;
    ext_tdata_reg <= ext_tdata_next;
    ext_tkeep_reg <= ext_tkeep_next;
    ext_tvalid_reg <= ext_tvalid_next;
    ext_tlast_reg <= ext_tlast_next;
    ext_tuser_reg <= ext_tuser_next;

    if (rx_take) begin
        rxs_tdata_reg <= s_axis_rx_tdata;
        rxs_tkeep_reg <= s_axis_rx_tkeep;
        rxs_tlast_reg <= s_axis_rx_tlast;
        rxs_tlp_hit_reg <= rx_tlp_hit;
        rxs_portals_hit_reg <= rx_portals_hit;
        rxs_family_reg <= cfg_family;
        // flit marks a TLP port only (the checker reads tuser[9] with tuser[8] clear)
        rxs_flit_reg <= cfg_flit && !cfg_family;
        rxs_port_reg <= cfg_port;
    end
    rxs_tvalid_reg <= rx_take || (rxs_tvalid_reg && !rx_beat);
    if (clear_reg) begin
        clear_index_reg <= clear_index_reg + {{(MCAST_INDEX_WIDTH-1){1'b0}}, 1'b1};
        clear_reg <= clear_index_reg != MCAST_LAST;
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
        watch_reg <= 1'b0;
        rx_count_reg <= {COPY_COUNT_WIDTH{1'b0}};
        arm_reg <= 1'b0;
        copy_pending_reg <= 1'b0;
        copy_index_reg <= {COPY_COUNT_WIDTH{1'b0}};
        copy_last_reg <= {COPY_COUNT_WIDTH{1'b0}};
        vl_tdata_reg <= {DATA_WIDTH{1'b0}};
        vl_tkeep_reg <= {KEEP_WIDTH{1'b0}};
        vl_tvalid_reg <= 1'b0;
        vl_tlast_reg <= 1'b0;
        ext_tdata_reg <= {DATA_WIDTH{1'b0}};
        ext_tkeep_reg <= {KEEP_WIDTH{1'b0}};
        ext_tvalid_reg <= 1'b0;
        ext_tlast_reg <= 1'b0;
        ext_tuser_reg <= 10'd0;
        rxs_tvalid_reg <= 1'b0;
        clear_reg <= 1'b1;
        clear_index_reg <= {MCAST_INDEX_WIDTH{1'b0}};
    end
end

// The table's one write port: the clearing sweep, else a configuration write. Written without a reset so
// that synthesis maps it to block RAM.
wire mcast_we = clear_reg || cfg_mcast_wr_en;
wire [MCAST_INDEX_WIDTH-1:0] mcast_wr_index = clear_reg ? clear_index_reg : cfg_mcast_wr_tree[MCAST_INDEX_WIDTH-1:0];
wire [ENTRY_WIDTH-1:0] mcast_wr_data = clear_reg ? {ENTRY_WIDTH{1'b0}} : wr_entry[ENTRY_WIDTH-1:0];
always @(posedge clk) begin
    if (mcast_we) begin
        mcast_mem[mcast_wr_index] <= mcast_wr_data;
    end
    if (rx_take) begin
        mcast_rd_reg <= mcast_mem[rx_tree[MCAST_INDEX_WIDTH-1:0]];
    end
end

endmodule

`resetall
