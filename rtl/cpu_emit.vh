// ==== EMIT (model: crates/model/src/cpu/emit.rs `Cpu::emit`) ====
// Included inside module cpu (rtl/cpu.v), after its registers; the sequencer there commits emit_* in
// state EMIT. The outgoing messages, one per cycle (docs/blocks/cpu.md §Messages, §6).

// The output register takes a message when it is empty or read in this cycle.
wire out_free = !out_valid_reg || m_msg_ready;
// The next copy goes to the lowest PBV entry left in em_mask_reg.
wire [6:0] em_b = lowest_index(em_mask_reg);
// The same bit without its index: em_below[i], some bit below i is set (a prefix OR in seven doubling
// steps); the lowest set bit is the one set with none below. Clearing it and reading its valid bit from
// these keeps em_b's encoder out of the next mask (`mask[em_b] = 0` cost a 32-bit offset adder and a
// shifter after the encoder: the CPU's longest stage ended at pbv_raddr through it, docs/performance.md
// §FPGA mapping, session 21).
reg [127:0] em_below;
integer     em_s;
always @* begin
    em_below = {em_mask_reg[126:0], 1'b0};
    for (em_s = 1; em_s < 128; em_s = em_s * 2) em_below = em_below | (em_below << em_s);
end
wire        em_b_valid = |(pbv_valid_reg & em_mask_reg & ~em_below);
// Acknowledgement of a non-posted INITIALIZATION / CONTROL (000 [0097], claim 14; docs/blocks/cpu.md §Messages).
// msg_reg holds the template by now (the message itself, or the relayed copy: the same CC_ID, P_ID, DMU_ID
// and op, another requester and, for a CONTROL copy, another TID); the requester and TID the
// acknowledgement answers are the latched message's, kept by EXEC in ack_src_reg and ack_tid_reg.
wire [MSG_W-1:0] acknowledged = msg_pack(K_COMPLETION, 1'b0, 8'd0, m_ctx, {16'd0, engine_id_reg}, ack_src_reg,
                                         m_pid, m_dmu, 20'd0, CODE_ACKNOWLEDGED, 1'b1, 1'b0, ack_tid_reg,
                                         16'd0, 32'd0, 10'd0, 10'd0, 1'b0, m_op, 4'd0, 8'd0, 2'd0,
                                         256'd0, 128'd0);

reg [3:0]        emit_seq;
reg              emit_send;         // a message goes into the output register
reg              emit_copy;         // it is the copy for PBV bit em_b (else msg_reg, or `acknowledged`)
reg [15:0]       emit_dst;          // the copy's device ID
reg [127:0]      emit_em_mask;
reg              emit_em_one;
reg              emit_em_ack;
reg              emit_em_keep_pid;
reg              emit_em_one_target;

always @* begin
    emit_seq = SEQ_EMIT;
    emit_send = 1'b0;
    emit_copy = 1'b0;
    emit_dst = pbv_dev_rd[16*em_b[PBV_SLOT_W-1:0] +: 16];
    emit_em_mask = em_mask_reg;
    emit_em_one = em_one_reg;
    emit_em_ack = em_ack_reg;
    emit_em_keep_pid = em_keep_pid_reg;
    emit_em_one_target = em_one_target_reg;
    // Only in the state that commits this step: its branches then count in line coverage only
    // when the sequencer uses them (the outputs above hold otherwise).
    if (seq_reg == SEQ_EMIT) begin
        if (em_mask_reg != 128'd0) begin
            if (!em_b_valid) begin
                emit_em_mask = em_mask_reg & em_below;
            end else if (out_free) begin
                // The copy: msg_reg with the entry's device ID and P_ID (applied on the way out, m_msg
                // in rtl/cpu.v).
                emit_copy = 1'b1;
                emit_send = 1'b1;
                emit_em_mask = em_mask_reg & em_below;
            end
        end else if (em_one_reg) begin
            if (out_free) begin
                // msg_reg as is; the acknowledgement is written into msg_reg (the sequencer, rtl/cpu.v).
                emit_send = 1'b1;
                emit_em_one = 1'b0;
                emit_em_ack = 1'b0;
            end
        end else begin
            emit_em_keep_pid = 1'b0;
            emit_em_one_target = 1'b0;
            emit_seq = SEQ_FINISH;
        end
    end
end
