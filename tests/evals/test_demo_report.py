"""The demo's report.json / report.md from crafted stage summaries (no training, no server)."""

from __future__ import annotations

import json
from pathlib import Path

from pathwise.demo.config import DemoConfig
from pathwise.demo.report import write_report


def _rate(n: int, k: int) -> dict:
    return {"n": n, "rate": k / n}


def _metrics(target: float) -> dict:
    return {
        "n": 10,
        "ast_validity": 1.0,
        "action_match": 0.9,
        "target_match": target,
        "action_and_target_match": target,
        "exact_action_match": target / 2,
    }


def _stages(tmp: Path, grounded: bool) -> dict:
    live = {
        "candidate": {"episodes": 4, **{d: _rate(4, 3) for d in ("all", "unblocked", "clean")}},
        "reference": {"episodes": 4, **{d: _rate(4, 4) for d in ("all", "unblocked", "clean")}},
        "paired": {"all": {"mcnemar_p": 1.0, "bootstrap": {"difference": {"estimate": -0.25}}}},
        "per_task": {"click-button": {"n": 4, "candidate_rate": 0.75, "reference_rate": 1.0}},
    }
    return {
        "collect": {"success_rate": 1.0, "seconds": 10.0},
        "reference": {"success_rate": 1.0, "tasks": {}, "seconds": 5.0},
        "export": {"manifest": {"prompt_overlap": {"eval_prompts": 10, "share": 0.1}}},
        "train_adapter": {"global_step": 8, "train_losses": [2.0, 1.0], "seconds": 3.0},
        "evaluate": {
            "offline": {"metrics": _metrics(0.8), "out": str(tmp / "none")},
            "offline_global": {"metrics": _metrics(0.6)} if grounded else None,
            "live": {"results": live},
            "timings": {"serve_startup_s": 1.0, "offline_s": 2.0, "live_s": 3.0},
            "seconds": 7.0,
        },
    }


def _cfg(grounded: bool) -> DemoConfig:
    return DemoConfig(
        name="t",
        tasks=["click-button"],
        train_seeds="0-1",
        heldout_seeds="2-3",
        grounded_schema=grounded,
    )


def test_grounded_report_keeps_both_schemas(tmp_path: Path) -> None:
    rep = write_report(_cfg(True), tmp_path, _stages(tmp_path, True))
    json.dumps(rep)
    assert rep["headline"]["offline.target_match"] == 0.8
    assert rep["offline"]["decoding_schema"] == "grounded"
    assert rep["offline_global_schema"]["target_match"] == 0.6
    assert rep["live"]["student_over_teacher"] == 0.75
    md = (tmp_path / "report.md").read_text()
    assert "| grounded | 10 |" in md and "| global | 10 |" in md
    assert "decodes with the grounded schema" in md


def test_global_report_has_one_offline_row(tmp_path: Path) -> None:
    rep = write_report(_cfg(False), tmp_path, _stages(tmp_path, False))
    assert rep["offline"]["decoding_schema"] == "global"
    assert "offline_global_schema" not in rep
    md = (tmp_path / "report.md").read_text()
    assert md.count("| global | 10 |") == 1 and "| grounded |" not in md
