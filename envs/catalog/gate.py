"""The precommit gate: KnowPlan, "State and observability" and "Controls" (budgets 128 / 32).

The only way to a snapshot's bytes. An open must be sealed first (commit receipt); the page is
released once per seal, for exactly the committed URL, and its reveal receipt is chained after.
Page opens and model calls are paid at commit time against the school's budgets.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from envs.catalog.receipts import GENESIS, Receipt, seal_of
from envs.catalog.snapshot import Snapshot, sha256

PAGE_BUDGET = 128
MODEL_BUDGET = 32


class GateRefusal(Exception):
    """The gate will not do this (unsealed open, reused seal, budget exhausted, bad action)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Budgets:
    pages: int | None = PAGE_BUDGET  # None: no budget (the exhaustive reference crawler)
    model_calls: int | None = MODEL_BUDGET


class Gate:
    def __init__(self, snapshot: Snapshot, budgets: Budgets | None = None) -> None:
        self.snapshot = snapshot
        self.budgets = budgets or Budgets()
        self.receipts: list[Receipt] = []
        self.pending: dict[str, str] = {}  # seal -> committed URL, not yet revealed
        self.used = {"open": 0, "model": 0}
        self._lock = threading.Lock()

    def _append(self, r: Receipt) -> Receipt:
        r.prev = self.receipts[-1].hash if self.receipts else GENESIS
        r.seq = len(self.receipts)
        r.hash = r.compute_hash()
        self.receipts.append(r)
        return r

    def commit(self, action: dict, state: str, time: str) -> Receipt:
        kind = action.get("kind")
        if kind not in ("open", "model"):
            raise GateRefusal(400, f"unknown action kind {kind!r} (open | model)")
        if kind == "open" and not isinstance(action.get("url"), str):
            raise GateRefusal(400, "an open action needs a url")
        limit = self.budgets.pages if kind == "open" else self.budgets.model_calls
        with self._lock:
            if limit is not None and self.used[kind] >= limit:
                raise GateRefusal(
                    429, f"budget exhausted: {self.used[kind]} of {limit} {kind}s used"
                )
            self.used[kind] += 1
            seal = seal_of(action, state, time)
            r = self._append(
                Receipt(
                    seq=0, type="commit", seal=seal, prev="", action=action, state=state, time=time
                )
            )
            if kind == "open":
                self.pending[seal] = action["url"]
            return r

    def reveal(self, url: str, seal: str | None) -> tuple[Receipt, int, bytes, str]:
        with self._lock:
            if not seal:
                raise GateRefusal(403, "precommit required: seal the open at /_gate/commit first")
            committed = self.pending.get(seal)
            if committed is None:
                raise GateRefusal(403, "unknown or already used seal")
            if committed != url:
                raise GateRefusal(403, f"the seal commits to {committed!r}, not {url!r}")
            del self.pending[seal]
            status, body, ctype = self.snapshot.get(url)
            r = self._append(
                Receipt(
                    seq=0,
                    type="reveal",
                    seal=seal,
                    prev="",
                    url=url,
                    status=status,
                    sha256=sha256(body),
                    bytes=len(body),
                )
            )
            return r, status, body, ctype
