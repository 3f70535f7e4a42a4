"""The verifier's requirement check: KnowPlan, "Metrics" (exact feasibility). For each
requirement, the minimal sets of taken classes that can fill it; a scope where a course may fill
only one requirement needs a choice of pairwise disjoint sets. Independent of planner/encode.py."""

from __future__ import annotations

import itertools
from typing import Any

from planner.documents import CatalogDocs
from planner.profile import Request

_CAP = 4000  # bound on enumerated assignments; beyond it the check errs on "violated"


class RequirementOptions:
    """Mixed into the Verifier; needs its docs, classes, units, departments and `when`."""

    docs: CatalogDocs
    cls: dict[str, str]
    courses: dict[str, Any]
    units: dict[str, float]
    depts: dict[str, set[str]]
    when: dict[str, tuple[str | None, int]]
    exclusive: bool

    def _ack(self, policy: str, req: Request) -> bool:
        raise NotImplementedError

    def _violation(self, kind: str, message: str) -> Any:
        raise NotImplementedError

    # -- requirement options (minimal sets of used classes) ------------------------------
    def _opts(self, e: Any, have: set[str], req: Request) -> list[frozenset[str]]:
        k = e.kind
        if k == "course":
            c = self.cls.get(e.course)
            if c not in have or (e.terms and self.when.get(c, (None, 0))[0] not in e.terms):
                return []
            return [frozenset([c])]
        if k == "conditional":
            f = e.condition.flag
            v = (f[6:] in req.tracks) if f.startswith("track:") else bool(getattr(req, f, False))
            branch = e.then if v == e.condition.equals else e.otherwise
            return [frozenset()] if branch is None else self._opts(branch, have, req)
        if k in ("all_of", "any_of", "choose_n"):
            outer = self.exclusive
            self.exclusive = outer or e.distinct
            try:
                return self._boolean(e, have, req)
            finally:
                self.exclusive = outer
        if k in ("pool", "min_units"):
            pool = sorted(self._pool(e.pool) & have)
            if k == "pool":
                if e.overlap:
                    return [frozenset()] if len(pool) >= e.min_courses else []
                return [
                    frozenset(c)
                    for c in itertools.islice(itertools.combinations(pool, e.min_courses), _CAP)
                ]
            return self._unit_sets(pool, e.units)
        if k == "at_most":
            return [frozenset()] if len(self._pool(e.pool) & have) <= e.n else []
        if k == "min_departments":
            return [frozenset()] if self._departments(self._pool(e.pool) & have) >= e.n else []
        if k == "not_before":
            years = [self.when[a][1] for a in self._pool(e.after) & have]
            if not years:
                return []
            ok = sorted(c for c in self._pool(e.pool) & have if self.when[c][1] >= min(years))
            return [frozenset(c) for c in itertools.islice(itertools.combinations(ok, e.n), _CAP)]
        if k == "unsupported":
            return [frozenset()] if self._ack(e.policy, req) else []
        return []

    def _unit_sets(self, pool: list[str], units: float) -> list[frozenset[str]]:
        """Every set of pool classes that reaches `units` and is minimal by inclusion. Not only
        the fewest classes: when those are needed elsewhere under count-once rules, a larger
        set of other classes may be the only way. Grown largest first, so the class that
        reaches the target is the set's smallest and the set is minimal exactly when the sum
        before it fell short."""
        if units <= 1e-9:
            return [frozenset()]
        items = sorted(pool, key=lambda c: (-self.units[c], c))
        u = [self.units[c] for c in items]
        rest = [*reversed([*itertools.accumulate(reversed(u))]), 0.0]  # units from j on
        out: list[frozenset[str]] = []

        def grow(start: int, chosen: list[str], total: float) -> None:
            for j in range(start, len(items)):
                if len(out) >= _CAP or total + rest[j] + 1e-9 < units:
                    return
                if total + u[j] + 1e-9 >= units:
                    out.append(frozenset([*chosen, items[j]]))
                else:
                    grow(j + 1, [*chosen, items[j]], total + u[j])

        grow(0, [], 0.0)
        return out

    def _boolean(self, e: Any, have: set[str], req: Request) -> list[frozenset[str]]:
        if e.kind == "all_of":
            return self._combine([self._opts(i, have, req) for i in e.items])
        n = 1 if e.kind == "any_of" else e.n
        subs, seen = [], set()
        for i in e.items:
            if i.kind == "course" and not i.terms:
                if self.cls.get(i.course) in seen:
                    continue
                seen.add(self.cls.get(i.course))
            subs.append(self._opts(i, have, req))
        out: set[frozenset[str]] = set()
        for combo in itertools.combinations([s for s in subs if s], n):
            out.update(self._combine(list(combo)))
            if len(out) > _CAP:
                break
        return _minimal(out)

    def _departments(self, classes: set[str]) -> int:
        """Most departments the classes can cover when each counts for one (a matching)."""
        match: dict[str, str] = {}

        def augment(c: str, seen: set[str]) -> bool:
            for d in sorted(self.depts[c]):
                if d in seen:
                    continue
                seen.add(d)
                if d not in match or augment(match[d], seen):
                    match[d] = c
                    return True
            return False

        return sum(augment(c, set()) for c in sorted(classes))

    def _combine(self, parts: list[list[frozenset[str]]]) -> list[frozenset[str]]:
        """Unions of one option per part (disjoint ones when exclusive), kept minimal: a
        superset of another option never helps, so only the minimal ones are carried on."""
        acc = [frozenset()]
        for opts in sorted(parts, key=len):
            nxt = {a | o for a in acc for o in opts if not self.exclusive or not (a & o)}
            acc = _minimal(nxt)
            if not acc:
                return []
        return acc

    def _exists(self, parts: list[list[frozenset[str]]]) -> bool:
        """Whether one option per part can be picked, pairwise disjoint when exclusive."""
        if not self.exclusive:
            return all(parts)
        order = sorted(range(len(parts)), key=lambda i: len(parts[i]))

        def dfs(k: int, used: frozenset[str]) -> bool:
            if k == len(order):
                return True
            return any(dfs(k + 1, used | o) for o in parts[order[k]] if not used & o)

        return dfs(0, frozenset())

    def _pool(self, spec: Any) -> set[str]:
        out = {self.cls[c] for c in spec.courses if c in self.cls}
        if spec.departments:
            for c in self.courses.values():
                if (
                    {c.department, *c.departments} & set(spec.departments)
                    and (spec.min_level is None or c.level >= spec.min_level)
                    and (spec.max_level is None or c.level <= spec.max_level)
                ):
                    out.add(self.cls[c.id])
        return out - {self.cls[c] for c in spec.exclude if c in self.cls}

    def _requirements(self, have: set[str], req: Request) -> list[Any]:
        progs = {p.id: p for p in self.docs.programs.programs}
        out: list[Any] = []
        prog_opts: list[frozenset[str]] = [frozenset()]
        with_ge = True
        for pid in [p for p in [req.program, *req.tracks] if p is not None]:
            if pid not in progs:
                out.append(self._violation("requirement", f"unknown program {pid}"))
                continue
            p = progs[pid]
            self.exclusive = not p.double_count.within_program
            with_ge = with_ge and p.double_count.with_ge
            opts = self._opts(p.requirement, have, req)
            if not opts:
                out.append(
                    self._violation(
                        "requirement", f"{pid}: {self._unmet(p.requirement, have, req)}"
                    )
                )
            prog_opts = [a | o for a in prog_opts for o in opts][:_CAP]
        if req.ge_framework == "none":
            return out
        fw_id = req.ge_framework or (
            progs[req.program].ge_framework if req.program in progs else None
        )
        fws = {f.id: f for f in self.docs.ge.frameworks}
        if fw_id is not None and fw_id not in fws:
            out.append(self._violation("ge_requirement", f"unknown GE framework {fw_id}"))
        if fw_id in fws:
            fw = fws[fw_id]
            self.exclusive = fw.courses_count_once
            parts = []
            for cat in fw.categories:
                if cat.requirement is not None:
                    opts = self._opts(cat.requirement, have, req)
                    self.exclusive = fw.courses_count_once
                else:
                    pool = {self.cls[c] for c in cat.courses if c in self.cls} & have
                    opts = [
                        frozenset(c)
                        for c in itertools.islice(
                            itertools.combinations(sorted(pool), cat.min_courses), _CAP
                        )
                    ]
                if not opts:
                    out.append(
                        self._violation("ge_requirement", f"{fw_id}/{cat.id} ({cat.name}) not met")
                    )
                parts.append(opts)
            if all(parts) and not self._exists(parts):
                out.append(
                    self._violation(
                        "ge_requirement",
                        f"{fw_id}: each category is met, but not by distinct courses",
                    )
                )
            ge_opts = self._combine(parts) if all(parts) and not with_ge else []
            if (
                not with_ge
                and ge_opts
                and prog_opts
                and not any(not (a & b) for a in prog_opts for b in ge_opts)
            ):
                out.append(
                    self._violation(
                        "ge_requirement",
                        "GE cannot be met without double-counting "
                        "program courses, which the program forbids",
                    )
                )
        return out

    def _unmet(self, e: Any, have: set[str], req: Request) -> str:
        """Name the top-level parts that fail on their own, else say they fail together."""
        if e.kind != "all_of":
            return "requirements not met"
        bad = [
            i.label or f"part {n + 1}"
            for n, i in enumerate(e.items)
            if not self._opts(i, have, req)
        ]
        if bad:
            return "not met: " + ", ".join(f"'{b}'" for b in bad)
        return "every part is met, but not all at once with distinct courses"


def _minimal(sets: set[frozenset[str]]) -> list[frozenset[str]]:
    out: list[frozenset[str]] = []
    for s in sorted(sets, key=lambda x: (len(x), sorted(x))):
        if not any(k <= s for k in out):
            out.append(s)
            if len(out) >= _CAP:
                break
    return out


def _nodes(e: Any) -> list[Any]:
    out = [e]
    for i in getattr(e, "items", None) or []:
        out += _nodes(i)
    for b in (getattr(e, "then", None), getattr(e, "otherwise", None)):
        if b is not None:
            out += _nodes(b)
    return out


def _pool_courses(n: Any) -> list[str]:
    if n.kind == "at_most":
        return []
    return [
        *getattr(getattr(n, "pool", None), "courses", []),
        *getattr(getattr(n, "after", None), "courses", []),
    ]
