"""Span-constrained clause records: KnowPlan, "Deterministic-first parsing" (enum from the span).

The identifier enum is read only from tokens literally in the span (planner/clause_ids.py); a
record pairs the prompt (span + enum) with the answer in the dataset's layout, and is refused when
its clause names a course outside the enum or a text the span does not contain.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.clause_ast import Clause, span_violations
from planner.clause_ids import identifier_enum
from planner.clause_layout import messages, render

COLUMNS: tuple[str, ...] = (
    "messages",
    "base_task_id",
    "record_id",
    "span",
    "identifiers",
    "target",
    "style",
    "family",
    "kind",
)


def build_record(
    span: str,
    clause: Clause,
    base_task_id: str,
    record_id: str,
    layout: str,
    subjects: Mapping[str, str] | None = None,
    style: tuple[str, ...] = (),
    family: int = -1,
    kind: str = "segment",
) -> dict[str, Any]:
    """One SFT record; `target` is the clause's own JSON (layout-free, what scoring compares)."""
    ids = identifier_enum(span, subjects)
    bad = span_violations(clause, ids, span, subjects)
    if bad:
        raise ValueError(f"record {record_id} is not span-constrained: {'; '.join(bad)}")
    return {
        "messages": [
            *messages(span, ids, layout),
            {"role": "assistant", "content": render(clause, layout)},
        ],
        "base_task_id": base_task_id,
        "record_id": record_id,
        "span": span,
        "identifiers": ids,
        "target": clause.to_json(),
        "style": list(style),
        "family": family,
        "kind": kind,
    }
