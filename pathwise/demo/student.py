"""Demo stages that make the student: export, the base (a pretrained model imported from the
registry, or a random one with grounding augmentation and a full fine-tune) and the LoRA
adapter stage through training/sft.py, the same entry point and LoRA path the 8B recipe uses."""

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


def augment_stage(cfg: DemoConfig, traces: Path, dataset: Path, stage_dir: Path) -> dict[str, Any]:
    """Augmented training records from training-split rows only; eval stays the real eval."""
    from datasets import load_from_disk

    from agent_runtime.runner.traces import iter_rows, trace_files
    from contracts.step_row import StepRow
    from data_export.augment import augmented_records
    from data_export.dataset import save_splits
    from data_export.middle.export import features
    from data_export.split import assign

    assert cfg.student is not None
    rows = [
        r
        for p in trace_files(traces)
        for _, r, _ in iter_rows(p)
        if isinstance(r, StepRow)
        and assign(r.contract.base_task_id, cfg.eval_fraction, cfg.split_seed) == "train"
    ]
    real = load_from_disk(str(dataset))
    n = cfg.student.synthetic_examples
    out = stage_dir / "dataset"
    feats = features(images=True)

    def train() -> Any:
        yield from augmented_records(
            rows, cfg.student.drill_examples, seed=cfg.split_seed + 1, compact=True
        )
        yield from augmented_records(rows, n, seed=cfg.split_seed)

    sizes = save_splits(
        {"train": train, "eval": lambda: iter(real["eval"])}, feats, out, stage_dir / "scratch"
    )
    return {
        "dataset": str(out),
        "sizes": sizes,
        "source_rows": len(rows),
        "drills": cfg.student.drill_examples,
        "augmented": n,
    }


def _corpus(datasets: list[Path], limit: int = 4000) -> list[str]:
    from datasets import load_from_disk

    from training.data import text_messages

    texts: list[str] = []
    for path in datasets:
        split = load_from_disk(str(path))["train"]
        for rec in split.select(range(min(limit, len(split)))):
            texts.extend(m["content"] for m in text_messages(rec["messages"]))
    return texts


def build_stage(cfg: DemoConfig, datasets: list[Path], stage_dir: Path) -> dict[str, Any]:
    """A random Qwen3 base whose byte-level BPE is trained on the demo's own chat text."""
    from base_models.tiny import build_text

    assert cfg.student is not None
    out = stage_dir / "model"
    build_text(out, seed=0, corpus=_corpus(datasets), **cfg.student.model)
    n_params = json.loads((out / "config.json").read_text())
    return {"model": str(out), "config": n_params}


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
