"""Greedy topological scheduler baseline: KnowPlan, "Controls" (a non-exact planner)."""

from __future__ import annotations

from planner.calendar import plan_slots, term_cap
from planner.documents import Expr
from planner.hypergraph import Hypergraph, expr_courses
from planner.presolve import ge_roots, offered, resolve_conditionals
from planner.profile import Request


def _pick(g: Hypergraph, e: Expr | None, util: dict[str, float], chosen: set[str]) -> None:
    """Choose classes that satisfy a requirement, preferring higher utility (no search)."""
    if e is None:
        return
    k = e.kind
    best = lambda ks: sorted(ks, key=lambda c: (c not in chosen, -util.get(c, 0.0), c))  # noqa: E731
    if k == "course":
        if e.course in g.class_of:
            chosen.add(g.class_of[e.course])
    elif k == "all_of":
        for i in e.items:
            _pick(g, i, util, chosen)
    elif k in ("any_of", "choose_n"):
        n = 1 if k == "any_of" else e.n
        leaves = [
            g.class_of[i.course] for i in e.items if i.kind == "course" and i.course in g.class_of
        ]
        for c in best(dict.fromkeys(leaves))[:n]:
            chosen.add(c)
        for i in [i for i in e.items if i.kind != "course"][: max(0, n - len(leaves))]:
            _pick(g, i, util, chosen)
    elif k in ("pool", "not_before"):
        n = e.min_courses if k == "pool" else e.n
        chosen.update(best(g.pool_classes(e.pool))[:n])
    elif k == "min_departments":
        by_dept: dict[str, str] = {}
        for c in best(g.pool_classes(e.pool)):
            by_dept.setdefault(min(g.class_departments(c)), c)
        chosen.update(list(by_dept.values())[: e.n])
    elif k == "min_units":
        got = 0.0
        for c in best(g.pool_classes(e.pool)):
            if got >= e.units:
                break
            chosen.add(c)
            got += g.class_units(c)


def _ready(g: Hypergraph, e: Expr | None, before: set[str], upto: set[str]) -> bool:
    if e is None:
        return True
    k = e.kind
    if k == "course":
        return g.class_of.get(e.course) in before
    if k in ("coreq", "concurrent"):
        return g.class_of.get(e.course) in upto
    if k == "all_of":
        return all(_ready(g, i, before, upto) for i in e.items)
    if k in ("any_of", "choose_n"):
        n = 1 if k == "any_of" else e.n
        return sum(_ready(g, i, before, upto) for i in e.items) >= n
    if k == "pool":
        return len(set(g.pool_classes(e.pool)) & before) >= e.min_courses
    return k == "standing"


def greedy_plan(g: Hypergraph, req: Request, util: dict[str, float]) -> list[tuple[str, int]]:
    cls_util = {k: max(util[m] for m in ms) for k, ms in g.members.items()}
    chosen: set[str] = set()
    for pid in [req.program, *req.tracks]:
        if pid in g.programs:
            _pick(g, resolve_conditionals(g.programs[pid].requirement, req), cls_util, chosen)
    for _, expr in ge_roots(g, req):
        _pick(g, expr, cls_util, chosen)
    # Close over prerequisite course references (every alternative named, no search).
    done = {g.class_of[c] for c in req.completed if c in g.class_of}
    frontier = list(chosen)
    while frontier:
        k = frontier.pop()
        for ref in expr_courses(g.courses[g.members[k][0]].prerequisite):
            c = g.class_of.get(ref)
            if c is not None and c not in chosen:
                chosen.add(c)
                frontier.append(c)
    # Ties broken by class id, not by set order (which follows the process's string hashing).
    todo = sorted(chosen - done, key=lambda c: (-cls_util[c], c))
    slots = plan_slots(g.calendar, g.term_cycle, req, req.horizon)
    plan: list[tuple[str, int]] = []
    have = set(done)
    for t in range(1, req.horizon + 1):
        cap = term_cap(req, g.season_max_units, slots[t].season)[0]
        load = 0.0
        now: set[str] = set()
        progress = True
        while progress:
            progress = False
            for k in todo:
                if k in have or k in now:
                    continue
                for cid in g.members[k]:
                    node = g.courses[cid]
                    if not offered(node, slots[t]):
                        continue
                    if load + node.units > cap:
                        continue
                    pre = node.prereq_at(slots[t].calendar_id)
                    if _ready(g, pre, have, have | now | {k}):
                        plan.append((cid, t))
                        now.add(k)
                        load += node.units
                        progress = True
                        break
        have |= now
        if all(k in have for k in todo):
            break
    return plan
