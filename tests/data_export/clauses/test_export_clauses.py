"""Clause generator: seeded, span-constrained, wide; held-out families in phrasings and subjects
training never sees; records and CLI."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from datasets import load_from_disk
from typer.testing import CliRunner

from common.outputs import OutputExistsError
from data_export.clauses.export import ClauseExportConfig, export_clauses
from data_export.clauses.generator import (
    HELD_OUT_FAMILIES,
    Family,
    generate,
    phrases,
    subject_names,
)
from data_export.clauses.records import build_record
from pathwise.cli import app
from planner.clause_ast import Clause, CourseNode, clause_course_ids, evidence_texts
from planner.clause_ids import identifier_enum, locate_text
from planner.clause_layout import parse

NAMES = {name: code for code, name in subject_names().items()}


def test_deterministic_for_a_seed():
    a, b, c = generate(300, seed=7), generate(300, seed=7), generate(300, seed=8)
    assert [(g.span, g.clause) for g in a] == [(g.span, g.clause) for g in b]
    assert [g.span for g in a] != [g.span for g in c]


# Seed 7's record 457 once quoted "the ability to swim 200 yards" from a span whose typo had
# glued it into "200yards".
@pytest.mark.parametrize(("n", "seed"), [(1500, 1), (600, 7)])
def test_every_target_is_span_constrained(n: int, seed: int):
    for g in generate(n, seed=seed):
        assert set(clause_course_ids(g.clause)) <= set(identifier_enum(g.span, NAMES)), g.span
        node = g.clause.prerequisite
        for text in evidence_texts(node) if node is not None else []:
            assert locate_text(text, g.span) >= 0, (text, g.span)


def _depth(node) -> int:
    return 1 + max((_depth(i) for i in getattr(node, "items", [])), default=0)


def test_leaf_records_are_single_leaves():
    gens = generate(400, seed=5, leaf_share=0.5)
    leaves = [g.clause.prerequisite for g in gens if g.kind == "leaf"]
    assert 150 < len(leaves) < 250 and None not in leaves
    # One leaf (with at most its own "or equivalent" / "and a program"), never a nested group.
    assert max(_depth(n) for n in leaves if n is not None) == 2
    assert max(_depth(g.clause.prerequisite) for g in gens if g.kind == "segment") > 2
    # Without leaves the records are the same as before the option existed.
    plain = [g.span for g in generate(50, seed=5)]
    assert plain == [g.span for g in generate(50, seed=5, leaf_share=0.0)]


def test_the_long_tail_is_there():
    gens = generate(3000, seed=2)
    kinds = Counter(g.kind for g in gens)
    assert set(kinds) == {"segment", "none", "string"}
    spans = " ".join(g.span for g in gens)
    for phrase in ("Offered", "Counts toward", "fee", " plus ", "or equivalent", "concurrent",
                   "standing", "majors", " or placement", "courses in"):  # fmt: skip
        assert phrase in spans, phrase
    leaves = Counter(
        json.loads(x)["kind"]
        for g in gens if g.clause.prerequisite is not None
        for x in _leaf_json(g.clause.prerequisite.model_dump(mode="json"))
    )  # fmt: skip
    assert {"course", "concurrent", "standing", "consent", "placement", "equivalent", "courses",
            "program", "requirement"} <= set(leaves)  # fmt: skip
    assert any(g.clause.prerequisite is None for g in gens)
    assert any(t.startswith("typo") for g in gens for t in g.style)


def _leaf_json(node: dict) -> list[str]:
    if "items" in node:
        return [x for i in node["items"] for x in _leaf_json(i)]
    return [json.dumps(node)]


def test_held_out_families_use_phrasings_training_never_sees():
    train = {s for f in range(12) for s in Family(f).allowed["standing"]}
    held = Family(HELD_OUT_FAMILIES[0])
    assert held.allowed["standing"] and not set(held.allowed["standing"]) & train
    assert not {c for c, _n in held.subjects} & {
        c for f in range(12) for c, _n in Family(f).subjects
    }
    assert len(phrases()["no_requirement"]) > 40


def test_record_refuses_a_course_outside_the_span():
    with pytest.raises(ValueError, match="not span-constrained"):
        build_record("Prerequisite: MATH 220.", Clause(prerequisite=CourseNode(course="MATH 999")),
                     "t", "r", "keyed")  # fmt: skip


def test_export_records_and_split(tmp_path):
    m = export_clauses(ClauseExportConfig(out=tmp_path / "cl", n=120, eval_n=30, seed=3))
    dd = load_from_disk(str(tmp_path / "cl"))
    assert m["counts"]["span_violations"] == 0 and m["layout"] == "keyed"
    assert set(dd["train"]["family"]) <= set(range(12))
    assert set(dd["eval"]["family"]) <= set(HELD_OUT_FAMILIES)
    assert not set(dd["train"]["span"]) & set(dd["eval"]["span"])
    rec = dd["train"][0]
    assert [x["role"] for x in rec["messages"]] == ["system", "user", "assistant"]
    assert parse(rec["messages"][2]["content"], "keyed") == Clause.model_validate_json(
        rec["target"]
    )
    assert ", ".join(rec["identifiers"]) in rec["messages"][1]["content"]
    assert (tmp_path / "cl" / "decoding_schema.json").exists()
    with pytest.raises(OutputExistsError):
        export_clauses(ClauseExportConfig(out=tmp_path / "cl", n=10))


def test_eval_split_from_the_training_families(tmp_path):
    held = export_clauses(ClauseExportConfig(out=tmp_path / "h", n=60, eval_n=20, seed=3))
    seen = export_clauses(
        ClauseExportConfig(out=tmp_path / "t", n=60, eval_n=20, seed=3, eval_families="training")
    )
    h, t = load_from_disk(str(tmp_path / "h")), load_from_disk(str(tmp_path / "t"))
    # The same training split, so one trained model is scored on both eval splits.
    assert h["train"]["span"] == t["train"]["span"]
    assert set(t["eval"]["family"]) <= set(range(12)) and len(t["eval"]) > 0
    assert not set(t["train"]["span"]) & set(t["eval"]["span"])
    assert seen["generator"]["eval_families"] == "training"
    assert held["generator"]["eval_families"] == "held_out"
    assert "training families at the next seed" in seen["split"]["method"]
    with pytest.raises(ValueError, match="eval_families"):
        export_clauses(ClauseExportConfig(out=tmp_path / "x", n=5, eval_families="all"))
    assert not (tmp_path / "x").exists()


def test_cli_export_commands(tmp_path):
    from tests.helpers.synthetic_traces import step_row, write_trace

    runner = CliRunner()
    r = runner.invoke(
        app, ["export", "clauses", "--out", str(tmp_path / "c"), "--n", "50", "--eval-n", "10"]
    )
    assert r.exit_code == 0, r.output
    assert "span violations" in r.output and "eval (held-out families)" in r.output
    r = runner.invoke(app, ["export", "clauses", "--out", str(tmp_path / "d"), "--layout", "x"])
    assert r.exit_code == 2 and "unknown clause layout" in r.output
    base = ["export", "clauses", "--n", "20", "--eval-n", "5", "--eval-families"]
    r = runner.invoke(app, [*base, "training", "--out", str(tmp_path / "e")])
    assert r.exit_code == 0 and "eval (training families)" in r.output, r.output
    r = runner.invoke(app, [*base, "seen", "--out", str(tmp_path / "f")])
    assert r.exit_code == 2 and "--eval-families" in r.output and not (tmp_path / "f").exists()
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
