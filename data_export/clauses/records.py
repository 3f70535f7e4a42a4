"""Span-constrained clause records: KnowPlan, "Deterministic-first parsing" (enum from the span).

A deterministic extractor builds the identifier enum only from tokens literally present in the
span; the record pairs (span, enum) with the target clause AST, and `span_violations` checks that
the target names only enum members and that every enum member occurs in the span.
"""

from __future__ import annotations

import json
import re
from typing import Any

from planner.clause_ast import Clause, clause_course_ids

# "MATH 220", "CS 61B", "BIOL 185L": a subject code, one space, a 1-4 digit number, optional suffix.
COURSE_RE = re.compile(r"\b[A-Z]{2,5} \d{1,4}[A-Z]?\b")

CLAUSE_SYSTEM_PROMPT = (
    "You convert one catalog prerequisite span into a clause AST. Output exactly one JSON object "
    '{"prerequisite": NODE or null, "recommended": [ID, ...]}. NODE is one of '
    '{"kind":"course","course":ID}, {"kind":"concurrent","course":ID}, '
    '{"kind":"standing","level":"sophomore"|"junior"|"senior"|"graduate"}, '
    '{"kind":"consent","of":"instructor"|"department"}, {"kind":"all_of","items":[NODE, ...]}, '
    '{"kind":"any_of","items":[NODE, ...]}, {"kind":"choose_n","n":N,"items":[NODE, ...]}. '
    "Every ID must be copied exactly from the listed identifiers. A trailing consent alternative "
    "applies to the whole requirement; recommendations are not prerequisites."
)

COLUMNS: tuple[str, ...] = (
    "messages",
    "base_task_id",
    "record_id",
    "span",
    "identifiers",
    "target",
    "style",
)


def identifier_enum(span: str) -> list[str]:
    """Course identifiers literally present in `span`, in order of first appearance."""
    seen: dict[str, None] = {}
    for m in COURSE_RE.finditer(span):
        seen.setdefault(m.group(0), None)
    return list(seen)


def span_violations(clause: Clause, identifiers: list[str], span: str) -> list[str]:
    """Empty when the target is span-constrained; otherwise one message per violation."""
    out = [f"enum member {i!r} is not literally in the span" for i in identifiers if i not in span]
    allowed = set(identifiers)
    out += [
        f"target names {c!r}, which is not in the identifier enum"
        for c in clause_course_ids(clause)
        if c not in allowed
    ]
    return out


def user_text(span: str, identifiers: list[str]) -> str:
    return f"Span: {span}\nIdentifiers: {json.dumps(identifiers)}"


def build_record(
    span: str, clause: Clause, base_task_id: str, record_id: str, style: tuple[str, ...] = ()
) -> dict[str, Any]:
    ids = identifier_enum(span)
    bad = span_violations(clause, ids, span)
    if bad:
        raise ValueError(f"record {record_id} is not span-constrained: {'; '.join(bad)}")
    target = clause.to_json()
    return {
        "messages": [
            {"role": "system", "content": CLAUSE_SYSTEM_PROMPT},
            {"role": "user", "content": user_text(span, ids)},
            {"role": "assistant", "content": target},
        ],
        "base_task_id": base_task_id,
        "record_id": record_id,
        "span": span,
        "identifiers": ids,
        "target": target,
        "style": list(style),
    }
