// ==== EXECUTE (model: crates/model/src/cpu/execute.rs `Cpu::exec`) ====
// Included inside module cpu (rtl/cpu.v), after its registers; the sequencer there commits exec_* in
// state EXEC. The decision for the latched message, per family and kind (docs/blocks/cpu.md §Messages).

// State COMPARE, the cycle before EXEC (session 22; docs/blocks/cpu.md §Timing): the message's descriptor
// is read (at lk_d_idx_reg, as in EXEC) and its compares with the message, and the static entry's with
// it, are registered here, so that EXEC's decision starts from flip-flops rather than from the RAM read
// and a subtract or a 32-bit compare after it (the CPU's deepest stage, docs/performance.md §FPGA
// mapping, session 22). Only what nothing changes between the two cycles is registered: the descriptor's
// fields but its timer (a tick changes the timer and the expired bit alone; the sequencer rewrites the
// descriptor as read), and the static entry's stored context but `stored` and `tid` (the sequencer writes
// it in EXEC and FINISH only; a configuration write of word 0 clears those two). What a configuration
// write may change in between (the entry's configured fields, `stored`, `tid`, the PBV table's switch
// bits, the engine ID) EXEC reads itself. The registers are written in every cycle; EXEC reads the
// values of the COMPARE cycle before it.
reg       cmp_newer_reg;     // seqno_newer(m_seqno, the descriptor's seqno): an ARM re-arms
reg       cmp_vni_ne_reg;    // the message's VNI, cookie, seqno differ from the descriptor's
reg       cmp_cookie_ne_reg;
reg       cmp_seqno_ne_reg;
reg       cmp_pcount0_reg;   // the descriptor's p_count is 0
reg       cmp_d_pbv_reg;     // the descriptor's tracking bit of the participant (lk_p_idx_reg)
reg       cmp_s_pbv_reg;     // the stored PBV's bit of the participant
reg       cmp_upstream_reg;  // the requester is the stored upstream
reg [1:0] cmp_state_reg;     // the descriptor's state, and its flags below
reg       cmp_paused_reg;
reg       cmp_kept_reg;
reg       cmp_accv_reg;
reg       cmp_master_reg;    // its role is MASTER
// The descriptor's tracking bits and the participant's as a one-hot mask: read and cleared through the
// 128-bit field, not through an index into the whole record (`x[D_PBV + i]`), which Yosys builds as a
// 32-bit offset adder and a shifter over every bit of the record, EXEC's written state and valid bits
// included (the CPU's deepest stage after COMPARE, docs/performance.md §FPGA mapping, session 22).
wire [127:0] dx_pbv = dx[D_PBV +: 128];
wire [127:0] p_onehot = 128'd1 << lk_p_idx_reg;
always @(posedge clk) begin
    cmp_newer_reg <= seqno_newer(m_seqno, dx[D_SEQNO +: 10]);
    cmp_vni_ne_reg <= m_vni != dx[D_VNI +: 16];
    cmp_cookie_ne_reg <= m_cookie != dx[D_COOKIE +: 32];
    cmp_seqno_ne_reg <= m_seqno != dx[D_SEQNO +: 10];
    cmp_pcount0_reg <= dx[D_PCOUNT +: 20] == 20'd0;
    cmp_d_pbv_reg <= dx_pbv[lk_p_idx_reg];
    cmp_s_pbv_reg <= s_pbv[lk_p_idx_reg];
    cmp_upstream_reg <= m_src[15:0] == s_upstream;
    cmp_state_reg <= dx[D_STATE +: 2];
    cmp_paused_reg <= dx[D_PAUSED];
    cmp_kept_reg <= dx[D_KEPT];
    cmp_accv_reg <= dx[D_ACCV];
    cmp_master_reg <= dx[D_ROLE +: 2] == ROLE_MASTER;
end

// The timer load a fresh descriptor records (D_LOAD, FINISH's reload): the timeout of the load level
// registered in COMPARE (x_level_reg, rtl/cpu_descriptors.vh: the wait count of the message's family and
// kind, as load_for in the model, against the thresholds), doubled for a master. Its threshold compares
// here were the deepest stage after session 24's other cuts (docs/performance.md §FPGA mapping).
reg  [1:0]  x_level_reg;
wire [23:0] x_tmo = timeout_reg[x_level_reg];
wire [24:0] x_load = s_role == ROLE_MASTER ? {x_tmo, 1'b0} : {1'b0, x_tmo};

// TLP activation from the message (INITIALIZATION) or from the stored information (START, RESTART),
// 000 [0141]; Portals arming, 002 (39), (54).
wire [D_W-1:0] act_msg = desc_new(1'b0, {4'd0, tlp_key}, s_idx12, s_role, m_pbv, m_count, 20'd0, 1'b1, m_op,
                                  m_data, {16'd0, engine_id_reg}, 16'd0, 32'd0, 10'd0, 32'd0, 8'd0,
                                  m_posted, x_load);
wire [D_W-1:0] act_st = desc_new(1'b0, {4'd0, tlp_key}, s_idx12, s_role, s_pbv, s_pcount, 20'd0, 1'b1,
                                 sx[S_OP +: 6], sx[S_DATA +: 256], {16'd0, engine_id_reg}, 16'd0, 32'd0,
                                 10'd0, 32'd0, 8'd0, sx[S_POSTED], x_load);
wire [D_W-1:0] arm_vec = desc_new(1'b1, m_ctx, s_idx12, s_role, 128'd0, 20'd0, sx[S_WAIT +: 20], 1'b0, 6'd0,
                                  256'd0, 32'd0, m_vni, m_cookie, m_seqno, m_dst, m_port, 1'b0, x_load);

// Replies to the sender of the message, and the message sent on (up, or down as a CONTROL copy).
wire [MSG_W-1:0] already_completed = msg_pack(K_COMPLETION, 1'b0, 8'd0, m_ctx, {16'd0, engine_id_reg}, m_src,
                                              m_pid, m_dmu, 20'd0, CODE_ALREADY_COMPLETED, 1'b1, 1'b0, m_tid,
                                              16'd0, 32'd0, 10'd0, 10'd0, 1'b0, m_op, 4'd0, 8'd0, 2'd0,
                                              256'd0, 128'd0);
wire [MSG_W-1:0] tlp_up = {m_rewritten[MSG_W-1:M_DST+32], 16'd0, s_upstream, m_rewritten[M_DST-1:0]};
// A CONTROL copy replicated down carries the context's TID, not the sender's: an end node learns the
// round's TID from its START and sends it back in its CONTRIBUTION (001).
wire [MSG_W-1:0] control_copy = {m_rewritten[MSG_W-1:M_TID+2], s_tid, m_rewritten[M_TID-1:0]};
wire [MSG_W-1:0] t_unknown_participant = failure_reply(msg_reg, engine_id_reg, WHY_UNKNOWN_PARTICIPANT);
wire [MSG_W-1:0] t_malformed = failure_reply(msg_reg, engine_id_reg, WHY_MALFORMED);
wire [MSG_W-1:0] t_duplicate = failure_reply(msg_reg, engine_id_reg, WHY_DUPLICATE);
wire [MSG_W-1:0] t_count_underflow = failure_reply(msg_reg, engine_id_reg, WHY_COUNT_UNDERFLOW);
wire [19:0] dx_count_plus = sat_add(dx[D_COUNT +: 20], m_count);
// A RETRY request from the parent: the RESPONSE of the message's descriptor, resent (000 [0117]).
wire [MSG_W-1:0] t_retry_resend = tlp_msg(dx, sx, engine_id_reg, 1'b0, dx[D_SENT_ERROR], 1'b1);
wire [MSG_W-1:0] t_nothing_to_resend = failure_reply(msg_reg, engine_id_reg, WHY_NOTHING_TO_RESEND);
// A RETRY request for the round just completed (TID - 1; docs/blocks/cpu.md §Messages "Kept result"): from a
// master's upstream, or from a participant named by a P_ID whose entry holds the requester. The kept
// result (accumulator, count, code, error mark) is resent to it alone, as a reply, marked as a
// retransmission; a one-target master's participant gets ROUND_DONE without the result, as it did.
wire retry_from_upstream = cmp_master_reg && cmp_upstream_reg;
wire retry_from_participant = lk_p_hit_reg && cmp_s_pbv_reg && lk_p_sender_reg;
wire retry_kept = lk_d_hit_reg && cmp_kept_reg && tid_behind == 2'd1 && (retry_from_upstream || retry_from_participant);
wire retry_round_done = cmp_master_reg && sx[S_ONE_TARGET] && !retry_from_upstream;
// A switch participant's RESPONSE for the round just completed (its copy of the result lost, its RESPONSE
// resent) gets the same kept result while it is kept, instead of "already completed" (docs/blocks/cpu.md
// §Messages "Kept result"): the participant verified as a RETRY's P_ID is, and a switch entry.
// A contribution to a context in Full or Exiting from a participant whose tracking bit is already clear
// (a retry of a counted frame) gets DuplicateContribution, as while Filling (docs/blocks/cpu.md §Messages).
wire full_counted = lk_p_hit_reg && cmp_s_pbv_reg && lk_p_sender_reg &&
                    ((m_kind == K_RESPONSE) == pbv_switch_reg[lk_p_idx_reg]) && !cmp_d_pbv_reg;
wire response_kept = m_kind == K_RESPONSE && cmp_kept_reg && retry_from_participant && pbv_switch_reg[lk_p_idx_reg];
wire [MSG_W-1:0] t_retry_result = msg_pack(K_COMPLETION, 1'b0, 8'd0, m_ctx, {16'd0, engine_id_reg}, m_src, m_pid,
                                           m_dmu, dx[D_COUNT +: 20],
                                           retry_round_done ? CODE_ROUND_DONE : dx[D_RES_CODE +: 4], 1'b1,
                                           dx[D_RES_ERROR], m_tid, 16'd0, 32'd0, 10'd0, 10'd0, 1'b1,
                                           dx[D_ACC_OP +: 6], retry_round_done ? 4'd0 : dx[D_ACC_RC +: 4],
                                           retry_round_done ? 8'd0 : dx[D_ACC_RSM +: 8],
                                           retry_round_done ? 2'd0 : dx[D_ACC_OFLOW +: 2],
                                           retry_round_done ? 256'd0 : dx[D_ACC_DATA +: 256], 128'd0);

reg [3:0]        exec_seq;
reg [DIDX_W-1:0] exec_cur;
reg [MSG_W-1:0]  exec_tmpl;
reg [127:0]      exec_em_mask;
reg              exec_em_one;
reg              exec_em_ack;
reg              exec_em_keep_pid;
reg [2:0]        exec_fin;
reg [1:0]        exec_rat_target;
reg [DIDX_W-1:0] exec_du_idx;
reg [D_W-1:0]    exec_du;
reg              exec_tld;          // exec_du's timer is a load (a fresh descriptor), not dsel's
reg [S_W-1:0]    exec_su;
reg [5:0]        exec_ev;
reg              exec_fail;         // the decision sets a Failure flag

always @* begin
    // docs/blocks/cpu.md §Messages. Default: done, back to IDLE.
    exec_seq = SEQ_IDLE;
    exec_cur = cur_reg;
    exec_tmpl = msg_reg;
    exec_em_mask = em_mask_reg;
    exec_em_one = em_one_reg;
    exec_em_ack = em_ack_reg;
    exec_em_keep_pid = em_keep_pid_reg;
    exec_fin = fin_reg;
    exec_rat_target = rat_target_reg;
    exec_du_idx = lk_d_idx_reg;
    exec_du = dsel;
    exec_tld = 1'b0;
    exec_su = sx;
    exec_ev = 6'd0;
    exec_fail = 1'b0;
    // Only in the state that commits this step: its branches then count in line coverage only
    // when the sequencer uses them (the outputs above hold otherwise).
    if (seq_reg == SEQ_EXEC) begin
        if (!m_portals) begin
            // TLP family (model: `exec_tlp`).
            case (m_kind)
                K_INIT, K_CONFIGURATION: begin
                    if (m_kind == K_CONFIGURATION && !m_for_below) begin
                        // The checker applies a configuration message for this engine itself.
                        exec_ev = EV_BAD_KIND;
                    end else if (!lk_s_hit_reg) begin
                        exec_ev = EV_DROP_UNKNOWN;
                    end else if (m_for_below) begin
                        // For an engine below (000 [0106]-[0107], [0157]; docs/blocks/cpu.md §Messages): relayed
                        // to the target if it is a switch participant of the stored context, else to
                        // every switch participant; acknowledged if non-posted. Nothing stored here.
                        // A configuration message (FIG. 4) takes the same way, its pbv and data as they came.
                        if (!s_stored) begin
                            exec_ev = EV_DROP_UNKNOWN;
                        end else begin
                            exec_tmpl = m_rewritten;
                            exec_em_mask = (lk_p_hit_reg && pbv_switch_reg[lk_p_idx_reg] && cmp_s_pbv_reg)
                                ? p_onehot : (s_pbv & pbv_switch_reg);
                            exec_em_keep_pid = 1'b1;
                            exec_em_one = !m_posted;
                            exec_em_ack = !m_posted;
                            exec_fin = FIN_NONE;
                            exec_seq = SEQ_EMIT;
                            exec_ev = EV_INIT_RELAY;
                        end
                    end else begin
                        exec_su[S_STORED] = 1'b1;
                        exec_su[S_PBV +: 128] = m_pbv;
                        exec_su[S_PCOUNT +: 20] = m_count;
                        exec_su[S_OP +: 6] = m_op;
                        exec_su[S_DATA +: 256] = m_data;
                        exec_su[S_DMU +: 16] = m_dmu;
                        exec_su[S_UPSTREAM +: 16] = m_src[15:0];
                        exec_su[S_POSTED] = m_posted;
                        exec_su[S_TID +: 2] = m_tid;
                        if (!m_posted) begin
                            // Non-posted: acknowledged to the sender (000 [0097], claim 14).
                            exec_em_mask = 128'd0;
                            exec_em_one = 1'b1;
                            exec_em_ack = 1'b1;
                            exec_fin = FIN_NONE;
                            exec_seq = SEQ_EMIT;
                        end
                        if (lk_d_hit_reg) begin
                            exec_du = act_msg; exec_tld = 1'b1;
                            exec_ev = EV_INIT;
                        end else if (lk_f_hit_reg) begin
                            begin exec_du_idx = lk_f_idx_reg; exec_du = act_msg; exec_tld = 1'b1; end
                            exec_ev = EV_INIT;
                        end else begin
                            exec_ev = EV_ACTIVATE_NO_DESC;
                        end
                    end
                end
                K_CONTROL: begin
                    if (!lk_s_hit_reg) begin
                        exec_ev = EV_DROP_UNKNOWN;
                    end else if (m_code < CMD_START || m_code > CMD_RESET) begin
                        exec_ev = EV_CTRL_BAD;
                    end else begin
                        exec_su[S_UPSTREAM +: 16] = m_src[15:0];
                        case (m_code)
                            CMD_START: begin
                                if (lk_d_hit_reg) begin
                                    if (cmp_paused_reg) begin
                                        exec_du[D_PAUSED] = 1'b0;
                                        exec_ev = EV_CTRL_START;
                                    end else begin
                                        exec_ev = EV_CTRL_NOOP;
                                    end
                                end else if (!s_stored) begin
                                    exec_ev = EV_CTRL_NOOP;
                                end else if (lk_f_hit_reg) begin
                                    begin exec_du_idx = lk_f_idx_reg; exec_du = act_st; exec_tld = 1'b1; end
                                    exec_ev = EV_CTRL_START;
                                end else begin
                                    exec_ev = EV_ACTIVATE_NO_DESC;
                                end
                            end
                            CMD_PAUSE: begin
                                if (lk_d_hit_reg) begin
                                    exec_du[D_PAUSED] = 1'b1;
                                    exec_ev = EV_CTRL_PAUSE;
                                end else begin
                                    exec_ev = EV_CTRL_NOOP;
                                end
                            end
                            CMD_RESTART: begin
                                if (!s_stored) begin
                                    exec_ev = EV_CTRL_NOOP;
                                end else if (lk_d_hit_reg) begin
                                    exec_du = act_st; exec_tld = 1'b1;
                                    exec_ev = EV_CTRL_RESTART;
                                end else if (lk_f_hit_reg) begin
                                    begin exec_du_idx = lk_f_idx_reg; exec_du = act_st; exec_tld = 1'b1; end
                                    exec_ev = EV_CTRL_RESTART;
                                end else begin
                                    exec_ev = EV_ACTIVATE_NO_DESC;
                                end
                            end
                            CMD_STOP: begin
                                if (lk_d_hit_reg) begin
                                    exec_du[D_VALID] = 1'b0;
                                    exec_ev = EV_CTRL_STOP;
                                end else begin
                                    exec_ev = EV_CTRL_NOOP;
                                end
                            end
                            default: begin // CMD_RESET
                                if (lk_d_hit_reg) exec_du[D_VALID] = 1'b0;
                                exec_su[S_STORED] = 1'b0;
                                exec_su[S_TID +: 2] = 2'd0;
                                exec_ev = EV_CTRL_RESET;
                            end
                        endcase
                        // Replicated to every participant of the stored PBV ([0172]), with the
                        // context's TID; then, if non-posted, acknowledged to the sender (000 [0097],
                        // claim 14; the acknowledgement keeps m_tid).
                        if (s_stored || !m_posted) begin
                            exec_tmpl = control_copy;
                            exec_em_mask = s_stored ? s_pbv : 128'd0;
                            exec_em_one = !m_posted;
                            exec_em_ack = !m_posted;
                            exec_fin = FIN_NONE;
                            exec_seq = SEQ_EMIT;
                        end
                    end
                end
                K_CONTRIB, K_RESPONSE: begin
                    if (!lk_s_hit_reg || (!s_stored && !lk_d_hit_reg)) begin
                        exec_ev = EV_DROP_UNKNOWN;
                    end else if (!lk_d_hit_reg) begin
                        exec_tmpl = tlp_up;
                        exec_ev = EV_PASS_UP;
                    end else if (m_tid != s_tid) begin
                        if (tid_behind == 2'd1 && response_kept) begin
                            exec_tmpl = t_retry_result;
                            exec_ev = EV_RESPONSE_RESULT;
                        end else if (tid_behind == 2'd1) begin
                            exec_tmpl = already_completed;
                            exec_ev = EV_OLD_TID;
                        end else begin
                            exec_ev = EV_BAD_TID;
                        end
                    end else if (cmp_paused_reg) begin
                        exec_ev = EV_PAUSED_DROP;
                    end else if (cmp_state_reg[1] && full_counted) begin
                        // Full or Exiting, the participant already counted: the seed's reply
                        // (000 [0143] (a)), not a pass-up the parent would answer "already completed".
                        exec_tmpl = t_duplicate;
                        exec_ev = EV_DUPLICATE;
                    end else if (cmp_state_reg[1]) begin
                        // Full or Exiting: a late frame goes up (002 (62)).
                        exec_tmpl = tlp_up;
                        exec_ev = EV_PASS_UP;
                    end else if (!lk_p_hit_reg || !cmp_s_pbv_reg) begin
                        exec_tmpl = t_unknown_participant;
                        exec_ev = EV_UNKNOWN_PARTICIPANT;
                    end else if (!lk_p_sender_reg) begin
                        // The P_ID names another device's entry (a child's pass-up, a spoofer):
                        // dropped, not answered.
                        exec_ev = EV_WRONG_SENDER;
                    end else if ((m_kind == K_RESPONSE) != pbv_switch_reg[lk_p_idx_reg]) begin
                        exec_tmpl = t_malformed;
                        exec_ev = EV_MALFORMED;
                    end else if (!cmp_d_pbv_reg) begin
                        exec_tmpl = t_duplicate;
                        exec_ev = EV_DUPLICATE;
                    end else if (cmp_pcount0_reg) begin
                        exec_tmpl = t_count_underflow;
                        exec_ev = EV_COUNT_UNDERFLOW;
                    end else begin
                        // 000 [0143]: clear the bit, decrement p_count, add the count; combine next.
                        exec_du[D_PBV +: 128] = dx_pbv & ~p_onehot;
                        exec_du[D_PCOUNT +: 20] = dx[D_PCOUNT +: 20] - 20'd1;
                        exec_du[D_COUNT +: 20] = dx_count_plus;
                        if (cmp_kept_reg) begin
                            // The round's first contribution: the kept result of the last round gives
                            // way to the stored initial accumulator (the re-load FINISH deferred).
                            exec_du[D_KEPT] = 1'b0;
                            exec_du[D_COUNT +: 20] = m_count;
                            exec_du[D_ACC_OP +: 6] = sx[S_OP +: 6];
                            exec_du[D_ACC_DATA +: 256] = sx[S_DATA +: 256];
                            exec_du[D_ACC_RC +: 4] = 4'd0;
                            exec_du[D_ACC_RSM +: 8] = 8'd0;
                            exec_du[D_ACC_OFLOW +: 2] = 2'd0;
                            exec_du[D_ACC_SFA +: 32] = {16'd0, engine_id_reg};
                        end
                        exec_cur = lk_d_idx_reg;
                        exec_seq = SEQ_ISSUE;
                        exec_ev = EV_ACCEPT;
                    end
                    // Every outcome but a drop or a combine sends the one message set up above.
                    if (exec_ev == EV_PASS_UP || exec_ev == EV_OLD_TID || exec_ev == EV_RESPONSE_RESULT ||
                        exec_ev == EV_UNKNOWN_PARTICIPANT ||
                        exec_ev == EV_MALFORMED || exec_ev == EV_DUPLICATE || exec_ev == EV_COUNT_UNDERFLOW) begin
                        exec_em_mask = 128'd0;
                        exec_em_one = 1'b1;
                        exec_fin = FIN_NONE;
                        exec_seq = SEQ_EMIT;
                    end
                end
                K_COMPLETION: begin
                    if (!lk_s_hit_reg || !lk_d_hit_reg) begin
                        exec_ev = EV_DROP_UNKNOWN;
                    end else if (cmp_master_reg || m_code == CODE_ACKNOWLEDGED) begin
                        // An acknowledgement (a child's answer to a relayed non-posted command)
                        // is not the parent's result (docs/blocks/cpu.md §Messages).
                        exec_ev = EV_BAD_KIND;
                    end else if (m_tid != s_tid) begin
                        exec_ev = EV_BAD_TID;
                    end else begin
                        exec_tmpl = m_rewritten;
                        exec_em_mask = s_pbv;
                        exec_em_one = 1'b0;
                        exec_fin = FIN_NEXT_ROUND;
                        exec_rat_target = CS_EXITING;
                        exec_cur = lk_d_idx_reg;
                        exec_seq = SEQ_RATCHET;
                        exec_ev = EV_COMPLETION_DOWN;
                    end
                end
                K_FAILURE: begin
                    if (!lk_s_hit_reg || !s_stored) begin
                        exec_ev = EV_DROP_UNKNOWN;
                    end else begin
                        exec_tmpl = tlp_up;
                        if (lk_d_hit_reg) begin
                            // The Failure flag (001), carried by the FAILURE forwarded up (EM bit).
                            exec_du[D_FAILURE] = 1'b1;
                            exec_fail = 1'b1;
                            exec_tmpl[M_ERROR] = 1'b1;
                        end
                        exec_em_mask = 128'd0;
                        exec_em_one = 1'b1;
                        exec_fin = FIN_NONE;
                        exec_seq = SEQ_EMIT;
                        exec_ev = EV_FAILURE_UP;
                    end
                end
                K_RETRY: begin
                    // A per-packet retry request (000 [0098], [0117]): the one message kept for a
                    // context is the RESPONSE a subservient holds in Full until its parent answers.
                    if (!lk_s_hit_reg || (!s_stored && !lk_d_hit_reg)) begin
                        exec_ev = EV_DROP_UNKNOWN;
                    end else begin
                        if (lk_d_hit_reg && !cmp_master_reg && cmp_state_reg == CS_FULL && cmp_upstream_reg) begin
                            exec_tmpl = t_retry_resend;
                            exec_ev = EV_RETRY_RESEND;
                        end else if (retry_kept) begin
                            exec_tmpl = t_retry_result;
                            exec_ev = EV_RETRY_RESULT;
                        end else begin
                            exec_tmpl = t_nothing_to_resend;
                            exec_ev = EV_RETRY_NONE;
                        end
                        exec_em_mask = 128'd0;
                        exec_em_one = 1'b1;
                        exec_fin = FIN_NONE;
                        exec_seq = SEQ_EMIT;
                    end
                end
                default: begin
                    exec_ev = EV_BAD_KIND;
                end
            endcase
        end else begin
            // Portals family (model: `exec_portals`).
            case (m_kind)
                K_ARM: begin
                    if (!lk_s_hit_reg) begin
                        exec_ev = EV_DROP_UNKNOWN;
                    end else if (m_seqno == SEQNO_RESERVED) begin
                        exec_ev = EV_BAD_SEQNO_ARM;
                    end else if (lk_d_hit_reg) begin
                        // 002 (71): only a newer seqno clears the state; a duplicated or old arm
                        // is dropped and counted.
                        if (cmp_newer_reg) begin
                            exec_du = arm_vec; exec_tld = 1'b1;
                            exec_ev = EV_REARM;
                        end else begin
                            exec_ev = EV_STALE_ARM;
                        end
                    end else if (lk_f_hit_reg) begin
                        begin exec_du_idx = lk_f_idx_reg; exec_du = arm_vec; exec_tld = 1'b1; end
                        exec_ev = EV_ARM;
                    end else begin
                        exec_ev = EV_ARM_NO_DESC;
                    end
                end
                K_CONTRIB: begin
                    if (!lk_d_hit_reg) begin
                        // No descriptor: the frame goes on up as it came (002 (59), (75)).
                        exec_tmpl = msg_reg;
                        exec_em_mask = 128'd0;
                        exec_em_one = 1'b1;
                        exec_fin = FIN_NONE;
                        exec_seq = SEQ_EMIT;
                        exec_ev = EV_PASS_UP;
                    end else if (cmp_vni_ne_reg) begin
                        exec_ev = EV_DROP_VNI;
                    end else if (cmp_cookie_ne_reg) begin
                        exec_ev = EV_DROP_COOKIE;
                    end else if (cmp_seqno_ne_reg) begin
                        exec_ev = EV_DROP_SEQNO;
                    end else begin
                        exec_du[D_COUNT +: 20] = dx_count_plus;
                        exec_cur = lk_d_idx_reg;
                        if (cmp_accv_reg) begin
                            exec_seq = SEQ_ISSUE;
                        end else begin
                            exec_du[D_ACC_OP +: 6] = m_op;
                            exec_du[D_ACC_DATA +: 256] = m_data;
                            exec_du[D_ACC_RC +: 4] = m_rc;
                            exec_du[D_ACC_RSM +: 8] = m_rsm;
                            exec_du[D_ACC_OFLOW +: 2] = m_oflow;
                            exec_du[D_ACC_SFA +: 32] = m_src;
                            exec_du[D_ACCV] = 1'b1;
                            if (cmp_state_reg == CS_IDLE) exec_du[D_STATE +: 2] = CS_FILLING;
                            exec_seq = SEQ_CHECK;
                        end
                        exec_ev = EV_ACCEPT;
                    end
                end
                default: begin
                    exec_ev = EV_BAD_KIND;
                end
            endcase
        end
    end
end
