"""Run seeded MiniWoB++ episodes through the runner (traces, guards, executor) in one call."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from agent_runtime.runner.batch import run_batch
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.factories import resources_for
from agent_runtime.runner.traces import load_outcomes
from contracts.step_row import RolloutOutcome
from envs.miniwob.contracts import miniwob_contracts


def run_miniwob(
    tasks: Sequence[str],
    seeds: Sequence[int],
    out: Path | None = None,
    cfg: RunConfig | None = None,
    progress: bool = False,
) -> dict[str, list[RolloutOutcome]]:
    """Outcomes per task in seed order. With `out`, traces stay there and a rerun resumes;
    without it they go to a temporary folder that is removed afterwards."""
    cfg = cfg or RunConfig()
    contracts = miniwob_contracts(tasks, seeds)

    def _run(run_dir: Path) -> dict[str, list[RolloutOutcome]]:
        run_batch(
            contracts, run_dir, cfg, resources=resources_for(cfg, contracts), progress=progress
        )
        by_task: dict[str, list[RolloutOutcome]] = {t: [] for t in tasks}
        for o in load_outcomes(run_dir):
            by_task.setdefault(o.task, []).append(o)
        return {t: sorted(v, key=lambda o: o.seed or 0) for t, v in by_task.items()}

    if out is not None:
        return _run(out)
    with tempfile.TemporaryDirectory(prefix="pathwise-miniwob-") as tmp:
        return _run(Path(tmp))
