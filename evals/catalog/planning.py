"""Paired planning track: KnowPlan, "Planning requests and paired graphs" (Table 4's columns).

The same profiles are planned on the gold documents and on a run's extracted documents, with the
same planner, budget and verifier. Feasibility of an extracted-graph plan is checked against the
gold documents (verifying against the extracted graph would hide acquisition loss), and utility of
both plans is scored with the gold graph's utility.
"""

from __future__ import annotations

import random
from typing import Any

from planner.documents import CatalogDocs
from planner.hypergraph import compile_graph
from planner.profile import Request
from planner.solve import solve_ladder
from planner.solver_config import SolverConfig
from planner.utility import course_utility
from planner.verify import Verifier


def profiles(gold: CatalogDocs, per_school: int, seed: int) -> list[Request]:
    rng = random.Random(seed)
    progs = [p for p in gold.programs.programs if p.kind == "major"][:per_school]
    words = [c.title.split()[-1].lower() for c in gold.courses.courses]
    return [
        Request(
            program=p.id,
            horizon=8,
            max_units_per_term=18,
            interests=rng.sample(words, min(2, len(words))),
        )
        for p in progs
    ]


def paired(
    gold: CatalogDocs,
    extracted: CatalogDocs,
    per_school: int = 2,
    seed: int = 0,
    budget_s: float = 20.0,
) -> list[dict[str, Any]]:
    cfg = SolverConfig.load(time_budget_s=budget_s, top_k=1)
    gg, xg = compile_graph(gold), compile_graph(extracted)
    verifier = Verifier(gold)
    rows = []
    for req in profiles(gold, per_school, seed):
        util = course_utility(gg, req)
        row: dict[str, Any] = {"program": req.program}
        for name, graph in (("gold", gg), ("extracted", xg)):
            if req.program not in graph.programs:
                row[name] = {
                    "certified": False,
                    "feasible": False,
                    "utility": None,
                    "status": "no program",
                }
                continue
            status, plan = solve_ladder(graph, req, cfg)
            courses = [(c.course, c.term) for c in plan.courses] if plan else []
            feasible = plan is not None and not verifier.check(courses, req)
            row[name] = {
                "status": status,
                "certified": bool(plan and plan.certified),
                "feasible": feasible,
                "utility": round(sum(util.get(c, 0.0) for c, _ in courses), 4)
                if feasible
                else None,
            }
        rows.append(row)
    return rows
