"""The deterministic prerequisite grammar on real St. Olaf strings annotated by hand, on the
clause generator's prose, and through `pathwise catalog parse-prereq --json`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from catalogbrowse.prereq import parse_prereq
from catalogbrowse.prereq.normalize import equivalent
from data_export.clauses.generator import generate, subject_names

FIXTURES = Path(__file__).parent / "fixtures"
ROWS = [json.loads(x) for x in (FIXTURES / "stolaf_prereqs.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("row", [r for r in ROWS if r["grammar"]], ids=lambda r: r["text"][:40])
def test_grammar_types_real_stolaf_strings(row) -> None:
    got = parse_prereq(row["text"])
    assert not got.unresolved, got.unresolved
    assert equivalent(got.ast, row["ast"]), json.dumps(got.to_json())


@pytest.mark.parametrize("row", [r for r in ROWS if not r["grammar"]], ids=lambda r: r["text"][:40])
def test_grammar_leaves_what_it_cannot_type_unresolved(row) -> None:
    got = parse_prereq(row["text"])
    # Either a span stays unresolved (for the fallback) or, never, a confidently wrong full parse.
    assert got.unresolved or (row["ast"] is not None and not equivalent(got.ast, row["ast"]))
    assert all(s.text == row["text"][s.start : s.end] for s in got.unresolved)


def test_department_carry_over_and_recommendations() -> None:
    got = parse_prereq("CSCI 121 or 125 or PHYS 130L. MATH 220 recommended.")
    assert equivalent(
        got.ast,
        {
            "kind": "any_of",
            "items": [
                {"kind": "course", "course": "CSCI 121"},
                {"kind": "course", "course": "CSCI 125"},
                {"kind": "course", "course": "PHYS 130L"},
            ],
        },
    )
    assert got.clause.recommended == ["MATH 220"]


def test_grammar_never_mistypes_generator_prose() -> None:
    """What the grammar types fully is right; the rest it leaves to the model."""
    names = {name: code for code, name in subject_names().items()}
    typed = [(g, parse_prereq(g.span, names)) for g in generate(400, seed=3)]
    typed = [(g, p) for g, p in typed if not p.unresolved]
    assert len(typed) > 20
    bad = [g.span for g, p in typed if not equivalent(p.ast, g.clause.prerequisite)]
    assert not bad, bad[:3]


def test_parse_prereq_cli_prints_one_json_object() -> None:
    text = "Prerequisites: MATH 220, and MATH 244 or MATH 252; open to majors only."
    proc = subprocess.run(
        [sys.executable, "-m", "pathwise.cli", "catalog", "parse-prereq", text, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert set(data) == {"ast", "unresolved", "by_model"}
    assert data["unresolved"] == ["open to majors only"]
    assert data["ast"]["kind"] == "all_of"
    kinds = [i["kind"] for i in data["ast"]["items"]]
    assert kinds.count("unsupported") == 1 and "any_of" in kinds


def test_parse_prereq_fallback_endpoint_wants_its_key(monkeypatch) -> None:
    """The clause-model fallback behind an endpoint with a key: one line naming it without the
    key (before any model call), the call made with it."""
    from typer.testing import CliRunner

    from pathwise.cli import app
    from tests.helpers.fake_openai import FakeOpenAI

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    text = "Prerequisites: MATH 220; open to majors only."
    with FakeOpenAI(["{}"] * 8, models=("clause",), api_key="sk-catalog").running() as fake:
        args = ["catalog", "parse-prereq", text, "--json", "--model",
                "--endpoint", fake.base_url, "--served-name", "clause"]  # fmt: skip
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 2 and fake.requests == []
        assert res.output.strip() == (
            f"error: {fake.base_url} needs an API key (HTTP 401): pass --api-key or set "
            "OPENAI_API_KEY"
        )
        res = CliRunner().invoke(app, [*args, "--api-key", "sk-catalog"])
    assert res.exit_code == 0, res.output
    assert fake.requests and all(h["Authorization"] == "Bearer sk-catalog" for h in fake.headers)


@pytest.mark.parametrize(
    "text",
    [
        "Offered annually in the fall semester.",
        "Counts toward environmental studies major (all tracks) and concentration.",
        "P/N only. May be repeated if topics are different.",
        "Credit may be earned for either MATH 126 or MATH 128, but not both.",
        "Students who have taken HIST 433B may not enroll.",
    ],
)
def test_boilerplate_states_no_requirement(text) -> None:
    got = parse_prereq(text)
    assert got.ast is None and not got.unresolved


def test_openings_counts_and_concurrent_lists() -> None:
    got = parse_prereq("Open to junior or senior nursing majors only; NURS 211.")
    assert equivalent(got.ast, {"kind": "all_of", "items": [
        {"kind": "standing", "level": "junior"}, {"kind": "program", "text": "nursing majors"},
        {"kind": "course", "course": "NURS 211"}]})  # fmt: skip
    got = parse_prereq("two semesters of voice lessons, or permission of instructor.")
    assert got.ast.model_dump(mode="json") == {"kind": "any_of", "items": [
        {"kind": "courses", "n": 2, "area": "voice lessons"},
        {"kind": "consent", "of": "instructor"}]}  # fmt: skip
    got = parse_prereq("concurrent registration in NURS 311 and NURS 313.")
    assert {i.kind for i in got.ast.items} == {"concurrent"}
    # A sentence with a course identifier is never read as a count of courses in an area.
    assert parse_prereq("one course from HIST 101, HIST 102").ast.kind != "courses"
    # Nor is a requirement stated with a verb.
    assert parse_prereq("An application is required to register for this course.").unresolved
