"""Seeded synthetic prerequisite clauses: KnowPlan, "Deterministic-first parsing" (training data).

Random clause ASTs (all_of / any_of / choose_n / course / standing / consent / concurrent) are
rendered into catalog-style prose with the variation real catalogs show: commas vs "and", "one of",
"either ... or", parentheses around nested groups, "or permission of instructor", concurrency
notes, and trailing recommendations ("MATH 220 recommended."). Rendering never invents a course
spelling, so every identifier in the target occurs literally in the span. Same seed, same output.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from planner.clause_ast import (
    AllOfNode,
    AnyOfNode,
    ChooseNNode,
    Clause,
    ConcurrentNode,
    ConsentNode,
    CourseNode,
    StandingNode,
)

SUBJECTS = (
    "MATH",
    "CS",
    "PHYS",
    "CHEM",
    "BIOL",
    "ECON",
    "STAT",
    "ENGL",
    "PSYC",
    "EE",
    "ME",
    "CSE",
    "DATA",
    "LING",
    "PHIL",
)
LEVELS = ("sophomore", "junior", "senior", "graduate")
NUM_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}
_COMPOSITE = (AllOfNode, AnyOfNode, ChooseNNode)


@dataclass(frozen=True)
class GeneratedClause:
    template_id: str  # hash of the canonical AST: every prose variant of one AST shares it
    span: str
    clause: Clause
    style: tuple[str, ...] = field(default_factory=tuple)


def template_id(clause: Clause) -> str:
    return "clause-" + hashlib.sha256(clause.to_json().encode()).hexdigest()[:16]


class _Courses:
    """Distinct course identifiers for one clause, some sharing a subject as catalogs do."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()
        self.subjects = rng.sample(SUBJECTS, k=3)

    def new(self) -> str:
        while True:
            subj = self.rng.choice(self.subjects)
            num = f"{self.rng.randint(1, 4)}{self.rng.randint(0, 9)}{self.rng.randint(0, 9)}"
            if self.rng.random() < 0.08:
                num += self.rng.choice("ABL")
            cid = f"{subj} {num}"
            if cid not in self.used:
                self.used.add(cid)
                return cid


def _leaf(rng: random.Random, courses: _Courses) -> CourseNode | ConcurrentNode:
    c = courses.new()
    return ConcurrentNode(course=c) if rng.random() < 0.12 else CourseNode(course=c)


def _courses(rng: random.Random, courses: _Courses, k: int) -> list[CourseNode]:
    return [CourseNode(course=courses.new()) for _ in range(k)]


def random_clause(rng: random.Random) -> Clause:
    """One random prerequisite AST in canonical form (no same-kind nesting, consent last)."""
    cs = _Courses(rng)
    shape = rng.choices(
        [
            "single",
            "all",
            "any",
            "all_any",
            "any_all",
            "choose",
            "standing",
            "all_standing",
            "none",
        ],
        weights=[14, 18, 14, 16, 6, 9, 5, 10, 2],
    )[0]
    node = None
    if shape == "single":
        node = _leaf(rng, cs)
    elif shape == "all":
        node = AllOfNode(items=[_leaf(rng, cs) for _ in range(rng.randint(2, 3))])
    elif shape == "any":
        node = AnyOfNode(items=_courses(rng, cs, rng.randint(2, 4)))
    elif shape == "all_any":
        inner = AnyOfNode(items=_courses(rng, cs, rng.randint(2, 3)))
        items = [_leaf(rng, cs) for _ in range(rng.randint(1, 2))]
        items.insert(rng.randint(0, len(items)), inner)
        node = AllOfNode(items=items)
    elif shape == "any_all":
        node = AnyOfNode(items=[AllOfNode(items=_courses(rng, cs, 2)), CourseNode(course=cs.new())])
    elif shape == "choose":
        k = rng.randint(3, 5)  # n == 1 would be any_of, n == k all_of: canonical form avoids both
        node = ChooseNNode(n=rng.randint(2, min(3, k - 1)), items=_courses(rng, cs, k))
    elif shape == "standing":
        node = StandingNode(level=rng.choice(LEVELS))
    elif shape == "all_standing":
        node = AllOfNode(items=[_leaf(rng, cs), StandingNode(level=rng.choice(LEVELS[:3]))])
    if node is not None and rng.random() < 0.3:
        consent = ConsentNode(of="instructor" if rng.random() < 0.85 else "department")
        items = list(node.items) if isinstance(node, AnyOfNode) else [node]
        node = AnyOfNode(items=[*items, consent])
    recommended = [cs.new() for _ in range(rng.choice([0, 0, 0, 1, 1, 2]))]
    if node is None and not recommended:
        recommended = [cs.new()]
    return Clause(prerequisite=node, recommended=recommended)


class _Renderer:
    """Prose for one clause; records which variations it chose in `style`."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.style: list[str] = []

    def pick(self, tag: str, options: list[str]) -> str:
        i = self.rng.randrange(len(options))
        self.style.append(f"{tag}:{i}")
        return options[i]

    def join(self, parts: list[str], conj: str) -> str:
        if len(parts) == 2:
            return f"{parts[0]} {conj} {parts[1]}"
        sep = self.pick("sep", [", ", ", ", "; "]) if conj == "and" else ", "
        oxford = self.pick("oxford", [sep.rstrip() + " ", " "])
        return sep.join(parts[:-1]) + f"{oxford}{conj} {parts[-1]}"

    def child(self, node, last: bool) -> str:
        text = self.node(node, nested=True)
        if isinstance(node, _COMPOSITE):
            if isinstance(node, AnyOfNode) and last and self.rng.random() < 0.4:
                self.style.append("one_of_tail")
                return "one of " + ", ".join(self.node(i, True) for i in node.items)
            self.style.append("parens")
            return f"({text})"
        return text

    def node(self, node, nested: bool = False) -> str:
        if isinstance(node, CourseNode):
            return node.course
        if isinstance(node, ConcurrentNode):
            c = node.course
            return self.pick(
                "concurrent",
                [
                    f"{c} (may be taken concurrently)",
                    f"{c} (concurrent enrollment allowed)",
                    f"concurrent enrollment in {c}",
                    f"{c} (may be taken concurrently or before)",
                ],
            )
        if isinstance(node, StandingNode):
            lv = node.level
            return self.pick(
                "standing",
                [
                    f"{lv} standing",
                    f"standing as a {lv}",
                    f"{lv} standing or higher",
                    f"{lv} status",
                ],
            )
        if isinstance(node, ConsentNode):
            if node.of == "department":
                return self.pick(
                    "consent",
                    [
                        "permission of the department",
                        "department consent",
                        "consent of the department",
                    ],
                )
            return self.pick(
                "consent",
                [
                    "permission of instructor",
                    "permission of the instructor",
                    "consent of instructor",
                    "instructor consent",
                ],
            )
        n = len(node.items)
        if isinstance(node, AllOfNode):
            parts = [self.child(it, i == n - 1) for i, it in enumerate(node.items)]
            if n == 2 and not nested and self.rng.random() < 0.15:
                self.style.append("both")
                return f"both {parts[0]} and {parts[1]}"
            return self.join(parts, "and")
        if isinstance(node, ChooseNNode):
            parts = [self.node(it, True) for it in node.items]
            word = NUM_WORDS.get(node.n, str(node.n))
            return self.pick(
                "choose",
                [
                    f"{word} of {self.join(parts, 'and')}",
                    f"any {node.n} of the following: {', '.join(parts)}",
                    f"at least {word} of {self.join(parts, 'or')}",
                    f"{word} courses from {', '.join(parts)}",
                ],
            )
        # any_of: a trailing consent reads as an alternative to everything before it
        items = list(node.items)
        consent = items.pop() if isinstance(items[-1], ConsentNode) else None
        parts = [self.child(it, False) for it in items]
        if len(parts) == 1:
            body = parts[0]
        else:
            body = self.pick("any_of", ["plain", "one_of", "either", "following"])
            if body == "one_of":
                body = "one of " + self.join(parts, "or")
            elif body == "either" and len(parts) == 2:
                body = f"either {parts[0]} or {parts[1]}"
            elif body == "following" and not nested:
                body = "one of the following: " + ", ".join(parts)
            else:
                body = self.join(parts, "or")
        if consent is None:
            return body
        return body + self.pick("or_consent", [", or ", " or ", "; or "]) + self.node(consent)

    def clause(self, clause: Clause) -> str:
        out = ""
        if clause.prerequisite is None:
            out = self.pick(
                "none", ["Prerequisite: none.", "Prerequisites: None.", "No prerequisites."]
            )
        else:
            prefix = self.pick(
                "prefix",
                [
                    "Prerequisite: ",
                    "Prerequisites: ",
                    "Prereq: ",
                    "Prerequisite(s): ",
                    "Requires ",
                    "Enforced prerequisite: ",
                    "",
                ],
            )
            body = self.node(clause.prerequisite)
            if prefix in ("", "Prerequisite(s): ", "Prerequisites: ", "Prerequisite: ", "Prereq: "):
                body = body[0].upper() + body[1:]
            out = f"{prefix}{body}."
        rec = clause.recommended
        if rec:
            names = rec[0] if len(rec) == 1 else self.join(list(rec), "and")
            verb = "is" if len(rec) == 1 else "are"
            out += self.pick(
                "recommended",
                [
                    f" {names} recommended.",
                    f" Recommended: {names}.",
                    f" {names} {verb} recommended.",
                    f" Recommended preparation: {names}.",
                ],
            )
        return out


def render(clause: Clause, rng: random.Random) -> tuple[str, tuple[str, ...]]:
    r = _Renderer(rng)
    return r.clause(clause), tuple(r.style)


def generate(n: int, seed: int, variants: int = 2) -> list[GeneratedClause]:
    """`n` clauses: fresh random ASTs, each rendered up to `variants` times with distinct prose."""
    if n < 0 or variants < 1:
        raise ValueError("n must be >= 0 and variants >= 1")
    rng = random.Random(seed)
    out: list[GeneratedClause] = []
    while len(out) < n:
        clause = random_clause(rng)
        tid = template_id(clause)
        seen: set[str] = set()
        for _ in range(variants * 3):
            if len(seen) == variants or len(out) == n:
                break
            span, style = render(clause, rng)
            if span in seen:
                continue
            seen.add(span)
            out.append(GeneratedClause(tid, span, clause, style))
    return out
