"""Requirement and prerequisite expressions of the catalog documents: KnowPlan, "Problem
Formulation" (the typed AST that J_course prerequisites and J_program requirements share)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Provenance(Strict):
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


# Prerequisite-only kinds: coreq, concurrent, standing, consent.
# Requirement-only kinds: pool, min_units, conditional, ge_category.


class _Node(Strict):
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


class PoolSpec(Strict):
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


class Condition(Strict):
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
