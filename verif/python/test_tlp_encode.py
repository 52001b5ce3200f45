"""`inswitch.encode` for TLPs (non-flit and flit mode) against the `decode --json` contract and the PCIe layout.

Three properties, on random inputs:
- round trip: for every frame the codec decodes, `encode(kind, decode(kind, b)) == b` (the whole decode
  object and its `tlp` / `flit` member alike), except the reserved bits decode does not show, which are
  listed below from the PCIe header layout and must then be the only bits that differ;
- CLI agreement: the CLI's `decode --kind K --json` of what `encode` built reads every given field back;
- layout: the bytes `encode` writes for random field values are the ones the PCIe header layout places,
  packed here by hand (DW0 Fmt/Type/TC/attributes/Length, Requester ID, Tag, byte enables, address;
  flit DW0 Type/TC/OHC/TS/Attr/Length and DW1 Requester ID/EP/Tag), never by the model.
"""

import json
import os
import subprocess

import inswitch
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from test_cli_agreement import cli_decode, tlp_bytes

SETTINGS = settings(max_examples=int(os.environ.get("INSWITCH_EXAMPLES", "20")), deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    phases=[Phase.explicit, Phase.reuse, Phase.generate])

byte = st.integers(0, 255)
u16 = st.integers(0, 2**16 - 1)
u32 = st.integers(0, 2**32 - 1)

# ---- reserved bits of the non-flit header that decode does not show (PCIe base spec, 3DW headers) -----
# Byte offsets are from the start of the TLP (no prefixes in the generated frames).
IO_TYPE, CFG_TYPES, CPL_TYPES = 0x02, (0x04, 0x05), (0x0A, 0x0B)


def reserved_mask(b):
    """Bits of `b` (a non-flit TLP without prefixes) that are reserved and not shown by decode."""
    mask = bytearray(len(b))
    fmt, typ = b[0] >> 5, b[0] & 0x1F
    if fmt & 1 == 0 and len(b) >= 12:
        if typ == IO_TYPE:
            mask[11] = 0x03            # Address[1:0] of an IO request: reserved
        elif typ in CFG_TYPES:
            mask[10] = 0xF0            # byte 10 bits 7:4: reserved (3:0 = Extended Register)
            mask[11] = 0x03            # byte 11 bits 1:0: reserved
        elif typ in CPL_TYPES:
            mask[11] = 0x80            # byte 11 bit 7: reserved (6:0 = Lower Address)
    return bytes(mask)


def decodes(kind, b):
    try:
        return inswitch.decode(kind, b)
    except ValueError:
        return None


# Flit-mode Type codes with a payload have bit 6 set (MWr 0x40/0x60, CplD 0x4A, CfgWr 0x44, MsgD 0x70, ...).
FLIT_WITH_DATA = 0x40


@st.composite
def flit_fields(draw):
    """A flit-mode TLP as fields: a type from the flit type table, OHC and TS codes, payload sized by Length."""
    t = draw(st.sampled_from([0x00, 0x03, 0x20, 0x40, 0x60, 0x0A, 0x4A, 0x04, 0x44, 0x30, 0x70, 0x4C, 0x6E, 0x02, 0x42]))
    f = {"type_code": t, "tc": draw(st.integers(0, 7)), "ohc": draw(st.integers(0, 31)), "ts": draw(st.sampled_from([0, 1, 2])),
         "attr": draw(st.integers(0, 7))}
    if draw(st.booleans()):
        f["requester_id"] = draw(u16)
        f["tag"] = draw(st.integers(0, 2**14 - 1))
    if t & FLIT_WITH_DATA:
        f["payload"] = draw(st.integers(1, 4).flatmap(lambda n: st.binary(min_size=4 * n, max_size=4 * n)))
    return f


def flit_frame():
    def build(f):
        try:
            return inswitch.encode("flit", f)
        except ValueError:
            return b""
    return st.one_of(flit_fields().map(build), st.binary(min_size=4, max_size=48))


@pytest.mark.parametrize("kind", ["tlp", "flit"])
def test_encode_inverts_decode(kind):
    @SETTINGS
    @given(st.lists(tlp_bytes() if kind == "tlp" else flit_frame(), min_size=1, max_size=40))
    def check(frames):
        for b in frames:
            d = decodes(kind, b)
            if d is None:
                continue
            round_trips.append(b)
            for given in (d, d[kind]):
                got = inswitch.encode(kind, given)
                if kind == "tlp":
                    m = reserved_mask(b)
                    assert len(got) == len(b) and all((x ^ y) & ~k == 0 for x, y, k in zip(got, b, m)), f"{b.hex()} -> {got.hex()}"
                    assert inswitch.decode(kind, got)[kind] == d[kind]
                else:
                    assert got == b, f"{b.hex()} -> {got.hex()}"

    round_trips = []
    check()
    assert len(round_trips) >= 10, f"only {len(round_trips)} {kind} frames decoded: the round trip was hardly exercised"


def test_round_trip_seen_on_every_tlp_class():
    """Fixed frames, one per header class, so the round trip is never vacuous: MWr 3DW and 4DW, MRd,
    IOWr, CfgRd0, CplD, vendor-defined Msg by ID, Msg by address, FetchAdd, a reserved type, prefixes, ECRC."""
    frames = [
        "400000010100050f1234567801020304",                      # MWr 3DW
        "6000000201000aff0000000112345678" + "00" * 8,           # MWr 4DW
        "0000000401000aff00001000",                              # MRd 3DW
        "420000010100010f0000fc00deadbeef",                      # IOWr
        "04000001010002010100014c",                              # CfgRd0
        "4a000001020000040100050801020304",                      # CplD
        "7200000101000a7f00011ab400000000" + "aabbccdd",         # MsgD by ID, vendor-defined Type 1
        "31000000010000200000000100001000",                      # Msg by address
        "4c000001010000ff00001000" + "00000007",                 # FetchAdd
        "1f000000" + "11" * 8,                                   # reserved type: header kept raw
        "90000001" + "400000010100050f1234567801020304",          # End-End prefix + MWr
    ]
    for h in frames:
        b = bytes.fromhex(h)
        d = inswitch.decode("tlp", b)
        assert inswitch.encode("tlp", d) == b, f"{h}: {inswitch.encode('tlp', d).hex()}"
    # ECRC computed when TD is set and no value is given; a given value is kept (a bad frame).
    good = inswitch.encode("tlp", {"fmt": 2, "type_code": 0, "td": True, "payload": "01020304"})
    assert inswitch.decode("tlp", good)["tlp"]["ecrc"]["correct"] is True
    bad = inswitch.encode("tlp", {"fmt": 2, "type_code": 0, "ecrc": 0x12345678, "payload": "01020304"})
    e = inswitch.decode("tlp", bad)["tlp"]["ecrc"]
    assert e["value"] == 0x12345678 and e["correct"] is False and bad[-4:] == bytes([0x78, 0x56, 0x34, 0x12])


@st.composite
def tlp_fields(draw):
    """Random non-flit fields: memory reads/writes (3DW/4DW), completions, config requests."""
    cls = draw(st.sampled_from(["mem", "cpl", "cfg"]))
    data = draw(st.booleans())
    f = {"tc": draw(st.integers(0, 7)), "attr": draw(st.integers(0, 3)), "ep": draw(st.booleans()), "tag": draw(st.integers(0, 1023))}
    if cls == "mem":
        four = draw(st.booleans())
        f.update(fmt=(2 if data else 0) | int(four), type_code=0, requester_id=draw(u16), first_be=draw(st.integers(0, 15)),
                 last_be=draw(st.integers(0, 15)),
                 address=draw(st.integers(0, 2**62 - 1) if four else st.integers(0, 2**30 - 1)) << 2)
    elif cls == "cpl":
        f.update(fmt=2 if data else 0, type_code=0x0A, completer_id=draw(u16), requester_id=draw(u16), status_code=draw(st.integers(0, 7)),
                 byte_count=draw(st.integers(1, 4096)), lower_address=draw(st.integers(0, 127)))
    else:
        f.update(fmt=2 if data else 0, type_code=0x04, requester_id=draw(u16), first_be=draw(st.integers(0, 15)), completer_id=draw(u16),
                 ext_register=draw(st.integers(0, 15)), register=draw(st.integers(0, 63)))
    if data:
        f["payload"] = draw(st.integers(1, 3).flatmap(lambda n: st.binary(min_size=4 * n, max_size=4 * n))).hex()
    return f


def packed_by_hand(f):
    """The bytes of a non-flit TLP from the PCIe header layout (3DW/4DW), written out here."""
    payload = bytes.fromhex(f.get("payload", ""))
    length = len(payload) // 4
    tag = f["tag"]
    dw0 = (f["fmt"] << 29 | f["type_code"] << 24 | (tag >> 9 & 1) << 23 | f["tc"] << 20 | (tag >> 8 & 1) << 19
           | int(f["ep"]) << 14 | f["attr"] << 12 | length)
    out = dw0.to_bytes(4, "big")
    if f["type_code"] == 0x0A:
        bc = f["byte_count"] % 4096
        out += (f["completer_id"] << 16 | f["status_code"] << 13 | bc).to_bytes(4, "big")
        out += (f["requester_id"] << 16 | (tag & 0xFF) << 8 | f["lower_address"]).to_bytes(4, "big")
    else:
        out += (f["requester_id"] << 16 | (tag & 0xFF) << 8 | f.get("last_be", 0) << 4 | f["first_be"]).to_bytes(4, "big")
        if f["type_code"] == 0x04:
            out += (f["completer_id"] << 16 | f["ext_register"] << 8 | f["register"] << 2).to_bytes(4, "big")
        elif f["fmt"] & 1:
            out += f["address"].to_bytes(8, "big")
        else:
            out += f["address"].to_bytes(4, "big")
    return out + payload


@SETTINGS
@given(st.lists(tlp_fields(), min_size=1, max_size=40))
def test_tlp_encode_places_fields_where_pcie_says(fields):
    for f in fields:
        assert inswitch.encode("tlp", f) == packed_by_hand(f), f


@SETTINGS
@given(st.lists(flit_fields(), min_size=1, max_size=40))
def test_flit_encode_places_fields_where_pcie_says(fields):
    # Flit DW0: Type[7:0] | TC[2:0] OHC[4:0] | TS[2:0] Attr[2:0] Length[9:8] | Length[7:0]; DW1 of a
    # request / completion: Requester ID[15:0] | EP | R | Tag[13:0].
    for f in fields:
        try:
            b = inswitch.encode("flit", f)
        except ValueError as e:
            # Only a type without DW1 may refuse requester_id / tag (nothing to hold them).
            assert "requester_id" in f and "requester_id: not a field" in str(e), (f, e)
            continue
        length = len(f["payload"]) // 4 if "payload" in f else 0
        d = inswitch.decode("flit", b)["flit"]
        dw0 = f["type_code"] << 24 | f["tc"] << 21 | f["ohc"] << 16 | f["ts"] << 13 | f["attr"] << 10 | length
        assert b[:4] == dw0.to_bytes(4, "big"), (f, b.hex())
        if "requester_id" in f and d["header_base_dw"] > 1:
            assert b[4:8] == (f["requester_id"] << 16 | f["tag"]).to_bytes(4, "big"), (f, b.hex())
        start = 4 * d["header_base_dw"] + 4 * d["ohc_dw"]
        assert b[start:start + 4 * length] == bytes(f.get("payload", b""))


@pytest.mark.parametrize("kind", ["tlp", "flit"])
def test_cli_reads_back_what_encode_wrote(cli, kind):
    @SETTINGS
    @given(st.lists(tlp_fields() if kind == "tlp" else flit_fields(), min_size=1, max_size=30))
    def check(fields):
        built = []
        for f in fields:
            try:
                built.append((f, inswitch.encode(kind, f)))
            except ValueError:
                assert kind == "flit", f
        if not built:
            return
        for (f, b), want in zip(built, cli_decode(cli, kind, [b for _, b in built])):
            assert "error" not in want, (f, want)
            got = want[kind]
            for k, v in f.items():
                if k == "payload":
                    assert got[k] == (v if isinstance(v, str) else bytes(v).hex())
                elif k == "byte_count":
                    assert got[k] == v
                else:
                    assert got[k] == v, (k, f, got)

    check()


def test_tlp_encode_errors_carry_the_message():
    with pytest.raises(ValueError, match="not a field of this frame"):
        inswitch.encode("tlp", {"fmt": 0, "type_code": 0, "routing": "by_id"})
    with pytest.raises(ValueError, match="tlp.address: given"):
        inswitch.encode("tlp", {"fmt": 0, "type_code": 0, "address": 0x1001})
    with pytest.raises(ValueError, match="does not fit in 32 bits"):
        inswitch.encode("tlp", {"fmt": 0, "type_code": 0, "address": 1 << 32})
    with pytest.raises(ValueError, match="tlp.type: given"):
        inswitch.encode("tlp", {"fmt": 2, "type_code": 0, "type": "mem_read", "payload": "00000000"})
    with pytest.raises(ValueError, match="whole number of DW"):
        inswitch.encode("tlp", {"fmt": 2, "type_code": 0, "payload": "010203"})
    # The codec's own check: FetchAdd with a 3-DW operand is refused with its message.
    with pytest.raises(ValueError, match="AtomicOp length not allowed"):
        inswitch.encode("tlp", {"fmt": 2, "type_code": 0x0C, "payload": "00" * 12})
    with pytest.raises(ValueError, match="does not fit in 5 bits"):
        inswitch.encode("tlp", {"type_code": 0x20})
    with pytest.raises(ValueError, match="OHC"):
        inswitch.encode("flit", {"type_code": 0x40, "payload": "00000000", "ohc_e": [1]})
    with pytest.raises(ValueError, match="of kind \"flit\""):
        inswitch.encode("tlp", inswitch.decode("flit", inswitch.encode("flit", {"type_code": 0})))


TLP_KEYS = ["prefixes", "fmt", "type_code", "type", "with_data", "tc", "t9", "t8", "attr2", "ln", "th", "td", "ep", "attr", "at",
            "length", "length_dw", "requester_id", "tag", "last_be", "first_be", "address", "address_64", "ph", "completer_id",
            "ext_register", "register", "status_code", "bcm", "byte_count", "lower_address", "message_code", "target_id",
            "vendor_id", "vendor_data", "dw2", "dw3", "header_rest", "payload", "ecrc", "collective", "routing"]
FLIT_KEYS = ["prefixes", "type_code", "tc", "ohc", "ts", "attr", "length", "requester_id", "ep", "tag", "address", "header_dws",
             "ohc_a", "ohc_b", "ohc_c", "ohc_e", "payload", "trailer", "ecrc", "type", "with_data"]
junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 2**70), st.sampled_from(["", "zz", "0102", "00" * 5000, "mem_write"]),
              st.binary(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.sampled_from(["value", "end_to_end", "subtype", "content", "x"]), inner, max_size=3)),
    max_leaves=8)


@pytest.mark.parametrize("kind", ["tlp", "flit"])
def test_bad_fields_raise_never_panic(kind):
    """Bad input is normal input: any dict of known and unknown keys with any values either encodes (and
    then decodes) or raises ValueError / TypeError with a message; a Rust panic would surface as
    pyo3's PanicException, a BaseException this test lets through."""
    keys = st.sampled_from((TLP_KEYS if kind == "tlp" else FLIT_KEYS) + ["bogus"])

    @SETTINGS
    @given(st.lists(st.dictionaries(keys, junk, max_size=8), min_size=1, max_size=40))
    def check(dicts):
        for f in dicts:
            try:
                b = inswitch.encode(kind, f)
            except (ValueError, TypeError) as e:
                assert str(e), f
                continue
            inswitch.decode(kind, b)

    check()
