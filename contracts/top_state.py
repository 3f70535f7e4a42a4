"""Top-layer state s_t^top: WebRider Eq. 2, Table 42 (top row) and Table 60 (top-state group)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Decision = Literal["browse", "ask", "answer", "stop", "block"]
TERMINAL_DECISIONS: frozenset[str] = frozenset({"ask", "answer", "stop", "block"})


class EvidenceItem(BaseModel):
    """One ledger entry: an obligation covered by something the browser actually showed."""

    model_config = ConfigDict(extra="forbid")
    obligation_id: str
    step_index: int
    url: str = ""
    excerpt: str = ""


class TopState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    intention: str = Field(description="Current intention in words.")
    command: str = Field(default="", description="Compact command handed to the middle layer.")
    active_constraints: list[str] = Field(default_factory=list)
    missing_evidence: list[str] = Field(default_factory=list)
    blockers: list[str] = Field(default_factory=list)
    decision: Decision = "browse"
    expected_observation: str = ""
    ledger: list[EvidenceItem] = Field(default_factory=list)
    answer: str | None = None

    @property
    def is_terminal(self) -> bool:
        return self.decision in TERMINAL_DECISIONS
