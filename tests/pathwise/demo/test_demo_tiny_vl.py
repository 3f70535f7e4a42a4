"""`pathwise demo --recipe tiny-vl-cpu`: the GPU recipe's path on a CPU with screenshots all the
way, from teacher rollouts to offline and live evaluation of a VL student."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_runtime.runner.traces import iter_rows, trace_files
from contracts.step_row import StepRow

REPO = Path(__file__).resolve().parents[3]

pytestmark = [pytest.mark.browser, pytest.mark.train, pytest.mark.slow]


def test_tiny_vl_demo_sends_the_screenshots_to_the_model(tmp_path):
    pytest.importorskip("deepspeed")
    from datasets import load_from_disk

    out = tmp_path / "demo"
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    env.pop("WANDB_PROJECT", None)  # no W&B here (wandb is not installed)
    pathwise = str(Path(sys.executable).parent / "pathwise")
    proc = subprocess.run(
        [pathwise, "demo", "--recipe", "tiny-vl-cpu", "--out", str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]

    # Teacher rollouts with screenshots, exported with the images.
    dataset = out / "export" / "dataset"
    assert json.loads((dataset / "manifest.json").read_text())["images"] is True
    assert all(len(r["images"]) == 1 for r in load_from_disk(str(dataset))["eval"])

    # `pathwise train` with two CPU processes under DeepSpeed ZeRO-2 (the recipe's own config).
    train_log = (out / "train_adapter" / "train.log").read_text()
    assert "accelerate.commands.launch --config_file" in train_log
    assert "training/accelerate/cpu-zero2-2proc.yaml" in train_log
    run = json.loads((out / "train_adapter" / "out" / "run_summary.json").read_text())
    assert (run["distributed_type"], run["num_processes"], run["zero_stage"]) == ("DEEPSPEED", 2, 2)
    assert run["global_step"] == 4

    # The embedded backend served it; both evaluations sent screenshots, decided from the model's
    # config, and every one reached the model as pixel values.
    ev = json.loads((out / "evaluate" / "stage.json").read_text())
    offline = ev["offline"]["results"]
    assert ev["vision"] is True and offline["config"]["vision"] is True
    assert offline["missing_images"] == 0 and offline["request_errors"] == 0
    assert ev["images_to_model"]["offline"] == offline["examples"] > 0
    live_steps = [
        r
        for p in trace_files(Path(ev["live"]["out"]) / "run")
        for _, r, _ in iter_rows(p)
        if isinstance(r, StepRow) and r.middle_raw is not None
    ]
    assert live_steps and all(r.observation.screenshot for r in live_steps)
    assert ev["images_to_model"]["live"] == len(live_steps)
    report = json.loads((out / "report.json").read_text())
    assert report["serving"]["backend"] == "embedded" and report["serving"]["vision"] is True
    assert "It is sent its screenshots." in (out / "report.md").read_text()
