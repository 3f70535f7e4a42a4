"""Normalized prerequisite-AST equivalence: KnowPlan, "Metrics" (normalized AST accuracy).

Two clauses are equivalent when their canonical forms match: same-kind all_of / any_of nesting
merged, single-item groups unwrapped, children of every group sorted, choose_n with n >= its
item count read as all_of (and n == 1 as any_of).
"""

from __future__ import annotations

import json
from typing import Any


def canonical(node: Any) -> Any:
    """A JSON-able canonical form of a clause node (a pydantic node or its dict)."""
    if node is None:
        return None
    d = node if isinstance(node, dict) else node.model_dump(mode="json")
    kind = d["kind"]
    if kind in ("all_of", "any_of", "choose_n"):
        items = [canonical(i) for i in d["items"]]
        if kind == "choose_n":
            n = d["n"]
            if n >= len(items):
                kind = "all_of"
            elif n == 1:
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
    return {k: v for k, v in d.items() if v is not None}


def equivalent(a: Any, b: Any) -> bool:
    return json.dumps(canonical(a), sort_keys=True) == json.dumps(canonical(b), sort_keys=True)
