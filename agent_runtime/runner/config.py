"""Run settings: WebRider Appendix D, Tables 19-20 (20-step cap, 900 s per task, one retry)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class MiddleSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    kind: Literal["heuristic", "endpoint"] = "heuristic"
    endpoint: str | None = Field(
        default=None, description="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1"
    )
    model: str | None = None
    vision: bool = False
    temperature: float = 0.1  # Table 20: action realization at 0.1
    # Decode with the step's grounded schema (agent_runtime/middle/grounded_schema.py).
    grounded_schema: bool = False
    # The interface format the served student was trained in (agent_runtime/middle/format.py).
    middle_format: Literal["paper", "text-first", "echo"] = "paper"


class TopSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    kind: Literal["rule", "llm"] = "rule"
    endpoint: str | None = None
    model: str | None = None


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    step_cap: int = Field(default=20, ge=1)
    timeout_s: float = Field(default=900.0, gt=0)
    retries: int = Field(default=1, ge=0)
    workers: int = Field(default=1, ge=1)
    seed: int = 20260612
    shard: str | None = None
    screenshots: bool = True
    top: TopSpec = Field(default_factory=TopSpec)
    middle: MiddleSpec = Field(default_factory=MiddleSpec)

    def policy_name(self) -> str:
        if self.top.kind == "rule" and self.middle.kind == "heuristic":
            return "teacher"
        return f"{self.top.kind}-top+{self.middle.kind}-middle" + (
            f"({self.middle.model})" if self.middle.model else ""
        )
