"""The independent verifier names every violation kind it checks."""

from __future__ import annotations

import pytest

from planner.documents import AllOf, Coreq, CourseRef, GECategory, GEFramework, Standing
from planner.profile import Request
from planner.verify import KINDS, verify_plan
from tests.planner.planner_fixtures import P, catalog, course


@pytest.fixture
def docs():
    cs = [
        course("A 1"),
        course("B 2", pre=CourseRef(course="A 1")),
        course("L 2", units=1, pre=Coreq(course="B 2")),
        course("F 1", seasons=["fall"]),
        course("S 3", pre=Standing(min_units=8)),
        course("X 1", exclusions=["Y 1"]),
        course("Y 1"),
        course("Q 1", cross_listings=["A 1"]),
    ]
    fw = GEFramework(
        id="G",
        name="G",
        provenance=P,
        categories=[GECategory(id="W", name="W", courses=["F 1"], provenance=P)],
    )
    return catalog(
        cs, AllOf(items=[CourseRef(course="A 1"), CourseRef(course="B 2")]), frameworks=[fw]
    )


GOOD = [("A 1", 1), ("B 2", 2), ("L 2", 2), ("F 1", 3)]
BAD = {
    "unknown_course": [*GOOD, ("NOPE 1", 4)],
    "duplicate": [*GOOD, ("Q 1", 4)],
    "horizon": [("A 1", 1), ("B 2", 2), ("L 2", 2), ("F 1", 9)],
    "offering": [("A 1", 1), ("B 2", 2), ("L 2", 2), ("F 1", 2)],
    "capacity": [("A 1", 1), ("F 1", 1), ("B 2", 2), ("L 2", 2)],
    "prerequisite": [("A 1", 2), ("B 2", 2), ("L 2", 2), ("F 1", 3)],
    "corequisite": [("A 1", 1), ("B 2", 3), ("L 2", 2), ("F 1", 1)],
    "standing": [*GOOD, ("S 3", 1)],
    "exclusion": [*GOOD, ("X 1", 4), ("Y 1", 4)],
    "requirement": [("A 1", 1), ("F 1", 3)],
    "ge_requirement": [("A 1", 1), ("B 2", 2), ("L 2", 2)],
    "request": GOOD,  # checked with a start term the catalog does not have
}


def test_good_plan_passes(docs):
    assert verify_plan(docs, GOOD, Request(program="P", horizon=4, max_units_per_term=6)) == []


@pytest.mark.parametrize("kind", KINDS)
def test_each_violation_kind_is_caught(docs, kind):
    req = Request(program="P", horizon=4, max_units_per_term=6)
    if kind == "request":
        req = req.model_copy(update={"start_term": "fall 1999"})
    kinds = {v.kind for v in verify_plan(docs, BAD[kind], req)}
    assert kind in kinds
