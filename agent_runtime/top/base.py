"""Top-layer protocol s_t^top = f_top(z, o_<=t, a_<t): WebRider Eq. 2 and Appendix H, Table 42."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from contracts.history import RecentHistory
from contracts.intent import IntentContract
from contracts.observation import Observation
from contracts.top_state import TopState


@runtime_checkable
class TopLayer(Protocol):
    name: str

    def start(self, contract: IntentContract, goal: str) -> None:
        """Begin a rollout; `goal` is the task's instruction as the page states it."""

    def step(self, observation: Observation, history: RecentHistory) -> TopState:
        """Decide browse/ask/answer/stop/block and, when browsing, the next command."""
        ...
