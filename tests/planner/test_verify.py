"""The independent verifier names every violation kind it checks."""

from __future__ import annotations

import itertools
import random

import pytest

from planner.documents import (
    AllOf,
    Coreq,
    CourseRef,
    GECategory,
    GEFramework,
    MinUnits,
    PoolSpec,
    Standing,
)
from planner.profile import Request
from planner.verify import KINDS, Verifier, verify_plan
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


def test_units_from_more_courses_when_the_fewest_are_counted_elsewhere():
    """Sweep seed 23 at 3,000 courses, BIO-BA-3: the core takes the 4-unit course, so 4 units of
    breadth need the three small ones. A minimal set is minimal by inclusion, not by count:
    the verifier once offered only the fewest courses and rejected two certified plans."""
    cs = [course("P 4"), course("P 1", units=1), course("P 9", units=1), course("P 2", units=2)]
    breadth = MinUnits(units=4, pool=PoolSpec(departments=["P"]))
    docs = catalog(cs, AllOf(items=[CourseRef(course="P 4"), breadth]), double_within=False)
    req = Request(program="P", horizon=2, max_units_per_term=8)
    assert verify_plan(docs, [("P 4", 1), ("P 1", 1), ("P 9", 2), ("P 2", 2)], req) == []
    short = verify_plan(docs, [("P 4", 1), ("P 1", 1), ("P 2", 2)], req)
    assert [v.kind for v in short] == ["requirement"]


@pytest.mark.parametrize("seed", range(40))
def test_unit_sets_are_exactly_the_inclusion_minimal_ones(seed):
    rng = random.Random(seed)
    pool = [f"C {i}" for i in range(rng.randint(0, 9))]
    units = {c: float(rng.choice([1, 1, 2, 3, 4])) for c in pool}
    target = float(rng.randint(0, 14))
    verifier = Verifier(catalog([course(c, units=units[c]) for c in pool], AllOf(items=[])))
    found = verifier._unit_sets(pool, target)
    reach = [
        frozenset(s)
        for r in range(len(pool) + 1)
        for s in itertools.combinations(pool, r)
        if sum(units[c] for c in s) >= target
    ]
    assert len(found) == len(set(found))
    assert set(found) == {s for s in reach if not any(t < s for t in reach)}
