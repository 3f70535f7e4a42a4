"""Planning requests: KnowPlan, DegreeMap "Finite profile parsing" (a request is finite
identifiers and structured fields; free text is read in planner/text_request.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from common.loading import LoadError, load_json
from planner.documents import _json_path


class RequestError(ValueError):
    """A request is malformed or names what the catalog lacks; the message says where."""


class Request(BaseModel):
    """A student request reduced to finite identifiers and structured fields."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    program: str | None = None
    tracks: list[str] = Field(default_factory=list)
    ge_framework: str | None = None  # default: the program's framework; "none": no GE
    completed: list[str] = Field(default_factory=list)
    transfer: bool = False
    horizon: int = Field(default=12, ge=1, le=24)
    start_season: str | None = None  # default: first season of the catalog's term cycle
    # A calendar term id or label ("20141", "fall 2014"); default: the calendar's first term.
    start_term: str | None = None
    max_units_per_term: float = Field(default=18.0, gt=0)
    max_units_by_season: dict[str, Annotated[float, Field(gt=0)]] = Field(
        default_factory=dict, description="tighter cap per season, e.g. {'interim': 1}"
    )
    risk_tolerance: Literal["low", "medium", "high"] = "medium"
    interests: list[str] = Field(default_factory=list)
    avoid: list[str] = Field(default_factory=list)
    consents: list[str] = Field(default_factory=list)
    # Unsupported policies the student attests to hold: policy ids; "kind:background" for every
    # policy of a kind (e.g. placements, high-school work); "own-restrictions" for the
    # enrollment restrictions of courses the requested programs name (a major's own courses
    # being open to its majors). Only these ever count as met; each plan lists the ones it uses.
    acknowledged: list[str] = Field(default_factory=list)

    def acknowledges(self, policy_id: str, kind: str = "", own_course: bool = False) -> bool:
        return (
            policy_id in self.acknowledged
            or (bool(kind) and f"kind:{kind}" in self.acknowledged)
            or (kind == "restriction" and own_course and "own-restrictions" in self.acknowledged)
        )

    # Identifiers the parser saw but could not resolve; each one becomes a question.
    unresolved: list[str] = Field(default_factory=list)
    # Unknown preference dimensions: name -> finite hypotheses (each a partial Request patch).
    hypotheses: dict[str, dict[str, dict]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _hypotheses_are_requests(self) -> Request:
        # Each hypothesis is a patch the planner applies as-is: it must itself be a valid request.
        base = self.model_dump(exclude={"hypotheses"})
        for dim, options in self.hypotheses.items():
            for name, patch in options.items():
                if "hypotheses" in patch:
                    raise ValueError(f"hypothesis {dim}.{name} cannot hold hypotheses")
                try:
                    Request.model_validate({**base, **patch})
                except ValidationError as exc:
                    err = exc.errors()[0]
                    where = ".".join(str(p) for p in err["loc"])
                    raise ValueError(f"hypothesis {dim}.{name}: {where}: {err['msg']}") from None
        return self


def load_request(path: str | Path) -> Request:
    """Read a request file; any problem is one RequestError naming the file and the field."""
    try:
        data = load_json(path, "request file")
    except LoadError as exc:
        raise RequestError(str(exc)) from None
    return parse_request(data, str(path))


def parse_request(data: object, source: str) -> Request:
    try:
        return Request.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = _json_path(tuple(err["loc"]), data)
        raise RequestError(f"{source}: at {where}: {err['msg']}") from None
