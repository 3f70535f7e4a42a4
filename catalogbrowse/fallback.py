"""Span-constrained clause-to-AST fallback: KnowPlan, "Deterministic-first parsing" (the model).

Called only on a span the grammar could not type. The answer is decoded under a JSON Schema whose
course fields are an enum of the identifiers literally in the span (planner/clause_ids.py), so a
course that is not there cannot be written; it is then validated: it must parse in the model's
layout, name only enum members, and every text it copies (an area, a program, a named requirement)
must be re-located in the span. A failure is retried once with the validator's complaint; a second
failure leaves the span unresolved. "No requirement" (null) is a valid answer: the span is then
dropped from the clause, not kept as an unsupported node. An accepted answer is returned in its
smallest equal form (planner/clause_simplify.py): a small model repeats a course in nested groups.

Any backend with `chat(messages, json_schema=..., max_tokens=...) -> ChatResult` serves it:
serving.client.ChatClient (vLLM or `pathwise serve --embedded`) or serving.embedded.EmbeddedBackend.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from planner.clause_ast import Clause, span_violations
from planner.clause_ids import identifier_enum
from planner.clause_layout import DEFAULT_LAYOUT, decoding_schema, messages, parse
from planner.clause_simplify import simplify_clause


def validate(
    text: str,
    span: str,
    identifiers: list[str],
    layout: str = DEFAULT_LAYOUT,
    subjects: Mapping[str, str] | None = None,
) -> tuple[Clause | None, list[str]]:
    """(clause, []) when the answer is acceptable, else (None, reasons)."""
    try:
        clause = parse(text, layout)
    except (ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
        return None, [f"not a valid clause: {str(exc).splitlines()[0][:200]}"]
    errors = span_violations(clause, identifiers, span, subjects)
    return (clause if not errors else None), errors


@dataclass
class FallbackResult:
    """`clause` None: unresolved after the retry; `clause.prerequisite` None: no requirement."""

    clause: Clause | None
    calls: int
    errors: list[str] = field(default_factory=list)
    completion_tokens: int = 0


class ClauseModel:
    """One span in, a validated clause or None out; `seal(span, attempt)` pays each call first."""

    def __init__(
        self,
        backend: Any,
        layout: str = DEFAULT_LAYOUT,
        subjects: Mapping[str, str] | None = None,
        max_tokens: int = 192,
        model: str | None = None,
    ) -> None:
        self.backend = backend
        self.layout = layout
        self.subjects = subjects
        self.max_tokens = max_tokens
        self.model = model

    def __call__(self, span: str, seal: Callable[[str, int], None] | None = None) -> FallbackResult:
        ids = identifier_enum(span, self.subjects)
        schema = decoding_schema(self.layout, ids)
        chat = messages(span, ids, self.layout)
        errors: list[str] = []
        tokens = 0
        for attempt in (1, 2):
            if seal is not None:
                seal(span, attempt)
            kwargs: dict[str, Any] = {"json_schema": schema, "max_tokens": self.max_tokens}
            if self.model is not None:
                kwargs["model"] = self.model
            answer = self.backend.chat(chat, **kwargs)
            tokens += answer.usage.completion_tokens
            clause, errs = validate(answer.text, span, ids, self.layout, self.subjects)
            if clause is not None:
                return FallbackResult(simplify_clause(clause), attempt, errors, tokens)
            errors += errs
            chat = [
                *chat,
                {"role": "assistant", "content": answer.text},
                {"role": "user", "content": "Rejected: " + "; ".join(errs) + ". Answer again."},
            ]
        return FallbackResult(None, 2, errors, tokens)
