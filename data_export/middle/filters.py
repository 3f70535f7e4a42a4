"""Post-guard SFT filters: WebRider Appendix E (34,297 rows -> 27,246; four reasons, in order).

Each step row is tested in the paper's order and excluded under the FIRST reason that applies:

1. ``low_confidence``   - middle_confidence below the threshold (rows without a confidence pass);
2. ``no_action_type``   - no post-guard action (nothing executable, e.g. an external-access stop);
3. ``terminal_action``  - the middle proposed a terminal label (answer/ask/stop/blocked). The Action
   AST grammar cannot represent one, so it is recognised by the guard's ``terminal_label``
   rejection or by the raw proposal's action type (the guard may have substituted a fallback);
4. ``terminal_subgoal`` - the top layer's decision is terminal (anything but ``browse``):
   finalization belongs to the top layer (Appendix H, Table 44).
"""

from __future__ import annotations

import json
import re

from contracts.actions import TERMINAL_LABELS
from contracts.guard_labels import RejectReason
from contracts.step_row import StepRow

DEFAULT_MIN_CONFIDENCE = 0.5
FILTER_REASONS: tuple[str, ...] = (
    "low_confidence",
    "no_action_type",
    "terminal_action",
    "terminal_subgoal",
)
_TERMINAL = frozenset(TERMINAL_LABELS) | {"block", "finish", "final_answer"}
_TERMINAL_HINT = re.compile("|".join(sorted(_TERMINAL)), re.IGNORECASE)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def raw_action_type(raw: str | None) -> str | None:
    """Best-effort action type of the middle's raw text (tolerates fences and prose around JSON)."""
    if not raw:
        return None
    m = _OBJECT.search(raw)
    if not m:
        return None
    try:
        obj = json.loads(m.group(0))
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    inner = obj.get("action", obj)
    t = inner.get("type") if isinstance(inner, dict) else inner
    return t.strip().lower() if isinstance(t, str) else None


def is_terminal_action(row: StepRow) -> bool:
    if row.guard is not None and row.guard.rejection == RejectReason.TERMINAL_LABEL:
        return True
    raw = row.middle_raw
    if raw and _TERMINAL_HINT.search(raw):  # cheap pre-check before any JSON parse
        return raw_action_type(raw) in _TERMINAL
    return False


def exclusion_reason(row: StepRow, min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> str | None:
    """The first filter reason that excludes `row`, or None if it becomes an SFT record."""
    conf = row.middle_confidence
    if conf is not None and conf < min_confidence:
        return "low_confidence"
    if row.action is None:
        return "no_action_type"
    if is_terminal_action(row):
        return "terminal_action"
    if row.top.is_terminal:
        return "terminal_subgoal"
    return None
