"""Builds a block's RTL under Verilator and runs its cocotb bench (verif/cocotb/bench_<block>.py) against
the Python binding's model. Used by verif/cocotb/test_cocotb.py (the README's test command) and by hand:

    .venv/bin/python verif/cocotb/run.py --block output_queue --seed 3 --cycles 20000
    .venv/bin/python verif/cocotb/run.py --block output_queue --dut-params FIFO_DEPTH=16   # must fail

Exit status 0 when every output matched on every cycle, 1 otherwise. Waveform: <build>/dump.vcd.
cocotb 1.9.2 (scripts/python-requirements.txt): the newest release that runs under Debian 12's
Verilator 5.006; cocotb 2.x requires Verilator >= 5.036.
"""

import argparse
import os
import pathlib
import shutil
import sys

from cocotb.runner import get_results, get_runner

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
BLOCKS = ["output_queue", "reduce_unit"]


def run(block, seed=1, cycles=5000, dut_params="", model_params="", mutant=None, build_root=None, bench=None):
    """Returns (passed, build_dir); a failing bench leaves its first mismatch in build_dir/mismatch.txt.
    `bench`: the cocotb test module (default bench_<block>). `mutant` = (original line text, replacement): the bench runs on a
    copy of rtl/<block>.v with that one line changed."""
    if shutil.which("verilator") is None:
        raise SystemExit("verilator not found: run `bash scripts/setup`")
    build_root = pathlib.Path(build_root or ROOT / "target" / "cocotb")
    tag = block + ("-" + dut_params.replace("=", "").replace(",", "-") if dut_params else "") + ("-mutant" if mutant else "")
    build_dir = build_root / tag
    build_dir.mkdir(parents=True, exist_ok=True)
    source = ROOT / "rtl" / f"{block}.v"
    if mutant:
        text = source.read_text()
        old, new = mutant
        assert text.count(old) == 1, f"mutant: {old!r} occurs {text.count(old)} times in {source}"
        source = build_dir / f"{block}.v"
        source.write_text(text.replace(old, new))
    params = {k: int(v, 0) for k, v in (p.split("=") for p in dut_params.split(",") if p)}
    runner = get_runner("verilator")
    runner.build(
        verilog_sources=[source],
        includes=[ROOT / "rtl"],
        # Sub-modules (reduce_fadd, ...) from rtl/, as build.rs verilates them.
        build_args=["-y", str(ROOT / "rtl"), "-O3"],
        hdl_toplevel=block,
        parameters=params,
        build_dir=build_dir,
        waves=True,
    )
    results = build_dir / "results.xml"
    env = {
        "INSWITCH_BLOCK": block, "INSWITCH_SEED": str(seed), "INSWITCH_CYCLES": str(cycles),
        "INSWITCH_DUT_PARAMS": dut_params, "INSWITCH_MODEL_PARAMS": model_params,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    report = build_dir / "mismatch.txt"
    for stale in (results, report):
        stale.unlink(missing_ok=True)
    # The runner changes its results handling under pytest (PYTEST_CURRENT_TEST); run it as from a shell
    # and read the results file here.
    under_pytest = os.environ.pop("PYTEST_CURRENT_TEST", None)
    try:
        runner.test(test_module=bench or f"bench_{block}", hdl_toplevel=block, build_dir=build_dir, test_dir=build_dir,
                    extra_env=env, results_xml=str(results), waves=True)
    finally:
        if under_pytest is not None:
            os.environ["PYTEST_CURRENT_TEST"] = under_pytest
    tests, failed = get_results(results)
    return tests > 0 and failed == 0, build_dir


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--block", choices=BLOCKS, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cycles", type=int, default=5000)
    ap.add_argument("--dut-params", default="", help="RTL parameters of the DUT, NAME=VALUE,...")
    ap.add_argument("--model-params", default="", help="parameters of the model (default: the RTL defaults)")
    a = ap.parse_args()
    ok, build_dir = run(a.block, a.seed, a.cycles, a.dut_params, a.model_params)
    print(f"{a.block}: {'PASS' if ok else 'FAIL'} ({build_dir})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
