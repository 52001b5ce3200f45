// The register space's multicast entries (docs/blocks/register_space.md §Multicast entries), included
// inside module register_space (rtl/register_space.v) after the static entries' RAM, which they follow:
// the entry of tree t is word t of mcast_mem (one write port, one synchronous read port, no reset: the
// post-reset sweep clears it), reached through MCAST_INDEX, one per requester (MCAST_INDEX_SLOTS slots,
// round robin), each slot with its entry in data registers (loaded in the cycle after the index write,
// mcast_load_reg, s_reg_ready low, and written with the RAM), so that a read's response and a write's
// byte-enable merge stay on registers as for every other register.

// An index write (any byte enabled) reads the new tree's entry; the slot's data registers take it next cycle.
wire [MCAST_INDEX_BITS-1:0] mindex_new = wr_value[MCAST_INDEX_BITS-1:0];
wire mcast_rd = do_write && be_any && is_mindex;
// The entry after a KEY / WAIT / PORTS write: KEY writes only valid (its tree bits are the index).
wire [MCAST_WORD_BITS-1:0] mcast_word_new = is_mkey ? {wr_value[31], mcast_word_cur[35:0]} :
                                            is_mwait ? {mcast_word_cur[36], wr_value[19:0], mcast_word_cur[15:0]} :
                                            {mcast_word_cur[36:16], wr_value[15:0]};
wire mcast_sweep = sweep_reg && {1'b0, sweep_index_reg} < SWEEP_MCAST;
wire mcast_we = mcast_sweep || (do_write && is_mentry);
wire [MCAST_ADDR_WIDTH-1:0] mcast_wr_addr = sweep_reg ? sweep_index_reg[MCAST_ADDR_WIDTH-1:0] : mcast_index_cur[MCAST_ADDR_WIDTH-1:0];

integer m;

always @(posedge clk) begin
    if (mcast_we) begin
        mcast_mem[mcast_wr_addr] <= sweep_reg ? {MCAST_WORD_BITS{1'b0}} : mcast_word_new;
    end
    // A tree beyond the table reads nothing (its registers are unmapped).
    if (mcast_rd && {1'b0, mindex_new} < MCAST_COUNT) begin
        mcast_q <= mcast_mem[mindex_new[MCAST_ADDR_WIDTH-1:0]];
    end
end

always @(posedge clk) begin
    mcast_load_reg <= mcast_rd;
    if (mcast_rd) begin
        // The requester's slot, or the next one (then the round robin moves on).
        for (m = 0; m < MCAST_INDEX_SLOTS; m = m + 1) begin
            if (mslot_take[m]) begin
                mslot_valid_reg[m] <= 1'b1;
                mslot_src_reg[m] <= s_reg_src;
                mslot_index_reg[m] <= mindex_new;
                mslot_in_table_reg[m] <= {1'b0, mindex_new} < MCAST_COUNT;
            end
        end
        mcast_load_slot_reg <= mslot_take;
        if (!mslot_hit) begin
            mcast_next_reg <= mcast_next_reg + {{(MSLOT_WIDTH-1){1'b0}}, 1'b1};
        end
    end
    for (m = 0; m < MCAST_INDEX_SLOTS; m = m + 1) begin
        if (mcast_load_reg && mcast_load_slot_reg[m]) begin
            mslot_word_reg[m] <= mcast_q;
        end
        // A KEY / WAIT / PORTS write reaches every slot that holds the tree (the RAM's copy in each).
        if (do_write && is_mentry && mslot_valid_reg[m] && mslot_index_reg[m] == mcast_index_cur) begin
            mslot_word_reg[m] <= mcast_word_new;
        end
    end
    if (rst) begin
        for (m = 0; m < MCAST_INDEX_SLOTS; m = m + 1) begin
            mslot_valid_reg[m] <= 1'b0;
            mslot_src_reg[m] <= 16'd0;
            mslot_index_reg[m] <= {MCAST_INDEX_BITS{1'b0}};
            mslot_in_table_reg[m] <= 1'b0;
            mslot_word_reg[m] <= {MCAST_WORD_BITS{1'b0}};
        end
        mcast_next_reg <= {MSLOT_WIDTH{1'b0}};
        mcast_load_slot_reg <= {MCAST_INDEX_SLOTS{1'b0}};
        mcast_load_reg <= 1'b0;
    end
end
