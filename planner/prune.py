"""Exact dominance pruning of pool candidates before encoding: KnowPlan, DegreeMap "Exact
planning" (the model grows with the program, not with the catalog its pools range over).

A pool candidate c is *plain* when nothing names it: no course reference in a requirement or a
prerequisite, no prerequisite pool, department-count or not-before pool, no exclusion, no
cross-listing. Another course d *dominates* c when swapping c for d in any plan keeps the plan
feasible and no worse on every stage: same units, available in every term c is (and no
earlier start), a prerequisite that c's own implies in each of those terms, every requirement c
fills, no at-most pool c is not in, and, for the stages that value courses, utility and option
value at least as high. Among optimal plans take one with (fewest courses, then) the smallest
potential in a linear order of dominance: it contains every dominator of each pool candidate it
contains, or a swap would lower the potential. So c can be dropped when c together with its
dominators cannot all fit in one optimal plan: they share c's units and must fit in the units
the plan can still hold beyond its mandatory courses (``bound_capacity``, at every stage and
top-k rank).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from planner.calendar import Slot
from planner.documents import (
    AllOf,
    AnyOf,
    AtMost,
    ChooseN,
    Concurrent,
    Consent,
    Coreq,
    CourseRef,
    Expr,
    MinDepartments,
    MinUnits,
    NotBefore,
    Pool,
    Standing,
)
from planner.hypergraph import Hypergraph, walk
from planner.presolve import offered

Form = Any  # True | False | a hashable tuple (see _norm)


@dataclass
class Roles:
    """What the requirements and prerequisites of one request ask of each class."""

    named: set[str] = field(default_factory=set)  # named by a requirement: never pruned
    # class -> the classes whose prerequisites name it (it is plain once they are all pruned)
    needed_by: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    fills: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    at_most: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    demand: dict[int, int] = field(default_factory=dict)  # fill leaf -> most courses it uses
    mandatory: set[str] = field(default_factory=set)  # classes every plan takes
    standing: int = 0  # highest class standing a relevant prerequisite asks (scaled units)

    def plain(self, k: str, pruned: set[str]) -> bool:
        return k not in self.named and self.needed_by.get(k, set()) <= pruned


def analyse_roles(
    graph: Hypergraph,
    roots: list[Expr],
    rel: set[str],
    done: set[str],
    scale: int,
) -> Roles:
    out = Roles()
    g = graph
    leaf_ids: dict[int, int] = {}

    def leaf(node: Expr) -> int:
        return leaf_ids.setdefault(id(node), len(leaf_ids))

    def cls_units(k: str) -> int:
        return round(g.class_units(k) * scale)

    for root in roots:
        for node in walk(root):
            if isinstance(node, CourseRef):
                if node.course in g.class_of:
                    out.named.add(g.class_of[node.course])
            elif isinstance(node, Pool | MinUnits):
                key = leaf(node)
                members = g.pool_classes(node.pool)
                for k in members:
                    out.fills[k].add(key)
                if isinstance(node, Pool):
                    out.demand[key] = node.min_courses
                else:
                    need = math.ceil(node.units * scale - 1e-9)
                    least = min((u for k in members if (u := cls_units(k)) > 0), default=1)
                    out.demand[key] = -(-need // least)
            elif isinstance(node, AtMost):
                key = leaf(node)
                for k in g.pool_classes(node.pool):
                    out.at_most[k].add(key)
            elif isinstance(node, MinDepartments):
                out.named.update(g.pool_classes(node.pool))
            elif isinstance(node, NotBefore):
                out.named.update(g.pool_classes(node.pool))
                out.named.update(g.pool_classes(node.after))
    for k in rel:
        for m in g.members[k]:
            for pre in g.courses[m].prereqs():
                for node in walk(pre):
                    if isinstance(node, CourseRef | Coreq | Concurrent):
                        if node.course in g.class_of:
                            out.needed_by[g.class_of[node.course]].add(k)
                    elif isinstance(node, Pool):
                        for p in g.pool_classes(node.pool):
                            out.needed_by[p].add(k)
                    elif isinstance(node, Standing):
                        out.standing = max(out.standing, round(node.min_units * scale))
    for pair in g.exclusions:
        out.named.update(pair)
    out.named.update(k for k in rel if len(g.members[k]) > 1)
    out.mandatory = _mandatory(g, roots, done)
    return out


def _mandatory(g: Hypergraph, roots: list[Expr], done: set[str]) -> set[str]:
    """Classes in every plan: courses an ALL_OF chain from a root names, and the courses their
    prerequisites name through ALL_OF chains in every term."""

    def named(e: Expr | None) -> list[str]:
        if isinstance(e, CourseRef) and not e.terms:
            return [e.course]
        if isinstance(e, AllOf):
            return [c for i in e.items for c in named(i)]
        return []

    out: set[str] = set()
    frontier = [c for r in roots for c in named(r)]
    while frontier:
        k = g.class_of.get(frontier.pop())
        if k is None or k in out or k in done or len(g.members[k]) > 1:
            continue
        out.add(k)
        node = g.courses[g.members[k][0]]
        pres = node.prereqs()
        if pres:
            common = set.intersection(*(set(named(p)) for p in pres))
            frontier += sorted(common)
    return out


# -- prerequisite implication -----------------------------------------------------------------


class Normalizer:
    """A prerequisite as a canonical form with what is already settled folded in: completed
    courses, consents and acknowledged policies are constants, class standing in scaled units."""

    def __init__(
        self,
        g: Hypergraph,
        done: set[str],
        done_units: int,
        consents: set[str],
        acknowledged: Callable[[str], bool],
        scale: int,
    ) -> None:
        self.g, self.done, self.done_units = g, done, done_units
        self.consents, self.acknowledged, self.scale = consents, acknowledged, scale

    def form(self, e: Expr | None, cid: str) -> Form:
        g = self.g
        if e is None:
            return True
        if isinstance(e, CourseRef | Coreq | Concurrent):
            k = g.class_of.get(e.course)
            if k is None:
                return False
            if k in self.done:
                return True
            return ("ref" if isinstance(e, CourseRef) else "co", k)
        if isinstance(e, AllOf):
            return _and([self.form(i, cid) for i in e.items])
        if isinstance(e, AnyOf | ChooseN):
            n = 1 if isinstance(e, AnyOf) else e.n
            # The encoder counts a course leaf once per class (see encode._witnesses).
            seen: set[str] = set()
            items = []
            for i in e.items:
                if isinstance(i, CourseRef) and not i.terms:
                    k = g.class_of.get(i.course)
                    if k is not None and k in seen:
                        continue
                    if k is not None:
                        seen.add(k)
                items.append(self.form(i, cid))
            return _k_of(n, items)
        if isinstance(e, Standing):
            need = round(e.min_units * self.scale)
            return True if self.done_units >= need else ("stand", need)
        if isinstance(e, Pool):
            own = g.class_of[cid]
            members = [k for k in g.pool_classes(e.pool) if k != own]
            n = e.min_courses - sum(k in self.done for k in members)
            if n <= 0:
                return True
            rest = tuple(k for k in members if k not in self.done)
            return False if n > len(rest) else ("pool", n, rest)
        if isinstance(e, Consent):
            return cid in self.consents
        # An acknowledged policy holds; anything else in a prerequisite never does.
        return e.kind == "unsupported" and self.acknowledged(e.policy)


def _join(op: str, items: list[Form]) -> Form:
    """Flatten an "and"/"or" of forms; the absorbing constant (False for and, True for or) wins."""
    absorbing = op == "or"
    out: set[Form] = set()
    for i in items:
        if i is absorbing:
            return absorbing
        if i is (not absorbing):
            continue
        out.update(i[1] if i[0] == op else [i])
    if len(out) <= 1:
        return next(iter(out)) if out else not absorbing
    return (op, frozenset(out))


def _and(items: list[Form]) -> Form:
    return _join("and", items)


def _or(items: list[Form]) -> Form:
    return _join("or", items)


def _k_of(n: int, items: list[Form]) -> Form:
    n -= sum(i is True for i in items)
    rest = [i for i in items if i is not True and i is not False]
    if n <= 0:
        return True
    if n > len(rest):
        return False
    if n == 1:
        return _or(rest)
    if n == len(rest):
        return _and(rest)
    return ("k", n, tuple(sorted(rest, key=repr)))


@lru_cache(maxsize=200_000)
def implies(p: Form, q: Form) -> bool:
    """Sound (not complete) test that p entails q."""
    if q is True or p is False:
        return True
    if p is True or q is False:
        return False
    if p == q:
        return True
    if q[0] == "and":
        return all(implies(p, x) for x in q[1])
    if p[0] == "or":
        return all(implies(x, q) for x in p[1])
    if q[0] == "or" and any(implies(p, x) for x in q[1]):
        return True
    if p[0] == "and" and any(implies(x, q) for x in p[1]):
        return True
    if q[0] == "k":
        return sum(implies(p, x) for x in q[2]) >= q[1]
    if p[0] == "ref" and q[0] == "co":
        return p[1] == q[1]  # done before the term implies done by the term
    if p[0] == "stand" and q[0] == "stand":
        return p[1] >= q[1]
    if p[0] == "k" and q[0] == "k" and p[1] >= q[1] and all(x in q[2] for x in p[2]):
        return True
    if p[0] == "k":
        # n of its items hold, so one of any len - n + 1 of them does.
        return sum(implies(x, q) for x in p[2]) >= len(p[2]) - p[1] + 1
    if p[0] == "pool" and q[0] == "pool":
        return p[1] >= q[1] and set(p[2]) <= set(q[2])
    return False


# -- dominance --------------------------------------------------------------------------------


@dataclass
class Candidate:
    cls: str
    units: int
    avail: int  # bit t: the course can be scheduled in plan term t
    forms: dict[int, Form]  # plan term -> its prerequisite form
    fills: frozenset[int]
    at_most: frozenset[int]
    value: tuple[int, ...] = ()


def candidates(
    g: Hypergraph,
    rel: set[str],
    roles: Roles,
    start: dict[str, int],
    slots: dict[int, Slot],
    hmax: int,
    norm: Normalizer,
    scale: int,
    value: Callable[[str], tuple[int, ...]] | None,
) -> dict[str, Candidate]:
    """Every single-member class of the request with its dominance signature."""
    out: dict[str, Candidate] = {}
    forms_by_term: dict[tuple[str, str | None], Form] = {}
    for k in rel:
        if len(g.members[k]) != 1 or k in roles.mandatory:
            continue
        node = g.courses[k]
        avail, forms = 0, {}
        for t in range(start[k], hmax + 1):
            if not offered(node, slots[t]):
                continue
            avail |= 1 << t
            key = (k, slots[t].calendar_id if slots[t].calendar_id in node.term_prereq else None)
            if key not in forms_by_term:
                forms_by_term[key] = norm.form(node.prereq_at(slots[t].calendar_id), k)
            forms[t] = forms_by_term[key]
        out[k] = Candidate(
            k,
            round(node.units * scale),
            avail,
            forms,
            frozenset(roles.fills.get(k, ())),
            frozenset(roles.at_most.get(k, ())),
            value(k) if value else (),
        )
    return out


def dominates(d: Candidate, c: Candidate) -> bool:
    """Swapping c for d (same term) keeps any plan feasible and no worse."""
    return (
        d.units == c.units
        and d.avail & c.avail == c.avail
        and c.fills <= d.fills
        and d.at_most <= c.at_most
        and all(a >= b for a, b in zip(d.value, c.value, strict=True))
        and all(implies(f, d.forms[t]) for t, f in c.forms.items())
    )


def _key(c: Candidate) -> tuple[Any, ...]:
    """A total order in which a dominator always comes first (every part is monotone in
    dominance; the class id breaks ties), so each swap lowers a plan's potential."""
    return (-sum(c.value), -c.avail.bit_count(), -len(c.fills), len(c.at_most), c.cls)


def dominators(cands: dict[str, Candidate]) -> dict[str, list[Candidate]]:
    """Each candidate's dominators that come before it in the potential order. It depends on
    the candidates only, so a caller pruning the same candidates under several bounds
    computes it once."""
    by_units: dict[int, list[Candidate]] = defaultdict(list)
    for c in sorted(cands.values(), key=_key):
        by_units[c.units].append(c)
    ups: dict[str, list[Candidate]] = {}
    for group in by_units.values():
        for i, c in enumerate(group):
            # The set tests of `dominates` inline first: they reject most pairs without a call.
            a, fills, most = c.avail, c.fills, c.at_most
            ups[c.cls] = [
                d
                for d in group[:i]
                if d.avail & a == a and fills <= d.fills and d.at_most <= most and dominates(d, c)
            ]
    return ups


def prune(
    cands: dict[str, Candidate],
    roles: Roles,
    bound: Callable[[Candidate, list[Candidate]], int],
    unavailable: set[str] = frozenset(),  # type: ignore[assignment]
    ups: dict[str, list[Candidate]] | None = None,
) -> set[str]:
    """Plain candidates that no optimal plan of least potential can hold (module docstring).
    A class whose prerequisites named a pruned class only is plain in the next round. `ups`:
    `dominators(cands)`, when the caller has it already."""
    if ups is None:
        ups = dominators(cands)
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for c in sorted(cands.values(), key=_key, reverse=True):
            if c.cls in out or c.cls in unavailable or not roles.plain(c.cls, out):
                continue
            us = [d for d in ups[c.cls] if d.cls not in unavailable]
            # A dominator outside every least-potential optimal plan keeps c out too.
            if any(d.cls in out for d in us) or (us and len(us) >= bound(c, us)):
                out.add(c.cls)
                changed = True
    return out


def bound_capacity(room: int) -> Callable[[Candidate, list[Candidate]], int]:
    """c and its dominators (all of c's units, none mandatory) cannot all fit in the `room`
    units a plan holds beyond its mandatory courses once there are room // units of them."""

    def bound(c: Candidate, ups: list[Candidate]) -> int:
        return room // c.units if c.units > 0 else len(ups) + 1

    return bound
