"""The commands that launch training take their paths from the caller's directory: `pathwise
demo` and `pathwise odobot train` hand their pipelines an absolute --out (given or default), so
no stage, and no training subprocess started from the repository root, reads another folder.
(`pathwise catalog clause-model train` runs end to end from elsewhere in
tests/pathwise/clause_model/test_clause_model_hub.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from pathwise.cli import app


@pytest.mark.parametrize("given", [None, "mine/demo"])
def test_demo_out_is_the_callers(given, tmp_path, monkeypatch) -> None:
    from pathwise.demo import pipeline

    seen: list[Path] = []
    monkeypatch.setattr(
        pipeline, "run_pipeline", lambda cfg, out, final=False: seen.append(out) or {}
    )
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["demo", *(["--out", given] if given else [])])
    assert res.exit_code == 0, res.output
    assert seen == [tmp_path / (given or "runs/demo")]


@pytest.mark.parametrize("given", [None, "mine/odobot"])
def test_odobot_train_out_is_the_callers(given, tmp_path, monkeypatch) -> None:
    from pathwise.odobot_students import cli

    seen: list[Path] = []

    def stop(out: Path, limit, matcher):
        seen.append(out)
        raise typer.Exit(0)

    monkeypatch.setattr(cli, "config_for", stop)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["odobot", "train", *(["--out", given] if given else [])])
    assert res.exit_code == 0, res.output
    assert seen == [tmp_path / (given or "runs/odobot")]
