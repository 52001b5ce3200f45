// ==== FINISH (model: crates/model/src/cpu/finish.rs `Cpu::finish`) ====
// Included inside module cpu (rtl/cpu.v), after its registers; the sequencer there commits finish_* in
// state FINISH. The end-of-round action (docs/blocks/cpu.md §State machine, §4).

wire [9:0] dcur_next_seqno = next_seqno(dcur[D_SEQNO +: 10]);

reg [D_W-1:0]    finish_du;
reg              finish_tld;        // finish_du's timer is re-loaded, not dsel's
reg [SIDX_W-1:0] finish_su_idx;
reg [S_W-1:0]    finish_su;

always @* begin
    finish_du = dsel;
    finish_tld = 1'b0;
    finish_su_idx = lk_s_idx_reg;
    finish_su = sx;
    // Only in the state that commits this step: its branches then count in line coverage only
    // when the sequencer uses them (the outputs above hold otherwise).
    if (seq_reg == SEQ_FINISH) begin
        case (fin_reg)
            FIN_FREE: begin
                finish_du[D_STATE +: 2] = CS_IDLE;
                finish_du[D_VALID] = 1'b0;
            end
            FIN_REARM: begin
                // The master re-arms itself for the next round (002 (37)).
                finish_du[D_STATE +: 2] = CS_IDLE;
                finish_du[D_SEQNO +: 10] = dcur_next_seqno;
                finish_du[D_COUNT +: 20] = 20'd0;
                finish_du[D_ACCV] = 1'b0;
                finish_du[D_ACC_OP +: 6] = 6'd0;
                finish_du[D_ACC_DATA +: 256] = 256'd0;
                finish_du[D_ACC_RC +: 4] = 4'd0;
                finish_du[D_ACC_RSM +: 8] = 8'd0;
                finish_du[D_ACC_OFLOW +: 2] = 2'd0;
                finish_du[D_ACC_SFA +: 32] = 32'd0;
                finish_du[D_TIMER +: 25] = dcur[D_LOAD +: 25];
                finish_tld = 1'b1;
                finish_du[D_EXPIRED] = 1'b0;
            end
            FIN_WAIT: begin
                finish_du[D_TIMER +: 25] = dcur[D_LOAD +: 25];
                finish_tld = 1'b1;
                finish_du[D_EXPIRED] = 1'b0;
            end
            FIN_NEXT_ROUND: begin
                // Exiting -> Idle: TID + 1 (001), tracking store re-loaded (000 [0141]).
                finish_su_idx = dcur[D_SIDX +: SIDX_W];
                finish_su = scur;
                finish_su[S_TID +: 2] = scur[S_TID +: 2] + 2'd1;
                finish_du[D_STATE +: 2] = CS_IDLE;
                finish_du[D_PBV +: 128] = scur[S_PBV +: 128];
                finish_du[D_PCOUNT +: 20] = scur[S_PCOUNT +: 20];
                finish_du[D_ACCV] = 1'b1;
                // A round that ended with a COMPLETION (the master's result or timeout, the parent's
                // result at a subservient) keeps it for a RETRY (000 [0098], [0117]): accumulator and
                // count take the message's result fields, re-loaded at the next round's first
                // contribution (EXECUTE). A round that ended with retries exhausted keeps nothing.
                finish_du[D_KEPT] = msg_reg[M_KIND +: 4] == K_COMPLETION;
                if (msg_reg[M_KIND +: 4] == K_COMPLETION) begin
                    finish_du[D_COUNT +: 20] = msg_reg[M_COUNT +: 20];
                    finish_du[D_ACC_OP +: 6] = msg_reg[M_OP +: 6];
                    finish_du[D_ACC_DATA +: 256] = msg_reg[M_DATA +: 256];
                    finish_du[D_ACC_RC +: 4] = msg_reg[M_RC +: 4];
                    finish_du[D_ACC_RSM +: 8] = msg_reg[M_RSM +: 8];
                    finish_du[D_ACC_OFLOW +: 2] = msg_reg[M_OFLOW +: 2];
                    finish_du[D_RES_CODE +: 4] = msg_reg[M_CODE +: 4];
                    finish_du[D_RES_ERROR] = msg_reg[M_ERROR];
                end else begin
                    finish_du[D_COUNT +: 20] = 20'd0;
                    finish_du[D_ACC_OP +: 6] = scur[S_OP +: 6];
                    finish_du[D_ACC_DATA +: 256] = scur[S_DATA +: 256];
                    finish_du[D_ACC_RC +: 4] = 4'd0;
                    finish_du[D_ACC_RSM +: 8] = 8'd0;
                    finish_du[D_ACC_OFLOW +: 2] = 2'd0;
                    finish_du[D_ACC_SFA +: 32] = {16'd0, engine_id_reg};
                end
                finish_du[D_ATTEMPTS +: 4] = 4'd0;
                finish_du[D_SENT_ERROR] = 1'b0;
                finish_du[D_TIMER +: 25] = dcur[D_LOAD +: 25];
                finish_tld = 1'b1;
                finish_du[D_EXPIRED] = 1'b0;
            end
            default: begin
            end
        endcase
    end
end
