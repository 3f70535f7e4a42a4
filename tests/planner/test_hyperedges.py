"""Each hyperedge kind is enforced exactly, by the solver and by the verifier."""

from __future__ import annotations

from planner.documents import (
    AllOf,
    AnyOf,
    ChooseN,
    Condition,
    Conditional,
    Coreq,
    CourseRef,
    MinUnits,
    Pool,
    PoolSpec,
    Standing,
)
from planner.hypergraph import compile_graph
from planner.profile import Request
from planner.solve import solve_ladder
from planner.verify import verify_plan
from tests.planner.planner_fixtures import catalog, course


def _solve(docs, cfg, **req):
    g = compile_graph(docs)
    r = Request(program="P", **req)
    status, plan = solve_ladder(g, r, cfg)
    assert status == "ok" and plan is not None and plan.certified
    pairs = [(c.course, c.term) for c in plan.courses]
    assert verify_plan(docs, pairs, r) == []
    return dict(pairs), r


def test_choose_n_is_exact_not_relaxed(cfg):
    # A relaxation of CHOOSE_N (e.g. treating it as ANY_OF) would admit one course; the load
    # stage rewards fewer courses, so only an exact encoding yields exactly three.
    items = [CourseRef(course=f"E {i}") for i in range(9)]
    docs = catalog([course(f"E {i}") for i in range(9)], ChooseN(n=3, items=items))
    plan, r = _solve(docs, cfg)
    assert len(plan) == 3
    assert verify_plan(docs, list(plan.items())[:2], r)[0].kind == "requirement"


def test_equivalent_courses_count_once_in_choose_and_pool(cfg):
    cs = [course("A 1", cross_listings=["B 1"]), course("B 1"), course("C 1", units=3)]
    req = AllOf(
        items=[
            ChooseN(
                n=2,
                items=[CourseRef(course="A 1"), CourseRef(course="B 1"), CourseRef(course="C 1")],
            ),
            Pool(min_courses=2, pool=PoolSpec(courses=["A 1", "B 1", "C 1"])),
        ]
    )
    docs = catalog(cs, req)
    plan, r = _solve(docs, cfg)
    assert "C 1" in plan and len(plan) == 2
    kinds = {v.kind for v in verify_plan(docs, [("A 1", 1), ("B 1", 1)], r)}
    assert {"duplicate", "requirement"} <= kinds


def test_prerequisites_strictly_earlier_and_any_of(cfg):
    cs = [
        course("M 1"),
        course("M 2", pre=CourseRef(course="M 1")),
        course("M 3", pre=AnyOf(items=[CourseRef(course="M 2"), CourseRef(course="X 9")])),
        course("X 9", units=4, pre=CourseRef(course="M 3")),
    ]
    docs = catalog(cs, CourseRef(course="M 3"))
    plan, _ = _solve(docs, cfg)
    assert plan["M 1"] < plan["M 2"] < plan["M 3"]


def test_choose_n_prerequisite(cfg):
    cs = [
        course("A 1"),
        course("A 2"),
        course("A 3"),
        course("B 5", pre=ChooseN(n=2, items=[CourseRef(course=f"A {i}") for i in (1, 2, 3)])),
    ]
    docs = catalog(cs, CourseRef(course="B 5"))
    plan, _ = _solve(docs, cfg)
    assert sum(1 for c, t in plan.items() if c.startswith("A") and t < plan["B 5"]) == 2


def test_corequisite_same_term_allowed(cfg):
    cs = [course("L 1", units=4), course("L 2", units=1, pre=Coreq(course="L 1"))]
    docs = catalog(cs, AllOf(items=[CourseRef(course="L 1"), CourseRef(course="L 2")]))
    plan, r = _solve(docs, cfg, horizon=1)
    assert plan["L 1"] == plan["L 2"] == 1
    assert verify_plan(docs, [("L 2", 1)], r)[0].kind in {"corequisite", "requirement"}


def test_min_units_and_capacity(cfg):
    cs = [course("U 1", units=4), course("U 2", units=3), course("U 3", units=3)]
    docs = catalog(cs, MinUnits(units=7, pool=PoolSpec(departments=["U"])))
    plan, _ = _solve(docs, cfg, max_units_per_term=4)
    assert sum({"U 1": 4, "U 2": 3, "U 3": 3}[c] for c in plan) >= 7
    assert len(set(plan.values())) == len(plan)  # cap 4 forces one course per term


def test_conditional_waived_for_transfer(cfg):
    req = AllOf(
        items=[
            CourseRef(course="A 1"),
            Conditional(
                condition=Condition(flag="transfer", equals=False), then=CourseRef(course="W 1")
            ),
        ]
    )
    docs = catalog([course("A 1"), course("W 1")], req)
    assert "W 1" in _solve(docs, cfg)[0]
    assert "W 1" not in _solve(docs, cfg, transfer=True)[0]


def test_standing_and_offering(cfg):
    cs = [course("A 1"), course("A 2"), course("S 4", pre=Standing(min_units=8), seasons=["fall"])]
    docs = catalog(cs, AllOf(items=[CourseRef(course=c) for c in ("A 1", "A 2", "S 4")]))
    plan, _ = _solve(docs, cfg)
    assert plan["S 4"] > max(plan["A 1"], plan["A 2"]) and plan["S 4"] % 2 == 1  # fall terms


def test_exclusive_double_count(cfg):
    req = AllOf(
        items=[
            AnyOf(items=[CourseRef(course="A 1"), CourseRef(course="B 1")]),
            AnyOf(items=[CourseRef(course="A 1"), CourseRef(course="C 1")]),
        ]
    )
    cs = [course("A 1"), course("B 1"), course("C 1")]
    shared, _ = _solve(catalog(cs, req, double_within=True), cfg)
    assert list(shared) == ["A 1"]
    docs = catalog(cs, req, double_within=False)
    excl, r = _solve(docs, cfg)
    assert len(excl) == 2
    assert verify_plan(docs, [("A 1", 1)], r)[0].kind == "requirement"


def test_exclusion_makes_request_infeasible(cfg):
    cs = [course("A 1", exclusions=["B 1"]), course("B 1")]
    g = compile_graph(catalog(cs, AllOf(items=[CourseRef(course="A 1"), CourseRef(course="B 1")])))
    status, _ = solve_ladder(g, Request(program="P"), cfg)
    assert status == "infeasible"
