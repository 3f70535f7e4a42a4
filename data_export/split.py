"""Base-task-grouped hash split: WebRider Appendix E (hash of base_task_id, 8%, seed 20260606).

A record's side depends only on (seed, base_task_id), so every sibling persona contract of a base
task lands on the same side, across shards, machines and re-exports.
"""

from __future__ import annotations

import hashlib

DEFAULT_SEED = 20260606
DEFAULT_EVAL_FRACTION = 0.08
TRAIN, EVAL = "train", "eval"


def bucket(base_task_id: str, seed: int = DEFAULT_SEED) -> float:
    """Uniform in [0, 1): the first 8 bytes of sha256("<seed>\\0<base_task_id>")."""
    digest = hashlib.sha256(f"{seed}\0{base_task_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def assign(
    base_task_id: str, eval_fraction: float = DEFAULT_EVAL_FRACTION, seed: int = DEFAULT_SEED
) -> str:
    """'eval' for a base task whose bucket falls under eval_fraction, else 'train'."""
    if not 0.0 <= eval_fraction <= 1.0:
        raise ValueError(f"eval_fraction must be in [0, 1], got {eval_fraction}")
    return EVAL if bucket(base_task_id, seed) < eval_fraction else TRAIN


def split_warnings(n_train: int, n_eval: int, n_groups: int, eval_fraction: float) -> list[str]:
    """Plain-language warnings for degenerate splits (few base tasks make 8% round to nothing)."""
    out = []
    if eval_fraction > 0 and n_eval == 0:
        out.append(
            f"eval split is empty: {n_groups} base task(s) and eval fraction {eval_fraction:g} "
            "put no base task on the eval side; export more base tasks or raise --eval-fraction "
            "(the split is by base task, so it cannot be finer than one base task)"
        )
    if eval_fraction < 1 and n_train == 0 and n_eval > 0:
        out.append("train split is empty: every base task hashed to eval; lower --eval-fraction")
    return out
