"""Course identifiers read from a span: only tokens literally there, written canonically, each
with the offsets it was read from."""

from __future__ import annotations

import pytest

from planner.clause_ids import canonical_text, find_identifiers, identifier_enum, locate_text

NAMES = {"psychology": "PSYCH", "computer science": "CSCI", "chinese": "CHIN"}


@pytest.mark.parametrize(
    ("span", "ids"),
    [
        ("MATH 220, CSCI 251, or STAT 272", ["MATH 220", "CSCI 251", "STAT 272"]),
        ("BIO 150 or BIO126", ["BIO 150", "BIO 126"]),  # a missing space
        ("Math 244 or 252 or permission", ["MATH 244", "MATH 252"]),  # case, carried subject
        ("Psychology 125 and Computer Science 121", ["PSYCH 125", "CSCI 121"]),  # names
        ("CH/BI 227 and DANCE 130/DANCE 131", ["CH/BI 227", "DANCE 130", "DANCE 131"]),
        ("One of CSCI 121, CSCI 251counts toward", ["CSCI 121", "CSCI 251"]),  # glued word
        ("one of Economics 110-121", []),  # a number range is no course
        ("SPAN 250 and two courses at the 270 or 300 level", ["SPAN 250"]),
        ("be able to swim 300 yards; class of 2016; Level 2", []),
    ],
)
def test_identifiers_are_read_from_the_span(span: str, ids: list[str]) -> None:
    assert identifier_enum(span, NAMES) == ids
    for ident in find_identifiers(span, NAMES):
        token = span[ident.start : ident.end]
        assert token.replace(" ", "").upper().endswith(ident.id.split(" ")[1])


def test_without_a_name_table_a_capitalised_name_stands_as_its_code() -> None:
    assert identifier_enum("Chinese 302 or equivalent") == ["CHINESE 302"]
    assert identifier_enum("Chinese 302 or equivalent", NAMES) == ["CHIN 302"]


def test_canonical_text_is_what_the_grammar_reads() -> None:
    assert canonical_text("Psych 230 or 231or placement") == "PSYCH 230 or 231 or placement"
    assert canonical_text("Psychology 125", NAMES) == "PSYCH 125"


def test_text_is_relocated_ignoring_case_and_spacing() -> None:
    span = "Open to  Senior nursing majors only"
    assert locate_text("senior nursing majors", span) == 9
    assert locate_text("junior nursing majors", span) == -1
