"""Partial parses: the grammar keeps the structure and leaves only the parts it cannot type."""

from __future__ import annotations

from catalogbrowse.emit import type_prose
from catalogbrowse.prereq import parse_prereq
from catalogbrowse.prereq.normalize import equivalent
from planner.clause_ast import Clause, RequirementNode


def _course(c: str) -> dict:
    return {"kind": "course", "course": c}


def _courses(n: int, area: str) -> dict:
    return {"kind": "courses", "n": n, "area": area}


def _hole(text: str) -> dict:
    return {"kind": "unsupported", "text": text}


def test_a_part_the_grammar_cannot_type_is_the_only_span_left() -> None:
    text = "Prerequisites: EDUC 290 and approval of teacher education application."
    got = parse_prereq(text)
    assert [s.text for s in got.unresolved] == ["approval of teacher education application"]
    assert all(text[s.start : s.end] == s.text for s in got.unresolved)
    assert got.ast.model_dump(mode="json") == {
        "kind": "all_of",
        "items": [_course("EDUC 290"), _hole("approval of teacher education application")],
    }


def test_a_hole_is_one_run_of_untyped_parts_never_cut_inside() -> None:
    # "a C or better in NURS 417" cuts at "or" into two parts neither types: one hole, not two
    # alternatives.
    got = parse_prereq("a C or better in NURS 417 and MATH 120")
    assert [s.text for s in got.unresolved] == ["a C or better in NURS 417"]
    assert got.ast.model_dump(mode="json") == {
        "kind": "all_of",
        "items": [_hole("a C or better in NURS 417"), _course("MATH 120")],
    }


def test_nesting_is_the_grammars_and_a_hole_stays_inside_its_group() -> None:
    text = "PHYS 244, PHYS 374, and either MATH 226 or MATH 330 or similar course upon approval"
    got = parse_prereq(text)
    assert [s.text for s in got.unresolved] == ["similar course upon approval"]
    last = got.ast.items[-1].model_dump(mode="json")
    assert last["kind"] == "any_of"
    assert last["items"][:2] == [_course("MATH 226"), _course("MATH 330")]


def test_a_part_a_phrase_rule_types_needs_no_model() -> None:
    got = parse_prereq("PHIL 251 and one course in ethics")
    assert not got.unresolved
    assert equivalent(
        got.ast,
        {
            "kind": "all_of",
            "items": [_course("PHIL 251"), {"kind": "courses", "n": 1, "area": "ethics"}],
        },
    )


def test_holes_inside_parentheses_keep_their_offsets() -> None:
    text = "(CHEM 121 and an audition), or permission of instructor"
    got = parse_prereq(text)
    assert [s.text for s in got.unresolved] == ["an audition"]
    assert all(text[s.start : s.end] == s.text for s in got.unresolved)
    assert got.ast.kind == "any_of" and got.ast.items[1].kind == "consent"


def test_a_segment_with_nothing_the_grammar_types_stays_one_span() -> None:
    text = "high school algebra and geometry"
    assert [s.text for s in parse_prereq(text).unresolved] == [text]


def test_the_models_answers_are_spliced_into_the_holes() -> None:
    asked: list[str] = []

    def answer(span: str) -> Clause:
        asked.append(span)
        return Clause(prerequisite=RequirementNode(text=span))

    clause, by_model, left = type_prose("EDUC 290 and approval of the application.", answer)
    assert asked == by_model == ["approval of the application"] and not left
    assert clause.prerequisite.model_dump(mode="json") == {
        "kind": "all_of",
        "items": [
            _course("EDUC 290"),
            {"kind": "requirement", "text": "approval of the application"},
        ],
    }
