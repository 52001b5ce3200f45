// Included inside module cpu (rtl/cpu.v), after the sequencer: the descriptors' storage and timers (the
// written word, the due/expired bits and the timer scan, d_mem and dl_mem; docs/blocks/cpu.md
// §Descriptors, §Timers "Timer scan"; model: crates/model/src/cpu/mod.rs and lookup.rs).

/*
 * Descriptors (docs/blocks/cpu.md §Descriptors, §Timers "Timer scan"). The sequencer writes its one
 * descriptor (du at du_idx) back into d_mem every cycle, a running timer as its deadline: the tick count
 * at which it expires, now + max(T, 1) after this cycle's tick (25 bits, modulo 2^25: a timer holds at
 * most 2^25 - 1 ticks). Every other descriptor takes its timer tick through its `due` bit: set when its
 * deadline is the next tick, a tick then sets its `expired` bit, exactly when the model's tick loop
 * expires it. The due bits are kept by the sequencer's write (due when T <= 1) and by the timer scan,
 * which reads SCAN_LANES deadlines a cycle from dl_mem (a copy of each descriptor's running flag and
 * deadline) and so sees every descriptor between two ticks (SCAN_WORDS <= TICK_CYCLES): a deadline is
 * due at tick n + 1 once tick n has passed, and no deadline changes without a write of the sequencer.
 */
wire              du_runs = timer_runs(du);
// The deadline written, now_next + max(T, 1) with no adder after the step's decision: a timer that ran
// from its deadline and still runs with the ticks dsel gave it keeps the deadline read (rd_t = now_next
// + du_t); a load (du_tld) takes now_next + its value: EXEC's fresh descriptor (the message's family and
// kind choose desc_new's load, as in cpu_execute.vh) one of the sums tmo_dl_reg (below), FINISH the
// descriptor's D_LOAD added to now_next; any other running timer is one dsel did not tick, its ticks the stopped timer's
// as read (rd_t), or 0 (an expired timer, or an unwritten word). Due when the deadline is now_next + 1.
// EXEC's load is chosen, not summed (session 23: the threshold compares, the timeout's choice and this
// adder in series were a deepest stage, docs/performance.md §FPGA mapping): tmo_dl_reg holds now_next + T
// for each configured timeout T, and + 2T (a master's), in this cycle; each is registered from the next
// cycle's now_next (now_after: tick_after, whether that cycle ticks) and timeout_next. The step only
// picks one by the load level (x_level: which of the four timeouts the wait count takes, as load_for picks
// its T) and the role.
reg  [24:0]       tmo_dl_reg [0:7];   // index {master, timeout}
wire              tick_after = tick_cnt_next == TICK_LAST;
wire [24:0]       now_after = tick_after ? now_next_1 : now_next;
// After a reset now_reg is 0 and now1_reg 1, and the first cycle ticks when a tick is one cycle.
localparam [24:0] NOW_AFTER_RESET = TICK_LAST == {TICK_W{1'b0}} ? 25'd1 : 25'd0;
// EXEC's load level (load_for's choice of timeout: the wait count against the thresholds, 20-bit compares)
// is registered in COMPARE (session 24, issue 19; no cycle changes: those compares, the choice among
// tmo_dl_reg and the written word in series were the CPU's deepest stage). It holds what EXEC would
// compute: the message is held, the stored context's p_count is written by the sequencer only (EXEC,
// FINISH), and what a configuration write at the edge into EXEC changes is taken as written, the way EXEC
// then reads it: the thresholds as written (c_gt), the static entry's wait count from the write's data
// when word 1 of the message's entry (st_raddr_reg, read again in EXEC) is written.
// (x_level_reg is declared in cpu_execute.vh, whose fresh descriptors record its timeout.)
wire              cfg_wait_we = m_portals && cfg_st_we && !cfg_st_w0 && cfg_sidx == st_raddr_reg;
wire [19:0]       c_load_w = m_portals ? sx[S_WAIT +: 20] : m_kind == K_INIT ? m_count : s_pcount;
// Each threshold's compare with every value either side may hold in EXEC, the configuration write's
// decode after them (one write: a threshold or the wait count, not both): the decode before the compares
// (threshold_next, then the forwarded wait count) was the deepest stage in this session's runs.
wire [2:0]        c_gt;
generate
    for (g = 0; g < 3; g = g + 1) begin : g_thr_gt
        wire thr_we = cfg_wr_en && cfg_wr_addr >= CFG_THRESHOLD && cfg_wr_addr < CFG_ENGINE_ID && cfg_wr_addr[1:0] == g[1:0];
        assign c_gt[g] = cfg_wait_we ? cfg_wr_data[19:0] > threshold_reg[g]
                       : thr_we ? c_load_w > cfg_wr_data[19:0] : c_load_w > threshold_reg[g];
    end
endgenerate
always @(posedge clk) begin
    x_level_reg <= c_gt[2] ? 2'd3 : c_gt[1] ? 2'd2 : c_gt[0] ? 2'd1 : 2'd0;
end
wire [1:0]        x_level = x_level_reg;
wire              x_master = s_role == ROLE_MASTER;
// EXEC's load (x_load, cpu_execute.vh) is 0 when its timeout
// is, and at most 1 when its timeout is 0 (a master's 2T) or at most 1: flags of each configured timeout,
// chosen like the sums (a compare after the choice was the next deepest stage, session 23).
wire [3:0]        tmo_zero;
wire [3:0]        tmo_le1;
generate
    for (g = 0; g < 4; g = g + 1) begin : g_tmo_flags
        assign tmo_zero[g] = timeout_reg[g] == 24'd0;
        assign tmo_le1[g] = timeout_reg[g][23:1] == 23'd0;
    end
endgenerate
// Which timeout a configuration write sets at this edge (the register-write block's timeout branch:
// CFG_TIMEOUT .. CFG_THRESHOLD - 1, four words).
wire [3:0]        tmo_we;
generate
    for (g = 0; g < 4; g = g + 1) begin : g_tmo_we
        assign tmo_we[g] = cfg_wr_en && cfg_wr_addr >= CFG_TIMEOUT && cfg_wr_addr < CFG_THRESHOLD && cfg_wr_addr[1:0] == g[1:0];
    end
endgenerate
wire              x_zero = tmo_zero[x_level];
wire              x_le1 = x_master ? x_zero : tmo_le1[x_level];
wire [24:0]       f_load = dcur[D_LOAD +: 25];
wire              tld_zero = seq_reg == SEQ_FINISH ? f_load == 25'd0 : x_zero;
wire              tld_le1 = seq_reg == SEQ_FINISH ? f_load[24:1] == 24'd0 : x_le1;
wire [24:0]       tld_sum = seq_reg == SEQ_FINISH ? now_next + f_load : tmo_dl_reg[{x_master, x_level}];
wire [24:0]       t_stop = (rd_ok_reg && !rd_dl) ? rd_t : 25'd0;
wire [24:0]       dl_load = tld_zero ? now_next_1 : tld_sum;
wire [24:0]       dl_stop = t_stop == 25'd0 ? now_next_1 : now_next + t_stop;
wire              du_keep = !du_tld && rd_run && !rd_tick_exp;
wire [24:0]       du_deadline = du_tld ? dl_load : du_keep ? rd_t : dl_stop;
wire              du_due = du_runs && (du_tld ? tld_le1 : du_keep ? rd_t == now_next_1 : t_stop <= 25'd1);
reg  [D_W-1:0]    du_word;
always @* begin
    du_word = du;
    du_word[D_VALID] = 1'b0;
    du_word[D_EXPIRED] = du_runs;
    if (du_runs) du_word[D_TIMER +: 25] = du_deadline;
end

// The timer scan's word (SCAN_LANES descriptors: lane l of word w is descriptor w * SCAN_LANES + l).
reg  [SWORD_W-1:0]       scan_dw_reg;
wire [26*SCAN_LANES-1:0] dl_rd;            // per lane: {running, deadline}
// Each lane's deadline against the next tick, once per lane; and which descriptors this cycle's
// scan word and the sequencer's write address select, one comparison with a constant per descriptor
// (an index `x[du_idx] = ...` costs a 32-bit offset adder and a shifter chain in Yosys: the CPU's
// longest stage ended at d_ok_reg through it, docs/performance.md §FPGA mapping, session 21).
wire [SCAN_LANES-1:0]    lane_due;
wire [ND-1:0]            scan_sel;
wire [ND-1:0]            du_sel;
generate
    for (g = 0; g < SCAN_LANES; g = g + 1) begin : g_lane_due
        assign lane_due[g] = dl_rd[26*g + 25] && dl_rd[26*g +: 25] == now_next_1;
    end
    for (g = 0; g < ND; g = g + 1) begin : g_dsel
        assign scan_sel[g] = word_of(g[DIDX_W-1:0]) == scan_dw_reg;
        assign du_sel[g] = du_idx == g[DIDX_W-1:0];
    end
endgenerate
always @* begin
    for (k = 0; k < ND; k = k + 1) begin
        d_valid_next[k] = d_valid_reg[k];
        d_exp_next[k] = d_exp_reg[k] || (tick && d_due_reg[k]);
        d_due_next[k] = d_due_reg[k];
        // The timer scan's lane of descriptor k, if its word is read this cycle.
        if (scan_sel[k]) d_due_next[k] = d_valid_reg[k] && lane_due[lane_of(k[DIDX_W-1:0])] && !d_exp_next[k];
        // The sequencer's write wins.
        if (du_sel[k]) begin
            d_valid_next[k] = du[D_VALID];
            d_exp_next[k] = du[D_EXPIRED];
            d_due_next[k] = du_due;
        end
    end
end

/*
 * The descriptor RAM: the sequencer writes its one descriptor (du at du_idx, as du_word) back every cycle
 * (the descriptor it read, or the step's new value); the read address is the descriptor the next state
 * reads: the message's (lookup_d_idx, then lk_d_idx_reg) before COMPARE and EXEC, else the next current
 * one. dl_mem: the running flag and deadline again, one RAM per scan lane, read by the timer scan at scan_dw_reg.
 */
// (LOOKUP always goes on to COMPARE, COMPARE to EXEC: the state decides, not seq_next.)
wire [DIDX_W-1:0] d_raddr = seq_reg == SEQ_LOOKUP ? lookup_d_idx : seq_reg == SEQ_COMPARE ? lk_d_idx_reg : cur_next;

// Whether the word read next was written since reset, registered with its address (the 64-to-1 mux of
// d_ok_reg read at d_raddr_reg gated the whole read word: the CPU's longest stage started there,
// docs/performance.md §FPGA mapping, session 21). This cycle's write counts (d_ok_reg | du_sel).
wire [ND-1:0]     d_ok_next = rst ? {ND{1'b0}} : d_ok_reg | du_sel;

always @(posedge clk) begin
    d_mem[du_idx] <= du_word;
    d_raddr_reg <= d_raddr;
    rd_ok_reg <= d_ok_next[d_raddr];
    if (du[D_VALID]) slot_tag_reg[slot_of(du_idx)] <= {du[D_PORTALS], du[D_KEY +: 13]};
end

generate
    for (g = 0; g < SCAN_LANES; g = g + 1) begin : g_dl
        reg [25:0] dl_mem [0:SCAN_WORDS-1];
        always @(posedge clk) begin
            if (lane_of(du_idx) == g) dl_mem[word_of(du_idx)] <= {du_runs, du_word[D_TIMER +: 25]};
        end
        assign dl_rd[26*g +: 26] = dl_mem[scan_dw_reg];
    end
endgenerate

localparam [SWORD_W-1:0] SCAN_LAST = SCAN_WORDS[SWORD_W-1:0] - 1'b1;

always @(posedge clk) begin
    d_valid_reg <= d_valid_next;
    d_exp_reg <= d_exp_next;
    d_due_reg <= d_due_next;
    d_ok_reg <= d_ok_next;
    now_reg <= now_next;
    now1_reg <= now_next_1;
    now2_reg <= now_next_1 + 25'd1;
    scan_dw_reg <= scan_dw_reg == SCAN_LAST ? {SWORD_W{1'b0}} : scan_dw_reg + 1'b1;
    // The tick as a flip-flop (session 24): its compare was the first three levels of the adders after
    // now_next (FINISH's reload, a stopped timer's deadline), a deepest stage after the load level's cut.
    tick_reg <= tick_after;
    // timeout_next[k] is the written data when timeout k is written at this edge, else timeout_reg[k]: the
    // sums of both, and the write's decode after them (before them it was the next deepest stage).
    for (k = 0; k < 4; k = k + 1) begin
        tmo_dl_reg[k] <= tmo_we[k] ? now_after + {1'b0, cfg_wr_data[23:0]} : now_after + {1'b0, timeout_reg[k]};
        tmo_dl_reg[4 + k] <= tmo_we[k] ? now_after + {cfg_wr_data[23:0], 1'b0} : now_after + {timeout_reg[k], 1'b0};
    end
    if (rst) begin
        for (k = 0; k < 4; k = k + 1) begin
            tmo_dl_reg[k] <= NOW_AFTER_RESET + {1'b0, TIMEOUT_RESET};
            tmo_dl_reg[4 + k] <= NOW_AFTER_RESET + {TIMEOUT_RESET, 1'b0};
        end
        d_valid_reg <= {ND{1'b0}};
        d_exp_reg <= {ND{1'b0}};
        d_due_reg <= {ND{1'b0}};
        d_ok_reg <= {ND{1'b0}};
        now_reg <= 25'd0;
        now1_reg <= 25'd1;
        now2_reg <= 25'd2;
        scan_dw_reg <= {SWORD_W{1'b0}};
        tick_reg <= TICK_LAST == {TICK_W{1'b0}};
    end
end
