"""An infeasible verdict is confirmed by the unpruned model; one it does not confirm is
undecided, never infeasible."""

from __future__ import annotations

from dataclasses import replace

from planner import bench
from planner.bench import verdicts
from planner.confirm import confirm_infeasible
from planner.documents import AllOf, CourseRef
from planner.hypergraph import compile_graph
from planner.profile import Request
from planner.verify import Verifier
from tests.planner.planner_fixtures import catalog, course


def _chain_docs():
    cs = [course("C 1"), course("C 2", pre=CourseRef(course="C 1")), course("D 1")]
    return catalog(cs, AllOf(items=[CourseRef(course="C 2"), CourseRef(course="D 1")]))


def _chain():
    return compile_graph(_chain_docs())


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


def _packing():
    # Fifteen 4-unit, fourteen 3-unit and two 1-unit courses in eight terms of 13 units: the
    # relaxation's packing proves at once that no plan fits (tests/planner/test_tight_terms.py);
    # the unpruned model needs about 6 deterministic seconds to prove it by search.
    sizes = [4] * 15 + [3] * 14 + [1] * 2
    cs = [course(f"C {i}", units=u) for i, u in enumerate(sizes)]
    docs = catalog(cs, AllOf(items=[CourseRef(course=c.id) for c in cs]))
    return docs, Request(program="P", horizon=8, max_units_per_term=13)


def test_a_verdict_the_unpruned_model_cannot_prove_within_its_budget_is_undecided(cfg, monkeypatch):
    docs, req = _packing()
    g = compile_graph(docs)
    # The confirmation's own budget, too small for its proof: the ladder's verdict stands
    # unconfirmed, and the benchmark must not count it as infeasible.
    real = bench.confirm_infeasible
    monkeypatch.setattr(
        bench,
        "confirm_infeasible",
        lambda graph, request, c: real(graph, request, replace(c, confirm_time_s=0.01)),
    )
    row = bench._bench_pair(g, Verifier(docs), cfg, 0, req, ("ladder",))
    ladder = row["ladder"]
    assert ladder["status"] == "infeasible" and ladder["confirmation"]["status"] == "unknown"
    got = verdicts([ladder])
    assert got["infeasible"] == 0 and got["decided"] == 0 and got["undecided"] == 1
    assert got["infeasible_claimed"] == 1


def test_a_confirmed_infeasible_verdict_is_counted_decided(cfg):
    docs = _chain_docs()
    row = bench._bench_pair(
        compile_graph(docs), Verifier(docs), cfg, 0, Request(program="P", horizon=1)
    )
    for method in bench.METHODS[:2]:  # the CP-SAT planners; greedy never claims infeasible
        assert row[method]["status"] == "infeasible", method
        assert row[method]["confirmation"]["status"] == "confirmed", method
        got = verdicts([row[method]])
        assert got["infeasible"] == got["decided"] == 1 and got["undecided"] == 0, method
