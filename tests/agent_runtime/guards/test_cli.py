"""`pathwise guards check` end to end: stdin lines in, one JSON line out each."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from pathwise.cli import app

from .conftest import FIXTURES

OBS = str(FIXTURES / "observation.json")


def lines(*raws: str) -> str:
    return "".join(json.dumps(r) + "\n" for r in raws)


def test_check_prints_one_json_line_per_input():
    stdin = (
        lines(
            '{"action": {"type": "click", "target": 2}, "fallback": {"type": "back"}}',
            '```json\n{"action": {"type": "google_search", "query": "hub"}}\n```',
            "I would click the blue button",
            '{"action": {"type": "google_maps", "query": "hub store"}}',
        )
        + "\n"
    )  # a blank line is skipped, not compiled
    res = CliRunner().invoke(app, ["guards", "check", "--observation", OBS], input=stdin)
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in res.output.splitlines()]
    assert len(rows) == 4
    assert rows[0] == {
        "action": {"type": "click", "target": 2},
        "fallback": {"type": "back", "reason": "history"},
        "labels": ["parsed"],
        "rejection": None,
        "detail": "",
    }
    assert rows[1]["action"] == {"type": "search", "query": "hub"}
    assert "repair:code_fence" in rows[1]["labels"] and "repair:alias_type" in rows[1]["labels"]
    assert rows[2]["rejection"] == "unparseable" and "fallback_used" in rows[2]["labels"]
    assert rows[3]["rejection"] == "maps_not_geographic"
    assert rows[3]["action"] == {"type": "search", "query": "hub store"}


def test_geographic_flag_allows_maps():
    stdin = lines('{"type": "google_maps", "query": "hub store", "location": "Irvine, CA"}')
    res = CliRunner().invoke(
        app, ["guards", "check", "--observation", OBS, "--geographic"], input=stdin
    )
    row = json.loads(res.output)
    assert row["action"]["type"] == "maps" and row["fallback"] == {
        "type": "search",
        "query": "hub store",
    }


def test_raw_text_lines_are_compiled_and_labeled():
    stdin = '{"type": "click", "target": "[12]"}\nnot json at all\n'
    res = CliRunner().invoke(app, ["guards", "check", "--observation", OBS], input=stdin)
    rows = [json.loads(x) for x in res.output.splitlines()]
    assert rows[0]["action"] == {"type": "click", "target": 12}
    assert "input:raw_text" in rows[0]["labels"] and "repair:label_string" in rows[0]["labels"]
    assert rows[1]["rejection"] == "unparseable" and "input:raw_text" in rows[1]["labels"]


def test_history_file_enables_loop_detection(tmp_path):
    from contracts.observation import Observation

    obs = Observation.model_validate_json((FIXTURES / "observation.json").read_text())
    h = obs.compute_state_hash()
    scroll = '{"type":"scroll","target":"window","direction":"down"}'
    hist = {
        "actions": [
            {
                "step_index": i,
                "url": obs.url,
                "action": scroll,
                "action_type": "scroll",
                "state_hash": h,
            }
            for i in range(2)
        ],
        "state_hashes": [h, h],
    }
    path = tmp_path / "hist.json"
    path.write_text(json.dumps(hist))
    res = CliRunner().invoke(
        app,
        ["guards", "check", "--observation", OBS, "--history", str(path)],
        input=lines('{"type": "scroll_down"}'),
    )
    row = json.loads(res.output)
    assert row["rejection"] == "scroll_loop" and "loop:scroll_loop" in row["labels"]


def test_external_access_prints_null_action():
    res = CliRunner().invoke(
        app,
        ["guards", "check", "--observation", str(FIXTURES / "captcha_observation.json")],
        input=lines('{"type": "click", "target": 0}'),
    )
    row = json.loads(res.output)
    assert row["action"] is None and row["fallback"] is None
    assert row["rejection"] == "external_access"


def test_bad_observation_names_file_and_field_and_exits_2(tmp_path):
    bad = FIXTURES / "bad_observation.json"
    res = subprocess.run(
        [sys.executable, "-m", "pathwise.cli", "guards", "check", "--observation", str(bad)],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 2
    assert "bad_observation.json" in res.stderr and "labels[0].label" in res.stderr
    assert res.stdout == ""
    broken = tmp_path / "broken.json"
    broken.write_text('{"url": "x",\n  "labels": [}')
    res = CliRunner().invoke(app, ["guards", "check", "--observation", str(broken)], input="")
    assert res.exit_code == 2
    missing = CliRunner().invoke(
        app, ["guards", "check", "--observation", str(tmp_path / "no.json")]
    )
    assert missing.exit_code == 2


def test_invalid_json_error_message_has_line_number(tmp_path, capsys):
    import pytest
    import typer

    from agent_runtime.guards.cli import _load_model
    from contracts.observation import Observation

    broken = tmp_path / "broken.json"
    broken.write_text('{"url": "x",\n  "labels": [}')
    with pytest.raises(typer.Exit) as exc:
        _load_model(broken, Observation, "observation")
    assert exc.value.exit_code == 2
    err = capsys.readouterr().err
    assert "broken.json:2:" in err and "not valid JSON" in err


def test_check_applies_the_allowance_it_is_given():
    stdin = lines('{"action": {"type": "search", "query": "mail ada@example.org"}}')
    base = ["guards", "check", "--observation", OBS]
    strict = CliRunner().invoke(app, base, input=stdin)
    assert strict.exit_code == 0, strict.output
    assert json.loads(strict.output)["rejection"] == "sensitive_input"
    for flag in ("personal", "all", "payment,personal"):
        res = CliRunner().invoke(app, [*base, "--allow-sensitive", flag], input=stdin)
        assert json.loads(res.output)["rejection"] is None, (flag, res.output)
    bad = CliRunner().invoke(app, [*base, "--allow-sensitive", "money"], input=stdin)
    assert bad.exit_code == 2 and "unknown kind 'money'" in bad.output
