"""The models of one ladder solve: KnowPlan, DegreeMap "Exact planning" (the term-indexed model
over the classes exact pruning keeps or over one selection, the relaxation, the stage
objectives, complete hints, and what was built, for the benchmark's model sizes)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from planner.cpsat import Budget, Outcome, set_hint, solve
from planner.hypergraph import Hypergraph
from planner.model import Builder, Encoding
from planner.presolve import Prepared, prepare
from planner.profile import Request
from planner.prune import (
    Normalizer,
    Roles,
    analyse_roles,
    bound_capacity,
    candidates,
    dominators,
    prune,
)
from planner.relax import Relaxation
from planner.solver_config import SolverConfig
from planner.utility import course_utility, option_value


@dataclass
class Solution:
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


class Models:
    """The models one ladder solve builds for one request (term-indexed, over what pruning
    keeps or over one selection; relaxed), their stage objectives, complete hints and sizes."""

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
        self._cands: dict[tuple[int, bool], tuple[Any, Any]] = {}
        self.values: dict[str, int] = {}
        self.times: dict[str, float] = {}
        self.F: int | None = None  # proven horizon
        self.L: int | None = None  # proven load (scaled units)
        self.best: Solution | None = None
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
            cands = candidates(
                self.g, p.rel - p.done, roles, p.start, p.slots, horizon, norm, p.scale, value
            )
            self._cands[key] = (cands, dominators(cands))
        cap = lambda t: p.caps[t] if load_cap is None else min(p.caps[t], load_cap)  # noqa: E731
        mandatory = sum(round(self.g.class_units(k) * p.scale) for k in roles.mandatory)
        room = sum(cap(t) for t in range(1, horizon + 1)) - mandatory
        unavailable = set().union(*self.exclude) if self.exclude else set()
        cands, ups = self._cands[key]
        return prune(cands, roles, bound_capacity(room), unavailable, ups)

    def _pruned_size(self, horizon: int, load_cap: int | None, values: bool) -> int:
        """Course x term variables of the term-indexed model over what pruning keeps, counted
        before building it."""
        p = self.prep
        keep = p.rel - p.done - self._pruned(horizon, load_cap, values)
        return sum(len(p.offered_terms(c, horizon)) for k in keep for c in self.g.members[k])

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

    def _relaxation(self, horizon: int, load_cap: int | None = None) -> Relaxation:
        t0 = time.monotonic()
        rel = Relaxation(
            self.prep,
            horizon,
            load_cap,
            exclude=self.exclude,
            min_hamming=self.cfg.min_hamming,
            max_patterns=self.cfg.packing_patterns,
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
