"""Action AST grammar: WebRider Appendix H, Tables 45-46 (actions, fallbacks) and Figure 9.

The middle layer may emit exactly one of seven executable actions plus a safe fallback.
Terminal labels (answer, ask, stop, blocked) are deliberately absent: finalization belongs
to the top layer, so the grammar itself makes a terminal middle output unrepresentable.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

ACTION_TYPES: tuple[str, ...] = ("click", "type", "scroll", "search", "maps", "back", "wait")
TERMINAL_LABELS: tuple[str, ...] = ("answer", "ask", "stop", "blocked")

# A recovery action must say why it recovers; the reasons are bounded (Table 45 "Recovery").
RecoveryReason = Literal[
    "loading", "stale_state", "access_interruption", "history", "dead_end", "loop"
]

_Strict = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
# One bound for the integers drawn on a page (contracts/observation.py) and the targets an
# action may name: a visible label is always a valid target.
MAX_LABEL = 9999


class ClickAction(BaseModel):
    model_config = _Strict
    type: Literal["click"] = "click"
    target: int = Field(
        ge=0, le=MAX_LABEL, description="Integer set-of-mark label of a visible element."
    )


class TypeAction(BaseModel):
    model_config = _Strict
    type: Literal["type"] = "type"
    target: int = Field(
        ge=0, le=MAX_LABEL, description="Integer label of a visible text field or select."
    )
    text: str = Field(min_length=1, max_length=2000, description="Non-empty text to enter.")
    submit: bool = Field(default=False, description="Press Enter after typing.")


class ScrollAction(BaseModel):
    model_config = _Strict
    type: Literal["scroll"] = "scroll"
    target: Literal["window"] | Annotated[int, Field(ge=0, le=MAX_LABEL)] = "window"
    direction: Literal["up", "down"] = "down"


class SearchAction(BaseModel):
    model_config = _Strict
    type: Literal["search"] = "search"
    query: str = Field(min_length=1, max_length=500)


class MapsAction(BaseModel):
    model_config = _Strict
    type: Literal["maps"] = "maps"
    query: str = Field(min_length=1, max_length=500)
    location: str | None = Field(default=None, max_length=200)


class BackAction(BaseModel):
    model_config = _Strict
    type: Literal["back"] = "back"
    reason: RecoveryReason = "history"


class WaitAction(BaseModel):
    model_config = _Strict
    type: Literal["wait"] = "wait"
    reason: RecoveryReason = "loading"
    seconds: float = Field(default=1.0, gt=0, le=5.0)


Action = Annotated[
    ClickAction | TypeAction | ScrollAction | SearchAction | MapsAction | BackAction | WaitAction,
    Field(discriminator="type"),
]
# A fallback must run when the primary target is gone, so it never needs a target label
# (Table 46: target absent -> scroll, search, maps, back or wait).
FallbackAction = Annotated[
    ScrollAction | SearchAction | MapsAction | BackAction | WaitAction,
    Field(discriminator="type"),
]

ACTION_ADAPTER: TypeAdapter[Any] = TypeAdapter(Action)
FALLBACK_ADAPTER: TypeAdapter[Any] = TypeAdapter(FallbackAction)

# A middle format may echo the target's displayed text before its number (a rationale the model
# writes, agent_runtime/middle/format.py). It is not part of the Action AST: the guard compiler
# drops it, so nothing downstream of the guards ever sees it.
RATIONALE_KEY = "label_text"

WAIT_SECONDS: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0, 5.0)

DEFAULT_FALLBACK = ScrollAction(target="window", direction="down")


class ActionAST(BaseModel):
    """One executable step: the action and the safe fallback the executor may run instead."""

    model_config = _Strict
    action: Action
    fallback: FallbackAction = Field(default_factory=lambda: DEFAULT_FALLBACK)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            return _inline_refs(copy.deepcopy(defs[name]), defs)
        out = {
            ("anyOf" if k == "oneOf" else k): _inline_refs(v, defs)
            for k, v in node.items()
            if k not in ("$defs", "discriminator", "title", "default", "description")
        }
        if out.get("type") == "object" and "properties" in out:
            # Strict decoding: every field explicit, so the model cannot omit `type`.
            out["required"] = list(out["properties"])
        return out
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    return node


def action_ast_decoding_schema() -> dict[str, Any]:
    """The Action AST JSON Schema flattened for structured decoding.

    Refs are inlined and pydantic's OpenAPI-style `discriminator` removed, because
    grammar backends (guidance, xgrammar, outlines) support plain `anyOf` + `const`
    far more uniformly than `$ref`/`discriminator`. Every document it admits validates
    as an `ActionAST`; it is narrower only in `wait.seconds` (a fixed set of values).
    """
    schema = ActionAST.model_json_schema()
    flat: dict[str, Any] = _inline_refs(schema, schema.get("$defs", {}))
    flat["title"] = "ActionAST"
    # A grammar cannot bound the digits of a free float, so an untrained model can run on
    # inside `seconds` until max_tokens. Decoding offers the waits the runtime uses; this is
    # the only place where the decoding view is narrower than validation.
    for group in ("action", "fallback"):
        for alt in flat["properties"][group]["anyOf"]:
            if alt["properties"]["type"].get("const") == "wait":
                alt["properties"]["seconds"] = {"enum": list(WAIT_SECONDS)}
    return flat
