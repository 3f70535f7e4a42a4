"""Clause AST for prerequisite spans: KnowPlan, "Deterministic-first parsing" (finite schema).

The clause model sees one exact span and an identifier enum built from tokens literally present in
it; it may only emit this finite schema, and every course it names must come from that enum.

Self-contained on purpose (data_export does not import planner). Mapping to planner/documents.py:
- ``course``     -> ``CourseRef(course=...)``
- ``all_of`` / ``any_of`` / ``choose_n`` -> ``AllOf`` / ``AnyOf`` / ``ChooseN`` (same fields)
- ``concurrent`` -> ``Concurrent(course=...)`` (may be taken concurrently or before)
- ``standing``   -> ``Standing(min_units=...)``: the catalog's own units table turns the level word
  (``junior``) into units; the clause model only reports the word it read
- ``consent``    -> ``Consent()``; ``of`` (instructor/department) is kept for provenance
- ``Clause.recommended`` has no planner counterpart: recommendations are advisory, not requirements.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

_Strict = ConfigDict(extra="forbid", frozen=True)
StandingLevel = Literal["sophomore", "junior", "senior", "graduate"]
# A course identifier as printed in the span ("MATH 220"); its values are constrained per record by
# the identifier enum (see clause_json_schema(identifiers=...)).
CourseId = Annotated[str, Field(min_length=3, max_length=20)]


class CourseNode(BaseModel):
    model_config = _Strict
    kind: Literal["course"] = "course"
    course: CourseId


class ConcurrentNode(BaseModel):
    """The course may be taken concurrently (or completed before)."""

    model_config = _Strict
    kind: Literal["concurrent"] = "concurrent"
    course: CourseId


class StandingNode(BaseModel):
    model_config = _Strict
    kind: Literal["standing"] = "standing"
    level: StandingLevel


class ConsentNode(BaseModel):
    model_config = _Strict
    kind: Literal["consent"] = "consent"
    of: Literal["instructor", "department"] = "instructor"


class AllOfNode(BaseModel):
    model_config = _Strict
    kind: Literal["all_of"] = "all_of"
    items: list[Node] = Field(min_length=2)


class AnyOfNode(BaseModel):
    model_config = _Strict
    kind: Literal["any_of"] = "any_of"
    items: list[Node] = Field(min_length=2)


class ChooseNNode(BaseModel):
    model_config = _Strict
    kind: Literal["choose_n"] = "choose_n"
    n: int = Field(ge=1)
    items: list[Node] = Field(min_length=2)


Node = Annotated[
    CourseNode | ConcurrentNode | StandingNode | ConsentNode | AllOfNode | AnyOfNode | ChooseNNode,
    Field(discriminator="kind"),
]
for _m in (AllOfNode, AnyOfNode, ChooseNNode):
    _m.model_rebuild()


class Clause(BaseModel):
    """One prerequisite clause: the requirement (None if the span states none) and advisories."""

    model_config = _Strict
    prerequisite: Node | None
    recommended: list[CourseId] = Field(default_factory=list)

    def to_json(self) -> str:
        return self.model_dump_json()


NODE_ADAPTER: TypeAdapter[Any] = TypeAdapter(Node)


def course_ids(node: Any) -> list[str]:
    """Every course identifier a node references, in order of appearance."""
    if isinstance(node, CourseNode | ConcurrentNode):
        return [node.course]
    if isinstance(node, AllOfNode | AnyOfNode | ChooseNNode):
        return [c for item in node.items for c in course_ids(item)]
    return []


def clause_course_ids(clause: Clause) -> list[str]:
    req = course_ids(clause.prerequisite) if clause.prerequisite is not None else []
    return req + list(clause.recommended)


def clause_json_schema(identifiers: list[str] | None = None) -> dict[str, Any]:
    """The Clause JSON Schema; with `identifiers`, every course field is restricted to that enum.

    The restricted form is what a structured-decoding backend receives, so the model cannot emit a
    course that is not literally in its span.
    """
    schema = Clause.model_json_schema()
    if identifiers is None:
        return schema
    enum = {"type": "string", "enum": list(identifiers)}

    def restrict(node: Any) -> None:
        if isinstance(node, dict):
            props = node.get("properties", {})
            if "course" in props:
                props["course"] = dict(enum)
            if "recommended" in props:
                props["recommended"] = {"type": "array", "items": dict(enum)}
            for v in node.values():
                restrict(v)
        elif isinstance(node, list):
            for v in node:
                restrict(v)

    restrict(schema)
    return schema
