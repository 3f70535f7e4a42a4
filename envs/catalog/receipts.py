"""Hash-chained receipts: KnowPlan, "State and observability" (precommitted source access).

A `commit` receipt seals an action before anything is revealed: seal = sha256 of the canonical
JSON of (action, state hash, time). A `reveal` receipt then records what the snapshot released for
that seal (URL, status, sha256 and size of the bytes). Each receipt's hash covers its fields and
the previous receipt's hash, so editing, dropping or reordering any receipt breaks the chain.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

GENESIS = "0" * 64


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def seal_of(action: dict[str, Any], state: str, time: str) -> str:
    return hashlib.sha256(
        canonical({"action": action, "state": state, "time": time}).encode()
    ).hexdigest()


class Receipt(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seq: int
    type: Literal["commit", "reveal"]
    seal: str
    prev: str
    hash: str = ""
    action: dict[str, Any] | None = None  # commit
    state: str | None = None  # commit
    time: str | None = None  # commit
    url: str | None = None  # reveal
    status: int | None = None  # reveal
    sha256: str | None = None  # reveal
    bytes: int | None = None  # reveal

    def compute_hash(self) -> str:
        body = self.model_dump(exclude={"hash"})
        return hashlib.sha256(canonical(body).encode()).hexdigest()


def chain_errors(receipts: list[Receipt]) -> list[str]:
    """Every break in the chain: sequence, links, hashes, seals, reveals without a commit."""
    errors: list[str] = []
    prev = GENESIS
    commits: dict[str, Receipt] = {}
    revealed: set[str] = set()
    for i, r in enumerate(receipts):
        where = f"receipt {i}"
        if r.seq != i:
            errors.append(f"{where}: seq {r.seq}, expected {i}")
        if r.prev != prev:
            errors.append(f"{where}: prev does not match the hash of receipt {i - 1}")
        if r.hash != r.compute_hash():
            errors.append(f"{where}: hash does not match its contents (tampered)")
        if r.type == "commit":
            if r.action is None or r.state is None or r.time is None:
                errors.append(f"{where}: commit without action, state or time")
            elif seal_of(r.action, r.state, r.time) != r.seal:
                errors.append(f"{where}: seal is not sha256(action, state, time)")
            commits[r.seal] = r
        else:
            c = commits.get(r.seal)
            if c is None:
                errors.append(f"{where}: reveal without an earlier commit (unsealed open)")
            elif (c.action or {}).get("url") != r.url:
                errors.append(f"{where}: revealed {r.url!r}, but the seal committed to another URL")
            if r.seal in revealed:
                errors.append(f"{where}: seal revealed twice")
            revealed.add(r.seal)
        prev = r.hash
    return errors


def read_receipts(path) -> list[Receipt]:
    from pathlib import Path

    out = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if line.strip():
            try:
                out.append(Receipt.model_validate_json(line))
            except ValueError as exc:
                raise ValueError(
                    f"{path}: line {n}: not a receipt: {str(exc).splitlines()[0]}"
                ) from None
    return out
