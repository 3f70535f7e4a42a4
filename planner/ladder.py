"""The lexicographic ladder's stages: KnowPlan, DegreeMap "Exact planning".

Each stage fixes its proven optimum before the next one runs. Horizon and load are proven
bound-first: the relaxation (planner/relax.py) gives lower bounds and selections, a schedule of
a selection is an incumbent, and each horizon (or load cap) between the bound and the incumbent
is decided cheapest proof first, the term-indexed model last. The later stages are built at the
proven horizon and load over the classes exact pruning keeps (planner/prune.py); a stage whose
objective sums over classes is bounded by the relaxation and closed by a schedule that meets
the bound, the model's own search, or cutting planes. Every model is warm-started with a
complete hint from the best plan so far.
"""

from __future__ import annotations

import math
import time
from typing import Any

from ortools.sat.python import cp_model

from planner.cpsat import Outcome, set_hint, solve
from planner.greedy import greedy_plan
from planner.ladder_models import Models, Solution
from planner.model import Encoding
from planner.prune import analyse_roles
from planner.relax import Relaxation

CLASS_STAGES = ("utility", "option", "utility_option", "units")


class Ladder(Models):
    """Runs the stages of one request; each stage's proven optimum bounds the next."""

    def _schedule(
        self, keep: set[str], horizon: int, load_cap: int | None, stage: str
    ) -> Solution | None:
        """A plan over `keep` alone (a selection the relaxation chose), optimizing `stage`
        (horizon or load) within the limits: an incumbent, proven only by a bound."""
        return self._scheduled(keep, horizon, load_cap, stage)[0]

    def _scheduled(
        self, keep: set[str], horizon: int, load_cap: int | None, stage: str
    ) -> tuple[Solution | None, int]:
        """`_schedule`, with the solve's status: INFEASIBLE proves that no plan within `keep`
        fits the limits."""
        enc = self._timed(horizon, load_cap, keep=keep | self.prep.done)
        expr, _ = self._objective(enc, stage)
        enc.model.Minimize(expr)
        out = solve(enc.model, self.cfg, self.budget, limit=self.cfg.restricted_time_s)
        return (Solution(enc, out) if out.ok else None), out.status

    def _fewest_units(self, horizon: int, load_cap: int | None) -> tuple[Outcome, Relaxation]:
        rel = self._relaxation(horizon, load_cap)
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
        relaxation; a schedule of its selection alone; of its selection with the incumbent's
        (a model of a few dozen classes); while those are proven not to fit, the relaxation
        again with a cut that asks for a class outside them (a logic-based Benders loop, up
        to `cut_rounds`); the term-indexed model itself. A plan found becomes the
        incumbent."""
        rel = self._relaxation(horizon, load_cap)
        for _ in range(self.cfg.cut_rounds):
            out = solve(rel.m, self.cfg, self.budget, limit=self.cfg.relax_time_s)
            if out.status == cp_model.INFEASIBLE:
                return cp_model.INFEASIBLE
            if not out.ok:
                break
            sel = {k for k in rel.enc.classes if out.value(rel.taken[k])}
            tries = [sel] + ([sel | self.best.picked()] if self.best is not None else [])
            fits_none: set[str] | None = None  # the largest tried selection no plan fits in
            for keep in tries:
                inc, status = self._scheduled(keep, horizon, load_cap, stage)
                if inc is not None:
                    self.best = inc
                    return cp_model.FEASIBLE
                if status == cp_model.INFEASIBLE:
                    fits_none = keep
            if fits_none is None:
                break
            # Every plan takes a class outside a selection that no plan fits within.
            outside = [rel.taken[k] for k in rel.enc.classes if k not in fits_none]
            if not outside:
                return cp_model.INFEASIBLE
            rel.m.Add(sum(outside) >= 1)
        enc = self._timed(horizon, load_cap)
        if self.best is not None:
            self._hint(enc, self.best.x())
        else:
            # Nothing scheduled yet: the greedy plan seeds the search.
            self._hint(enc, dict.fromkeys(greedy_plan(self.g, self.r, self.utility), 1))
        out = solve(enc.model, self.cfg, self.budget)
        if out.ok:
            self.best = Solution(enc, out)
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
        """A stage whose objective is a sum over classes. First the relaxation bounds it, and
        a schedule of exactly its best selection, or a plan over that selection with the
        incumbent's, that meets the bound is optimal. Else the term-indexed model searches
        for a slice of the budget, told the bound, if it is small (`search_max_x`). Else a
        cutting-plane loop (a logic-based Benders decomposition) on the relaxation: the
        model over each best selection yields the best plan within it, and a cut asks every
        better plan for a class outside it, until the bound meets the best plan. None when
        that runs out of rounds too (the model then searches with what is left, told the
        last bound)."""
        rel = self._relaxation(self.F or self.prep.hmax, self.L)
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
            chosen = {k for k in rel.enc.classes if out.value(rel.taken[k])}
            exact = self._exactly(chosen, stage, sign * bound)
            if exact is not None:
                self.best, lb = exact, bound
                break
            # The selection with the incumbent's: a small model with more room than either.
            sel = chosen | self.best.picked()
            enc = self._restricted(sel)
            e, _ = self._objective(enc, stage)
            enc.model.Add(sign * e >= lb + 1)
            # The relaxation's optimum bounds every plan: a plan that meets it is optimal, and
            # CP-SAT stops there instead of proving it from the model's own, weaker, LP bound.
            enc.model.Add(sign * e <= bound)
            (enc.model.Maximize if maximize else enc.model.Minimize)(e)
            got = solve(enc.model, self.cfg, self.budget, limit=self.cfg.restricted_time_s)
            if got.ok:
                self.best, lb = Solution(enc, got), sign * round(got.objective or 0)
                if lb >= bound:
                    break
            if got.status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
                return None
            if round_ == 0 and self._small_enough():
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

    def _small_enough(self) -> bool:
        """Whether the later stages' model is small enough to search inside a class-sum stage
        (`search_max_x`); a larger one is left to the cutting planes, which build models of
        one selection each."""
        h = self.F or self.prep.hmax
        return self._pruned_size(h, self.L, values=True) <= self.cfg.search_max_x

    def _exactly(self, chosen: set[str], stage: str, bound: int) -> Solution | None:
        """A schedule of exactly the relaxation's optimal selection, when one exists and its
        value is the relaxation's optimum: then it is optimal. A feasibility question over
        fixed classes, far cheaper than optimizing over a selection (CP-SAT need not prove
        that no other subset of it does better)."""
        enc = self._restricted(chosen)
        for k in enc.classes:
            enc.model.Add(enc.taken[k] == 1)
        got = solve(enc.model, self.cfg, self.budget, limit=self.cfg.restricted_time_s)
        if not got.ok:
            return None
        sol = Solution(enc, got)
        return sol if self._value(stage, sol) == bound else None

    def _value(self, stage: str, sol: Solution) -> int:
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
        class_stage = stage in CLASS_STAGES
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
            self.best = Solution(enc, out)
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
