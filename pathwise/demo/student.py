"""Demo stages that make the student: export, the base (a pretrained model imported from the
registry), the LoRA adapter through training/sft.py (the entry point and LoRA path the 8B
recipe uses) and the merge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from pathwise.demo.config import DemoConfig

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
    """Run training/sft.py under `accelerate launch` with the recipe's own accelerate config:
    the CPU config for the demo's tiny student, the ZeRO-2 4-GPU config for the 8B recipe."""
    out = stage_dir / "out"
    cmd = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--config_file",
        str(REPO / "training/accelerate/cpu.yaml"),
        str(REPO / "training/sft.py"),
        "--recipe",
        str(REPO / recipe),
        "--model",
        str(model),
        "--dataset",
        str(dataset),
        "--output-dir",
        str(out),
    ]
    if max_steps:
        cmd += ["--max-steps", str(max_steps)]
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
    log = stage_dir / "train.log"
    with log.open("w") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=REPO)
    if proc.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-30:])
        raise RuntimeError(f"training failed (see {log}):\n{tail}")
    summary = json.loads((out / "run_summary.json").read_text())
    return {
        "out": str(out),
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
