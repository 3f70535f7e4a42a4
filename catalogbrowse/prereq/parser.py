"""Deterministic prerequisite parser: KnowPlan, "Deterministic-first parsing" (grammar first).

The prose is cut into segments (sentences and ";"-parts, keeping their offsets); each segment is
parsed by the lark grammar in prereq.lark, after its course tokens are written canonically
("Psych 230" -> "PSYCH 230", "BIO126" -> "BIO 126", "Chemistry 121" with the catalog's
department table; planner/clause_ids.py). A segment the grammar cannot type is parsed in part
(holes.py): each part it still cannot type becomes an ``unsupported`` node carrying its exact
text and is reported as an unresolved span; those spans, and only they, are what the clause model
may later be asked about.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError
from pydantic import ValidationError

from catalogbrowse.prereq.holes import Hole, split_outside_parens, with_holes
from catalogbrowse.prereq.phrases import (
    NUMBER_WORDS,
    courses_in_area,
    restricted_opening,
    states_no_requirement,
)
from planner.clause_ast import (
    AllOfNode,
    AnyOfNode,
    ChooseNNode,
    Clause,
    ConcurrentNode,
    ConsentNode,
    CourseNode,
    EquivalentNode,
    PlacementNode,
    RequirementNode,
    StandingNode,
    UnsupportedNode,
)
from planner.clause_ids import canonical_text, identifier_enum

_LEVEL_ORDER = ["first-year", "freshman", "sophomore", "junior", "senior", "graduate"]
_PREFIX = re.compile(
    r"^\s*(enforced prerequisites?|prerequisites?\(s\)|prerequisites?|prereqs?|requires)\s*:?\s*",
    re.I,
)
# A full stop ends a sentence unless it ends an abbreviation ("St. Olaf", "e.g. STAT 110").
_SENTENCE_END = r"(?<!\bSt)(?<!\bDr)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)\.(?=\s+[A-Z(]|\s*$)|\n"
_NONE = re.compile(r"^(none|no prerequisites?|n/a)$", re.I)
_RECOMMENDED = re.compile(
    r"^(recommended( preparation)?\s*:\s*(?P<a>.+)"
    r"|(?P<b>.+?)\s+((is|are)\s+)?(recommended|preferred))$",
    re.I,
)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


@dataclass
class ParseResult:
    """The clause (None when the prose states no requirement) and the spans left untyped."""

    clause: Clause
    unresolved: list[Span] = field(default_factory=list)

    @property
    def ast(self):
        return self.clause.prerequisite

    def to_json(self) -> dict[str, Any]:
        ast = self.ast
        return {
            "ast": ast.model_dump(mode="json") if ast is not None else None,
            "recommended": list(self.clause.recommended),
            "unresolved": [s.text for s in self.unresolved],
        }


@functools.cache
def _lark() -> Lark:
    grammar = (Path(__file__).with_name("prereq.lark")).read_text()
    return Lark(grammar, parser="earley", lexer="dynamic", ambiguity="resolve")


def flatten(node):
    """Canonical form: same-kind all_of / any_of nesting merged, single-item groups unwrapped."""
    if isinstance(node, AllOfNode | AnyOfNode):
        items = []
        for it in (flatten(i) for i in node.items):
            items.extend(it.items if type(it) is type(node) else [it])
        if len(items) == 1:
            return items[0]
        return type(node)(items=items)
    if isinstance(node, ChooseNNode):
        return ChooseNNode(n=node.n, items=[flatten(i) for i in node.items])
    return node


def _group(cls, items):
    items = [i for i in items if i is not None]
    return items[0] if len(items) == 1 else cls(items=items)


class _ToAst(Transformer):
    """Tree to clause nodes; `subject` carries the department over bare numbers ("CSCI 121 or
    125"), which works because lark transforms leaves left to right."""

    def __init__(self) -> None:
        super().__init__()
        self.subject: str | None = None

    def course(self, c):
        cid = str(c[0])
        self.subject = cid.split(" ")[0]
        return CourseNode(course=cid)

    def carry(self, c):
        if self.subject is None:
            raise ValueError("course number without a department")
        return CourseNode(course=f"{self.subject} {c[0]}")

    def lor(self, xs):
        return _group(AnyOfNode, xs)

    def tor(self, xs):
        return _group(AnyOfNode, xs)

    def land(self, xs):
        return _group(AllOfNode, xs)

    def tand(self, xs):
        return _group(AllOfNode, xs)

    def or_list(self, xs):
        return _group(AnyOfNode, xs)

    def and_list(self, xs):
        return _group(AllOfNode, xs)

    def comma_list(self, xs):
        return list(xs)

    def one_of(self, xs):
        items = xs[0] if isinstance(xs[0], list) else [xs[0]]
        return _group(AnyOfNode, items)

    def either(self, xs):
        return AnyOfNode(items=list(xs))

    def both(self, xs):
        return AllOfNode(items=list(xs))

    def n_of(self, xs):
        word = str(xs[0]).lower()
        n = NUMBER_WORDS.get(word) or int(word.split()[-1])
        inner = xs[1]
        items = inner if isinstance(inner, list) else list(getattr(inner, "items", [inner]))
        if n >= len(items):
            return AllOfNode(items=items) if len(items) > 1 else items[0]
        return ChooseNNode(n=n, items=items) if n > 1 else AnyOfNode(items=items)

    def _concurrent(self, node):
        if not isinstance(node, CourseNode):
            raise ValueError("concurrency applies to one course")
        return ConcurrentNode(course=node.course)

    def concurrent(self, xs):
        return self._concurrent(xs[0])

    def concurrent_post(self, xs):
        return self._concurrent(xs[0])

    def standing(self, xs):
        levels = [str(t).lower() for t in xs if isinstance(t, Token) and t.type == "LEVEL"]
        lowest = min(levels, key=_LEVEL_ORDER.index)
        if lowest in ("first-year", "freshman"):
            raise ValueError("first-year status is not a standing requirement")
        return StandingNode(level=lowest)

    def consent(self, xs):
        text = str(xs[0]).lower()
        return ConsentNode(of="instructor" if "instructor" in text else "department")

    def placement(self, xs):
        courses = [x for x in xs if isinstance(x, CourseNode)]
        return PlacementNode(course=courses[0].course if courses else None)

    def equivalent(self, _xs):
        return EquivalentNode()

    def named(self, xs):
        return RequirementNode(text=str(xs[0]))

    def hole(self, xs):
        return UnsupportedNode(text=str(xs[0]))


def lift_consent(node):
    """A trailing consent alternative applies to the whole requirement before it:
    "A and B or permission of instructor" is any_of(all_of(A, B), consent)."""
    if isinstance(node, AllOfNode) and isinstance(node.items[-1], AnyOfNode):
        last = node.items[-1]
        if isinstance(last.items[-1], ConsentNode):
            rest = _group(AnyOfNode, last.items[:-1])
            return AnyOfNode(items=[AllOfNode(items=[*node.items[:-1], rest]), last.items[-1]])
    return node


_REQUIRED = re.compile(r"\s+(is|are) required$", re.I)
# "concurrent registration in A, B, and C": the concurrency applies to every course listed.
# A pre-pass, not a rule of prereq.lark: the reading holds only when every leaf of the parsed
# list is a course, a test over the finished parse that a context-free rule cannot make (the
# grammar's `concurrent` takes one closed unit, and the whole-list reading falls back to it).
_CONCURRENT_LIST = re.compile(
    r"^((previous|prior) or )?concurrent (enrollment|registration) in\s+"
    r"(?P<rest>.*\b(and|or)\b.*)$",
    re.I,
)


def _all_concurrent(node):
    if isinstance(node, CourseNode):
        return ConcurrentNode(course=node.course)
    if isinstance(node, AllOfNode | AnyOfNode):
        items = [_all_concurrent(i) for i in node.items]
        return None if None in items else type(node)(items=items)
    return None


def parse_segment(text: str, subjects: Mapping[str, str] | None = None):
    """One segment to a node; raises ValueError when the grammar cannot type it."""
    body = _REQUIRED.sub("", text.strip().rstrip(".").strip())
    node = None
    lead = _CONCURRENT_LIST.match(body)
    if lead:
        inner = _grammar(lead.group("rest"), subjects)
        node = _all_concurrent(inner) if inner is not None else None
    if node is None:
        node = _grammar(body, subjects) or _phrase(body, subjects)
    if node is None:
        raise ValueError(f"cannot type {text!r}")
    return node


@functools.lru_cache(maxsize=65536)
def _parse_cached(body: str):
    # Earley is the slow part of a run; the same prose recurs across policies and tracks.
    try:
        return _parse_uncached(body)
    except ValueError:
        return None


def _parse_uncached(body: str):
    if not body:
        raise ValueError("empty segment")
    try:
        tree = _lark().parse(body)
        node = _ToAst().transform(tree)
    except (LarkError, ValidationError) as exc:
        raise ValueError(f"cannot type {body!r}: {type(exc).__name__}") from None
    if isinstance(node, list):
        raise ValueError(f"bare list in {body!r}")
    return lift_consent(flatten(node))


def _grammar(text: str, subjects: Mapping[str, str] | None):
    """What the grammar types of `text` (its course tokens written canonically first), or None."""
    return _parse_cached(canonical_text(text, subjects))


def _phrase(text: str, subjects: Mapping[str, str] | None):
    """What a whole-segment phrase rule types of `text` (one naming no course), or None."""
    if identifier_enum(text, subjects):
        return None
    return restricted_opening(text) or courses_in_area(text)


def _partial(seg: str, subjects: Mapping[str, str] | None):
    """A segment the grammar cannot type whole: the grammar's structure with holes for the model
    (holes.py), or one unsupported node over all of it."""
    found = with_holes(seg, lambda t: _grammar(t, subjects), lambda t: _phrase(t, subjects))
    if found is None:
        return UnsupportedNode(text=seg), [Hole(0, len(seg), seg)]
    node, holes = found
    return lift_consent(flatten(node)), holes


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and (text[b - 1].isspace() or text[b - 1] == "."):
        b -= 1
    return a, b


def _required_head(text: str, subjects: Mapping[str, str] | None):
    """In "A, B, and C recommended" the recommendation is the last list item only, when what comes
    before it types as a requirement; (node, recommended text) or None."""
    cut = list(re.finditer(r",\s*and\s+", text))
    if not cut:
        return None
    head, tail = text[: cut[-1].start()], text[cut[-1].end() :]
    try:
        return parse_segment(head, subjects), tail
    except ValueError:
        return None


def parse_prereq(text: str, subjects: Mapping[str, str] | None = None) -> ParseResult:
    """Prerequisite prose to a clause; untyped segments stay as unsupported nodes + spans.
    `subjects` maps department names to codes ("Psychology" -> "PSYCH") where the catalog has it."""
    node = None
    recommended: list[str] = []
    unresolved: list[Span] = []
    segments = []
    for sa, sb in split_outside_parens(text, 0, len(text), _SENTENCE_END):
        whole = text[sa:sb]
        try:
            parse_segment(_PREFIX.sub("", whole, count=1), subjects)
            segments.append((sa, sb))
        except ValueError:
            segments += split_outside_parens(text, sa, sb, r";")
    for a, b in segments:
        a, b = _trim(text, a, b)
        m = _PREFIX.match(text[a:b])
        if m:
            a += m.end()
        seg = text[a:b]
        if not seg or _NONE.match(seg) or states_no_requirement(seg):
            continue
        alternative = False
        m = re.match(r"or\s+", seg, re.I)
        if m and node is not None:
            alternative, a, seg = True, a + m.end(), seg[m.end() :]
        rec = _RECOMMENDED.match(seg)
        required = _required_head(rec.group("b"), subjects) if rec and rec.group("b") else None
        if rec and required is None:
            recommended += identifier_enum(rec.group("a") or rec.group("b"), subjects)
            continue
        try:
            if required is not None:
                part, tail = required
                recommended += identifier_enum(tail, subjects)
            else:
                part = parse_segment(seg, subjects)
        except ValueError:
            part, holes = _partial(seg, subjects)
            unresolved += [Span(a + h.start, a + h.end, h.text) for h in holes]
        if node is None:
            node = part
        elif alternative:
            node = flatten(AnyOfNode(items=[node, part]))
        else:
            node = flatten(AllOfNode(items=[node, part]))
    clause = Clause(prerequisite=node, recommended=list(dict.fromkeys(recommended)))
    return ParseResult(clause=clause, unresolved=unresolved)
