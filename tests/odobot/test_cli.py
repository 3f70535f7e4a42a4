"""`pathwise odobot`: missing inputs are named, not tracebacks."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from pathwise.cli import app


def test_inspect_and_run_name_the_missing_model(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["odobot", "inspect", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "graph.json" in res.output and "odobot build" in res.output
    res = runner.invoke(app, ["odobot", "run", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "graph.json" in res.output
    res = runner.invoke(app, ["odobot", "run", "--out", str(tmp_path), "--answerer", "gpt"])
    assert res.exit_code == 2 and "expected student or oracle" in res.output


def test_a_corrupt_model_file_is_named_with_its_field(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "graph.json").write_text('{"nodes": []}')
    res = CliRunner().invoke(app, ["odobot", "inspect", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "field 'links' missing" in res.output


def test_an_unknown_matcher_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "odo"
    res = CliRunner().invoke(app, ["odobot", "build", "--out", str(out), "--matcher", "bm25"])
    assert res.exit_code == 2 and "--matcher 'bm25'" in res.output and "hybrid" in res.output
    assert not out.exists()


def test_bench_refuses_an_unknown_serving_dtype_before_running(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["bench", "odobot", "--out", str(tmp_path), "--dtype", "fp8"])
    assert res.exit_code == 2 and "--dtype 'fp8'" in res.output and "float32" in res.output
    assert not (tmp_path / "runs").exists()
