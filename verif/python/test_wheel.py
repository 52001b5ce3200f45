"""The abi3 wheel as a user gets it: `maturin build --release`, `pip install` into a fresh virtual
environment (not the project's .venv, whose `inswitch` is maturin develop's editable install), then
`import inswitch` there and a few calls (reduce, decode/encode, Block.step).

Cheap by reuse: maturin builds with the same cargo profile and features as the `maturin develop` of
scripts/setup, so cargo finds everything up to date and only links and zips (docs/python.md gives the
cost). The venv is made without pip (the project's pip installs into it with `--python`), offline.
"""

import pathlib
import subprocess
import sys
import textwrap

from conftest import ROOT

# Run inside the fresh venv; every expected value is written out from the docs, not computed by the model:
# INT_SUM wraps 2^63-1 + 1 with rc INT_OVERFLOW (docs/blocks/reduce_unit.md); an Ack DLLP is type 0x00 with the
# sequence in bytes 2-3 (PCIe 3.4.1); a 3DW MWr's DW0 is Fmt=010 Type=00000 and Length in DW
# (PCIe 2.2.1); the AXI-stream register slice shows a beat taken at one edge on m_axis after it.
PROBE = textwrap.dedent("""
    import pathlib, sys
    import inswitch
    assert pathlib.Path(inswitch.__file__).resolve().is_relative_to(pathlib.Path(sys.prefix).resolve()), inswitch.__file__
    r = inswitch.reduce("INT_SUM", [2**63 - 1], [1])
    assert r["data"][0] == 0x8000000000000000 and r["rc"] == "int_overflow", r
    ack = inswitch.encode("dllp", {"dllp_type": 0, "body": [0, 0, 5]})
    assert ack[:4] == bytes([0, 0, 0, 5]) and inswitch.decode("dllp", ack)["dllp"]["seq"] == 5
    mwr = inswitch.encode("tlp", {"fmt": 2, "type_code": 0, "requester_id": 0x0100, "tag": 5, "first_be": 0xF,
                                  "address": 0x12345678, "payload": "01020304"})
    assert mwr.hex() == "400000010100050f1234567801020304", mwr.hex()
    assert inswitch.encode("tlp", inswitch.decode("tlp", mwr)) == mwr
    try:
        inswitch.decode("portals", b"\\x00" * 10)
        raise SystemExit("a truncated frame decoded")
    except ValueError as e:
        assert "truncated" in str(e), e
    b = inswitch.Block("axis_register", WIDTH=512)
    b.step({"rst": 1})
    b.step({"rst": 0, "s_axis_tdata": 1 << 511 | 7, "s_axis_tvalid": 1, "m_axis_tready": 1})
    out = b.step({"s_axis_tvalid": 0})
    assert out["m_axis_tvalid"] == 1 and out["m_axis_tdata"] == 1 << 511 | 7, out
    print("wheel ok", inswitch.__version__, inswitch.__file__)
""")


def test_wheel_installs_into_a_fresh_venv_and_works(tmp_path: pathlib.Path):
    maturin = pathlib.Path(sys.executable).with_name("maturin")
    assert maturin.is_file(), f"{maturin} missing: run `bash scripts/setup` (scripts/python-requirements.txt installs maturin)"
    wheels = tmp_path / "wheels"
    subprocess.run([str(maturin), "build", "--release", "--quiet", "-i", sys.executable, "-m", "crates/python/Cargo.toml", "-o", str(wheels)], cwd=ROOT, check=True)
    built = sorted(wheels.glob("inswitch-*.whl"))
    assert len(built) == 1, built
    # One wheel for every CPython >= 3.9: the stable-ABI tag.
    assert "-cp39-abi3-" in built[0].name, built[0].name

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-index", "--no-deps",
                    "--disable-pip-version-check", str(built[0])], check=True)
    # Run from an empty directory so neither the repository nor the editable install can be imported.
    run = subprocess.run([str(py), "-I", "-c", PROBE], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, f"in the fresh venv:\n{run.stdout}\n{run.stderr}"
    assert "wheel ok" in run.stdout and str(venv) in run.stdout
