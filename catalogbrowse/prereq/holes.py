"""Partial parses with holes: KnowPlan, "Deterministic-first parsing" (the span the model sees).

A segment the grammar cannot type whole is cut into parts at its list separators outside
parentheses: first at "," and ";", then a part still untyped at "and", "or", "plus". A part the
grammar types stays as it is; a part a whole-segment phrase rule types ("one course in ethics")
becomes a placeholder for that node; what neither types becomes a hole. When the segment, so
rewritten, parses, the grammar keeps the structure and only the holes, exact sub-spans, are left
for the model: a small model asked about the whole segment flattens its nesting and drops its
trailing terms (benchmarks/results/clause_model.md), and a hole is one leaf. Inside a part, a run
of words between "and"/"or" that nothing types stays one hole: "a C or better in NURS 417" is
not two alternatives.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from planner.clause_ast import AllOfNode, AnyOfNode, ChooseNNode, UnsupportedNode

STRONG = r"(?i)\s*[,;]\s*(?:(?:and|or|plus)\b\s*)?"
WEAK = r"(?i)\s+(?:and|or|plus)\s+"
# Parts that type only with their neighbours: a carried number ("CSCI 121 or 125"), and a part
# that opens "either A or B" / "both A and B" (it stays when what follows the word types).
_CARRIED = re.compile(r"^\d{3}[A-Z]?$")
_OPENING = re.compile(r"^(either|both)\s+", re.I)
_PLACEHOLDER = re.compile(r"^⟦(\d+)⟧$")
_PARENS = re.compile(r"\([^()]*\)")
# "one of A, B, or C", "two courses chosen from A, B, C": the list after the opener is one unit,
# which a cut at its commas would break into alternatives of the whole (inside parentheses the
# list is closed, and the cut does not reach it).
_OPEN_LIST = re.compile(
    r"\b(one|any|two|three|four|five|six|\d)\s+(\w+\s+)?(of|from)\b|\bof the following\b|\bfrom\b",
    re.I,
)

Typer = Callable[[str], object | None]


@dataclass(frozen=True)
class Hole:
    """A sub-span of the segment (offsets into it) that only the model may type."""

    start: int
    end: int
    text: str


def split_outside_parens(text: str, a: int, b: int, pattern: str) -> list[tuple[int, int]]:
    """(start, end) of the non-blank parts of text[a:b] between separators outside parentheses."""
    out, start, depth = [], a, 0
    seps = {m.start(): m.end() for m in re.finditer(pattern, text[a:b])}
    i = a
    while i < b:
        ch = text[i]
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and (i - a) in seps and seps[i - a] > i - a:
            out.append((start, i))
            i = start = a + seps[i - a]
            continue
        i += 1
    out.append((start, b))
    return [(x, y) for x, y in out if text[x:y].strip()]


def _keeps(part: str, grammar: Typer) -> bool:
    if _CARRIED.match(part) or grammar(part) is not None:
        return True
    return bool(_OPENING.match(part)) and grammar(_OPENING.sub("", part)) is not None


class _Template:
    """The segment rewritten part by part: kept text, placeholders, and what they stand for."""

    def __init__(self, segment: str) -> None:
        self.segment, self.pos = segment, 0
        self.pieces: list[str] = []
        self.fills: list[object] = []
        self.holes: list[Hole] = []
        self.run: tuple[int, int] | None = None  # untyped parts not yet closed into one hole

    def extend_run(self, a: int, b: int) -> None:
        self.run = (self.run[0] if self.run else a, b)

    def close_run(self) -> None:
        if self.run:
            self.hole(*self.run)
            self.run = None

    def keep(self, b: int) -> None:
        self.pieces.append(self.segment[self.pos : b])
        self.pos = b

    def place(self, a: int, b: int, node: object, holes: list[Hole]) -> None:
        self.pieces += [self.segment[self.pos : a], f"⟦{len(self.fills)}⟧"]
        self.fills.append(node)
        self.holes += [Hole(a + h.start, a + h.end, h.text) for h in holes]
        self.pos = b

    def hole(self, a: int, b: int) -> None:
        text = self.segment[a:b]
        self.place(a, b, UnsupportedNode(text=text), [Hole(0, b - a, text)])

    def text(self) -> str:
        return "".join([*self.pieces, self.segment[self.pos :]])


def with_holes(
    segment: str, grammar: Typer, phrase: Typer, strong: bool = True
) -> tuple[object, list[Hole]] | None:
    """(node with an unsupported leaf per hole, the holes), or None when no partial parse helps:
    every part types (the segment fails on its structure), all of it is one hole, or the
    rewritten segment does not parse either."""
    if strong and _OPEN_LIST.search(_PARENS.sub("", segment)):
        return None
    t = _Template(segment)
    for a, b in split_outside_parens(segment, 0, len(segment), STRONG if strong else WEAK):
        part = segment[a:b]
        if _keeps(part, grammar):
            t.close_run()
            t.keep(b)
            continue
        node = phrase(part)
        found = (node, []) if node is not None else _inside(part, grammar, phrase, strong)
        if found is None and not strong:
            t.extend_run(a, b)  # "and"/"or" inside an untyped run is the run's own wording
            continue
        t.close_run()
        if found is None:
            t.hole(a, b)
        else:
            t.place(a, b, *found)
    t.close_run()
    if not t.fills or [h.text for h in t.holes] == [segment]:
        return None
    node = grammar(t.text())
    if node is None:
        return None
    return _fill(node, t.fills), t.holes


def _inside(part: str, grammar: Typer, phrase: Typer, strong: bool):
    """An untyped part's own partial parse: inside its parentheses from the top again, else at
    the "and"/"or" inside it (only below the "," level)."""
    if part.startswith("(") and part.endswith(")"):
        found = with_holes(part[1:-1], grammar, phrase)
        if found is not None:
            node, holes = found
            return node, [Hole(h.start + 1, h.end + 1, h.text) for h in holes]
        return None
    return with_holes(part, grammar, phrase, strong=False) if strong else None


def _fill(node, fills: list[object]):
    if isinstance(node, UnsupportedNode):
        m = _PLACEHOLDER.match(node.text)
        return fills[int(m.group(1))] if m else node
    if isinstance(node, AllOfNode | AnyOfNode | ChooseNNode):
        return node.model_copy(update={"items": [_fill(i, fills) for i in node.items]})
    return node
