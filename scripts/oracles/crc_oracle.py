#!/usr/bin/env python3
"""Independent cross-check of the PCIe CRCs of inswitch-frames (docs/frames.md §7): LCRC, ECRC (non-flit
and flit) and the DLLP CRC-16.

Two references that share no code with the Rust crate (nor with each other) for the 32-bit CRCs:
- zlib.crc32 (the C zlib library), the CRC-32 of ISO-HDLC / IEEE 802.3;
- a bit-serial LFSR written from the PCI Express Base Specification's description of the LCRC (§3.6.2.1)
  and ECRC (§2.7.1, "the same polynomial"): polynomial 04C1_1DB7h, seed FFFF_FFFFh, each byte entering
  bit 0 first, the remainder complemented and bit-reversed (remainder bit 31 is LCRC bit 0); the 32-bit
  value is sent least significant byte first.
For the DLLP CRC-16: cocotbext-pcie's `Dllp.pack_crc()` / `Dllp.unpack_crc()` (its own `crc16`,
reflected polynomial 0xD008 = 100Bh, seed FFFFh, complemented, sent little-endian; unpack checks the
residue 0x556F).

Input: JSON lines, one of
  {"kind": "lcrc", "seq": n, "hex": "<TLP as transmitted>", "value": <LCRC from Rust>}
  {"kind": "ecrc", "flit": bool, "hex": "<header and data>", "value": <ECRC from Rust>}
  {"kind": "dllp", "nak": bool, "seq": n, "hex": "<6-byte DLLP from Rust>"}
  {"kind": "dllp_body", "hex": "<4 bytes>", "value": <CRC-16 from Rust>}
Output: JSON lines {"i": n, "errors": [...]}.
"""
import json
import struct
import sys
import zlib

from cocotbext.pcie.core.dllp import Dllp, DllpType, crc16

POLY = 0x04C11DB7


def crc32_spec(data):
    crc = 0xFFFFFFFF
    for b in data:
        for i in range(8):
            fb = ((crc >> 31) ^ (b >> i)) & 1
            crc = (crc << 1) & 0xFFFFFFFF
            if fb:
                crc ^= POLY
    crc ^= 0xFFFFFFFF
    return int(f"{crc:032b}"[::-1], 2)


def crc32_both(data, errors, what):
    z = zlib.crc32(data) & 0xFFFFFFFF
    s = crc32_spec(data)
    if z != s:
        errors.append(f"{what}: zlib {z:#010x} != spec LFSR {s:#010x}")
    return z


def forced(data, bits):
    b = bytearray(data)
    for idx, mask in bits:
        if idx < len(b):
            b[idx] |= mask
    return bytes(b)


def check(i, f):
    errors = []
    kind = f["kind"]
    if kind == "lcrc":
        # The 16 bits before the TLP: 4 reserved bits (0) and the 12-bit sequence number, big-endian.
        seq = struct.pack(">H", f["seq"] & 0x0FFF)
        want = crc32_both(seq + bytes.fromhex(f["hex"]), errors, "lcrc")
        if want != f["value"]:
            errors.append(f"lcrc: reference {want:#010x} != inswitch {f['value']:#010x}")
    elif kind == "ecrc":
        # Variant bits taken as 1: non-flit Type[0] (byte 0 bit 0) and EP (byte 2 bit 6); flit mode
        # byte 0 bit 0 and byte 6 bit 7 (docs/frames.md §7).
        bits = [(0, 0x01), (6, 0x80)] if f["flit"] else [(0, 0x01), (2, 0x40)]
        want = crc32_both(forced(bytes.fromhex(f["hex"]), bits), errors, "ecrc")
        if want != f["value"]:
            errors.append(f"ecrc: reference {want:#010x} != inswitch {f['value']:#010x}")
    elif kind == "dllp":
        d = Dllp.create_nak(f["seq"]) if f["nak"] else Dllp.create_ack(f["seq"])
        built = d.pack_crc()
        got = bytes.fromhex(f["hex"])
        if built != got:
            errors.append(f"dllp: cocotbext-pcie {built.hex()} != inswitch {got.hex()}")
        try:
            back = Dllp.unpack_crc(got)
            if back.type != (DllpType.NAK if f["nak"] else DllpType.ACK) or back.seq != f["seq"]:
                errors.append(f"dllp: cocotbext-pcie reads {back!r}")
        except Exception as e:  # a CRC mismatch raises
            errors.append(f"dllp: cocotbext-pcie rejects {got.hex()}: {e}")
    elif kind == "dllp_body":
        want = (~crc16(bytes.fromhex(f["hex"]))) & 0xFFFF
        if want != f["value"]:
            errors.append(f"dllp crc16: cocotbext-pcie {want:#06x} != inswitch {f['value']:#06x}")
    else:
        errors.append(f"unknown kind {kind!r}")
    return {"i": i, "errors": errors}


def main():
    with open(sys.argv[1]) as fh:
        for i, line in enumerate(fh):
            print(json.dumps(check(i, json.loads(line))))


if __name__ == "__main__":
    main()
