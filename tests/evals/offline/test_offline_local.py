"""`pathwise eval offline --local`: the embedded backend in-process on a tiny random model."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pathwise.cli import app
from tests.helpers.sft_records import ast, png_image, record, save_dataset

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def tiny_text(tmp_path_factory):
    pytest.importorskip("transformers", reason="needs the [train] extra")
    pytest.importorskip("peft", reason="needs the [train] extra")
    import torch

    from base_models.tiny import build_text

    torch.set_num_threads(1)
    return build_text(tmp_path_factory.mktemp("tiny") / "text")


def test_offline_local_embedded_backend(tiny_text, tmp_path):
    img = png_image()
    recs = [
        record("k0", ast({"type": "click", "target": 3}), img),
        record("k1", ast({"type": "back", "reason": "history"}), img),
        record("k2", ast({"type": "wait", "reason": "loading", "seconds": 1.0}), img),
    ]
    ds = save_dataset(tmp_path / "ds", {"train": recs[:1], "eval": recs})
    out = tmp_path / "out"
    r = CliRunner().invoke(
        app,
        [
            "eval",
            "offline",
            "--dataset",
            str(ds),
            "--local",
            str(tiny_text),
            "--limit",
            "2",
            "--max-tokens",
            "48",
            "--out",
            str(out),
            "--concurrency",
            "4",
        ],
    )
    assert r.exit_code == 0, r.output
    res = json.loads((out / "results.json").read_text())
    assert res["request_errors"] == 0 and res["metrics"]["n"] == 2
    assert res["config"]["effective_concurrency"] == 1  # in-process: one call at a time
    assert res["tokens"]["calls_with_usage"] == 2
    assert res["tokens"]["prompt_tokens"] > 20
    assert 0 < res["tokens"]["completion_tokens"] <= 2 * 48
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert [p["contract_id"] for p in preds] == ["c-k0", "c-k1"]
    for p in preds:
        # schema-constrained decoding: a finished reply is a grammar-valid Action AST
        if p["finish_reason"] == "stop":
            assert p["ast_valid"] is True and p["predicted_type"] is not None
