"""The three catalog documents: KnowPlan, "Problem Formulation" (J_course, J_program, J_GE)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from common.loading import LoadError, load_json

# The expression AST lives in planner/expr.py; re-exported here, where every reader of the
# documents has always found it.
from planner.expr import (  # noqa: F401
    PREREQ_KINDS,
    REQ_KINDS,
    AllOf,
    AnyOf,
    AtMost,
    ChooseN,
    Concurrent,
    Condition,
    Conditional,
    Consent,
    Coreq,
    CourseRef,
    Expr,
    MinDepartments,
    MinUnits,
    NotBefore,
    Pool,
    PoolSpec,
    Provenance,
    Standing,
    Strict,
    Unsupported,
)

SCHEMA_VERSION = "1"
DOC_FILES = {"courses": "courses.json", "programs": "programs.json", "ge": "ge.json"}


class Source(Strict):
    id: str
    uri: str
    title: str = ""
    license: str = ""


class UnsupportedPolicy(Strict):
    """A natural-language exception the planner cannot check. Kept, never treated as satisfied."""

    id: str
    text: str
    applies_to: list[str] = Field(default_factory=list)
    kind: str = Field(
        default="",
        description="background (what the student brings, e.g. a placement), restriction "
        "(who may enroll), message (a requirement stated only in words), note (advice beside "
        "a requirement that is encoded), or empty",
    )
    provenance: Provenance


# --- courses.json ---------------------------------------------------------------------------


class Offering(Strict):
    """A calendar term in which the course had a section, with the section record it came
    from. `prerequisite` is set only where that term's own record differs from the course's."""

    term: str
    provenance: Provenance | None = None
    prerequisite: Expr | None = None


class CalendarTerm(Strict):
    """One concrete term of the observed calendar (e.g. id '20141', fall of 2014-15)."""

    id: str
    season: str
    year: int = Field(description="academic year, named by its fall (2014 = 2014-15)")
    label: str = ""


class Course(Strict):
    id: str
    title: str
    units: float = Field(ge=0)
    department: str
    departments: list[str] = Field(
        default_factory=list,
        description="every department of a cross-listed course (pools match any of them)",
    )
    level: int = 0
    terms_offered: list[str] = Field(
        default_factory=list, description="seasons; empty = every term"
    )
    offerings: list[Offering] | None = Field(
        default=None,
        description="observed calendar terms with a section; None = by season (terms_offered)",
    )
    description: str = ""
    prerequisite: Expr | None = None
    cross_listings: list[str] = Field(default_factory=list)
    equivalents: list[str] = Field(default_factory=list)
    exclusions: list[str] = Field(default_factory=list)
    provenance: Provenance


class CoursesDoc(Strict):
    schema_version: str = SCHEMA_VERSION
    institution: str
    catalog_year: str = ""
    term_cycle: list[str] = Field(default_factory=lambda: ["fall", "spring"])
    calendar: list[CalendarTerm] = Field(
        default_factory=list, description="observed terms, in order; empty = seasons only"
    )
    season_max_units: dict[str, float] = Field(
        default_factory=dict, description="catalog load rule per season (e.g. interim)"
    )
    standing_levels: dict[str, float] = Field(default_factory=dict)
    sources: list[Source] = Field(default_factory=list)
    courses: list[Course]
    unsupported_policies: list[UnsupportedPolicy] = Field(default_factory=list)


# --- programs.json --------------------------------------------------------------------------


class DoubleCount(Strict):
    """within_program=False: a course counts toward at most one leaf requirement of the program.
    with_ge=False: a course used for the program cannot also fill a GE category."""

    within_program: bool = True
    with_ge: bool = True


class Program(Strict):
    id: str
    name: str
    kind: Literal["degree", "major", "minor", "concentration", "track"] = "major"
    parent: str | None = None
    ge_framework: str | None = None
    requirement: Expr
    double_count: DoubleCount = Field(default_factory=DoubleCount)
    provenance: Provenance


class ProgramsDoc(Strict):
    schema_version: str = SCHEMA_VERSION
    institution: str
    sources: list[Source] = Field(default_factory=list)
    programs: list[Program]
    unsupported_policies: list[UnsupportedPolicy] = Field(default_factory=list)


# --- ge.json --------------------------------------------------------------------------------


class GECategory(Strict):
    id: str
    name: str
    min_courses: int = Field(default=1, ge=0)
    courses: list[str]
    requirement: Expr | None = Field(
        default=None,
        description="when set, the category is this expression (courses then only lists "
        "the courses that carry it)",
    )
    provenance: Provenance


class GEFramework(Strict):
    id: str
    name: str
    courses_count_once: bool = Field(
        default=False, description="True: one course may fill only one category"
    )
    categories: list[GECategory]
    provenance: Provenance


class GEDoc(Strict):
    schema_version: str = SCHEMA_VERSION
    institution: str
    sources: list[Source] = Field(default_factory=list)
    frameworks: list[GEFramework]
    unsupported_policies: list[UnsupportedPolicy] = Field(default_factory=list)


class CatalogDocs(BaseModel):
    courses: CoursesDoc
    programs: ProgramsDoc
    ge: GEDoc

    def unsupported(self) -> list[UnsupportedPolicy]:
        return [
            *self.courses.unsupported_policies,
            *self.programs.unsupported_policies,
            *self.ge.unsupported_policies,
        ]


MODELS: dict[str, type[BaseModel]] = {"courses": CoursesDoc, "programs": ProgramsDoc, "ge": GEDoc}


class DocumentError(ValueError):
    """A document failed its schema; the message names the file and the JSON path."""

    def __init__(self, file: str, path: str, message: str) -> None:
        super().__init__(f"{file}: at {path}: {message}")
        self.file, self.path, self.detail = file, path, message


def _json_path(loc: tuple[Any, ...], data: Any) -> str:
    """JSON path of a pydantic error location, walking the data so the discriminator tag that
    pydantic inserts for tagged unions (not a JSON key) is skipped."""
    out, cur = "$", data
    for part in loc:
        if isinstance(cur, dict) and part not in cur and cur.get("kind") == part:
            continue
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
        try:
            cur = cur[part]
        except (KeyError, IndexError, TypeError):
            cur = None
    return out


def parse_document(kind: str, data: Any, file: str) -> BaseModel:
    try:
        return MODELS[kind].model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise DocumentError(file, _json_path(tuple(err["loc"]), data), err["msg"]) from None


def load_docs(directory: str | Path) -> CatalogDocs:
    """Load courses.json, programs.json and ge.json from a directory."""
    d = Path(directory)
    parsed: dict[str, Any] = {}
    for kind, name in DOC_FILES.items():
        path = d / name
        try:
            data = load_json(path, f"catalog document ({name})")
        except LoadError as exc:
            m = re.match(rf"{re.escape(str(path))}(?::(\d+))?: (.*)", str(exc))
            where, msg = (
                (f"line {m.group(1)}" if m and m.group(1) else "$"),
                (m.group(2) if m else str(exc)),
            )
            raise DocumentError(str(path), where, msg) from None
        parsed[kind] = parse_document(kind, data, str(path))
    return CatalogDocs(**parsed)


def save_docs(docs: CatalogDocs, directory: str | Path) -> None:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    for kind, name in DOC_FILES.items():
        model = getattr(docs, kind)
        (d / name).write_text(model.model_dump_json(indent=1, exclude_none=True) + "\n")


def json_schemas() -> dict[str, dict[str, Any]]:
    """JSON Schema of each document, keyed by file name."""
    return {DOC_FILES[k]: m.model_json_schema() for k, m in MODELS.items()}
