// inswitch input checker: FIG. 4 configuration messages as register writes (seed 000 [0154]-[0158];
// docs/blocks/input_checker.md §Configuration messages). Included inside module input_checker
// (rtl/input_checker.v), after stage D's verdict; model crates/model/src/input_checker/config.rs.
//
// A configuration message (collective kind 1) that passes every check leaves stage D as
// 2 x n_devices + CONFIG_FIXED_WRITES register writes on m_reg, one whenever the register output is free:
// for each PBV entry i its device ID (a 2-byte write into the PBV table, [0175]'s form) then its
// PBV_FLAGS (valid; switch when the ID is one of the message's subservient engines), then ERROR_REPORTING,
// SUB_TIMEOUT, MASTER_TIMEOUT. Before them it reads its n_subservient (<= CONFIG_MAX_SUBSERVIENT)
// subservient IDs from the slot store (input_checker_store.vh), one a cycle. While it preloads or writes
// remain, cfg_wait holds the whole pipeline (adv low, as a stalled output); the frame's stat_event pulse
// (accept_reg) comes when D is taken after the last write.

// Stage C: where the message's 16-bit slots start (payload byte 24 on: device IDs, then subservient
// IDs), as a byte of the frame as received, the slot store's address (input_checker_store.vh): the payload
// starts at byte 14 (3-DW carrier) or 18 (4-DW), so slot j is at byte 38 + 2j or 42 + 2j; an encapsulated
// configuration (kind 10) puts them 4 + 12 or 4 + 16 bytes later (descriptor, original header): slot 0
// at 54, 58 or 62. A flit-mode frame has no sequence number: two bytes earlier (stage C reads its capture
// moved up by two).
localparam CFG_SLOT0_3DW = 14 + CONFIG_FIXED_BYTES;
localparam integer CFG_SLOT_BASES = 5;
function [15:0] cfg_slot_base(input integer base, input flit_mode);
    // kind 1 (3-DW, 4-DW carrier), kind 10 (3/3, 3/4 or 4/3, 4/4 DW carrier/original)
    reg [15:0] b;
    begin
        case (base)
            0: b = CFG_SLOT0_3DW;
            1: b = CFG_SLOT0_3DW + 4;
            2: b = CFG_SLOT0_3DW + ENCAP_DESCRIPTOR_BYTES + 12;
            3: b = CFG_SLOT0_3DW + ENCAP_DESCRIPTOR_BYTES + 16;
            default: b = CFG_SLOT0_3DW + ENCAP_DESCRIPTOR_BYTES + 20;
        endcase
        cfg_slot_base = b - (flit_mode ? 16'd2 : 16'd0);
    end
endfunction
// One-hot choice of the base (an AND-OR, from the placement bits stage C's checks use): kind 1 by the
// carrier's Fmt, kind 10 by `encap_at` (an index summed from kind and both Fmts put an adder in front of
// the 5:1 multiplexer).
wire [CFG_SLOT_BASES-1:0] cfg_base_hot = {encap_at[3], encap_at[1] || encap_at[2], encap_at[0],
                                          !is_encap && four, !is_encap && !four};
// Slot 0's byte and slot 1's (the base + 2 folded into the constants: no adder in series with the one
// below, which made d_cfg_sub1_reg's input 9 LUT levels).
reg [15:0] cfg_rbase_c;
reg [15:0] cfg_rbase1_c;
always @* begin
    cfg_rbase_c = 16'd0;
    cfg_rbase1_c = 16'd0;
    for (k = 0; k < CFG_SLOT_BASES; k = k + 1) begin
        cfg_rbase_c = cfg_rbase_c | ({16{cfg_base_hot[k]}} & cfg_slot_base(k, flit));
        cfg_rbase1_c = cfg_rbase1_c | ({16{cfg_base_hot[k]}} & (cfg_slot_base(k, flit) + 16'd2));
    end
end
// Per placement, from the capture's own bytes (n_devices' low byte 9 bytes before slot 0, n_subservient
// 11 before; no payload or field multiplexer in front of the adders, and one adder per sum, both
// flit-mode constants beside the non-flit ones): the slot the store reads while the frame waits in C,
// the first subservient ID (slot n) if there is one (the preload's first), else device ID 0 (the first
// write's); and subservient ID 1's byte (slot n + 1), for D. Chosen one-hot after the adders (a choice
// in front of them was 9 LUT levels into the RAM's address).
genvar gk;
wire [15:0] cfg_first_at [0:CFG_SLOT_BASES-1];
wire [15:0] cfg_sub1_at [0:CFG_SLOT_BASES-1];
generate
    for (gk = 0; gk < CFG_SLOT_BASES; gk = gk + 1) begin : g_cfg_first
        localparam [15:0] BASE = cfg_slot_base(gk, 1'b0);
        localparam integer NB = {16'd0, BASE} - (CONFIG_FIXED_BYTES - 15);
        localparam [15:0] BASE_FLIT = cfg_slot_base(gk, 1'b1);
        wire [15:0] twice_n = {7'd0, c_cap_reg[8*NB +: 8], 1'b0};
        wire [15:0] sub0 = BASE + twice_n;
        wire [15:0] sub0_flit = BASE_FLIT + twice_n;
        wire [15:0] sub1 = BASE + 16'd2 + twice_n;
        wire [15:0] sub1_flit = BASE_FLIT + 16'd2 + twice_n;
        wire any_sub = c_cap_reg[8*(NB - 2) +: 8] != 8'd0;
        assign cfg_first_at[gk] = any_sub ? (flit ? sub0_flit : sub0) : (flit ? BASE_FLIT : BASE);
        assign cfg_sub1_at[gk] = flit ? sub1_flit : sub1;
    end
endgenerate
reg [15:0] cfg_first_rb_c;
reg [15:0] cfg_sub1_c;
always @* begin
    cfg_first_rb_c = 16'd0;
    cfg_sub1_c = 16'd0;
    for (k = 0; k < CFG_SLOT_BASES; k = k + 1) begin
        cfg_first_rb_c = cfg_first_rb_c | ({16{cfg_base_hot[k]}} & cfg_first_at[k]);
        cfg_sub1_c = cfg_sub1_c | ({16{cfg_base_hot[k]}} & cfg_sub1_at[k]);
    end
end
// Which subservient registers the switch test compares with (m < s), a thermometer of s.
reg [CONFIG_MAX_SUBSERVIENT-1:0] cfg_sub_mask_c;
always @* begin
    for (k = 0; k < CONFIG_MAX_SUBSERVIENT; k = k + 1) begin
        cfg_sub_mask_c[k] = cf[13] > k[7:0];
    end
end

// Stage D: the message's fields (loaded with the other D registers), the subservient IDs preloaded and
// the writes already loaded.
reg [7:0]                        d_cfg_n_reg;
reg [7:0]                        d_cfg_s_reg;
reg [CONFIG_MAX_SUBSERVIENT-1:0] d_cfg_sub_mask_reg;
reg [15:0]                       d_cfg_rbase_reg;
reg [7:0]                        d_cfg_err_reg;
reg [31:0]                       d_cfg_sub_reg;
reg [31:0]                       d_cfg_master_reg;
reg [7:0]                        cfg_pre_reg;
reg [8:0]                        cfg_sent_reg;
// The bytes of subservient ID 1 and device ID 1 (slots n + 1 and 1): the read addresses below add a
// counter to a register, with no adder in front of it.
reg [15:0]                       d_cfg_sub1_reg;
reg [15:0]                       d_cfg_rbase1_reg;
reg [15:0]                       cfg_subs [0:CONFIG_MAX_SUBSERVIENT-1];

// The accepted message first reads its s subservient IDs from the store into cfg_subs, one a cycle (the
// switch test compares every entry's device ID with all of them at once), then makes its writes: 2 per
// entry (n <= CONFIG_MAX_ENTRIES once accepted), then the fixed ones.
wire cfg_is = d_valid_reg && win[R_C_CONFIG_ACCEPT];
wire cfg_preloading = cfg_is && cfg_pre_reg != d_cfg_s_reg;
wire [8:0] cfg_entry_writes = {d_cfg_n_reg, 1'b0};
// Done when cfg_sent_reg is 2n + CONFIG_FIXED_WRITES: a sum_eq (logic; the adder's carry chain hid the
// compare and the AND after it from ABC, and cfg_wait gates `adv`, every stage's enable).
wire cfg_writing = cfg_is && !cfg_preloading &&
                   !sum_eq({7'd0, cfg_entry_writes}, 16'd0, CONFIG_FIXED_WRITES, {7'd0, cfg_sent_reg});
assign cfg_wait = cfg_preloading || cfg_writing;
wire cfg_load = cfg_writing && reg_free && !rst;
wire cfg_pre_step = cfg_preloading && !rst;

// The next read, from D's registers and counters: in preload step m, subservient ID m + 1 or, after the
// last, device ID 0; in the writes, entry i's device ID during its ID write (k = 2i) and entry i + 1's
// from its flags write on (k = 2i + 1).
wire [8:0] cfg_pre_next = {1'b0, cfg_pre_reg} + 9'd1;
wire [15:0] cfg_rb_pre = cfg_pre_next < {1'b0, d_cfg_s_reg} ? d_cfg_sub1_reg + {7'd0, cfg_pre_reg, 1'b0}
                                                            : d_cfg_rbase_reg;
wire [15:0] cfg_rb_write = (cfg_sent_reg[0] ? d_cfg_rbase1_reg : d_cfg_rbase_reg) + {7'd0, cfg_sent_reg[8:1], 1'b0};
wire [15:0] cfg_rb_d = cfg_preloading ? cfg_rb_pre : cfg_rb_write;
// The store's read: the sequencer's slot while D's message is in progress, else the first slot of the
// frame in C (read in the cycle it moves to D, so that D's first step finds it).
assign store_rb = cfg_wait ? cfg_rb_d : cfg_first_rb_c;
assign store_rbank = cfg_wait ? d_bank_reg : c_bank_reg;

// Write k = cfg_sent_reg: entry i = k / 2 (its device ID for an even k, its flags for an odd one). The
// device ID is the store's slot (read ahead); the switch test is an OR over one comparator per
// subservient register.
wire [7:0] cfg_i = cfg_sent_reg[8:1];
wire [15:0] cfg_word = store_word;
wire [CONFIG_MAX_SUBSERVIENT-1:0] cfg_sub_hit;
generate
    for (g = 0; g < CONFIG_MAX_SUBSERVIENT; g = g + 1) begin : g_cfg_sub
        assign cfg_sub_hit[g] = d_cfg_sub_mask_reg[g] && cfg_subs[g] == cfg_word;
    end
endgenerate
// Registered with entry i's device-ID write (even k) and used by its flags write (k + 1): the slot's
// lane, the comparators and their OR end at a register, not at reg_wdata.
reg cfg_switch_reg;
wire cfg_switch = |cfg_sub_hit;
// Subservient register m takes the store's slot in preload step m.
generate
    for (g = 0; g < CONFIG_MAX_SUBSERVIENT; g = g + 1) begin : g_cfg_subs
        always @(posedge clk) begin
            if (cfg_pre_step && cfg_pre_reg == g) begin
                cfg_subs[g] <= store_word;
            end
        end
    end
endgenerate

always @(posedge clk) begin
    if (adv) begin
        d_cfg_n_reg <= cf[15];
        d_cfg_s_reg <= cf[13];
        d_cfg_sub_mask_reg <= cfg_sub_mask_c;
        d_cfg_rbase_reg <= cfg_rbase_c;
        d_cfg_err_reg <= cf[12];
        d_cfg_sub_reg <= {cf[16], cf[17], cf[18], cf[19]};
        d_cfg_master_reg <= {cf[20], cf[21], cf[22], cf[23]};
        d_cfg_sub1_reg <= cfg_sub1_c;
        d_cfg_rbase1_reg <= cfg_rbase1_c;
    end
    if (cfg_pre_step) begin
        cfg_pre_reg <= cfg_pre_reg + 8'd1;
    end
    if (cfg_load) begin
        cfg_sent_reg <= cfg_sent_reg + 9'd1;
        if (!cfg_sent_reg[0]) begin
            cfg_switch_reg <= cfg_switch;
        end
    end
    // D taken (the message's pulse, or any other frame's verdict): the next message starts afresh.
    if ((adv && d_valid_reg) || rst) begin
        cfg_pre_reg <= 8'd0;
        cfg_sent_reg <= 9'd0;
    end
end

wire        cfg_hi = cfg_i[0];
wire [15:0] cfg_dw = {7'd0, cfg_i[7:1], 2'b00};
wire [15:0] cfg_flags = {14'd0, cfg_switch_reg ? PBV_FLAG_SWITCH : 2'd0} | {14'd0, PBV_FLAG_VALID};
// The fixed writes: k = 2n (ERROR_REPORTING), 2n + 1 (SUB_TIMEOUT), then MASTER_TIMEOUT; equalities, not a
// subtraction and its compares (9 LUT levels into reg_wdata).
wire cfg_fixed_0 = cfg_sent_reg == {d_cfg_n_reg, 1'b0};
wire cfg_fixed_1 = cfg_sent_reg == {d_cfg_n_reg, 1'b1};
reg  [15:0] cfg_addr;
reg  [3:0]  cfg_be;
reg  [31:0] cfg_wdata;
always @* begin
    if (cfg_sent_reg < cfg_entry_writes) begin
        cfg_addr = (cfg_sent_reg[0] ? CFG_OFFSET_PBV_FLAGS : CFG_OFFSET_PBV) + cfg_dw;
        cfg_be = cfg_hi ? 4'hC : 4'h3;
        cfg_wdata = cfg_hi ? {cfg_sent_reg[0] ? cfg_flags : cfg_word, 16'd0} : {16'd0, cfg_sent_reg[0] ? cfg_flags : cfg_word};
    end else if (cfg_fixed_0) begin
        cfg_addr = CFG_OFFSET_ERROR_REPORTING;
        cfg_be = 4'h1;
        cfg_wdata = {24'd0, d_cfg_err_reg};
    end else if (cfg_fixed_1) begin
        cfg_addr = CFG_OFFSET_SUB_TIMEOUT;
        cfg_be = 4'hF;
        cfg_wdata = d_cfg_sub_reg;
    end else begin
        cfg_addr = CFG_OFFSET_MASTER_TIMEOUT;
        cfg_be = 4'hF;
        cfg_wdata = d_cfg_master_reg;
    end
end
