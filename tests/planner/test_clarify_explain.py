"""Clarification asks nothing when the optimum is invariant; infeasibility is explained."""

from __future__ import annotations

from planner.clarify import clarify
from planner.documents import AllOf, AnyOf, CourseRef
from planner.explain import explain_infeasible
from planner.hypergraph import compile_graph
from planner.profile import Request
from tests.planner.planner_fixtures import catalog, course


def test_no_question_when_optimum_invariant(cfg):
    g = compile_graph(
        catalog(
            [course("A 1"), course("B 1")],
            AllOf(items=[CourseRef(course="A 1"), CourseRef(course="B 1")]),
        )
    )
    req = Request(
        program="P",
        hypotheses={"risk": {"low": {"risk_tolerance": "low"}, "high": {"risk_tolerance": "high"}}},
    )
    out = clarify(g, req, cfg)
    assert out.invariant and out.question is None


def test_question_when_hypotheses_disagree(cfg):
    cs = [course("A 1", title="Poetry"), course("B 1", title="Robotics")]
    g = compile_graph(catalog(cs, AnyOf(items=[CourseRef(course="A 1"), CourseRef(course="B 1")])))
    req = Request(
        program="P",
        hypotheses={
            "interest": {
                "poetry": {"interests": ["poetry"]},
                "robots": {"interests": ["robotics"]},
            },
            "risk": {"low": {"risk_tolerance": "low"}, "high": {"risk_tolerance": "high"}},
        },
    )
    out = clarify(g, req, cfg)
    assert not out.invariant and out.dimension == "interest"
    assert out.regret_reduction["interest"] > out.regret_reduction["risk"]


def test_infeasibility_names_the_conflicting_limits(cfg):
    cs = [
        course("C 1"),
        course("C 2", pre=CourseRef(course="C 1")),
        course("C 3", pre=CourseRef(course="C 2")),
        course("D 1"),
    ]
    g = compile_graph(
        catalog(
            cs,
            AllOf(
                items=[
                    CourseRef(course="C 3", label="Capstone"),
                    CourseRef(course="D 1", label="Design"),
                ]
            ),
        )
    )
    lines = explain_infeasible(g, Request(program="P", horizon=2), cfg)
    assert "finishing within 2 terms" in lines[0] and "Capstone" in lines[0]
    assert "Design" not in lines[0]  # minimal: the satisfiable requirement is not blamed
    assert any("Allow more than 2 terms" in line for line in lines)
    lines = explain_infeasible(g, Request(program="P", horizon=3, max_units_per_term=4), cfg)
    assert "at most 4 units per term" in lines[0]


def test_limit_probe_names_the_cap_when_a_core_is_out_of_reach(cfg):
    # The fallback when the assumption core cannot be proven in time: each limit relaxed alone.
    from planner.explain import _probe_limits

    cs = [course("C 1"), course("C 2"), course("C 3")]
    req_all = AllOf(items=[CourseRef(course=c.id) for c in cs])
    g = compile_graph(catalog(cs, req_all))
    core, groups = _probe_limits(g, Request(program="P", horizon=2, max_units_per_term=4), 10)
    assert core[0] == "at most 4 units per term" and groups[0].causes[0].kind == "limit"
    chain = [course("C 1"), course("C 2", pre=CourseRef(course="C 1"))]
    g = compile_graph(catalog(chain, CourseRef(course="C 2")))
    # A prerequisite chain longer than the horizon: no cap fixes it, so no limit is named.
    assert _probe_limits(g, Request(program="P", horizon=1, max_units_per_term=4), 10) is None
