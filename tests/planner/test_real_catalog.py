"""Plans on the converted St. Olaf catalog (data/catalogs/stolaf, MIT-licensed sources)."""

from __future__ import annotations

import json
from pathlib import Path

from planner.documents import load_docs
from planner.hypergraph import compile_graph
from planner.profile import Request, parse_text
from planner.solve import plan_request
from planner.verify import verify_plan

DOCS = Path(__file__).resolve().parents[2] / "data" / "catalogs" / "stolaf"


def test_plan_on_converted_catalog_verifies(cfg):
    docs = load_docs(DOCS)
    g = compile_graph(docs)
    req = Request.model_validate(json.loads((DOCS / "request-ge.json").read_text()))
    res = plan_request(g, req, cfg)
    assert res.status == "ok" and res.plans[0].certified
    pairs = [(c.course, c.term) for c in res.plans[0].courses]
    assert verify_plan(docs, pairs, req) == []


def test_real_major_with_missing_courses_is_explained(cfg):
    g = compile_graph(load_docs(DOCS))
    res = plan_request(
        g, Request(program="computer-science", horizon=8, max_units_per_term=4.5), cfg
    )
    assert res.status == "infeasible"
    assert any("not in the course catalog" in line for line in res.explanation)


def test_text_request_resolves_or_asks():
    g = compile_graph(load_docs(DOCS))
    req = parse_text(
        "I want the Computer Science major, completed CSCI 121 and CSCI 999; "
        "6 terms, at most 4 credits",
        g,
    )
    assert req.program == "computer-science" and req.completed == ["CSCI 121"]
    assert "course:CSCI 999" in req.unresolved and req.horizon == 6
    assert req.max_units_per_term == 4
