"""Typed requirement hypergraph: KnowPlan, DegreeMap "Typed requirement hypergraph"."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from planner.documents import (
    AllOf,
    AnyOf,
    AtMost,
    CalendarTerm,
    CatalogDocs,
    ChooseN,
    Concurrent,
    Conditional,
    Coreq,
    CourseRef,
    Expr,
    GEFramework,
    MinDepartments,
    MinUnits,
    NotBefore,
    Pool,
    PoolSpec,
    Program,
    UnsupportedPolicy,
)

NODE_KINDS = ("course", "program", "track", "ge_framework", "ge_category", "policy")
EDGE_KINDS = (
    "prerequisite",
    "corequisite",
    "fulfillment",
    "equivalence",
    "cross_listing",
    "exclusion",
    "double_count",
    "unlock",
    "shared_pool",
    "department",
)


@dataclass(frozen=True)
class Edge:
    kind: str
    src: str
    dst: str


@dataclass(frozen=True)
class Issue:
    kind: str  # dangling_ref | cycle | unknown_policy | misplaced_kind
    message: str
    where: str
    cycle: tuple[str, ...] = ()


@dataclass
class CourseNode:
    id: str
    title: str
    units: float
    department: str
    level: int
    seasons: frozenset[str] | None  # None: offered every term
    text: str
    prerequisite: Expr | None
    cls: str = ""
    offerings: frozenset[str] | None = None  # observed calendar term ids; None: by season
    term_prereq: dict[str, Expr] = field(default_factory=dict)  # term id -> its own prereq
    departments: frozenset[str] = frozenset()

    def prereq_at(self, calendar_id: str | None) -> Expr | None:
        """The prerequisite of the offering in that calendar term (its own record's)."""
        if calendar_id is not None and calendar_id in self.term_prereq:
            return self.term_prereq[calendar_id]
        return self.prerequisite

    def prereqs(self) -> list[Expr]:
        """Every distinct prerequisite the course has in some term."""
        out = [] if self.prerequisite is None else [self.prerequisite]
        return out + list(self.term_prereq.values())


@dataclass
class Hypergraph:
    institution: str
    term_cycle: list[str]
    standing_levels: dict[str, float]
    courses: dict[str, CourseNode]
    class_of: dict[str, str]
    members: dict[str, list[str]]
    exclusions: set[frozenset[str]]
    programs: dict[str, Program]
    frameworks: dict[str, GEFramework]
    policies: dict[str, UnsupportedPolicy]
    edges: list[Edge] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    calendar: list[CalendarTerm] = field(default_factory=list)
    season_max_units: dict[str, float] = field(default_factory=dict)
    _pools: dict[tuple, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def cls(self, course: str) -> str | None:
        return self.class_of.get(course)

    def class_departments(self, cls: str) -> frozenset[str]:
        return frozenset().union(*(self.courses[m].departments for m in self.members[cls]))

    def class_units(self, cls: str) -> float:
        # Members of one equivalence class may differ in units; the class counts once at the
        # smallest so a pool never over-credits (the verifier uses the same rule).
        return min(self.courses[m].units for m in self.members[cls])

    def pool_classes(self, spec: PoolSpec) -> list[str]:
        """The classes of a pool, cached by the pool's content: every prerequisite pool is
        asked once per course and term, and a department pool would scan the catalog each
        time."""
        key = (
            tuple(spec.courses),
            tuple(spec.departments),
            spec.min_level,
            spec.max_level,
            tuple(spec.exclude),
        )
        if key not in self._pools:
            self._pools[key] = self._scan_pool(spec)
        return self._pools[key]

    def _scan_pool(self, spec: PoolSpec) -> list[str]:
        out: set[str] = set()
        excluded = {self.class_of[c] for c in spec.exclude if c in self.class_of}
        for cid in spec.courses:
            if cid in self.class_of:
                out.add(self.class_of[cid])
        if spec.departments:
            wanted = set(spec.departments)
            for node in self.courses.values():
                if not node.departments & wanted:
                    continue
                if spec.min_level is not None and node.level < spec.min_level:
                    continue
                if spec.max_level is not None and node.level > spec.max_level:
                    continue
                out.add(node.cls)
        return sorted(out - excluded)


def walk(expr: Expr | None) -> Iterator[Expr]:
    """Every node of an expression, depth first."""
    if expr is None:
        return
    yield expr
    if isinstance(expr, AllOf | AnyOf | ChooseN):
        for item in expr.items:
            yield from walk(item)
    elif isinstance(expr, Conditional):
        yield from walk(expr.then)
        yield from walk(expr.otherwise)


def node_pools(node: Expr, fills: bool = False) -> list[PoolSpec]:
    """The pools a node counts over. fills=True: only pools whose courses can fill it (an
    at-most bound never needs a course to be taken)."""
    if isinstance(node, Pool | MinUnits | MinDepartments):
        return [node.pool]
    if isinstance(node, NotBefore):
        return [node.pool, node.after]
    if isinstance(node, AtMost):
        return [] if fills else [node.pool]
    return []


def expr_courses(expr: Expr | None, fills: bool = False) -> list[str]:
    out: list[str] = []
    for node in walk(expr):
        if isinstance(node, CourseRef | Coreq | Concurrent):
            out.append(node.course)
        for spec in node_pools(node, fills):
            out.extend(spec.courses)
    return out


class _UnionFind:
    def __init__(self, items: list[str]) -> None:
        self.parent = {i: i for i in items}

    def find(self, a: str) -> str:
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # Smallest id represents the class so the representative is deterministic.
            lo, hi = sorted((ra, rb))
            self.parent[hi] = lo


def compile_graph(docs: CatalogDocs) -> Hypergraph:
    """Compile the three documents; problems are recorded as issues, never raised."""
    issues: list[Issue] = []
    edges: list[Edge] = []
    courses = {
        c.id: CourseNode(
            id=c.id,
            title=c.title,
            units=c.units,
            department=c.department,
            level=c.level,
            seasons=frozenset(c.terms_offered) if c.terms_offered else None,
            text=f"{c.title}. {c.description}",
            prerequisite=c.prerequisite,
            offerings=None if c.offerings is None else frozenset(o.term for o in c.offerings),
            term_prereq={
                o.term: o.prerequisite for o in c.offerings or [] if o.prerequisite is not None
            },
            departments=frozenset([c.department, *c.departments]),
        )
        for c in docs.courses.courses
    }
    uf = _UnionFind(list(courses))
    for c in docs.courses.courses:
        for kind, refs in (("cross_listing", c.cross_listings), ("equivalence", c.equivalents)):
            for other in refs:
                if other not in courses:
                    issues.append(
                        Issue(
                            "dangling_ref",
                            f"{c.id} lists unknown {kind} {other}",
                            f"courses.json:{c.id}",
                        )
                    )
                    continue
                uf.union(c.id, other)
                edges.append(Edge(kind, c.id, other))
    class_of = {cid: uf.find(cid) for cid in courses}
    members: dict[str, list[str]] = defaultdict(list)
    for cid, cls in sorted(class_of.items()):
        members[cls].append(cid)
        courses[cid].cls = cls
    exclusions: set[frozenset[str]] = set()
    for c in docs.courses.courses:
        for other in c.exclusions:
            if other not in courses:
                issues.append(
                    Issue(
                        "dangling_ref",
                        f"{c.id} excludes unknown course {other}",
                        f"courses.json:{c.id}",
                    )
                )
                continue
            if class_of[other] != class_of[c.id]:
                exclusions.add(frozenset((class_of[c.id], class_of[other])))
                edges.append(Edge("exclusion", c.id, other))

    policies = {p.id: p for p in docs.unsupported()}
    programs = {p.id: p for p in docs.programs.programs}
    frameworks = {f.id: f for f in docs.ge.frameworks}
    g = Hypergraph(
        institution=docs.courses.institution,
        term_cycle=list(docs.courses.term_cycle),
        standing_levels=dict(docs.courses.standing_levels),
        courses=courses,
        class_of=class_of,
        members=dict(members),
        exclusions=exclusions,
        programs=programs,
        frameworks=frameworks,
        policies=policies,
        edges=edges,
        issues=issues,
        calendar=list(docs.courses.calendar),
        season_max_units=dict(docs.courses.season_max_units),
    )
    _check_refs(g)
    _build_edges(g)
    _find_cycles(g)
    return g


def _check_refs(g: Hypergraph) -> None:
    seen: set[tuple[str, str]] = set()  # each unknown course once per place that names it

    def check(expr: Expr | None, where: str) -> None:
        for node in walk(expr):
            refs = [c for spec in node_pools(node) for c in spec.courses]
            if isinstance(node, CourseRef | Coreq | Concurrent):
                refs.append(node.course)
            for ref in refs:
                if ref not in g.courses and (ref, where) not in seen:
                    seen.add((ref, where))
                    g.issues.append(Issue("dangling_ref", f"unknown course {ref}", where))
            if node.kind == "unsupported" and node.policy not in g.policies:
                g.issues.append(Issue("unknown_policy", f"unknown policy {node.policy}", where))

    for c in g.courses.values():
        for pre in c.prereqs():
            check(pre, f"courses.json:{c.id}.prerequisite")
    for p in g.programs.values():
        check(p.requirement, f"programs.json:{p.id}.requirement")
        if p.parent and p.parent not in g.programs:
            g.issues.append(
                Issue("dangling_ref", f"unknown parent program {p.parent}", f"programs.json:{p.id}")
            )
        if p.ge_framework and p.ge_framework not in g.frameworks:
            g.issues.append(
                Issue(
                    "dangling_ref",
                    f"unknown GE framework {p.ge_framework}",
                    f"programs.json:{p.id}",
                )
            )
    for f in g.frameworks.values():
        for cat in f.categories:
            for ref in cat.courses:
                if ref not in g.courses:
                    g.issues.append(
                        Issue("dangling_ref", f"unknown course {ref}", f"ge.json:{f.id}.{cat.id}")
                    )
            check(cat.requirement, f"ge.json:{f.id}.{cat.id}.requirement")


def _build_edges(g: Hypergraph) -> None:
    for c in g.courses.values():
        for node in (n for pre in c.prereqs() for n in walk(pre)):
            if isinstance(node, CourseRef) and node.course in g.courses:
                g.edges.append(Edge("prerequisite", c.id, node.course))
                g.edges.append(Edge("unlock", node.course, c.id))
            elif isinstance(node, Coreq | Concurrent) and node.course in g.courses:
                g.edges.append(Edge("corequisite", c.id, node.course))
    for p in g.programs.values():
        for node in walk(p.requirement):
            if isinstance(node, CourseRef) and node.course in g.courses:
                g.edges.append(Edge("fulfillment", node.course, p.id))
            group: list[str] = []
            if isinstance(node, AnyOf | ChooseN):
                group = [i.course for i in node.items if isinstance(i, CourseRef)]
            elif isinstance(node, Pool | MinUnits | NotBefore):
                group = [m for cls in g.pool_classes(node.pool) for m in g.members[cls]]
                for m in group:
                    g.edges.append(Edge("fulfillment", m, p.id))
            group = [m for m in group if m in g.courses]
            for a, b in itertools.pairwise(group):
                g.edges.append(Edge("shared_pool", a, b))
        if not p.double_count.within_program or not p.double_count.with_ge:
            g.edges.append(Edge("double_count", p.id, p.ge_framework or p.id))
    for f in g.frameworks.values():
        for cat in f.categories:
            for ref in cat.courses:
                if ref in g.courses:
                    g.edges.append(Edge("fulfillment", ref, f"{f.id}/{cat.id}"))


def _find_cycles(g: Hypergraph) -> None:
    """Strict prerequisite cycles between equivalence classes (coreqs may legally be mutual)."""
    adj: dict[str, set[str]] = defaultdict(set)
    for e in g.edges:
        if e.kind == "prerequisite":
            adj[g.class_of[e.src]].add(g.class_of[e.dst])
    color: dict[str, int] = {}
    seen_cycles: set[frozenset[str]] = set()
    for root in sorted(adj):
        if color.get(root):
            continue
        stack: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(adj[root])))]
        path = [root]
        color[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = 2
                stack.pop()
                path.pop()
                continue
            if color.get(nxt) == 1:
                cyc = (*path[path.index(nxt) :], nxt)
                key = frozenset(cyc)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    g.issues.append(
                        Issue(
                            "cycle",
                            "prerequisite cycle: " + " -> ".join(cyc),
                            f"courses.json:{nxt}",
                            cycle=cyc,
                        )
                    )
            elif not color.get(nxt):
                color[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(adj[nxt]))))
