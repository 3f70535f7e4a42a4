"""The solver configuration most planner tests share (a 30 s budget, the single best plan)."""

from __future__ import annotations

import pytest

from planner.solver_config import SolverConfig


@pytest.fixture
def cfg() -> SolverConfig:
    return SolverConfig.load(time_budget_s=30, top_k=1)
