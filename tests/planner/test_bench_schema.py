"""`pathwise bench planner --json` shape, and committed JSON Schemas stay in sync."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pathwise.cli import app
from planner.documents import json_schemas

SCHEMAS = Path(__file__).resolve().parents[2] / "planner" / "schemas"


def test_bench_planner_json_shape():
    res = CliRunner().invoke(
        app, ["bench", "planner", "--pairs", "2", "--seed", "3", "--courses", "150", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert set(data) == {"ladder", "weighted_sum", "greedy"}
    for m in data.values():
        assert {"pairs", "certified", "median_s", "p95_s", "mean_utility", "mean_horizon"} <= set(m)
        assert m["pairs"] == 2
    assert data["ladder"]["certified"] == 2


def test_bench_planner_asserts_the_model_size_limit(monkeypatch):
    from planner import bench

    args = ["bench", "planner", "--pairs", "1", "--seed", "3", "--courses", "150"]
    args += ["--method", "ladder", "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert set(json.loads(res.output)) == {"ladder"}
    # The same request against a limit it cannot meet: named, and the command fails.
    run = bench.run_bench

    def tight(*a, **k):
        out = run(*a, **k)
        out["config"]["size_limit"] = {"x": 1, "build_s": 1.0}
        return out

    monkeypatch.setattr(bench, "run_bench", tight)
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 1
    assert "model size limit exceeded: pair 0" in res.output


def test_committed_schemas_match_models():
    for name, schema in json_schemas().items():
        path = SCHEMAS / name.replace(".json", ".schema.json")
        assert json.loads(path.read_text()) == schema, f"regenerate {path}: pathwise plan schema"


def test_bench_resumes_from_its_row_checkpoint(tmp_path):
    import pytest

    from planner.bench import run_bench

    rows = tmp_path / "rows.jsonl"
    first = run_bench(1, seed=3, n_courses=150, rows_path=rows)
    # A run killed mid-write leaves a torn last line: dropped, that pair reruns.
    rows.write_text(rows.read_text() + '{"pair": 1, "prog')
    second = run_bench(2, seed=3, n_courses=150, rows_path=rows)
    assert [r["pair"] for r in second["rows"]] == [0, 1]
    assert second["rows"][0] == first["rows"][0]  # taken from the checkpoint, not re-solved
    lines = rows.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[2])["pair"] == 1
    with pytest.raises(ValueError, match="other settings"):
        run_bench(2, seed=4, n_courses=150, rows_path=rows)
