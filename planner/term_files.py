"""Term files of observed sections (StoDevX course-data `terms-YYYYS.json`, S = 1 fall,
2 interim, 3 spring): read and validated record by record. KnowPlan, "Metrics": the verifier
checks offerings against these sources itself, not against the converted documents."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from common.loading import LoadError, parse_json, read_text

SEASONS = {1: "fall", 2: "interim", 3: "spring", 4: "summer", 5: "summer"}
_NAME = re.compile(r"^terms-(\d{4})(\d)\.json$")


class TermFileError(ValueError):
    """A term file or one of its records is malformed; the message names file, record, field."""


class TermRecord(BaseModel):
    """One section record. Only the fields the planner uses are required."""

    model_config = ConfigDict(extra="allow")

    clbid: str
    department: str = Field(min_length=1)
    number: int
    term: int
    credits: float  # upstream writes -1 where a section states no credit
    level: int = 0
    name: str
    title: str | None = None
    type: str = ""
    prerequisites: str | bool | None = None
    description: list[str] | str | None = None
    revisions: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def course_id(self) -> str:
        return f"{self.department} {self.number}"

    def gereqs(self, from_revisions: bool = True) -> list[str]:
        """GE codes: the record's own, else (from_revisions) the last value the scraper kept
        in `revisions`: upstream dropped the field from the 2014-18 records in 2025, and the
        value it dropped is that year's."""
        extra = self.model_extra or {}
        if "gereqs" in extra:  # the record states its own codes (possibly none)
            return list(extra["gereqs"] or [])
        if not from_revisions:
            return []
        for rev in reversed(self.revisions):
            if "gereqs" in rev:
                return list(rev["gereqs"] or [])
        return []


def term_id_of(path: Path) -> str | None:
    m = _NAME.match(path.name)
    return f"{m.group(1)}{m.group(2)}" if m else None


def read_term_file(path: str | Path) -> tuple[str, list[TermRecord]]:
    """Raw text and validated records of one term file; the first bad record stops it with
    an error naming the file, the record (index and clbid) and the field."""
    path = Path(path)
    try:
        raw = read_text(path, "term file")
        data = parse_json(raw, str(path))
    except LoadError as exc:
        raise TermFileError(str(exc)) from None
    if not isinstance(data, list):
        raise TermFileError(f"{path}: expected a JSON list of section records")
    want = term_id_of(path)
    out = []
    for i, rec in enumerate(data):
        where = f"{path}: record {i}"
        if isinstance(rec, dict) and rec.get("clbid"):
            where += f" (clbid {rec['clbid']})"
        try:
            r = TermRecord.model_validate(rec)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "record"
            raise TermFileError(f"{where}: field '{field}': {err['msg']}") from None
        if want is not None and str(r.term) != want:
            raise TermFileError(f"{where}: field 'term': {r.term} in the file of term {want}")
        out.append(r)
    return raw, out


def term_files(directory: str | Path) -> dict[str, Path]:
    """term id -> file, for every terms-YYYYS.json in a directory."""
    d = Path(directory)
    if not d.is_dir():
        raise TermFileError(f"{d}: not a directory of term files")
    return {tid: p for p in sorted(d.glob("terms-*.json")) if (tid := term_id_of(p))}


def read_sections(directory: str | Path, terms: set[str] | None = None) -> dict[str, set[str]]:
    """term id -> course ids with a section in that term (only `terms` when given)."""
    out: dict[str, set[str]] = {}
    for tid, path in term_files(directory).items():
        if terms is not None and tid not in terms:
            continue
        _, records = read_term_file(path)
        out[tid] = {r.course_id for r in records}
    return out
