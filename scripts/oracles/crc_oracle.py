#!/usr/bin/env python3
"""Independent cross-check of the PCIe CRCs of inswitch-frames (docs/frames.md §7): LCRC, ECRC (non-flit
and flit) and the DLLP CRC-16.

Two references that share no code with the Rust crate (nor with each other) for the 32-bit CRCs:
- zlib.crc32 (the C zlib library), the CRC-32 of ISO-HDLC / IEEE 802.3;
- a bit-serial LFSR written from the PCI Express Base Specification's description of the LCRC (§3.6.2.1)
  and ECRC (§2.7.1, "the same polynomial"): polynomial 04C1_1DB7h, seed FFFF_FFFFh, each byte entering
  bit 0 first, the remainder complemented and bit-reversed (remainder bit 31 is LCRC bit 0); the 32-bit
  value is sent least significant byte first.
For the ECRC of a whole TLP with prefixes (kind "tlp_ecrc"): the coverage rule of PCI Express Base
Specification Rev. 6.3 §2.7.1, "All header fields, all End-End TLP Prefixes/OHC (if present), and the
entire data payload (if present) are included in the ECRC calculation. Local TLP Prefixes (if present) are
not included", and its variant bits are "TLP Header symbol 0, bit 0 [...] This bit in an End-End TLP Prefix
is invariant" and "TLP Header symbol 2, bit 6": this script walks the prefixes itself (Fmt 100b; Type[4]
= 1 End-End, 0 Local: Table 2-3 EPrfx / LPrfx), keeps the End-End ones, forces the bits at the header's
offsets, and computes with both references above. cocotbext-pcie (which has no ECRC of its own) gives
two further checks: its TlpType table names the prefix types it knows (PREFIX_MRIOV and PREFIX_VENDOR_L*
Local, PREFIX_EXT_TPH and PREFIX_VENDOR_E* End-End), which must agree with the Type[4] rule, and its
Tlp.unpack must read TD = 1 at the offset this script takes as the header's start (for the TLP kinds
cocotbext-pcie can unpack).
For the DLLP CRC-16: cocotbext-pcie's `Dllp.pack_crc()` / `Dllp.unpack_crc()` (its own `crc16`,
reflected polynomial 0xD008 = 100Bh, seed FFFFh, complemented, sent little-endian; unpack checks the
residue 0x556F).

Input: JSON lines, one of
  {"kind": "lcrc", "seq": n, "hex": "<TLP as transmitted>", "value": <LCRC from Rust>}
  {"kind": "ecrc", "flit": bool, "hex": "<header and data>", "value": <ECRC from Rust>}
  {"kind": "tlp_ecrc", "hex": "<non-flit TLP as transmitted, prefixes..data, digest left out>", "value": <ECRC>}
  {"kind": "dllp", "nak": bool, "seq": n, "hex": "<6-byte DLLP from Rust>"}
  {"kind": "dllp_body", "hex": "<4 bytes>", "value": <CRC-16 from Rust>}
Output: JSON lines {"i": n, "errors": [...]}.
"""
import json
import struct
import sys
import zlib

from cocotbext.pcie.core.dllp import Dllp, DllpType, crc16
from cocotbext.pcie.core.tlp import Tlp, TlpType

FMT_PREFIX = 0b100
# Type[4] of a prefix DW: End-End (1) or Local (0) (PCIe Base Specification Table 2-3, EPrfx / LPrfx).
END_END = 0x10
# cocotbext-pcie's prefix type names by class.
COCOTBEXT_END_END = {"PREFIX_EXT_TPH", "PREFIX_VENDOR_E0", "PREFIX_VENDOR_E1"}
COCOTBEXT_LOCAL = {"PREFIX_MRIOV", "PREFIX_VENDOR_L0", "PREFIX_VENDOR_L1"}
# Variant bits of a non-flit TLP header (offsets from the header's first byte, after every prefix).
NON_FLIT_VARIANT = [(0, 0x01), (2, 0x40)]

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
    elif kind == "tlp_ecrc":
        tlp = bytes.fromhex(f["hex"])
        covered = bytearray()
        at = 0
        while at + 4 <= len(tlp) and tlp[at] >> 5 == FMT_PREFIX:
            ty = tlp[at] & 0x1F
            end_end = ty & END_END != 0
            try:
                name = TlpType((FMT_PREFIX, ty)).name
            except ValueError:
                name = None  # a prefix type cocotbext-pcie does not name
            if name is not None and (name in COCOTBEXT_END_END) != end_end:
                errors.append(f"prefix type {ty:#04x}: cocotbext-pcie {name} disagrees with Type[4]")
            if end_end:
                covered += tlp[at:at + 4]
            at += 4
        header = forced(tlp[at:], NON_FLIT_VARIANT)
        if len(header) >= 4 and header[0] >> 5 != FMT_PREFIX:
            try:
                read = Tlp.unpack(tlp[at:])
                if not read.td:
                    errors.append(f"cocotbext-pcie reads TD = 0 at byte {at}, the header's start")
            except Exception:
                pass  # a kind cocotbext-pcie cannot unpack (messages)
        want = crc32_both(bytes(covered) + header, errors, "tlp_ecrc")
        if want != f["value"]:
            errors.append(f"tlp_ecrc: reference {want:#010x} != inswitch {f['value']:#010x}")
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
