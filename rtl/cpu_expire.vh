// ==== EXPIRE (model: crates/model/src/cpu/expire.rs `Cpu::expire`) ====
// Included inside module cpu (rtl/cpu.v), after its registers; the sequencer there commits expire_* in
// state EXPIRE. The timeout action of an expired descriptor (docs/blocks/cpu.md §Timers).

wire [MSG_W-1:0] t_portals_timeout = portals_msg(dcur, 1'b0, dcur[D_ACC_RC +: 4], engine_sfa_reg);
wire [MSG_W-1:0] t_tlp_completion_error = tlp_msg(dcur, scur, engine_id_reg, 1'b1, 1'b1, 1'b0);
wire [MSG_W-1:0] t_tlp_response_error = tlp_msg(dcur, scur, engine_id_reg, 1'b0, 1'b1, 1'b0);
wire [MSG_W-1:0] t_tlp_response_retry = tlp_msg(dcur, scur, engine_id_reg, 1'b0, dcur[D_SENT_ERROR], 1'b1);
wire [MSG_W-1:0] retry_failure = msg_pack(K_FAILURE, 1'b0, 8'd0, dcur[D_KEY +: 16], {16'd0, engine_id_reg},
                                          {16'd0, scur[S_UPSTREAM +: 16]}, NO_PARTICIPANT, scur[S_DMU +: 16],
                                          {16'd0, dcur[D_ATTEMPTS +: 4]}, WHY_TIMEOUT, 1'b1, 1'b1,
                                          scur[S_TID +: 2], 16'd0, 32'd0, 10'd0, 10'd0, 1'b0, 6'd0, 4'd0, 8'd0,
                                          2'd0, {192'd0, 64'hffff}, 128'd0);

reg [3:0]        expire_seq;
reg [D_W-1:0]    expire_du;
reg [MSG_W-1:0]  expire_tmpl;
reg [127:0]      expire_em_mask;
reg              expire_em_one_target;
reg              expire_em_one;
reg [2:0]        expire_fin;
reg [1:0]        expire_rat_target;
reg [5:0]        expire_ev;
reg              expire_fail;       // the timeout sets a Failure flag

always @* begin
    expire_du = dsel;
    expire_tmpl = msg_reg;
    expire_fin = fin_reg;
    expire_rat_target = rat_target_reg;
    expire_ev = 6'd0;
    expire_fail = 1'b0;
    expire_du[D_EXPIRED] = 1'b0;
    expire_em_mask = 128'd0;
    expire_em_one_target = em_one_target_reg;
    expire_em_one = 1'b1;
    expire_seq = SEQ_RATCHET;
    // Only in the state that commits this step: its branches then count in line coverage only
    // when the sequencer uses them (the outputs above hold otherwise).
    if (seq_reg == SEQ_EXPIRE) begin
        if (dcur[D_PORTALS]) begin
            expire_rat_target = CS_EXITING;
            expire_fin = FIN_FREE;
            expire_em_one = dcur[D_ACCV];
            expire_tmpl = t_portals_timeout;
            expire_ev = dcur[D_ACCV] ? EV_TIMEOUT_PARTIAL : EV_TIMEOUT_EMPTY;
        end else if (dcur[D_STATE +: 2] == CS_FILLING && dcur[D_ROLE +: 2] != ROLE_MASTER) begin
            expire_du[D_SENT_ERROR] = 1'b1;
            expire_du[D_ATTEMPTS +: 4] = 4'd0;
            expire_tmpl = t_tlp_response_error;
            expire_rat_target = CS_FULL;
            expire_fin = FIN_WAIT;
            expire_ev = EV_TIMEOUT_PARTIAL;
        end else if (dcur[D_STATE +: 2] == CS_FILLING) begin
            expire_du[D_FAILURE] = 1'b1;
            expire_fail = 1'b1;
            expire_tmpl = t_tlp_completion_error;
            expire_em_mask = scur[S_PBV +: 128];
            expire_em_one_target = scur[S_ONE_TARGET];
            expire_rat_target = CS_EXITING;
            expire_fin = FIN_NEXT_ROUND;
            expire_ev = EV_TIMEOUT_MASTER;
        end else if (dcur[D_STATE +: 2] == CS_FULL && dcur[D_ROLE +: 2] != ROLE_MASTER &&
                     dcur[D_ATTEMPTS +: 4] < retry_limit_reg) begin
            // Per-packet retry (000 [0117]).
            expire_du[D_ATTEMPTS +: 4] = dcur[D_ATTEMPTS +: 4] + 4'd1;
            expire_tmpl = t_tlp_response_retry;
            expire_rat_target = CS_FULL;
            expire_fin = FIN_WAIT;
            expire_ev = EV_RETRY;
        end else if (dcur[D_STATE +: 2] == CS_FULL && dcur[D_ROLE +: 2] != ROLE_MASTER) begin
            expire_du[D_FAILURE] = 1'b1;
            expire_fail = 1'b1;
            expire_tmpl = retry_failure;
            expire_rat_target = CS_EXITING;
            expire_fin = FIN_NEXT_ROUND;
            expire_ev = EV_RETRY_EXHAUSTED;
        end else begin
            // Nothing is sent, and msg_reg is read by nothing before the next message or expiry replaces
            // it: a template written here keeps msg_reg's enable off the decision (session 23).
            expire_tmpl = t_tlp_response_error;
            expire_em_one = 1'b0;
            expire_seq = SEQ_IDLE;
            expire_ev = EV_TIMEOUT_EMPTY;
        end
    end
end
