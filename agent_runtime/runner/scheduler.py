"""Seeded scheduling with one active rollout per site: WebRider Appendix D, Tables 19-22.

Workers pull the next contract whose site is idle; a local Random derived from the run
seed orders the queue, so a rerun with the same seed visits contracts in the same order.
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def parse_shard(spec: str | None) -> tuple[int, int]:
    """'i/n' -> (i, n) with 0 <= i < n; None -> (0, 1)."""
    if not spec:
        return 0, 1
    try:
        i_s, n_s = spec.split("/")
        i, n = int(i_s), int(n_s)
    except ValueError:
        raise ValueError(f"--shard must look like i/n (e.g. 0/4), got {spec!r}") from None
    if n < 1 or not 0 <= i < n:
        raise ValueError(f"--shard {spec!r}: need 0 <= i < n")
    return i, n


def in_shard(key: str, shard: tuple[int, int]) -> bool:
    """Stable assignment by hash, so shards stay disjoint however the file is reordered."""
    i, n = shard
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:8], "big") % n == i


def seeded_order(items: Sequence[T], seed: int) -> list[T]:
    out = list(items)
    random.Random(seed).shuffle(out)
    return out


class SiteQueue:
    """A work queue that never hands out two items of the same site at once."""

    def __init__(self, items: Sequence[T], site_of: Callable[[T], str]) -> None:
        self._pending: list[T] = list(items)
        self._site_of = site_of
        self._active: set[str] = set()
        self._cv = threading.Condition()

    def take(self) -> T | None:
        with self._cv:
            while True:
                if not self._pending:
                    return None
                for idx, item in enumerate(self._pending):
                    site = self._site_of(item)
                    if site not in self._active:
                        self._active.add(site)
                        return self._pending.pop(idx)
                self._cv.wait()

    def done(self, item: T) -> None:
        with self._cv:
            self._active.discard(self._site_of(item))
            self._cv.notify_all()
