"""The runner's view of one environment episode: reset, observe, execute, status, events."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from contracts.actions import ActionAST
from contracts.observation import Observation
from envs.base import TaskStatus


class StepResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    executed: str = "action"  # action | fallback | none
    ok: bool = True
    error: str | None = None


class Episode(Protocol):
    def reset(self) -> str:
        """Start the episode; return the goal as the page states it."""
        ...

    def observe(self, screenshot: Path | None) -> tuple[Observation, bytes | None]: ...

    def execute(self, ast: ActionAST) -> StepResult: ...

    def status(self) -> TaskStatus: ...

    def drain_events(self) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...
