"""Independent plan verifier: KnowPlan, "Metrics" (exact feasibility by a deterministic verifier).

Reads the documents directly and shares no constraint-building code with the solver: its own
equivalence classes, term mapping, expression evaluation and double-count matching. Given the
observed term files, it also checks each planned course against the sections actually listed
in its term, independently of the converted offerings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from planner.documents import CatalogDocs
from planner.profile import Request
from planner.verify_options import RequirementOptions, _nodes, _pool_courses

KINDS = (
    "request",
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


def _key(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


class Verifier(RequirementOptions):
    def __init__(self, docs: CatalogDocs, sections: dict[str, set[str]] | None = None) -> None:
        self.docs = docs
        self.sections = sections
        self.courses = {c.id: c for c in docs.courses.courses}
        self.cls = _classes(docs)
        self.units: dict[str, float] = {}
        self.depts: dict[str, set[str]] = {}
        for cid, k in self.cls.items():
            c = self.courses[cid]
            self.units[k] = min(self.units.get(k, c.units), c.units)
            self.depts.setdefault(k, set()).update([c.department, *c.departments])
        self.cycle = docs.courses.term_cycle or ["term"]
        self.calendar = docs.courses.calendar
        self.exclusive = False
        self.when: dict[str, tuple[str | None, int]] = {}
        self.policy_kind = {p.id: (p.kind, p.applies_to) for p in docs.unsupported()}

    def _violation(self, kind: str, message: str) -> Violation:
        return Violation(kind, message)

    def _ack(self, policy: str, req: Request) -> bool:
        if policy not in self.policy_kind:
            return False
        kind, applies = self.policy_kind[policy]
        own: set[str] = set()
        progs = {p.id: p for p in self.docs.programs.programs}
        for pid in [req.program, *req.tracks]:
            if pid in progs:
                own |= {n.course for n in _nodes(progs[pid].requirement) if n.kind == "course"}
                own |= {c for n in _nodes(progs[pid].requirement) for c in _pool_courses(n)}
        return req.acknowledges(policy, kind, bool(set(applies) & own))

    # -- terms -----------------------------------------------------------------------------
    def _terms(self, req: Request, n: int) -> list[tuple[str, str | None, int]] | None:
        """(season, calendar term id or None, academic year) of plan terms 1..n."""
        cal = self.calendar
        if req.start_term is not None and not cal:
            return None
        if cal:
            first = 0
            if req.start_term is not None:
                want = _key(req.start_term)
                hits = [
                    i
                    for i, c in enumerate(cal)
                    if want in (_key(c.id), _key(c.label), _key(f"{c.season} {c.year}"))
                ]
                if not hits:
                    return None
                first = hits[0]
            elif req.start_season:
                first = next((i for i, c in enumerate(cal) if c.season == req.start_season), 0)
            out = []
            for i in range(first, first + n):
                if i < len(cal):
                    out.append((cal[i].season, cal[i].id, cal[i].year))
                else:
                    k = self.cycle.index(cal[-1].season) if cal[-1].season in self.cycle else 0
                    step = i - len(cal) + 1
                    season = self.cycle[(k + step) % len(self.cycle)]
                    out.append((season, None, cal[-1].year + (k + step) // len(self.cycle)))
            return out
        first = self.cycle.index(req.start_season) if req.start_season in self.cycle else 0
        return [
            (self.cycle[(first + i) % len(self.cycle)], None, (first + i) // len(self.cycle))
            for i in range(n)
        ]

    def _cap(self, req: Request, season: str) -> float:
        caps = [req.max_units_per_term]
        if season in req.max_units_by_season:
            caps.append(req.max_units_by_season[season])
        if season in self.docs.courses.season_max_units:
            caps.append(self.docs.courses.season_max_units[season])
        return min(caps)

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
        if k == "pool":
            return len((self._pool(e.pool) - {self.cls[cid]}) & before) >= e.min_courses
        if k == "standing":
            return units_before + 1e-9 >= e.min_units
        if k == "consent":
            return cid in req.consents
        if k == "unsupported":
            return self._ack(e.policy, req)
        return False

    # -- the check -----------------------------------------------------------------------
    def check(self, plan: list[tuple[str, int]], req: Request) -> list[Violation]:
        v: list[Violation] = []
        last = max([req.horizon, *(t for _, t in plan)])
        terms = self._terms(req, max(last, 1))
        if terms is None:
            return [Violation("request", f"start_term {req.start_term!r} is not in the calendar")]
        done = {self.cls[c] for c in req.completed if c in self.cls}
        done_units = sum(self.units[k] for k in done)
        self.when = {k: (None, -1) for k in done}
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
                if t < 1:
                    continue
            season, cal_id, year = terms[t - 1]
            self.when[k] = (cal_id, year)
            v.extend(self._offered(cid, t, season, cal_id))
            load[t] = load.get(t, 0.0) + self.courses[cid].units
        for t, u in sorted(load.items()):
            cap = self._cap(req, terms[t - 1][0])
            if u > cap + 1e-9:
                v.append(Violation("capacity", f"term {t} carries {u:g} units > cap {cap:g}"))
        known = [(c, t) for c, t in plan if c in self.courses and t >= 1]
        for cid, t in known:
            course = self.courses[cid]
            cal_id = terms[t - 1][1]
            own = {o.term: o.prerequisite for o in course.offerings or [] if o.prerequisite}
            pre = own.get(cal_id, course.prerequisite) if cal_id else course.prerequisite
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

    def _offered(self, cid: str, t: int, season: str, cal_id: str | None) -> list[Violation]:
        c = self.courses[cid]
        out = []
        if c.offerings is not None:
            if cal_id is None:
                out.append(Violation("offering", f"{cid} in term {t}: past the observed terms"))
            elif cal_id not in {o.term for o in c.offerings}:
                out.append(Violation("offering", f"{cid} is not offered in term {cal_id}"))
        elif c.terms_offered and season not in c.terms_offered:
            out.append(Violation("offering", f"{cid} is not offered in {season} (term {t})"))
        if self.sections is not None and cal_id is not None:
            if cal_id not in self.sections:
                out.append(Violation("offering", f"{cid}: no term file for {cal_id} to check"))
            elif cid not in self.sections[cal_id]:
                out.append(
                    Violation("offering", f"{cid} has no section in the term file of {cal_id}")
                )
        return out


def verify_plan(
    docs: CatalogDocs,
    plan: list[tuple[str, int]],
    req: Request,
    sections: dict[str, set[str]] | None = None,
) -> list[Violation]:
    """All violations of a term-indexed plan for a request; empty means exactly feasible."""
    return Verifier(docs, sections).check(plan, req)
