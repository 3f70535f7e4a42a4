"""The three catalog documents: KnowPlan, "Problem Formulation" (J_course, J_program, J_GE)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SCHEMA_VERSION = "1"
DOC_FILES = {"courses": "courses.json", "programs": "programs.json", "ge": "ge.json"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Provenance(_Strict):
    """Where a fact came from: a source id and character span offsets in that source."""

    source: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    record: str | None = Field(
        default=None, description="id of the source record, e.g. '20141:0000093757' (term:clbid)"
    )
    aliases: list[str] = Field(
        default_factory=list,
        description="department aliases resolved for this fact, e.g. 'AS -> ASIAN'",
    )


class Source(_Strict):
    id: str
    uri: str
    title: str = ""
    license: str = ""


class UnsupportedPolicy(_Strict):
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


# --- expression AST shared by prerequisites and requirements --------------------------------
# Prerequisite-only kinds: coreq, concurrent, standing, consent.
# Requirement-only kinds: pool, min_units, conditional, ge_category.


class _Node(_Strict):
    label: str = ""
    provenance: Provenance | None = None


class CourseRef(_Node):
    kind: Literal["course"] = "course"
    course: str
    terms: list[str] = Field(
        default_factory=list,
        description="calendar term ids; when set, only a taking in one of them counts",
    )


class AllOf(_Node):
    kind: Literal["all_of"] = "all_of"
    items: list[Expr]
    distinct: bool = Field(
        default=False,
        description="True: the items are filled by different courses even where the program "
        "lets its requirements share courses",
    )


class AnyOf(_Node):
    kind: Literal["any_of"] = "any_of"
    items: list[Expr]
    distinct: bool = False


class ChooseN(_Node):
    kind: Literal["choose_n"] = "choose_n"
    n: int = Field(ge=0)
    items: list[Expr]
    distinct: bool = False


class Coreq(_Node):
    """Taken in the same term or earlier."""

    kind: Literal["coreq"] = "coreq"
    course: str


class Concurrent(_Node):
    """Concurrent enrollment (or prior completion); same semantics as coreq, kept distinct for
    provenance because catalogs word them differently."""

    kind: Literal["concurrent"] = "concurrent"
    course: str


class Standing(_Node):
    """Completed units before the term must reach min_units (class standing)."""

    kind: Literal["standing"] = "standing"
    min_units: float = Field(ge=0)


class Consent(_Node):
    """Instructor consent: false unless the request lists the course as consented."""

    kind: Literal["consent"] = "consent"


class PoolSpec(_Strict):
    courses: list[str] = Field(default_factory=list)
    departments: list[str] = Field(default_factory=list)
    min_level: int | None = None
    max_level: int | None = None
    exclude: list[str] = Field(default_factory=list)


class Pool(_Node):
    """CHOOSE_N over a course pool (an explicit list and/or a department-level filter).
    In a prerequisite: that many pool courses completed in earlier terms."""

    kind: Literal["pool"] = "pool"
    min_courses: int = Field(ge=0)
    pool: PoolSpec
    overlap: bool = Field(
        default=False,
        description="True: counts every taken pool course, including ones that fill other "
        "requirements of the program (a Hanson 'N courses from children' modifier)",
    )


class AtMost(_Node):
    """At most n taken (or completed) courses of the pool, whatever they are used for."""

    kind: Literal["at_most"] = "at_most"
    n: int = Field(ge=0)
    pool: PoolSpec


class MinDepartments(_Node):
    """Taken courses of the pool span at least n departments."""

    kind: Literal["min_departments"] = "min_departments"
    n: int = Field(ge=0)
    pool: PoolSpec


class NotBefore(_Node):
    """At least n pool courses, each taken in the same academic year as, or after, some taken
    course of `after` (e.g. EIN no earlier than the first BTS-T course)."""

    kind: Literal["not_before"] = "not_before"
    n: int = Field(default=1, ge=0)
    pool: PoolSpec
    after: PoolSpec


class MinUnits(_Node):
    kind: Literal["min_units"] = "min_units"
    units: float = Field(ge=0)
    pool: PoolSpec


class Condition(_Strict):
    """A request field (e.g. transfer) or a chosen track (flag 'track:<id>')."""

    flag: str
    equals: bool = True


class Conditional(_Node):
    kind: Literal["conditional"] = "conditional"
    condition: Condition
    then: Expr
    otherwise: Expr | None = None


class Unsupported(_Node):
    """Points at an UnsupportedPolicy; evaluates to false so it lowers certified coverage."""

    kind: Literal["unsupported"] = "unsupported"
    policy: str


Expr = Annotated[
    CourseRef
    | AllOf
    | AnyOf
    | ChooseN
    | Coreq
    | Concurrent
    | Standing
    | Consent
    | Pool
    | MinUnits
    | AtMost
    | MinDepartments
    | NotBefore
    | Conditional
    | Unsupported,
    Field(discriminator="kind"),
]
for _m in (AllOf, AnyOf, ChooseN, Conditional):
    _m.model_rebuild()

PREREQ_KINDS = {
    "course",
    "all_of",
    "any_of",
    "choose_n",
    "coreq",
    "concurrent",
    "standing",
    "consent",
    "pool",
    "unsupported",
}
REQ_KINDS = {
    "course",
    "all_of",
    "any_of",
    "choose_n",
    "pool",
    "min_units",
    "at_most",
    "min_departments",
    "not_before",
    "conditional",
    "unsupported",
}


# --- courses.json ---------------------------------------------------------------------------


class Offering(_Strict):
    """A calendar term in which the course had a section, with the section record it came
    from. `prerequisite` is set only where that term's own record differs from the course's."""

    term: str
    provenance: Provenance | None = None
    prerequisite: Expr | None = None


class CalendarTerm(_Strict):
    """One concrete term of the observed calendar (e.g. id '20141', fall of 2014-15)."""

    id: str
    season: str
    year: int = Field(description="academic year, named by its fall (2014 = 2014-15)")
    label: str = ""


class Course(_Strict):
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


class CoursesDoc(_Strict):
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


class DoubleCount(_Strict):
    """within_program=False: a course counts toward at most one leaf requirement of the program.
    with_ge=False: a course used for the program cannot also fill a GE category."""

    within_program: bool = True
    with_ge: bool = True


class Program(_Strict):
    id: str
    name: str
    kind: Literal["degree", "major", "minor", "concentration", "track"] = "major"
    parent: str | None = None
    ge_framework: str | None = None
    requirement: Expr
    double_count: DoubleCount = Field(default_factory=DoubleCount)
    provenance: Provenance


class ProgramsDoc(_Strict):
    schema_version: str = SCHEMA_VERSION
    institution: str
    sources: list[Source] = Field(default_factory=list)
    programs: list[Program]
    unsupported_policies: list[UnsupportedPolicy] = Field(default_factory=list)


# --- ge.json --------------------------------------------------------------------------------


class GECategory(_Strict):
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


class GEFramework(_Strict):
    id: str
    name: str
    courses_count_once: bool = Field(
        default=False, description="True: one course may fill only one category"
    )
    categories: list[GECategory]
    provenance: Provenance


class GEDoc(_Strict):
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
        if not path.exists():
            raise DocumentError(str(path), "$", "file not found")
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise DocumentError(str(path), "$", f"invalid JSON: {exc}") from None
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
