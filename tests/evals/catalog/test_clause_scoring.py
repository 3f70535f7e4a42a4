"""The labelled St. Olaf strings are well formed, and the scoring counts what it says."""

from __future__ import annotations

import json
from pathlib import Path

from catalogbrowse.fallback import ClauseModel
from data_export.clauses.export import ClauseExportConfig, export_clauses
from evals.catalog.clause_model import (
    Cached,
    Labelled,
    load_labelled,
    markdown,
    prefill,
    score_heldout,
    score_stolaf,
)
from planner.clause_ast import Clause, clause_course_ids
from planner.clause_ids import identifier_enum
from serving.protocol import ChatResult, Usage

DATA = Path(__file__).resolve().parents[3] / "data/catalogs/stolaf-prereqs"


def test_devset_is_labelled_and_span_constrained() -> None:
    items = load_labelled(DATA / "devset.jsonl")
    subjects = json.loads((DATA / "subjects.json").read_text())
    assert len({i.text for i in items}) == len(items)
    assert sum(i.split == "dev" and not i.pool for i in items) >= 100
    for it in items:
        if it.pool:
            assert it.note and it.ast is None, it.text  # every pooled string says why
            continue
        clause = Clause.model_validate({"prerequisite": it.ast})
        assert set(clause_course_ids(clause)) <= set(identifier_enum(it.text, subjects)), it.text
    lines = (DATA / "batch500.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines)) == 500
    assert all(isinstance(json.loads(x)["text"], str) for x in lines)


class Table:
    """Answers by span from a table (the scoring under test, not a model)."""

    def __init__(self, answers: dict[str, object]) -> None:
        self.answers = answers

    def chat(self, messages, json_schema=None, max_tokens=256):
        span = messages[-1]["content"].split("\n")[0].removeprefix("Span: ")
        return ChatResult(
            text=json.dumps({"ast": self.answers.get(span, "NOPE 1")}),
            usage=Usage(prompt_tokens=1, completion_tokens=2),
            latency_s=0.0,
            finish_reason="stop",
            model="table",
        )


def test_stolaf_scores_grammar_model_and_pool() -> None:
    items = [
        Labelled("MATH 220.", {"kind": "course", "course": "MATH 220"}),
        Labelled("MATH 220. Taught in Norwegian.", {"kind": "course", "course": "MATH 220"}),
        Labelled("FYW.", {"kind": "requirement", "text": "FYW"}),
        Labelled("DANCE 210/DANCE 211.", None, pool=True, note="slash"),
    ]
    fb = Cached(ClauseModel(Table({"Taught in Norwegian": None, "FYW": {"requirement": "FYW"}})))
    res = score_stolaf(fb, items, None)["dev"]
    assert res["labelled"] == 3 and res["pool"] == 1 and res["hard"] == 2
    assert res["grammar_only"]["correct"] == 1
    assert res["grammar_plus_model"]["correct"] == 3
    # Alone on the whole strings: the table knows "FYW." only as "FYW", so both miss.
    assert res["hard_model_alone"]["correct"] == 0


def test_heldout_scoring_names_the_families_its_export_drew(tmp_path) -> None:
    reports = {}
    for fams in ("held_out", "training"):
        data = tmp_path / fams
        export_clauses(ClauseExportConfig(out=data, n=8, eval_n=6, seed=1, eval_families=fams))
        fb = Cached(ClauseModel(Table({})))  # every answer refused: the grammar alone scores
        held = score_heldout(fb, data, k=4)
        assert held["families"] == fams and held["n"] == 4
        assert held["model_alone"]["correct"] == 0
        calls = fb.stats()
        reports[fams] = markdown({"model": "m", "layout": "keyed", "backend": "table",
                                  "heldout": held, "stolaf": {}, "calls": calls})  # fmt: skip
    assert "## Held-out generator families (4 records" in reports["held_out"]
    assert "## Training generator families (4 fresh records" in reports["training"]


class Counting(Table):
    """A Table that records the spans it is first asked (a retry repeats a span)."""

    def __init__(self, answers: dict[str, object]) -> None:
        super().__init__(answers)
        self.asked: list[str] = []

    def chat(self, messages, json_schema=None, max_tokens=256):
        if len(messages) == 2:  # system + user: a first ask, not the retry
            self.asked.append(messages[1]["content"].split("\n")[0].removeprefix("Span: "))
        return super().chat(messages, json_schema, max_tokens)


def test_prefill_asks_what_the_scoring_asks_and_scores_the_same(tmp_path) -> None:
    data = tmp_path / "data"
    export_clauses(ClauseExportConfig(out=data, n=8, eval_n=12, seed=3, leaf_share=0.25))
    items = [
        Labelled("MATH 220. Taught in Norwegian.", {"kind": "course", "course": "MATH 220"}),
        Labelled("FYW.", {"kind": "requirement", "text": "FYW"}),
    ]
    answers = {"FYW": {"requirement": "FYW"}, "Taught in Norwegian": None}
    plain, warm = Cached(ClauseModel(Counting(answers))), Cached(ClauseModel(Counting(answers)))
    prefill(warm, data, 6, items, None, workers=4)
    before = list(warm.model.backend.asked)
    assert warm.filled["spans"] == len(set(before)) > 0 and warm.stats()["spans"] == 0
    results = [(score_heldout(fb, data, 6), score_stolaf(fb, items, None)) for fb in (plain, warm)]
    assert warm.model.backend.asked == before  # every span the scoring asked was answered
    assert sorted(set(before)) == sorted(set(plain.model.backend.asked))
    assert results[0] == results[1]
