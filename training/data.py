"""SFT dataset loading and overlength deletion: WebRider Appendix E, Table 37 (data pipeline row).

Datasets come from disk only (``load_from_disk`` of a DatasetDict written by data_export). Examples
longer than the recipe's max length are deleted, never truncated (a truncated Action AST would teach
invalid JSON), and the deletions are counted per split.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# Only these columns reach TRL; provenance columns (base_task_id, rollout_id, step_index) stay on
# disk.
TRAIN_COLUMNS = ("messages", "images")


@dataclass
class SplitCounts:
    """How many examples a split had, kept and deleted for length."""

    total: int
    kept: int
    deleted_overlength: int
    longest_kept: int
    longest_seen: int

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def load_splits(path: str | Path, train_split: str, eval_split: str | None):
    """Load the DatasetDict and keep only the columns TRL trains on."""
    from datasets import load_from_disk

    dd = load_from_disk(str(path))
    missing = [s for s in (train_split, eval_split) if s is not None and s not in dd]
    if missing:
        raise ValueError(f"dataset {path} has no split(s) {missing}; it has {list(dd)}")
    out = {}
    for name in (train_split, eval_split):
        if name is None:
            continue
        ds = dd[name]
        if "messages" not in ds.column_names:
            raise ValueError(f"dataset {path} split '{name}' has no 'messages' column")
        out[name] = ds.remove_columns([c for c in ds.column_names if c not in TRAIN_COLUMNS])
    return out


def text_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flatten list-of-parts content to plain strings for text-only models.

    The clause exporter writes plain strings already; this also accepts the part format so one
    exporter layout serves both kinds of model.
    """
    flat = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = "".join(p.get("text") or "" for p in content if p.get("type") == "text")
        flat.append({"role": m["role"], "content": content})
    return flat


def vl_length_fn(processor) -> Callable[[dict[str, Any]], int]:
    """Token length of one VL example as TRL's collator builds it (image tokens included)."""
    from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling

    collator = DataCollatorForVisionLanguageModeling(processor=processor, max_length=None)

    def length(example: dict[str, Any]) -> int:
        batch = collator([{"messages": example["messages"], "images": example["images"]}])
        return int(batch["input_ids"].shape[1])

    return length


def text_length_fn(tokenizer) -> Callable[[dict[str, Any]], int]:
    """Token length of one text example under the tokenizer's chat template."""

    def length(example: dict[str, Any]) -> int:
        ids = tokenizer.apply_chat_template(
            example["messages"], tokenize=True, return_dict=True, add_generation_prompt=False
        )["input_ids"]
        return len(ids)

    return length


def delete_overlength(ds, length: Callable[[dict[str, Any]], int], max_length: int, workers: int):
    """Drop examples longer than max_length; return (kept dataset, counts)."""
    # keep_in_memory: the dataset directory may be read-only and the lengths are cheap to redo.
    with_len = ds.map(
        lambda ex: {"_n_tokens": length(ex)},
        num_proc=workers if workers > 1 else None,
        keep_in_memory=True,
        desc="measuring token lengths",
    )
    lengths = with_len["_n_tokens"]
    keep = [i for i, n in enumerate(lengths) if n <= max_length]
    kept = ds.select(keep, keep_in_memory=True)
    counts = SplitCounts(
        total=len(ds),
        kept=len(keep),
        deleted_overlength=len(ds) - len(keep),
        longest_kept=max((lengths[i] for i in keep), default=0),
        longest_seen=max(lengths, default=0),
    )
    return kept, counts
