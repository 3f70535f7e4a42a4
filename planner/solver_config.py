"""Settings of the lexicographic ladder: KnowPlan, DegreeMap "Exact planning" (budgets, stages)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

CONFIG = Path(__file__).parent / "config" / "solver.yaml"


@dataclass
class SolverConfig:
    horizon_terms: int = 12
    time_budget_s: float = 60.0
    workers: int = 1
    random_seed: int = 0
    top_k: int = 3
    min_hamming: int = 2
    utility_scale: int = 1000
    stages: list[str] = field(
        default_factory=lambda: ["horizon", "load", "utility", "option", "tiebreak"]
    )
    explain_extra_terms: int = 4
    explain_time_s: float = 30.0
    cp_sat: dict[str, Any] = field(default_factory=dict)
    cover_cuts: bool = True
    prune: bool = True  # exact dominance pruning of pool candidates (planner/prune.py)
    relaxation: bool = True  # horizon and load proven bound-first (planner/relax.py)
    relax_time_s: float = 5.0  # deterministic seconds per relaxation solve
    restricted_time_s: float = 2.0  # per schedule of one selection (an incumbent)
    hint_time_s: float = 1.0  # per completion of a hint
    cut_rounds: int = 100  # rounds of the relaxation's cutting-plane loop per stage
    search_slice_s: float = 5.0  # the model's own search inside a class-sum stage, first try
    search_max_x: int = 3000  # ... only on a model with at most this many x[c,t] variables
    packing_patterns: int = 0  # most packings of one term the relaxation enumerates (0: none)
    # The unpruned model that re-checks an infeasible verdict (planner/confirm.py): its own
    # deterministic seconds, and CpSolver parameters over `cp_sat`.
    confirm_time_s: float = 60.0
    confirm_cp_sat: dict[str, Any] = field(default_factory=dict)
    # The model size `pathwise bench planner` asserts for every ladder request.
    size_limit: dict[str, float] = field(default_factory=lambda: {"x": 3000, "build_s": 1.0})
    option_scale: int = 10
    weighted_sum: dict[str, int] = field(
        default_factory=lambda: {"horizon": 100000, "load": 2000, "utility": 10, "option": 1}
    )
    # `--interest-model`: the embedding I0 with this model, over utility.yaml's `interest` block.
    interest_model: str | None = None

    @classmethod
    def load(cls, path: str | Path = CONFIG, **overrides: Any) -> SolverConfig:
        data = {**_read_yaml(str(path)), **{k: v for k, v in overrides.items() if v is not None}}
        return cls(**data)


@lru_cache(maxsize=4)
def _read_yaml(path: str) -> dict[str, Any]:
    return yaml.safe_load(Path(path).read_text())
