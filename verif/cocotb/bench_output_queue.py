"""cocotb bench of rtl/output_queue.v: AXI-stream frames with backpressure phases, route-table writes,
resets; the reference is inswitch.Block("output_queue")."""

import cocotb

import lockstep

# A few destination device IDs, so that route entries (exact, masked, default) hit and miss.
DEST_IDS = [0x0100, 0x0101, 0x0208, 0x1f00, 0xffff]
MASKS = [0xFFFF, 0xFF00, 0x0000, 0x00FF]
# m_axis_tready probability per phase: free flow, light and heavy backpressure, stall (fills the FIFO).
READY_PHASES = [1.0, 0.7, 0.2, 0.0]
PHASE_CYCLES = 64


class Stimulus:
    def __init__(self, params):
        self.data_width = params.get("DATA_WIDTH", 256)
        self.keep_width = self.data_width // 8
        self.route_entries = params.get("ROUTE_ENTRIES", 16)
        self.port_width = params.get("PORT_WIDTH", 4)
        self.beat = None  # the beat offered on s_axis, held until taken (AXI-stream rule)
        self.ready_p = 1.0

    def new_beat(self, rng, first):
        last = rng.random() < 0.3
        keep = (1 << self.keep_width) - 1
        if last:
            keep = (1 << rng.randint(1, self.keep_width)) - 1
        return {
            "s_axis_tdata": rng.getrandbits(self.data_width), "s_axis_tkeep": keep, "s_axis_tlast": int(last),
            "s_axis_tuser": rng.choice(DEST_IDS) if first or rng.random() < 0.5 else rng.getrandbits(16),
        }

    def __call__(self, rng, cycle, prev):
        if cycle % PHASE_CYCLES == 0:
            self.ready_p = rng.choice(READY_PHASES)
        rst = int(cycle < 3 or rng.random() < 0.002)
        # The beat offered last cycle was taken if tready was high (outputs of the previous cycle).
        if self.beat is not None and prev["s_axis_tready"] and self.beat["s_axis_tvalid"]:
            self.first = bool(self.beat["s_axis_tlast"])
            self.beat = None
        if self.beat is None or rst:
            first = getattr(self, "first", True)
            self.beat = dict(self.new_beat(rng, first), s_axis_tvalid=int(rng.random() < 0.7))
        if not self.beat["s_axis_tvalid"] and rng.random() < 0.5:
            self.beat["s_axis_tvalid"] = 1
        wr = rng.random() < 0.05
        return {
            "rst": rst, **self.beat,
            "m_axis_tready": int(rng.random() < self.ready_p),
            "cfg_route_wr_en": int(wr),
            "cfg_route_wr_index": rng.randrange(self.route_entries),
            "cfg_route_wr_valid": int(rng.random() < 0.8),
            "cfg_route_wr_dest_id": rng.choice(DEST_IDS),
            "cfg_route_wr_dest_mask": rng.choice(MASKS),
            "cfg_route_wr_port": rng.getrandbits(self.port_width),
        }


@cocotb.test()
async def output_queue_lockstep(dut):
    # Backpressure fills the FIFO (s_axis_tready low), frames leave on several egress ports, some miss
    # every route.
    required = ["s_axis_tready", "m_axis_tvalid", "m_axis_tlast", "m_axis_tdest", "stat_route_miss"]
    await lockstep.run(dut, Stimulus(lockstep.env_params("INSWITCH_DUT_PARAMS")), required)
