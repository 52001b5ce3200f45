// The input checker's codes and constants (docs/blocks/input_checker.md), included inside module
// input_checker (rtl/input_checker.v).
// GENERATED from crates/model/src/input_checker/codes.rs and crates/model/src/input_checker.rs: do not
// edit; run `INSWITCH_BLESS=1 cargo test --release -p inswitch-model input_checker_codes` (the same test
// checks it).

// Event bits: the bit of stat_event a frame's outcome pulses (EV_COUNT bits in all)
localparam [4:0] EV_ACCEPT_REG = 5'd0;
localparam [4:0] EV_ACCEPT_MSG = 5'd1;
localparam [4:0] EV_TKEEP = 5'd2;
localparam [4:0] EV_LCRC = 5'd3;
localparam [4:0] EV_FCS = 5'd4;
localparam [4:0] EV_TOO_LONG = 5'd5;
localparam [4:0] EV_LENGTH = 5'd6;
localparam [4:0] EV_TLP_MALFORMED = 5'd7;
localparam [4:0] EV_TLP_UNSUPPORTED = 5'd8;
localparam [4:0] EV_POISONED = 5'd9;
localparam [4:0] EV_ECRC = 5'd10;
localparam [4:0] EV_RESERVED = 5'd11;
localparam [4:0] EV_NOT_FOR_ENGINE = 5'd12;
localparam [4:0] EV_REG_ACCESS = 5'd13;
localparam [4:0] EV_VENDOR = 5'd14;
localparam [4:0] EV_COLL_MALFORMED = 5'd15;
localparam [4:0] EV_COLL_CONFIG = 5'd16;
localparam [4:0] EV_COLL_OPERANDS = 5'd17;
localparam [4:0] EV_ETHERTYPE = 5'd18;
localparam [4:0] EV_PORTALS_HEADER = 5'd19;
localparam [4:0] EV_VNI = 5'd20;
localparam EV_COUNT = 21;
// cfg_validation bits (the register space's VALIDATION register): bit numbers
localparam [1:0] VALIDATION_LCRC = 2'd0;
localparam [1:0] VALIDATION_ECRC = 2'd1;
localparam [1:0] VALIDATION_FCS = 2'd2;
localparam [1:0] VALIDATION_VNI = 2'd3;
// Sizes and protocol constants (crates/model/src/input_checker.rs)
localparam CAPTURE_BYTES = 128;
localparam [15:0] TLP_MIN_BYTES = 16'd18;
localparam [15:0] SOFT_PORTALS_BYTES = 16'd102;
localparam [11:0] MAILBOX_OFFSET = 12'h800;
localparam [7:0] VDM_TYPE1_CODE = 8'h7F;
localparam [7:0] VDM_PROTOCOL_ID = 8'hCE;
localparam [31:0] CRC32_RESIDUE = 32'hDEBB20E3;
