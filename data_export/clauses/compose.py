"""Prose and clause AST built together: KnowPlan, "Deterministic-first parsing" (training spans).

A requirement is composed bottom-up; each piece carries its text, its clause node and how its
text binds (`form`), so nesting is always marked the way catalogs mark it (parentheses, "either",
"both", a comma-level outer connective, an open "one of ..." list only in last place) and the
node is the one reading of the text. Every course token is rendered in the family's style
("PSYC 230", "Psyc 230", "Psychology 230", "PSYC230", "or 231"); every text field of a node is
the exact slot text of its phrase.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from planner.clause_ast import (
    AllOfNode,
    AnyOfNode,
    ChooseNNode,
    ConcurrentNode,
    ConsentNode,
    CourseNode,
    CoursesNode,
    EquivalentNode,
    PlacementNode,
    ProgramNode,
    RequirementNode,
    StandingNode,
)

NUM_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
LEVELS = ("sophomore", "junior", "senior")
PLURALS = {"sophomore": "sophomores", "junior": "juniors", "senior": "seniors"}
ORDINALS = {"sophomore": "second", "junior": "third", "senior": "fourth"}
_OPEN = re.compile(r"^(one |any |at least |a course |\{word\}|\{n\})")


@dataclass(frozen=True)
class Piece:
    """Rendered text, its node, and how it binds: atom (closed), plain ("A or B"), comma
    ("A, B, and C") or open ("one of A, B, or C": only last in a list)."""

    text: str
    node: Any
    form: str = "atom"
    op: str | None = None
    parts: tuple[str, str] | None = None  # a plain "A or B": its two sides, for "either"/"both"


def form_of(template: str) -> str:
    if "either" in template or "both" in template:
        return "atom"
    if _OPEN.match(template):
        return "open"
    if "," in template.replace("{a}", "").replace("{b}", "") or ";" in template:
        return "comma"
    return "plain"


LEAF_KINDS = ("course", "concurrent", "standing", "courses", "program", "requirement", "first",
              "course_alt", "consent")  # fmt: skip
LEAF_WEIGHTS = (44, 8, 9, 9, 6, 9, 3, 6, 0)
# A leaf on its own, as a partial parse hands it to the model (catalogbrowse/prereq/holes.py): the
# kinds the grammar reads least often weigh most.
HOLE_WEIGHTS = (22, 12, 8, 14, 12, 18, 2, 8, 4)


class Composer:
    """One sample's prose: a family's style, the sample's courses and a seeded rng."""

    def __init__(self, rng: random.Random, family: Any) -> None:
        self.rng = rng
        self.fam = family
        self.subjects = rng.sample(family.subjects, k=min(len(family.subjects), rng.randint(1, 3)))
        self.used: set[str] = set()

    # --- course tokens ------------------------------------------------------------------------

    def course_id(self) -> str:
        while True:
            code, _name = self.rng.choice(self.subjects)
            num = f"{self.rng.randint(1, 4)}{self.rng.randint(0, 9)}{self.rng.randint(0, 9)}"
            if self.rng.random() < 0.05:
                num += self.rng.choice("ABL")
            cid = f"{code} {num}"
            if cid not in self.used:
                self.used.add(cid)
                return cid

    def token(self, cid: str, prev: str | None = None) -> str:
        """How this family prints `cid`; `prev` is the course printed just before it in a list."""
        code, num = cid.split(" ")
        style = self.fam.token_style(self.rng)
        if style == "carry" and prev is not None and prev.split(" ")[0] == code:
            return num
        if style == "title":
            return f"{code.title()} {num}"
        if style == "lower":
            return f"{code.lower()} {num}"
        if style == "name":
            return f"{self.fam.names[code]} {num}"
        if style == "nospace":
            return f"{code}{num}"
        return cid

    # --- leaves -------------------------------------------------------------------------------

    def fill(self, template: str, **slots: str) -> str:
        return template.format(**slots)

    def course(self, prev: str | None = None, plain: bool = False) -> Piece:
        cid = self.course_id()
        tok = self.token(cid, prev)
        text = tok if plain or tok.isdigit() else self.fam.pick(self.rng, "course").format(c=tok)
        return Piece(text, CourseNode(course=cid))

    def concurrent(self) -> Piece:
        cid = self.course_id()
        return Piece(self.fam.pick(self.rng, "concurrent").format(c=self.token(cid)),
                     ConcurrentNode(course=cid))  # fmt: skip

    def standing(self) -> Piece:
        lvl = self.rng.choice(LEVELS)
        up = LEVELS[LEVELS.index(lvl) :]
        slots = {
            "lvl": lvl,
            "plural": PLURALS[lvl],
            "plural_up": " and ".join(PLURALS[x] for x in up)
            if len(up) < 3
            else "sophomores, juniors, and seniors",
            "ordinal": ORDINALS[lvl],
            "lvl_or": " or ".join(up),
        }
        return Piece(self.fam.pick(self.rng, "standing").format(**slots), StandingNode(level=lvl))

    def consent(self) -> Piece:
        if self.rng.random() < 0.8:
            return Piece(
                self.fam.pick(self.rng, "consent_instructor"), ConsentNode(of="instructor")
            )
        return Piece(self.fam.pick(self.rng, "consent_department"), ConsentNode(of="department"))

    def dept(self) -> str:
        name = self.rng.choice(self.fam.names_all)
        return name.lower() if self.rng.random() < 0.7 else name

    def courses_count(self) -> Piece:
        n = self.rng.choice([1, 1, 2, 2, 3, 4])
        kind = self.rng.choice(["in", "adj"])
        area = self.fam.pick(self.rng, f"areas_{kind}").format(
            dept=self.dept(), dept2=self.dept(), num=self.rng.choice(["200", "270", "300", "250"])
        )
        word = NUM_WORDS[n] if n > 1 or self.rng.random() < 0.7 else self.rng.choice(["a", "1"])
        if word == "a" and area[0].lower() in "aeiou":
            word = "an"
        text = self.fam.pick(self.rng, f"courses_{kind}").format(
            nword=word, n=str(n), s="s" if n > 1 else "", area=area
        )
        return Piece(text, CoursesNode(n=n, area=area))

    def program_text(self) -> str:
        d = self.dept()
        return self.fam.pick(self.rng, "programs").format(dept_l=d.lower(), dept=d.title())

    def program(self) -> Piece:
        r = self.rng.random()
        prog = self.program_text()
        if r < 0.2:
            lvl = self.rng.choice(LEVELS[1:])
            text = self.fam.pick(self.rng, "program_standing").format(lvl=lvl, prog=prog)
            return Piece(
                text, AllOfNode(items=[StandingNode(level=lvl), ProgramNode(text=prog)]), "atom"
            )
        if r < 0.35:
            text = self.fam.pick(self.rng, "program_or_consent").format(prog=prog)
            return Piece(text, AnyOfNode(items=[ProgramNode(text=prog), ConsentNode()]), "atom")
        return Piece(self.fam.pick(self.rng, "program").format(prog=prog), ProgramNode(text=prog))

    def requirement(self) -> Piece:
        template = self.fam.pick(self.rng, "requirement")
        if "{ge}" in template:
            text = self.rng.choice(self.fam.ge_codes)
        else:
            text = self.fam.pick(self.rng, "requirement_texts")
        return Piece(template.format(ge=text, text=text), RequirementNode(text=text))

    def first_year(self) -> Piece:
        if self.rng.random() < 0.5:
            return Piece(
                self.fam.pick(self.rng, "first_year_consent"),
                AnyOfNode(items=[StandingNode(level="sophomore"), ConsentNode()]),
            )
        return Piece(self.fam.pick(self.rng, "not_first_year"), StandingNode(level="sophomore"))

    def alternative(self) -> Piece:
        """What follows "or" after a course: placement, equivalent."""
        if self.rng.random() < 0.5:
            return Piece(self.fam.pick(self.rng, "equivalent"), EquivalentNode())
        if self.rng.random() < 0.6:
            return Piece(self.fam.pick(self.rng, "placement"), PlacementNode())
        cid = self.course_id()
        text = self.fam.pick(self.rng, "placement_into").format(c=self.token(cid))
        return Piece(text, PlacementNode(course=cid))

    def leaf(self, weights: tuple[int, ...] = LEAF_WEIGHTS) -> Piece:
        kind = self.rng.choices(LEAF_KINDS, weights=weights)[0]
        if kind == "consent":
            return self.consent()
        if kind == "course":
            return self.course()
        if kind == "concurrent":
            return self.concurrent()
        if kind == "standing":
            return self.standing()
        if kind == "courses":
            return self.courses_count()
        if kind == "program":
            return self.program()
        if kind == "requirement":
            return self.requirement()
        if kind == "first":
            return self.first_year()
        base = self.course() if self.rng.random() < 0.8 else self.requirement()
        alt = self.alternative()
        return Piece(
            f"{base.text} or {alt.text}", AnyOfNode(items=[base.node, alt.node]), "plain", "or"
        )

    # --- groups -------------------------------------------------------------------------------

    def wrap(self, p: Piece) -> Piece:
        """`p` made closed: "either A or B", "both A and B" or parentheses."""
        n = p.node
        if p.parts is not None and self.rng.random() < 0.5:
            word, conj = ("either", "or") if isinstance(n, AnyOfNode) else ("both", "and")
            return Piece(f"{word} {p.parts[0]} {conj} {p.parts[1]}", n)
        return Piece(f"({p.text})", n)

    def fit(self, items: list[Piece], style: str, op: str) -> list[Piece]:
        """Each item in a form its list may hold without changing the reading."""
        out = []
        for k, p in enumerate(items):
            last = k == len(items) - 1
            ok = p.form == "atom" or (p.form == "open" and last)
            if style == "comma" and p.form == "plain" and p.op != op:
                ok = True
            out.append(p if ok else self.wrap(p))
        return out

    def join(self, op: str, items: list[Piece]) -> Piece:
        node_cls = AllOfNode if op == "and" else AnyOfNode
        node = node_cls(items=[p.node for p in items])
        if len(items) == 2:
            template = self.fam.pick(self.rng, "and2" if op == "and" else "or2")
            form = form_of(template)
            style = "comma" if form == "comma" else "plain"
            if form == "open" and not all(p.form == "atom" for p in items):
                template, form, style = "{a} or {b}", "plain", "plain"
            a, b = self.fit(items, style, op)
            if form == "atom" and not (a.form == b.form == "atom"):
                template, form = ("{a} and {b}" if op == "and" else "{a} or {b}"), "plain"
                a, b = self.fit(items, "plain", op)
            plain = template in ("{a} and {b}", "{a} or {b}") and a.form == b.form == "atom"
            parts = (a.text, b.text) if plain else None
            return Piece(template.format(a=a.text, b=b.text), node, form, op, parts)
        if op == "and":
            sep = self.fam.pick(self.rng, "and_sep")
            last = self.fam.pick(self.rng, "and_last")
            parts = self.fit(items, "comma", op)
            text = sep.join(p.text for p in parts[:-1]) + last + parts[-1].text
            return Piece(text, node, "comma", op)
        parts = self.fit(items, "comma", op)
        courses = all(isinstance(p.node, CourseNode) and p.form == "atom" for p in parts)
        template = self.fam.pick(self.rng, "or_courses" if courses else "or_list")
        if form_of(template) == "open" and not all(p.form == "atom" for p in parts):
            template = "{items_or}"
        items_or = ", ".join(p.text for p in parts[:-1])
        items_or += self.fam.pick(self.rng, "or_last") + parts[-1].text
        text = template.format(items_or=items_or, items_comma=", ".join(p.text for p in parts))
        return Piece(text, node, form_of(template), op)

    def course_list(self, k: int) -> list[Piece]:
        out, prev = [], None
        for _ in range(k):
            p = self.course(prev, plain=True)
            out.append(p)
            prev = p.node.course
        return out

    def choose(self) -> Piece:
        k = self.rng.randint(3, 5)
        n = self.rng.randint(2, k - 1)
        items = self.course_list(k)
        template = self.fam.pick(self.rng, "choose")
        texts = [p.text for p in items]
        return Piece(
            template.format(
                word=NUM_WORDS[n],
                n=str(n),
                items_and=", ".join(texts[:-1]) + ", and " + texts[-1],
                items_or=", ".join(texts[:-1]) + ", or " + texts[-1],
                items_comma=", ".join(texts),
            ),
            ChooseNNode(n=n, items=[p.node for p in items]),
            "open",
        )

    def group(self, depth: int = 0) -> Piece:
        shape = self.rng.choices(
            ["leaf", "and", "or", "courses_or", "choose"],
            weights=[30, 34, 14, 14, 4] if depth == 0 else [60, 12, 8, 18, 2],
        )[0]
        if shape == "leaf" or depth >= 2:
            return self.leaf()
        if shape == "choose":
            return self.choose()
        if shape == "courses_or":
            return self.join("or", self.course_list(self.rng.randint(2, 4)))
        k = self.rng.choice([2, 2, 2, 3, 3, 4] if depth == 0 else [2, 2, 3])
        op = shape
        items = [self.group(depth + 1) for _ in range(k)]
        # A child of the same operator would be flattened; draw a leaf instead.
        items = [p if p.op != op or isinstance(p.node, ChooseNNode) else self.leaf() for p in items]
        if any(isinstance(p.node, ChooseNNode) for p in items[:-1]):
            items = [p for p in items if not isinstance(p.node, ChooseNNode)] + [
                p for p in items if isinstance(p.node, ChooseNNode)
            ]
        if len(items) < 2:
            return self.leaf()
        return self.join(op, items)

    def requirement_span(self) -> Piece:
        """One requirement as a sentence or ";"-part states it, with the trailing consent
        alternative catalogs add ("..., or permission of instructor")."""
        p = self.group()
        if self.rng.random() < 0.28 and not isinstance(p.node, ConsentNode):
            c = self.consent()
            body = p if p.form != "open" else self.wrap(p)
            sep = self.fam.pick(self.rng, "trailing_or")
            node = AnyOfNode(items=[*_items(body.node, AnyOfNode), c.node])
            return Piece(f"{body.text}{sep}{c.text}", node, "comma", "or")
        return p

    def no_requirement(self) -> str:
        c, c2 = self.course_list(2)
        return self.fam.pick(self.rng, "no_requirement").format(
            term=self.rng.choice(self.fam.P["terms"]),
            year=self.rng.choice(self.fam.P["years"]),
            progname=self.rng.choice(self.fam.P["prognames"]),
            progname2=self.rng.choice(self.fam.P["prognames"]),
            fee=self.rng.choice(self.fam.P["fees"]),
            language=self.rng.choice(self.fam.P["languages"]),
            c=c.text,
            c2=c2.text,
            nword=self.rng.choice(["two", "three", "four"]),
            dept=self.dept().title(),
            dept_l=self.dept().lower(),
            num2=str(self.rng.choice([12, 15, 16, 18, 20, 24])),
            ge=self.rng.choice(self.fam.ge_codes),
        )


def _items(node: Any, cls: type) -> list[Any]:
    return list(node.items) if isinstance(node, cls) else [node]
