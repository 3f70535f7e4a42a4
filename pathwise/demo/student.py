"""Demo stages that make the student: export, the base (a pretrained model imported from the
registry), the LoRA adapter through training/sft.py (the entry point and LoRA path the 8B
recipe uses) and the merge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pathwise.demo.config import DemoConfig
from training.launch import TrainLaunch, train

REPO = Path(__file__).resolve().parents[2]


def export_stage(cfg: DemoConfig, traces: Path, stage_dir: Path) -> dict[str, Any]:
    from agent_runtime.middle.format import get_format
    from data_export.middle.export import SFTExportConfig, export_sft

    out = stage_dir / "dataset"
    manifest = export_sft(
        SFTExportConfig(
            traces=traces,
            out=out,
            eval_fraction=cfg.eval_fraction,
            seed=cfg.split_seed,
            overwrite=True,  # the stage owns this folder; a finished stage is never rerun
            middle_format=get_format(cfg.middle_format),
            heldout_families=cfg.heldout_families(),
        )
    )
    if manifest["bad_rows"]:
        raise RuntimeError(f"export of {traces} met bad rows: {manifest['bad_rows']}")
    return {"dataset": str(out), "manifest": manifest}


def import_stage(name: str, stage_dir: Path) -> dict[str, Any]:
    """The pretrained base from the model registry (hash checked, provenance written)."""
    from base_models.importer import import_model
    from base_models.registry import load_registry

    out = stage_dir / "model"
    provenance = import_model(load_registry().get(name), out)
    return {"model": str(out), "provenance": provenance}


def merge_stage(base: Path, adapter: Path, stage_dir: Path) -> dict[str, Any]:
    """The adapter folded into its base, for serving one plain checkpoint."""
    from base_models.merge import merge_adapter

    out = stage_dir / "model"
    return {"model": str(out), "provenance": merge_adapter(base, adapter, out)}


def sft_stage(
    recipe: str, model: Path, dataset: Path, stage_dir: Path, max_steps: int | None = None
) -> dict[str, Any]:
    """The adapter through `pathwise train` (training/launch.py): training/sft.py under
    `accelerate launch` with the recipe's own accelerate config, the CPU one for the demo's
    student, ZeRO-2 on four GPUs for the 8B recipe."""
    spec = TrainLaunch(
        recipe=REPO / recipe, model=str(model), dataset=dataset, out=stage_dir / "out",
        max_steps=max_steps,
    )  # fmt: skip
    summary = train(spec, log=stage_dir / "train.log")
    return {
        "out": str(spec.out),
        "recipe": recipe,
        "global_step": summary["global_step"],
        "precision": summary.get("precision"),
        "precision_reason": summary.get("precision_reason"),
        "train_runtime_s": summary.get("train_metrics", {}).get("train_runtime"),
        "train_losses": summary["train_losses"],
        "eval_metrics": summary.get("eval_metrics", {}),
        "overlength": summary.get("overlength", {}),
    }


def recipe_value(recipe: str, *keys: str) -> Any:
    node: Any = yaml.safe_load((REPO / recipe).read_text())
    for k in keys:
        node = node[k]
    return node
