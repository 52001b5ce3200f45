#!/usr/bin/env python3
"""Independent cross-check of the non-flit TLP codec with cocotbext-pcie (docs/frames.md §9).

Input: JSON lines, one per TLP, written by crates/frames/tests/oracles.rs:
  {"hex": "<bytes emitted by inswitch-frames>", "f": {<field values as the Rust repr holds them>}}
For each line this script
  1. unpacks the Rust bytes with cocotbext.pcie Tlp.unpack and compares every field, and
  2. packs a fresh cocotbext Tlp built from the same field values and returns its bytes, which the Rust
     test parses and compares (the other direction).
Output: JSON lines {"i": n, "errors": [...], "packed": "<hex>"}.
cocotbext-pcie cannot pack messages, prefixes or digests: the Rust side only sends memory, IO,
configuration, completion and AtomicOp TLPs without TD.
"""
import json
import sys

from cocotbext.pcie.core.tlp import Tlp, TlpAttr, TlpAt, TlpTc, CplStatus
from cocotbext.pcie.core.utils import PcieId

CPL_TYPES = (0x0A, 0x0B)
CFG_TYPES = (0x04, 0x05)


def check(i, line):
    raw = bytes.fromhex(line["hex"])
    f = line["f"]
    errors = []
    t = Tlp.unpack(raw)

    def cmp(name, got, want):
        if got != want:
            errors.append(f"{name}: cocotbext {got!r} != inswitch {want!r}")

    cmp("fmt", int(t.fmt), f["fmt"])
    cmp("type", int(t.type), f["type"])
    cmp("tc", int(t.tc), f["tc"])
    cmp("ln", bool(t.ln), f["ln"])
    cmp("th", bool(t.th), f["th"])
    cmp("td", bool(t.td), f["td"])
    cmp("ep", bool(t.ep), f["ep"])
    cmp("attr", int(t.attr), f["attr"])
    cmp("at", int(t.at), f["at"])
    cmp("tag", int(t.tag), f["tag"])
    cmp("requester_id", int(t.requester_id), f["requester_id"])
    is_cpl = f["type"] in CPL_TYPES
    want_len = f["length"] if (f["length"] != 0 or is_cpl) else 1024
    cmp("length", int(t.length), want_len)
    if is_cpl:
        cmp("completer_id", int(t.completer_id), f["completer_id"])
        cmp("status", int(t.status), f["status"])
        cmp("bcm", bool(t.bcm), f["bcm"])
        cmp("byte_count", int(t.byte_count), f["byte_count"] or 4096)
        cmp("lower_address", int(t.lower_address), f["lower_address"])
    else:
        cmp("first_be", int(t.first_be), f["first_be"])
        cmp("last_be", int(t.last_be), f["last_be"])
        cmp("address", int(t.address), f["address"])
        if f["type"] in CFG_TYPES:
            cmp("completer_id(target)", int(t.completer_id), f["completer_id"])
        else:
            cmp("ph", int(t.ph), f["ph"])
    cmp("data", bytes(t.data).hex(), f["data"])

    # Other direction: build from the field values and pack.
    u = Tlp()
    u.fmt, u.type = f["fmt"], f["type"]
    u.tc = TlpTc(f["tc"])
    u.ln, u.th, u.td, u.ep = f["ln"], f["th"], f["td"], f["ep"]
    u.attr = TlpAttr(f["attr"])
    u.at = TlpAt(f["at"])
    u.length = f["length"]
    u.tag = f["tag"]
    u.requester_id = PcieId.from_int(f["requester_id"])
    if is_cpl:
        u.completer_id = PcieId.from_int(f["completer_id"])
        u.status = CplStatus(f["status"])
        u.bcm = f["bcm"]
        u.byte_count = f["byte_count"]
        u.lower_address = f["lower_address"]
    else:
        u.first_be, u.last_be = f["first_be"], f["last_be"]
        u.address = f["address"]
        if f["type"] in CFG_TYPES:
            u.completer_id = PcieId.from_int(f["completer_id"])
        else:
            u.ph = f["ph"]
    u.data = bytearray(bytes.fromhex(f["data"]))
    packed = bytes(u.pack())
    return {"i": i, "errors": errors, "packed": packed.hex()}


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    for i, text in enumerate(src):
        if text.strip():
            try:
                out = check(i, json.loads(text))
            except Exception as e:  # report, do not hide: the Rust test fails on any error
                out = {"i": i, "errors": [f"exception: {e!r}"], "packed": ""}
            print(json.dumps(out))


if __name__ == "__main__":
    main()
