"""Fallback synthesis (missing, invalid or needed): WebRider Appendix H, Table 46, Figure 9."""

from __future__ import annotations

from typing import Any

from agent_runtime.guards.grammar import MAX_QUERY, Executable
from agent_runtime.guards.loops import stalled_scrolls
from contracts.actions import (
    BackAction,
    FallbackAction,
    ScrollAction,
    SearchAction,
    WaitAction,
)
from contracts.guard_labels import RejectReason
from contracts.history import RecentHistory
from contracts.observation import Observation

_SCROLL_DOWN = ScrollAction(target="window", direction="down")
_WAIT_LOADING = WaitAction(reason="loading")
_WAIT_DEAD_END = WaitAction(reason="dead_end")
_BACK_HISTORY = BackAction(reason="history")
_BACK_DEAD_END = BackAction(reason="dead_end")
_BACK_STALE = BackAction(reason="stale_state")


def target_absent(obs: Observation, h: str, history: RecentHistory) -> FallbackAction:
    """Table 46 "target absent": look further down, unless there is nothing to see yet
    (wait for loading) or scrolling already stopped changing the page (go back)."""
    if not obs.labels:
        return _WAIT_LOADING
    if h and stalled_scrolls(h, history) >= 1:
        return _BACK_DEAD_END
    return _SCROLL_DOWN


def default_fallback(
    action: Executable, obs: Observation, h: str, history: RecentHistory
) -> FallbackAction:
    """The fallback a well-formed action gets when the model gave none (or an invalid one)."""
    kind = action.type
    if kind in ("click", "type"):
        return target_absent(obs, h, history)
    if kind == "scroll":
        return _BACK_DEAD_END
    if kind == "search":
        return _BACK_HISTORY  # Figure 9: a search falls back with go_back
    if kind == "maps":
        return SearchAction(query=action.query)  # type: ignore[union-attr]  # Figure 9
    if kind == "back":
        return _WAIT_DEAD_END
    return _BACK_STALE  # after a wait: the page is still not usable


def for_rejection(
    reason: RejectReason,
    body: dict[str, Any] | None,
    obs: Observation,
    h: str,
    history: RecentHistory,
) -> FallbackAction:
    """What runs instead of a rejected primary when the model supplied no usable fallback."""
    if reason is RejectReason.MAPS_NOT_GEOGRAPHIC and body is not None:
        q = body.get("query")
        if isinstance(q, str) and q.strip() and len(q) <= MAX_QUERY:
            return SearchAction(query=q)  # Figure 9: maps -> search with the same constraints
    if reason is RejectReason.EMPTY_QUERY:
        return _BACK_HISTORY
    if reason is RejectReason.TERMINAL_LABEL:
        # The middle tried to finalize; observe once and let the top layer decide.
        return _WAIT_DEAD_END
    return target_absent(obs, h, history)


def secondary(
    action: FallbackAction, obs: Observation, h: str, history: RecentHistory
) -> FallbackAction:
    """Fallback of an AST whose action already is a fallback (it never needs a target)."""
    return default_fallback(action, obs, h, history)
