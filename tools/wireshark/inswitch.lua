-- Wireshark dissector for the link types of inswitch captures (`inswitch sim --pcap F.pcapng`,
-- `inswitch decode --write-pcap`), docs/frames.md §8:
--
--   LINKTYPE_USER0 (147)  non-flit PCIe TLP (prefixes, header, payload, ECRC; no framing, no LCRC)
--   LINKTYPE_USER1 (148)  PCIe 6 flit-mode TLP
--   LINKTYPE_USER2 (149)  84-byte Portals reduction frame
--   LINKTYPE_USER3 (150)  DLLP with CRC (6 bytes)
--   LINKTYPE_USER4 (151)  collective message alone (a TLP payload)
--   EtherType 0x88B5      Soft Portals: the Portals reduction frame over Ethernet
--
-- A collective message inside a vendor-defined message (Vendor ID 0xC011, code 0x7F) or a flit-mode
-- MsgD is decoded as well (CC_ID, kind, TID, P_ID, body fields, PBV, operands). The reduction header
-- carries libfabric's field names (struct cxip_coll_hdr, current layout: retry at header bit 61, cookie
-- magic bits 31-16).
--
-- Install: tshark -X lua_script:tools/wireshark/inswitch.lua -r capture.pcapng -V
--      or: mkdir -p ~/.local/lib/wireshark/plugins && cp tools/wireshark/inswitch.lua ~/.local/lib/wireshark/plugins/
--
-- A frame too short for its own length fields is marked malformed (expert info, group Malformed),
-- never a Lua error. Layouts: docs/frames.md (the Rust codecs in crates/frames are the specification).

local band, bor, rshift, lshift = bit32.band, bit32.bor, bit32.rshift, bit32.lshift

local SOFT_PORTALS_ETHERTYPE = 0x88b5
local VENDOR_ID = 0xc011
local VDM_CODE = 0x7f
local COLLECTIVE_VERSION = 1
local PORTALS_FRAME_LEN = 84
local NO_PARTICIPANT = 0xffff

-- Names -----------------------------------------------------------------------------------------

local op_names = {
    [0x00] = "barrier", [0x01] = "bit_and", [0x02] = "bit_or", [0x03] = "bit_xor",
    [0x10] = "int_min", [0x11] = "int_max", [0x12] = "int_minmaxloc", [0x14] = "int_sum",
    [0x20] = "flt_min", [0x21] = "flt_max", [0x22] = "flt_minmaxloc", [0x24] = "flt_minnum",
    [0x25] = "flt_maxnum", [0x26] = "flt_minmaxnumloc",
    [0x28] = "flt_sum_noftz_rnd0", [0x29] = "flt_sum_noftz_rnd1", [0x2a] = "flt_sum_noftz_rnd2",
    [0x2b] = "flt_sum_noftz_rnd3", [0x2c] = "flt_sum_ftz_rnd0", [0x2d] = "flt_sum_ftz_rnd1",
    [0x2e] = "flt_sum_ftz_rnd2", [0x2f] = "flt_sum_ftz_rnd3", [0x30] = "flt_repsum",
}
local rc_names = {
    [0] = "success", [1] = "flt_inexact", [3] = "flt_overflow", [4] = "flt_invalid",
    [5] = "repsum_inexact", [6] = "int_overflow", [7] = "contr_overflow", [8] = "op_mismatch",
    [9] = "tx_failure", [10] = "rdma_failure", [11] = "rdma_data_failure",
}
local coll_kinds = {
    [1] = "configuration", [2] = "initialization", [3] = "control", [4] = "contribution",
    [5] = "response", [6] = "completion", [7] = "retry", [8] = "failure", [10] = "encapsulated",
}
-- Kind 10's encapsulated payload types (docs/frames.md §4, Encapsulated).
local encap_types = { [1] = "configuration", [2] = "register write" }
-- Descriptor byte 3: the original header's form (non-flit or PCIe 6 flit mode; the same byte 0, 4-DW bit
-- and Length bits in both).
local encap_forms = { [0] = "non-flit", [1] = "flit mode" }
local commands = { [1] = "start", [2] = "pause", [3] = "restart", [4] = "stop", [5] = "reset" }
local completions = {
    [0] = "none", [1] = "barrier_met", [2] = "barrier_satisfied", [3] = "result",
    [4] = "already_completed", [5] = "acknowledged", [6] = "round_done",
}
local reasons = {
    [1] = "timeout", [2] = "duplicate_contribution", [3] = "count_underflow",
    [4] = "unknown_participant", [5] = "op_mismatch", [6] = "malformed", [7] = "nothing_to_resend",
}
local cpl_status = { [0] = "success", [1] = "unsupported_request", [2] = "request_retry", [4] = "completer_abort" }
local dllp_types = {
    [0x00] = "ack", [0x10] = "nak", [0x20] = "pm_enter_l1", [0x21] = "pm_enter_l23",
    [0x23] = "pm_active_state_request_l1", [0x24] = "pm_request_ack", [0x31] = "nop",
}
local fmt_names = {
    [0] = "3DW header, no data", [1] = "4DW header, no data", [2] = "3DW header, with data",
    [3] = "4DW header, with data", [4] = "TLP prefix",
}

-- The non-flit kind of a Fmt/Type pair (PCIe Base Specification Table 2-3).
local function tlp_kind(fmt, typ)
    local data = band(fmt, 2) ~= 0
    if typ == 0x00 then return data and "mem_write" or "mem_read" end
    if typ == 0x01 then return "mem_read_locked" end
    if typ == 0x02 then return data and "io_write" or "io_read" end
    if typ == 0x04 or typ == 0x05 then return data and "cfg_write" or "cfg_read" end
    if band(typ, 0x18) == 0x10 then return "message" end
    if typ == 0x0a or typ == 0x0b then return "completion" end
    if typ == 0x0c then return "fetch_add" end
    if typ == 0x0d then return "swap" end
    if typ == 0x0e then return "cas" end
    if typ == 0x1b then return "deferrable_mem_write" end
    return "unknown"
end

-- Flit mode: header base size (DW) and payload presence by Type[7:0] (PCIe 6 Table 2-5, as
-- crates/frames/src/flit.rs `type_info`): {first, last, base_dw, with_data}.
-- BEGIN generated from flit::type_info by tests/wireshark.rs (INSWITCH_BLESS=1 rewrites it)
local flit_types = {
    {0x00, 0x00, 1, false}, {0x01, 0x05, 3, false}, {0x06, 0x07, 4, true}, {0x08, 0x0f, 3, false},
    {0x10, 0x15, 5, true}, {0x16, 0x17, 7, true}, {0x18, 0x19, 7, false}, {0x1a, 0x1b, 7, true},
    {0x1c, 0x1d, 3, false}, {0x1e, 0x1f, 6, false}, {0x20, 0x2d, 4, false}, {0x2e, 0x2f, 5, false},
    {0x30, 0x3d, 4, false}, {0x3e, 0x3f, 5, false}, {0x40, 0x40, 3, true}, {0x41, 0x41, 6, true},
    {0x42, 0x42, 3, true}, {0x43, 0x43, 6, true}, {0x44, 0x4e, 3, true}, {0x4f, 0x4f, 4, false},
    {0x50, 0x55, 6, true}, {0x56, 0x57, 7, true}, {0x58, 0x59, 3, true}, {0x5a, 0x5a, 4, true},
    {0x5b, 0x5b, 3, true}, {0x5c, 0x5d, 4, true}, {0x5e, 0x5f, 5, true}, {0x60, 0x7f, 4, true},
    {0x80, 0x8f, 1, false}, {0x90, 0x93, 4, false}, {0x94, 0x97, 5, false}, {0x98, 0x9b, 6, false},
    {0x9c, 0x9f, 7, false}, {0xa0, 0xa7, 5, false}, {0xa8, 0xa9, 6, false}, {0xaa, 0xab, 7, false},
    {0xac, 0xad, 5, false}, {0xae, 0xaf, 6, false}, {0xb0, 0xbf, 5, true}, {0xc0, 0xc7, 6, false},
    {0xc8, 0xc9, 7, false}, {0xca, 0xcb, 5, true}, {0xcc, 0xcd, 6, true}, {0xce, 0xcf, 7, true},
    {0xd0, 0xdf, 6, true}, {0xe0, 0xe1, 4, false}, {0xe2, 0xe3, 6, false}, {0xe4, 0xe5, 4, true},
    {0xe6, 0xe7, 6, true}, {0xe8, 0xef, 7, false}, {0xf0, 0xf1, 4, true}, {0xf2, 0xf3, 5, true},
    {0xf4, 0xf5, 6, true}, {0xf6, 0xff, 7, true},
}
-- END generated
local function flit_type_info(t)
    for _, r in ipairs(flit_types) do
        if t >= r[1] and t <= r[2] then return r[3], r[4] end
    end
    return 1, false
end
local flit_addr32 = { [0x01] = true, [0x02] = true, [0x03] = true, [0x40] = true, [0x42] = true,
    [0x4c] = true, [0x4d] = true, [0x4e] = true, [0x5b] = true }
local flit_addr64 = { [0x20] = true, [0x21] = true, [0x22] = true, [0x60] = true, [0x61] = true,
    [0x6c] = true, [0x6d] = true, [0x6e] = true, [0x7b] = true, [0x31] = true, [0x71] = true }
local flit_trailer_dw = { [0] = 0, 1, 1, 2, 2, 3, 4, 5 }
local flit_ohc_e_dw = { [0] = 0, 1, 2, 4 }

-- Protocols and fields ----------------------------------------------------------------------------

local p_tlp = Proto("inswitch_tlp", "inswitch PCIe TLP (non-flit)")
local p_flit = Proto("inswitch_flit", "inswitch PCIe TLP (flit mode)")
local p_dllp = Proto("inswitch_dllp", "inswitch PCIe DLLP")
local p_portals = Proto("inswitch_portals", "inswitch Portals reduction frame")
local p_coll = Proto("inswitch_coll", "inswitch collective message")

-- One "malformed" expert field per protocol (an expert field belongs to one protocol).
local malformed = {}
for _, x in ipairs({ { p_tlp, "tlp" }, { p_flit, "flit" }, { p_dllp, "dllp" }, { p_portals, "portals" }, { p_coll, "coll" } }) do
    malformed[x[1]] = ProtoExpert.new("inswitch." .. x[2] .. ".malformed", "Malformed inswitch frame", expert.group.MALFORMED, expert.severity.ERROR)
    x[1].experts = { malformed[x[1]] }
end

-- Fields per protocol: T (TLP), FL (flit), DL (DLLP), PT (Portals), C (collective).
local T, FL, DL, PT, C = {}, {}, {}, {}, {}
local table_of = { [p_tlp] = T, [p_flit] = FL, [p_dllp] = DL, [p_portals] = PT, [p_coll] = C }
local fields_of = {}
local function fld(proto, key, f)
    table_of[proto][key] = f
    fields_of[proto] = fields_of[proto] or {}
    table.insert(fields_of[proto], f)
end

-- TLP
fld(p_tlp, "prefix", ProtoField.uint32("inswitch.tlp.prefix", "TLP prefix", base.HEX))
fld(p_tlp, "fmt", ProtoField.uint8("inswitch.tlp.fmt", "Fmt", base.DEC, fmt_names, 0xe0))
fld(p_tlp, "type", ProtoField.uint8("inswitch.tlp.type", "Type", base.HEX, nil, 0x1f))
fld(p_tlp, "kind", ProtoField.string("inswitch.tlp.kind", "Kind"))
fld(p_tlp, "t9", ProtoField.bool("inswitch.tlp.t9", "T9", 8, nil, 0x80))
fld(p_tlp, "tc", ProtoField.uint8("inswitch.tlp.tc", "TC", base.DEC, nil, 0x70))
fld(p_tlp, "t8", ProtoField.bool("inswitch.tlp.t8", "T8", 8, nil, 0x08))
fld(p_tlp, "attr2", ProtoField.bool("inswitch.tlp.attr2", "Attr[2] (IDO)", 8, nil, 0x04))
fld(p_tlp, "ln", ProtoField.bool("inswitch.tlp.ln", "LN", 8, nil, 0x02))
fld(p_tlp, "th", ProtoField.bool("inswitch.tlp.th", "TH", 8, nil, 0x01))
fld(p_tlp, "td", ProtoField.bool("inswitch.tlp.td", "TD", 8, nil, 0x80))
fld(p_tlp, "ep", ProtoField.bool("inswitch.tlp.ep", "EP", 8, nil, 0x40))
fld(p_tlp, "attr", ProtoField.uint8("inswitch.tlp.attr", "Attr[1:0] (RO, NS)", base.HEX, nil, 0x30))
fld(p_tlp, "at", ProtoField.uint8("inswitch.tlp.at", "AT", base.DEC, nil, 0x0c))
fld(p_tlp, "length", ProtoField.uint16("inswitch.tlp.length", "Length (DW)", base.DEC, nil, 0x03ff))
fld(p_tlp, "requester_id", ProtoField.uint16("inswitch.tlp.requester_id", "Requester ID", base.HEX))
fld(p_tlp, "completer_id", ProtoField.uint16("inswitch.tlp.completer_id", "Completer ID", base.HEX))
fld(p_tlp, "tag", ProtoField.uint16("inswitch.tlp.tag", "Tag", base.HEX))
fld(p_tlp, "last_be", ProtoField.uint8("inswitch.tlp.last_be", "Last DW BE", base.HEX, nil, 0xf0))
fld(p_tlp, "first_be", ProtoField.uint8("inswitch.tlp.first_be", "First DW BE", base.HEX, nil, 0x0f))
fld(p_tlp, "address", ProtoField.uint64("inswitch.tlp.address", "Address", base.HEX))
fld(p_tlp, "status", ProtoField.uint8("inswitch.tlp.status", "Completion status", base.DEC, cpl_status, 0xe0))
fld(p_tlp, "bcm", ProtoField.bool("inswitch.tlp.bcm", "BCM", 8, nil, 0x10))
fld(p_tlp, "byte_count", ProtoField.uint16("inswitch.tlp.byte_count", "Byte Count", base.DEC, nil, 0x0fff))
fld(p_tlp, "lower_address", ProtoField.uint8("inswitch.tlp.lower_address", "Lower Address", base.HEX, nil, 0x7f))
fld(p_tlp, "message_code", ProtoField.uint8("inswitch.tlp.message_code", "Message Code", base.HEX))
fld(p_tlp, "target_id", ProtoField.uint16("inswitch.tlp.target_id", "Target ID", base.HEX))
fld(p_tlp, "vendor_id", ProtoField.uint16("inswitch.tlp.vendor_id", "Vendor ID", base.HEX))
fld(p_tlp, "vendor_data", ProtoField.uint32("inswitch.tlp.vendor_data", "Vendor-defined DW3", base.HEX))
fld(p_tlp, "register", ProtoField.uint16("inswitch.tlp.register", "Register byte offset", base.HEX))
fld(p_tlp, "payload", ProtoField.bytes("inswitch.tlp.payload", "Payload"))
fld(p_tlp, "ecrc", ProtoField.uint32("inswitch.tlp.ecrc", "ECRC", base.HEX))
-- Flit
fld(p_flit, "prefix", ProtoField.uint32("inswitch.flit.prefix", "Local prefix", base.HEX))
fld(p_flit, "type", ProtoField.uint8("inswitch.flit.type", "Type", base.HEX))
fld(p_flit, "tc", ProtoField.uint8("inswitch.flit.tc", "TC", base.DEC, nil, 0xe0))
fld(p_flit, "ohc", ProtoField.uint8("inswitch.flit.ohc", "OHC", base.HEX, nil, 0x1f))
fld(p_flit, "ts", ProtoField.uint16("inswitch.flit.ts", "TS", base.DEC, nil, 0xe000))
fld(p_flit, "attr", ProtoField.uint16("inswitch.flit.attr", "Attr", base.HEX, nil, 0x1c00))
fld(p_flit, "length", ProtoField.uint16("inswitch.flit.length", "Length (DW)", base.DEC, nil, 0x03ff))
fld(p_flit, "requester_id", ProtoField.uint16("inswitch.flit.requester_id", "Requester ID", base.HEX))
fld(p_flit, "ep", ProtoField.bool("inswitch.flit.ep", "EP", 16, nil, 0x8000))
fld(p_flit, "tag", ProtoField.uint16("inswitch.flit.tag", "Tag", base.HEX, nil, 0x3fff))
fld(p_flit, "address", ProtoField.uint64("inswitch.flit.address", "Address", base.HEX))
fld(p_flit, "header_dw", ProtoField.uint32("inswitch.flit.header_dw", "Header DW", base.HEX))
fld(p_flit, "ohc_word", ProtoField.uint32("inswitch.flit.ohc_word", "OHC word", base.HEX))
fld(p_flit, "payload", ProtoField.bytes("inswitch.flit.payload", "Payload"))
fld(p_flit, "trailer", ProtoField.uint32("inswitch.flit.trailer", "Trailer DW", base.HEX))
-- DLLP
fld(p_dllp, "type", ProtoField.uint8("inswitch.dllp.type", "Type", base.HEX, dllp_types))
fld(p_dllp, "body", ProtoField.uint24("inswitch.dllp.body", "Body", base.HEX))
fld(p_dllp, "seq", ProtoField.uint16("inswitch.dllp.seq", "AckNak_Seq_Num", base.DEC, nil, 0x0fff))
fld(p_dllp, "crc", ProtoField.uint16("inswitch.dllp.crc", "CRC (little-endian)", base.HEX))
-- Portals reduction frame; the header with libfabric's names (struct cxip_coll_hdr)
fld(p_portals, "dfa", ProtoField.uint32("inswitch.portals.dfa", "DFA", base.HEX))
fld(p_portals, "tree", ProtoField.uint32("inswitch.portals.tree", "Multicast tree (DFA bits 15-3)", base.DEC, nil, 0x0000fff8))
fld(p_portals, "reduction_id", ProtoField.uint32("inswitch.portals.reduction_id", "Reduction id (DFA bits 20-18)", base.DEC, nil, 0x001c0000))
fld(p_portals, "sfa", ProtoField.uint32("inswitch.portals.sfa", "SFA", base.HEX))
fld(p_portals, "vni", ProtoField.uint16("inswitch.portals.vni", "VNI", base.HEX))
fld(p_portals, "command", ProtoField.uint8("inswitch.portals.command", "Command", base.HEX))
fld(p_portals, "flags", ProtoField.uint8("inswitch.portals.flags", "Flags", base.HEX))
fld(p_portals, "match_bits", ProtoField.uint64("inswitch.portals.match_bits", "Match bits", base.HEX))
fld(p_portals, "header_data", ProtoField.uint64("inswitch.portals.header_data", "Header data", base.HEX))
fld(p_portals, "reserved", ProtoField.bytes("inswitch.portals.reserved", "Reserved"))
fld(p_portals, "idc_pad", ProtoField.bytes("inswitch.portals.idc_pad", "IDC pad (red_pkt.pad)"))
fld(p_portals, "cookie", ProtoField.uint32("inswitch.portals.cookie", "cookie (rt_cookie)", base.HEX))
fld(p_portals, "mcast_id", ProtoField.uint32("inswitch.portals.cookie.mcast_id", "mcast_id", base.DEC, nil, 0x00001fff))
fld(p_portals, "red_id", ProtoField.uint32("inswitch.portals.cookie.red_id", "red_id", base.DEC, nil, 0x0000e000))
fld(p_portals, "magic", ProtoField.uint32("inswitch.portals.cookie.magic", "magic", base.HEX, nil, 0xffff0000))
fld(p_portals, "pad", ProtoField.uint8("inswitch.portals.pad", "pad (bits 63-62)", base.DEC, nil, 0xc0))
fld(p_portals, "retry", ProtoField.bool("inswitch.portals.retry", "retry (bit 61)", 8, nil, 0x20))
fld(p_portals, "repsum_ovflid", ProtoField.uint8("inswitch.portals.repsum_ovflid", "repsum_ovflid (rt_repsum_ovflid)", base.DEC, nil, 0x18))
fld(p_portals, "repsum_m", ProtoField.int8("inswitch.portals.repsum_m", "repsum_m (rt_repsum_m)"))
fld(p_portals, "red_rc", ProtoField.uint8("inswitch.portals.red_rc", "red_rc (rt_rc)", base.DEC, rc_names))
fld(p_portals, "resno", ProtoField.uint16("inswitch.portals.resno", "resno (rt_resno)", base.DEC))
fld(p_portals, "redcnt", ProtoField.uint32("inswitch.portals.redcnt", "redcnt (rt_count)", base.DEC))
fld(p_portals, "op", ProtoField.uint8("inswitch.portals.op", "op (rt_op)", base.HEX, op_names))
fld(p_portals, "arm", ProtoField.bool("inswitch.portals.arm", "arm (rt_arm)"))
fld(p_portals, "seqno", ProtoField.uint16("inswitch.portals.seqno", "seqno (rt_seqno)", base.DEC))
fld(p_portals, "data", ProtoField.uint64("inswitch.portals.data", "data (rt_data)", base.HEX))
fld(p_portals, "fcs", ProtoField.uint32("inswitch.portals.fcs", "FCS", base.HEX))
-- Collective message
fld(p_coll, "version", ProtoField.uint8("inswitch.coll.version", "Version", base.DEC, nil, 0xf0))
fld(p_coll, "kind", ProtoField.uint8("inswitch.coll.kind", "Kind", base.DEC, coll_kinds, 0x0f))
fld(p_coll, "np", ProtoField.bool("inswitch.coll.non_posted", "Non-posted", 8, nil, 0x80))
fld(p_coll, "em", ProtoField.bool("inswitch.coll.error_mark", "Error mark", 8, nil, 0x40))
fld(p_coll, "rt", ProtoField.bool("inswitch.coll.retry", "Retry", 8, nil, 0x20))
fld(p_coll, "tid", ProtoField.uint8("inswitch.coll.tid", "TID", base.DEC, nil, 0x18))
fld(p_coll, "cc_id", ProtoField.uint16("inswitch.coll.cc_id", "CC_ID", base.HEX, nil, 0x0fff))
fld(p_coll, "dmu_id", ProtoField.uint16("inswitch.coll.dmu_id", "DMU_ID", base.HEX))
fld(p_coll, "p_id", ProtoField.uint16("inswitch.coll.p_id", "P_ID (65535: none)", base.DEC))
fld(p_coll, "master_id", ProtoField.uint16("inswitch.coll.master_id", "Master engine ID", base.HEX))
fld(p_coll, "isl_port", ProtoField.uint8("inswitch.coll.isl_port", "Inter-switch link port", base.DEC))
fld(p_coll, "validation", ProtoField.uint8("inswitch.coll.validation", "Validation config", base.HEX))
fld(p_coll, "error_reporting", ProtoField.uint8("inswitch.coll.error_reporting", "Error-reporting config", base.HEX))
fld(p_coll, "n_subservient", ProtoField.uint8("inswitch.coll.n_subservient", "Subservient engines", base.DEC))
fld(p_coll, "n_devices", ProtoField.uint16("inswitch.coll.n_devices", "PBV table entries", base.DEC))
fld(p_coll, "subservient_timeout", ProtoField.uint32("inswitch.coll.subservient_timeout", "Subservient timeout", base.DEC))
fld(p_coll, "master_timeout", ProtoField.uint32("inswitch.coll.master_timeout", "Master timeout", base.DEC))
fld(p_coll, "device_id", ProtoField.uint16("inswitch.coll.device_id", "Device ID", base.HEX))
fld(p_coll, "engine_id", ProtoField.uint16("inswitch.coll.engine_id", "Engine ID", base.HEX))
fld(p_coll, "p_count", ProtoField.uint16("inswitch.coll.p_count", "P_count", base.DEC))
fld(p_coll, "operation", ProtoField.uint8("inswitch.coll.operation", "Operation", base.HEX, op_names))
fld(p_coll, "accumulator", ProtoField.uint64("inswitch.coll.accumulator", "Initial accumulator", base.HEX))
fld(p_coll, "pbv", ProtoField.bytes("inswitch.coll.pbv", "PBV (bit 127 first)"))
fld(p_coll, "command", ProtoField.uint8("inswitch.coll.command", "Command", base.DEC, commands))
fld(p_coll, "status", ProtoField.uint8("inswitch.coll.status", "Status", base.DEC, rc_names))
fld(p_coll, "contributions", ProtoField.uint16("inswitch.coll.contributions", "Contributions", base.DEC))
fld(p_coll, "n_operands", ProtoField.uint16("inswitch.coll.n_operands", "Operands", base.DEC))
fld(p_coll, "completion", ProtoField.uint8("inswitch.coll.completion", "Completion", base.DEC, completions))
fld(p_coll, "operand", ProtoField.uint64("inswitch.coll.operand", "Operand", base.HEX))
fld(p_coll, "reason", ProtoField.uint8("inswitch.coll.reason", "Reason", base.DEC, reasons))
fld(p_coll, "attempt", ProtoField.uint8("inswitch.coll.attempt", "Attempt", base.DEC))
fld(p_coll, "body", ProtoField.bytes("inswitch.coll.body", "Body"))
fld(p_coll, "encap_type", ProtoField.uint8("inswitch.coll.encap.type", "Encapsulated payload type", base.DEC, encap_types))
fld(p_coll, "encap_op", ProtoField.bool("inswitch.coll.encap.apply", "Operation bit (apply)", 8, nil, 0x80))
fld(p_coll, "encap_version", ProtoField.uint8("inswitch.coll.encap.version", "Encapsulation version", base.DEC))
fld(p_coll, "encap_form", ProtoField.uint8("inswitch.coll.encap.form", "Original header form", base.DEC, encap_forms))
fld(p_coll, "encap_header", ProtoField.bytes("inswitch.coll.encap.header", "Encapsulated original header"))
fld(p_coll, "encap_length", ProtoField.uint16("inswitch.coll.encap.length", "Encapsulated Length (DW)", base.DEC, nil, 0x03ff))
-- Payload type 2: the original header's address names the engine (bits 31:16) and the register (11:0);
-- the 1-DW payload is the write data, byte 0 = bits 7:0 (docs/frames.md §4).
fld(p_coll, "encap_reg_engine", ProtoField.uint16("inswitch.coll.encap.reg.engine", "Register write: Engine ID", base.HEX))
fld(p_coll, "encap_reg_offset", ProtoField.uint16("inswitch.coll.encap.reg.offset", "Register write: offset", base.HEX, nil, 0x0fff))
fld(p_coll, "encap_reg_data", ProtoField.uint32("inswitch.coll.encap.reg.data", "Register write: data", base.HEX))
for _, p in ipairs({ p_tlp, p_flit, p_dllp, p_portals, p_coll }) do
    p.fields = fields_of[p]
end

-- Helpers -------------------------------------------------------------------------------------------

-- Whether `n` bytes are there at `off`; if not, marks the frame malformed and says what was missing.
local function need(proto, tvb, tree, off, n, what)
    if tvb:len() >= off + n then return true end
    tree:add_proto_expert_info(malformed[proto], string.format("Malformed: %s needs %d bytes at offset %d, frame has %d", what, n, off, tvb:len()))
    return false
end

local function u8(tvb, o) return tvb(o, 1):uint() end
local function u16(tvb, o) return tvb(o, 2):uint() end
local function u32(tvb, o) return tvb(o, 4):uint() end

-- Collective message ----------------------------------------------------------------------------------

-- A FIG. 4 configuration body laid out as in a kind-1 message starting at byte `b` (fields from b + 8).
local function config_body(tvb, t, b)
    if not need(p_coll, tvb, t, b + 8, 16, "configuration body") then return end
    t:add(C.master_id, tvb(b + 8, 2)); t:add(C.isl_port, tvb(b + 10, 1)); t:add(C.validation, tvb(b + 11, 1))
    t:add(C.error_reporting, tvb(b + 12, 1)); t:add(C.n_subservient, tvb(b + 13, 1)); t:add(C.n_devices, tvb(b + 14, 2))
    t:add(C.subservient_timeout, tvb(b + 16, 4)); t:add(C.master_timeout, tvb(b + 20, 4))
    local n = u16(tvb, b + 14) + u8(tvb, b + 13)
    if not need(p_coll, tvb, t, b + 24, 2 * n, "device and engine IDs") then return end
    for i = 0, u16(tvb, b + 14) - 1 do t:add(C.device_id, tvb(b + 24 + 2 * i, 2)):prepend_text("PBV entry " .. i .. ": ") end
    for i = u16(tvb, b + 14), n - 1 do t:add(C.engine_id, tvb(b + 24 + 2 * i, 2)):prepend_text("Subservient: ") end
end

local function dissect_collective(tvb, pinfo, tree)
    local t = tree:add(p_coll, tvb())
    if not need(p_coll, tvb, t, 0, 8, "collective header") then return 0 end
    local kind = band(u8(tvb, 0), 0x0f)
    t:add(C.version, tvb(0, 1))
    t:add(C.kind, tvb(0, 1))
    t:add(C.np, tvb(1, 1)); t:add(C.em, tvb(1, 1)); t:add(C.rt, tvb(1, 1)); t:add(C.tid, tvb(1, 1))
    t:add(C.cc_id, tvb(2, 2))
    t:add(C.dmu_id, tvb(4, 2))
    t:add(C.p_id, tvb(6, 2))
    local cc = band(u16(tvb, 2), 0x0fff)
    t:append_text(string.format(", %s, CC_ID 0x%03x", coll_kinds[kind] or "unknown kind", cc))
    pinfo.cols.info:append(string.format(" [collective %s CC_ID 0x%03x]", coll_kinds[kind] or "?", cc))
    if kind == 1 then
        config_body(tvb, t, 0)
    elseif kind == 10 then
        -- Descriptor, the original memory write's header (3 or 4 DW by Fmt), its payload.
        if not need(p_coll, tvb, t, 8, 8, "encapsulation descriptor") then return tvb:len() end
        t:add(C.encap_type, tvb(8, 1)); t:add(C.encap_op, tvb(9, 1)); t:add(C.encap_version, tvb(10, 1))
        t:add(C.encap_form, tvb(11, 1))
        local hdr = (band(u8(tvb, 12), 0x20) ~= 0) and 16 or 12
        if not need(p_coll, tvb, t, 12, hdr, "encapsulated original header") then return tvb:len() end
        t:add(C.encap_header, tvb(12, hdr)); t:add(C.encap_length, tvb(14, 2))
        if u8(tvb, 8) == 1 then
            config_body(tvb, t, 12 + hdr - 8)
        elseif u8(tvb, 8) == 2 then
            -- The address's low DW is the header's last (the high DW of a 4-DW header is 0 in a window).
            t:add(C.encap_reg_engine, tvb(12 + hdr - 4, 2)); t:add(C.encap_reg_offset, tvb(12 + hdr - 2, 2))
            if not need(p_coll, tvb, t, 12 + hdr, 4, "register write data") then return tvb:len() end
            t:add_le(C.encap_reg_data, tvb(12 + hdr, 4))
        elseif tvb:len() > 12 + hdr then
            t:add(C.body, tvb(12 + hdr))
        end
    elseif kind == 2 then
        if not need(p_coll, tvb, t, 8, 32, "initialization body") then return tvb:len() end
        t:add(C.p_count, tvb(8, 2)); t:add(C.operation, tvb(10, 1))
        t:add(C.accumulator, tvb(16, 8)); t:add(C.pbv, tvb(24, 16))
    elseif kind == 3 then
        if not need(p_coll, tvb, t, 8, 8, "control body") then return tvb:len() end
        t:add(C.command, tvb(8, 1)); t:add(C.p_count, tvb(10, 2))
    elseif kind >= 4 and kind <= 6 then
        if not need(p_coll, tvb, t, 8, 8, "data body") then return tvb:len() end
        t:add(C.operation, tvb(8, 1)); t:add(C.status, tvb(9, 1)); t:add(C.contributions, tvb(10, 2))
        t:add(C.n_operands, tvb(12, 2)); t:add(C.completion, tvb(14, 1))
        local n = u16(tvb, 12)
        if not need(p_coll, tvb, t, 16, 8 * n, "operands") then return tvb:len() end
        for i = 0, n - 1 do t:add(C.operand, tvb(16 + 8 * i, 8)):prepend_text("[" .. i .. "] ") end
    elseif kind == 7 or kind == 8 then
        if not need(p_coll, tvb, t, 8, 8, "retry/failure body") then return tvb:len() end
        t:add(C.reason, tvb(8, 1)); t:add(C.attempt, tvb(9, 1)); t:add(C.engine_id, tvb(10, 2)); t:add(C.device_id, tvb(12, 2))
    elseif tvb:len() > 8 then
        t:add(C.body, tvb(8))
    end
    return tvb:len()
end

-- Non-flit TLP ----------------------------------------------------------------------------------------

function p_tlp.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "inswitch TLP"
    local t = tree:add(p_tlp, tvb())
    local off = 0
    if not need(p_tlp, tvb, t, 0, 4, "DW0") then pinfo.cols.info = "Malformed TLP"; return end
    while rshift(u8(tvb, off), 5) == 4 do
        t:add(T.prefix, tvb(off, 4))
        off = off + 4
        if not need(p_tlp, tvb, t, off, 4, "DW0 after a prefix") then return end
    end
    local b0 = u8(tvb, off)
    local fmt, typ = rshift(b0, 5), band(b0, 0x1f)
    local hdr = (band(fmt, 1) ~= 0) and 16 or 12
    if not need(p_tlp, tvb, t, off, hdr, "header") then pinfo.cols.info = "Malformed TLP"; return end
    local kind = tlp_kind(fmt, typ)
    t:add(T.fmt, tvb(off, 1)); t:add(T.type, tvb(off, 1)); t:add(T.kind, kind)
    t:add(T.t9, tvb(off + 1, 1)); t:add(T.tc, tvb(off + 1, 1)); t:add(T.t8, tvb(off + 1, 1))
    t:add(T.attr2, tvb(off + 1, 1)); t:add(T.ln, tvb(off + 1, 1)); t:add(T.th, tvb(off + 1, 1))
    t:add(T.td, tvb(off + 2, 1)); t:add(T.ep, tvb(off + 2, 1)); t:add(T.attr, tvb(off + 2, 1)); t:add(T.at, tvb(off + 2, 1))
    t:add(T.length, tvb(off + 2, 2))
    local b1 = u8(tvb, off + 1)
    local tag_hi = bor(lshift(band(rshift(b1, 7), 1), 9), lshift(band(rshift(b1, 3), 1), 8))
    local len_dw = band(u16(tvb, off + 2), 0x3ff)
    if len_dw == 0 then len_dw = 1024 end
    local td = band(u8(tvb, off + 2), 0x80) ~= 0
    local h = off
    local info = kind
    if kind == "completion" then
        t:add(T.completer_id, tvb(h + 4, 2)); t:add(T.status, tvb(h + 6, 1)); t:add(T.bcm, tvb(h + 6, 1))
        t:add(T.byte_count, tvb(h + 6, 2)); t:add(T.requester_id, tvb(h + 8, 2))
        t:add(T.tag, tvb(h + 10, 1), tag_hi + u8(tvb, h + 10)); t:add(T.lower_address, tvb(h + 11, 1))
    elseif kind == "message" then
        t:add(T.requester_id, tvb(h + 4, 2)); t:add(T.tag, tvb(h + 6, 1), tag_hi + u8(tvb, h + 6))
        t:add(T.message_code, tvb(h + 7, 1))
        if band(typ, 7) == 1 then
            t:add(T.address, tvb(h + 8, 8))
        else
            t:add(T.target_id, tvb(h + 8, 2)); t:add(T.vendor_id, tvb(h + 10, 2)); t:add(T.vendor_data, tvb(h + 12, 4))
        end
    elseif kind ~= "unknown" then
        t:add(T.requester_id, tvb(h + 4, 2)); t:add(T.tag, tvb(h + 6, 1), tag_hi + u8(tvb, h + 6))
        t:add(T.last_be, tvb(h + 7, 1)); t:add(T.first_be, tvb(h + 7, 1))
        if kind == "cfg_read" or kind == "cfg_write" then
            t:add(T.completer_id, tvb(h + 8, 2)); t:add(T.register, tvb(h + 10, 2), band(u16(tvb, h + 10), 0x0ffc))
        elseif hdr == 16 then
            local a = tvb(h + 8, 8):uint64():band(UInt64.new(0xfffffffc, 0xffffffff))
            t:add(T.address, tvb(h + 8, 8), a)
            info = info .. " 0x" .. a:tohex()
        else
            local a = band(u32(tvb, h + 8), 0xfffffffc)
            t:add(T.address, tvb(h + 8, 4), UInt64.new(a, 0))
            info = info .. string.format(" 0x%08x", a)
        end
    end
    off = off + hdr
    local plen = (band(fmt, 2) ~= 0) and 4 * len_dw or 0
    if plen > 0 then
        if not need(p_tlp, tvb, t, off, plen, "payload (Length)") then pinfo.cols.info = "Malformed TLP: " .. info; return end
        t:add(T.payload, tvb(off, plen))
    end
    pinfo.cols.info = info
    if kind == "message" and u8(tvb, h + 7) == VDM_CODE and u16(tvb, h + 10) == VENDOR_ID and plen > 0 then
        dissect_collective(tvb(off, plen):tvb(), pinfo, t)
    end
    off = off + plen
    if td then
        if not need(p_tlp, tvb, t, off, 4, "ECRC") then return end
        t:add_le(T.ecrc, tvb(off, 4))
        off = off + 4
    end
    if tvb:len() > off then
        t:add_proto_expert_info(malformed[p_tlp], string.format("Malformed: %d trailing bytes after the TLP", tvb:len() - off))
    end
end

-- Flit-mode TLP ---------------------------------------------------------------------------------------

function p_flit.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "inswitch flit TLP"
    local t = tree:add(p_flit, tvb())
    local off = 0
    if not need(p_flit, tvb, t, 0, 4, "DW0") then pinfo.cols.info = "Malformed flit TLP"; return end
    while u8(tvb, off) >= 0x80 and u8(tvb, off) <= 0x8f do
        t:add(FL.prefix, tvb(off, 4))
        off = off + 4
        if not need(p_flit, tvb, t, off, 4, "DW0 after a prefix") then return end
    end
    local typ = u8(tvb, off)
    local base_dw, with_data = flit_type_info(typ)
    if not need(p_flit, tvb, t, off, 4 * base_dw, "header base") then pinfo.cols.info = "Malformed flit TLP"; return end
    t:add(FL.type, tvb(off, 1)); t:add(FL.tc, tvb(off + 1, 1)); t:add(FL.ohc, tvb(off + 1, 1))
    t:add(FL.ts, tvb(off + 2, 2)); t:add(FL.attr, tvb(off + 2, 2)); t:add(FL.length, tvb(off + 2, 2))
    local ohc = band(u8(tvb, off + 1), 0x1f)
    local ts = rshift(u8(tvb, off + 2), 5)
    local len_dw = band(u16(tvb, off + 2), 0x3ff)
    if len_dw == 0 then len_dw = 1024 end
    if base_dw >= 2 then
        t:add(FL.requester_id, tvb(off + 4, 2)); t:add(FL.ep, tvb(off + 6, 2)); t:add(FL.tag, tvb(off + 6, 2))
    end
    if flit_addr32[typ] then
        t:add(FL.address, tvb(off + 8, 4), UInt64.new(band(u32(tvb, off + 8), 0xfffffffc), 0))
    elseif flit_addr64[typ] then
        t:add(FL.address, tvb(off + 8, 8), tvb(off + 8, 8):uint64():band(UInt64.new(0xfffffffc, 0xffffffff)))
    end
    for i = 1, base_dw - 1 do t:add(FL.header_dw, tvb(off + 4 * i, 4)):prepend_text("DW" .. i .. " ") end
    off = off + 4 * base_dw
    local ohc_dw = band(ohc, 1) + band(rshift(ohc, 1), 1) + band(rshift(ohc, 2), 1) + flit_ohc_e_dw[rshift(ohc, 3)]
    if not need(p_flit, tvb, t, off, 4 * ohc_dw, "OHC") then return end
    for i = 0, ohc_dw - 1 do t:add(FL.ohc_word, tvb(off + 4 * i, 4)) end
    off = off + 4 * ohc_dw
    local plen = with_data and 4 * len_dw or 0
    if plen > 0 then
        if not need(p_flit, tvb, t, off, plen, "payload (Length)") then pinfo.cols.info = "Malformed flit TLP"; return end
        t:add(FL.payload, tvb(off, plen))
    end
    pinfo.cols.info = string.format("flit type 0x%02x", typ)
    if typ >= 0x70 and typ <= 0x75 and plen >= 8 and rshift(u8(tvb, off), 4) == COLLECTIVE_VERSION then
        dissect_collective(tvb(off, plen):tvb(), pinfo, t)
    end
    off = off + plen
    local tr = flit_trailer_dw[ts]
    if not need(p_flit, tvb, t, off, 4 * tr, "trailer (TS)") then return end
    for i = 0, tr - 1 do t:add(FL.trailer, tvb(off + 4 * i, 4)) end
    off = off + 4 * tr
    if tvb:len() > off then
        t:add_proto_expert_info(malformed[p_flit], string.format("Malformed: %d trailing bytes after the TLP", tvb:len() - off))
    end
end

-- DLLP ------------------------------------------------------------------------------------------------

function p_dllp.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "inswitch DLLP"
    local t = tree:add(p_dllp, tvb())
    if not need(p_dllp, tvb, t, 0, 6, "DLLP") then pinfo.cols.info = "Malformed DLLP"; return end
    local typ = u8(tvb, 0)
    t:add(DL.type, tvb(0, 1)); t:add(DL.body, tvb(1, 3))
    if typ == 0x00 or typ == 0x10 then t:add(DL.seq, tvb(2, 2)) end
    t:add_le(DL.crc, tvb(4, 2))
    pinfo.cols.info = dllp_types[typ] or string.format("DLLP type 0x%02x", typ)
    if tvb:len() > 6 then t:add_proto_expert_info(malformed[p_dllp], "Malformed: trailing bytes after the DLLP") end
end

-- Portals reduction frame -------------------------------------------------------------------------------

local function dissect_reduction_frame(tvb, pinfo, tree)
    local t = tree:add(p_portals, tvb(0, math.min(tvb:len(), PORTALS_FRAME_LEN)))
    if not need(p_portals, tvb, t, 0, PORTALS_FRAME_LEN, "reduction frame") then pinfo.cols.info = "Malformed Portals frame"; return tvb:len() end
    t:add(PT.dfa, tvb(0, 4)); t:add(PT.tree, tvb(0, 4)); t:add(PT.reduction_id, tvb(0, 4))
    t:add(PT.sfa, tvb(4, 4)); t:add(PT.vni, tvb(8, 2)); t:add(PT.command, tvb(10, 1)); t:add(PT.flags, tvb(11, 1))
    t:add(PT.match_bits, tvb(12, 8)); t:add(PT.header_data, tvb(20, 8))
    t:add(PT.reserved, tvb(28, 7)); t:add(PT.idc_pad, tvb(35, 5))
    -- The 96-bit header at byte 40: cookie (bits 95-64) then one 64-bit word (bits 63-0).
    local h = t:add(tvb(40, 12), "Reduction header (struct cxip_coll_hdr)")
    local c = h:add(PT.cookie, tvb(40, 4))
    c:add(PT.mcast_id, tvb(40, 4)); c:add(PT.red_id, tvb(40, 4)); c:add(PT.magic, tvb(40, 4))
    local hi, lo = u32(tvb, 44), u32(tvb, 48)
    h:add(PT.pad, tvb(44, 1)); h:add(PT.retry, tvb(44, 1)); h:add(PT.repsum_ovflid, tvb(44, 1))
    -- repsum_m: bits 58-51 = hi bits 26-19.
    local m = band(rshift(hi, 19), 0xff)
    if m >= 128 then m = m - 256 end
    h:add(PT.repsum_m, tvb(44, 2), m)
    local rc = band(rshift(hi, 15), 0xf)
    h:add(PT.red_rc, tvb(45, 1), rc)
    h:add(PT.resno, tvb(45, 2), band(rshift(hi, 5), 0x3ff))
    local count = bor(lshift(band(hi, 0x1f), 15), rshift(lo, 17))
    h:add(PT.redcnt, tvb(47, 3), count)
    local op = band(rshift(lo, 11), 0x3f)
    h:add(PT.op, tvb(49, 2), op)
    local arm = band(rshift(lo, 10), 1) ~= 0
    h:add(PT.arm, tvb(50, 1), arm)
    local seqno = band(lo, 0x3ff)
    h:add(PT.seqno, tvb(50, 2), seqno)
    for i = 0, 3 do t:add(PT.data, tvb(52 + 8 * i, 8)):prepend_text("[" .. i .. "] ") end
    pinfo.cols.info = string.format("Portals %s seqno %d op %s redcnt %d rc %s", arm and "arm" or "up", seqno, op_names[op] or "?", count, rc_names[rc] or "?")
    return PORTALS_FRAME_LEN
end

function p_portals.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "inswitch Portals"
    local used = dissect_reduction_frame(tvb, pinfo, tree)
    -- Soft Portals over Ethernet: the FCS follows the 84 bytes.
    if used == PORTALS_FRAME_LEN and tvb:len() == PORTALS_FRAME_LEN + 4 then
        tree:add_le(PT.fcs, tvb(PORTALS_FRAME_LEN, 4))
    end
end

function p_coll.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "inswitch collective"
    dissect_collective(tvb, pinfo, tree)
end

-- Registration ------------------------------------------------------------------------------------------

local wtap_encap = DissectorTable.get("wtap_encap")
wtap_encap:add(wtap.USER0, p_tlp)
wtap_encap:add(wtap.USER1, p_flit)
wtap_encap:add(wtap.USER2, p_portals)
wtap_encap:add(wtap.USER3, p_dllp)
wtap_encap:add(wtap.USER4, p_coll)
DissectorTable.get("ethertype"):add(SOFT_PORTALS_ETHERTYPE, p_portals)
