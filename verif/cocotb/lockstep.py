"""Lockstep harness for cocotb benches: the RTL under Verilator against `inswitch.Block`, the Rust
model through the Python binding, every output compared on every cycle.

Cycle convention (docs/architecture.md): inputs change after a falling edge; in the read-only phase
before the next rising edge the DUT's outputs are compared with `Block.step(inputs)`, which returns the
outputs seen just before that edge and then takes it. The first mismatch fails the test with the seed,
the cycle, the port, both values in hex, the waveform and the command that reproduces it.
"""

import os
import random

import cocotb
import inswitch
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly

CLOCK_PERIOD_NS = 10


def env_params(var: str) -> dict:
    """`NAME=VALUE,NAME=VALUE` from the environment (the runner passes the DUT's and the model's)."""
    text = os.environ.get(var, "")
    return {k: int(v, 0) for k, v in (item.split("=") for item in text.split(",") if item)}


class Mismatch(AssertionError):
    pass


async def run(dut, stimulus, required=()):
    """Drives `stimulus(rng, cycle, outputs_of_previous_cycle) -> inputs` for INSWITCH_CYCLES cycles.

    Coverage: the cycles in which each output is non-zero are counted and logged; every output in
    `required` must have been non-zero in at least one cycle, and zero in another (else the stimulus did
    not exercise what the bench claims)."""
    block = os.environ["INSWITCH_BLOCK"]
    seed = int(os.environ.get("INSWITCH_SEED", "1"))
    cycles = int(os.environ.get("INSWITCH_CYCLES", "5000"))
    model = inswitch.Block(block, **env_params("INSWITCH_MODEL_PARAMS"))
    rng = random.Random(seed)
    inputs = [(n, w) for n, d, w in model.ports() if d == "input"]
    outputs = [(n, w) for n, d, w in model.ports() if d == "output"]
    handles = {n: getattr(dut, n) for n, _ in inputs + outputs}
    for n, w in inputs + outputs:
        assert len(handles[n]) == w, f"port {n}: RTL {len(handles[n])} bits, model {w} bits"
    cocotb.start_soon(Clock(dut.clk, CLOCK_PERIOD_NS, units="ns").start())
    prev = {n: 0 for n, _ in outputs}
    compared = 0
    nonzero = {n: 0 for n, _ in outputs}
    for cycle in range(cycles):
        await FallingEdge(dut.clk)
        drive = stimulus(rng, cycle, prev)
        for n, _ in inputs:
            handles[n].value = drive[n]
        await ReadOnly()
        expected = model.step(drive)
        got = {n: int(handles[n].value) for n, _ in outputs}
        if got != expected:
            port = next(n for n, _ in outputs if got[n] != expected[n])
            width = dict(outputs)[port]
            digits = (width + 3) // 4
            report = (
                f"{block} seed {seed}: first mismatch at cycle {cycle} (t = {cycle * CLOCK_PERIOD_NS + CLOCK_PERIOD_NS // 2} ns), "
                f"port {port}: model 0x{expected[port]:0{digits}x}, RTL 0x{got[port]:0{digits}x}\n"
                f"inputs this cycle: { {k: hex(v) for k, v in drive.items()} }\n"
                f"waveform: {os.getcwd()}/dump.vcd\n"
                f"reproduce: .venv/bin/python verif/cocotb/run.py --block {block} --seed {seed} --cycles {cycle + 1}"
                + (f" --dut-params {os.environ['INSWITCH_DUT_PARAMS']}" if os.environ.get("INSWITCH_DUT_PARAMS") else "")
            )
            with open("mismatch.txt", "w") as f:
                f.write(report + "\n")
            raise Mismatch(report)
        compared += len(outputs)
        for n, v in got.items():
            nonzero[n] += v != 0
        prev = got
    dut._log.info(f"{block} seed {seed}: {cycles} cycles, {compared} output values compared, 0 mismatches")
    dut._log.info("cycles with the output non-zero: " + ", ".join(f"{n}={c}" for n, c in nonzero.items()))
    dull = [n for n in required if not 0 < nonzero[n] < cycles]
    assert not dull, f"coverage: outputs {dull} never changed in {cycles} cycles: the stimulus is too weak"
