"""The demo pipeline: each stage resumable, stage timings collected for the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pathwise.demo.collect import teacher_run
from pathwise.demo.config import DemoConfig
from pathwise.demo.stages import run_stage


def run_pipeline(cfg: DemoConfig, out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    summaries: dict[str, Any] = {}
    summaries["collect"] = run_stage(out, "collect", lambda d: teacher_run(cfg, cfg.train_seeds, d))
    summaries["reference"] = run_stage(
        out, "reference", lambda d: teacher_run(cfg, cfg.heldout_seeds, d)
    )
    report = {
        "recipe": cfg.name,
        "teacher": {
            "train_success": summaries["collect"]["success_rate"],
            "heldout_success": summaries["reference"]["success_rate"],
            "tasks": summaries["reference"]["tasks"],
        },
        "stage_seconds": {k: v["seconds"] for k, v in summaries.items()},
        "headline": {
            "teacher_heldout_success": summaries["reference"]["success_rate"],
            "teacher_episodes": summaries["reference"]["episodes"],
        },
    }
    (out / "report.json").write_text(json.dumps(report, indent=2))
    return report
