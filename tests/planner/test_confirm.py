"""An infeasible verdict is confirmed by the unpruned model; one it does not confirm is
undecided, never infeasible."""

from __future__ import annotations

from planner.bench import verdicts
from planner.confirm import confirm_infeasible
from planner.documents import AllOf, CourseRef
from planner.hypergraph import compile_graph
from planner.profile import Request
from tests.planner.planner_fixtures import catalog, course


def _chain():
    cs = [course("C 1"), course("C 2", pre=CourseRef(course="C 1")), course("D 1")]
    req = AllOf(items=[CourseRef(course="C 2"), CourseRef(course="D 1")])
    return compile_graph(catalog(cs, req))


def test_the_unpruned_model_confirms_no_plan_and_refutes_a_plan(cfg):
    g = _chain()
    # C 2 needs C 1 a term earlier: one term cannot hold the chain.
    got = confirm_infeasible(g, Request(program="P", horizon=1), cfg)
    assert got.status == "confirmed" and got.x > 0
    # Two terms can: a verdict of "infeasible" here would be wrong, and is named so.
    assert confirm_infeasible(g, Request(program="P", horizon=2), cfg).status == "refuted"


def test_an_unconfirmed_infeasible_verdict_counts_as_undecided():
    rows = [
        {"status": "ok", "certified": True},
        {"status": "ok", "certified": False},
        {"status": "infeasible", "certified": False, "confirmation": {"status": "confirmed"}},
        {"status": "infeasible", "certified": False, "confirmation": {"status": "unknown"}},
        {"status": "infeasible", "certified": False, "confirmation": {"status": "refuted"}},
    ]
    assert verdicts(rows) == {
        "infeasible": 1,
        "infeasible_claimed": 3,
        "refuted": 1,
        "decided": 2,
        "undecided": 3,
    }
