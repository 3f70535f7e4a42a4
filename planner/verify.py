"""Independent plan verifier: KnowPlan, "Metrics" (exact feasibility by a deterministic verifier).

Reads the documents directly and shares no constraint-building code with the solver: its own
equivalence classes, term mapping, expression evaluation and double-count matching. Given the
observed term files, it also checks each planned course against the sections actually listed
in its term, independently of the converted offerings."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from planner.documents import CatalogDocs
from planner.profile import Request

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


def _key(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


class Verifier:
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
            out = []
            for r in range(0, len(pool) + 1):
                for c in itertools.combinations(pool, r):
                    if sum(self.units[x] for x in c) + 1e-9 >= e.units:
                        out.append(frozenset(c))
                if out or len(out) > _CAP:
                    break
            return out
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
                out.append(
                    Violation("requirement", f"{pid}: {self._unmet(p.requirement, have, req)}")
                )
            prog_opts = [a | o for a in prog_opts for o in opts][:_CAP]
        if req.ge_framework == "none":
            return out
        fw_id = req.ge_framework or (
            progs[req.program].ge_framework if req.program in progs else None
        )
        fws = {f.id: f for f in self.docs.ge.frameworks}
        if fw_id is not None and fw_id not in fws:
            out.append(Violation("ge_requirement", f"unknown GE framework {fw_id}"))
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
                        Violation("ge_requirement", f"{fw_id}/{cat.id} ({cat.name}) not met")
                    )
                parts.append(opts)
            if all(parts) and not self._exists(parts):
                out.append(
                    Violation(
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
                    Violation(
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


def verify_plan(
    docs: CatalogDocs,
    plan: list[tuple[str, int]],
    req: Request,
    sections: dict[str, set[str]] | None = None,
) -> list[Violation]:
    """All violations of a term-indexed plan for a request; empty means exactly feasible."""
    return Verifier(docs, sections).check(plan, req)
