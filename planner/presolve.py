"""What a request needs before any solver variable exists: KnowPlan, DegreeMap "Exact
planning" (its requirement roots with conditionals resolved, the classes that can matter, and
each course's earliest term from prerequisite depth and offerings)."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from planner.calendar import Slot, plan_slots, term_cap
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
    Pool,
    Standing,
)
from planner.hypergraph import CourseNode, Hypergraph, expr_courses, node_pools, walk
from planner.profile import Request

INF = 10**6


def units_scale(graph: Hypergraph) -> int:
    """Smallest integer scale that makes every unit value integral (1, 2, 4, 10, 100)."""
    for s in (1, 2, 4, 10, 100):
        if all(abs(n.units * s - round(n.units * s)) < 1e-9 for n in graph.courses.values()):
            return s
    return 100


def acknowledger(graph: Hypergraph, request: Request) -> Callable[[str], bool]:
    """Whether the request attests an unsupported policy (Request.acknowledges), with the
    courses its own programs name."""
    own = {
        c
        for pid in [request.program, *request.tracks]
        if pid in graph.programs
        for c in expr_courses(graph.programs[pid].requirement)
    }

    def acknowledged(policy: str) -> bool:
        pol = graph.policies.get(policy)
        if pol is None:
            return False
        return request.acknowledges(policy, pol.kind, bool(set(pol.applies_to) & own))

    return acknowledged


@dataclass
class Prepared:
    """What one request fixes before any model is chosen, computed once and shared by every
    model of its ladder: plan terms up to `hmax`, completed classes, requirement roots with
    conditionals resolved, the relevant classes and each course's earliest term."""

    graph: Hypergraph
    request: Request
    hmax: int
    slots: dict[int, Slot]
    scale: int
    done: set[str]
    roots: list[tuple[str, Expr | None]]
    ge: list[tuple[str, Expr]]
    rel: set[str]
    start: dict[str, int]
    caps: dict[int, int]  # plan term -> unit cap, scaled
    acknowledged: Callable[[str], bool]
    _offered: dict[str, list[int]] = field(default_factory=dict, repr=False)

    def offered_terms(self, cid: str, last: int) -> list[int]:
        """The plan terms from course cid's earliest start to `last` that offer it, in order.
        Computed once up to `hmax` and shared by every model of the ladder, each of which asks
        within its own horizon."""
        got = self._offered.get(cid)
        if got is None:
            node = self.graph.courses[cid]
            got = [t for t in range(self.start[cid], self.hmax + 1) if offered(node, self.slots[t])]
            self._offered[cid] = got
        return got[: bisect_right(got, last)]

    @property
    def exprs(self) -> list[Expr]:
        return [e for _, e in self.roots if e is not None] + [e for _, e in self.ge]

    @property
    def done_units(self) -> int:
        return round(sum(self.graph.class_units(k) for k in self.done) * self.scale)


def prepare(graph: Hypergraph, request: Request, hmax: int | None = None) -> Prepared:
    hmax = hmax or request.horizon
    slots = plan_slots(graph.calendar, graph.term_cycle, request, hmax)
    scale = units_scale(graph)
    done = {graph.class_of[c] for c in request.completed if c in graph.class_of}
    roots = [(pid, resolve_conditionals(e, request)) for pid, e in program_roots(graph, request)]
    ge = ge_roots(graph, request)
    rel = relevant_classes(graph, [e for _, e in roots if e] + [e for _, e in ge])
    ack = acknowledger(graph, request)
    caps = {
        t: math.floor(term_cap(request, graph.season_max_units, s.season)[0] * scale + 1e-9)
        for t, s in slots.items()
    }
    return Prepared(
        graph,
        request,
        hmax,
        slots,
        scale,
        done,
        roots,
        ge,
        rel,
        earliest_starts(graph, done, request, slots, ack),
        caps,
        ack,
    )


def ge_framework_id(graph: Hypergraph, request: Request) -> str | None:
    if request.ge_framework is not None:
        return None if request.ge_framework == "none" else request.ge_framework
    prog = graph.programs.get(request.program or "")
    return prog.ge_framework if prog else None


def program_roots(graph: Hypergraph, request: Request) -> list[tuple[str, Expr]]:
    roots = []
    for pid in [request.program, *request.tracks]:
        if pid in graph.programs:
            roots.append((pid, graph.programs[pid].requirement))
    return roots


def ge_roots(graph: Hypergraph, request: Request) -> list[tuple[str, Expr]]:
    """One root per GE category of the request's framework (its expression, or its pool)."""
    fw = ge_framework_id(graph, request)
    if fw not in graph.frameworks:
        return []
    return [
        (
            f"{fw}/{cat.id}",
            cat.requirement
            or Pool(min_courses=cat.min_courses, label=cat.name, pool={"courses": cat.courses}),
        )
        for cat in graph.frameworks[fw].categories
    ]


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


def offered(node: CourseNode, slot: Slot) -> bool:
    if node.offerings is not None:
        return slot.calendar_id in node.offerings
    return node.seasons is None or slot.season in node.seasons


def earliest_starts(
    graph: Hypergraph,
    done: set[str],
    request: Request,
    slots: dict[int, Slot],
    acknowledged: Callable[[str], bool] = lambda _p: False,
) -> dict[str, int]:
    """Lower bound on each course's term from prerequisite depth and offerings (fixpoint).
    Removing impossible x[c,t] up front tightens the LP and is what keeps proofs short."""
    horizon = len(slots)
    start = {c: 1 for c in graph.courses}
    consents = set(request.consents)
    pools: dict[int, list[str]] = {}

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
        if isinstance(e, Pool):
            if id(e.pool) not in pools:
                pools[id(e.pool)] = graph.pool_classes(e.pool)
            own = graph.class_of[cid]
            vals = sorted(cls_ready(k, True) for k in pools[id(e.pool)] if k != own)
            n = e.min_courses
            return 1 if n == 0 else (vals[n - 1] if len(vals) >= n else INF)
        if isinstance(e, Consent):
            return 1 if cid in consents else INF
        if isinstance(e, Standing):
            return 1
        if e.kind == "unsupported" and acknowledged(e.policy):
            return 1
        return INF  # unsupported or a kind that has no meaning in a prerequisite

    for _ in range(horizon + 2):
        changed = False
        for cid, node in graph.courses.items():
            base = lb(node.prerequisite, cid)
            own = {k: lb(p, cid) for k, p in node.term_prereq.items()}
            s = 1
            while s <= horizon:
                slot = slots[s]
                need = own.get(slot.calendar_id, base) if slot.calendar_id else base
                if offered(node, slot) and need <= s:
                    break
                s += 1
            if s != start[cid]:
                start[cid], changed = s, True
        if not changed:
            break
    return start


def relevant_classes(graph: Hypergraph, roots: list[Expr]) -> set[str]:
    """Classes reachable from the requirements through prerequisites (the rest cannot matter).
    An at-most bound or a department count adds none: it never needs a course taken."""
    seen: set[str] = set()
    frontier = [c for r in roots for c in expr_courses(r, fills=True)]

    def pooled(e: Expr | None, fills: bool) -> list[str]:
        return [
            m
            for node in walk(e)
            for spec in node_pools(node, fills)
            if spec.departments
            for k in graph.pool_classes(spec)
            for m in graph.members[k]
        ]

    for r in roots:
        frontier += pooled(r, True)
    while frontier:
        cid = frontier.pop()
        cls = graph.class_of.get(cid)
        if cls is None or cls in seen:
            continue
        seen.add(cls)
        for m in graph.members[cls]:
            for pre in graph.courses[m].prereqs():
                frontier += expr_courses(pre) + pooled(pre, False)
    return seen
