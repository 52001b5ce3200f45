#!/usr/bin/env python3
"""Independent cross-check of Ethernet II headers and the FCS of Soft Portals frames with scapy and zlib
(docs/frames.md §9).

Input: JSON lines {"hex": "<Soft Portals frame emitted by inswitch-frames>", "dst": "aa:bb:..",
"src": "..", "type": int, "portals": "<84-byte Portals frame hex>", "fcs": int}.
For each line: dissect the Rust bytes with scapy's Ether and compare the header fields, the payload and the
FCS (zlib.crc32 over header + payload, little-endian on the wire); then build the same frame with scapy
(Ether()/Raw() plus the zlib FCS) and return its bytes for the Rust test to compare and parse.
Output: JSON lines {"i": n, "errors": [...], "built": "<hex>"}.
"""
import json
import struct
import sys
import zlib

from scapy.layers.l2 import Ether
from scapy.packet import Raw


def check(i, f):
    raw = bytes.fromhex(f["hex"])
    errors = []
    p = Ether(raw)

    def cmp(name, got, want):
        if got != want:
            errors.append(f"{name}: scapy {got!r} != inswitch {want!r}")

    cmp("dst", p.dst, f["dst"])
    cmp("src", p.src, f["src"])
    cmp("type", p.type, f["type"])
    load = bytes(p.payload)
    cmp("portals", load[:-4].hex(), f["portals"])
    fcs = zlib.crc32(raw[:-4]) & 0xFFFFFFFF
    cmp("fcs(computed)", fcs, f["fcs"])
    cmp("fcs(on wire)", struct.unpack("<I", raw[-4:])[0], f["fcs"])
    body = bytes(Ether(dst=f["dst"], src=f["src"], type=f["type"]) / Raw(load=bytes.fromhex(f["portals"])))
    built = body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)
    return {"i": i, "errors": errors, "built": built.hex()}


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    for i, text in enumerate(src):
        if text.strip():
            try:
                out = check(i, json.loads(text))
            except Exception as e:
                out = {"i": i, "errors": [f"exception: {e!r}"], "built": ""}
            print(json.dumps(out))


if __name__ == "__main__":
    main()
