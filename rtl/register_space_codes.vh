// The register space's map (docs/blocks/register_space.md), included inside module register_space
// (rtl/register_space.v).
// GENERATED from crates/model/src/register_space/map.rs (and the CPU's register addresses,
// crates/model/src/cpu/config.rs): do not edit; run
// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model register_space_codes` (the same test checks it).
// The map names registers the RTL decodes by range (DW_PBV), hence UNUSEDPARAM off.

// verilator lint_off UNUSEDPARAM
// Response status (m_reg_rsp_status)
localparam [1:0] STATUS_OK = 2'd0;
localparam [1:0] STATUS_REJECTED = 2'd1;
localparam [1:0] STATUS_UNMAPPED = 2'd2;
// Register offsets as DW indices (byte offset / 4)
localparam [9:0] DW_PBV = 10'h0;
localparam [9:0] DW_ID = 10'h40;
localparam [9:0] DW_CTRL = 10'h41;
localparam [9:0] DW_MASTER_ID = 10'h42;
localparam [9:0] DW_ETHERTYPE = 10'h43;
localparam [9:0] DW_VENDOR_ID = 10'h44;
localparam [9:0] DW_VALIDATION = 10'h45;
localparam [9:0] DW_ERROR_REPORTING = 10'h46;
localparam [9:0] DW_RED_CFG_MODE = 10'h47;
localparam [9:0] DW_SUB_TIMEOUT = 10'h48;
localparam [9:0] DW_MASTER_TIMEOUT = 10'h49;
localparam [9:0] DW_RED_TIMEOUT = 10'h4C;
localparam [9:0] DW_RED_THRESHOLD = 10'h50;
localparam [9:0] DW_VNI_ALLOWED = 10'h54;
localparam [9:0] DW_ROUTE = 10'h80;
localparam [9:0] DW_MCAST_INDEX = 10'hC0;
localparam [9:0] DW_MCAST_KEY = 10'hC1;
localparam [9:0] DW_MCAST_WAIT = 10'hC2;
localparam [9:0] DW_MCAST_PORTS = 10'hC3;
localparam [9:0] DW_COUNTERS = 10'h100;
localparam [9:0] DW_ENGINE_ID = 10'h58;
localparam [9:0] DW_ENGINE_SFA = 10'h59;
localparam [9:0] DW_RETRY_LIMIT = 10'h5A;
localparam [9:0] DW_FAILURE = 10'h5B;
localparam [9:0] DW_PBV_FLAGS = 10'h140;
localparam [9:0] DW_STATIC_INDEX = 10'h180;
localparam [9:0] DW_STATIC_KEY = 10'h181;
localparam [9:0] DW_STATIC_WAIT = 10'h182;
// Table sizes: PBV DWs (two entries a DW), reduction timeouts and thresholds, allowed VNIs, own counters, STATIC_INDEX and MCAST_INDEX bits and slots
localparam PBV_DWS = 64;
localparam RED_TIMEOUTS = 4;
localparam RED_THRESHOLDS = 3;
localparam VNI_ENTRIES = 4;
localparam INTERNAL_COUNTERS = 2;
localparam STATIC_INDEX_BITS = 12;
localparam STATIC_INDEX_SLOTS = 32;
localparam MCAST_INDEX_BITS = 13;
localparam MCAST_INDEX_SLOTS = 32;
// The ID register's value; reset values; the bits a CPU static entry's DW0 and DW1 keep
localparam [31:0] ID_VALUE = 32'h1C0E0001;
localparam [15:0] RESET_ETHERTYPE = 16'h88B5;
localparam [15:0] RESET_VENDOR_ID = 16'hC011;
localparam [3:0] RESET_VALIDATION = 4'hF;
localparam [23:0] RESET_SUB_TIMEOUT = 24'h400;
localparam [23:0] RESET_MASTER_TIMEOUT = 24'hC00;
localparam [23:0] RESET_RED_TIMEOUT0 = 24'h1;
localparam [23:0] RESET_RED_TIMEOUT1 = 24'h10;
localparam [23:0] RESET_RED_TIMEOUT2 = 24'h100;
localparam [23:0] RESET_RED_TIMEOUT3 = 24'h1000;
localparam [19:0] RESET_RED_THRESHOLD0 = 20'd4;
localparam [19:0] RESET_RED_THRESHOLD1 = 20'd64;
localparam [19:0] RESET_RED_THRESHOLD2 = 20'd1024;
localparam [3:0] RESET_RETRY_LIMIT = 4'd3;
localparam [31:0] CPU_STATIC_KEY_MASK = 32'h80311FFF;
localparam [31:0] CPU_STATIC_WORD1_MASK = 32'h800FFFFF;
// CPU register word addresses the bridge writes (docs/blocks/cpu.md §Ports); the post-reset copy is SYNC_WRITES writes, TIMEOUT..MODE
localparam [13:0] CPU_PBV = 14'h0;
localparam [13:0] CPU_TIMEOUT = 14'h80;
localparam [13:0] CPU_THRESHOLD = 14'h84;
localparam [13:0] CPU_ENGINE_ID = 14'h87;
localparam [13:0] CPU_ENGINE_SFA = 14'h88;
localparam [13:0] CPU_MODE = 14'h89;
localparam [13:0] CPU_STATIC = 14'h100;
localparam [3:0] SYNC_WRITES = 4'd10;
// verilator lint_on UNUSEDPARAM
