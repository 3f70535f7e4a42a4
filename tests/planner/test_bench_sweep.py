"""`pathwise bench planner --seeds`: the ladder over several generated catalogs, resumable,
with every infeasible verdict confirmed and explained in its report."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pathwise.cli import app
from planner import bench, bench_sweep
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


def _fake_row(pair: int, status: str, secs: float, x: int, confirmed: str | None = None):
    ladder = {
        "status": status,
        "certified": status == "ok",
        "seconds": secs,
        "deterministic_s": secs / 2,
        "stage": "load" if status == "timeout" else None,
    }
    if confirmed is not None:
        ladder |= {
            "confirmation": {"status": confirmed, "x": 99, "deterministic_s": 1.0, "wall_s": 2.5},
            "explanation": [f"pair {pair} has no plan"],
        }
    return {
        "pair": pair,
        "program": "P",
        "model": {"ladder": {"x": x, "build_s": x / 1000}},
        "ladder": ladder,
    }


def test_each_size_is_summarized_from_its_own_catalogs(monkeypatch):
    # Two sizes, two seeds each, rows chosen so that mixing sizes or seeds changes a count.
    canned = {
        (100, 1): [_fake_row(0, "ok", 1.0, 10), _fake_row(1, "infeasible", 2.0, 20, "confirmed")],
        (100, 2): [_fake_row(0, "ok", 3.0, 30), _fake_row(1, "ok", 4.0, 40)],
        (200, 1): [_fake_row(0, "ok", 5.0, 50), _fake_row(1, "infeasible", 6.0, 60, "unknown")],
        (200, 2): [_fake_row(0, "timeout", 9.0, 3500), _fake_row(1, "ok", 7.0, 70)],
    }

    def fake_run_bench(pairs, *, seed, n_courses, **kw):
        assert kw["methods"] == ("ladder",) and kw["explain"] is True
        return {
            "config": {
                "pairs": pairs,
                "seed": seed,
                "courses": n_courses,
                "budget_s": 60.0,
                "workers": 1,
                "cp_sat": {},
                "size_limit": {"x": 3000, "build_s": 5.0},
            },
            "rows": canned[(n_courses, seed)],
        }

    monkeypatch.setattr(bench_sweep, "run_bench", fake_run_bench)
    result = run_sweep([1, 2], [100, 200], pairs=2)
    assert result["config"]["seeds"] == [1, 2] and result["config"]["sizes"] == [100, 200]
    assert "seed" not in result["config"] and "courses" not in result["config"]
    small, large = result["summary"]["100"], result["summary"]["200"]
    assert (small["pairs"], small["certified"], small["decided"], small["undecided"]) == (
        4,
        3,
        4,
        0,
    )
    assert (small["infeasible"], small["infeasible_claimed"]) == (1, 1)
    assert (small["median_s"], small["max_s"], small["max_x"]) == (2.5, 4.0, 40)
    assert small["max_confirm_s"] == 2.5 and small["max_build_s"] == 0.04
    # 200 courses: one timeout and one unconfirmed verdict are both undecided.
    assert (large["certified"], large["decided"], large["undecided"]) == (2, 2, 2)
    assert (large["infeasible"], large["infeasible_claimed"]) == (0, 1)
    assert (large["median_s"], large["p95_s"], large["max_x"]) == (6.5, 9.0, 3500)
    assert large["per_seed"] == {
        "1": {"infeasible": 0, "infeasible_claimed": 1, "refuted": 0, "decided": 1, "undecided": 1},
        "2": {"infeasible": 0, "infeasible_claimed": 0, "refuted": 0, "decided": 1, "undecided": 1},
    }
    md = render_markdown(result)
    assert "| 100 | 4 | 4 | 3 | 1 / 1 | 0 |" in md
    assert "| 200 | 4 | 2 | 2 | 0 / 1 | 2 |" in md
    assert "exceeded by 1 request(s)." in md
    assert "- 200 courses, seed 2, pair 0 (P): timeout, budget ran out in load" in md
    assert "- 200 courses, seed 1, pair 1 (P): infeasible claimed, unpruned model: unknown" in md
    assert bench.size_check(result) == [
        "seed 2, 200 courses, pair 0 (P): 3500 course x term variables, built in 3.5 s; "
        "the limit is 3000 and 5.0 s"
    ]


def test_a_checkpoint_of_other_settings_is_one_line_and_nothing_is_written(tmp_path, monkeypatch):
    rows = tmp_path / "rows"
    rows.mkdir()
    stale = rows / "c150-s3.jsonl"
    stale.write_text('{"key": {"seed": 3, "courses": 150, "budget_s": 5.0}}\n')
    out = tmp_path / "sweep"
    monkeypatch.setattr(bench, "_bench_pair", lambda *a, **k: pytest.fail("solved"))
    args = ["--seeds", "3-3", "--courses", "150", "--rows", str(rows), "--results", str(out)]
    res, lines = _run("bench", "planner", *args)
    err = [x for x in lines if x.startswith("error:")]
    assert res.exit_code == 2 and len(err) == 1, res.output
    assert "c150-s3.jsonl" in err[0] and "other settings" in err[0]
    assert stale.read_text() == '{"key": {"seed": 3, "courses": 150, "budget_s": 5.0}}\n'
    assert list(tmp_path.iterdir()) == [rows] and list(rows.iterdir()) == [stale]


def test_existing_results_are_refused_before_any_catalog_is_solved(tmp_path, monkeypatch):
    out = tmp_path / "sweep"
    for ext in ("json", "md"):
        (tmp_path / f"sweep.{ext}").write_text("kept\n")
    monkeypatch.setattr(bench_sweep, "run_bench", lambda *a, **k: pytest.fail("solved"))
    res, lines = _run(
        "bench", "planner", "--seeds", "3-4", "--courses", "150", "--results", str(out)
    )
    err = [x for x in lines if x.startswith("error:")]
    assert res.exit_code == 2 and len(err) == 1 and "sweep" in err[0], res.output
    assert all((tmp_path / f"sweep.{e}").read_text() == "kept\n" for e in ("json", "md"))


# The first line of a checkpoint of `--seeds 3-3 --courses 150` at the default budget.
KEY = {"seed": 3, "courses": 150, "budget_s": 60.0, "methods": ["ladder"], "explain": True}
HEAD = json.dumps({"key": KEY}).encode() + b"\n"


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"not json\n", "other settings"),
        (b"[1, 2]\n", "other settings"),
        (b"\xff\xfe{}\n", "not UTF-8"),
        (HEAD + b'[3]\n{"pair": 0}\n', "c150-s3.jsonl:2: not a row of this benchmark"),
        (HEAD + b'{"pair": 0}\n{}\n', "c150-s3.jsonl:3: not a row of this benchmark"),
    ],
)
def test_a_malformed_checkpoint_is_one_line_naming_it_and_left_as_it_was(tmp_path, data, needle):
    rows = tmp_path / "rows"
    rows.mkdir()
    path = rows / "c150-s3.jsonl"
    path.write_bytes(data)
    res, lines = _run("bench", "planner", "--seeds", "3-3", "--courses", "150", "--rows", str(rows))
    err = [x for x in lines if x.startswith("error:")]
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    assert len(err) == 1 and needle in err[0] and "c150-s3.jsonl" in err[0], res.output
    assert path.read_bytes() == data


def test_a_whole_last_row_without_its_newline_is_kept(tmp_path, monkeypatch):
    rows = tmp_path / "rows.jsonl"
    first = bench.run_bench(1, seed=3, n_courses=150, rows_path=rows, methods=("ladder",))
    # Killed after the row but before its newline: the row counts, and the next starts a line.
    rows.write_text(rows.read_text().rstrip("\n"))
    fake = {**first["rows"][0], "pair": 1}
    monkeypatch.setattr(bench, "_bench_pair", lambda *a, **k: fake)
    again = bench.run_bench(2, seed=3, n_courses=150, rows_path=rows, methods=("ladder",))
    assert again["rows"] == [first["rows"][0], fake]
    assert [json.loads(x).get("pair") for x in rows.read_text().splitlines()] == [None, 0, 1]
