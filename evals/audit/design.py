"""Study design: WebRider Appendix G, Table 30 and "Blinding and aggregation".

Pairs are drawn from the contracts both arms finished; the first `anchors` go to every rater,
the rest to `coverage_raters` raters each (the least-loaded slots, seeded tie-break). Each
packet-rater assignment gets its own seeded left/right draw, balanced within every rater's
queue so a side bias cannot favour one arm; each rater's queue is in its own seeded order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

PairKind = Literal["anchor", "coverage"]


class PlannedPair(BaseModel):
    pair_id: int
    contract_id: str
    kind: PairKind


class Assignment(BaseModel):
    slot: int
    pair_id: int
    position: int
    a_left: bool


class DesignError(ValueError):
    """The arms cannot supply the requested study."""


def choose_pairs(
    shared: Sequence[str], n: int, anchors: int, rng: random.Random
) -> list[PlannedPair]:
    pool = sorted(set(shared))
    if n > len(pool):
        raise DesignError(
            f"--pairs {n} asks for more pairs than the {len(pool)} contracts both arms finished"
        )
    chosen = rng.sample(pool, n)
    return [
        PlannedPair(pair_id=i + 1, contract_id=cid, kind="anchor" if i < anchors else "coverage")
        for i, cid in enumerate(chosen)
    ]


def assign(
    pairs: Sequence[PlannedPair], raters: int, coverage_raters: int, rng: random.Random
) -> list[Assignment]:
    """Rater slots 1..raters; every anchor to all, every coverage pair to `coverage_raters`."""
    slots = list(range(1, raters + 1))
    queues: dict[int, list[int]] = {s: [] for s in slots}
    for p in pairs:
        if p.kind == "anchor":
            chosen = slots
        else:
            ties = {s: rng.random() for s in slots}
            chosen = sorted(slots, key=lambda s: (len(queues[s]), ties[s]))[:coverage_raters]
        for s in chosen:
            queues[s].append(p.pair_id)
    out: list[Assignment] = []
    for s in slots:
        queue = queues[s]
        rng.shuffle(queue)
        n = len(queue)
        sides = [True] * (n // 2) + [False] * (n // 2)
        if n % 2:
            sides.append(rng.random() < 0.5)
        rng.shuffle(sides)
        out += [
            Assignment(slot=s, pair_id=pid, position=i + 1, a_left=left)
            for i, (pid, left) in enumerate(zip(queue, sides, strict=True))
        ]
    return out
