// Included inside module cpu (rtl/cpu.v), after the sequencer and before the descriptors' storage (EXEC's
// load level there reads this file's configuration write decode, cfg_st_we, cfg_sidx): the static
// table's storage (docs/blocks/cpu.md §Static table, §Where the tables live): the configuration port's
// and the sequencer's writes of the two RAMs st_cfg_mem and st_ctx_mem (declared with the read side in
// rtl/cpu.v), their read address, and the clearing sweep after a reset (model: crates/model/src/cpu/
// mod.rs `config_write`, the sweep of `Cpu::step`).

/*
 * Table writes: the sequencer's, then a configuration write on top (it wins, as in the model).
 */
wire [31:0]       cfg_off = {18'd0, cfg_wr_addr} - {18'd0, CFG_STATIC};
wire              cfg_st_we = cfg_wr_en && cfg_wr_addr >= CFG_STATIC && cfg_off < 2 * STATIC_ENTRIES;
wire [SIDX_W-1:0] cfg_sidx = cfg_off[SIDX_W:1];
wire              cfg_st_w0 = !cfg_off[0];

/*
 * The static table's RAMs (declared with the outputs). st_ctx_mem: one write port, the sequencer's, in
 * EXEC (the message's entry written back, with what an INITIALIZATION stores, a CONTROL's upstream, a
 * RESET's clear) and in FINISH for the next round (the TID). st_cfg_mem: one write port, the
 * configuration port's (word 0 below S_WAIT, word 1 from it; both on the entry's first write since the
 * reset, the other as 0, so that one ok bit covers the entry). The read address is the entry the next
 * state reads: the message's (its key's entry) from acceptance to EXEC, else the static entry of the
 * descriptor the sequencer works on next.
 */
wire              st_ctx_we = seq_reg == SEQ_EXEC || (seq_reg == SEQ_FINISH && fin_reg == FIN_NEXT_ROUND);
// The static entry of the next current descriptor: the one the sequencer writes (du), else its slot's
// tree (a descriptor's sidx is its tree's entry, st_index of the tag; read only for a live descriptor).
// The message's entry is read while the next state is SCAN, LOOKUP, COMPARE or EXEC: decoded from seq_reg
// (IDLE accepting a message, SCAN, LOOKUP, COMPARE), not from seq_next, and its key from the message those
// states keep (msg_in: the accepted s_msg in IDLE, else msg_reg, which is msg_next there), so that no
// step's decision and no outgoing template EXEC, CHECK or EXPIRE writes into msg_next reaches the read
// address (the CPU's deepest stage of session 22 ran CHECK's and EXPIRE's descriptor read -> template ->
// msg_next -> st_raddr; docs/performance.md §FPGA mapping, session 23). The PBV RAM's address below too.
wire              msg_accept = seq_reg == SEQ_IDLE && !out_valid_reg && !any_expired && s_msg_valid && !sweep_reg;
/* verilator lint_off UNUSEDSIGNAL */
wire [MSG_W-1:0]  msg_in = seq_reg == SEQ_IDLE ? s_msg_packed : msg_reg;
wire [13:0]       cur_next_tag = slot_tag_reg[slot_of(cur_next)];
wire [15:0]       msg_in_ctx = msg_in[M_CTX +: 16];
/* verilator lint_on UNUSEDSIGNAL */
wire              msg_in_scan = needs_scan(msg_in[M_FAMILY], msg_in[M_KIND +: 4], msg_in[M_PID +: 16]);
// seq_next == SEQ_SCAN and seq_next == SEQ_LOOKUP (only IDLE and SCAN go to them).
wire              next_scan = (msg_accept && msg_in_scan) || (seq_reg == SEQ_SCAN && !scan_last);
wire              next_lookup = (msg_accept && !msg_in_scan) || (seq_reg == SEQ_SCAN && scan_last);
wire [12:0]       msg_in_skey = msg_in[M_FAMILY] ? msg_in_ctx[12:0] : {1'b0, msg_in_ctx[11:0]};
wire              st_raddr_msg = msg_accept || seq_reg == SEQ_SCAN || seq_reg == SEQ_LOOKUP || seq_reg == SEQ_COMPARE;
wire [SIDX_W-1:0] st_raddr = st_raddr_msg ? st_index(msg_in_skey)
                           : cur_next == du_idx ? du[D_SIDX +: SIDX_W] : st_index(cur_next_tag[12:0]);
wire [S_WAIT-1:0] cfg_st_word0 = {cfg_wr_data[21:20], cfg_wr_data[12:0], cfg_wr_data[16], cfg_wr_data[31]};
wire [ST_CFG_W-S_WAIT-1:0] cfg_st_word1 = {cfg_wr_data[31], cfg_wr_data[19:0]};
// A word-0 write makes the entry new: c = !q (st_q_mem's combinational read at the written entry).
wire              cfg_st_c = !st_q_mem[cfg_sidx];
wire              cfg_new_w0 = cfg_st_we && cfg_st_w0;
// The sequencer's stamp: the c it read (su_idx is the entry at st_raddr_reg whenever st_ctx_we), or the
// old q when a word-0 write of the same entry comes at this edge (the entry stays new).
wire              su_q = (cfg_new_w0 && cfg_sidx == su_idx) ? st_ctx_rd[ST_CTX_W] : st_cfg_rd[ST_CFG_W];
localparam [SIDX_W-1:0] SWEEP_LAST = STATIC_ENTRIES[SIDX_W-1:0] - 1'b1;

always @(posedge clk) begin
    if (sweep_reg) begin
        st_ctx_mem[sweep_idx_reg] <= {(ST_CTX_W+1){1'b0}};
        st_q_mem[sweep_idx_reg] <= 1'b0;
        st_cfg_mem[sweep_idx_reg] <= {(ST_CFG_W+1){1'b0}};
    end else begin
        if (st_ctx_we) begin
            st_ctx_mem[su_idx] <= {su_q, su[S_STORED +: ST_CTX_W]};
            st_q_mem[su_idx] <= su_q;
        end
        if (cfg_st_we && cfg_st_w0) begin
            st_cfg_mem[cfg_sidx][S_WAIT-1:0] <= cfg_st_word0;
            st_cfg_mem[cfg_sidx][ST_CFG_W] <= cfg_st_c;
        end
        if (cfg_st_we && !cfg_st_w0) begin
            st_cfg_mem[cfg_sidx][ST_CFG_W-1:S_WAIT] <= cfg_st_word1;
        end
    end
    st_raddr_reg <= st_raddr;
end

// The clearing sweep after a reset: entry sweep_idx_reg is cleared at each edge, the last at the
// STATIC_ENTRIES-th edge after the reset's.
always @(posedge clk) begin
    if (rst) begin
        sweep_reg <= 1'b1;
        sweep_idx_reg <= {SIDX_W{1'b0}};
    end else if (sweep_reg) begin
        sweep_reg <= sweep_idx_reg != SWEEP_LAST;
        sweep_idx_reg <= sweep_idx_reg + 1'b1;
    end
end
