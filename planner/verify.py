"""Independent plan verifier: KnowPlan, "Metrics" (exact feasibility by a deterministic verifier).

Reads the documents directly and shares no constraint-building code with the solver: its own
equivalence classes, its own expression evaluation, its own double-count matching."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from planner.documents import CatalogDocs
from planner.profile import Request

KINDS = (
    "unknown_course",
    "duplicate",
    "horizon",
    "offering",
    "capacity",
    "prerequisite",
    "corequisite",
    "standing",
    "exclusion",
    "requirement",
    "ge_requirement",
)
_CAP = 4000  # bound on enumerated assignments; beyond it the check errs on "violated"


@dataclass(frozen=True)
class Violation:
    kind: str
    message: str


def _classes(docs: CatalogDocs) -> dict[str, str]:
    parent = {c.id: c.id for c in docs.courses.courses}

    def root(a: str) -> str:
        while parent[a] != a:
            a = parent[a]
        return a

    for c in docs.courses.courses:
        for o in [*c.cross_listings, *c.equivalents]:
            if o in parent:
                ra, rb = root(c.id), root(o)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    return {c: root(c) for c in parent}


class Verifier:
    def __init__(self, docs: CatalogDocs) -> None:
        self.docs = docs
        self.courses = {c.id: c for c in docs.courses.courses}
        self.cls = _classes(docs)
        self.units = {}
        for cid, k in self.cls.items():
            u = self.courses[cid].units
            self.units[k] = min(self.units.get(k, u), u)
        self.cycle = docs.courses.term_cycle or ["term"]

    # -- expression evaluation (prerequisites) -------------------------------------------
    def _pre(
        self,
        e: Any,
        before: set[str],
        upto: set[str],
        units_before: float,
        cid: str,
        req: Request,
        skip: str | None,
    ) -> bool:
        k = e.kind
        if k == skip:
            return True
        if k == "course":
            return self.cls.get(e.course) in before
        if k in ("coreq", "concurrent"):
            return skip == "coreq" or self.cls.get(e.course) in upto
        if k == "all_of":
            return all(self._pre(i, before, upto, units_before, cid, req, skip) for i in e.items)
        # Equivalent alternatives count once.
        if k in ("any_of", "choose_n"):
            need = 1 if k == "any_of" else e.n
            got, seen = 0, set()
            for i in e.items:
                if i.kind == "course":
                    c = self.cls.get(i.course)
                    if c is None or c in seen:
                        continue
                    seen.add(c)
                got += self._pre(i, before, upto, units_before, cid, req, skip)
            return got >= need
        if k == "standing":
            return units_before + 1e-9 >= e.min_units
        if k == "consent":
            return cid in req.consents
        return False

    # -- requirement options (minimal sets of used classes) ------------------------------
    def _opts(self, e: Any, have: set[str], req: Request) -> list[frozenset[str]]:
        k = e.kind
        if k == "course":
            c = self.cls.get(e.course)
            return [frozenset([c])] if c in have else []
        if k == "conditional":
            f = e.condition.flag
            v = (f[6:] in req.tracks) if f.startswith("track:") else bool(getattr(req, f, False))
            branch = e.then if v == e.condition.equals else e.otherwise
            return [frozenset()] if branch is None else self._opts(branch, have, req)
        if k == "all_of":
            return self._combine([self._opts(i, have, req) for i in e.items])
        if k in ("any_of", "choose_n"):
            n = 1 if k == "any_of" else e.n
            subs, seen = [], set()
            for i in e.items:
                if i.kind == "course":
                    if self.cls.get(i.course) in seen:
                        continue
                    seen.add(self.cls.get(i.course))
                subs.append(self._opts(i, have, req))
            out: list[frozenset[str]] = []
            for combo in itertools.combinations([s for s in subs if s], n):
                out.extend(self._combine(list(combo)))
                if len(out) > _CAP:
                    break
            return out
        if k in ("pool", "min_units"):
            pool = sorted(self._pool(e.pool) & have)
            if k == "pool":
                return [
                    frozenset(c)
                    for c in itertools.islice(itertools.combinations(pool, e.min_courses), _CAP)
                ]
            out = []
            for r in range(0, len(pool) + 1):
                for c in itertools.combinations(pool, r):
                    if sum(self.units[x] for x in c) + 1e-9 >= e.units:
                        out.append(frozenset(c))
                if out or len(out) > _CAP:
                    break
            return out
        return []  # unsupported policies are never satisfied

    def _combine(self, parts: list[list[frozenset[str]]]) -> list[frozenset[str]]:
        acc = [frozenset()]
        for opts in parts:
            nxt = []
            for a in acc:
                for o in opts:
                    if not self.exclusive or not (a & o):
                        nxt.append(a | o)
            acc = list(dict.fromkeys(nxt))[:_CAP]
            if not acc:
                return []
        return acc

    def _pool(self, spec: Any) -> set[str]:
        out = {self.cls[c] for c in spec.courses if c in self.cls}
        for c in self.courses.values():
            if (
                spec.departments
                and c.department in spec.departments
                and (spec.min_level is None or c.level >= spec.min_level)
                and (spec.max_level is None or c.level <= spec.max_level)
            ):
                out.add(self.cls[c.id])
        return out - {self.cls[c] for c in spec.exclude if c in self.cls}

    # -- the check -----------------------------------------------------------------------
    def check(self, plan: list[tuple[str, int]], req: Request) -> list[Violation]:
        v: list[Violation] = []
        first = self.cycle.index(req.start_season) if req.start_season in self.cycle else 0
        done = {self.cls[c] for c in req.completed if c in self.cls}
        done_units = sum(self.units[k] for k in done)
        seen: dict[str, str] = {}
        load: dict[int, float] = {}
        for cid, t in plan:
            if cid not in self.courses:
                v.append(Violation("unknown_course", f"{cid} is not in the catalog"))
                continue
            k = self.cls[cid]
            if k in done or k in seen:
                v.append(
                    Violation(
                        "duplicate",
                        f"{cid} repeats {seen.get(k, 'a completed course')}"
                        " (same course or an equivalent)",
                    )
                )
            seen[k] = cid
            if not 1 <= t <= req.horizon:
                v.append(Violation("horizon", f"{cid} in term {t} outside 1..{req.horizon}"))
            season = self.cycle[(first + t - 1) % len(self.cycle)]
            offered = self.courses[cid].terms_offered
            if offered and season not in offered:
                v.append(Violation("offering", f"{cid} is not offered in {season} (term {t})"))
            load[t] = load.get(t, 0.0) + self.courses[cid].units
        for t, u in sorted(load.items()):
            if u > req.max_units_per_term + 1e-9:
                v.append(
                    Violation(
                        "capacity", f"term {t} carries {u:g} units > cap {req.max_units_per_term:g}"
                    )
                )
        known = [(c, t) for c, t in plan if c in self.courses]
        for cid, t in known:
            pre = self.courses[cid].prerequisite
            if pre is None:
                continue
            before = done | {self.cls[c] for c, tt in known if tt < t}
            upto = done | {self.cls[c] for c, tt in known if tt <= t}
            # A planned course counts its own units toward standing (as it does toward load);
            # completed and pooled courses count per equivalence class, at the class minimum.
            ub = done_units + sum(self.courses[c].units for c, tt in known if tt < t)
            if self._pre(pre, before, upto, ub, cid, req, None):
                continue
            kind = "prerequisite"
            if self._pre(pre, before, upto, ub, cid, req, "coreq"):
                kind = "corequisite"
            elif self._pre(pre, before, upto, ub, cid, req, "standing"):
                kind = "standing"
            v.append(Violation(kind, f"{cid} in term {t}: {kind} not met"))
        have = done | {self.cls[c] for c, _ in known}
        for c in self.courses.values():
            for o in c.exclusions:
                if (
                    o in self.cls
                    and self.cls[c.id] in have
                    and self.cls[o] in have
                    and self.cls[o] != self.cls[c.id]
                ):
                    v.append(Violation("exclusion", f"{c.id} and {o} exclude each other"))
        v.extend(self._requirements(have, req))
        return v

    def _requirements(self, have: set[str], req: Request) -> list[Violation]:
        progs = {p.id: p for p in self.docs.programs.programs}
        out: list[Violation] = []
        prog_opts: list[frozenset[str]] = [frozenset()]
        with_ge = True
        for pid in [p for p in [req.program, *req.tracks] if p is not None]:
            if pid not in progs:
                out.append(Violation("requirement", f"unknown program {pid}"))
                continue
            p = progs[pid]
            self.exclusive = not p.double_count.within_program
            with_ge = with_ge and p.double_count.with_ge
            opts = self._opts(p.requirement, have, req)
            if not opts:
                out.append(Violation("requirement", f"{pid}: requirements not met"))
            prog_opts = [a | o for a in prog_opts for o in opts][:_CAP]
        fw_id = req.ge_framework or (
            progs[req.program].ge_framework if req.program in progs else None
        )
        fws = {f.id: f for f in self.docs.ge.frameworks}
        if fw_id in fws:
            fw = fws[fw_id]
            self.exclusive = fw.courses_count_once
            parts = []
            for cat in fw.categories:
                pool = {self.cls[c] for c in cat.courses if c in self.cls} & have
                opts = [
                    frozenset(c)
                    for c in itertools.islice(
                        itertools.combinations(sorted(pool), cat.min_courses), _CAP
                    )
                ]
                if not opts:
                    out.append(
                        Violation(
                            "ge_requirement", f"{fw_id}/{cat.id}: needs {cat.min_courses} course(s)"
                        )
                    )
                parts.append(opts)
            ge_opts = self._combine(parts) if all(parts) else []
            if (
                not with_ge
                and ge_opts
                and prog_opts
                and not any(not (a & b) for a in prog_opts for b in ge_opts)
            ):
                out.append(
                    Violation(
                        "ge_requirement",
                        "GE cannot be met without double-counting "
                        "program courses, which the program forbids",
                    )
                )
        return out


def verify_plan(docs: CatalogDocs, plan: list[tuple[str, int]], req: Request) -> list[Violation]:
    """All violations of a term-indexed plan for a request; empty means exactly feasible."""
    return Verifier(docs).check(plan, req)
