"""Lexicographic CP-SAT ladder and top-k plans: KnowPlan, DegreeMap "Exact planning".

Each stage fixes its proven optimum before the next one runs. Horizon and load are proven
bound-first: the time-free relaxation (planner/relax.py) rules out every shorter horizon or
lighter load it can, a schedule of the relaxation's own course selection is tried at the bound,
and only when that fails does the term-indexed model search, warm-started and told the bound.
Later stages are built at the proven horizon and load, over the classes exact dominance pruning
keeps (planner/prune.py), each warm-started with a complete hint from the previous solution.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from planner.cpsat import Budget, Outcome, set_hint, solve
from planner.greedy import greedy_plan
from planner.hypergraph import Hypergraph
from planner.model import Builder, Encoding
from planner.presolve import Prepared, ge_framework_id, prepare
from planner.profile import Request
from planner.prune import Roles, analyse_roles, bound_capacity, candidates, prune
from planner.prune import _Normalizer as Normalizer
from planner.relax import Relaxation
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


@dataclass
class _Solution:
    """A solved model: which encoding, and the values of its variables."""

    enc: Encoding
    out: Outcome

    def x(self) -> dict[tuple[str, int], int]:
        return {key: self.out.value(v) for key, v in self.enc.x.items()}

    def picked(self) -> set[str]:
        return {self.enc.graph.class_of[c] for (c, _), v in self.x().items() if v}

    def loads(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for (c, t), v in self.x().items():
            if v:
                out[t] = out.get(t, 0) + round(self.enc.graph.courses[c].units * self.enc.scale)
        return out

    def terms_used(self) -> int:
        return max(self.loads(), default=0)

    def max_load(self) -> int:
        return max(self.loads().values(), default=0)

    def fills(self) -> dict[str, list[str]]:
        picked = self.picked()
        fills: dict[str, list[str]] = {}
        for path, cls, lit in self.enc.fills:
            used = cls in picked if lit is None else self.out.value(lit)
            if used and path not in fills.get(cls, []):
                fills.setdefault(cls, []).append(path)
        return fills


class _Ladder:
    """Runs the stages of one request; each stage's proven optimum bounds the next."""

    def __init__(
        self,
        graph: Hypergraph,
        request: Request,
        cfg: SolverConfig,
        exclude: list[set[str]],
    ) -> None:
        self.g, self.r, self.cfg = graph, request, cfg
        self.prep: Prepared = prepare(graph, request)
        self.budget = Budget(cfg.time_budget_s)
        self.exclude = exclude
        self.utility = course_utility(graph, request, interest_model=cfg.interest_model)
        option = option_value(graph)
        p = self.prep
        # Class utility: the best member (members are interchangeable for requirements).
        every = sorted(p.rel - p.done)
        us = cfg.utility_scale
        self.s_int = {k: round(us * max(self.utility[m] for m in graph.members[k])) for k in every}
        self.o_int = {k: round(us * max(option[m] for m in graph.members[k])) for k in every}
        self.o_small = {k: round(cfg.option_scale * v / us) for k, v in self.o_int.items()}
        # Over every relevant class, so that pruning does not change the objective's scale.
        self.big = sum(self.o_small.values()) + 1
        self.roles: Roles | None = (
            analyse_roles(graph, p.exprs, p.rel, p.done, p.scale) if cfg.prune else None
        )
        self._cands: dict[tuple[int, bool], Any] = {}
        self.values: dict[str, int] = {}
        self.times: dict[str, float] = {}
        self.F: int | None = None  # proven horizon
        self.L: int | None = None  # proven load (scaled units)
        self.best: _Solution | None = None
        # What the ladder builds (see sizes()).
        self.largest: dict[str, Any] = {}
        self.relaxed: dict[str, int] = {}
        self.pruned = 0
        self.build_s = self.max_build_s = 0.0
        self.M: Encoding | None = None  # the term-indexed model of the later stages
        self.M_restricted = False  # M holds only the optimal selection (see _class_stage)
        self.M_key: tuple[int | None, int | None] = (None, None)  # (F, L) M was built at
        self.fixed: list[tuple[str, int]] = []  # later stages proven, with their optima
        self.bounds: dict[str, int] = {}  # relaxation optima of class-sum stages
        self.fewest = 0  # a lower bound on the units of any plan (scaled)

    # -- models ---------------------------------------------------------------------------

    def _pruned(self, horizon: int, load_cap: int | None, values: bool) -> set[str]:
        roles, p = self.roles, self.prep
        if roles is None:
            return set()
        key = (horizon, values)
        if key not in self._cands:
            norm = Normalizer(
                self.g, p.done, p.done_units, set(self.r.consents), p.acknowledged, p.scale
            )
            value = (lambda k: (self.s_int[k], self.o_int[k])) if values else None
            self._cands[key] = candidates(
                self.g, p.rel - p.done, roles, p.start, p.slots, horizon, norm, p.scale, value
            )
        cap = lambda t: p.caps[t] if load_cap is None else min(p.caps[t], load_cap)  # noqa: E731
        mandatory = sum(round(self.g.class_units(k) * p.scale) for k in roles.mandatory)
        room = sum(cap(t) for t in range(1, horizon + 1)) - mandatory
        unavailable = set().union(*self.exclude) if self.exclude else set()
        return prune(self._cands[key], roles, bound_capacity(room), unavailable)

    def _timed(
        self,
        horizon: int,
        load_cap: int | None = None,
        keep: set[str] | None = None,
        values: bool = False,
    ) -> Encoding:
        """The term-indexed model within `horizon` terms and `load_cap`; over `keep` only (a
        restricted model for an incumbent), else over what pruning keeps."""
        p = self.prep
        full = keep is None
        t0 = time.monotonic()
        pruned: set[str] = set()
        if full:
            pruned = self._pruned(horizon, load_cap, values)
            keep = p.rel - pruned if pruned else None
        enc = Builder(
            self.g,
            self.r,
            horizon=horizon,
            cover_cuts=self.cfg.cover_cuts,
            prep=p,
            keep=keep,
            load_cap=load_cap,
        ).build()
        for prev in self.exclude:
            # No-good plus Hamming diversity on the chosen classes: alternatives must differ
            # in *what* they schedule by at least min_hamming classes, not only in when. A
            # class without variables here counts as not taken, as in the unpruned model.
            terms = [1 - enc.taken.get(k, 0) for k in sorted(prev)]
            terms += [enc.taken[k] for k in enc.classes if k not in prev]
            enc.model.Add(sum(terms) >= self.cfg.min_hamming)
        self._built(time.monotonic() - t0)
        size = enc.size()
        if size["x"] > self.largest.get("x", -1):
            self.largest = {**size, "kind": "pruned" if full else "selection"}
        if full:
            self.pruned = max(self.pruned, len(pruned))
        return enc

    def _relaxation(
        self, horizon: int, load_cap: int | None = None, timed: bool = True
    ) -> Relaxation:
        t0 = time.monotonic()
        rel = Relaxation(
            self.prep,
            horizon,
            load_cap,
            exclude=self.exclude,
            min_hamming=self.cfg.min_hamming,
            timed=timed,
        )
        rel.build()
        self._built(time.monotonic() - t0)
        proto = rel.m.Proto()
        if len(proto.variables) > self.relaxed.get("variables", -1):
            self.relaxed = {
                "classes": len(rel.enc.classes),
                "variables": len(proto.variables),
                "constraints": len(proto.constraints),
            }
        return rel

    def _built(self, seconds: float) -> None:
        self.build_s += seconds
        self.max_build_s = max(self.max_build_s, seconds)

    def sizes(self) -> dict[str, Any]:
        """What the ladder built: its largest term-indexed model (`kind` pruned: over the
        classes pruning kept; selection: over one selection), classes pruned, its largest
        relaxation, seconds spent building models (all, and the longest), and the largest
        model CP-SAT presolved."""
        return {
            **self.largest,
            "pruned": self.pruned,
            "relaxation": self.relaxed,
            "build_s": round(self.max_build_s, 3),
            "build_total_s": round(self.build_s, 3),
            "presolved": self.budget.presolved,
        }

    def _hint(self, enc: Encoding, x: dict[tuple[str, int], int]) -> None:
        """A complete hint for `enc` from a course x term assignment: the assignment fixed,
        the auxiliary variables completed by one cheap solve (CP-SAT prefers complete hints)."""
        partial = {v.Index(): x.get(key, 0) for key, v in enc.x.items()}
        set_hint(enc.model, partial)
        out = solve(enc.model, self.cfg, self.budget, limit=self.cfg.hint_time_s, fix_hint=True)
        if out.ok and out.solution is not None:
            set_hint(enc.model, dict(enumerate(out.solution)))

    def _objective(self, enc: Encoding, stage: str) -> tuple[Any, bool]:
        if stage == "horizon":
            return sum(enc.z.values()), False
        if stage == "load":
            return enc.max_load, False
        if stage == "units":
            return enc.total_units, False
        if stage == "utility":
            return sum(self.s_int[k] * enc.taken[k] for k in enc.classes), True
        if stage == "utility_option":
            # Utility then option value in one exact lexicographic objective: `big` exceeds
            # any attainable option sum, so no option gain can pay for a unit of utility.
            return (
                sum(
                    (self.big * self.s_int[k] + self.o_small[k]) * enc.taken[k] for k in enc.classes
                ),
                True,
            )
        if stage == "option":
            return sum(self.o_int[k] * enc.taken[k] for k in enc.classes), True
        if stage == "weighted":
            # The single scalarized alternative (KnowPlan Table 5, "Weighted sum").
            w = self.cfg.weighted_sum
            return (
                w["horizon"] * sum(enc.z.values())
                + w["load"] * enc.max_load
                - w["utility"] * self._objective(enc, "utility")[0]
                - w["option"] * self._objective(enc, "option")[0]
            ), False
        if stage == "tiebreak":
            # Earliest placement. Small coefficients keep the LP bound (prerequisite chains)
            # tight; per-course weights made this the slowest stage to prove.
            return sum(t * v for (_, t), v in enc.x.items()), False
        raise ValueError(f"unknown stage {stage}")

    # -- stages ---------------------------------------------------------------------------

    def _schedule(
        self, keep: set[str], horizon: int, load_cap: int | None, stage: str
    ) -> _Solution | None:
        """A plan over `keep` alone (a selection the relaxation chose), optimizing `stage`
        (horizon or load) within the limits: an incumbent, proven only by a bound."""
        enc = self._timed(horizon, load_cap, keep=keep | self.prep.done)
        expr, _ = self._objective(enc, stage)
        enc.model.Minimize(expr)
        out = solve(enc.model, self.cfg, self.budget, limit=self.cfg.restricted_time_s)
        return _Solution(enc, out) if out.ok else None

    def _fewest_units(
        self, horizon: int, load_cap: int | None, timed: bool = False
    ) -> tuple[Outcome, Relaxation]:
        rel = self._relaxation(horizon, load_cap, timed=timed)
        rel.m.Minimize(rel.total)
        return solve(rel.m, self.cfg, self.budget, limit=self.cfg.relax_time_s), rel

    def _mandatory(self) -> set[str]:
        p = self.prep
        roles = self.roles or analyse_roles(self.g, p.exprs, p.rel, p.done, p.scale)
        return roles.mandatory

    def _room(self, horizon: int, load_cap: int | None) -> int:
        """Units the first `horizon` terms hold under their caps (and `load_cap`)."""
        p = self.prep
        return sum(
            p.caps[t] if load_cap is None else min(p.caps[t], load_cap)
            for t in range(1, horizon + 1)
        )

    def _decide(self, horizon: int, load_cap: int | None, stage: str) -> int:
        """Whether some plan fits `horizon` terms under `load_cap`, cheapest proof first: the
        relaxation without term variables; a schedule of its selection; the relaxation with
        them (and a schedule of its selection); the term-indexed model itself. A plan found
        becomes the incumbent."""
        tiers: list[bool] = [False, True]
        for timed in tiers:
            rel = self._relaxation(horizon, load_cap, timed=timed)
            limit = self.cfg.relax_time_s if not timed else self.cfg.timed_relax_s
            out = solve(rel.m, self.cfg, self.budget, limit=limit)
            if out.status == cp_model.INFEASIBLE:
                return cp_model.INFEASIBLE
            if out.ok:
                sel = {k for k in rel.enc.classes if out.value(rel.taken[k])}
                inc = self._schedule(sel, horizon, load_cap, stage)
                if inc is not None:
                    self.best = inc
                    return cp_model.FEASIBLE
        enc = self._timed(horizon, load_cap)
        if self.best is not None:
            self._hint(enc, self.best.x())
        else:
            # Nothing scheduled yet: the greedy plan seeds the search.
            self._hint(enc, dict.fromkeys(greedy_plan(self.g, self.r, self.utility), 1))
        out = solve(enc.model, self.cfg, self.budget)
        if out.ok:
            self.best = _Solution(enc, out)
            return cp_model.FEASIBLE
        return out.status

    def _up(self, stage: str, lo: int, top: int) -> int:
        """The first of lo, lo + 1, ... below the incumbent's `top` where a plan fits is the
        optimum (each below it proven infeasible); `top` when none (the incumbent's). Each is
        its own feasibility question on a model that size (measured faster than minimizing
        over the incumbent's model)."""
        p = self.prep
        # Without an incumbent the top itself is undecided too.
        for v in range(lo, top + (self.best is None)):
            h, cap = (v, None) if stage == "horizon" else (self.F or p.hmax, v)
            status = self._decide(h, cap, stage)
            if status == cp_model.INFEASIBLE:
                continue
            if status != cp_model.FEASIBLE:
                return status
            return self._proved(stage, v)
        if self.best is None:
            return cp_model.INFEASIBLE
        return self._proved(stage, top)

    def horizon(self) -> int:
        """Fewest terms. Lower bounds: the latest earliest start of a mandatory course and the
        terms the fewest units need (the relaxation's); incumbent: a schedule of the
        relaxation's fewest-units selection; between the two, each horizon decided."""
        p, g = self.prep, self.g
        out, rel = self._fewest_units(p.hmax, None)
        if out.status == cp_model.INFEASIBLE:
            return cp_model.INFEASIBLE  # not even the relaxation fits the request's horizon
        h = max([min(p.start[m] for m in g.members[k]) for k in self._mandatory()] + [1])
        if out.ok:
            self.fewest = math.ceil((out.bound or 0) - 1e-9)
            while h < p.hmax and self._room(h, None) < self.fewest:
                h += 1
            sel = {k for k in rel.enc.classes if out.value(rel.taken[k])}
            inc = self._schedule(sel, p.hmax, None, "horizon")
            if inc is not None:
                self.best = inc
        top = self.best.terms_used() if self.best else p.hmax
        return self._up("horizon", min(h, top), top)

    def load(self) -> int:
        """Lightest busiest term at the proven horizon. Lower bounds: the largest mandatory
        course, the fewest units spread over the horizon; incumbent: the horizon's plan
        packed as evenly as its selection goes; between the two, each cap decided."""
        p, g = self.prep, self.g
        h = self.F or p.hmax
        assert self.best is not None
        inc = self._schedule(self.best.picked(), h, None, "load")
        if inc is not None and inc.max_load() <= self.best.max_load():
            self.best = inc
        top = self.best.max_load()
        cap = max([round(g.class_units(k) * p.scale) for k in self._mandatory()] + [0])
        while cap < top and self._room(h, cap) < self.fewest:
            cap += 1
        return self._up("load", cap, top)

    def _proved(self, stage: str, value: int) -> int:
        self.values[stage] = value
        if stage == "horizon":
            self.F = value
        elif stage == "load":
            self.L = value
        return cp_model.OPTIMAL

    def _fix(self, model: cp_model.CpModel, expr: Any, maximize: bool, value: int) -> None:
        # An inequality, not ==: it admits exactly the same solutions (value is the proven
        # optimum) but propagates and relaxes far better than an equality over a large sum.
        model.Add(expr >= value if maximize else expr <= value)

    def _restricted(self, keep: set[str]) -> Encoding:
        """The model at the proven horizon and load over `keep` alone, with every later stage
        proven so far."""
        enc = self._timed(self.F or self.prep.hmax, self.L, keep=keep | self.prep.done)
        self._cut(enc)
        for prev, value in self.fixed:
            e, mx = self._objective(enc, prev)
            self._fix(enc.model, e, mx, value)
        return enc

    def _class_stage(self, stage: str) -> int | None:
        """A stage whose objective is a sum over classes. First the relaxation (without term
        variables, cheap to optimize) bounds it, and a plan over its best selection alone
        that meets the bound is optimal. Else the term-indexed model searches for a slice
        of the budget, told the bound. Else a cutting-plane loop (a logic-based Benders
        decomposition) on the relaxation: the model over each best selection yields the best
        plan within it, and a cut asks every better plan for a class outside it, until the
        bound meets the best plan. None when that runs out of rounds too (the model then
        searches with what is left, told the last bound)."""
        rel = self._relaxation(self.F or self.prep.hmax, self.L, timed=False)
        for prev, value in self.fixed:
            expr, maximize = self._objective(rel.enc, prev)
            self._fix(rel.m, expr, maximize, value)
        expr, maximize = self._objective(rel.enc, stage)
        sign = 1 if maximize else -1
        (rel.m.Maximize if maximize else rel.m.Minimize)(expr)
        assert self.best is not None
        lb = sign * self._value(stage, self.best)
        for round_ in range(self.cfg.cut_rounds):
            out = solve(rel.m, self.cfg, self.budget, limit=self.cfg.relax_time_s)
            if out.status == cp_model.INFEASIBLE:
                break  # every plan better than the incumbent is cut off
            if out.status != cp_model.OPTIMAL:
                return None
            bound = sign * round(out.objective or 0)
            self.bounds[stage] = sign * bound
            if bound <= lb:
                break
            sel = {k for k in rel.enc.classes if out.value(rel.taken[k])}
            enc = self._restricted(sel)
            e, _ = self._objective(enc, stage)
            enc.model.Add(sign * e >= lb + 1)
            (enc.model.Maximize if maximize else enc.model.Minimize)(e)
            got = solve(enc.model, self.cfg, self.budget, limit=self.cfg.restricted_time_s)
            if got.status == cp_model.OPTIMAL:
                self.best, lb = _Solution(enc, got), sign * round(got.objective or 0)
                if lb >= bound:
                    break
            elif got.status != cp_model.INFEASIBLE:
                return None
            if round_ == 0:
                # The bound is not met at once: the model's own search, a slice of the budget.
                status = self._search(stage, self.cfg.search_slice_s)
                if status == cp_model.OPTIMAL:
                    return status
                if self.best is not None and self.best.enc is self.M:
                    lb = max(lb, sign * self._value(stage, self.best))
            # Every plan better than lb takes a class outside this selection.
            better = rel.m.NewBoolVar("")
            rel.m.Add(sign * expr <= lb).OnlyEnforceIf(better.Not())
            rel.m.Add(
                sum(rel.taken[k] for k in rel.enc.classes if k not in sel) >= 1
            ).OnlyEnforceIf(better)
        else:
            return None
        value = sign * lb
        self.values[stage] = value
        self.fixed.append((stage, value))
        # Later stages (the tie-break) keep the optimum's selection.
        self.M, self.M_restricted = self._restricted(self.best.picked()), True
        self.M_key = (self.F, self.L)
        return cp_model.OPTIMAL

    def _value(self, stage: str, sol: _Solution) -> int:
        """A class-sum stage's objective at a solution."""
        if stage == "units":
            return sum(sol.loads().values())
        coef = {
            "utility": self.s_int,
            "option": self.o_int,
            "utility_option": {k: self.big * self.s_int[k] + self.o_small[k] for k in self.s_int},
        }[stage]
        return sum(coef.get(k, 0) for k in sol.picked())

    def _cut(self, enc: Encoding) -> None:
        if self.F is not None:
            # The busiest term carries at least the average load over F terms: a redundant
            # cut that lets the LP see the load the earlier stages fixed.
            enc.model.Add(enc.max_load * max(self.F, 1) >= enc.total_units)

    def generic(self, stage: str | None) -> int:
        """A stage on the later stages' model, built at the proven horizon and load."""
        class_stage = stage in ("utility", "option", "utility_option", "units")
        if self.cfg.relaxation and class_stage and self.best is not None:
            status = self._class_stage(stage)
            if status is not None:
                return status
        return self._search(stage)

    def _search(self, stage: str | None, limit: float | None = None) -> int:
        """The term-indexed model's own search for `stage` (within `limit` deterministic
        seconds of the budget), warm-started from the best plan so far."""
        key = (self.F, self.L)
        stale = self.M_key != key and stage not in ("horizon", "load")
        if self.M is None or stale or (self.M_restricted and stage != "tiebreak"):
            # Built (again) at the proven horizon and load, once both are known: fewer
            # terms, and tighter room for pruning.
            self.M = self._timed(self.F or self.prep.hmax, self.L, values=True)
            self.M_key = key
            self.M_restricted = False
            self._cut(self.M)
            for prev, value in self.fixed:
                e, mx = self._objective(self.M, prev)
                self._fix(self.M.model, e, mx, value)
        enc, m = self.M, self.M.model
        if self.best is not None and self.best.enc is enc and self.best.out.solution:
            set_hint(m, dict(enumerate(self.best.out.solution)))
        elif self.best is not None:
            self._hint(enc, self.best.x())
        if stage == "tiebreak" and self.best is not None:
            # The tie-break orders timing only. Selections tied on every earlier stage are
            # already tied, so the solver's selection is kept and this stage stays a pure
            # scheduling proof instead of a packing search.
            picked = self.best.picked()
            for k in enc.classes:
                m.Add(enc.taken[k] == int(k in picked))
        expr, maximize = None, False
        if stage is not None:
            expr, maximize = self._objective(enc, stage)
            if stage in self.bounds:
                # The relaxation's optimum bounds this one: the search need only meet it.
                m.Add(expr <= self.bounds[stage] if maximize else expr >= self.bounds[stage])
            (m.Maximize if maximize else m.Minimize)(expr)
        out = solve(m, self.cfg, self.budget, limit=limit)
        if out.ok:
            self.best = _Solution(enc, out)
        if stage is not None and out.status == cp_model.OPTIMAL:
            value = round(out.objective or 0)
            self.values[stage] = value
            self.fixed.append((stage, value))
            m.ClearObjective()
            self._fix(m, expr, maximize, value)
            if stage == "horizon":
                self.F = value
                self._cut(enc)
            if stage == "load":
                self.L = value
        return out.status

    def run(self, stages: list[str]) -> tuple[int, str | None]:
        """Every stage in order; the first one not proven optimal ends the ladder."""
        status = cp_model.UNKNOWN
        bound_first = self.cfg.relaxation
        for i, stage in enumerate(stages):
            t0 = time.monotonic()
            if stage == "horizon" and bound_first and i == 0:
                status = self.horizon()
            elif stage == "load" and bound_first and stages[:i] == ["horizon"]:
                status = self.load()
            else:
                status = self.generic(stage)
            self.times[stage] = round(time.monotonic() - t0, 4)
            if status == cp_model.INFEASIBLE:
                return status, None
            if status != cp_model.OPTIMAL:
                return status, stage
        if not stages:
            status = self.generic(None)
        return status, None


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
    ladder = _Ladder(graph, request, cfg, exclude or [])
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
