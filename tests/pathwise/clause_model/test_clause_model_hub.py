"""`pathwise catalog clause-model train` with a hub-id base, as on a GPU node with
`--config pathwise/clause_model/gpu.yaml`: the base is the snapshot in the Hugging Face cache (a
tiny random Qwen3 cached here under a hub id), trained with the tiny stand-in of the GPU recipe,
merged and carded with the id and revision it came from. It runs from a directory other than the
checkout, with relative paths, as a job script would: they are the caller's, in every stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from base_models.registry import load_registry
from base_models.tiny import build_text
from pathwise.clause_model.pipeline import load_config
from pathwise.cli import app
from tests.helpers.hf_cache import REVISION, hf_cache, offline
from training.sft_config import load_recipe

RUN = CliRunner()
REPO = Path(__file__).resolve().parents[3]
HUB_ID = "pathwise-tests/tiny-clause"


def _config(tmp_path: Path, base: str) -> Path:
    cfg = tmp_path / "clause-hub.yaml"
    cfg.write_text(yaml.safe_dump({
        "base": base,
        "recipe": "training/recipes/tiny-clause.yaml",
        "layout": "keyed",
        "records": 2,  # one global batch of the tiny recipe: every step sees the same two
        "eval_records": 2,
        "score_records": 1,
        "seed": 1,
    }))  # fmt: skip
    return cfg


@pytest.mark.train
def test_a_hub_base_is_trained_merged_and_carded_from_the_cache(tmp_path, monkeypatch) -> None:
    snap = hf_cache(tmp_path, HUB_ID, source=build_text(tmp_path / "built"))
    offline(monkeypatch, tmp_path)
    caller = tmp_path / "caller"
    caller.mkdir()
    _config(caller, HUB_ID)
    monkeypatch.chdir(caller)
    args = ["catalog", "clause-model", "train", "--out", "cm", "--config", "clause-hub.yaml",
            "--max-steps", "4"]  # fmt: skip
    res = RUN.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = caller / "cm"
    assert json.loads((out / "export" / "stage.json").read_text())["dataset"] == str(out / "data")
    assert (out / "adapter" / "run_summary.json").is_file()
    assert not (REPO / "cm").exists()
    base = json.loads((out / "base" / "stage.json").read_text())
    assert base["model"] == str(snap)
    assert base["provenance"] == {"source": "hub", "hub_id": HUB_ID, "revision": REVISION}
    card = json.loads((out / "model" / "clause_model.json").read_text())
    assert card["base"].startswith(f"{HUB_ID} (") and REVISION in card["base"]
    assert card["training"]["global_step"] == 4
    assert card["training"]["last_loss"] < card["training"]["first_loss"]
    merged = json.loads((out / "model" / "provenance.json").read_text())
    assert merged["name"].startswith(f"{HUB_ID}+")
    assert merged["base_provenance"]["revision"] == REVISION
    assert list(snap.parent.iterdir()) == [snap]  # the cache is read, never written


def test_an_uncached_hub_base_stops_before_anything_is_written(tmp_path, monkeypatch) -> None:
    offline(monkeypatch, tmp_path)
    out = tmp_path / "cm"
    res = RUN.invoke(app, ["catalog", "clause-model", "train", "--out", str(out),
                           "--config", str(_config(tmp_path, "org/not-cached"))])  # fmt: skip
    assert res.exit_code != 0
    assert "org/not-cached is not in the Hugging Face cache" in res.output
    assert "Traceback" not in res.output
    assert not (out / "base" / "stage.json").exists() and not (out / "data").exists()


def test_the_gpu_config_is_the_gpu_recipe_on_its_hub_base() -> None:
    cfg = load_config(REPO / "pathwise/clause_model/gpu.yaml")
    entry = load_registry().get(cfg.base)
    recipe = load_recipe(REPO / cfg.recipe)
    assert entry.source == "hub" and entry.kind == "text"
    assert recipe.model.name_or_path == entry.hub_id
    assert recipe.precision == "bf16" and recipe.distributed.zero_stage == 2
    assert recipe.data.eval_split == "eval"  # the export's held-out families
    assert cfg.records // recipe.batch.global_batch >= 1000
