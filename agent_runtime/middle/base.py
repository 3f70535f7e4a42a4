"""Middle-layer protocol a_t = f_mid(s_top, o_t, h_t): WebRider Eq. 3 and Appendix H, Table 42.

Every middle (heuristic, endpoint/vLLM, embedded) returns raw text only; the guard
compiler alone decides what executes, so all middles pass through the same guards.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from contracts.history import RecentHistory
from contracts.observation import Observation
from contracts.step_row import TokenUsage
from contracts.top_state import TopState


class MiddleInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    top: TopState
    observation: Observation
    history: RecentHistory = Field(default_factory=RecentHistory)
    persona: str = ""
    persona_criterion: str = ""
    protected_constraints: list[str] = Field(default_factory=list)
    geographic: bool = False
    screenshot_png: bytes | None = Field(default=None, exclude=True, repr=False)


class MiddleOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    raw: str
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    usage: TokenUsage | None = None


@runtime_checkable
class MiddlePolicy(Protocol):
    name: str

    def propose(self, inp: MiddleInput) -> MiddleOutput: ...
