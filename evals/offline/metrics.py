"""Offline action/target match: WebRider Appendix E (metric definitions after Table 35).

AST validity requires a parseable JSON object with a normalized action type and a fallback
object; action match is exact equality of the normalized predicted and guarded-target action
types; target match is exact equality of their visible UI labels, the empty label standing for
actions without a UI target. The three are computed independently, as the paper defines them:
a prediction that lacks its fallback object is AST-invalid but may still match the type.

Type normalization reuses the guard compiler's alias tables (agent_runtime/guards/aliases.py),
so the metric and the runtime agree on what "click_element" or "Go-Back" mean.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from agent_runtime.guards.aliases import (
    FIELD_ALIASES,
    TERMINAL_NAMES,
    TYPE_ALIASES,
    TYPE_KEY_ALIASES,
    canonical_type_name,
)
from contracts.actions import ACTION_TYPES, ActionAST

INVALID = "invalid"
# Action types whose visible UI label is the set-of-mark integer in `target`.
TARGETED_TYPES: frozenset[str] = frozenset({"click", "type", "scroll"})
# "12" and "[12]" name label 12, as the guards' label-string repair reads them.
_LABEL_STRING = re.compile(r"\s*(?:\[\s*([0-9]{1,9})\s*\]|([0-9]{1,9}))\s*")


@dataclass(frozen=True)
class Parsed:
    """What the metrics read from one output: its normalized type, visible label, fallback."""

    obj: dict[str, Any] | None  # the parsed JSON object, None when unparseable / not an object
    action_type: str | None  # normalized type in the grammar, None when there is none
    label: str | None  # visible UI label ("" for target-less actions), None when type is None
    has_fallback: bool
    error: str | None  # why the output is AST-invalid, None when valid

    @property
    def valid(self) -> bool:
        return self.error is None


def parse_object(raw: Any) -> dict[str, Any] | None:
    """The output as one JSON object (strict JSON, no repairs), or None."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return None
    try:
        obj = json.loads(raw.strip())
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def action_body(obj: dict[str, Any]) -> dict[str, Any]:
    """The action part: `obj["action"]` when it is an object, else the bare object itself."""
    act = obj.get("action")
    if isinstance(act, dict):
        return act
    return {k: v for k, v in obj.items() if k != "fallback"}


def normalize_action_type(name: Any) -> str | None:
    """A type name mapped into the grammar through the guards' alias table, or None.

    Terminal labels (answer, ask, stop, ...) and unknown names have no normalized type.
    """
    if not isinstance(name, str):
        return None
    canon = canonical_type_name(name)
    if canon in TERMINAL_NAMES:
        return None
    if canon in ACTION_TYPES:
        return canon
    alias = TYPE_ALIASES.get(canon)
    return alias[0] if alias else None


def _type_value(body: dict[str, Any]) -> Any:
    if "type" in body:
        return body["type"]
    for key in TYPE_KEY_ALIASES:
        if key in body:
            return body[key]
    return None


def label_text(value: Any) -> str:
    """A target value as its visible label text: 12, "12" and "[12]" all read "12"."""
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        m = _LABEL_STRING.fullmatch(value)
        if m is not None:
            return str(int(m.group(1) or m.group(2)))
        return value.strip()
    return json.dumps(value, sort_keys=True)


def target_label(body: dict[str, Any], action_type: str) -> str:
    """The visible UI label an action points at; "" for actions without a UI target.

    click and type point at `target`; scroll does when its target is an element label rather
    than the window; search, maps, back and wait never have a UI target.
    """
    if action_type not in TARGETED_TYPES:
        return ""
    value = body.get("target")
    if value is None:
        value = next((body[a] for a in FIELD_ALIASES["target"] if a in body), None)
    if action_type == "scroll" and (value is None or value == "window"):
        return ""
    return label_text(value)


def parse_output(raw: Any) -> Parsed:
    """Read one predicted output for the three metrics."""
    obj = parse_object(raw)
    if obj is None:
        return Parsed(None, None, None, False, "unparseable")
    body = action_body(obj)
    type_value = _type_value(body)
    action_type = normalize_action_type(type_value)
    has_fallback = isinstance(obj.get("fallback"), dict)
    if action_type is None:
        if type_value is None:
            error = "no_action_type"
        elif isinstance(type_value, str) and canonical_type_name(type_value) in TERMINAL_NAMES:
            error = "terminal_action"
        else:
            error = "unknown_action_type"
        return Parsed(obj, None, None, has_fallback, error)
    label = target_label(body, action_type)
    return Parsed(obj, action_type, label, has_fallback, None if has_fallback else "no_fallback")


def ast_validity(raw: Any) -> bool:
    """Parseable JSON object + normalized action type + fallback object (Appendix E)."""
    return parse_output(raw).valid


def parse_target(target_json: str | dict[str, Any]) -> tuple[str, str]:
    """(type, label) of a guarded target; it must be a grammar-valid ActionAST."""
    ast = (
        ActionAST.model_validate(target_json)
        if isinstance(target_json, dict)
        else ActionAST.model_validate_json(target_json)
    )
    body = ast.action.model_dump()
    return ast.action.type, target_label(body, ast.action.type)


@dataclass(frozen=True)
class ExampleScore:
    target_type: str
    target_label: str
    predicted_type: str | None
    predicted_label: str | None
    ast_valid: bool
    action_match: bool
    target_match: bool
    invalid_reason: str | None
    # Beyond the paper's three: the whole primary action equals the target's (typed text,
    # scroll direction, query...). Target match alone cannot see a wrongly copied text.
    exact_match: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def score_example(raw: Any, target_json: str | dict[str, Any]) -> ExampleScore:
    """Score one prediction against its post-guard target (Appendix E definitions)."""
    t_type, t_label = parse_target(target_json)
    p = parse_output(raw)
    return ExampleScore(
        target_type=t_type,
        target_label=t_label,
        predicted_type=p.action_type,
        predicted_label=p.label,
        ast_valid=p.valid,
        action_match=p.action_type is not None and p.action_type == t_type,
        target_match=p.label is not None and p.label == t_label,
        invalid_reason=p.error,
        exact_match=_same_action(raw, target_json),
    )


def _same_action(raw: Any, target_json: str | dict[str, Any]) -> bool:
    try:
        pred = json.loads(raw) if isinstance(raw, str) else raw
        tgt = json.loads(target_json) if isinstance(target_json, str) else target_json
        return isinstance(pred, dict) and pred.get("action") == tgt.get("action")
    except (ValueError, TypeError):
        return False


def _rate(k: int, n: int) -> float | None:
    return k / n if n else None


def aggregate(scores: list[ExampleScore]) -> dict[str, Any]:
    """Headline rates (fractions in [0, 1]) and their counts."""
    n = len(scores)
    valid = sum(s.ast_valid for s in scores)
    action = sum(s.action_match for s in scores)
    target = sum(s.target_match for s in scores)
    both = sum(s.action_match and s.target_match for s in scores)
    exact = sum(s.exact_match for s in scores)
    return {
        "n": n,
        "exact_action_match": _rate(exact, n),
        "ast_validity": _rate(valid, n),
        "action_match": _rate(action, n),
        "target_match": _rate(target, n),
        "action_and_target_match": _rate(both, n),
        "counts": {
            "ast_valid": valid,
            "action_match": action,
            "target_match": target,
            "action_and_target_match": both,
        },
        "invalid_reasons": dict(Counter(s.invalid_reason for s in scores if s.invalid_reason)),
    }


def per_type(scores: list[ExampleScore]) -> dict[str, dict[str, Any]]:
    """The headline rates broken down by the guarded target's action type."""
    groups: dict[str, list[ExampleScore]] = {}
    for s in scores:
        groups.setdefault(s.target_type, []).append(s)
    order = [t for t in ACTION_TYPES if t in groups]
    out = {}
    for t in order:
        agg = aggregate(groups[t])
        out[t] = {k: agg[k] for k in ("n", "ast_validity", "action_match", "target_match")}
    return out


def confusion_matrix(scores: list[ExampleScore]) -> dict[str, Any]:
    """Counts with rows = target type and cols = predicted type (plus "invalid").

    Rows and columns list every grammar type, so matrices from different runs line up.
    """
    rows = list(ACTION_TYPES)
    cols = [*ACTION_TYPES, INVALID]
    counts = [[0] * len(cols) for _ in rows]
    for s in scores:
        col = s.predicted_type if s.predicted_type is not None else INVALID
        counts[rows.index(s.target_type)][cols.index(col)] += 1
    return {"rows": rows, "cols": cols, "counts": counts}
