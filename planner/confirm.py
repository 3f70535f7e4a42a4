"""An infeasible verdict checked by the plain model: KnowPlan, DegreeMap "Exact planning" (a
student told that no plan exists must be told so by a proof, not by a bound).

The ladder proves most requests infeasible through its relaxation or a pruned model. Both are
exact by argument (planner/relax.py, planner/prune.py); this check does not rely on either
argument: it builds the term-indexed model over every relevant class (no relaxation, no
pruning) and asks CP-SAT, within a budget of its own, whether any plan exists.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Literal

from ortools.sat.python import cp_model
from pydantic import BaseModel

from planner.cpsat import Budget, solve
from planner.hypergraph import Hypergraph
from planner.model import Builder
from planner.profile import Request
from planner.solver_config import SolverConfig


class Confirmation(BaseModel):
    """What the unpruned model said: `confirmed` (no plan, proven), `refuted` (it found a
    plan: the verdict was wrong), `unknown` (no proof within the budget)."""

    status: Literal["confirmed", "refuted", "unknown"]
    deterministic_s: float
    wall_s: float
    x: int  # course x term variables of the unpruned model


def confirm_infeasible(graph: Hypergraph, request: Request, cfg: SolverConfig) -> Confirmation:
    """Whether the unpruned term-indexed model proves the request infeasible within
    `cfg.confirm_time_s` deterministic seconds of its own, with `cfg.confirm_cp_sat` over the
    ladder's CP-SAT parameters (a proof of no plan wants probing, a plan search does not)."""
    t0 = time.monotonic()
    enc = Builder(graph, request, cover_cuts=cfg.cover_cuts).build()
    budget = Budget(cfg.confirm_time_s)
    own = replace(cfg, cp_sat={**cfg.cp_sat, **cfg.confirm_cp_sat})
    out = solve(enc.model, own, budget, log=False)
    status: Literal["confirmed", "refuted", "unknown"] = (
        "confirmed" if out.status == cp_model.INFEASIBLE else "refuted" if out.ok else "unknown"
    )
    return Confirmation(
        status=status,
        deterministic_s=round(budget.used, 3),
        wall_s=round(time.monotonic() - t0, 3),
        x=len(enc.x),
    )
