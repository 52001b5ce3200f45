"""cocotb bench of rtl/reduce_unit.v: every operator of docs/blocks/reduce_unit.md's table with integer and
binary64 special values, opcode mismatches, incoming result codes, resets; the reference is
inswitch.Block("reduce_unit")."""

import cocotb

import lockstep

# docs/blocks/reduce_unit.md §Operator table (written out here, not taken from the model).
OPCODES = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x10, 0x11, 0x12, 0x14, 0x20, 0x21, 0x24, 0x25, 0x26,
           0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30]
# binary64 and integer operands that exercise the corner cases: zeros, infinities, quiet and signalling
# NaNs, subnormals, the largest finite, 1.0, and the integer overflow boundaries.
SPECIAL = [0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
           0x7FF8000000000000, 0x7FF4000000000000, 0x0000000000000001, 0x000FFFFFFFFFFFFF,
           0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FFFFFFFFFFFFFFF]


def operand(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice(SPECIAL)
    if r < 0.5:
        # A binary64 in a narrow exponent range, so that sums round and cancel.
        return rng.getrandbits(1) << 63 | rng.randint(0x3FE, 0x401) << 52 | rng.getrandbits(52)
    return rng.getrandbits(64)


def stimulus(rng, cycle, prev):
    op = rng.choice(OPCODES)
    b_op = op if rng.random() < 0.93 else rng.getrandbits(6)
    side = {}
    for p, o in (("a", op), ("b", b_op)):
        data = 0
        for lane in range(4):
            data |= operand(rng) << (64 * lane)
        side.update({
            f"{p}_rt_op": o, f"{p}_rt_data": data,
            f"{p}_rt_rc": 0 if rng.random() < 0.8 else rng.getrandbits(4),
            f"{p}_rt_repsum_m": rng.getrandbits(8), f"{p}_rt_repsum_oflow_id": rng.getrandbits(2),
            f"{p}_sfa": rng.getrandbits(32),
        })
    return {"rst": int(cycle < 2 or rng.random() < 0.003), "in_valid": int(rng.random() < 0.85),
            "cfg_mode": rng.getrandbits(1), **side}


@cocotb.test()
async def reduce_unit_lockstep(dut):
    # Every output field is exercised: results, result codes (overflow, invalid, mismatch), REPSUM m.
    await lockstep.run(dut, stimulus, ["out_valid", "out_rt_op", "out_rt_data", "out_rt_rc", "out_rt_repsum_m", "out_rt_repsum_oflow_id"])
