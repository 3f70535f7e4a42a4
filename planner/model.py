"""CP-SAT encoding of the requirement hypergraph: KnowPlan, DegreeMap "Exact planning"."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from planner.calendar import Slot, term_cap
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
from planner.hypergraph import Hypergraph
from planner.presolve import INF, Prepared, prepare, units_scale
from planner.profile import Request

__all__ = ["Builder", "Encoding", "units_scale"]

LinExpr = cp_model.LinearExprT


@dataclass
class Encoding:
    model: cp_model.CpModel
    graph: Hypergraph
    request: Request
    terms: list[int]
    slots: dict[int, Slot]
    scale: int
    done: set[str]  # completed equivalence classes
    x: dict[tuple[str, int], cp_model.IntVar]
    taken: dict[str, LinExpr]  # class -> 0/1 expression (constant 1 when completed)
    z: dict[int, cp_model.IntVar]  # term t is used
    load: dict[int, LinExpr]
    max_load: cp_model.IntVar
    classes: list[str]  # classes with variables
    start: dict[str, int]
    assumptions: dict[str, tuple[cp_model.IntVar, str]] = field(default_factory=dict)
    total_units: LinExpr = 0
    # (requirement path, class, its use literal or None = the class is taken): which
    # requirement each chosen course fills.
    fills: list[tuple[str, str, cp_model.IntVar | None]] = field(default_factory=list)

    def size(self) -> dict[str, int]:
        """Classes with variables, course x term variables and constraints, as built."""
        return {
            "classes": len(self.classes),
            "x": len(self.x),
            "constraints": len(self.model.Proto().constraints),
        }

    @property
    def seasons(self) -> dict[int, str]:
        return {t: s.season for t, s in self.slots.items()}


class Builder(RequirementEncoder):
    """Builds one CP-SAT model for one request; every hyperedge becomes one linear constraint."""

    def __init__(
        self,
        graph: Hypergraph,
        request: Request,
        horizon: int | None = None,
        extra_terms: int = 0,
        cover_cuts: bool = True,
        *,
        prep: Prepared | None = None,
        keep: set[str] | None = None,
        load_cap: int | None = None,
    ) -> None:
        """`keep`: the only classes that get variables (the rest count as not taken);
        `load_cap`: a unit cap (scaled) every term's own cap is lowered to; `prep`: the
        request's shared presolve, reused by every model of one ladder."""
        self.g, self.r = graph, request
        self.cover_cuts = cover_cuts
        self.h = horizon or request.horizon
        self.hmax = self.h + extra_terms
        self.m = cp_model.CpModel()
        # Earliest starts do not depend on how far the plan runs past them, so a presolve
        # made for a longer horizon serves a shorter one.
        if prep is None or prep.hmax < self.hmax:
            prep = prepare(graph, request, self.hmax)
        self.prep = prep
        self._ack = prep.acknowledged
        self.scale = prep.scale
        self.done = prep.done
        self.slots = {t: s for t, s in prep.slots.items() if t <= self.hmax}
        self.keep, self.load_cap = keep, load_cap

    def build(self, explain: bool = False) -> Encoding:
        g, r, m, p = self.g, self.r, self.m, self.prep
        roots, ge, start = p.roots, p.ge, p.start
        rel = p.rel if self.keep is None else p.rel & self.keep
        terms = list(range(1, self.hmax + 1))
        x: dict[tuple[str, int], cp_model.IntVar] = {}
        for cls in sorted(rel - self.done):
            for cid in g.members[cls]:
                for t in p.offered_terms(cid, self.hmax):
                    x[cid, t] = m.NewBoolVar(f"x[{cid},{t}]")
        self.x = x
        caps = {
            t: p.caps[t] if self.load_cap is None else min(p.caps[t], self.load_cap) for t in terms
        }
        self.by_cls: dict[str, list[tuple[int, cp_model.IntVar]]] = defaultdict(list)
        self.by_term: dict[int, list[tuple[int, cp_model.IntVar]]] = defaultdict(list)
        for (cid, t), v in x.items():
            self.by_cls[g.class_of[cid]].append((t, v))
            self.by_term[t].append((round(g.courses[cid].units * self.scale), v))
        taken: dict[str, LinExpr] = {}
        for cls in sorted(p.rel | self.done):
            if cls in self.done:
                taken[cls] = 1
            else:
                vs = [v for _, v in self.by_cls.get(cls, [])]
                if vs:
                    m.Add(sum(vs) <= 1)  # an equivalence class counts (and is taken) once
                taken[cls] = sum(vs) if vs else 0
        self.taken = taken
        enc = Encoding(
            m,
            g,
            r,
            terms,
            self.slots,
            self.scale,
            self.done,
            x,
            taken,
            {},
            {},
            m.NewIntVar(0, INF if explain else max(caps.values(), default=0), "max_load"),
            sorted(self.by_cls),
            start,
        )
        self.enc = enc
        # Exclusions: at most one of two excluded classes.
        for pair in sorted(g.exclusions, key=sorted):
            a, b = sorted(pair)
            if a in taken and b in taken:
                m.Add(taken[a] + taken[b] <= 1)
        # Prerequisites, per course and term (that term's own), against earlier terms.
        self._before: dict[int, LinExpr] = {}
        for (cid, t), v in x.items():
            pre = g.courses[cid].prereq_at(self.slots[t].calendar_id)
            if pre is not None:
                self._imply(v, pre, t, cid)
        self._capacity(caps, explain)
        # The ladder adds max_load * F >= total_units once F is fixed (see solve.py).
        enc.total_units = sum(
            round(g.courses[cid].units * self.scale) * v for (cid, _), v in x.items()
        )
        self.require_all(roots, ge, explain)
        return enc

    def _capacity(self, caps: dict[int, int], explain: bool) -> None:
        g, r, m, enc = self.g, self.r, self.m, self.enc
        seasonal = sorted(
            {s.season for s in self.slots.values() if caps[s.t] != max(caps.values())}
        )
        words = f"at most {r.max_units_per_term:g} units per term"
        if seasonal:
            words += (
                " ("
                + ", ".join(f"{s} {term_cap(r, g.season_max_units, s)[0]:g}" for s in seasonal)
                + ")"
            )
        cap_lit = self._assume("cap", words, explain)
        hor_lit = self._assume(
            "horizon", f"finishing within {self.h} terms", explain and self.hmax > self.h
        )
        for t in enc.terms:
            cap = caps[t]
            vs = [(v, u) for u, v in self.by_term.get(t, [])]
            load = sum(u * v for v, u in vs) if vs else 0
            enc.load[t] = load
            m.Add(enc.max_load >= load)
            enc.z[t] = m.NewBoolVar(f"z[{t}]")
            # load <= cap * z[t] rather than load <= cap: the LP then bounds the horizon by
            # total units / cap, which is what the horizon stage has to prove.
            ct = m.Add(load <= cap * enc.z[t])
            if cap_lit is not None:
                ct.OnlyEnforceIf(cap_lit)
                m.Add(load <= INF * enc.z[t])
            if cap_lit is None and self.cover_cuts:
                # Knapsack cover cuts: at most floor(cap / u) courses of >= u units fit in one
                # term. CP-SAT's LP does not see this from the weighted sum.
                for u in sorted({w for _, w in vs if w > 0}, reverse=True):
                    big = [v for v, w in vs if w >= u]
                    if len(big) > cap // u:
                        m.Add(sum(big) <= (cap // u) * enc.z[t])
            for v, _ in vs:
                m.AddImplication(v, enc.z[t])
            if t > 1:
                m.AddImplication(enc.z[t], enc.z[t - 1])
            if t > self.h:
                if hor_lit is not None:
                    m.AddImplication(hor_lit, enc.z[t].Not())
                else:
                    m.Add(enc.z[t] == 0)

    # -- prerequisites ---------------------------------------------------------------------

    def _done_by(self, cls: str | None, t: int) -> LinExpr:
        if cls is None:
            return 0
        if cls in self.done:
            return 1
        vs = [v for tt, v in self.by_cls.get(cls, []) if tt <= t]
        return sum(vs) if vs else 0

    def _units_before(self, t: int) -> LinExpr:
        if t not in self._before:
            done_units = sum(self.g.class_units(k) for k in self.done)
            earlier = [(u, v) for tt in range(1, t) for u, v in self.by_term.get(tt, [])]
            vs = [u * v for u, v in earlier]
            base = round(done_units * self.scale)
            if not vs:
                self._before[t] = base
            else:
                # One variable per term, shared by every standing rule that asks about it;
                # its exact range (not [0, INF]) keeps the standing rows tight in the LP.
                top = base + sum(u for u, _ in earlier)
                before = self.m.NewIntVar(base, top, f"units_before[{t}]")
                self.m.Add(before == base + sum(vs))
                self._before[t] = before
        return self._before[t]

    def _imply(self, enf: cp_model.IntVar, e: Expr, t: int, cid: str) -> None:
        """enf => prerequisite e holds for a course taken in term t."""
        m, g = self.m, self.g
        if isinstance(e, CourseRef):
            m.Add(enf <= self._done_by(g.class_of.get(e.course), t - 1))
        elif isinstance(e, Coreq | Concurrent):
            m.Add(enf <= self._done_by(g.class_of.get(e.course), t))
        elif isinstance(e, AllOf):
            for i in e.items:
                self._imply(enf, i, t, cid)
        elif isinstance(e, AnyOf | ChooseN):
            self._at_least(
                enf,
                e,
                lambda a, i: self._imply(a, i, t, cid),
                lambda cls: self._done_by(cls, t - 1),
            )
        elif isinstance(e, Pool):
            own = g.class_of[cid]
            got = [self._done_by(k, t - 1) for k in g.pool_classes(e.pool) if k != own]
            m.Add(e.min_courses * enf <= sum(got))
        elif isinstance(e, Standing):
            need = round(e.min_units * self.scale)
            have = self._units_before(t)
            if isinstance(have, int):
                if have < need:
                    m.Add(enf == 0)
            else:
                m.Add(have >= need).OnlyEnforceIf(enf)
        elif isinstance(e, Consent):
            if cid not in self.r.consents:
                m.Add(enf == 0)
        elif e.kind == "unsupported" and self._acknowledged(e.policy):
            pass
        else:  # unsupported, or a kind that has no meaning in a prerequisite
            m.Add(enf == 0)
