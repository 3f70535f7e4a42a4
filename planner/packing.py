"""Whole courses packed into terms, for the relaxation over classes: KnowPlan, DegreeMap "Exact
planning" (a proof that no plan fits a horizon and load needs the terms' packing, not only
their total units).

A term of cap c holds a multiset of course sizes that sums to at most c: a *pattern*. Courses
of sizes n_u (u = units, scaled) fit in terms of caps c_1..c_F exactly when some choice of one
pattern per term covers every n_u (the configuration formulation of bin packing; maximal
patterns suffice, since any term's courses are part of one). Counting patterns per cap, this
is a handful of integer variables instead of a course x term assignment. Per-size counts alone
miss it: fifteen 4-unit, fourteen 3-unit and two 1-unit courses are 104 units and fit eight
terms of 13 by every per-size count, yet a 13-unit term without a 1-unit course must be
4+3+3+3, and there are not enough 3-unit courses for six of those.
"""

from __future__ import annotations

from collections import Counter

from ortools.sat.python import cp_model

LinExpr = cp_model.LinearExprT


def maximal_patterns(sizes: list[int], cap: int, limit: int) -> list[dict[int, int]] | None:
    """Every multiset of `sizes` (positive, scaled units) that fits `cap` and has no room left
    for one more of the smallest; None when there are more than `limit` of them."""
    order = sorted(set(sizes), reverse=True)
    least = order[-1]
    out: list[dict[int, int]] = []

    def extend(i: int, left: int, pat: dict[int, int]) -> bool:
        if i == len(order):
            if left < least:
                out.append({u: q for u, q in pat.items() if q})
            return len(out) <= limit
        u = order[i]
        for q in range(left // u, -1, -1):
            pat[u] = q
            if not extend(i + 1, left - q * u, pat):
                return False
        pat[u] = 0
        return True

    return out if extend(0, cap, {}) else None


def add_packing(
    m: cp_model.CpModel,
    counts: dict[int, LinExpr],
    caps: list[int],
    limit: int,
) -> bool:
    """Constrain the courses taken of each size (`counts`: size -> expression) to fit terms of
    the given `caps`, one pattern per term. False (nothing added) when some cap has more than
    `limit` maximal patterns."""
    sizes = sorted(u for u in counts if u > 0)
    if not sizes:
        return True
    per_cap: dict[int, list[dict[int, int]]] = {}
    for cap in sorted(set(caps)):
        pats = maximal_patterns(sizes, cap, limit)
        if pats is None:
            return False
        per_cap[cap] = pats
    cover: dict[int, list[LinExpr]] = {u: [] for u in sizes}
    for cap, n_terms in sorted(Counter(caps).items()):
        ys = [m.NewIntVar(0, n_terms, f"pattern[{cap}]") for _ in per_cap[cap]]
        m.Add(sum(ys) <= n_terms)
        for y, pat in zip(ys, per_cap[cap], strict=True):
            for u, q in pat.items():
                cover[u].append(q * y)
    for u in sizes:
        m.Add(counts[u] <= sum(cover[u]))
    return True
