"""A plan for a person: KnowPlan, DegreeMap (the planner's output). Per term, each course with
its title, credits and the requirement it counts for, and a short why: the requirement, the
later courses its prerequisite role unlocks, the interest it matches; plus the policies the
plan relies on the student's word for and the notes it did not check."""

from __future__ import annotations

from typing import Any

from planner.documents import Expr
from planner.hypergraph import Hypergraph, expr_courses, node_pools, walk
from planner.profile import Request
from planner.utility import lexical_interest

INTEREST_MIN = 0.15  # a lexical cosine below this is not called a match


def _refs(graph: Hypergraph, e: Expr | None) -> set[str]:
    out = set(expr_courses(e))
    for node in walk(e):
        for spec in node_pools(node):
            out |= {m for k in graph.pool_classes(spec) for m in graph.members[k]}
    return out


def annotate(graph: Hypergraph, request: Request, result: dict[str, Any]) -> dict[str, Any]:
    """Add titles, requirement counts and whys to every plan of a result (JSON dict)."""
    per_interest = {i: lexical_interest(graph, [i]) for i in request.interests}
    for plan in result.get("plans", []):
        courses = plan["courses"]
        when = {c["course"]: c["term"] for c in courses}
        label = {c["course"]: c.get("term_label") or f"term {c['term']}" for c in courses}
        for c in courses:
            cid = c["course"]
            node = graph.courses.get(cid)
            c["title"] = node.title if node else ""
            c["counts_for"] = plan.get("fills", {}).get(cid, [])
            unlocks = sorted(
                (d for d, t in when.items() if t > c["term"] and d in graph.courses),
                key=lambda d: (when[d], d),
            )
            unlocks = [
                d
                for d in unlocks
                if cid in _refs(graph, graph.courses[d].prereq_at(_term_id(courses, d)))
            ]
            why = []
            if c["counts_for"]:
                why.append("counts for " + "; ".join(c["counts_for"]))
            if unlocks:
                why.append("prerequisite of " + ", ".join(f"{d} ({label[d]})" for d in unlocks))
            best = max(per_interest.items(), key=lambda kv: kv[1].get(cid, 0.0), default=None)
            if best and best[1].get(cid, 0.0) >= INTEREST_MIN:
                why.append(f"matches your interest '{best[0]}'")
            if not why:
                why.append(
                    "a free slot filled by utility (Eq. 3: interest, unlock and option value)"
                )
            c["unlocks"] = unlocks
            c["reasons"] = why
            c["why"] = "; ".join(why)
    result["relies_on"] = _relied(graph, request, result)
    result["unchecked"] = [
        {"policy": p.id, "text": p.text, "source": p.provenance.source}
        for p in graph.policies.values()
        if p.kind == "note" and set(p.applies_to) & _scope(graph, request)
    ]
    return result


def _term_id(courses: list[dict[str, Any]], cid: str) -> str | None:
    return next((c.get("term_id") for c in courses if c["course"] == cid), None)


def _scope(graph: Hypergraph, request: Request) -> set[str]:
    from planner.presolve import ge_framework_id

    out = {p for p in [request.program, *request.tracks] if p}
    fw = ge_framework_id(graph, request)
    return out | ({fw} if fw else set())


def _relied(graph: Hypergraph, request: Request, result: dict[str, Any]) -> list[dict[str, str]]:
    """Acknowledged policies that a plan's courses or requirements rest on."""
    exprs: list[Expr | None] = []
    for plan in result.get("plans", []):
        for c in plan["courses"]:
            node = graph.courses.get(c["course"])
            if node is not None:
                exprs.append(node.prereq_at(c.get("term_id")))
    for pid in [request.program, *request.tracks]:
        if pid in graph.programs:
            exprs.append(graph.programs[pid].requirement)
    seen: dict[str, dict[str, str]] = {}
    for e in exprs:
        for n in walk(e):
            if n.kind == "unsupported" and n.policy in graph.policies:
                pol = graph.policies[n.policy]
                if request.acknowledges(pol.id, pol.kind, True) and pol.id not in seen:
                    seen[pol.id] = {"policy": pol.id, "kind": pol.kind, "text": pol.text}
    return list(seen.values())


def render(result: dict[str, Any]) -> str:
    """The terminal form: a table per term and a why per course."""
    lines: list[str] = []
    for p in result.get("plans", []):
        flag = "certified" if p["certified"] else f"UNCERTIFIED (stage {p['uncertified_stage']})"
        lines.append(
            f"\nPlan {p['rank']}: {flag}; {p['terms_used']} terms, max load {p['max_load']:g}, "
            f"utility {p['utility']:.3f}, {p['solve_s']:.2f} s"
        )
        by: dict[int, list[dict[str, Any]]] = {}
        for c in p["courses"]:
            by.setdefault(c["term"], []).append(c)
        for t in sorted(by):
            cs = by[t]
            head = cs[0].get("term_label") or cs[0]["season"]
            lines.append(f"\n  {head} (term {t}, {sum(c['units'] for c in cs):g} credits)")
            lines.append(f"    {'course':<10} {'title':<34} {'cr':>4}  counts for")
            for c in cs:
                counts = "; ".join(c.get("counts_for", [])) or "-"
                title = c.get("title", "")[:34]
                lines.append(f"    {c['course']:<10} {title:<34} {c['units']:>4g}  {counts}")
                more = [w for w in c.get("reasons", []) if not w.startswith("counts for")]
                if more:
                    lines.append(f"    {'':<10} why: {'; '.join(more)}")
    if result.get("relies_on"):
        lines.append("\nThis plan relies on your word for:")
        for r in result["relies_on"]:
            lines.append(f"  - {r['text']} ({r['policy']}, {r['kind'] or 'policy'})")
    if result.get("unchecked"):
        lines.append("\nNot checked by the planner (ask your advisor):")
        for r in result["unchecked"]:
            lines.append(f"  - {r['text']} ({r['source']})")
    return "\n".join(lines)
