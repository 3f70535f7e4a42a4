"""docs/serving.md shows the support table the suite asserts, word for word, and every row
names a test module that exists."""

from __future__ import annotations

from pathlib import Path

from tests.serving.conformance.support import BEHAVIOUR, render_table

DOC = Path(__file__).resolve().parents[3] / "docs" / "serving.md"


def test_docs_carry_the_table():
    assert render_table() in DOC.read_text(), "regenerate: python -m tests.serving.conformance"


def test_every_row_is_tested():
    here = Path(__file__).parent
    for row in BEHAVIOUR:
        assert (here / f"{row.test}.py").is_file(), row
