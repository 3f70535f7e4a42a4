"""Answer layouts of the clause model: each carries the whole clause, parses back to it, and is
decoded under a schema that cannot name a course outside the span's enum."""

from __future__ import annotations

import json

import pytest

from planner.clause_ast import Clause
from planner.clause_layout import LAYOUTS, decoding_schema, messages, parse, render

CLAUSE = Clause.model_validate(
    {
        "prerequisite": {
            "kind": "any_of",
            "items": [
                {
                    "kind": "all_of",
                    "items": [
                        {"kind": "course", "course": "MATH 220"},
                        {"kind": "standing", "level": "junior"},
                        {"kind": "courses", "n": 2, "area": "philosophy"},
                        {"kind": "placement"},
                    ],
                },
                {
                    "kind": "choose_n",
                    "n": 2,
                    "items": [
                        {"kind": "concurrent", "course": "CS 1"},
                        {"kind": "program", "text": "nursing majors"},
                        {"kind": "requirement", "text": "FYW"},
                    ],
                },
                {"kind": "equivalent"},
                {"kind": "consent", "of": "department"},
            ],
        }
    }
)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_render_parse_round_trip(layout: str) -> None:
    assert parse(render(CLAUSE, layout), layout) == CLAUSE
    none = Clause(prerequisite=None)
    assert parse(render(none, layout), layout) == none


@pytest.mark.parametrize("layout", LAYOUTS)
def test_schema_refuses_a_course_outside_the_enum(layout: str) -> None:
    pytest.importorskip("llguidance")
    import llguidance
    import llguidance.hf

    from base_models.tiny import build_tokenizer

    tok = build_tokenizer("text")

    lt = llguidance.hf.from_tokenizer(tok, n_vocab=len(tok))

    def accepts(text: str) -> bool:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(
            decoding_schema(layout, ["MATH 220", "CS 1"]), overrides={"whitespace_flexible": False}
        )
        m = llguidance.LLMatcher(lt, grammar, log_level=0)
        return m.consume_tokens(tok(text, add_special_tokens=False)["input_ids"]) and not (
            m.is_error()
        )

    good = render(CLAUSE, layout)
    assert accepts(good)
    assert not accepts(good.replace("MATH 220", "MATH 221"))


def test_prompt_lists_the_identifiers() -> None:
    chat = messages("MATH 220 or CS 1.", ["MATH 220", "CS 1"], "keyed")
    assert chat[1]["content"].endswith("Identifiers: MATH 220, CS 1")
    assert json.loads(render(CLAUSE, "keyed"))["ast"]["any"][-1] == {"consent": "department"}
