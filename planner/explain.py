"""Infeasibility explanation via CP-SAT assumptions: KnowPlan, DegreeMap "Exact planning"."""

from __future__ import annotations

from ortools.sat.python import cp_model

from planner.hypergraph import Hypergraph, expr_courses, walk
from planner.model import Builder, program_roots
from planner.profile import Request
from planner.solve import SolverConfig


def _infeasible(
    builder_args: tuple, keys: list[str], cfg: SolverConfig, time_s: float
) -> tuple[bool, list[str]]:
    graph, request, extra = builder_args
    enc = Builder(graph, request, extra_terms=extra).build(explain=True)
    lits = [enc.assumptions[k][0] for k in keys if k in enc.assumptions]
    enc.model.ClearAssumptions()
    enc.model.AddAssumptions(lits)
    solver = cp_model.CpSolver()
    solver.parameters.num_search_workers = 1  # assumption cores need a single worker
    solver.parameters.max_time_in_seconds = time_s
    status = solver.Solve(enc.model)
    if status != cp_model.INFEASIBLE:
        return False, []
    idx = {enc.assumptions[k][0].Index(): k for k in enc.assumptions}
    core = [idx[i] for i in solver.SufficientAssumptionsForInfeasibility() if i in idx]
    return True, core


def explain_infeasible(
    graph: Hypergraph, request: Request, cfg: SolverConfig, time_s: float = 10.0
) -> list[str]:
    """Smallest set of requirements/limits that cannot hold together, in actionable words."""
    args = (graph, request, cfg.explain_extra_terms)
    enc = Builder(graph, request, extra_terms=cfg.explain_extra_terms).build(explain=True)
    words = {k: w for k, (_, w) in enc.assumptions.items()}
    bad, core = _infeasible(args, list(words), cfg, time_s)
    lines: list[str] = []
    if not bad:
        return ["No plan was found in time; the request may still be feasible."]
    # Deletion pass: drop each member the rest stays infeasible without (a minimal core).
    for k in list(core):
        trial = [c for c in core if c != k]
        still, sub = _infeasible(args, trial, cfg, time_s)
        if still:
            core = sub or trial
    if not core:
        lines.append(
            "No plan exists even with the unit cap and horizon relaxed and every "
            "requirement dropped; check the completed courses and exclusions."
        )
    else:
        lines.append("These cannot all hold together: " + "; ".join(words[k] for k in core) + ".")
        if "cap" in core:
            lines.append(f"- Raise your per-term unit cap above {request.max_units_per_term:g}.")
        if "horizon" in core:
            lines.append(f"- Allow more than {request.horizon} terms.")
        for k in core:
            if k.startswith("req:"):
                lines.extend(_blockers(graph, request, k, enc.start))
                lines.append(f"- Or ask an advisor for a substitution for {words[k]}.")
    return lines


def _blockers(graph: Hypergraph, request: Request, key: str, start: dict[str, int]) -> list[str]:
    """Why courses named by a requirement cannot be scheduled: unknown, unsupported, late."""
    _, pid, i = key.split(":", 2)
    if "/" in pid:
        return []
    roots = dict(program_roots(graph, request))
    expr = roots.get(pid)
    if expr is None:
        return []
    items = expr.items if expr.kind == "all_of" else [expr]
    item = items[int(i)]
    out = []
    for node in walk(item):
        if node.kind == "unsupported":
            pol = graph.policies.get(node.policy)
            out.append(
                f"- It depends on a policy the planner cannot check: "
                f'"{pol.text if pol else node.policy}".'
            )
    for cid in expr_courses(item):
        if cid not in graph.courses:
            out.append(f"- {cid} is not in the course catalog (a dangling reference).")
        elif start.get(cid, 1) > request.horizon and graph.class_of[cid] not in {
            graph.class_of.get(c) for c in request.completed
        }:
            reason = _why_late(graph, cid)
            out.append(f"- {cid} cannot be scheduled within {request.horizon} terms ({reason}).")
    return out


def _why_late(graph: Hypergraph, cid: str) -> str:
    node = graph.courses[cid]
    kinds = {n.kind for n in walk(node.prerequisite)}
    if "unsupported" in kinds:
        return "its prerequisite includes a policy the planner cannot check"
    if "consent" in kinds:
        return "it needs instructor consent; add it to consents if you have it"
    return "its prerequisite chain or offering terms are too long"
