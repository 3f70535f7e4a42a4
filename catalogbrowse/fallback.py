"""Span-constrained clause-to-AST fallback: KnowPlan, "Deterministic-first parsing" (the model).

Called only on a span the grammar could not type. The JSON Schema it decodes under restricts
every course field to an enum of identifiers literally in the span, so it cannot name a course
that is not there; its output is validated (schema, enum, evidence re-located in the span) and
retried once with the validator's complaint; a second failure leaves the span unresolved.
Any backend with `chat(messages, json_schema=..., max_tokens=...) -> ChatResult` serves it:
serving.client.ChatClient (vLLM or `pathwise serve --embedded`) or serving.embedded.EmbeddedBackend.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from planner.clause_ast import (
    CLAUSE_SYSTEM_PROMPT,
    Clause,
    UnsupportedNode,
    clause_json_schema,
    identifier_enum,
    span_violations,
    user_text,
)


def validate(text: str, span: str, identifiers: list[str]) -> tuple[Clause | None, list[str]]:
    """(clause, []) when the output is acceptable, else (None, reasons)."""
    try:
        clause = Clause.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError) as exc:
        return None, [f"not a valid clause: {str(exc).splitlines()[0][:200]}"]
    errors = span_violations(clause, identifiers, span)

    def walk(n: Any) -> None:
        if isinstance(n, UnsupportedNode) and n.text not in span:
            errors.append(f"unsupported text {n.text!r} is not in the span")
        for child in getattr(n, "items", []) or []:
            walk(child)

    walk(clause.prerequisite)
    return (clause if not errors else None), errors


@dataclass
class FallbackResult:
    clause: Clause | None
    calls: int
    errors: list[str] = field(default_factory=list)


class ClauseModel:
    """One span in, a validated clause or None out; `seal(span, attempt)` pays each call first."""

    def __init__(self, backend: Any, max_tokens: int = 256, model: str | None = None) -> None:
        self.backend = backend
        self.max_tokens = max_tokens
        self.model = model

    def __call__(self, span: str, seal: Callable[[str, int], None] | None = None) -> FallbackResult:
        ids = identifier_enum(span)
        schema = clause_json_schema(ids)
        messages = [
            {"role": "system", "content": CLAUSE_SYSTEM_PROMPT},
            {"role": "user", "content": user_text(span, ids)},
        ]
        errors: list[str] = []
        for attempt in (1, 2):
            if seal is not None:
                seal(span, attempt)
            kwargs: dict[str, Any] = {"json_schema": schema, "max_tokens": self.max_tokens}
            if self.model is not None:
                kwargs["model"] = self.model
            text = self.backend.chat(messages, **kwargs).text
            clause, errs = validate(text, span, ids)
            if clause is not None:
                return FallbackResult(clause, attempt, errors)
            errors += errs
            messages += [
                {"role": "assistant", "content": text},
                {"role": "user", "content": "Rejected: " + "; ".join(errs) + ". Answer again."},
            ]
        return FallbackResult(None, 2, errors)
