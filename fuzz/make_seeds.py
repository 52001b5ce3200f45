#!/usr/bin/env python3
"""Writes the seed corpus (fuzz/seeds/<target>/*) from the fixed vectors of crates/frames/tests/vectors.rs
and decode_pcap_view.rs. Run from the repository root: python3 fuzz/make_seeds.py
`scripts/fuzz` reads them (and the corpus it minimised into them with --cmin) on every run.
The differential (cosim_*) targets start from a few fixed pseudo-random choice sequences (their input
is one byte per stimulus draw, docs/verification.md §Differential fuzzing)."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src = open(os.path.join(ROOT, "crates/frames/tests/vectors.rs")).read()
consts = dict(re.findall(r'pub const (\w+): &str = "([0-9a-f ]+)";', src))
groups = {"tlp": "TLP_", "flit": "FLIT_", "portals": "PORTALS", "soft_portals": "SOFT_PORTALS", "collective": "COLL_"}
extra = {
    "tlp": ["72000004 0100007f 0200c011 ce030005 13000005 00100002 01000003 00000000"],
    "dllp": ["000001234f7b", "1000000745f2", "310000000000"],
    "collective": ["13000005 00100002 01000003 00000000", "18000009 00040001 01020300 00310000"],
}
for target, prefix in groups.items():
    vals = [v for k, v in consts.items() if k.startswith(prefix) and not (target == "portals" and k != "PORTALS")]
    vals += extra.get(target, [])
    d = os.path.join(ROOT, "fuzz/seeds", target)
    os.makedirs(d, exist_ok=True)
    for i, v in enumerate(vals):
        open(os.path.join(d, f"seed{i:02}"), "wb").write(bytes.fromhex(v.replace(" ", "")))
d = os.path.join(ROOT, "fuzz/seeds/dllp")
os.makedirs(d, exist_ok=True)
for i, v in enumerate(extra["dllp"]):
    open(os.path.join(d, f"seed{i:02}"), "wb").write(bytes.fromhex(v))

COSIM = ["cosim_input_checker", "cosim_input_checker_w64", "cosim_input_checker_planted", "cosim_interposer",
         "cosim_cpu", "cosim_packet_engine", "cosim_reduce_unit"]
import random
for target in COSIM:
    d = os.path.join(ROOT, "fuzz/seeds", target)
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(target)
    for i, n in enumerate([64, 512, 2048]):
        open(os.path.join(d, f"choices{i:02}"), "wb").write(bytes(rnd.randrange(256) for _ in range(n)))
