"""The clause-model fallback: the span's enum constrains decoding (a course not in the span
cannot be emitted), the validator re-locates evidence, one retry, then unresolved."""

from __future__ import annotations

import json

import pytest

from catalogbrowse.fallback import ClauseModel, validate
from planner.clause_ast import clause_json_schema, identifier_enum
from serving.protocol import ChatResult, Usage

SPAN = "A grade of C- or better in MATH 220 and credit for STAT 110"


def test_validator_rejects_a_course_not_in_the_span() -> None:
    ids = identifier_enum(SPAN)
    ok, errs = validate(
        json.dumps({"prerequisite": {"kind": "course", "course": "MATH 220"}}), SPAN, ids
    )
    assert ok is not None and errs == []
    bad, errs = validate(
        json.dumps({"prerequisite": {"kind": "course", "course": "MATH 221"}}), SPAN, ids
    )
    assert bad is None and "not in the identifier enum" in errs[0]
    bad, errs = validate(
        json.dumps({"prerequisite": {"kind": "unsupported", "text": "junior"}}), SPAN, ids
    )
    assert bad is None and "not in the span" in errs[0]


class _Scripted:
    """Replays fixed completions (the retry logic under test, not a model)."""

    def __init__(self, texts: list[str]) -> None:
        self.texts, self.seen = list(texts), []

    def chat(self, messages, json_schema=None, max_tokens=256):
        self.seen.append((messages, json_schema))
        return ChatResult(
            text=self.texts.pop(0),
            usage=Usage(prompt_tokens=0, completion_tokens=0),
            latency_s=0.0,
            finish_reason="stop",
            model="scripted",
        )


def test_one_retry_with_feedback_then_unresolved() -> None:
    wrong = json.dumps({"prerequisite": {"kind": "course", "course": "CS 999"}})
    right = json.dumps(
        {
            "prerequisite": {
                "kind": "all_of",
                "items": [
                    {"kind": "course", "course": "MATH 220"},
                    {"kind": "course", "course": "STAT 110"},
                ],
            }
        }
    )
    seals = []
    backend = _Scripted([wrong, right])
    res = ClauseModel(backend)(SPAN, lambda s, a: seals.append(a))
    assert res.clause is not None and res.calls == 2 and seals == [1, 2]
    assert "Rejected" in backend.seen[1][0][-1]["content"]
    assert backend.seen[0][1] == clause_json_schema(["MATH 220", "STAT 110"])
    res = ClauseModel(_Scripted([wrong, wrong]))(SPAN)
    assert res.clause is None and res.calls == 2


@pytest.mark.train
def test_enum_constraint_holds_for_a_real_model(tmp_path_factory) -> None:
    """A tiny random Qwen3 decoding under the span's schema can only name courses in the span."""
    pytest.importorskip("llguidance")
    import torch

    from base_models.tiny import build_text
    from serving.embedded import EmbeddedBackend

    torch.set_num_threads(1)
    model = EmbeddedBackend(build_text(tmp_path_factory.mktemp("tiny") / "text"))
    ids = identifier_enum(SPAN)
    for seed in range(3):
        out = model.chat(
            [{"role": "user", "content": SPAN}],
            json_schema=clause_json_schema(ids),
            max_tokens=120,
            temperature=1.0,
            seed=seed,
        )
        for cid in _courses(out.text):
            assert cid in ids


def _courses(text: str) -> list[str]:
    import re

    return re.findall(r'"course":\s*"([^"]*)"', text) + [
        c
        for m in re.findall(r'"recommended":\s*\[([^\]]*)\]', text)
        for c in re.findall(r'"([^"]*)"', m)
    ]


def test_a_span_without_identifiers_offers_no_course_kinds() -> None:
    schema = json.dumps(clause_json_schema(identifier_enum("junior standing or consent")))
    assert "CourseNode" not in schema and "ConcurrentNode" not in schema
    assert "StandingNode" in schema
