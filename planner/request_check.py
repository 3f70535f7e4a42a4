"""A request checked against the compiled catalog: KnowPlan, DegreeMap "Typed requirement graph".

Names the catalog does not have stop the run with the field that holds them (never guessed).
"""

from __future__ import annotations

from planner.calendar import start_index
from planner.hypergraph import Hypergraph
from planner.profile import Request, RequestError


def check_request(graph: Hypergraph, req: Request, source: str = "request") -> None:
    """Names in the request that the catalog does not have stop the run (never guessed)."""
    known = ", ".join(sorted(graph.programs)) or "none"
    if req.program is None and not req.tracks:
        # Without one, nothing is required and an empty plan would read as "certified".
        raise RequestError(
            f"{source}: at $.program: a request names a program (or tracks) to plan ({known})"
        )
    seasons = list(dict.fromkeys([*graph.term_cycle, *(t.season for t in graph.calendar)]))
    known_seasons = ", ".join(seasons) or "none"
    for season in req.max_units_by_season:
        if season not in seasons:
            raise RequestError(
                f"{source}: at $.max_units_by_season.{season}: not a season of the catalog "
                f"({known_seasons})"
            )
    if req.start_season is not None and req.start_season not in seasons:
        raise RequestError(
            f"{source}: at $.start_season: {req.start_season!r} is not a season of the catalog "
            f"({known_seasons})"
        )
    for field, pid in [("program", req.program)] + [("tracks", t) for t in req.tracks]:
        if pid is not None and pid not in graph.programs:
            raise RequestError(
                f"{source}: at $.{field}: {pid!r} is not a program of programs.json ({known})"
            )
    fw = req.ge_framework
    if fw is not None and fw != "none" and fw not in graph.frameworks:
        known_fw = ", ".join(sorted(graph.frameworks)) or "none"
        raise RequestError(
            f"{source}: at $.ge_framework: {fw!r} is not a framework of ge.json "
            f"({known_fw}, or none)"
        )
    for i, cid in enumerate(req.completed):
        if cid not in graph.courses:
            raise RequestError(f"{source}: at $.completed[{i}]: {cid!r} is not in courses.json")
    try:
        start_index(graph.calendar, graph.term_cycle, req)
    except RequestError as exc:
        raise RequestError(f"{source}: at $.start_term: {str(exc).split(': ', 1)[1]}") from None
