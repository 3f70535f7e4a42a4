"""Repeated-state and low-information scroll loops from state hashes: WebRider Tables 45-46."""

from __future__ import annotations

import json

from agent_runtime.guards.grammar import Executable
from contracts.actions import BackAction, FallbackAction, ScrollAction, WaitAction
from contracts.guard_labels import LoopKind
from contracts.history import RecentHistory
from contracts.observation import Observation

# Two earlier tries of the same action from the same state is the third strike.
REPEAT_MIN = 2
# Two scrolls in a row that left the state hash unchanged: a third one adds no information.
SCROLL_LOOP_MIN = 2


def state_hash_of(obs: Observation, history: RecentHistory) -> str:
    """The observation's hash; computed only when the executor left it empty and it matters."""
    if obs.state_hash:
        return obs.state_hash
    if history.state_hashes or history.actions:
        return obs.compute_state_hash()
    return ""


def stalled_scrolls(h: str, history: RecentHistory) -> int:
    """Trailing scrolls taken from the current state (so none of them changed it)."""
    n = 0
    for a in reversed(history.actions):
        if a.action_type != "scroll" or a.state_hash != h:
            break
        n += 1
    return n


def _same_action(recorded: str, action: Executable) -> bool:
    mine = action.model_dump_json(exclude_none=True)
    if recorded == mine:
        return True
    try:  # another writer may order keys differently
        return json.loads(recorded) == action.model_dump(exclude_none=True)
    except ValueError:
        return False


def detect_loop(action: Executable, h: str, history: RecentHistory) -> LoopKind | None:
    if not h:
        return None
    if action.type == "scroll" and stalled_scrolls(h, history) >= SCROLL_LOOP_MIN:
        return LoopKind.SCROLL_LOOP
    if history.state_hashes.count(h) >= REPEAT_MIN:
        same = sum(
            1 for a in history.actions if a.state_hash == h and _same_action(a.action, action)
        )
        if same >= REPEAT_MIN:
            return LoopKind.REPEATED_STATE
    return None


def loop_recovery(
    kind: LoopKind, action: Executable, h: str, history: RecentHistory
) -> FallbackAction:
    """Table 48 recovery bias: BACK, or SCROLL the other way; wait when back itself loops."""
    last = history.actions[-1] if history.actions else None
    back_looped = last is not None and last.action_type == "back" and last.state_hash == h
    if kind is LoopKind.REPEATED_STATE and isinstance(action, ScrollAction):
        flipped = "up" if action.direction == "down" else "down"
        return ScrollAction(target=action.target, direction=flipped)
    if action.type == "back" or back_looped:
        return WaitAction(reason="loop")
    return BackAction(reason="loop")
