"""Planning requests and finite profile parsing: KnowPlan, DegreeMap "Finite profile parsing"."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.hypergraph import Hypergraph


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
    return Request.model_validate(json.loads(Path(path).read_text()))


_COURSE_RE = re.compile(r"\b([A-Z]{2,6}(?:/[A-Z]{2,6})?)[ -]?(\d{2,4}[A-Z]?)\b")
_NUM_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}


def _num(tok: str) -> int | None:
    return int(tok) if tok.isdigit() else _NUM_WORDS.get(tok.lower())


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def parse_text(text: str, graph: Hypergraph) -> Request:
    """Map free text to identifiers. Never guesses: what does not resolve is kept unresolved."""
    req: dict = {"completed": [], "unresolved": [], "interests": [], "avoid": []}
    low = text.lower()
    norm = _norm(text)
    # Program: exact id or full name mention; an explicit "major in X" that matches nothing is
    # kept as unresolved rather than mapped to the nearest program.
    candidates = []
    for p in graph.programs.values():
        if p.kind == "track":
            continue
        if re.search(rf"\b{re.escape(p.id.lower())}\b", low) or _norm(p.name) in norm:
            candidates.append(p.id)
    if len(candidates) == 1:
        req["program"] = candidates[0]
    else:
        m = re.search(r"(?:major|program|degree) in ([a-z &-]+?)(?:[,.;]|$| and | with )", low)
        req["unresolved"].append(
            f"program:{m.group(1).strip() if m else 'unspecified'}"
            if not candidates
            else "program:ambiguous:" + ",".join(candidates)
        )
    for p in graph.programs.values():
        if p.kind == "track" and _norm(p.name) in norm:
            req.setdefault("tracks", []).append(p.id)
    # Courses mentioned after "taken"/"completed"/"done" are the transcript.
    m = re.search(
        r"(?:completed|taken|took|done with|finished)\s*:?\s*(.+?)(?:\.|;|$)",
        text,
        flags=re.IGNORECASE,
    )
    if m:
        for dept, num in _COURSE_RE.findall(m.group(1).upper()):
            cid = f"{dept} {num}"
            (req["completed"] if cid in graph.courses else req["unresolved"]).append(
                cid if cid in graph.courses else f"course:{cid}"
            )
    if re.search(r"\btransfer", low):
        req["transfer"] = True
    m = re.search(r"(\w+)\s+(?:more\s+|remaining\s+)?(?:terms|semesters)", low)
    if m and _num(m.group(1)):
        req["horizon"] = _num(m.group(1))
    m = re.search(
        r"(?:at most|max(?:imum)?|up to|no more than)\s+(\d+(?:\.\d+)?)\s+"
        r"(?:units|credits)",
        low,
    )
    if m:
        req["max_units_per_term"] = float(m.group(1))
    for level in ("low", "medium", "high"):
        if re.search(rf"\b{level} risk", low):
            req["risk_tolerance"] = level
    m = re.search(r"interest(?:ed)? in ([^.;]+)", low)
    if m:
        req["interests"] = [s.strip() for s in re.split(r",| and ", m.group(1)) if s.strip()]
    m = re.search(r"(?:avoid|dislike|not interested in) ([^.;]+)", low)
    if m:
        req["avoid"] = [s.strip() for s in re.split(r",| and ", m.group(1)) if s.strip()]
    if re.search(r"\bstart(?:ing)? in (fall|spring|summer)", low):
        req["start_season"] = re.search(r"\bstart(?:ing)? in (fall|spring|summer)", low).group(1)
    return Request.model_validate(req)
