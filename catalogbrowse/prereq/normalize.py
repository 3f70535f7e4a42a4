"""Prerequisite-AST equivalence: KnowPlan, "Metrics" (normalized prerequisite-AST accuracy).

Two clauses are equivalent when they are the same boolean function of their atoms: "A and (B or
C)" equals "(A and B) or (A and C)", a choose_n is the disjunction of its n-subsets, and nesting,
order and duplicates do not matter. An atom is a leaf with its fields (a course, a standing level,
consent of whom); the words of a leaf copied from prose (an area, a program, a named requirement)
are compared as content-word sets, so "completion of FYW" and "FYW" are one atom and "nursing
majors" and "senior nursing majors" too (Jaccard >= 0.5). Gold never holds an `unsupported` leaf
(an untyped span), so one in an answer never matches. Labels and provenance are ignored.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from typing import Any

# Words that carry no meaning of their own in a copied requirement phrase.
_STOPWORDS_TEXT = (
    "a an the of in to for and or with at least completion completed successful successfully "
    "prior previous requirement requirements course courses only must be is are one"
)
_STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_TEXT_FIELDS = {"courses": "area", "program": "text", "requirement": "text"}
_MAX_SUBSETS = 256


def _dict(node: Any) -> Any:
    if node is None or isinstance(node, dict):
        return node
    return node.model_dump(mode="json")


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9/-]+", text.lower()) if w not in _STOPWORDS)


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= 0.5


def canonical(node: Any) -> Any:
    """A JSON-able canonical form of a node (a pydantic node or its dict): same-kind nesting
    merged, single-item groups unwrapped, children sorted; labels and provenance dropped."""
    d = _dict(node)
    if d is None:
        return None
    kind = d["kind"]
    if kind in ("all_of", "any_of", "choose_n"):
        items = [canonical(i) for i in d["items"]]
        if kind == "choose_n":
            if d["n"] >= len(items):
                kind = "all_of"
            elif d["n"] == 1:
                kind = "any_of"
        flat: list[Any] = []
        for it in items:
            flat.extend(it["items"] if kind != "choose_n" and it.get("kind") == kind else [it])
        if len(flat) == 1:
            return flat[0]
        flat.sort(key=lambda x: json.dumps(x, sort_keys=True))
        out: dict[str, Any] = {"kind": kind, "items": flat}
        if kind == "choose_n":
            out["n"] = d["n"]
        return out
    return {k: v for k, v in d.items() if v is not None and k not in ("label", "provenance")}


class _Atoms:
    """Atom symbols shared by the two sides; copied-text leaves unify by content words."""

    def __init__(self) -> None:
        from sympy import Symbol

        self._symbol = Symbol
        self.exact: dict[str, Any] = {}
        self.texts: list[tuple[tuple, frozenset[str], Any]] = []

    def of(self, leaf: dict[str, Any]) -> Any:
        kind = leaf["kind"]
        if kind in _TEXT_FIELDS:
            words = _words(str(leaf.get(_TEXT_FIELDS[kind], "")))
            head = (kind, leaf.get("n"))
            for h, w, sym in self.texts:
                if h == head and _similar(w, words):
                    return sym
            sym = self._symbol(f"{kind}#{len(self.texts)}")
            self.texts.append((head, words, sym))
            return sym
        key = json.dumps(leaf, sort_keys=True)
        if key not in self.exact:
            self.exact[key] = self._symbol(f"atom#{len(self.exact)}")
        return self.exact[key]


def _formula(node: Any, atoms: _Atoms) -> Any:
    from sympy import And, Or, false

    kind = node["kind"]
    if kind in ("all_of", "any_of"):
        parts = [_formula(i, atoms) for i in node["items"]]
        return And(*parts) if kind == "all_of" else Or(*parts)
    if kind == "choose_n":
        parts = [_formula(i, atoms) for i in node["items"]]
        subsets = list(itertools.islice(itertools.combinations(parts, node["n"]), _MAX_SUBSETS))
        return Or(*[And(*s) for s in subsets]) if subsets else false
    return atoms.of(node)


@functools.lru_cache(maxsize=65536)
def _equivalent(a: str, b: str) -> bool:
    from sympy import Xor
    from sympy.logic.inference import satisfiable

    atoms = _Atoms()
    fa, fb = _formula(json.loads(a), atoms), _formula(json.loads(b), atoms)
    return not satisfiable(Xor(fa, fb))


def equivalent(a: Any, b: Any) -> bool:
    """Logical equivalence over atoms; None (no requirement) equals only None."""
    ca, cb = canonical(a), canonical(b)
    if ca is None or cb is None:
        return ca is None and cb is None
    ja, jb = json.dumps(ca, sort_keys=True), json.dumps(cb, sort_keys=True)
    return ja == jb or _equivalent(ja, jb)
