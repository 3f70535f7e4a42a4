"""Per-action field checks against the visible labels: WebRider Appendix H, Table 45."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, get_args

from agent_runtime.guards.content import check_sensitive, check_text
from agent_runtime.guards.errors import Rejected
from agent_runtime.guards.parse import undecodable
from contracts.actions import (
    BackAction,
    ClickAction,
    MapsAction,
    RecoveryReason,
    ScrollAction,
    SearchAction,
    TypeAction,
    WaitAction,
)
from contracts.guard_labels import RejectReason, RepairKind
from contracts.observation import MAX_LABEL, Observation

# "12" and "[12]" are the listed label-string repairs; anything else in a string is prose.
_LABEL_STRING = re.compile(r"\s*(?:\[\s*([0-9]{1,9})\s*\]|([0-9]{1,9}))\s*")
_REASONS: frozenset[str] = frozenset(get_args(RecoveryReason))
MAX_TEXT, MAX_QUERY, MAX_LOCATION, MAX_WAIT_S = 2000, 500, 200, 5.0

Executable = (
    ClickAction | TypeAction | ScrollAction | SearchAction | MapsAction | BackAction | WaitAction
)


def visible(obs: Observation, n: int) -> bool:
    labels = obs.labels
    # Executors number labels 0..N-1 in order, so the direct index is almost always a hit.
    if n < len(labels) and labels[n].label == n:
        return True
    return any(el.label == n for el in labels)


def resolve_label(value: Any, obs: Observation, repairs: list[RepairKind]) -> int:
    """A visible integer label, or the Table 45 rejection (missing / prose-only / invisible)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise Rejected(RejectReason.MISSING_TARGET, "empty target")
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise Rejected(RejectReason.INVALID_FIELD, f"target is {type(value).__name__}")
    if isinstance(value, str):
        m = _LABEL_STRING.fullmatch(value)
        if m is None:
            raise Rejected(RejectReason.PROSE_LABEL, f"prose target {value[:40]!r}")
        value = int(m.group(1) or m.group(2))
        if RepairKind.LABEL_STRING not in repairs:
            repairs.append(RepairKind.LABEL_STRING)
    if value < 0:
        raise Rejected(RejectReason.INVALID_FIELD, f"negative target {value}")
    if value > MAX_LABEL:
        raise Rejected(RejectReason.INVALID_FIELD, f"target {value} is above {MAX_LABEL}")
    if not visible(obs, value):
        raise Rejected(RejectReason.INVISIBLE_TARGET, f"label {value} is not visible")
    return value


def _text(d: dict[str, Any], key: str, limit: int, empty: RejectReason) -> str:
    v = d.get(key)
    if v is None:
        raise Rejected(empty, f"missing {key}")
    if not isinstance(v, str):
        raise Rejected(RejectReason.INVALID_FIELD, f"{key} is {type(v).__name__}, not text")
    if not v.strip():
        raise Rejected(empty, f"empty {key}")
    if len(v) > limit:
        raise Rejected(RejectReason.INVALID_FIELD, f"{key} longer than {limit} chars")
    return v


def _reason(d: dict[str, Any], default: str) -> Any:
    r = d.get("reason", default)
    if not isinstance(r, str) or r not in _REASONS:
        raise Rejected(RejectReason.INVALID_FIELD, f"reason must be one of {sorted(_REASONS)}")
    return r


def build_action(
    d: dict[str, Any],
    obs: Observation,
    repairs: list[RepairKind],
    *,
    geographic: bool,
    allow_sensitive: Collection[str] | None = None,
) -> Executable:
    """Canonical dict (see normalize.py) -> one grammar-valid action, or Rejected."""
    for key in ("text", "query", "location"):
        value = d.get(key)
        if isinstance(value, str) and (bad := undecodable(value)) is not None:
            raise Rejected(RejectReason.UNDECODABLE_TEXT, f"{key} holds a {bad}")
    action = _build(d, obs, repairs, geographic=geographic)
    if isinstance(action, TypeAction):
        check_text(action.text, "text")
        check_sensitive(action.text, obs.label(action.target), allow_sensitive)
    elif isinstance(action, SearchAction | MapsAction):
        check_text(action.query, "query")
        if isinstance(action, MapsAction) and action.location:
            check_text(action.location, "location")
    return action


def _build(
    d: dict[str, Any], obs: Observation, repairs: list[RepairKind], *, geographic: bool
) -> Executable:
    kind = d["type"]
    if kind == "click":
        if "target" not in d:
            raise Rejected(RejectReason.MISSING_TARGET, "click without target")
        return ClickAction(target=resolve_label(d["target"], obs, repairs))
    if kind == "type":
        if "target" not in d:
            raise Rejected(RejectReason.MISSING_TARGET, "type without target")
        target = resolve_label(d["target"], obs, repairs)
        text = _text(d, "text", MAX_TEXT, RejectReason.EMPTY_TEXT)
        submit = d.get("submit", False)
        if not isinstance(submit, bool):
            raise Rejected(RejectReason.INVALID_FIELD, "submit must be true or false")
        return TypeAction(target=target, text=text, submit=submit)
    if kind == "scroll":
        direction = d.get("direction", "down")
        if direction not in ("up", "down"):
            raise Rejected(RejectReason.INVALID_FIELD, "direction must be 'up' or 'down'")
        t = d.get("target", "window")
        target = "window" if t == "window" else resolve_label(t, obs, repairs)
        return ScrollAction(target=target, direction=direction)
    if kind == "search":
        return SearchAction(query=_text(d, "query", MAX_QUERY, RejectReason.EMPTY_QUERY))
    if kind == "maps":
        if not geographic:
            raise Rejected(RejectReason.MAPS_NOT_GEOGRAPHIC, "maps on a non-geographic task")
        query = _text(d, "query", MAX_QUERY, RejectReason.EMPTY_QUERY)
        loc = d.get("location")
        if loc is not None and (not isinstance(loc, str) or len(loc) > MAX_LOCATION):
            raise Rejected(RejectReason.INVALID_FIELD, "location must be short text")
        return MapsAction(query=query, location=loc)
    if kind == "back":
        return BackAction(reason=_reason(d, "history"))
    if kind == "wait":
        s = d.get("seconds", 1.0)
        # `not 0 < s <= max` also rejects NaN, which compares false both ways.
        if isinstance(s, bool) or not isinstance(s, int | float) or not 0 < s <= MAX_WAIT_S:
            raise Rejected(RejectReason.INVALID_FIELD, f"seconds must be in (0, {MAX_WAIT_S}]")
        return WaitAction(reason=_reason(d, "loading"), seconds=float(s))
    raise Rejected(RejectReason.UNKNOWN_ACTION, f"unknown action {kind!r}")
