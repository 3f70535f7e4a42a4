"""Dangling references and prerequisite cycles are reported, never crash the planner."""

from __future__ import annotations

from planner.documents import AllOf, CourseRef
from planner.hypergraph import compile_graph
from planner.profile import Request
from planner.solve import plan_request
from tests.planner.planner_fixtures import catalog, course


def test_dangling_reference_reported_and_unsatisfiable(cfg):
    docs = catalog(
        [course("A 1")], AllOf(items=[CourseRef(course="A 1"), CourseRef(course="GHOST 9")])
    )
    g = compile_graph(docs)
    assert any(i.kind == "dangling_ref" and "GHOST 9" in i.message for i in g.issues)
    res = plan_request(g, Request(program="P"), cfg)
    assert res.status == "infeasible" and not res.plans
    assert any(
        "GHOST 9" in line and "not in the course catalog" in line for line in res.explanation
    )


def test_prerequisite_cycle_reported_with_cycle(cfg):
    cs = [
        course("A 1", pre=CourseRef(course="C 1")),
        course("B 1", pre=CourseRef(course="A 1")),
        course("C 1", pre=CourseRef(course="B 1")),
        course("D 1"),
    ]
    g = compile_graph(catalog(cs, CourseRef(course="D 1")))
    cycles = [i for i in g.issues if i.kind == "cycle"]
    assert len(cycles) == 1
    assert set(cycles[0].cycle) == {"A 1", "B 1", "C 1"}
    assert cycles[0].cycle[0] == cycles[0].cycle[-1]
    assert plan_request(g, Request(program="P"), cfg).status == "ok"
