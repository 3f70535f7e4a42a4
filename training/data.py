"""SFT dataset loading and overlength deletion: WebRider Appendix E, Table 37 (data pipeline row).

Datasets come from disk only (``load_from_disk`` of a DatasetDict written by data_export). Examples
longer than the recipe's max length are deleted, never truncated (a truncated Action AST would teach
invalid JSON), and the deletions are counted per split.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
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


def balanced_indices(values: list[str], seed: int) -> list[int]:
    """Indices of a same-size resample in which every distinct value is equally frequent.

    Each value's rows are drawn in a seeded random order, cycled when the value is rarer than
    its share (repeats) and cut when commoner (a subset). The order is grouped by value; the
    trainer shuffles.
    """
    groups: dict[str, list[int]] = {}
    for i, v in enumerate(values):
        groups.setdefault(v, []).append(i)
    rng = random.Random(seed)
    out: list[int] = []
    for k, name in enumerate(sorted(groups)):
        rows = groups[name][:]
        rng.shuffle(rows)
        share = len(values) // len(groups) + (k < len(values) % len(groups))
        out.extend(rows[j % len(rows)] for j in range(share))
    return out


def balance_split(ds, column: str, seed: int, where: str):
    """`ds` resampled so each value of `column` is equally frequent; (dataset, counts before)."""
    if column not in ds.column_names:
        raise ValueError(
            f"data.balance_by: {where} has no column {column!r} (it has {ds.column_names}); "
            "re-export the dataset with the current exporter or drop balance_by"
        )
    values = [str(v) for v in ds[column]]
    before = dict(sorted(Counter(values).items()))
    return ds.select(balanced_indices(values, seed), keep_in_memory=True), before


def load_splits(
    path: str | Path,
    train_split: str,
    eval_split: str | None,
    balance_by: str | None = None,
    seed: int = 0,
):
    """Load the DatasetDict and keep only the columns TRL trains on.

    With `balance_by`, the train split is first resampled so each value of that column is
    equally frequent (the eval split is never touched).
    """
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
        if balance_by and name == train_split:
            ds, before = balance_split(ds, balance_by, seed, f"dataset {path} split '{name}'")
            log.warning(
                "split %s balanced by %s: %s -> %d rows each way",
                name,
                balance_by,
                before,
                len(ds) // max(len(before), 1),
            )
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


def delete_overlength(
    ds,
    length: Callable[[dict[str, Any]], int],
    max_length: int,
    workers: int,
    cache: Path | None = None,
):
    """Drop examples longer than max_length; return (kept dataset, counts).

    The lengths are one pass that keeps only a length column (no copy of the images), written to
    `cache` when given: the launcher measures on the main process first and every other rank
    reads that file instead of measuring again.
    """
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
    lengths = ds.map(
        lambda ex: {"n_tokens": length(ex)},
        remove_columns=ds.column_names,
        num_proc=workers if workers > 1 else None,
        cache_file_name=str(cache) if cache is not None else None,
        keep_in_memory=cache is None,
        desc="measuring token lengths",
    )["n_tokens"]
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
