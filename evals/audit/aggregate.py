"""Label aggregation: WebRider Appendix G, "Blinding and aggregation", PCS and HCP.

A step's ratings aggregate to yes or no by a strict majority of its judgeable (yes/no)
ratings; a yes/no tie, or no judgeable rating, is CJ. A pair's preferences aggregate to A, B
or neither by a strict majority of its judgeable ratings; any other disagreement is a tie; a
pair with only cannot-judge ratings is CJ. PCS_r = |C_r| / |J_r| over aggregated steps, CJ when
no step is judgeable. Net HCP = (n_A - n_B) / N with ties and neither kept in N.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel


def step_majority(ratings: Iterable[str]) -> str:
    judged = [r for r in ratings if r in ("yes", "no")]
    yes = judged.count("yes")
    if 2 * yes > len(judged):
        return "yes"
    if 2 * (len(judged) - yes) > len(judged):
        return "no"
    return "cj"


def pair_majority(ratings: Iterable[str]) -> str:
    judged = [r for r in ratings if r != "cj"]
    if not judged:
        return "cj"
    label, count = Counter(judged).most_common(1)[0]
    if 2 * count > len(judged) and label in ("A", "B", "neither"):
        return label
    return "tie"


class RolloutPCS(BaseModel):
    consistent: int
    judgeable: int
    cj_steps: int

    @property
    def pcs(self) -> float | None:
        return self.consistent / self.judgeable if self.judgeable else None


def rollout_pcs(aggregated: Iterable[str]) -> RolloutPCS:
    agg = list(aggregated)
    return RolloutPCS(
        consistent=agg.count("yes"),
        judgeable=agg.count("yes") + agg.count("no"),
        cj_steps=agg.count("cj"),
    )


class HCPCounts(BaseModel):
    a: int = 0
    b: int = 0
    tie: int = 0
    neither: int = 0
    cj: int = 0

    @property
    def n(self) -> int:
        """All-pair denominator: true cannot-judge packets are left out, ties and neither kept."""
        return self.a + self.b + self.tie + self.neither

    @property
    def net(self) -> float | None:
        return (self.a - self.b) / self.n if self.n else None


def hcp_counts(outcomes: Iterable[str]) -> HCPCounts:
    c = Counter(outcomes)
    return HCPCounts(a=c["A"], b=c["B"], tie=c["tie"], neither=c["neither"], cj=c["cj"])
