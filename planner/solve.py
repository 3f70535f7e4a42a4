"""Lexicographic CP-SAT ladder and top-k plans: KnowPlan, DegreeMap "Exact planning"."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from planner.hypergraph import Hypergraph
from planner.model import Builder, Encoding
from planner.presolve import ge_framework_id
from planner.profile import Request
from planner.solver_config import SolverConfig
from planner.utility import course_utility, option_value


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


class _Ladder:
    """Runs stages on one model; each stage's proven optimum becomes a hard constraint."""

    def __init__(
        self,
        enc: Encoding,
        cfg: SolverConfig,
        utility: dict[str, float],
        option: dict[str, float],
        deadline: float,
    ) -> None:
        self.enc, self.cfg, self.deadline = enc, cfg, deadline
        g = enc.graph
        # Class utility: the best member (members are interchangeable for requirements).
        self.s_int = {
            k: round(cfg.utility_scale * max(utility[m] for m in g.members[k])) for k in enc.classes
        }
        self.o_int = {
            k: round(cfg.utility_scale * max(option[m] for m in g.members[k])) for k in enc.classes
        }
        self.values: dict[str, int] = {}
        self.times: dict[str, float] = {}
        self.solution: dict[tuple[str, int], int] | None = None
        self.fills: dict[str, list[str]] = {}
        self.dtime = 0.0

    def objective(self, stage: str) -> tuple[Any, bool]:
        e = self.enc
        if stage == "horizon":
            return sum(e.z.values()), False
        if stage == "load":
            return e.max_load, False
        if stage == "units":
            return e.total_units, False
        if stage == "utility":
            return sum(self.s_int[k] * e.taken[k] for k in e.classes), True
        if stage == "utility_option":
            # Utility then option value in one exact lexicographic objective: M exceeds any
            # attainable option sum, so no option gain can pay for a unit of utility. One proof
            # instead of two equal-utility searches (measured in benchmarks/results).
            o_small = {
                k: round(self.cfg.option_scale * v / self.cfg.utility_scale)
                for k, v in self.o_int.items()
            }
            big = sum(o_small.values()) + 1
            return sum((big * self.s_int[k] + o_small[k]) * e.taken[k] for k in e.classes), True
        if stage == "option":
            return sum(self.o_int[k] * e.taken[k] for k in e.classes), True
        if stage == "weighted":
            # The single scalarized alternative (KnowPlan Table 5, "Weighted sum").
            w = self.cfg.weighted_sum
            return (
                w["horizon"] * sum(e.z.values())
                + w["load"] * e.max_load
                - w["utility"] * self.objective("utility")[0]
                - w["option"] * self.objective("option")[0]
            ), False
        if stage == "tiebreak":
            # Earliest placement. Small coefficients keep the LP bound (prerequisite chains)
            # tight; per-course weights made this the slowest stage to prove. With one worker
            # and a fixed seed the remaining ties resolve reproducibly.
            return sum(t * v for (_, t), v in e.x.items()), False
        raise ValueError(f"unknown stage {stage}")

    def solve_stage(self, stage: str | None) -> tuple[int, str | None]:
        m = self.enc.model
        solver = cp_model.CpSolver()
        solver.parameters.num_search_workers = self.cfg.workers
        solver.parameters.random_seed = self.cfg.random_seed
        for k, v in self.cfg.cp_sat.items():
            setattr(solver.parameters, k, v)
        solver.parameters.max_time_in_seconds = max(0.01, self.deadline - time.monotonic())
        expr, maximize = None, False
        if stage == "tiebreak" and self.solution is not None:
            # The tie-break orders timing only. Selections tied on every earlier stage are
            # already tied, so the solver's (seeded, single-worker, reproducible) selection is
            # kept and this stage stays a pure scheduling proof instead of a packing search.
            picked = {self.enc.graph.class_of[c] for (c, _), v in self.solution.items() if v}
            for k in self.enc.classes:
                m.Add(self.enc.taken[k] == int(k in picked))
        if stage is not None:
            expr, maximize = self.objective(stage)
            (m.Maximize if maximize else m.Minimize)(expr)
        t0 = time.monotonic()
        status = solver.Solve(m)
        self.times[stage or "feasible"] = round(time.monotonic() - t0, 4)
        self.dtime += solver.deterministic_time
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            self.solution = {key: int(solver.Value(v)) for key, v in self.enc.x.items()}
            picked = {self.enc.graph.class_of[c] for (c, _), v in self.solution.items() if v}
            fills: dict[str, list[str]] = {}
            for path, cls, lit in self.enc.fills:
                used = cls in picked if lit is None else solver.Value(lit)
                if used and path not in fills.get(cls, []):
                    fills.setdefault(cls, []).append(path)
            self.fills = fills
            m.ClearHints()
            for key, v in self.enc.x.items():
                m.AddHint(v, self.solution[key])
            if stage is not None:
                value = round(solver.ObjectiveValue())
                self.values[stage] = value
                m.ClearObjective()
                # An inequality, not ==: it admits exactly the same solutions (value is the
                # proven optimum) but propagates and relaxes far better than an equality over
                # a large weighted sum.
                m.Add(expr >= value if maximize else expr <= value)
                if stage == "horizon":
                    # With the horizon fixed at F, the busiest term carries at least the average
                    # load: a redundant cut that lets the load stage close its bound.
                    m.Add(self.enc.max_load * max(value, 1) >= self.enc.total_units)
        return status, stage


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
) -> tuple[str, Plan | None]:
    """One ladder solve under one budget; status is ok | infeasible | unknown."""
    t0 = time.monotonic()
    enc = Builder(graph, request, cover_cuts=cfg.cover_cuts).build()
    for prev in exclude or []:
        # No-good plus Hamming diversity on the chosen classes: alternatives must differ in
        # *what* they schedule by at least min_hamming classes, not only in when.
        terms = [1 - enc.taken[k] if k in prev else enc.taken[k] for k in enc.classes]
        enc.model.Add(sum(terms) >= cfg.min_hamming)
    utility = course_utility(graph, request, interest_model=cfg.interest_model)
    ladder = _Ladder(enc, cfg, utility, option_value(graph), t0 + cfg.time_budget_s)
    uncertified: str | None = None
    status = cp_model.UNKNOWN
    for stage in stages if stages is not None else cfg.stages:
        status, _ = ladder.solve_stage(stage)
        if status == cp_model.INFEASIBLE:
            return "infeasible", None
        if status != cp_model.OPTIMAL:
            uncertified = stage
            break
    if not (stages if stages is not None else cfg.stages):
        status, _ = ladder.solve_stage(None)
        if status == cp_model.INFEASIBLE:
            return "infeasible", None
    if ladder.solution is None:
        return "unknown", None
    courses = _extract(enc, ladder.solution)
    loads: dict[int, float] = {}
    for pc in courses:
        loads[pc.term] = loads.get(pc.term, 0.0) + pc.units
    plan = Plan(
        rank=rank,
        courses=courses,
        certified=uncertified is None,
        uncertified_stage=uncertified,
        stage_values=ladder.values,
        terms_used=max((pc.term for pc in courses), default=0),
        max_load=max(loads.values(), default=0.0),
        utility=round(sum(utility[pc.course] for pc in courses), 4),
        solve_s=round(time.monotonic() - t0, 4),
        stage_times=ladder.times,
        deterministic_s=round(ladder.dtime, 3),
        fills={
            pc.course: ladder.fills.get(graph.class_of[pc.course], [])
            for pc in courses
            if ladder.fills.get(graph.class_of[pc.course])
        },
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
                    from planner.explain import explain_groups, groups_json, render_groups

                    # A request the ladder needed long to prove infeasible gets as long again
                    # for its explanation.
                    budget = max(cfg.explain_time_s, 2 * solve_s)
                    out = explain_groups(graph, request, cfg, min(budget, cfg.time_budget_s))
                    expl, causes = render_groups(out), groups_json(out)
                explain_s = round(time.monotonic() - t0 - solve_s, 4)
                return PlanResult(status, [], expl, issues, causes, solve_s, explain_s)
            break
        plans.append(plan)
        chosen.append({graph.class_of[pc.course] for pc in plan.courses})
    return PlanResult("ok", plans, [], issues, [], round(time.monotonic() - t0, 4))
