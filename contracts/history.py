"""Bounded recent history h_t: WebRider Eq. 3 and Appendix H, Table 43 ("Recent").

The middle never sees the raw transcript: at most five recent URLs/actions and three
failures, plus the loop counters the guards keep. Bounds are enforced here so every
consumer (guards, middle prompt, SFT exporter) sees the same window.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from contracts.actions import Action, FallbackAction

MAX_RECENT_ACTIONS = 5
MAX_RECENT_FAILURES = 3
MAX_STATE_HASHES = 12


class RecentAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    step_index: int
    url: str
    action: str = Field(description="Compact JSON of the executed action.")
    action_type: str
    state_hash: str = ""
    ok: bool = True


class RecentHistory(BaseModel):
    model_config = ConfigDict(extra="forbid")
    actions: list[RecentAction] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list)
    state_hashes: list[str] = Field(default_factory=list)
    loop_count: int = 0

    def push(self, item: RecentAction, failure: str | None = None) -> RecentHistory:
        """Return a new history with `item` appended and every window re-bounded."""
        failures = [*self.failures, failure] if failure else list(self.failures)
        hashes = (
            [*self.state_hashes, item.state_hash] if item.state_hash else list(self.state_hashes)
        )
        return RecentHistory(
            actions=[*self.actions, item][-MAX_RECENT_ACTIONS:],
            failures=failures[-MAX_RECENT_FAILURES:],
            state_hashes=hashes[-MAX_STATE_HASHES:],
            loop_count=self.loop_count,
        )

    def executed(
        self,
        step: int,
        url: str,
        state_hash: str,
        action: Action | FallbackAction,
        ok: bool,
        error: str | None,
    ) -> RecentHistory:
        """`push` for the action a step executed, with a failure line when it failed."""
        item = RecentAction(
            step_index=step,
            url=url,
            action=action.model_dump_json(exclude_none=True),
            action_type=action.type,
            state_hash=state_hash,
            ok=ok,
        )
        return self.push(item, failure=f"step {step}: {error}" if not ok and error else None)
