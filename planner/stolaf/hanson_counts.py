"""Hanson-format counting clauses: KnowPlan, "Problem Formulation" (J_program). "N of (...)",
"N courses/credits/departments from children | filter | (A, B) | courses where {...}", "at
most N ...", "besides X", following the format's evaluator: "N courses from children" counts
every taken course that matches a child (so those courses may also fill the children), "at most
N ... where {...}" bounds the matching courses taken, "N departments from ..." counts the
departments of the matching courses taken."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner.documents import (
    AllOf,
    AnyOf,
    AtMost,
    ChooseN,
    CourseRef,
    Expr,
    MinDepartments,
    MinUnits,
    NotBefore,
    Pool,
    PoolSpec,
)
from planner.hypergraph import walk
from planner.stolaf.where import Unencodable

NUMS = {
    "zero": 0,
    "none": 0,
    "one": 1,
    "any": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}


@dataclass
class ReqState:
    """One requirement being converted: its children, filter and parser state."""

    label: str
    path: list[str]
    kids: dict[str, Expr] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # any spelling -> child name
    filter: list[str] | None = None
    wheres: list[str] = field(default_factory=list)
    toks: list[tuple[str, Any]] = field(default_factory=list)
    i: int = 0
    dept: str | None = None


class Counts:
    """Mixed into HansonFile; needs its token cursor (_peek, _take, _or), `course` and `q`."""

    q: Any

    def _counted(self, req: ReqState) -> Expr:
        start = req.i
        node = self._counted_node(req)
        if not node.label and not isinstance(node, AnyOf | AllOf | ChooseN):
            node.label = _words(req.toks[start : req.i])
        return node

    def _counted_node(self, req: ReqState) -> Expr:
        at_most = False
        if self._peek(req) == ("word", "at"):
            req.i += 1
            self._take(req, "word", "most")
            at_most = True
        word = self._take(req, "word")
        if word == "all":
            n = -1
        elif word in NUMS:
            n = NUMS[word]
        else:
            raise Unencodable(f"unknown count {word!r}")
        nxt = self._take(req, "word")
        if nxt == "of":
            return self._of(req, n, at_most)
        if nxt == "distinct":
            nxt = self._take(req, "word")
        if nxt in ("course", "courses", "credit", "credits", "department", "departments"):
            return self._modifier(req, n, nxt.rstrip("s"), at_most)
        raise Unencodable(f"'{word} {nxt}' is not a count the format defines")

    def _of(self, req: ReqState, n: int, at_most: bool) -> Expr:
        self._take(req, "op", "(")
        items: list[Expr] = []
        while self._peek(req) != ("op", ")"):
            items.append(self._or(req))
            if self._peek(req) == ("op", ","):
                req.i += 1
        req.i += 1
        if at_most:
            if not all(isinstance(i, CourseRef) and not i.terms for i in items):
                raise Unencodable("'at most N of' over more than single courses")
            return AtMost(n=n, pool=PoolSpec(courses=[i.course for i in items]))
        if n == -1:
            return AllOf(items=items)
        return AnyOf(items=items) if n == 1 else ChooseN(n=n, items=items)

    def _modifier(self, req: ReqState, n: int, unit: str, at_most: bool) -> Expr:
        if unit == "course" and self._peek(req) == ("word", "where"):
            req.i += 1
            w = self.q.where(self._take(req, "where"))
            if w.after is not None:
                if at_most:
                    raise Unencodable("'at most' with a year comparison")
                return NotBefore(n=n, pool=_spec(w.ids), after=_spec(w.after))
            return (
                AtMost(n=n, pool=_spec(w.ids))
                if at_most
                else Pool(min_courses=n, pool=_spec(w.ids))
            )
        besides: list[str] = []
        if self._peek(req) == ("word", "besides"):
            req.i += 1
            besides = [self.course(*self._take(req, "course")).course]
        self._take(req, "word", "from")
        ids, own = self._source(req)
        if self._peek(req) == ("word", "where"):
            req.i += 1
            w = self.q.where(self._take(req, "where"))
            if w.after is not None:
                raise Unencodable("a year comparison inside a modifier")
            ids &= w.ids
        spec = _spec(ids - set(besides))
        if at_most:
            if unit != "course":
                raise Unencodable(f"'at most' {unit}s")
            return AtMost(n=n, pool=spec)
        if unit == "department":
            return MinDepartments(n=n, pool=spec)
        if unit == "credit":
            if not own:
                raise Unencodable("credits counted over other requirements' courses")
            return MinUnits(units=n, pool=spec)
        return Pool(min_courses=n, pool=spec, overlap=not own)

    def _source(self, req: ReqState) -> tuple[set[str], bool]:
        """Courses a modifier counts over, and whether they are this requirement's own."""
        tok = self._peek(req)
        if tok == ("word", "children"):
            req.i += 1
            return self._universe(list(req.kids.values())), False
        if tok == ("word", "filter"):
            req.i += 1
            if req.filter is None:
                raise Unencodable("'from filter' without a filter")
            return set(req.filter), True
        if tok == ("word", "courses"):
            req.i += 1
            self._take(req, "word", "where")
            w = self.q.where(self._take(req, "where"))
            return w.ids, True
        if tok == ("op", "("):
            req.i += 1
            kids = []
            while self._peek(req) != ("op", ")"):
                kids.append(req.kids[self._take(req, "kid")])
                if self._peek(req) == ("op", ","):
                    req.i += 1
            req.i += 1
            return self._universe(kids), False
        raise Unencodable(f"unknown source {tok[1] if tok else 'the end'!r}")

    def _universe(self, exprs: list[Expr]) -> set[str]:
        """Every course an expression could count (what 'matches' a child)."""
        out: set[str] = set()
        for e in exprs:
            for node in walk(e):
                if isinstance(node, CourseRef):
                    out.add(node.course)
                pool = getattr(node, "pool", None)
                if isinstance(pool, PoolSpec) and not isinstance(node, AtMost):
                    out |= set(pool.courses)
        return out


def _words(toks: list[tuple[str, Any]]) -> str:
    """The clause a run of tokens came from, for labels ('at most two courses from ...')."""
    out = []
    for kind, val in toks:
        if kind == "course":
            out.append(f"{val[0]} {val[1]}")
        elif kind == "where":
            out.append("{" + " ".join(val.split()) + "}")
        else:
            out.append(str(val))
    return " ".join(out).replace("( ", "(").replace(" )", ")").replace(" ,", ",")


def _spec(ids: set[str]) -> PoolSpec:
    return PoolSpec(courses=sorted(ids))
