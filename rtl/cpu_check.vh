// ==== CHECK (model: crates/model/src/cpu/check.rs `Cpu::check`) ====
// Included inside module cpu (rtl/cpu.v), after its registers; the sequencer there commits check_* in
// state CHECK. The completion test after a contribution (docs/blocks/cpu.md §Messages).

// Completion (000 [0144]; 002 (56)), and whether a Portals count is over its wait count, registered in
// the cycle before CHECK (session 24, issue 19; no cycle changes): the descriptor read there through the
// 20-bit compares and the 128-bit zero test into the step's decision (the written word, the due bit,
// em_one_reg's enable) was the CPU's deepest stage (docs/performance.md §FPGA mapping, session 24). The
// fields compared (count, wait count, tracking bits, p_count, family) are EXEC's: nothing writes them
// between EXEC and CHECK (REDUCE writes the accumulator and the state, a tick the timer). CHECK follows
// REDUCE, whose descriptor (cur_reg) holds EXEC's write since ISSUE, or EXEC itself (a Portals round's
// first contribution, stored without combining), whose written count is dx_count_plus and wait count the
// read descriptor's: both compares registered in COMPARE (the descriptor read there, the message held).
// The registers are written in every cycle; CHECK reads the values of the cycle before it.
reg  chk_complete_reg;
reg  chk_over_reg;
reg  cmp_first_complete_reg;    // COMPARE: a first Portals contribution completes the round
reg  cmp_first_over_reg;        // ... and its count is over the wait count
always @(posedge clk) begin
    cmp_first_complete_reg <= dx_count_plus >= dx[D_WAIT +: 20];
    cmp_first_over_reg <= dx_count_plus > dx[D_WAIT +: 20];
    if (seq_reg == SEQ_EXEC) begin
        chk_complete_reg <= cmp_first_complete_reg;
        chk_over_reg <= cmp_first_over_reg;
    end else begin
        chk_complete_reg <= dcur[D_PORTALS] ? dcur[D_COUNT +: 20] >= dcur[D_WAIT +: 20]
                                            : dcur[D_PBV +: 128] == 128'd0 && dcur[D_PCOUNT +: 20] == 20'd0;
        chk_over_reg <= dcur[D_PORTALS] && dcur[D_COUNT +: 20] > dcur[D_WAIT +: 20];
    end
end
wire check_complete = chk_complete_reg;
// At completion a Portals result with more contributions than the wait count carries CONTR_OVERFLOW.
wire [3:0] chk_rc = chk_over_reg && dcur[D_ACC_RC +: 4] < RC_CONTR_OVERFLOW ? RC_CONTR_OVERFLOW : dcur[D_ACC_RC +: 4];
wire [MSG_W-1:0] t_portals_result = portals_msg(dcur, 1'b1, chk_rc, engine_sfa_reg);
wire [MSG_W-1:0] t_portals_partial = portals_msg(dcur, 1'b0, chk_rc, engine_sfa_reg);
wire [MSG_W-1:0] t_tlp_completion = tlp_msg(dcur, scur, engine_id_reg, 1'b1, 1'b0, 1'b0);
wire [MSG_W-1:0] t_tlp_response = tlp_msg(dcur, scur, engine_id_reg, 1'b0, 1'b0, 1'b0);

reg [3:0]        check_seq;
reg [D_W-1:0]    check_du;
reg [MSG_W-1:0]  check_tmpl;
reg [127:0]      check_em_mask;
reg              check_em_one;
reg              check_em_one_target;
reg [2:0]        check_fin;
reg [1:0]        check_rat_target;

always @* begin
    check_seq = SEQ_IDLE;
    check_du = dsel;
    check_tmpl = msg_reg;
    check_em_mask = em_mask_reg;
    check_em_one = em_one_reg;
    check_em_one_target = em_one_target_reg;
    check_fin = fin_reg;
    check_rat_target = rat_target_reg;
    // Only in the state that commits this step: its branches then count in line coverage only
    // when the sequencer uses them (the outputs above hold otherwise).
    if (seq_reg == SEQ_CHECK) begin
        // The template is written whether or not the round completes: an incomplete one goes back to IDLE,
        // where msg_reg is read by nothing until the next message or expiry replaces it (§Output register),
        // so msg_reg's enable does not wait on the completion compare (a deepest stage of session 23's
        // run, docs/performance.md §FPGA mapping).
        check_tmpl = dcur[D_PORTALS] ? (dcur[D_ROLE +: 2] == ROLE_MASTER ? t_portals_result : t_portals_partial)
                                     : (dcur[D_ROLE +: 2] == ROLE_MASTER ? t_tlp_completion : t_tlp_response);
        if (check_complete) begin
            check_du[D_STATE +: 2] = dcur[D_STATE +: 2] + 2'd1;
            check_du[D_ACC_RC +: 4] = chk_rc;
            check_em_mask = 128'd0;
            check_em_one = 1'b1;
            check_seq = SEQ_RATCHET;
            if (dcur[D_PORTALS]) begin
                check_rat_target = CS_EXITING;
                if (dcur[D_ROLE +: 2] == ROLE_MASTER) begin
                    check_fin = FIN_REARM;
                end else begin
                    check_fin = FIN_FREE;
                end
            end else if (dcur[D_ROLE +: 2] == ROLE_MASTER) begin
                check_em_mask = scur[S_PBV +: 128];
                check_em_one_target = scur[S_ONE_TARGET];
                check_rat_target = CS_EXITING;
                check_fin = FIN_NEXT_ROUND;
            end else begin
                check_du[D_ATTEMPTS +: 4] = 4'd0;
                check_du[D_SENT_ERROR] = 1'b0;
                check_rat_target = CS_FULL;
                check_fin = FIN_WAIT;
            end
        end
    end
end
