"""The ladder's relaxation over classes: KnowPlan, DegreeMap "Exact planning" (bounds that prove a
stage's optimum without searching the term-indexed model).

One Boolean per class instead of one per course and term, and one integer: the term it is
taken in. Within a horizon of F terms and a load cap of L units, a class is available when
some member can be scheduled by term F under the cap; a prerequisite asks that what it names
be taken in an earlier term (a corequisite: no later; a pool: at all; class standing: that
enough units be taken besides the course itself, and the course come after enough terms to
hold them), so the chain of the alternatives a plan takes must fit the horizon; the plan's
courses must pack whole into the F terms (one pattern of course sizes per term,
planner/packing.py), and the courses that can only go in a tail of the horizon or in one
season of it must fit there, counted in whole courses of each size. Which courses share a
term, and so a single term's load, is not checked. Every plan of the
term-indexed model within (F, L) is a solution here (each class at its term), so:
infeasible here proves no plan fits (F, L); the fewest units here bound the units any plan
needs; the best utility here bounds the utility stage. The requirements are the
term-indexed model's own encoding (planner/encode.py) over these class variables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from planner.documents import (
    AllOf,
    AnyOf,
    ChooseN,
    Concurrent,
    Consent,
    Coreq,
    CourseRef,
    Expr,
    Pool,
    Standing,
)
from planner.encode import RequirementEncoder
from planner.packing import add_packing
from planner.presolve import Prepared

LinExpr = cp_model.LinearExprT


@dataclass
class RelaxedModel:
    model: cp_model.CpModel
    taken: dict[str, LinExpr]  # class -> its variable (1 when completed, 0 when unavailable)
    units: dict[str, int]  # class -> scaled units it adds to the plan
    total_units: cp_model.IntVar
    room: int  # units the F terms hold under the cap
    scale: int
    assumptions: dict[str, tuple[cp_model.IntVar, str]] = field(default_factory=dict)
    fills: list[tuple[str, str, cp_model.IntVar | None]] = field(default_factory=list)

    @property
    def classes(self) -> list[str]:
        return [k for k, v in self.taken.items() if not isinstance(v, int)]

    def selection(self, values: dict[str, int]) -> set[str]:
        return {k for k, v in values.items() if v}


class Relaxation(RequirementEncoder):
    """Builds the relaxation of one request's model for horizon `F` and load cap `L` (scaled
    units; None: the request's own caps)."""

    def __init__(
        self,
        prep: Prepared,
        horizon: int,
        load_cap: int | None = None,
        keep: set[str] | None = None,
        exclude: list[set[str]] | None = None,
        min_hamming: int = 2,
        max_patterns: int = 0,
    ) -> None:
        self.prep, self.g, self.r = prep, prep.graph, prep.request
        self.F, self.L = min(horizon, prep.hmax), load_cap
        self.keep = keep
        self.exclude, self.min_hamming = exclude or [], min_hamming
        self.max_patterns = max_patterns  # per term cap, for the packing (planner/packing.py)
        self.m = cp_model.CpModel()
        self.done = prep.done
        self.slots = {t: s for t, s in prep.slots.items() if t <= self.F}
        self._ack = prep.acknowledged

    def cap(self, t: int) -> int:
        c = self.prep.caps[t]
        return c if self.L is None else min(c, self.L)

    def build(self) -> RelaxedModel:
        p, g, m = self.prep, self.g, self.m
        scale = p.scale
        rel = p.rel if self.keep is None else p.rel & self.keep
        room = sum(self.cap(t) for t in self.slots)
        taken: dict[str, LinExpr] = dict.fromkeys(self.done, 1)
        units: dict[str, int] = {}
        most: dict[str, int] = {}
        # (member, term) pairs each class can be scheduled at, for its prerequisites and for
        # the requirements that ask about terms or years.
        where: dict[str, list[tuple[str, int]]] = {}
        for k in sorted(p.rel - self.done):
            pairs = []
            if k in rel:
                for cid in g.members[k]:
                    u = round(g.courses[cid].units * scale)
                    pairs += [(cid, t) for t in p.offered_terms(cid, self.F) if u <= self.cap(t)]
            if not pairs:
                taken[k] = 0
                continue
            taken[k] = m.NewBoolVar(f"taken[{k}]")
            units[k] = min(round(g.courses[c].units * scale) for c, _ in pairs)
            most[k] = max(round(g.courses[c].units * scale) for c, _ in pairs)
            where[k] = pairs
        total = m.NewIntVar(0, sum(units.values()), "total_units")
        m.Add(total == sum(u * taken[k] for k, u in units.items()))
        m.Add(total <= room)
        self.taken, self.units, self.total = taken, units, total
        # Class standing counts the units a plan really takes; a class whose members differ
        # in units may take more than its fewest, so standing gets its own upper count.
        self.most: LinExpr = total
        if most != units:
            self.most = sum(u * taken[k] for k, u in most.items())
        self.by_cls = {
            k: [(t, taken[k]) for t in sorted({t for _, t in ps})] for k, ps in where.items()
        }
        # The term a class is taken in, within the terms it can be: a prerequisite asks that
        # what it names be taken in an earlier one, so a chain of the alternatives actually
        # chosen must fit the horizon (earliest starts assume the best alternative of each).
        self.at: dict[str, LinExpr] = dict.fromkeys(self.done, 0)
        for k, ts in self.by_cls.items():
            terms = [t for t, _ in ts]
            self.at[k] = m.NewIntVarFromDomain(cp_model.Domain.FromValues(terms), f"at[{k}]")
        self.enc = RelaxedModel(m, taken, units, total, room, scale)
        self._hall(where, units)
        for pair in sorted(g.exclusions, key=sorted):
            a, b = sorted(pair)
            if a in taken and b in taken:
                m.Add(taken[a] + taken[b] <= 1)
        for k, pairs in where.items():
            self._prerequisites(k, pairs)
        for prev in self.exclude:
            # The top-k diversity cut of the term-indexed model, on classes.
            terms = [1 - taken.get(k, 0) for k in sorted(prev)]
            terms += [v for k, v in taken.items() if k not in prev and not isinstance(v, int)]
            m.Add(sum(terms) >= self.min_hamming)
        self.require_all(p.roots, p.ge, explain=False)
        return self.enc

    def _hall(self, where: dict[str, list[tuple[str, int]]], units: dict[str, int]) -> None:
        """Courses that can only go in some terms must fit in those terms, counted in whole
        courses of each size: a term of cap c holds at most c // u units' worth of courses
        of u units or more (a 3.5-unit term takes three 1-unit courses, not 3.5). Windows:
        the whole horizon, every tail of it, and every season within a tail."""
        terms = {k: {t for _, t in ps} for k, ps in where.items()}
        sizes = sorted({u for u in units.values() if u > 0})
        seasons = sorted({s.season for s in self.slots.values()})
        seen: set[frozenset[int]] = set()
        for t0 in self.slots:
            tail = {t for t in self.slots if t >= t0}
            for only in [None, *seasons]:
                window = frozenset(t for t in tail if only is None or self.slots[t].season == only)
                if not window or window in seen:
                    continue
                seen.add(window)
                inside = [k for k, ts in terms.items() if ts <= window]
                for u in sizes:
                    room = sum(self.cap(t) // u for t in window)
                    worth = {k: units[k] // u for k in inside if units[k] >= u}
                    if sum(worth.values()) > room:
                        self.m.Add(sum(w * self.taken[k] for k, w in worth.items()) <= room)
        # The whole horizon exactly: every taken course, by size, in one pattern per term.
        counts: dict[int, list[LinExpr]] = {u: [] for u in sizes}
        for k, u in units.items():
            if u > 0:
                counts[u].append(self.taken[k])
        caps = [self.cap(t) for t in self.slots]
        add_packing(self.m, {u: sum(v) for u, v in counts.items()}, caps, self.max_patterns)

    def _prerequisites(self, k: str, pairs: list[tuple[str, int]]) -> None:
        """taken => the prerequisite of one of the (member, term) offerings it can use."""
        g = self.g
        alts: dict[tuple[str, int], tuple[str, Expr | None, list[int]]] = {}
        for cid, t in pairs:
            pre = g.courses[cid].prereq_at(self.slots[t].calendar_id)
            alts.setdefault((cid, id(pre)), (cid, pre, []))[2].append(t)
        if any(pre is None for _, pre, _ in alts.values()):
            return
        lit, at = self.taken[k], self.at[k]
        if len(alts) == 1:
            cid, pre, _ = next(iter(alts.values()))
            self._free(lit, pre, cid, at)
            return
        options = []
        for cid, pre, terms in alts.values():
            a = self.m.NewBoolVar("")
            self._free(a, pre, cid, at)
            # This member's prerequisite in these terms holds only if it is taken in one.
            in_terms = cp_model.Domain.FromValues(terms)
            self.m.AddLinearExpressionInDomain(at, in_terms).OnlyEnforceIf(a)
            options.append(a)
        self.m.Add(sum(options) >= lit)

    def _have(self, cls: str | None) -> LinExpr:
        if cls is None:
            return 0
        return self.taken.get(cls, 0)

    def _standing_term(self, need: int) -> int:
        """The first term before which the completed courses and the earlier terms' caps can
        hold `need` units (past the horizon when none can)."""
        held = self.prep.done_units
        for t in sorted(self.slots):
            if held >= need:
                return t
            held += self.cap(t)
        return self.F + 1

    def _before(self, enf: cp_model.IntVar, cls: str | None, at: LinExpr, strict: bool) -> None:
        """enf => class `cls` is taken, in a term before `at` (or no later, not `strict`)."""
        self.m.Add(enf <= self._have(cls))
        if cls in self.at and cls not in self.done:
            self.m.Add(self.at[cls] + int(strict) <= at).OnlyEnforceIf(enf)

    def _leaf(self, cls: str, at: LinExpr) -> LinExpr:
        """A literal: `cls` taken in a term before `at` (a course item of a choice)."""
        have = self._have(cls)
        if isinstance(have, int):  # completed (1) or out of reach (0)
            return have
        w = self.m.NewBoolVar("")
        self._before(w, cls, at, strict=True)
        return w

    def _free(self, enf: cp_model.IntVar, e: Expr | None, cid: str, at: LinExpr) -> None:
        """enf => prerequisite e of course cid taken in term `at`: what it names is taken in an
        earlier term (the same or earlier for a corequisite); the terms' loads dropped."""
        m, g = self.m, self.g
        if e is None:
            return
        if isinstance(e, CourseRef | Coreq | Concurrent):
            self._before(enf, g.class_of.get(e.course), at, isinstance(e, CourseRef))
        elif isinstance(e, AllOf):
            for i in e.items:
                self._free(enf, i, cid, at)
        elif isinstance(e, AnyOf | ChooseN):
            self._at_least(
                enf, e, lambda a, i: self._free(a, i, cid, at), lambda k: self._leaf(k, at)
            )
        elif isinstance(e, Pool):
            own = g.class_of[cid]
            got = [self._have(p) for p in g.pool_classes(e.pool) if p != own]
            m.Add(e.min_courses * enf <= sum(got))
        elif isinstance(e, Standing):
            need = round(e.min_units * self.prep.scale)
            own = round(g.courses[cid].units * self.prep.scale)
            # Units completed before the course's term: at most all taken units but its own,
            # and at most what the earlier terms hold under their caps.
            m.Add(self.prep.done_units + self.most - own >= need).OnlyEnforceIf(enf)
            m.Add(at >= self._standing_term(need)).OnlyEnforceIf(enf)
        elif isinstance(e, Consent):
            if cid not in self.r.consents:
                m.Add(enf == 0)
        elif e.kind == "unsupported" and self._acknowledged(e.policy):
            pass
        else:
            m.Add(enf == 0)
