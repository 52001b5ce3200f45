// The CPU's codes and packed records (docs/blocks/cpu.md), included inside module cpu (rtl/cpu.v).
// GENERATED from the tables in crates/model/src/cpu/codes.rs: do not edit; run
// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model cpu_codes` (the same test checks it).
// A code set may name codes the RTL never sends (they are the wire's), hence UNUSEDPARAM off.

// verilator lint_off UNUSEDPARAM
// Control commands (000 [0168])
localparam [3:0] CMD_START = 4'd1;
localparam [3:0] CMD_PAUSE = 4'd2;
localparam [3:0] CMD_RESTART = 4'd3;
localparam [3:0] CMD_STOP = 4'd4;
localparam [3:0] CMD_RESET = 4'd5;
// Completion codes
localparam [3:0] CODE_NONE = 4'd0;
localparam [3:0] CODE_BARRIER_MET = 4'd1;
localparam [3:0] CODE_BARRIER_SATISFIED = 4'd2;
localparam [3:0] CODE_RESULT = 4'd3;
localparam [3:0] CODE_ALREADY_COMPLETED = 4'd4;
localparam [3:0] CODE_ACKNOWLEDGED = 4'd5;
localparam [3:0] CODE_ROUND_DONE = 4'd6;
// Failure reasons
localparam [3:0] WHY_TIMEOUT = 4'd1;
localparam [3:0] WHY_DUPLICATE = 4'd2;
localparam [3:0] WHY_COUNT_UNDERFLOW = 4'd3;
localparam [3:0] WHY_UNKNOWN_PARTICIPANT = 4'd4;
localparam [3:0] WHY_OP_MISMATCH = 4'd5;
localparam [3:0] WHY_MALFORMED = 4'd6;
localparam [3:0] WHY_NOTHING_TO_RESEND = 4'd7;
// Events on stat_event (docs/blocks/cpu.md §Messages to §Timers)
localparam [5:0] EV_INIT = 6'd1;
localparam [5:0] EV_ACTIVATE_NO_DESC = 6'd2;
localparam [5:0] EV_CTRL_START = 6'd3;
localparam [5:0] EV_CTRL_PAUSE = 6'd4;
localparam [5:0] EV_CTRL_RESTART = 6'd5;
localparam [5:0] EV_CTRL_STOP = 6'd6;
localparam [5:0] EV_CTRL_RESET = 6'd7;
localparam [5:0] EV_CTRL_NOOP = 6'd8;
localparam [5:0] EV_CTRL_BAD = 6'd9;
localparam [5:0] EV_ARM = 6'd10;
localparam [5:0] EV_REARM = 6'd11;
localparam [5:0] EV_ARM_NO_DESC = 6'd12;
localparam [5:0] EV_BAD_SEQNO_ARM = 6'd13;
localparam [5:0] EV_ACCEPT = 6'd14;
localparam [5:0] EV_PASS_UP = 6'd15;
localparam [5:0] EV_DROP_UNKNOWN = 6'd16;
localparam [5:0] EV_DROP_VNI = 6'd17;
localparam [5:0] EV_DROP_COOKIE = 6'd18;
localparam [5:0] EV_DROP_SEQNO = 6'd19;
localparam [5:0] EV_UNKNOWN_PARTICIPANT = 6'd20;
localparam [5:0] EV_MALFORMED = 6'd21;
localparam [5:0] EV_DUPLICATE = 6'd22;
localparam [5:0] EV_COUNT_UNDERFLOW = 6'd23;
localparam [5:0] EV_OLD_TID = 6'd24;
localparam [5:0] EV_BAD_TID = 6'd25;
localparam [5:0] EV_PAUSED_DROP = 6'd26;
localparam [5:0] EV_COMPLETION_DOWN = 6'd27;
localparam [5:0] EV_FAILURE_UP = 6'd28;
localparam [5:0] EV_BAD_KIND = 6'd29;
localparam [5:0] EV_COMPLETE = 6'd30;
localparam [5:0] EV_TIMEOUT_PARTIAL = 6'd31;
localparam [5:0] EV_TIMEOUT_EMPTY = 6'd32;
localparam [5:0] EV_TIMEOUT_MASTER = 6'd33;
localparam [5:0] EV_RETRY = 6'd34;
localparam [5:0] EV_RETRY_EXHAUSTED = 6'd35;
localparam [5:0] EV_RETRY_RESEND = 6'd36;
localparam [5:0] EV_RETRY_NONE = 6'd37;
localparam [5:0] EV_WRONG_SENDER = 6'd38;
localparam [5:0] EV_STALE_ARM = 6'd39;
localparam [5:0] EV_INIT_RELAY = 6'd40;
localparam [5:0] EV_RETRY_RESULT = 6'd41;
localparam [5:0] EV_RESPONSE_RESULT = 6'd42;
// Sequencer states (docs/blocks/cpu.md §Timing)
localparam [3:0] SEQ_IDLE = 4'd0;
localparam [3:0] SEQ_LOOKUP = 4'd1;
localparam [3:0] SEQ_EXEC = 4'd2;
localparam [3:0] SEQ_ISSUE = 4'd3;
localparam [3:0] SEQ_REDUCE = 4'd4;
localparam [3:0] SEQ_CHECK = 4'd5;
localparam [3:0] SEQ_RATCHET = 4'd6;
localparam [3:0] SEQ_EMIT = 4'd7;
localparam [3:0] SEQ_FINISH = 4'd8;
localparam [3:0] SEQ_EXPIRE = 4'd9;
localparam [3:0] SEQ_SCAN = 4'd10;
localparam [3:0] SEQ_COMPARE = 4'd11;
// End-of-emission actions (state FINISH)
localparam [2:0] FIN_NONE = 3'd0;
localparam [2:0] FIN_FREE = 3'd1;
localparam [2:0] FIN_REARM = 3'd2;
localparam [2:0] FIN_WAIT = 3'd3;
localparam [2:0] FIN_NEXT_ROUND = 3'd4;
// PBV table: device IDs per word of the device-ID RAM, compared in one SCAN cycle (docs/blocks/cpu.md §PBV table)
localparam integer PBV_SCAN_ENTRIES = 32;
// Descriptors per tree slot, one per reduction id (docs/blocks/cpu.md §Descriptors, 002 (61))
localparam integer REDUCTIONS = 8;
// Configuration word addresses on cfg_wr_addr (crates/model/src/cpu/config.rs)
localparam [13:0] CFG_PBV = 14'h0;
localparam [13:0] CFG_TIMEOUT = 14'h80;
localparam [13:0] CFG_THRESHOLD = 14'h84;
localparam [13:0] CFG_ENGINE_ID = 14'h87;
localparam [13:0] CFG_ENGINE_SFA = 14'h88;
localparam [13:0] CFG_MODE = 14'h89;
localparam [13:0] CFG_STATIC = 14'h100;
// Descriptor record: field offsets, D_W bits in all
localparam integer D_VALID = 0;
localparam integer D_PORTALS = 1;
localparam integer D_KEY = 2;
localparam integer D_SIDX = 18;
localparam integer D_ROLE = 30;
localparam integer D_STATE = 32;
localparam integer D_FAILURE = 34;
localparam integer D_PAUSED = 35;
localparam integer D_PBV = 36;
localparam integer D_PCOUNT = 164;
localparam integer D_COUNT = 184;
localparam integer D_WAIT = 204;
localparam integer D_ACCV = 224;
localparam integer D_ACC_OP = 225;
localparam integer D_ACC_DATA = 231;
localparam integer D_ACC_RC = 487;
localparam integer D_ACC_RSM = 491;
localparam integer D_ACC_OFLOW = 499;
localparam integer D_ACC_SFA = 501;
localparam integer D_VNI = 533;
localparam integer D_COOKIE = 549;
localparam integer D_SEQNO = 581;
localparam integer D_DST = 591;
localparam integer D_PORT = 623;
localparam integer D_KEPT = 631;
localparam integer D_RES_CODE = 632;
localparam integer D_RES_ERROR = 636;
localparam integer D_POSTED = 637;
localparam integer D_TIMER = 638;
localparam integer D_LOAD = 663;
localparam integer D_EXPIRED = 688;
localparam integer D_ATTEMPTS = 689;
localparam integer D_SENT_ERROR = 693;
localparam integer D_W = 694;
// Static-entry record: field offsets, S_W bits in all
localparam integer S_VALID = 0;
localparam integer S_PORTALS = 1;
localparam integer S_KEY = 2;
localparam integer S_ROLE = 15;
localparam integer S_WAIT = 17;
localparam integer S_ONE_TARGET = 37;
localparam integer S_STORED = 38;
localparam integer S_PBV = 39;
localparam integer S_PCOUNT = 167;
localparam integer S_OP = 187;
localparam integer S_DATA = 193;
localparam integer S_DMU = 449;
localparam integer S_UPSTREAM = 465;
localparam integer S_POSTED = 481;
localparam integer S_TID = 482;
localparam integer S_W = 484;
// verilator lint_on UNUSEDPARAM
