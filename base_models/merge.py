"""Fold a LoRA adapter into its base: one plain checkpoint to serve without the LoRA path.

vLLM applies a LoRA as extra matmuls on every projection of every step; on a CPU server that
costs about half again per request (benchmarks/results/merged.md). A student that is served
alone gains nothing from keeping the adapter apart, so its weights are merged once with PEFT's
`merge_and_unload` and saved as an ordinary transformers directory. provenance.json keeps the
base's record and adds which adapter (by sha256) was folded in.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from base_models.importer import ImportError_, publish, read_provenance, sha256_of

ADAPTER_WEIGHTS = "adapter_model.safetensors"


class MergeError(ImportError_):
    """The adapter cannot be merged into this base; the message says which file."""


def _check_inputs(base: Path, adapter: Path) -> Path:
    if not (base / "config.json").is_file():
        raise MergeError(f"base {base}: no config.json (a transformers model directory)")
    weights = adapter / ADAPTER_WEIGHTS
    if not (adapter / "adapter_config.json").is_file() or not weights.is_file():
        raise MergeError(
            f"adapter {adapter}: expected adapter_config.json and {ADAPTER_WEIGHTS} "
            "(a PEFT LoRA directory, e.g. the `out` of a training run)"
        )
    return weights


def _load_merged(base: Path, adapter: Path) -> tuple[Any, Any]:
    import torch
    from peft import PeftModel

    from base_models.model_info import auto_classes, is_vision_model

    model_cls, processor_cls = auto_classes(is_vision_model(base))
    # float32 so the sum base + B @ A is exact to the adapter's own precision; the server
    # chooses its dtype at load time.
    model = model_cls.from_pretrained(base, dtype=torch.float32)
    # The adapter directory carries the tokenizer and chat template it was trained with.
    src = adapter if (adapter / "tokenizer_config.json").is_file() else base
    processor = processor_cls.from_pretrained(src)
    try:
        peft_model = PeftModel.from_pretrained(model, str(adapter))
    except (RuntimeError, ValueError, KeyError) as e:
        raise MergeError(f"adapter {adapter} does not fit base {base}: {e}") from None
    return peft_model.merge_and_unload(), processor


def merge_adapter(
    base: Path, adapter: Path, out: Path, base_record: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Merge `adapter` into `base`, save to `out`; return the provenance. Never overwrites.

    `base_record` is where the base came from when its folder has no provenance.json (a hub
    snapshot: its id and revision).

    An `out` that already holds this merge (same adapter sha256) is kept as it is; any other
    non-empty `out` is refused. The model is written to a sibling folder and renamed, so an
    interrupted merge leaves nothing that looks finished.
    """
    import peft

    weights = _check_inputs(base, adapter)
    digest = sha256_of(weights)
    existing = read_provenance(out)
    if existing is not None:
        if existing.get("merged", {}).get("adapter_sha256") == digest:
            return existing
        raise MergeError(
            f"{out} already holds another model (provenance.json); choose another --out"
        )
    if out.exists() and any(out.iterdir()):
        raise MergeError(f"{out} exists and is not empty; choose another --out")
    model, processor = _load_merged(base, adapter)
    partial = out.with_name(f".{out.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    model.save_pretrained(partial, safe_serialization=True)
    processor.save_pretrained(partial)
    # The base's own record moves under "base_provenance", so this directory is never taken for
    # a plain import of the base (an import is idempotent by name and sha256).
    base_record = read_provenance(base) or base_record or {}
    base_name = base_record.get("name") or base_record.get("hub_id") or base.name
    record: dict[str, Any] = {
        "name": f"{base_name}+{adapter.name}",
        "license": base_record.get("license", "unknown (no provenance.json in the base)"),
        "base_provenance": base_record,
        "merged": {
            "base": str(base),
            "adapter": str(adapter),
            "adapter_sha256": digest,
            "peft": peft.__version__,
            "merged_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "saved_dtype": "float32",
        },
    }
    publish(partial, out, record)
    return record
