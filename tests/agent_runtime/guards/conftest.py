"""Shared guard-test fixtures: the observation in fixtures/ and history builders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contracts.history import RecentAction, RecentHistory
from contracts.observation import Observation

FIXTURES = Path(__file__).parent / "fixtures"


def load_obs(name: str = "observation.json", **update: object) -> Observation:
    obs = Observation.model_validate(json.loads((FIXTURES / name).read_text()))
    if update:
        obs = obs.model_copy(update=update)
    return obs.with_state_hash()


@pytest.fixture
def obs() -> Observation:
    return load_obs()


def history_of(*steps: tuple[str, str, str]) -> RecentHistory:
    """Build a history from (state_hash, action_json, action_type) triples, oldest first."""
    h = RecentHistory()
    for i, (state, action, kind) in enumerate(steps):
        h = h.push(
            RecentAction(
                step_index=i, url="http://x/", action=action, action_type=kind, state_hash=state
            )
        )
    return h
