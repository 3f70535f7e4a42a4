"""Plans on the committed St. Olaf documents (data/catalogs/stolaf*, MIT-licensed sources)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from planner.bench_stolaf import run_stolaf
from planner.documents import load_docs
from planner.hypergraph import compile_graph
from planner.profile import Request
from planner.run import parse_plan, run_request, verify_plans
from planner.solve import plan_request
from planner.text_request import parse_text, read_text
from planner.verify import verify_plan

ROOT = Path(__file__).resolve().parents[2] / "data" / "catalogs"
DOCS, DOCS_2025 = ROOT / "stolaf", ROOT / "stolaf-2025"
FOUR_YEARS = {
    "start_term": "fall 2014",
    "horizon": 12,
    "max_units_per_term": 4.25,
    "max_units_by_season": {"interim": 1.0},
    "acknowledged": ["kind:background", "own-restrictions"],
}


@lru_cache(maxsize=2)
def _load(path: Path):
    docs = load_docs(path)
    return docs, compile_graph(docs)


def test_fall_2025_stays_its_own_catalog(cfg):
    docs, g = _load(DOCS_2025)
    assert not docs.courses.calendar and docs.ge.frameworks[0].id == "stolaf-ge-observed"
    req = Request.model_validate(json.loads((DOCS_2025 / "request-ge.json").read_text()))
    res = plan_request(g, req, cfg)
    assert res.status == "ok" and res.plans[0].certified
    pairs = [(c.course, c.term) for c in res.plans[0].courses]
    assert verify_plan(docs, pairs, req) == []


def test_real_major_plans_on_real_offerings_and_verifies(cfg):
    # The computer-science major on four years of real sections (GE left out to stay fast).
    docs, g = _load(DOCS)
    req = Request(program="computer-science", ge_framework="none", **FOUR_YEARS)
    data = run_request(g, req, cfg)
    assert data["status"] == "ok" and data["plans"][0]["certified"]
    r, plans = parse_plan(json.loads(json.dumps(data)), "plan.json")
    assert verify_plans(docs, r, plans) == [(1, [])]
    placed = {c["course"]: c for c in data["plans"][0]["courses"]}
    # Every course sits in a term where the converted offerings (real sections) list it.
    offered = {c.id: {o.term for o in c.offerings or []} for c in docs.courses.courses}
    assert all(c["term_id"] in offered[cid] for cid, c in placed.items())
    assert any("Capstone" in p for p in placed["CSCI 390"]["counts_for"])
    # The capstone rests on a restriction the student attested to, and the plan says so.
    assert any(x["kind"] == "restriction" for x in data["relies_on"])


def test_infeasible_major_is_explained_once_per_cause(cfg):
    # Chemistry requires attending 12 seminars: a requirement in words only (a message).
    _, g = _load(DOCS)
    data = run_request(g, Request(program="chemistry", ge_framework="none", **FOUR_YEARS), cfg)
    assert data["status"] == "infeasible" and not data["plans"]
    groups = data["causes"]
    assert [g["requirement"] for g in groups] == ["the requirement 'Seminars' of chemistry"]
    assert groups[0]["source"].endswith("majors/chemistry.yaml")
    assert (
        groups[0]["causes"][0]["kind"] == "policy" and "seminars" in groups[0]["causes"][0]["text"]
    )
    assert len(data["explanation"]) == len(set(data["explanation"]))


def test_text_request_reads_major_load_and_interest():
    _, g = _load(DOCS)
    text = "I want to major in computer science, at most 4 credits a term, I like statistics"
    r = read_text(text, g)
    assert r.question is None and not r.request.unresolved
    assert r.request.program == "computer-science" and r.request.interests == ["statistics"]
    assert r.request.max_units_per_term == 4
    assert ("statistics", "an interest") in r.readings
    # Words that fit several programs get a question naming them; nothing is guessed.
    q = read_text("I want to major in science", g)
    assert q.request.program is None and "Exercise Science" in q.question
    req = parse_text("The Computer Science major, completed CSCI 121 and CSCI 999; 6 terms", g)
    assert req.completed == ["CSCI 121"] and "course:CSCI 999" in req.unresolved


def test_bench_stolaf_counts_an_infeasible_pair_without_verifying_it():
    # An infeasible request has no plan: counted as infeasible, never sent to the verifier.
    result = run_stolaf(DOCS, None, ["biology"], ["heavy"], None, 1, methods=("ladder",))
    assert result["programs"]["biology"]["infeasible"] == 1
    row = result["rows"][0]["ladder"]
    assert row["status"] == "infeasible" and not row["verified"] and row["causes"]
