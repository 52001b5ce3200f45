// ==== LOOKUP (model: crates/model/src/cpu/lookup.rs `Cpu::lookup`) ====
// Included inside module cpu (rtl/cpu.v), after its registers; the sequencer there commits lookup_* to
// the lk_* registers in state LOOKUP. The lookups of the latched message (docs/blocks/cpu.md §Messages, §6).

// The static entry: the message key's one entry (direct-mapped, read from the RAMs at the address
// registered when the message was accepted), a hit when its tag is the message's key and family.
// The descriptors (docs/blocks/cpu.md §Descriptors): indexed by (tree slot, reduction id). The tree's slot
// is the one whose tag (family and tree of its live descriptors) matches, searched as a bit vector over the
// DESCRIPTORS slots (a slot is live while one of its REDUCTIONS valid bits is set); a tree without a
// slot takes the lowest free one. The reduction id is ctx bits 15:13 (Portals, DFA bits 20-18, 002 (61));
// TLP: 0. The lowest index wins, found by isolating the lowest set bit and encoding it.
integer j;
reg [127:0] slot_match, slot_free, d_expired;
wire [12:0] skey = m_portals ? m_ctx[12:0] : {1'b0, m_ctx[11:0]};
wire [RID_W-1:0] rid = m_portals ? m_ctx[13 +: RID_W] : {RID_W{1'b0}};

always @* begin
    slot_match = 128'd0;
    slot_free = 128'd0;
    for (j = 0; j < DESCRIPTORS; j = j + 1) begin
        slot_match[j] = |d_valid_reg[REDUCTIONS*j +: REDUCTIONS] && slot_tag_reg[j] == {m_portals, skey};
        slot_free[j] = !(|d_valid_reg[REDUCTIONS*j +: REDUCTIONS]);
    end
    d_expired = 128'd0;
    d_expired[ND-1:0] = d_exp_reg & d_valid_reg;
end

/* verilator lint_off UNUSEDSIGNAL */
wire [6:0] slot_first = lowest_index(slot_match);
wire [6:0] free_slot_first = lowest_index(slot_free);
wire [6:0] expired_first = lowest_index(d_expired);
/* verilator lint_on UNUSEDSIGNAL */
// Descriptor `slot * REDUCTIONS + rid` (below ND: the product's top bits unused).
/* verilator lint_off UNUSEDSIGNAL */
function automatic [DIDX_W-1:0] d_index(input [6:0] slot, input [RID_W-1:0] r);
    reg [13:0] x;
    begin
        x = {7'd0, slot} * REDUCTIONS[13:0] + {{(14-RID_W){1'b0}}, r};
        d_index = x[DIDX_W-1:0];
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */
wire [DIDX_W-1:0] slot_idx = d_index(slot_first, rid);
wire [DIDX_W-1:0] free_idx = d_index(free_slot_first, rid);
// A pending expiry is served before the next message (IDLE).
assign any_expired = |(d_exp_reg & d_valid_reg);
assign first_expired = expired_first[DIDX_W-1:0];

wire              lookup_s_hit = sx[S_VALID] && sx[S_PORTALS] == m_portals && sx[S_KEY +: 13] == skey;
wire [SIDX_W-1:0] lookup_s_idx = st_index(skey);
wire              lookup_d_hit = |slot_match && d_valid_reg[slot_idx];
wire [DIDX_W-1:0] lookup_d_idx = lookup_d_hit ? slot_idx : {DIDX_W{1'b0}};
wire              lookup_f_hit = |slot_match ? !d_valid_reg[slot_idx] : |slot_free;
wire [DIDX_W-1:0] lookup_f_idx = !lookup_f_hit ? {DIDX_W{1'b0}} : |slot_match ? slot_idx : free_idx;
reg               lookup_p_hit;
reg [6:0]         lookup_p_idx;
reg               lookup_p_sender;

// The reverse lookup of state SCAN (docs/blocks/cpu.md §PBV table; model: lookup.rs `needs_scan`): a TLP
// CONTRIBUTION or RESPONSE without a P_ID (the requester's device ID is searched), a TLP INITIALIZATION
// with one (its P_ID, a device ID, is searched). No other message reads the participant.
function automatic needs_scan(input portals, input [3:0] kind, input [15:0] pid);
    needs_scan = !portals && (((kind == K_INIT || kind == K_CONFIGURATION) && pid != NO_PARTICIPANT)
                              || ((kind == K_CONTRIB || kind == K_RESPONSE) && pid == NO_PARTICIPANT));
endfunction

// State SCAN (model: `Cpu::scan`), in two steps a cycle apart (rtl/cpu.v §SCAN). Compare: the word of the
// device-ID RAM at pbv_raddr_reg against the searched ID, one bit per slot, registered in scan_vec_reg.
// Choose, a cycle later: the lowest match of the registered word, kept unless an earlier word had one
// (scan_hit/scan_idx, the participant as it stands after that word; lowest_index's tree, 5 levels on
// the 32 slots). The sequencer commits them in lk_p_* in each SCAN cycle; LOOKUP takes them after the
// last word.
reg [PBV_SCAN_ENTRIES-1:0] scan_match;
always @* begin
    for (j = 0; j < PBV_SCAN_ENTRIES; j = j + 1) begin
        scan_match[j] = pbv_valid_reg[{pbv_raddr_reg, j[PBV_SLOT_W-1:0]}] && pbv_dev_rd[16*j +: 16] == p_who;
    end
end

wire       scan_hit = lk_p_hit_reg || |scan_vec_reg;
// Without a hit the index stays 0, as in the model.
/* verilator lint_off UNUSEDSIGNAL */
wire [6:0] scan_first = lowest_index({{(128-PBV_SCAN_ENTRIES){1'b0}}, scan_vec_reg});
/* verilator lint_on UNUSEDSIGNAL */
wire [6:0] scan_idx = lk_p_hit_reg ? lk_p_idx_reg
                    : |scan_vec_reg ? {scan_word_reg, scan_first[PBV_SLOT_W-1:0]} : 7'd0;
wire       scan_last = &pbv_raddr_reg;

// The device ID of the P_ID's entry: LOOKUP reads the word addressed when the message was accepted.
wire [15:0] pid_dev = pbv_dev_rd[16*m_pid[PBV_SLOT_W-1:0] +: 16];

always @* begin
    // The participant: P_ID if given ([0169]), an index; else the reverse lookup SCAN did.
    if (needs_scan(m_portals, m_kind, m_pid)) begin
        lookup_p_hit = scan_hit;
        lookup_p_idx = scan_idx;
        lookup_p_sender = scan_hit;
    end else if (m_pid != NO_PARTICIPANT && !m_init_tlp) begin
        lookup_p_hit = m_pid < 16'd128;
        lookup_p_idx = m_pid < 16'd128 ? m_pid[6:0] : 7'd0;
        // A P_ID is trusted only for the device its entry holds (docs/blocks/cpu.md §Messages, WRONG_SENDER).
        lookup_p_sender = m_pid < 16'd128 && pbv_valid_reg[m_pid[6:0]] && pid_dev == m_src[15:0];
    end else begin
        lookup_p_hit = 1'b0;
        lookup_p_idx = 7'd0;
        lookup_p_sender = 1'b0;
    end
end
