"""The clause-model fallback: the span's enum constrains decoding (a course not in the span
cannot be emitted), the validator refuses what escapes it and re-locates copied text, one retry
with its feedback, then unresolved; "no requirement" drops the span from the clause."""

from __future__ import annotations

import json
import re

import pytest

from catalogbrowse.emit import type_prose
from catalogbrowse.fallback import ClauseModel, validate
from planner.clause_ids import identifier_enum
from planner.clause_layout import decoding_schema
from serving.protocol import ChatResult, Usage

SPAN = "A grade of C- or better in MATH 220 and credit for STAT 110"


def ans(node) -> str:
    return json.dumps({"ast": node})


def test_validator_refuses_an_identifier_not_in_the_span() -> None:
    ids = identifier_enum(SPAN)
    ok, errs = validate(ans({"all": ["MATH 220", "STAT 110"]}), SPAN, ids)
    assert ok is not None and errs == []
    bad, errs = validate(ans("MATH 221"), SPAN, ids)
    assert bad is None and "not in the identifier enum" in errs[0]
    # An enum that was not read from the span is refused too.
    bad, errs = validate(ans("MATH 221"), SPAN, [*ids, "MATH 221"])
    assert bad is None and any("not literally in the span" in e for e in errs)


def test_copied_text_must_be_found_in_the_span() -> None:
    span = "open to senior nursing majors only"
    ok, _ = validate(
        ans({"all": [{"standing": "senior"}, {"program": "Nursing  majors"}]}), span, []
    )
    assert ok is not None
    bad, errs = validate(ans({"program": "music majors"}), span, [])
    assert bad is None and "not in the span" in errs[0]


def test_a_text_field_may_not_hold_one_of_the_spans_courses() -> None:
    # A small model copies "NURS 230" into a requirement's words; a course is a course node.
    span = "a B- or better in NURS 230"
    ids = identifier_enum(span)
    ok, _ = validate(ans("NURS 230"), span, ids)
    assert ok is not None
    bad, errs = validate(ans({"requirement": "B- or better in NURS 230"}), span, ids)
    assert bad is None and "names the course 'NURS 230'" in errs[0]


class Scripted:
    """Replays fixed completions (the retry logic under test, not a model)."""

    def __init__(self, texts: list[str]) -> None:
        self.texts, self.seen = list(texts), []

    def chat(self, messages, json_schema=None, max_tokens=256):
        self.seen.append((messages, json_schema))
        return ChatResult(
            text=self.texts.pop(0),
            usage=Usage(prompt_tokens=0, completion_tokens=3),
            latency_s=0.0,
            finish_reason="stop",
            model="scripted",
        )


def test_one_retry_with_feedback_then_unresolved() -> None:
    wrong, right = ans("CS 999"), ans({"all": ["MATH 220", "STAT 110"]})
    seals = []
    backend = Scripted([wrong, right])
    res = ClauseModel(backend)(SPAN, lambda s, a: seals.append(a))
    assert res.clause is not None and res.calls == 2 and seals == [1, 2]
    assert backend.seen[1][0][-1]["content"].startswith("Rejected: names 'CS 999'")
    assert backend.seen[0][1] == decoding_schema("keyed", ["MATH 220", "STAT 110"])
    backend = Scripted([wrong, wrong, right])
    res = ClauseModel(backend)(SPAN)
    assert res.clause is None and res.calls == 2 and len(backend.texts) == 1  # no third call


def test_an_accepted_answer_comes_back_in_its_smallest_equal_form() -> None:
    # The served 135M model's kind of loop: one course, nested in itself.
    loop = ans({"any": ["MATH 220", {"all": ["MATH 220", {"any": ["MATH 220", "MATH 220"]}]}]})
    res = ClauseModel(Scripted([loop]))("a C or better in MATH 220")
    assert res.clause.prerequisite.model_dump(mode="json") == {
        "kind": "course",
        "course": "MATH 220",
    }


def test_a_sentence_that_states_no_requirement_yields_no_node() -> None:
    model = ClauseModel(Scripted([ans(None)]))
    clause, by_model, left = type_prose("MATH 220. Taught in Norwegian.", lambda s: model(s).clause)
    assert clause.prerequisite.model_dump(mode="json") == {"kind": "course", "course": "MATH 220"}
    assert by_model == ["Taught in Norwegian"] and left == []
    clause, by_model, _ = type_prose(
        "Taught in Norwegian.", lambda s: ClauseModel(Scripted([ans(None)]))(s).clause
    )
    assert clause.prerequisite is None and by_model == ["Taught in Norwegian"]


def test_the_grammar_takes_catalog_boilerplate_before_the_model() -> None:
    """Offering schedules and credit rules are no requirement by rule: the model is not asked."""
    asked: list[str] = []
    clause, by_model, left = type_prose(
        "MATH 220. Offered annually in the fall semester. Counts toward statistics concentration.",
        lambda s: asked.append(s),
    )
    assert clause.prerequisite.model_dump(mode="json") == {"kind": "course", "course": "MATH 220"}
    assert asked == [] and by_model == [] and left == []


@pytest.mark.train
def test_enum_constraint_holds_for_a_real_model(tmp_path_factory) -> None:
    """A tiny random model decoding under the span's schema names only courses in the span."""
    import torch

    from base_models.tiny import build_text
    from serving.embedded import EmbeddedBackend

    torch.set_num_threads(1)
    model = EmbeddedBackend(build_text(tmp_path_factory.mktemp("tiny") / "text"))
    ids = identifier_enum(SPAN)
    for seed in range(3):
        out = model.chat(
            [{"role": "user", "content": SPAN}],
            json_schema=decoding_schema("prefix", ids),
            max_tokens=60,
            temperature=1.0,
            seed=seed,
        )
        # Every quoted course-shaped string (a truncated answer may not parse) is in the enum.
        for token in re.findall(r'"([A-Z]{2,5} \d{3})"', out.text):
            assert token in ids
