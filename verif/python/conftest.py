"""Shared fixtures: the repository root and the `inswitch` CLI binary (built if stale)."""

import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The release CLI, built by cargo (a no-op when up to date). Fails, never skips, without cargo."""
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("cargo not found: the CLI cannot be built (install Rust, then `bash scripts/setup`)")
    subprocess.run([cargo, "build", "--release", "-q", "--bin", "inswitch"], cwd=ROOT, check=True)
    exe = ROOT / "target" / "release" / "inswitch"
    assert exe.is_file(), f"{exe} missing after cargo build"
    return exe
