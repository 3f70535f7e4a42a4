"""Targeted clarification: KnowPlan, DegreeMap "Targeted clarification"."""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, field

from planner.hypergraph import Hypergraph
from planner.profile import Request
from planner.solve import solve_ladder
from planner.solver_config import SolverConfig
from planner.utility import course_utility


@dataclass
class Clarification:
    question: str | None  # None: the optimum is invariant (or nothing is unknown), ask nothing
    dimension: str | None
    invariant: bool
    regret_reduction: dict[str, float] = field(default_factory=dict)


def _apply(req: Request, patch: dict) -> Request:
    return req.model_copy(update={**patch, "hypotheses": {}})


def clarify(
    graph: Hypergraph,
    request: Request,
    cfg: SolverConfig | None = None,
    costs: dict[str, float] | None = None,
) -> Clarification:
    """Solve under every finite hypothesis; ask the question with the largest expected regret
    reduction per unit of interaction cost, or nothing when every hypothesis agrees."""
    cfg = cfg or SolverConfig.load(top_k=1)
    dims = sorted(request.hypotheses)
    if not dims:
        return Clarification(None, None, True)
    combos = [
        dict(zip(dims, vals, strict=True))
        for vals in itertools.product(*[sorted(request.hypotheses[d]) for d in dims])
    ]
    reqs, plans = [], []
    for combo in combos:
        patch: dict = {}
        for d in dims:
            patch.update(request.hypotheses[d][combo[d]])
        r = _apply(request, patch)
        _, p = solve_ladder(graph, r, cfg)
        reqs.append(r)
        plans.append(frozenset((c.course, c.term) for c in p.courses) if p else None)
    if len(set(plans)) == 1:
        return Clarification(None, None, True)
    utils = [course_utility(graph, r, interest_model=cfg.interest_model) for r in reqs]

    def value(i: int, plan: frozenset | None) -> float:
        return -1e6 if plan is None else sum(utils[i][c] for c, _ in plan)

    def regret(idx: list[int]) -> float:
        # Commit to the single candidate plan that is best on average over these hypotheses.
        cands = {p for p in plans if p is not None} or {None}
        return min(statistics.mean(value(i, plans[i]) - value(i, p) for i in idx) for p in cands)

    base = regret(list(range(len(combos))))
    scores: dict[str, float] = {}
    for d in dims:
        after = statistics.mean(
            regret([i for i, c in enumerate(combos) if c[d] == v]) for v in request.hypotheses[d]
        )
        scores[d] = (base - after) / (costs or {}).get(d, 1.0)
    best = max(dims, key=lambda d: (scores[d], d))
    if scores[best] <= 0:
        return Clarification(None, None, False, scores)
    options = ", ".join(sorted(request.hypotheses[best]))
    return Clarification(f"Which best describes your {best}: {options}?", best, False, scores)
