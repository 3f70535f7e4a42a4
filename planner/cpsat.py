"""One CP-SAT solve of the ladder under a deterministic budget: KnowPlan, DegreeMap "Exact
planning" (the budget covers every stage of one solve; measured in CP-SAT's deterministic time so
that a loaded machine does not change what gets certified)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from planner.solver_config import SolverConfig


@dataclass
class Budget:
    """Deterministic seconds one ladder solve may spend, and the wall seconds it did."""

    total: float
    used: float = 0.0
    wall: float = 0.0
    solves: int = 0
    # The largest presolved model of the solve: variables and constraints as CP-SAT logs them.
    presolved: dict[str, int] = field(default_factory=dict)

    def left(self) -> float:
        return max(0.0, self.total - self.used)


@dataclass
class Outcome:
    status: int
    solution: list[int] | None  # every variable's value, by proto index
    objective: float | None
    bound: float | None
    deterministic_s: float

    @property
    def ok(self) -> bool:
        return self.status in (cp_model.OPTIMAL, cp_model.FEASIBLE)

    @property
    def proven(self) -> bool:
        return self.status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)

    def value(self, var: Any) -> int:
        """A variable's (or a constant's) value in the solution."""
        if isinstance(var, int):
            return var
        assert self.solution is not None
        return self.solution[var.Index()]


_PRESOLVED = re.compile(r"^Presolved .*?model", re.M)
_COUNT = re.compile(r"^#(k\w+|Variables): ([\d']+)", re.M)


def presolved_size(log: str) -> dict[str, int]:
    """Variables and constraints of the presolved model, from CP-SAT's log."""
    m = _PRESOLVED.search(log)
    if not m:
        return {}
    block = log[m.end() : log.find("\n\n", m.end())]
    out = {"variables": 0, "constraints": 0}
    for name, n in _COUNT.findall(block):
        out["variables" if name == "Variables" else "constraints"] += int(n.replace("'", ""))
    return out


def set_hint(model: cp_model.CpModel, values: dict[int, int]) -> None:
    """Replace the model's hint: proto index -> value (all variables: a complete hint)."""
    model.clear_hints()
    hint = model.proto.solution_hint
    idx = sorted(values)
    hint.vars.extend(idx)
    hint.values.extend(values[i] for i in idx)


def solve(
    model: cp_model.CpModel,
    cfg: SolverConfig,
    budget: Budget,
    *,
    limit: float | None = None,
    fix_hint: bool = False,
    log: bool = True,
) -> Outcome:
    """Solve within what is left of the budget (and `limit` deterministic seconds, if given).
    `fix_hint`: only complete the hint (every hinted variable fixed), the cheap way to get a
    full assignment from a partial one. `log`: record the presolved size in the budget (from
    CP-SAT's log, kept in the response, never printed)."""
    if budget.left() <= 0:
        return Outcome(cp_model.UNKNOWN, None, None, None, 0.0)
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = cfg.workers
    params.random_seed = cfg.random_seed
    for k, v in cfg.cp_sat.items():
        setattr(params, k, v)
    left = budget.left() if limit is None else min(budget.left(), limit)
    params.max_deterministic_time = max(left, 1e-3)
    if fix_hint:
        params.fix_variables_to_their_hinted_value = True
        params.num_workers = 1
    if log:
        params.log_search_progress = True
        params.log_to_stdout = False
        params.log_to_response = True
    t0 = time.monotonic()
    status = solver.Solve(model)
    budget.wall += time.monotonic() - t0
    budget.used += solver.deterministic_time
    budget.solves += 1
    if log:
        size = presolved_size(solver.solve_log)
        if size.get("variables", 0) > budget.presolved.get("variables", -1):
            budget.presolved = size
    ok = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    has_obj = ok and model.proto.has_objective()
    return Outcome(
        status,
        list(solver.response_proto.solution) if ok else None,
        solver.ObjectiveValue() if has_obj else None,
        solver.BestObjectiveBound() if has_obj else None,
        solver.deterministic_time,
    )
