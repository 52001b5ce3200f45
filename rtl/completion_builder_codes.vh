// The completion builder's codes and frame sizes (docs/blocks/completion_builder.md), included inside
// module completion_builder (rtl/completion_builder.v).
// GENERATED from crates/model/src/completion_builder.rs (and the register space's response status,
// crates/model/src/register_space/map.rs): do not edit; run
// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model completion_builder_codes` (the same test checks it).
// The response status names a code the builder folds into `else` (REJECTED), hence UNUSEDPARAM off.

// verilator lint_off UNUSEDPARAM
// Register-space response status (s_rsp_status)
localparam [1:0] STATUS_OK = 2'd0;
localparam [1:0] STATUS_REJECTED = 2'd1;
localparam [1:0] STATUS_UNMAPPED = 2'd2;
// Completion Status (PCIe Table 2-34)
localparam [2:0] CPL_SC = 3'd0;
localparam [2:0] CPL_UR = 3'd1;
localparam [2:0] CPL_CA = 3'd4;
// Completion Type field (Fmt 000 Cpl, 010 CplD)
localparam [4:0] TYPE_CPL = 5'd10;
localparam [4:0] TYPE_CPL_LK = 5'd11;
// Event bits: the bit of stat_event a request taken pulses (EV_COUNT bits in all)
localparam [1:0] EV_CPLD = 2'd0;
localparam [1:0] EV_UR = 2'd1;
localparam [1:0] EV_CA = 2'd2;
localparam [1:0] EV_POSTED = 2'd3;
localparam EV_COUNT = 4;
// Frame bytes: sequence field + 3-DW header (HEADER_END), a Cpl, a CplD (data DW, LCRC)
localparam HEADER_END = 14;
localparam CPL_FRAME_BYTES = 18;
localparam CPLD_FRAME_BYTES = 22;
// LCRC: the reflected CRC-32 polynomial
localparam [31:0] CRC32_POLY = 32'hEDB88320;
// verilator lint_on UNUSEDPARAM
