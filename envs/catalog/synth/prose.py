"""Catalog prose for a school's requirements: KnowPlan, "Deterministic-first parsing" (the spans).

Each school renders its prerequisite ASTs in its own house style; a small share of clauses use
phrasings outside the deterministic grammar (grade floors, "credit for", corequisite sentences),
the long tail the clause-model fallback exists for. Same seed, same prose.
"""

from __future__ import annotations

import random

from planner.clause_ast import (
    AllOfNode,
    AnyOfNode,
    ChooseNNode,
    ConcurrentNode,
    ConsentNode,
    CourseNode,
    EquivalentNode,
    PlacementNode,
    StandingNode,
)

WORDS = {2: "two", 3: "three", 4: "four"}


class Prose:
    def __init__(self, rng: random.Random, carry_over: bool, hard_share: float = 0.08) -> None:
        self.rng = rng
        self.carry_over = carry_over  # "CS 101 or 102": the subject is not repeated
        self.hard_share = hard_share
        self.oxford = rng.random() < 0.6
        self.prefix = rng.choice(["Prerequisite: ", "Prerequisites: ", "Prereq: ", ""])

    def _list(self, parts: list[str], conj: str) -> str:
        if len(parts) == 2:
            return f"{parts[0]} {conj} {parts[1]}"
        return ", ".join(parts[:-1]) + ("," if self.oxford else "") + f" {conj} {parts[-1]}"

    def _courses(self, ids: list[str]) -> list[str]:
        out, subj = [], None
        for c in ids:
            s, n = c.split(" ")
            out.append(n if self.carry_over and s == subj else c)
            subj = s
        return out

    def node(self, n, nested: bool = False) -> str:
        if isinstance(n, CourseNode):
            return n.course
        if isinstance(n, ConcurrentNode):
            return self.rng.choice(
                [f"{n.course} (may be taken concurrently)", f"concurrent enrollment in {n.course}"]
            )
        if isinstance(n, StandingNode):
            return self.rng.choice([f"{n.level} standing", f"{n.level} standing or higher"])
        if isinstance(n, ConsentNode):
            return self.rng.choice(["permission of instructor", "consent of the instructor"])
        if isinstance(n, PlacementNode):
            return f"placement into {n.course}" if n.course else "appropriate placement"
        if isinstance(n, EquivalentNode):
            return "equivalent"
        simple = all(isinstance(i, CourseNode) for i in n.items)
        if isinstance(n, ChooseNNode):
            parts = (
                self._courses([i.course for i in n.items])
                if simple
                else [self.node(i, True) for i in n.items]
            )
            return f"{WORDS.get(n.n, n.n)} of {self._list(parts, 'and')}"
        if isinstance(n, AnyOfNode) and n.items and isinstance(n.items[-1], ConsentNode):
            body = AnyOfNode(items=n.items[:-1]) if len(n.items) > 2 else n.items[0]
            text = self.node(body, True)
            if isinstance(body, AllOfNode | ChooseNNode):
                text = f"({text})"
            return f"{text}, or {self.node(n.items[-1])}"
        conj = "and" if isinstance(n, AllOfNode) else "or"
        if simple:
            parts = self._courses([i.course for i in n.items])
        else:
            parts = []
            for i in n.items:
                t = self.node(i, True)
                parts.append(f"({t})" if isinstance(i, AllOfNode | AnyOfNode | ChooseNNode) else t)
        if conj == "or" and len(parts) > 2 and self.rng.random() < 0.4:
            return "one of " + self._list(parts, "or")
        return self._list(parts, conj)

    def hard(self, n) -> str | None:
        """A phrasing outside the grammar, for the shapes whose meaning it keeps exactly."""
        if isinstance(n, CourseNode):
            return self.rng.choice(
                [
                    f"a grade of C- or better in {n.course}",
                    f"credit for {n.course}",
                    f"successful completion of {n.course} with a C or higher",
                ]
            )
        if isinstance(n, AnyOfNode) and all(isinstance(i, CourseNode) for i in n.items):
            ids = [i.course for i in n.items]
            return f"credit for {self._list(ids, 'or')}"
        if isinstance(n, AllOfNode) and all(isinstance(i, CourseNode) for i in n.items):
            ids = [i.course for i in n.items]
            return f"completion of {ids[0]}; students must also have passed " + " and ".join(
                ids[1:]
            )
        return None

    def clause(self, n) -> str:
        if n is None:
            return self.rng.choice(["", "Prerequisite: none.", "None."])
        if self.rng.random() < self.hard_share:
            h = self.hard(n)
            if h is not None:
                return f"{self.prefix}{h[0].upper()}{h[1:]}."
        body = self.node(n)
        return f"{self.prefix}{body[0].upper() if self.prefix else body[0]}{body[1:]}."
