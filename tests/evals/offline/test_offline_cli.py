"""`pathwise eval offline` end to end against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pathwise.cli import app
from tests.helpers.sft_records import ast, png_image, record, save_dataset

CLICK3 = ast({"type": "click", "target": 3})
TYPE5 = ast({"type": "type", "target": 5, "text": "hi", "submit": False})
BACK = ast({"type": "back", "reason": "history"})
WAIT = ast({"type": "wait", "reason": "loading", "seconds": 1.0})


@pytest.fixture
def dataset(tmp_path):
    img = png_image()
    recs = [
        record("k0", CLICK3, img),
        record("k1", TYPE5, img),
        record("k2", BACK, img),
        record("k3", WAIT, img),
    ]
    manifest = {"prompt_overlap": {"eval_prompts": 4, "eval_prompts_in_train": 1, "share": 0.25}}
    return save_dataset(
        # k0's prompt is also in training: its match is recall, not transfer.
        tmp_path / "ds",
        {"train": [record("k0", CLICK3, img)], "eval": recs},
        manifest,
    )


def set_replies(fake):
    fake.replies.update(
        {
            "k0": (200, CLICK3),  # valid, action, target
            "k1": (200, ast({"type": "click", "target": 5})),  # valid, target only
            "k2": (200, "I would go back"),  # unparseable
            "k3": (200, json.dumps({"action": {"type": "sleep"}})),  # alias, no fallback
        }
    )


def invoke(*args):
    return CliRunner().invoke(app, ["eval", "offline", *map(str, args)])


def test_offline_cli_scores_and_writes_report(fake_openai, dataset, tmp_path):
    set_replies(fake_openai)
    out = tmp_path / "out"
    r = invoke(
        "--dataset",
        dataset,
        "--split",
        "eval",
        "--endpoint",
        fake_openai.url,
        "--model",
        "student",
        "--out",
        out,
        "--concurrency",
        "3",
    )
    assert r.exit_code == 0, r.output
    res = json.loads((out / "results.json").read_text())
    m = res["metrics"]
    assert m["n"] == 4
    assert m["ast_validity"] == pytest.approx(0.5)
    assert m["action_match"] == pytest.approx(0.5)  # k0 click, k3 sleep->wait
    assert m["target_match"] == pytest.approx(0.75)  # k0 "3", k1 "5", k3 ""
    assert m["invalid_reasons"] == {"unparseable": 1, "no_fallback": 1}
    assert res["per_type"]["type"] == {
        "n": 1,
        "ast_validity": 1.0,
        "action_match": 0.0,
        "target_match": 1.0,
    }
    cm = res["confusion_matrix"]
    row = dict(zip(cm["cols"], cm["counts"][cm["rows"].index("type")], strict=True))
    assert row["click"] == 1
    back = dict(zip(cm["cols"], cm["counts"][cm["rows"].index("back")], strict=True))
    assert back["invalid"] == 1
    assert res["tokens"]["prompt_tokens"] == 40 and res["tokens"]["completion_tokens"] == 20
    assert res["prompt_overlap"]["eval_prompts_in_train"] == 1
    new = res["metrics_new_prompts"]  # k1, k2, k3: the prompts training never showed
    assert new["n"] == 3
    assert new["action_match"] == pytest.approx(1 / 3) and new["target_match"] == pytest.approx(
        2 / 3
    )
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert [p["contract_id"] for p in preds] == ["c-k0", "c-k1", "c-k2", "c-k3"]
    assert preds[2]["prediction"] == "I would go back" and preds[2]["ast_valid"] is False
    report = (out / "report.md").read_text()
    assert "| 4 | 50.00% | 50.00% | 75.00% |" in report
    assert (
        "On the 3 held-out steps whose prompt never occurs in training: action match 33.33%"
        in report
    )
    assert (out / "confusion_matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Every request asked for the Action AST schema as structured output, text-only.
    assert len(fake_openai.bodies) == 4
    for body in fake_openai.bodies:
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["schema"]["title"] == "ActionAST"
        assert [m["role"] for m in body["messages"]] == ["system", "user"]  # no assistant turn
        assert isinstance(body["messages"][1]["content"], str)
        assert body["temperature"] == 0.0


def test_offline_cli_vision_sends_image_and_limit(fake_openai, dataset, tmp_path):
    set_replies(fake_openai)
    out = tmp_path / "out"
    r = invoke(
        "--dataset",
        dataset,
        "--endpoint",
        fake_openai.url,
        "--model",
        "student",
        "--out",
        out,
        "--vision",
        "--limit",
        "2",
    )
    assert r.exit_code == 0, r.output
    res = json.loads((out / "results.json").read_text())
    assert res["metrics"]["n"] == 2 and res["missing_images"] == 0
    assert len(fake_openai.bodies) == 2
    texts = set()
    for body in fake_openai.bodies:
        parts = body["messages"][1]["content"]
        assert parts[0]["type"] == "image_url"
        assert parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
        texts.add(parts[1]["text"])
        assert body["messages"][0]["content"] == "You are the middle."
    assert texts == {"Command: k0\nURL: x", "Command: k1\nURL: x"}


def test_offline_cli_refuses_existing_out(fake_openai, dataset, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = invoke("--dataset", dataset, "--endpoint", fake_openai.url, "--model", "s", "--out", out)
    assert r.exit_code == 2
    assert "refusing to overwrite" in r.output
    assert fake_openai.bodies == []  # refused before any request
    assert (out / "keep.txt").read_text() == "mine" and not (out / "results.json").exists()


def test_offline_cli_counts_failed_requests_apart(fake_openai, dataset, tmp_path):
    set_replies(fake_openai)
    fake_openai.replies["k2"] = (400, "")
    out = tmp_path / "out"
    r = invoke(
        "--dataset", dataset, "--endpoint", fake_openai.url, "--model", "student", "--out", out
    )
    assert r.exit_code == 1  # results written, but the failure is surfaced
    res = json.loads((out / "results.json").read_text())
    assert res["request_errors"] == 1 and res["scored"] == 3 and res["metrics"]["n"] == 3
    assert "HTTP 400" in res["errors"][0]["error"]


def test_offline_cli_argument_checks(dataset, tmp_path):
    r = invoke("--dataset", dataset, "--out", tmp_path / "o")
    assert r.exit_code == 2 and "exactly one of" in r.output
    r = invoke("--dataset", dataset, "--out", tmp_path / "o", "--endpoint", "http://x/v1")
    assert r.exit_code == 2 and "--model" in r.output
    r = invoke(
        "--dataset",
        dataset,
        "--split",
        "nope",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--out",
        tmp_path / "o",
    )
    assert r.exit_code == 2 and "no split" in r.output


def test_offline_cli_api_key_and_one_line_on_401(fake_openai, dataset, tmp_path, monkeypatch):
    """An endpoint that wants a key: refused with one line naming it, before any request;
    served with --api-key (or OPENAI_API_KEY), which never reaches a written file."""
    set_replies(fake_openai)
    fake_openai.api_key = "sk-right"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["--dataset", dataset, "--endpoint", fake_openai.url, "--model", "student"]
    for key, why in ((None, "needs an API key"), ("sk-wrong", "refused the API key")):
        r = invoke(*args, "--out", tmp_path / "refused", *(["--api-key", key] if key else []))
        assert r.exit_code == 2
        assert r.output.strip() == (
            f"error: {fake_openai.url} {why} (HTTP 401): pass --api-key or set OPENAI_API_KEY"
        )
    assert fake_openai.bodies == [] and not (tmp_path / "refused").exists()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-right")
    out = tmp_path / "out"
    r = invoke(*args, "--out", out)
    assert r.exit_code == 0, r.output
    assert len(fake_openai.bodies) == 4
    for name in ("results.json", "predictions.jsonl", "report.md"):
        assert "sk-right" not in (out / name).read_text()
