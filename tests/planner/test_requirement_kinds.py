"""The requirement kinds real catalogs need, each enforced by the solver and checked by the
independent verifier: observed offerings, term-qualified courses, at-most bounds, department
counts, not-before, distinct scopes, pool prerequisites, acknowledged policies, season caps."""

from __future__ import annotations

import pytest

from planner.documents import (
    AllOf,
    AnyOf,
    AtMost,
    CalendarTerm,
    ChooseN,
    CourseRef,
    MinDepartments,
    NotBefore,
    Offering,
    Pool,
    PoolSpec,
    Unsupported,
    UnsupportedPolicy,
)
from planner.hypergraph import compile_graph
from planner.profile import Request
from planner.solve import solve_ladder
from planner.verify import verify_plan
from tests.planner.planner_fixtures import P, catalog, course

CAL = [
    CalendarTerm(id="20141", season="fall", year=2014, label="Fall 2014"),
    CalendarTerm(id="20142", season="interim", year=2014, label="Interim 2015"),
    CalendarTerm(id="20143", season="spring", year=2014, label="Spring 2015"),
    CalendarTerm(id="20151", season="fall", year=2015, label="Fall 2015"),
]


def observed(cid: str, terms: list[str], units: float = 1, **kw):
    c = course(cid, units=units, **kw)
    c.offerings = [Offering(term=t) for t in terms]
    return c


def docs_with(courses, requirement, within=True, policies=()):
    d = catalog(courses, requirement, double_within=within)
    d.courses.calendar = CAL
    d.courses.term_cycle = ["fall", "interim", "spring"]
    d.courses.unsupported_policies = list(policies)
    return d


def plan_of(docs, cfg, **req):
    r = Request(program="P", horizon=4, max_units_per_term=3, **req)
    status, plan = solve_ladder(compile_graph(docs), r, cfg)
    if plan is None:
        return status, None, r
    pairs = [(c.course, c.term) for c in plan.courses]
    assert plan.certified and verify_plan(docs, pairs, r) == []
    return status, dict(pairs), r


def kinds(docs, pairs, r):
    return {v.kind for v in verify_plan(docs, pairs, r)}


def test_observed_offerings_and_term_qualified_course(cfg):
    cs = [observed("T 1", ["20141", "20143"]), observed("S 1", ["20143"])]
    req = AllOf(items=[CourseRef(course="T 1", terms=["20143"]), CourseRef(course="S 1")])
    docs = docs_with(cs, req)
    _, plan, r = plan_of(docs, cfg)
    assert plan == {"T 1": 3, "S 1": 3}  # spring 2015 is plan term 3
    assert "requirement" in kinds(docs, [("T 1", 1), ("S 1", 3)], r)  # wrong term for T 1
    assert "offering" in kinds(docs, [("T 1", 3), ("S 1", 1)], r)
    late = r.model_copy(update={"horizon": 6})
    assert "offering" in kinds(docs, [("T 1", 3), ("S 1", 6)], late)  # past the calendar


def test_at_most_bounds_what_is_taken(cfg):
    cs = [observed(c, ["20141"]) for c in ("A 1", "B 1", "C 1")]
    req = AllOf(
        items=[
            Pool(min_courses=2, pool=PoolSpec(courses=["A 1", "B 1", "C 1"])),
            AtMost(n=1, pool=PoolSpec(courses=["A 1", "B 1"])),
        ]
    )
    docs = docs_with(cs, req)
    _, plan, r = plan_of(docs, cfg)
    assert "C 1" in plan and len(plan) == 2
    assert "requirement" in kinds(docs, [("A 1", 1), ("B 1", 1)], r)


def test_min_departments_counts_a_cross_listed_course_once(cfg):
    x2 = observed("X 2", ["20141"])
    xy = observed("X 3", ["20141"], departments=["X", "Y"])
    cs = [observed("X 1", ["20141"]), x2, xy]
    pool = PoolSpec(courses=["X 1", "X 2", "X 3"])
    req = AllOf(items=[Pool(min_courses=2, pool=pool), MinDepartments(n=2, pool=pool)])
    docs = docs_with(cs, req)
    _, plan, r = plan_of(docs, cfg)
    assert "X 3" in plan and len(plan) == 2
    assert "requirement" in kinds(docs, [("X 1", 1), ("X 2", 1)], r)
    # One cross-listed course alone is one department, not two.
    one = AllOf(items=[MinDepartments(n=2, pool=pool)])
    assert "requirement" in kinds(docs_with(cs, one), [("X 3", 1)], r)


def test_not_before_by_academic_year(cfg):
    cs = [observed("E 1", ["20141", "20151"]), observed("B 1", ["20151"])]
    req = AllOf(
        items=[
            CourseRef(course="B 1"),
            NotBefore(pool=PoolSpec(courses=["E 1"]), after=PoolSpec(courses=["B 1"])),
        ]
    )
    docs = docs_with(cs, req)
    _, plan, r = plan_of(docs, cfg)
    assert plan["E 1"] == 4  # fall 2015, not before B 1's year
    assert "requirement" in kinds(docs, [("E 1", 1), ("B 1", 4)], r)


def test_distinct_items_need_different_courses_in_a_sharing_program(cfg):
    cs = [observed(c, ["20141", "20143"]) for c in ("A 1", "B 1", "C 1")]
    a_or_b = AnyOf(items=[CourseRef(course="A 1"), CourseRef(course="B 1")])
    a_or_c = AnyOf(items=[CourseRef(course="A 1"), CourseRef(course="C 1")])
    req = ChooseN(n=2, items=[a_or_b, a_or_c], distinct=True)
    docs = docs_with(cs, req, within=True)
    _, plan, r = plan_of(docs, cfg)
    assert len(plan) == 2
    assert "requirement" in kinds(docs, [("A 1", 1)], r)
    shared = docs_with(cs, req.model_copy(update={"distinct": False}), within=True)
    assert kinds(shared, [("A 1", 1)], r) == set()


def test_pool_prerequisite_and_acknowledged_policies(cfg):
    pol = UnsupportedPolicy(
        id="pol-1",
        text="high school chemistry",
        kind="background",
        applies_to=["Z 9"],
        provenance=P,
    )
    cs = [
        observed("D 1", ["20141"]),
        observed("D 2", ["20141"]),
        observed(
            "Z 9",
            ["20143", "20151"],
            pre=AllOf(
                items=[
                    Pool(min_courses=2, pool=PoolSpec(departments=["D"])),
                    Unsupported(policy="pol-1"),
                ]
            ),
        ),
    ]
    docs = docs_with(cs, CourseRef(course="Z 9"), policies=[pol])
    status, plan, r = plan_of(docs, cfg)
    assert status == "infeasible"  # the clause the planner cannot check never counts as met
    for ack in (["pol-1"], ["kind:background"]):
        _, plan, r = plan_of(docs, cfg, acknowledged=ack)
        assert plan == {"D 1": 1, "D 2": 1, "Z 9": 3}
    assert "prerequisite" in kinds(docs, [("D 1", 1), ("Z 9", 3)], r)  # one D course only


def test_season_cap_applies_to_interim(cfg):
    cs = [observed(c, ["20142"]) for c in ("I 1", "I 2")]
    docs = docs_with(cs, AllOf(items=[CourseRef(course="I 1"), CourseRef(course="I 2")]))
    status, _, _ = plan_of(docs, cfg, max_units_by_season={"interim": 1})
    assert status == "infeasible"
    r = Request(program="P", horizon=4, max_units_per_term=3, max_units_by_season={"interim": 1})
    assert "capacity" in kinds(docs, [("I 1", 2), ("I 2", 2)], r)


@pytest.mark.parametrize("start", ["spring 2015", "20143", "Spring 2015"])
def test_start_term_by_id_or_label(cfg, start):
    docs = docs_with([observed("S 1", ["20143"])], CourseRef(course="S 1"))
    _, plan, _ = plan_of(docs, cfg, start_term=start)
    assert plan == {"S 1": 1}
