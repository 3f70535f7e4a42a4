"""Action scoring: KnowPlan, Eq. 2 (LCB of expected obligation gain per unit of source access).

Expected gain of an action = sum of v_o over the open obligations it could discharge, times
p(o | kind). p is a Beta posterior over how often actions of this kind discharged what they
targeted; its lower confidence bound discounts kinds with little evidence (a conservatism
device, not an exploration bonus). Ties break on kind order, then URL.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from catalogbrowse.state import Obligation

CONFIG = Path(__file__).with_name("config") / "catalogbrowse.yaml"
KIND_ORDER = ("section", "cursor", "entity", "inferred")


def load_config(path: str | Path = CONFIG) -> dict:
    return yaml.safe_load(Path(path).read_text())


@dataclass
class Action:
    url: str
    kind: str
    targets: list[str] = field(default_factory=list)
    gain: float = 0.0
    score: float = 0.0


class Scorer:
    def __init__(self, cfg: dict) -> None:
        self.cfg = cfg
        self.stats = {k: list(v) for k, v in cfg["priors"].items()}  # [successes, failures]

    def lcb(self, kind: str) -> float:
        a, b = self.stats[kind]
        mean = a / (a + b)
        return max(0.0, mean - self.cfg["lcb_z"] * math.sqrt(mean * (1 - mean) / (a + b + 1)))

    def observe(self, kind: str, success: bool) -> None:
        self.stats[kind][0 if success else 1] += 1

    def actions(self, obligations: dict[str, Obligation], kinds: dict[str, str]) -> list[Action]:
        """Legal actions (URLs some open obligation names), scored and best first."""
        values = self.cfg["values"]
        by_url: dict[str, Action] = {}
        for o in obligations.values():
            if o.done:
                continue
            for url in o.candidates:
                kind = kinds.get(url, "inferred")
                act = by_url.setdefault(url, Action(url, kind))
                act.targets.append(o.key)
                act.gain += values[o.kind]
        for act in by_url.values():
            act.score = self.lcb(act.kind) * act.gain / self.cfg["costs"][act.kind]
        return sorted(by_url.values(), key=lambda a: (-a.score, KIND_ORDER.index(a.kind), a.url))
