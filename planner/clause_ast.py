"""Clause AST for prerequisite spans: KnowPlan, "Deterministic-first parsing" (finite schema).

The clause model sees one exact span and an identifier enum built from tokens literally present in
it; it may only emit this finite schema, and every course it names must come from that enum.

It lives in planner/ because a typed prerequisite is part of the planner's courses document: the
clause exporter (data_export), the catalog agent (catalogbrowse) and the planner share it.
Mapping to planner/documents.py:
- ``course``     -> ``CourseRef(course=...)``
- ``all_of`` / ``any_of`` / ``choose_n`` -> ``AllOf`` / ``AnyOf`` / ``ChooseN`` (same fields)
- ``concurrent`` -> ``Concurrent(course=...)`` (may be taken concurrently or before)
- ``standing``   -> ``Standing(min_units=...)``: the catalog's own units table turns the level word
  (``junior``) into units; the clause model only reports the word it read
- ``consent``    -> ``Consent()``; ``of`` (instructor/department) is kept for provenance
- ``placement`` / ``equivalent`` / ``unsupported`` -> an ``UnsupportedPolicy`` the planner keeps but
  never treats as satisfied (a placement result, "or equivalent", a span no parser could type)
- ``courses`` (n courses in an area: "two courses in philosophy"), ``program`` (enrollment open
  to a major or program only) and ``requirement`` (any other named requirement: "FYW",
  "proficiency in algebra") -> an ``UnsupportedPolicy`` too; their text is copied from the span,
  so it is evidence the validator re-locates before the clause is accepted
- ``Clause.recommended`` has no planner counterpart: recommendations are advisory, not requirements.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from planner.clause_ids import identifier_enum, locate_text

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


class PlacementNode(BaseModel):
    """Placement into the course (exam, survey, recommendation); `course` if the span names one."""

    model_config = _Strict
    kind: Literal["placement"] = "placement"
    course: CourseId | None = None


class EquivalentNode(BaseModel):
    """ "or equivalent": an alternative the catalog leaves to the department to judge."""

    model_config = _Strict
    kind: Literal["equivalent"] = "equivalent"


class UnsupportedNode(BaseModel):
    """A span no parser could type; kept verbatim so it is never treated as satisfied."""

    model_config = _Strict
    kind: Literal["unsupported"] = "unsupported"
    text: str = Field(min_length=1)


class CoursesNode(BaseModel):
    """`n` courses in an area the span names in words ("two courses in philosophy", "one
    270-level course"): `area` is copied from the span."""

    model_config = _Strict
    kind: Literal["courses"] = "courses"
    n: int = Field(ge=1, le=20)
    area: str = Field(min_length=1, max_length=160)


class ProgramNode(BaseModel):
    """Enrollment open only to members of a major, program or group ("nursing majors")."""

    model_config = _Strict
    kind: Literal["program"] = "program"
    text: str = Field(min_length=1, max_length=160)


class RequirementNode(BaseModel):
    """Any other named requirement the span states ("FYW", "CNA certification")."""

    model_config = _Strict
    kind: Literal["requirement"] = "requirement"
    text: str = Field(min_length=1, max_length=160)


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
    CourseNode
    | ConcurrentNode
    | StandingNode
    | ConsentNode
    | PlacementNode
    | EquivalentNode
    | UnsupportedNode
    | CoursesNode
    | ProgramNode
    | RequirementNode
    | AllOfNode
    | AnyOfNode
    | ChooseNNode,
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
    if isinstance(node, PlacementNode):
        return [node.course] if node.course else []
    if isinstance(node, AllOfNode | AnyOfNode | ChooseNNode):
        return [c for item in node.items for c in course_ids(item)]
    return []


def evidence_texts(node: Any) -> list[str]:
    """The text fields a node copies from its span (areas, programs, requirements)."""
    if isinstance(node, CoursesNode):
        return [node.area]
    if isinstance(node, ProgramNode | RequirementNode | UnsupportedNode):
        return [node.text]
    if isinstance(node, AllOfNode | AnyOfNode | ChooseNNode):
        return [t for item in node.items for t in evidence_texts(item)]
    return []


def clause_course_ids(clause: Clause) -> list[str]:
    req = course_ids(clause.prerequisite) if clause.prerequisite is not None else []
    return req + list(clause.recommended)


def _plain(node: Any) -> Any:
    """The schema without pydantic's annotations a grammar compiler does not need: no
    discriminator mapping (each kind is a const already; llguidance rejects it beside a recursive
    $ref), oneOf as anyOf, no titles or defaults."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k in ("discriminator", "title", "default"):
                continue
            out["anyOf" if k == "oneOf" else k] = _plain(v)
        return out
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def clause_json_schema(identifiers: list[str] | None = None) -> dict[str, Any]:
    """The Clause JSON Schema; with `identifiers`, every course field is restricted to that enum.

    The restricted form is what a structured-decoding backend receives, so the model cannot emit a
    course that is not literally in its span.
    """
    schema = _plain(Clause.model_json_schema())
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
    if not identifiers:
        # No identifier in the span: no node may name a course (an empty enum is unsatisfiable,
        # which grammar compilers reject), so those kinds leave the schema entirely.
        gone = {"#/$defs/CourseNode", "#/$defs/ConcurrentNode"}

        def prune(node: Any) -> None:
            if isinstance(node, dict):
                for key in ("anyOf", "oneOf"):
                    if key in node:
                        node[key] = [x for x in node[key] if x.get("$ref") not in gone]
                props = node.get("properties", {})
                if "course" in props and "course" not in node.get("required", []):
                    del props["course"]
                if "recommended" in props:
                    props["recommended"] = {"type": "array", "maxItems": 0}
                for v in node.values():
                    prune(v)
            elif isinstance(node, list):
                for v in node:
                    prune(v)

        for name in ("CourseNode", "ConcurrentNode"):
            schema["$defs"].pop(name, None)
        prune(schema)
    return schema


def to_expr(
    node: Any,
    standing_levels: dict[str, float],
    course_id: str,
    policies: list,
    provenance: Any = None,
) -> Any:
    """A clause node as a planner prerequisite (planner.documents Expr).

    Kinds the planner cannot check (placement, equivalent, unsupported, a standing word the catalog
    gives no units for) become ``Unsupported`` leaves; their ``UnsupportedPolicy`` records are
    appended to `policies` with ids stable in (course, text), so they are never treated as met.
    """
    import hashlib

    from planner import documents as d

    def policy(text: str) -> Any:
        pid = "policy-" + hashlib.sha256(f"{course_id}\0{text}".encode()).hexdigest()[:10]
        if all(p.id != pid for p in policies):
            prov = provenance or d.Provenance(source=course_id, start=0, end=0)
            policies.append(
                d.UnsupportedPolicy(id=pid, text=text, applies_to=[course_id], provenance=prov)
            )
        return d.Unsupported(policy=pid, label=text[:80])

    def conv(n: Any) -> Any:
        if isinstance(n, CourseNode):
            return d.CourseRef(course=n.course)
        if isinstance(n, ConcurrentNode):
            return d.Concurrent(course=n.course)
        if isinstance(n, StandingNode):
            if n.level in standing_levels:
                return d.Standing(min_units=standing_levels[n.level], label=f"{n.level} standing")
            return policy(f"{n.level} standing")
        if isinstance(n, ConsentNode):
            return d.Consent(label=f"consent of {n.of}")
        if isinstance(n, PlacementNode):
            return policy(f"placement into {n.course}" if n.course else "placement")
        if isinstance(n, EquivalentNode):
            return policy("or equivalent")
        if isinstance(n, UnsupportedNode):
            return policy(n.text)
        if isinstance(n, CoursesNode):
            return policy(f"{n.n} course{'s' if n.n > 1 else ''}: {n.area}")
        if isinstance(n, ProgramNode):
            return policy(f"open to {n.text}")
        if isinstance(n, RequirementNode):
            return policy(n.text)
        items = [conv(i) for i in n.items]
        if isinstance(n, AllOfNode):
            return d.AllOf(items=items)
        if isinstance(n, AnyOfNode):
            return d.AnyOf(items=items)
        return d.ChooseN(n=n.n, items=items)

    return conv(node)


# --- the span-constrained contract the clause model is trained and served under ----------------


def span_violations(
    clause: Clause, identifiers: list[str], span: str, subjects: Mapping[str, str] | None = None
) -> list[str]:
    """Empty when the clause is span-constrained; otherwise one message per violation: an enum
    member not read from the span, a course outside the enum, a text field not found in the span
    or naming one of its courses (a course is a course node, never a requirement's words)."""
    literal = set(identifier_enum(span, subjects))
    out = [f"enum member {i!r} is not literally in the span" for i in identifiers]
    out = [m for m, i in zip(out, identifiers, strict=True) if i not in literal]
    allowed = set(identifiers)
    out += [
        f"names {c!r}, which is not in the identifier enum"
        for c in clause_course_ids(clause)
        if c not in allowed
    ]
    node = clause.prerequisite
    texts = evidence_texts(node) if node is not None else []
    out += [f"text {t!r} is not in the span" for t in texts if locate_text(t, span) < 0]
    out += [
        f"text {t!r} names the course {c!r}: write it as a course"
        for t in texts
        for c in identifier_enum(t, subjects)[:1]
        if c in literal
    ]
    return out
