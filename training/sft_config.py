"""Recipe model for LoRA SFT runs: WebRider Appendix E, Tables 37-39 (and KnowPlan clause-to-AST).

A recipe YAML is the single home of a run's hyperparameters. This module loads and validates it
(pydantic, unknown keys rejected, errors name the file and the field), checks the batch arithmetic
GPUs x micro x accumulation = global batch, and turns it into TRL's ``SFTConfig``. It imports
neither torch nor transformers at module import time so the batch check runs before any model loads.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from common.loading import LoadError, load_mapping, validate

REPO_ROOT = Path(__file__).resolve().parent.parent

# SFTConfig fields the recipe owns elsewhere (batch/data/precision sections) or that the runner
# fixes
# because they *are* the mechanism (assistant-only loss, no packing, delete-don't-truncate).
# Allowing
# them in `trainer:` too would create two values that can drift.
_RESERVED_TRAINER_KEYS = {
    "output_dir": "top-level output_dir",
    "per_device_train_batch_size": "batch.micro_batch",
    "per_device_eval_batch_size": "batch.micro_batch",
    "gradient_accumulation_steps": "batch.grad_accum",
    "max_length": "data.max_length",
    "bf16": "precision",
    "fp16": "precision",
    "tf32": "precision",
    "deepspeed": "distributed.accelerate_config (the accelerate YAML names the DeepSpeed JSON)",
    "assistant_only_loss": "loss_on (assistant, the default, or all)",
    "completion_only_loss": "fixed by the runner",
    "packing": "fixed False by the runner (Table 37: no packing)",
    "dataset_num_proc": "data.preprocessing_workers",
    "report_to": "logging (TensorBoard always, W&B when wandb_project or WANDB_PROJECT is set)",
}


_DIST_ENV = ("WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


class RecipeError(ValueError):
    """A recipe file failed validation; the message names the file and the field."""


class BatchMismatchError(RecipeError):
    """GPUs x micro batch x accumulation does not equal the recipe's global batch."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, allow_inf_nan=False)


class ModelSpec(_Strict):
    name_or_path: str = Field(description="hub id or local directory loaded with from_pretrained")
    kind: Literal["vl", "text"] = Field(
        description="vl: AutoModelForImageTextToText + AutoProcessor; text: AutoModelForCausalLM"
    )
    # auto: follows `precision: auto` (bfloat16 where bf16 runs natively, else float32).
    dtype: Literal["bfloat16", "float32", "auto"]
    attn_implementation: str | None = None


class DataSpec(_Strict):
    dataset: str = Field(description="a DatasetDict directory written with save_to_disk")
    train_split: str = "train"
    eval_split: str | None = "eval"
    max_length: int = Field(gt=0, description="longer examples are deleted and counted, never cut")
    preprocessing_workers: int = Field(1, ge=1)
    max_pixels: int | None = Field(
        None,
        gt=0,
        description="VL: the image processor's pixel cap per image (screenshots larger are "
        "resized down, so fewer image tokens); null keeps the processor's own (Table 37: "
        "processor defaults, no pixel or image-token cap). Serve with the same setting.",
    )
    min_pixels: int | None = Field(None, gt=0, description="VL: the pixel floor per image")
    balance_by: str | None = Field(
        None,
        description="a column of the train split (e.g. command_verb): the split is resampled so "
        "each of its values is drawn equally often (same size, rare values repeated); a short "
        "run then sees the rare step kinds, not mostly the common ones",
    )


class LoraSpec(_Strict):
    r: int = Field(gt=0)
    alpha: int = Field(gt=0)
    dropout: float = Field(ge=0.0, lt=1.0)
    bias: Literal["none"] = "none"
    target_modules: list[str] = Field(min_length=1)
    # Restricts adapters to one sub-module (e.g. the language model), which is how the vision tower
    # and
    # the multimodal aligner / deepstack mergers stay frozen (Table 37).
    module_scope: str | None = None


class BatchSpec(_Strict):
    gpus: int = Field(gt=0, description="processes the recipe was sized for (Table 39 'GPUs')")
    micro_batch: int = Field(gt=0)
    grad_accum: int = Field(gt=0)
    global_batch: int = Field(gt=0)

    @model_validator(mode="after")
    def _product(self) -> BatchSpec:
        if self.gpus * self.micro_batch * self.grad_accum != self.global_batch:
            raise ValueError(
                f"gpus x micro_batch x grad_accum = {self.gpus} x {self.micro_batch} x "
                f"{self.grad_accum} = {self.gpus * self.micro_batch * self.grad_accum}, "
                f"but global_batch is {self.global_batch}"
            )
        return self


class DistributedSpec(_Strict):
    zero_stage: Literal[0, 2, 3] = 0
    accelerate_config: str | None = Field(
        None, description="accelerate YAML (repo-relative) the recipe is launched with"
    )


class ResumeSpec(_Strict):
    # A checkpoint whose adapter weights are restored model-only (fresh AdamW and schedule), as the
    # paper's Gemma run did after its world size changed from four to three workers.
    model_only_from: str | None = None


class Recipe(_Strict):
    name: str
    paper: str = Field(description="the table / row this recipe reproduces")
    model: ModelSpec
    data: DataSpec
    # null = full fine-tuning; every paper recipe sets a LoRA.
    lora: LoraSpec | None = None
    batch: BatchSpec
    distributed: DistributedSpec = DistributedSpec()
    # auto: bf16 where the GPU or CPU runs it natively (AMX-BF16 / AVX512-BF16), fp32 otherwise;
    # resolved once at launch (base_models/precision.py) and written to the log and run summary.
    precision: Literal["bf16", "fp32", "auto"]
    output_dir: str
    wandb_project: str | None = None
    # assistant: SFT loss on the assistant turns only (every paper recipe). all: every token,
    # which is how a RANDOM base is fitted: repeated strings inside the prompt (a quoted word in
    # the command and again in a label) train the previous-token and induction heads that
    # matching and copying need, long before the answer tokens alone would.
    loss_on: Literal["assistant", "all"] = "assistant"
    resume: ResumeSpec = ResumeSpec()
    trainer: dict[str, Any] = Field(
        default_factory=dict, description="remaining TRL SFTConfig fields, passed through"
    )

    # The file the recipe came from, for error messages.
    _source: str = PrivateAttr(default="<recipe>")

    @model_validator(mode="after")
    def _trainer_keys(self) -> Recipe:
        # Unknown SFTConfig names are caught in build_sft_config, so this check needs no TRL import
        # and the batch check in the launcher stays instant.
        for key in self.trainer:
            if key in _RESERVED_TRAINER_KEYS:
                raise ValueError(
                    f"trainer.{key} is not allowed here: it is set by {_RESERVED_TRAINER_KEYS[key]}"
                )
        if self.precision == "bf16" and self.model.dtype != "bfloat16":
            raise ValueError("precision bf16 needs model.dtype bfloat16")
        if (self.precision == "auto") != (self.model.dtype == "auto"):
            raise ValueError("precision auto and model.dtype auto go together")
        return self


def _format_error(path: Path, err: ValidationError) -> str:
    lines = [f"invalid recipe {path}:"]
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "<root>"
        lines.append(f"  field '{loc}': {e['msg']}")
    return "\n".join(lines)


def load_recipe(path: str | Path) -> Recipe:
    """Load and validate a recipe YAML; RecipeError names the file and the field on any problem."""
    path = Path(path)
    try:
        raw = load_mapping(path, "recipe file")
        recipe = validate(Recipe, raw, str(path))
    except LoadError as e:
        raise RecipeError(str(e)) from None
    recipe._source = str(path)
    return recipe


def with_resolved_precision(recipe: Recipe) -> tuple[Recipe, str]:
    """The recipe with `precision: auto` made concrete for this machine, and the reason."""
    from base_models.precision import resolve

    precision, dtype, why = resolve(recipe.precision)
    data = recipe.model_dump()
    data["precision"], data["model"]["dtype"] = precision, dtype
    resolved = Recipe.model_validate(data)
    resolved._source = recipe._source
    return resolved, why


def resolve_path(value: str) -> Path:
    """Recipe paths are repo-relative unless absolute, so a recipe runs from any directory."""
    p = Path(value)
    return p if p.is_absolute() else REPO_ROOT / p


def check_world_batch(recipe: Recipe, world_size: int) -> None:
    """Refuse to start unless world_size x micro x accum equals the recipe's global batch."""
    b = recipe.batch
    got = world_size * b.micro_batch * b.grad_accum
    if got != b.global_batch:
        raise BatchMismatchError(
            f"batch mismatch for recipe '{recipe.name}': {world_size} process(es) x micro batch "
            f"{b.micro_batch} x grad accumulation {b.grad_accum} = {got}, but the recipe's global "
            f"batch is {b.global_batch} (sized for {b.gpus} GPU(s)). Launch with "
            f"--num_processes {b.gpus}, or override --micro-batch/--grad-accum so the product is "
            f"{b.global_batch}."
        )


def world_size_from_env() -> int:
    """Process count as set by accelerate launch / torchrun; 1 for a plain python run."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def report_to(recipe: Recipe) -> list[str]:
    """TensorBoard always; W&B when the recipe or the environment names a project."""
    targets = ["tensorboard"]
    project = recipe.wandb_project or os.environ.get("WANDB_PROJECT")
    if project:
        os.environ.setdefault("WANDB_PROJECT", project)
        targets.append("wandb")
    return targets


def sft_kwargs(recipe: Recipe, output_dir: str | Path) -> dict[str, Any]:
    """All SFTConfig keyword arguments for the recipe (the runner's fixed ones included)."""
    bf16 = recipe.precision == "bf16"
    trainer = dict(recipe.trainer)
    if trainer.get("chat_template_path"):
        # TRL treats a path it cannot find as a hub id to clone from; make repo paths absolute.
        trainer["chat_template_path"] = str(resolve_path(trainer["chat_template_path"]))
    kwargs: dict[str, Any] = {
        **trainer,
        "output_dir": str(output_dir),
        "per_device_train_batch_size": recipe.batch.micro_batch,
        "per_device_eval_batch_size": recipe.batch.micro_batch,
        "gradient_accumulation_steps": recipe.batch.grad_accum,
        "max_length": recipe.data.max_length,
        # SFTConfig defaults bf16=True even on CPU; DeepSpeed refuses a precision mismatch.
        "bf16": bf16,
        "fp16": False,
        "assistant_only_loss": recipe.loss_on == "assistant",
        "packing": False,
        "dataset_num_proc": recipe.data.preprocessing_workers,
        "report_to": report_to(recipe),
    }
    return kwargs


def build_sft_config(recipe: Recipe, output_dir: str | Path, *, validate_only: bool = False):
    """TRL SFTConfig for the recipe; ``validate_only`` lets a CPU machine check a GPU recipe."""
    from trl import SFTConfig

    unknown = sorted(set(recipe.trainer) - {f.name for f in dataclasses.fields(SFTConfig)})
    if unknown:
        raise RecipeError(
            f"invalid recipe {recipe._source}:\n"
            + "\n".join(f"  field 'trainer.{k}': not a TRL SFTConfig field" for k in unknown)
        )
    kwargs = sft_kwargs(recipe, output_dir)
    if validate_only:
        # Validation must not depend on the launch: hide the distributed variables from accelerate's
        # device setup, which would otherwise try to rendezvous with the other ranks.
        kwargs["use_cpu"] = True
        saved = {k: os.environ.pop(k) for k in _DIST_ENV if k in os.environ}
        try:
            return SFTConfig(**kwargs)
        finally:
            os.environ.update(saved)
    if not _has_accelerator():
        # transformers refuses bf16 without a GPU unless told the run is on CPU. On a CPU-only
        # machine
        # use_cpu also makes accelerate set up gloo with the real process count; without it,
        # DeepSpeed
        # runs two ranks while accelerate believes in one and feeds both the same batches.
        kwargs["use_cpu"] = True
    return SFTConfig(**kwargs)


def _has_accelerator() -> bool:
    import torch

    return torch.cuda.is_available()
