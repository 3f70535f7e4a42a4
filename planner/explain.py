"""Infeasibility explanation via CP-SAT assumptions: KnowPlan, DegreeMap "Exact planning".

A minimal set of the request's requirements and limits that cannot hold together (assumption
core plus a deletion pass), then, per requirement in it, each cause once: a course the catalog
does not list, a course with no section in the plan's terms, a policy the planner cannot check,
a consent, a prerequisite chain too long."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from ortools.sat.python import cp_model

from planner.documents import Expr
from planner.hypergraph import Hypergraph, expr_courses, walk
from planner.model import Builder
from planner.presolve import ge_framework_id, ge_roots, offered, program_roots
from planner.profile import Request
from planner.solver_config import SolverConfig


@dataclass
class Cause:
    """One reason, counted once: kind is dangling | offering | policy | consent | chain |
    limit | conflict."""

    kind: str
    text: str
    action: str = ""


@dataclass
class Group:
    requirement: str  # words, e.g. "the requirement 'Capstone' of computer-science"
    source: str  # the file it comes from
    causes: list[Cause] = field(default_factory=list)


def _infeasible(builder_args: tuple, keys: list[str], time_s: float) -> tuple[bool, list[str]]:
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


def explain_groups(
    graph: Hypergraph, request: Request, cfg: SolverConfig, time_s: float | None = None
) -> tuple[list[str], list[Group]] | None:
    """The minimal core's words and its causes grouped by requirement; None when no
    infeasibility could be proven in time."""
    args = (graph, request, cfg.explain_extra_terms)
    builder = Builder(graph, request, extra_terms=cfg.explain_extra_terms)
    enc = builder.build(explain=True)
    words = {k: w for k, (_, w) in enc.assumptions.items()}
    budget = time_s if time_s is not None else cfg.explain_time_s
    t0 = time.monotonic()
    bad, core = _infeasible(args, list(words), budget)
    if not bad:
        # Assumption literals weaken the LP, so the core can take far longer to prove than the
        # ladder's own infeasibility; the limits can still be probed one at a time on models
        # whose requirements are hard constraints.
        return _probe_limits(graph, request, max(budget - (time.monotonic() - t0), budget / 2))
    # Deletion pass: drop each member the rest stays infeasible without (a minimal core), in
    # what is left of the budget; a core cut short is still a set that cannot hold together.
    for k in list(core):
        left = budget - (time.monotonic() - t0)
        if left <= 0.5:
            break
        trial = [c for c in core if c != k]
        still, sub = _infeasible(args, trial, left / 2)
        if still:
            core = sub or trial
    groups: list[Group] = []
    limits = Group("your limits", "request")
    if "cap" in core:
        limits.causes.append(
            Cause(
                "limit",
                words["cap"],
                f"Raise your per-term cap above {request.max_units_per_term:g}.",
            )
        )
    if "horizon" in core:
        limits.causes.append(
            Cause("limit", words["horizon"], f"Allow more than {request.horizon} terms.")
        )
    if limits.causes:
        groups.append(limits)
    seen: set[str] = set()
    for k in core:
        if not k.startswith("req:"):
            continue
        expr, source = _requirement(graph, request, k)
        g = Group(words[k], source)
        for cause in _blockers(graph, request, expr, enc.start, builder):
            if cause.text not in seen:
                seen.add(cause.text)
                g.causes.append(cause)
        if not g.causes:
            g.causes.append(
                Cause(
                    "conflict",
                    "it cannot be met together with the rest of this list within your limits",
                    f"Ask an advisor for a substitution for {words[k]}.",
                )
            )
        groups.append(g)
    return [words[k] for k in core], groups


def _feasible(graph: Hypergraph, request: Request, time_s: float) -> bool | None:
    enc = Builder(graph, request).build()
    solver = cp_model.CpSolver()
    solver.parameters.num_search_workers = 1
    solver.parameters.max_time_in_seconds = time_s
    status = solver.Solve(enc.model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True
    return False if status == cp_model.INFEASIBLE else None


def _probe_limits(
    graph: Hypergraph, request: Request, time_s: float
) -> tuple[list[str], list[Group]] | None:
    """Which of the limits, relaxed alone, lets a plan exist (each probe a plain model)."""
    names = [p for p in [request.program, *request.tracks] if p]
    reqs = "the requirements of " + " and ".join(names or ["the request"])
    fw = ge_framework_id(graph, request)
    reqs += f" with {fw}" if fw else ""
    cap = request.model_copy(update={"max_units_per_term": 1000.0, "max_units_by_season": {}})
    if _feasible(graph, cap, time_s / 2):
        words = f"at most {request.max_units_per_term:g} units per term"
        if request.max_units_by_season:
            words += " (" + ", ".join(f"{k} {v:g}" for k, v in request.max_units_by_season.items())
            words += ")"
        g = Group(
            "your limits",
            "request",
            [
                Cause(
                    "limit", words, f"Raise your per-term cap above {request.max_units_per_term:g}."
                )
            ],
        )
        return [words, reqs], [g]
    return None


def explain_request(
    graph: Hypergraph, request: Request, cfg: SolverConfig, solve_s: float
) -> tuple[list[str], list[dict]]:
    """What `pathwise plan` says of a request the ladder proved infeasible in `solve_s`
    seconds: the lines it prints and the causes its JSON holds."""
    # A request the ladder needed long to prove infeasible gets as long again for its
    # explanation.
    budget = max(cfg.explain_time_s, 2 * solve_s)
    out = explain_groups(graph, request, cfg, min(budget, cfg.time_budget_s))
    return render_groups(out), groups_json(out)


def explain_infeasible(
    graph: Hypergraph, request: Request, cfg: SolverConfig, time_s: float | None = None
) -> list[str]:
    """The explanation as lines (what `pathwise plan` prints)."""
    out = explain_groups(graph, request, cfg, time_s)
    return render_groups(out)


def render_groups(out: tuple[list[str], list[Group]] | None) -> list[str]:
    if out is None:
        return ["No plan was found in time; the request may still be feasible."]
    core, groups = out
    if not core:
        return [
            "No plan exists even with the unit cap and horizon relaxed and every requirement "
            "dropped; check the completed courses and exclusions."
        ]
    lines = ["These cannot all hold together: " + "; ".join(core) + "."]
    actions: list[str] = []
    for g in groups:
        lines.append(f"{g.requirement} ({g.source}):")
        for c in g.causes:
            lines.append(f"  - {c.text}")
            if c.action and c.action not in actions:
                actions.append(c.action)
    if actions:
        lines.append("What you can do:")
        lines += [f"  - {a}" for a in actions]
    return lines


def groups_json(out: tuple[list[str], list[Group]] | None) -> list[dict]:
    return [] if out is None else [asdict(g) for g in out[1]]


def _requirement(graph: Hypergraph, request: Request, key: str) -> tuple[Expr | None, str]:
    _, root, i = key.split(":", 2)
    roots = dict(program_roots(graph, request)) | dict(ge_roots(graph, request))
    expr = roots.get(root)
    if root in graph.programs:
        source = graph.programs[root].provenance.source
    else:
        fw, cat = root.split("/", 1)
        cats = {c.id: c for c in graph.frameworks[fw].categories} if fw in graph.frameworks else {}
        source = cats[cat].provenance.source if cat in cats else "ge.json"
    if expr is None:
        return None, source
    items = expr.items if expr.kind == "all_of" else [expr]
    return items[int(i)] if int(i) < len(items) else expr, source


def _required(e: Expr | None) -> list[str]:
    """Courses an expression requires outright (through ALL_OF only, not inside a choice)."""
    if e is None:
        return []
    if e.kind == "course":
        return [e.course]
    if e.kind == "all_of":
        return [c for i in e.items for c in _required(i)]
    return []


def _blockers(
    graph: Hypergraph, request: Request, item: Expr | None, start: dict[str, int], b: Builder
) -> list[Cause]:
    """Why a requirement cannot be met: its unchecked policies, the courses it requires that
    the catalog lacks or the plan cannot reach, the bounds it sets."""
    out: list[Cause] = []
    for node in walk(item):
        if node.kind == "unsupported" and not b._acknowledged(node.policy):
            out.append(_policy_cause(graph, node.policy, "It depends on"))
        elif node.kind == "at_most":
            pool = sorted(node.pool.courses)
            shown = ", ".join(pool[:12]) + (f" and {len(pool) - 12} more" if len(pool) > 12 else "")
            out.append(
                Cause(
                    "conflict",
                    f"'{node.label or 'at most'}' allows at most {node.n} of: {shown}",
                    "Ask an advisor whether this bound applies to the courses the other "
                    "requirements force.",
                )
            )
    done = {graph.class_of.get(c) for c in request.completed}
    for cid in dict.fromkeys(_required(item)):
        if cid not in graph.courses:
            out.append(
                Cause(
                    "dangling",
                    f"{cid} is not in the course catalog (no section in its terms)",
                    "Ask an advisor which course replaces it.",
                )
            )
        elif start.get(cid, 1) > request.horizon and graph.class_of[cid] not in done:
            out.extend(_why_late(graph, request, cid, b))
    return out


def _policy_cause(graph: Hypergraph, policy: str, lead: str) -> Cause:
    pol = graph.policies.get(policy)
    text = pol.text if pol else policy
    kind = f", {pol.kind}" if pol and pol.kind else ""
    return Cause(
        "policy",
        f'{lead} "{text}" ({policy}{kind}), which the planner cannot check',
        f"If it holds for you: --acknowledge {policy}"
        + (" (or --acknowledge kind:background)" if pol and pol.kind == "background" else "")
        + (
            " (or --acknowledge own-restrictions, for your programs' own courses)"
            if pol and pol.kind == "restriction"
            else ""
        ),
    )


def _why_late(graph: Hypergraph, request: Request, cid: str, b: Builder) -> list[Cause]:
    node = graph.courses[cid]
    slots = [s for t, s in b.slots.items() if t <= request.horizon]
    if not any(offered(node, s) for s in slots):
        seen = sorted(node.offerings or [])
        labels = {c.id: c.label or c.id for c in graph.calendar}
        where = ", ".join(labels.get(t, t) for t in seen) or "no term"
        return [
            Cause(
                "offering",
                f"{cid} has no section in your {request.horizon} terms (offered: {where})",
                "Start earlier or allow more terms, or ask for a substitution.",
            )
        ]
    causes = []
    for pre in node.prereqs():
        for n in walk(pre):
            if n.kind == "unsupported" and not b._acknowledged(n.policy):
                causes.append(_policy_cause(graph, n.policy, f"{cid}'s prerequisite needs"))
            elif n.kind == "consent" and cid not in request.consents:
                causes.append(
                    Cause(
                        "consent",
                        f"{cid} is open to you with instructor consent",
                        f"If you have it: --consent '{cid}'",
                    )
                )
    if causes:
        return list({c.text: c for c in causes}.values())
    return [
        Cause(
            "chain",
            f"{cid} cannot be reached within {request.horizon} terms: its prerequisites "
            f"({', '.join(sorted(set(expr_courses(node.prerequisite)))) or 'none named'}) "
            "and offerings take longer",
            f"Allow more than {request.horizon} terms.",
        )
    ]
