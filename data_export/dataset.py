"""Split generators to a Hugging Face DatasetDict via save_to_disk (load_from_disk reads it)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


def save_splits(
    splits: dict[str, Callable[[], Iterable[dict[str, Any]]]],
    features: Any,
    dest: Path,
    scratch: Path,
) -> dict[str, int]:
    """Materialise each split from its generator (streamed to Arrow in `scratch`), save to `dest`.

    Returns the row count per split. `scratch` is deleted afterwards.
    """
    from datasets import Dataset, DatasetDict
    from datasets.utils import logging as ds_logging

    bars_were_on = ds_logging.is_progress_bar_enabled()
    ds_logging.disable_progress_bar()  # callers show their own progress
    sizes: dict[str, int] = {}
    dd = {}
    try:
        for name, gen in splits.items():
            rows = iter(gen())
            first = next(rows, None)
            if first is None:
                ds = Dataset.from_dict({k: [] for k in features}, features=features)
            else:

                def chained(first=first, rows=rows):
                    yield first
                    yield from rows

                ds = Dataset.from_generator(
                    chained,
                    features=features,
                    cache_dir=str(scratch),
                    fingerprint=uuid.uuid4().hex,  # never reuse a cache; skip hashing the data
                    split=name,
                )
            sizes[name] = len(ds)
            dd[name] = ds
        # An empty split would be saved with zero shards, which load_from_disk cannot read back.
        empty = {name: 1 for name, n in sizes.items() if n == 0}
        DatasetDict(dd).save_to_disk(str(dest), num_shards=empty or None)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if bars_were_on:
            ds_logging.enable_progress_bar()
    return sizes
