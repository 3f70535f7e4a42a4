"""Greedy topological scheduler baseline: KnowPlan, "Controls" (a non-exact planner)."""

from __future__ import annotations

from planner.documents import Expr
from planner.hypergraph import Hypergraph, walk
from planner.model import resolve_conditionals, seasons_for
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
    elif k == "pool":
        chosen.update(best(g.pool_classes(e.pool))[: e.min_courses])
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
    return k == "standing"


def greedy_plan(g: Hypergraph, req: Request, util: dict[str, float]) -> list[tuple[str, int]]:
    cls_util = {k: max(util[m] for m in ms) for k, ms in g.members.items()}
    chosen: set[str] = set()
    for pid in [req.program, *req.tracks]:
        if pid in g.programs:
            _pick(g, resolve_conditionals(g.programs[pid].requirement, req), cls_util, chosen)
    fw = req.ge_framework or (
        g.programs[req.program].ge_framework if req.program in g.programs else None
    )
    if fw in g.frameworks:
        for cat in g.frameworks[fw].categories:
            pool = sorted(
                {g.class_of[c] for c in cat.courses if c in g.class_of},
                key=lambda c: (c not in chosen, -cls_util[c], c),
            )
            chosen.update(pool[: cat.min_courses])
    # Close over mandatory prerequisites (first alternative of each choice).
    done = {g.class_of[c] for c in req.completed if c in g.class_of}
    frontier = list(chosen)
    while frontier:
        k = frontier.pop()
        for node in walk(g.courses[g.members[k][0]].prerequisite):
            if node.kind in ("course", "coreq", "concurrent") and node.course in g.class_of:
                c = g.class_of[node.course]
                if c not in chosen:
                    chosen.add(c)
                    frontier.append(c)
    todo = sorted(chosen - done, key=lambda c: -cls_util[c])
    seasons = seasons_for(g, req, req.horizon)
    plan: list[tuple[str, int]] = []
    have = set(done)
    for t in range(1, req.horizon + 1):
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
                    if node.seasons is not None and seasons[t] not in node.seasons:
                        continue
                    if load + node.units > req.max_units_per_term:
                        continue
                    if _ready(g, node.prerequisite, have, have | now | {k}):
                        plan.append((cid, t))
                        now.add(k)
                        load += node.units
                        progress = True
                        break
        have |= now
        if all(k in have for k in todo):
            break
    return plan
