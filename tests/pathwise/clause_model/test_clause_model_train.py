"""`pathwise catalog clause-model train` on the real base: a short run lowers the loss, a rerun
skips every finished stage, and `parse-prereq --model` finds the model where it was written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from pathwise.cli import app

RUN = CliRunner()


@pytest.mark.slow
@pytest.mark.train
def test_train_lowers_loss_resumes_and_is_found(smollm2: Path, tmp_path: Path, monkeypatch):
    cfg = tmp_path / "clause.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "base": "smollm2-135m-instruct",
                "base_dir": str(smollm2),
                "recipe": "training/recipes/demo-clause-smollm2.yaml",
                "layout": "keyed",
                "records": 8,  # one global batch: every step sees the same eight records
                "eval_records": 4,
                "score_records": 1,
                "seed": 1,
            }
        )
    )
    out = tmp_path / "cm"
    args = ["catalog", "clause-model", "train", "--out", str(out), "--config", str(cfg)]
    res = RUN.invoke(app, [*args, "--max-steps", "3"])
    assert res.exit_code == 0, res.output
    card = json.loads((out / "model" / "clause_model.json").read_text())
    assert card["layout"] == "keyed" and card["training"]["global_step"] == 3
    assert card["training"]["last_loss"] < card["training"]["first_loss"]
    assert card["scores"]["heldout_families"]["n"] == 1
    assert "held-out families" in (out / "model" / "README.md").read_text()

    again = RUN.invoke(app, [*args, "--max-steps", "3"])
    assert again.exit_code == 0, again.output
    assert again.output.count("done earlier") == 5  # base, export, train, merge, score

    monkeypatch.setenv("PATHWISE_CLAUSE_MODEL", str(out / "model"))
    res = RUN.invoke(app, ["catalog", "parse-prereq", "MATH 220. Taught in Norwegian.", "--json",
                           "--model"])  # fmt: skip
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout.strip().splitlines()[-1])
    # Three steps make no parser: the span is typed or left, never lost, and MATH 220 stays.
    assert data["by_model"] + data["unresolved"] == ["Taught in Norwegian"]
    assert "MATH 220" in json.dumps(data["ast"])
