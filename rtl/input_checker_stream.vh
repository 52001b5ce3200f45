// inswitch input checker: stages A and B, the stream side (docs/blocks/input_checker.md §Timing).
// Included inside module input_checker (rtl/input_checker.v), after `adv`; kept in its own file so that
// no source file passes ~1,000 lines. Model: crates/model/src/input_checker.rs (`InputChecker::step`).
//
// A registers the beat with what B needs precomputed from it (tkeep verdict, byte count, the first
// beat's ECRC range); B runs the LCRC/FCS and ECRC registers a beat at a time, checks the tkeep rules,
// counts the bytes and captures the first CAPTURE_BYTES; on the last beat the frame moves to stage C.
// Declares the loop variables `k` (integer) and `g` (genvar) the later stages reuse.

/*
 * Stage A
 */
// ECRC range of a frame, if this is its first beat: TLP bytes 2..header+payload+digest (docs §Frames).
// Header bytes are declared whole; not every bit of them is a field used here.
/* verilator lint_off UNUSEDSIGNAL */
// A flit-mode TLP (tuser[9], TLP family) starts at byte 0, a non-flit one after the sequence number.
// The Type of the flit-mode requests the checker takes (MWr32 0x40, MWr64 0x60) says 4-DW header in
// bit 5 and data in bit 6, as a non-flit Fmt does, and Length is in bytes 2-3 of both DW0s, so one
// range computation serves both, from bytes moved by the start (docs/blocks/input_checker.md §Flit-mode TLPs).
wire first_flit = s_axis_tuser[TUSER_FLIT_BIT] && !s_axis_tuser[8];
wire [7:0] fb0 = first_flit ? s_axis_tdata[8*0 +: 8] : s_axis_tdata[8*2 +: 8];
wire [7:0] fb2 = first_flit ? s_axis_tdata[8*2 +: 8] : s_axis_tdata[8*4 +: 8];
wire [7:0] fb3 = first_flit ? s_axis_tdata[8*3 +: 8] : s_axis_tdata[8*5 +: 8];
/* verilator lint_on UNUSEDSIGNAL */
wire [9:0] first_length = {fb2[1:0], fb3};
wire [12:0] first_len_dw = first_length == 10'd0 ? 13'd1024 : {3'd0, first_length};
wire [15:0] first_ecrc_end = (first_flit ? 16'd0 : 16'd2) + (fb0[5] ? 16'd16 : 16'd12) + (fb0[6] ? {1'b0, first_len_dw, 2'b00} : 16'd0) + 16'd4;
// The ECRC range's end without payload (bytes 2.., a 3DW or 4DW header, the 4-byte digest).
localparam [15:0] ECRC_END_NO_DATA_3DW = 16'd2 + 16'd12 + 16'd4;
localparam [15:0] ECRC_END_NO_DATA_4DW = 16'd2 + 16'd16 + 16'd4;

wire [KEEP_WIDTH-1:0] keep_all = {KEEP_WIDTH{1'b1}};
// A last beat's tkeep is contiguous from bit 0 when no set bit has a clear bit below it: one two-input
// term per bit pair, ORed (tkeep & (tkeep + 1) said the same through a KEEP_WIDTH-bit carry chain, 9 LUT
// levels at 256 bits).
wire keep_gap = |(s_axis_tkeep[KEEP_WIDTH-1:1] & ~s_axis_tkeep[KEEP_WIDTH-2:0]);
wire keep_bad_beat = s_axis_tlast ? (s_axis_tkeep == {KEEP_WIDTH{1'b0}} || keep_gap)
                                  : s_axis_tkeep != keep_all;

// Bytes in the beat: 1 + the highest tkeep bit set. That is the count of a tkeep the rules allow
// (contiguous from bit 0); a frame with any other tkeep is dropped as `tkeep` whatever its length, so a
// priority encoder (a few LUT levels) stands in for a population count (a chain of adders).
// Byte j of a non-flit frame with a 4-DW header (four), a payload (data) of len_dw DW is inside the
// ECRC range (j >= 2 aside): a comparison of Length with a constant per byte.
function in_ecrc_range(input [15:0] j, input four, input data, input [12:0] len_dw);
    in_ecrc_range = four ? (j < ECRC_END_NO_DATA_4DW || (data && {3'd0, len_dw} > ((j - ECRC_END_NO_DATA_4DW) >> 2)))
                         : (j < ECRC_END_NO_DATA_3DW || (data && {3'd0, len_dw} > ((j - ECRC_END_NO_DATA_3DW) >> 2)));
endfunction

reg [15:0] keep_count;
// Bytes of a first beat inside the ECRC range: start <= byte < first_ecrc_end (start 2, or 0 in flit mode).
reg [KEEP_WIDTH-1:0] first_emask;
integer k;
always @* begin
    keep_count = 16'd0;
    first_emask = {KEEP_WIDTH{1'b0}};
    for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
        if (s_axis_tkeep[k] && (k == KEEP_WIDTH - 1 || !s_axis_tkeep[(k + 1) % KEEP_WIDTH])) begin
            keep_count = keep_count | (k[15:0] + 16'd1);
        end
        // k < first_ecrc_end without its add in series (the add then this comparison were the checker's
        // deepest LUT path): the end is 2 + header + 4 x Length + 4, so past the header's own range a
        // byte is inside iff floor((k - range end without payload) / 4) < Length in DW, a comparison of
        // the input's Length with a constant per byte, chosen by Fmt.
        // A flit-mode byte k is where byte k + 2 of a non-flit frame is in its TLP.
        first_emask[k] = first_flit ? in_ecrc_range(k[15:0] + 16'd2, fb0[5], fb0[6], first_len_dw)
                                    : (k >= 2 && in_ecrc_range(k[15:0], fb0[5], fb0[6], first_len_dw));
    end
end

reg                   a_valid_reg;
reg [DATA_WIDTH-1:0]  a_data_reg;
reg [KEEP_WIDTH-1:0]  a_keep_reg;
reg                   a_last_reg;
reg [9:0]             a_user_reg;
reg                   a_keep_bad_reg;
reg [15:0]            a_count_reg;
reg [15:0]            a_ecrc_end_reg;
reg [KEEP_WIDTH-1:0]  a_emask_reg;

/*
 * Stage B: stream side
 */
reg [8*CAPTURE_BYTES-1:0] cap_reg, cap_next;
reg        in_frame_reg, in_frame_next;
reg [15:0] pos_reg, pos_next;
reg [31:0] crc_reg, crc_next;
reg [31:0] ecrc_reg, ecrc_next;
// Bytes of the ECRC range from the next beat on, saturating at 0; the next beat's byte mask; whether
// the ECRC register still moves; the frame's ECRC end modulo the beat (zero bytes the last ECRC beat adds).
reg [15:0] erem_reg, erem_next;
reg [KEEP_WIDTH-1:0] emask_reg, emask_next;
reg        elive_reg, elive_next;
reg [BEAT_SHIFT-1:0] ecrc_m_reg, ecrc_m_next;
reg        tkeep_bad_reg, tkeep_bad_next;
reg        portals_reg, portals_next;
reg        flit_reg, flit_next;
reg [7:0]  port_reg, port_next;

wire first = !in_frame_reg;
// The beat in A is a flit-mode frame's first (meaningful with `first`).
wire a_flit = a_user_reg[TUSER_FLIT_BIT] && !a_user_reg[8];
wire [15:0] pos = first ? 16'd0 : pos_reg;
wire [KEEP_WIDTH-1:0] emask = first ? a_emask_reg : emask_reg;
wire [15:0] erem = first ? a_ecrc_end_reg : erem_reg;

// Beat inputs of the two CRCs: the LCRC/FCS over the bytes tkeep marks (a frame whose tkeep breaks the
// rules is dropped whatever its CRC), the ECRC over its range with the variant bits forced to 1.
reg [DATA_WIDTH-1:0] lcrc_in;
reg [DATA_WIDTH-1:0] ecrc_in;
always @* begin
    for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
        lcrc_in[8*k +: 8] = a_keep_reg[k] ? a_data_reg[8*k +: 8] : 8'd0;
        ecrc_in[8*k +: 8] = emask[k] ? a_data_reg[8*k +: 8] : 8'd0;
    end
    // The variant bits: Type[0] and EP, at bytes 2 and 4 of a non-flit frame, 0 and 6 of a flit-mode one.
    if (first && a_flit) begin
        ecrc_in[8*0] = 1'b1;
        ecrc_in[8*6 + 7] = 1'b1;
    end else if (first) begin
        ecrc_in[8*2] = 1'b1;
        ecrc_in[8*4 + 6] = 1'b1;
    end
end
wire [31:0] lcrc_state = first ? 32'hFFFF_FFFF : crc_reg;
// A flit-mode range starts at byte 0: the usual initial value; a non-flit one two (zeroed) bytes later.
wire [31:0] ecrc_state = !first ? ecrc_reg : a_flit ? 32'hFFFF_FFFF : CRC32_INIT_TWO_BYTES_EARLY;

// CRC-32 of a whole beat: bit i is the XOR of the inputs row i selects (generated rows,
// crates/model/src/input_checker/crc_matrix.rs), a balanced tree instead of a byte-serial chain.
wire [31:0] lcrc_beat;
wire [31:0] ecrc_beat;
genvar g;
generate
    for (g = 0; g < 32; g = g + 1) begin : g_crc
        localparam [DATA_WIDTH-1:0] ROW = CRC32_ROWS[g*CRC32_ROW_BITS + CRC32_ROW_BITS - DATA_WIDTH +: DATA_WIDTH];
        assign lcrc_beat[g] = ^(ROW & lcrc_in) ^ ^(ROW[31:0] & lcrc_state);
        assign ecrc_beat[g] = ^(ROW & ecrc_in) ^ ^(ROW[31:0] & ecrc_state);
    end
endgenerate

wire a_beat = adv && a_valid_reg;
// Zero bytes the last ECRC beat / the last beat adds after the range's end / the frame's end: -end mod beat.
/* verilator lint_off UNUSEDSIGNAL */
wire [15:0] neg_ecrc_end = 16'd0 - a_ecrc_end_reg;
wire [15:0] neg_count = 16'd0 - a_count_reg;
/* verilator lint_on UNUSEDSIGNAL */
wire [BEAT_SHIFT-1:0] lcrc_m = neg_count[BEAT_SHIFT-1:0];
wire [16:0] pos_sum = {1'b0, pos} + {1'b0, KEEP_BYTES16};
wire [16:0] bytes_sum = {1'b0, pos} + {1'b0, a_count_reg};
wire [15:0] frame_bytes = bytes_sum > {1'b0, POS_MAX} ? POS_MAX : bytes_sum[15:0];
wire frame_end = a_beat && a_last_reg;

always @* begin
    cap_next = cap_reg;
    in_frame_next = in_frame_reg;
    pos_next = pos_reg;
    crc_next = crc_reg;
    ecrc_next = ecrc_reg;
    erem_next = erem_reg;
    emask_next = emask_reg;
    elive_next = elive_reg;
    ecrc_m_next = ecrc_m_reg;
    tkeep_bad_next = tkeep_bad_reg;
    portals_next = portals_reg;
    flit_next = flit_reg;
    port_next = port_reg;
    // Assigned on every path so that synthesis infers no latch for the loop variable.
    k = 0;

    if (a_beat) begin
        if (first) begin
            portals_next = a_user_reg[8];
            flit_next = a_flit;
            port_next = a_user_reg[7:0];
            ecrc_m_next = neg_ecrc_end[BEAT_SHIFT-1:0];
        end
        crc_next = lcrc_beat;
        if (first || elive_reg) begin
            ecrc_next = ecrc_beat;
        end
        erem_next = erem > KEEP_BYTES16 ? erem - KEEP_BYTES16 : 16'd0;
        // k < erem_next, compared with erem directly (one comparison with a constant per byte).
        for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
            emask_next[k] = {1'b0, erem} > {1'b0, KEEP_BYTES16} + k[16:0];
        end
        elive_next = erem > KEEP_BYTES16;
        for (k = 0; k < CAPTURE_BEATS; k = k + 1) begin
            if ({16'd0, pos} >> BEAT_SHIFT == k) begin
                cap_next[k*DATA_WIDTH +: DATA_WIDTH] = a_data_reg;
            end
        end
        tkeep_bad_next = (!first && tkeep_bad_reg) || a_keep_bad_reg;
        pos_next = pos_sum > {1'b0, POS_MAX} ? POS_MAX : pos_sum[15:0];
        in_frame_next = !a_last_reg;
    end
end
