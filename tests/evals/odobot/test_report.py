"""The study's report from run files: four arms, the students' paired tests, amortization."""

from __future__ import annotations

import json
from pathlib import Path

from evals.odobot.report import markdown, summarize


def _write(out: Path, arm: str, oks: list[bool], prompt: int, calls: int) -> None:
    folder = out / "runs" / arm
    folder.mkdir(parents=True)
    for i, ok in enumerate(oks):
        row = {"template": f"tpl{i}", "success": ok, "prompt_tokens": prompt,
               "completion_tokens": 10, "calls": calls, "reason": "" if ok else "lost"}  # fmt: skip
        (folder / f"t{i}.json").write_text(json.dumps(row))


def test_students_are_compared_pairwise_and_the_oracles_reported_beside(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    stats = {"vertices": 3, "edges": 2, "trajectories": 1, "events": 5, "dynamic_vertices": 1}
    build = {"construction_tokens": 9_000, "stats": stats}
    (tmp_path / "model" / "build.json").write_text(json.dumps(build))
    # OdoBot's student wins 7 tasks the baseline's loses and loses 1 it wins, of 10.
    _write(tmp_path, "odobot-student", [True] * 8 + [False] * 2, 400, 5)
    _write(tmp_path, "baseline-student", [False] * 7 + [True] * 2 + [False], 1000, 7)
    _write(tmp_path, "odobot-oracle", [True] * 10, 400, 5)
    _write(tmp_path, "baseline-oracle", [True] * 10, 1000, 7)
    rep = summarize(tmp_path)
    assert rep["arms"]["odobot-student"]["success"] == 0.8
    assert rep["arms"]["baseline-student"]["calls_per_task"] == 7
    c = rep["comparisons"]["student"]
    assert c["paired"] == {"both": 1, "candidate_only": 7, "reference_only": 1, "neither": 1}
    assert round(c["mcnemar_exact_p"], 4) == 0.0703  # 2 * P[Bin(8, 1/2) <= 1]
    assert abs(c["success_difference"]["estimate"] - 0.6) < 1e-9
    assert c["prompt_token_ratio"] == 0.4 and c["amortization_tasks"] == 15  # 9000 / 600
    md = markdown(rep, {"tokenizer": "t"})
    assert "oracle (upper bound)" in md and "exact McNemar" in md and "| tpl9 |" in md
