"""CP-SAT encoding of the requirement hypergraph: KnowPlan, DegreeMap "Exact planning"."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from planner.documents import (
    AllOf,
    AnyOf,
    ChooseN,
    Concurrent,
    Conditional,
    Consent,
    Coreq,
    CourseRef,
    Expr,
    MinUnits,
    Pool,
    Standing,
    Unsupported,
)
from planner.hypergraph import Hypergraph, expr_courses, walk
from planner.profile import Request

INF = 10**6
LinExpr = cp_model.LinearExprT


def units_scale(graph: Hypergraph) -> int:
    """Smallest integer scale that makes every unit value integral (1, 2, 4, 10, 100)."""
    for s in (1, 2, 4, 10, 100):
        if all(abs(n.units * s - round(n.units * s)) < 1e-9 for n in graph.courses.values()):
            return s
    return 100


@dataclass
class Limits:
    """Assumption literals the infeasibility explanation may switch off (None: always on)."""

    requirements: dict[str, tuple[str, Expr]] = field(default_factory=dict)  # key -> (words, expr)


@dataclass
class Encoding:
    model: cp_model.CpModel
    graph: Hypergraph
    request: Request
    terms: list[int]
    seasons: dict[int, str]
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
    notes: list[str] = field(default_factory=list)


def seasons_for(graph: Hypergraph, request: Request, horizon: int) -> dict[int, str]:
    cycle = graph.term_cycle or ["term"]
    first = cycle.index(request.start_season) if request.start_season in cycle else 0
    return {t: cycle[(first + t - 1) % len(cycle)] for t in range(1, horizon + 1)}


def program_roots(graph: Hypergraph, request: Request) -> list[tuple[str, Expr]]:
    roots = []
    for pid in [request.program, *request.tracks]:
        if pid in graph.programs:
            roots.append((pid, graph.programs[pid].requirement))
    return roots


def resolve_conditionals(expr: Expr, request: Request) -> Expr | None:
    """Conditional hyperedges depend only on request fields, so they resolve before solving."""
    if isinstance(expr, Conditional):
        flag = expr.condition.flag
        value = (
            (flag[6:] in request.tracks)
            if flag.startswith("track:")
            else bool(getattr(request, flag, False))
        )
        branch = expr.then if value == expr.condition.equals else expr.otherwise
        return resolve_conditionals(branch, request) if branch is not None else None
    if isinstance(expr, AllOf | AnyOf | ChooseN):
        items = [r for r in (resolve_conditionals(i, request) for i in expr.items) if r is not None]
        return expr.model_copy(update={"items": items})
    return expr


def _earliest_starts(
    graph: Hypergraph, done: set[str], request: Request, horizon: int, seasons: dict[int, str]
) -> dict[str, int]:
    """Lower bound on each course's term from prerequisite depth and offerings (fixpoint).
    Removing impossible x[c,t] up front tightens the LP and is what keeps proofs short."""
    start = {c: 1 for c in graph.courses}
    consents = set(request.consents)

    def cls_ready(cls: str, strict: bool) -> int:
        if cls in done:
            return 0
        best = min((start[m] for m in graph.members[cls]), default=INF)
        return best + 1 if strict else best

    def lb(e: Expr | None, cid: str) -> int:
        if e is None:
            return 1
        if isinstance(e, CourseRef | Coreq | Concurrent):
            cls = graph.class_of.get(e.course)
            return INF if cls is None else cls_ready(cls, isinstance(e, CourseRef))
        if isinstance(e, AllOf):
            return max((lb(i, cid) for i in e.items), default=1)
        if isinstance(e, AnyOf):
            return min((lb(i, cid) for i in e.items), default=INF)
        if isinstance(e, ChooseN):
            vals = sorted(lb(i, cid) for i in e.items)
            return 1 if e.n == 0 else (vals[e.n - 1] if len(vals) >= e.n else INF)
        if isinstance(e, Consent):
            return 1 if cid in consents else INF
        if isinstance(e, Standing):
            return 1
        return INF  # unsupported or a kind that has no meaning in a prerequisite

    for _ in range(horizon + 2):
        changed = False
        for cid, node in graph.courses.items():
            s = max(1, lb(node.prerequisite, cid))
            while s <= horizon and node.seasons is not None and seasons[s] not in node.seasons:
                s += 1
            s = min(s, horizon + 1)
            if s != start[cid]:
                start[cid], changed = s, True
        if not changed:
            break
    return start


def relevant_classes(graph: Hypergraph, roots: list[Expr]) -> set[str]:
    """Classes reachable from the requirements through prerequisites (the rest cannot matter)."""
    seen: set[str] = set()
    frontier = [c for r in roots for c in expr_courses(r)]
    for r in roots:
        for node in walk(r):
            if isinstance(node, Pool | MinUnits):
                frontier += [m for k in graph.pool_classes(node.pool) for m in graph.members[k]]
    while frontier:
        cid = frontier.pop()
        cls = graph.class_of.get(cid)
        if cls is None or cls in seen:
            continue
        seen.add(cls)
        for m in graph.members[cls]:
            frontier += expr_courses(graph.courses[m].prerequisite)
    return seen


class Builder:
    """Builds one CP-SAT model for one request; every hyperedge becomes one linear constraint."""

    def __init__(
        self,
        graph: Hypergraph,
        request: Request,
        horizon: int | None = None,
        extra_terms: int = 0,
        cover_cuts: bool = True,
    ) -> None:
        self.g, self.r = graph, request
        self.cover_cuts = cover_cuts
        self.h = horizon or request.horizon
        self.hmax = self.h + extra_terms
        self.m = cp_model.CpModel()
        self.scale = units_scale(graph)
        self.done = {graph.class_of[c] for c in request.completed if c in graph.class_of}
        self.seasons = seasons_for(graph, request, self.hmax)

    def build(self, explain: bool = False) -> Encoding:
        g, r, m = self.g, self.r, self.m
        fw = r.ge_framework or (
            g.programs[r.program].ge_framework if r.program in g.programs else None
        )
        roots = [(pid, resolve_conditionals(e, r)) for pid, e in program_roots(g, r)]
        ge_roots: list[tuple[str, Expr]] = []
        if fw in g.frameworks:
            for cat in g.frameworks[fw].categories:
                ge_roots.append(
                    (
                        f"{fw}/{cat.id}",
                        Pool(
                            min_courses=cat.min_courses,
                            label=cat.name,
                            pool={"courses": cat.courses},
                        ),
                    )
                )
        rel = relevant_classes(g, [e for _, e in roots if e] + [e for _, e in ge_roots])
        start = _earliest_starts(g, self.done, r, self.hmax, self.seasons)
        terms = list(range(1, self.hmax + 1))
        x: dict[tuple[str, int], cp_model.IntVar] = {}
        for cls in sorted(rel - self.done):
            for cid in g.members[cls]:
                node = g.courses[cid]
                for t in range(start[cid], self.hmax + 1):
                    if node.seasons is None or self.seasons[t] in node.seasons:
                        x[cid, t] = m.NewBoolVar(f"x[{cid},{t}]")
        self.x = x
        cap = math.floor(r.max_units_per_term * self.scale + 1e-9)
        self.by_cls: dict[str, list[tuple[int, cp_model.IntVar]]] = defaultdict(list)
        for (cid, t), v in x.items():
            self.by_cls[g.class_of[cid]].append((t, v))
        taken: dict[str, LinExpr] = {}
        for cls in rel | self.done:
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
            self.seasons,
            self.scale,
            self.done,
            x,
            taken,
            {},
            {},
            m.NewIntVar(0, INF if explain else cap, "max_load"),
            sorted(self.by_cls),
            start,
        )
        self.enc = enc
        # Exclusions: at most one of two excluded classes.
        for pair in g.exclusions:
            a, b = sorted(pair)
            if a in taken and b in taken:
                m.Add(taken[a] + taken[b] <= 1)
        # Prerequisites, per course and term, against strictly earlier terms.
        for (cid, t), v in x.items():
            pre = g.courses[cid].prerequisite
            if pre is not None:
                self._imply(v, pre, t, cid)
        # Capacity, horizon.
        cap_lit = self._assume("cap", f"at most {r.max_units_per_term:g} units per term", explain)
        hor_lit = self._assume(
            "horizon", f"finishing within {self.h} terms", explain and self.hmax > self.h
        )
        for t in terms:
            vs = [
                (v, round(g.courses[cid].units * self.scale))
                for (cid, tt), v in x.items()
                if tt == t
            ]
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
                # term. CP-SAT's LP does not see this from the weighted sum, and it is what
                # bounds the horizon at tight caps (12 units of 3- and 4-unit courses).
                for u in sorted({w for _, w in vs}, reverse=True):
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
        # The ladder adds max_load * F >= total_units once F is fixed (see solve.py).
        enc.total_units = sum(
            round(g.courses[cid].units * self.scale) * v for (cid, _), v in x.items()
        )
        # Requirements at the end of the plan.
        self._uses: dict[str, dict[str, list[cp_model.IntVar]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for pid, expr in roots:
            prog = g.programs[pid]
            scope = pid if not prog.double_count.within_program else None
            tag = "prog" if not prog.double_count.with_ge else None
            self._require_root(pid, expr, scope, tag, explain)
        if fw in g.frameworks:
            once = g.frameworks[fw].courses_count_once
            for key, expr in ge_roots:
                self._require_root(key, expr, fw if once else None, "ge", explain)
        for _scope, per_cls in self._uses.items():
            for us in per_cls.values():
                if len(us) > 1:
                    m.Add(sum(us) <= 1)
        self._disjoint_prog_ge()
        return enc

    # -- helpers ---------------------------------------------------------------------------

    def _assume(self, key: str, words: str, explain: bool) -> cp_model.IntVar | None:
        if not explain:
            return None
        lit = self.m.NewBoolVar(f"assume[{key}]")
        self.enc.assumptions[key] = (lit, words)
        return lit

    def _require_root(
        self, key: str, expr: Expr | None, scope: str | None, tag: str | None, explain: bool
    ) -> None:
        if expr is None:
            return
        items = expr.items if isinstance(expr, AllOf) and explain else [expr]
        for i, item in enumerate(items):
            name = item.label or (f"{key} requirement {i + 1}" if len(items) > 1 else key)
            lit = self._assume(f"req:{key}:{i}", f"the requirement '{name}' of {key}", explain)
            if lit is None:
                lit = self.m.NewConstant(1)
            self._req(lit, item, scope, tag)

    def _use(self, cls: str, scope: str | None, tag: str | None) -> LinExpr:
        t = self.taken.get(cls, 0)
        if scope is None and tag is None:
            return t
        u = self.m.NewBoolVar(f"use[{cls}]")
        self.m.Add(u <= t)
        if scope is not None:
            self._uses[scope][cls].append(u)
        if tag is not None:
            self._uses[f"#{tag}"][cls].append(u)
        return u

    def _disjoint_prog_ge(self) -> None:
        prog, ge = self._uses.get("#prog", {}), self._uses.get("#ge", {})
        for cls in set(prog) & set(ge):
            p_any = self.m.NewBoolVar("")
            for u in prog[cls]:
                self.m.AddImplication(u, p_any)
            self.m.Add(p_any + sum(ge[cls]) <= 1)
        # The "#tag" entries are only for this pairing, not exclusive scopes themselves.
        self._uses.pop("#prog", None)
        self._uses.pop("#ge", None)

    def _req(self, enf: cp_model.IntVar, e: Expr, scope: str | None, tag: str | None) -> None:
        """enf => requirement e holds by the end of the plan."""
        m, g = self.m, self.g
        if isinstance(e, CourseRef):
            cls = g.class_of.get(e.course)
            m.Add(enf <= (self._use(cls, scope, tag) if cls else 0))
        elif isinstance(e, AllOf):
            for i in e.items:
                self._req(enf, i, scope, tag)
        elif isinstance(e, AnyOf | ChooseN):
            self._at_least(
                enf,
                e,
                lambda a, i: self._req(a, i, scope, tag),
                lambda cls: self._use(cls, scope, tag),
            )
        elif isinstance(e, Pool):
            pool = self.g.pool_classes(e.pool)
            m.Add(e.min_courses * enf <= sum(self._use(k, scope, tag) for k in pool))
        elif isinstance(e, MinUnits):
            pool = self.g.pool_classes(e.pool)
            need = math.ceil(e.units * self.scale - 1e-9)
            m.Add(
                need * enf
                <= sum(
                    round(g.class_units(k) * self.scale) * self._use(k, scope, tag) for k in pool
                )
            )
        else:  # unsupported, unresolved conditional, or a prerequisite-only kind
            m.Add(enf == 0)

    def _at_least(self, enf: cp_model.IntVar, e: AnyOf | ChooseN, sub, leaf) -> None:
        """enf => at least n of e's items (one single cardinality constraint, never pairwise)."""
        n = 1 if isinstance(e, AnyOf) else e.n
        self.m.Add(n * enf <= sum(self._witnesses(e.items, sub, leaf)))

    def _witnesses(self, items: list[Expr], sub, leaf) -> list[LinExpr]:
        # Course leaves are counted per equivalence class so two equivalent courses can never
        # satisfy a choose-2; nested nodes get one auxiliary literal each.
        out: list[LinExpr] = []
        seen: set[str] = set()
        for i in items:
            if isinstance(i, CourseRef):
                cls = self.g.class_of.get(i.course)
                if cls and cls not in seen:
                    seen.add(cls)
                    out.append(leaf(cls))
            else:
                a = self.m.NewBoolVar("")
                sub(a, i)
                out.append(a)
        return out

    def _done_by(self, cls: str | None, t: int) -> LinExpr:
        if cls is None:
            return 0
        if cls in self.done:
            return 1
        vs = [v for tt, v in self.by_cls.get(cls, []) if tt <= t]
        return sum(vs) if vs else 0

    def _units_before(self, t: int) -> LinExpr:
        done_units = sum(self.g.class_units(k) for k in self.done)
        vs = [
            round(self.g.courses[c].units * self.scale) * v
            for (c, tt), v in self.x.items()
            if tt < t
        ]
        return round(done_units * self.scale) + (sum(vs) if vs else 0)

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
        elif isinstance(e, Unsupported):
            m.Add(enf == 0)
        else:
            m.Add(enf == 0)
