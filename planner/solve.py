"""Lexicographic CP-SAT ladder and top-k plans: KnowPlan, DegreeMap "Exact planning" (the plan
types, one ladder solve, and the top-k plans of a request; the stages are planner/ladder.py)."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from planner.hypergraph import Hypergraph
from planner.ladder import Ladder
from planner.model import Encoding
from planner.presolve import ge_framework_id
from planner.profile import Request
from planner.solver_config import SolverConfig


@dataclass
class PlannedCourse:
    course: str
    term: int
    season: str
    units: float
    term_id: str | None = None  # the calendar term (e.g. "20141"), when the catalog has one
    term_label: str = ""


@dataclass
class Plan:
    rank: int
    courses: list[PlannedCourse]
    certified: bool
    uncertified_stage: str | None
    stage_values: dict[str, int]
    terms_used: int
    max_load: float
    utility: float
    solve_s: float
    stage_times: dict[str, float] = field(default_factory=dict)
    # CP-SAT's deterministic time over all stages: a load-independent measure of the work
    deterministic_s: float = 0.0
    # course -> requirement paths it fills in the solver's final assignment
    fills: dict[str, list[str]] = field(default_factory=dict)
    # the largest term-indexed model searched: classes, course x term variables,
    # constraints, build seconds, classes pruned, and CP-SAT's presolved size
    model: dict[str, Any] = field(default_factory=dict)

    def by_term(self) -> dict[int, list[PlannedCourse]]:
        out: dict[int, list[PlannedCourse]] = {}
        for pc in sorted(self.courses, key=lambda p: (p.term, p.course)):
            out.setdefault(pc.term, []).append(pc)
        return out


@dataclass
class PlanResult:
    status: str  # ok | infeasible | unknown
    plans: list[Plan]
    explanation: list[str] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)
    # the explanation grouped by requirement: [{requirement, source, causes: [{kind, text,
    # action}]}], each cause once
    causes: list[dict[str, Any]] = field(default_factory=list)
    solve_s: float = 0.0  # every ladder solve (top-k included), without the explanation
    explain_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _extract(enc: Encoding, sol: dict[tuple[str, int], int]) -> list[PlannedCourse]:
    g = enc.graph
    return [
        PlannedCourse(
            c,
            t,
            enc.slots[t].season,
            g.courses[c].units,
            enc.slots[t].calendar_id,
            enc.slots[t].label,
        )
        for (c, t), v in sorted(sol.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        if v
    ]


def solve_ladder(
    graph: Hypergraph,
    request: Request,
    cfg: SolverConfig,
    exclude: list[set[str]] | None = None,
    stages: list[str] | None = None,
    rank: int = 1,
    report: dict[str, Any] | None = None,
) -> tuple[str, Plan | None]:
    """One ladder solve under one budget; status is ok | infeasible | unknown. `report`, if
    given, receives the solve's model sizes and deterministic seconds, with or without a plan."""
    t0 = time.monotonic()
    ladder = Ladder(graph, request, cfg, exclude or [])
    status, uncertified = ladder.run(stages if stages is not None else cfg.stages)
    if report is not None:
        report.update(model=ladder.sizes(), deterministic_s=round(ladder.budget.used, 3))
    if status == cp_model.INFEASIBLE:
        return "infeasible", None
    if ladder.best is None:
        return "unknown", None
    best = ladder.best
    courses = _extract(best.enc, best.x())
    loads: dict[int, float] = {}
    for pc in courses:
        loads[pc.term] = loads.get(pc.term, 0.0) + pc.units
    fills = best.fills()
    plan = Plan(
        rank=rank,
        courses=courses,
        certified=uncertified is None,
        uncertified_stage=uncertified,
        stage_values=ladder.values,
        terms_used=max((pc.term for pc in courses), default=0),
        max_load=max(loads.values(), default=0.0),
        utility=round(sum(ladder.utility[pc.course] for pc in courses), 4),
        solve_s=round(time.monotonic() - t0, 4),
        stage_times=ladder.times,
        deterministic_s=round(ladder.budget.used, 3),
        fills={
            pc.course: fills.get(graph.class_of[pc.course], [])
            for pc in courses
            if fills.get(graph.class_of[pc.course])
        },
        model=ladder.sizes(),
    )
    return "ok", plan


def plan_request(
    graph: Hypergraph, request: Request, cfg: SolverConfig | None = None, explain: bool = True
) -> PlanResult:
    """Top-k certified plans, or an explanation when no plan exists."""
    cfg = cfg or SolverConfig.load()
    scope = [p for p in [request.program, *request.tracks] if p]
    fw = ge_framework_id(graph, request)
    scope += [fw] if fw else []
    # Only what concerns this request: the catalog's other programs' gaps are not its issues.
    issues = [f"{i.where}: {i.message}" for i in graph.issues if any(s in i.where for s in scope)]
    plans: list[Plan] = []
    chosen: list[set[str]] = []
    t0 = time.monotonic()
    for rank in range(1, cfg.top_k + 1):
        status, plan = solve_ladder(graph, request, cfg, exclude=chosen, rank=rank)
        if plan is None:
            if rank == 1:
                solve_s = round(time.monotonic() - t0, 4)
                expl: list[str] = []
                causes: list[dict[str, Any]] = []
                if status == "infeasible" and explain:
                    from planner.explain import explain_request

                    expl, causes = explain_request(graph, request, cfg, solve_s)
                explain_s = round(time.monotonic() - t0 - solve_s, 4)
                return PlanResult(status, [], expl, issues, causes, solve_s, explain_s)
            break
        plans.append(plan)
        chosen.append({graph.class_of[pc.course] for pc in plan.courses})
    return PlanResult("ok", plans, [], issues, [], round(time.monotonic() - t0, 4))
