"""Hanson-format area files to requirement expressions: KnowPlan, "Problem Formulation"
(J_program). Boolean and of-expressions, child references (and their abbreviations),
department carry-over, variables, filters, where-expressions and counting modifiers are
encoded; whatever is not becomes an unsupported-policy leaf naming the file and the
requirement, so a plan is never certified as if that clause held.

Counting modifiers follow the format's evaluator: "N courses from children" counts every
taken course that matches a child (so those courses may also fill the children), "at most N
... where {...}" bounds the matching courses taken, "N departments from ..." counts the
departments of the matching courses taken."""

from __future__ import annotations

import re
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
    Provenance,
)
from planner.hypergraph import walk
from planner.stolaf.aliases import Departments
from planner.stolaf.courses import CourseIndex
from planner.stolaf.policies import Policies
from planner.stolaf.where import Qualifiers, Unencodable, _extract_braces

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
META = {"result", "message", "description", "filter", "declare", "children share courses"}
_TOKEN = re.compile(
    r"@k(?P<kid>\d+)|@w(?P<where>\d+)"
    r"|(?P<dept>[A-Z]{2,6}(?:/[A-Z]{2,6})?)\s+(?P<num>\d{3})(?P<lab>L)?(?P<q>(?:\.[\w*]+)*)"
    r"|(?P<bnum>\d{3})(?P<blab>L)?(?P<bq>(?:\.[\w*]+)*)"
    r"|(?P<op>[&|(),])|(?P<word>[A-Za-z]+)|(?P<other>\S)"
)


@dataclass
class _Req:
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


class HansonFile:
    """Converts one area file; `program` names it in every policy it records."""

    def __init__(
        self,
        rel: str,
        text: str,
        program: str,
        idx: CourseIndex,
        deps: Departments,
        policies: Policies,
    ) -> None:
        self.rel, self.text, self.program = rel, text, program
        self.idx, self.deps, self.pol = idx, deps, policies
        self.q = Qualifiers(idx, deps)
        self.aliases: list[str] = []
        self.notes: list[str] = []

    # -- structure ---------------------------------------------------------------------------

    def prov(self, name: str) -> Provenance:
        at = self.text.find(f"{name}:") if name else 0
        at = max(at, 0)
        return Provenance(source=self.rel, start=at, end=at + len(name) + 1)

    def requirement(self, label: str, body: Any, path: list[str]) -> Expr:
        where = " › ".join([self.program, *path])
        applies = [self.program, " › ".join(path) or self.program]
        if not isinstance(body, dict):
            return self._result(str(body), _Req(label, path), label)
        vars_ = {str(k): str(v) for k, v in (body.get("declare") or {}).items()}
        req = _Req(label, path)
        for name, child in body.items():
            if str(name) in META or not (str(name)[:1].isupper() or str(name)[:1].isdigit()):
                continue
            name = " ".join(str(name).split())
            req.kids[name] = self.requirement(name, child, [*path, name])
        # Full names first: an abbreviation never shadows another child's own name.
        for name in req.kids:
            req.names[name] = name
        for name in req.kids:
            for spelling in _spellings(name)[1:]:
                req.names.setdefault(spelling, name)
        result = str(body.get("result") or "").strip()
        message = " ".join(str(body.get("message") or "").split())
        if not result:
            text = message or f"'{label}' has neither a result nor a message"
            return self.pol.add(f"{where}: {text}", "message", applies, self.prov(label), label)
        if message:
            self.notes.append(self.pol.note(f"{where}: {message}", applies, self.prov(label)))
        if "filter" in body:
            try:
                req.filter = sorted(self._filter(_sub(str(body["filter"]), vars_), req))
            except Unencodable as exc:
                return self._unsupported(label, f"filter: {body['filter']} ({exc})")
        node = self._result(_sub(result, vars_), req, label)
        if body.get("children share courses") is False and hasattr(node, "distinct"):
            node.distinct = True
        return node

    def _unsupported(self, label: str, text: str) -> Expr:
        where = " › ".join([self.program, label]) if label != self.program else self.program
        return self.pol.add(
            f"{where}: {' '.join(text.split())}", "", [self.program, label], self.prov(label), label
        )

    def _result(self, text: str, req: _Req, label: str) -> Expr:
        try:
            node = self._parse(text, req)
        except (Unencodable, IndexError) as exc:
            return self._unsupported(label, f"{text} ({exc or 'unparsed'})")
        node = node.model_copy(update={"label": label, "provenance": self.prov(label)})
        return node

    # -- tokens ------------------------------------------------------------------------------

    def _parse(self, text: str, req: _Req) -> Expr:
        s = " ".join(text.split())
        s = _extract_braces(s, req.wheres)
        for spelling in sorted(req.names, key=len, reverse=True):
            k = list(req.kids).index(req.names[spelling])
            s = re.sub(rf"(?<![\w@/-]){re.escape(spelling)}(?![\w-])", f" @k{k} ", s)
        req.toks, req.i, req.dept = [], 0, None
        for m in _TOKEN.finditer(s):
            if m.group("kid"):
                req.toks.append(("kid", list(req.kids)[int(m.group("kid"))]))
            elif m.group("where"):
                req.toks.append(("where", req.wheres[int(m.group("where"))]))
            elif m.group("dept"):
                req.dept = m.group("dept")
                req.toks.append(
                    ("course", (req.dept, m.group("num"), m.group("lab"), m.group("q")))
                )
            elif m.group("bnum"):
                if req.dept is None:
                    raise Unencodable("a course number without a department")
                req.toks.append(
                    ("course", (req.dept, m.group("bnum"), m.group("blab"), m.group("bq")))
                )
            elif m.group("op"):
                req.toks.append(("op", m.group("op")))
            elif m.group("word"):
                req.toks.append(("word", m.group("word").lower()))
            else:
                raise Unencodable(f"unexpected {m.group('other')!r}")
        node = self._or(req)
        if req.i != len(req.toks):
            raise Unencodable(f"unexpected {req.toks[req.i][1]!r}")
        return node

    def _peek(self, req: _Req, k: int = 0) -> tuple[str, Any] | None:
        return req.toks[req.i + k] if req.i + k < len(req.toks) else None

    def _take(self, req: _Req, kind: str, val: Any = None) -> Any:
        tok = self._peek(req)
        if tok is None or tok[0] != kind or (val is not None and tok[1] != val):
            raise Unencodable(f"expected {val or kind}, found {tok[1] if tok else 'the end'}")
        req.i += 1
        return tok[1]

    def _or(self, req: _Req) -> Expr:
        items = [self._and(req)]
        while self._peek(req) == ("op", "|"):
            req.i += 1
            items.append(self._and(req))
        return items[0] if len(items) == 1 else AnyOf(items=items)

    def _and(self, req: _Req) -> Expr:
        items = [self._atom(req)]
        while self._peek(req) == ("op", "&"):
            req.i += 1
            items.append(self._atom(req))
        return items[0] if len(items) == 1 else AllOf(items=items)

    def _atom(self, req: _Req) -> Expr:
        kind, val = self._peek(req) or ("end", None)
        if kind == "course":
            req.i += 1
            return self.course(*val)
        if kind == "kid":
            req.i += 1
            return req.kids[val].model_copy(deep=True)
        if (kind, val) == ("op", "("):
            req.i += 1
            node = self._or(req)
            self._take(req, "op", ")")
            return node
        if kind == "word" and (val in NUMS or val in ("all", "at")):
            return self._counted(req)
        raise Unencodable(f"unsupported token {val!r}")

    # -- counts ------------------------------------------------------------------------------

    def _counted(self, req: _Req) -> Expr:
        start = req.i
        node = self._counted_node(req)
        if not node.label and not isinstance(node, AnyOf | AllOf | ChooseN):
            node.label = _words(req.toks[start : req.i])
        return node

    def _counted_node(self, req: _Req) -> Expr:
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

    def _of(self, req: _Req, n: int, at_most: bool) -> Expr:
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

    def _modifier(self, req: _Req, n: int, unit: str, at_most: bool) -> Expr:
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

    def _source(self, req: _Req) -> tuple[set[str], bool]:
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

    # -- filters and where-expressions -------------------------------------------------------

    def _filter(self, text: str, req: _Req) -> set[str]:
        s = " ".join(text.split())
        m = re.match(r"^only courses (from|where)\s*(.*)$", s)
        if not m:
            raise Unencodable("a filter other than 'only courses from/where'")
        if m.group(1) == "where":
            w = self.q.where(m.group(2).strip()[1:-1])
            if w.after is not None:
                raise Unencodable("a year comparison in a filter")
            return w.ids
        sub = _Req(req.label, req.path)
        node = self._parse(f"all of {m.group(2)}", sub)
        return self._universe([node])

    # -- course references -------------------------------------------------------------------

    def course(self, dept: str, num: str, lab: str | None, qual: str | None) -> CourseRef:
        """A course expression: the lab suffix names the lab section of the same course;
        `.section.year.semester` qualifiers restrict it to one observed term."""
        cid = f"{dept} {num}"
        terms: list[str] = []
        parts = [p for p in (qual or "").split(".")[1:]]
        if len(parts) >= 3 and parts[1].isdigit() and parts[2].isdigit():
            terms = [f"{parts[1]}{parts[2]}"]
        elif parts:
            raise Unencodable(f"qualifier {qual}")
        prov = None
        if cid not in self.idx.ids:
            hit = self._alias(dept, num)
            if hit is not None:
                prov = Provenance(source=self.rel, start=0, end=0, aliases=[f"{cid} -> {hit}"])
                self.aliases.append(f"{cid} -> {hit}")
                cid = hit
        label = f"{cid} lab" if lab else ""
        return CourseRef(course=cid, terms=terms, label=label, provenance=prov)

    def _alias(self, dept: str, num: str) -> str | None:
        """A course the file names under other department codes ('BIO 350' for 'BI/ES 350')."""
        res = self.deps.resolve(dept)
        if res is None:
            return None
        want = set(res[0])
        hits = [
            c
            for c in self.idx.ids
            if c.endswith(f" {num}") and want <= set(self.idx.departments.get(c, []))
        ]
        return hits[0] if len(hits) == 1 else None


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


def _sub(text: str, variables: dict[str, str]) -> str:
    for k in sorted(variables, key=len, reverse=True):
        text = text.replace(f"${k}", variables[k])
    return text


def _spellings(name: str) -> list[str]:
    """A child 'Name (ABBR)' may be referred to by the full name, the name, or ABBR."""
    m = re.fullmatch(r"(.*?)\s*\(([^()]+)\)", name)
    return [name, m.group(1), m.group(2)] if m else [name]
