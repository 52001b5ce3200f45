// inswitch input checker: FIG. 4 configuration messages as register writes (seed 000 [0154]-[0158];
// docs/blocks/input_checker.md §Configuration messages). Included inside module input_checker
// (rtl/input_checker.v), after stage D's verdict; model crates/model/src/input_checker/config.rs.
//
// A configuration message (collective kind 1) that passes every check leaves stage D as
// 2 x n_devices + CONFIG_FIXED_WRITES register writes on m_reg, one whenever the register output is free:
// for each PBV entry i its device ID (a 2-byte write into the PBV table, [0175]'s form) then its
// PBV_FLAGS (valid; switch when the ID is one of the message's subservient engines), then ERROR_REPORTING,
// SUB_TIMEOUT, MASTER_TIMEOUT. While writes remain, cfg_wait holds the whole pipeline (adv low, as a
// stalled output); the frame's stat_event pulse (accept_reg) comes when D is taken after the last write.

// Stage C: the message's 16-bit slots from payload byte 24 on (device IDs, then subservient IDs), from
// the capture: the payload starts at byte 14 (3-DW carrier) or 18 (4-DW), so slot j is at byte 38 + 2j or
// 42 + 2j; CONFIG_SLOTS of them end inside the capture.
localparam CFG_SLOT0_3DW = 14 + CONFIG_FIXED_BYTES;
localparam CFG_SLOT0_4DW = 18 + CONFIG_FIXED_BYTES;
wire [16*CONFIG_SLOTS-1:0] cfg_words;
generate
    for (g = 0; g < CONFIG_SLOTS; g = g + 1) begin : g_cfg_slot
        assign cfg_words[16*g +: 16] = four ? {c_cap_reg[8*(CFG_SLOT0_4DW + 2*g) +: 8], c_cap_reg[8*(CFG_SLOT0_4DW + 2*g + 1) +: 8]}
                                            : {c_cap_reg[8*(CFG_SLOT0_3DW + 2*g) +: 8], c_cap_reg[8*(CFG_SLOT0_3DW + 2*g + 1) +: 8]};
    end
endgenerate

// Stage D: the message's fields (loaded with the other D registers) and the writes already loaded.
reg [16*CONFIG_SLOTS-1:0] d_cfg_words_reg;
reg [7:0]                 d_cfg_n_reg;
reg [7:0]                 d_cfg_s_reg;
reg [7:0]                 d_cfg_err_reg;
reg [31:0]                d_cfg_sub_reg;
reg [31:0]                d_cfg_master_reg;
reg [8:0]                 cfg_sent_reg;

// The accepted message's writes: 2 per entry (n <= CONFIG_SLOTS once accepted), then the fixed ones.
wire [8:0] cfg_entry_writes = {d_cfg_n_reg, 1'b0};
wire [8:0] cfg_count = cfg_entry_writes + CONFIG_FIXED_WRITES[8:0];
assign cfg_wait = d_valid_reg && win[R_C_CONFIG_ACCEPT] && cfg_sent_reg != cfg_count;
wire cfg_load = cfg_wait && reg_free && !rst;

// Write k = cfg_sent_reg: entry i = k / 2 (its device ID for an even k, its flags for an odd one).
wire [7:0] cfg_i = cfg_sent_reg[8:1];
reg [15:0] cfg_word;
reg        cfg_switch;
integer j;
always @* begin
    cfg_word = 16'd0;
    for (j = 0; j < CONFIG_SLOTS; j = j + 1) begin
        if ({24'd0, cfg_i} == j) begin
            cfg_word = d_cfg_words_reg[16*j +: 16];
        end
    end
    // The entry is a switch when its ID is one of slots n .. n+s-1 (the subservient engines).
    cfg_switch = 1'b0;
    for (j = 0; j < CONFIG_SLOTS; j = j + 1) begin
        if (j >= {24'd0, d_cfg_n_reg} && j < {23'd0, {1'b0, d_cfg_n_reg} + {1'b0, d_cfg_s_reg}} &&
                d_cfg_words_reg[16*j +: 16] == cfg_word) begin
            cfg_switch = 1'b1;
        end
    end
end

wire        cfg_hi = cfg_i[0];
wire [15:0] cfg_dw = {7'd0, cfg_i[7:1], 2'b00};
wire [15:0] cfg_flags = {14'd0, cfg_switch ? PBV_FLAG_SWITCH : 2'd0} | {14'd0, PBV_FLAG_VALID};
wire [8:0]  cfg_fixed_k = cfg_sent_reg - cfg_entry_writes;
reg  [15:0] cfg_addr;
reg  [3:0]  cfg_be;
reg  [31:0] cfg_wdata;
always @* begin
    if (cfg_sent_reg < cfg_entry_writes) begin
        cfg_addr = (cfg_sent_reg[0] ? CFG_OFFSET_PBV_FLAGS : CFG_OFFSET_PBV) + cfg_dw;
        cfg_be = cfg_hi ? 4'hC : 4'h3;
        cfg_wdata = cfg_hi ? {cfg_sent_reg[0] ? cfg_flags : cfg_word, 16'd0} : {16'd0, cfg_sent_reg[0] ? cfg_flags : cfg_word};
    end else if (cfg_fixed_k == 9'd0) begin
        cfg_addr = CFG_OFFSET_ERROR_REPORTING;
        cfg_be = 4'h1;
        cfg_wdata = {24'd0, d_cfg_err_reg};
    end else if (cfg_fixed_k == 9'd1) begin
        cfg_addr = CFG_OFFSET_SUB_TIMEOUT;
        cfg_be = 4'hF;
        cfg_wdata = d_cfg_sub_reg;
    end else begin
        cfg_addr = CFG_OFFSET_MASTER_TIMEOUT;
        cfg_be = 4'hF;
        cfg_wdata = d_cfg_master_reg;
    end
end
