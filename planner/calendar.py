"""Plan terms on the catalog's calendar: KnowPlan, DegreeMap "Exact planning" (x[c,t] per term).

Plan term t (1-based) is the t-th term from the request's start. With an observed calendar
(courses.json `calendar`) each plan term is a concrete term such as fall 2014; past the end of
the calendar, and in catalogs without one, the season cycle continues and no concrete term is
known, so a course with observed offerings is not offered there."""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.documents import CalendarTerm
from planner.profile import Request, RequestError


@dataclass(frozen=True)
class Slot:
    t: int
    season: str
    calendar_id: str | None  # None: past the observed calendar, or no calendar at all
    year: int  # academic year (calendar year of its fall, or a count from the start)
    label: str


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def start_index(calendar: list[CalendarTerm], cycle: list[str], request: Request) -> int:
    """Index into the calendar (or the season cycle) where the plan starts."""
    if request.start_term is not None:
        want = _norm(request.start_term)
        for i, term in enumerate(calendar):
            if want in (_norm(term.id), _norm(term.label), _norm(f"{term.season} {term.year}")):
                return i
        span = f"{calendar[0].label or calendar[0].id} to {calendar[-1].label or calendar[-1].id}"
        raise RequestError(
            f"request: start_term {request.start_term!r} is not a term of the catalog's "
            + (f"calendar ({span})" if calendar else "calendar (the catalog has none)")
        )
    if calendar:
        if request.start_season:
            for i, term in enumerate(calendar):
                if term.season == request.start_season:
                    return i
        return 0
    return cycle.index(request.start_season) if request.start_season in cycle else 0


def plan_slots(
    calendar: list[CalendarTerm], cycle: list[str], request: Request, horizon: int
) -> dict[int, Slot]:
    """Plan term -> slot for t = 1..horizon."""
    cycle = cycle or ["term"]
    first = start_index(calendar, cycle, request)
    out: dict[int, Slot] = {}
    if calendar:
        base = calendar[first]
        pos = cycle.index(base.season) if base.season in cycle else 0
        for t in range(1, horizon + 1):
            i = first + t - 1
            if i < len(calendar):
                c = calendar[i]
                out[t] = Slot(t, c.season, c.id, c.year, c.label or c.id)
            else:
                # Past the observed calendar: the cycle continues, no concrete term is known.
                last = calendar[-1]
                k = cycle.index(last.season) if last.season in cycle else pos
                steps = i - len(calendar) + 1
                season = cycle[(k + steps) % len(cycle)]
                year = last.year + (k + steps) // len(cycle)
                out[t] = Slot(t, season, None, year, f"{season} {year} (not observed)")
        return out
    for t in range(1, horizon + 1):
        k = first + t - 1
        season = cycle[k % len(cycle)]
        out[t] = Slot(t, season, None, k // len(cycle), season)
    return out


def term_cap(
    request: Request, season_rules: dict[str, float], season: str
) -> tuple[float, str | None]:
    """The unit cap of a term and, when tighter than the request's per-term cap, its source."""
    cap, why = request.max_units_per_term, None
    if season in request.max_units_by_season and request.max_units_by_season[season] < cap:
        cap, why = request.max_units_by_season[season], f"your {season} cap"
    if season in season_rules and season_rules[season] < cap:
        cap, why = season_rules[season], f"the catalog's {season} load rule"
    return cap, why
