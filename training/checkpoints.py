"""Resume rules for LoRA SFT runs: WebRider Appendix E, Table 39 note (Gemma model-only restore).

A run resumes in full (adapter, optimizer, scheduler, RNG, data position) from the last
``checkpoint-N`` in its output directory when the world size is unchanged. When it changed, the
rank-sharded optimizer state no longer fits, so only the adapter weights are restored and AdamW and
its schedule start fresh, as the paper did for Gemma (step-600 adapter, steps 601-785
re-initialised).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from transformers import TrainerState

META_FILE = "pathwise_checkpoint.json"
_CKPT = re.compile(r"^checkpoint-(\d+)$")


@dataclass(frozen=True)
class ResumePlan:
    """What the runner does before training."""

    mode: Literal["fresh", "full", "model_only"]
    checkpoint: Path | None = None
    reason: str = ""


def last_checkpoint(output_dir: Path) -> Path | None:
    """The highest-numbered checkpoint-N directory, or None."""
    if not output_dir.is_dir():
        return None
    found = [(int(m.group(1)), p) for p in output_dir.iterdir() if (m := _CKPT.match(p.name))]
    return max(found)[1] if found else None


def write_meta(checkpoint: Path, world_size: int, micro_batch: int, grad_accum: int) -> None:
    """Record the distributed shape a checkpoint was written under."""
    meta = {"world_size": world_size, "micro_batch": micro_batch, "grad_accum": grad_accum}
    (checkpoint / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")


def read_world_size(checkpoint: Path) -> int | None:
    meta = checkpoint / META_FILE
    if not meta.is_file():
        return None
    return int(json.loads(meta.read_text())["world_size"])


def plan_resume(
    output_dir: Path, world_size: int, resume: str, model_only_from: Path | None
) -> ResumePlan:
    """Decide between a fresh start, a full resume and a model-only restore.

    ``resume`` is "auto" (last checkpoint if any), "never", or a checkpoint path.
    """
    if resume == "never":
        ckpt = None
    elif resume == "auto":
        ckpt = last_checkpoint(output_dir)
    else:
        ckpt = Path(resume)
        if not ckpt.is_dir():
            raise FileNotFoundError(f"--resume {resume}: no such checkpoint directory")
    if ckpt is None:
        if model_only_from is not None:
            return ResumePlan("model_only", model_only_from, "recipe resume.model_only_from")
        return ResumePlan("fresh", None, "no checkpoint in output dir")
    saved = read_world_size(ckpt)
    if saved is not None and saved != world_size:
        return ResumePlan(
            "model_only",
            ckpt,
            f"world size changed ({saved} -> {world_size}): adapter restored, optimizer and "
            "schedule reinitialised",
        )
    return ResumePlan("full", ckpt, "same world size")


def finished_state(plan: ResumePlan, max_steps: int) -> TrainerState | None:
    """The checkpoint's trainer state when a full resume would start at or past the last step."""
    from transformers import TrainerState

    if plan.mode != "full" or plan.checkpoint is None:
        return None
    state = TrainerState.load_from_json(str(plan.checkpoint / "trainer_state.json"))
    last = max_steps if max_steps > 0 else state.max_steps
    return state if last > 0 and state.global_step >= last else None


def load_adapter_weights(model, checkpoint: Path) -> int:
    """Copy a checkpoint's adapter tensors into a PeftModel; return how many tensors were loaded."""
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    weights = checkpoint / "adapter_model.safetensors"
    if not weights.is_file():
        raise FileNotFoundError(f"model-only restore: {weights} not found")
    state = load_file(str(weights))
    result = set_peft_model_state_dict(model, state)
    unexpected = [k for k in result.unexpected_keys if "lora_" in k]
    if unexpected:
        raise RuntimeError(f"model-only restore: {len(unexpected)} adapter tensors did not match")
    return len(state)
