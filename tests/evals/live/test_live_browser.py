"""`pathwise eval live` through the real runner and Chromium, with a fake endpoint middle."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agent_runtime.browser.launch import CHROMIUM_PATH
from pathwise.cli import app
from tests.helpers.sft_records import ast

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM_PATH.exists(), reason=f"{CHROMIUM_PATH} missing"),
]


def test_live_insertion_end_to_end(fake_openai, tmp_path):
    # The rule top's command on click-test is "click button"; label 0 is the button.
    fake_openai.replies["click"] = (200, ast({"type": "click", "target": 0}))
    contracts = tmp_path / "c.jsonl"
    runner = CliRunner()
    r = runner.invoke(
        app,
        [
            "contracts",
            "miniwob",
            "--tasks",
            "click-test",
            "--seeds",
            "0-1",
            "--out",
            str(contracts),
        ],
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        [
            "run",
            "--contracts",
            str(contracts),
            "--out",
            str(tmp_path / "teacher"),
            "--no-screenshots",
        ],
    )
    assert r.exit_code == 0, r.output
    out = tmp_path / "live"
    r = runner.invoke(
        app,
        [
            "eval",
            "live",
            "--contracts",
            str(contracts),
            "--middle",
            "endpoint",
            "--endpoint",
            fake_openai.url,
            "--model",
            "student",
            "--reference",
            str(tmp_path / "teacher"),
            "--out",
            str(out),
            "--n-boot",
            "200",
        ],
    )
    assert r.exit_code == 0, r.output
    res = json.loads((out / "results.json").read_text())
    assert res["paired_contracts"] == 2
    assert res["names"]["candidate"] == "rule-top+endpoint-middle(student)"
    assert res["names"]["reference"] == "teacher"
    assert res["candidate"]["all"]["successes"] == 2
    assert res["reference"]["all"]["successes"] == 2
    assert res["paired"]["all"]["mcnemar_p"] == 1.0
    # every middle call went to the endpoint with the Action AST schema; usage was recorded
    assert fake_openai.bodies and all(
        b["response_format"]["json_schema"]["schema"]["title"] == "ActionAST"
        for b in fake_openai.bodies
    )
    tok = res["tokens"]["candidate"]
    assert tok["prompt_tokens"] == 10 * len(fake_openai.bodies)
    assert res["tokens"]["reference"]["prompt_tokens"] == 0
    assert (out / "run" / "run.json").exists() and (out / "report.md").exists()
