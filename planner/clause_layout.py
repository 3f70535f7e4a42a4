"""How the clause model reads a span and writes a clause: KnowPlan, "Deterministic-first parsing".

The clause AST (planner/clause_ast.py) is the contract; a layout is how one model is asked for it
and how its answer is written, chosen by measurement for the model that is trained (docs/catalog.md,
"Choosing the layout"). Every layout carries the same information, is decoded under a JSON Schema
whose course fields are the span's identifier enum, and parses back to a `Clause`:

- ``tree``: the clause AST's own JSON, ``{"prerequisite": {"kind": "all_of", "items": [...]},
  "recommended": []}``;
- ``keyed``: one key per node, ``{"ast": {"all": ["MATH 220", {"standing": "junior"}]}}``;
- ``prefix``: each node an array led by its operator, ``{"ast": ["all", "MATH 220",
  ["standing", "junior"]]}``.

``{"ast": null}`` (``"prerequisite": null`` in ``tree``) is the answer for a span that states no
requirement. A dataset records its layout in its manifest, and training, serving and scoring read
it from there (and from the model card).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from planner.clause_ast import (
    AllOfNode,
    AnyOfNode,
    ChooseNNode,
    Clause,
    ConcurrentNode,
    ConsentNode,
    CourseNode,
    CoursesNode,
    EquivalentNode,
    PlacementNode,
    ProgramNode,
    RequirementNode,
    StandingNode,
    clause_json_schema,
)

LayoutName = Literal["tree", "keyed", "prefix"]
LAYOUTS: tuple[str, ...] = ("tree", "keyed", "prefix")
DEFAULT_LAYOUT: LayoutName = "keyed"
LEVELS = ["sophomore", "junior", "senior", "graduate"]
MAX_TEXT = 160
SEP = (",", ":")


# One short line: the format is learnt in training, and every prompt token is paid for in each
# training step and each served request.
def system_prompt(layout: str) -> str:
    return f"Catalog span to prerequisite clause ({_check(layout)} layout; null if none)."


def user_text(span: str, identifiers: list[str]) -> str:
    return f"Span: {span}\nIdentifiers: {', '.join(identifiers) if identifiers else '(none)'}"


def messages(span: str, identifiers: list[str], layout: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": system_prompt(layout)},
        {"role": "user", "content": user_text(span, identifiers)},
    ]


def _check(layout: str) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"unknown clause layout {layout!r}; one of {', '.join(LAYOUTS)}")
    return layout


# --- clause -> answer text ---------------------------------------------------------------------


def _keyed(n: Any) -> Any:
    if isinstance(n, CourseNode):
        return n.course
    if isinstance(n, ConcurrentNode):
        return {"concurrent": n.course}
    if isinstance(n, StandingNode):
        return {"standing": n.level}
    if isinstance(n, ConsentNode):
        return {"consent": n.of}
    if isinstance(n, PlacementNode):
        return {"placement": n.course}
    if isinstance(n, EquivalentNode):
        return "equivalent"
    if isinstance(n, CoursesNode):
        return {"courses": n.n, "in": n.area}
    if isinstance(n, ProgramNode):
        return {"program": n.text}
    if isinstance(n, RequirementNode):
        return {"requirement": n.text}
    if isinstance(n, AllOfNode):
        return {"all": [_keyed(i) for i in n.items]}
    if isinstance(n, AnyOfNode):
        return {"any": [_keyed(i) for i in n.items]}
    if isinstance(n, ChooseNNode):
        return {"choose": n.n, "of": [_keyed(i) for i in n.items]}
    raise ValueError(f"{n.kind} nodes are not model output")


def _prefix(n: Any) -> Any:
    if isinstance(n, CourseNode):
        return n.course
    if isinstance(n, ConcurrentNode):
        return ["concurrent", n.course]
    if isinstance(n, StandingNode):
        return ["standing", n.level]
    if isinstance(n, ConsentNode):
        return ["consent", n.of]
    if isinstance(n, PlacementNode):
        return ["placement"] + ([n.course] if n.course else [])
    if isinstance(n, EquivalentNode):
        return ["equivalent"]
    if isinstance(n, CoursesNode):
        return ["courses", n.n, n.area]
    if isinstance(n, ProgramNode):
        return ["program", n.text]
    if isinstance(n, RequirementNode):
        return ["requirement", n.text]
    if isinstance(n, AllOfNode):
        return ["all", *[_prefix(i) for i in n.items]]
    if isinstance(n, AnyOfNode):
        return ["any", *[_prefix(i) for i in n.items]]
    if isinstance(n, ChooseNNode):
        return ["choose", n.n, *[_prefix(i) for i in n.items]]
    raise ValueError(f"{n.kind} nodes are not model output")


def render(clause: Clause, layout: str) -> str:
    """The answer text a model trained on `layout` writes for `clause` (compact JSON)."""
    node = clause.prerequisite
    if _check(layout) == "tree":
        tree = None if node is None else _no_nulls(node.model_dump(mode="json"))
        return json.dumps({"prerequisite": tree, "recommended": clause.recommended}, separators=SEP)
    conv = _keyed if layout == "keyed" else _prefix
    return json.dumps({"ast": None if node is None else conv(node)}, separators=SEP)


def _no_nulls(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _no_nulls(v) for k, v in x.items() if v is not None}
    if isinstance(x, list):
        return [_no_nulls(v) for v in x]
    return x


# --- answer text -> clause ---------------------------------------------------------------------


def _from_keyed(x: Any) -> Any:
    if isinstance(x, str):
        return EquivalentNode() if x == "equivalent" else CourseNode(course=x)
    if not isinstance(x, dict) or not x:
        raise ValueError(f"not a node: {json.dumps(x)[:80]}")
    if "all" in x:
        return AllOfNode(items=[_from_keyed(i) for i in x["all"]])
    if "any" in x:
        return AnyOfNode(items=[_from_keyed(i) for i in x["any"]])
    if "choose" in x:
        return ChooseNNode(n=x["choose"], items=[_from_keyed(i) for i in x["of"]])
    if "courses" in x:
        return CoursesNode(n=x["courses"], area=x["in"])
    key = next(iter(x))
    value = x[key]
    table: dict[str, Any] = {
        "concurrent": lambda: ConcurrentNode(course=value),
        "standing": lambda: StandingNode(level=value),
        "consent": lambda: ConsentNode(of=value),
        "placement": lambda: PlacementNode(course=value),
        "program": lambda: ProgramNode(text=value),
        "requirement": lambda: RequirementNode(text=value),
    }
    if key not in table:
        raise ValueError(f"unknown node key {key!r}")
    return table[key]()


def _from_prefix(x: Any) -> Any:
    if isinstance(x, str):
        return CourseNode(course=x)
    if not isinstance(x, list) or not x:
        raise ValueError(f"not a node: {json.dumps(x)[:80]}")
    op, *args = x
    if op in ("all", "any"):
        cls = AllOfNode if op == "all" else AnyOfNode
        return cls(items=[_from_prefix(i) for i in args])
    if op == "choose":
        return ChooseNNode(n=args[0], items=[_from_prefix(i) for i in args[1:]])
    table: dict[str, Any] = {
        "concurrent": lambda: ConcurrentNode(course=args[0]),
        "standing": lambda: StandingNode(level=args[0]),
        "consent": lambda: ConsentNode(of=args[0]),
        "placement": lambda: PlacementNode(course=args[0] if args else None),
        "equivalent": lambda: EquivalentNode(),
        "courses": lambda: CoursesNode(n=args[0], area=args[1]),
        "program": lambda: ProgramNode(text=args[0]),
        "requirement": lambda: RequirementNode(text=args[0]),
    }
    if op not in table:
        raise ValueError(f"unknown operator {op!r}")
    return table[op]()


def parse(text: str, layout: str) -> Clause:
    """The clause an answer states; ValueError (with the reason) when it is not one."""
    if _check(layout) == "tree":
        return Clause.model_validate_json(text)
    data = json.loads(text)
    if not isinstance(data, dict) or set(data) != {"ast"}:
        raise ValueError('the answer must be one object {"ast": ...}')
    conv = _from_keyed if layout == "keyed" else _from_prefix
    try:
        node = None if data["ast"] is None else conv(data["ast"])
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"malformed node: {exc!r}") from None
    return Clause(prerequisite=node)


# --- the decoding schema -----------------------------------------------------------------------


def _text() -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": MAX_TEXT}


def _obj(**props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def _arr(*prefix: Any, rest: Any = False, min_items: int | None = None) -> dict[str, Any]:
    return {
        "type": "array",
        "prefixItems": list(prefix),
        "items": rest,
        "minItems": len(prefix) if min_items is None else min_items,
    }


def decoding_schema(layout: str, identifiers: list[str]) -> dict[str, Any]:
    """The JSON Schema the answer is decoded under: every course field is the span's enum, so a
    course that is not in the span cannot be written; text fields are bounded."""
    if _check(layout) == "tree":
        schema = clause_json_schema(identifiers)
        # The model types or answers "no requirement"; giving up is the validator's verdict.
        defs = schema["$defs"]
        defs.pop("UnsupportedNode", None)
        _drop_ref(schema, "#/$defs/UnsupportedNode")
        return schema
    ids = {"type": "string", "enum": list(identifiers)}
    ref = {"$ref": "#/$defs/node"}
    levels = {"type": "string", "enum": LEVELS}
    who = {"type": "string", "enum": ["instructor", "department"]}
    n = {"type": "integer", "minimum": 1, "maximum": 20}
    k = {"type": "integer", "minimum": 2, "maximum": 9}
    if layout == "keyed":
        alts: list[Any] = [{"type": "string", "enum": [*identifiers, "equivalent"]}]
        if identifiers:
            alts.append(_obj(concurrent=ids))
        alts += [
            _obj(standing=levels),
            _obj(consent=who),
            _obj(placement={"anyOf": [ids, {"type": "null"}]} if identifiers else {"type": "null"}),
            _obj(courses=n, **{"in": _text()}),
            _obj(program=_text()),
            _obj(requirement=_text()),
            _obj(all={"type": "array", "items": ref, "minItems": 2}),
            _obj(any={"type": "array", "items": ref, "minItems": 2}),
            _obj(choose=k, of={"type": "array", "items": ref, "minItems": 3}),
        ]
    else:
        alts = [ids] if identifiers else []
        if identifiers:
            alts.append(_arr({"const": "concurrent"}, ids))
        alts += [
            _arr({"const": "standing"}, levels),
            _arr({"const": "consent"}, who),
            _arr({"const": "placement"}, *([ids] if identifiers else []), min_items=1),
            _arr({"const": "equivalent"}),
            _arr({"const": "courses"}, n, _text()),
            _arr({"const": "program"}, _text()),
            _arr({"const": "requirement"}, _text()),
            _arr({"const": "all"}, rest=ref, min_items=3),
            _arr({"const": "any"}, rest=ref, min_items=3),
            _arr({"const": "choose"}, k, rest=ref, min_items=5),
        ]
    return {
        "$defs": {"node": {"anyOf": alts}},
        **_obj(ast={"anyOf": [ref, {"type": "null"}]}),
    }


def _drop_ref(node: Any, ref: str) -> None:
    if isinstance(node, dict):
        for key in ("anyOf", "oneOf"):
            if key in node:
                node[key] = [x for x in node[key] if x.get("$ref") != ref]
        for v in node.values():
            _drop_ref(v, ref)
    elif isinstance(node, list):
        for v in node:
            _drop_ref(v, ref)
