"""A web task as four hooks (after BrowserGym's AbstractBrowserTask)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class TaskSetup(BaseModel):
    model_config = ConfigDict(extra="forbid")
    goal: str = Field(description="The instruction as the page states it (MiniWoB utterance).")
    info: dict[str, Any] = Field(default_factory=dict)
    secrets: dict[str, str] = Field(
        default_factory=dict,
        repr=False,
        description="Values the page asks for that must stay on it (a password): the executor "
        "types them, the agent sees {{secret:NAME}} (contracts/secrets.py).",
    )


class TaskStatus(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reward: float = 0.0
    raw_reward: float = 0.0
    done: bool = False
    reason: str = ""


class WebTask(ABC):
    """One task instance bound to a Playwright page; seeds make episodes reproducible."""

    @abstractmethod
    def setup(self, page: Any, seed: int) -> TaskSetup:
        """Navigate and start the episode; return the goal the top layer reads."""

    @abstractmethod
    def validate(self, page: Any) -> TaskStatus:
        """Read the page's own reward and done flag; never infer success elsewhere."""

    @abstractmethod
    def teardown(self, page: Any) -> None:
        """Release anything setup acquired."""

    @abstractmethod
    def site_key(self) -> str:
        """Key for one-active-rollout-per-site scheduling."""
