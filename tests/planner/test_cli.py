"""`pathwise plan` and `pathwise plan verify` end to end."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pathwise.cli import app
from planner.documents import CourseRef, save_docs
from tests.planner.planner_fixtures import catalog, course


def test_plan_then_verify(tmp_path):
    save_docs(
        catalog(
            [course("A 1"), course("B 2", pre=CourseRef(course="A 1"))], CourseRef(course="B 2")
        ),
        tmp_path / "docs",
    )
    (tmp_path / "req.json").write_text(json.dumps({"program": "P", "horizon": 4}))
    runner = CliRunner()
    out = tmp_path / "plan.json"
    res = runner.invoke(
        app,
        [
            "plan",
            "--docs",
            str(tmp_path / "docs"),
            "--request",
            str(tmp_path / "req.json"),
            "--out",
            str(out),
            "--top-k",
            "1",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "A 1" in res.output and "certified" in res.output
    res = runner.invoke(
        app, ["plan", "verify", "--docs", str(tmp_path / "docs"), "--plan", str(out)]
    )
    assert res.exit_code == 0 and "OK" in res.output
    data = json.loads(out.read_text())
    data["plans"][0]["courses"][0]["term"] = 3  # A 1 after B 2
    out.write_text(json.dumps(data))
    res = runner.invoke(
        app, ["plan", "verify", "--docs", str(tmp_path / "docs"), "--plan", str(out)]
    )
    assert res.exit_code == 1 and "[prerequisite]" in res.output
