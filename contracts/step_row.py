"""Step rows and rollout outcome rows: WebRider Appendix K, Table 60.

A trace file is append-only JSONL mixing `kind="step"` rows and one `kind="outcome"`
row per finished rollout; grouping by rollout_id and sorting by step_index rebuilds
the trajectory and its outcome. This is the only thing the runtime writes and the
exporter reads.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from contracts.actions import ActionAST
from contracts.guard_labels import AccessSignal, GuardReport
from contracts.history import RecentHistory
from contracts.observation import Observation
from contracts.top_state import TopState
from contracts.version import SCHEMA_VERSION


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class ContractRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    contract_id: str
    base_task_id: str
    sha256: str
    persona: str = ""


class TokenUsage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Verification(BaseModel):
    """Table 60 verification group: what the top layer concluded after this step."""

    model_config = ConfigDict(extra="forbid")
    allow_answer: bool = False
    evidence_sufficient: bool = False
    drift: bool = False
    missing_obligations: list[str] = Field(default_factory=list)
    decision: Literal["continue", "recover", "answer", "fail"] = "continue"


class StepOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: Literal["ok", "action_failed", "access_blocked", "runtime_failure", "no_action"] = "ok"
    error: str | None = None
    executed: Literal["action", "fallback", "none"] = "action"
    reward: float | None = None
    done: bool = False
    duration_ms: float = 0.0


class StepRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["step"] = "step"
    schema_version: str = SCHEMA_VERSION
    rollout_id: str
    step_index: int = Field(ge=0)
    contract: ContractRef
    top: TopState
    observation: Observation
    history: RecentHistory = Field(
        default_factory=RecentHistory, description="What the middle saw."
    )
    middle_policy: str = ""
    middle_raw: str | None = None
    middle_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    middle_usage: TokenUsage | None = None
    action: ActionAST | None = Field(default=None, description="Post-guard executable action.")
    guard: GuardReport | None = None
    verification: Verification = Field(default_factory=Verification)
    outcome: StepOutcome = Field(default_factory=StepOutcome)
    timestamp: str = Field(default_factory=_now)


class Gates(BaseModel):
    """Contract-gated success components (Table 16); CGS is their conjunction."""

    model_config = ConfigDict(extra="forbid")
    terminal: bool = False
    hard: bool = False
    evidence: bool = False
    answer: bool = False
    blocker: bool = False
    reasons: list[str] = Field(
        default_factory=list, description="Why each failing gate failed (contract sites)."
    )

    @property
    def cgs(self) -> bool:
        return self.terminal and self.hard and self.evidence and self.answer and self.blocker


class RolloutOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["outcome"] = "outcome"
    schema_version: str = SCHEMA_VERSION
    rollout_id: str
    contract: ContractRef
    env: str = ""
    task: str = ""
    seed: int | None = None
    policy: str = ""
    attempt: int = 0
    success: bool = False
    reward: float | None = None
    raw_reward: float | None = None
    terminal: Literal[
        "answer",
        "ask",
        "stop",
        "block",
        "env_done",
        "step_cap",
        "timeout",
        "runtime_failure",
        "access_failure",
    ] = "env_done"
    gates: Gates | None = None
    access_failure: AccessSignal | None = None
    runtime_failure: str | None = None
    steps: int = 0
    duration_s: float = 0.0
    timestamp: str = Field(default_factory=_now)


TraceRow = Annotated[StepRow | RolloutOutcome, Field(discriminator="kind")]
TRACE_ROW_ADAPTER: TypeAdapter[StepRow | RolloutOutcome] = TypeAdapter(TraceRow)
