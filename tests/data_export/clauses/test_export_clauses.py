"""Clause generator: seeded, span-constrained, varied; records and CLI."""

from __future__ import annotations

import json

import pytest
from datasets import load_from_disk
from typer.testing import CliRunner

from common.outputs import OutputExistsError
from data_export.clauses.export import ClauseExportConfig, export_clauses
from data_export.clauses.generator import generate
from data_export.clauses.records import build_record, identifier_enum, span_violations
from pathwise.cli import app
from planner.clause_ast import Clause, CourseNode, clause_course_ids, clause_json_schema


def test_deterministic_for_a_seed():
    a, b, c = generate(300, seed=7), generate(300, seed=7), generate(300, seed=8)
    assert [(g.span, g.clause) for g in a] == [(g.span, g.clause) for g in b]
    assert [g.span for g in a] != [g.span for g in c]


def test_every_target_identifier_is_literally_in_the_span():
    for g in generate(2000, seed=1):
        ids = identifier_enum(g.span)
        assert all(i in g.span for i in ids)
        assert set(clause_course_ids(g.clause)) <= set(ids), g.span
        assert not span_violations(g.clause, ids, g.span)
        assert Clause.model_validate_json(g.clause.to_json()) == g.clause


def test_variation_present():
    gens = generate(3000, seed=2)
    spans = " ".join(g.span for g in gens)
    for phrase in (
        ", and ",
        " and ",
        ", or ",
        "one of ",
        "(",
        "permission of instructor",
        "consent",
        " recommended.",
        "Recommended:",
        "standing",
        "concurrent",
        "of the following:",
        "either ",
    ):
        assert phrase in spans, phrase
    kinds = {
        json.loads(g.clause.to_json())["prerequisite"]["kind"]
        for g in gens
        if g.clause.prerequisite is not None
    }
    assert kinds == {"course", "concurrent", "standing", "all_of", "any_of", "choose_n"}
    assert any('"consent"' in g.clause.to_json() for g in gens)
    # variants of one AST share its template id but differ in prose
    by_tid: dict[str, set[str]] = {}
    for g in gens:
        by_tid.setdefault(g.template_id, set()).add(g.span)
    assert sum(len(s) > 1 for s in by_tid.values()) > len(by_tid) * 0.8


def test_span_constraint_check_catches_violations():
    clause = Clause(prerequisite=CourseNode(course="MATH 999"))
    span = "Prerequisite: MATH 220."
    assert span_violations(clause, identifier_enum(span), span) == [
        "target names 'MATH 999', which is not in the identifier enum"
    ]
    assert span_violations(clause, ["MATH 999"], span)[0].startswith("enum member 'MATH 999'")
    with pytest.raises(ValueError, match="not span-constrained"):
        build_record(span, clause, "t", "r")


def test_schema_restricts_courses_to_the_enum():
    schema = json.dumps(clause_json_schema(["MATH 220", "CS 61B"]))
    assert '"enum": ["MATH 220", "CS 61B"]' in schema
    plain = clause_json_schema()["$defs"]["CourseNode"]["properties"]["course"]
    assert "enum" not in plain


def test_export_records_and_grouped_split(tmp_path):
    m = export_clauses(ClauseExportConfig(out=tmp_path / "cl", n=400, seed=3, eval_fraction=0.3))
    dd = load_from_disk(str(tmp_path / "cl"))
    assert m["counts"]["span_violations"] == 0
    assert not set(dd["train"]["base_task_id"]) & set(dd["eval"]["base_task_id"])
    rec = dd["train"][0]
    assert [x["role"] for x in rec["messages"]] == ["system", "user", "assistant"]
    assert all(isinstance(x["content"], str) for x in rec["messages"])
    assert rec["messages"][2]["content"] == rec["target"]
    assert json.dumps(rec["identifiers"]) in rec["messages"][1]["content"]
    assert (tmp_path / "cl" / "clause_schema.json").exists()
    with pytest.raises(OutputExistsError):
        export_clauses(ClauseExportConfig(out=tmp_path / "cl", n=10))


def test_cli_export_commands(tmp_path):
    from tests.helpers.synthetic_traces import step_row, write_trace

    runner = CliRunner()
    r = runner.invoke(
        app, ["export", "clauses", "--out", str(tmp_path / "c"), "--n", "50", "--seed", "4"]
    )
    assert r.exit_code == 0, r.output
    assert "span violations" in r.output
    write_trace(tmp_path / "tr", [step_row("a"), step_row("b", confidence=0.1)])
    args = [
        "export",
        "sft",
        "--traces",
        str(tmp_path / "tr"),
        "--out",
        str(tmp_path / "s"),
        "--eval-fraction",
        "0",
    ]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "filtered: low_confidence" in r.output and "kept" in r.output
    r = runner.invoke(app, args)
    assert r.exit_code == 2 and "refusing to overwrite" in r.output
    assert runner.invoke(app, [*args, "--overwrite"]).exit_code == 0
