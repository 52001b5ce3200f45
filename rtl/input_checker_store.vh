// inswitch input checker: the slot store (docs/blocks/input_checker.md §Configuration messages). Included
// inside module input_checker (rtl/input_checker.v), after the stream side and before the configuration
// writes (rtl/input_checker_config.vh); model crates/model/src/input_checker.rs (`ext`) and
// crates/model/src/input_checker/config.rs (`ConfigWrites::with_store`).
//
// A FIG. 4 configuration message carries up to CONFIG_MAX_ENTRIES + CONFIG_MAX_SUBSERVIENT 16-bit slots
// (000 [0155], [0157]), more than the 128-byte capture holds: stage B writes every beat of a frame, up to
// CONFIG_FRAME_BYTES, into one row of this RAM (one row per beat, written as it passes, the capture's
// bytes included), and the write sequencer reads one slot a cycle from it after the verdict. A table,
// not flip-flops (issue 19): a synchronous-read RAM, read every cycle.
//
// Four banks, one per frame in turn: while a message's writes drain from stage D the pipeline is held,
// but before its frame reaches D, stage B takes up to two beats of the frames behind it (the edges that
// move it to C and to D), and a one-beat frame behind it may be followed by a third: frames in B, C and D
// are always in three different banks. The bank of each frame follows it through C and D.
localparam integer STORE_ROWS = (CONFIG_FRAME_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam integer STORE_ROW_BITS = $clog2(STORE_ROWS);
localparam integer STORE_BANK_BITS = 2;
localparam integer STORE_ADDR_BITS = STORE_BANK_BITS + STORE_ROW_BITS;
// Bits of a slot's lane in a row (two bytes a lane).
localparam integer STORE_LANE_BITS = BEAT_SHIFT - 1;

// Block RAM: its read address is registered inside it, so the sequencer's address logic ends there (as
// LUT RAM, 16 Kbit of it, the read and the lane's multiplexer came after that logic, 10 LUT levels).
(* ram_style = "block" *)
reg [DATA_WIDTH-1:0]      store_mem [0:(1 << STORE_ADDR_BITS) - 1];
reg [STORE_BANK_BITS-1:0] store_wbank_reg;
reg [STORE_BANK_BITS-1:0] c_bank_reg;
reg [STORE_BANK_BITS-1:0] d_bank_reg;
reg [DATA_WIDTH-1:0]      store_rdata_reg;
reg [STORE_LANE_BITS-1:0] store_lane_reg;

// Read port: the frame byte of the slot to read next cycle (even) and the bank of its frame, chosen by
// the write sequencer (input_checker_config.vh).
wire [15:0]                store_rb;
wire [STORE_BANK_BITS-1:0] store_rbank;

/* verilator lint_off UNUSEDSIGNAL */
wire [15:0] store_wpos = pos;
wire [15:0] store_rpos = store_rb;
/* verilator lint_on UNUSEDSIGNAL */
wire store_we = a_beat && store_wpos < CONFIG_FRAME_BYTES;
wire [STORE_ADDR_BITS-1:0] store_waddr = {store_wbank_reg, store_wpos[BEAT_SHIFT +: STORE_ROW_BITS]};
wire [STORE_ADDR_BITS-1:0] store_raddr = {store_rbank, store_rpos[BEAT_SHIFT +: STORE_ROW_BITS]};

// The slot the read returned: big-endian, frame byte 2 x lane first.
/* verilator lint_off UNUSEDSIGNAL */
wire [DATA_WIDTH-1:0] store_shifted = store_rdata_reg >> {store_lane_reg, 4'd0};
/* verilator lint_on UNUSEDSIGNAL */
wire [15:0] store_word = {store_shifted[7:0], store_shifted[15:8]};

always @(posedge clk) begin
    if (store_we) begin
        store_mem[store_waddr] <= a_data_reg;
    end
    store_rdata_reg <= store_mem[store_raddr];
    store_lane_reg <= store_rpos[1 +: STORE_LANE_BITS];
    if (frame_end) begin
        store_wbank_reg <= store_wbank_reg + 1'b1;
    end
    if (adv) begin
        if (frame_end) begin
            c_bank_reg <= store_wbank_reg;
        end
        d_bank_reg <= c_bank_reg;
    end
    if (rst) begin
        store_wbank_reg <= {STORE_BANK_BITS{1'b0}};
    end
end
