// The interposer's event bits (docs/blocks/interposer.md), included inside module interposer (rtl/interposer.v).
// GENERATED from crates/model/src/interposer.rs: do not edit; run
// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model interposer_codes` (the same test checks it).

// Event bits: the bit of stat_event a frame's outcome pulses (EV_COUNT bits in all)
localparam [1:0] EV_EXTRACTED = 2'd0;
localparam [1:0] EV_PASSED = 2'd1;
localparam [1:0] EV_INJECTED = 2'd2;
localparam EV_COUNT = 3;
// The multicast arm's copy (002 (39)-(40)): rt_arm's byte and bit in a Soft Portals frame, the longest frame copied
localparam ARM_BYTE = 64;
localparam ARM_BIT = 2;
localparam ARM_COPY_BYTES = 102;
