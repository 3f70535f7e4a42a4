"""One request end to end, as `pathwise plan` and `pathwise plan verify` run it (KnowPlan,
DegreeMap: ladder, top-k, explanation, independent verification); the St. Olaf benchmark calls
the same two functions, so what it counts is what the commands do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from common.loading import LoadError, load_json
from planner.documents import CatalogDocs, _json_path
from planner.hypergraph import Hypergraph
from planner.present import annotate
from planner.profile import Request, RequestError, parse_request
from planner.request_check import check_request
from planner.solve import plan_request
from planner.solver_config import SolverConfig
from planner.verify import Violation, verify_plan


class PlanFileError(ValueError):
    """A plan file is malformed; the message names the file and the field."""


def run_request(graph: Hypergraph, request: Request, cfg: SolverConfig) -> dict[str, Any]:
    """The JSON `pathwise plan` writes: the request, the ranked plans (with why per course) or
    the explanation, and the catalog issues that concern this request."""
    check_request(graph, request)
    result = plan_request(graph, request, cfg).to_json()
    return annotate(graph, request, {"request": request.model_dump(), **result})


class _PlannedCourse(BaseModel):
    model_config = ConfigDict(extra="allow")
    course: str
    term: int


class _PlanEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    rank: int
    courses: list[_PlannedCourse]


class _PlanFile(BaseModel):
    model_config = ConfigDict(extra="allow")
    request: dict[str, Any]
    plans: list[_PlanEntry] = []


def read_plan_file(path: Path) -> tuple[Request, list[_PlanEntry]]:
    try:
        data = load_json(path, "plan file")
    except LoadError as exc:
        raise PlanFileError(str(exc)) from None
    return parse_plan(data, str(path))


def parse_plan(data: Any, source: str) -> tuple[Request, list[_PlanEntry]]:
    try:
        pf = _PlanFile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = _json_path(tuple(err["loc"]), data)
        raise PlanFileError(f"{source}: at {where}: {err['msg']}") from None
    try:
        req = parse_request(pf.request, source)
    except RequestError as exc:
        raise PlanFileError(str(exc).replace(": at $", ": at $.request", 1)) from None
    return req, pf.plans


def verify_plans(
    docs: CatalogDocs,
    request: Request,
    plans: list[_PlanEntry],
    sections: dict[str, set[str]] | None = None,
    rank: int = 0,
) -> list[tuple[int, list[Violation]]]:
    """Each plan (or only `rank`) checked by the independent verifier; a plan file without
    plans, or without the rank asked for, is an error (never an empty "all OK")."""
    ranks = [p.rank for p in plans]
    if not plans:
        raise PlanFileError("the plan file holds no plans to verify (its status says why)")
    if rank and rank not in ranks:
        raise PlanFileError(f"--rank {rank}: the plan file has ranks {', '.join(map(str, ranks))}")
    return [
        (p.rank, verify_plan(docs, [(c.course, c.term) for c in p.courses], request, sections))
        for p in plans
        if not rank or p.rank == rank
    ]
