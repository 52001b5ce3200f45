// inswitch input checker: a configuration message's kind-1 bytes, and the message that relays one to the
// CPU (docs/blocks/input_checker.md §Configuration messages, §Encapsulated configuration).
// Included inside module input_checker (rtl/input_checker.v), in stage C after the encapsulation's checks;
// model: crates/model/src/input_checker/collective.rs (`relay_fields`, `config::encap_base`).
//
// rb[g] is byte g of the kind-1 message a configuration stands for: the payload's own byte g for kind 1,
// byte g + 16 or g + 20 (a 3- or 4-DW original header after the 4-byte descriptor) for kind 10, whose
// body is the kind-1 payload less its common header. Stage D's writes read the fixed fields (cf); a
// message for another engine (P_ID, cfg_relay) goes to the CPU as the kind-1 message it stands for, kind
// 10 included (000 [0106], [0157]: the master configures the engines below it; the encapsulation is the
// master's, what goes down the tree is the FIG. 4 configuration).
wire [7:0] rb [8:PL_RELAY_BYTES-1];
generate
    for (g = 8; g < PL_RELAY_BYTES; g = g + 1) begin : g_relay_byte
        assign rb[g] = !is_encap ? pl[g] : encap_4dw ? pl[g + PL_ENCAP_SHIFT] : pl[g + PL_ENCAP_SHIFT - 4];
    end
endgenerate
// Stage D's copy of the body's fixed fields (loaded with the other D registers, no check reads them).
wire [7:0] cf [12:23];
generate
    for (g = 12; g < 24; g = g + 1) begin : g_cfg_field
        assign cf[g] = rb[g];
    end
endgenerate

// The relayed message: ConfigFixed (bytes 8-23) in pbv, the slots (bytes 24 to the end of the payload,
// padding included) in data, four per operand, the first in the high bits, big-endian.
wire [127:0] relay_pbv;
wire [255:0] relay_data;
// The original header's Length (kind 10): the body's DWs.
wire [9:0] encap_orig_length = {pl[14][1:0], pl[15]};
generate
    for (g = 0; g < 16; g = g + 1) begin : g_relay_pbv
        assign relay_pbv[8*(15-g) +: 8] = rb[8 + g];
    end
    for (g = 0; g < 4 * 4; g = g + 1) begin : g_relay_slot
        if (g < CONFIG_RELAY_SLOTS) begin : g_in
            // Slot g (at 24 + 2g) is inside the payload when its Length in DW > 6 + g / 2 (a Length field
            // of 0 is 1024), inside a kind-10 body when the original header's Length > 4 + g / 2: a field
            // against a constant either way.
            wire in_payload = is_encap ? gt_const({6'd0, encap_orig_length}, 16'd4 + g / 2) :
                          has_data && (length == 10'd0 || gt_const({6'd0, length}, 16'd6 + g / 2));
            assign relay_data[64*(g/4) + 48 - 16*(g%4) +: 16] = in_payload ? {rb[24 + 2*g], rb[25 + 2*g]} : 16'd0;
        end else begin : g_out
            assign relay_data[64*(g/4) + 48 - 16*(g%4) +: 16] = 16'd0;
        end
    end
endgenerate
