"""Wrapper, type-alias and field-alias repairs: WebRider Appendix H, Table 45, Figure 9."""

from __future__ import annotations

from typing import Any

from agent_runtime.guards.aliases import (
    FIELD_ALIASES,
    TERMINAL_NAMES,
    TYPE_ALIASES,
    TYPE_KEY_ALIASES,
    canonical_type_name,
)
from agent_runtime.guards.errors import Rejected
from contracts.actions import (
    ACTION_TYPES,
    RATIONALE_KEY,
    BackAction,
    ClickAction,
    MapsAction,
    ScrollAction,
    SearchAction,
    TypeAction,
    WaitAction,
)
from contracts.guard_labels import RejectReason, RepairKind

MISSING: Any = object()

# Fields each action kind has, read from the contract so the tables cannot drift from it.
_MODELS = (ClickAction, TypeAction, ScrollAction, SearchAction, MapsAction, BackAction, WaitAction)
FIELDS: dict[str, frozenset[str]] = {
    m.model_fields["type"].default: frozenset(m.model_fields) - {"type"} for m in _MODELS
}
_ALIAS_TO_FIELD: dict[str, str] = {a: f for f, aliases in FIELD_ALIASES.items() for a in aliases}


def add(repairs: list[RepairKind], kind: RepairKind) -> None:
    if kind not in repairs:
        repairs.append(kind)


def split_wrapper(obj: dict[str, Any], repairs: list[RepairKind]) -> tuple[dict[str, Any], Any]:
    """Return (action body, fallback or MISSING); a bare action object is the listed repair."""
    act = obj.get("action", MISSING)
    if act is not MISSING and not isinstance(act, str):
        if not isinstance(act, dict):
            raise Rejected(RejectReason.INVALID_FIELD, "`action` must be an object")
        extra = [k for k in obj if k not in ("action", "fallback")]
        if extra:
            raise Rejected(RejectReason.INVALID_FIELD, f"unexpected wrapper field(s): {extra}")
        fb = obj.get("fallback")
        return act, MISSING if fb is None else fb
    add(repairs, RepairKind.BARE_ACTION)
    fb = obj.get("fallback")
    body = {k: v for k, v in obj.items() if k != "fallback"}
    return body, MISSING if fb is None else fb


def _kind_of(name: str) -> str | None:
    if name in ACTION_TYPES:
        return name
    alias = TYPE_ALIASES.get(name)
    return alias[0] if alias else None


def _type_key(body: dict[str, Any]) -> str:
    if "type" in body:
        return "type"
    for k in TYPE_KEY_ALIASES:
        if k in body:
            return k
    terminal = [k for k in body if canonical_type_name(k) in TERMINAL_NAMES]
    if terminal:
        raise Rejected(RejectReason.TERMINAL_LABEL, f"terminal field {terminal[0]!r}")
    raise Rejected(RejectReason.UNKNOWN_ACTION, "no action type")


def normalize_body(body: dict[str, Any], repairs: list[RepairKind]) -> dict[str, Any]:
    """Canonical action dict: `type` one of ACTION_TYPES, every key a field of that type."""
    tkey = _type_key(body)
    raw_type = body[tkey]
    if not isinstance(raw_type, str):
        raise Rejected(RejectReason.INVALID_FIELD, f"action type is {type(raw_type).__name__}")
    name = canonical_type_name(raw_type)
    if name in TERMINAL_NAMES:
        raise Rejected(RejectReason.TERMINAL_LABEL, f"terminal label {raw_type!r}")
    implied: dict[str, Any] = {}
    if name in ACTION_TYPES:
        kind = name
        if name != raw_type:
            add(repairs, RepairKind.ALIAS_TYPE)
    elif name in TYPE_ALIASES:
        kind, implied = TYPE_ALIASES[name]
        add(repairs, RepairKind.ALIAS_TYPE)
    else:
        raise Rejected(RejectReason.UNKNOWN_ACTION, f"unknown action {raw_type[:40]!r}")
    if tkey != "type":
        add(repairs, RepairKind.ALIAS_FIELD)
    allowed = FIELDS[kind]
    out: dict[str, Any] = {"type": kind}
    for key, value in body.items():
        if key in (tkey, RATIONALE_KEY):
            continue
        if key == "type" or key in TYPE_KEY_ALIASES:
            # A second type key is tolerated only when it names the same action.
            if not isinstance(value, str) or _kind_of(canonical_type_name(value)) != kind:
                raise Rejected(RejectReason.INVALID_FIELD, f"conflicting {key!r}")
            continue
        field = key if key in allowed else _ALIAS_TO_FIELD.get(key)
        if field is None or field not in allowed:
            raise Rejected(RejectReason.INVALID_FIELD, f"{kind} has no field {key[:40]!r}")
        if field != key:
            add(repairs, RepairKind.ALIAS_FIELD)
        if field in out and out[field] != value:
            raise Rejected(RejectReason.INVALID_FIELD, f"conflicting values for {field!r}")
        out[field] = value
    for field, value in implied.items():
        if field in out and out[field] != value:
            raise Rejected(RejectReason.INVALID_FIELD, f"{raw_type!r} conflicts with {field}")
        out[field] = value
    return out
