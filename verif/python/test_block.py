"""inswitch.Block: the registry's blocks from Python, ints of any width, errors as exceptions."""

import inswitch
import pytest


def test_every_registered_block_builds_and_steps():
    names = [n for n, _ in inswitch.blocks()]
    assert {"output_queue", "reduce_unit", "packet_engine"} <= set(names)
    for name in names:
        b = inswitch.Block(name)
        ports = b.ports()
        assert ports and all(d in ("input", "output") and w >= 1 for _, d, w in ports)
        outs = b.step({"rst": 1})
        assert set(outs) == {n for n, d, _ in ports if d == "output"}


def test_wide_ports_round_trip_through_a_register_slice():
    # axis_register: a one-deep AXI-stream slice; a beat taken at one edge is on m_axis after it.
    b = inswitch.Block("axis_register", WIDTH=512)
    width = dict((n, w) for n, _, w in b.ports())["s_axis_tdata"]
    assert width == 512
    value = (1 << 511) | 0x0123456789ABCDEF_FEDCBA9876543210 << 200 | 1
    b.step({"rst": 1})
    b.step({"rst": 0, "s_axis_tdata": value, "s_axis_tvalid": 1, "m_axis_tready": 1})
    out = b.step({"s_axis_tvalid": 0})
    assert out["m_axis_tvalid"] == 1 and out["m_axis_tdata"] == value


def test_reset_returns_to_power_on():
    b = inswitch.Block("output_queue")
    first = [b.step({"rst": int(c < 2), "s_axis_tvalid": 1, "s_axis_tlast": 1}) for c in range(10)]
    b.reset()
    again = [b.step({"rst": int(c < 2), "s_axis_tvalid": 1, "s_axis_tlast": 1}) for c in range(10)]
    assert first == again


def test_bad_input_raises_and_leaves_the_block_unchanged():
    b = inswitch.Block("reduce_unit")
    with pytest.raises(ValueError, match="no block named"):
        inswitch.Block("nope")
    with pytest.raises(ValueError, match="no parameter"):
        inswitch.Block("reduce_unit", WIDTH=3)
    with pytest.raises(ValueError, match="implements FIFO_DEPTH|rejects"):
        inswitch.Block("output_queue", FIFO_DEPTH=3)
    with pytest.raises(ValueError, match="does not fit"):
        b.step({"a_rt_op": 64})
    with pytest.raises(ValueError, match="does not fit"):
        b.step({"a_rt_data": 1 << 256})
    with pytest.raises(ValueError):
        b.step({"a_sfa": -1})
    with pytest.raises(KeyError):
        b.step({"nope": 1})
    with pytest.raises(ValueError, match="output"):
        b.step({"out_valid": 1})
    with pytest.raises(TypeError):
        b.step({"in_valid": "1"})
    # A rejected dict sets none of its inputs: in_valid stays 0, so no result comes out.
    with pytest.raises(ValueError):
        b.step({"in_valid": 1, "a_rt_op": 99})
    assert all(b.step({})["out_valid"] == 0 for _ in range(4))


def test_step_takes_a_list_in_port_order_as_a_dict():
    """`step(list)` (every input in ports() order, None = keep) steps exactly as `step(dict)`; a wide output
    that repeats a value and then changes is read fresh each cycle (the binding reuses unchanged ints)."""
    import random

    rng = random.Random(5)
    by_dict, by_list = inswitch.Block("output_queue"), inswitch.Block("output_queue")
    ins = [(n, w) for n, d, w in by_dict.ports() if d == "input"]
    data = [rng.getrandbits(256) for _ in range(3)]
    seen = set()
    for c in range(300):
        stim = {n: (int(c < 2) if n == "rst" else data[c // 7 % 3] if n == "s_axis_tdata" else rng.getrandbits(min(w, 3)) & ((1 << w) - 1))
                for n, w in ins}
        if c % 5 == 0:
            del stim["m_axis_tready"]  # kept from the cycle before
        want = by_dict.step(stim)
        got = by_list.step([stim.get(n) for n, _ in ins])
        assert got == want, f"cycle {c}"
        seen.add(got["m_axis_tdata"])
    assert len(seen - {0}) >= 2, "m_axis_tdata never carried two different beats: the comparison was vacuous"
    with pytest.raises(ValueError, match="values for the"):
        by_list.step([0, 1])
    with pytest.raises(TypeError, match="expected a dict or a list"):
        by_list.step(7)
    with pytest.raises(ValueError, match="does not fit"):
        by_list.step([None] * (len(ins) - 1) + [1 << 4])
