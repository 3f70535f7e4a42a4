"""Hanson where-expressions over the converted catalog: KnowPlan, "Problem Formulation"
(a qualifier such as `{ gereqs = WRI & level = 100 }` becomes the set of courses it matches;
`year >= min (year) from courses where {...}` becomes a not-before reference set)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.stolaf.aliases import Departments
from planner.stolaf.courses import CourseIndex


class Unencodable(ValueError):
    """A clause the encoding cannot express; it becomes an unsupported-policy leaf."""


@dataclass
class Where:
    ids: set[str]
    after: set[str] | None = None  # "year >= min(year) from courses where {...}"


class Qualifiers:
    """Evaluates where-expressions against a course index."""

    def __init__(self, idx: CourseIndex, deps: Departments) -> None:
        self.idx, self.deps = idx, deps

    def where(self, text: str) -> Where:
        m = re.match(
            r"^(?P<pre>.*?)&?\s*year\s*>=\s*min\s*\(\s*year\s*\)\s*from courses where\s*"
            r"\{(?P<inner>.*)\}\s*$",
            text.strip(),
        )
        if m:
            pre = m.group("pre").strip().rstrip("&").strip()
            return Where(self.qual(pre), self.qual(m.group("inner")))
        return Where(self.qual(text))

    def qual(self, text: str) -> set[str]:
        """Courses matching a qualifier like `gereqs = EIN & level = 100`."""
        toks = re.findall(r"!=|<=|>=|[=<>&|()]|[\w-]+", text)
        pos = 0

        def peek() -> str | None:
            return toks[pos] if pos < len(toks) else None

        def take() -> str:
            nonlocal pos
            if pos >= len(toks):
                raise Unencodable(f"incomplete qualifier {{{text}}}")
            pos += 1
            return toks[pos - 1]

        def q_or() -> set[str]:
            out = q_and()
            while peek() == "|":
                take()
                out = out | q_and()
            return out

        def q_and() -> set[str]:
            out = q_atom()
            while peek() == "&":
                take()
                out = out & q_atom()
            return out

        def q_atom() -> set[str]:
            if peek() == "(":
                take()
                out = q_or()
                take()
                return out
            key, op = take(), take()
            values = []
            if peek() == "(":
                take()
                while peek() != ")":
                    tok = take()
                    if tok != "|":
                        values.append(tok)
                take()
            else:
                values.append(take())
            return {c for c in self.idx.ids if any(self._match(c, key, op, v) for v in values)}

        out = q_or()
        if pos != len(toks):
            raise Unencodable(f"unexpected {toks[pos]!r} in {{{text}}}")
        return out

    def _match(self, cid: str, key: str, op: str, value: str) -> bool:
        if key == "gereqs":
            if op not in ("=", "!="):
                raise Unencodable(f"gereqs {op}")
            return (value in self.idx.ge.get(cid, set())) == (op == "=")
        if key == "department":
            hit = self.deps.code(value)
            code = hit[0] if hit else value
            has = code in self.idx.departments.get(cid, [])
            if op in ("=", "!="):
                return has == (op == "=")
            raise Unencodable(f"department {op}")
        if key in ("level", "number"):
            have = self.idx.level.get(cid, 0) if key == "level" else self.idx.number(cid)
            want = int(value)
            return {
                "=": have == want,
                "!=": have != want,
                "<": have < want,
                "<=": have <= want,
                ">": have > want,
                ">=": have >= want,
            }[op]
        raise Unencodable(f"qualifier on {key!r}")


def _extract_braces(s: str, store: list[str]) -> str:
    """Replace each top-level {...} by @wN, keeping its inside in `store`."""
    out, depth, start = [], 0, 0
    buf = ""
    for i, ch in enumerate(s):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                store.append(s[start + 1 : i])
                out.append(f" @w{len(store) - 1} ")
                continue
        if depth == 0:
            out.append(ch)
    buf = "".join(out)
    return buf
