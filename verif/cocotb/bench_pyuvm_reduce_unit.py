"""pyuvm bench of rtl/reduce_unit.v (docs/python.md §A pyuvm-style scoreboard): a monitor publishes each
cycle's inputs and the DUT's outputs on an analysis port; the scoreboard, a uvm_subscriber, predicts with
inswitch.Block and compares every output. Stimulus: bench_reduce_unit.stimulus."""

import os
import random

import cocotb
import inswitch
import pyuvm
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly
from pyuvm import uvm_analysis_port, uvm_component, uvm_env, uvm_subscriber, uvm_test

import bench_reduce_unit


class ReduceUnitScoreboard(uvm_subscriber):
    """Predictor: the bit-exact model; item = (inputs, dut_outputs) of one clock cycle."""

    def build_phase(self):
        self.model = inswitch.Block("reduce_unit")
        self.cycle = 0
        self.errors = []

    def write(self, item):
        inputs, got = item
        expected = self.model.step(inputs)
        for port, want in expected.items():
            if got[port] != want:
                self.errors.append(f"cycle {self.cycle} {port}: model {want:#x}, DUT {got[port]:#x}")
        self.cycle += 1

    def check_phase(self):
        assert self.cycle > 0, "the scoreboard saw no cycle"
        assert not self.errors, f"{len(self.errors)} mismatches, first: {self.errors[0]}"


class Monitor(uvm_component):
    """Drives the stimulus and publishes what the DUT's ports carry every cycle."""

    def build_phase(self):
        self.ap = uvm_analysis_port("ap", self)

    async def run_phase(self):
        self.raise_objection()
        dut = cocotb.top
        ports = inswitch.Block("reduce_unit").ports()
        rng = random.Random(int(os.environ.get("INSWITCH_SEED", "1")))
        cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
        for cycle in range(int(os.environ.get("INSWITCH_CYCLES", "2000"))):
            await FallingEdge(dut.clk)
            drive = bench_reduce_unit.stimulus(rng, cycle, None)
            for name, value in drive.items():
                getattr(dut, name).value = value
            await ReadOnly()
            got = {n: int(getattr(dut, n).value) for n, d, _ in ports if d == "output"}
            self.ap.write((drive, got))
        self.drop_objection()


class Env(uvm_env):
    def build_phase(self):
        self.monitor = Monitor("monitor", self)
        self.scoreboard = ReduceUnitScoreboard("scoreboard", self)

    def connect_phase(self):
        self.monitor.ap.connect(self.scoreboard.analysis_export)


@pyuvm.test()
class ReduceUnitTest(uvm_test):
    def build_phase(self):
        self.env = Env("env", self)
