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
// 42 + 2j; CONFIG_SLOTS of them end inside the capture. An encapsulated configuration (kind 10) puts
// them 4 + 12 or 4 + 16 bytes later (descriptor, original header): slot 0 at 54, 58 or 62; a slot past
// the capture reads 0 (an accepted message never reaches it).
localparam CFG_SLOT0_3DW = 14 + CONFIG_FIXED_BYTES;
localparam integer CFG_SLOT_BASES = 5;
function integer cfg_slot_base(input integer base);
    // kind 1 (3-DW, 4-DW carrier), kind 10 (3/3, 3/4 or 4/3, 4/4 DW carrier/original)
    case (base)
        0: cfg_slot_base = CFG_SLOT0_3DW;
        1: cfg_slot_base = CFG_SLOT0_3DW + 4;
        2: cfg_slot_base = CFG_SLOT0_3DW + ENCAP_DESCRIPTOR_BYTES + 12;
        3: cfg_slot_base = CFG_SLOT0_3DW + ENCAP_DESCRIPTOR_BYTES + 16;
        default: cfg_slot_base = CFG_SLOT0_3DW + ENCAP_DESCRIPTOR_BYTES + 20;
    endcase
endfunction
wire [16*CONFIG_SLOTS-1:0] cfg_words_at [0:CFG_SLOT_BASES-1];
genvar gk;
generate
    for (gk = 0; gk < CFG_SLOT_BASES; gk = gk + 1) begin : g_cfg_base
        for (g = 0; g < CONFIG_SLOTS; g = g + 1) begin : g_cfg_slot
            localparam integer O = cfg_slot_base(gk) + 2 * g;
            if (O + 1 < CAPTURE_BYTES) begin : g_in
                assign cfg_words_at[gk][16*g +: 16] = {c_cap_reg[8*O +: 8], c_cap_reg[8*(O + 1) +: 8]};
            end else begin : g_out
                assign cfg_words_at[gk][16*g +: 16] = 16'd0;
            end
        end
    end
endgenerate
// One-hot choice of the base (an AND-OR, from the placement bits stage C's checks use): kind 1 by the
// carrier's Fmt, kind 10 by `encap_at` (an index summed from kind and both Fmts put an adder in front of
// the 5:1 multiplexer).
localparam integer CFG_WORD_BITS = 16 * CONFIG_SLOTS;
wire [CFG_SLOT_BASES-1:0] cfg_base_hot = {encap_at[3], encap_at[1] || encap_at[2], encap_at[0],
                                          !is_encap && four, !is_encap && !four};
reg [CFG_WORD_BITS-1:0] cfg_words;
always @* begin
    cfg_words = {CFG_WORD_BITS{1'b0}};
    for (k = 0; k < CFG_SLOT_BASES; k = k + 1) begin
        cfg_words = cfg_words | ({CFG_WORD_BITS{cfg_base_hot[k]}} & cfg_words_at[k]);
    end
end

// Stage C: the end of the subservient slots, n + s, so that stage D's switch test compares the slot
// index with registers only (the sum in D was 10 LUT levels; the whole range mask in C was 9).
wire [8:0] cfg_sub_end_c = {1'b0, cf[15]} + {1'b0, cf[13]};

// Stage D: the message's fields (loaded with the other D registers) and the writes already loaded.
reg [16*CONFIG_SLOTS-1:0] d_cfg_words_reg;
reg [7:0]                 d_cfg_n_reg;
reg [8:0]                 d_cfg_sub_end_reg;
reg [7:0]                 d_cfg_err_reg;
reg [31:0]                d_cfg_sub_reg;
reg [31:0]                d_cfg_master_reg;
reg [8:0]                 cfg_sent_reg;

// The accepted message's writes: 2 per entry (n <= CONFIG_SLOTS once accepted), then the fixed ones.
wire [8:0] cfg_entry_writes = {d_cfg_n_reg, 1'b0};
// Done when cfg_sent_reg is 2n + CONFIG_FIXED_WRITES: a sum_eq (logic; the adder's carry chain hid the
// compare and the AND after it from ABC, and cfg_wait gates `adv`, every stage's enable).
assign cfg_wait = d_valid_reg && win[R_C_CONFIG_ACCEPT] &&
                  !sum_eq({7'd0, cfg_entry_writes}, 16'd0, CONFIG_FIXED_WRITES, {7'd0, cfg_sent_reg});
wire cfg_load = cfg_wait && reg_free && !rst;

// Write k = cfg_sent_reg: entry i = k / 2 (its device ID for an even k, its flags for an odd one). The
// slot is picked by a shift (a mux tree) and the switch test is an OR over one comparator per slot, both
// of logarithmic depth (a loop of `if`s made a 43-deep priority chain).
wire [7:0] cfg_i = cfg_sent_reg[8:1];
/* verilator lint_off UNUSEDSIGNAL */
wire [16*CONFIG_SLOTS-1:0] cfg_shifted = d_cfg_words_reg >> {cfg_i, 4'd0};
/* verilator lint_on UNUSEDSIGNAL */
wire [15:0] cfg_word = cfg_shifted[15:0];
// The entry is a switch when its ID is one of slots n .. n+s-1 (the subservient engines; n + s from stage C).
wire [CONFIG_SLOTS-1:0] cfg_sub_hit;
generate
    for (g = 0; g < CONFIG_SLOTS; g = g + 1) begin : g_cfg_sub
        assign cfg_sub_hit[g] = g >= d_cfg_n_reg && g < d_cfg_sub_end_reg && d_cfg_words_reg[16*g +: 16] == cfg_word;
    end
endgenerate
// Registered with entry i's device-ID write (even k) and used by its flags write (k + 1): the mux of the
// slot, the comparators and their OR end at a register, not at reg_wdata.
reg cfg_switch_reg;
wire cfg_switch = |cfg_sub_hit;

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
