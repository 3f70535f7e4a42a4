"""The shape that let HIST-BA-5 grow (issue 52): a horizon and load so tight that the courses
must fill their terms whole, their chosen prerequisite chains must fit, and class standing
waits for the terms that can hold its units. The time-free relaxation used to admit
selections no schedule could hold (per-size counts that no term packing meets; a chain whose
earliest start assumed another alternative; standing counted over the whole plan), so the
ladder fell through to the term-indexed model over every pool candidate: a model that grows
with the catalog. The relaxation now packs whole courses, orders prerequisite chains and
places class standing after enough terms, and proves these decisions itself; a selection it
proposes that no schedule holds is cut off, and the relaxation asked again, before the full
model is built."""

from __future__ import annotations

import pytest
from ortools.sat.python import cp_model

from planner.cpsat import Budget, solve
from planner.documents import AllOf, AnyOf, CourseRef, Standing
from planner.hypergraph import compile_graph
from planner.packing import maximal_patterns
from planner.presolve import prepare
from planner.profile import Request
from planner.relax import Relaxation
from planner.solve import solve_ladder
from planner.solver_config import SolverConfig
from planner.synth import make_catalog, make_profiles
from tests.planner.planner_fixtures import catalog, course


def _relaxation_status(graph, request, horizon, cfg) -> int:
    rel = Relaxation(prepare(graph, request), horizon, max_patterns=cfg.packing_patterns)
    rel.build()
    return solve(rel.m, cfg, Budget(10)).status


def test_maximal_patterns_of_a_13_unit_term():
    pats = maximal_patterns([1, 3, 4], 13, 100)
    assert {4: 3, 1: 1} in pats and {4: 1, 3: 3} in pats and {3: 4, 1: 1} in pats
    assert all(sum(u * q for u, q in p.items()) > 12 for p in pats)
    assert maximal_patterns([1, 2, 3], 60, 5) is None  # too many: the caller skips packing


def test_courses_that_fit_by_size_but_not_term_by_term_are_no_plan(cfg):
    # 15 four-unit, 14 three-unit and 2 one-unit courses: 104 units, and every per-size count
    # fits eight terms of 13; no packing does (a term without a 1-unit course is 4+3+3+3).
    sizes = [4] * 15 + [3] * 14 + [1] * 2
    cs = [course(f"C {i}", units=u) for i, u in enumerate(sizes)]
    g = compile_graph(catalog(cs, AllOf(items=[CourseRef(course=c.id) for c in cs])))
    req = Request(program="P", horizon=12, max_units_per_term=13)
    assert _relaxation_status(g, req, 8, cfg) == cp_model.INFEASIBLE
    assert _relaxation_status(g, req, 9, cfg) != cp_model.INFEASIBLE


def test_a_chain_through_the_alternative_taken_must_fit_the_horizon(cfg):
    # X asks for A 3 or B 1; B 1 excludes the required Y, so X waits for the chain A 1-A 3.
    # X's earliest start (term 2, through B 1) fits three terms; its chain does not.
    cs = [
        course("A 1"),
        course("A 2", pre=CourseRef(course="A 1")),
        course("A 3", pre=CourseRef(course="A 2")),
        course("B 1", exclusions=["Y 1"]),
        course("X 1", pre=AnyOf(items=[CourseRef(course="A 3"), CourseRef(course="B 1")])),
        course("Y 1"),
    ]
    g = compile_graph(catalog(cs, AllOf(items=[CourseRef(course="X 1"), CourseRef(course="Y 1")])))
    req = Request(program="P", horizon=6, max_units_per_term=16)
    assert _relaxation_status(g, req, 3, cfg) == cp_model.INFEASIBLE
    assert _relaxation_status(g, req, 4, cfg) != cp_model.INFEASIBLE


def test_class_standing_waits_for_the_terms_that_can_hold_its_units(cfg):
    # X needs 48 units before its term; four terms of 12 hold 48 only before term 5, and X is
    # offered in spring (terms 2 and 4). The total alone (48 units besides X) would pass.
    cs = [course(f"C {i}") for i in range(12)]
    cs.append(course("X 1", pre=Standing(min_units=48), seasons=("spring",)))
    g = compile_graph(catalog(cs, AllOf(items=[CourseRef(course=c.id) for c in cs])))
    req = Request(program="P", horizon=8, max_units_per_term=12)
    assert _relaxation_status(g, req, 5, cfg) == cp_model.INFEASIBLE
    assert _relaxation_status(g, req, 6, cfg) != cp_model.INFEASIBLE


@pytest.mark.parametrize(
    ("seed", "pair", "shape"),
    [
        (10, 12, "load 12: the term packing"),
        (0, 10, "load 14: the chain taken"),
        (1, 13, "horizon 5: selections that no schedule holds, cut off one by one"),
    ],
)
def test_hist_ba_5_on_a_small_generated_catalog_never_builds_the_full_model(seed, pair, shape):
    # Before the fix each of these HIST-BA-5 requests decided its load stage on the
    # term-indexed model over every pool candidate (report kind "pruned").
    docs = make_catalog(seed, 150)
    g = compile_graph(docs)
    req = make_profiles(docs, 20, seed)[pair]
    assert req.program == "HIST-BA-5"
    report: dict = {}
    _, plan = solve_ladder(g, req, SolverConfig.load(time_budget_s=30, top_k=1), report=report)
    assert plan is not None and plan.certified, shape
    assert report["model"]["kind"] == "selection", shape
    plain = SolverConfig.load(time_budget_s=30, top_k=1, prune=False, relaxation=False)
    _, want = solve_ladder(g, req, plain)
    assert want is not None and plan.stage_values == want.stage_values


def test_every_certified_plan_is_a_solution_of_the_relaxation_at_its_horizon_and_load():
    # The relaxation proves infeasibility and bounds only if no plan violates it: each class of
    # a plan taken, at the plan's term, within the proven horizon and load.
    cfg = SolverConfig.load(time_budget_s=30, top_k=1)
    checked = 0
    for seed in (3, 10):
        docs = make_catalog(seed, 150)
        g = compile_graph(docs)
        for req in make_profiles(docs, 6, seed):
            _, plan = solve_ladder(g, req, cfg)
            if plan is None:
                continue
            h, load = plan.stage_values["horizon"], plan.stage_values["load"]
            rel = Relaxation(prepare(g, req), h, load, max_patterns=cfg.packing_patterns)
            rel.build()
            terms = {g.class_of[c.course]: c.term for c in plan.courses}
            for k, taken in rel.taken.items():
                if not isinstance(taken, int):
                    rel.m.Add(taken == int(k in terms))
                    if k in terms:
                        rel.m.Add(rel.at[k] == terms[k])
            assert solve(rel.m, cfg, Budget(10)).status == cp_model.OPTIMAL, (seed, req)
            checked += 1
    assert checked >= 8
