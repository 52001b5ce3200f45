// The CPU's record constructors and helper functions, included inside module cpu (rtl/cpu.v) after its
// localparams (message, descriptor and static-entry offsets, codes). Hand-written; cpu_codes.vh beside
// it is generated. Every function reads its arguments only, never a module signal, so an `always @*`
// or a continuous assignment that calls one is sensitive to all it depends on.
//
// Model: crates/model/src/cpu/records.rs (the constructors), crates/model/src/cpu/mod.rs (`load_for`,
// `next_seqno`, `seqno_newer`), crates/model/src/cpu/context.rs (`Descriptor::timer_runs`).

/*
 * RECORD CONSTRUCTORS (model: crates/model/src/cpu/records.rs).
 */
function [MSG_W-1:0] msg_pack(
    input [3:0] kind, input family, input [7:0] port, input [15:0] ctx, input [31:0] src, input [31:0] dst,
    input [15:0] pid, input [15:0] dmu, input [19:0] count, input [3:0] code, input posted, input error,
    input [1:0] tid, input [15:0] vni, input [31:0] cookie, input [9:0] seqno, input [9:0] resno,
    input retry, input [5:0] op, input [3:0] rc, input [7:0] rsm, input [1:0] oflow, input [255:0] data,
    input [127:0] pbv);
    begin
        msg_pack = {pbv, data, oflow, rsm, rc, op, retry, resno, seqno, cookie, vni, tid, error, posted, code,
                    count, dmu, pid, dst, src, ctx, port, family, kind};
    end
endfunction

// A fresh descriptor: state Idle, nothing counted, no result kept, timer loaded.
function [D_W-1:0] desc_new(
    input portals, input [15:0] key, input [11:0] sidx, input [1:0] role, input [127:0] pbv,
    input [19:0] pcount, input [19:0] waitc, input accv, input [5:0] acc_op, input [255:0] acc_data,
    input [31:0] acc_sfa, input [15:0] vni, input [31:0] cookie, input [9:0] seqno, input [31:0] dst,
    input [7:0] port, input posted, input [24:0] load);
    begin
        desc_new = {1'b0, 4'd0, 1'b0, load, load, posted, 1'b0, 4'd0, 1'b0, port, dst, seqno, cookie, vni, acc_sfa, 2'd0, 8'd0,
                    4'd0, acc_data, acc_op, accv, waitc, 20'd0, pcount, pbv, 1'b0, 1'b0, CS_IDLE, role, sidx,
                    key, portals, 1'b1};
    end
endfunction

// Replies to the sender of the message. (Record-typed inputs are read only in part.)
/* verilator lint_off UNUSEDSIGNAL */
function [MSG_W-1:0] failure_reply(input [MSG_W-1:0] m, input [15:0] engine_id, input [3:0] why);
    begin
        failure_reply = msg_pack(K_FAILURE, 1'b0, 8'd0, m[M_CTX +: 16], {16'd0, engine_id}, m[M_SRC +: 32],
                                 m[M_PID +: 16], m[M_DMU +: 16], 20'd0, why, 1'b1, 1'b0, m[M_TID +: 2], 16'd0,
                                 32'd0, 10'd0, 10'd0, 1'b0, m[M_OP +: 6], 4'd0, 8'd0, 2'd0,
                                 {192'd0, 48'd0, m[M_SRC +: 16]}, 128'd0);
    end
endfunction

// Messages about the current descriptor: Portals partial result up (002 (56), (57)) or master result
// down (002 (37)); TLP RESPONSE up (000 [0109]) or COMPLETION (000 [0111]); retries exhausted.
function [MSG_W-1:0] portals_msg(input [D_W-1:0] d, input result, input [3:0] rc, input [31:0] sfa);
    begin
        portals_msg = msg_pack(result ? K_ARM : K_CONTRIB, 1'b1, result ? 8'd0 : d[D_PORT +: 8], d[D_KEY +: 16],
                               sfa, d[D_DST +: 32], NO_PARTICIPANT, 16'd0, d[D_COUNT +: 20], 4'd0, 1'b1, 1'b0,
                               2'd0, d[D_VNI +: 16], d[D_COOKIE +: 32],
                               result ? next_seqno(d[D_SEQNO +: 10]) : d[D_SEQNO +: 10], d[D_SEQNO +: 10], 1'b0,
                               d[D_ACC_OP +: 6], rc, d[D_ACC_RSM +: 8], d[D_ACC_OFLOW +: 2],
                               d[D_ACC_DATA +: 256], 128'd0);
    end
endfunction

function [MSG_W-1:0] tlp_msg(input [D_W-1:0] d, input [S_W-1:0] s, input [15:0] engine_id, input completion,
                             input error, input retry);
    reg [3:0] code;
    begin
        if (completion) code = d[D_ACC_OP +: 6] == 6'd0 ? CODE_BARRIER_SATISFIED : CODE_RESULT;
        else code = d[D_ACC_OP +: 6] == 6'd0 ? CODE_BARRIER_MET : CODE_NONE;
        tlp_msg = msg_pack(completion ? K_COMPLETION : K_RESPONSE, 1'b0, 8'd0, d[D_KEY +: 16], {16'd0, engine_id},
                           {16'd0, s[S_UPSTREAM +: 16]}, NO_PARTICIPANT, s[S_DMU +: 16], d[D_COUNT +: 20], code,
                           completion ? 1'b1 : d[D_POSTED], error, s[S_TID +: 2], 16'd0, 32'd0, 10'd0, 10'd0,
                           retry, d[D_ACC_OP +: 6], d[D_ACC_RC +: 4], d[D_ACC_RSM +: 8], d[D_ACC_OFLOW +: 2],
                           d[D_ACC_DATA +: 256], 128'd0);
    end
endfunction

/* verilator lint_on UNUSEDSIGNAL */

/*
 * HELPERS.
 */
// Index of the lowest set bit of v (0 if none), as a balanced tree: level l + 1 joins pairs of level-l
// nodes (any bit set; the index of the lowest, its bit l set when it is in the upper half), one 2:1
// multiplexer per index bit and level, 7 levels. The form `v & (~v + 1)` then an OR-encoder became a
// carry chain of 70-90 cells in Yosys' generic flow, twice on the CPU's longest path of session 12
// (docs/performance.md §CPU SCAN and input checker stage D). Node i of a level overwrites slot i, read
// from slots 2i and 2i + 1 (≥ i).
function [6:0] lowest_index(input [127:0] v);
    reg [127:0]   any;
    reg [7*128-1:0] idx;
    integer l;
    integer i;
    begin
        any = v;
        idx = {7*128{1'b0}};
        for (l = 0; l < 7; l = l + 1) begin
            for (i = 0; i < (64 >> l); i = i + 1) begin
                idx[7*i +: 7] = any[2*i] ? idx[7*(2*i) +: 7] : (idx[7*(2*i+1) +: 7] | (7'd1 << l));
                any[i] = any[2*i] || any[2*i+1];
            end
        end
        lowest_index = any[0] ? idx[6:0] : 7'd0;
    end
endfunction

function [9:0] next_seqno(input [9:0] s);
    begin
        // (s + 1) mod 1023: libfabric never uses 1023 (docs/blocks/cpu.md §Messages)
        next_seqno = s >= 10'd1022 ? s - 10'd1022 : s + 10'd1;
    end
endfunction

// Serial-number comparison of sequence numbers modulo 1023 (1023 reserved): new is newer than old when
// its forward distance is 1 to 511 (docs/blocks/cpu.md §Messages; model cpu::seqno_newer). Both are below 1023 here.
function seqno_newer(input [9:0] new_s, input [9:0] old_s);
    reg [10:0] fwd;
    begin
        fwd = (new_s >= old_s) ? {1'b0, new_s} - {1'b0, old_s} : {1'b0, new_s} + 11'd1023 - {1'b0, old_s};
        seqno_newer = (fwd != 11'd0) && (fwd <= 11'd511);
    end
endfunction

function [19:0] sat_add(input [19:0] a, input [19:0] b);
    reg [20:0] s;
    begin
        s = {1'b0, a} + {1'b0, b};
        sat_add = s[20] ? COUNT_MAX : s[19:0];
    end
endfunction

function timer_runs(input [D_W-1:0] d);
    begin
        if (!d[D_VALID] || d[D_EXPIRED] || d[D_PAUSED]) timer_runs = 1'b0;
        else if (d[D_PORTALS]) timer_runs = d[D_STATE +: 2] == CS_IDLE || d[D_STATE +: 2] == CS_FILLING;
        else timer_runs = d[D_STATE +: 2] == CS_FILLING ||
                          (d[D_STATE +: 2] == CS_FULL && d[D_ROLE +: 2] != ROLE_MASTER && !d[D_POSTED]);
    end
endfunction
