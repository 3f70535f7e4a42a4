"""Hanson-format area files to requirement expressions: KnowPlan, "Problem Formulation"
(J_program). Boolean and of-expressions, child references (and their abbreviations),
department carry-over, variables, filters, where-expressions and counting modifiers are
encoded; whatever is not becomes an unsupported-policy leaf naming the file and the
requirement, so a plan is never certified as if that clause held. Counting clauses are in
hanson_counts.py."""

from __future__ import annotations

import re
from typing import Any

from planner.documents import (
    AllOf,
    AnyOf,
    CourseRef,
    Expr,
    Provenance,
)
from planner.stolaf.aliases import Departments
from planner.stolaf.courses import CourseIndex
from planner.stolaf.hanson_counts import NUMS, Counts, ReqState
from planner.stolaf.policies import Policies
from planner.stolaf.where import Qualifiers, Unencodable, _extract_braces

META = {"result", "message", "description", "filter", "declare", "children share courses"}
_TOKEN = re.compile(
    r"@k(?P<kid>\d+)|@w(?P<where>\d+)"
    r"|(?P<dept>[A-Z]{2,6}(?:/[A-Z]{2,6})?)\s+(?P<num>\d{3})(?P<lab>L)?(?P<q>(?:\.[\w*]+)*)"
    r"|(?P<bnum>\d{3})(?P<blab>L)?(?P<bq>(?:\.[\w*]+)*)"
    r"|(?P<op>[&|(),])|(?P<word>[A-Za-z]+)|(?P<other>\S)"
)


class HansonFile(Counts):
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
            return self._result(str(body), ReqState(label, path), label)
        vars_ = {str(k): str(v) for k, v in (body.get("declare") or {}).items()}
        req = ReqState(label, path)
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

    def _result(self, text: str, req: ReqState, label: str) -> Expr:
        try:
            node = self._parse(text, req)
        except (Unencodable, IndexError) as exc:
            return self._unsupported(label, f"{text} ({exc or 'unparsed'})")
        node = node.model_copy(update={"label": label, "provenance": self.prov(label)})
        return node

    # -- tokens ------------------------------------------------------------------------------

    def _parse(self, text: str, req: ReqState) -> Expr:
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

    def _peek(self, req: ReqState, k: int = 0) -> tuple[str, Any] | None:
        return req.toks[req.i + k] if req.i + k < len(req.toks) else None

    def _take(self, req: ReqState, kind: str, val: Any = None) -> Any:
        tok = self._peek(req)
        if tok is None or tok[0] != kind or (val is not None and tok[1] != val):
            raise Unencodable(f"expected {val or kind}, found {tok[1] if tok else 'the end'}")
        req.i += 1
        return tok[1]

    def _or(self, req: ReqState) -> Expr:
        items = [self._and(req)]
        while self._peek(req) == ("op", "|"):
            req.i += 1
            items.append(self._and(req))
        return items[0] if len(items) == 1 else AnyOf(items=items)

    def _and(self, req: ReqState) -> Expr:
        items = [self._atom(req)]
        while self._peek(req) == ("op", "&"):
            req.i += 1
            items.append(self._atom(req))
        return items[0] if len(items) == 1 else AllOf(items=items)

    def _atom(self, req: ReqState) -> Expr:
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

    # -- filters and where-expressions -------------------------------------------------------

    def _filter(self, text: str, req: ReqState) -> set[str]:
        s = " ".join(text.split())
        m = re.match(r"^only courses (from|where)\s*(.*)$", s)
        if not m:
            raise Unencodable("a filter other than 'only courses from/where'")
        if m.group(1) == "where":
            w = self.q.where(m.group(2).strip()[1:-1])
            if w.after is not None:
                raise Unencodable("a year comparison in a filter")
            return w.ids
        sub = ReqState(req.label, req.path)
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


def _sub(text: str, variables: dict[str, str]) -> str:
    for k in sorted(variables, key=len, reverse=True):
        text = text.replace(f"${k}", variables[k])
    return text


def _spellings(name: str) -> list[str]:
    """A child 'Name (ABBR)' may be referred to by the full name, the name, or ABBR."""
    m = re.fullmatch(r"(.*?)\s*\(([^()]+)\)", name)
    return [name, m.group(1), m.group(2)] if m else [name]
