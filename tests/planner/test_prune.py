"""Exact pruning and the bound-first ladder keep the optimum: the certified objective vector of
every random request is the same with pruning and relaxation bounds on as with both off."""

from __future__ import annotations

import random

from planner.documents import (
    AllOf,
    AnyOf,
    ChooseN,
    CourseRef,
    MinUnits,
    Pool,
    PoolSpec,
    Standing,
)
from planner.hypergraph import compile_graph
from planner.presolve import prepare
from planner.profile import Request
from planner.prune import (
    Normalizer,
    analyse_roles,
    bound_capacity,
    candidates,
    implies,
    prune,
)
from planner.solve import solve_ladder
from planner.solver_config import SolverConfig
from planner.synth import make_catalog, make_profiles
from planner.verify import Verifier
from tests.planner.planner_fixtures import catalog, course

VECTOR = ("horizon", "load", "utility_option")


def _form(g, expr, cid="X 1"):
    prep_done: set[str] = set()
    return Normalizer(g, prep_done, 0, set(), lambda _p: False, 1).form(expr, cid)


def test_implication_is_sound_on_the_shapes_catalogs_use():
    cs = [course(f"A {i}") for i in range(4)] + [course("X 1")]
    g = compile_graph(catalog(cs, CourseRef(course="X 1")))
    a, b, c = (CourseRef(course=f"A {i}") for i in range(3))
    f = lambda e: _form(g, e)  # noqa: E731
    assert implies(f(AllOf(items=[a, b])), f(a))
    assert not implies(f(a), f(AllOf(items=[a, b])))
    assert implies(f(a), f(AnyOf(items=[a, b])))
    assert not implies(f(AnyOf(items=[a, b])), f(a))
    assert implies(f(AnyOf(items=[a, b])), f(AnyOf(items=[a, b, c])))
    assert implies(f(ChooseN(n=2, items=[a, b, c])), f(AnyOf(items=[a, b, c])))
    assert not implies(f(AnyOf(items=[a, b, c])), f(ChooseN(n=2, items=[a, b, c])))
    assert implies(f(Standing(min_units=60)), f(Standing(min_units=30)))
    assert not implies(f(Standing(min_units=30)), f(Standing(min_units=60)))
    assert implies(f(a), f(None)) and not implies(f(None), f(a))


def _pool_docs():
    # Six interchangeable pool courses, one of them named, and one that needs a prerequisite.
    cs = [course(f"E {i}") for i in range(6)] + [
        course("B 1"),
        course("E 9", pre=CourseRef(course="B 1")),
    ]
    req = AllOf(
        items=[Pool(min_courses=2, pool=PoolSpec(departments=["E"])), CourseRef(course="E 5")]
    )
    return catalog(cs, req)


def test_dominated_pool_candidates_are_pruned_and_named_ones_kept(cfg):
    g = compile_graph(_pool_docs())
    req = Request(program="P", horizon=2, max_units_per_term=8)
    p = prepare(g, req)
    roles = analyse_roles(g, p.exprs, p.rel, p.done, p.scale)
    norm = Normalizer(g, p.done, 0, set(), p.acknowledged, p.scale)
    cands = candidates(g, p.rel - p.done, roles, p.start, p.slots, 2, norm, p.scale, None)
    assert "E 5" not in cands and "E 5" in roles.mandatory
    # Two terms of 8 units hold four 4-unit courses, one of them E 5: a candidate with three
    # dominators cannot be in a plan with all of them.
    pruned = prune(cands, roles, bound_capacity(16 - 4))
    assert {"E 3", "E 4", "E 9"} <= pruned
    assert not {"E 0", "E 1", "E 2"} & pruned
    # B 1 only serves E 9: pruned with it.
    assert "B 1" in pruned
    off = SolverConfig.load(time_budget_s=30, top_k=1, prune=False, relaxation=False)
    on = SolverConfig.load(time_budget_s=30, top_k=1, relaxation=False)
    _, a = solve_ladder(g, req, off)
    _, b = solve_ladder(g, req, on)
    assert a.certified and b.certified and a.stage_values == b.stage_values
    assert b.model["pruned"] >= 3


def _vectors(graph, verifier, req, cfg, pruned=None):
    report: dict = {}
    status, plan = solve_ladder(graph, req, cfg, report=report)
    if pruned is not None:
        pruned.append(report["model"].get("pruned", 0))
    if plan is None:
        return status, None
    assert plan.certified, plan.uncertified_stage
    assert not verifier.check([(c.course, c.term) for c in plan.courses], req)
    return status, tuple(plan.stage_values[s] for s in VECTOR)


def _random_docs(rng: random.Random):
    """A department whose pool courses are much alike: intro courses, and pool courses with
    random units, seasons, topics and an intro prerequisite or none."""
    intro = [course(f"I {i}", units=rng.choice([3, 4])) for i in range(3)]
    pool = []
    for i in range(rng.randint(10, 16)):
        pre = rng.choice([None, None, CourseRef(course=f"I {rng.randrange(3)}")])
        seasons = rng.choice([(), (), ("fall",), ("spring",)])
        topic = rng.choice(["robots", "markets", "cells", "stars"])
        pool.append(course(f"E {i}", units=rng.choice([3, 4]), pre=pre, seasons=seasons,
                           title=f"{topic} {i}"))  # fmt: skip
    req = AllOf(
        items=[
            CourseRef(course="I 0"),
            Pool(min_courses=rng.randint(2, 4), pool=PoolSpec(departments=["E"])),
            MinUnits(units=rng.choice([6, 8]), pool=PoolSpec(departments=["E"])),
        ]
    )
    return catalog(intro + pool, req)


def test_pruning_keeps_the_optimum_on_random_catalogs():
    rng = random.Random(32)
    plain = SolverConfig.load(time_budget_s=30, top_k=1, prune=False, relaxation=False)
    pruned_only = SolverConfig.load(time_budget_s=30, top_k=1, relaxation=False)
    base = SolverConfig.load(time_budget_s=30, top_k=1)
    pruned: list[int] = []
    for _ in range(12):
        docs = _random_docs(rng)
        graph, verifier = compile_graph(docs), Verifier(docs)
        req = Request(
            program="P",
            horizon=rng.randint(2, 4),
            max_units_per_term=rng.choice([8, 11, 12]),
            interests=[rng.choice(["robots", "markets", "cells", "stars"])],
        )
        want = _vectors(graph, verifier, req, plain)
        assert _vectors(graph, verifier, req, pruned_only, pruned) == want
        assert _vectors(graph, verifier, req, base) == want
    # The comparison means something only where pruning dropped classes.
    assert sum(pruned) >= 10 and sum(p > 0 for p in pruned) >= 4


def test_synthetic_requests_keep_their_optimum():
    docs = make_catalog(3, 132)
    graph, verifier = compile_graph(docs), Verifier(docs)
    plain = SolverConfig.load(time_budget_s=30, top_k=1, prune=False, relaxation=False)
    base = SolverConfig.load(time_budget_s=30, top_k=1)
    for req in make_profiles(docs, 2, 3):
        want = _vectors(graph, verifier, req, plain)
        assert want[1] is not None
        assert _vectors(graph, verifier, req, base) == want
