"""`pathwise bench planner --seeds`: the ladder over several generated catalogs, resumable,
with every infeasible verdict confirmed and explained in its report."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pathwise.cli import app
from planner import bench
from planner.bench_sweep import parse_seeds, render_markdown, run_sweep, summarize


def test_seeds_are_a_range_or_a_list():
    assert parse_seeds("2-4") == [2, 3, 4]
    assert parse_seeds("5,9") == [5, 9]
    for bad in ("x", "4-2", "-3", "2-"):
        with pytest.raises(ValueError, match="--seeds"):
            parse_seeds(bad)


def test_sweep_reports_every_size_and_resumes(tmp_path, monkeypatch):
    rows = tmp_path / "rows"
    first = run_sweep([3, 4], [150], pairs=2, rows_dir=rows)
    assert sorted(p.name for p in rows.iterdir()) == ["c150-s3.jsonl", "c150-s4.jsonl"]
    s = first["summary"]["150"]
    assert s["pairs"] == 4 and s["decided"] + s["undecided"] == 4
    assert {r["seed"] for r in first["rows"]} == {3, 4}
    assert set(s["per_seed"]) == {"3", "4"}
    # A rerun solves nothing: every row comes from the checkpoints.
    monkeypatch.setattr(bench, "_bench_pair", lambda *a, **k: pytest.fail("solved again"))
    again = run_sweep([3, 4], [150], pairs=2, rows_dir=rows)
    assert again["rows"] == first["rows"]


def test_report_lists_each_infeasible_request_with_its_explanation():
    row = {
        "seed": 7,
        "courses": 1000,
        "pair": 3,
        "program": "BIO-BA-3",
        "model": {"ladder": {"x": 0, "build_s": 0.01}},
        "ladder": {
            "status": "infeasible",
            "certified": False,
            "seconds": 0.2,
            "deterministic_s": 0.01,
            "stage": None,
            "confirmation": {"status": "unknown", "x": 900, "deterministic_s": 60.0, "wall_s": 70},
            "explanation": ["These cannot all hold together: at most 12 units per term."],
        },
    }
    result = {
        "config": {
            "pairs": 1,
            "seeds": [7],
            "sizes": [1000],
            "budget_s": 60.0,
            "workers": 1,
            "cp_sat": {},
            "size_limit": {"x": 3000, "build_s": 1.0},
        },
        "summary": {"1000": summarize([row])},
        "rows": [row],
    }
    md = render_markdown(result)
    assert "1,000 courses, seed 7, pair 3 (BIO-BA-3)" in md
    assert "These cannot all hold together: at most 12 units per term." in md
    # Not confirmed: undecided, and named so.
    assert "infeasible claimed, unpruned model: unknown" in md
    assert "| 1,000 | 1 | 0 | 0 | 0 / 1 | 1 |" in md


def _run(*args: str):
    res = CliRunner().invoke(app, list(args))
    return res, res.output.strip().splitlines()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--seeds", "two"], "--seeds 'two'"),
        (["--seeds", "3-3", "--method", "greedy"], "ladder only"),
        (["--courses", "150", "--courses", "300"], "--courses"),
    ],
)
def test_bad_sweep_options_are_one_line(args, needle):
    res, lines = _run("bench", "planner", "--pairs", "1", *args)
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    err = [x for x in lines if x.startswith("error:")]
    assert len(err) == 1 and needle in err[0], res.output


def test_sweep_rows_must_be_a_folder(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("{}\n")
    res, lines = _run("bench", "planner", "--seeds", "3-3", "--rows", str(rows))
    assert res.exit_code == 2 and "a folder of checkpoints" in lines[-1]
    assert rows.read_text() == "{}\n"


def test_sweep_command_prints_the_sizes_as_json():
    res = CliRunner().invoke(
        app, ["bench", "planner", "--seeds", "3-3", "--courses", "150", "--pairs", "1", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output.strip().splitlines()[-1])
    assert set(data) == {"150"} and data["150"]["pairs"] == 1
