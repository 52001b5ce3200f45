// The frame builder's event bits and sizes (docs/blocks/frame_builder.md), included inside module frame_builder (rtl/frame_builder.v).
// GENERATED from crates/model/src/frame_builder.rs: do not edit; run
// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model frame_builder_codes` (the same test checks it).

// Event bits: the bit of stat_event a frame's outcome pulses (EV_COUNT bits in all)
localparam [0:0] EV_BUILT = 1'd0;
localparam [0:0] EV_DROPPED = 1'd1;
localparam EV_COUNT = 2;
// The frame buffer's bytes
localparam BUFFER_BYTES = 128;
// FCS / LCRC: the reflected CRC-32 polynomial
localparam [31:0] CRC32_POLY = 32'hEDB88320;
