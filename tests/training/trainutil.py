"""Helpers for the training tests: subprocess runs of training/sft.py and their summaries.

Imported as `tests.training.trainutil` (the test package never shadows the real `training`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VL_RECIPE = REPO / "training/recipes/tiny-middle-vl.yaml"
ZERO2_2PROC = "training/accelerate/cpu-zero2-2proc.yaml"
CLAUSE_RECIPE = REPO / "training/recipes/tiny-clause.yaml"
OVERLENGTH_TEXT = "scroll " * 400  # far past the tiny recipes' 256-token limit


def run_env() -> dict[str, str]:
    """One thread per process: other engineers share these two cores, and it is faster then."""
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    env.pop("WANDB_PROJECT", None)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_cmd(
    cmd: list[str], timeout: int = 600, env: dict | None = None
) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        cmd, cwd=REPO, env=env or run_env(), capture_output=True, text=True, timeout=timeout
    )
    return proc


def sft_python(recipe: Path, model: Path, dataset: Path, out: Path, *extra: str):
    cmd = [sys.executable, "-m", "training.sft", "--recipe", str(recipe), "--model", str(model)]
    cmd += ["--dataset", str(dataset), "--output-dir", str(out), *extra]
    return run_cmd(cmd)


def sft_accelerate(config: str, recipe: Path, model: Path, dataset: Path, out: Path, *extra: str):
    accelerate = str(Path(sys.executable).parent / "accelerate")
    cmd = [accelerate, "launch", "--config_file", config, "training/sft.py"]
    cmd += ["--recipe", str(recipe), "--model", str(model), "--dataset", str(dataset)]
    cmd += ["--output-dir", str(out), *extra]
    return run_cmd(cmd)


def pathwise_train(recipe: Path, model: Path, dataset: Path, out: Path, *extra: str) -> list[str]:
    """The `pathwise train` command line (the installed entry point of this interpreter)."""
    pathwise = str(Path(sys.executable).parent / "pathwise")
    return [pathwise, "train", "--recipe", str(recipe), "--model", str(model),
            "--dataset", str(dataset), "--out", str(out), *extra]  # fmt: skip


def printed_command(stderr: str) -> list[str]:
    """The launch `pathwise train` printed before running it, as tokens."""
    import shlex

    return shlex.split(next(line for line in stderr.splitlines() if line.startswith("$ "))[2:])


def ok(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    )


def summary(out: Path) -> dict:
    return json.loads((out / "run_summary.json").read_text())
