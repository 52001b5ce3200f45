"""Speed of inswitch.Block.step from Python, in cycles/s (docs/performance.md §Python binding).

Same blocks and stimulus shape as crates/python/benches/block_step.rs (the Rust side): a precomputed
list of 4096 input dicts (every input of the block set every cycle, as a cocotb bench drives them),
replayed in a loop, given as dicts and (where the build has it) as lists in ports() order; plus
`step({})` (no input changed) for the fixed cost of one call. Rates per wall second and per CPU second of
this process (the steadier one on a loaded machine).

    .venv/bin/python verif/python/bench_block_step.py
"""

import random
import time

import inswitch

STIMULUS_CYCLES = 4096
CYCLES = 200_000
REPEATS = 3


def oq_stimulus(rng):
    out = []
    for c in range(STIMULUS_CYCLES):
        out.append({
            "rst": int(c < 2), "s_axis_tdata": rng.getrandbits(256), "s_axis_tkeep": 0xFFFFFFFF,
            "s_axis_tvalid": int(rng.random() < 0.7), "s_axis_tlast": int(rng.random() < 0.3), "s_axis_tuser": 0x0100,
            "m_axis_tready": int(rng.random() < 0.7), "cfg_route_wr_en": int(c == 3), "cfg_route_wr_index": 0,
            "cfg_route_wr_valid": 1, "cfg_route_wr_dest_id": 0x0100, "cfg_route_wr_dest_mask": 0xFF00, "cfg_route_wr_port": 0,
        })
    return out


def ru_stimulus(rng):
    out = []
    for c in range(STIMULUS_CYCLES):
        op = [0x14, 0x11, 0x28, 0x30][c % 4]
        out.append({
            "rst": int(c < 2), "in_valid": int(rng.random() < 0.85), "cfg_mode": 0,
            "a_rt_op": op, "a_rt_data": rng.getrandbits(256), "a_rt_rc": 0, "a_rt_repsum_m": 0, "a_rt_repsum_oflow_id": 0, "a_sfa": 0,
            "b_rt_op": op, "b_rt_data": rng.getrandbits(256), "b_rt_rc": 0, "b_rt_repsum_m": 0, "b_rt_repsum_oflow_id": 0, "b_sfa": 0,
        })
    return out


def rate(block, stim):
    """Best of REPEATS: (cycles per wall second, cycles per CPU second of this process). Under load the
    CPU-time rate is the steadier one (the wall clock also counts the time other processes ran)."""
    best_wall = best_cpu = 0.0
    for _ in range(REPEATS):
        step = block.step
        t0, c0 = time.perf_counter(), time.process_time()
        for c in range(CYCLES):
            step(stim[c % STIMULUS_CYCLES])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        best_wall, best_cpu = max(best_wall, CYCLES / wall), max(best_cpu, CYCLES / max(cpu, 1e-9))
    return best_wall, best_cpu


def as_lists(block, stim):
    """The same stimulus as lists of every input in ports() order (`Block.step(list)`)."""
    names = [n for n, d, _ in block.ports() if d == "input"]
    return [[s.get(n) for n in names] for s in stim]


def main():
    rng = random.Random(1)
    print(f"{'block':<14} {'form':<22} {'wall cycles/s':>14} {'CPU cycles/s':>14}")
    for name, stim in (("output_queue", oq_stimulus(rng)), ("reduce_unit", ru_stimulus(rng))):
        b = inswitch.Block(name)
        forms = [("step(dict, all inputs)", stim), ("step({})", [{}] * STIMULUS_CYCLES)]
        try:
            b.step(as_lists(b, stim)[0])
            forms.append(("step(list, all inputs)", as_lists(b, stim)))
        except TypeError:
            pass  # a build without the list form
        for form, s in forms:
            wall, cpu = rate(b, s)
            print(f"{name:<14} {form:<22} {wall:>14,.0f} {cpu:>14,.0f}")


if __name__ == "__main__":
    main()
