"""Planning requests: KnowPlan, DegreeMap "Finite profile parsing" (a request is finite
identifiers and structured fields; free text is read in planner/text_request.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner.documents import _json_path


class RequestError(ValueError):
    """A request is malformed or names what the catalog lacks; the message says where."""


class Request(BaseModel):
    """A student request reduced to finite identifiers and structured fields."""

    model_config = ConfigDict(extra="forbid")

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
    max_units_by_season: dict[str, float] = Field(
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


def load_request(path: str | Path) -> Request:
    """Read a request file; any problem is one RequestError naming the file and the field."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise RequestError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise RequestError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    return parse_request(data, str(path))


def parse_request(data: object, source: str) -> Request:
    try:
        return Request.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = _json_path(tuple(err["loc"]), data)
        raise RequestError(f"{source}: at {where}: {err['msg']}") from None
