"""Run settings: WebRider Appendix D, Tables 19-20 (20-step cap, 900 s per task, one retry)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from serving.endpoint import EndpointSpec


class MiddleSpec(BaseModel):
    """The middle layer a run inserts: the teacher's heuristic, or a served student (its endpoint,
    how it decodes and the interface format it was trained in). Built once from the command line
    (agent_runtime/runner/options.py); the API key never reaches run.json."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    kind: Literal["heuristic", "endpoint"] = "heuristic"
    endpoint: EndpointSpec | None = None
    # Screenshots as image parts; None: as the served (or local) model's config says.
    vision: bool | None = None
    temperature: float = 0.1  # Table 20: action realization at 0.1
    # Decode with the step's grounded schema (agent_runtime/middle/grounded_schema.py).
    grounded_schema: bool = False
    # The interface format the served student was trained in (agent_runtime/middle/format.py);
    # None: paper, or in the offline eval the dataset's own.
    middle_format: Literal["paper", "text-first", "echo"] | None = None

    @model_validator(mode="after")
    def _endpoint_for_kind(self) -> MiddleSpec:
        if self.kind == "endpoint" and self.endpoint is None:
            raise ValueError("an endpoint middle needs --endpoint URL and --model NAME")
        return self

    @property
    def format_name(self) -> str:
        return self.middle_format or "paper"


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
        served = self.middle.endpoint
        return f"{self.top.kind}-top+{self.middle.kind}-middle" + (
            f"({served.model})" if served else ""
        )
