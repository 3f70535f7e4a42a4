"""Span-constrained clause records: KnowPlan, "Deterministic-first parsing" (enum from the span).

A deterministic extractor builds the identifier enum only from tokens literally present in the
span; the record pairs (span, enum) with the target clause AST, and `span_violations` checks that
the target names only enum members and that every enum member occurs in the span.
"""

from __future__ import annotations

from typing import Any

from planner.clause_ast import (
    CLAUSE_SYSTEM_PROMPT,
    COURSE_RE,
    Clause,
    identifier_enum,
    span_violations,
    user_text,
)

__all__ = [
    "CLAUSE_SYSTEM_PROMPT",
    "COLUMNS",
    "COURSE_RE",
    "build_record",
    "identifier_enum",
    "span_violations",
    "user_text",
]

COLUMNS: tuple[str, ...] = (
    "messages",
    "base_task_id",
    "record_id",
    "span",
    "identifiers",
    "target",
    "style",
)


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
